/*
 * test-expr: kjit's expression engine. Python's semantics where Python
 * defines them (and, when python3 is on the PATH, thousands of random
 * expressions evaluated by both and compared), kjit's dialect, Values
 * lists and their texts, the split into conjuncts, the budgets (each
 * evaluation's and a spec's over all its evaluations), hostile text (long
 * numbers, escapes, nested tuples, empty sequences repeated forever) and
 * the messages of bad input.
 */
#include "testutil.h"

#include <math.h>

#include "tuning.h"

static const char *const names[] = { "a", "b", "c", "s", "ProblemSize[1]", "L", "E" };
static kjit__value slots[7];
static kjit__value list_items[3];

static void set_slots(int64_t a, int64_t b, double c)
{
	static char ta[32], tb[32], tc[40];
	snprintf(ta, sizeof ta, "%lld", (long long)a);
	snprintf(tb, sizeof tb, "%lld", (long long)b);
	kjit__float_repr(c, tc);
	slots[0] = (kjit__value){ .text = ta, .kind = SQLITE_INTEGER, .i = a, .d = (double)a };
	slots[1] = (kjit__value){ .text = tb, .kind = SQLITE_INTEGER, .i = b, .d = (double)b };
	slots[2] = (kjit__value){ .text = tc, .kind = SQLITE_FLOAT, .d = c };
}

static kjit_status eval_d(kjit__dialect d, const char *text, double *out)
{
	kjit__expr *e;
	kjit_status st = kjit__expr_parse(text, d, names, 7, "test", NULL, &e);
	if (st != KJIT_OK)
		return st;
	st = kjit__expr_eval(e, slots, out);
	kjit__expr_free(e);
	return st;
}

static void is(kjit__dialect d, const char *text, double want)
{
	double got;
	kjit_status st = eval_d(d, text, &got);
	CHECK_MSG(st == KJIT_OK, "%s: %s", text, kjit_last_error());
	CHECK_MSG(isnan(want) ? isnan(got) : got == want, "%s: got %.17g, want %.17g", text, got,
	          want);
}

static void refused(kjit__dialect d, const char *text, const char *why)
{
	double got;
	kjit_status st = eval_d(d, text, &got);
	CHECK_MSG(st != KJIT_OK, "%s: accepted (%g)", text, got);
	CHECK_CONTAINS(kjit_last_error(), why);
}

/* before n times, then middle, then after n times: refused for why. */
static void refused_repeat(const char *before, int n, const char *middle, const char *after,
                           const char *why)
{
	kjit__buf b = { 0 };
	for (int i = 0; i < n; i++)
		kjit__buf_str(&b, before);
	kjit__buf_str(&b, middle);
	for (int i = 0; i < n; i++)
		kjit__buf_str(&b, after);
	kjit__buf_add(&b, "", 1);
	refused(KJIT__DIALECT_PYTHON, b.p, why);
	free(b.p);
}

static char *list_text(const char *text)
{
	kjit__expr *e;
	kjit__value *v;
	size_t n;
	kjit__buf b = { 0 };
	CHECK_OK(kjit__expr_parse(text, KJIT__DIALECT_PYTHON, names, 7, "Values", NULL, &e));
	CHECK_OK(kjit__expr_eval_list(e, slots, 65535, &v, &n));
	kjit__expr_free(e);
	for (size_t i = 0; i < n; i++) {
		kjit__buf_str(&b, i ? "," : "");
		kjit__buf_str(&b, v[i].text);
	}
	kjit__buf_add(&b, "", 1);
	kjit__values_free(v, n);
	return b.p;
}

static void list_is(const char *text, const char *want)
{
	char *got = list_text(text);
	CHECK_MSG(strcmp(got, want) == 0, "%s: got [%s], want [%s]", text, got, want);
	free(got);
}

/* ---- random expressions, evaluated here and by python3 ----------------- */

static uint64_t rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* ints: integers only, with the bit operators and int64's edges (the
 * flat program's ground); else Python's mix of ints, floats and bools. */
