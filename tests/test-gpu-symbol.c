/*
 * test-gpu-symbol: module variables through kjit_kernel_set_symbol()
 * (needs a GPU; exits 77 without one).
 *
 * The kernel computes y[i] = SCALE * coeff[i % 16] * x[i] + bias from a
 * __constant__ float coeff[16] and a __device__ int bias; every output
 * element is compared with the host's.
 *  - set before any variant exists: three variants (-DSCALE=1, 2, 3)
 *    loaded afterwards all see it;
 *  - set again: every loaded variant sees the new data, and so does one
 *    loaded afterwards;
 *  - a launch on a non-blocking stream made before a set reads the old
 *    data, one made after it the new;
 *  - data larger than the variable (KJIT_ERR_INVALID_ARG) and a missing
 *    variable (KJIT_ERR_NOT_FOUND) name the variable and a variant, and
 *    change nothing; set before the first load, they make that load fail
 *    in the same way;
 *  - data smaller than the variable fills its start; the rest keeps the
 *    module's initial contents (a table declared for the largest case);
 *  - two kernels with the same variable keep their own data;
 *  - kjit_launch: a tunable kernel's variant sees the data set before its
 *    first launch, and memoised launches see a change.
 */
#include "testutil.h"

#define N_COEFF 16
#define N (1 << 24)

static const char source[] =
	"#ifndef SCALE\n"
	"#define SCALE 1\n"
	"#endif\n"
	"__constant__ float coeff[16];\n"
	"__device__ int bias;\n"
	"extern \"C\" __global__ void poly(const float *x, float *y, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = SCALE * coeff[i % 16] * x[i] + (float)bias;\n"
	"}\n";

/* The same kernel without the bias variable. */
static const char source_no_bias[] =
	"__constant__ float coeff[16];\n"
	"extern \"C\" __global__ void poly(const float *x, float *y, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = coeff[i % 16] * x[i];\n"
	"}\n";

static kjit_engine *e;
static float *hx, *hy;
static kjit_devptr dx, dy;
static char db_path[TU_PATH];

typedef struct table {
	float coeff[N_COEFF];
	int bias;
} table;

static void table_make(table *t, float a, float b, int bias)
{
	for (int i = 0; i < N_COEFF; i++)
		t->coeff[i] = a * (float)i + b;
	t->bias = bias;
}

static void set_table(kjit_kernel *k, const table *t)
{
	CHECK_OK(kjit_kernel_set_symbol(k, "coeff", t->coeff, sizeof t->coeff));
	CHECK_OK(kjit_kernel_set_symbol(k, "bias", &t->bias, sizeof t->bias));
}

static void buffers(void)
{
	hx = malloc((size_t)N * sizeof *hx);
	hy = malloc((size_t)N * sizeof *hy);
	CHECK(hx && hy);
	for (size_t i = 0; i < N; i++)
		hx[i] = (float)(i % 9) - 4.0f; /* small integers: exact products */
	CHECK_OK(kjit_mem_alloc(e, (size_t)N * sizeof(float), &dx));
	CHECK_OK(kjit_mem_alloc(e, (size_t)N * sizeof(float), &dy));
	CHECK_OK(kjit_memcpy_htod(e, dx, hx, (size_t)N * sizeof(float)));
}

/* y to a sentinel; waits for the copy, so that a launch on a
 * non-blocking stream cannot overtake it. */
static void clear_y(void)
{
	CHECK_OK(kjit_synchronize(e));
	for (size_t i = 0; i < N; i++)
		hy[i] = -12345.0f;
	CHECK_OK(kjit_memcpy_htod(e, dy, hy, (size_t)N * sizeof(float)));
	CHECK_OK(kjit_synchronize(e));
}

static void check_y(const char *what, int scale, const table *t)
{
	CHECK_OK(kjit_synchronize(e));
	CHECK_OK(kjit_memcpy_dtoh(e, hy, dy, (size_t)N * sizeof(float)));
	for (size_t i = 0; i < N; i++) {
		float want = (float)scale * t->coeff[i % N_COEFF] * hx[i] + (float)t->bias;
		if (hy[i] != want)
			TU_FAIL("%s (SCALE %d): y[%zu] = %.9g, expected %d * %.9g * %.9g + %d = %.9g",
			        what, scale, i, hy[i], scale, t->coeff[i % N_COEFF], hx[i], t->bias,
			        want);
	}
}

static kjit_variant *variant(kjit_kernel *k, int scale)
{
	char text[16];
	snprintf(text, sizeof text, "%d", scale);
	kjit_define d = { "SCALE", text };
	kjit_variant_desc vd = { &d, 1, NULL, 0 };
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(k, &vd, &v, NULL));
	return v;
}

static void launch_on(kjit_variant *v, kjit_stream s)
{
	int n = N;
	void *args[] = { &dx, &dy, &n };
	unsigned grid[3] = { (N + 255) / 256, 1, 1 }, block[3] = { 256, 1, 1 };
	CHECK_OK(kjit_variant_launch(v, grid, block, 0, s, args));
}

