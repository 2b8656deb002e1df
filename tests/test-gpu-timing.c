/*
 * test-gpu-timing - GPU kernel timing (cupti/timing.c) and the
 * measurement protocol (cupti/protocol.c) on a real GPU. Exits 77 without
 * one.
 *
 * The kernels are one-thread spin loops on clock64(), compiled through
 * the engine (kjit_kernel_create / kjit_variant_get) and launched raw on
 * the driver table (kjit__cu). The SM clock is measured, not assumed: a
 * spin kernel reads clock64() and %globaltimer at its start and end, and
 * cycles / ns is the reference clock (the device attribute is the
 * maximum boost, printed for comparison).
 *
 *  (a) CUPTI against the clock: a 10 ms spin, timed by CUPTI, is within
 *      2% of cycles / measured clock, and within 2% of its own in-kernel
 *      %globaltimer interval.
 *  (b) CUPTI against CUDA events, on the same launches (events recorded
 *      around each launch inside the timed launch, the stream held by a
 *      long spin so that the launches queue back to back): 10 us, 100 us
 *      and 1 ms spins. 1 ms and 100 us agree within 2%. Events include a
 *      constant GPU-side launch cost that CUPTI does not (GPU.md: CUPTI
 *      0.6-0.8% shorter at 225-310 us, about 1.8 us): at 10 us the test
 *      asks for 2% once the offset measured at 1 ms is taken off, and
 *      prints the raw figure.
 *  (c) Correlation across two streams: variant A (20 us) and B (200 us),
 *      interleaved on two streams through kjit__timer_launch_tagged
 *      (durations come back through the sink by tag), then two threads
 *      timing A and B at once with kjit__timer_run on two timers (the
 *      refcounted process-wide CUPTI state): every duration is its own
 *      variant's.
 *  (d) kjit__protocol_measure on a 50 us spin converges (CI within 1%);
 *      cold L2 records cold_l2, leaves the spin's median alone (the
 *      memset is not timed) and slows an L2-resident saxpy down.
 *  (e) The events timer (KJIT_TIMER=events) on the same GPU: the
 *      protocol converges and agrees with CUPTI.
 *  (f) A refused launch returns KJIT_ERR_LAUNCH and the timer still works.
 *  (g) CUPTI set up and torn down again: closing the last timer and
 *      opening a new one, three times, still times (and what an open and
 *      close cost is printed).
 *
 * CUPTI must be usable (the test fails otherwise, saying why), unless
 * KJIT_TEST_TIMER_EVENTS_OK=1: then, as under compute-sanitizer or
 * Nsight, everything runs on the events timer and the tagged launches of
 * (c) are skipped.
 */
#include "testutil.h"

#include <math.h>
#include <pthread.h>

#include "instr.h"

static const char *spin_source =
	"#ifndef VARIANT\n"
	"#define VARIANT 0\n"
	"#endif\n"
	"extern \"C\" __global__ void spin(long long cycles, unsigned long long *out)\n"
	"{\n"
	"\tunsigned long long g0, g1;\n"
	"\tasm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g0));\n"
	"\tlong long t0 = clock64(), t1;\n"
	"\tdo {\n"
	"\t\tt1 = clock64();\n"
	"\t} while (t1 - t0 < cycles);\n"
	"\tasm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g1));\n"
	"\tif (out) {\n"
	"\t\tout[0] = (unsigned long long)(t1 - t0);\n"
	"\t\tout[1] = g1 - g0;\n"
	"\t\tout[2] = VARIANT;\n"
	"\t}\n"
	"}\n";

static const kjit__cu_api *cu;
static double clock_ghz; /* measured SM clock, cycles per ns */
static kjit__timer_kind main_kind = KJIT__TIMER_CUPTI;

