/*
 * annealing.c - simulated annealing over the neighbourhood "one parameter
 * changed". The temperature falls geometrically from T (0.5) to T_min
 * (0.001) over the budget, or by a factor alpha per step when alpha is
 * set (to T_min at the least), held for maxiter (1) evaluations each step;
 * a worse neighbour is taken with probability exp(-relative loss / T).
 * Neighbours
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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "strategies.h"

#define STUCK 24

typedef struct opts {
	double T, T_min, alpha;  /* alpha 0: the factor that reaches T_min at the budget */
	size_t maxiter;
} opts;

static const opts defaults = { .T = 0.5, .T_min = 0.001, .alpha = 0, .maxiter = 1 };

static const kjit__strategy_option options[] = {
	{ "T", KJIT__OPT_REAL, offsetof(opts, T), 1e-12, 1e12, NULL },
	{ "T_min", KJIT__OPT_REAL, offsetof(opts, T_min), 1e-12, 1e12, NULL },
	{ "alpha", KJIT__OPT_REAL, offsetof(opts, alpha), 0, 1, NULL },
	{ "maxiter", KJIT__OPT_COUNT, offsetof(opts, maxiter), 1, 1e9, NULL },
	{ NULL, 0, 0, 0, 0, NULL },
};

typedef struct state {
	const kjit__space *space;
	kjit__rng rng;
	opts o;
	uint8_t *seen;
	size_t budget, step;
	int64_t cur;
	double cur_value;
	double walk_best;   /* best of the current walk */
	size_t since_best;  /* steps since walk_best improved */
} state;

static void *init(const kjit__space *space, size_t budget, uint64_t seed, const void *o)
{
	state *s = calloc(1, sizeof *s);
	if (!s || !(s->seen = calloc(space->capacity + 1, 1))) {
		free(s);
		return NULL;
	}
	s->space = space;
	s->o = o ? *(const opts *)o : defaults;
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
		return kjit__random_unvisited(s->space->size, s->seen, &s->rng);
	for (int tries = 0; tries < 8; tries++) {
		int64_t j = kjit__neighbour(s->space, (size_t)s->cur, &s->rng);
		if (j >= 0 && !s->seen[j])
			return j;
	}
	return kjit__random_unvisited(s->space->size, s->seen, &s->rng);
}

static int64_t next(void *st)
{
	state *s = st;
	int64_t j = candidate(s);
	if (j >= 0)
		s->seen[j] = 1;
	return j;
}

/* The temperature of the current step. */
static double temperature(const state *s)
{
	const opts *o = &s->o;
	size_t held = s->step / o->maxiter;
	if (o->alpha > 0)
		return fmax(o->T * pow(o->alpha, (double)held), o->T_min);
	return o->T * pow(o->T_min / o->T, (double)(held * o->maxiter) / (double)s->budget);
}

static void report(void *st, size_t index, double objective)
{
	state *s = st;
	double t = temperature(s);
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
	if (kjit__rng_unit(&s->rng) < exp(-loss / t)) {
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

/* The temperature falls from T to T_min: the other way it would rise. */
static int check(const void *o, char *why, size_t cap)
{
	const opts *a = o;
	if (a->T_min <= a->T)
		return 1;
	snprintf(why, cap, "T_min (%g) is above T (%g): the temperature falls from T to T_min",
	         a->T_min, a->T);
	return 0;
}

const kjit__strategy kjit__strategy_annealing = {
	"annealing", "simulated annealing over one-parameter moves", 0, init, next, report, destroy,
	options, sizeof(opts), &defaults, check,
};
