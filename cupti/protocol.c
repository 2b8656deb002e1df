/*
 * protocol.c - the measurement protocol: how many launches to time, and
 * when to stop. Its cost should follow the information a measurement
 * still lacks, not a fixed count: a tight long kernel is known after a
 * handful of samples, a configuration certainly slower than the best
 * needs no precise median, a noisy short kernel needs many samples.
 *
 * 1. Warm-up by time: 2 launches, then more until warmup_ms of wall time
 *    has passed since those 2 (timed by the same timer, in batches sized
 *    from the rate seen, up to 256; durations discarded). Clocks ramp up,
 *    caches and TLBs fill, CUPTI instruments the module. warmed_ms is the
 *    caller's own run of the kernel just before (kjit-tune's checked run,
 *    and the previous variant's timed runs when they ended a moment ago):
 *    it counts against warmup_ms, and when it covers warmup_ms there is no
 *    warm-up at all (the first-launch costs are paid, the clocks are up);
 *    when it covers part, 1 launch replaces the 2. With no_warmup there
 *    is none: the first launch is timed (a checked run's).
 *    Samples the caller timed already (prior_ns: kjit-tune's checked run,
 *    timed so) are the first samples; the stopping rule judges them
 *    before the warm-up, so that racing can end a configuration that
 *    cannot win on its checked run alone, with no launch here.
 * 2. Timed batches (kjit__protocol_batch()): 10 launches, then as many as
 *    there are samples (the count doubles), up to 256 a batch; racing
 *    (early stop on) looks after 1, 2, 4 and 6 samples first, then
 *    doubles. A batch is never more than the count cap allows, nor more
 *    than the time left under the budget (else max_ms) at the rate seen
 *    so far, but at least what 6 samples need; with no warm-up the rate
 *    is unknown and the first batch is 1 launch. After each batch,
 *    kjit__protocol_decide() on every sample so far.
 *
 * The statistic is the median, and its 95% confidence interval is the
 * distribution-free one from order statistics (no normality assumed:
 * kernel times are skewed, with a long right tail of interrupted runs).
 * With the samples sorted x(1) <= ... <= x(n), the interval is
 * [x(j), x(k)] with the 1-based ranks
 *
 *     j = floor(n/2 - 1.96 * sqrt(n) / 2)
 *     k = ceil(1 + n/2 + 1.96 * sqrt(n) / 2)
 *
 * clamped to [1, n]: the normal approximation of the binomial(n, 1/2)
 * count of samples below the median (mean n/2, standard deviation
 * sqrt(n)/2). For n = 10: j = 1, k = 10; n = 11: j = 2, k = 10;
 * n = 100: j = 40, k = 61. A 1e-9 guard keeps ranks that are integers in
 * exact arithmetic (n a perfect square) from moving by one through
 * rounding. The interval [x(1), x(n)] covers the median with probability
 * 1 - 2 / 2^n, which reaches 95% at n = 6: before 6 samples the interval
 * means nothing, so convergence needs n >= max(min_samples, 6).
 *
 * Stopping rule (first that applies, in this order):
 *   converged      n >= max(min_samples, 6) and
 *                  (ci_high - ci_low) / median <= target_rel_ci
 *   stopped early  early stop on (best_ns > 0, early_factor > 0) and one of
 *                  racing: n < 6 and the fastest sample x(1) is above
 *                  ref x (1 + m(n)), ref the larger of best_ns and
 *                  best_hi_ns. The configuration cannot beat the best:
 *                  were its median at or below ref, each sample would lie
 *                  above ref x (1 + m) with some probability q, all n of
 *                  them with q^n; m(n) = max(3%, z(n) x s), s the relative
 *                  per-sample noise of kernels of the best's length
 *                  (best_spread_ns / best_ns; 5% when unknown), z(n) the
 *                  normal quantile that makes q^n = 1%: 2.326, 1.282,
 *                  0.788, 0.478, 0.258 for n = 1..5. So a configuration 3x
 *                  the best stops after its first sample, one within the
 *                  noise goes on, a noisy best widens the margin, and the
 *                  3% floor keeps a rare slow sample (an interrupted run)
 *                  of a tight kernel from ending a winner;
 *                  the factor: n >= max(3, min(min_samples, 6)) and
 *                  ci_low > best_ns * early_factor: the lower bound of the
 *                  median is already worse than the best by the factor
 *                  (at 6 samples ci_low is the minimum, which lies above
 *                  the true median with probability 1/64);
 *                  apart: n >= 6, best_hi_ns > 0 and ci_low > best_hi_ns:
 *                  the two intervals are apart, so this configuration is
 *                  slower than the best whatever more samples would show.
 *                  This is the test that follows the spread: a tight
 *                  kernel 2% slower than the best stops at 6 samples, a
 *                  noisy one only when its interval has shrunk clear of
 *                  the best's. Its error is one-sided: a configuration
 *                  truly faster than the best stops here only when its
 *                  lower bound lies above its true median (below 2.5%
 *                  per look, 1/64 at 6 samples).
 *                  Only what can still win is measured to the interval
 *                  (or the budget), and a tuner takes its best from those
 *                  alone (kjit-tune never from a result stopped early).
 *   budget         budget_ms > 0, elapsed_ms >= budget_ms and n >= 6: the
 *                  time a configuration is worth is spent and the interval
 *                  means something. A long kernel stops here after a
 *                  handful of samples (a 10 ms kernel on a 10 ms budget:
 *                  6), because an interval a few percent wide is already
 *                  far below the differences between configurations worth
 *                  telling apart. A kernel whose times have two modes
 *                  (saxpy of 2^24 floats on the H200, run back to back:
 *                  about 47.8 and 49 us, each about half the launches)
 *                  stops here too: the median lies between the modes, its
 *                  interval spans the gap whatever the count of samples,
 *                  and without a budget it ran to the 10000-sample cap
 *                  (590 ms). The default budget is do_bench's 100 ms of
 *                  repetitions: every kernel whose interval reaches 1%
 *                  within it (the 5 us, 50 us and 1 ms saxpy of
 *                  bench-measure converge in under 60 ms) is unaffected,
 *                  and with it the stability of medians across processes.
 *   count cap      n >= max_samples
 *   time cap       elapsed_ms >= max_ms
 *
 * Spread is 1.4826 x the median absolute deviation (the standard
 * deviation for normal data, robust to outliers).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "instr.h"

#define CI_MIN_SAMPLES 6   /* [x(1), x(n)] covers the median at 95% from here */
#define EARLY_MIN_SAMPLES 3
#define RACE_FLOOR 0.03    /* racing's least margin over the best */
#define RACE_NOISE 0.05    /* the relative noise assumed when none is known */
#define DEFAULT_BUDGET_MS 100 /* do_bench's repetitions */
#define FIRST_BATCH 10
#define MAX_BATCH 256
#define MIN_WARMUP_LAUNCHES 2
#define RANK_EPS 1e-9

