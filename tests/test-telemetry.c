/*
 * test-telemetry: the telemetry writer on real SQLite files.
 *
 *  - batching: events recorded from 8 threads reach the events table once
 *    each, with every field as recorded, written by the writer thread on
 *    its own in a few transactions;
 *  - consistency: a reader polling on its own connection only ever sees
 *    whole batches, both for the writer thread's ticks (groups recorded by
 *    a sampler) and for explicit flushes;
 *  - no checkpoint starvation: between ticks the writer holds no read
 *    transaction, so a TRUNCATE checkpoint empties the WAL;
 *  - close writes what is left (and samples once more);
 *  - open errors name the path; ":memory:" works.
 */
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>

#include "instr.h"

static kjit__telemetry *tel_open(const char *path, size_t ring, double interval_ms)
{
	kjit__telemetry_opts o;
	kjit__telemetry_defaults(&o);
	o.ring_capacity = ring;
	o.interval_ms = interval_ms;
	kjit__telemetry *t = NULL;
	CHECK_OK(kjit__telemetry_open(path, &o, &t));
	CHECK(t != NULL);
	return t;
}

static kjit__telemetry_stats tel_stats(kjit__telemetry *t)
{
	kjit__telemetry_stats s;
	kjit__telemetry_get_stats(t, &s);
	return s;
}

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(((long long)(ms * 1e6)) % 1000000000) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Waits (up to 10 s) until the writer has written `want` events. */
static void wait_written(kjit__telemetry *t, uint64_t want)
{
	double end = tu_now() + 10;
	while (tel_stats(t).written < want) {
		if (tu_now() > end)
			TU_FAIL("the writer wrote %llu of %llu events in 10 s",
			        (unsigned long long)tel_stats(t).written, (unsigned long long)want);
		sleep_ms(5);
	}
}

/* ---- 1. batching from many threads ----------------------------------------- */

#define B_THREADS 8
#define B_PER 2000
#define B_N (B_THREADS * B_PER)
#define B_FIXED_TS 1500000000.0

typedef struct batch_arg {
	kjit__telemetry *t;
	int thread;
} batch_arg;

/* Every field of event i of thread th is a function of (th, i), so that
 * the check can recompute it from the row's detail. */
static void batch_event(kjit__event *ev, int th, int i)
{
	memset(ev, 0, sizeof *ev);
	ev->ts = i % 7 == 0 ? B_FIXED_TS + th * B_PER + i : 0;
	ev->kind = (kjit__event_kind)(i % 5);
	if (i % 4)
		snprintf(ev->signature, sizeof ev->signature, "sig%02d", th);
	snprintf(ev->kernel, sizeof ev->kernel, "kernel_%d", th);
	if (i % 3 == 1)
		snprintf(ev->variant, sizeof ev->variant, "%032x", (unsigned)(th * B_PER + i));
	if (i % 2)
		snprintf(ev->tier, sizeof ev->tier, "%s", i % 4 == 1 ? "memory" : "disk");
	ev->value = th * 100000.0 + i + 0.25;
	ev->count = i % 3;
	snprintf(ev->detail, sizeof ev->detail, "t%d#%d", th, i);
}

static void *batch_thread(void *p)
{
	batch_arg *a = p;
	for (int i = 0; i < B_PER; i++) {
		kjit__event ev;
		batch_event(&ev, a->thread, i);
		kjit__telemetry_record(a->t, &ev);
	}
	return NULL;
}

static int same_text(const unsigned char *col, const char *want)
{
	if (!*want)
		return col == NULL; /* "" is stored as NULL */
	return col && strcmp((const char *)col, want) == 0;
}

