/*
 * test-telemetry-retention: kjit__telemetry_retain() on a real file.
 *
 *  - by age: events 10 days old go, events of today stay, every one of
 *    them (with max_age_s = 7 days);
 *  - by count: with max_rows = 100 exactly the 100 newest by ts stay, ts
 *    deliberately not in id order, so that "oldest" is not "lowest id";
 *  - large backlogs (more than one delete chunk) go in full;
 *  - the writer applies retention on its own at open;
 *  - rows of the other tables are never touched.
 */
#include "testutil.h"

#include "instr.h"

#define DAY 86400.0

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(((long long)(ms * 1e6)) % 1000000000) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static kjit__telemetry *tel_open(const char *path, double max_age_s, int64_t max_rows)
{
	kjit__telemetry_opts o;
	kjit__telemetry_defaults(&o);
	o.interval_ms = 3600e3; /* only explicit flushes write */
	o.max_age_s = max_age_s;
	o.max_rows = max_rows;
	kjit__telemetry *t = NULL;
	CHECK_OK(kjit__telemetry_open(path, &o, &t));
	return t;
}

static void record_at(kjit__telemetry *t, double ts, const char *detail)
{
	kjit__event ev;
	memset(&ev, 0, sizeof ev);
	ev.ts = ts;
	ev.kind = KJIT__EV_COMPILE;
	snprintf(ev.tier, sizeof ev.tier, "miss");
	snprintf(ev.detail, sizeof ev.detail, "%s", detail);
	kjit__telemetry_record(t, &ev);
}

/* Inserts n events straight into the table, in one transaction. */
static void insert_direct(sqlite3 *db, int n, double ts0, double step, const char *detail)
{
	sqlite3_stmt *st = NULL;
	tu_db_exec(db, "BEGIN");
	CHECK_SQL(db, sqlite3_prepare_v2(db, "INSERT INTO events(ts, pid, kind, detail)"
	                                 " VALUES(?1, 1, 'cache', ?2)", -1, &st, NULL), SQLITE_OK);
	for (int i = 0; i < n; i++) {
		CHECK_SQL(db, sqlite3_bind_double(st, 1, ts0 + i * step), SQLITE_OK);
		CHECK_SQL(db, sqlite3_bind_text(st, 2, detail, -1, SQLITE_STATIC), SQLITE_OK);
		CHECK_SQL(db, sqlite3_step(st), SQLITE_DONE);
		CHECK_SQL(db, sqlite3_reset(st), SQLITE_OK);
	}
	sqlite3_finalize(st);
	tu_db_exec(db, "COMMIT");
}

static long long count_of(sqlite3 *db, const char *detail)
{
	return tu_db_int(db, "SELECT count(*) FROM events WHERE detail = ?1", detail);
}

