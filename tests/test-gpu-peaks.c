/*
 * test-gpu-peaks - the peaks kjit_variant_profile() reports bound every
 * rate measured on the same GPU (exit 77 without one):
 *  - a copy kernel timed by kjit_variant_measure(): its DRAM rate (bytes
 *    read and written over the median) is at most peak_dram_bytes_per_s,
 *    and so is the profile's own dram_bytes_per_s;
 *  - a kernel of fp32 FMAs timed the same way: its FLOP rate, and the
 *    profile's flop_per_s, at most peak_flop_fp32_per_s;
 *  - cuBLAS SGEMM (4096 x 4096 x 4096, libcublas opened at run time; said
 *    and left out where it is not installed), timed over 20 calls: its
 *    FLOP rate at most peak_flop_fp32_per_s.
 * A peak below a rate measured at the clock timed runs reach is no peak.
 */
#include "testutil.h"

#include <dlfcn.h>
#include <math.h>
#include <time.h>

#define N_VEC4 (1 << 24)  /* float4 per buffer: 256 MiB */
#define K_FMA 4096
#define FMA_BLOCK 256
#define GEMM_N 4096
#define GEMM_CALLS 20

static const char source[] =
	"extern \"C\" __global__ void copy4(const float4 *x, float4 *y, long long n)\n"
	"{\n"
	"	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;\n"
	"	     i += (long long)gridDim.x * blockDim.x)\n"
	"		y[i] = x[i];\n"
	"}\n"
	"extern \"C\" __global__ void fma32(float *out, float a, float b, int k)\n"
	"{\n"
	"	int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	float x0 = (float)threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;\n"
	"	for (int j = 0; j < k; j++) {\n"
	"		x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b);\n"
	"		x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);\n"
	"	}\n"
	"	out[i] = x0 + x1 + x2 + x3;\n"
	"}\n";

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static kjit_variant *entry(kjit_engine *e, const char *name)
{
	kjit_kernel *k;
	CHECK_OK(kjit_kernel_create(e, name, source, NULL, 0, &k));
	kjit_variant *v;
	kjit_variant_desc d = { 0 };
	CHECK_OK(kjit_variant_get(k, &d, &v, NULL));
	return v;
}

/* The median of a timed run, in seconds. */
static double timed(kjit_variant *v, const unsigned g[3], const unsigned b[3], void **args)
{
	kjit_measurement m;
	CHECK_OK(kjit_variant_measure(v, g, b, 0, NULL, args, NULL, &m));
	double s = m.median_ns * 1e-9;
	kjit_measurement_free(&m);
	CHECK(s > 0);
	return s;
}

static void at_most(const char *what, double rate, double peak, const char *unit)
{
	printf("  %s: %.4g %s, peak %.4g %s (%.1f%%)\n", what, rate, unit, peak, unit,
	       100 * rate / peak);
	CHECK_MSG(peak > 0 && rate > 0 && rate <= peak, "%s: %.4g %s above the peak %.4g %s", what,
	          rate, unit, peak, unit);
}

typedef int (*cublas_create_fn)(void **);
typedef int (*cublas_destroy_fn)(void *);
typedef int (*cublas_sgemm_fn)(void *, int, int, int, int, int, const float *, const float *,
                               int, const float *, int, const float *, float *, int);

/* cuBLAS SGEMM's FLOP rate over GEMM_CALLS calls, 0 where cuBLAS is not
 * installed (said). */