static void gen(kjit__buf *b, int depth, int ints)
{
	static const char *const bin[] = { "+", "-", "*", "/", "//", "%", "<<", ">>", "&", "|",
		                           "^" };
	static const char *const cmp[] = { "<", "<=", ">", ">=", "==", "!=" };
	static const char *const atoms[] = { "a", "b", "c", "0", "1", "2", "3", "7", "-7", "0.5",
		                             "2.5", "True", "False", "10" };
	static const char *const int_atoms[] = { "a", "b", "0", "1", "3", "-7", "True", "64",
		                                 "9223372036854775807", "-9223372036854775807",
		                                 "4611686018427387904", "(-a)", "(~b)" };
	char num[32];
	unsigned k = depth <= 0 ? 0 : rnd(12);
	switch (k) {
	case 0: case 1: case 2:
		kjit__buf_str(b, ints ? int_atoms[rnd(sizeof int_atoms / sizeof int_atoms[0])]
		                      : atoms[rnd(sizeof atoms / sizeof atoms[0])]);
		return;
	case 3: case 4: case 5:
		kjit__buf_str(b, "(");
		gen(b, depth - 1, ints);
		kjit__buf_str(b, bin[rnd(ints ? 11 : 6)]);
		gen(b, depth - 1, ints);
		kjit__buf_str(b, ")");
		return;
	case 6:
		kjit__buf_str(b, "(");
		gen(b, depth - 1, ints);
		snprintf(num, sizeof num, ") ** %u", rnd(4));
		kjit__buf_str(b, num);
		return;
	case 7: /* a chain of comparisons */
		kjit__buf_str(b, "(");
		gen(b, depth - 1, ints);
		for (unsigned i = 0, n = 1 + rnd(2); i < n; i++) {
			kjit__buf_str(b, cmp[rnd(6)]);
			gen(b, depth - 1, ints);
		}
		kjit__buf_str(b, ")");
		return;
	case 8:
		kjit__buf_str(b, "(");
		gen(b, depth - 1, ints);
		kjit__buf_str(b, rnd(2) ? " and " : " or ");
		gen(b, depth - 1, ints);
		kjit__buf_str(b, ")");
		return;
	case 9:
		kjit__buf_str(b, "(not ");
		gen(b, depth - 1, ints);
		kjit__buf_str(b, ")");
		return;
	case 10:
		kjit__buf_str(b, "(");
		gen(b, depth - 1, ints);
		kjit__buf_str(b, " if ");
		gen(b, depth - 1, ints);
		kjit__buf_str(b, " else ");
		gen(b, depth - 1, ints);
		kjit__buf_str(b, ")");
		return;
	default:
		k = rnd(3);
		kjit__buf_str(b, k == 0 ? "min(" : k == 1 ? "max(" : "abs(");
		gen(b, depth - 1, ints);
		if (k < 2) {
			kjit__buf_str(b, ", ");
			gen(b, depth - 1, ints);
		}
		kjit__buf_str(b, ")");
		return;
	}
}

static void differential(void)
{
	char path[TU_PATH], cmd[2 * TU_PATH];
	if (system("python3 -c 'import sys' >/dev/null 2>&1") != 0) {
		OK("python3 not found: the differential test against Python did not run");
		return;
	}
	enum { N = 3000 };
	static char *exprs[N];
	static int64_t as[N], bs[N];
	static double cs[N];
	tu_path(path, tu_tmpdir(), "exprs.txt");
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	for (int i = 0; i < N; i++) {
		kjit__buf b = { 0 };
		gen(&b, 4, 0);
		kjit__buf_add(&b, "", 1);
		exprs[i] = b.p;
		as[i] = (int64_t)rnd(41) - 20;
		bs[i] = (int64_t)rnd(9) - 4;
		cs[i] = ((double)rnd(81) - 40) / 8;
		fprintf(f, "%lld %lld %.17g %s\n", (long long)as[i], (long long)bs[i], cs[i], exprs[i]);
	}
	fclose(f);
	snprintf(cmd, sizeof cmd,
	         "python3 -c '\n"
	         "import sys\n"
	         "for line in open(sys.argv[1]):\n"
	         "    a, b, c, e = line.split(\" \", 3)\n"
	         "    try:\n"
	         "        r = eval(e, {\"__builtins__\": {\"min\": min, \"max\": max, \"abs\": abs}},\n"
	         "                 {\"a\": int(a), \"b\": int(b), \"c\": float(c)})\n"
	         "        print(repr(float(r)))\n"
	         "    except ZeroDivisionError:\n"
	         "        print(\"zero\")\n"
	         "    except (OverflowError, TypeError, ValueError):\n"
	         "        print(\"error\")\n"
	         "' %s",
	         path);
	FILE *p = popen(cmd, "r");
	CHECK(p != NULL);
	int compared = 0, skipped = 0;
	char line[256];
	for (int i = 0; i < N; i++) {
		CHECK_MSG(fgets(line, sizeof line, p) != NULL, "python3 stopped at %d", i);
		line[strcspn(line, "\n")] = '\0';
		set_slots(as[i], bs[i], cs[i]);
		double got;
		kjit_status st = eval_d(KJIT__DIALECT_PYTHON, exprs[i], &got);
		if (strcmp(line, "zero") == 0 || strcmp(line, "error") == 0) {
			/* Python raises where kjit gives NaN (or a type error): not compared */
			skipped++;
			free(exprs[i]);
			continue;
		}
		CHECK_MSG(st == KJIT_OK, "%s (a=%lld b=%lld c=%g): %s", exprs[i], (long long)as[i],
		          (long long)bs[i], cs[i], kjit_last_error());
		double want = strtod(line, NULL);
		int same = isnan(want) ? isnan(got)
		           : isinf(want) ? got == want
		                         : fabs(got - want) <= 1e-9 * fmax(1, fabs(want));
		CHECK_MSG(same, "%s (a=%lld b=%lld c=%.17g): kjit %.17g, Python %s", exprs[i],
		          (long long)as[i], (long long)bs[i], cs[i], got, line);
		compared++;
		free(exprs[i]);
	}
	CHECK(pclose(p) == 0);
	CHECK(compared > N / 2);
	OK("%d random expressions agree with python3 (%d that raise in Python not compared)",
	   compared, skipped);
}