#define CU(call)                                                                    \
	do {                                                                        \
		CUresult r_ = (call);                                               \
		if (r_ != CUDA_SUCCESS)                                             \
			TU_FAIL("%s: %s", #call, kjit__cu_error_name(r_));          \
	} while (0)

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_of(const double *v, size_t n)
{
	double *c = malloc(n * sizeof *c);
	CHECK(c != NULL);
	memcpy(c, v, n * sizeof *c);
	qsort(c, n, sizeof *c, cmp_d);
	double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
	free(c);
	return m;
}

/* ---- launching spins -------------------------------------------------------- */

typedef struct spin {
	CUfunction f;
	long long cycles;
	CUdeviceptr out;       /* 0: no output; else 3 words per launch */
	CUevent *ev_start, *ev_end; /* NULL: no events */
	size_t i;              /* launches so far */
} spin;

static CUresult launch_spin(void *arg, CUstream stream)
{
	spin *s = arg;
	CUdeviceptr out = s->out ? s->out + s->i * 3 * sizeof(unsigned long long) : 0;
	void *args[] = { &s->cycles, &out };
	CUresult r;
	if (s->ev_start && (r = cu->cuEventRecord(s->ev_start[s->i], stream)) != CUDA_SUCCESS)
		return r;
	r = cu->cuLaunchKernel(s->f, 1, 1, 1, 1, 1, 1, 0, stream, args, NULL);
	if (r != CUDA_SUCCESS)
		return r;
	if (s->ev_end && (r = cu->cuEventRecord(s->ev_end[s->i], stream)) != CUDA_SUCCESS)
		return r;
	s->i++;
	return CUDA_SUCCESS;
}

static spin spin_of(CUfunction f, double ns)
{
	spin s;
	memset(&s, 0, sizeof s);
	s.f = f;
	s.cycles = (long long)(ns * clock_ghz);
	return s;
}

/* Holds the stream for about ms so that what follows queues up. */
static void hold_stream(CUfunction f, CUstream stream, double ms)
{
	spin s = spin_of(f, ms * 1e6);
	CU(launch_spin(&s, stream));
}

static CUfunction spin_function(kjit_kernel *k, int variant)
{
	char value[16];
	snprintf(value, sizeof value, "%d", variant);
	kjit_define def = { "VARIANT", value };
	kjit_variant_desc desc;
	memset(&desc, 0, sizeof desc);
	desc.defines = &def;
	desc.n_defines = 1;
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(k, &desc, &v, NULL));
	void *fn = NULL;
	CHECK_OK(kjit_variant_function(v, &fn));
	return (CUfunction)fn;
}

/* The SM clock in GHz: a spin of `cycles` reads clock64() and
 * %globaltimer at both ends. */
static double measure_clock(CUfunction f, long long cycles)
{
	CUdeviceptr out;
	CU(cu->cuMemAlloc(&out, 3 * sizeof(unsigned long long)));
	double ghz[3];
	for (int i = 0; i < 3; i++) {
		spin s;
		memset(&s, 0, sizeof s);
		s.f = f;
		s.cycles = cycles;
		s.out = out;
		CU(launch_spin(&s, NULL));
		CU(cu->cuCtxSynchronize());
		unsigned long long w[3];
		CU(cu->cuMemcpyDtoH(w, out, sizeof w));
		CHECK(w[1] > 0);
		ghz[i] = (double)w[0] / (double)w[1];
	}
	CU(cu->cuMemFree(out));
	return median_of(ghz, 3);
}

/* ---- (a) CUPTI against the SM clock --------------------------------------------- */

static void test_clock(kjit__timer *t, CUfunction f, CUstream stream)
{
	const double len_ns = 10e6; /* 10 ms */
	enum { N = 5 };
	spin s = spin_of(f, len_ns);
	CU(cu->cuMemAlloc(&s.out, N * 3 * sizeof(unsigned long long)));
	double d[N];
	CHECK_OK(kjit__timer_run(t, launch_spin, &s, stream, N, 0, d));
	unsigned long long w[N * 3];
	CU(cu->cuMemcpyDtoH(w, s.out, sizeof w));
	CU(cu->cuMemFree(s.out));
	double after = measure_clock(f, s.cycles);
	double ref = 0.5 * (clock_ghz + after); /* clock before and after */
	if (fabs(after - clock_ghz) / clock_ghz > 0.01)
		printf("  note: the SM clock moved from %.4f to %.4f GHz during the test\n", clock_ghz,
		       after);
	for (int i = 0; i < N; i++) {
		double want = (double)w[3 * i] / ref, gt = (double)w[3 * i + 1];
		double rel = (d[i] - want) / want, rel_gt = (d[i] - gt) / gt;
		printf("  launch %d: CUPTI %.1f us, cycles/clock %.1f us (%+.3f%%), in-kernel "
		       "globaltimer %.1f us (%+.3f%%)\n",
		       i, d[i] * 1e-3, want * 1e-3, 100 * rel, gt * 1e-3, 100 * rel_gt);
		CHECK_MSG(fabs(rel) <= 0.02, "CUPTI %.1f ns vs %.1f ns from the clock", d[i], want);
		CHECK_MSG(fabs(rel_gt) <= 0.02, "CUPTI %.1f ns vs %%globaltimer %.1f ns", d[i], gt);
	}
	OK("(a) 10 ms spins: CUPTI within 2%% of cycles / %.4f GHz and of %%globaltimer", ref);
}

