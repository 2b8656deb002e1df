/*
 * test-tune-space: the constrained space against brute force, the
 * expression engine's two dialects and what it refuses, device limits,
 * block expressions (with products past int64), counting against
 * building, a 1e10 product enumerated lazily, an 8e11 one counted at
 * once, refused whole and sampled uniformly; counts by groups of
 * parameters, exact up to 1e8 a group (a T1 hotspot shape among them),
 * and an estimate where a group is larger, which says when it found none.
 */
#include "testutil.h"

#include <math.h>

#include "tuning.h"

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

static const char *const names[] = { "A", "S" };
static const kjit__value slots[] = { { .text = "7", .kind = SQLITE_INTEGER, .i = 7, .d = 7 },
	                             { .text = "--use_fast_math", .kind = SQLITE_TEXT } };

static double eval(kjit__dialect dialect, const char *text)
{
	kjit__expr *e;
	double v;
	CHECK_OK(kjit__expr_parse(text, dialect, names, 2, "test", NULL, &e));
	CHECK_OK(kjit__expr_eval(e, slots, &v));
	kjit__expr_free(e);
	return v;
}

#define KJ(text, want) CHECK_MSG(eval(KJIT__DIALECT_KJIT, text) == (want), "kjit: %s is %g", \
                                 text, eval(KJIT__DIALECT_KJIT, text))
#define PY(text, want) CHECK_MSG(eval(KJIT__DIALECT_PYTHON, text) == (want), "python: %s is %g", \
                                 text, eval(KJIT__DIALECT_PYTHON, text))

/* text does not parse in either dialect; the error names the field and
 * holds why. */
static void refused(const char *text, const char *why)
{
	for (int d = 0; d < 2; d++) {
		kjit__expr *e = NULL;
		CHECK_MSG(kjit__expr_parse(text, (kjit__dialect)d, names, 2, "restrictions[4]", NULL, &e) ==
		                  KJIT_ERR_INVALID_ARG,
		          "parsed: %s", text);
		CHECK(e == NULL);
		CHECK_CONTAINS(kjit_last_error(), "restrictions[4]");
		CHECK_CONTAINS(kjit_last_error(), why);
	}
	OK("refused %s: %s", text, kjit_last_error());
}

/* Both ways through the space of problem p agree; the size. */
static size_t count_is_build(const kjit__spec *spec, size_t p, const kjit__limits *lim)
{
	kjit__space *space;
	kjit__count c;
	CHECK_OK(kjit__space_build(spec, p, lim, &space));
	CHECK_OK(kjit__space_count(spec, p, lim, &c));
	double product = c.product, size = c.valid;
	CHECK_MSG(size == (double)space->size && product == space->product,
	          "count %.0f of %.0f, build %zu of %.0f", size, product, space->size,
	          space->product);
	size_t n = space->size;
	kjit__space_free(space);
	return n;
}

/* A spec of parameters P0.. with counts[i] values 0.., after a first
 * parameter X of the given block_x values (none when n_x is 0). */
static kjit__spec *spec_of_counts(const int *counts, int n, const int *xs, int n_x,
                                  const char *tail)
{
	static char text[16384];
	size_t len = (size_t)snprintf(text, sizeof text,
	                              "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	                              " \"parameters\": [");
	if (n_x) {
		len += (size_t)snprintf(text + len, sizeof text - len,
		                        "{\"name\": \"X\", \"roles\": [\"block_x\", \"define\"],"
		                        " \"values\": [");
		for (int v = 0; v < n_x; v++)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s%d", v ? "," : "", xs[v]);
		len += (size_t)snprintf(text + len, sizeof text - len, "]}%s", n ? "," : "");
	}
	for (int i = 0; i < n; i++) {
		len += (size_t)snprintf(text + len, sizeof text - len,
		                        "%s{\"name\": \"P%d\", \"values\": [", i ? "," : "", i);
		for (int v = 0; v < counts[i]; v++)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s%d", v ? "," : "", v);
		len += (size_t)snprintf(text + len, sizeof text - len, "]}");
	}
	snprintf(text + len, sizeof text - len, "]%s}", tail);
	CHECK(strlen(text) < sizeof text - 1);
	return spec_from(text);
}

static double ms_since(uint64_t t0)
{
	return (double)(kjit__now_ns() - t0) / 1e6;
}

