/*
 * hybrid.c - one history of every evaluation, shared by four ways of
 * proposing the next configuration, and a bandit that gives each
 * proposal to the way that has lately found good configurations.
 *
 * The model, rebuilt from the history after each result: the good set
 * is the best GAMMA of the epoch's configurations with a time (at least
 * 1, at most GOOD_MAX); per parameter value, the log ratio of its
 * frequency among the good to its frequency among the rest of the epoch,
 * Laplace-smoothed (TPE's density ratio); and, once something failed, a
 * naive Bayes model of failure from per-value counts over the whole
 * history; and pairs(): the epoch's results that differ in one
 * parameter alone, per value its mean log slowdown against the other
 * value of its pairs, PAIR_COST of which (where positive) lowers its
 * ratio, and per parameter the mean log speedup across its range, which
 * joins the trend (below) at PAIR_SLOPE. A configuration's score is the
 * sum of its values' log ratios plus the log of its chance to run.
 *
 * The generators:
 * - local: every configuration that sets one parameter of the epoch's
 *   best to another of its values (a bad middle value does not block the
 *   way), by score with the parameter's adjacent values, and its first
 *   and last where the restrictions allow them, AHEAD ahead, and ALONG
 *   times the parameter's trend (below) over the share of the range the
 *   move covers, so that a far end the trend points away from waits; a change
 *   the restrictions forbid is repaired by one more parameter, the best
 *   scored less REPAIR per value step beyond one (so the step along a
 *   restriction's edge, as twice the unrolling with half the threads per
 *   row, comes before a leap to the far end of another range), else by
 *   the nearest valid configuration that keeps it; it starts again from
 *   each new best, and goes on from the next of the good set once a
 *   neighbourhood is all proposed;
 * - perturb: one of the good set (the best half of the time) with one,
 *   two or three parameters redrawn in proportion to their values'
 *   ratios (repaired as above), the best scored of CANDIDATES draws;
 *   once the best's whole neighbourhood is known this is the kick that
 *   leaves a local minimum;
 * - jump: the best with the parameters of the strongest trends (the
 *   slope of a parameter's log ratios over its values' order, plus its
 *   paired slope; at least TREND across the range) set to the end of the
 *   range the trend points to, the strongest one, two, ... of them
 *   (repaired as above; an end that nothing near has gives way to the
 *   farthest value that something near has, where the repair would
 *   sweep the parameter's values), the best scored: the long step down
 *   a slope that a one-parameter move takes in many results, as many
 *   tuning landscapes have their best at the ends of several ranges;
 * - random: uniform over the unvisited (once failures are modelled, the
 *   likeliest to run of a few draws), the fallback when the others
 *   have nothing.
 * An epoch starts with a few configurations (at most a quarter of the
 * budget), each the farthest from the epoch's proposals of SPREAD random
 * draws: the first START, two basins to compare at least, and few, as
 * each start proposal is one the model does not steer; a later one, in
 * a space that has shown more than one basin, one per free parameter
 * and one more. Then each proposal goes to
 * local, perturb or jump, the one of the highest Thompson draw from a Beta of
 * its recent successes (a result that enters the good set) and failures,
 * both decayed by DECAY per result, so that the bandit follows the
 * landscape as the search moves on. Random proposals are no arm of the
 * bandit: breadth comes from the start, from perturb and from the new
 * epochs below, each at a point where the model has something to say
 * (a random arm between them cost evaluations on large spaces and small
 * ones alike: bench/RESULTS.md). When the epoch's best has not improved for
 * PATIENCE times the size of a one-parameter neighbourhood and the budget
 * has room for two such spells, a new epoch starts: a new random start
 * and a model of its own results (the history and the failure model
 * stay), so that the search leaves a basin it has exhausted. In a batch,
 * the results of what the epoch before proposed and still had out join
 * the history only: they would pull the new epoch's model (and the
 * bandit) back into the basin it leaves.
 *
 * Never proposes a configuration known or outstanding while an unvisited
 * one exists (each generator proposes unvisited ones only, random is the
 * fallback); never waits, so any batch can be outstanding; the results
 * of a batch arrive in any order and each updates the history.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strategies.h"

#define GAMMA 0.15
#define GOOD_MAX 25
#define CANDIDATES 24
#define DECAY 0.97
#define PRIOR 1.0
#define PATIENCE 2.0
#define SPREAD 8
#define START 3     /* configurations that start an epoch */
#define AHEAD 1.0    /* the score bonus of a first, last or adjacent value */
#define REPAIR 0.5   /* a repair's score cost per value step beyond one */
#define ALONG 0.35   /* local: a move's score per unit of its parameter's trend along it */
#define TREND 0.1    /* jump: the least trend across a range */
#define PAIR_COST 0.5  /* a value's score cost per unit of its paired log slowdown */
#define PAIR_SLOPE 4.0 /* the paired slope's weight in a trend */
#define NEAREST_MAX 65536 /* configurations nearest() looks at */
#define DONE 0x80   /* arm_of[]: the configuration's neighbourhood is proposed */
#define STALE 0x40  /* arm_of[]: proposed in an epoch before the current one */
#define PAIRED 0x20 /* arm_of[]: a result of the current epoch, in its pairs */
#define ARM 0x3     /* arm_of[]: the generator */