/* The flat program of integer arithmetic gives what the tree gives, value
 * and error alike, in both dialects, at int64's edges too. */
static void flat_agrees(void)
{
	int flat = 0, n = 4000;
	for (int i = 0; i < n; i++) {
		kjit__buf b = { 0 };
		gen(&b, 4, 1);
		kjit__buf_add(&b, "", 1);
		int64_t edge[] = { INT64_MAX, INT64_MIN, 0, 1, -1 };
		set_slots(rnd(4) ? (int64_t)rnd(41) - 20 : edge[rnd(5)], (int64_t)rnd(9) - 4, 0.5);
		kjit__dialect d = i % 2 ? KJIT__DIALECT_PYTHON : KJIT__DIALECT_KJIT;
		kjit__expr *e;
		if (kjit__expr_parse(b.p, d, names, 7, "test", NULL, &e) != KJIT_OK) {
			free(b.p);
			continue;
		}
		double fast = 0, tree = 0;
		kjit_status sf = kjit__expr_eval_own(e, slots, &fast);
		kjit_status st = kjit__expr_eval_tree(e, slots, &tree);
		CHECK_MSG(sf == st && (sf != KJIT_OK || (isnan(fast) ? isnan(tree) : fast == tree)),
		          "%s (a=%s b=%s): %.17g (%d) by the program, %.17g (%d) by the tree", b.p,
		          slots[0].text, slots[1].text, fast, sf, tree, st);
		flat += kjit__expr_is_flat(e);
		kjit__expr_free(e);
		free(b.p);
	}
	CHECK_MSG(flat > n / 2, "%d of %d flat", flat, n);
	OK("%d random integer expressions (%d of them with a flat program) agree with the tree", n,
	   flat);
}

/* Text built as prefix, then middle n times, then suffix. */
static char *built(const char *prefix, const char *middle, int n, const char *suffix)
{
	kjit__buf b = { 0 };
	kjit__buf_str(&b, prefix);
	for (int i = 0; i < n; i++)
		kjit__buf_str(&b, middle);
	kjit__buf_str(&b, suffix);
	kjit__buf_add(&b, "", 1);
	return b.p;
}

