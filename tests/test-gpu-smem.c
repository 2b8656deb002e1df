/*
 * test-gpu-smem: dynamic shared memory beyond the default limit per block
 * (needs a GPU; exits 77 without one, or when the device cannot opt in to
 * 96 KiB per block).
 *
 * The kernel stages a chunk of its input in dynamic shared memory, folds
 * it (read backwards, across threads) into a static __shared__ tile of
 * TILE_FLOATS floats, and writes the tile out reversed; every output is
 * compared with the same fold on the host.
 *  - the engine knows the device's default and opt-in limits;
 *  - kjit_variant_launch: static + dynamic exactly at the default limit
 *    runs without opting in (the attribute unchanged); 8 KiB more opts in
 *    (the attribute becomes the opt-in maximum less the static size);
 *    64 KiB runs; 8 KiB afterwards still runs;
 *  - kjit_variant_measure with 64 KiB on a fresh variant measures, and the
 *    output is right;
 *  - static + dynamic past the opt-in maximum: KJIT_ERR_LAUNCH from
 *    kjit_variant_launch and kjit_variant_measure, the message giving
 *    the numbers; the variant still runs a launch that fits;
 *  - kjit_launch: a tunable kernel whose shared memory formula asks for
 *    64 KiB runs (first and memoised launches), an 8 KiB problem too; a
 *    problem whose dynamic size passes the device's maximum has no valid
 *    configuration; one that fits alone but not with the static tile is
 *    KJIT_ERR_LAUNCH with the numbers;
 *  - online tuning of a 64 KiB problem: every trial launch is right and a
 *    configuration is committed.
 */
#include "testutil.h"

#define BLOCKS 264
#define MAX_DYN_FLOATS 16384 /* 64 KiB */
#define MAX_TILE 8192        /* 32 KiB */
#define SENTINEL -7.0f

static const char source[] =
	"#ifndef TILE_FLOATS\n"
	"#define TILE_FLOATS 4096\n"
	"#endif\n"
	"extern \"C\" __global__ void fold(const float *in, float *out, int n_dyn)\n"
	"{\n"
	"\textern __shared__ float dyn[];\n"
	"\t__shared__ float tile[TILE_FLOATS];\n"
	"\tconst float *src = in + (size_t)blockIdx.x * n_dyn;\n"
	"\tfor (int i = threadIdx.x; i < n_dyn; i += blockDim.x)\n"
	"\t\tdyn[i] = src[i];\n"
	"\t__syncthreads();\n"
	"\tfor (int j = threadIdx.x; j < TILE_FLOATS; j += blockDim.x) {\n"
	"\t\tfloat s = 0.0f;\n"
	"\t\tfor (int k = j; k < n_dyn; k += TILE_FLOATS)\n"
	"\t\t\ts += dyn[n_dyn - 1 - k];\n"
	"\t\ttile[j] = s;\n"
	"\t}\n"
	"\t__syncthreads();\n"
	"\tfor (int j = threadIdx.x; j < TILE_FLOATS; j += blockDim.x)\n"
	"\t\tout[(size_t)blockIdx.x * TILE_FLOATS + j] = tile[TILE_FLOATS - 1 - j];\n"
	"}\n";

static kjit_engine *e;
static float *hin, *hout, *hsent;
static kjit_devptr din, dout;
static char db_path[TU_PATH];

static kjit_engine *open_gpu(kjit_tune_policy tune)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db_path;
	o.tune = tune;
	o.tune_samples = 3;
	kjit_engine *g = NULL;
	kjit_status st = kjit_engine_open(&o, &g);
	tu_skip_without_gpu(st, g);
	CHECK_OK(st);
	return g;
}

static void buffers(void)
{
	size_t n_in = (size_t)BLOCKS * MAX_DYN_FLOATS, n_out = (size_t)BLOCKS * MAX_TILE;
	hin = malloc(n_in * sizeof *hin);
	hout = malloc(n_out * sizeof *hout);
	hsent = malloc(n_out * sizeof *hsent);
	CHECK(hin && hout && hsent);
	for (size_t i = 0; i < n_in; i++)
		hin[i] = (float)((i * 7) % 13); /* sums of a few stay exact */
	for (size_t i = 0; i < n_out; i++)
		hsent[i] = SENTINEL;
	CHECK_OK(kjit_mem_alloc(e, n_in * sizeof(float), &din));
	CHECK_OK(kjit_mem_alloc(e, n_out * sizeof(float), &dout));
	CHECK_OK(kjit_memcpy_htod(e, din, hin, n_in * sizeof(float)));
}

