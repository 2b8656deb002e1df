/*
 * annealing.c - simulated annealing over the neighbourhood "one parameter
 * changed". The temperature falls geometrically over the budget; a worse
 * neighbour is taken with probability exp(-relative loss / T). Neighbours
 * already seen are skipped where possible, and a walk with nowhere new to
 * go jumps to a random configuration not yet seen. A walk that has not
 * improved on its own best for STUCK steps restarts from a random
 * configuration: one valley is rarely the best of a large space.
 *
 * In a batch: several distinct neighbours of the current configuration
 * (none proposed before: seen[] is set when proposed), each result a step
 * of the walk as it arrives. It never waits.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "strategies.h"

#define T_START 0.5
#define T_END 0.001
#define STUCK 24

typedef struct state {
	const kjit__space *space;
	kjit__rng rng;
	uint8_t *seen;
	size_t budget, step;
	int64_t cur;
	double cur_value;
	double walk_best;   /* best of the current walk */
	size_t since_best;  /* steps since walk_best improved */
} state;

static void *init(const kjit__space *space, size_t budget, uint64_t seed)
{
	state *s = calloc(1, sizeof *s);
	if (!s || !(s->seen = calloc(space->capacity + 1, 1))) {
		free(s);
		return NULL;
	}
	s->space = space;
	s->budget = budget ? budget : space->size;
	kjit__rng_seed(&s->rng, seed);
	s->cur = -1;
	s->cur_value = s->walk_best = INFINITY;
	return s;
}

/* The next configuration to look at: a new neighbour of the current one,
 * else a random one not yet seen. */
static int64_t candidate(state *s)
{
	if (s->cur < 0)
		return kt_random_unvisited(s->space->size, s->seen, &s->rng);
	for (int tries = 0; tries < 8; tries++) {
		int64_t j = kt_neighbour(s->space, (size_t)s->cur, &s->rng);
		if (j >= 0 && !s->seen[j])
			return j;
	}
	return kt_random_unvisited(s->space->size, s->seen, &s->rng);
}

static int64_t next(void *st)
{
	state *s = st;
	int64_t j = candidate(s);
	if (j >= 0)
		s->seen[j] = 1;
	return j;
}

static void report(void *st, size_t index, double objective)
{
	state *s = st;
	double t = T_START * pow(T_END / T_START, (double)s->step / (double)s->budget);
	s->step++;
	if (objective < s->walk_best) {
		s->walk_best = objective;
		s->since_best = 0;
	} else if (++s->since_best >= STUCK) {
		s->cur = -1; /* next() starts a new walk */
		s->cur_value = s->walk_best = INFINITY;
		s->since_best = 0;
		return;
	}
	if (s->cur < 0 || objective <= s->cur_value || isinf(s->cur_value)) {
		s->cur = (int64_t)index;
		s->cur_value = objective;
		return;
	}
	if (isinf(objective))
		return;
	double loss = (objective - s->cur_value) / fabs(s->cur_value > 0 ? s->cur_value : 1);
	if (kt_rng_unit(&s->rng) < exp(-loss / t)) {
		s->cur = (int64_t)index;
		s->cur_value = objective;
	}
}

static void destroy(void *st)
{
	state *s = st;
	if (s)
		free(s->seen);
	free(s);
}

const kt_strategy kt_strategy_annealing = {
	"annealing", "simulated annealing over one-parameter moves", 0, init, next, report, destroy,
};