/* The lexer's and the parser's bounds (issue 22, items 1 and 2). */
static void hostile_text(void)
{
	const kjit__dialect PYd = KJIT__DIALECT_PYTHON, KJd = KJIT__DIALECT_KJIT;
	/* an exponent's sign once overran a 128-byte buffer on the stack */
	char *t = built("", "1", 127, "");
	char *u = built(t, "e+1e-1", 100, "");
	refused(PYd, u, "a number longer than 127 characters at column 1");
	refused(KJd, u, "a number longer than 127 characters at column 1");
	free(u);
	u = built("", "1", 120, "e+1 > 1e120");
	is(PYd, u, 1);
	free(u);
	u = built("1 + ", "1", 126, "e+1");
	refused(PYd, u, "a number longer than 127 characters at column 5");
	free(u);
	free(t);
	u = built("0x", "0", 200, "1");
	refused(PYd, u, "a number longer than 127 characters");
	free(u);
	u = built("", "1_", 100, "1");
	is(PYd, "1_000 + 0x_ff + 0o17 + 0b11 + 1.5e-3 + 1E+2", 1000 + 255 + 15 + 3 + 1.5e-3 + 100);
	refused(PYd, u, "does not fit 64 bits");
	free(u);
	refused(PYd, "0x0x1", "bad number '0x0x1'");
	refused(PYd, "0x", "bad number");
	refused(PYd, "1e5e5", "bad number");
	refused(PYd, "a \x01 b", "unexpected byte 0x01 at column 3");
	OK("numbers: at most 127 characters, bases checked, bytes named");
	/* math.NAME once read past the text with the length of 'math' */
	is(PYd, "math.pi", 3.141592653589793);
	is(PYd, "math.e + math.tau", 2.718281828459045 + 6.283185307179586);
	is(PYd, "math.inf > 1e308 and math.nan != math.nan", 1);
	refused(PYd, "math.p", "unknown name 'math.p' (math's constants are");
	refused(PYd, "math.piii", "unknown name 'math.piii'");
	refused(PYd, "math.and", "unknown name 'math.and'");
	refused(PYd, "math.foo(1)", "unknown function 'math.foo'");
	refused(PYd, "math.", "expected a name after 'math.'");
	OK("math.pi, math.e, math.tau, math.inf, math.nan; other math.NAME named");
	/* nested tuples are read once each: 90 deep once cost 2^90 parses */
	u = built("len(", "(", 90, "");
	t = built(u, "1,)", 1, "");
	free(u);
	u = built(t, ",)", 89, ")");
	is(PYd, u, 1);
	free(u);
	free(t);
	OK("nested tuples: each read once");
}

/* Every loop counts against the budget of steps (issue 22, item 3). */
static void hostile_loops(void)
{
	const kjit__dialect PYd = KJIT__DIALECT_PYTHON, KJd = KJIT__DIALECT_KJIT;
	is(PYd, "len('' * 10**18) == 0", 1);
	is(PYd, "len([] * 10**18) + len(E * 10**18)", 0);
	is(PYd, "E * 9223372036854775807 == E", 1);
	is(KJd, "E * 9223372036854775807 = E", 1);
	is(PYd, "range(10 ** 18) == range(10 ** 18) and range(0) == range(5, 5)", 1);
	is(PYd, "range(1, 2) == range(1, 5, 7) and range(10 ** 18) != range(1, 10 ** 18)", 1);
	is(PYd, "[range(3)] == [[0, 1, 2]] and 'bc' in 'abcd' and '' in E", 1);
	is(PYd, "sum(range(10 ** 6)) + max(range(10 ** 6)) + min(range(5, 10 ** 6))",
	   499999500000.0 + 999999 + 5);
	refused(PYd, "sum(1 for x in [[0] * 10 ** 6] for i in range(100) if x == x)",
	        "the evaluation budget is spent");
	refused(PYd, "sum(1 for x in [[0] * 10 ** 6] for i in range(100) if x <= x)",
	        "the evaluation budget is spent");
	refused(PYd, "sum(1 for x in ['a' * 10 ** 7] for i in range(10 ** 6) if 'b' in x)",
	        "the evaluation budget is spent");
	refused(PYd, "sum(1 for x in ['a' * 10 ** 7] for i in range(10 ** 6) if x == x)",
	        "the evaluation budget is spent");
	refused(PYd, "sum(1 for x in [[0] * 10 ** 6] for i in range(100) if x in [x])",
	        "the evaluation budget is spent");
	refused(PYd, "len(sorted(['a' * 10 ** 6] * 10 ** 4))", "the evaluation budget is spent");
	OK("empty sequences repeated, ranges compared, searches, sorts: bounded steps");
}