static void test_batching(const char *dir)
{
	char path[TU_PATH];
	tu_path(path, dir, "batch.db");
	kjit__telemetry *t = tel_open(path, 65536, 50);
	double t0 = kjit__wall_time();
	pthread_t th[B_THREADS];
	batch_arg args[B_THREADS];
	for (int i = 0; i < B_THREADS; i++) {
		args[i] = (batch_arg){ t, i };
		CHECK(pthread_create(&th[i], NULL, batch_thread, &args[i]) == 0);
	}
	for (int i = 0; i < B_THREADS; i++)
		pthread_join(th[i], NULL);
	double t1 = kjit__wall_time();
	/* No flush: the writer thread writes them within a few intervals. */
	wait_written(t, B_N);
	kjit__telemetry_stats s = tel_stats(t);
	CHECK_EQ_U64(s.recorded, B_N);
	CHECK_EQ_U64(s.written, B_N);
	CHECK_EQ_U64(s.dropped, 0);
	CHECK_MSG(s.batches >= 1 && s.batches <= 40, "batches %llu", (unsigned long long)s.batches);
	OK("%d events from %d threads written by the writer thread in %llu transactions",
	   B_N, B_THREADS, (unsigned long long)s.batches);

	sqlite3 *db = tu_db_open(path);
	CHECK(tu_db_int(db, "SELECT count(*) FROM events", NULL) == B_N);
	CHECK(tu_db_int(db, "SELECT count(DISTINCT detail) FROM events", NULL) == B_N);
	char pid[32];
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	CHECK(tu_db_int(db, "SELECT count(*) FROM events WHERE pid = CAST(?1 AS INTEGER)", pid) == B_N);
	sqlite3_stmt *st = NULL;
	CHECK_SQL(db, sqlite3_prepare_v2(db, "SELECT ts, kind, signature, kernel, variant, tier,"
	                                 " value, count, detail FROM events", -1, &st, NULL),
	          SQLITE_OK);
	int rows = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int thr = -1, i = -1;
		const char *detail = (const char *)sqlite3_column_text(st, 8);
		CHECK(detail && sscanf(detail, "t%d#%d", &thr, &i) == 2);
		CHECK(thr >= 0 && thr < B_THREADS && i >= 0 && i < B_PER);
		kjit__event ev;
		batch_event(&ev, thr, i);
		double ts = sqlite3_column_double(st, 0);
		if (ev.ts != 0)
			CHECK_MSG(ts == ev.ts, "%s: ts %.6f, recorded %.6f", detail, ts, ev.ts);
		else
			CHECK_MSG(ts >= t0 - 1 && ts <= t1 + 1, "%s: ts %.6f not filled in by record",
			          detail, ts);
		CHECK_STREQ((const char *)sqlite3_column_text(st, 1), kjit__event_kind_name(ev.kind));
		CHECK_MSG(same_text(sqlite3_column_text(st, 2), ev.signature), "%s: signature", detail);
		CHECK_MSG(same_text(sqlite3_column_text(st, 3), ev.kernel), "%s: kernel", detail);
		CHECK_MSG(same_text(sqlite3_column_text(st, 4), ev.variant), "%s: variant", detail);
		CHECK_MSG(same_text(sqlite3_column_text(st, 5), ev.tier), "%s: tier", detail);
		CHECK_MSG(sqlite3_column_double(st, 6) == ev.value, "%s: value", detail);
		CHECK_MSG(sqlite3_column_int64(st, 7) == (ev.count ? ev.count : 1), "%s: count", detail);
		rows++;
	}
	CHECK_SQL(db, rc, SQLITE_DONE);
	sqlite3_finalize(st);
	CHECK(rows == B_N);
	OK("every row as recorded: ts kept or filled in, \"\" as NULL, count 0 as 1, pid");
	tu_db_close(db);
	kjit__telemetry_close(t);
}

/* ---- 2. a reader sees whole batches only ---------------------------------- */

#define G_K 300 /* events per group */
#define G_N 30  /* groups */

typedef struct reader {
	char path[TU_PATH];
	const char *like;  /* the groups this reader checks: detail LIKE this */
	atomic_int stop;
	long polls, partial, bad_total, changes;
	long long last_total;
} reader;

/* Polls with one statement (one snapshot): the number of rows of the
 * groups, and how many groups have a count other than G_K. Row-by-row
 * commits would show partial groups here. */