void kjit__protocol_defaults(kjit__protocol_opts *opts)
{
	if (!opts)
		return;
	memset(opts, 0, sizeof *opts);
	opts->warmup_ms = 20;
	opts->target_rel_ci = 0.01;
	opts->max_ms = 2000;
	opts->min_samples = 10;
	opts->max_samples = 10000;
	opts->cold_l2 = 0;
	opts->best_ns = 0;
	opts->early_factor = 0;
	opts->best_hi_ns = 0;
	opts->best_spread_ns = 0;
	opts->budget_ms = DEFAULT_BUDGET_MS;
	opts->warmed_ms = 0;
}

const char *kjit__stop_name(kjit__stop stop)
{
	switch (stop) {
	case KJIT__GO_ON: return "go_on";
	case KJIT__STOP_CONVERGED: return "converged";
	case KJIT__STOP_TIME_CAP: return "time_cap";
	case KJIT__STOP_COUNT_CAP: return "count_cap";
	case KJIT__STOP_EARLY: return "stopped_early";
	case KJIT__STOP_BUDGET: return "budget";
	}
	return "unknown";
}

void kjit__median_ci(const double *sorted, size_t n, double *median, double *ci_low,
                     double *ci_high)
{
	if (!sorted || n == 0) {
		if (median)
			*median = NAN;
		if (ci_low)
			*ci_low = NAN;
		if (ci_high)
			*ci_high = NAN;
		return;
	}
	double half = (double)n / 2, w = 1.96 * sqrt((double)n) / 2;
	double j = floor(half - w + RANK_EPS), k = ceil(1 + half + w - RANK_EPS);
	if (j < 1)
		j = 1;
	if (j > (double)n)
		j = (double)n;
	if (k < 1)
		k = 1;
	if (k > (double)n)
		k = (double)n;
	if (median)
		*median = kjit__median_sorted(sorted, n);
	if (ci_low)
		*ci_low = sorted[(size_t)j - 1];
	if (ci_high)
		*ci_high = sorted[(size_t)k - 1];
}