/* ---- (b) CUPTI against events ----------------------------------------------------- */

static void test_vs_events(kjit__timer *t, CUfunction f, CUstream stream)
{
	enum { N = 20 };
	static const double lens_us[] = { 1000, 100, 10 }; /* 1 ms first: its offset */
	CUevent ev_start[N], ev_end[N];
	for (int i = 0; i < N; i++) {
		CU(cu->cuEventCreate(&ev_start[i], CU_EVENT_DEFAULT));
		CU(cu->cuEventCreate(&ev_end[i], CU_EVENT_DEFAULT));
	}
	double offset_1ms = 0;
	for (int l = 0; l < 3; l++) {
		double len = lens_us[l] * 1e3;
		spin s = spin_of(f, len);
		s.ev_start = ev_start;
		s.ev_end = ev_end;
		double d[N], diff[N], rel[N];
		/* two rounds: the first warms up; the stream is held by a 5 ms
		 * spin so that the launches run back to back */
		for (int round = 0; round < 2; round++) {
			s.i = 0;
			hold_stream(f, stream, 5);
			CHECK_OK(kjit__timer_run(t, launch_spin, &s, stream, N, 0, d));
		}
		for (int i = 0; i < N; i++) {
			float ms = 0;
			CU(cu->cuEventElapsedTime(&ms, ev_start[i], ev_end[i]));
			diff[i] = (double)ms * 1e6 - d[i];
			rel[i] = diff[i] / d[i];
		}
		double md = median_of(diff, N), mr = median_of(rel, N), mc = median_of(d, N);
		if (l == 0)
			offset_1ms = md;
		double rel_net = (md - offset_1ms) / mc;
		printf("  %6.0f us spin: CUPTI median %.2f us, events - CUPTI %+.3f us (%+.3f%%); "
		       "less the 1 ms offset %+.3f%%\n",
		       lens_us[l], mc * 1e-3, md * 1e-3, 100 * mr, 100 * rel_net);
		/* Events add a fixed cost per launch (their own records around the
		 * kernel: about 3 us on the H200, so 3% of a 100 us kernel): the
		 * two timers agree once that constant is taken off, and it is the
		 * same constant at every length. */
		CHECK_MSG(fabs(md - offset_1ms) <= 500, "%.0f us: events - CUPTI = %.3f us, not the "
		          "%.3f us seen at 1 ms", lens_us[l], md * 1e-3, offset_1ms * 1e-3);
		CHECK_MSG(fabs(mr) <= 0.02 || fabs(rel_net) <= 0.02,
		          "%.0f us: events and CUPTI differ by %.3f%% (%.3f%% less the "
		          "constant %.3f us seen at 1 ms)",
		          lens_us[l], 100 * mr, 100 * rel_net, offset_1ms * 1e-3);
		/* Launch by launch, too, allowing for the host-side jitter of an
		 * event record (a few microseconds, now and then). */
		int off = 0;
		for (int i = 0; i < N; i++)
			if (fabs(diff[i] - md) > 0.02 * d[i] + 1000) {
				printf("    launch %d of the %.0f us spin: events - CUPTI = %.1f ns, median "
				       "%.1f ns\n", i, lens_us[l], diff[i], md);
				off++;
			}
		CHECK_MSG(off <= N / 10, "%d of %d launches of the %.0f us spin off the median "
		          "difference", off, N, lens_us[l]);
	}
	for (int i = 0; i < N; i++) {
		CU(cu->cuEventDestroy(ev_start[i]));
		CU(cu->cuEventDestroy(ev_end[i]));
	}
	OK("(b) CUPTI and events agree on the same launches (10 us, 100 us, 1 ms)");
}

/* ---- (c) two variants, two streams ----------------------------------------------- */

#define N_TAGGED 40