/* The output back to the sentinel, so that a launch that wrote nothing
 * cannot pass. */
static void reset_out(void)
{
	CHECK_OK(kjit_memcpy_htod(e, dout, hsent, (size_t)BLOCKS * MAX_TILE * sizeof(float)));
}

/* Compares the output of BLOCKS blocks with the fold on the host. */
static void check_out(const char *what, int tile, int n_dyn)
{
	CHECK_OK(kjit_synchronize(e));
	CHECK_OK(kjit_memcpy_dtoh(e, hout, dout, (size_t)BLOCKS * (size_t)tile * sizeof(float)));
	for (size_t b = 0; b < BLOCKS; b++) {
		const float *src = hin + b * (size_t)n_dyn;
		for (int j = 0; j < tile; j++) {
			int t = tile - 1 - j; /* out[j] is tile[t] */
			float want = 0.0f;
			for (int k = t; k < n_dyn; k += tile)
				want += src[n_dyn - 1 - k];
			float got = hout[b * (size_t)tile + (size_t)j];
			if (got != want)
				TU_FAIL("%s (tile %d floats, %d B dynamic): out[%zu] (block %zu, j %d) = "
				        "%.9g, expected %.9g", what, tile, n_dyn * 4,
				        b * (size_t)tile + (size_t)j, b, j, got, want);
		}
	}
}

static kjit_variant *variant(kjit_kernel *k, const char *tile)
{
	kjit_define d = { "TILE_FLOATS", tile };
	kjit_variant_desc vd = { &d, 1, NULL, 0 };
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(k, &vd, &v, NULL));
	return v;
}

static int static_bytes(kjit_variant *v)
{
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	return info.static_shared_bytes;
}

/* The function's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES. */
static int dyn_attribute(kjit_variant *v)
{
	void *fn = NULL;
	int value = -1;
	CHECK_OK(kjit_variant_function(v, &fn));
	CUresult r = e->cu->cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
	                                       (CUfunction)fn);
	CHECK_MSG(r == CUDA_SUCCESS, "cuFuncGetAttribute: %d", (int)r);
	return value;
}

/* One kjit_variant_launch of BLOCKS blocks with n_dyn floats of dynamic
 * shared memory. */
static kjit_status launch(kjit_variant *v, int n_dyn)
{
	unsigned grid[3] = { BLOCKS, 1, 1 }, block[3] = { 256, 1, 1 };
	void *args[] = { &din, &dout, &n_dyn };
	return kjit_variant_launch(v, grid, block, (unsigned)n_dyn * 4u, NULL, args);
}

static void launch_check(kjit_variant *v, int tile, int n_dyn, const char *what)
{
	reset_out();
	CHECK_OK(launch(v, n_dyn));
	check_out(what, tile, n_dyn);
}

/* The message of a launch that cannot fit. */
static void check_too_big(const char *msg, unsigned dynamic, int fixed)
{
	char want[256];
	snprintf(want, sizeof want, "needs %u B dynamic + %d B static shared memory = %llu B; "
	         "the device allows %d B per block", dynamic, fixed,
	         (unsigned long long)dynamic + (unsigned long long)fixed, e->shared_optin);
	CHECK_CONTAINS(msg, want);
	CHECK_CONTAINS(msg, "fold");
}

