/*
 * dual_annealing.c - generalised simulated annealing with local search,
 * after scipy's dual_annealing (Tsallis-Stariolo visiting distribution,
 * Xiang's generalised acceptance), over value indices.
 *
 * Each outer step k makes 2n visits (n parameters): the first n move every
 * parameter at once, the next n one parameter each, by draws of the
 * visiting distribution (qv) at the temperature
 * T(k) = T0 (2^(qv-1) - 1) / ((k + 2)^(qv-1) - 1), in value indices times
 * VISIT times the largest parameter's count of values (scipy's unit box
 * scaled down: its draws stay wider than a space for thousands of steps),
 * wrapped into each parameter's range and snapped to the nearest valid
 * configuration (kjit__snap()). A
 * worse visit is taken with probability
 * (1 - (1 - qa) d / (T / (k + 1)))^(1 / (1 - qa)), d its relative loss. An
 * outer step that found a new best starts a local search from it: first
 * improvement over the adjacent configurations (kjit__adjacent()), in a
 * random order, to a local minimum, which becomes the current state. When
 * T falls below RESTART * T0 the anneal starts again from a random
 * configuration. The outer step advances SPEED times per step taken, so
 * that the temperature falls within budgets of hundreds of evaluations
 * (scipy's unit speed leaves the visits uniform for thousands).
 *
 * A configuration seen before is answered from memory (value[]) and
 * never proposed again; after STUCK answers in a row the state jumps to
 * a random configuration not yet seen.
 *
 * In a batch: several visits from the current state (each keeps its own
 * visited point, which becomes the state if it is accepted when its
 * result arrives), or the descent's neighbours while it has some; while
 * the descent waits for its last neighbours the anneal visits meanwhile,
 * and any result lower than the descent's point moves the descent. A
 * visit that lands on an outstanding configuration counts as a repeat.
 * It never waits (but for more than KJIT_SEARCH_BATCH_MAX outstanding).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strategies.h"

#define QV 2.62
#define QA -5.0
#define T0 5230.0
#define RESTART 2e-5
#define SPEED 8.0
#define TAIL 1e8
#define VISIT 0.001
#define STUCK 100
#define PI 3.14159265358979323846

typedef struct state {
	const kjit__space *space;
	kjit__rng rng;
	kjit__told mem;
	size_t n, scale;
	double factor4, factor6;
	int64_t cur, best;
	double cur_v, best_v;
	double *pos, *cand;   /* the current and the visited point */
	double k;             /* outer step, in units of SPEED */
	size_t inner;         /* visit of the outer step, 0 .. 2n-1 */
	int improved;         /* a new best in this outer step */
	kjit__local ls;          /* a local search from a new best */
	size_t stuck;
	int local;            /* the last candidate() was the descent's */
	/* the proposals outstanding: index, whether the descent's, and the
	 * visited point (KJIT_SEARCH_BATCH_MAX x n) */
	int64_t out[KJIT_SEARCH_BATCH_MAX];
	uint8_t out_local[KJIT_SEARCH_BATCH_MAX];
	double *out_cand;
	size_t n_out;
} state;

static void destroy(void *st)
{
	state *s = st;
	if (!s)
		return;
	kjit__told_free(&s->mem);
	free(s->pos);
	free(s->cand);
	free(s->out_cand);
	kjit__local_free(&s->ls);
	free(s);
}

static void *init(const kjit__space *space, size_t budget, uint64_t seed, const void *opts)
{
	state *s = calloc(1, sizeof *s);
	size_t n = space->n_params;
	if (!s)
		return NULL;
	s->pos = calloc(n + 1, sizeof *s->pos);
	s->cand = calloc(n + 1, sizeof *s->cand);
	s->out_cand = calloc(KJIT_SEARCH_BATCH_MAX * n + 1, sizeof *s->out_cand);
	if (!kjit__told_init(&s->mem, space) || !kjit__local_init(&s->ls, space) || !s->pos ||
	    !s->cand || !s->out_cand || n > 256) {
		destroy(s);
		return NULL;
	}
	s->space = space;
	s->n = n;
	for (size_t p = 0; p < n; p++)
		if (space->spec->params[p].n_values > s->scale)
			s->scale = space->spec->params[p].n_values;
	kjit__rng_seed(&s->rng, seed);
	/* the visiting distribution's constants (scipy's VisitingDistribution) */
	double f2 = exp((4.0 - QV) * log(QV - 1.0));
	double f3 = exp((2.0 - QV) * log(2.0) / (QV - 1.0));
	double f5 = 1.0 / (QV - 1.0) - 0.5;
	s->factor4 = sqrt(PI) * f2 / (f3 * (3.0 - QV));
	s->factor6 = PI * (1.0 - f5) / sin(PI * (1.0 - f5)) / exp(lgamma(2.0 - f5));
	s->cur = s->best = -1;
	s->cur_v = s->best_v = INFINITY;
	return s;
}

static double temperature(const state *s)
{
	double t1 = exp((QV - 1.0) * log(2.0)) - 1.0;
	double t2 = exp((QV - 1.0) * log(s->k + 2.0)) - 1.0;
	return T0 * t1 / t2;
}

/* One draw of the visiting distribution at temperature t. */
static double visit(state *s, double t)
{
	double x = kjit__rng_normal(&s->rng), y = kjit__rng_normal(&s->rng);
	double f4 = s->factor4 * exp(log(t) / (QV - 1.0));
	x *= exp(-(QV - 1.0) * log(s->factor6 / f4) / (3.0 - QV));
	double v = x / exp((QV - 1.0) * log(fabs(y) + 1e-300) / (3.0 - QV));
	if (v > TAIL)
		v = TAIL * kjit__rng_unit(&s->rng);
	else if (v < -TAIL)
		v = -TAIL * kjit__rng_unit(&s->rng);
	return v;
}