typedef struct tag_log {
	pthread_mutex_t lock;
	double ns[N_TAGGED];
	int seen[N_TAGGED];
	int count, bad;
} tag_log;

static void tag_sink(void *ctx, uint64_t tag, double ns)
{
	tag_log *l = ctx;
	pthread_mutex_lock(&l->lock);
	if (tag < N_TAGGED && !l->seen[tag]) {
		l->seen[tag] = 1;
		l->ns[tag] = ns;
		l->count++;
	} else {
		l->bad++;
	}
	pthread_mutex_unlock(&l->lock);
}

typedef struct thread_job {
	kjit__timer *timer;
	spin s;
	CUstream stream;
	size_t n;
	double d[64];
	kjit_status st;
	char err[512];
} thread_job;

static void *thread_run(void *arg)
{
	thread_job *j = arg;
	j->st = kjit__timer_run(j->timer, launch_spin, &j->s, j->stream, j->n, 0, j->d);
	if (j->st != KJIT_OK)
		snprintf(j->err, sizeof j->err, "%s", kjit_last_error());
	return NULL;
}

static void check_near(const char *what, double got, double want, double lo, double hi)
{
	CHECK_MSG(got >= want * lo && got <= want * hi, "%s: %.1f ns, expected %.1f ns (x%.2f..%.2f)",
	          what, got, want, lo, hi);
}