static void test_variants(kjit_kernel *k)
{
	/* ---- kjit_variant_launch ---- */
	kjit_variant *va = variant(k, "4096");
	int sa = static_bytes(va);
	printf("  TILE_FLOATS=4096: %d B static shared memory\n", sa);
	CHECK_MSG(sa >= 4096 * 4 && sa < e->shared_default, "static shared memory %d B", sa);
	int before = dyn_attribute(va);
	printf("  its MAX_DYNAMIC_SHARED_SIZE_BYTES before any launch: %d\n", before);
	int at_limit = (e->shared_default - sa) / 4;
	launch_check(va, 4096, at_limit, "static + dynamic at the default limit");
	CHECK_MSG(dyn_attribute(va) == before, "attribute %d after a launch within the default "
	          "limit, %d before", dyn_attribute(va), before);
	OK("%d B static + %d B dynamic (the default limit %d B): right, attribute still %d", sa,
	   at_limit * 4, e->shared_default, before);

	int over = at_limit + 2048; /* 8 KiB past the default limit, still below 48 KiB alone
	                             * when the tile is 16 KiB */
	launch_check(va, 4096, over, "8 KiB past the default limit");
	int after = dyn_attribute(va);
	CHECK_MSG(after == e->shared_optin - sa, "attribute %d after opting in, expected %d - %d",
	          after, e->shared_optin, sa);
	OK("%d B static + %d B dynamic: right; MAX_DYNAMIC_SHARED_SIZE_BYTES now %d", sa,
	   over * 4, after);
	launch_check(va, 4096, MAX_DYN_FLOATS, "64 KiB dynamic");
	launch_check(va, 4096, MAX_DYN_FLOATS, "64 KiB dynamic, again");
	OK("%d B static + 65536 B dynamic through kjit_variant_launch: right, twice", sa);
	launch_check(va, 4096, 2048, "8 KiB after 64 KiB");
	OK("8 KiB dynamic after 64 KiB: right");

	/* ---- kjit_variant_measure on a fresh variant ---- */
	kjit_variant *vb = variant(k, "2048");
	int sb = static_bytes(vb);
	unsigned grid[3] = { BLOCKS, 1, 1 }, block[3] = { 512, 1, 1 };
	int n_dyn = MAX_DYN_FLOATS;
	void *args[] = { &din, &dout, &n_dyn };
	kjit_measure_options mo;
	kjit_measure_options_init(&mo);
	mo.max_ms = 300;
	kjit_measurement m;
	reset_out();
	CHECK_OK(kjit_variant_measure(vb, grid, block, MAX_DYN_FLOATS * 4, NULL, args, &mo, &m));
	printf("  measured: median %.0f ns over %zu samples (%s, %s)\n", m.median_ns, m.n_samples,
	       m.timer, m.stop);
	CHECK_MSG(m.median_ns > 0 && m.n_samples >= mo.min_samples, "median %g ns, %zu samples",
	          m.median_ns, m.n_samples);
	kjit_measurement_free(&m);
	check_out("after kjit_variant_measure", 2048, MAX_DYN_FLOATS);
	CHECK_MSG(dyn_attribute(vb) == e->shared_optin - sb, "attribute %d, expected %d",
	          dyn_attribute(vb), e->shared_optin - sb);
	OK("kjit_variant_measure, %d B static + 65536 B dynamic, first use of the variant: "
	   "measured, output right", sb);

	/* ---- past the opt-in maximum ---- */
	kjit_variant *vc = variant(k, "8192");
	int sc = static_bytes(vc);
	int too_many = (e->shared_optin - sc) / 4 + 256; /* 1 KiB too much */
	unsigned dynamic = (unsigned)too_many * 4u;
	CHECK_ST(launch(vc, too_many), KJIT_ERR_LAUNCH);
	printf("  %d B static + %u B dynamic: \"%s\"\n", sc, dynamic, kjit_last_error());
	check_too_big(kjit_last_error(), dynamic, sc);
	check_too_big(kjit_engine_last_error(e), dynamic, sc);
	n_dyn = too_many;
	CHECK_ST(kjit_variant_measure(vc, grid, block, dynamic, NULL, args, &mo, &m),
	         KJIT_ERR_LAUNCH);
	check_too_big(kjit_last_error(), dynamic, sc);
	OK("past the maximum: KJIT_ERR_LAUNCH from launch and measure, \"%s\"", kjit_last_error());
	launch_check(vc, 8192, MAX_DYN_FLOATS, "a fitting launch after a refused one");
	OK("the same variant, %d B static + 65536 B dynamic: right", sc);
}

static const char *const sizes[] = { "blocks", "n_dyn" };
static const char *const tiles[] = { "4096" };
static const char *const threads[] = { "256", "512" };

static kjit_kernel *tunable(kjit_engine *g, const char *tag)
{
	static char text[sizeof source + 64];
	snprintf(text, sizeof text, "%s// %s\n", source, tag);
	kjit_param params[2] = {
		{ "TILE_FLOATS", tiles, 1, 0, KJIT_ROLE_DEFINE },
		{ "THREADS", threads, 2, 0, KJIT_ROLE_BLOCK_X },
	};
	kjit_tunable_desc d = { 0 };
	d.entry = "fold";
	d.source = text;
	d.params = params;
	d.n_params = 2;
	d.grid[0] = "blocks";
	d.shared = "n_dyn * 4";
	d.problem_names = sizes;
	d.n_problem = 2;
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_tunable(g, &d, &k));
	return k;
}

static kjit_status tuned_launch(kjit_kernel *k, int n_dyn)
{
	int64_t p[2] = { BLOCKS, n_dyn };
	void *args[] = { &din, &dout, &n_dyn };
	return kjit_launch(k, p, 2, args, NULL);
}

static void tuned_check(kjit_kernel *k, int n_dyn, const char *what)
{
	reset_out();
	CHECK_OK(tuned_launch(k, n_dyn));
	check_out(what, 4096, n_dyn);
}

