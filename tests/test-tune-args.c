/*
 * test-tune-args: kjit-tune's kernel arguments on the host (autotune/
 * args.c): IEEE binary16 rounding (every half, every midpoint), every
 * element type and vector width with every fill (random, constant,
 * sequence, file, generator), scalars of every type, sizes and their
 * limit, reference data, which outputs are compared and how, the
 * --verify/--atol/--rtol override, and errors that name the argument
 * and the element. The spec is read from a file, then each argument is
 * set as a case needs: the reader's own tests are test-tune-spec's.
 */
#include "testutil.h"

#include <math.h>

#include "worker.h"

static const char *dir;

static const char base_spec[] =
	"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	" \"parameters\": [{\"name\": \"B\", \"values\": [32]}],"
	" \"problems\": {\"n\": 5},"
	" \"arguments\": [{\"name\": \"x\", \"type\": \"float\", \"length\": \"n\"}]}";

/* The spec's one argument, set to a case: a buffer of length of type,
 * components wide. The strings the spec does not free are the test's. */
static kjit__arg *set_arg(kjit__spec *spec, const char *type, unsigned components,
                          const char *length, kjit__fill fill)
{
	kjit__arg *a = &spec->args[0];
	free(a->type);
	free(a->length);
	a->type = strdup(type);
	a->length = length ? strdup(length) : NULL;
	a->is_buffer = length != NULL;
	free(a->value);
	a->value = NULL;
	a->components = components;
	a->custom_size = 0;
	a->data.fill = fill;
	a->data.seed = 1;
	a->data.constant = 0;
	a->data.generator = NULL;
	a->symbol = 0;
	a->output = -1;
	a->access = KJIT__IN;
	a->has_reference = 0;
	CHECK(a->type);
	return a;
}

static kt_args *build_ok(kjit__spec *spec)
{
	kt_args *a = NULL;
	CHECK_MSG(kt_args_build(spec, 0, &a) == KJIT_OK, "%s", kjit_last_error());
	CHECK(a && a->n == 1);
	return a;
}

static void build_fails(kjit__spec *spec, kjit_status want, const char *msg1, const char *msg2)
{
	kt_args *a = NULL;
	CHECK_ST(kt_args_build(spec, 0, &a), want);
	CHECK(a == NULL);
	CHECK_CONTAINS(kjit_last_error(), msg1);
	if (msg2)
		CHECK_CONTAINS(kjit_last_error(), msg2);
}

