/*
 * test-top-model - kjit-top's data model against a database that the
 * test fills (test-top-db.h): meters, history, kernels, runs and the
 * detail view come out as the rows say; data_version drives re-queries;
 * no read transaction outlives a frame; missing, empty, foreign and
 * newer databases give a message, never a crash.
 */
#include "testutil.h"
#include "test-top-db.h"

#include <math.h>

#include "tui.h"

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9 * (fabs(b) + 1);
}

#define NEAR(a, b) near((a), (b))

static const top_kernel *kernel(const top_model *m, const char *name)
{
	for (size_t i = 0; i < m->n_kernels; i++)
		if (strcmp(m->kernels[i].name, name) == 0)
			return &m->kernels[i];
	TU_FAIL("no kernel %s in the model", name);
}

static const top_run *run(const top_model *m, int64_t id)
{
	for (size_t i = 0; i < m->n_runs; i++)
		if (m->runs[i].id == id)
			return &m->runs[i];
	return NULL;
}

static double series_sum(const top_model *m, top_series s, double now)
{
	double v[TOP_HISTORY_N], sum = 0;
	top_history_series(&m->history, s, now, v, TOP_HISTORY_N);
	for (int i = 0; i < TOP_HISTORY_N; i++)
		sum += isnan(v[i]) ? 0 : v[i];
	return sum;
}

