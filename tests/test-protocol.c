/*
 * test-protocol - the measurement protocol on the CPU (cupti/protocol.c,
 * and the CUDA-events path of cupti/timing.c over a fake driver).
 *
 *  - kjit__median_ci(): the order-statistic ranks against hand-computed
 *    ones (n = 1, 5, 6, 10, 11, 100, 2500);
 *  - kjit__protocol_decide() on synthetic sample streams fed in the
 *    protocol's batches: 0.1% normal noise converges at the first batch;
 *    20% lognormal noise hits the time cap (1 ms kernel) or the count cap
 *    (5 us kernel, 3000-sample cap); early stop fires for a stream far
 *    above the best and not for one near it; min_samples is honoured;
 *    the new rules on hand-made sets (the best's interval, the budget);
 *  - the shapes a tuner meets, with a 10 ms budget and without: a tight
 *    long kernel stops after 6 samples (about 150 without), a noisy short
 *    one at the budget, a 50 us kernel of 1.5% still converges to 1%, a
 *    configuration 3% slower than a tightly known best stops at 6 samples
 *    when tight and later when noisy, a faster one never, a bimodal one
 *    at the budget rather than a cap;
 *  - kjit__protocol_measure() end to end on an events timer whose driver
 *    is a fake kjit__cu_api (a virtual GPU clock advanced by each launch):
 *    samples in launch order, median/CI/spread/min/max of a known set,
 *    convergence, count and time caps, early stop, one warm-up launch
 *    after the caller's own runs, the budget, cold L2 (a memset of
 *    2 x the L2 before each launch, outside the timed interval), and
 *    KJIT_TIMER handling (events, a bad value, the CUPTI fallback).
 */
#include "testutil.h"

#include <math.h>

#include "instr.h"

/* ---- a deterministic random stream ------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double rng_uniform(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	uint64_t x = rng_state * 2685821657736338717ull;
	return ((double)(x >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(void)
{
	double u1 = rng_uniform(), u2 = rng_uniform();
	return sqrt(-2 * log(u1)) * cos(2 * 3.14159265358979323846 * u2);
}

typedef enum { GEN_NORMAL, GEN_LOGNORMAL, GEN_LIST, GEN_BIMODAL } gen_kind;

typedef struct gen {
	gen_kind kind;
	double center_ns, rel; /* normal: sd = rel x center; lognormal: sigma = rel;
	                        * bimodal: center and center x (1 + rel) in turn,
	                        * half each, so that the median's interval always
	                        * spans the gap (by a coin it may land in one mode
	                        * and converge by chance) */
	const double *list;    /* GEN_LIST: values in ns, cycled */
	size_t n_list, pos;
} gen;

static double gen_next(gen *g)
{
	switch (g->kind) {
	case GEN_NORMAL: return g->center_ns * (1 + g->rel * rng_normal());
	case GEN_LOGNORMAL: return g->center_ns * exp(g->rel * rng_normal());
	case GEN_LIST: return g->list[g->pos++ % g->n_list];
	case GEN_BIMODAL: return g->center_ns * (g->pos++ % 2 ? 1 + g->rel : 1);
	}
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* ---- median CI ranks --------------------------------------------------------- */

/* 1..n as samples: the CI bounds are the ranks themselves. */
static void check_ranks(size_t n, double want_median, size_t want_j, size_t want_k)
{
	double *v = malloc(n * sizeof *v);
	CHECK(v != NULL);
	for (size_t i = 0; i < n; i++)
		v[i] = (double)(i + 1);
	double med, lo, hi;
	kjit__median_ci(v, n, &med, &lo, &hi);
	CHECK_MSG(med == want_median, "n=%zu: median %g, expected %g", n, med, want_median);
	CHECK_MSG(lo == (double)want_j && hi == (double)want_k,
	          "n=%zu: ranks [%g, %g], expected [%zu, %zu]", n, lo, hi, want_j, want_k);
	free(v);
	OK("median CI n=%zu: median %g, ranks j=%zu k=%zu", n, med, want_j, want_k);
}

static void test_ranks(void)
{
	/* j = floor(n/2 - 0.98 sqrt(n)), k = ceil(1 + n/2 + 0.98 sqrt(n)), in [1, n]
	 *   n=1:    j=floor(-0.48)=-1 -> 1,    k=ceil(2.48)=3 -> 1
	 *   n=5:    j=floor(0.309)=0 -> 1,     k=ceil(5.69)=6 -> 5
	 *   n=6:    j=floor(0.600)=0 -> 1,     k=ceil(6.40)=7 -> 6
	 *   n=10:   j=floor(1.901)=1,          k=ceil(9.099)=10
	 *   n=11:   j=floor(2.250)=2,          k=ceil(9.750)=10
	 *   n=100:  j=floor(50-9.8)=40,        k=ceil(60.8)=61
	 *   n=2500: j=floor(1250-49)=1201,     k=ceil(1251+49)=1300 (exact integers) */
	check_ranks(1, 1, 1, 1);
	check_ranks(5, 3, 1, 5);
	check_ranks(6, 3.5, 1, 6);
	check_ranks(10, 5.5, 1, 10);
	check_ranks(11, 6, 2, 10);
	check_ranks(100, 50.5, 40, 61);
	check_ranks(2500, 1250.5, 1201, 1300);
}

/* ---- the stopping rule on streams --------------------------------------------- */

typedef struct sim {
	kjit__stop stop;
	size_t n;
	double elapsed_ms, median, lo, hi;
} sim;

/* Feeds g to kjit__protocol_decide() in the protocol's batches
 * (kjit__protocol_batch(); with a budget, no more than fit in what is
 * left of it at the last batch's rate, but 6 samples at least), the timed
 * phase's clock advancing by the samples plus overhead_us per launch. */
static sim simulate(gen *g, const kjit__protocol_opts *o, double overhead_us)
{
	size_t cap = 1024, n = 0;
	double *v = malloc(cap * sizeof *v);
	CHECK(v != NULL);
	sim s = { KJIT__GO_ON, 0, 0, 0, 0, 0 };
	double rate_ms = g->center_ns * 1e-6 + overhead_us * 1e-3; /* as the warm-up saw it */
	while (s.stop == KJIT__GO_ON) {
		size_t b = kjit__protocol_batch(n, o);
		b = b < o->max_samples - n ? b : o->max_samples - n;
		if (o->budget_ms > 0) {
			double within = (o->budget_ms - s.elapsed_ms) / rate_ms;
			double need = n < 6 ? (double)(6 - n) : 1;
			if (within < need)
				within = need;
			if (within < (double)b)
				b = (size_t)within;
		}
		double before = s.elapsed_ms;
		if (n + b > cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof *v);
			CHECK(v != NULL);
		}
		for (size_t i = 0; i < b; i++) {
			v[n + i] = gen_next(g);
			s.elapsed_ms += v[n + i] * 1e-6 + overhead_us * 1e-3;
		}
		n += b;
		rate_ms = (s.elapsed_ms - before) / (double)b;
		qsort(v, n, sizeof *v, cmp_d);
		s.stop = kjit__protocol_decide(v, n, s.elapsed_ms, o);
	}
	s.n = n;
	kjit__median_ci(v, n, &s.median, &s.lo, &s.hi);
	free(v);
	return s;
}