enum { ARM_LOCAL, ARM_PERTURB, ARM_JUMP, ARM_RANDOM, N_ARMS };

typedef struct state {
	const kjit__space *space;
	size_t n, budget, start, asked;
	kjit__rng rng;
	kjit__told mem;
	size_t *off;                /* per parameter: its first value's slot */
	size_t n_slots;
	int64_t *hist;              /* every known configuration, in report order */
	int64_t *prop;              /* every proposal, in order */
	size_t n_prop, epoch_prop;  /* the epoch's first in prop */
	size_t n_hist, n_finite, n_failed;
	size_t n_stale;             /* the epoch's results of proposals of the one before */
	size_t epoch, epoch_asked;  /* where the epoch began in hist; its proposals */
	size_t stall, patience;     /* results since the epoch's best improved */
	int64_t good[GOOD_MAX];     /* the best first */
	size_t n_good, n_top;       /* the good set; the top list kept */
	int64_t top[GOOD_MAX];
	double *ratio, *fail, fail0; /* per slot: log ratio, log failure odds */
	size_t model_at;            /* n_hist when the model was built */
	int64_t *nb;                /* the best's neighbourhood, in order */
	double *nb_key;
	size_t n_nb, nb_next;
	int64_t nb_of;
	uint8_t *arm_of;            /* per configuration: who proposed it */
	double *pair_sum, *pair_n;  /* per slot: paired log slowdowns against other values */
	double *tilt_sum, *tilt_n;  /* per parameter: paired log speedups across its range */
	double win[N_ARMS], loss[N_ARMS];
	uint16_t *cfg, *try_cfg;    /* scratch */
	size_t *free_p, n_free;     /* the parameters of more than one value */
	uint8_t *changed;           /* per parameter: redrawn by perturb() */
	double *trend;              /* per free parameter: slope() and the paired slope, with the model */
	size_t *by_trend;           /* jump(): the free parameters, strongest first */
} state;

static void destroy(void *st)
{
	state *s = st;
	if (!s)
		return;
	kjit__told_free(&s->mem);
	free(s->off);
	free(s->hist);
	free(s->prop);
	free(s->ratio);
	free(s->fail);
	free(s->nb);
	free(s->nb_key);
	free(s->arm_of);
	free(s->pair_sum);
	free(s->tilt_sum);
	free(s->cfg);
	free(s->try_cfg);
	free(s->free_p);
	free(s->changed);
	free(s->trend);
	free(s->by_trend);
	free(s);
}

/* An epoch's start of want configurations: at most a quarter of the
 * budget, at least one. */
static size_t start_size(const state *s, size_t want)
{
	size_t cap = s->budget / 4;
	return want < cap ? want : cap > 0 ? cap : 1;
}