/* How many of n digits 0..9 sum to at most max (dynamic programming). */
static double digit_sums(int n, int max)
{
	double ways[91] = { 1 };
	for (int d = 0; d < n; d++)
		for (int t = 90; t >= 0; t--) {
			double w = 0;
			for (int v = 0; v < 10 && v <= t; v++)
				w += ways[t - v];
			ways[t] = w;
		}
	double sum = 0;
	for (int t = 0; t <= max; t++)
		sum += ways[t];
	return sum;
}

/* The hotspot-shaped space of tests/t1/hotspot_space.json, by loops in C. */
static double hotspot_brute(void)
{
	int bx[37] = { 1, 2, 4, 8, 16 };
	double valid = 0;
	for (int i = 1; i <= 32; i++)
		bx[4 + i] = 32 * i;
	for (int a = 0; a < 37; a++)
		for (long y = 1; y <= 32; y *= 2)
			for (long tx = 1; tx <= 10; tx++)
				for (long ty = 1; ty <= 10; ty++)
					for (long t = 1; t <= 10; t++)
						for (long u = 1; u <= 10; u++)
							for (long sh = 0; sh < 2; sh++)
								for (long b = 0; b < 5; b++) {
									long x = bx[a];
									long smem = (x * tx + t * 2) * (y * ty + t * 2) *
									            (2 + sh) * 4;
									valid += x * y >= 32 && t % u == 0 && x * y <= 1024 &&
									         smem <= 48 * 1024 &&
									         (b == 0 || smem * b <= 228 * 1024);
								}
	return valid;
}

/* Exact counts of spaces whose groups' products are at most 1e8 (the
 * hotspot shape of 2.2e7 among them, a Kernel Tuner T1 spec), and a
 * larger one whose draws find nothing: an estimate that says so. */
static void exact_counts(void)
{
	int counts[12];
	kjit__count c;
	for (int i = 0; i < 12; i++)
		counts[i] = 10;
	/* two groups of 1e6, each read by one late sum: walked whole,
	 * their counts multiplied */
	kjit__spec *spec = spec_of_counts(counts, 12, NULL, 0,
	                                  ", \"restrictions\": [\"P0+P1+P2+P3+P4+P5 <= 20\","
	                                  " \"P6+P7+P8+P9+P10+P11 <= 20\"]");
	uint64_t t0 = kjit__now_ns();
	CHECK_OK(kjit__space_count(spec, 0, NULL, &c));
	double want = digit_sums(6, 20) * digit_sums(6, 20);
	CHECK_MSG(c.rel_error == 0 && c.valid == want && c.product == 1e12,
	          "%.0f (relative error %g), want %.0f", c.valid, c.rel_error, want);
	OK("two 1e6 groups, digit sums <= 20: exactly %.0f, in %.0f ms", c.valid, ms_since(t0));
	kjit__spec_free(spec);

	/* 1e8 in one group, cut early: non-increasing digits, C(17, 8) */
	spec = spec_of_counts(counts, 8, NULL, 0,
	                      ", \"restrictions\": [\"P1 <= P0\", \"P2 <= P1\", \"P3 <= P2\","
	                      " \"P4 <= P3\", \"P5 <= P4\", \"P6 <= P5\", \"P7 <= P6\"]");
	CHECK_OK(kjit__space_count(spec, 0, NULL, &c));
	CHECK_MSG(c.rel_error == 0 && c.valid == 24310, "%.0f (%g)", c.valid, c.rel_error);
	OK("1e8 in one group, non-increasing digits: exactly 24310");
	kjit__spec_free(spec);

	char path[TU_PATH];
	snprintf(path, sizeof path, "%s/tests/t1/hotspot_space.json", tu_srcdir());
	CHECK_OK(kjit__spec_load(path, &spec));
	t0 = kjit__now_ns();
	CHECK_OK(kjit__space_count(spec, 0, NULL, &c));
	double ms = ms_since(t0), brute = hotspot_brute();
	CHECK_MSG(c.rel_error == 0 && c.valid == brute && c.product == 22200000,
	          "%.0f of %.0f (relative error %g), brute force %.0f", c.valid, c.product,
	          c.rel_error, brute);
	CHECK_MSG(ms < (double)KJIT__COUNT_NS / 1e6, "took %.0f ms", ms);
	OK("hotspot shape, 2.2e7 product, T1 conditions: exactly %.0f (as brute force) in %.0f ms",
	   c.valid, ms);
	kjit__spec_free(spec);

	/* 1e12 in one group, 6 valid: no draw finds one, and the count says
	 * it does not know rather than none */
	int hundred[6] = { 100, 100, 100, 100, 100, 100 };
	spec = spec_of_counts(hundred, 6, NULL, 0,
	                      ", \"restrictions\": [\"P0*P1*P2*P3*P4*P5 == 7\"]");
	CHECK_OK(kjit__space_count(spec, 0, NULL, &c));
	CHECK_MSG(isinf(c.rel_error) && c.upper >= 6 && c.upper < 1e12, "%g, at most %g",
	          c.rel_error, c.upper);
	OK("1e12 product, 6 valid: no draw finds one; at most about %.3g", c.upper);
	kjit__spec_free(spec);
}

