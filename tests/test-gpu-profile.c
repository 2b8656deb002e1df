/*
 * test-gpu-profile - kjit_variant_profile on the GPU (exit 77 without one),
 * on kernels compiled through kjit and CUPTI's real range profiler:
 *  - saxpy over 2^26 floats moves 3 x 4 x n bytes of DRAM (within 2%),
 *    and the same (within 0.5%) when profiled again;
 *  - kernels of K fp32 (and fp64) FMAs per thread, K a run-time argument:
 *    flop_fp32 (flop_fp64) is exactly 2 x K x threads, and none of the
 *    other precision;
 *  - a kernel that does the FMAs only where its input is 0 and then
 *    overwrites it: the same exact count, so every pass saw the original
 *    input (kernel replay restores it), and the output shows it ran;
 *  - passes >= 1, peaks > 0, occupancy in (0, 1], registers > 0;
 *  - the CUPTI timer measures saxpy as before after the profiles;
 *  - counters = 0 and KJIT_PROFILER=off: resource usage, NAN counters,
 *    the reason; KJIT_PROFILER=bogus is an error naming it.
 * Prints the figures it compares, and the wall time of each profile.
 */
#include "testutil.h"

#include <math.h>
#include <time.h>

#define N_SAXPY (1 << 26)
#define K_FMA 1000
#define FMA_BLOCK 256
#define FMA_GRID 264 /* two blocks per SM of an H200, a fraction elsewhere */

static const char fma_source[] =
	"extern \"C\" __global__ void fma32(float *out, float a, float b, int k)\n"
	"{\n"
	"	int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	float x = (float)threadIdx.x;\n"
	"	for (int j = 0; j < k; j++)\n"
	"		x = fmaf(x, a, b);\n"
	"	out[i] = x;\n"
	"}\n"
	"extern \"C\" __global__ void fma64(double *out, double a, double b, int k)\n"
	"{\n"
	"	int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	double x = (double)threadIdx.x;\n"
	"	for (int j = 0; j < k; j++)\n"
	"		x = fma(x, a, b);\n"
	"	out[i] = x;\n"
	"}\n"
	/* the work happens only where the input is still 0: a pass that saw
	 * the previous pass's output would count no FMA */
	"extern \"C\" __global__ void once(float *x, float a, float b, int k)\n"
	"{\n"
	"	int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	if (x[i] == 0.0f) {\n"
	"		float v = (float)threadIdx.x;\n"
	"		for (int j = 0; j < k; j++)\n"
	"			v = fmaf(v, a, b);\n"
	"		x[i] = v;\n"
	"	}\n"
	"}\n";

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static kjit_engine *engine_open(void)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = ":memory:";
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);
	return e;
}

static kjit_variant *entry(kjit_engine *e, const char *name)
{
	kjit_kernel *k;
	CHECK_OK(kjit_kernel_create(e, name, fma_source, NULL, 0, &k));
	kjit_variant *v;
	kjit_variant_desc d = { 0 };
	CHECK_OK(kjit_variant_get(k, &d, &v, NULL));
	return v;
}

