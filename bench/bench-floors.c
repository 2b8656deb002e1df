/*
 * bench-floors - the floors that the tuned examples are held to
 * (bench-tune), measured on the GPU of the run:
 *
 *   floor_copy    device-to-device copy bandwidth: a float4 copy kernel
 *                 (compiled and timed by kjit, CUPTI timer) over 2^26
 *                 floats, the best of a few shapes; read + write bytes
 *                 counted, as in GPU.md's 4240 GB/s.
 *   floor_sgemm   cuBLAS SGEMM at m = n = k = 4096, fp32 in and out,
 *                 CUBLAS_COMPUTE_32F (no TF32), row-major C = A B (as
 *                 C^T = B^T A^T), timed with CUDA events; TFLOP/s of the
 *                 median of --reps launches. libcublas is opened at run
 *                 time ($KJIT_CUBLAS, else libcublas.so.13, else
 *                 libcublas.so) on the kjit engine's primary context;
 *                 without it, or built without cublas_v2.h, SKIP.
 *
 * Both print target=info: they are the reference, not a result. Needs a
 * GPU; without one both SKIP and it exits 0.
 */
#include "config.h"

#include <dlfcn.h>

#include "benchutil.h"

#ifdef HAVE_CUBLAS_V2_H
#include <cublas_v2.h>
#endif

#define COPY_FLOATS (1u << 26)
#define GEMM_N 4096

static const char copy_source[] =
	"extern \"C\" __global__ void copy4(long long n4, const float4 *__restrict__ x,\n"
	"                                  float4 *__restrict__ y)\n"
	"{\n"
	"	long long i = (long long)blockIdx.x * blockDim.x * ITEMS + threadIdx.x;\n"
	"#pragma unroll\n"
	"	for (int k = 0; k < ITEMS; k++, i += blockDim.x)\n"
	"		if (i < n4)\n"
	"			y[i] = x[i];\n"
	"}\n";

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-floors [--reps N]\n"
	           "  --reps N   timed cuBLAS launches (default 20)\n");
}

/* The best copy bandwidth in GB/s over block sizes and items per thread. */
static double copy_floor(kjit_engine *e)
{
	static const char *const params[] = { "ITEMS" };
	static const char *const items[] = { "1", "2", "4" };
	static const unsigned blocks[] = { 256, 512, 1024 };
	kjit_kernel *k;
	kjit_devptr x, y;
	long long n4 = COPY_FLOATS / 4;
	size_t bytes = (size_t)COPY_FLOATS * sizeof(float);
	double best = 0;
	BENCH_KJIT(kjit_kernel_create(e, "copy4", copy_source, params, 1, &k));
	BENCH_KJIT(kjit_mem_alloc(e, bytes, &x));
	BENCH_KJIT(kjit_mem_alloc(e, bytes, &y));
	for (size_t i = 0; i < sizeof items / sizeof *items; i++) {
		kjit_define d = { "ITEMS", items[i] };
		kjit_variant_desc desc = { &d, 1, NULL, 0 };
		kjit_variant *v;
		BENCH_KJIT(kjit_variant_get(k, &desc, &v, NULL));
		for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
			unsigned per_block = blocks[b] * (unsigned)atoi(items[i]);
			unsigned grid[3] = { (unsigned)((n4 + per_block - 1) / per_block), 1, 1 };
			unsigned block[3] = { blocks[b], 1, 1 };
			void *args[] = { &n4, &x, &y };
			kjit_measure_options o;
			kjit_measurement m;
			kjit_measure_options_init(&o);
			BENCH_KJIT(kjit_variant_measure(v, grid, block, 0, NULL, args, &o, &m));
			double gbps = 2.0 * (double)bytes / m.median_ns;
			printf("  copy ITEMS=%s block %4u: median %8.1f us, %7.1f GB/s (%s)\n", items[i],
			       blocks[b], m.median_ns / 1e3, gbps, m.timer);
			if (gbps > best)
				best = gbps;
			kjit_measurement_free(&m);
		}
	}
	BENCH_KJIT(kjit_mem_free(e, x));
	BENCH_KJIT(kjit_mem_free(e, y));
	return best;
}

#ifdef HAVE_CUBLAS_V2_H
/* The cuBLAS entry points used, resolved from the library at run time. */
typedef struct cublas_api {
	cublasStatus_t (*create)(cublasHandle_t *);
	cublasStatus_t (*destroy)(cublasHandle_t);
	cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t);
	cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
	                          int, const void *, const void *, cudaDataType, int,
	                          const void *, cudaDataType, int, const void *, void *,
	                          cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
} cublas_api;

#define CUBLAS_CHECK(call)                                                          \
	do {                                                                        \
		cublasStatus_t s_ = (call);                                         \
		if (s_ != CUBLAS_STATUS_SUCCESS)                                    \
			bench_die("%s:%d: %s failed: cuBLAS status %d", __FILE__,   \
			          __LINE__, #call, (int)s_);                        \
	} while (0)

/* Opens libcublas; NULL with *why when it cannot be had. */
static void *cublas_open(cublas_api *api, char *why, size_t cap)
{
	const char *env = getenv("KJIT_CUBLAS");
	const char *names[] = { env && *env ? env : "libcublas.so.13", "libcublas.so" };
	void *h = NULL;
	for (size_t i = 0; i < 2 && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, cap, "libcublas not found (%s)", dlerror());
		return NULL;
	}
	/* POSIX: a function pointer read through a data pointer */
	*(void **)&api->create = dlsym(h, "cublasCreate_v2");
	*(void **)&api->destroy = dlsym(h, "cublasDestroy_v2");
	*(void **)&api->set_math_mode = dlsym(h, "cublasSetMathMode");
	*(void **)&api->gemm_ex = dlsym(h, "cublasGemmEx");
	if (!api->create || !api->destroy || !api->set_math_mode || !api->gemm_ex) {
		snprintf(why, cap, "libcublas lacks cublasCreate_v2, cublasSetMathMode or cublasGemmEx");
		dlclose(h);
		return NULL;
	}
	return h;
}