/* a before b in the order of a walk */
static int lexless(const uint16_t *a, const uint16_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return 0;
}

/* In problem m=16: A=2, B=4, C=0 is valid, A=6, B=8, C=2 is not. */
static void test_match(const kjit__space *space)
{
	uint16_t cfg[3], want[3] = { 1, 2, 0 };
	tu_texts t = { { "2", "4.0", "0" }, 0 };
	CHECK(kjit__space_match(space, tu_text_of, &t, cfg) == kjit__space_find(space, want));
	CHECK(kjit__space_find(space, want) >= 0 && t.asked == 3);
	CHECK(cfg[0] == 1 && cfg[1] == 2 && cfg[2] == 0);
	static const tu_texts misses[] = { { { "7", "4", "0" }, 0 }, { { NULL, "4", "0" }, 0 },
		                        { { "2", "4", NULL }, 0 }, { { "6", "8", "2" }, 0 },
		                        { { "'2", "4", "0" }, 0 } };
	for (size_t k = 0; k < sizeof misses / sizeof *misses; k++) {
		t = misses[k];
		CHECK_MSG(kjit__space_match(space, tu_text_of, &t, cfg) == -1 && t.asked == 3,
		          "miss %zu: matched, or asked %zu of 3", k, t.asked);
	}
	OK("a stored configuration's texts find its index (\"4.0\" is 4); an absent value, one "
	   "not among its parameter's, or a configuration outside: -1, every parameter asked");
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
		"  \"not (B == 8 and C == 2)\", \"A // 2 >= C && B != 2\", \"0 < C + 1 < A + 1\"],"
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
					        !(B == 8 && C == 2) && (A / 2 >= C && B != 2) &&
					        0 < C + 1 && C + 1 < A + 1;
				}
		CHECK_OK(kjit__space_build(spec, p, NULL, &space));
		CHECK_MSG(space->size == want, "m=%d: %zu, brute force %zu", m, space->size, want);
		CHECK(space->product == 72);
		/* every configuration finds its own index; one outside finds none */
		for (size_t i = 0; i < space->size; i++)
			CHECK(kjit__space_find(space, kjit__space_config(space, i)) == (int64_t)i);
		uint16_t out[3] = { 5, 3, 2 }; /* A=6, B=8, C=2 */
		CHECK(kjit__space_find(space, out) == -1);
		if (m == 16)
			test_match(space);
		kjit__space_free(space);
		CHECK(count_is_build(spec, p, NULL) == want);
		OK("m=%d: %zu of 72 valid, as brute force, built and counted; lookups agree", m, want);
	}
	kjit__spec_free(spec);

	/* the two dialects */
	KJ("7 / 2", 3);
	KJ("-7 / 2", -3);
	KJ("-7 % 2", -1);
	KJ("-7 // 2", -3);
	KJ("A // 2", 3);
	KJ("2 ** 10", 1024);
	PY("7 / 2", 3.5);
	PY("-7 // 2", -4);
	PY("-7 % 2", 1);
	PY("2 ** 10", 1024);
	OK("kjit: 7 / 2 == 3, -7 / 2 == -3, -7 %% 2 == -1, // as /; Python: 7 / 2 == 3.5, "
	   "-7 // 2 == -4, -7 %% 2 == 1; 2 ** 10 == 1024 in both");
	for (int d = 0; d < 2; d++) {
		kjit__dialect dl = (kjit__dialect)d;
		CHECK(eval(dl, "1 < A < 10") == 1);
		CHECK(eval(dl, "1 < A < 5") == 0);
		CHECK(eval(dl, "A if A > 5 else 0") == 7);
		CHECK(eval(dl, "1 if A < 5 else 2") == 2);
		CHECK(eval(dl, "A % 4 == 3") == 1);
		CHECK(eval(dl, "A == 7 and not A != 7") == 1);
		CHECK(eval(dl, "A < 0 or False") == 0);
		CHECK(eval(dl, "S == \"--use_fast_math\"") == 1);
		CHECK(eval(dl, "S != '-O3'") == 1);
		CHECK(eval(dl, "min(A, 3) + max(A, 9) + abs(-1)") == 13);
		CHECK(isnan(eval(dl, "A / 0")));
	}
	KJ("True && !(A > 8)", 1);
	KJ("A = 7", 1);
	KJ("iif(A > 5, 10, 20) + ifnull(1, 2) + coalesce(3, 4)", 14);
	double math = eval(KJIT__DIALECT_KJIT, "log(100) + log2(8) + log10(1000) + pow(2, 3) +"
	                   " power(2, 2) + floor(2.5) + ceil(2.5) + ceiling(0.5) + sqrt(16) +"
	                   " round(2.4) + exp(0) + ln(1)");
	CHECK_MSG(fabs(math - (2 + 3 + 3 + 8 + 4 + 2 + 3 + 1 + 4 + 2 + 1 + 0)) < 1e-9, "%.17g", math);
	OK("in both: chained comparisons, x if c else y, and/or/not, strings, min/max/abs, x/0 NaN;"
	   " kjit: &&, !, =, iif, ifnull, coalesce, log (base 10) and the math functions");

	/* the top-level terms of a restriction, each with the last name it reads */
	static const char *const abc[] = { "A", "B", "C" };
	static const struct {
		const char *text;
		size_t n;
		int max[3];
	} splits[] = {
		{ "A > 1 and C < 3", 2, { 0, 2 } },
		{ "A < B <= C", 2, { 1, 2 } },
		{ "(A > 1 and B < 2) and 1 < 2", 3, { 0, 1, -1 } },
		{ "A > 1 or C < 3", 1, { 2 } },
	};
	for (size_t i = 0; i < sizeof splits / sizeof *splits; i++) {
		kjit__expr *e, **terms;
		size_t n;
		CHECK_OK(kjit__expr_parse(splits[i].text, KJIT__DIALECT_KJIT, abc, 3, "test", NULL, &e));
		CHECK_OK(kjit__expr_split(e, &terms, &n));
		CHECK_MSG(n == splits[i].n, "%s: %zu terms", splits[i].text, n);
		for (size_t t = 0; t < n; t++) {
			CHECK_MSG(kjit__expr_max_slot(terms[t]) == splits[i].max[t], "%s: term %zu reads %d",
			          splits[i].text, t, kjit__expr_max_slot(terms[t]));
			kjit__expr_free(terms[t]);
		}
		free(terms);
		kjit__expr_free(e);
	}
	OK("terms: 'and' and chained comparisons split, 'or' does not; each reads its own names");

	/* what the engine refuses */
	refused("A + Z", "unknown name 'Z'");
	refused("A; DROP TABLE t", "bad expression");
	refused("1); CREATE TABLE t(x); SELECT (1", "bad expression");
	refused("(SELECT 1 FROM sqlite_master)", "bad expression");
	refused("random() % 2", "bad expression");
	refused("load_extension('/tmp/x.so')", "bad expression");
	refused("A IS NULL", "bad expression");
	refused("CAST(A AS TEXT)", "bad expression");
	refused("A BETWEEN 1 AND 9", "bad expression");
	refused("A <= ", "bad expression");

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
	/* x*y <= 1024: 256x1 256x2 512x1 512x2 1024x1 */
	CHECK(count_is_build(spec, 0, NULL) == 5 * 2);
	kjit__limits lim = { .max_threads = 512 };
	CHECK(count_is_build(spec, 0, &lim) == 3 * 2);
	lim = (kjit__limits){ .max_shared = 16384 }; /* x*y*32 <= 16 KiB: x*y <= 512 */
	CHECK(count_is_build(spec, 0, &lim) == 3 * 2);
	CHECK_OK(kjit__space_build(spec, 0, &lim, &space));
	char *json = kjit__config_json(space, 1);
	CHECK_STREQ(json, "{\"F\":\"--use_fast_math\",\"X\":256,\"Y\":1}");
	free(json);
	kjit__space_free(space);
	CHECK(count_is_build(spec, 1, NULL) == 5 * 2); /* grid n/(x*y) >= 1: x*y <= 1024 */
	kjit__spec_free(spec);
	OK("block x*y <= 1024 (or --max-threads), shared memory limit, grid >= 1 prune");

	/* block expressions (T1 LocalSize) instead of the roles */
	spec = spec_from(
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
		" \"parameters\": ["
		"  {\"name\": \"X\", \"values\": [16, 32, 64, 128, 256, 512, 1024], \"roles\": \"block_x\"},"
		"  {\"name\": \"Y\", \"values\": [1, 2, 4, 8]}],"
		" \"grid\": [\"n / X\", \"n / (Y * 64)\"], \"problems\": [{\"n\": 4096}]}");
	spec->block[0] = "X";
	spec->block[1] = "Y * 2";
	size_t want = 0;
	for (int x = 16; x <= 1024; x *= 2)
		for (int y = 1; y <= 8; y *= 2)
			want += x * y * 2 <= 1024 && y * 64 <= 4096;
	CHECK(count_is_build(spec, 0, NULL) == want);
	uint16_t cfg[2] = { 2, 3 }; /* X=64, Y=8 */
	unsigned grid[3], block[3], shared;
	CHECK_OK(kjit__config_dims(spec, 0, cfg, grid, block, &shared));
	CHECK(block[0] == 64 && block[1] == 16 && block[2] == 1);
	CHECK(grid[0] == 64 && grid[1] == 8 && grid[2] == 1 && shared == 0);
	OK("block [X, Y * 2]: x*y*z <= 1024 prunes to %zu of 28; dims of X=64, Y=8: block "
	   "64x16x1, grid 64x8x1", want);
	/* a block that is no integer >= 1 prunes, and is an error in dims */
	spec->block[1] = "Y / 2";
	want = 0;
	for (int x = 16; x <= 1024; x *= 2)
		for (int y = 2; y <= 8; y *= 2)
			want += x * (y / 2) <= 1024;
	CHECK(count_is_build(spec, 0, NULL) == want); /* Y=1: 1 / 2 is 0 */
	spec->python = 1;
	CHECK(count_is_build(spec, 0, NULL) == want); /* Y=1: 0.5 */
	cfg[1] = 0;
	CHECK_ST(kjit__config_dims(spec, 0, cfg, grid, block, &shared), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "block[1] is 0.5");
	CHECK_CONTAINS(kjit_last_error(), "expected an integer");
	spec->python = 0;
	/* a product past int64: invalid, not an overflow */
	spec->block[0] = "X * 1000000";
	spec->block[1] = "2000000000";
	spec->block[2] = "5";
	lim = (kjit__limits){ .max_threads = INT64_MAX };
	/* X * 1e16 <= 2^63 - 1 for X up to 512 */
	CHECK(count_is_build(spec, 0, &lim) == 6 * 4);
	OK("block Y / 2 prunes Y=1 (0 in kjit, 0.5 in Python, an error in dims); block "
	   "X*1e6 x 2e9 x 5 keeps X <= 512 under an int64 limit");
	spec->block[0] = "Q";
	CHECK_ST(kjit__space_count(spec, 0, NULL, &(kjit__count){ 0 }),
	         KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "block[0]");
	CHECK_CONTAINS(kjit_last_error(), "unknown name 'Q'");
	OK("an unknown name in a block expression: %s", kjit_last_error());
	spec->block[0] = spec->block[1] = spec->block[2] = NULL;
	kjit__spec_free(spec);

	/* an evaluation that fails says where */
	spec = spec_from(
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
		" \"parameters\": [{\"name\": \"A\", \"values\": [1, 2]},"
		"  {\"name\": \"S\", \"values\": [\"-lineinfo\"], \"roles\": \"flags\"}],"
		" \"restrictions\": [\"A > 0\", \"A < 2 or S + 1 > 0\"], \"problems\": [{\"n\": 5}]}");
	CHECK_ST(kjit__space_build(spec, 0, NULL, &space), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "restrictions[1]");
	CHECK_CONTAINS(kjit_last_error(), "(with n=5, A=2, S=-lineinfo)");
	CHECK_ST(kjit__space_count(spec, 0, NULL, &(kjit__count){ 0 }),
	         KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "(with n=5, A=2, S=-lineinfo)");
	OK("a type error stops the walk: %s", kjit_last_error());
	kjit__spec_free(spec);

	/* 10 parameters x 10 values: a product of 1e10, never built */
	int counts[12];
	for (int i = 0; i < 12; i++)
		counts[i] = 10;
	spec = spec_of_counts(counts, 10, NULL, 0,
	                      ", \"restrictions\": [\"P0 == 3 and P1 == P0 + 1 and P2 < 2 and"
	                      " P3 == P2 and P4 + P5 == 1 and P6 == 9 and P7 == 0 and P8 == P7"
	                      " and P9 < 3\"]");
	uint64_t t0 = kjit__now_ns();
	CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
	double ms = ms_since(t0);
	CHECK(space->product == 1e10);
	CHECK_MSG(space->size == 2 * 2 * 3, "size %zu", space->size);
	CHECK_MSG(ms < 2000, "took %.0f ms", ms);
	kjit__space_free(space);
	CHECK(count_is_build(spec, 0, NULL) == 12);
	OK("1e10 product, restriction keeps 12, enumerated in %.1f ms", ms);
	kjit__spec_free(spec);

	/* 8e11 with no restriction but the block limit on the first parameter */
	static const int xs[] = { 64, 128, 256, 512, 1024, 2048, 4096, 8192 };
	spec = spec_of_counts(counts, 11, xs, 8, "");
	kjit__count cnt;
	t0 = kjit__now_ns();
	CHECK_OK(kjit__space_count(spec, 0, NULL, &cnt));
	ms = ms_since(t0);
	CHECK_MSG(cnt.product == 8e11 && cnt.valid == 5e11, "%.0f of %.0f", cnt.valid, cnt.product);
	CHECK_MSG(ms < 2000, "took %.0f ms", ms);
	OK("8e11 product, block x <= 1024 keeps 5e11, counted in %.3f ms", ms);

	/* too large to hold: refused without a sample, sampled with one */
	t0 = kjit__now_ns();
	CHECK_ST(kjit__space_build(spec, 0, NULL, &space), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "too large to hold whole");
	CHECK_CONTAINS(kjit_last_error(), "8e+11");
	CHECK_MSG(ms_since(t0) < 20000, "took %.0f ms", ms_since(t0));
	OK("8e11 refused whole in %.0f ms: %s", ms_since(t0), kjit_last_error());
	kjit__limits sampled = { .sample = 5000, .seed = 7 };
	t0 = kjit__now_ns();
	CHECK_OK(kjit__space_build(spec, 0, &sampled, &space));
	CHECK(space->sampled && space->size == 5000 && space->product == 8e11);
	size_t low_x = 0;
	for (size_t i = 0; i < space->size; i++) {
		const uint16_t *c = kjit__space_config(space, i);
		CHECK_MSG(c[0] < 5, "configuration %zu has block x %d", i, xs[c[0]]);
		low_x += c[0] == 0;
		CHECK(kjit__space_find(space, c) == (int64_t)i);
		if (i)
			CHECK_MSG(lexless(kjit__space_config(space, i - 1), c, space->n_params),
			          "configurations %zu and %zu out of order or equal", i - 1, i);
	}
	/* uniform over the valid ones: a fifth have the first block size */
	CHECK_MSG(low_x > 800 && low_x < 1200, "%zu of 5000 with block x 64", low_x);
	kjit__space_free(space);
	OK("8e11 sampled: 5000 distinct valid configurations in order, %zu with block x 64, "
	   "in %.0f ms", low_x, ms_since(t0));
	kjit__spec_free(spec);

	/* 1e12 with one restriction on two late parameters: the groups that
	 * checks connect multiply, so it counts at once */
	spec = spec_of_counts(counts, 12, NULL, 0, ", \"restrictions\": [\"P11 <= P10\"]");
	t0 = kjit__now_ns();
	CHECK_OK(kjit__space_count(spec, 0, NULL, &cnt));
	ms = ms_since(t0);
	CHECK_MSG(cnt.product == 1e12 && cnt.valid == 55e10 && cnt.rel_error == 0,
	          "%.0f of %.0f (%g)", cnt.valid, cnt.product, cnt.rel_error);
	CHECK_MSG(ms < 2000, "took %.0f ms", ms);
	OK("1e12 product, P11 <= P10 keeps 5.5e11, counted in %.3f ms", ms);
	kjit__spec_free(spec);

	/* one group of ten parameters read by one late check: too long to
	 * walk, estimated from draws against the exact count (the digit sums
	 * of ten digits, by dynamic programming) */
	spec = spec_of_counts(counts, 10, NULL, 0,
	                      ", \"restrictions\": [\"P0+P1+P2+P3+P4+P5+P6+P7+P8+P9 <= 20\"]");
	double exact = digit_sums(10, 20);
	t0 = kjit__now_ns();
	CHECK_OK(kjit__space_count(spec, 0, NULL, &cnt));
	ms = ms_since(t0);
	CHECK_MSG(cnt.rel_error > 0 && cnt.rel_error < 0.1 &&
	                  fabs(cnt.valid / exact - 1) < 5 * cnt.rel_error,
	          "estimate %.4g, exact %.4g, relative error %.3g", cnt.valid, exact, cnt.rel_error);
	CHECK_MSG(ms < 15000, "took %.0f ms", ms);
	OK("1e10 in one group, sum <= 20: estimated %.4g (exact %.4g, relative standard error "
	   "%.2g) in %.0f ms", cnt.valid, exact, cnt.rel_error, ms);
	kjit__spec_free(spec);

	/* checks slow enough (each a max over 3e6 numbers) that the count's
	 * clock runs out after a few of them: the walk stops within one
	 * evaluation of its clock, the draws within a tenth of it after it (2^16
	 * of them were an hour), and the count says it is an estimate even
	 * when every draw was valid */
	static const int c200[] = { 200 };
	spec = spec_of_counts(c200, 1, NULL, 0,
	                      ", \"restrictions\": [\"max(range(P0, P0 + 3000000)) > 0\"]");
	const kjit__limits clock = { .count_ns = 300000000u };
	t0 = kjit__now_ns();
	CHECK_OK(kjit__space_count(spec, 0, &clock, &cnt));
	ms = ms_since(t0);
	CHECK_MSG(cnt.rel_error > 0 && cnt.valid == 200 && cnt.product == 200,
	          "%.0f of %.0f (%g)", cnt.valid, cnt.product, cnt.rel_error);
	CHECK_MSG(ms < 30000, "took %.0f ms", ms);
	OK("200 slow checks under a 0.3 s clock: about %.0f (relative standard error %.2g) in %.0f ms",
	   cnt.valid, cnt.rel_error, ms);
	kjit__spec_free(spec);

	/* about 2e7 with five restrictions, one reading the last parameter:
	 * the count walks it, against a loop in C */
	static const int c7[] = { 10, 10, 10, 10, 10, 10, 20 };
	spec = spec_of_counts(c7, 7, NULL, 0,
	                      ", \"restrictions\": [\"P0 * P1 <= n\", \"(P0 + P2) % 3 != 0\","
	                      " \"P3 <= P4 + 2\", \"P5 % 2 == P0 % 2 or P5 == 0\","
	                      " \"P6 * (P5 + 1) <= 3 * n\"],"
	                      " \"problems\": [{\"n\": 40}, {\"n\": 6}]");
	for (size_t p = 0; p < 2; p++) {
		int64_t n = spec->problems[p].values[0];
		double brute = 0;
		for (int a = 0; a < 10; a++)
			for (int b = 0; b < 10; b++)
				for (int c = 0; c < 10; c++)
					for (int d = 0; d < 10; d++)
						for (int e = 0; e < 10; e++)
							for (int f = 0; f < 10; f++)
								for (int g = 0; g < 20; g++)
									brute += a * b <= n && (a + c) % 3 != 0 &&
									         d <= e + 2 &&
									         (f % 2 == a % 2 || f == 0) &&
									         g * (f + 1) <= 3 * n;
		t0 = kjit__now_ns();
		CHECK_OK(kjit__space_count(spec, p, NULL, &cnt));
		ms = ms_since(t0);
		CHECK_MSG(cnt.product == 2e7 && cnt.valid == brute && cnt.rel_error == 0,
		          "n=%lld: %.0f of %.0f, brute force %.0f", (long long)n, cnt.valid, cnt.product,
		          brute);
		OK("n=%lld: 2e7 product, 5 restrictions keep %.0f (as brute force), counted in "
		   "%.0f ms", (long long)n, cnt.valid, ms);
	}
	t0 = kjit__now_ns();
	size_t built = count_is_build(spec, 1, NULL);
	OK("n=6: built and counted alike (%zu) in %.0f ms", built, ms_since(t0));
	kjit__spec_free(spec);
	exact_counts();
	return 0;
}
