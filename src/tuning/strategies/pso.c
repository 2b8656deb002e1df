/*
 * pso.c - particle swarm optimisation over value indices, after Kernel
 * Tuner's pso. Each particle has a position (a real coordinate per
 * parameter, in value indices) and a velocity. Each iteration evaluates
 * every particle at the valid configuration nearest its position
 * (kjit__snap()); then its velocity becomes
 * w v + c1 r1 (own best - x) + c2 r2 (swarm's best - x) (w 0.5, c1 3.5,
 * c2 1.0), r1 and r2
 * uniform in [0, 1) per particle and step, and its position x + v, kept
 * within the parameters' ranges. The bests are the configurations
 * evaluated. The swarm, of popsize particles (20; at most half the space,
 * rounded up), starts at distinct random configurations with
 * velocities uniform within half of each range either way. The search
 * ends after maxiter iterations (0: when the budget does).
 *
 * A configuration seen before is answered from memory and never
 * proposed again. An iteration that finds nothing new (the swarm has
 * converged) polishes the swarm's best with a local search (kjit__local),
 * then scatters the particles to random configurations not yet seen,
 * keeping the bests.
 *
 * In a batch: an iteration's particles, each at its configuration (a
 * particle at one outstanding already is scored with it), and the polish's
 * neighbours. next() waits at the end of an iteration until every
 * particle is scored (the swarm moves on all of them), and at the end of
 * the polish until its neighbours are reported.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "strategies.h"

typedef struct opts {
	size_t popsize, maxiter;
	double w, c1, c2;
} opts;

static const opts defaults = { .popsize = 20, .maxiter = 0, .w = 0.5, .c1 = 3.5, .c2 = 1.0 };

static const kjit__strategy_option options[] = {
	{ "popsize", KJIT__OPT_COUNT, offsetof(opts, popsize), 1, 4096, NULL },
	{ "maxiter", KJIT__OPT_COUNT, offsetof(opts, maxiter), 0, 1e9, NULL },
	{ "w", KJIT__OPT_REAL, offsetof(opts, w), -1e3, 1e3, NULL },
	{ "c1", KJIT__OPT_REAL, offsetof(opts, c1), -1e3, 1e3, NULL },
	{ "c2", KJIT__OPT_REAL, offsetof(opts, c2), -1e3, 1e3, NULL },
	{ NULL, 0, 0, 0, 0, NULL },
};

typedef struct state {
	const kjit__space *space;
	kjit__rng rng;
	opts o;
	size_t iteration;      /* of the swarm, from 0 */
	kjit__told mem;
	size_t n, m;           /* parameters, particles */
	double *x, *v, *pb;    /* m x n: positions, velocities, own bests */
	double *pbv, *g, gv;   /* own best values; the swarm's best */
	int64_t gi, polished;  /* the swarm's best configuration; the last polished */
	kjit__local ls;
	int64_t *at;           /* each particle's configuration this iteration */
	size_t k;              /* the next particle of this iteration */
	size_t fresh;          /* configurations proposed this iteration */
	uint8_t *waits;        /* particles whose configuration is outstanding */
	size_t n_waits;
} state;

static void destroy(void *st)
{
	state *s = st;
	if (!s)
		return;
	kjit__told_free(&s->mem);
	free(s->x);
	free(s->v);
	free(s->pb);
	free(s->pbv);
	free(s->g);
	free(s->at);
	free(s->waits);
	kjit__local_free(&s->ls);
	free(s);
}

/* Particle i to a random configuration not yet seen, with a random
 * velocity. taken[] marks the configurations to avoid. */
static void place(state *s, size_t i, const uint8_t *taken)
{
	int64_t j = kjit__random_unvisited(s->space->size, taken, &s->rng);
	if (j < 0)
		j = (int64_t)kjit__rng_below(&s->rng, s->space->size);
	const uint16_t *c = kjit__space_config(s->space, (size_t)j);
	for (size_t p = 0; p < s->n; p++) {
		double range = (double)s->space->spec->params[p].n_values;
		s->x[i * s->n + p] = c[p];
		s->v[i * s->n + p] = (kjit__rng_unit(&s->rng) - 0.5) * range;
	}
	s->at[i] = j;
}

static void *init(const kjit__space *space, size_t budget, uint64_t seed, const void *o)
{
	state *s = calloc(1, sizeof *s);
	size_t n = space->n_params;
	if (!s)
		return NULL;
	s->space = space;
	s->o = o ? *(const opts *)o : defaults;
	s->n = n;
	s->m = space->size / 2 < s->o.popsize ? (space->size + 1) / 2 : s->o.popsize;
	size_t mn = s->m * n + 1;
	s->x = calloc(mn, sizeof *s->x);
	s->v = calloc(mn, sizeof *s->v);
	s->pb = calloc(mn, sizeof *s->pb);
	s->pbv = calloc(s->m + 1, sizeof *s->pbv);
	s->g = calloc(n + 1, sizeof *s->g);
	s->at = calloc(s->m + 1, sizeof *s->at);
	s->waits = calloc(s->m + 1, 1);
	uint8_t *taken = calloc(space->capacity + 1, 1);
	if (!kjit__told_init(&s->mem, space) || !kjit__local_init(&s->ls, space) || !s->x || !s->v ||
	    !s->pb || !s->pbv || !s->g || !s->at || !s->waits || !taken) {
		free(taken);
		destroy(s);
		return NULL;
	}
	kjit__rng_seed(&s->rng, seed);
	s->gv = INFINITY;
	s->gi = s->polished = -1;
	for (size_t i = 0; i < s->m; i++) {
		s->pbv[i] = INFINITY;
		place(s, i, taken);
		taken[s->at[i]] = 1;
	}
	free(taken);
	return s;
}