static void launch_check(kjit_variant *v, int scale, const table *t, const char *what)
{
	clear_y();
	launch_on(v, NULL);
	check_y(what, scale, t);
}

static void test_variants(void)
{
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "poly", source, NULL, 0, &k));
	table t1, t2;
	table_make(&t1, 1.0f, 1.0f, 3);
	set_table(k, &t1);
	OK("coeff and bias set before any variant is loaded");
	kjit_variant *v[4];
	for (int s = 1; s <= 3; s++) {
		v[s] = variant(k, s);
		launch_check(v[s], s, &t1, "set before the load");
	}
	OK("SCALE 1, 2, 3 loaded afterwards: each sees coeff = i + 1, bias 3");

	table_make(&t2, 2.0f, -5.0f, -4);
	set_table(k, &t2);
	for (int s = 1; s <= 3; s++)
		launch_check(v[s], s, &t2, "set again");
	kjit_variant *v4 = variant(k, 4);
	launch_check(v4, 4, &t2, "loaded after the second set");
	OK("set again: SCALE 1, 2, 3 and 4 (loaded after) see coeff = 2i - 5, bias -4");

	/* Ordering on a stream that does not wait for the default stream. */
	CHECK_OK(kjit_engine_make_current(e));
	CUstream s;
	CUresult r = e->cu->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
	CHECK_MSG(r == CUDA_SUCCESS, "cuStreamCreate: %d", (int)r);
	for (int round = 0; round < 3; round++) {
		const table *old = round % 2 ? &t1 : &t2, *now = round % 2 ? &t2 : &t1;
		clear_y();
		launch_on(v[2], (kjit_stream)s); /* reads old */
		set_table(k, now);
		r = e->cu->cuStreamSynchronize(s);
		CHECK_MSG(r == CUDA_SUCCESS, "cuStreamSynchronize: %d", (int)r);
		check_y("a launch made before the set", 2, old);
		clear_y();
		launch_on(v[2], (kjit_stream)s); /* reads now */
		r = e->cu->cuStreamSynchronize(s);
		CHECK_MSG(r == CUDA_SUCCESS, "cuStreamSynchronize: %d", (int)r);
		check_y("a launch made after the set", 2, now);
	}
	e->cu->cuStreamDestroy(s);
	OK("non-blocking stream: a launch before a set reads the old data, one after the new, "
	   "3 rounds");
	/* 3 rounds: t1 is in place */

	/* Errors name the variable and a variant; nothing changes. */
	float twice[N_COEFF * 2] = { 99 };
	CHECK_ST(kjit_kernel_set_symbol(k, "coeff", twice, sizeof twice), KJIT_ERR_INVALID_ARG);
	printf("  too large: \"%s\"\n", kjit_last_error());
	CHECK_CONTAINS(kjit_last_error(), "'coeff'");
	CHECK_CONTAINS(kjit_last_error(), "is 64 bytes, the data given is 128 bytes");
	CHECK_CONTAINS(kjit_last_error(), "variant ");
	CHECK_CONTAINS(kjit_engine_last_error(e), "'coeff'");
	int found_key = 0;
	for (int i = 1; i <= 3; i++) {
		kjit_variant_info info;
		CHECK_OK(kjit_variant_get_info(v[i], &info));
		found_key |= strstr(kjit_engine_last_error(e), info.key) != NULL;
	}
	found_key |= strstr(kjit_engine_last_error(e), v4->key) != NULL;
	CHECK_MSG(found_key, "no variant key in \"%s\"", kjit_engine_last_error(e));
	OK("too large: KJIT_ERR_INVALID_ARG naming coeff and the variant");
	int one = 1;
	CHECK_ST(kjit_kernel_set_symbol(k, "no_such_table", &one, sizeof one), KJIT_ERR_NOT_FOUND);
	printf("  missing: \"%s\"\n", kjit_last_error());
	CHECK_CONTAINS(kjit_last_error(), "'no_such_table'");
	CHECK_CONTAINS(kjit_last_error(), "has no module variable");
	OK("missing variable: KJIT_ERR_NOT_FOUND naming it and the variant");
	for (int s2 = 1; s2 <= 3; s2++)
		launch_check(v[s2], s2, &t1, "after the refused sets");
	kjit_variant *v5 = variant(k, 5); /* the refused data was not kept */
	launch_check(v5, 5, &t1, "loaded after the refused sets");
	OK("after both: the loaded variants and a new one still see the last good data");

	/* Set before the first load: the load fails the same way. */
	kjit_kernel *kb = NULL;
	CHECK_OK(kjit_kernel_create(e, "poly", source_no_bias, NULL, 0, &kb));
	CHECK_OK(kjit_kernel_set_symbol(kb, "bias", &one, sizeof one));
	kjit_variant *none = (kjit_variant *)1;
	CHECK_ST(kjit_variant_get(kb, NULL, &none, NULL), KJIT_ERR_NOT_FOUND);
	printf("  load with a missing variable: \"%s\"\n", kjit_last_error());
	CHECK(none == NULL);
	CHECK_CONTAINS(kjit_last_error(), "'bias'");
	CHECK_CONTAINS(kjit_last_error(), "has no module variable");
	kjit_kernel *kc = NULL;
	CHECK_OK(kjit_kernel_create(e, "poly", source_no_bias, NULL, 0, &kc));
	CHECK_OK(kjit_kernel_set_symbol(kc, "coeff", twice, sizeof twice));
	CHECK_ST(kjit_variant_get(kc, NULL, &none, NULL), KJIT_ERR_INVALID_ARG);
	printf("  load with too much data: \"%s\"\n", kjit_last_error());
	CHECK_CONTAINS(kjit_last_error(), "'coeff'");
	CHECK_CONTAINS(kjit_last_error(), "is 64 bytes, the data given is 128 bytes");
	OK("set before the first load: the load fails with NOT_FOUND / INVALID_ARG naming the "
	   "variable");

	/* Less data than the variable: its start; the rest stays 0, the
	 * module's initial contents. */
	kjit_kernel *kh = NULL;
	CHECK_OK(kjit_kernel_create(e, "poly", source_no_bias, NULL, 0, &kh));
	table th;
	table_make(&th, 3.0f, 1.0f, 0);
	CHECK_OK(kjit_kernel_set_symbol(kh, "coeff", th.coeff, sizeof th.coeff / 2));
	for (int i = N_COEFF / 2; i < N_COEFF; i++)
		th.coeff[i] = 0.0f;
	launch_check(variant(kh, 1), 1, &th, "half the table");
	OK("data smaller than the variable: its start is written, the rest keeps the module's "
	   "zeros");

	/* Another kernel with the same variables keeps its own. */
	kjit_kernel *ko = NULL;
	static char other[sizeof source + 32];
	snprintf(other, sizeof other, "%s// another kernel\n", source);
	CHECK_OK(kjit_kernel_create(e, "poly", other, NULL, 0, &ko));
	table t3;
	table_make(&t3, -1.0f, 7.0f, 11);
	set_table(ko, &t3);
	kjit_variant *vo = variant(ko, 2);
	launch_check(vo, 2, &t3, "the other kernel");
	launch_check(v[2], 2, &t1, "the first kernel, after the other's set");
	OK("two kernels with the same variables: each sees its own data");
}

