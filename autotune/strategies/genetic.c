/*
 * genetic.c - a generational genetic algorithm: a population of up to 20,
 * two elites kept, parents by tournaments of three, uniform crossover,
 * one mutation per child on average. A child outside the space (or seen
 * before) is mutated again, then replaced by a random unseen
 * configuration.
 *
 * In a batch: the individuals of a generation, in order; results are
 * matched to individuals by index, and the next generation is bred once
 * every one of this one is reported, so that a seed gives the same
 * generations whatever the batch. next() waits when the whole generation
 * is out.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strategies.h"

#define POP 20
#define ELITE 2

typedef struct state {
	const kjit__space *space;
	kjit__rng rng;
	uint8_t *seen;
	size_t n;            /* population size */
	int64_t pop[POP];
	double fit[POP];
	size_t handed;       /* individuals of this generation handed out */
	uint8_t got[POP];    /* individuals reported */
	size_t n_got;
} state;

static void *init(const kjit__space *space, size_t budget, uint64_t seed)
{
	state *s = calloc(1, sizeof *s);
	if (!s || !(s->seen = calloc(space->capacity + 1, 1)) || space->n_params > 256) {
		if (s)
			free(s->seen);
		free(s);
		return NULL;
	}
	s->space = space;
	kjit__rng_seed(&s->rng, seed);
	s->n = space->size < POP ? space->size : POP;
	/* generation 0: distinct random configurations */
	uint8_t *taken = calloc(space->capacity + 1, 1);
	if (!taken) {
		free(s->seen);
		free(s);
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++) {
		s->pop[i] = kt_random_unvisited(space->size, taken, &s->rng);
		taken[s->pop[i]] = 1;
	}
	free(taken);
	return s;
}

static size_t tournament(state *s)
{
	size_t best = (size_t)kt_rng_below(&s->rng, s->n);
	for (int k = 1; k < 3; k++) {
		size_t j = (size_t)kt_rng_below(&s->rng, s->n);
		if (s->fit[j] < s->fit[best])
			best = j;
	}
	return best;
}

static int64_t child(state *s)
{
	const kjit__space *sp = s->space;
	size_t np = sp->n_params;
	uint16_t cfg[256];
	const uint16_t *a = kjit__space_config(sp, (size_t)s->pop[tournament(s)]);
	const uint16_t *b = kjit__space_config(sp, (size_t)s->pop[tournament(s)]);
	for (size_t i = 0; i < np; i++)
		cfg[i] = kt_rng_below(&s->rng, 2) ? a[i] : b[i];
	for (int tries = 0; tries < 8; tries++) {
		if (tries > 0 || kt_rng_below(&s->rng, np) == 0) {
			size_t p = (size_t)kt_rng_below(&s->rng, np);
			cfg[p] = (uint16_t)kt_rng_below(&s->rng, sp->spec->params[p].n_values);
		}
		int64_t j = kjit__space_add(sp, cfg);
		if (j >= 0 && !s->seen[j])
			return j;
	}
	return kt_random_unvisited(sp->size, s->seen, &s->rng);
}

static void breed(state *s)
{
	int64_t next_pop[POP];
	size_t order[POP];
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
	memcpy(s->pop, next_pop, s->n * sizeof *next_pop);
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
		if (s->n <= ELITE)
			return -1; /* generation 0 was the whole space */
		if (s->n_got < s->n)
			return KT_NEXT_WAIT;
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

static void destroy(void *st)
{
	state *s = st;
	if (s)
		free(s->seen);
	free(s);
}

const kt_strategy kt_strategy_genetic = {
	"genetic", "genetic algorithm: tournaments, uniform crossover, mutation", 0, init, next,
	report, destroy,
};