static size_t early_min_samples(const kjit__protocol_opts *o)
{
	size_t m = o->min_samples < CI_MIN_SAMPLES ? o->min_samples : CI_MIN_SAMPLES;
	return m < EARLY_MIN_SAMPLES ? EARLY_MIN_SAMPLES : m;
}

static int early_stop_on(const kjit__protocol_opts *o)
{
	return o->best_ns > 0 && o->early_factor > 0;
}

/* Racing: can n samples (n < 6) whose fastest is lo still belong to a
 * configuration at least as fast as the best? */
static int race_lost(double lo, size_t n, const kjit__protocol_opts *o)
{
	/* Phi^-1(1 - 0.01^(1/n)): n samples all that far above a median, 1% */
	static const double z[CI_MIN_SAMPLES] = { 0, 2.326, 1.282, 0.788, 0.478, 0.258 };
	double ref = o->best_hi_ns > o->best_ns ? o->best_hi_ns : o->best_ns;
	double noise = o->best_spread_ns > 0 ? o->best_spread_ns / o->best_ns : RACE_NOISE;
	double m = z[n] * noise;
	return lo > ref * (1 + (m > RACE_FLOOR ? m : RACE_FLOOR));
}

/* lo: the interval's low end, x(1) below 11 samples */
static int early_stop(double lo, size_t n, const kjit__protocol_opts *o)
{
	if (!early_stop_on(o))
		return 0;
	if (n < CI_MIN_SAMPLES && race_lost(lo, n, o))
		return 1;
	if (n >= early_min_samples(o) && lo > o->best_ns * o->early_factor)
		return 1;
	return n >= CI_MIN_SAMPLES && o->best_hi_ns > 0 && lo > o->best_hi_ns;
}

size_t kjit__protocol_batch(size_t n, const kjit__protocol_opts *opts)
{
	static const size_t race_to[] = { 1, 2, 4, CI_MIN_SAMPLES };
	if (opts && early_stop_on(opts)) {
		for (size_t i = 0; i < sizeof race_to / sizeof *race_to; i++)
			if (n < race_to[i])
				return race_to[i] - n;
	} else if (n < FIRST_BATCH) {
		return FIRST_BATCH - n;
	}
	return n < MAX_BATCH ? n : MAX_BATCH;
}

kjit__stop kjit__protocol_decide(const double *sorted, size_t n, double elapsed_ms,
                                 const kjit__protocol_opts *opts)
{
	kjit__protocol_opts defaults;
	if (!opts) {
		kjit__protocol_defaults(&defaults);
		opts = &defaults;
	}
	if (n > 0 && sorted) {
		double median, lo, hi;
		kjit__median_ci(sorted, n, &median, &lo, &hi);
		size_t min_ci = opts->min_samples > CI_MIN_SAMPLES ? opts->min_samples
		                                                   : CI_MIN_SAMPLES;
		if (n >= min_ci && median > 0 && opts->target_rel_ci > 0 &&
		    (hi - lo) / median <= opts->target_rel_ci)
			return KJIT__STOP_CONVERGED;
		if (early_stop(lo, n, opts))
			return KJIT__STOP_EARLY;
		if (opts->budget_ms > 0 && elapsed_ms >= opts->budget_ms && n >= CI_MIN_SAMPLES)
			return KJIT__STOP_BUDGET;
	}
	if (opts->max_samples > 0 && n >= opts->max_samples)
		return KJIT__STOP_COUNT_CAP;
	if (elapsed_ms >= opts->max_ms)
		return KJIT__STOP_TIME_CAP;
	return KJIT__GO_ON;
}

/* ---- running it --------------------------------------------------------------- */

static double ms_since(uint64_t t0)
{
	return (double)(kjit__now_ns() - t0) * 1e-6;
}

void kjit__measurement_free(kjit__measurement *m)
{
	if (!m)
		return;
	free(m->samples_ns);
	m->samples_ns = NULL;
	m->n = 0;
}

/* Median, CI, spread, extremes of m->samples_ns[0..n) into m, with sorted
 * a sorted copy. */
static kjit_status summarize(kjit__measurement *m, const double *sorted)
{
	size_t n = m->n;
	kjit__median_ci(sorted, n, &m->median_ns, &m->ci_low_ns, &m->ci_high_ns);
	m->min_ns = sorted[0];
	m->max_ns = sorted[n - 1];
	double *dev = malloc(n * sizeof *dev);
	if (!dev)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory for %zu samples", n);
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(sorted[i] - m->median_ns);
	m->spread_ns = 1.4826 * kjit__median(dev, n);
	free(dev);
	return KJIT_OK;
}