static void check_known(const char *path)
{
	top_model m;
	top_model_init(&m, path);
	const double now = TOP_TEST_NOW;
	CHECK(top_model_refresh(&m, now, 0) == 1);
	CHECK_MSG(m.state == TOP_DB_OK, "%s", m.message);
	const top_meters *t = &m.meters;
	CHECK(t->compiles == 10);
	CHECK(NEAR(t->compile_p50_ms, 50) && NEAR(t->compile_p95_ms, 100) &&
	      NEAR(t->compile_max_ms, 100));
	OK("compile latency over the last minute: 10 compiles, p50 50 p95 100 max 100 ms");
	CHECK_MSG(t->mem == 130 && t->disk == 5 && t->ptx == 10 && t->miss == 15,
	          "mem %lld disk %lld ptx %lld miss %lld", (long long)t->mem, (long long)t->disk,
	          (long long)t->ptx, (long long)t->miss);
	OK("cache lookups: 130 memory, 5 disk, 10 ptx, 15 miss (hit rate 90.6%%)");
	CHECK(NEAR(t->launches_per_s, 25));
	OK("launches: 1500 counted in the last minute = 25/s (samples, older and future "
	   "rows left out)");
	CHECK_EQ_U64(t->writers, 3);
	CHECK_EQ_U64(t->dropped, 7);
	CHECK_EQ_U64(t->active_runs, 2);
	OK("3 writing processes, 7 dropped events, 2 active runs");

	CHECK_EQ_U64(m.n_kernels, 4);
	const top_kernel *k = kernel(&m, "saxpy");
	CHECK(k->launches == 1200 && k->mem == 90 && k->disk == 5 && k->miss == 5);
	CHECK(NEAR(k->compile_p50_ms, 20));
	CHECK(k->has_best && !k->stale && NEAR(k->best_ns, 1000));
	CHECK_STREQ(k->best_config, "{\"BLOCK_SIZE\":256,\"ITEMS_PER_THREAD\":4}");
	CHECK(NEAR(k->recent_ns, 1100) && NEAR(k->drift, 0.1));
	OK("saxpy: 1200 launches, 95%% hits, compile p50 20 ms, best 1 us (newest row), "
	   "recent 1.1 us, drift +10%%");
	k = kernel(&m, "reduce");
	CHECK(k->launches == 300 && k->mem == 40 && k->ptx == 10 && k->miss == 10);
	CHECK(NEAR(k->compile_p50_ms, 70) && NEAR(k->recent_ns, 2000) && NEAR(k->drift, -0.2));
	OK("reduce: compile p50 70 ms, recent 2 us against 2.5 us: drift -20%%");
	k = kernel(&m, "gemm_tiled");
	CHECK(k->has_best && k->stale && k->launches == 0 && isnan(k->recent_ns) &&
	      isnan(k->drift) && NEAR(k->compile_p50_ms, 500));
	OK("gemm_tiled: stale best marked, no drift without recent launches, compile p50 from "
	   "the 10-minute window");
	k = kernel(&m, "transpose");
	CHECK(!k->has_best && k->launches == 0 && isnan(k->compile_p50_ms));

	CHECK_EQ_U64(m.n_runs, 3);
	CHECK(m.runs[0].id == 4 && m.runs[1].id == 1 && m.runs[2].id == 2);
	const top_run *r = run(&m, 1);
	CHECK(r->by_status[KJIT_RESULT_OK] == 30 && r->by_status[KJIT_RESULT_COMPILE_ERROR] == 5 &&
	      r->by_status[KJIT_RESULT_TIMEOUT] == 3 && r->by_status[KJIT_RESULT_CRASHED] == 2 &&
	      r->by_status[KJIT_RESULT_LAUNCH_ERROR] == 0);
	CHECK(NEAR(r->best_ns, 1000) && r->total == 100 && r->evaluated == 40);
	CHECK(NEAR(r->eta_s, 285));
	OK("run 1: ok 30, compile_error 5, timeout 3, crashed 2, best 1 us, ETA 285 s");
	CHECK_EQ_U64(r->n_devices, 3);
	const top_run_device *dv = &m.devices[r->first_device];
	CHECK(dv[0].ordinal == 0 && strcmp(dv[0].uuid, UUID_GPU0) == 0 && dv[0].evaluated == 17 &&
	      dv[0].by_status[KJIT_RESULT_OK] == 15 && dv[0].by_status[KJIT_RESULT_TIMEOUT] == 1 &&
	      dv[0].by_status[KJIT_RESULT_CRASHED] == 1 && NEAR(dv[0].best_ns, 1000) &&
	      NEAR(dv[0].last, now - 24));
	CHECK(dv[1].ordinal == 1 && strcmp(dv[1].uuid, UUID_GPU1) == 0 && dv[1].evaluated == 18 &&
	      dv[1].by_status[KJIT_RESULT_OK] == 15 && dv[1].by_status[KJIT_RESULT_TIMEOUT] == 2 &&
	      dv[1].by_status[KJIT_RESULT_CRASHED] == 1 && NEAR(dv[1].best_ns, 1100) &&
	      NEAR(dv[1].last, now - 22));
	CHECK(dv[2].ordinal == -1 && dv[2].uuid[0] == '\0' && dv[2].evaluated == 5 &&
	      dv[2].by_status[KJIT_RESULT_COMPILE_ERROR] == 5 && isnan(dv[2].best_ns));
	CHECK(top_run_device_lines(&m, r) == 3);
	OK("run 1 by device: gpu 0 17 (best 1 us, 24 s ago), gpu 1 18 (best 1.1 us, 22 s "
	   "ago), no device 5 compile errors");
	r = run(&m, 4);
	CHECK(r->total == -1 && isnan(r->eta_s));
	CHECK(r->n_devices == 0 && top_run_device_lines(&m, r) == 0);
	r = run(&m, 2);
	CHECK(strcmp(r->status, "done") == 0 && isnan(r->eta_s) && isnan(r->best_ns));
	CHECK(run(&m, 3) == NULL);
	OK("runs: running first, unknown total without ETA, a done run listed, an old failed "
	   "one not");

	CHECK(NEAR(series_sum(&m, TOP_SERIES_COMPILES, now) * TOP_HISTORY_BUCKET_S, 11));
	double v[TOP_HISTORY_N];
	top_history_series(&m.history, TOP_SERIES_KERNEL_NS, now, v, TOP_HISTORY_N);
	CHECK(isnan(v[TOP_HISTORY_N - 1]) && NEAR(v[TOP_HISTORY_N - 2], 1100) &&
	      NEAR(v[TOP_HISTORY_N - 3], 2000));
	top_history_series(&m.history, TOP_SERIES_HIT_RATE, now, v, TOP_HISTORY_N);
	/* saxpy's 30 memory hits at -10 s, alone in [-10 s, -5 s) */
	CHECK(isnan(v[TOP_HISTORY_N - 2]) && NEAR(v[TOP_HISTORY_N - 3], 1.0));
	OK("history: 11 compiles in 10 minutes, kernel time per 5 s bucket 1.1 us and 2 us");

	/* frames read and let go: a writer and a checkpoint do not wait */
	CHECK(sqlite3_get_autocommit(m.db));
	sqlite3 *w = tu_db_open(path);
	sqlite3_busy_timeout(w, 0);
	CHECK(top_model_refresh(&m, now, 0) == 0);
	OK("unchanged data_version and window: no query");
	top_test_event(w, -1, 106, "compile", SIG_GEMM, "gemm_tiled", NULL, "miss", "40", 1);
	int log = -1, ckpt = -1;
	CHECK_SQL(w, sqlite3_wal_checkpoint_v2(w, NULL, SQLITE_CHECKPOINT_TRUNCATE, &log, &ckpt),
	          SQLITE_OK);
	OK("a write and a TRUNCATE checkpoint right after a frame: no SQLITE_BUSY");
	CHECK(top_model_refresh(&m, now + 6, 0) == 1);
	CHECK(m.meters.compiles == 11);
	CHECK(NEAR(series_sum(&m, TOP_SERIES_COMPILES, now + 6) * TOP_HISTORY_BUCKET_S, 12));
	OK("a new event: data_version changed, meters and the ring's newest buckets re-read");
	CHECK(top_model_refresh(&m, now + 6, 0) == 0);
	CHECK(top_model_refresh(&m, now + 11, 0) == 1);
	OK("the 5 s window moving re-queries without a write");
	tu_db_close(w);

	/* the detail of a tuned kernel: results, samples of the fastest */
	CHECK(top_model_load_detail(&m, SIG_SAXPY, 0, now) == 0);
	const top_detail *d = &m.detail;
	CHECK_EQ_U64(d->n_v, 40);
	CHECK(NEAR(d->v[0].median_ns, 1000) && strcmp(d->v[0].status, "ok") == 0);
	CHECK(NEAR(d->v[29].median_ns, 3900) && isnan(d->v[39].median_ns));
	CHECK(!d->v[0].failed && !d->v[29].failed && d->v[39].failed);
	CHECK_EQ_U64(d->n_samples, 4);
	CHECK(d->samples[0] == 990 && d->samples[3] == 1010);
	CHECK_CONTAINS(d->rule, "2 tuned");
	OK("detail of saxpy: 40 results fastest first, untimed (failed) last, 4 samples of the "
	   "fastest, rule with 2 tuned problems");
	CHECK(d->has_profiles && d->v[0].has_profile && d->v[1].has_profile &&
	      !d->v[2].has_profile && !d->v[39].has_profile);
	CHECK(NEAR(d->v[0].dram_bytes_per_s, 3.41e12) && NEAR(d->v[0].flop_per_s, 2e12) &&
	      NEAR(d->v[0].occupancy, 0.75) && NEAR(d->v[0].energy_j, 1.234e-3));
	CHECK_MSG(NEAR(d->v[0].peak, 3.41e12 / 4.8e12), "peak %g", d->v[0].peak);
	CHECK(isnan(d->v[1].dram_bytes_per_s) && isnan(d->v[1].peak) &&
	      isnan(d->v[1].occupancy) && NEAR(d->v[1].energy_j, 2.5e-3));
	CHECK(isnan(d->v[2].energy_j) && isnan(d->v[2].peak));
	OK("detail of saxpy with stored profiles: 3410 GB/s (71%% of peak), 2 TFLOP/s, 75%% "
	   "occupancy, 1.23 mJ; counters refused: energy only (NULL read as unknown); none for "
	   "the others");
	CHECK(top_model_load_detail(&m, SIG_SAXPY, 1, now) == 0);
	CHECK(d->sel == 1 && d->n_samples == 0);
	/* without results: the cached binaries, timed by sampled launches */
	CHECK(top_model_load_detail(&m, SIG_REDUCE, 0, now) == 0);
	CHECK_EQ_U64(d->n_v, 3);
	CHECK_STREQ(d->v[0].config, "BLOCK=512");
	CHECK(NEAR(d->v[0].median_ns, 2000) && d->v[0].n_samples == 3);
	CHECK_STREQ(d->v[1].status, "evicted");
	CHECK(!d->v[0].failed && !d->v[1].failed);
	CHECK_STREQ(d->v[1].config, "binary dddddddddddd");
	CHECK(NEAR(d->v[1].median_ns, 2200) && d->v[1].n_samples == 1);
	CHECK(isnan(d->v[2].median_ns) && d->n_samples == 3);
	CHECK(d->mem == 40 && d->disk == 0 && d->ptx == 10 && d->miss == 10);
	CHECK(!d->has_profiles);
	char tiers[160];
	top_format_tiers(d->mem, d->disk, d->ptx, d->miss, tiers, sizeof tiers);
	CHECK_STREQ(tiers, "hit 83.3% mem 66.7 disk 0.0 ptx 16.7 miss 16.7");
	OK("detail of reduce: binaries, BLOCK=512 timed at 2 us from 3 samples, an evicted "
	   "binary known by its key, an untimed one last; its lookups by tier: %s", tiers);
	CHECK(top_model_load_detail(&m, SIG_TRANSPOSE, 0, now) == 0);
	CHECK(d->n_v == 0 && d->n_samples == 0);
	CHECK_CONTAINS(d->rule, "default");
	OK("detail of transpose: nothing tuned, the default rule");
	top_model_close(&m);
}