static void *init(const kjit__space *space, size_t budget, uint64_t seed, const void *opts)
{
	state *s = calloc(1, sizeof *s);
	size_t n = space->n_params;
	if (!s)
		return NULL;
	s->space = space;
	s->n = n;
	s->off = calloc(n + 1, sizeof *s->off);
	for (size_t p = 0; s->off && p < n; p++) {
		s->off[p] = s->n_slots;
		s->n_slots += space->spec->params[p].n_values;
	}
	s->hist = malloc((space->capacity + 1) * sizeof *s->hist);
	s->prop = malloc((space->capacity + 1) * sizeof *s->prop);
	s->ratio = calloc(s->n_slots + 1, sizeof *s->ratio);
	s->fail = calloc(s->n_slots + 1, sizeof *s->fail);
	s->nb = malloc((s->n_slots + 1) * sizeof *s->nb);
	s->nb_key = malloc((s->n_slots + 1) * sizeof *s->nb_key);
	s->arm_of = calloc(space->capacity + 1, 1);
	s->pair_sum = calloc(2 * (s->n_slots + 1), sizeof *s->pair_sum);
	s->tilt_sum = calloc(2 * (n + 1), sizeof *s->tilt_sum);
	s->cfg = calloc(n + 1, sizeof *s->cfg);
	s->try_cfg = calloc(n + 1, sizeof *s->try_cfg);
	s->free_p = calloc(n + 1, sizeof *s->free_p);
	s->changed = calloc(n + 1, 1);
	s->trend = calloc(n + 1, sizeof *s->trend);
	s->by_trend = calloc(n + 1, sizeof *s->by_trend);
	if (!kjit__told_init(&s->mem, space) || !s->off || !s->hist || !s->ratio || !s->fail ||
	    !s->nb || !s->nb_key || !s->arm_of || !s->pair_sum || !s->tilt_sum ||
	    !s->cfg || !s->try_cfg ||
	    !s->free_p || !s->prop || !s->changed || !s->trend || !s->by_trend) {
		destroy(s);
		return NULL;
	}
	s->pair_n = s->pair_sum + s->n_slots + 1;
	s->tilt_n = s->tilt_sum + n + 1;
	kjit__rng_seed(&s->rng, seed);
	s->budget = budget ? budget : space->size;
	for (size_t p = 0; p < n; p++)
		if (space->spec->params[p].n_values > 1)
			s->free_p[s->n_free++] = p;
	s->start = start_size(s, START);
	s->nb_of = -1;
	/* patience: a few times a one-parameter neighbourhood */
	s->patience = (size_t)(PATIENCE * (double)(s->n_slots - n));
	return s;
}

/* ---- the model ------------------------------------------------------- */

static double log_sigmoid(double x)
{
	return x > 0 ? -log1p(exp(-x)) : x - log1p(exp(x));
}

/* The score of cfg: how much it looks like the good set, and its log
 * chance to run. */
static double score(const state *s, const uint16_t *cfg)
{
	double r = 0, f = s->fail0;
	for (size_t p = 0; p < s->n; p++) {
		r += s->ratio[s->off[p] + cfg[p]];
		f += s->fail[s->off[p] + cfg[p]];
	}
	return s->n_failed ? r + log_sigmoid(-f) : r;
}

/* Counts per slot of the epoch's good set (good[]) and rest (rest[]),
 * and of the whole history's failed (failed[]) and ran (ran[]). */
static void count(const state *s, double *good, double *rest, double *failed, double *ran)
{
	double cut = s->n_good ? s->mem.value[s->good[s->n_good - 1]] : -INFINITY;
	for (size_t i = 0; i < s->n_hist; i++) {
		int64_t j = s->hist[i];
		double v = s->mem.value[j];
		const uint16_t *c = kjit__space_config(s->space, (size_t)j);
		for (size_t p = 0; p < s->n; p++) {
			size_t k = s->off[p] + c[p];
			if (isinf(v))
				failed[k]++;
			else
				ran[k]++;
			if (i < s->epoch || (s->arm_of[j] & STALE))
				continue;
			if (v <= cut)
				good[k]++;
			else
				rest[k]++;
		}
	}
}

/* The slope of parameter p's log ratios over its values' order, times
 * the range's length: what going from its first value to its last
 * gains in the model. */
static double slope(const state *s, size_t p)
{
	double nv = (double)s->space->spec->params[p].n_values, mid = (nv - 1) / 2, num = 0, den = 0;
	for (size_t v = 0; v < (size_t)nv; v++) {
		num += s->ratio[s->off[p] + v] * ((double)v - mid);
		den += ((double)v - mid) * ((double)v - mid);
	}
	return num / den * (nv - 1);
}

