/*
 * bench-measure - the measurement protocol (cupti/protocol.c) on a real
 * GPU: how stable its medians are, and what it costs against the fixed
 * schemes of Kernel Tuner and Triton.
 *
 * (1) Stability. saxpy (examples/saxpy/saxpy.cu, BLOCK_SIZE 256,
 *     ITEMS_PER_THREAD 4) on 2^24 floats (201 MB moved, ~56 us on an
 *     H200), warm L2, measured with the default protocol in --runs
 *     separate processes (re-executing /proc/self/exe), once with the
 *     CUPTI timer and once with KJIT_TIMER=events in the children's
 *     environment. Figure: (max - min) / median of the per-process
 *     medians. Target: <= 0.5% for CUPTI; events: info.
 *
 * (2) Cost. Wall time to a median with a 1% confidence interval (the
 *     default protocol, CUPTI timer, warm-up included; a kernel whose
 *     interval cannot reach 1%, such as one with two modes, stops at the
 *     default 100 ms budget) against
 *       - Kernel Tuner's fixed scheme: 1 untimed launch, then 7 launches,
 *         each between two CUDA events and synchronised; the mean;
 *       - Triton's do_bench: 5 launches to estimate, then 25 ms worth of
 *         warm-up launches and 100 ms worth of repetitions, each between
 *         two events (created up front, as do_bench does); the mean.
 *         do_bench also zeroes a 256 MB buffer before each repetition
 *         (cold L2); that is left out here so that the three methods time
 *         the same warm-L2 kernel;
 *     on saxpy of 2^21, 2^24 and 2^28 floats (about 5 us, 50 us and 1 ms).
 *     Each method runs --reps times (default 3), alternating; figures are
 *     medians. Also reported: each method's estimate against the
 *     protocol's median. Target: protocol wall <= Triton's; the rest info.
 *
 * Needs a GPU; without one it prints "skipped: no GPU" and exits 0.
 */
#include "config.h"

#include <math.h>
#include <sys/wait.h>

#include "benchutil.h"
#include "instr.h"

static const kjit__cu_api *cu;

typedef struct saxpy_args {
	CUfunction f;
	long long n;
	float a;
	CUdeviceptr x, y;
	unsigned grid, block;
} saxpy_args;

static CUresult launch_saxpy(void *arg, CUstream stream)
{
	saxpy_args *s = arg;
	void *args[] = { &s->n, &s->a, &s->x, &s->y };
	return cu->cuLaunchKernel(s->f, s->grid, 1, 1, s->block, 1, 1, 0, stream, args, NULL);
}

/* Opens the engine on db, compiles (or finds) the saxpy variant and
 * allocates x and y for max_n floats. NULL engine: no GPU (reason in
 * *why). */
static kjit_engine *setup(const char *db, long long max_n, saxpy_args *s, const char **why)
{
	kjit_engine *e = bench_engine_open(db, NULL, 0);
	if (!kjit_engine_has_gpu(e)) {
		*why = kjit_engine_gpu_reason(e);
		return e;
	}
	kjit_status st;
	cu = kjit__cu(&st);
	if (!cu)
		BENCH_KJIT(st);
	kjit_kernel *k;
	BENCH_KJIT(kjit_kernel_create_from_file(e, "saxpy", bench_saxpy_path(), bench_saxpy_params(),
	                                        2, &k));
	kjit_define defs[2] = { { "BLOCK_SIZE", "256" }, { "ITEMS_PER_THREAD", "4" } };
	kjit_variant_desc desc;
	memset(&desc, 0, sizeof desc);
	desc.defines = defs;
	desc.n_defines = 2;
	kjit_variant *v;
	BENCH_KJIT(kjit_variant_get(k, &desc, &v, NULL));
	void *fn = NULL;
	BENCH_KJIT(kjit_variant_function(v, &fn));
	BENCH_KJIT(kjit_engine_make_current(e));
	memset(s, 0, sizeof *s);
	s->f = (CUfunction)fn;
	s->a = 2.0f;
	s->block = 256;
	BENCH_CU(cu->cuMemAlloc(&s->x, (size_t)max_n * sizeof(float)));
	BENCH_CU(cu->cuMemAlloc(&s->y, (size_t)max_n * sizeof(float)));
	BENCH_CU(cu->cuMemsetD8(s->x, 0, (size_t)max_n * sizeof(float)));
	BENCH_CU(cu->cuMemsetD8(s->y, 0, (size_t)max_n * sizeof(float)));
	BENCH_CU(cu->cuCtxSynchronize());
	*why = NULL;
	return e;
}

