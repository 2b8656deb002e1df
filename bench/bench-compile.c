/*
 * bench-compile - a cold compile through kjit against bare NVRTC.
 *
 * Each repetition compiles saxpy (BLOCK_SIZE=256, ITEMS_PER_THREAD=2) with
 * a define KJIT_BENCH_SALT that no earlier compile used, so that every
 * kjit_variant_get() is a true miss (key lookup in memory and in SQLite,
 * NVRTC, checksum, store in SQLite, and with a GPU the module load). Three
 * paths, interleaved and rotated each repetition so that drift hits all
 * of them alike:
 *   bare    nvrtcCreateProgram + nvrtcCompileProgram + nvrtcGetCUBIN +
 *           nvrtcDestroyProgram with the same options (the floor);
 *   wrapper kjit__nvrtc_compile(), kjit's NVRTC call alone (adds the name
 *           expression and the lowered name);
 *   kjit    kjit_variant_get() on a miss, the figure that counts.
 * The options of the bare path are checked against the canonical list
 * that kjit reports for its variant.
 *
 * Target: kjit median <= 1.05 x bare median.
 */
#include "config.h"


#include "benchutil.h"

#define MAX_OPTS 16

struct ctx {
	const char *source;
	kjit_kernel *kernel;
	const char *arch;
	int gpu;
};

static void make_options(const struct ctx *c, int salt, char *canon, size_t cap)
{
	snprintf(canon, cap, "-DBLOCK_SIZE=256\n-DITEMS_PER_THREAD=2\n-DKJIT_BENCH_SALT=%d\n-arch=%s",
	         salt, c->arch);
}

static double run_bare(const struct ctx *c, int salt)
{
	char canon[256], *copy;
	const char *opts[MAX_OPTS];
	make_options(c, salt, canon, sizeof canon);
	int n = bench_split_options(canon, &copy, opts, MAX_OPTS);
	double ms = bench_bare_nvrtc(c->source, "saxpy.cu", opts, n);
	free(copy);
	return ms;
}

static double run_wrapper(const struct ctx *c, int salt)
{
	char canon[256], *copy;
	const char *opts[MAX_OPTS];
	make_options(c, salt, canon, sizeof canon);
	int n = bench_split_options(canon, &copy, opts, MAX_OPTS);
	kjit__compiled out;
	uint64_t t0 = bench_now_ns();
	BENCH_KJIT(kjit__nvrtc_compile(c->source, "saxpy.cu", "saxpy", opts, (size_t)n, NULL, &out));
	uint64_t t1 = bench_now_ns();
	kjit__compiled_free(&out);
	free(copy);
	return (double)(t1 - t0) * 1e-6;
}

