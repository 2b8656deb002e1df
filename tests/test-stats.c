/*
 * test-stats: the comparison, sort and median of samples (base.h).
 *
 *  - kjit__cmp_double orders numbers, counts -0 and 0 equal and a NaN
 *    equal to everything (what every sort of samples did before it);
 *  - kjit__sort_doubles sorts random arrays, and takes none (NULL) or one;
 *  - kjit__median_sorted: the middle value, or the mean of the middle two;
 *    NAN of none. The mean as 0.5 * (a + b) equals (a + b) / 2 bit for bit,
 *    subnormals and overflow included, so the medians it replaced (both
 *    forms) give the same results.
 */
#include "testutil.h"

#include <float.h>
#include <math.h>

#include "base.h"

/* xorshift64: reproducible samples */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double any_double(void)
{
	uint64_t bits = next();
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	CHECK(kjit__cmp_double(1, 2) == -1 && kjit__cmp_double(2, 1) == 1 &&
	      kjit__cmp_double(3, 3) == 0 && kjit__cmp_double(-0.0, 0.0) == 0 &&
	      kjit__cmp_double(-INFINITY, -1e308) == -1);
	CHECK(kjit__cmp_double(NAN, 1) == 0 && kjit__cmp_double(1, NAN) == 0 &&
	      kjit__cmp_double(NAN, NAN) == 0);
	OK("cmp: -1, 0, 1; -0 == 0; NaN equal to everything");

	kjit__sort_doubles(NULL, 0);
	double one = 7;
	kjit__sort_doubles(&one, 1);
	CHECK(one == 7);
	for (size_t n = 2; n < 300; n += 37) {
		double v[300];
		for (size_t i = 0; i < n; i++)
			v[i] = (double)(next() % 1000) - 500;
		kjit__sort_doubles(v, n);
		for (size_t i = 1; i < n; i++)
			CHECK_MSG(v[i - 1] <= v[i], "n %zu: v[%zu] %g > v[%zu] %g", n, i - 1, v[i - 1],
			          i, v[i]);
	}
	OK("sort: none, one, and random arrays of 2 to 298 come out ascending");

	CHECK(isnan(kjit__median_sorted(NULL, 0)));
	const double s[] = { 1, 2, 4, 8, 16 };
	CHECK(kjit__median_sorted(s, 1) == 1 && kjit__median_sorted(s, 2) == 1.5 &&
	      kjit__median_sorted(s, 3) == 2 && kjit__median_sorted(s, 4) == 3 &&
	      kjit__median_sorted(s, 5) == 4);
	const double big[] = { DBL_MAX, DBL_MAX };
	CHECK(isinf(kjit__median_sorted(big, 2)));
	OK("median: NAN of none, the middle of an odd count, the mean of the middle two");

	for (int i = 0; i < 200000; i++) {
		double pair[2] = { any_double(), any_double() };
		if (i % 4 == 0) { /* subnormals */
			pair[0] *= 0x1p-1060;
			pair[1] *= 0x1p-1060;
		}
		double a = kjit__median_sorted(pair, 2), b = (pair[0] + pair[1]) / 2;
		CHECK_MSG(memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)),
		          "%a and %a: %a vs %a", pair[0], pair[1], a, b);
	}
	OK("the mean of two: 0.5 * (a + b) and (a + b) / 2 agree bit for bit (200000 pairs)");
	return 0;
}
