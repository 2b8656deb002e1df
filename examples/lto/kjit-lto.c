/*
 * kjit-lto - JIT LTO: the tunable kernel of examples/lto/map.cu calls an
 * extern __device__ op() that a library supplies, linked at run time with
 * nvJitLink. Each library given (default: op-square.cu, then op-affine.cu)
 * makes a kernel of the same source with another link input: the first
 * compiles the kernel's LTO IR with NVRTC and links it, the next ones find
 * that LTO IR in the cache and only link. With a GPU, each kernel runs
 * through kjit_launch() and prints op(x) for a few x.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kjit.h>

#ifndef LTO_EXAMPLES
#define LTO_EXAMPLES "."
#endif

#define MAX_LIBS 16

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: kjit-lto [options] [LIBRARY...]\n"
	        "Links the kernel of %s/map.cu with each library in turn (JIT LTO with\n"
	        "nvJitLink): the kernel is compiled once, every other library is a link only.\n"
	        "A library is CUDA source (.cu, compiled by kjit), LTO IR (.ltoir), a relocatable\n"
	        "cubin (.cubin), a fatbin (.fatbin), an object (.o), a static library (.a) or PTX\n"
	        "(.ptx) that defines __device__ float op(float). Default: op-square.cu op-affine.cu.\n\n"
	        "  -a, --arch sm_NN     target arch (default: $KJIT_ARCH, else the GPU's)\n"
	        "  -d, --db PATH        database (default: $KJIT_DB, else ~/.cache/kjit/kjit.db)\n"
	        "  -n, --size N         elements of a launch (default 16777216 = 2^24)\n"
	        "  -h, --help           this text\n"
	        "  -V, --version        kjit version\n\n"
	        "Without a GPU it compiles and links only, for the arch given.\n"
	        "Exit status: 0 success, 1 a failure (printed), 2 bad usage.\n",
	        LTO_EXAMPLES);
}

static int fail(const char *what, kjit_status st)
{
	fprintf(stderr, "kjit-lto: %s: %s\n%s\n", what, kjit_status_str(st), kjit_last_error());
	return 1;
}

static const char *const block_values[] = { "128", "256", "512", "1024" };
static const char *const items_values[] = { "1", "2", "4", "8" };

/* The kernel of map.cu linked with lib (kind 0: kjit infers it from the
 * file name). */
static kjit_status make_kernel(kjit_engine *e, const char *lib, kjit_kernel **out)
{
	static const char *const problem[] = { "n" };
	const kjit_param params[] = {
		{ "BLOCK", block_values, 4, 1, KJIT_ROLE_BLOCK_X | KJIT_ROLE_DEFINE },
		{ "ITEMS", items_values, 4, 2, KJIT_ROLE_DEFINE },
	};
	kjit_link_input in = { 0 };
	in.path = lib;
	kjit_kernel_options opts;
	kjit_kernel_options_init(&opts);
	opts.link = &in;
	opts.n_link = 1;
	kjit_tunable_desc d = { 0 };
	d.entry = "map";
	d.source_path = LTO_EXAMPLES "/map.cu";
	d.params = params;
	d.n_params = 2;
	d.grid[0] = "(n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS)";
	d.problem_names = problem;
	d.n_problem = 1;
	d.options = &opts;
	return kjit_kernel_create_tunable(e, &d, out);
}

/* Gets the default variant of k and says where it came from, with the
 * NVRTC compiles and links it took. */
static kjit_status show_variant(kjit_engine *e, kjit_kernel *k, const char *lib)
{
	kjit_engine_stats before, after;
	kjit_status st = kjit_engine_get_stats(e, &before);
	const kjit_define defs[] = { { "BLOCK", "256" }, { "ITEMS", "4" } };
	kjit_variant_desc desc = { defs, 2, NULL, 0 };
	kjit_variant *v;
	kjit_cache_tier tier;
	if (st == KJIT_OK)
		st = kjit_variant_get(k, &desc, &v, &tier);
	if (st == KJIT_OK)
		st = kjit_engine_get_stats(e, &after);
	if (st != KJIT_OK)
		return st;
	static const char *const tiers[] = { "memory", "database", "compiled", "PTX" };
	uint64_t compiles = after.compiles - before.compiles, links = after.links - before.links;
	printf("%s: variant BLOCK=256 ITEMS=4 from %s: %llu NVRTC compile%s, %llu link%s "
	       "(%.1f ms)%s\n", lib, tiers[tier], (unsigned long long)compiles,
	       compiles == 1 ? "" : "s", (unsigned long long)links, links == 1 ? "" : "s",
	       after.link_ms_total - before.link_ms_total,
	       tier == KJIT_TIER_COMPILED && !compiles ? ": the kernel's LTO IR came from the "
	                                                "cache, only the link ran" : "");
	return KJIT_OK;
}

