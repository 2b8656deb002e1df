/*
 * test-gpu-energy - energy per launch through NVML (cupti/nvml.c,
 * cupti/energy.c) on a real GPU. Exits 77 without a GPU or without NVML's
 * energy counter.
 *
 *  (a) The counter itself, printed: how often it moves and by how much,
 *      idle and under an FMA kernel, and what a read costs.
 *  (b) An FMA kernel of at least 1 ms over the whole GPU: energy per
 *      launch above 0, the board's power above 50 W while it runs, the
 *      three repeats within 5% of each other, and energy = power x launch
 *      period.
 *  (c) Repeatable across processes: this program run three times in
 *      "measure" mode, each a process of its own, gives energies per
 *      launch within 5% of each other.
 *  (d) Refusals: a batch of 0 ms, a launch the driver refuses, a UUID
 *      NVML does not know, each with its one line.
 *  (e) A kernel 128 times shorter (about 20 us on the H200) is kept as
 *      busy between the counter's reads (a read costs milliseconds): its
 *      launch period is within 1.5x of 1/128 of the long one's and the
 *      board's power is well above idle.
 *  (g) A race (best_j): against a best half the kernel's energy, the
 *      measurement ends after one repeat (spread NAN) in less time than a
 *      whole one and agrees with it within 10%; against one 4% below it
 *      (within one repeat's margin), after two; against one twice it, all
 *      three repeats run (each of them 90 ms). A whole measurement is timed
 *      too.
 *  (h) The two sources agree: NVML's power samples (where the GPU keeps
 *      them) and its energy counter (KJIT_NVML=counter) give the FMA
 *      kernel's energy within 3% of each other, with the defaults (20 ms
 *      repeats), and the samples' measurement takes less time.
 *  (f) The public power reading (kjit_power_*) of this GPU, by its UUID:
 *      NVML's name, the board's power idle, and under the FMA kernel 1.3
 *      times that and above 50 W; a NULL watts and an unknown UUID
 *      refused.
 */
#include "testutil.h"

#include <math.h>

#include "instr.h"

static const char *fma_source =
	"extern \"C\" __global__ void fma_loop(int iterations, float *out)\n"
	"{\n"
	"\tfloat a = threadIdx.x * 1e-3f, b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;\n"
	"\tfor (int i = 0; i < iterations; i++) {\n"
	"\t\ta = fmaf(a, 0.999f, 0.001f);\n"
	"\t\tb = fmaf(b, 0.999f, 0.001f);\n"
	"\t\tc = fmaf(c, 0.999f, 0.001f);\n"
	"\t\td = fmaf(d, 0.999f, 0.001f);\n"
	"\t}\n"
	"\tif (a + b + c + d == 12345.0f)\n"
	"\t\tout[blockIdx.x] = a;\n"
	"}\n";

#define ITERATIONS (1 << 16)

static const kjit__cu_api *cu;

typedef struct fma_launch {
	CUfunction f;
	unsigned grid;
	int iterations;
	CUdeviceptr out;
	CUresult refuse; /* CUDA_SUCCESS: launch; else return this */
} fma_launch;

static CUresult launch_fma(void *arg, CUstream stream)
{
	fma_launch *l = arg;
	if (l->refuse != CUDA_SUCCESS)
		return l->refuse;
	void *args[] = { &l->iterations, &l->out };
	return cu->cuLaunchKernel(l->f, l->grid, 1, 1, 256, 1, 1, 0, stream, args, NULL);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* ---- setup ------------------------------------------------------------------ */

typedef struct setup {
	kjit_engine *e;
	kjit_kernel *k;
	kjit__nvml *n;
	CUstream stream;
	fma_launch l;
} setup;

static void setup_open(setup *s, const char *db)
{
	memset(s, 0, sizeof *s);
	kjit_engine_options eo;
	kjit_engine_options_init(&eo);
	eo.db_path = db;
	kjit_status st = kjit_engine_open(&eo, &s->e);
	tu_skip_without_gpu(st, s->e);
	CHECK_OK(st);
	CHECK_OK(kjit_engine_make_current(s->e));
	cu = kjit__cu(&st);
	CHECK(cu != NULL);
	CUdevice dev;
	CHECK(cu->cuCtxGetDevice(&dev) == CUDA_SUCCESS);
	st = kjit__nvml_open(cu, dev, &s->n);
	if (st == KJIT_ERR_NO_GPU) {
		printf("SKIP: needs NVML's energy counter: %s\n", kjit_last_error());
		exit(77);
	}
	CHECK_OK(st);
	int sms = 0;
	CHECK(cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) ==
	      CUDA_SUCCESS);
	CHECK_OK(kjit_kernel_create(s->e, "fma_loop", fma_source, NULL, 0, &s->k));
	kjit_variant_desc desc;
	memset(&desc, 0, sizeof desc);
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(s->k, &desc, &v, NULL));
	void *fn = NULL;
	CHECK_OK(kjit_variant_function(v, &fn));
	s->l.f = (CUfunction)fn;
	s->l.grid = 8u * (unsigned)sms;
	s->l.iterations = ITERATIONS;
	CHECK(cu->cuMemAlloc(&s->l.out, s->l.grid * sizeof(float)) == CUDA_SUCCESS);
	CHECK(cu->cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
}

