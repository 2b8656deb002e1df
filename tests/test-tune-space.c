/*
 * test-tune-space: the constrained space against brute force, Python-style
 * operators, the authorizer, device limits, and a 1e10 product enumerated
 * lazily.
 */
#include "testutil.h"

#include <math.h>

#include "tune.h"

static const char *dir;

static kjit__spec *spec_from(const char *text)
{
	char path[TU_PATH];
	kjit__spec *spec;
	tu_path(path, dir, "space.json");
	tu_write_file(path, text, strlen(text));
	CHECK_OK(kjit__spec_load(path, &spec));
	return spec;
}

static double eval(kjit__expr_ctx *ctx, const char *expr)
{
	static const char *const names[] = { "A", "S" };
	kjit__value slots[2] = { { .text = "7", .kind = SQLITE_INTEGER, .i = 7, .d = 7 },
		              { .text = "--use_fast_math", .kind = SQLITE_TEXT } };
	kjit__expr *e;
	double v;
	CHECK_OK(kjit__expr_prepare(ctx, expr, names, 2, "test", &e));
	CHECK_OK(kjit__expr_eval_sql(e, slots, &v));
	kjit__expr_free(e);
	return v;
}

static void refused_sql(kjit__expr_ctx *ctx, const char *sql, const char *why)
{
	kjit__expr *e = NULL;
	CHECK_MSG(kjit__expr_prepare_sql(ctx, sql, NULL, 0, "test", &e) != KJIT_OK, "ran: %s", sql);
	CHECK(e == NULL);
	CHECK_CONTAINS(kjit_last_error(), why);
	OK("refused %s: %s", sql, kjit_last_error());
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	dir = tu_tmpdir();

	/* brute force over a small space with restrictions in both styles */
	kjit__spec *spec = spec_from(
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
		" \"parameters\": ["
		"  {\"name\": \"A\", \"values\": [1, 2, 3, 4, 5, 6]},"
		"  {\"name\": \"B\", \"values\": [1, 2, 4, 8]},"
		"  {\"name\": \"C\", \"values\": [0, 1, 2]}],"
		" \"restrictions\": [\"A * B <= m\", \"(A + C) % 2 == 0 or B == 8\","
		"  \"not (B == 8 and C == 2)\", \"A // 2 >= C && B != 2\"],"
		" \"problems\": [{\"m\": 16}, {\"m\": 4}]}");
	for (size_t p = 0; p < 2; p++) {
		kjit__space *space;
		int m = p == 0 ? 16 : 4;
		size_t want = 0;
		static const int As[] = { 1, 2, 3, 4, 5, 6 }, Bs[] = { 1, 2, 4, 8 }, Cs[] = { 0, 1, 2 };
		for (int a = 0; a < 6; a++)
			for (int b = 0; b < 4; b++)
				for (int c = 0; c < 3; c++) {
					int A = As[a], B = Bs[b], C = Cs[c];
					want += A * B <= m && ((A + C) % 2 == 0 || B == 8) &&
					        !(B == 8 && C == 2) && (A / 2 >= C && B != 2);
				}
		CHECK_OK(kjit__space_build(spec, p, NULL, &space));
		CHECK_MSG(space->size == want, "m=%d: %zu, brute force %zu", m, space->size, want);
		CHECK(space->product == 72);
		/* every configuration finds its own index; one outside finds none */
		for (size_t i = 0; i < space->size; i++)
			CHECK(kjit__space_find(space, kjit__space_config(space, i)) == (int64_t)i);
		uint16_t out[3] = { 5, 3, 2 }; /* A=6, B=8, C=2 */
		CHECK(kjit__space_find(space, out) == -1);
		OK("m=%d: %zu of 72 valid, as brute force; lookups agree", m, space->size);
		kjit__space_free(space);
	}
	kjit__spec_free(spec);

	/* Python-style operators */
	kjit__expr_ctx *ctx;
	CHECK_OK(kjit__expr_ctx_open(&ctx));
	CHECK(eval(ctx, "A // 2") == 3);
	CHECK(eval(ctx, "A % 4 == 3") == 1);
	CHECK(eval(ctx, "A == 7 and not A != 7") == 1);
	CHECK(eval(ctx, "A < 0 or False") == 0);
	CHECK(eval(ctx, "True && !(A > 8)") == 1);
	CHECK(eval(ctx, "S == \"--use_fast_math\"") == 1);
	CHECK(eval(ctx, "min(A, 3) + max(A, 9) + abs(-1)") == 13);
	CHECK(isnan(eval(ctx, "A / 0")));
	OK("//, %%, ==, and/or/not, &&/!, True/False, strings, min/max/abs; x/0 is NaN");
	char *sql;
	static const char *const names[] = { "A" };
	CHECK(kjit__expr_translate("A ** 2", names, 1, &sql) != KJIT_OK);
	CHECK_CONTAINS(kjit_last_error(), "pow(");
	CHECK(kjit__expr_translate("A; DROP TABLE t", names, 1, &sql) != KJIT_OK);
	CHECK(kjit__expr_translate("A + Z", names, 1, &sql) != KJIT_OK);
	CHECK_CONTAINS(kjit_last_error(), "unknown name 'Z'");
	OK("'**', ';' and unknown names refused by the translator");

	/* the authorizer: no table, no impure function, no second statement */
	refused_sql(ctx, "(SELECT 1 FROM sqlite_master)", "not authorized");
	refused_sql(ctx, "(SELECT count(*) FROM sqlite_temp_master)", "not authorized");
	refused_sql(ctx, "random()", "not authorized");
	refused_sql(ctx, "randomblob(4)", "not authorized");
	refused_sql(ctx, "load_extension('/tmp/x.so')", "not authorized");
	refused_sql(ctx, "1); CREATE TABLE t(x); SELECT (1", "expected one expression");
	kjit__expr *e = NULL;
	CHECK_ST(kjit__expr_prepare(ctx, "random() % 2", names, 1, "restrictions[0]", &e),
	         KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "restrictions[0]");
	OK("random() through the translator is refused too, naming the field");
	kjit__expr_ctx_close(ctx);

	/* device limits: threads per block and dynamic shared memory */
	spec = spec_from(
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
		" \"parameters\": ["
		"  {\"name\": \"X\", \"values\": [256, 512, 1024, 2048], \"roles\": [\"block_x\", \"define\"]},"
		"  {\"name\": \"Y\", \"values\": [1, 2], \"roles\": \"block_y\"},"
		"  {\"name\": \"F\", \"values\": [\"\", \"--use_fast_math\"], \"roles\": \"flags\"}],"
		" \"shared_memory\": \"X * Y * 32\", \"grid\": \"n / (X * Y)\","
		" \"problems\": [{\"n\": 1048576}, {\"n\": 1024}]}");
	kjit__space *space;
	CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
	CHECK(space->size == 5 * 2); /* x*y <= 1024: 256x1 256x2 512x1 512x2 1024x1 */
	kjit__space_free(space);
	kjit__limits lim = { .max_threads = 512 };
	CHECK_OK(kjit__space_build(spec, 0, &lim, &space));
	CHECK(space->size == 3 * 2);
	kjit__space_free(space);
	lim = (kjit__limits){ .max_shared = 16384 }; /* x*y*32 <= 16 KiB: x*y <= 512 */
	CHECK_OK(kjit__space_build(spec, 0, &lim, &space));
	CHECK(space->size == 3 * 2);
	char *json = kjit__space_config_json(space, 1);
	CHECK_STREQ(json, "{\"X\":256,\"Y\":1,\"F\":\"--use_fast_math\"}");
	free(json);
	kjit__space_free(space);
	CHECK_OK(kjit__space_build(spec, 1, NULL, &space)); /* grid n/(x*y) >= 1: x*y <= 1024 */
	CHECK(space->size == 5 * 2);
	kjit__space_free(space);
	kjit__spec_free(spec);
	OK("block x*y <= 1024 (or --max-threads), shared memory limit, grid >= 1 prune");

	/* 10 parameters x 10 values: a product of 1e10, never built */
	char text[4096];
	size_t len = (size_t)snprintf(text, sizeof text,
	                              "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	                              " \"parameters\": [");
	for (int i = 0; i < 10; i++)
		len += (size_t)snprintf(text + len, sizeof text - len,
		                        "%s{\"name\": \"P%d\", \"values\": [0,1,2,3,4,5,6,7,8,9]}",
		                        i ? "," : "", i);
	snprintf(text + len, sizeof text - len,
	         "], \"restrictions\": [\"P0 == 3 and P1 == P0 + 1 and P2 < 2 and P3 == P2"
	         " and P4 + P5 == 1 and P6 == 9 and P7 == 0 and P8 == P7 and P9 < 3\"]}");
	spec = spec_from(text);
	uint64_t t0 = kjit__now_ns();
	CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
	double ms = (double)(kjit__now_ns() - t0) / 1e6;
	CHECK(space->product == 1e10);
	CHECK_MSG(space->size == 2 * 2 * 3, "size %zu", space->size);
	CHECK_MSG(ms < 2000, "took %.0f ms", ms);
	OK("1e10 product, restriction keeps %zu, enumerated in %.1f ms", space->size, ms);
	kjit__space_free(space);
	kjit__spec_free(spec);
	return 0;
}
