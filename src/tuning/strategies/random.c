/* random.c - uniform sampling without replacement (a lazy Fisher-Yates
 * shuffle: each step draws one of the configurations not yet drawn).
 * Exhaustive search is the same shuffle run to its end: every
 * configuration once, in an order the seed fixes. Racing stops a
 * configuration that cannot win at its first run but measures every new
 * best in full; in the space's own order neighbours follow each other and
 * the best improves step by step, in a shuffled one new bests are rare,
 * and a run cut short holds a uniform sample. */
#include "config.h"

#include <stdlib.h>

#include "strategies.h"

typedef struct state {
	kjit__rng rng;
	size_t *perm, drawn, size;
} state;

static void *init(const kjit__space *space, size_t budget, uint64_t seed, const void *opts)
{
	state *s = calloc(1, sizeof *s);
	if (!s || !(s->perm = malloc((space->size + 1) * sizeof *s->perm))) {
		free(s);
		return NULL;
	}
	s->size = space->size;
	for (size_t i = 0; i < s->size; i++)
		s->perm[i] = i;
	kjit__rng_seed(&s->rng, seed);
	return s;
}

static int64_t next(void *st)
{
	state *s = st;
	if (s->drawn == s->size)
		return -1;
	size_t j = s->drawn + (size_t)kjit__rng_below(&s->rng, s->size - s->drawn);
	size_t t = s->perm[j];
	s->perm[j] = s->perm[s->drawn];
	s->perm[s->drawn++] = t;
	return (int64_t)t;
}

static void report(void *st, size_t index, double objective)
{
}

static void destroy(void *st)
{
	state *s = st;
	if (s)
		free(s->perm);
	free(s);
}

const kjit__strategy kjit__strategy_random = {
	"random", "uniform sampling without replacement", 1, init, next, report, destroy, NULL, 0, NULL, NULL,
};

const kjit__strategy kjit__strategy_exhaustive = {
	"exhaustive", "every configuration once, in an order shuffled by the seed", 1, init, next,
	report, destroy, NULL, 0, NULL, NULL,
};