static void setup_close(setup *s)
{
	CHECK(cu->cuStreamDestroy(s->stream) == CUDA_SUCCESS);
	CHECK(cu->cuMemFree(s->l.out) == CUDA_SUCCESS);
	kjit__nvml_close(s->n);
	kjit_engine_close(s->e);
}

/* ---- (a) the counter ----------------------------------------------------------- */

/* Reads the counter for seconds (the GPU busy with the FMA kernel, of
 * period launch_s, when launch_s > 0) and prints how often it moved, by
 * how much, and a read's cost. */
static double watch_counter(setup *s, double seconds, double launch_s)
{
	int busy = launch_s > 0;
	enum { MAX_STEPS = 4096 };
	static double gap_ms[MAX_STEPS], step_mj[MAX_STEPS];
	size_t steps = 0, reads = 0, queued = 0;
	unsigned long long mj = 0, last = 0;
	CHECK_OK(kjit__nvml_energy_mj(s->n, &last));
	double t0 = mono_s(), t_last = -1, t = t0;
	while ((t = mono_s()) - t0 < seconds && steps < MAX_STEPS) {
		/* keep about 20 ms of kernels queued */
		for (; busy && (double)queued * launch_s < t - t0 + 0.02; queued++)
			CHECK(launch_fma(&s->l, s->stream) == CUDA_SUCCESS);
		CHECK_OK(kjit__nvml_energy_mj(s->n, &mj));
		reads++;
		if (mj != last) {
			if (t_last >= 0) {
				gap_ms[steps] = (t - t_last) * 1e3;
				step_mj[steps++] = (double)(mj - last);
			}
			t_last = t;
			last = mj;
		}
	}
	CHECK(cu->cuStreamSynchronize(s->stream) == CUDA_SUCCESS);
	double read_us = (t - t0) / (double)reads * 1e6, power = 0;
	CHECK_OK(kjit__nvml_power_w(s->n, &power));
	CHECK_MSG(steps >= 3, "NVML's energy counter moved %zu times in %.1f s", steps, seconds);
	double mg_gap, mg_step, sum_step = 0, sum_gap = 0;
	for (size_t i = 0; i < steps; i++) {
		sum_step += step_mj[i];
		sum_gap += gap_ms[i];
	}
	qsort(gap_ms, steps, sizeof *gap_ms, cmp_d);
	qsort(step_mj, steps, sizeof *step_mj, cmp_d);
	mg_gap = gap_ms[steps / 2];
	mg_step = step_mj[steps / 2];
	printf("  counter %s: %zu steps in %.1f s, every %.1f ms (median; %.1f to %.1f), %.0f mJ a "
	       "step (median; %.0f to %.0f), %.1f W from the steps, %.1f W from "
	       "nvmlDeviceGetPowerUsage; a read costs %.1f us\n",
	       busy ? "busy" : "idle", steps, seconds, mg_gap, gap_ms[0], gap_ms[steps - 1],
	       mg_step, step_mj[0], step_mj[steps - 1], sum_step / sum_gap, power, read_us);
	return sum_step / sum_gap;
}

/* ---- (b) energy per launch ------------------------------------------------------- */

static kjit__energy measure_as(setup *s, double batch_ms, double best_j)
{
	kjit__energy en;
	CHECK_OK(kjit__energy_measure(s->n, cu, launch_fma, &s->l, s->stream, batch_ms, best_j,
	                              &en));
	printf("  %s: %.4f J a launch, %.1f W, launch %.3f ms, spread %.2f%% over %u repeats, "
	       "%zu launches in %.0f ms\n",
	       kjit__nvml_name(s->n), en.energy_j, en.power_w, en.launch_s * 1e3,
	       100 * en.rel_spread, en.repeats, en.launches, en.wall_ms);
	return en;
}