static void check_bad(const char *dir)
{
	char path[TU_PATH];
	top_model m;

	tu_path(path, dir, "missing.db");
	top_model_init(&m, path);
	CHECK(top_model_refresh(&m, TOP_TEST_NOW, 1) == -1);
	CHECK(m.state == TOP_DB_MISSING);
	CHECK_CONTAINS(m.message, "no database at");
	CHECK_CONTAINS(m.message, "run a kjit program first");
	CHECK(!tu_exists(path));
	/* it appears: the next refresh shows it */
	top_test_fill(path);
	CHECK(top_model_refresh(&m, TOP_TEST_NOW, 1) == 1 && m.state == TOP_DB_OK);
	top_model_close(&m);
	OK("missing database: message, nothing created; shown once a kjit program made it");

	tu_path(path, dir, "empty.db");
	tu_write_file(path, "", 0);
	top_model_init(&m, path);
	CHECK(top_model_refresh(&m, TOP_TEST_NOW, 1) == -1 && m.state == TOP_DB_EMPTY);
	CHECK_CONTAINS(m.message, "is empty");
	top_model_close(&m);

	tu_path(path, dir, "text.db");
	tu_write_file(path, "hello, this is not SQLite at all, not even close.\n", 50);
	top_model_init(&m, path);
	CHECK(top_model_refresh(&m, TOP_TEST_NOW, 1) == -1 && m.state == TOP_DB_FOREIGN);
	CHECK_CONTAINS(m.message, "not a kjit database");
	top_model_close(&m);

	tu_path(path, dir, "foreign.db");
	sqlite3 *db = NULL;
	CHECK_SQL(db, sqlite3_open(path, &db), SQLITE_OK);
	tu_db_exec(db, "CREATE TABLE notes(x)");
	tu_db_close(db);
	top_model_init(&m, path);
	CHECK(top_model_refresh(&m, TOP_TEST_NOW, 1) == -1 && m.state == TOP_DB_FOREIGN);
	CHECK_CONTAINS(m.message, "not a kjit database");
	top_model_close(&m);

	tu_path(path, dir, "newer.db");
	top_test_fill(path);
	db = tu_db_open(path);
	tu_db_exec(db, "PRAGMA user_version = 99");
	tu_db_close(db);
	top_model_init(&m, path);
	CHECK(top_model_refresh(&m, TOP_TEST_NOW, 1) == -1 && m.state == TOP_DB_SCHEMA);
	CHECK_CONTAINS(m.message, "schema version 99");
	top_model_close(&m);

	tu_path(path, dir, "older.db");
	db = NULL;
	CHECK_SQL(db, sqlite3_open(path, &db), SQLITE_OK);
	tu_db_exec(db, "CREATE TABLE events(id INTEGER PRIMARY KEY, ts REAL); PRAGMA user_version = 1");
	tu_db_close(db);
	top_model_init(&m, path);
	CHECK(top_model_refresh(&m, TOP_TEST_NOW, 1) == -1 && m.state == TOP_DB_SCHEMA);
	CHECK_CONTAINS(m.message, "schema version 1, older than this kjit-top reads");
	CHECK_CONTAINS(m.message, "migrates it when it opens it");
	top_model_close(&m);
	OK("empty, not SQLite, foreign, newer and older schemas: a message each");
}