/* The warm-up; *per_launch_ms the rate it saw (0: none run, unknown).
 * The first launches carry the one-time costs (CUPTI instrumenting the
 * module, first-touch of the arguments); warmup_ms of wall time is
 * counted after them, less the caller's own runs (warmed_ms), which when
 * they cover it leave nothing to do. */
static kjit_status warm_up(kjit__timer *timer, kjit__launch_fn fn, void *ctx, CUstream stream,
                           const kjit__protocol_opts *o, size_t flush, double *per_launch_ms)
{
	*per_launch_ms = 0;
	if (o->warmed_ms > 0 && o->warmed_ms >= o->warmup_ms)
		return KJIT_OK;
	size_t first = o->warmed_ms > 0 ? 1 : MIN_WARMUP_LAUNCHES;
	double buf[MAX_BATCH];
	uint64_t tw = kjit__now_ns();
	kjit_status st = kjit__timer_run(timer, fn, ctx, stream, first, flush, buf);
	if (st != KJIT_OK)
		return st;
	*per_launch_ms = ms_since(tw) / (double)first;
	tw = kjit__now_ns();
	size_t warm = 0;
	double warm_ms = 0;
	while (warm_ms + o->warmed_ms < o->warmup_ms) {
		double left = (o->warmup_ms - o->warmed_ms - warm_ms) /
		              (*per_launch_ms > 1e-6 ? *per_launch_ms : 1e-6);
		size_t b = left < 1 ? 1 : left > MAX_BATCH ? MAX_BATCH : (size_t)ceil(left);
		if ((st = kjit__timer_run(timer, fn, ctx, stream, b, flush, buf)) != KJIT_OK)
			return st;
		warm += b;
		warm_ms = ms_since(tw);
		*per_launch_ms = warm_ms / (double)warm;
	}
	return KJIT_OK;
}

/* The next batch after n samples: the schedule, within the count cap and
 * the time left (under the budget, else max_ms) at per_launch_ms (0:
 * unknown, 1 launch to learn it), but what 6 samples need at least. */
static size_t next_batch(size_t n, double elapsed, double per_launch_ms,
                         const kjit__protocol_opts *o)
{
	size_t b = kjit__protocol_batch(n, o);
	if (b > o->max_samples - n)
		b = o->max_samples - n;
	if (!(per_launch_ms > 0))
		return 1;
	double rate = per_launch_ms > 1e-6 ? per_launch_ms : 1e-6;
	double fit = (o->max_ms - elapsed) / rate;
	if (o->budget_ms > 0) { /* the budget's share, but 6 samples at least */
		double need = n < CI_MIN_SAMPLES ? (double)(CI_MIN_SAMPLES - n) : 1;
		double within = (o->budget_ms - elapsed) / rate;
		within = within < need ? need : within;
		fit = within < fit ? within : fit;
	}
	if (fit < (double)b)
		b = fit < 1 ? 1 : (size_t)fit;
	return b;
}

/* Grows samples and sorted to hold want. */
static kjit_status reserve(double **samples, double **sorted, size_t *cap, size_t want)
{
	if (want <= *cap)
		return KJIT_OK;
	size_t ncap = *cap;
	while (ncap < want)
		ncap *= 2;
	double *s1 = realloc(*samples, ncap * sizeof *s1);
	if (s1)
		*samples = s1;
	double *s2 = s1 ? realloc(*sorted, ncap * sizeof *s2) : NULL;
	if (s2)
		*sorted = s2;
	if (!s1 || !s2)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory for %zu samples", want);
	*cap = ncap;
	return KJIT_OK;
}