static kjit__energy measure(setup *s)
{
	return measure_as(s, 200, 0);
}

static kjit__energy test_energy(setup *s)
{
	kjit__energy en = measure(s);
	CHECK_MSG(en.launch_s >= 1e-3, "the FMA kernel takes %.3f ms, not 1 ms or more",
	          en.launch_s * 1e3);
	CHECK(en.energy_j > 0 && isfinite(en.energy_j));
	CHECK_MSG(en.power_w > 50, "%.1f W while the FMA kernel runs", en.power_w);
	CHECK_MSG(en.rel_spread <= 0.05, "the repeats spread %.2f%%", 100 * en.rel_spread);
	CHECK(fabs(en.energy_j - en.power_w * en.launch_s) <= 1e-9 * en.energy_j + 1e-12);
	CHECK(en.repeats == 3 && en.launches > 3);
	/* 3 x 200 ms of kernels at least, and not runaway */
	CHECK(en.wall_ms >= 600 && en.wall_ms < 20000);
	OK("(b) energy per launch %.4f J > 0, %.1f W > 50 W, repeats within %.2f%%", en.energy_j,
	   en.power_w, 100 * en.rel_spread);
	return en;
}

/* ---- (e) a short kernel --------------------------------------------------------- */

static void test_short(setup *s, double long_s, double long_j, double idle_w)
{
	s->l.iterations = ITERATIONS / 128;
	kjit__energy en = measure(s);
	s->l.iterations = ITERATIONS;
	double want_s = long_s / 128;
	printf("  short kernel: launch %.2f us (1/128 of the long one: %.2f us), %.1f W (idle %.1f "
	       "W), 128 launches %.4f J against one long %.4f J\n",
	       en.launch_s * 1e6, want_s * 1e6, en.power_w, idle_w, 128 * en.energy_j, long_j);
	CHECK_MSG(en.launch_s <= 1.5 * want_s, "short launches every %.2f us, not about %.2f us: "
	          "the GPU waited for the host", en.launch_s * 1e6, want_s * 1e6);
	CHECK_MSG(en.power_w >= 1.5 * idle_w, "%.1f W under the short kernel, idle %.1f W",
	          en.power_w, idle_w);
	CHECK(en.energy_j > 0 && en.rel_spread <= 0.05);
	OK("(e) a %.1f us kernel kept busy: %.1f W, %.6f J a launch", en.launch_s * 1e6,
	   en.power_w, en.energy_j);
}

/* ---- (g) a race ------------------------------------------------------------------ */

static void test_race(setup *s, double long_j)
{
	kjit__energy whole = measure_as(s, 90, 0);
	kjit__energy lost = measure_as(s, 90, 0.5 * long_j);
	kjit__energy near = measure_as(s, 90, whole.energy_j / 1.04);
	kjit__energy won = measure_as(s, 90, 2 * long_j);
	CHECK_MSG(whole.repeats == 3 && won.repeats == 3 && lost.repeats == 1 && near.repeats == 2,
	          "repeats: %u unraced, %u against twice its energy, %u against half, %u against "
	          "4%% below", whole.repeats, won.repeats, lost.repeats, near.repeats);
	CHECK(isnan(lost.rel_spread) && !isnan(near.rel_spread) && !isnan(won.rel_spread));
	CHECK_MSG(lost.wall_ms < near.wall_ms && near.wall_ms < whole.wall_ms,
	          "a race lost after one repeat took %.0f ms, after two %.0f ms, a whole "
	          "measurement %.0f ms", lost.wall_ms, near.wall_ms, whole.wall_ms);
	CHECK_MSG(fabs(lost.energy_j - whole.energy_j) <= 0.10 * whole.energy_j &&
	          fabs(near.energy_j - whole.energy_j) <= 0.05 * whole.energy_j,
	          "one repeat says %.4f J, two %.4f J, three %.4f J", lost.energy_j, near.energy_j,
	          whole.energy_j);
	OK("(g) a race: lost after one repeat in %.0f ms (%.4f J), after two in %.0f ms (%.4f J), "
	   "a whole measurement %.0f ms (%.4f J, spread %.2f%%)", lost.wall_ms, lost.energy_j,
	   near.wall_ms, near.energy_j, whole.wall_ms, whole.energy_j, 100 * whole.rel_spread);
}