/* Adds the pairs that the epoch's result j makes with the epoch's
 * results that differ from it in one parameter: per value, how much
 * slower (in log time) it ran than the other value of each pair, and
 * per parameter, the log speedup per value step across its range. A
 * pair compares like with like, where the ratios count how often a
 * value was among the rest, which tells more of where the search went
 * (the neighbours of the best share its values) than of how bad the
 * value is: a value ten times slower than its neighbour counts barely
 * more there than one a little slower. Log times need objectives above
 * 0 (times, energies): report() pairs no other. */
static void pairs(state *s, int64_t j)
{
	memcpy(s->cfg, kjit__space_config(s->space, (size_t)j), s->n * sizeof *s->cfg);
	double y = log(s->mem.value[j]);
	for (size_t i = 0; i < s->n_free; i++) {
		size_t p = s->free_p[i], nv = s->space->spec->params[p].n_values;
		uint16_t at = s->cfg[p];
		for (size_t v = 0; v < nv; v++) {
			s->cfg[p] = (uint16_t)v;
			int64_t k = v == at ? -1 : kjit__space_find(s->space, s->cfg);
			if (k < 0 || !(s->arm_of[k] & PAIRED))
				continue;
			double dy = y - log(s->mem.value[k]);
			s->pair_sum[s->off[p] + at] += dy;
			s->pair_sum[s->off[p] + v] -= dy;
			s->pair_n[s->off[p] + at]++;
			s->pair_n[s->off[p] + v]++;
			s->tilt_sum[p] -= dy / ((double)at - (double)v) * (double)(nv - 1);
			s->tilt_n[p]++;
		}
		s->cfg[p] = at;
	}
}

static void model(state *s)
{
	if (s->model_at == s->n_hist)
		return;
	s->model_at = s->n_hist;
	/* at least one, never more than are known */
	size_t want = (size_t)ceil(GAMMA * (double)s->n_finite);
	want = want < 1 ? 1 : want;
	s->n_good = want < s->n_top ? want : s->n_top;
	memcpy(s->good, s->top, s->n_good * sizeof *s->good);
	double *good = calloc(4 * s->n_slots + 1, sizeof *good);
	if (!good)
		return; /* the model of before stays */
	double *rest = good + s->n_slots, *failed = rest + s->n_slots, *ran = failed + s->n_slots;
	count(s, good, rest, failed, ran);
	double n_rest = (double)(s->n_hist - s->epoch - s->n_stale - s->n_good);
	double n_ok = (double)(s->n_hist - s->n_failed);
	for (size_t p = 0; p < s->n; p++) {
		double nv = (double)s->space->spec->params[p].n_values;
		for (size_t v = 0; v < (size_t)nv; v++) {
			size_t k = s->off[p] + v;
			double g = (good[k] + PRIOR) / ((double)s->n_good + PRIOR * nv);
			double r = (rest[k] + PRIOR) / (n_rest + PRIOR * nv);
			s->ratio[k] = log(g / r);
			/* per value: its share among the failed over its share
			 * among the rest */
			s->fail[k] = log((failed[k] + PRIOR) / ((double)s->n_failed + PRIOR * nv)) -
			             log((ran[k] + PRIOR) / (n_ok + PRIOR * nv));
		}
	}
	s->fail0 = log(((double)s->n_failed + PRIOR) / (n_ok + PRIOR));
	for (size_t i = 0; i < s->n_free; i++) {
		size_t p = s->free_p[i];
		s->trend[p] = slope(s, p);
		if (s->tilt_n[p] > 0)
			s->trend[p] += PAIR_SLOPE * s->tilt_sum[p] / s->tilt_n[p];
	}
	/* after the trends: slope() reads the ratios without the paired costs */
	for (size_t k = 0; k < s->n_slots; k++)
		if (s->pair_n[k] > 0 && s->pair_sum[k] > 0)
			s->ratio[k] -= PAIR_COST * s->pair_sum[k] / s->pair_n[k];
	free(good);
}

/* ---- proposals ------------------------------------------------------- */

/* The unvisited configuration of cfg, or -1. */
static int64_t unvisited(const state *s, const uint16_t *cfg)
{
	int64_t j = kjit__space_find(s->space, cfg);
	return j >= 0 && !s->mem.seen[j] ? j : -1;
}

/* A value of parameter p other than skip, drawn in proportion to the
 * values' density ratios. */