static void test_half(void)
{
	static const struct {
		double v;
		uint16_t h;
	} cases[] = {
		{ 1.0, 0x3c00 }, { -2.0, 0xc000 }, { 0.1, 0x2e66 }, { 1.0 / 3, 0x3555 },
		{ 65504, 0x7bff }, { 65519.99, 0x7bff }, { 65520, 0x7c00 }, { 1e10, 0x7c00 },
		{ -INFINITY, 0xfc00 }, { 0x1p-14, 0x0400 }, { 0x1p-24, 0x0001 },
		{ 0x1p-25, 0x0000 },          /* half the smallest subnormal: to even, 0 */
		{ 0x1.8p-24, 0x0002 },        /* 1.5 units: to even, 2 */
		{ 0x1.0000000000001p-25, 0x0001 }, /* just above the midpoint */
		{ 2049, 0x6800 }, { 2051, 0x6802 }, { 0x1.ffcp-15, 0x0400 }, /* carries up */
		{ -0.0, 0x8000 }, { 0.0, 0x0000 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		CHECK_MSG(kt_half_from_double(cases[i].v) == cases[i].h, "%a -> 0x%04x, expected 0x%04x",
		          cases[i].v, kt_half_from_double(cases[i].v), cases[i].h);
	CHECK((kt_half_from_double(NAN) & 0x7c00) == 0x7c00 && (kt_half_from_double(NAN) & 0x3ff));
	CHECK(isnan(kt_half_to_double(0x7e00)) && kt_half_to_double(0x7c00) == INFINITY);
	CHECK(kt_half_to_double(0x0001) == 0x1p-24 && kt_half_to_double(0xbc00) == -1.0);
	/* every finite half round-trips; each midpoint between neighbours goes
	 * to the even one, and anything off the midpoint to the nearer */
	size_t mids = 0;
	for (unsigned h = 0; h < 0x7c00; h++) {
		for (unsigned s = 0; s < 2; s++) {
			uint16_t hs = (uint16_t)(h | (s << 15));
			CHECK_MSG(kt_half_from_double(kt_half_to_double(hs)) == hs, "0x%04x", hs);
		}
		if (h == 0x7bff)
			break;
		double lo = kt_half_to_double((uint16_t)h), hi = kt_half_to_double((uint16_t)(h + 1));
		double mid = (lo + hi) / 2;
		uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
		CHECK_MSG(kt_half_from_double(mid) == even, "midpoint of 0x%04x: 0x%04x", h,
		          kt_half_from_double(mid));
		CHECK(kt_half_from_double(nextafter(mid, 0)) == h);
		CHECK(kt_half_from_double(nextafter(mid, INFINITY)) == h + 1);
		CHECK(kt_half_from_double(-mid) == (even | 0x8000));
		mids++;
	}
	OK("binary16: %zu midpoints to even, every finite half round-trips, overflow, "
	   "subnormals, NaN", mids);
}

/* Every element type: sizes, a sequence, the values read back. */
static void test_types(kjit__spec *spec)
{
	static const struct {
		const char *type;
		size_t size;
		int is_float;
	} types[] = {
		{ "bool", 1, 0 }, { "int8", 1, 0 }, { "uint8", 1, 0 }, { "int16", 2, 0 },
		{ "uint16", 2, 0 }, { "int32", 4, 0 }, { "uint32", 4, 0 }, { "int64", 8, 0 },
		{ "uint64", 8, 0 }, { "half", 2, 1 }, { "float", 4, 1 }, { "double", 8, 1 },
	};
	static const unsigned widths[] = { 1, 2, 3, 4, 8, 16 };
	size_t cases = 0;
	for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
		CHECK(kt_elem_size(types[t].type) == types[t].size);
		CHECK(kt_elem_is_float(types[t].type) == types[t].is_float);
		for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
			kjit__arg *sa = set_arg(spec, types[t].type, widths[w], "n", KJIT__FILL_SEQUENCE);
			sa->data.constant = 1;
			kt_args *a = build_ok(spec);
			kt_arg *x = &a->a[0];
			CHECK(x->elem == types[t].size && x->count == 5 && x->components == widths[w]);
			CHECK(x->values == 5 * widths[w] && x->bytes == x->values * types[t].size);
			for (size_t j = 0; j < x->values; j++) {
				double want = strcmp(types[t].type, "bool") == 0 ? 1 : 1.0 + (double)j;
				CHECK_MSG(kt_elem_load(types[t].type, x->host, j) == want, "%s x%u [%zu] = %g",
				          types[t].type, widths[w], j, kt_elem_load(types[t].type, x->host, j));
			}
			kt_args_free(a);
			cases++;
		}
	}
	CHECK(kt_elem_size("quad") == 0);
	set_arg(spec, "quad", 1, "n", KJIT__FILL_RANDOM);
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: no element type 'quad'", NULL);
	set_arg(spec, "float", 0, "n", KJIT__FILL_RANDOM);
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: 0 components", NULL);
	OK("%zu types x widths: element sizes, counts, bytes and a sequence read back", cases);

	/* a value the type cannot hold is an error naming argument and element */
	kjit__arg *sa = set_arg(spec, "uint8", 1, "n", KJIT__FILL_SEQUENCE);
	sa->data.constant = 253;
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: 256 at element 3 is not a value of "
	            "type uint8", NULL);
	sa = set_arg(spec, "int8", 4, "n", KJIT__FILL_CONSTANT);
	sa->data.constant = -129;
	build_fails(spec, KJIT_ERR_INVALID_ARG, "element 0 component 0 is not a value of type int8",
	            NULL);
	sa = set_arg(spec, "int32", 1, "n", KJIT__FILL_CONSTANT);
	sa->data.constant = -7.9; /* truncates toward zero, as C and numpy do */
	kt_args *a = build_ok(spec);
	CHECK(((int32_t *)a->a[0].host)[4] == -7);
	kt_args_free(a);
	sa = set_arg(spec, "half", 1, "n", KJIT__FILL_CONSTANT);
	sa->data.constant = 0.1;
	a = build_ok(spec);
	CHECK(((uint16_t *)a->a[0].host)[2] == 0x2e66);
	kt_args_free(a);
	OK("out of range is an error naming the element; integers truncate; half rounds");
}