/* A run left "running" by a process that is gone reads as abandoned. */
static void check_abandoned(const char *path)
{
	pid_t child = fork();
	CHECK(child >= 0);
	if (child == 0)
		_exit(0);
	CHECK(tu_wait(child) == 0); /* reaped: no process has that pid now */
	sqlite3 *db = tu_db_open(path);
	char sql[512];
	snprintf(sql, sizeof sql, "INSERT INTO runs(id, signature, device_key, kernel, strategy,"
	         " problem, status, total, evaluated, pid, started, updated) VALUES (5, '"
	         SIG_SAXPY "', 'sm_90|H200', 'saxpy', 'random', '{}', 'running', 10, 1, %ld,"
	         " 1799999900, 1799999990)", (long)child);
	tu_db_exec(db, sql);
	tu_db_close(db);
	top_model m;
	top_model_init(&m, path);
	CHECK(top_model_refresh(&m, TOP_TEST_NOW, 0) == 1);
	const top_run *r = run(&m, 5);
	CHECK(r && strcmp(r->status, "abandoned") == 0 && isnan(r->eta_s));
	CHECK_EQ_U64(m.meters.active_runs, 2); /* runs 1 and 4, which have no pid */
	top_model_close(&m);
	OK("a running run whose process %ld is gone shows as abandoned, no ETA", (long)child);
}