static uint16_t draw_value(state *s, size_t p, long skip)
{
	size_t nv = s->space->spec->params[p].n_values, k = s->off[p];
	double sum = 0;
	for (size_t v = 0; v < nv; v++)
		sum += (long)v == skip ? 0 : exp(s->ratio[k + v]);
	double x = kjit__rng_unit(&s->rng) * sum;
	for (size_t v = 0; v < nv; v++) {
		x -= (long)v == skip ? 0 : exp(s->ratio[k + v]);
		if (x < 0 && (long)v != skip)
			return (uint16_t)v;
	}
	return (uint16_t)(skip == (long)nv - 1 ? 0 : nv - 1);
}

/* One of the good set: the best half of the time. */
static const uint16_t *parent(state *s)
{
	size_t i = kjit__rng_unit(&s->rng) < 0.5 ? 0 : (size_t)kjit__rng_below(&s->rng, s->n_good);
	return kjit__space_config(s->space, (size_t)s->good[i]);
}

/* Perturbs one of the good set into try_cfg: one, two or three of its
 * free parameters redrawn (changed[] marks them). */
static void perturb(state *s, uint8_t *changed)
{
	memcpy(s->try_cfg, parent(s), s->n * sizeof *s->try_cfg);
	memset(changed, 0, s->n);
	double u = kjit__rng_unit(&s->rng);
	size_t m = u < 0.5 ? 1 : u < 0.8 ? 2 : 3;
	for (size_t i = 0; i < m; i++) {
		size_t p = s->free_p[kjit__rng_below(&s->rng, s->n_free)];
		s->try_cfg[p] = draw_value(s, p, s->try_cfg[p]);
		changed[p] = 1;
	}
}

/* Keeps *pick the best-scored of the unvisited configurations that keep
 * cfg's changed parameters and differ from it in the fewest others (of
 * NEAREST_MAX from a random start in a larger space). */
static void nearest(state *s, const uint16_t *cfg, const uint8_t *changed, int64_t *pick,
                    double *top)
{
	size_t fewest = s->n + 1, size = s->space->size;
	size_t from = size > NEAREST_MAX ? (size_t)kjit__rng_below(&s->rng, size) : 0;
	int64_t best = -1;
	double best_sc = -INFINITY;
	for (size_t k = 0; k < size && k < NEAREST_MAX; k++) {
		size_t i = (from + k) % size;
		const uint16_t *c = kjit__space_config(s->space, i);
		size_t d = 0;
		for (size_t p = 0; p < s->n && d <= fewest; p++)
			d += c[p] != cfg[p] ? (changed[p] ? s->n + 1 : 1) : 0;
		if (d > fewest || s->mem.seen[i])
			continue;
		double sc = score(s, c);
		if (d < fewest || sc > best_sc) {
			fewest = d;
			best = (int64_t)i;
			best_sc = sc;
		}
	}
	if (best >= 0 && best_sc > *top) {
		*top = best_sc;
		*pick = best;
	}
}

/* Keeps *pick the best-scored unvisited configuration: cfg's when it is
 * one, else, where restrictions tie parameters together, the best of
 * cfg with one more parameter (not a changed one) set to another value,
 * the best scored less REPAIR for each value step beyond one. */
static void consider(state *s, uint16_t *cfg, const uint8_t *changed, int64_t *pick,
                     double *top)
{
	int64_t j = kjit__space_add(s->space, cfg);
	if (j >= 0) {
		double sc;
		if (!s->mem.seen[j] && (sc = score(s, cfg)) > *top) {
			*top = sc;
			*pick = j;
		}
		return;
	}
	int64_t fix = -1;
	double fix_sc = -INFINITY, fix_key = -INFINITY;
	for (size_t i = 0; i < s->n_free; i++) {
		size_t p = s->free_p[i];
		uint16_t keep = cfg[p];
		for (size_t v = 0; !changed[p] && v < s->space->spec->params[p].n_values; v++) {
			cfg[p] = (uint16_t)v;
			long steps = labs((long)v - (long)keep);
			double sc, key;
			if (v != keep && (j = unvisited(s, cfg)) >= 0 &&
			    (key = (sc = score(s, cfg)) - REPAIR * (double)(steps - 1)) > fix_key) {
				fix = j;
				fix_sc = sc;
				fix_key = key;
			}
		}
		cfg[p] = keep;
	}
	if (fix < 0)
		nearest(s, cfg, changed, pick, top);
	else if (fix_sc > *top) {
		*top = fix_sc;
		*pick = fix;
	}
}

