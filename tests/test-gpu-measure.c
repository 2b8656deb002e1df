/*
 * test-gpu-measure - kjit_variant_measure and KJIT_PROFILE on the GPU
 * (exit 77 without one):
 *  - a saxpy variant on 2^24 elements: CUPTI timer, the protocol converges
 *    (95% CI of the median within 1%), every sample kept and positive,
 *    median between min and max;
 *  - cold L2 runs and says so; racing stops a variant after 1 sample
 *    against a best three times faster, after 1 or 2 against a tight best
 *    10% faster, and not before 6 against one within its noise; a
 *    checked run (no warm-up, one launch) right after times as the warm
 *    runs do, and as the race's first sample stops a variant 3x slower
 *    than the best with no launch more; a short
 *    budget after the caller's warm-up (none of its own) stops at 6
 *    samples or more with a median within 3% of the converged one;
 *    options out of range are refused;
 *  - with KJIT_PROFILE=1 (a child process), every launch through
 *    kjit_variant_launch is counted and timed into the events table;
 *  - in a child process, modules loading on a thread (engines opened one
 *    after another, each loading saxpy's 40 stored variants) while the
 *    first measurement sets CUPTI up: every variant loaded then is timed
 *    by CUPTI afterwards (a module loaded as CUPTI enabled its kernel
 *    records never gave one);
 *  - in a child process, with CUPTI set up, engines' worth of variants
 *    loaded and never launched, their functions queried on a thread while
 *    this one measures: every variant is timed afterwards (under lazy
 *    loading such a query would load the function).
 */
#include "testutil.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

#define N (1 << 24)

typedef struct gpu {
	kjit_engine *e;
	kjit_variant *v;
	kjit_devptr x, y;
	long long n;
	float a;
	void *args[4];
	unsigned grid[3], block[3];
} gpu;

static void gpu_open(gpu *g, const char *db)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	kjit_status st = kjit_engine_open(&o, &g->e);
	tu_skip_without_gpu(st, g->e);
	CHECK_OK(st);
	kjit_kernel *k = tu_saxpy_kernel(g->e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 256, 4);
	CHECK_OK(kjit_variant_get(k, &sv.desc, &g->v, NULL));
	CHECK_OK(kjit_mem_alloc(g->e, (size_t)N * sizeof(float), &g->x));
	CHECK_OK(kjit_mem_alloc(g->e, (size_t)N * sizeof(float), &g->y));
	float *h = calloc(N, sizeof *h);
	CHECK(h != NULL);
	CHECK_OK(kjit_memcpy_htod(g->e, g->x, h, (size_t)N * sizeof(float)));
	CHECK_OK(kjit_memcpy_htod(g->e, g->y, h, (size_t)N * sizeof(float)));
	free(h);
	g->n = N;
	g->a = 1.0f;
	g->args[0] = &g->n;
	g->args[1] = &g->a;
	g->args[2] = &g->x;
	g->args[3] = &g->y;
	g->grid[0] = (N + 256 * 4 - 1) / (256 * 4);
	g->grid[1] = g->grid[2] = 1;
	g->block[0] = 256;
	g->block[1] = g->block[2] = 1;
}

static void gpu_close(gpu *g)
{
	CHECK_OK(kjit_mem_free(g->e, g->x));
	CHECK_OK(kjit_mem_free(g->e, g->y));
	kjit_engine_close(g->e);
}

/* least: the fewest samples the options allow (min_samples, or 6 under a
 * budget) */
static void check_measurement(const kjit_measurement *m, size_t least)
{
	CHECK_MSG(m->n_samples >= least && m->samples_ns != NULL, "%zu samples, at least %zu "
	          "expected", m->n_samples, least);
	for (size_t i = 0; i < m->n_samples; i++)
		CHECK_MSG(m->samples_ns[i] > 0, "sample %zu is %g ns", i, m->samples_ns[i]);
	CHECK(m->min_ns <= m->median_ns && m->median_ns <= m->max_ns);
	CHECK(m->ci_low_ns <= m->median_ns && m->median_ns <= m->ci_high_ns);
	CHECK(m->spread_ns >= 0);
}