static double run_kjit(const struct ctx *c, int salt)
{
	char salt_text[32];
	snprintf(salt_text, sizeof salt_text, "%d", salt);
	/* Unsorted on purpose: kjit sorts the defines. */
	const kjit_define defs[] = {
		{ "KJIT_BENCH_SALT", salt_text },
		{ "ITEMS_PER_THREAD", "2" },
		{ "BLOCK_SIZE", "256" },
	};
	kjit_variant_desc d = { defs, 3, NULL, 0 };
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	uint64_t t0 = bench_now_ns();
	BENCH_KJIT(kjit_variant_get(c->kernel, &d, &v, &tier));
	uint64_t t1 = bench_now_ns();
	if (tier != KJIT_TIER_COMPILED)
		bench_die("salt %d: expected a miss (compiled), got tier %d", salt, (int)tier);
	kjit_variant_info info;
	BENCH_KJIT(kjit_variant_get_info(v, &info));
	char canon[256];
	make_options(c, salt, canon, sizeof canon);
	if (strcmp(info.options, canon) != 0)
		bench_die("the bare path would not compile what kjit compiled:\n kjit:\n%s\n bare:\n%s",
		          info.options, canon);
	return (double)(t1 - t0) * 1e-6;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-compile [-n RUNS]\n"
	           "Cold compile through kjit_variant_get() against bare NVRTC, interleaved.\n"
	           "  -n, --runs N   timed repetitions of each path (default 15)\n"
	           "Environment: KJIT_BENCH_SAXPY (kernel source), KJIT_ARCH (needed without a GPU).\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-compile";
	int runs = 15;
	const bench_opt opts[] = { { "runs", 'n', &runs, 1 } };
	int rc = bench_parse_options(argc, argv, opts, 1, usage);
	if (rc >= 0)
		return rc;

	printf("== bench-compile: cold compile, kjit_variant_get (miss) vs bare NVRTC ==\n");
	bench_compiles_uncached();
	const char *path = bench_saxpy_path();
	char *source = bench_read_file(path, NULL);
	char db[BENCH_PATH_MAX];
	bench_tmp_path(db, sizeof db, "compile.db");
	kjit_engine *e = bench_engine_open(db, NULL, 0);
	bench_print_engine(e);
	struct ctx c = { source, NULL, kjit_engine_arch(e), kjit_engine_has_gpu(e) };
	BENCH_KJIT(kjit_kernel_create(e, "saxpy", source, bench_saxpy_params(), 2, &c.kernel));
	int major = 0, minor = 0;
	BENCH_NVRTC(nvrtcVersion(&major, &minor));
	printf("  source %s, NVRTC %d.%d (kjit id %s), %d runs per path, fresh database %s\n",
	       path, major, minor, kjit_nvrtc_id(), runs, db);
	printf("  the kjit path %s the module load (%s)\n", c.gpu ? "includes" : "excludes",
	       c.gpu ? "GPU present" : "no GPU");

	/* Warm-up: NVRTC's first compile in a process loads its builtins. */
	run_bare(&c, 1000000);
	run_wrapper(&c, 1000001);
	run_kjit(&c, 1000002);

	double *bare = bench_malloc((size_t)runs * sizeof *bare);
	double *wrap = bench_malloc((size_t)runs * sizeof *wrap);
	double *kj = bench_malloc((size_t)runs * sizeof *kj);
	double *paired = bench_malloc((size_t)runs * sizeof *paired);
	for (int i = 0; i < runs; i++) {
		for (int k = 0; k < 3; k++) {
			int which = (i + k) % 3, salt = 3 * i + which;
			if (which == 0)
				bare[i] = run_bare(&c, salt);
			else if (which == 1)
				wrap[i] = run_wrapper(&c, salt);
			else
				kj[i] = run_kjit(&c, salt);
		}
		paired[i] = kj[i] / bare[i];
	}
	kjit_engine_stats stats;
	BENCH_KJIT(kjit_engine_get_stats(e, &stats));
	if (stats.misses != (uint64_t)runs + 1)
		bench_die("expected %d misses, the engine counted %llu", runs + 1,
		          (unsigned long long)stats.misses);

	bench_stats sb = bench_print_stats("bare NVRTC (floor)", bare, (size_t)runs, "ms");
	bench_stats sw = bench_print_stats("kjit__nvrtc_compile (wrapper)", wrap, (size_t)runs, "ms");
	bench_stats sk = bench_print_stats("kjit_variant_get, miss", kj, (size_t)runs, "ms");
	printf("  overhead: kjit - bare = %.3f ms (%+.2f%%), of which the NVRTC wrapper %.3f ms\n",
	       sk.median - sb.median, 100.0 * (sk.median / sb.median - 1.0),
	       sw.median - sb.median);
	printf("  median of paired ratios kjit/bare: %.4f\n", bench_median(paired, (size_t)runs));
	bench_result("compile_cold_wrapper", sw.median, "ms", sb.median, "info");
	bench_result("compile_cold", sk.median, "ms", sb.median, "ratio<=1.05");

	kjit_engine_close(e);
	free(bare);
	free(wrap);
	free(kj);
	free(paired);
	free(source);
	return 0;
}
