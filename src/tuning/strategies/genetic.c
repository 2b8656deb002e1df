/*
 * genetic.c - a generational genetic algorithm: a population of up to
 * popsize (20), two elites kept, parents by tournaments of three,
 * crossover by method (uniform: each parameter from either parent;
 * single_point, two_point: the second parent's values between cut
 * points; disruptive_uniform: half the differing parameters, at least
 * one, from the second parent), a mutation of one parameter in 1 of
 * mutation_chance children (0: of as many as there are parameters, one
 * mutation per child on average). A child outside the space (or seen
 * before) is mutated again, then replaced by a random unseen
 * configuration. The search ends after maxiter generations (0: when the
 * budget does).
 *
 * In a batch: the individuals of a generation, in order; results are
 * matched to individuals by index, and the next generation is bred once
 * every one of this one is reported, so that a seed gives the same
 * generations whatever the batch. next() waits when the whole generation
 * is out.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "strategies.h"

#define ELITE 2

enum { UNIFORM, SINGLE_POINT, TWO_POINT, DISRUPTIVE_UNIFORM };
static const char *const methods[] = { "uniform", "single_point", "two_point",
	                               "disruptive_uniform", NULL };

typedef struct opts {
	size_t popsize, maxiter, mutation_chance;
	int method;
} opts;

static const opts defaults = { .popsize = 20, .method = UNIFORM };

static const kjit__strategy_option options[] = {
	{ "popsize", KJIT__OPT_COUNT, offsetof(opts, popsize), 1, 4096, NULL },
	{ "maxiter", KJIT__OPT_COUNT, offsetof(opts, maxiter), 0, 1e9, NULL },
	{ "mutation_chance", KJIT__OPT_COUNT, offsetof(opts, mutation_chance), 0, 1e9, NULL },
	{ "method", KJIT__OPT_WORD, offsetof(opts, method), 0, 0, methods },
	{ NULL, 0, 0, 0, 0, NULL },
};

typedef struct state {
	const kjit__space *space;
	kjit__rng rng;
	opts o;
	uint8_t *seen;
	size_t n;            /* population size */
	size_t generation;   /* of the population, from 0 */
	int64_t *pop, *next_pop;
	double *fit;
	size_t *order;
	size_t handed;       /* individuals of this generation handed out */
	uint8_t *got;        /* individuals reported */
	size_t n_got;
} state;

static void destroy(void *st)
{
	state *s = st;
	if (!s)
		return;
	free(s->seen);
	free(s->pop);
	free(s->next_pop);
	free(s->fit);
	free(s->order);
	free(s->got);
	free(s);
}

static void *init(const kjit__space *space, size_t budget, uint64_t seed, const void *o)
{
	state *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->o = o ? *(const opts *)o : defaults;
	s->n = space->size < s->o.popsize ? space->size : s->o.popsize;
	s->seen = calloc(space->capacity + 1, 1);
	s->pop = calloc(s->n + 1, sizeof *s->pop);
	s->next_pop = calloc(s->n + 1, sizeof *s->next_pop);
	s->fit = calloc(s->n + 1, sizeof *s->fit);
	s->order = calloc(s->n + 1, sizeof *s->order);
	s->got = calloc(s->n + 1, 1);
	/* generation 0: distinct random configurations */
	uint8_t *taken = calloc(space->capacity + 1, 1);
	if (!s->seen || !s->pop || !s->next_pop || !s->fit || !s->order || !s->got || !taken ||
	    space->n_params > 256) {
		free(taken);
		destroy(s);
		return NULL;
	}
	s->space = space;
	kjit__rng_seed(&s->rng, seed);
	for (size_t i = 0; i < s->n; i++) {
		s->pop[i] = kjit__random_unvisited(space->size, taken, &s->rng);
		taken[s->pop[i]] = 1;
	}
	free(taken);
	return s;
}

static size_t tournament(state *s)
{
	size_t best = (size_t)kjit__rng_below(&s->rng, s->n);
	for (int k = 1; k < 3; k++) {
		size_t j = (size_t)kjit__rng_below(&s->rng, s->n);
		if (s->fit[j] < s->fit[best])
			best = j;
	}
	return best;
}