/* The best-scored unvisited configuration of CANDIDATES perturbations,
 * -1 when none was. */
static int64_t perturbed(state *s)
{
	int64_t pick = -1;
	double top = -INFINITY;
	for (int c = 0; c < CANDIDATES && s->n_free > 0 && s->n_good > 0; c++) {
		perturb(s, s->changed);
		consider(s, s->try_cfg, s->changed, &pick, &top);
	}
	return pick;
}

/* Lists the best's neighbourhood: one parameter set to another value
 * (with one more changed, or the nearest, where that is not valid), by
 * score, the first, last and adjacent values a little ahead. */
static void neighbourhood(state *s, int64_t at)
{
	const uint16_t *c = kjit__space_config(s->space, (size_t)at);
	s->nb_of = at;
	s->n_nb = s->nb_next = 0;
	memcpy(s->cfg, c, s->n * sizeof *s->cfg);
	for (size_t p = 0; p < s->n; p++) {
		long nv = (long)s->space->spec->params[p].n_values;
		for (long v = 0; v < nv; v++) {
			if (v == c[p])
				continue;
			s->cfg[p] = (uint16_t)v;
			int64_t j = -1;
			double sc = -INFINITY;
			int valid = kjit__space_add(s->space, s->cfg) >= 0;
			memset(s->changed, 0, s->n);
			s->changed[p] = 1;
			consider(s, s->cfg, s->changed, &j, &sc);
			if (j >= 0) {
				int ahead = labs(v - (long)c[p]) == 1 || (valid && (v == 0 || v == nv - 1));
				double along = ((double)v - (double)c[p]) / (double)(nv - 1);
				s->nb[s->n_nb] = j;
				s->nb_key[s->n_nb++] = sc + (ahead ? AHEAD : 0) + ALONG * s->trend[p] * along;
			}
		}
		s->cfg[p] = c[p];
	}
	/* insertion sort, highest key first: a few dozen entries */
	for (size_t i = 1; i < s->n_nb; i++)
		for (size_t k = i; k > 0 && s->nb_key[k] > s->nb_key[k - 1]; k--) {
			double t = s->nb_key[k];
			int64_t tj = s->nb[k];
			s->nb_key[k] = s->nb_key[k - 1];
			s->nb[k] = s->nb[k - 1];
			s->nb_key[k - 1] = t;
			s->nb[k - 1] = tj;
		}
}

/* The next neighbour of the best of the good set whose neighbourhood
 * is not all proposed yet. */
static int64_t local(state *s)
{
	for (size_t i = 0; i < s->n_good; i++) {
		int64_t at = s->good[i];
		if (s->arm_of[at] & DONE)
			continue;
		if (s->nb_of != at)
			neighbourhood(s, at);
		while (s->nb_next < s->n_nb) {
			int64_t j = s->nb[s->nb_next++];
			if (!s->mem.seen[j])
				return j;
		}
		s->arm_of[at] |= DONE;
	}
	return -1;
}

/* A uniform unvisited configuration; once failures are modelled, the
 * likeliest to run of a few. */
static int64_t random_one(state *s)
{
	int64_t pick = -1;
	double top = -INFINITY;
	for (int c = 0; c < (s->n_failed ? 4 : 1); c++) {
		int64_t j = kjit__random_unvisited(s->space->size, s->mem.seen, &s->rng);
		if (j < 0)
			return -1;
		double f = s->fail0;
		const uint16_t *cfg = kjit__space_config(s->space, (size_t)j);
		for (size_t p = 0; p < s->n; p++)
			f += s->fail[s->off[p] + cfg[p]];
		if (-f > top) {
			top = -f;
			pick = j;
		}
	}
	return pick;
}

/* A draw of Beta(a, b) for a, b >= 1: the a-th smallest of a + b - 1
 * uniforms is exact for integers; the decayed counts are rounded. */
static double beta_draw(state *s, double a, double b)
{
	double x = 0, y = 0;
	for (long i = 0; i < lround(a); i++)
		x -= log(1.0 - kjit__rng_unit(&s->rng));
	for (long i = 0; i < lround(b); i++)
		y -= log(1.0 - kjit__rng_unit(&s->rng));
	return x / (x + y);
}

