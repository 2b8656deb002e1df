/*
 * bench-launch - launch overhead: kjit_variant_launch() of a cached variant
 * against a raw cuLaunchKernel of the same CUfunction
 * (kjit_variant_function), same arguments, through the same driver entry
 * point (kjit__cu). The kernel is `extern "C" __global__ void empty(int)`,
 * one block of 32 threads, default stream.
 *
 * Host-side time per launch, over --batches batches of --batch launches
 * per path (default 500 x 200 = 100k launches each), the two paths
 * alternating batch by batch, with a cuCtxSynchronize (untimed) after
 * every batch so that the launch queue never fills. Figure: median batch
 * us/launch. Target: kjit <= 1.05 x raw. Needs a GPU; without one it
 * prints why and exits 0.
 */
#include "config.h"


#include "benchutil.h"

static const unsigned grid[3] = { 1, 1, 1 }, block[3] = { 32, 1, 1 };

static double batch_kjit(kjit_variant *v, int n, void **args)
{
	uint64_t t0 = bench_now_ns();
	for (int i = 0; i < n; i++) {
		kjit_status st = kjit_variant_launch(v, grid, block, 0, NULL, args);
		if (st != KJIT_OK)
			BENCH_KJIT(st);
	}
	uint64_t t1 = bench_now_ns();
	return (double)(t1 - t0) * 1e-3 / n;
}

static double batch_raw(const kjit__cu_api *cu, CUfunction f, int n, void **args)
{
	uint64_t t0 = bench_now_ns();
	for (int i = 0; i < n; i++) {
		CUresult r = cu->cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1],
		                                block[2], 0, NULL, args, NULL);
		if (r != CUDA_SUCCESS)
			BENCH_CU(r);
	}
	uint64_t t1 = bench_now_ns();
	return (double)(t1 - t0) * 1e-3 / n;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-launch [-b BATCHES] [-s BATCH]\n"
	           "Launch overhead: kjit_variant_launch() against raw cuLaunchKernel.\n"
	           "  -b, --batches N  timed batches per path (default 500)\n"
	           "  -s, --batch N    launches per batch (default 200)\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-launch";
	int batches = 500, per_batch = 200;
	const bench_opt opts[] = { { "batches", 'b', &batches, 1 }, { "batch", 's', &per_batch, 1 } };
	int rc = bench_parse_options(argc, argv, opts, 2, usage);
	if (rc >= 0)
		return rc;

	printf("== bench-launch: kjit_variant_launch vs raw cuLaunchKernel, empty kernel ==\n");
	char db[BENCH_PATH_MAX];
	kjit_engine *e = bench_engine_open(bench_tmp_path(db, sizeof db, "launch.db"), NULL, 0);
	bench_print_engine(e);
	if (!kjit_engine_has_gpu(e)) {
		bench_skip("launch", kjit_engine_gpu_reason(e));
		kjit_engine_close(e);
		return 0;
	}
	kjit_status st;
	const kjit__cu_api *cu = kjit__cu(&st);
	if (!cu)
		BENCH_KJIT(st);
	kjit_kernel *k;
	kjit_variant *v;
	kjit_cache_tier tier;
	BENCH_KJIT(kjit_kernel_create(e, "empty", bench_empty_source(), NULL, 0, &k));
	BENCH_KJIT(kjit_variant_get(k, NULL, &v, &tier));
	void *fn = NULL;
	BENCH_KJIT(kjit_variant_function(v, &fn));
	CUfunction f = (CUfunction)fn;
	BENCH_KJIT(kjit_engine_make_current(e));
	int value = 7;
	void *args[] = { &value };
	printf("  %d batches x %d launches per path, grid 1, block 32\n", batches, per_batch);

	for (int w = 0; w < 5; w++) { /* warm-up */
		batch_kjit(v, per_batch, args);
		batch_raw(cu, f, per_batch, args);
		BENCH_KJIT(kjit_synchronize(e));
	}
	double *kj = bench_malloc((size_t)batches * sizeof *kj);
	double *raw = bench_malloc((size_t)batches * sizeof *raw);
	for (int b = 0; b < batches; b++) {
		if (b % 2) {
			kj[b] = batch_kjit(v, per_batch, args);
			BENCH_KJIT(kjit_synchronize(e));
			raw[b] = batch_raw(cu, f, per_batch, args);
			BENCH_KJIT(kjit_synchronize(e));
		} else {
			raw[b] = batch_raw(cu, f, per_batch, args);
			BENCH_KJIT(kjit_synchronize(e));
			kj[b] = batch_kjit(v, per_batch, args);
			BENCH_KJIT(kjit_synchronize(e));
		}
	}
	bench_stats sr = bench_print_stats("raw cuLaunchKernel (floor)", raw, (size_t)batches, "us");
	bench_stats sk = bench_print_stats("kjit_variant_launch", kj, (size_t)batches, "us");
	printf("  overhead: %.1f ns per launch (reference floor on the H200: 3.1-4.0 us)\n",
	       (sk.median - sr.median) * 1e3);
	bench_result("launch", sk.median, "us", sr.median, "ratio<=1.05");
	free(kj);
	free(raw);
	kjit_engine_close(e);
	return 0;
}
