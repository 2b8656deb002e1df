/*
 * test-gpu-launch: kjit_launch() on the GPU (exits 77 without one).
 *
 *  - saxpy launched through each selection rule (exact, nearest, same
 *    arch, default) and through a grid callback computes y = 2.5 x + y
 *    exactly, the guard elements past n untouched, first and memoised
 *    launches alike;
 *  - online tuning of a 12-configuration space: every launch during the
 *    search is right; the configuration it commits is, by the measurement
 *    protocol, within the noise of the best of an exhaustive measurement;
 *    the best row and one results row per trial are in the database, and
 *    a new process finds the result as exact;
 *  - background tuning serves at once, then searches, every launch right;
 *  - drift: with KJIT_PROFILE=1, an exact row whose stored time is far
 *    below the real one is marked stale (explain and the database), and
 *    with online tuning it is re-tuned.
 */
#include "testutil.h"

#include <math.h>

#include "engine.h"

#define MAX_N ((1LL << 24) + 7)
#define GUARD 4096
#define SENTINEL -12345.0f

static float *hx, *hy0, *hy;
static kjit_devptr dx, dy;
static char db_path[TU_PATH], spec_path[TU_PATH];

static kjit_engine *open_gpu(kjit_tune_policy tune, unsigned variants, unsigned samples)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db_path;
	o.tune = tune;
	o.tune_variants = variants;
	o.tune_samples = samples;
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);
	return e;
}

static void buffers(kjit_engine *e)
{
	size_t total = (size_t)MAX_N + GUARD;
	hx = malloc(total * sizeof *hx);
	hy0 = malloc(total * sizeof *hy0);
	hy = malloc(total * sizeof *hy);
	CHECK(hx && hy0 && hy);
	for (size_t i = 0; i < total; i++) {
		hx[i] = (float)(i % 1024) * 0.25f; /* a*x + y exact in float */
		hy0[i] = (float)(i % 77) - 30.0f;
	}
	CHECK_OK(kjit_mem_alloc(e, total * sizeof(float), &dx));
	CHECK_OK(kjit_mem_alloc(e, total * sizeof(float), &dy));
	CHECK_OK(kjit_memcpy_htod(e, dx, hx, total * sizeof(float)));
}

/* One launch for n elements on fresh y, checked. */
static void launch_check(kjit_engine *e, kjit_kernel *k, long long n, const char *what)
{
	CHECK_OK(kjit_memcpy_htod(e, dy, hy0, (size_t)n * sizeof(float)));
	float s = SENTINEL;
	for (int g = 0; g < 4; g++)
		CHECK_OK(kjit_memcpy_htod(e, dy + ((size_t)n + (size_t)g * 1024) * sizeof(float), &s,
		                          sizeof s));
	float a = 2.5f;
	void *args[] = { &n, &a, &dx, &dy };
	int64_t p = n;
	CHECK_OK(kjit_launch(k, &p, 1, args, NULL));
	CHECK_OK(kjit_synchronize(e));
	CHECK_OK(kjit_memcpy_dtoh(e, hy, dy, ((size_t)n + GUARD) * sizeof(float)));
	for (size_t i = 0; i < (size_t)n; i++)
		if (hy[i] != 2.5f * hx[i] + hy0[i]) {
			kjit_explanation x;
			kjit_explain(k, &p, 1, &x);
			TU_FAIL("%s: n=%lld with %s (%s): y[%zu] = %.9g, expected %.9g", what, n,
			        x.config, x.rule, i, hy[i], 2.5f * hx[i] + hy0[i]);
		}
	for (int g = 0; g < 4; g++)
		CHECK_MSG(hy[(size_t)n + (size_t)g * 1024] == SENTINEL, "%s: n=%lld: guard %d written",
		          what, n, g);
}