/* Profiles one launch, timed and printed; counters expected read. */
static void profile(const char *what, kjit_variant *v, unsigned grid, unsigned block, void **args,
                    kjit_profile *p)
{
	unsigned g[3] = { grid, 1, 1 }, b[3] = { block, 1, 1 };
	double t0 = now_ms();
	CHECK_OK(kjit_variant_profile(v, g, b, 0, NULL, args, NULL, p));
	double ms = now_ms() - t0;
	printf("%s: %.0f ms, %u passes, %.3f us, DRAM %.0f + %.0f B, L2 %.0f B, L1 %.0f B, "
	       "FLOP fp64 %.0f fp32 %.0f fp16 %.0f, %.0f inst, occupancy %.3f, SM %.3f, DRAM %.3f, "
	       "%d regs, %d local B (%s)\n", what, ms, p->passes, p->duration_ns / 1e3,
	       p->dram_read_bytes, p->dram_write_bytes, p->l2_bytes, p->l1_bytes, p->flop_fp64,
	       p->flop_fp32, p->flop_fp16, p->instructions, p->achieved_occupancy,
	       p->sm_throughput, p->dram_throughput, p->registers, p->local_bytes,
	       p->counters_reason);
	CHECK_MSG(p->passes >= 1, "%s: %u passes", what, p->passes);
	CHECK_MSG(p->duration_ns > 0, "%s: duration %g ns", what, p->duration_ns);
	CHECK_MSG(p->peak_dram_bytes_per_s > 0 && p->peak_flop_fp32_per_s > 0 &&
	          p->peak_flop_fp64_per_s > 0 && p->peak_flop_fp16_per_s > 0,
	          "%s: peaks %g B/s, %g %g %g FLOP/s", what, p->peak_dram_bytes_per_s,
	          p->peak_flop_fp64_per_s, p->peak_flop_fp32_per_s, p->peak_flop_fp16_per_s);
	CHECK_MSG(p->achieved_occupancy > 0 && p->achieved_occupancy <= 1, "%s: occupancy %g", what,
	          p->achieved_occupancy);
	CHECK_MSG(p->registers > 0, "%s: %d registers", what, p->registers);
	CHECK_MSG(isnan(p->energy_j) && strcmp(p->energy_reason, "energy not measured") == 0,
	          "%s: energy %g (%s)", what, p->energy_j, p->energy_reason);
}

typedef struct saxpy {
	kjit_variant *v;
	kjit_devptr x, y;
	long long n;
	float a;
	void *args[4];
	unsigned grid[3], block[3];
} saxpy;

static void saxpy_open(kjit_engine *e, saxpy *s)
{
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 256, 4);
	CHECK_OK(kjit_variant_get(tu_saxpy_kernel(e), &sv.desc, &s->v, NULL));
	CHECK_OK(kjit_mem_alloc(e, (size_t)N_SAXPY * sizeof(float), &s->x));
	CHECK_OK(kjit_mem_alloc(e, (size_t)N_SAXPY * sizeof(float), &s->y));
	float *h = calloc(N_SAXPY, sizeof *h);
	CHECK(h != NULL);
	CHECK_OK(kjit_memcpy_htod(e, s->x, h, (size_t)N_SAXPY * sizeof(float)));
	CHECK_OK(kjit_memcpy_htod(e, s->y, h, (size_t)N_SAXPY * sizeof(float)));
	free(h);
	s->n = N_SAXPY;
	s->a = 2.0f;
	void *args[4] = { &s->n, &s->a, &s->x, &s->y };
	memcpy(s->args, args, sizeof args);
	unsigned grid[3] = { N_SAXPY / (256 * 4), 1, 1 }, block[3] = { 256, 1, 1 };
	memcpy(s->grid, grid, sizeof grid);
	memcpy(s->block, block, sizeof block);
}

static double saxpy_median(saxpy *s)
{
	kjit_measurement m;
	CHECK_OK(kjit_variant_measure(s->v, s->grid, s->block, 0, NULL, s->args, NULL, &m));
	CHECK_STREQ(m.timer, "cupti");
	CHECK(m.n_samples >= 10 && m.median_ns > 0);
	double median = m.median_ns;
	kjit_measurement_free(&m);
	return median;
}

/* Twice: the first profile of an engine sets the profiler up, the second
 * shows what a profile costs; both must count the same bytes. */