static const char *const scales[] = { "1", "3" };
static const char *const threads[] = { "128", "256" };
static const char *const sizes[] = { "n" };

static void tuned_check(kjit_kernel *k, const table *t, const char *what)
{
	int n = N;
	int64_t p = N;
	void *args[] = { &dx, &dy, &n };
	clear_y();
	CHECK_OK(kjit_launch(k, &p, 1, args, NULL));
	kjit_explanation x;
	CHECK_OK(kjit_explain(k, &p, 1, &x));
	/* the default configuration: SCALE 3 */
	check_y(what, 3, t);
	printf("  %s: right with %s (%s)\n", what, x.config, x.rule);
}

static void test_kjit_launch(void)
{
	kjit_param params[2] = {
		{ "SCALE", scales, 2, 1, KJIT_ROLE_DEFINE },
		{ "THREADS", threads, 2, 1, KJIT_ROLE_BLOCK_X },
	};
	kjit_tunable_desc d = { 0 };
	d.entry = "poly";
	d.source = source;
	d.params = params;
	d.n_params = 2;
	d.grid[0] = "(n + THREADS - 1) // THREADS";
	d.problem_names = sizes;
	d.n_problem = 1;
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_tunable(e, &d, &k));
	table t1, t2;
	table_make(&t1, 0.5f, 2.0f, 9);
	set_table(k, &t1);
	tuned_check(k, &t1, "kjit_launch, first launch after the set");
	tuned_check(k, &t1, "kjit_launch, memoised");
	table_make(&t2, -3.0f, 1.0f, -6);
	set_table(k, &t2);
	tuned_check(k, &t2, "kjit_launch, memoised, after a second set");
	float twice[N_COEFF * 2] = { 0 };
	CHECK_ST(kjit_kernel_set_symbol(k, "coeff", twice, sizeof twice), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "'coeff'");
	tuned_check(k, &t2, "kjit_launch after a refused set");
	OK("kjit_launch: the tunable kernel's variant sees the data set before its first launch "
	   "and every change after");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	unsetenv("KJIT_PROFILE");
	tu_path(db_path, tu_tmpdir(), "kjit.db");
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db_path;
	o.tune = KJIT_TUNE_OFF;
	kjit_status st = kjit_engine_open(&o, &e);
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);
	buffers();
	test_variants();
	test_kjit_launch();
	CHECK_OK(kjit_mem_free(e, dx));
	CHECK_OK(kjit_mem_free(e, dy));
	kjit_engine_close(e);
	free(hx);
	free(hy);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