static void add_row(const char *sig, const char *dev, long long n, const char *config,
                    double median)
{
	sqlite3 *db;
	char sql[1024];
	CHECK(sqlite3_open(db_path, &db) == SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO best(signature, device_key, problem,"
	         " arch, config, median_ns, nvrtc, stale, updated) VALUES('%s', '%s',"
	         " '{\"n\":%lld}', 'sm_90', '%s', %g, '%s', 0, 0)", sig, dev, n, config, median,
	         kjit_nvrtc_id());
	CHECK_SQL(db, sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static int64_t db_int(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	CHECK(sqlite3_open(db_path, &db) == SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	CHECK_SQL(db, sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	int64_t v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

static kjit_explanation explain(kjit_kernel *k, long long n)
{
	kjit_explanation x;
	int64_t p = n;
	CHECK_OK(kjit_explain(k, &p, 1, &x));
	return x;
}

/* A saxpy description over BLOCK_SIZE x ITEMS_PER_THREAD; tag changes the
 * source text (and so the signature). */
static const char *const blocks[] = { "128", "256", "512", "1024" };
static const char *const items[] = { "1", "2", "4" };
static const char *const sizes[] = { "n" };
static kjit_param params[2];
static char *source_text;

static int grid_cb(const int64_t *problem, const int64_t *config, unsigned grid[3], void *user)
{
	(*(int *)user)++;
	int64_t per = config[0] * config[1];
	grid[0] = (unsigned)((problem[0] + per - 1) / per);
	return 0;
}

static kjit_kernel *saxpy_tunable(kjit_engine *e, const char *tag, int *cb_calls)
{
	size_t len;
	char *src = tu_read_file(tu_saxpy_path(), &len);
	free(source_text);
	source_text = kjit__strdup_printf("%s// %s\n", src, tag);
	free(src);
	params[0] = (kjit_param){ "BLOCK_SIZE", blocks, 4, 1, KJIT_ROLE_BLOCK_X | KJIT_ROLE_DEFINE };
	params[1] = (kjit_param){ "ITEMS_PER_THREAD", items, 3, 0, KJIT_ROLE_DEFINE };
	kjit_tunable_desc d = { 0 };
	d.entry = "saxpy";
	d.source = source_text;
	d.params = params;
	d.n_params = 2;
	if (cb_calls) {
		d.grid_fn = grid_cb;
		d.grid_user = cb_calls;
	} else {
		d.grid[0] = "(n + BLOCK_SIZE * ITEMS_PER_THREAD - 1) // (BLOCK_SIZE * ITEMS_PER_THREAD)";
	}
	d.problem_names = sizes;
	d.n_problem = 1;
	kjit_kernel *k;
	CHECK_OK(kjit_kernel_create_tunable(e, &d, &k));
	return k;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	tu_path(db_path, dir, "kjit.db");
	snprintf(spec_path, sizeof spec_path, "%s/examples/saxpy/saxpy.json", tu_srcdir());
	unsetenv("KJIT_PROFILE");

	/* ---- every rule ---- */
	/* This engine holds the primary context (and the buffers) throughout. */
	kjit_engine *hold = open_gpu(KJIT_TUNE_OFF, 0, 0), *e = hold;
	buffers(e);
	char dev[384];
	snprintf(dev, sizeof dev, "%s", e->device_key);
	kjit_kernel *ks;
	CHECK_OK(kjit_kernel_create_from_spec(e, spec_path, &ks));
	const char *sig = kjit_kernel_signature(ks);
	long long n1 = (1LL << 20) + 7, n2 = (1LL << 18) + 3;
	add_row(sig, dev, n1, "{\"BLOCK_SIZE\":512,\"ITEMS_PER_THREAD\":3}", 1000);
	kjit_kernel *ko = saxpy_tunable(e, "other devices only", NULL);
	add_row(kjit_kernel_signature(ko), "sm_90|Another GPU|100|12000", n1,
	        "{\"BLOCK_SIZE\":1024,\"ITEMS_PER_THREAD\":4}", 1000);
	kjit_kernel *kd = saxpy_tunable(e, "never tuned", NULL);
	int cb_calls = 0;
	kjit_kernel *kg = saxpy_tunable(e, "grid callback", &cb_calls);
	struct { kjit_kernel *k; long long n; const char *rule; } cases[] = {
		{ ks, n1, "exact" }, { ks, n2, "nearest" }, { ko, n2, "same_arch" },
		{ kd, n1, "default" }, { kg, n1, "default" }, { kd, 1, "default" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (int rep = 0; rep < 3; rep++) /* first, then memoised */
			launch_check(e, cases[i].k, cases[i].n, cases[i].rule);
		kjit_explanation x = explain(cases[i].k, cases[i].n);
		CHECK_STREQ(x.rule, cases[i].rule);
		OK("n=%lld -> %s %s: right, 3 launches", cases[i].n, x.rule, x.config);
	}
	CHECK_MSG(cb_calls == 1, "grid callback called %d times, expected once", cb_calls);
	OK("the grid callback ran once for its problem");

	/* ---- online ---- */
	long long nt = 1LL << 24;
	e = open_gpu(KJIT_TUNE_ONLINE, 0, 5);
	kjit_kernel *kt = saxpy_tunable(e, "online", NULL);
	int launches = 0;
	for (; launches < 200; launches++) {
		kjit_explanation x = explain(kt, nt);
		if (launches > 0 && !x.tuning)
			break;
		launch_check(e, kt, nt, "online");
	}
	kjit_explanation x = explain(kt, nt);
	CHECK_STREQ(x.rule, "online");
	CHECK_MSG(launches == 12 * 5, "online search took %d launches, expected 60", launches);
	OK("online: %d launches (12 configurations x 5), every one right; chose %s (%.0f ns)",
	   launches, x.config, x.median_ns);
	char online_cfg[256];
	snprintf(online_cfg, sizeof online_cfg, "%s", x.config);
	/* Exhaustive by the measurement protocol. */
	double best = INFINITY, chosen = NAN;
	char best_cfg[256] = "";
	for (int b = 0; b < 4; b++)
		for (int it = 0; it < 3; it++) {
			kjit_define defs[2] = { { "BLOCK_SIZE", blocks[b] }, { "ITEMS_PER_THREAD", items[it] } };
			kjit_variant_desc vd = { defs, 2, NULL, 0 };
			kjit_variant *v;
			CHECK_OK(kjit_variant_get(kt, &vd, &v, NULL));
			long long per = atoll(blocks[b]) * atoll(items[it]);
			unsigned grid[3] = { (unsigned)((nt + per - 1) / per), 1, 1 };
			unsigned block[3] = { (unsigned)atoi(blocks[b]), 1, 1 };
			float a = 2.5f;
			void *args[] = { &nt, &a, &dx, &dy };
			kjit_measurement m;
			CHECK_OK(kjit_variant_measure(v, grid, block, 0, NULL, args, NULL, &m));
			char cfg[256];
			snprintf(cfg, sizeof cfg, "{\"BLOCK_SIZE\":%s,\"ITEMS_PER_THREAD\":%s}", blocks[b],
			         items[it]);
			if (m.median_ns < best) {
				best = m.median_ns;
				snprintf(best_cfg, sizeof best_cfg, "%s", cfg);
			}
			if (strcmp(cfg, online_cfg) == 0)
				chosen = m.median_ns;
			kjit_measurement_free(&m);
		}
	printf("  exhaustive best %s %.0f ns; online's choice %s measures %.0f ns (%.3fx)\n",
	       best_cfg, best, online_cfg, chosen, chosen / best);
	CHECK_MSG(chosen <= best * 1.05, "online chose %s (%.0f ns), exhaustive best %s (%.0f ns)",
	          online_cfg, chosen, best_cfg, best);
	OK("online's choice is within 5%% of the exhaustive best");
	char q[512];
	snprintf(q, sizeof q, "SELECT count(*) FROM results WHERE signature = '%s' AND"
	         " message = 'online'", kjit_kernel_signature(kt));
	CHECK(db_int(q) == 12);
	snprintf(q, sizeof q, "SELECT count(*) FROM best WHERE signature = '%s' AND stale = 0"
	         " AND problem = '{\"n\":%lld}'", kjit_kernel_signature(kt), nt);
	CHECK(db_int(q) == 1);
	kjit_engine_close(e);
	e = open_gpu(KJIT_TUNE_ONLINE, 0, 5);
	kt = saxpy_tunable(e, "online", NULL);
	launch_check(e, kt, nt, "after online");
	x = explain(kt, nt);
	CHECK(strcmp(x.rule, "exact") == 0 && !x.tuning && strcmp(x.config, online_cfg) == 0);
	OK("a new process finds the online result as exact and does not search again");
	kjit_engine_close(e);

	/* ---- background ---- */
	e = open_gpu(KJIT_TUNE_BACKGROUND, 6, 2);
	kjit_kernel *kb = saxpy_tunable(e, "background", NULL);
	launch_check(e, kb, n1, "background first");
	x = explain(kb, n1);
	CHECK(strcmp(x.rule, "default") == 0 && x.tuning);
	int served = 1;
	for (; served < 5000 && explain(kb, n1).tuning; served++) {
		launch_check(e, kb, n1, "background");
		if (served % 50 == 0)
			usleep(10000);
	}
	x = explain(kb, n1);
	CHECK_STREQ(x.rule, "online");
	OK("background: the default served at once, %d launches until %s, every one right",
	   served, x.config);
	kjit_engine_close(e);

	/* ---- drift ---- */
	setenv("KJIT_PROFILE", "1", 1);
	for (int pass = 0; pass < 2; pass++) {
		e = open_gpu(pass ? KJIT_TUNE_ONLINE : KJIT_TUNE_OFF, 4, 2);
		if (!e->profile_every) {
			printf("  drift: profiling is off (no CUPTI timer here): not tested\n");
			kjit_engine_close(e);
			break;
		}
		kjit_kernel *kr = saxpy_tunable(e, pass ? "drift online" : "drift", NULL);
		add_row(kjit_kernel_signature(kr), dev, n1, "{\"BLOCK_SIZE\":256,\"ITEMS_PER_THREAD\":1}",
		        1.0);
		launch_check(e, kr, n1, "drift");
		CHECK_STREQ(explain(kr, n1).rule, "exact");
		int i = 0;
		for (; i < 400 && (pass ? strcmp(explain(kr, n1).rule, "online") != 0
		                        : !explain(kr, n1).stale); i++) {
			launch_check(e, kr, n1, "drift");
			usleep(20000);
		}
		x = explain(kr, n1);
		if (pass) {
			CHECK_MSG(strcmp(x.rule, "online") == 0 && !x.stale, "after %d launches: %s stale %d",
			          i, x.rule, x.stale);
			OK("drift with online tuning: re-tuned after %d launches, %s %.0f ns", i, x.config,
			   x.median_ns);
		} else {
			CHECK_MSG(x.stale, "not stale after %d launches", i);
			snprintf(q, sizeof q, "SELECT stale FROM best WHERE signature = '%s'",
			         kjit_kernel_signature(kr));
			int64_t stale = 0;
			for (int w = 0; w < 100 && !(stale = db_int(q)); w++)
				usleep(50000);
			CHECK(stale == 1);
			OK("drift: stale after %d sampled launches (stored 1 ns), the row marked stale", i);
		}
		kjit_engine_close(e);
	}
	unsetenv("KJIT_PROFILE");
	CHECK_OK(kjit_mem_free(hold, dx));
	CHECK_OK(kjit_mem_free(hold, dy));
	kjit_engine_close(hold);
	free(source_text);
	free(hx);
	free(hy0);
	free(hy);
	return 0;
}