static void *reader_main(void *p)
{
	reader *r = p;
	sqlite3 *db = tu_db_open(r->path);
	sqlite3_stmt *st = NULL;
	CHECK_SQL(db, sqlite3_prepare_v2(db,
	          "SELECT (SELECT count(*) FROM events WHERE detail LIKE ?1),"
	          " (SELECT count(*) FROM (SELECT detail FROM events WHERE detail LIKE ?1"
	          " GROUP BY detail HAVING count(*) != ?2))", -1, &st, NULL), SQLITE_OK);
	CHECK_SQL(db, sqlite3_bind_text(st, 1, r->like, -1, SQLITE_STATIC), SQLITE_OK);
	CHECK_SQL(db, sqlite3_bind_int(st, 2, G_K), SQLITE_OK);
	/* The last poll starts after stop is set, i.e. after the last commit. */
	for (int last = 0; !last;) {
		last = atomic_load(&r->stop);
		CHECK_SQL(db, sqlite3_step(st), SQLITE_ROW);
		long long total = sqlite3_column_int64(st, 0);
		r->partial += sqlite3_column_int64(st, 1) != 0;
		r->bad_total += total % G_K != 0;
		r->changes += total != r->last_total;
		r->last_total = total;
		r->polls++;
		CHECK_SQL(db, sqlite3_reset(st), SQLITE_OK);
	}
	sqlite3_finalize(st);
	tu_db_close(db);
	return NULL;
}

typedef struct group_sampler {
	atomic_int next; /* groups recorded so far */
} group_sampler;

/* Records one whole group per tick: it runs on the writer thread before
 * the write, so the group must land in that tick's transaction. */
static void record_group_sampler(void *ctx, kjit__telemetry *t)
{
	group_sampler *g = ctx;
	int n = atomic_load(&g->next);
	if (n >= G_N)
		return;
	for (int i = 0; i < G_K; i++) {
		kjit__event ev;
		memset(&ev, 0, sizeof ev);
		ev.kind = KJIT__EV_TUNE;
		ev.value = i;
		snprintf(ev.detail, sizeof ev.detail, "g%d", n);
		kjit__telemetry_record(t, &ev);
	}
	atomic_store(&g->next, n + 1);
}

static void check_reader(reader *r, const char *what)
{
	CHECK_MSG(r->partial == 0, "%s: %ld of %ld polls saw a partial group", what, r->partial,
	          r->polls);
	CHECK_MSG(r->bad_total == 0, "%s: %ld polls saw a row count not a multiple of %d", what,
	          r->bad_total, G_K);
	CHECK_MSG(r->last_total == (long long)G_N * G_K, "%s: reader's last count %lld", what,
	          r->last_total);
	/* The reader watched the table grow, so the check was not vacuous. */
	CHECK_MSG(r->changes >= 3, "%s: the reader saw only %ld changes in %ld polls", what,
	          r->changes, r->polls);
	OK("%s: %ld polls by a reader, %ld changes seen, never a partial group of %d", what,
	   r->polls, r->changes, G_K);
}

/* busy 0 and no frame left in the log, or it fails. */
static void truncate_checkpoint(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	CHECK_SQL(db, sqlite3_prepare_v2(db, "PRAGMA wal_checkpoint(TRUNCATE)", -1, &st, NULL),
	          SQLITE_OK);
	CHECK_SQL(db, sqlite3_step(st), SQLITE_ROW);
	CHECK_MSG(sqlite3_column_int(st, 0) == 0 && sqlite3_column_int(st, 1) == 0,
	          "checkpoint: busy %d, log %d, checkpointed %d", sqlite3_column_int(st, 0),
	          sqlite3_column_int(st, 1), sqlite3_column_int(st, 2));
	sqlite3_finalize(st);
}