/* The child of part 3: profiled launches into db. */
static int profile_child(const char *db)
{
	gpu g;
	gpu_open(&g, db);
	for (int i = 0; i < 50; i++)
		CHECK_OK(kjit_variant_launch(g.v, g.grid, g.block, 0, NULL, g.args));
	CHECK_OK(kjit_synchronize(g.e));
	gpu_close(&g);
	return 0;
}

#define LOAD_ENGINES 64

typedef struct loader {
	const char *db;
	atomic_int stop, loads;
	kjit_engine *e[LOAD_ENGINES];
	kjit_variant *v[LOAD_ENGINES][TU_SAXPY_N_VARIANTS];
	int n, max; /* engines loaded, and to load at most */
} loader;

static void *load_loop(void *arg)
{
	loader *l = arg;
	while (l->n < l->max && !atomic_load(&l->stop)) {
		kjit_engine_options o;
		kjit_engine_options_init(&o);
		o.db_path = l->db;
		kjit_engine *e = NULL;
		CHECK_OK(kjit_engine_open(&o, &e));
		kjit_kernel *k = tu_saxpy_kernel(e);
		for (int i = 0; i < TU_SAXPY_N_VARIANTS; i++) {
			tu_saxpy_variant sv;
			tu_saxpy_variant_nth(&sv, i);
			kjit_cache_tier tier;
			CHECK_OK(kjit_variant_get(k, &sv.desc, &l->v[l->n][i], &tier));
			CHECK_MSG(tier == KJIT_TIER_DISK, "variant %d not from the store", i);
			atomic_fetch_add(&l->loads, 1);
		}
		l->e[l->n++] = e;
	}
	return NULL;
}

/* One timed run of each variant the loader holds. */
static void time_loaded(gpu *g, const loader *l, const char *when)
{
	kjit_measure_options o;
	kjit_measure_options_init(&o);
	o.min_samples = o.max_samples = 1;
	o.no_warmup = 1;
	for (int n = 0; n < l->n; n++)
		for (int i = 0; i < TU_SAXPY_N_VARIANTS; i++) {
			tu_saxpy_variant sv;
			tu_saxpy_variant_nth(&sv, i);
			unsigned grid[3] = { (unsigned)((N + sv.block * sv.items - 1) /
			                                (sv.block * sv.items)), 1, 1 };
			unsigned block[3] = { (unsigned)sv.block, 1, 1 };
			kjit_measurement m;
			kjit_status st = kjit_variant_measure(l->v[n][i], grid, block, 0, NULL,
			                                      g->args, &o, &m);
			CHECK_MSG(st == KJIT_OK, "engine %d, variant %d (%s): %s", n, i, when,
			          kjit_last_error());
			kjit_measurement_free(&m);
		}
}

/* Part 4's child: loads on a thread while the first measurement of this
 * process sets CUPTI up, then one timed run of everything loaded. */
static int loads_child(const char *db)
{
	gpu g;
	gpu_open(&g, db);
	loader l = { .db = db, .max = LOAD_ENGINES };
	pthread_t t;
	CHECK(pthread_create(&t, NULL, load_loop, &l) == 0);
	while (atomic_load(&l.loads) == 0)
		sched_yield();
	int before = atomic_load(&l.loads);
	kjit_measure_options o;
	kjit_measure_options_init(&o);
	o.min_samples = o.max_samples = 1;
	kjit_measurement m;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &m));
	CHECK_STREQ(m.timer, "cupti");
	kjit_measurement_free(&m);
	int during = atomic_load(&l.loads);
	atomic_store(&l.stop, 1);
	CHECK(pthread_join(t, NULL) == 0);
	time_loaded(&g, &l, "loaded on a thread as CUPTI was set up");
	printf("%s: %d modules loaded on a thread, %d during the first measurement, all timed\n",
	       tu_prog, l.n * TU_SAXPY_N_VARIANTS, during - before);
	for (int n = 0; n < l.n; n++)
		kjit_engine_close(l.e[n]);
	gpu_close(&g);
	return 0;
}

typedef struct toucher {
	loader *l;
	atomic_int done;
} toucher;

