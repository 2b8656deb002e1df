/*
 * test-gpu-lto: the kernel of examples/lto/map.cu, linked at run time with
 * two libraries in turn (examples/lto/op-square.cu and op-affine.cu, as
 * KJIT_LINK_SOURCE), and with nvcc's LTO IR of tests/lto-op.cu when the
 * build made it, computes op(x) of each library for every element (needs a
 * GPU; exits 77 without one). The kernel's LTO IR is compiled once: the
 * second library's variant is a link only. Each kernel runs through
 * kjit_launch() (the default configuration) and through
 * kjit_variant_launch() of another configuration, on a size that no block
 * divides.
 */
#include "testutil.h"

#ifndef KJIT_LTO_DIR
#define KJIT_LTO_DIR "tests"
#endif

#define N ((1 << 20) + 3)

static float op_square(float x) { return x * x; }
static float op_affine(float x) { return 3.0f * x + 1.0f; }
static float op_nvcc(float x) { return 5.0f * x - 2.0f; }

static const char *const block_values[] = { "128", "256" };
static const char *const items_values[] = { "1", "4" };

static kjit_kernel *make(kjit_engine *e, const char *lib)
{
	static const char *const problem[] = { "n" };
	const kjit_param params[] = {
		{ "BLOCK", block_values, 2, 1, KJIT_ROLE_BLOCK_X | KJIT_ROLE_DEFINE },
		{ "ITEMS", items_values, 2, 1, KJIT_ROLE_DEFINE },
	};
	char src[TU_PATH];
	snprintf(src, sizeof src, "%s/examples/lto/map.cu", tu_srcdir());
	kjit_link_input in = { 0, NULL, NULL, 0, lib };
	kjit_kernel_options opts;
	kjit_kernel_options_init(&opts);
	opts.link = &in;
	opts.n_link = 1;
	kjit_tunable_desc d = { .entry = "map", .source_path = src, .params = params, .n_params = 2,
		                .grid = { "(n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS)" },
		                .problem_names = problem, .n_problem = 1, .options = &opts };
	kjit_kernel *k;
	CHECK_OK(kjit_kernel_create_tunable(e, &d, &k));
	return k;
}

/* Fills y with a value no op gives here, so that a kernel that writes
 * nothing fails the check. */
static void poison(kjit_engine *e, kjit_devptr dy, float *hy)
{
	for (size_t i = 0; i < N; i++)
		hy[i] = -12345.5f;
	CHECK_OK(kjit_memcpy_htod(e, dy, hy, N * sizeof *hy));
}

static void check_output(kjit_engine *e, kjit_devptr dy, float *hy, const float *hx,
                         float (*op)(float), const char *what)
{
	CHECK_OK(kjit_memcpy_dtoh(e, hy, dy, N * sizeof *hy));
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < N; i++)
		if (hy[i] != op(hx[i]) && !bad++)
			first = i;
	CHECK_MSG(bad == 0, "%s: %zu of %d elements wrong, first at %zu: op(%g) = %g, expected %g",
	          what, bad, N, first, (double)hx[first], (double)hy[first],
	          (double)op(hx[first]));
}

/* The library lib (op on the host) linked into the kernel: its default
 * variant made with compiles NVRTC compiles of the kernel and one link,
 * then run both ways. */
static void run(kjit_engine *e, const char *lib, float (*op)(float), uint64_t compiles,
                const float *hx, float *hy, kjit_devptr dx, kjit_devptr dy)
{
	kjit_kernel *k = make(e, lib);
	kjit_engine_stats s0, s1;
	CHECK_OK(kjit_engine_get_stats(e, &s0));
	const kjit_define def[] = { { "BLOCK", "256" }, { "ITEMS", "4" } };
	kjit_variant_desc desc = { def, 2, NULL, 0 };
	kjit_variant *v;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &desc, &v, &tier));
	CHECK_OK(kjit_engine_get_stats(e, &s1));
	CHECK(tier == KJIT_TIER_COMPILED);
	CHECK_EQ_U64(s1.compiles - s0.compiles, compiles);
	CHECK_EQ_U64(s1.links - s0.links, 1);

	long long n = N;
	int64_t problem[] = { N };
	void *args[] = { &n, &dx, &dy };
	poison(e, dy, hy);
	CHECK_OK(kjit_launch(k, problem, 1, args, NULL));
	check_output(e, dy, hy, hx, op, lib);

	const kjit_define other[] = { { "BLOCK", "128" }, { "ITEMS", "1" } };
	kjit_variant_desc odesc = { other, 2, NULL, 0 };
	CHECK_OK(kjit_variant_get(k, &odesc, &v, NULL));
	unsigned grid[3] = { (N + 127) / 128, 1, 1 }, block[3] = { 128, 1, 1 };
	poison(e, dy, hy);
	CHECK_OK(kjit_variant_launch(v, grid, block, 0, NULL, args));
	check_output(e, dy, hy, hx, op, lib);
	OK("%s: %d elements right through kjit_launch() and BLOCK=128 ITEMS=1; the default "
	   "variant took %llu NVRTC compile(s) and 1 link", lib, N, (unsigned long long)compiles);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	char db[TU_PATH];
	tu_path(db, tu_tmpdir(), "lto.db");
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);

	float *hx = malloc(N * sizeof *hx), *hy = malloc(N * sizeof *hy);
	CHECK(hx && hy);
	for (size_t i = 0; i < N; i++)
		hx[i] = (float)(i % 2001) - 1000.0f; /* integers: exact results */
	kjit_devptr dx, dy;
	CHECK_OK(kjit_mem_alloc(e, N * sizeof *hx, &dx));
	CHECK_OK(kjit_mem_alloc(e, N * sizeof *hy, &dy));
	CHECK_OK(kjit_memcpy_htod(e, dx, hx, N * sizeof *hx));

	char square[TU_PATH], affine[TU_PATH];
	snprintf(square, sizeof square, "%s/examples/lto/op-square.cu", tu_srcdir());
	snprintf(affine, sizeof affine, "%s/examples/lto/op-affine.cu", tu_srcdir());
	/* the first compiles the kernel's LTO IR (and op-square.cu's at its
	 * creation, not counted here); the others find it */
	run(e, square, op_square, 1, hx, hy, dx, dy);
	run(e, affine, op_affine, 0, hx, hy, dx, dy);
#ifdef KJIT_LTO_NVCC
	char ltoir[TU_PATH];
	const char *build = getenv("KJIT_BUILDDIR");
	if (build)
		snprintf(ltoir, sizeof ltoir, "%s/tests/lto-op.ltoir", build);
	else
		snprintf(ltoir, sizeof ltoir, "%s/lto-op.ltoir", KJIT_LTO_DIR);
	run(e, ltoir, op_nvcc, 0, hx, hy, dx, dy);
#else
	(void)op_nvcc;
	printf("  skipped: nvcc's LTO IR (configure found no nvcc)\n");
#endif
	CHECK_OK(kjit_mem_free(e, dx));
	CHECK_OK(kjit_mem_free(e, dy));
	free(hx);
	free(hy);
	kjit_engine_close(e);
	return 0;
}