static void set_size(saxpy_args *s, long long n)
{
	s->n = n;
	s->grid = (unsigned)((n + 1023) / 1024);
}

static void teardown(kjit_engine *e, saxpy_args *s)
{
	if (s->x)
		(void)cu->cuMemFree(s->x);
	if (s->y)
		(void)cu->cuMemFree(s->y);
	kjit_engine_close(e);
}

static kjit__timer *open_timer(void)
{
	kjit__timer *t = NULL;
	BENCH_KJIT(kjit__timer_open(cu, NULL, &t));
	return t;
}

/* ---- (1) stability: one measurement per process --------------------------------- */

#define STABILITY_LOG2 24

/* The child: one protocol measurement, one line on stdout. */
static int child_main(const char *db)
{
	saxpy_args s;
	const char *why;
	kjit_engine *e = setup(db, 1ll << STABILITY_LOG2, &s, &why);
	if (why)
		bench_die("child: no GPU: %s", why);
	set_size(&s, 1ll << STABILITY_LOG2);
	kjit__timer *t = open_timer();
	kjit__protocol_opts o;
	kjit__protocol_defaults(&o);
	kjit__measurement m;
	BENCH_KJIT(kjit__protocol_measure(t, launch_saxpy, &s, NULL, &o, &m));
	printf("CHILD %.3f %.3f %.3f %zu %s %s %.3f\n", m.median_ns, m.ci_low_ns, m.ci_high_ns, m.n,
	       kjit__stop_name(m.stop), kjit__timer_name(m.timer), m.wall_ms);
	fflush(stdout);
	kjit__measurement_free(&m);
	kjit__timer_close(t);
	teardown(e, &s);
	return 0;
}

typedef struct child_result {
	double median, lo, hi, wall;
	size_t n;
	char stop[32], timer[16];
} child_result;

/* Runs `argv0 --child db` with KJIT_TIMER=timer (NULL: unset) and parses
 * its line. */
static child_result run_child(const char *argv0, const char *db, const char *timer)
{
	int fds[2];
	if (pipe(fds) != 0)
		bench_die("pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		bench_die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], 1) < 0)
			_exit(126);
		close(fds[1]);
		if (timer)
			setenv("KJIT_TIMER", timer, 1);
		else
			unsetenv("KJIT_TIMER");
		char *args[] = { (char *)argv0, (char *)"--child", (char *)db, NULL };
		execv("/proc/self/exe", args);
		fprintf(stderr, "bench-measure: execv /proc/self/exe: %s\n", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	char out[4096];
	size_t len = 0;
	for (ssize_t r; (r = read(fds[0], out + len, sizeof out - 1 - len)) != 0;) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			bench_die("read from the child: %s", strerror(errno));
		}
		len += (size_t)r;
		if (len == sizeof out - 1)
			break;
	}
	out[len] = '\0';
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			bench_die("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bench_die("the child (KJIT_TIMER=%s) failed (status %d); its output:\n%s",
		          timer ? timer : "unset", status, out);
	child_result c;
	memset(&c, 0, sizeof c);
	const char *line = strstr(out, "CHILD ");
	if (!line || sscanf(line, "CHILD %lf %lf %lf %zu %31s %15s %lf", &c.median, &c.lo, &c.hi,
	                    &c.n, c.stop, c.timer, &c.wall) != 7)
		bench_die("cannot parse the child's output:\n%s", out);
	return c;
}