static void test_two_streams(kjit__timer *t, CUfunction fa, CUfunction fb)
{
	CUstream s1, s2;
	CU(cu->cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	CU(cu->cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	const double a_ns = 20e3, b_ns = 200e3;

	/* c1: tagged launches, interleaved, results through the sink */
	if (main_kind != KJIT__TIMER_CUPTI) {
		printf("  (c1) skipped: tagged launches need CUPTI\n");
		goto threads;
	}
	tag_log log;
	memset(&log, 0, sizeof log);
	CHECK(pthread_mutex_init(&log.lock, NULL) == 0);
	kjit__timer_set_sink(t, tag_sink, &log);
	spin a = spin_of(fa, a_ns), b = spin_of(fb, b_ns);
	for (uint64_t tag = 0; tag < N_TAGGED; tag++) {
		if (tag % 2 == 0)
			CHECK_OK(kjit__timer_launch_tagged(t, launch_spin, &a, s1, tag));
		else
			CHECK_OK(kjit__timer_launch_tagged(t, launch_spin, &b, s2, tag));
	}
	CU(cu->cuStreamSynchronize(s1));
	CU(cu->cuStreamSynchronize(s2));
	double t0 = tu_now();
	for (;;) {
		CHECK_OK(kjit__timer_poll(t));
		pthread_mutex_lock(&log.lock);
		int count = log.count;
		pthread_mutex_unlock(&log.lock);
		if (count == N_TAGGED)
			break;
		CHECK_MSG(tu_now() - t0 < 5, "only %d of %d tagged durations after 5 s", count,
		          N_TAGGED);
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	kjit__timer_set_sink(t, NULL, NULL);
	CHECK(log.bad == 0);
	for (int tag = 0; tag < N_TAGGED; tag++) {
		if (tag % 2 == 0)
			check_near("tagged A (20 us)", log.ns[tag], a_ns, 0.98, 1.25);
		else
			check_near("tagged B (200 us)", log.ns[tag], b_ns, 0.98, 1.05);
	}
	printf("  tagged: A %.2f us, B %.2f us (first of each)\n", log.ns[0] * 1e-3,
	       log.ns[1] * 1e-3);
	pthread_mutex_destroy(&log.lock);
	OK("(c1) %d tagged launches on two streams, each duration back under its own tag",
	   N_TAGGED);

threads:;
	/* c2: two threads, two timers, at once */
	kjit__timer *t2 = NULL;
	CHECK_OK(kjit__timer_open(cu, NULL, &t2));
	CHECK(kjit__timer_kind_of(t2) == main_kind);
	thread_job ja, jb;
	memset(&ja, 0, sizeof ja);
	memset(&jb, 0, sizeof jb);
	ja.timer = t;
	ja.s = spin_of(fa, a_ns);
	ja.stream = s1;
	ja.n = 60;
	jb.timer = t2;
	jb.s = spin_of(fb, b_ns);
	jb.stream = s2;
	jb.n = 12;
	for (int round = 0; round < 3; round++) {
		ja.s.i = jb.s.i = 0;
		pthread_t ta, tb;
		CHECK(pthread_create(&ta, NULL, thread_run, &ja) == 0);
		CHECK(pthread_create(&tb, NULL, thread_run, &jb) == 0);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		CHECK_MSG(ja.st == KJIT_OK, "thread A: %s: %s", kjit_status_str(ja.st), ja.err);
		CHECK_MSG(jb.st == KJIT_OK, "thread B: %s: %s", kjit_status_str(jb.st), jb.err);
		for (size_t i = 0; i < ja.n; i++)
			check_near("thread A (20 us)", ja.d[i], a_ns, 0.98, 1.25);
		for (size_t i = 0; i < jb.n; i++)
			check_near("thread B (200 us)", jb.d[i], b_ns, 0.98, 1.05);
	}
	printf("  threads: A median %.2f us (n=%zu), B median %.2f us (n=%zu)\n",
	       median_of(ja.d, ja.n) * 1e-3, ja.n, median_of(jb.d, jb.n) * 1e-3, jb.n);
	kjit__timer_close(t2);
	OK("(c2) two threads timing A and B on two streams at once: every duration its own");

	CU(cu->cuStreamDestroy(s1));
	CU(cu->cuStreamDestroy(s2));
}

/* ---- (d) the protocol ----------------------------------------------------------------- */

typedef struct saxpy_launch {
	CUfunction f;
	long long n;
	float a;
	CUdeviceptr x, y;
	unsigned grid, block;
} saxpy_launch;

static CUresult launch_saxpy(void *arg, CUstream stream)
{
	saxpy_launch *s = arg;
	void *args[] = { &s->n, &s->a, &s->x, &s->y };
	return cu->cuLaunchKernel(s->f, s->grid, 1, 1, s->block, 1, 1, 0, stream, args, NULL);
}

static void print_m(const char *what, const kjit__measurement *m)
{
	printf("  %s: %s by %s, n=%zu, median %.3f us, CI [%.3f, %.3f] (%.3f%%), spread %.3f "
	       "us, wall %.1f ms%s\n",
	       what, kjit__stop_name(m->stop), kjit__timer_name(m->timer), m->n,
	       m->median_ns * 1e-3, m->ci_low_ns * 1e-3, m->ci_high_ns * 1e-3,
	       100 * (m->ci_high_ns - m->ci_low_ns) / m->median_ns, m->spread_ns * 1e-3,
	       m->wall_ms, m->cold_l2 ? ", cold L2" : "");
}

static double test_protocol(kjit__timer *t, CUfunction f, kjit_engine *e, CUstream stream)
{
	kjit__protocol_opts o;
	kjit__protocol_defaults(&o);
	spin s = spin_of(f, 50e3);
	kjit__measurement m;
	CHECK_OK(kjit__protocol_measure(t, launch_spin, &s, stream, &o, &m));
	print_m("50 us spin", &m);
	CHECK(m.timer == main_kind);
	CHECK(m.stop == KJIT__STOP_CONVERGED);
	CHECK((m.ci_high_ns - m.ci_low_ns) / m.median_ns <= 0.01);
	check_near("50 us spin median", m.median_ns, 50e3, 0.98, 1.06);
	CHECK(m.cold_l2 == 0 && m.n >= 10 && m.samples_ns);
	double warm = m.median_ns;
	kjit__measurement_free(&m);
	OK("(d) the protocol converges on a 50 us spin: median %.3f us", warm * 1e-3);

	o.cold_l2 = 1;
	CHECK_OK(kjit__protocol_measure(t, launch_spin, &s, stream, &o, &m));
	print_m("50 us spin", &m);
	CHECK(m.cold_l2 == 1);
	CHECK(m.stop == KJIT__STOP_CONVERGED);
	CHECK_MSG(fabs(m.median_ns - warm) / warm <= 0.02,
	          "cold-L2 median %.1f ns vs warm %.1f ns: the memset leaked into the timing?",
	          m.median_ns, warm);
	kjit__measurement_free(&m);
	OK("(d) cold L2 on the spin: recorded, and the flush is not timed");

	/* saxpy on 2^22 floats: x and y (32 MiB) fit in the L2 */
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 256, 4);
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, NULL));
	void *fn = NULL;
	CHECK_OK(kjit_variant_function(v, &fn));
	saxpy_launch sx;
	memset(&sx, 0, sizeof sx);
	sx.f = (CUfunction)fn;
	sx.n = 1ll << 22;
	sx.a = 2.0f;
	sx.block = 256;
	sx.grid = (unsigned)((sx.n + 1023) / 1024);
	CU(cu->cuMemAlloc(&sx.x, (size_t)sx.n * sizeof(float)));
	CU(cu->cuMemAlloc(&sx.y, (size_t)sx.n * sizeof(float)));
	CU(cu->cuMemsetD8(sx.x, 0, (size_t)sx.n * sizeof(float)));
	CU(cu->cuMemsetD8(sx.y, 0, (size_t)sx.n * sizeof(float)));
	o.cold_l2 = 0;
	CHECK_OK(kjit__protocol_measure(t, launch_saxpy, &sx, stream, &o, &m));
	print_m("saxpy 2^22", &m);
	double sw = m.median_ns;
	kjit__measurement_free(&m);
	o.cold_l2 = 1;
	CHECK_OK(kjit__protocol_measure(t, launch_saxpy, &sx, stream, &o, &m));
	print_m("saxpy 2^22", &m);
	double sc = m.median_ns;
	CHECK(m.cold_l2 == 1);
	kjit__measurement_free(&m);
	CU(cu->cuMemFree(sx.x));
	CU(cu->cuMemFree(sx.y));
	CHECK_MSG(sc > 1.02 * sw, "saxpy on 32 MiB: cold L2 %.3f us, warm %.3f us", sc * 1e-3,
	          sw * 1e-3);
	OK("(d) cold L2 slows an L2-resident saxpy: %.3f us warm, %.3f us cold (x%.2f)", sw * 1e-3,
	   sc * 1e-3, sc / sw);
	return warm;
}