/* Words this kjit-top does not know (a kind written "Launch", a status
 * "levitated") are counted nowhere: the reader's SQL functions give NULL
 * for them, and the known words their enums. The database's own SQL cannot
 * call those functions. */
static void check_words(const char *dir)
{
	char path[TU_PATH];
	top_test_fill(tu_path(path, dir, "words.db"));
	sqlite3 *db = tu_db_open(path);
	top_test_event(db, 5, 101, "Launch", SIG_SAXPY, "saxpy", NULL, NULL, NULL, 100000);
	top_test_event(db, 6, 103, "sample", SIG_REDUCE, "reduce", KEY_REDUCE_512, NULL, "9000", 1);
	tu_db_exec(db, "INSERT INTO results(run_id, signature, device_key, problem, config, status,"
	               " median_ns, n_samples, created, device_ordinal, device_uuid) VALUES(1, '"
	               SIG_SAXPY "', 'sm_90|H200', '{\"n\":1048576}', '{\"BLOCK_SIZE\":8}',"
	               " 'levitated', 10, 0, 1799999990, 0, '" UUID_GPU0 "')");
	tu_db_close(db);

	sqlite3 *r = NULL;
	kjit__reader_fail why;
	CHECK_OK(kjit__store_open_reader(path, &r, &why));
	char sql[TU_PATH + 512];
	snprintf(sql, sizeof sql, "SELECT %s('launch') = %d AND %s('Launch') IS NULL AND %s(NULL)"
	         " IS NULL AND %s('timeout') = %d AND %s('levitated') IS NULL",
	         KJIT__F_EVENT_KIND, KJIT__EV_LAUNCH, KJIT__F_EVENT_KIND, KJIT__F_EVENT_KIND,
	         KJIT__F_RESULT_STATUS, KJIT_RESULT_TIMEOUT, KJIT__F_RESULT_STATUS);
	sqlite3_stmt *st = NULL;
	CHECK(sqlite3_prepare_v2(r, sql, -1, &st, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1);
	sqlite3_finalize(st);
	/* a view of another file, attached: its SQL is a database's */
	char other[TU_PATH];
	tu_write_file(tu_path(other, dir, "view.db"), "", 0);
	db = tu_db_open(other);
	snprintf(sql, sizeof sql, "CREATE VIEW kinds AS SELECT %s('launch')", KJIT__F_EVENT_KIND);
	tu_db_exec(db, sql);
	tu_db_close(db);
	snprintf(sql, sizeof sql, "ATTACH '%s' AS other", other);
	CHECK(sqlite3_exec(r, sql, NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(r, "SELECT * FROM other.kinds", -1, &st, NULL) != SQLITE_OK);
	CHECK_CONTAINS(sqlite3_errmsg(r), "unsafe use of " KJIT__F_EVENT_KIND);
	sqlite3_close(r);
	OK("the reader's %s and %s: the enums of known words, NULL for others; a view cannot "
	   "call them", KJIT__F_EVENT_KIND, KJIT__F_RESULT_STATUS);

	top_model m;
	top_model_init(&m, path);
	CHECK(top_model_refresh(&m, TOP_TEST_NOW, 0) == 1);
	CHECK_MSG(m.state == TOP_DB_OK, "%s", m.message);
	CHECK(NEAR(m.meters.launches_per_s, 25));
	const top_run *run1 = run(&m, 1);
	int64_t sum = 0;
	for (int i = 0; i < KJIT__RS_COUNT; i++)
		sum += run1->by_status[i];
	CHECK(sum == 40 && run1->by_status[KJIT_RESULT_OK] == 30);
	CHECK(top_model_load_detail(&m, SIG_REDUCE, 0, TOP_TEST_NOW) == 0);
	CHECK(NEAR(m.detail.v[0].median_ns, 2000) && m.detail.v[0].n_samples == 3);
	CHECK(top_model_load_detail(&m, SIG_SAXPY, 0, TOP_TEST_NOW) == 0);
	CHECK_STREQ(m.detail.v[0].status, "levitated");
	CHECK(!m.detail.v[0].failed);
	top_model_close(&m);
	OK("an unknown kind's launches, an unknown status and a sample of an unknown kind counted "
	   "nowhere");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	CHECK(isnan(top_percentile(NULL, 0, 0.5)));
	const double v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	CHECK(top_percentile(v, 10, 0.5) == 5 && top_percentile(v, 10, 0.95) == 10 &&
	      top_percentile(v, 10, 0) == 1 && top_percentile(v, 1, 0.95) == 1);
	OK("nearest-rank percentiles");

	const char *dir = tu_tmpdir();
	char path[TU_PATH];
	tu_path(path, dir, "kjit.db");
	top_test_fill(path);
	check_known(path);
	check_abandoned(path);
	check_words(dir);
	check_bad(dir);
	printf("PASS\n");
	return 0;
}
