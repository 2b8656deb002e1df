/* rng.c - the one random generator of kjit: SplitMix64 outputs by index,
 * and the xoshiro256** stream seeded from them. Deterministic, so that a
 * seed repeats a sample, a search and a fill. */
#include "config.h"

#include <math.h>

#include "base.h"

uint64_t kjit__splitmix(uint64_t start, uint64_t j)
{
	uint64_t z = start + (j + 1) * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void kjit__rng_seed(kjit__rng *r, uint64_t seed)
{
	/* splitmix64 spreads any seed, 0 included, over the state */
	for (int i = 0; i < 4; i++)
		r->s[i] = kjit__splitmix(seed, (uint64_t)i);
}

uint64_t kjit__rng_next(kjit__rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t kjit__rng_below(kjit__rng *r, uint64_t n)
{
	/* rejection keeps it uniform */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
	do
		x = kjit__rng_next(r);
	while (x >= limit);
	return x % n;
}

double kjit__rng_unit(kjit__rng *r)
{
	return (double)(kjit__rng_next(r) >> 11) * 0x1.0p-53;
}

double kjit__rng_normal(kjit__rng *r)
{
	/* Box-Muller; 1 - u keeps the logarithm finite */
	double u = 1.0 - kjit__rng_unit(r), v = kjit__rng_unit(r);
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}
