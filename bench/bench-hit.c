/*
 * bench-hit - an in-process cache hit: kjit_variant_get() of a variant that
 * is already in the engine's table, from the call to a launchable
 * function (the key is built from the descriptor, hashed and looked up
 * under the engine lock). The lookup is the same with or without a GPU,
 * so this runs everywhere.
 *
 * Batches of --calls calls (default 1e6), --batches of them (default 7);
 * the figure is the median batch's ns/call. Target: <= 100 ns.
 *
 * Two descriptors are timed: saxpy's two tuning defines (the figure that
 * counts) and a larger one, six defines and two flags (info).
 */
#include "config.h"


#include "benchutil.h"

static double time_batch(kjit_kernel *k, const kjit_variant_desc *d, kjit_variant *want,
                         long calls)
{
	kjit_variant *v = NULL;
	kjit_cache_tier tier = KJIT_TIER_COMPILED;
	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < calls; i++) {
		kjit_status st = kjit_variant_get(k, d, &v, &tier);
		if (st != KJIT_OK)
			BENCH_KJIT(st);
	}
	uint64_t t1 = bench_now_ns();
	if (v != want || tier != KJIT_TIER_MEMORY)
		bench_die("a hit returned variant %p (tier %d), expected %p from memory", (void *)v,
		          (int)tier, (void *)want);
	return (double)(t1 - t0) / (double)calls;
}

static double measure(const char *label, kjit_kernel *k, const kjit_variant_desc *d,
                      int batches, long calls)
{
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	BENCH_KJIT(kjit_variant_get(k, d, &v, &tier)); /* compile (or find) it */
	kjit_variant_info info;
	BENCH_KJIT(kjit_variant_get_info(v, &info));
	printf("  %s: %zu-byte cubin, options:", label, info.cubin_size);
	for (const char *p = info.options; *p; p++)
		putchar(*p == '\n' ? ' ' : *p);
	putchar('\n');
	time_batch(k, d, v, calls / 10 + 1); /* warm-up */
	double *ns = bench_malloc((size_t)batches * sizeof *ns);
	for (int b = 0; b < batches; b++)
		ns[b] = time_batch(k, d, v, calls);
	bench_stats s = bench_print_stats(label, ns, (size_t)batches, "ns/call");
	free(ns);
	return s.median;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-hit [-b BATCHES] [-c CALLS]\n"
	           "In-process cache hit: kjit_variant_get() of a loaded variant.\n"
	           "  -b, --batches N  timed batches (default 7)\n"
	           "  -c, --calls N    calls per batch (default 1000000)\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-hit";
	int batches = 7, calls = 1000000;
	const bench_opt opts[] = { { "batches", 'b', &batches, 1 }, { "calls", 'c', &calls, 1 } };
	int rc = bench_parse_options(argc, argv, opts, 2, usage);
	if (rc >= 0)
		return rc;

	printf("== bench-hit: in-process cache hit, kjit_variant_get of a loaded variant ==\n");
	char *source = bench_read_file(bench_saxpy_path(), NULL);
	char db[BENCH_PATH_MAX];
	bench_tmp_path(db, sizeof db, "hit.db");
	kjit_engine *e = bench_engine_open(db, NULL, 0);
	bench_print_engine(e);
	kjit_kernel *k;
	BENCH_KJIT(kjit_kernel_create(e, "saxpy", source, bench_saxpy_params(), 2, &k));
	printf("  %d batches of %d calls\n", batches, calls);

	const kjit_define small[] = { { "BLOCK_SIZE", "256" }, { "ITEMS_PER_THREAD", "2" } };
	kjit_variant_desc d_small = { small, 2, NULL, 0 };
	const kjit_define large[] = {
		{ "ITEMS_PER_THREAD", "2" }, { "BLOCK_SIZE", "256" }, { "UNUSED_A", "1" },
		{ "UNUSED_B", "2" },         { "UNUSED_C", NULL },    { "UNUSED_D", "some_longer_value" },
	};
	const char *const flags[] = { "--use_fast_math", "-lineinfo" };
	kjit_variant_desc d_large = { large, 6, flags, 2 };

	double ns_small = measure("2 defines", k, &d_small, batches, calls);
	double ns_large = measure("6 defines + 2 flags", k, &d_large, batches, calls);
	bench_result("hit_memory_large", ns_large, "ns", -1, "info");
	bench_result("hit_memory", ns_small, "ns", -1, "value<=100");

	kjit_engine_close(e);
	free(source);
	return 0;
}