static void print_sim(const char *what, const sim *s)
{
	OK("%s: %s after %zu samples, %.1f ms; median %.1f ns, CI [%.1f, %.1f] (%.2f%%)", what,
	   kjit__stop_name(s->stop), s->n, s->elapsed_ms, s->median, s->lo, s->hi,
	   100 * (s->hi - s->lo) / s->median);
}

static void test_decide(void)
{
	kjit__protocol_opts o;
	kjit__protocol_defaults(&o);
	CHECK(o.warmup_ms == 20 && o.target_rel_ci == 0.01 && o.max_ms == 2000);
	CHECK(o.min_samples == 10 && o.max_samples == 10000);
	CHECK(o.cold_l2 == 0 && o.best_ns == 0 && o.early_factor == 0);
	CHECK(o.best_hi_ns == 0 && o.best_spread_ns == 0 && o.budget_ms == 100);
	CHECK(o.warmed_ms == 0);
	OK("defaults: 20 ms warm-up, 1%% CI, 2000 ms cap, 100 ms budget, 10..10000 samples, "
	   "warm L2, no early stop, nothing warmed");
	/* the caps and the plain rule, without the budget (below) */
	o.budget_ms = 0;

	CHECK_STREQ(kjit__stop_name(KJIT__STOP_CONVERGED), "converged");
	CHECK_STREQ(kjit__stop_name(KJIT__STOP_TIME_CAP), "time_cap");
	CHECK_STREQ(kjit__stop_name(KJIT__STOP_COUNT_CAP), "count_cap");
	CHECK_STREQ(kjit__stop_name(KJIT__STOP_EARLY), "stopped_early");
	CHECK_STREQ(kjit__stop_name(KJIT__STOP_BUDGET), "budget");
	CHECK_STREQ(kjit__timer_name(KJIT__TIMER_CUPTI), "cupti");
	CHECK_STREQ(kjit__timer_name(KJIT__TIMER_EVENTS), "events");

	/* tight: 0.1% normal noise around 50 us converges at once */
	gen tight = { GEN_NORMAL, 50000, 0.001, NULL, 0, 0 };
	sim s = simulate(&tight, &o, 5);
	print_sim("0.1% normal, 50 us", &s);
	CHECK(s.stop == KJIT__STOP_CONVERGED);
	CHECK(s.n <= 20);
	CHECK(fabs(s.median - 50000) < 50000 * 0.002);

	/* 20% lognormal, 1 ms kernel: about 2000 samples fit in 2 s, too few */
	gen noisy = { GEN_LOGNORMAL, 1e6, 0.2, NULL, 0, 0 };
	s = simulate(&noisy, &o, 5);
	print_sim("20% lognormal, 1 ms", &s);
	CHECK(s.stop == KJIT__STOP_TIME_CAP);
	CHECK((s.hi - s.lo) / s.median > 0.01);

	/* 20% lognormal, 5 us kernel, 3000-sample cap */
	kjit__protocol_opts oc = o;
	oc.max_samples = 3000;
	gen noisy5 = { GEN_LOGNORMAL, 5000, 0.2, NULL, 0, 0 };
	s = simulate(&noisy5, &oc, 5);
	print_sim("20% lognormal, 5 us, cap 3000", &s);
	CHECK(s.stop == KJIT__STOP_COUNT_CAP);
	CHECK(s.n == 3000);

	/* the same noise converges on the default 10000 cap, or hits it:
	 * the CI of the median shrinks as 1/sqrt(n) (about 1% at 10000) */
	gen noisy5b = { GEN_LOGNORMAL, 5000, 0.2, NULL, 0, 0 };
	s = simulate(&noisy5b, &o, 5);
	print_sim("20% lognormal, 5 us, cap 10000", &s);
	CHECK(s.stop == KJIT__STOP_COUNT_CAP || (s.stop == KJIT__STOP_CONVERGED && s.n > 5000));

	/* early stop: best 100 us, factor 1.1; racing ends a clearly slower
	 * one at its first sample, one at the best's level goes on */
	kjit__protocol_opts oe = o;
	oe.best_ns = 100000;
	oe.early_factor = 1.1;
	gen slow = { GEN_NORMAL, 150000, 0.05, NULL, 0, 0 };
	s = simulate(&slow, &oe, 5);
	print_sim("150 us +-5% vs best 100 us x1.1", &s);
	CHECK(s.stop == KJIT__STOP_EARLY);
	CHECK(s.n == 1);
	oe.best_spread_ns = 1000; /* a best known to 1% */
	gen near = { GEN_NORMAL, 99000, 0.01, NULL, 0, 0 };
	s = simulate(&near, &oe, 5);
	print_sim("99 us +-1% vs best 100 us (spread 1%)", &s);
	CHECK(s.stop == KJIT__STOP_CONVERGED);
	gen near2 = { GEN_NORMAL, 108000, 0.01, NULL, 0, 0 };
	s = simulate(&near2, &oe, 5);
	print_sim("108 us +-1% vs best 100 us (spread 1%)", &s);
	CHECK(s.stop == KJIT__STOP_EARLY && s.n == 1);
	/* off when either knob is 0 */
	kjit__protocol_opts oe0 = oe;
	oe0.early_factor = 0;
	gen slow2 = { GEN_NORMAL, 150000, 0.05, NULL, 0, 0 };
	s = simulate(&slow2, &oe0, 5);
	CHECK(s.stop != KJIT__STOP_EARLY);
	OK("early stop off with early_factor 0: %s", kjit__stop_name(s.stop));

	/* the rule itself on tiny hand-made sets */
	double same[12];
	for (int i = 0; i < 12; i++)
		same[i] = 1000;
	CHECK(kjit__protocol_decide(same, 5, 0, &o) == KJIT__GO_ON);      /* < min_samples */
	CHECK(kjit__protocol_decide(same, 10, 0, &o) == KJIT__STOP_CONVERGED);
	kjit__protocol_opts o3 = o;
	o3.min_samples = 3;
	CHECK(kjit__protocol_decide(same, 5, 0, &o3) == KJIT__GO_ON);     /* < 6 for a CI */
	CHECK(kjit__protocol_decide(same, 6, 0, &o3) == KJIT__STOP_CONVERGED);
	CHECK(kjit__protocol_decide(same, 5, 2000, &o) == KJIT__STOP_TIME_CAP);
	CHECK(kjit__protocol_decide(same, 5, 1999.9, &o) == KJIT__GO_ON);
	kjit__protocol_opts o5 = o;
	o5.max_samples = 5;
	CHECK(kjit__protocol_decide(same, 5, 0, &o5) == KJIT__STOP_COUNT_CAP);
	double spread[10] = { 100, 101, 102, 103, 104, 105, 106, 107, 108, 150 };
	CHECK(kjit__protocol_decide(spread, 10, 0, &o) == KJIT__GO_ON); /* 50% wide */
	kjit__protocol_opts oe3 = o3;
	oe3.best_ns = 50;
	oe3.early_factor = 1.5;
	CHECK(kjit__protocol_decide(spread, 1, 0, &oe3) == KJIT__STOP_EARLY); /* racing */
	/* a best so noisy that racing holds back (200%): the factor rule and
	 * the intervals alone */
	oe3.best_spread_ns = 100;
	CHECK(kjit__protocol_decide(spread, 2, 0, &oe3) == KJIT__GO_ON);    /* < 3 */
	CHECK(kjit__protocol_decide(spread, 3, 0, &oe3) == KJIT__STOP_EARLY); /* 100 > 75 */
	oe3.best_ns = 70;
	CHECK(kjit__protocol_decide(spread, 10, 0, &oe3) == KJIT__GO_ON);   /* 100 < 105 */
	/* apart from the best's interval: 6 samples at least, strictly above */
	oe3.best_hi_ns = 99;
	CHECK(kjit__protocol_decide(spread, 5, 0, &oe3) == KJIT__GO_ON);    /* < 6 */
	CHECK(kjit__protocol_decide(spread, 6, 0, &oe3) == KJIT__STOP_EARLY); /* 100 > 99 */
	oe3.best_hi_ns = 100;
	CHECK(kjit__protocol_decide(spread, 10, 0, &oe3) == KJIT__GO_ON);   /* 100 = 100 */
	oe3.early_factor = 0; /* early stop off: the interval test too */
	oe3.best_hi_ns = 50;
	CHECK(kjit__protocol_decide(spread, 10, 0, &oe3) == KJIT__GO_ON);
	/* the budget: spent and 6 samples, after convergence and early stop */
	kjit__protocol_opts ob = o;
	ob.budget_ms = 10;
	CHECK(kjit__protocol_decide(spread, 5, 100, &ob) == KJIT__GO_ON);   /* < 6 */
	CHECK(kjit__protocol_decide(spread, 6, 9.9, &ob) == KJIT__GO_ON);   /* not spent */
	CHECK(kjit__protocol_decide(spread, 6, 10, &ob) == KJIT__STOP_BUDGET);
	CHECK(kjit__protocol_decide(same, 10, 10, &ob) == KJIT__STOP_CONVERGED);
	ob.best_ns = 50;
	ob.early_factor = 1.5;
	CHECK(kjit__protocol_decide(spread, 6, 10, &ob) == KJIT__STOP_EARLY);
	OK("decide: min_samples, the 6-sample CI floor, caps, early stop, the best's interval "
	   "and the budget on hand-made sets");
}