/* Sets parameter p of try_cfg to the value nearest end, from end
 * towards now, that the restrictions allow with the rest; to now when
 * none does. */
static void reach(state *s, size_t p, uint16_t end, uint16_t now)
{
	int step = end > now ? -1 : 1;
	for (long v = end; v != now; v += step) {
		s->try_cfg[p] = (uint16_t)v;
		if (kjit__space_add(s->space, s->try_cfg) >= 0)
			return;
	}
	s->try_cfg[p] = now;
}

/* The best-scored unvisited configuration of the best with the m
 * strongest trends' parameters at their ends, for each m; -1 when there
 * is none. */
static int64_t jump(state *s)
{
	size_t m = 0;
	for (size_t i = 0; i < s->n_free; i++) {
		size_t p = s->free_p[i], k = m;
		if (fabs(s->trend[p]) < TREND)
			continue;
		for (m++; k > 0 && fabs(s->trend[s->by_trend[k - 1]]) < fabs(s->trend[p]); k--)
			s->by_trend[k] = s->by_trend[k - 1];
		s->by_trend[k] = p;
	}
	int64_t pick = -1;
	double top = -INFINITY;
	const uint16_t *best = kjit__space_config(s->space, (size_t)s->good[0]);
	memcpy(s->try_cfg, best, s->n * sizeof *s->try_cfg);
	memset(s->changed, 0, s->n);
	for (size_t k = 0; k < m; k++) {
		size_t p = s->by_trend[k];
		uint16_t end = s->trend[p] > 0 ? (uint16_t)(s->space->spec->params[p].n_values - 1) : 0;
		if (s->try_cfg[p] == end)
			continue;
		s->try_cfg[p] = end;
		s->changed[p] = 1;
		int64_t j = -1;
		double sc = -INFINITY;
		consider(s, s->try_cfg, s->changed, &j, &sc);
		if (j >= 0 && kjit__space_config(s->space, (size_t)j)[p] != end) {
			/* the end goes with nothing near: the farthest value that
			 * does, not a sweep of the parameter's values */
			reach(s, p, end, best[p]);
			s->changed[p] = s->try_cfg[p] != best[p];
			j = -1;
			sc = -INFINITY;
			if (s->changed[p])
				consider(s, s->try_cfg, s->changed, &j, &sc);
		}
		if (j >= 0 && sc > top) {
			top = sc;
			pick = j;
		}
	}
	return pick;
}

static int64_t from(state *s, int arm)
{
	return arm == ARM_LOCAL ? local(s) : arm == ARM_PERTURB ? perturbed(s)
	       : arm == ARM_JUMP ? jump(s) : random_one(s);
}

/* A new epoch when the epoch's best has not improved for `patience`
 * results and the budget has room for another: a new start, and a model
 * of its own results only (the failure model keeps them all), so that
 * the search leaves a basin it has exhausted. */
static void restart(state *s)
{
	size_t left = s->budget > s->n_hist ? s->budget - s->n_hist : 0;
	if (s->stall < s->patience || left < 2 * s->patience)
		return;
	/* what is still out belongs to the epoch before: its results join
	 * the history, not the new epoch's model */
	for (size_t i = s->epoch_prop; i < s->n_prop; i++)
		if (s->mem.seen[s->prop[i]] == KJIT__ASKED)
			s->arm_of[s->prop[i]] |= STALE;
	for (size_t i = s->epoch; i < s->n_hist; i++)
		s->arm_of[s->hist[i]] &= (uint8_t)~PAIRED;
	s->epoch = s->n_hist;
	s->epoch_prop = s->n_prop;
	memset(s->pair_sum, 0, 2 * (s->n_slots + 1) * sizeof *s->pair_sum);
	memset(s->tilt_sum, 0, 2 * (s->n + 1) * sizeof *s->tilt_sum);
	s->n_stale = 0;
	s->epoch_asked = 0;
	s->stall = 0;
	s->start = start_size(s, s->n_free + 1);
	s->n_top = s->n_good = s->n_finite = 0;
	s->model_at = (size_t)-1;
}

/* A start of the epoch: of SPREAD random unvisited configurations, the
 * farthest (in parameters that differ) from the epoch's proposals so
 * far, so that the start, and a batch of proposals made before any
 * result, covers the space. */