static void test_random(kjit__spec *spec)
{
	static const struct {
		const char *type;
		double below;
	} types[] = {
		{ "bool", 2 }, { "int8", 128 }, { "uint8", 256 }, { "int16", 1000 },
		{ "uint64", 1000 }, { "half", 1 }, { "float", 1 }, { "double", 1 },
	};
	for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
		kjit__arg *sa = set_arg(spec, types[t].type, 4, "1000", KJIT__FILL_RANDOM);
		sa->data.seed = 7;
		kt_args *a = build_ok(spec), *b = build_ok(spec);
		kt_arg *x = &a->a[0];
		double lo = INFINITY, hi = -INFINITY;
		for (size_t j = 0; j < x->values; j++) {
			double v = kt_elem_load(types[t].type, x->host, j);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			CHECK_MSG(v >= 0 && v < types[t].below, "%s: %g", types[t].type, v);
			if (types[t].below > 1)
				CHECK(v == floor(v));
		}
		/* the range is covered, not a corner of it */
		CHECK_MSG(hi - lo > (types[t].below > 1 ? types[t].below * 0.9 - 1 : 0.9), "%s: %g to %g",
		          types[t].type, lo, hi);
		CHECK(memcmp(a->a[0].host, b->a[0].host, x->bytes) == 0);
		kt_args_free(b);
		sa->data.seed = 8;
		b = build_ok(spec);
		CHECK(memcmp(a->a[0].host, b->a[0].host, x->bytes) != 0);
		kt_args_free(a);
		kt_args_free(b);
	}
	OK("random: bools 0/1, integers in [0, 1000) or the type's range, floats in [0, 1); "
	   "a seed repeats, another differs");
}