/* Racing: a configuration stops as soon as its samples say it cannot beat
 * the best, against a margin from the best's noise. */
static void test_racing(void)
{
	kjit__protocol_opts o;
	kjit__protocol_defaults(&o);
	o.best_ns = 100;
	o.best_spread_ns = 1; /* 1%: the margin is the 3% floor at 1 sample */
	o.early_factor = 1.5;
	double x300 = 300, x102 = 102.9, x104 = 103.1;
	CHECK(kjit__protocol_decide(&x300, 1, 0, &o) == KJIT__STOP_EARLY);
	CHECK(kjit__protocol_decide(&x102, 1, 0, &o) == KJIT__GO_ON);
	CHECK(kjit__protocol_decide(&x104, 1, 0, &o) == KJIT__STOP_EARLY);
	OK("racing: 3x the best stops after 1 sample; 3%% over a tight best is the floor");

	/* within the noise goes on; a noisy best widens the margin: 2% spread,
	 * 2.326 x 2% = 4.65% at 1 sample; 6%: 13.96% */
	double x103 = 103, x110 = 110;
	o.best_spread_ns = 2;
	CHECK(kjit__protocol_decide(&x103, 1, 0, &o) == KJIT__GO_ON);
	CHECK(kjit__protocol_decide(&x110, 1, 0, &o) == KJIT__STOP_EARLY);
	o.best_spread_ns = 6;
	CHECK(kjit__protocol_decide(&x110, 1, 0, &o) == KJIT__GO_ON);
	double x115 = 115;
	CHECK(kjit__protocol_decide(&x115, 1, 0, &o) == KJIT__STOP_EARLY);
	OK("racing: within the noise goes on, a noisy best (6%%) keeps 110 where a 2%% one "
	   "stops it");

	/* more samples, a smaller margin: at 2 samples 1.282 x 5% = 6.41% */
	double two[2] = { 106, 107 };
	o.best_spread_ns = 0; /* unknown: 5% assumed, 11.6% at 1 sample */
	CHECK(kjit__protocol_decide(&x110, 1, 0, &o) == KJIT__GO_ON);
	CHECK(kjit__protocol_decide(&x115, 1, 0, &o) == KJIT__STOP_EARLY);
	CHECK(kjit__protocol_decide(two, 2, 0, &o) == KJIT__GO_ON);
	o.best_spread_ns = 2; /* 1.282 x 2% = 2.56%: the 3% floor */
	CHECK(kjit__protocol_decide(two, 2, 0, &o) == KJIT__STOP_EARLY);
	OK("racing: the margin shrinks with the samples (5%% noise: 11.6%% at 1, 6.4%% at 2)");

	/* the reference is the best's interval top when known */
	o.best_spread_ns = 0.1;
	o.best_hi_ns = 102;
	double x104b = 104;
	CHECK(kjit__protocol_decide(&x104b, 1, 0, &o) == KJIT__GO_ON); /* 102 x 1.03 */
	o.best_hi_ns = 0;
	CHECK(kjit__protocol_decide(&x104b, 1, 0, &o) == KJIT__STOP_EARLY);

	/* no best, or early stop off: no racing, the full measurement */
	kjit__protocol_opts on = o;
	on.best_ns = 0;
	CHECK(kjit__protocol_decide(&x300, 1, 0, &on) == KJIT__GO_ON);
	on = o;
	on.early_factor = 0;
	CHECK(kjit__protocol_decide(&x300, 1, 0, &on) == KJIT__GO_ON);
	on.best_ns = 0;
	gen g = { GEN_NORMAL, 300000, 0.001, NULL, 0, 0 };
	sim s = simulate(&g, &on, 5);
	print_sim("300 us, no best", &s);
	CHECK(s.stop == KJIT__STOP_CONVERGED && s.n >= 10);
	OK("racing: the best's interval top is the reference; no best, full measurement");

	/* the schedule: racing looks after 1, 2, 4 and 6 samples, then the
	 * count doubles (batches up to 256); without, 10 first */
	static const size_t race[][2] = { { 0, 1 }, { 1, 1 }, { 2, 2 }, { 3, 1 }, { 4, 2 },
		                          { 6, 6 }, { 12, 12 }, { 300, 256 } };
	static const size_t plain[][2] = { { 0, 10 }, { 1, 9 }, { 10, 10 }, { 40, 40 },
		                           { 1000, 256 } };
	for (size_t i = 0; i < sizeof race / sizeof *race; i++)
		CHECK_MSG(kjit__protocol_batch(race[i][0], &o) == race[i][1], "racing after %zu: %zu",
		          race[i][0], kjit__protocol_batch(race[i][0], &o));
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		CHECK_MSG(kjit__protocol_batch(plain[i][0], &on) == plain[i][1],
		          "plain after %zu: %zu", plain[i][0], kjit__protocol_batch(plain[i][0], &on));
	OK("batches: racing 1, 1, 2, 2, then doubling; plain 10, then doubling; 256 at most");

	/* a tuner's stream: 20 configurations 1.2-3x the best stop at 1-2
	 * samples; 20 within 1% of a best known to 1% are measured on */
	size_t short_n = 0;
	for (int k = 0; k < 20; k++) {
		gen slow = { GEN_NORMAL, 100000 * (1.2 + 0.09 * k), 0.02, NULL, 0, 0 };
		kjit__protocol_opts ot = o;
		ot.best_ns = 100000;
		ot.best_hi_ns = 100500;
		ot.best_spread_ns = 1000;
		s = simulate(&slow, &ot, 5);
		CHECK(s.stop == KJIT__STOP_EARLY);
		short_n += s.n;
		gen near = { GEN_NORMAL, 100000 * (0.99 + 0.0005 * k), 0.01, NULL, 0, 0 };
		s = simulate(&near, &ot, 5);
		CHECK_MSG(s.stop != KJIT__STOP_EARLY, "%.0f ns stopped against a best of 100000",
		          near.center_ns);
	}
	CHECK(short_n <= 25);
	OK("20 configurations 1.2-2.9x the best: %zu samples in all; 20 at the best's level: "
	   "none stopped", short_n);
}