static void *touch_loop(void *arg)
{
	toucher *t = arg;
	for (int n = 0; n < t->l->n; n++)
		for (int i = 0; i < TU_SAXPY_N_VARIANTS; i++) {
			tu_saxpy_variant sv;
			tu_saxpy_variant_nth(&sv, i);
			kjit_variant_info info;
			CHECK_OK(kjit_variant_get_info(t->l->v[n][i], &info));
			CHECK_MSG(info.max_threads_per_block == sv.block, "variant %d: %d threads at "
			          "most, its launch bounds %d", i, info.max_threads_per_block, sv.block);
		}
	atomic_store(&t->done, 1);
	return NULL;
}

/* Part 5's child: CUPTI set up, 4 engines' variants loaded here, queried
 * on a thread while this one measures, then each timed. */
static int touch_child(const char *db)
{
	gpu g;
	gpu_open(&g, db);
	kjit_measure_options o;
	kjit_measure_options_init(&o);
	o.min_samples = o.max_samples = 1;
	kjit_measurement m;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &m));
	kjit_measurement_free(&m);
	loader l = { .db = db, .max = 4 };
	(void)load_loop(&l);
	toucher t = { .l = &l };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, touch_loop, &t) == 0);
	int runs = 0;
	o.no_warmup = 1;
	while (!atomic_load(&t.done)) {
		CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &m));
		kjit_measurement_free(&m);
		runs++;
	}
	CHECK(pthread_join(th, NULL) == 0);
	time_loaded(&g, &l, "queried on a thread while another measured");
	printf("%s: %d functions queried on a thread during %d timed runs, all timed after\n",
	       tu_prog, l.n * TU_SAXPY_N_VARIANTS, runs);
	for (int n = 0; n < l.n; n++)
		kjit_engine_close(l.e[n]);
	gpu_close(&g);
	return 0;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	if (argc == 3 && strcmp(argv[1], "profile") == 0)
		return profile_child(argv[2]);
	if (argc == 3 && strcmp(argv[1], "loads") == 0)
		return loads_child(argv[2]);
	if (argc == 3 && strcmp(argv[1], "touch") == 0)
		return touch_child(argv[2]);
	const char *dir = tu_tmpdir();
	char db[TU_PATH];
	tu_path(db, dir, "measure.db");
	gpu g;
	gpu_open(&g, db);

	kjit_measure_options o;
	kjit_measure_options_init(&o);
	CHECK(o.target_rel_ci == 0.01 && o.min_samples == 10 && !o.cold_l2);
	kjit_measurement warm;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &warm));
	check_measurement(&warm, 10);
	CHECK_STREQ(warm.timer, "cupti");
	CHECK_STREQ(warm.stop, "converged");
	CHECK((warm.ci_high_ns - warm.ci_low_ns) / warm.median_ns <= 0.01);
	CHECK(!warm.cold_l2);
	OK("warm L2: median %.1f us, CI [%.1f, %.1f], spread %.2f us, %zu samples in %.0f ms, "
	   "timer %s, %s", warm.median_ns * 1e-3, warm.ci_low_ns * 1e-3, warm.ci_high_ns * 1e-3,
	   warm.spread_ns * 1e-3, warm.n_samples, warm.wall_ms, warm.timer, warm.stop);

	o.cold_l2 = 1;
	kjit_measurement cold;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &cold));
	check_measurement(&cold, 10);
	CHECK(cold.cold_l2);
	CHECK_MSG(cold.median_ns >= 0.95 * warm.median_ns, "cold %.1f us faster than warm %.1f us",
	          cold.median_ns * 1e-3, warm.median_ns * 1e-3);
	OK("cold L2: median %.1f us (warm %.1f us), %s", cold.median_ns * 1e-3,
	   warm.median_ns * 1e-3, cold.stop);

	kjit_measure_options_init(&o);
	o.best_ns = warm.median_ns / 3;
	o.early_stop_factor = 1.5;
	kjit_measurement early;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &early));
	CHECK_STREQ(early.stop, "stopped_early");
	CHECK_MSG(early.n_samples == 1, "3x the best: %zu samples", early.n_samples);
	OK("racing against a best 3x faster: %s after %zu sample", early.stop, early.n_samples);
	kjit_measurement_free(&early);

	/* 10% slower than a tight best: racing at its 3% floor, 1 or 2
	 * samples; within the best's noise (0.5% slower, its spread 2%) it
	 * goes on to the intervals, 6 samples at least */
	kjit_measure_options_init(&o);
	o.best_ns = warm.median_ns * 0.90;
	o.best_hi_ns = warm.median_ns * 0.905;
	o.best_spread_ns = warm.median_ns * 0.002;
	o.early_stop_factor = 1.5;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &early));
	CHECK_STREQ(early.stop, "stopped_early");
	CHECK_MSG(early.n_samples <= 2, "10%% slower: %zu samples", early.n_samples);
	OK("racing, 10%% slower than a tight best (%.1f us): after %zu samples", o.best_ns * 1e-3,
	   early.n_samples);
	kjit_measurement_free(&early);
	o.best_ns = warm.median_ns * 0.995; /* 3% over 0.997 is above both modes (2.5%) */
	o.best_hi_ns = warm.median_ns * 0.997;
	o.best_spread_ns = warm.median_ns * 0.02;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &early));
	CHECK_MSG(early.n_samples >= 6, "within the noise: %s after %zu samples", early.stop,
	          early.n_samples);
	OK("within the best's noise (0.5%% slower, spread 2%%): %s after %zu samples", early.stop,
	   early.n_samples);

	/* a checked run right after those (the GPU warm): one launch, no
	 * warm-up, its time that of the warm runs; as the race's first sample
	 * it stops a variant 3x slower than the best with no launch more, and
	 * counts as a sample of one that can win */
	kjit_measure_options_init(&o);
	o.no_warmup = 1;
	o.min_samples = o.max_samples = 1;
	kjit_measurement checked;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &checked));
	CHECK(checked.n_samples == 1 && checked.warmup_ms <= 0.5 * checked.wall_ms + 0.05);
	CHECK_MSG(fabs(checked.median_ns - warm.median_ns) <= 0.10 * warm.median_ns,
	          "checked run %.2f us, warm median %.2f us", checked.median_ns * 1e-3,
	          warm.median_ns * 1e-3);
	kjit_measure_options_init(&o);
	o.warmed_ms = o.warmup_ms;
	o.prior_ns = checked.samples_ns;
	o.n_prior = 1;
	o.best_ns = warm.median_ns / 3;
	o.early_stop_factor = 1.5;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &early));
	CHECK(strcmp(early.stop, "stopped_early") == 0 && early.n_samples == 1 &&
	      early.samples_ns[0] == checked.samples_ns[0]);
	kjit_measurement_free(&early);
	o.best_ns = warm.median_ns;
	o.best_spread_ns = warm.spread_ns;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &early));
	CHECK(early.n_samples >= 2 && early.samples_ns[0] == checked.samples_ns[0]);
	OK("a checked run (%.2f us, warm median %.2f us) as the race's first sample: 3x the best "
	   "stops on it, as fast as the best goes on (%s after %zu samples)",
	   checked.median_ns * 1e-3, warm.median_ns * 1e-3, early.stop, early.n_samples);
	kjit_measurement_free(&early);
	kjit_measurement_free(&checked);

	/* a 0.5 ms budget, warmed by the caller (so no warm-up at all): at
	 * least 6 samples, a median near the converged one */
	kjit_measure_options_init(&o);
	o.budget_ms = 0.5;
	o.warmed_ms = o.warmup_ms;
	kjit_measurement budget;
	CHECK_OK(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &budget));
	check_measurement(&budget, 6);
	CHECK(strcmp(budget.stop, "budget") == 0 || strcmp(budget.stop, "converged") == 0);
	CHECK(budget.n_samples >= 6);
	CHECK(budget.warmup_ms >= 0 && budget.warmup_ms <= budget.wall_ms);
	CHECK_MSG(fabs(budget.median_ns - warm.median_ns) <= 0.03 * warm.median_ns,
	          "budget median %.1f us, converged %.1f us", budget.median_ns * 1e-3,
	          warm.median_ns * 1e-3);
	OK("0.5 ms budget, warmed: %s after %zu samples, median %.1f us (warm-up %.2f of %.2f ms)",
	   budget.stop, budget.n_samples, budget.median_ns * 1e-3, budget.warmup_ms,
	   budget.wall_ms);
	kjit_measurement_free(&budget);

	kjit_measure_options_init(&o);
	o.target_rel_ci = 0;
	kjit_measurement bad;
	CHECK_ST(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &bad),
	         KJIT_ERR_INVALID_ARG);
	kjit_measure_options_init(&o);
	o.budget_ms = -1;
	CHECK_ST(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &bad),
	         KJIT_ERR_INVALID_ARG);
	kjit_measure_options_init(&o);
	o.best_spread_ns = -1;
	CHECK_ST(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &bad),
	         KJIT_ERR_INVALID_ARG);
	kjit_measure_options_init(&o);
	o.n_prior = 1;
	CHECK_ST(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &bad),
	         KJIT_ERR_INVALID_ARG);
	kjit_measure_options_init(&o);
	o.min_samples = 100;
	o.max_samples = 10;
	CHECK_ST(kjit_variant_measure(g.v, g.grid, g.block, 0, NULL, g.args, &o, &bad),
	         KJIT_ERR_INVALID_ARG);
	OK("options out of range refused");
	kjit_measurement_free(&warm);
	kjit_measurement_free(&cold);
	kjit_measurement_free(&early);
	gpu_close(&g);

	/* 3. KJIT_PROFILE=1 in a child: 50 launches counted and timed */
	char pdb[TU_PATH];
	tu_path(pdb, dir, "profile.db");
	setenv("KJIT_PROFILE", "1", 1);
	CHECK_MSG(tu_spawn_self(argv[0], "profile", pdb) == 0, "profiling child failed");
	unsetenv("KJIT_PROFILE");
	sqlite3 *s = tu_db_open(pdb);
	long long counted = tu_db_int(s, "SELECT sum(count) FROM events WHERE kind = 'launch' AND"
	                                 " value IS NULL", NULL);
	long long timed = tu_db_int(s, "SELECT count(*) FROM events WHERE kind = 'launch' AND"
	                               " value > 0 AND variant IS NOT NULL", NULL);
	double med = (double)tu_db_int(s, "SELECT CAST(avg(value) AS INTEGER) FROM events WHERE"
	                                  " kind = 'launch' AND value > 0", NULL);
	tu_db_close(s);
	CHECK_MSG(counted == 50, "%lld launches counted, 50 made", counted);
	CHECK_MSG(timed == 50, "%lld launches timed, 50 made with KJIT_PROFILE=1", timed);
	CHECK_MSG(med > 0.5 * warm.median_ns && med < 2.0 * warm.median_ns,
	          "profiled mean %.1f us, measured median %.1f us", med * 1e-3,
	          warm.median_ns * 1e-3);
	OK("KJIT_PROFILE=1: 50 launches counted and 50 timed by CUPTI into events (mean %.1f us)",
	   med * 1e-3);

	/* 4. saxpy's 40 variants stored, then loaded on a thread of a child
	 * as it sets CUPTI up */
	gpu_open(&g, db);
	kjit_kernel *k = tu_saxpy_kernel(g.e);
	tu_saxpy_variant sv[TU_SAXPY_N_VARIANTS];
	kjit_variant_desc descs[TU_SAXPY_N_VARIANTS];
	kjit_variant *vs[TU_SAXPY_N_VARIANTS];
	kjit_status sts[TU_SAXPY_N_VARIANTS];
	for (int i = 0; i < TU_SAXPY_N_VARIANTS; i++) {
		tu_saxpy_variant_nth(&sv[i], i);
		descs[i] = sv[i].desc;
	}
	CHECK_OK(kjit_variants_get(k, descs, TU_SAXPY_N_VARIANTS, 0, vs, sts, NULL));
	gpu_close(&g);
	for (int run = 0; run < 3; run++)
		CHECK_MSG(tu_spawn_self(argv[0], "loads", db) == 0, "loading child %d failed", run);
	OK("modules loaded on a thread while CUPTI is set up: timed, in 3 processes");
	for (int run = 0; run < 3; run++)
		CHECK_MSG(tu_spawn_self(argv[0], "touch", db) == 0, "querying child %d failed", run);
	OK("functions first queried on a thread while another measures: timed, in 3 processes");
	printf("%s: PASS\n", tu_prog);
	return 0;
}