static void test_custom_and_files(kjit__spec *spec)
{
	char raw[TU_PATH];
	unsigned char bytes[12];
	for (int i = 0; i < 12; i++)
		bytes[i] = (unsigned char)(i * 17 + 3);
	tu_path(raw, dir, "twelve.bin");
	tu_write_file(raw, bytes, sizeof bytes);

	kjit__arg *sa = set_arg(spec, "custom", 1, "4", KJIT__FILL_FILE);
	sa->custom_size = 3;
	free(sa->data.file);
	sa->data.file = strdup(raw);
	kt_args *a = build_ok(spec);
	CHECK(a->a[0].elem == 3 && a->a[0].count == 4 && a->a[0].bytes == 12);
	CHECK(memcmp(a->a[0].host, bytes, 12) == 0);
	kt_args_free(a);
	sa->length = (free(sa->length), strdup("5"));
	build_fails(spec, KJIT_ERR_IO, "argument x: ", "twelve.bin holds 12 bytes, 15 needed "
	            "(5 elements of 3 bytes)");
	/* a file of float4: 3 elements of 16 bytes need 48 */
	sa = set_arg(spec, "float", 4, "3", KJIT__FILL_FILE);
	free(sa->data.file);
	sa->data.file = strdup(raw);
	build_fails(spec, KJIT_ERR_IO, "12 bytes, 48 needed (3 elements of 16 bytes)", NULL);
	free(sa->data.file);
	sa->data.file = strdup("/nonexistent/data.bin");
	build_fails(spec, KJIT_ERR_IO, "argument x: /nonexistent/data.bin: cannot open", NULL);
	/* a FIFO with no writer is refused at once, never waited on */
	char fifo[TU_PATH];
	CHECK(mkfifo(tu_path(fifo, dir, "data.fifo"), 0600) == 0);
	free(sa->data.file);
	sa->data.file = strdup(fifo);
	build_fails(spec, KJIT_ERR_IO, "data.fifo: cannot read: is a FIFO, not a regular file", NULL);
	free(sa->data.file);
	sa->data.file = strdup(dir);
	build_fails(spec, KJIT_ERR_IO, "cannot read: is a directory", NULL);

	sa = set_arg(spec, "custom", 1, "4", KJIT__FILL_CONSTANT);
	sa->custom_size = 5;
	sa->data.constant = 7;
	a = build_ok(spec);
	for (size_t j = 0; j < 20; j++)
		CHECK(((unsigned char *)a->a[0].host)[j] == 7);
	kt_args_free(a);
	sa->data.constant = 300;
	build_fails(spec, KJIT_ERR_INVALID_ARG, "a custom constant is a byte", NULL);
	sa->data.fill = KJIT__FILL_SEQUENCE;
	build_fails(spec, KJIT_ERR_INVALID_ARG, "type custom is raw bytes", "not a sequence");
	sa->data.fill = KJIT__FILL_RANDOM;
	a = build_ok(spec);
	size_t distinct = 0;
	for (size_t j = 1; j < 20; j++)
		distinct += ((unsigned char *)a->a[0].host)[j] != ((unsigned char *)a->a[0].host)[0];
	CHECK(distinct > 10);
	kt_args_free(a);
	sa->custom_size = 0;
	build_fails(spec, KJIT_ERR_INVALID_ARG, "type custom needs its size in bytes", NULL);
	OK("custom: file bytes, constant bytes, random bytes; short and missing files named");
}

static void test_generator(kjit__spec *spec)
{
	char *gen = strdup("i * 3 + n");
	kjit__arg *sa = set_arg(spec, "int16", 2, "n", KJIT__FILL_GENERATOR);
	sa->data.generator = gen;
	kt_args *a = build_ok(spec);
	CHECK(a->a[0].values == 10);
	for (size_t j = 0; j < 10; j++)
		CHECK(((int16_t *)a->a[0].host)[j] == (int16_t)(j * 3 + 5));
	kt_args_free(a);
	free(gen);
	/* Python's semantics in a T1 spec: true division, floor division */
	spec->python = 1;
	sa->type = (free(sa->type), strdup("double"));
	sa->components = 1;
	sa->data.generator = gen = strdup("i / 2 + (i // 2) * 10");
	a = build_ok(spec);
	CHECK(((double *)a->a[0].host)[3] == 1.5 + 10);
	kt_args_free(a);
	free(gen);
	spec->python = 0;
	/* an integer type cannot hold the NaN of a division by zero */
	sa->type = (free(sa->type), strdup("int32"));
	sa->data.generator = gen = strdup("10 / (i - 3)");
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: generator \"10 / (i - 3)\"",
	            "element 3");
	free(gen);
	sa->data.generator = gen = strdup("i + m");
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: generator", "'m'");
	free(gen);
	sa->data.generator = gen = strdup("i * 100");
	sa->type = (free(sa->type), strdup("int8"));
	build_fails(spec, KJIT_ERR_INVALID_ARG, "gives 200 at element 2", "type int8");
	free(gen);
	sa->data.generator = NULL;
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: a generator fill has no expression",
	            NULL);
	OK("generator: i and the sizes, vector values one by one, Python's division for T1; "
	   "errors name the argument and the element");
}

