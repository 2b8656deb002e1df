/*
 * surrogate.c - model-based search. The model is additive in log time:
 * each (parameter, value) carries the mean deviation of log(objective)
 * from the overall mean over the configurations that had it. Each step
 * scores a pool of unseen candidates (random ones and neighbours of the
 * best) by predicted log time minus an exploration bonus for values seen
 * rarely, and evaluates the lowest; one step in ten is random, as are
 * the first num_initial (8). A new best
 * starts a local search from it (kjit__local: the model finds the region,
 * the descent the last few percent), answered from memory where it
 * meets configurations seen before.
 *
 * In a batch: the descent's neighbours while it has some to hand out,
 * then the model's picks, each the best predicted of its own pool of
 * candidates not yet proposed (so the lowest few of what the model says
 * before the batch's results arrive). It never waits: a result that
 * arrives while the descent is on moves it when lower.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "strategies.h"

#define POOL 64

typedef struct opts {
	size_t num_initial;
} opts;

static const opts defaults = { .num_initial = 8 };

static const kjit__strategy_option options[] = {
	{ "num_initial", KJIT__OPT_COUNT, offsetof(opts, num_initial), 0, 1e9, NULL },
	{ NULL, 0, 0, 0, 0, NULL },
};

typedef struct state {
	const kjit__space *space;
	kjit__rng rng;
	opts o;
	kjit__told mem;
	kjit__local ls;
	double *sum;        /* per (parameter, value), at offset[p] + v */
	uint32_t *count;
	size_t *offset;
	double total, worst;
	size_t n_total;
	int64_t best;
	double best_value;
} state;

static void destroy(void *st)
{
	state *s = st;
	if (!s)
		return;
	free(s->offset);
	free(s->sum);
	free(s->count);
	kjit__told_free(&s->mem);
	kjit__local_free(&s->ls);
	free(s);
}

static void *init(const kjit__space *space, size_t budget, uint64_t seed, const void *o)
{
	state *s = calloc(1, sizeof *s);
	size_t nv = 0;
	if (!s)
		return NULL;
	s->o = o ? *(const opts *)o : defaults;
	s->offset = calloc(space->n_params + 1, sizeof *s->offset);
	for (size_t p = 0; s->offset && p < space->n_params; p++) {
		s->offset[p] = nv;
		nv += space->spec->params[p].n_values;
	}
	s->sum = calloc(nv + 1, sizeof *s->sum);
	s->count = calloc(nv + 1, sizeof *s->count);
	if (!kjit__told_init(&s->mem, space) || !kjit__local_init(&s->ls, space) || !s->offset ||
	    !s->sum || !s->count) {
		destroy(s);
		return NULL;
	}
	s->space = space;
	kjit__rng_seed(&s->rng, seed);
	s->best = -1;
	s->best_value = INFINITY;
	s->worst = -INFINITY;
	return s;
}

static double predict(const state *s, size_t index)
{
	const uint16_t *c = kjit__space_config(s->space, index);
	double mean = s->total / (double)s->n_total, score = 0;
	for (size_t p = 0; p < s->space->n_params; p++) {
		size_t k = s->offset[p] + c[p];
		if (s->count[k])
			score += s->sum[k] / s->count[k] - mean;
		score -= 0.05 / sqrt(1.0 + s->count[k]);
	}
	return score;
}

/* j proposed; -1 (every configuration proposed) is done. */
static int64_t ask(state *s, int64_t j)
{
	return j < 0 ? j : kjit__told_ask(&s->mem, j);
}

static int64_t next(void *st)
{
	state *s = st;
	size_t size = s->space->size;
	if (s->mem.n_seen == size)
		return -1;
	for (int64_t j; (j = kjit__local_next(&s->ls)) >= 0;) {
		if (!s->mem.seen[j])
			return kjit__told_ask(&s->mem, j);
		/* one outstanding is taken when it is reported */
		if (s->mem.seen[j] == KJIT__KNOWN)
			kjit__local_take(&s->ls, s->space, j, s->mem.value[j], &s->rng);
	}
	if (s->mem.n_seen < s->o.num_initial || s->n_total == 0 || kjit__rng_below(&s->rng, 10) == 0)
		return ask(s, kjit__random_unvisited(size, s->mem.seen, &s->rng));
	int64_t pick = -1;
	double pick_score = INFINITY;
	for (int i = 0; i < POOL; i++) {
		int64_t j = i < POOL / 4 && s->best >= 0
		                    ? kjit__neighbour(s->space, (size_t)s->best, &s->rng)
		                    : kjit__random_unvisited(size, s->mem.seen, &s->rng);
		if (j < 0 || s->mem.seen[j])
			continue;
		double score = predict(s, (size_t)j);
		if (score < pick_score) {
			pick = j;
			pick_score = score;
		}
	}
	return ask(s, pick >= 0 ? pick : kjit__random_unvisited(size, s->mem.seen, &s->rng));
}

static void report(void *st, size_t index, double objective)
{
	state *s = st;
	if (!kjit__told_put(&s->mem, index, objective))
		return;
	kjit__local_take(&s->ls, s->space, (int64_t)index, objective, &s->rng);
	if (objective < s->best_value) {
		s->best = (int64_t)index;
		s->best_value = objective;
		if (!s->ls.active)
			kjit__local_start(&s->ls, s->space, index, objective, &s->rng);
	}
	/* a failure counts as worse than the worst time seen so far */
	double y;
	if (isfinite(objective) && objective > 0) {
		y = log(objective);
		if (y > s->worst)
			s->worst = y;
	} else if (isfinite(s->worst)) {
		y = s->worst + 1;
	} else {
		return;
	}
	const uint16_t *c = kjit__space_config(s->space, index);
	for (size_t p = 0; p < s->space->n_params; p++) {
		s->sum[s->offset[p] + c[p]] += y;
		s->count[s->offset[p] + c[p]]++;
	}
	s->total += y;
	s->n_total++;
}

const kjit__strategy kjit__strategy_surrogate = {
	"surrogate", "additive model of log time; best predicted of a candidate pool", 0, init,
	next, report, destroy, options, sizeof(opts), &defaults, NULL,
};