/* String escapes as Python reads them (issue 22, item 9). */
static void escapes(void)
{
	const kjit__dialect PYd = KJIT__DIALECT_PYTHON;
	list_is("['\\u00e9', '\\x41', '\\101', '\\U0001F600', 'a\\tb', '\\\\', '\\'\"']",
	        "\xc3\xa9,A,A,\xf0\x9f\x98\x80,a\tb,\\,'\"");
	list_is("['\\xe9', '\\777', '\\d', 'a\\\nb', '\\a\\b\\f\\v\\r\\n', \"\\\"\", 'é']",
	        "\xc3\xa9,\xc7\xbf,\\d,ab,\a\b\f\v\r\n,\",\xc3\xa9");
	is(PYd, "'\\u00e9' == '\xc3\xa9' and '\\x41\\x42' == 'AB' and '\\0' != ''", 1);
	refused(PYd, "'abc\\x4' == 'a'", "truncated \\x escape (2 hex digits) at column 5");
	refused(PYd, "'\\u12' == 'a'", "truncated \\u escape (4 hex digits) at column 2");
	refused(PYd, "'\\U0011ffff'", "\\U0011ffff is not a Unicode character (above U+10FFFF) at "
	                               "column 2");
	refused(PYd, "'\\ud800'", "\\ud800 is a surrogate, which UTF-8 cannot hold at column 2");
	refused(PYd, "'\\N{DASH}'", "\\N{...} is not supported");
	{
		kjit__expr *e;
		kjit__value *v;
		size_t n;
		CHECK_OK(kjit__expr_parse("['a\\x00b']", PYd, NULL, 0, "V", NULL, &e));
		CHECK(kjit__expr_eval_list(e, NULL, 10, &v, &n) != KJIT_OK);
		CHECK_CONTAINS(kjit_last_error(), "item 0 holds a NUL character");
		kjit__expr_free(e);
	}
	OK("escapes: \\u, \\U, \\x, octal, \\n and kin as UTF-8; invalid ones named with the column");
}