/* The shapes of sample streams a tuner meets, under kjit-tune's settings
 * (a 10 ms budget, early stop at 1.5) and without a budget. */
static void test_shapes(void)
{
	kjit__protocol_opts o, ob;
	kjit__protocol_defaults(&o);
	o.budget_ms = 0;
	ob = o;
	ob.budget_ms = 10;

	/* a tight long kernel (the T1 GEMM case: 9.9 ms, 2%): a handful of
	 * samples on the budget, about a second of them without */
	gen gemm = { GEN_NORMAL, 9.9e6, 0.02, NULL, 0, 0 };
	sim s = simulate(&gemm, &ob, 5);
	print_sim("9.9 ms +-2%, 10 ms budget", &s);
	CHECK(s.stop == KJIT__STOP_BUDGET && s.n == 6);
	CHECK(fabs(s.median - 9.9e6) < 9.9e6 * 0.03);
	kjit__protocol_opts obe = ob;
	obe.best_ns = 9.0e6;
	obe.best_hi_ns = 9.1e6;
	obe.early_factor = 1.5;
	gemm.rel = 0.002; /* 9% slower, tight: 2 samples settle it (5% noise assumed) */
	s = simulate(&gemm, &obe, 5);
	print_sim("9.9 ms +-0.2% vs best 9.0 ms (to 9.1), 10 ms budget", &s);
	CHECK(s.stop == KJIT__STOP_EARLY && s.n == 2);
	gemm.rel = 0.02;
	s = simulate(&gemm, &o, 5);
	print_sim("9.9 ms +-2%, no budget", &s);
	CHECK(s.n >= 40 && s.elapsed_ms > 400);

	/* a noisy short kernel: the budget's worth of samples, not 10000 */
	gen noisy = { GEN_LOGNORMAL, 5000, 0.2, NULL, 0, 0 };
	s = simulate(&noisy, &ob, 5);
	print_sim("5 us, 20% lognormal, 10 ms budget", &s);
	CHECK(s.stop == KJIT__STOP_BUDGET);
	CHECK(s.n >= 500 && s.elapsed_ms >= 10 && s.elapsed_ms < 10.5);
	CHECK((s.hi - s.lo) / s.median > 0.01);

	/* a 50 us kernel of 1.5% spread still converges to 1% within the
	 * budget (about 180 samples fit; 2% is on the edge: 0.73% expected) */
	gen mid = { GEN_NORMAL, 50000, 0.015, NULL, 0, 0 };
	s = simulate(&mid, &ob, 5);
	print_sim("50 us +-1.5%, 10 ms budget", &s);
	CHECK(s.stop == KJIT__STOP_CONVERGED);
	CHECK((s.hi - s.lo) / s.median <= 0.01);

	/* clearly slower than the best, judged by the spread seen: 3% above a
	 * best known to 0.5% stops at the first 6 samples when tight, though
	 * far under the 1.5 factor; when noisy (10%) it needs more; a truly
	 * faster configuration never stops early */
	kjit__protocol_opts oe = ob;
	oe.best_ns = 100000;
	oe.best_hi_ns = 100500;
	oe.early_factor = 1.5;
	gen slower = { GEN_NORMAL, 103000, 0.005, NULL, 0, 0 };
	s = simulate(&slower, &oe, 5);
	print_sim("103 us +-0.5% vs best 100 us (to 100.5)", &s);
	CHECK(s.stop == KJIT__STOP_EARLY && s.n == 6);
	gen slower_noisy = { GEN_NORMAL, 103000, 0.10, NULL, 0, 0 };
	s = simulate(&slower_noisy, &oe, 5);
	print_sim("103 us +-10% vs best 100 us (to 100.5)", &s);
	CHECK(s.n > 6);
	kjit__protocol_opts oe_factor = oe;
	oe_factor.best_hi_ns = 0; /* the factor alone: 103 us is not 1.5x */
	slower.pos = 0;
	s = simulate(&slower, &oe_factor, 5);
	print_sim("103 us +-0.5% vs best 100 us, factor only", &s);
	CHECK(s.stop == KJIT__STOP_CONVERGED);
	for (int k = 0; k < 20; k++) {
		gen faster = { GEN_NORMAL, 99000, 0.02, NULL, 0, 0 };
		s = simulate(&faster, &oe, 5);
		CHECK_MSG(s.stop != KJIT__STOP_EARLY, "trial %d: 99 us stopped as slower than 100 us",
		          k);
	}
	OK("99 us +-2%% vs best 100 us: never stopped early in 20 trials");

	/* bimodal (100 and 110 us in turn): the median's interval spans the
	 * gap and never reaches 1%; the budget ends it, not the 2 s cap */
	gen bi = { GEN_BIMODAL, 100000, 0.10, NULL, 0, 0 };
	s = simulate(&bi, &ob, 5);
	print_sim("bimodal 100/110 us, 10 ms budget", &s);
	CHECK(s.stop == KJIT__STOP_BUDGET && s.elapsed_ms < 11);
	CHECK((s.hi - s.lo) / s.median > 0.01);
	s = simulate(&bi, &o, 5);
	print_sim("bimodal 100/110 us, no budget", &s);
	CHECK(s.stop == KJIT__STOP_TIME_CAP || s.stop == KJIT__STOP_COUNT_CAP);

	/* the library's default budget (do_bench's 100 ms) ends it instead,
	 * as it does the 50 us saxpy of bench-measure (47.8 / 49 us); a
	 * kernel that converges is not touched by it */
	kjit__protocol_opts od;
	kjit__protocol_defaults(&od);
	gen bi50 = { GEN_BIMODAL, 47800, 0.025, NULL, 0, 0 };
	s = simulate(&bi50, &od, 5);
	print_sim("bimodal 47.8/49 us, default budget", &s);
	CHECK(s.stop == KJIT__STOP_BUDGET && s.elapsed_ms >= 100 && s.elapsed_ms < 101);
	gen tight50 = { GEN_NORMAL, 50000, 0.02, NULL, 0, 0 };
	s = simulate(&tight50, &od, 5);
	print_sim("50 us +-2%, default budget", &s);
	CHECK(s.stop == KJIT__STOP_CONVERGED);
}