/* ---- (e) the events timer ------------------------------------------------------------- */

static void test_events_timer(CUfunction f, CUstream stream, double cupti_50us)
{
	CHECK(setenv("KJIT_TIMER", "events", 1) == 0);
	kjit__timer *t = NULL;
	CHECK_OK(kjit__timer_open(cu, NULL, &t));
	CHECK(unsetenv("KJIT_TIMER") == 0);
	CHECK(kjit__timer_kind_of(t) == KJIT__TIMER_EVENTS);
	kjit__protocol_opts o;
	kjit__protocol_defaults(&o);
	spin s = spin_of(f, 50e3);
	kjit__measurement m;
	CHECK_OK(kjit__protocol_measure(t, launch_spin, &s, stream, &o, &m));
	print_m("50 us spin", &m);
	CHECK(m.timer == KJIT__TIMER_EVENTS);
	CHECK(m.stop == KJIT__STOP_CONVERGED);
	double diff = m.median_ns - cupti_50us;
	CHECK_MSG(fabs(diff) <= 0.02 * cupti_50us + 2500,
	          "events %.1f ns vs CUPTI %.1f ns", m.median_ns, cupti_50us);
	kjit__measurement_free(&m);
	/* cold L2 with events: the memset is before the start event */
	o.cold_l2 = 1;
	CHECK_OK(kjit__protocol_measure(t, launch_spin, &s, stream, &o, &m));
	print_m("50 us spin", &m);
	CHECK(m.cold_l2 == 1);
	CHECK_MSG(fabs(m.median_ns - cupti_50us) <= 0.02 * cupti_50us + 2500,
	          "events cold %.1f ns vs CUPTI %.1f ns", m.median_ns, cupti_50us);
	kjit__measurement_free(&m);
	CHECK_ST(kjit__timer_launch_tagged(t, launch_spin, &s, stream, 1), KJIT_ERR_NOT_FOUND);
	kjit__timer_close(t);
	OK("(e) events timer: converges, %+.3f us from CUPTI at 50 us", diff * 1e-3);
}

/* ---- (f) a refused launch -------------------------------------------------------------- */

static CUresult launch_too_big(void *arg, CUstream stream)
{
	spin *s = arg;
	CUdeviceptr out = 0;
	void *args[] = { &s->cycles, &out };
	return cu->cuLaunchKernel(s->f, 1, 1, 1, 4096, 1, 1, 0, stream, args, NULL);
}

