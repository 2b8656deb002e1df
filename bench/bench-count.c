/*
 * bench-count - exact counts of a group of parameters that only its last
 * parameter can check (no GPU).
 *
 *   count_eval    ns per evaluation of "a * b * c * d <= 1000000" (four
 *                 integer parameters) by its flat program, against the
 *                 tree walker on the same expression and values in the
 *                 same run (batches in turn, the fastest of each);
 *   count_1e8     seconds for kjit__space_count() of a, b, c, d in
 *                 1..100 with that restriction (one group of 10^8 whose
 *                 restriction reads all four), checked against the count
 *                 by a sum over a, b and c. Target: exact within 10 s.
 *
 *   bench-count [-b BATCHES] [-n EVALUATIONS]
 */
#include "config.h"

#include <math.h>

#include "benchutil.h"

#define RESTRICTION "a * b * c * d <= 1000000"
#define VALUES 100

/* ns per evaluation of e over n evaluations, the values of a..d cycling. */
static double per_eval(const kjit__expr *e, kjit__value *slots, long n, int tree)
{
	double v, sum = 0;
	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < n; i++) {
		slots[3].i = 1 + i % VALUES;
		BENCH_KJIT(tree ? kjit__expr_eval_tree(e, slots, &v)
		                : kjit__expr_eval_own(e, slots, &v));
		sum += v;
	}
	if (sum < 0)
		bench_die("a negative truth value");
	return (double)(bench_now_ns() - t0) / (double)n;
}

static void eval_speed(int batches, long n)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	kjit__value slots[4];
	for (int i = 0; i < 4; i++)
		slots[i] = (kjit__value){ .text = "", .kind = SQLITE_INTEGER, .i = 7 + i, .d = 7 + i };
	kjit__expr *e;
	BENCH_KJIT(kjit__expr_parse(RESTRICTION, KJIT__DIALECT_KJIT, names, 4, "bench", NULL, &e));
	if (!kjit__expr_is_flat(e))
		bench_die("\"%s\" has no flat program", RESTRICTION);
	double flat = INFINITY, tree = INFINITY;
	for (int b = 0; b < batches; b++) {
		double f = per_eval(e, slots, n, 0), t = per_eval(e, slots, n, 1);
		flat = f < flat ? f : flat;
		tree = t < tree ? t : tree;
	}
	kjit__expr_free(e);
	printf("  per evaluation: flat program %.1f ns, tree %.1f ns (fastest of %d batches of "
	       "%ld)\n", flat, tree, batches, n);
	bench_result("count_eval", flat, "ns", tree, "info");
}

static void count_1e8(void)
{
	char path[BENCH_PATH_MAX], text[4096];
	int len = snprintf(text, sizeof text, "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	                                      " \"parameters\": [");
	for (int i = 0; i < 4; i++) {
		len += snprintf(text + len, sizeof text - (size_t)len,
		                "%s{\"name\": \"%c\", \"values\": [1", i ? ", " : "", 'a' + i);
		for (int v = 2; v <= VALUES; v++)
			len += snprintf(text + len, sizeof text - (size_t)len, ",%d", v);
		len += snprintf(text + len, sizeof text - (size_t)len, "]}");
	}
	snprintf(text + len, sizeof text - (size_t)len, "], \"restrictions\": [\"%s\"]}",
	         RESTRICTION);
	bench_tmp_path(path, sizeof path, "count.json");
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		bench_die("cannot write %s", path);
	long long want = 0;
	for (long long a = 1; a <= VALUES; a++)
		for (long long b = 1; b <= VALUES; b++)
			for (long long c = 1; c <= VALUES; c++)
				want += 1000000 / (a * b * c) < VALUES ? 1000000 / (a * b * c) : VALUES;
	kjit__spec *spec;
	BENCH_KJIT(kjit__spec_load(path, &spec));
	kjit__count c;
	uint64_t t0 = bench_now_ns();
	BENCH_KJIT(kjit__space_count(spec, 0, NULL, &c));
	double s = (double)(bench_now_ns() - t0) * 1e-9;
	kjit__spec_free(spec);
	printf("  %s over 1..%d each: valid %.0f%s of %.0f in %.2f s (a sum over a, b and c: %lld)\n",
	       RESTRICTION, VALUES, c.valid, c.rel_error > 0 ? " (estimated)" : "", c.product, s,
	       want);
	if (c.rel_error > 0 || c.valid != (double)want)
		bench_die("the count is not exact: %.0f against %lld", c.valid, want);
	bench_result("count_1e8", s, "s", -1, "value<=10");
}

int main(int argc, char **argv)
{
	bench_prog = "bench-count";
	int batches = 7, opt;
	long n = 2000000;
	while ((opt = getopt(argc, argv, "b:n:")) != -1) {
		if (opt == 'b' && (batches = atoi(optarg)) > 0)
			continue;
		if (opt == 'n' && (n = atol(optarg)) > 0)
			continue;
		fprintf(stderr, "usage: bench-count [-b BATCHES] [-n EVALUATIONS]\n");
		return 2;
	}
	printf("== bench-count: exact counts of a group its last parameter checks ==\n");
	eval_speed(batches, n);
	count_1e8();
	return 0;
}