/* Rows of the other tables, summed, so that any change shows. */
static long long others(sqlite3 *db)
{
	return tu_db_int(db, "SELECT (SELECT count(*) FROM devices) + (SELECT count(*) FROM kernels)"
	                 " + (SELECT count(*) FROM runs) + (SELECT count(*) FROM cache_size)", NULL);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	double start = tu_now();
	char path[TU_PATH];
	tu_path(path, tu_tmpdir(), "retention.db");
	double now = kjit__wall_time();

	/* Fill through a handle with retention off (0 disables both rules). */
	kjit__telemetry *t = tel_open(path, 0, 0);
	for (int i = 0; i < 300; i++)
		record_at(t, now - 10 * DAY - i, "old");
	for (int i = 0; i < 200; i++)
		record_at(t, now - 6 * DAY + i, "new");
	CHECK_OK(kjit__telemetry_flush(t));
	CHECK_OK(kjit__telemetry_retain(t));
	kjit__telemetry_close(t);
	sqlite3 *db = tu_db_open(path);
	CHECK(count_of(db, "old") == 300 && count_of(db, "new") == 200);
	tu_db_exec(db, "INSERT INTO kernels VALUES('sig', 'k', 'src', 'N', 0);"
	               "INSERT INTO devices(key, name, arch, sm_count, driver_version, first_seen,"
	               " last_seen) VALUES('d', 'GPU', 'sm_90', 132, 13000, 0, 0);"
	               "INSERT INTO runs(signature, device_key, kernel, strategy, problem, started,"
	               " updated) VALUES('sig', 'd', 'k', 'random', '{}', 0, 0)");
	long long other_rows = others(db);
	long long new_ids = tu_db_int(db, "SELECT sum(id) FROM events WHERE detail = 'new'", NULL);
	OK("retention off: 500 events kept");

	/* By age. */
	t = tel_open(path, 7 * DAY, 0);
	CHECK_OK(kjit__telemetry_retain(t));
	CHECK(count_of(db, "old") == 0);
	CHECK(count_of(db, "new") == 200);
	CHECK(tu_db_int(db, "SELECT sum(id) FROM events WHERE detail = 'new'", NULL) == new_ids);
	CHECK(tu_db_int(db, "SELECT count(*) FROM events", NULL) == 200);
	CHECK(others(db) == other_rows);
	OK("max_age_s 7 days: the 300 events 10 days old deleted, the 200 newer kept");

	/* A backlog larger than one delete chunk, straight in the table. */
	insert_direct(db, 12000, now - 30 * DAY, 1, "backlog");
	CHECK_OK(kjit__telemetry_retain(t));
	CHECK(count_of(db, "backlog") == 0);
	CHECK(count_of(db, "new") == 200);
	kjit__telemetry_close(t);
	OK("a backlog of 12000 old events deleted in full");

	/* By count, with ts not in id order: (i * 37) % 250 is a permutation. */
	t = tel_open(path, 0, 0);
	for (int i = 0; i < 250; i++) {
		char d[16];
		snprintf(d, sizeof d, "r%d", (i * 37) % 250);
		record_at(t, now - 1000 + (i * 37) % 250, d);
	}
	CHECK_OK(kjit__telemetry_flush(t));
	kjit__telemetry_close(t);
	CHECK(tu_db_int(db, "SELECT count(*) FROM events", NULL) == 450);
	long long keep_ids = tu_db_int(db, "SELECT sum(id) FROM (SELECT id FROM events"
	                               " ORDER BY ts DESC, id DESC LIMIT 100)", NULL);
	t = tel_open(path, 0, 100);
	CHECK_OK(kjit__telemetry_retain(t));
	CHECK(tu_db_int(db, "SELECT count(*) FROM events", NULL) == 100);
	CHECK(tu_db_int(db, "SELECT sum(id) FROM events", NULL) == keep_ids);
	char cut[64];
	snprintf(cut, sizeof cut, "%.17g", now - 1000 + 150); /* r150, the oldest kept */
	CHECK(tu_db_int(db, "SELECT count(*) FROM events WHERE ts < CAST(?1 AS REAL)", cut) == 0);
	/* the 100 newest: r150..r249 (ts now - 1000 + 150..249) */
	CHECK(tu_db_int(db, "SELECT count(*) FROM events WHERE detail LIKE 'r%'"
	                " AND CAST(substr(detail, 2) AS INTEGER) >= 150", NULL) == 100);
	CHECK(others(db) == other_rows);
	OK("max_rows 100: the 100 newest by ts kept (not the highest ids), 350 deleted");

	/* More than one chunk over the row limit. */
	insert_direct(db, 12000, now - 100, 0.001, "bulk");
	CHECK_OK(kjit__telemetry_retain(t));
	CHECK(tu_db_int(db, "SELECT count(*) FROM events", NULL) == 100);
	CHECK(count_of(db, "bulk") == 100);
	CHECK(tu_db_int(db, "SELECT min(ts) FROM events", NULL) >= (long long)(now - 100 + 11.9));
	kjit__telemetry_close(t);
	CHECK(others(db) == other_rows);
	OK("12100 events cut to the newest 100 across several delete chunks");

	/* The writer prunes on its own when it starts. */
	insert_direct(db, 50, now - 9 * DAY, 1, "stale");
	t = tel_open(path, 7 * DAY, 0);
	double end = tu_now() + 5;
	while (count_of(db, "stale") != 0) {
		if (tu_now() > end)
			TU_FAIL("the writer did not prune at open");
		sleep_ms(5);
	}
	CHECK(count_of(db, "bulk") == 100);
	kjit__telemetry_close(t);
	CHECK(others(db) == other_rows);
	OK("the writer applies retention at open");
	tu_db_close(db);
	printf("PASS (%.1f s)\n", tu_now() - start);
	return 0;
}