/* A child of parents a and b into cfg, by the crossover method. */
static void crossover(state *s, const uint16_t *a, const uint16_t *b, uint16_t *cfg)
{
	size_t np = s->space->n_params, lo = 0, hi = np, differ = 0;
	switch (s->o.method) {
	case UNIFORM:
		for (size_t i = 0; i < np; i++)
			cfg[i] = kjit__rng_below(&s->rng, 2) ? a[i] : b[i];
		return;
	case SINGLE_POINT:
		lo = (size_t)kjit__rng_below(&s->rng, np);
		break;
	case TWO_POINT:
		lo = (size_t)kjit__rng_below(&s->rng, np);
		hi = lo + 1 + (size_t)kjit__rng_below(&s->rng, np - lo);
		break;
	case DISRUPTIVE_UNIFORM:
		for (size_t i = 0; i < np; i++)
			differ += a[i] != b[i];
		/* (differ + 1) / 2 of the differing parameters, each set of
		 * them as likely (selection sampling) */
		for (size_t i = 0, want = (differ + 1) / 2; i < np; i++) {
			cfg[i] = a[i];
			if (a[i] != b[i] && kjit__rng_below(&s->rng, differ--) < want) {
				cfg[i] = b[i];
				want--;
			}
		}
		return;
	}
	for (size_t i = 0; i < np; i++)
		cfg[i] = i >= lo && i < hi ? b[i] : a[i];
}

static int64_t child(state *s)
{
	const kjit__space *sp = s->space;
	size_t np = sp->n_params;
	uint16_t cfg[256];
	const uint16_t *a = kjit__space_config(sp, (size_t)s->pop[tournament(s)]);
	const uint16_t *b = kjit__space_config(sp, (size_t)s->pop[tournament(s)]);
	crossover(s, a, b, cfg);
	size_t chance = s->o.mutation_chance ? s->o.mutation_chance : np;
	for (int tries = 0; tries < 8; tries++) {
		if (tries > 0 || kjit__rng_below(&s->rng, chance) == 0) {
			size_t p = (size_t)kjit__rng_below(&s->rng, np);
			cfg[p] = (uint16_t)kjit__rng_below(&s->rng, sp->spec->params[p].n_values);
		}
		int64_t j = kjit__space_add(sp, cfg);
		if (j >= 0 && !s->seen[j])
			return j;
	}
	return kjit__random_unvisited(sp->size, s->seen, &s->rng);
}

static void breed(state *s)
{
	int64_t *next_pop = s->next_pop;
	size_t *order = s->order;
	for (size_t i = 0; i < s->n; i++)
		order[i] = i;
	/* the elites: a partial selection sort on fitness */
	for (size_t e = 0; e < ELITE && e < s->n; e++)
		for (size_t j = e + 1; j < s->n; j++)
			if (s->fit[order[j]] < s->fit[order[e]]) {
				size_t t = order[e];
				order[e] = order[j];
				order[j] = t;
			}
	size_t k = 0;
	for (; k < ELITE && k < s->n; k++)
		next_pop[k] = s->pop[order[k]];
	for (; k < s->n; k++)
		next_pop[k] = child(s);
	double elite_fit[ELITE];
	for (size_t e = 0; e < ELITE && e < s->n; e++)
		elite_fit[e] = s->fit[order[e]];
	s->next_pop = s->pop;
	s->pop = next_pop;
	s->generation++;
	for (size_t e = 0; e < ELITE && e < s->n; e++)
		s->fit[e] = elite_fit[e];
	/* elites are known: the new generation starts after them */
	s->handed = s->n_got = s->n < ELITE ? s->n : ELITE;
	for (size_t i = 0; i < s->n; i++)
		s->got[i] = i < s->handed;
}

static int64_t next(void *st)
{
	state *s = st;
	if (s->n == 0)
		return -1;
	if (s->handed == s->n) {
		if (s->n <= ELITE || (s->o.maxiter && s->generation + 1 >= s->o.maxiter))
			return -1; /* generation 0 was the whole space, or the last */
		if (s->n_got < s->n)
			return KJIT_SEARCH_WAIT;
		breed(s);
	}
	return s->pop[s->handed++];
}

static void report(void *st, size_t index, double objective)
{
	state *s = st;
	s->seen[index] = 1;
	/* the first individual of index not yet reported: a child can equal
	 * another of its generation */
	for (size_t i = 0; i < s->handed; i++)
		if (s->pop[i] == (int64_t)index && !s->got[i]) {
			s->got[i] = 1;
			s->n_got++;
			s->fit[i] = objective;
			return;
		}
}

const kjit__strategy kjit__strategy_genetic = {
	"genetic", "genetic algorithm: tournaments, crossover, mutation", 0, init, next,
	report, destroy, options, sizeof(opts), &defaults, NULL,
};