static void test_sizes_scalars(kjit__spec *spec)
{
	set_arg(spec, "double", 16, "pow(2, 40)", KJIT__FILL_RANDOM);
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: 1099511627776 elements of 16 x 8 bytes",
	            "limit of 64 GiB");
	set_arg(spec, "float", 1, "n - 5", KJIT__FILL_RANDOM);
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: length 0", NULL);
	set_arg(spec, "float", 1, "n / 3.0", KJIT__FILL_RANDOM);
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: length 1.66667 is not a positive whole "
	            "number", NULL);

	static const char *const types[] = { "bool", "int8", "uint8", "int16", "uint16", "int32",
		                             "uint32", "int64", "uint64", "half", "float", "double" };
	for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
		kjit__arg *sa = set_arg(spec, types[t], t % 2 ? 4 : 1, NULL, KJIT__FILL_RANDOM);
		sa->value = strdup("n + 1");
		kt_args *a = build_ok(spec);
		kt_arg *x = &a->a[0];
		CHECK(x->count == 1 && x->bytes == kt_elem_size(types[t]) * x->components);
		for (size_t c = 0; c < x->components; c++)
			CHECK(kt_elem_load(types[t], x->host, c) == (t == 0 ? 1 : 6));
		kt_args_free(a);
	}
	kjit__arg *sa = set_arg(spec, "int8", 1, NULL, KJIT__FILL_RANDOM);
	sa->value = strdup("n * 100");
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: value 500 is not a value of type int8",
	            NULL);
	sa = set_arg(spec, "custom", 1, NULL, KJIT__FILL_RANDOM);
	sa->custom_size = 8;
	sa->value = strdup("1");
	build_fails(spec, KJIT_ERR_INVALID_ARG, "a scalar of type custom", NULL);
	OK("sizes: overflow and the 64 GiB limit named; scalars of every type and width");
}