static void test_reader_consistency(const char *dir)
{
	char path[TU_PATH];
	tu_path(path, dir, "reader.db");

	/* The writer thread's ticks, fed by a sampler. */
	kjit__telemetry *t = tel_open(path, 65536, 10);
	reader r = { .like = "g%" };
	snprintf(r.path, sizeof r.path, "%s", path);
	pthread_t th;
	CHECK(pthread_create(&th, NULL, reader_main, &r) == 0);
	group_sampler gs;
	atomic_init(&gs.next, 0);
	CHECK_OK(kjit__telemetry_add_sampler(t, record_group_sampler, &gs));
	wait_written(t, (uint64_t)G_N * G_K);
	sleep_ms(20);
	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	kjit__telemetry_stats s = tel_stats(t);
	CHECK_EQ_U64(s.written, (uint64_t)G_N * G_K);
	CHECK(s.batches >= G_N);
	check_reader(&r, "writer thread");
	kjit__telemetry_close(t);

	/* Explicit flushes, the writer thread idle (a one-hour interval). */
	t = tel_open(path, 65536, 3600e3);
	reader r2 = { .like = "f%" };
	snprintf(r2.path, sizeof r2.path, "%s", path);
	CHECK(pthread_create(&th, NULL, reader_main, &r2) == 0);
	for (int g = 0; g < G_N; g++) {
		for (int i = 0; i < G_K; i++) {
			kjit__event ev;
			memset(&ev, 0, sizeof ev);
			ev.kind = KJIT__EV_LAUNCH;
			ev.value = i;
			snprintf(ev.detail, sizeof ev.detail, "f%d", g);
			kjit__telemetry_record(t, &ev);
		}
		CHECK_OK(kjit__telemetry_flush(t));
		CHECK_EQ_U64(tel_stats(t).written, (uint64_t)(g + 1) * G_K);
		sleep_ms(5);
	}
	sleep_ms(20);
	atomic_store(&r2.stop, 1);
	pthread_join(th, NULL);
	CHECK_EQ_U64(tel_stats(t).batches, G_N);
	check_reader(&r2, "flush");

	/* Between ticks the writer holds no read transaction: a TRUNCATE
	 * checkpoint gets every frame and empties the WAL, after a flush and
	 * after a retain. */
	sqlite3 *db = tu_db_open(path);
	sqlite3_busy_timeout(db, 2000);
	truncate_checkpoint(db);
	for (int i = 0; i < 100; i++) {
		kjit__event ev;
		memset(&ev, 0, sizeof ev);
		ev.ts = 1000; /* old: retain deletes them */
		kjit__telemetry_record(t, &ev);
	}
	CHECK_OK(kjit__telemetry_flush(t));
	CHECK_OK(kjit__telemetry_retain(t));
	CHECK(tu_db_int(db, "SELECT count(*) FROM events WHERE ts = 1000", NULL) == 0);
	truncate_checkpoint(db);
	tu_db_close(db);
	char wal[TU_PATH + 8];
	snprintf(wal, sizeof wal, "%s-wal", path);
	struct stat sb;
	CHECK(stat(wal, &sb) == 0 && sb.st_size == 0);
	OK("no checkpoint starvation: TRUNCATE checkpoint not busy with the writer open");
	kjit__telemetry_close(t);
}

/* ---- 3. close writes what is left ------------------------------------------ */

static void cache_sampler(void *ctx, kjit__telemetry *t)
{
	atomic_int *calls = ctx;
	atomic_fetch_add(calls, 1);
	kjit__event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = KJIT__EV_CACHE;
	snprintf(ev.tier, sizeof ev.tier, "memory");
	ev.count = 7;
	snprintf(ev.detail, sizeof ev.detail, "sampled");
	kjit__telemetry_record(t, &ev);
}

static void test_close(const char *dir)
{
	char path[TU_PATH];
	tu_path(path, dir, "close.db");
	kjit__telemetry *t = tel_open(path, 4096, 3600e3);
	atomic_int calls;
	atomic_init(&calls, 0);
	CHECK_OK(kjit__telemetry_add_sampler(t, cache_sampler, &calls));
	for (int i = 0; i < 1000; i++) {
		kjit__event ev;
		memset(&ev, 0, sizeof ev);
		ev.kind = KJIT__EV_LOAD;
		ev.value = i;
		snprintf(ev.detail, sizeof ev.detail, "left%d", i);
		kjit__telemetry_record(t, &ev);
	}
	sqlite3 *db = tu_db_open(path);
	CHECK(tu_db_int(db, "SELECT count(*) FROM events", NULL) == 0);
	kjit__telemetry_close(t);
	CHECK(atomic_load(&calls) == 1);
	CHECK(tu_db_int(db, "SELECT count(*) FROM events WHERE kind = 'load'", NULL) == 1000);
	CHECK(tu_db_int(db, "SELECT count(DISTINCT detail) FROM events WHERE kind = 'load'", NULL)
	      == 1000);
	CHECK(tu_db_int(db, "SELECT count(*) FROM events WHERE kind = 'cache' AND tier = 'memory'"
	                " AND count = 7 AND detail = 'sampled'", NULL) == 1);
	tu_db_close(db);
	OK("close wrote the 1000 events left in the ring and ran the samplers a last time");
}