static void test_refused(kjit__timer *t, CUfunction f, CUstream stream)
{
	spin s = spin_of(f, 10e3);
	double d[4];
	CHECK_ST(kjit__timer_run(t, launch_too_big, &s, stream, 4, 0, d), KJIT_ERR_LAUNCH);
	printf("  refused: %s\n", kjit_last_error());
	CHECK_OK(kjit__timer_run(t, launch_spin, &s, stream, 4, 0, d));
	for (int i = 0; i < 4; i++)
		check_near("10 us spin after a refused launch", d[i], 10e3, 0.98, 1.5);
	OK("(f) a refused launch: KJIT_ERR_LAUNCH, and the timer still times");
}

/* ---- (g) tear down and set up again ---------------------------------------------------- */

static void test_reopen(CUfunction f, CUstream stream)
{
	for (int i = 0; i < 3; i++) {
		double t0 = tu_now();
		kjit__timer *t = NULL;
		CHECK_OK(kjit__timer_open(cu, NULL, &t));
		double t1 = tu_now();
		CHECK(kjit__timer_kind_of(t) == main_kind);
		spin s = spin_of(f, 10e3);
		double d[5];
		CHECK_OK(kjit__timer_run(t, launch_spin, &s, stream, 5, 0, d));
		for (int k = 0; k < 5; k++)
			check_near("10 us spin after a reopen", d[k], 10e3, 0.98, 1.5);
		double t2 = tu_now();
		kjit__timer_close(t);
		double t3 = tu_now();
		printf("  reopen %d: open %.3f ms, 5 launches %.3f ms, close %.3f ms\n", i + 1,
		       (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3);
	}
	OK("(g) the last timer closed and a new one opened, 3 times: still timing");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH];
	tu_path(db, dir, "timing.db");
	kjit_engine_options eo;
	kjit_engine_options_init(&eo);
	eo.db_path = db;
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&eo, &e);
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);
	CHECK_OK(kjit_engine_make_current(e));
	cu = kjit__cu(&st);
	CHECK(cu != NULL);
	printf("  device: %s (%s)\n", kjit_engine_device_name(e), kjit_engine_arch(e));

	static const char *const params[] = { "VARIANT" };
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "spin", spin_source, params, 1, &k));
	CUfunction fa = spin_function(k, 1), fb = spin_function(k, 2);
	CHECK(fa != fb);

	/* the reference clock; the attribute (max boost) for comparison */
	CU(cu->cuCtxSynchronize());
	(void)measure_clock(fa, 2000000); /* wake the clocks */
	clock_ghz = measure_clock(fa, 20000000);
	CUdevice dev;
	int khz = 0;
	CU(cu->cuCtxGetDevice(&dev));
	CU(cu->cuDeviceGetAttribute(&khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev));
	printf("  SM clock: measured %.4f GHz (clock64 / %%globaltimer), attribute %.4f GHz "
	       "(%+.2f%%)\n",
	       clock_ghz, khz * 1e-6, 100 * (clock_ghz - khz * 1e-6) / (khz * 1e-6));
	CHECK(clock_ghz > 0.3 && clock_ghz < 5);

	unsetenv("KJIT_TIMER");
	kjit__timer *t = NULL;
	CHECK_OK(kjit__timer_open(cu, NULL, &t));
	main_kind = kjit__timer_kind_of(t);
	if (main_kind != KJIT__TIMER_CUPTI) {
		const char *ok = getenv("KJIT_TEST_TIMER_EVENTS_OK");
		CHECK_MSG(ok && strcmp(ok, "1") == 0,
		          "CUPTI is not usable here (KJIT_TEST_TIMER_EVENTS_OK=1 runs on events): %s",
		          kjit_last_error());
		printf("  note: CUPTI is not usable (%s); on events (KJIT_TEST_TIMER_EVENTS_OK)\n",
		       kjit_last_error());
	}
	OK("timer: %s", kjit__timer_name(kjit__timer_kind_of(t)));

	CUstream stream;
	CU(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

	test_clock(t, fa, stream);
	test_vs_events(t, fa, stream);
	test_two_streams(t, fa, fb);
	double cupti_50us = test_protocol(t, fa, e, stream);
	test_refused(t, fa, stream);
	kjit__timer_close(t);
	test_reopen(fa, stream);
	test_events_timer(fa, stream, cupti_50us);

	CU(cu->cuStreamDestroy(stream));
	kjit_engine_close(e);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