static void test_kjit_launch(int static_4096)
{
	kjit_kernel *k = tunable(e, "kjit_launch");
	for (int rep = 0; rep < 3; rep++)
		tuned_check(k, MAX_DYN_FLOATS, rep ? "kjit_launch, memoised" : "kjit_launch, first");
	kjit_explanation x;
	int64_t p[2] = { BLOCKS, MAX_DYN_FLOATS };
	CHECK_OK(kjit_explain(k, p, 2, &x));
	OK("kjit_launch with \"n_dyn * 4\" = 65536 B: right, 3 launches (%s %s)", x.rule, x.config);
	tuned_check(k, 2048, "kjit_launch, 8 KiB");
	tuned_check(k, MAX_DYN_FLOATS, "kjit_launch, 64 KiB after 8 KiB");
	OK("kjit_launch with 8 KiB, then 64 KiB again: right");

	int pruned = e->shared_optin / 4 + 1;
	CHECK_ST(tuned_launch(k, pruned), KJIT_ERR_INVALID_ARG);
	printf("  %d B dynamic: \"%s\"\n", pruned * 4, kjit_last_error());
	CHECK_CONTAINS(kjit_last_error(), "no valid configuration");
	OK("dynamic shared memory past the device's maximum: no valid configuration");

	int tight = (e->shared_optin - static_4096) / 4 + 256;
	CHECK_ST(tuned_launch(k, tight), KJIT_ERR_LAUNCH);
	printf("  %d B dynamic + the tile: \"%s\"\n", tight * 4, kjit_last_error());
	check_too_big(kjit_last_error(), (unsigned)tight * 4u, static_4096);
	CHECK_ST(tuned_launch(k, tight), KJIT_ERR_LAUNCH); /* and again, not memoised as good */
	check_too_big(kjit_last_error(), (unsigned)tight * 4u, static_4096);
	OK("fits alone, not with the static tile: KJIT_ERR_LAUNCH with the numbers, twice");
	tuned_check(k, MAX_DYN_FLOATS, "kjit_launch after a refused problem");
	OK("the 64 KiB problem still right afterwards");
}

static void test_online(void)
{
	kjit_engine *g = open_gpu(KJIT_TUNE_ONLINE);
	kjit_kernel *k = tunable(g, "online");
	int64_t p[2] = { BLOCKS, MAX_DYN_FLOATS };
	kjit_explanation x;
	int launches = 0;
	for (; launches < 50; launches++) {
		CHECK_OK(kjit_explain(k, p, 2, &x));
		if (launches > 0 && !x.tuning)
			break;
		tuned_check(k, MAX_DYN_FLOATS, "online trial");
	}
	CHECK_OK(kjit_explain(k, p, 2, &x));
	printf("  online: %d launches, rule %s, %s, %.0f ns\n", launches, x.rule, x.config,
	       x.median_ns);
	CHECK_STREQ(x.rule, "online");
	CHECK_MSG(launches == 2 * 3, "the search took %d launches, expected 6 (2 x 3)", launches);
	tuned_check(k, MAX_DYN_FLOATS, "after online tuning");
	OK("online tuning of a 64 KiB problem: %d launches, every one right, chose %s", launches,
	   x.config);
	kjit_engine_close(g);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	unsetenv("KJIT_PROFILE");
	unsetenv("KJIT_TUNE");
	tu_path(db_path, tu_tmpdir(), "kjit.db");
	e = open_gpu(KJIT_TUNE_OFF);
	printf("  %s: %d B shared memory per block by default, %d B with opting in\n",
	       kjit_engine_device_name(e), e->shared_default, e->shared_optin);
	CHECK_MSG(e->shared_default > 0 && e->shared_optin >= e->shared_default,
	          "default %d, opt-in %d", e->shared_default, e->shared_optin);
	if (e->shared_optin < MAX_TILE * 4 + MAX_DYN_FLOATS * 4) {
		printf("SKIP: this device allows %d B of shared memory per block; the test needs %d\n",
		       e->shared_optin, MAX_TILE * 4 + MAX_DYN_FLOATS * 4);
		kjit_engine_close(e);
		return 77;
	}
	OK("the engine read the limits at open");
	buffers();
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "fold", source, NULL, 0, &k));
	test_variants(k);
	kjit_variant *va = variant(k, "4096");
	test_kjit_launch(static_bytes(va));
	test_online();
	CHECK_OK(kjit_mem_free(e, din));
	CHECK_OK(kjit_mem_free(e, dout));
	kjit_engine_close(e);
	free(hin);
	free(hout);
	free(hsent);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