/* Runs k on x = 0, 1, 2, ... and prints the first few op(x). */
static kjit_status run(kjit_engine *e, kjit_kernel *k, long long n, const float *hx, float *hy,
                       kjit_devptr dx, kjit_devptr dy)
{
	int64_t problem[] = { n };
	void *args[] = { &n, &dx, &dy };
	kjit_status st = kjit_memcpy_htod(e, dx, hx, (size_t)n * sizeof *hx);
	if (st == KJIT_OK)
		st = kjit_launch(k, problem, 1, args, NULL);
	if (st == KJIT_OK)
		st = kjit_memcpy_dtoh(e, hy, dy, (size_t)n * sizeof *hy);
	if (st != KJIT_OK)
		return st;
	printf("  op(x) for x = 0..4:");
	for (int i = 0; i < 5 && i < n; i++)
		printf(" %g", (double)hy[i]);
	printf("   op(x[n-1] = %g) = %g\n", (double)hx[n - 1], (double)hy[n - 1]);
	return KJIT_OK;
}

int main(int argc, char **argv)
{
	const char *arch = NULL, *db = NULL;
	long long n = 1LL << 24;
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, 'a' }, { "db", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 'n' }, { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },    { NULL, 0, NULL, 0 }
	};
	for (int c; (c = getopt_long(argc, argv, "a:d:n:hV", longopts, NULL)) != -1;) {
		char *end = NULL;
		switch (c) {
		case 'a': arch = optarg; break;
		case 'd': db = optarg; break;
		case 'n': n = strtoll(optarg, &end, 10); break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("kjit-lto (kjit) %s\n", kjit_version()); return 0;
		default: usage(stderr); return 2;
		}
		if (end && (*end || n <= 0 || n > (1LL << 31))) {
			fprintf(stderr, "kjit-lto: invalid size '%s' (1 to 2^31)\n", optarg);
			return 2;
		}
	}
	const char *libs[MAX_LIBS] = { LTO_EXAMPLES "/op-square.cu", LTO_EXAMPLES "/op-affine.cu" };
	int n_libs = 2;
	if (optind < argc) {
		if (argc - optind > MAX_LIBS) {
			fprintf(stderr, "kjit-lto: at most %d libraries\n", MAX_LIBS);
			return 2;
		}
		for (n_libs = 0; optind < argc; optind++)
			libs[n_libs++] = argv[optind];
	}

	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = arch;
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e); /* without a GPU or an arch it says how */
	if (st != KJIT_OK)
		return fail("opening the engine", st);
	int gpu = kjit_engine_has_gpu(e);
	printf("kjit %s, database %s, %s\n", kjit_version(), kjit_engine_db_path(e),
	       kjit_engine_arch(e));
	if (!gpu)
		printf("no GPU (%s): compiling and linking only\n", kjit_engine_gpu_reason(e));

	int rc = 1;
	float *hx = malloc((size_t)n * sizeof *hx), *hy = malloc((size_t)n * sizeof *hy);
	kjit_devptr dx = 0, dy = 0;
	if (!hx || !hy) {
		fprintf(stderr, "kjit-lto: out of host memory for n = %lld\n", n);
		goto done;
	}
	for (long long i = 0; i < n; i++)
		hx[i] = (float)(i % 1000);
	if (gpu && ((st = kjit_mem_alloc(e, (size_t)n * sizeof *hx, &dx)) != KJIT_OK ||
	            (st = kjit_mem_alloc(e, (size_t)n * sizeof *hy, &dy)) != KJIT_OK)) {
		fail("allocating device memory", st);
		goto done;
	}
	for (int i = 0; i < n_libs; i++) {
		kjit_kernel *k;
		if ((st = make_kernel(e, libs[i], &k)) != KJIT_OK ||
		    (st = show_variant(e, k, libs[i])) != KJIT_OK ||
		    (gpu && (st = run(e, k, n, hx, hy, dx, dy)) != KJIT_OK)) {
			fail(libs[i], st);
			goto done;
		}
	}
	rc = 0;
done:
	if (dx)
		kjit_mem_free(e, dx);
	if (dy)
		kjit_mem_free(e, dy);
	free(hx);
	free(hy);
	kjit_engine_close(e);
	return rc;
}