static void check_saxpy(saxpy *s)
{
	kjit_profile p, again;
	profile("saxpy 2^26", s->v, s->grid[0], s->block[0], s->args, &p);
	profile("saxpy 2^26 again", s->v, s->grid[0], s->block[0], s->args, &again);
	CHECK_MSG(fabs(again.dram_read_bytes + again.dram_write_bytes - p.dram_read_bytes -
	               p.dram_write_bytes) <= 0.005 * (p.dram_read_bytes + p.dram_write_bytes) &&
	          again.flop_fp32 == p.flop_fp32, "saxpy: %.0f then %.0f B of DRAM, %.0f then %.0f "
	          "FLOP", p.dram_read_bytes + p.dram_write_bytes, again.dram_read_bytes +
	          again.dram_write_bytes, p.flop_fp32, again.flop_fp32);
	double want = 3.0 * 4 * N_SAXPY, got = p.dram_read_bytes + p.dram_write_bytes;
	printf("saxpy: DRAM %.0f B, expected %.0f B (%+.2f%%); %.0f GB/s of a %.0f GB/s peak, "
	       "AI %.4f FLOP/B\n", got, want, 100 * (got / want - 1), p.dram_bytes_per_s / 1e9,
	       p.peak_dram_bytes_per_s / 1e9, p.arithmetic_intensity);
	CHECK_MSG(fabs(got / want - 1) <= 0.02, "saxpy moved %.0f B of DRAM, %.0f expected", got,
	          want);
	CHECK_MSG(p.flop_fp32 == 2.0 * N_SAXPY, "saxpy: %.0f fp32 FLOP, %.0f expected", p.flop_fp32,
	          2.0 * N_SAXPY);
	CHECK(p.dram_throughput > 0 && p.dram_throughput <= 1.05);
}

/* fma32 and fma64: exactly 2 x K x threads FLOPs, of their precision only. */
static void check_fma(kjit_engine *e)
{
	const double threads = (double)FMA_GRID * FMA_BLOCK, want = 2.0 * K_FMA * threads;
	kjit_devptr out;
	CHECK_OK(kjit_mem_alloc(e, (size_t)FMA_GRID * FMA_BLOCK * sizeof(double), &out));
	int k = K_FMA;
	float a32 = 0.5f, b32 = 1.0f;
	double a64 = 0.5, b64 = 1.0;
	void *args32[4] = { &out, &a32, &b32, &k }, *args64[4] = { &out, &a64, &b64, &k };
	kjit_profile p;
	profile("fma32", entry(e, "fma32"), FMA_GRID, FMA_BLOCK, args32, &p);
	printf("fma32: %.0f FLOP, expected %.0f; %.1f GFLOP/s of a %.1f GFLOP/s fp32 peak\n",
	       p.flop_fp32, want, p.flop_per_s / 1e9, p.peak_flop_fp32_per_s / 1e9);
	CHECK_MSG(p.flop_fp32 == want && p.flop_fp64 == 0 && p.flop_fp16 == 0,
	          "fma32: %.0f fp32, %.0f fp64, %.0f fp16 FLOP; %.0f fp32 expected", p.flop_fp32,
	          p.flop_fp64, p.flop_fp16, want);
	profile("fma64", entry(e, "fma64"), FMA_GRID, FMA_BLOCK, args64, &p);
	printf("fma64: %.0f FLOP, expected %.0f; fp64 peak %.1f GFLOP/s\n", p.flop_fp64, want,
	       p.peak_flop_fp64_per_s / 1e9);
	CHECK_MSG(p.flop_fp64 == want && p.flop_fp32 == 0, "fma64: %.0f fp64, %.0f fp32 FLOP; %.0f "
	          "fp64 expected", p.flop_fp64, p.flop_fp32, want);
	CHECK_OK(kjit_mem_free(e, out));
}

/* once: the FMAs run where x is 0 and x is overwritten; every pass must
 * have seen the zeros. */
static void check_restore(kjit_engine *e)
{
	const size_t n = (size_t)FMA_GRID * FMA_BLOCK;
	const double want = 2.0 * K_FMA * (double)n;
	kjit_devptr x;
	CHECK_OK(kjit_mem_alloc(e, n * sizeof(float), &x));
	float *h = calloc(n, sizeof *h);
	CHECK(h != NULL);
	CHECK_OK(kjit_memcpy_htod(e, x, h, n * sizeof(float)));
	int k = K_FMA;
	float a = 0.5f, b = 1.0f;
	void *args[4] = { &x, &a, &b, &k };
	kjit_profile p;
	profile("once", entry(e, "once"), FMA_GRID, FMA_BLOCK, args, &p);
	printf("once: %.0f FLOP over %u passes, expected %.0f\n", p.flop_fp32, p.passes, want);
	CHECK_MSG(p.flop_fp32 == want, "once: %.0f fp32 FLOP, %.0f expected: a pass saw the "
	          "output of another", p.flop_fp32, want);
	CHECK_OK(kjit_memcpy_dtoh(e, h, x, n * sizeof(float)));
	for (size_t i = 0; i < n; i++)
		CHECK_MSG(h[i] > 0, "once: x[%zu] = %g after the profile: it did not run", i, h[i]);
	free(h);
	CHECK_OK(kjit_mem_free(e, x));
}