/* ---- 4. opening ------------------------------------------------------------ */

static void test_open_errors(const char *dir)
{
	char file[TU_PATH], path[TU_PATH], junk[TU_PATH];
	tu_path(file, dir, "plain-file");
	tu_write_file(file, "x", 1);
	tu_path(path, file, "t.db"); /* a folder that is a file */
	kjit__telemetry *t = (kjit__telemetry *)&t;
	CHECK(kjit__telemetry_open(path, NULL, &t) != KJIT_OK);
	CHECK(t == NULL);
	CHECK_CONTAINS(kjit_last_error(), path);
	CHECK_CONTAINS(kjit_last_error(), "telemetry");
	OK("bad path refused: %s", kjit_last_error());

	tu_path(junk, dir, "junk.db");
	char bytes[8192];
	for (size_t i = 0; i < sizeof bytes; i++)
		bytes[i] = (char)(i * 131 + 7);
	tu_write_file(junk, bytes, sizeof bytes);
	CHECK_ST(kjit__telemetry_open(junk, NULL, &t), KJIT_ERR_DB);
	CHECK(t == NULL);
	CHECK_CONTAINS(kjit_last_error(), junk);
	OK("not a database refused: %s", kjit_last_error());

	kjit__telemetry_opts o;
	kjit__telemetry_defaults(&o);
	CHECK(o.ring_capacity == 65536 && o.interval_ms == 250 && o.max_age_s == 7 * 86400.0 &&
	      o.max_rows == 1000000);
	CHECK_ST(kjit__telemetry_open(NULL, NULL, &t), KJIT_ERR_INVALID_ARG);
	o.ring_capacity = 0;
	tu_path(path, dir, "never.db");
	CHECK_ST(kjit__telemetry_open(path, &o, &t), KJIT_ERR_INVALID_ARG);
	kjit__telemetry_defaults(&o);
	o.interval_ms = 0;
	CHECK_ST(kjit__telemetry_open(path, &o, &t), KJIT_ERR_INVALID_ARG);
	CHECK(!tu_exists(path));
	CHECK_ST(kjit__telemetry_flush(NULL), KJIT_ERR_INVALID_ARG);
	kjit__telemetry_record(NULL, NULL);
	kjit__telemetry_close(NULL);
	OK("invalid arguments refused");

	/* ":memory:": a private database of the writer's own connection. */
	CHECK_OK(kjit__telemetry_open(":memory:", NULL, &t));
	kjit__event ev;
	memset(&ev, 0, sizeof ev);
	ev.kind = KJIT__EV_COMPILE;
	for (int i = 0; i < 10; i++)
		kjit__telemetry_record(t, &ev);
	CHECK_OK(kjit__telemetry_flush(t));
	CHECK_OK(kjit__telemetry_retain(t));
	CHECK_EQ_U64(tel_stats(t).written, 10);
	kjit__telemetry_close(t);
	OK("\":memory:\" works (events kept in the writer's private database)");

	CHECK_STREQ(kjit__event_kind_name(KJIT__EV_COMPILE), "compile");
	CHECK_STREQ(kjit__event_kind_name(KJIT__EV_CACHE), "cache");
	CHECK_STREQ(kjit__event_kind_name(KJIT__EV_LOAD), "load");
	CHECK_STREQ(kjit__event_kind_name(KJIT__EV_LAUNCH), "launch");
	CHECK_STREQ(kjit__event_kind_name(KJIT__EV_TUNE), "tune");
	CHECK_STREQ(kjit__event_kind_name(KJIT__EV_DROP), "drop");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	double t0 = tu_now();
	test_batching(dir);
	test_reader_consistency(dir);
	test_close(dir);
	test_open_errors(dir);
	printf("PASS (%.1f s)\n", tu_now() - t0);
	return 0;
}