/* ---- (h) the two sources --------------------------------------------------------- */

static void test_sources(setup *s)
{
	printf("  NVML's steps: %s\n", kjit__nvml_steps_source(s->n));
	if (!kjit__nvml_steps_sampled(s->n)) {
		OK("(h) this GPU keeps no power samples: the energy counter serves alone");
		return;
	}
	kjit__energy sampled = measure_as(s, 20, 0);
	CHECK(setenv("KJIT_NVML", "counter", 1) == 0);
	kjit__nvml *counter = NULL;
	CUdevice dev;
	CHECK(cu->cuCtxGetDevice(&dev) == CUDA_SUCCESS);
	CHECK_OK(kjit__nvml_open(cu, dev, &counter));
	CHECK(unsetenv("KJIT_NVML") == 0);
	CHECK(!kjit__nvml_steps_sampled(counter));
	kjit__nvml *own = s->n;
	s->n = counter;
	kjit__energy counted = measure_as(s, 20, 0);
	s->n = own;
	kjit__nvml_close(counter);
	double apart = fabs(sampled.energy_j - counted.energy_j) / counted.energy_j;
	CHECK_MSG(apart <= 0.03, "power samples say %.4f J a launch, the energy counter %.4f J "
	          "(%.2f%% apart)", sampled.energy_j, counted.energy_j, 100 * apart);
	CHECK_MSG(sampled.wall_ms < counted.wall_ms, "with power samples the measurement took "
	          "%.0f ms, with the energy counter %.0f ms", sampled.wall_ms, counted.wall_ms);
	OK("(h) power samples %.4f J in %.0f ms, the energy counter %.4f J in %.0f ms: %.2f%% apart",
	   sampled.energy_j, sampled.wall_ms, counted.energy_j, counted.wall_ms, 100 * apart);
}

/* ---- (f) the public power reading ------------------------------------------------ */

/* kjit_power_read() after seconds idle, or busy with the FMA kernel (of
 * period launch_s) for them and still running. */