static void test_compare(kjit__spec *spec)
{
	char *gen;
	kjit__arg *sa = set_arg(spec, "float", 1, "n", KJIT__FILL_RANDOM);
	sa->access = KJIT__OUT;
	/* the modes and the output field */
	CHECK(kt_arg_compared(spec, sa));
	sa->output = 0;
	CHECK(!kt_arg_compared(spec, sa));
	sa->output = -1;
	sa->access = KJIT__IN;
	CHECK(!kt_arg_compared(spec, sa));
	sa->output = 1;
	CHECK(kt_arg_compared(spec, sa));
	CHECK_OK(kt_verify_override(spec, "none", NAN, NAN));
	CHECK(!kt_arg_compared(spec, sa));
	CHECK_ST(kt_verify_override(spec, "data", NAN, NAN), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "ReferenceArguments");
	CHECK_ST(kt_verify_override(spec, "reference", NAN, NAN), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "names no reference kernel");
	CHECK_ST(kt_verify_override(spec, "nope", NAN, NAN), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "expected default, reference, data or none, got 'nope'");
	CHECK(strcmp(spec->verify, "none") == 0);
	CHECK_OK(kt_verify_override(spec, "default", 0.5, NAN));
	CHECK(spec->atol == 0.5 && spec->rtol == 1e-5);
	kt_check c;
	kt_arg_check(spec, sa, &c);
	CHECK(c.method == KJIT__CHECK_TOLERANCE && c.atol == 0.5 && c.rtol == 1e-5);

	/* ReferenceArguments: built only with verify "data", with their own fill */
	sa->output = -1;
	sa->access = KJIT__INOUT;
	sa->has_reference = 1;
	sa->reference.fill = KJIT__FILL_GENERATOR;
	sa->reference.generator = gen = strdup("i * i");
	sa->check = KJIT__CHECK_RELATIVE;
	sa->threshold = 0.01;
	kt_args *a = build_ok(spec);
	CHECK(a->a[0].reference == NULL);
	kt_args_free(a);
	CHECK_OK(kt_verify_override(spec, "data", NAN, NAN));
	a = build_ok(spec);
	CHECK(a->a[0].reference && ((float *)a->a[0].reference)[4] == 16);
	kt_args_free(a);
	kt_arg_check(spec, sa, &c);
	CHECK(c.method == KJIT__CHECK_RELATIVE && c.threshold == 0.01);
	sa->has_reference = 0;
	CHECK(!kt_arg_compared(spec, sa)); /* data: only what has reference data */
	sa->has_reference = 1;
	sa->reference.generator = NULL;
	free(gen);
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: reference: a generator fill has no "
	            "expression", NULL);
	/* KTT compares integers exactly, whatever the method */
	sa->type = (free(sa->type), strdup("int32"));
	kt_arg_check(spec, sa, &c);
	CHECK(c.method == KJIT__CHECK_TOLERANCE && c.atol == 0 && c.rtol == 0);
	sa->type = (free(sa->type), strdup("custom"));
	CHECK_OK(kt_verify_override(spec, "default", NAN, NAN));
	kt_arg_check(spec, sa, &c);
	CHECK(c.method == KJIT__CHECK_TOLERANCE && c.atol == 0 && c.rtol == 0);
	sa->has_reference = 0;

	/* a symbol the kernel writes cannot be read back */
	sa = set_arg(spec, "float", 4, "2", KJIT__FILL_CONSTANT);
	sa->symbol = 1;
	sa->data.constant = 2.5;
	a = build_ok(spec);
	CHECK(a->a[0].bytes == 32 && ((float *)a->a[0].host)[7] == 2.5f);
	kt_args_free(a);
	sa->access = KJIT__INOUT;
	build_fails(spec, KJIT_ERR_INVALID_ARG, "argument x: a symbol (module variable) that the "
	            "kernel writes", "--verify none");
	CHECK_OK(kt_verify_override(spec, "none", NAN, NAN));
	a = build_ok(spec);
	kt_args_free(a);
	CHECK_OK(kt_verify_override(spec, "default", 1e-6, 1e-5));
	OK("compared outputs by mode, output and access; checks per type and method; reference "
	   "data only with --verify data; written symbols refused with the way out");

	/* the mismatch in words */
	sa = set_arg(spec, "float", 4, "n", KJIT__FILL_RANDOM);
	kt_arg ka = { .spec = sa, .components = 4, .elem = 4, .count = 5, .values = 20,
		      .bytes = 80 };
	kt_mismatch m = { 1, 13, 1.5, 2, 0 };
	char text[512];
	kt_check tol = { KJIT__CHECK_TOLERANCE, 1e-6, 1e-5, 0 };
	kt_mismatch_text(&ka, &tol, &m, text, sizeof text);
	CHECK_STREQ(text, "x[3].y = 1.5, expected 2 (atol 1e-06, rtol 1e-05)");
	kt_check rel = { KJIT__CHECK_RELATIVE, 0, 0, 0.01 };
	ka.components = 1;
	kt_mismatch_text(&ka, &rel, &m, text, sizeof text);
	CHECK_STREQ(text, "x[13] = 1.5, expected 2 (SideBySideRelativeComparison, threshold 0.01)");
	kt_check sum = { KJIT__CHECK_ABS_SUM, 0, 0, 0.5 };
	m.sum = 7.25;
	kt_mismatch_text(&ka, &sum, &m, text, sizeof text);
	CHECK_STREQ(text, "x: the sum of |got - expected| is 7.25, above the threshold 0.5 "
	                  "(AbsoluteDifference)");
	ka.components = 8;
	kt_mismatch_text(&ka, &tol, &m, text, sizeof text);
	CHECK_CONTAINS(text, "x[1][5] = 1.5");
	sa->type = (free(sa->type), strdup("custom"));
	ka.components = 1;
	ka.elem = 6;
	m.got = 0x1f;
	m.want = 0;
	kt_mismatch_text(&ka, &tol, &m, text, sizeof text);
	CHECK_STREQ(text, "x[2]: byte 1 is 0x1f, expected 0x00");
	OK("mismatch messages: vector components, methods, custom bytes");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	dir = tu_tmpdir();
	test_half();
	kjit__spec *spec = tu_spec_from(dir, "args.json", base_spec);
	test_types(spec);
	test_random(spec);
	test_custom_and_files(spec);
	test_generator(spec);
	test_sizes_scalars(spec);
	test_compare(spec);
	kjit__spec_free(spec);
	return 0;
}