static double sgemm_rate(kjit_engine *e)
{
	static const char *const names[] = { "libcublas.so.13", "libcublas.so.12", "libcublas.so" };
	void *lib = NULL;
	for (size_t i = 0; !lib && i < sizeof names / sizeof *names; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("  cuBLAS SGEMM: left out, no libcublas (%s)\n", dlerror());
		return 0;
	}
	cublas_create_fn create = (cublas_create_fn)dlsym(lib, "cublasCreate_v2");
	cublas_destroy_fn destroy = (cublas_destroy_fn)dlsym(lib, "cublasDestroy_v2");
	cublas_sgemm_fn sgemm = (cublas_sgemm_fn)dlsym(lib, "cublasSgemm_v2");
	CHECK(create && destroy && sgemm);
	size_t bytes = (size_t)GEMM_N * GEMM_N * sizeof(float);
	kjit_devptr a, b, c;
	CHECK_OK(kjit_mem_alloc(e, bytes, &a));
	CHECK_OK(kjit_mem_alloc(e, bytes, &b));
	CHECK_OK(kjit_mem_alloc(e, bytes, &c));
	void *h = NULL;
	CHECK_MSG(create(&h) == 0 && h, "cublasCreate_v2 failed");
	float alpha = 1.0f, beta = 0.0f;
	const float *pa = (const float *)(uintptr_t)a, *pb = (const float *)(uintptr_t)b;
	float *pc = (float *)(uintptr_t)c;
	for (int i = 0; i < 3; i++) /* warm-up: the clocks rise, cuBLAS picks its kernel */
		CHECK(sgemm(h, 0, 0, GEMM_N, GEMM_N, GEMM_N, &alpha, pa, GEMM_N, pb, GEMM_N, &beta,
		            pc, GEMM_N) == 0);
	CHECK_OK(kjit_synchronize(e));
	double t0 = now_s();
	for (int i = 0; i < GEMM_CALLS; i++)
		CHECK(sgemm(h, 0, 0, GEMM_N, GEMM_N, GEMM_N, &alpha, pa, GEMM_N, pb, GEMM_N, &beta,
		            pc, GEMM_N) == 0);
	CHECK_OK(kjit_synchronize(e));
	double s = now_s() - t0;
	CHECK(destroy(h) == 0);
	CHECK_OK(kjit_mem_free(e, a));
	CHECK_OK(kjit_mem_free(e, b));
	CHECK_OK(kjit_mem_free(e, c));
	dlclose(lib);
	return 2.0 * GEMM_N * GEMM_N * (double)GEMM_N * GEMM_CALLS / s;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = ":memory:";
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);
	printf("GPU: %s\n", kjit_engine_device_name(e));

	/* DRAM: a copy, 2 x 256 MiB moved (the values do not matter to the
	 * speed, so the buffers are left as allocated) */
	kjit_variant *copy = entry(e, "copy4");
	size_t bytes = (size_t)N_VEC4 * 16;
	kjit_devptr x, y, out;
	CHECK_OK(kjit_mem_alloc(e, bytes, &x));
	CHECK_OK(kjit_mem_alloc(e, bytes, &y));
	long long n = N_VEC4;
	void *cargs[] = { &x, &y, &n };
	unsigned cg[3] = { 132 * 16, 1, 1 }, cb[3] = { 256, 1, 1 };
	kjit_profile pc;
	CHECK_OK(kjit_variant_profile(copy, cg, cb, 0, NULL, cargs, NULL, &pc));
	CHECK_MSG(!pc.counters_reason[0], "counters: %s", pc.counters_reason);
	double copy_rate = 2.0 * (double)bytes / timed(copy, cg, cb, cargs);
	at_most("copy, timed", copy_rate, pc.peak_dram_bytes_per_s, "B/s");
	at_most("copy, profiled", pc.dram_bytes_per_s, pc.peak_dram_bytes_per_s, "B/s");
	OK("the copy's DRAM rate, timed and profiled, within the DRAM peak");

	/* fp32: FMAs on every SM */
	kjit_variant *fma = entry(e, "fma32");
	unsigned fg[3] = { 132 * 8, 1, 1 }, fb[3] = { FMA_BLOCK, 1, 1 };
	CHECK_OK(kjit_mem_alloc(e, (size_t)fg[0] * FMA_BLOCK * sizeof(float), &out));
	float a = 1.0001f, b = 0.5f;
	int k = K_FMA;
	void *fargs[] = { &out, &a, &b, &k };
	kjit_profile pf;
	CHECK_OK(kjit_variant_profile(fma, fg, fb, 0, NULL, fargs, NULL, &pf));
	/* 4 chains of K FMAs, 3 adds to start them and 3 to sum them */
	double threads = (double)fg[0] * FMA_BLOCK, flop = (2.0 * 4 * K_FMA + 6) * threads;
	CHECK_MSG(fabs(pf.flop_fp32 - flop) <= 1e-6 * flop, "fp32 FLOPs %.0f, expected %.0f",
	          pf.flop_fp32, flop);
	at_most("fma32, timed", flop / timed(fma, fg, fb, fargs), pf.peak_flop_fp32_per_s, "FLOP/s");
	at_most("fma32, profiled", pf.flop_per_s, pf.peak_flop_fp32_per_s, "FLOP/s");
	OK("the FMA kernel's FLOP rate, timed and profiled, within the fp32 peak");

	double gemm = sgemm_rate(e);
	if (gemm > 0) {
		at_most("cuBLAS SGEMM 4096, timed", gemm, pf.peak_flop_fp32_per_s, "FLOP/s");
		OK("cuBLAS SGEMM within the fp32 peak");
	}
	CHECK_OK(kjit_mem_free(e, x));
	CHECK_OK(kjit_mem_free(e, y));
	CHECK_OK(kjit_mem_free(e, out));
	kjit_engine_close(e);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