static void swarm_best(state *s, int64_t j, double val)
{
	const uint16_t *c = kjit__space_config(s->space, (size_t)j);
	s->gv = val;
	s->gi = j;
	for (size_t p = 0; p < s->n; p++)
		s->g[p] = c[p];
}

/* Particle i's configuration j has objective val. */
static void score(state *s, size_t i, int64_t j, double val)
{
	const uint16_t *c = kjit__space_config(s->space, (size_t)j);
	if (val < s->pbv[i]) {
		s->pbv[i] = val;
		for (size_t p = 0; p < s->n; p++)
			s->pb[i * s->n + p] = c[p];
	}
	if (val < s->gv)
		swarm_best(s, j, val);
}

static void move(state *s)
{
	for (size_t i = 0; i < s->m; i++) {
		double r1 = kjit__rng_unit(&s->rng), r2 = kjit__rng_unit(&s->rng);
		double *x = s->x + i * s->n, *v = s->v + i * s->n, *pb = s->pb + i * s->n;
		/* a particle with no best yet (all its configurations failed)
		 * follows the swarm only */
		int own = isfinite(s->pbv[i]), swarm = isfinite(s->gv);
		for (size_t p = 0; p < s->n; p++) {
			double top = (double)s->space->spec->params[p].n_values - 1;
			v[p] = s->o.w * v[p] + (own ? s->o.c1 * r1 * (pb[p] - x[p]) : 0) +
			       (swarm ? s->o.c2 * r2 * (s->g[p] - x[p]) : 0);
			x[p] += v[p];
			x[p] = x[p] < 0 ? 0 : x[p] > top ? top : x[p];
		}
		s->at[i] = kjit__snap(s->space, x);
	}
}

static int64_t next(void *st)
{
	state *s = st;
	while (s->mem.n_seen < s->space->size) {
		for (int64_t j; (j = kjit__local_next(&s->ls)) >= 0;) {
			if (!s->mem.seen[j])
				return kjit__told_ask(&s->mem, j);
			/* one outstanding is taken when it is reported */
			if (s->mem.seen[j] == KJIT__KNOWN)
				kjit__local_take(&s->ls, s->space, j, s->mem.value[j], &s->rng);
		}
		/* the polish's neighbours, or the iteration's particles, are out */
		if (s->ls.active || (s->k == s->m && s->n_waits))
			return KJIT_SEARCH_WAIT;
		if (s->k == s->m && s->fresh == 0 && s->gi >= 0 && s->polished != s->gi) {
			s->polished = s->gi;
			kjit__local_start(&s->ls, s->space, (size_t)s->gi, s->gv, &s->rng);
			continue;
		}
		if (s->k == s->m) {
			if (s->o.maxiter && ++s->iteration >= s->o.maxiter)
				return -1;
			if (s->fresh == 0) {
				for (size_t i = 0; i < s->m; i++)
					place(s, i, s->mem.seen);
			} else {
				move(s);
			}
			s->k = 0;
			s->fresh = 0;
		}
		size_t i = s->k++;
		int64_t j = s->at[i];
		if (s->mem.seen[j] == KJIT__KNOWN) {
			score(s, i, j, s->mem.value[j]);
			continue;
		}
		s->waits[i] = 1;
		s->n_waits++;
		if (!s->mem.seen[j]) {
			s->fresh++;
			return kjit__told_ask(&s->mem, j);
		}
	}
	return -1;
}

static void report(void *st, size_t index, double objective)
{
	state *s = st;
	if (!kjit__told_put(&s->mem, index, objective))
		return;
	if (s->ls.active) {
		kjit__local_take(&s->ls, s->space, (int64_t)index, objective, &s->rng);
		if (objective < s->gv) {
			swarm_best(s, (int64_t)index, objective);
			s->polished = (int64_t)index;
		}
		return;
	}
	for (size_t i = 0; i < s->m; i++)
		if (s->waits[i] && s->at[i] == (int64_t)index) {
			s->waits[i] = 0;
			s->n_waits--;
			score(s, i, (int64_t)index, objective);
		}
}

const kjit__strategy kjit__strategy_pso = {
	"pso", "particle swarm over value indices, snapped to valid configurations", 0, init,
	next, report, destroy, options, sizeof(opts), &defaults, NULL,
};