static int64_t spread(state *s)
{
	int64_t pick = -1;
	size_t far = 0;
	for (int c = 0; c < SPREAD; c++) {
		int64_t j = kjit__random_unvisited(s->space->size, s->mem.seen, &s->rng);
		if (j < 0)
			return -1;
		const uint16_t *cfg = kjit__space_config(s->space, (size_t)j);
		size_t near = s->n;
		for (size_t i = s->epoch_prop; i < s->n_prop && near > far; i++) {
			const uint16_t *o = kjit__space_config(s->space, (size_t)s->prop[i]);
			size_t d = 0;
			for (size_t p = 0; p < s->n; p++)
				d += cfg[p] != o[p];
			near = d < near ? d : near;
		}
		if (pick < 0 || near > far) {
			far = near;
			pick = j;
		}
	}
	return pick;
}

static int64_t next(void *st)
{
	state *s = st;
	if (s->mem.n_seen + s->asked >= s->space->size)
		return -1;
	model(s);
	int64_t j = -1;
	int arm = ARM_RANDOM;
	restart(s);
	if (s->epoch_asked >= s->start && s->n_good > 0) {
		/* random is the fallback only: its draw is 0 */
		double draw[N_ARMS] = { 0 };
		for (int a = 0; a < ARM_RANDOM; a++)
			draw[a] = beta_draw(s, 1 + s->win[a], 1 + s->loss[a]);
		/* the highest draw first, the others when it has nothing */
		for (int tries = 0; tries < N_ARMS && j < 0; tries++) {
			arm = 0;
			for (int a = 1; a < N_ARMS; a++)
				if (draw[a] > draw[arm])
					arm = a;
			draw[arm] = -1;
			j = from(s, arm);
		}
	}
	if (j < 0) {
		arm = ARM_RANDOM;
		j = spread(s);
		if (j < 0)
			return -1;
	}
	s->prop[s->n_prop++] = j;
	s->arm_of[j] = (uint8_t)(arm | (s->arm_of[j] & DONE));
	s->asked++;
	s->epoch_asked++;
	return kjit__told_ask(&s->mem, j);
}

/* Keeps the best GOOD_MAX known, the best first. */
static void rank(state *s, int64_t j, double v)
{
	size_t i = s->n_top < GOOD_MAX ? s->n_top++ : GOOD_MAX;
	if (i == GOOD_MAX && v >= s->mem.value[s->top[GOOD_MAX - 1]])
		return;
	if (i == GOOD_MAX)
		i--;
	while (i > 0 && s->mem.value[s->top[i - 1]] > v) {
		s->top[i] = s->top[i - 1];
		i--;
	}
	s->top[i] = j;
}

static void report(void *st, size_t index, double objective)
{
	state *s = st;
	int was_asked = s->mem.seen[index] == KJIT__ASKED;
	if (!kjit__told_put(&s->mem, index, objective))
		return;
	s->asked -= was_asked;
	s->hist[s->n_hist++] = (int64_t)index;
	if (s->arm_of[index] & STALE) {
		s->stall++;
		s->n_stale++;
		s->n_failed += !isfinite(objective);
		return;
	}
	/* success: better than the good set's worst (entering it) */
	int arm = s->arm_of[index] & ARM;
	int win = isfinite(objective) &&
	          (s->n_good == 0 || objective < s->mem.value[s->good[s->n_good - 1]]);
	for (int a = 0; a < N_ARMS; a++) {
		s->win[a] *= DECAY;
		s->loss[a] *= DECAY;
	}
	s->win[arm] += win;
	s->loss[arm] += !win;
	s->stall++;
	if (isfinite(objective)) {
		if (objective > 0) {
			pairs(s, (int64_t)index);
			s->arm_of[index] |= PAIRED;
		}
		s->n_finite++;
		if (s->n_top == 0 || objective < s->mem.value[s->top[0]])
			s->stall = 0;
		rank(s, (int64_t)index, objective);
	} else {
		s->n_failed++;
	}
}

const kjit__strategy kjit__strategy_hybrid = {
	"hybrid",
	"local search, perturbation guided by good/bad value ratios, jumps along their trends, "
	"restarts; a bandit between",
	1, init, next, report, destroy, NULL, 0, NULL, NULL,
};
