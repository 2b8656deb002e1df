/*
 * bench-lto - JIT LTO against a whole-program compile of the same code.
 *
 * The kernel is examples/lto/map.cu (y[i] = op(x[i]), BLOCK=256 ITEMS=4),
 * op() from examples/lto/op-affine.cu. Three paths, each a miss of
 * kjit_variant_get(), interleaved and rotated each repetition:
 *   whole  the library's source pasted before the kernel's, compiled by
 *          NVRTC alone (the floor);
 *   lto    the kernel linked with the library's LTO IR: NVRTC -dlto of the
 *          kernel, then nvJitLink (a define KJIT_BENCH_SALT that no earlier
 *          compile used makes each one new);
 *   link   the kernel's LTO IR cached, another library (a salt function
 *          added to it): nvJitLink alone, what swapping a library costs.
 * With a GPU, the default variants of whole and lto are measured with
 * kjit_variant_measure() on 2^26 floats: nvJitLink inlines op() across
 * the link, so the run times should match.
 *
 * Targets: lto compile <= 1.5 x whole; lto kernel time <= 1.02 x whole.
 */
#include "config.h"

#include "benchutil.h"

#define N_ELEMS (1LL << 26)

struct ctx {
	char *whole_source, *map_path;
	kjit_kernel *whole, *lto;
	kjit_engine *e;
	kjit__compiled lib; /* op-affine.cu's LTO IR */
	const char *lib_text;
};

static kjit_kernel *linked(struct ctx *c, const void *ir, size_t size)
{
	kjit_link_input in = { KJIT_LINK_LTOIR, "op-affine.ltoir", ir, size, NULL };
	kjit_kernel_options o;
	kjit_kernel_options_init(&o);
	o.link = &in;
	o.n_link = 1;
	kjit_kernel *k;
	BENCH_KJIT(kjit_kernel_create_with(c->e, "map", NULL, c->map_path, NULL, 0, &o, &k));
	return k;
}

static kjit__compiled library_ir(const char *text, const char *arch)
{
	char a[32];
	snprintf(a, sizeof a, "-arch=%s", arch);
	const char *opts[] = { "-dlto", "-rdc=true", a };
	kjit__compiled c;
	BENCH_KJIT(kjit__nvrtc_compile(text, "op-affine.cu", NULL, opts, 3, NULL, &c));
	return c;
}

/* A miss of k's default variant (salt: a new define, or NULL), in ms. */
static double miss(kjit_kernel *k, const char *salt, kjit_variant **out)
{
	kjit_define defs[] = { { "BLOCK", "256" }, { "ITEMS", "4" }, { "KJIT_BENCH_SALT", salt } };
	kjit_variant_desc d = { defs, salt ? 3 : 2, NULL, 0 };
	kjit_variant *v;
	kjit_cache_tier tier;
	uint64_t t0 = bench_now_ns();
	BENCH_KJIT(kjit_variant_get(k, &d, &v, &tier));
	uint64_t t1 = bench_now_ns();
	if (tier != KJIT_TIER_COMPILED)
		bench_die("expected a miss, got tier %d", (int)tier);
	if (out)
		*out = v;
	return (double)(t1 - t0) * 1e-6;
}

/* Another library each time (a salt function in it), made ahead: the
 * link alone is timed. */
static double link_only(struct ctx *c, int salt)
{
	char *text = bench_malloc(strlen(c->lib_text) + 96);
	sprintf(text, "%s__device__ int kjit_bench_salt_%d() { return %d; }\n", c->lib_text, salt,
	        salt);
	kjit__compiled ir = library_ir(text, kjit_engine_arch(c->e));
	kjit_kernel *k = linked(c, ir.cubin, ir.size);
	kjit_engine_stats s0, s1;
	BENCH_KJIT(kjit_engine_get_stats(c->e, &s0));
	double ms = miss(k, NULL, NULL);
	BENCH_KJIT(kjit_engine_get_stats(c->e, &s1));
	if (s1.compiles != s0.compiles || s1.links != s0.links + 1)
		bench_die("a library swap ran %llu NVRTC compiles and %llu links, expected 0 and 1",
		          (unsigned long long)(s1.compiles - s0.compiles),
		          (unsigned long long)(s1.links - s0.links));
	kjit__compiled_free(&ir);
	free(text);
	return ms;
}

static double measure(kjit_variant *v, kjit_devptr dx, kjit_devptr dy)
{
	long long n = N_ELEMS;
	void *args[] = { &n, &dx, &dy };
	unsigned grid[3] = { (unsigned)((N_ELEMS + 1023) / 1024), 1, 1 }, block[3] = { 256, 1, 1 };
	kjit_measure_options mo;
	kjit_measure_options_init(&mo);
	kjit_measurement m;
	BENCH_KJIT(kjit_variant_measure(v, grid, block, 0, NULL, args, &mo, &m));
	printf("  median %.1f us (%zu samples, %s, %s)\n", m.median_ns * 1e-3, m.n_samples,
	       m.timer, m.stop);
	double ns = m.median_ns;
	kjit_measurement_free(&m);
	return ns;
}