static kjit_status check_opts(const kjit__protocol_opts *o)
{
	if (!(o->warmup_ms >= 0) || !(o->max_ms >= 0) || !(o->target_rel_ci >= 0) ||
	    o->max_samples < 1 || !(o->best_ns >= 0) || !(o->early_factor >= 0) ||
	    !(o->best_hi_ns >= 0) || !(o->best_spread_ns >= 0) || !(o->budget_ms >= 0) ||
	    !(o->warmed_ms >= 0) || (o->n_prior > 0 && !o->prior_ns))
		return kjit__error(KJIT_ERR_INVALID_ARG,
		                   "kjit__protocol_measure: bad options (warm-up %g ms, warmed %g ms, "
		                   "cap %g ms, budget %g ms, target %g, max samples %zu, best %g ns, "
		                   "best high %g ns, best spread %g ns, factor %g)",
		                   o->warmup_ms, o->warmed_ms, o->max_ms, o->budget_ms,
		                   o->target_rel_ci, o->max_samples, o->best_ns, o->best_hi_ns,
		                   o->best_spread_ns, o->early_factor);
	for (size_t i = 0; i < o->n_prior; i++)
		if (!(o->prior_ns[i] >= 0) || isinf(o->prior_ns[i]))
			return kjit__error(KJIT_ERR_INVALID_ARG, "kjit__protocol_measure: prior sample "
			                   "%zu is %g ns", i, o->prior_ns[i]);
	return KJIT_OK;
}

/* The b samples after the first *n join the sorted copy, and the stopping
 * rule judges them all. */
static kjit__stop take(const double *samples, double *sorted, size_t *n, size_t b,
                       double elapsed_ms, const kjit__protocol_opts *o)
{
	memcpy(sorted + *n, samples + *n, b * sizeof *sorted);
	*n += b;
	kjit__sort_doubles(sorted, *n);
	return kjit__protocol_decide(sorted, *n, elapsed_ms, o);
}

kjit_status kjit__protocol_measure(kjit__timer *timer, kjit__launch_fn fn, void *ctx,
                                   CUstream stream, const kjit__protocol_opts *opts,
                                   kjit__measurement *out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit__protocol_measure: out is NULL");
	memset(out, 0, sizeof *out);
	if (!timer || !fn)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit__protocol_measure: NULL argument");
	kjit__protocol_opts o;
	if (opts)
		o = *opts;
	else
		kjit__protocol_defaults(&o);
	kjit_status st = check_opts(&o);
	if (st != KJIT_OK)
		return st;
	if (o.min_samples > o.max_samples)
		o.min_samples = o.max_samples;

	out->timer = kjit__timer_kind_of(timer);
	out->cold_l2 = o.cold_l2 ? 1 : 0;
	out->stop = KJIT__GO_ON;
	uint64_t t0 = kjit__now_ns();
	size_t cap = FIRST_BATCH * 4, n = 0;
	double *samples = malloc(cap * sizeof *samples);
	double *sorted = malloc(cap * sizeof *sorted);
	if (!samples || !sorted) {
		free(samples);
		free(sorted);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory for samples");
	}
	kjit__stop stop = KJIT__GO_ON;
	if (o.n_prior > 0 && (st = reserve(&samples, &sorted, &cap, o.n_prior)) == KJIT_OK) {
		memcpy(samples, o.prior_ns, o.n_prior * sizeof *samples);
		stop = take(samples, sorted, &n, o.n_prior, 0, &o);
	}
	size_t flush = 0;
	double per_launch_ms = 0;
	if (st == KJIT_OK && stop == KJIT__GO_ON && o.cold_l2)
		st = kjit__timer_l2_flush_bytes(timer, &flush);
	if (st == KJIT_OK && stop == KJIT__GO_ON && !o.no_warmup)
		st = warm_up(timer, fn, ctx, stream, &o, flush, &per_launch_ms);

	/* timed batches */
	uint64_t t1 = kjit__now_ns();
	out->warmup_ms = (double)(t1 - t0) * 1e-6;
	double elapsed = 0;
	while (st == KJIT_OK && stop == KJIT__GO_ON) {
		size_t b = next_batch(n, elapsed, per_launch_ms, &o);
		if ((st = reserve(&samples, &sorted, &cap, n + b)) != KJIT_OK)
			break;
		uint64_t tb = kjit__now_ns();
		if ((st = kjit__timer_run(timer, fn, ctx, stream, b, flush, samples + n)) != KJIT_OK)
			break;
		per_launch_ms = ms_since(tb) / (double)b;
		elapsed = ms_since(t1);
		stop = take(samples, sorted, &n, b, elapsed, &o);
	}
	if (st == KJIT_OK) {
		out->n = n;
		out->samples_ns = samples;
		out->stop = stop;
		st = summarize(out, sorted);
	}
	free(sorted);
	if (st != KJIT_OK) {
		free(samples);
		out->samples_ns = NULL;
		out->n = 0;
		return st;
	}
	out->wall_ms = ms_since(t0);
	return KJIT_OK;
}