/* cuBLAS SGEMM TFLOP/s at GEMM_N; 0 with *why when cuBLAS cannot run. */
static double sgemm_floor(kjit_engine *e, int reps, char *why, size_t cap)
{
	cublas_api api;
	void *lib = cublas_open(&api, why, cap);
	if (!lib)
		return 0;
	kjit_status st;
	const kjit__cu_api *cu = kjit__cu(&st);
	if (!cu)
		bench_die("driver: %s", kjit_last_error());
	size_t elems = (size_t)GEMM_N * GEMM_N, bytes = elems * sizeof(float);
	float *host = bench_malloc(bytes);
	for (size_t i = 0; i < elems; i++)
		host[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
	kjit_devptr a, b, c;
	BENCH_KJIT(kjit_mem_alloc(e, bytes, &a));
	BENCH_KJIT(kjit_mem_alloc(e, bytes, &b));
	BENCH_KJIT(kjit_mem_alloc(e, bytes, &c));
	BENCH_KJIT(kjit_memcpy_htod(e, a, host, bytes));
	BENCH_KJIT(kjit_memcpy_htod(e, b, host, bytes));
	BENCH_KJIT(kjit_memcpy_htod(e, c, host, bytes));
	free(host);
	BENCH_KJIT(kjit_engine_make_current(e)); /* cuBLAS runs on this context */
	cublasHandle_t h;
	CUBLAS_CHECK(api.create(&h));
	CUBLAS_CHECK(api.set_math_mode(h, CUBLAS_DEFAULT_MATH));
	const float alpha = 1.0f, beta = 0.0f;
	const int n = GEMM_N;
	double *ms = bench_malloc((size_t)reps * sizeof *ms);
	CUevent ev[2];
	BENCH_CU(cu->cuEventCreate(&ev[0], CU_EVENT_DEFAULT));
	BENCH_CU(cu->cuEventCreate(&ev[1], CU_EVENT_DEFAULT));
	for (int r = -3; r < reps; r++) { /* three untimed warm-up launches */
		BENCH_CU(cu->cuEventRecord(ev[0], NULL));
		/* row-major C = A B is column-major C^T = B^T A^T */
		CUBLAS_CHECK(api.gemm_ex(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha,
		                         (const void *)(uintptr_t)b, CUDA_R_32F, n,
		                         (const void *)(uintptr_t)a, CUDA_R_32F, n, &beta,
		                         (void *)(uintptr_t)c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
		                         CUBLAS_GEMM_DEFAULT));
		BENCH_CU(cu->cuEventRecord(ev[1], NULL));
		BENCH_CU(cu->cuEventSynchronize(ev[1]));
		float t;
		BENCH_CU(cu->cuEventElapsedTime(&t, ev[0], ev[1]));
		if (r >= 0)
			ms[r] = t;
	}
	bench_stats s = bench_print_stats("cuBLAS SGEMM 4096 (events)", ms, (size_t)reps, "ms");
	BENCH_CU(cu->cuEventDestroy(ev[0]));
	BENCH_CU(cu->cuEventDestroy(ev[1]));
	CUBLAS_CHECK(api.destroy(h));
	BENCH_KJIT(kjit_mem_free(e, a));
	BENCH_KJIT(kjit_mem_free(e, b));
	BENCH_KJIT(kjit_mem_free(e, c));
	free(ms);
	dlclose(lib);
	return 2.0 * n * (double)n * n / (s.median * 1e-3) / 1e12;
}
#endif

int main(int argc, char **argv)
{
	int reps = 20;
	bench_opt opts[] = { { "reps", 'r', &reps, 1 } };
	bench_prog = "bench-floors";
	int rc = bench_parse_options(argc, argv, opts, 1, usage);
	if (rc >= 0)
		return rc;
	char db[BENCH_PATH_MAX];
	kjit_engine *e = bench_engine_open(bench_tmp_path(db, sizeof db, "floors.db"), NULL, 0);
	printf("bench-floors: the copy bandwidth and cuBLAS SGEMM floors\n");
	bench_print_engine(e);
	if (!kjit_engine_has_gpu(e)) {
		bench_skip("floor_copy", kjit_engine_gpu_reason(e));
		bench_skip("floor_sgemm", kjit_engine_gpu_reason(e));
		kjit_engine_close(e);
		return 0;
	}
	double copy = copy_floor(e);
	bench_result("floor_copy", copy, "GB/s", -1, "info");
	char why[512] = "built without cublas_v2.h";
	double tflops = 0;
#ifdef HAVE_CUBLAS_V2_H
	tflops = sgemm_floor(e, reps, why, sizeof why);
#endif
	if (tflops > 0) {
		bench_result("floor_sgemm", tflops, "TFLOP/s", -1, "info");
	} else {
		printf("SKIP floor_sgemm %s\n", why);
	}
	kjit_engine_close(e);
	return 0;
}