/* ---- a fake driver for the events timer ------------------------------------------ */

struct CUevent_st {
	double t_ns;
};

static double gpu_clock_ns;     /* the fake GPU's time line */
static size_t n_memsets, n_launches, n_events_live, n_host_funcs;
static size_t memset_bytes, l2_bytes = 50u << 20;
static CUdeviceptr scratch_ptr;
static CUhostFn pending_fn;
static void *pending_data;

static CUresult f_ctx_get_current(CUcontext *c)
{
	*c = (CUcontext)(uintptr_t)0x1000;
	return CUDA_SUCCESS;
}

static CUresult f_ctx_set_current(CUcontext c)
{
	return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static CUresult f_ctx_get_device(CUdevice *d)
{
	*d = 0;
	return CUDA_SUCCESS;
}

static CUresult f_device_get_attribute(int *v, CUdevice_attribute a, CUdevice d)
{
	if (a != CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
		return CUDA_ERROR_INVALID_VALUE;
	*v = (int)l2_bytes;
	return CUDA_SUCCESS;
}

static CUresult f_event_create(CUevent *e, unsigned flags)
{
	if (flags != CU_EVENT_DEFAULT)
		return CUDA_ERROR_INVALID_VALUE;
	*e = calloc(1, sizeof **e);
	if (!*e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	n_events_live++;
	return CUDA_SUCCESS;
}

static CUresult f_event_record(CUevent e, CUstream s)
{
	e->t_ns = gpu_clock_ns;
	return CUDA_SUCCESS;
}

static CUresult f_event_elapsed(float *ms, CUevent a, CUevent b)
{
	*ms = (float)((b->t_ns - a->t_ns) * 1e-6);
	return CUDA_SUCCESS;
}

static CUresult f_event_destroy(CUevent e)
{
	free(e);
	n_events_live--;
	return CUDA_SUCCESS;
}

static CUresult f_stream_sync(CUstream s)
{
	if (pending_fn) { /* the gate: it must be open by now */
		CUhostFn fn = pending_fn;
		pending_fn = NULL;
		fn(pending_data);
	}
	return CUDA_SUCCESS;
}

static CUresult f_launch_host_func(CUstream s, CUhostFn fn, void *data)
{
	pending_fn = fn;
	pending_data = data;
	n_host_funcs++;
	return CUDA_SUCCESS;
}

static CUresult f_mem_alloc(CUdeviceptr *p, size_t bytes)
{
	scratch_ptr = 0x7000000;
	*p = scratch_ptr;
	memset_bytes = bytes;
	return CUDA_SUCCESS;
}

static CUresult f_mem_free(CUdeviceptr p)
{
	CHECK(p == scratch_ptr);
	scratch_ptr = 0;
	return CUDA_SUCCESS;
}

static unsigned char last_memset_value;

static CUresult f_memset_async(CUdeviceptr p, unsigned char v, size_t n, CUstream s)
{
	CHECK(p == scratch_ptr && n == memset_bytes);
	CHECK(v != last_memset_value); /* a different value each time */
	last_memset_value = v;
	n_memsets++;
	gpu_clock_ns += 1e6; /* 1 ms: must never show in a sample */
	return CUDA_SUCCESS;
}

static kjit__cu_api fake_api(void)
{
	kjit__cu_api a;
	memset(&a, 0, sizeof a);
	a.cuCtxGetCurrent = f_ctx_get_current;
	a.cuCtxSetCurrent = f_ctx_set_current;
	a.cuCtxGetDevice = f_ctx_get_device;
	a.cuDeviceGetAttribute = f_device_get_attribute;
	a.cuEventCreate = f_event_create;
	a.cuEventRecord = f_event_record;
	a.cuEventElapsedTime = f_event_elapsed;
	a.cuEventDestroy = f_event_destroy;
	a.cuStreamSynchronize = f_stream_sync;
	a.cuLaunchHostFunc = f_launch_host_func;
	a.cuMemAlloc = f_mem_alloc;
	a.cuMemFree = f_mem_free;
	a.cuMemsetD8Async = f_memset_async;
	a.driver_version = 13000;
	return a;
}

/* The launch: the fake GPU runs for the stream's next duration. Every
 * duration is logged so that the samples can be checked against it. */
typedef struct launch_ctx {
	gen *g;
	double *log;
	size_t n_log, cap_log;
	double sleep_us; /* host time per launch */
	int fail_at;     /* 1-based launch that fails, 0: none */
} launch_ctx;

static CUresult fake_launch(void *arg, CUstream stream)
{
	launch_ctx *c = arg;
	if (c->fail_at && (int)n_launches + 1 == c->fail_at)
		return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
	double d = gen_next(c->g);
	if (c->n_log == c->cap_log) {
		c->cap_log = c->cap_log ? c->cap_log * 2 : 1024;
		c->log = realloc(c->log, c->cap_log * sizeof *c->log);
		CHECK(c->log != NULL);
	}
	c->log[c->n_log++] = d;
	gpu_clock_ns += d;
	n_launches++;
	if (c->sleep_us > 0) {
		struct timespec ts = { 0, (long)(c->sleep_us * 1000) };
		nanosleep(&ts, NULL);
	}
	return CUDA_SUCCESS;
}

static void reset_counters(void)
{
	n_memsets = n_launches = n_host_funcs = 0;
}

/* Runs the protocol on a fresh stream and checks the invariants that hold
 * for every measurement. */
static kjit__measurement measure(kjit__timer *t, gen *g, const kjit__protocol_opts *o,
                                 double sleep_us, const char *what)
{
	launch_ctx c = { g, NULL, 0, 0, sleep_us, 0 };
	reset_counters();
	kjit__measurement m;
	uint64_t t0 = (uint64_t)(tu_now() * 1e9);
	CHECK_OK(kjit__protocol_measure(t, fake_launch, &c, NULL, o, &m));
	double wall = (tu_now() * 1e9 - (double)t0) * 1e-6;
	CHECK(m.n > 0 && m.samples_ns != NULL);
	CHECK(m.n <= o->max_samples);
	CHECK(m.timer == KJIT__TIMER_EVENTS);
	CHECK(m.wall_ms >= 0 && m.wall_ms <= wall + 1);
	/* the warm-up's first launches, none when the caller's runs cover it
	 * or with no warm-up, and none at all when the caller's samples (the
	 * first np) decided */
	size_t np = o->n_prior, timed = m.n - np;
	CHECK(m.n >= np);
	size_t first = o->no_warmup || timed == 0                           ? 0
	               : o->warmed_ms >= o->warmup_ms && o->warmed_ms > 0 ? 0
	               : o->warmed_ms > 0                                  ? 1
	                                                                   : 2;
	CHECK(c.n_log >= timed + first);
	CHECK(timed > 0 || c.n_log == 0);
	CHECK(m.warmup_ms >= 0 && m.warmup_ms <= m.wall_ms);
	/* the samples: the caller's, then the last launches, in launch order
	 * (float ms) */
	for (size_t i = 0; i < m.n; i++) {
		double want = i < np ? o->prior_ns[i] : c.log[c.n_log - timed + (i - np)];
		CHECK_MSG(fabs(m.samples_ns[i] - want) <= want * 1e-6 + 1,
		          "%s: sample %zu is %.3f ns, launch logged %.3f ns", what, i,
		          m.samples_ns[i], want);
	}
	double *s = malloc(m.n * sizeof *s);
	CHECK(s != NULL);
	memcpy(s, m.samples_ns, m.n * sizeof *s);
	qsort(s, m.n, sizeof *s, cmp_d);
	CHECK(m.min_ns == s[0] && m.max_ns == s[m.n - 1]);
	CHECK(m.ci_low_ns <= m.median_ns && m.median_ns <= m.ci_high_ns);
	free(s);
	OK("%s: %s, n=%zu (+%zu warm-up), median %.1f ns, CI [%.1f, %.1f], spread %.1f ns, "
	   "wall %.1f ms",
	   what, kjit__stop_name(m.stop), m.n, c.n_log - timed, m.median_ns, m.ci_low_ns,
	   m.ci_high_ns, m.spread_ns, m.wall_ms);
	free(c.log);
	return m;
}

static void test_fake_measure(void)
{
	kjit__cu_api api = fake_api();
	kjit__timer *t = NULL;

	CHECK(setenv("KJIT_TIMER", "sometimes", 1) == 0);
	CHECK_ST(kjit__timer_open(&api, NULL, &t), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "KJIT_TIMER=sometimes");
	CHECK(t == NULL);
	OK("KJIT_TIMER=sometimes refused: %s", kjit_last_error());

	CHECK(setenv("KJIT_TIMER", "events", 1) == 0);
	CHECK_OK(kjit__timer_open(&api, NULL, &t));
	CHECK(kjit__timer_kind_of(t) == KJIT__TIMER_EVENTS);
	CHECK_CONTAINS(kjit_last_error(), "KJIT_TIMER=events");
	OK("KJIT_TIMER=events: an events timer (%s)", kjit_last_error());

	/* sampled profiling is CUPTI only */
	gen g0 = { GEN_NORMAL, 1000, 0, NULL, 0, 0 };
	launch_ctx c0 = { &g0, NULL, 0, 0, 0, 0 };
	CHECK_ST(kjit__timer_launch_tagged(t, fake_launch, &c0, NULL, 7), KJIT_ERR_NOT_FOUND);
	CHECK(c0.n_log == 0);
	CHECK_OK(kjit__timer_poll(t));
	OK("launch_tagged on an events timer: KJIT_ERR_NOT_FOUND, nothing launched");

	/* kjit__timer_run directly: 150 launches = 3 chunks behind 3 gates */
	gen g1 = { GEN_NORMAL, 20000, 0.01, NULL, 0, 0 };
	launch_ctx c1 = { &g1, NULL, 0, 0, 0, 0 };
	double d[150];
	reset_counters();
	CHECK_OK(kjit__timer_run(t, fake_launch, &c1, NULL, 150, 0, d));
	CHECK(n_launches == 150 && n_host_funcs == 3 && n_memsets == 0);
	for (int i = 0; i < 150; i++)
		CHECK(fabs(d[i] - c1.log[i]) <= c1.log[i] * 1e-6 + 1);
	free(c1.log);
	OK("timer_run: 150 launches in 3 gated chunks, each duration its own launch's");

	/* a failing launch fails the run with KJIT_ERR_LAUNCH and the CUDA name */
	launch_ctx cf = { &g1, NULL, 0, 0, 0, 5 };
	reset_counters();
	CHECK_ST(kjit__timer_run(t, fake_launch, &cf, NULL, 10, 0, d), KJIT_ERR_LAUNCH);
	CHECK_CONTAINS(kjit_last_error(), "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
	CHECK(pending_fn == NULL); /* the gate was opened and ran */
	free(cf.log);
	OK("a failing launch: KJIT_ERR_LAUNCH (%s)", kjit_last_error());

	kjit__protocol_opts o;
	kjit__protocol_defaults(&o);
	o.warmup_ms = 2;

	/* tight noise converges with few samples */
	gen tight = { GEN_NORMAL, 50000, 0.001, NULL, 0, 0 };
	kjit__measurement m = measure(t, &tight, &o, 0, "0.1% normal, 50 us");
	CHECK(m.stop == KJIT__STOP_CONVERGED);
	CHECK(m.n <= 20);
	CHECK(fabs(m.median_ns - 50000) < 100);
	CHECK((m.ci_high_ns - m.ci_low_ns) / m.median_ns <= 0.01);
	CHECK(m.cold_l2 == 0 && n_memsets == 0);
	kjit__measurement_free(&m);
	CHECK(m.samples_ns == NULL);

	/* 20% lognormal: the count cap (launches are free here) */
	kjit__protocol_opts oc = o;
	oc.max_samples = 3000;
	gen noisy = { GEN_LOGNORMAL, 50000, 0.2, NULL, 0, 0 };
	m = measure(t, &noisy, &oc, 0, "20% lognormal, cap 3000");
	CHECK(m.stop == KJIT__STOP_COUNT_CAP);
	CHECK(m.n == 3000);
	CHECK((m.ci_high_ns - m.ci_low_ns) / m.median_ns > 0.01);
	kjit__measurement_free(&m);

	/* ... and the time cap when launches take host time */
	kjit__protocol_opts ot = o;
	ot.max_ms = 30;
	gen noisy2 = { GEN_LOGNORMAL, 50000, 0.2, NULL, 0, 0 };
	double t0 = tu_now();
	m = measure(t, &noisy2, &ot, 100, "20% lognormal, 100 us host per launch, 30 ms cap");
	double wall = (tu_now() - t0) * 1e3;
	CHECK(m.stop == KJIT__STOP_TIME_CAP);
	CHECK(wall < 30 + 2 + 200); /* cap, warm-up, one batch of slack */
	kjit__measurement_free(&m);

	/* a known set: median, CI, spread (1.4826 x MAD), min, max */
	static const double known[] = { 0, 0, /* warm-up */
		                        100000, 10000, 11000, 12000, 13000,
		                        14000, 15000, 16000, 17000, 18000 };
	gen kg = { GEN_LIST, 0, 0, known, sizeof known / sizeof known[0], 0 };
	kjit__protocol_opts ok = o;
	ok.warmup_ms = 0;
	ok.min_samples = ok.max_samples = 10;
	m = measure(t, &kg, &ok, 0, "known set");
	CHECK(m.n == 10 && m.stop == KJIT__STOP_COUNT_CAP);
	CHECK(fabs(m.samples_ns[0] - 100000) < 1 && fabs(m.samples_ns[1] - 10000) < 1);
	CHECK(fabs(m.median_ns - 14500) < 0.1);
	CHECK(fabs(m.min_ns - 10000) < 0.1 && fabs(m.max_ns - 100000) < 0.1);
	CHECK(fabs(m.ci_low_ns - 10000) < 0.1 && fabs(m.ci_high_ns - 100000) < 0.1);
	/* |x - 14500|: 85500 4500 3500 2500 1500 500 500 1500 2500 3500 -> MAD 2500 */
	CHECK_MSG(fabs(m.spread_ns - 1.4826 * 2500) < 0.1, "spread %.3f", m.spread_ns);
	kjit__measurement_free(&m);
	OK("known set: median 14500, CI [10000, 100000], spread 1.4826 x 2500 = %.1f",
	   1.4826 * 2500);

	/* early stop through the whole protocol */
	kjit__protocol_opts oe = o;
	oe.best_ns = 100000;
	oe.early_factor = 1.1;
	gen slow = { GEN_NORMAL, 150000, 0.05, NULL, 0, 0 };
	m = measure(t, &slow, &oe, 0, "150 us vs best 100 us x1.1");
	CHECK(m.stop == KJIT__STOP_EARLY && m.n == 1);
	kjit__measurement_free(&m);

	/* warmed by the caller for the whole warm-up: no warm-up launch, the
	 * first launch is a sample */
	kjit__protocol_opts ow = o;
	ow.warmed_ms = ow.warmup_ms;
	gen wg = { GEN_NORMAL, 50000, 0.001, NULL, 0, 0 };
	m = measure(t, &wg, &ow, 0, "warmed by the caller");
	CHECK_MSG(n_launches == m.n, "%zu launches for %zu samples", n_launches, m.n);
	kjit__measurement_free(&m);
	/* ... and racing after it: a 3x slower configuration costs 1 launch */
	ow.best_ns = 50000 / 3.0;
	ow.early_factor = 1.5;
	m = measure(t, &wg, &ow, 0, "warmed, 3x the best");
	CHECK(m.stop == KJIT__STOP_EARLY && m.n == 1 && n_launches == 1);
	kjit__measurement_free(&m);
	/* warmed for part of it: 1 launch, not 2, then the rest by time */
	ow = o;
	ow.warmed_ms = ow.warmup_ms / 2;
	m = measure(t, &wg, &ow, 0, "warmed for half");
	CHECK(n_launches >= m.n + 1);
	kjit__measurement_free(&m);

	/* a checked run: no warm-up, one launch, timed */
	kjit__protocol_opts ock = o;
	ock.no_warmup = 1;
	ock.min_samples = ock.max_samples = 1;
	m = measure(t, &wg, &ock, 0, "a checked run");
	CHECK(m.n == 1 && n_launches == 1 && m.stop == KJIT__STOP_COUNT_CAP);
	double checked_ns = m.samples_ns[0];
	kjit__measurement_free(&m);
	/* its sample given to the race: 3x the best, it stops on it with no
	 * launch at all */
	kjit__protocol_opts op = o;
	op.warmed_ms = op.warmup_ms;
	op.best_ns = checked_ns / 3;
	op.early_factor = 1.5;
	op.prior_ns = &checked_ns;
	op.n_prior = 1;
	m = measure(t, &wg, &op, 0, "the checked run's sample, 3x the best");
	CHECK(m.stop == KJIT__STOP_EARLY && m.n == 1 && n_launches == 0);
	CHECK(m.median_ns == checked_ns);
	kjit__measurement_free(&m);
	/* as fast as the best: it is the first sample, and the race goes on
	 * (racing looks at 2 samples next: 1 launch more) */
	op.best_ns = checked_ns;
	op.best_spread_ns = checked_ns * 0.001;
	m = measure(t, &wg, &op, 0, "the checked run's sample, as fast as the best");
	CHECK(m.n > 1 && n_launches == m.n - 1 && m.samples_ns[0] == checked_ns);
	kjit__measurement_free(&m);
	/* without early stop it is one sample among those the interval needs */
	op = o;
	op.warmed_ms = op.warmup_ms;
	op.prior_ns = &checked_ns;
	op.n_prior = 1;
	m = measure(t, &wg, &op, 0, "the checked run's sample, no race");
	CHECK(m.stop == KJIT__STOP_CONVERGED && n_launches == m.n - 1);
	kjit__measurement_free(&m);
	/* a prior sample that is no time, or none given, is refused */
	double bad = NAN;
	launch_ctx none = { &wg, NULL, 0, 0, 0, 0 };
	op.prior_ns = &bad;
	CHECK_ST(kjit__protocol_measure(t, fake_launch, &none, NULL, &op, &m),
	         KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "prior sample 0");
	op.prior_ns = NULL;
	CHECK_ST(kjit__protocol_measure(t, fake_launch, &none, NULL, &op, &m),
	         KJIT_ERR_INVALID_ARG);
	OK("prior samples: judged before any launch, then counted among the samples; "
	   "a bad one refused");

	/* the budget through the whole protocol: 2 ms of host time per launch
	 * on a 10 ms budget is 6 samples, batches cut to what fits */
	kjit__protocol_opts obg = o;
	obg.budget_ms = 10;
	gen bg = { GEN_BIMODAL, 50000, 0.10, NULL, 0, 0 };
	m = measure(t, &bg, &obg, 2000, "bimodal, 2 ms per launch, 10 ms budget");
	CHECK(m.stop == KJIT__STOP_BUDGET && m.n == 6);
	kjit__measurement_free(&m);

	/* cold L2: 2 x L2 overwritten before every launch, the warm-up's too,
	 * each time with another byte; never inside a sample */
	kjit__protocol_opts oL = o;
	oL.cold_l2 = 1;
	gen cold = { GEN_NORMAL, 50000, 0.001, NULL, 0, 0 };
	m = measure(t, &cold, &oL, 0, "cold L2");
	CHECK(m.cold_l2 == 1);
	CHECK(memset_bytes == 2 * l2_bytes);
	CHECK_MSG(n_memsets == n_launches, "%zu memsets for %zu launches", n_memsets,
	          n_launches);
	CHECK(m.max_ns < 60000); /* the memset's 1 ms is outside every sample */
	kjit__measurement_free(&m);
	OK("cold L2: %zu memsets of %zu MiB for %zu launches, none timed", n_memsets,
	   memset_bytes >> 20, n_launches);

	/* bad options */
	kjit__protocol_opts ob = o;
	ob.max_samples = 0;
	CHECK_ST(kjit__protocol_measure(t, fake_launch, &c0, NULL, &ob, &m), KJIT_ERR_INVALID_ARG);
	ob = o;
	ob.warmup_ms = -1;
	CHECK_ST(kjit__protocol_measure(t, fake_launch, &c0, NULL, &ob, &m), KJIT_ERR_INVALID_ARG);
	ob = o;
	ob.best_spread_ns = NAN;
	CHECK_ST(kjit__protocol_measure(t, fake_launch, &c0, NULL, &ob, &m), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "best spread");
	CHECK_ST(kjit__protocol_measure(NULL, fake_launch, &c0, NULL, &o, &m), KJIT_ERR_INVALID_ARG);
	CHECK(m.samples_ns == NULL && m.n == 0);
	OK("bad options refused with KJIT_ERR_INVALID_ARG");

	kjit__timer_close(t);
	CHECK(n_events_live == 0 && scratch_ptr == 0);
	OK("close: every event destroyed, the scratch buffer freed");

	/* auto: CUPTI is tried first. Without a GPU it cannot initialise and
	 * the timer falls back to events, saying why. (With a GPU, CUPTI may
	 * come up against this fake context: then only open and close.) */
	CHECK(setenv("KJIT_TIMER", "auto", 1) == 0);
	CHECK_OK(kjit__timer_open(&api, NULL, &t));
	if (kjit__timer_kind_of(t) == KJIT__TIMER_EVENTS) {
		CHECK_CONTAINS(kjit_last_error(), "timing with CUDA events: ");
		OK("auto without a usable CUPTI: events (%s)", kjit_last_error());
		gen ga = { GEN_NORMAL, 20000, 0.01, NULL, 0, 0 };
		launch_ctx ca = { &ga, NULL, 0, 0, 0, 0 };
		CHECK_OK(kjit__timer_run(t, fake_launch, &ca, NULL, 5, 0, d));
		free(ca.log);
		/* a second open does not retry CUPTI, and says the same */
		kjit__timer *t2 = NULL;
		CHECK_OK(kjit__timer_open(&api, NULL, &t2));
		CHECK(kjit__timer_kind_of(t2) == KJIT__TIMER_EVENTS);
		kjit__timer_close(t2);
		CHECK(setenv("KJIT_TIMER", "cupti", 1) == 0);
		CHECK_ST(kjit__timer_open(&api, NULL, &t2), KJIT_ERR_CUDA);
		CHECK_CONTAINS(kjit_last_error(), "KJIT_TIMER=cupti, but CUPTI cannot be used");
		OK("KJIT_TIMER=cupti without CUPTI: %s", kjit_last_error());
	} else {
		OK("auto: CUPTI came up (a GPU is here); not run on the fake driver");
	}
	kjit__timer_close(t);
	CHECK(unsetenv("KJIT_TIMER") == 0);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	test_ranks();
	test_decide();
	test_racing();
	test_shapes();
	test_fake_measure();
	printf("%s: PASS\n", tu_prog);
	return 0;
}