/* No counters asked, off by the environment, a bad setting. */
static void check_refusals(void)
{
	kjit_engine *e = engine_open();
	kjit_variant *v = entry(e, "fma32");
	kjit_devptr out;
	CHECK_OK(kjit_mem_alloc(e, (size_t)FMA_BLOCK * sizeof(float), &out));
	int k = 10;
	float a = 0.5f, b = 1.0f;
	void *args[4] = { &out, &a, &b, &k };
	unsigned g[3] = { 1, 1, 1 }, bl[3] = { FMA_BLOCK, 1, 1 };
	kjit_profile_options o;
	kjit_profile_options_init(&o);
	o.counters = 0;
	o.energy = 1;
	kjit_profile p;
	CHECK_OK(kjit_variant_profile(v, g, bl, 0, NULL, args, &o, &p));
	CHECK(p.registers > 0 && isnan(p.dram_read_bytes) && isnan(p.flop_fp32) && p.passes == 0);
	CHECK_CONTAINS(p.counters_reason, "not requested");
	/* energy through NVML where it is, else a reason naming why */
	printf("energy alone: %.6g J per launch, %.1f W, spread %.2f%% (reason \"%s\")\n",
	       p.energy_j, p.power_w, 100 * p.energy_rel_spread, p.energy_reason);
	if (*p.energy_reason)
		CHECK(strncmp(p.energy_reason, "energy: ", 8) == 0 && isnan(p.energy_j));
	else
		CHECK(p.energy_j > 0 && p.power_w > 0 && p.energy_rel_spread >= 0);
	CHECK(setenv("KJIT_PROFILER", "bogus", 1) == 0);
	CHECK_ST(kjit_variant_profile(v, g, bl, 0, NULL, args, NULL, &p), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "KJIT_PROFILER=bogus");
	CHECK(setenv("KJIT_PROFILER", "off", 1) == 0);
	CHECK_OK(kjit_variant_profile(v, g, bl, 0, NULL, args, NULL, &p));
	printf("KJIT_PROFILER=off: %s\n", p.counters_reason);
	CHECK(p.registers > 0 && isnan(p.duration_ns) && isnan(p.flop_fp32) && isnan(p.l2_bytes));
	CHECK(isnan(p.peak_dram_bytes_per_s) && isnan(p.arithmetic_intensity) && p.passes == 0);
	CHECK_CONTAINS(p.counters_reason, "KJIT_PROFILER=off");
	CHECK_CONTAINS(p.counters_reason, "still work");
	CHECK(unsetenv("KJIT_PROFILER") == 0);
	CHECK_OK(kjit_mem_free(e, out));
	kjit_engine_close(e);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	kjit_engine *e = engine_open();
	saxpy s;
	saxpy_open(e, &s);
	double before = saxpy_median(&s);
	check_saxpy(&s);
	check_fma(e);
	check_restore(e);
	double after = saxpy_median(&s);
	printf("saxpy timed by CUPTI: %.2f us before the profiles, %.2f us after\n", before / 1e3,
	       after / 1e3);
	CHECK_MSG(fabs(after / before - 1) < 0.1, "saxpy: %.0f ns before the profiles, %.0f after",
	          before, after);
	CHECK_OK(kjit_mem_free(e, s.x));
	CHECK_OK(kjit_mem_free(e, s.y));
	kjit_engine_close(e);
	check_refusals();
	printf("ok\n");
	return 0;
}