static void stability(const char *argv0, const char *db, int runs)
{
	static const char *const timers[] = { NULL, "events" };
	static const char *const names[] = { "cupti", "events" };
	double bytes = 3.0 * 4 * (double)(1ll << STABILITY_LOG2);
	printf("\n-- (1) stability: saxpy 2^%d, default protocol, %d processes per timer --\n",
	       STABILITY_LOG2, runs);
	for (int k = 0; k < 2; k++) {
		double *med = bench_malloc((size_t)runs * sizeof *med);
		for (int i = 0; i < runs; i++) {
			child_result c = run_child(argv0, db, timers[k]);
			if (strcmp(c.timer, names[k]) != 0)
				printf("  note: asked for %s, the child timed with %s\n", names[k],
				       c.timer);
			printf("  %-6s process %d: median %9.3f us, CI [%.3f, %.3f] (%.2f%%), n=%zu, "
			       "%s, %.1f ms, %.0f GB/s\n",
			       c.timer, i + 1, c.median * 1e-3, c.lo * 1e-3, c.hi * 1e-3,
			       100 * (c.hi - c.lo) / c.median, c.n, c.stop, c.wall, bytes / c.median);
			med[i] = c.median;
		}
		bench_stats st = bench_stats_of(med, (size_t)runs);
		double spread = 100 * (st.max - st.min) / st.median;
		printf("  %s: medians %.3f .. %.3f us, spread %.3f%% of %.3f us\n", names[k],
		       st.min * 1e-3, st.max * 1e-3, spread, st.median * 1e-3);
		char name[64];
		snprintf(name, sizeof name, "measure-stability-%s", names[k]);
		bench_result(name, spread, "%", -1, k == 0 ? "value<=0.5" : "info");
		free(med);
	}
}

/* ---- (2) cost against Kernel Tuner and Triton ------------------------------------ */

typedef struct estimate {
	double wall_ms, ns;
} estimate;

static double now_ms(void)
{
	return (double)bench_now_ns() * 1e-6;
}

static estimate by_protocol(kjit__timer *t, saxpy_args *s, kjit__measurement *keep)
{
	kjit__protocol_opts o;
	kjit__protocol_defaults(&o);
	double t0 = now_ms();
	BENCH_KJIT(kjit__protocol_measure(t, launch_saxpy, s, NULL, &o, keep));
	estimate e = { now_ms() - t0, keep->median_ns };
	return e;
}

/* Kernel Tuner: one untimed run, then 7 event-timed runs, each synchronised. */
static estimate by_kernel_tuner(saxpy_args *s)
{
	enum { ITER = 7 };
	double t0 = now_ms();
	CUevent a, b;
	BENCH_CU(cu->cuEventCreate(&a, CU_EVENT_DEFAULT));
	BENCH_CU(cu->cuEventCreate(&b, CU_EVENT_DEFAULT));
	BENCH_CU(launch_saxpy(s, NULL));
	BENCH_CU(cu->cuCtxSynchronize());
	double sum = 0;
	for (int i = 0; i < ITER; i++) {
		float ms = 0;
		BENCH_CU(cu->cuEventRecord(a, NULL));
		BENCH_CU(launch_saxpy(s, NULL));
		BENCH_CU(cu->cuEventRecord(b, NULL));
		BENCH_CU(cu->cuEventSynchronize(b));
		BENCH_CU(cu->cuEventElapsedTime(&ms, a, b));
		sum += ms;
	}
	BENCH_CU(cu->cuEventDestroy(a));
	BENCH_CU(cu->cuEventDestroy(b));
	estimate e = { now_ms() - t0, sum / ITER * 1e6 };
	return e;
}