static void run_times(struct ctx *c)
{
	if (!kjit_engine_has_gpu(c->e)) {
		bench_skip("lto_kernel_time", kjit_engine_gpu_reason(c->e));
		return;
	}
	kjit_variant *vw, *vl;
	kjit_define defs[] = { { "BLOCK", "256" }, { "ITEMS", "4" } };
	kjit_variant_desc d = { defs, 2, NULL, 0 };
	BENCH_KJIT(kjit_variant_get(c->whole, &d, &vw, NULL));
	BENCH_KJIT(kjit_variant_get(c->lto, &d, &vl, NULL));
	kjit_devptr dx, dy;
	size_t bytes = (size_t)N_ELEMS * sizeof(float);
	BENCH_KJIT(kjit_mem_alloc(c->e, bytes, &dx));
	BENCH_KJIT(kjit_mem_alloc(c->e, bytes, &dy));
	float *h = bench_malloc(bytes);
	for (long long i = 0; i < N_ELEMS; i++)
		h[i] = (float)(i % 1000);
	BENCH_KJIT(kjit_memcpy_htod(c->e, dx, h, bytes));
	free(h);
	printf("  whole program:");
	double whole = measure(vw, dx, dy);
	printf("  LTO:");
	double lto = measure(vl, dx, dy);
	printf("  kernel time LTO / whole program: %.4f (%.0f GB/s vs %.0f GB/s)\n", lto / whole,
	       2.0 * (double)bytes / lto, 2.0 * (double)bytes / whole);
	bench_result("lto_kernel_time", lto * 1e-3, "us", whole * 1e-3, "ratio<=1.02");
	BENCH_KJIT(kjit_mem_free(c->e, dx));
	BENCH_KJIT(kjit_mem_free(c->e, dy));
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-lto [-n RUNS]\n"
	           "JIT LTO (NVRTC -dlto + nvJitLink) against a whole-program compile of the\n"
	           "same code: compile time, and kernel time on a GPU.\n"
	           "  -n, --runs N   timed repetitions of each path (default 10)\n"
	           "Environment: KJIT_BENCH_ARCH.\n");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-lto";
	int runs = 10;
	const bench_opt opts[] = { { "runs", 'n', &runs, 1 } };
	int rc = bench_parse_options(argc, argv, opts, 1, usage);
	if (rc >= 0)
		return rc;
	printf("== bench-lto: JIT LTO vs whole-program compile of the same code ==\n");
	bench_compiles_uncached();
	struct ctx c = { 0 };
	char lib_path[BENCH_PATH_MAX], map_path[BENCH_PATH_MAX], db[BENCH_PATH_MAX];
	snprintf(lib_path, sizeof lib_path, "%s/examples/lto/op-affine.cu", KJIT_BENCH_SRCDIR);
	snprintf(map_path, sizeof map_path, "%s/examples/lto/map.cu", KJIT_BENCH_SRCDIR);
	c.map_path = map_path;
	char *lib = bench_read_file(lib_path, NULL), *map = bench_read_file(map_path, NULL);
	c.lib_text = lib;
	c.whole_source = bench_malloc(strlen(lib) + strlen(map) + 1);
	sprintf(c.whole_source, "%s%s", lib, map);
	bench_tmp_path(db, sizeof db, "lto.db");
	c.e = bench_engine_open(db, NULL, 0);
	bench_print_engine(c.e);
	printf("  %s, nvJitLink %s, %d runs per path\n", kjit_nvrtc_id(), kjit__nvjitlink_id(),
	       runs);
	BENCH_KJIT(kjit_kernel_create(c.e, "map", c.whole_source, NULL, 0, &c.whole));
	c.lib = library_ir(lib, kjit_engine_arch(c.e));
	c.lto = linked(&c, c.lib.cubin, c.lib.size);

	/* warm-up: NVRTC's and nvJitLink's first runs load their parts; the
	 * kernel's LTO IR of the default variant is cached for the swaps */
	miss(c.whole, NULL, NULL);
	miss(c.lto, NULL, NULL);
	link_only(&c, runs);

	double *whole = bench_malloc((size_t)runs * sizeof *whole);
	double *lto = bench_malloc((size_t)runs * sizeof *lto);
	double *link = bench_malloc((size_t)runs * sizeof *link);
	for (int i = 0; i < runs; i++)
		for (int k = 0; k < 3; k++) {
			int which = (i + k) % 3;
			char salt[16];
			snprintf(salt, sizeof salt, "%d", i);
			if (which == 0)
				whole[i] = miss(c.whole, salt, NULL);
			else if (which == 1)
				lto[i] = miss(c.lto, salt, NULL);
			else
				link[i] = link_only(&c, i);
		}
	bench_stats sw = bench_print_stats("whole program, NVRTC (floor)", whole, (size_t)runs, "ms");
	bench_stats sl = bench_print_stats("LTO, NVRTC -dlto + nvJitLink", lto, (size_t)runs, "ms");
	bench_stats sk = bench_print_stats("library swap, nvJitLink alone", link, (size_t)runs, "ms");
	printf("  compile time LTO / whole program: %.3f; a library swap: %.3f\n",
	       sl.median / sw.median, sk.median / sw.median);
	bench_result("lto_compile", sl.median, "ms", sw.median, "ratio<=1.5");
	bench_result("lto_link_only", sk.median, "ms", sw.median, "info");
	run_times(&c);

	kjit_engine_close(c.e);
	kjit__compiled_free(&c.lib);
	free(whole);
	free(lto);
	free(link);
	free(c.whole_source);
	free(lib);
	free(map);
	return 0;
}