static void set_pos(state *s, double *pos, size_t index)
{
	const uint16_t *c = kjit__space_config(s->space, index);
	for (size_t p = 0; p < s->n; p++)
		pos[p] = c[p];
}

/* The next configuration to look at: a neighbour in a local search, else
 * a visit of the anneal (a random one to start or restart). */
static int64_t candidate(state *s)
{
	s->local = 0;
	if (s->ls.active) {
		int64_t j = kjit__local_next(&s->ls);
		if (j >= 0) {
			s->local = 1;
			return j;
		}
		if (!s->ls.active) {
			/* a local minimum: the anneal goes on from it */
			s->improved = 0;
			s->cur = s->ls.at;
			s->cur_v = s->ls.value;
			set_pos(s, s->pos, (size_t)s->cur);
		}
	}
	double t = temperature(s);
	if (s->cur < 0 || t < RESTART * T0) {
		s->k = 0;
		s->inner = 0;
		s->cur = -1;
		return -1;
	}
	memcpy(s->cand, s->pos, s->n * sizeof *s->cand);
	size_t first = s->inner < s->n ? 0 : s->inner - s->n;
	size_t last = s->inner < s->n ? s->n : first + 1;
	for (size_t p = first; p < last; p++) {
		double range = (double)s->space->spec->params[p].n_values;
		double x = fmod(s->cand[p] + visit(s, t) * VISIT * (double)s->scale, range);
		s->cand[p] = x < 0 ? x + range : x;
	}
	return kjit__snap(s->space, s->cand);
}

/* What the objective v of configuration j, the descent's neighbour when
 * local, else a visit (with s->cand its point), means to the search. */
static void take(state *s, int64_t j, double v, int local)
{
	if (v < s->best_v) {
		s->best = j;
		s->best_v = v;
		s->improved = 1;
	}
	kjit__local_take(&s->ls, s->space, j, v, &s->rng);
	if (local)
		return;
	int accept = s->cur < 0 || v < s->cur_v || isinf(s->cur_v);
	if (!accept && isfinite(v)) {
		double d = (v - s->cur_v) / (fabs(s->cur_v) > 0 ? fabs(s->cur_v) : 1.0);
		double r = 1.0 - (1.0 - QA) * d / (temperature(s) / (s->k + 1.0));
		accept = r > 0 && kjit__rng_unit(&s->rng) < exp(log(r) / (1.0 - QA));
	}
	if (accept) {
		if (s->cur < 0)
			set_pos(s, s->cand, (size_t)j);
		s->cur = j;
		s->cur_v = v;
		memcpy(s->pos, s->cand, s->n * sizeof *s->pos);
	}
	if (++s->inner >= 2 * s->n) {
		s->inner = 0;
		s->k += SPEED;
		if (s->improved && s->best >= 0)
			kjit__local_start(&s->ls, s->space, (size_t)s->best, s->best_v, &s->rng);
		s->improved = 0;
	}
}

/* Proposes j, keeping what take() needs of it when its result arrives. */
static int64_t propose(state *s, int64_t j)
{
	s->out[s->n_out] = j;
	s->out_local[s->n_out] = (uint8_t)s->local;
	memcpy(s->out_cand + s->n_out * s->n, s->cand, s->n * sizeof *s->cand);
	s->n_out++;
	return kjit__told_ask(&s->mem, j);
}

static int64_t next(void *st)
{
	state *s = st;
	if (s->n_out == KJIT_SEARCH_BATCH_MAX)
		return KJIT_SEARCH_WAIT;
	while (s->mem.n_seen < s->space->size) {
		int64_t j = candidate(s);
		if (j < 0 || s->stuck >= STUCK) {
			/* a start, a restart, or nowhere new to go */
			j = kjit__random_unvisited(s->space->size, s->mem.seen, &s->rng);
			s->stuck = 0;
			kjit__local_stop(&s->ls);
			s->cur = -1;
			s->local = 0;
			if (j < 0)
				return -1; /* every configuration is proposed */
		}
		if (!s->mem.seen[j])
			return propose(s, j);
		s->stuck++;
		if (s->mem.seen[j] == KJIT__KNOWN)
			take(s, j, s->mem.value[j], s->local);
	}
	return -1;
}

static void report(void *st, size_t index, double objective)
{
	state *s = st;
	if (!kjit__told_put(&s->mem, index, objective))
		return;
	s->stuck = 0;
	int local = 0;
	for (size_t k = 0; k < s->n_out; k++)
		if (s->out[k] == (int64_t)index) {
			local = s->out_local[k];
			memcpy(s->cand, s->out_cand + k * s->n, s->n * sizeof *s->cand);
			s->n_out--;
			s->out[k] = s->out[s->n_out];
			s->out_local[k] = s->out_local[s->n_out];
			memmove(s->out_cand + k * s->n, s->out_cand + s->n_out * s->n,
			        s->n * sizeof *s->cand);
			break;
		}
	take(s, (int64_t)index, objective, local);
}

const kjit__strategy kjit__strategy_dual_annealing = {
	"dual_annealing",
	"generalised simulated annealing (visiting distribution) with local search", 0, init,
	next, report, destroy, NULL, 0, NULL, NULL,
};