/* Triton's do_bench(fn, warmup=25, rep=100), less the cache clearing. */
static estimate by_triton(saxpy_args *s)
{
	double t0 = now_ms();
	BENCH_CU(launch_saxpy(s, NULL));
	BENCH_CU(cu->cuCtxSynchronize());
	CUevent a, b;
	BENCH_CU(cu->cuEventCreate(&a, CU_EVENT_DEFAULT));
	BENCH_CU(cu->cuEventCreate(&b, CU_EVENT_DEFAULT));
	BENCH_CU(cu->cuEventRecord(a, NULL));
	for (int i = 0; i < 5; i++)
		BENCH_CU(launch_saxpy(s, NULL));
	BENCH_CU(cu->cuEventRecord(b, NULL));
	BENCH_CU(cu->cuCtxSynchronize());
	float est = 0;
	BENCH_CU(cu->cuEventElapsedTime(&est, a, b));
	BENCH_CU(cu->cuEventDestroy(a));
	BENCH_CU(cu->cuEventDestroy(b));
	double per = est / 5;
	int n_warmup = (int)(25 / per), n_repeat = (int)(100 / per);
	if (n_warmup < 1)
		n_warmup = 1;
	if (n_repeat < 1)
		n_repeat = 1;
	CUevent *start = bench_malloc((size_t)n_repeat * sizeof *start);
	CUevent *end = bench_malloc((size_t)n_repeat * sizeof *end);
	for (int i = 0; i < n_repeat; i++) {
		BENCH_CU(cu->cuEventCreate(&start[i], CU_EVENT_DEFAULT));
		BENCH_CU(cu->cuEventCreate(&end[i], CU_EVENT_DEFAULT));
	}
	for (int i = 0; i < n_warmup; i++)
		BENCH_CU(launch_saxpy(s, NULL));
	for (int i = 0; i < n_repeat; i++) {
		BENCH_CU(cu->cuEventRecord(start[i], NULL));
		BENCH_CU(launch_saxpy(s, NULL));
		BENCH_CU(cu->cuEventRecord(end[i], NULL));
	}
	BENCH_CU(cu->cuCtxSynchronize());
	double sum = 0;
	for (int i = 0; i < n_repeat; i++) {
		float ms = 0;
		BENCH_CU(cu->cuEventElapsedTime(&ms, start[i], end[i]));
		sum += ms;
	}
	for (int i = 0; i < n_repeat; i++) {
		BENCH_CU(cu->cuEventDestroy(start[i]));
		BENCH_CU(cu->cuEventDestroy(end[i]));
	}
	free(start);
	free(end);
	estimate e = { now_ms() - t0, sum / n_repeat * 1e6 };
	return e;
}