/* A spec's evaluations draw on one budget together (issue 22, item 7). */
static void spec_budget(void)
{
	kjit__expr_budget *b = kjit__expr_budget_new(10000);
	kjit__expr *e, **t;
	size_t n;
	double v;
	CHECK(b != NULL);
	CHECK_OK(kjit__expr_parse("a > 0 and sum(range(a * 300)) > 0", KJIT__DIALECT_PYTHON, names,
	                          7, "restrictions[0]", b, &e));
	CHECK_OK(kjit__expr_split(e, &t, &n));
	CHECK(n == 2);
	int ok = 0;
	kjit_status st;
	while ((st = kjit__expr_eval(t[ok % 2], slots, &v)) == KJIT_OK)
		ok++;
	/* about 2100 steps each: four sums and some comparisons */
	CHECK_MSG(ok >= 8 && ok <= 10, "%d evaluations", ok);
	CHECK_CONTAINS(kjit_last_error(), "restrictions[0]: \"a > 0 and sum(range(a * 300)) > 0\": "
	                                  "the expression budget of the spec is spent (10000 steps in "
	                                  "all its evaluations)");
	CHECK(kjit__expr_eval(e, slots, &v) != KJIT_OK);
	CHECK(kjit__expr_eval(t[0], slots, &v) != KJIT_OK);
	CHECK_CONTAINS(kjit_last_error(), "expression budget of the spec is spent");
	kjit__expr_free(t[0]);
	kjit__expr_free(t[1]);
	free(t);
	kjit__expr_free(e);
	kjit__expr_budget_free(b);
	OK("a budget shared by the expressions of a spec: spent, each evaluation says so");

	/* a spec's restriction over a space: cheap steps (a list grown by
	 * memcpy), many of them; the walk stops at the spec's budget */
	char dir[TU_PATH], path[TU_PATH];
	tu_path(dir, tu_tmpdir(), "budget");
	CHECK(mkdir(dir, 0700) == 0);
	tu_path(path, dir, "k.cu");
	static const char cu[] = "extern \"C\" __global__ void k() {}\n";
	tu_write_file(path, cu, strlen(cu));
	tu_path(path, dir, "spec.json");
	static const char spec[] =
		"{ \"kernel\": { \"source\": \"k.cu\", \"entry\": \"k\" },\n"
		"  \"parameters\": [ { \"name\": \"A\", \"values\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },\n"
		"                  { \"name\": \"B\", \"values\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] } ],\n"
		"  \"restrictions\": [ \"max([0] * 1000 * 2000) < A + B\" ],\n"
		"  \"problems\": [ { \"n\": 1 } ] }\n";
	tu_write_file(path, spec, strlen(spec));
	kjit__spec *s;
	CHECK_OK(kjit__spec_load(path, &s));
	/* the walk that builds the space draws on it (a count is bounded by
	 * its clock instead) */
	kjit__space *space = NULL;
	st = kjit__space_build(s, 0, NULL, &space);
	CHECK(st != KJIT_OK && !space);
	CHECK_CONTAINS(kjit_last_error(), "restrictions[0]: \"max([0] * 1000 * 2000) < A + B\": the "
	                                  "expression budget of the spec is spent (134217728 steps in "
	                                  "all its evaluations)");
	kjit__spec_free(s);
	OK("a spec's restriction over its space: the spec's budget of 2^27 steps, then an error");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	set_slots(7, -2, 0.5);
	slots[3] = (kjit__value){ .text = "--use_fast_math", .kind = SQLITE_TEXT };
	slots[4] = (kjit__value){ .text = "4096", .kind = SQLITE_INTEGER, .i = 4096, .d = 4096 };
	for (int i = 0; i < 3; i++) {
		static char t[3][8];
		snprintf(t[i], sizeof t[i], "%d", 3 * (i + 1));
		list_items[i] = (kjit__value){ .text = t[i], .kind = SQLITE_INTEGER, .i = 3 * (i + 1),
			                       .d = 3 * (i + 1) };
	}
	slots[5] = (kjit__value){ .text = "[3, 6, 9]", .kind = KJIT__KIND_LIST, .items = list_items,
		                  .n_items = 3 };
	slots[6] = (kjit__value){ .text = "", .kind = SQLITE_TEXT };

	const kjit__dialect PYd = KJIT__DIALECT_PYTHON, KJd = KJIT__DIALECT_KJIT;
	/* Python: true division, floor // and %, ** and its precedence */
	is(PYd, "7 / 2", 3.5);
	is(PYd, "-7 // 2", -4);
	is(PYd, "-7 % 2", 1);
	is(PYd, "7 % -2", -1);
	is(PYd, "a // b", -4);
	is(PYd, "-7.5 // 2", -4);
	is(PYd, "-7.5 % 2", 0.5);
	is(PYd, "2 ** 10", 1024);
	is(PYd, "2 ** -1", 0.5);
	is(PYd, "-2 ** 2", -4);
	is(PYd, "2 ** 3 ** 2", 512);
	is(PYd, "1 / 0", NAN);
	is(PYd, "5 // 0", NAN);
	is(PYd, "2 ** 64", 18446744073709551616.0);
	is(PYd, "9223372036854775807 + 1", 9223372036854775808.0);
	is(PYd, "1 << 4 | 1", 17);
	OK("Python arithmetic: / true, // and %% floored, **, overflow continues as a double");
	/* comparisons, logic, conditional expressions */
	is(PYd, "1 < a < 10", 1);
	is(PYd, "1 < a < 5", 0);
	is(PYd, "32 <= a * 8 <= 1024", 1);
	is(PYd, "a == 7.0", 1);
	is(PYd, "a if b > 0 else 100", 100);
	is(PYd, "0 or 5", 5);
	is(PYd, "3 and 0", 0);
	is(PYd, "not a", 0);
	is(PYd, "s == '--use_fast_math'", 1);
	is(PYd, "s != \"-O3\" and 'fast' in s", 1);
	is(PYd, "a in [1, 7, 9]", 1);
	is(PYd, "a not in range(0, 10, 2)", 1);
	is(PYd, "True + True", 2);
	is(PYd, "ProblemSize[1] // 16", 256);
	OK("Python comparisons (chained), and/or values, conditional expressions, in, names X[k]");
	/* builtins and lists */
	is(PYd, "min(a, b, 3)", -2);
	is(PYd, "max([1, 9, 4])", 9);
	is(PYd, "max(L)", 9);
	is(PYd, "abs(b) + len(L)", 5);
	is(PYd, "sum(x * x for x in range(4))", 14);
	is(PYd, "len([i for i in range(100) if i % 3 == 0 if i % 2 == 0])", 17);
	is(PYd, "len([(i, j) for i in range(4) for j in range(i)])", 6);
	is(PYd, "[1, 2, 3][-1]", 3);
	is(PYd, "round(2.5) + round(3.5)", 6);
	is(PYd, "int(7.9) + int('12')", 19);
	is(PYd, "math.floor(-0.5) + math.ceil(0.5)", 0);
	is(PYd, "math.log2(1024) + math.sqrt(16)", 14);
	is(PYd, "any([0, 0, 3]) + all([])", 2);
	OK("Python builtins: min/max (of lists too), sum, len, comprehensions, round, int, math.*");
	/* kjit's dialect */
	is(KJd, "7 / 2", 3);
	is(KJd, "-7 / 2", -3);
	is(KJd, "-7 % 2", -1);
	is(KJd, "a // 2", 3);
	is(KJd, "7.0 / 2", 3.5);
	is(KJd, "a = 7 && !(b = 1) || 0", 1);
	is(KJd, "a <> 7", 0);
	is(KJd, "pow(2, 5) + power(2, 1)", 34);
	is(KJd, "2 ** 5", 32);
	is(KJd, "iif(a > 5, 10, 20)", 10);
	is(KJd, "coalesce(nullif(a, 7), 3)", 3);
	is(KJd, "log(100) + ln(1)", 2);
	is(KJd, "ceiling(2.1)", 3);
	is(KJd, "1 / 0", NAN);
	is(KJd, "nullif(a, 7) + 1", NAN);
	OK("kjit dialect: C-style / and %% of integers, && || ! = <>, SQL-style functions, NULL");

	/* Values lists and Python's str() of their items */
	list_is("[1] + [2*i for i in range(1,11)]", "1,2,4,6,8,10,12,14,16,18,20");
	list_is("[2**k for k in range(6)]", "1,2,4,8,16,32");
	list_is("list(range(10, 0, -3))", "10,7,4,1");
	list_is("[x / 2 for x in range(1, 5)]", "0.5,1.0,1.5,2.0");
	list_is("[True, False, 1e-5, 1e16, 123456789.125, -0.0]",
	        "True,False,1e-05,1e+16,123456789.125,-0.0");
	list_is("['x', \"y'y\", str(3), str(0.1)]", "x,y'y,3,0.1");
	list_is("(1, 2, 4,)", "1,2,4");
	list_is("[i * j for i in range(1, 4) for j in range(i, 3) if i != j]", "2");
	list_is("[[1, 2][k] for k in (0, 1)] + sorted([9, 3, 5])", "1,2,3,5,9");
	list_is("[a if a > 2 else -a for a in range(5)]", "0,-1,-2,3,4");
	list_is("[x for x in L if x > 3]", "6,9");
	list_is("range(3)", "0,1,2");
	list_is("[1] + [2*i for i in range(0)] + [x for x in [] if x] * 3", "1");
	/* near INT64_MAX a range neither overflows nor loops */
	list_is("list(range(9223372036854775800, 9223372036854775807, 5))",
	        "9223372036854775800,9223372036854775805");
	list_is("list(range(-9223372036854775800, -9223372036854775807, -4))",
	        "-9223372036854775800,-9223372036854775804");
	OK("Values: lists, ranges, comprehensions (nested, filtered), texts as Python's str()");
	{
		kjit__expr *e;
		kjit__value *v;
		size_t n;
		CHECK_OK(kjit__expr_parse("[True, 2.0, 'k', 3]", PYd, NULL, 0, "V", NULL, &e));
		CHECK_OK(kjit__expr_eval_list(e, NULL, 10, &v, &n));
		CHECK(n == 4 && v[0].kind == SQLITE_INTEGER && v[0].i == 1);
		CHECK(v[1].kind == SQLITE_FLOAT && v[1].d == 2.0 && v[2].kind == SQLITE_TEXT);
		CHECK(v[3].kind == SQLITE_INTEGER && v[3].i == 3 && v[3].d == 3);
		kjit__values_free(v, n);
		CHECK(kjit__expr_eval_list(e, NULL, 3, &v, &n) != KJIT_OK);
		CHECK_CONTAINS(kjit_last_error(), "4 values, more than 3");
		kjit__expr_free(e);
		CHECK_OK(kjit__expr_parse("[1, [2]]", PYd, NULL, 0, "V", NULL, &e));
		CHECK(kjit__expr_eval_list(e, NULL, 10, &v, &n) != KJIT_OK);
		CHECK_CONTAINS(kjit_last_error(), "item 1 is a list");
		kjit__expr_free(e);
		CHECK_OK(kjit__expr_parse("4", PYd, NULL, 0, "V", NULL, &e));
		CHECK(kjit__expr_eval_list(e, NULL, 10, &v, &n) != KJIT_OK);
		CHECK_CONTAINS(kjit_last_error(), "not a list");
		kjit__expr_free(e);
		OK("Values: kinds of items, the item limit, nested lists and non-lists refused");
	}

	/* conjuncts: each term reads its own names */
	{
		kjit__expr *e, **t;
		size_t n;
		CHECK_OK(kjit__expr_parse("a > 1 and (b < 3 and 1 <= c < ProblemSize[1]) and s != 'x'",
		                          PYd, names, 7, "C", NULL, &e));
		CHECK(kjit__expr_max_slot(e) == 4);
		CHECK_OK(kjit__expr_split(e, &t, &n));
		kjit__expr_free(e); /* the terms keep what they share */
		CHECK_MSG(n == 5, "%zu terms", n);
		static const int want_slot[] = { 0, 1, 2, 4, 3 };
		for (size_t i = 0; i < n; i++) {
			double v;
			CHECK_MSG(kjit__expr_max_slot(t[i]) == want_slot[i], "term %zu reads up to %d", i,
			          kjit__expr_max_slot(t[i]));
			CHECK_OK(kjit__expr_eval(t[i], slots, &v));
			CHECK_MSG(v == (i == 2 ? 0 : 1), "term %zu is %g", i, v); /* 1 <= 0.5 is false */
			kjit__expr_free(t[i]);
		}
		free(t);
		CHECK_OK(kjit__expr_parse("a > 1 or b", PYd, names, 7, "C", NULL, &e));
		CHECK_OK(kjit__expr_split(e, &t, &n));
		CHECK(n == 1 && kjit__expr_max_slot(t[0]) == 1);
		kjit__expr_free(t[0]);
		free(t);
		kjit__expr_free(e);
		OK("split: nested and, chained comparisons cut in two, or kept whole");
	}

	/* bad input: messages name the problem and its column */
	refused(PYd, "a +", "unexpected end of the expression at column 4");
	refused(PYd, "a + zz", "unknown name 'zz' (not a parameter or problem size) at column 5");
	refused(PYd, "a && b", "'&&' is not Python: write 'and'");
	refused(PYd, "a = 1", "write '=='");
	refused(PYd, "foo(1)", "unknown function 'foo'");
	refused(KJd, "len(L)", "unknown function 'len'");
	refused(PYd, "range(1, 2, 3, 4)", "range() takes 1 to 3 arguments (got 4)");
	refused(PYd, "[1, 2", "expected ']' before the end");
	refused(PYd, "(a", "expected ')' before the end");
	refused(PYd, "'abc", "unterminated string");
	refused(PYd, "a; b", "unexpected character ';'");
	refused(PYd, "a is 1", "'is' is not supported");
	refused(PYd, "L[0:1]", "slices are not supported");
	refused(PYd, "sorted(L, reverse=True)", "keyword arguments are not supported");
	refused(PYd, "99999999999999999999", "does not fit 64 bits");
	refused(PYd, "1 if a", "expected 'else'");
	refused(PYd, "[x for x in 5]", "a int is not a list");
	refused(PYd, "s + 1", "'+' of a str and a int");
	refused(PYd, "s < 1", "cannot order a str and a int");
	refused(PYd, "L[3]", "index 3 out of range (length 3)");
	refused(PYd, "range(0, 5, 0)", "range() with a step of 0");
	refused(PYd, "s", "the value is a str, not a number");
	refused(PYd, "", "empty expression");
	OK("bad expressions: each its own message, with the column");
	/* budgets: time, memory, depth */
	refused(PYd, "len([i for i in range(10 ** 9)])", "more than 64 MiB of values");
	refused(PYd, "len([i for i in range(10 ** 9) if i < 0])", "the evaluation budget is spent");
	refused(PYd, "len([0] * 10 ** 9)", "repeated 1000000000 times");
	refused(PYd, "sum(range(10 ** 12))", "the evaluation budget is spent");
	refused_repeat("(", 150, "1", ")", "nested more than 100 deep");
	refused_repeat("1 + ", 3000, "1", "", "more than 1000 operations deep");
	refused_repeat("2 ** ", 3000, "1", "", "nested more than 100 deep");
	/* a sequence of sizeable lists stays within its evaluation */
	is(PYd, "len([x for x in range(2000000) if x % 7 == 0])", 285715);
	OK("budgets: steps, memory, nesting and height, each refused with its reason");

	hostile_text();
	hostile_loops();
	escapes();
	spec_budget();
	differential();
	flat_agrees();
	return 0;
}