static double power_after(kjit_power *p, setup *s, double seconds, double launch_s)
{
	double t0 = mono_s(), t, w = NAN;
	size_t queued = 0;
	while ((t = mono_s()) - t0 < seconds) {
		for (; launch_s > 0 && (double)queued * launch_s < t - t0 + 0.02; queued++)
			CHECK(launch_fma(&s->l, s->stream) == CUDA_SUCCESS);
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	CHECK_OK(kjit_power_read(p, &w));
	CHECK(cu->cuStreamSynchronize(s->stream) == CUDA_SUCCESS);
	return w;
}

static void test_power(setup *s, double launch_s)
{
	CUdevice dev;
	CUuuid uuid;
	char text[KJIT_UUID_TEXT];
	CHECK(cu->cuCtxGetDevice(&dev) == CUDA_SUCCESS);
	CHECK(cu->cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS);
	kjit__cu_uuid_text(&uuid, text);
	kjit_power *p = NULL;
	CHECK_OK(kjit_power_open(text, &p));
	CHECK(p != NULL);
	CHECK_STREQ(kjit_power_gpu_name(p), kjit__nvml_name(s->n));
	double idle = power_after(p, s, 1.5, 0), busy = power_after(p, s, 1.5, launch_s);
	printf("  kjit_power_read: %s %.1f W idle, %.1f W under the FMA kernel\n",
	       kjit_power_gpu_name(p), idle, busy);
	CHECK_MSG(idle > 0 && idle < 5000, "%.1f W idle", idle);
	CHECK_MSG(busy > 50 && busy >= 1.3 * idle, "%.1f W busy, %.1f W idle", busy, idle);
	double w = 42;
	CHECK_ST(kjit_power_read(p, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "kjit_power_read: watts is NULL");
	CHECK(w == 42);
	kjit_gpu_sensors g;
	CHECK_OK(kjit_power_sensors(p, &g));
	printf("  kjit_power_sensors: %.0f C, graphics clock %.0f MHz, memory clock %.0f MHz\n",
	       g.temperature_c, g.graphics_clock_mhz, g.mem_clock_mhz);
	CHECK_MSG(g.temperature_c > 0 && g.temperature_c < 120, "%.0f C", g.temperature_c);
	CHECK_MSG(g.graphics_clock_mhz > 0 && g.mem_clock_mhz > 0, "%.0f, %.0f MHz",
	          g.graphics_clock_mhz, g.mem_clock_mhz);
	CHECK_ST(kjit_power_sensors(p, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "kjit_power_sensors: out is NULL");
	kjit_power_close(p);
	kjit_power *other = (kjit_power *)1;
	CHECK_ST(kjit_power_open("GPU-00000000-0000-0000-0000-000000000000", &other),
	         KJIT_ERR_NO_GPU);
	CHECK(other == NULL);
	CHECK_CONTAINS(kjit_last_error(), "GPU-00000000-0000-0000-0000-000000000000");
	OK("(f) kjit_power_*: %s by its UUID, %.1f W idle, %.1f W busy; a NULL watts and an "
	   "unknown UUID refused", text, idle, busy);
}

/* ---- (c) across processes --------------------------------------------------------- */

static void child_measure(const char *db, const char *path)
{
	setup s;
	setup_open(&s, db);
	kjit__energy en = measure(&s);
	setup_close(&s);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fprintf(f, "%.17g\n", en.energy_j);
	CHECK(fclose(f) == 0);
}

static void test_processes(const char *argv0, const char *dir)
{
	double j[3];
	for (int i = 0; i < 3; i++) {
		char path[TU_PATH], name[32];
		snprintf(name, sizeof name, "energy-%d.txt", i);
		tu_path(path, dir, name);
		CHECK_MSG(tu_spawn_self(argv0, "measure", path) == 0, "measuring process %d", i);
		char *text = tu_read_file(path, NULL);
		CHECK(text != NULL);
		j[i] = strtod(text, NULL);
		free(text);
	}
	double sorted[3] = { j[0], j[1], j[2] };
	qsort(sorted, 3, sizeof *sorted, cmp_d);
	double spread = (sorted[2] - sorted[0]) / sorted[1];
	printf("  three processes: %.4f, %.4f, %.4f J a launch, spread %.2f%%\n", j[0], j[1], j[2],
	       100 * spread);
	CHECK_MSG(spread <= 0.05, "energy per launch spreads %.2f%% across three processes",
	          100 * spread);
	OK("(c) three processes agree within %.2f%%", 100 * spread);
}

/* ---- (d) refusals ----------------------------------------------------------------- */

static void test_refusals(setup *s)
{
	kjit__energy en;
	CHECK_ST(kjit__energy_measure(s->n, cu, launch_fma, &s->l, s->stream, 0, 0, &en),
	         KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "energy batch of 0 ms");
	CHECK_ST(kjit__energy_measure(s->n, cu, launch_fma, &s->l, s->stream, NAN, 0, &en),
	         KJIT_ERR_INVALID_ARG);
	s->l.refuse = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
	CHECK_ST(kjit__energy_measure(s->n, cu, launch_fma, &s->l, s->stream, 200, 0, &en),
	         KJIT_ERR_LAUNCH);
	CHECK_CONTAINS(kjit_last_error(), "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
	s->l.refuse = CUDA_SUCCESS;
	kjit__nvml *other = (kjit__nvml *)1;
	CHECK_ST(kjit__nvml_open_uuid("GPU-00000000-0000-0000-0000-000000000000", &other),
	         KJIT_ERR_NO_GPU);
	CHECK(other == NULL);
	CHECK_CONTAINS(kjit_last_error(), "GPU-00000000-0000-0000-0000-000000000000");
	OK("(d) a 0 ms batch, a refused launch and an unknown UUID refused: \"%s\"",
	   kjit_last_error());
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH];
	tu_path(db, dir, "energy.db");
	if (argc == 3 && strcmp(argv[1], "measure") == 0) {
		child_measure(db, argv[2]);
		return 0;
	}
	setup s;
	setup_open(&s, db);
	printf("  device: %s (NVML: %s)\n", kjit_engine_device_name(s.e), kjit__nvml_name(s.n));
	double idle_w = watch_counter(&s, 1.0, 0);
	kjit__energy en = test_energy(&s);
	watch_counter(&s, 1.0, en.launch_s);
	OK("(a) NVML's energy counter moves, idle and busy");
	test_refusals(&s);
	test_short(&s, en.launch_s, en.energy_j, idle_w);
	test_race(&s, en.energy_j);
	test_sources(&s);
	test_power(&s, en.launch_s);
	setup_close(&s);
	test_processes(argv[0], dir);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