static void cost(saxpy_args *s, int reps)
{
	static const int log2n[] = { 21, 24, 28 };
	static const char *const label[] = { "5us", "50us", "1ms" };
	printf("\n-- (2) cost of a 1%% CI median vs Kernel Tuner (7 runs) and Triton do_bench "
	       "(25 ms + 100 ms) --\n");
	kjit__timer *t = open_timer();
	printf("  protocol timer: %s\n", kjit__timer_name(kjit__timer_kind_of(t)));
	for (int k = 0; k < 3; k++) {
		set_size(s, 1ll << log2n[k]);
		double *pw = bench_malloc((size_t)reps * sizeof *pw);
		double *pe = bench_malloc((size_t)reps * sizeof *pe);
		double *kw = bench_malloc((size_t)reps * sizeof *kw);
		double *ke = bench_malloc((size_t)reps * sizeof *ke);
		double *tw = bench_malloc((size_t)reps * sizeof *tw);
		double *te = bench_malloc((size_t)reps * sizeof *te);
		size_t converged = 0, budget = 0, n_sum = 0;
		for (int r = 0; r < reps; r++) {
			kjit__measurement m;
			estimate p = by_protocol(t, s, &m);
			converged += m.stop == KJIT__STOP_CONVERGED;
			budget += m.stop == KJIT__STOP_BUDGET;
			n_sum += m.n;
			printf("  saxpy 2^%d rep %d: protocol %s n=%zu median %.3f us CI %.2f%%\n",
			       log2n[k], r + 1, kjit__stop_name(m.stop), m.n, m.median_ns * 1e-3,
			       100 * (m.ci_high_ns - m.ci_low_ns) / m.median_ns);
			kjit__measurement_free(&m);
			estimate kt = by_kernel_tuner(s);
			estimate tr = by_triton(s);
			pw[r] = p.wall_ms;
			pe[r] = p.ns;
			kw[r] = kt.wall_ms;
			ke[r] = kt.ns;
			tw[r] = tr.wall_ms;
			te[r] = tr.ns;
		}
		double pwm = bench_median(pw, (size_t)reps), pem = bench_median(pe, (size_t)reps);
		double kwm = bench_median(kw, (size_t)reps), kem = bench_median(ke, (size_t)reps);
		double twm = bench_median(tw, (size_t)reps), tem = bench_median(te, (size_t)reps);
		printf("  saxpy 2^%d (%s): protocol %.1f ms -> %.3f us (%zu of %d converged, %zu "
		       "at the budget, mean n %.0f)\n"
		       "    Kernel Tuner %.1f ms -> %.3f us (%+.2f%%)\n"
		       "    Triton do_bench %.1f ms -> %.3f us (%+.2f%%)\n",
		       log2n[k], label[k], pwm, pem * 1e-3, converged, reps, budget,
		       (double)n_sum / reps, kwm, kem * 1e-3, 100 * (kem - pem) / pem, twm,
		       tem * 1e-3, 100 * (tem - pem) / pem);
		char name[64];
		snprintf(name, sizeof name, "measure-cost-vs-triton-%s", label[k]);
		bench_result(name, pwm, "ms", twm, "ratio<=1");
		snprintf(name, sizeof name, "measure-cost-vs-kt-%s", label[k]);
		bench_result(name, pwm, "ms", kwm, "info");
		snprintf(name, sizeof name, "measure-estimate-kt-%s", label[k]);
		bench_result(name, 100 * fabs(kem - pem) / pem, "%", -1, "info");
		snprintf(name, sizeof name, "measure-estimate-triton-%s", label[k]);
		bench_result(name, 100 * fabs(tem - pem) / pem, "%", -1, "info");
		free(pw);
		free(pe);
		free(kw);
		free(ke);
		free(tw);
		free(te);
	}
	kjit__timer_close(t);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-measure [-r RUNS] [-n REPS]\n"
	           "The measurement protocol: stability across processes, and its cost against\n"
	           "Kernel Tuner's 7 runs and Triton's do_bench.\n"
	           "  -r, --runs N  processes per timer for the stability figure (default 5)\n"
	           "  -n, --reps N  repetitions of each method for the cost figures (default 3)\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-measure";
	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2]);
	int runs = 5, reps = 3;
	const bench_opt opts[] = { { "runs", 'r', &runs, 2 }, { "reps", 'n', &reps, 1 } };
	int rc = bench_parse_options(argc, argv, opts, 2, usage);
	if (rc >= 0)
		return rc;

	printf("== bench-measure: the measurement protocol, stability and cost ==\n");
	char db[BENCH_PATH_MAX];
	bench_tmp_path(db, sizeof db, "measure.db");
	saxpy_args s;
	const char *why = NULL;
	kjit_engine *e = setup(db, 1ll << 28, &s, &why);
	bench_print_engine(e);
	if (why) {
		bench_skip("measure", why);
		kjit_engine_close(e);
		return 0;
	}
	/* the children find the variant in the database */
	BENCH_KJIT(kjit_synchronize(e));
	stability(argv[0], db, runs);
	cost(&s, reps);
	teardown(e, &s);
	return 0;
}
