/*
 * test-tune-migrate - databases of schema versions 2 and 4, made here
 * with the tables as those versions defined them and rows in every one,
 * opened by this kjit: migrated in place to the current version, every
 * row and every value kept, the results' device columns NULL for the
 * rows from before version 3 and filled by the next measurement, the
 * best row's objective "time", no profiles until one is recorded; a
 * newer version refused, unchanged.
 */
#include "testutil.h"
#include "old-schemas.h"

#include "results.h"

#define SIG "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
#define DEV "sm_90|NVIDIA H200|132|13000"
#define PROB "{\"n\":1024}"

/* Rows in every table, as kjit-tune and the C API of version 2 left them. */
static const char rows_v2[] =
	"INSERT INTO devices VALUES(1, '" DEV "', 'NVIDIA H200', 'sm_90', 132, 13000, 1.5e9,"
	" 1.6e9);"
	"INSERT INTO kernels VALUES('" SIG "', 'saxpy', 'src', 'BLOCK', 1.5e9);"
	"INSERT INTO binaries VALUES(7, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '" SIG "',"
	" '-DBLOCK=256', 'sm_90', '13.0', 'saxpy', 4, 'c', 50.5, 1.5e9, 1.6e9, x'7f454c46');"
	"INSERT INTO manifests VALUES('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'b', '- - - a.h', 1.5e9);"
	"INSERT INTO runs(id, signature, device_key, kernel, spec, strategy, problem, total,"
	" evaluated, pid, started, updated) VALUES(3, '" SIG "', '" DEV "', 'saxpy', 'saxpy.json',"
	" 'random', '" PROB "', 10, 3, NULL, 1.5e9, 1.5e9 + 60);"
	"INSERT INTO results VALUES(1, 3, '" SIG "', '" DEV "', '" PROB "', '{\"BLOCK\":128}',"
	" 'b1', 'ok', 'cupti', 'warm', 1234.5, 2.25, 1230, 1240, 2,"
	" x'00000000004893400000000000509340', 1234.5, 50.5, NULL, 1.5e9 + 10);"
	"INSERT INTO results VALUES(2, 3, '" SIG "', '" DEV "', '" PROB "', '{\"BLOCK\":128}',"
	" 'b1', 'ok', 'cupti', 'cold', 2345.25, 3, 2340, 2350, 0, NULL, 2345.25, 50.5, NULL,"
	" 1.5e9 + 20);"
	"INSERT INTO results VALUES(3, 3, '" SIG "', '" DEV "', '" PROB "', '{\"BLOCK\":2048}',"
	" NULL, 'launch_error', NULL, 'warm', NULL, NULL, NULL, NULL, 0, NULL, NULL, 12.25,"
	" 'too many resources, \"requested\"', 1.5e9 + 30);"
	"INSERT INTO best VALUES('" SIG "', '" DEV "', '" PROB "', 'sm_90', '{\"BLOCK\":128}', 1,"
	" 1234.5, '13.0', 0, 1.5e9 + 10);"
	"INSERT INTO events(ts, pid, kind, signature, kernel, tier, value, count, detail)"
	" VALUES(1.5e9, 42, 'tune', '" SIG "', 'saxpy', NULL, 3, 1, 'run 3 running');";

static const char *const tables[] = { "devices", "kernels", "binaries", "cache_size",
	                              "manifests", "runs", "results", "best", "events" };
#define N_TABLES (sizeof tables / sizeof *tables)

/* The quoted columns of table, as it is now, joined for a SELECT. */
static char *columns_of(sqlite3 *db, const char *table)
{
	char out[2048];
	tu_db_text(db, "SELECT group_concat('quote(' || name || ')', ' || '','' || ')"
	           " FROM pragma_table_info(?1)", table, out, sizeof out);
	CHECK_MSG(out[0], "no table %s", table);
	return strdup(out);
}

/* Every row of table, those columns, one line each, in rowid order. */
static char *dump(sqlite3 *db, const char *table, const char *columns)
{
	char *sql = kjit__strdup_printf("SELECT coalesce(group_concat(r, char(10)), '') FROM"
	                                " (SELECT %s AS r FROM %s ORDER BY rowid)", columns, table);
	CHECK(sql);
	static char out[65536];
	tu_db_text(db, sql, NULL, out, sizeof out);
	free(sql);
	return strdup(out);
}

/* A database of version (2 or 4) with the rows of rows_v2 (at 4, the
 * first result names its device), migrated by opening it: every row of
 * every table as it was, the new columns and tables there. Its path
 * into path. */
static void migrate_from(const char *dir, int version, char *path)
{
	char name[16];
	snprintf(name, sizeof name, "v%d.db", version);
	tu_path(path, dir, name);
	sqlite3 *db = NULL;
	CHECK_SQL(db, sqlite3_open(path, &db), SQLITE_OK);
	tu_db_exec(db, TU_SCHEMA_V1 TU_SCHEMA_V2);
	tu_db_exec(db, rows_v2);
	if (version == 4)
		tu_db_exec(db, TU_SCHEMA_V3 TU_SCHEMA_V4
		           "UPDATE results SET device_ordinal = 0, device_uuid = 'GPU-0' WHERE id = 1;");
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d;", version);
	tu_db_exec(db, sql);
	char *cols[N_TABLES], *before[N_TABLES];
	for (size_t i = 0; i < N_TABLES; i++) {
		cols[i] = columns_of(db, tables[i]);
		before[i] = dump(db, tables[i], cols[i]);
	}
	CHECK(tu_db_int(db, "SELECT count(*) FROM results", NULL) == 3);
	tu_db_close(db);

	kjit_records *r;
	CHECK_OK(kjit_records_open(path, 0, &r));
	CHECK_OK(kjit_records_close(r));
	db = tu_db_open(path);
	CHECK(tu_db_int(db, "PRAGMA user_version", NULL) == KJIT__SCHEMA_VERSION);
	for (size_t i = 0; i < N_TABLES; i++) {
		char *after = dump(db, tables[i], cols[i]);
		CHECK_MSG(strcmp(before[i], after) == 0, "%s changed:\n%s\n--- now\n%s", tables[i],
		          before[i], after);
		free(after);
		free(cols[i]);
		free(before[i]);
	}
	CHECK(tu_db_int(db, "SELECT count(*) FROM pragma_table_info('results') WHERE"
	                " (name = 'device_ordinal' AND type = 'INTEGER') OR"
	                " (name = 'device_uuid' AND type = 'TEXT')", NULL) == 2);
	CHECK(tu_db_int(db, "SELECT count(*) FROM results WHERE device_ordinal IS NULL AND"
	                " device_uuid IS NULL", NULL) == (version == 4 ? 2 : 3));
	CHECK(tu_db_int(db, "SELECT count(*) FROM best WHERE objective = 'time'", NULL) == 1);
	CHECK(tu_db_int(db, "SELECT count(*) FROM pragma_table_info('profiles')", NULL) == 31);
	CHECK(tu_db_int(db, "SELECT count(*) FROM profiles", NULL) == 0);
	tu_db_close(db);
	OK("a version %d database migrates to %d in place: the rows of its %zu tables unchanged, "
	   "results have device_ordinal and device_uuid (NULL for the rows from before 3), the "
	   "best row's objective is time, profiles is there and empty",
	   version, KJIT__SCHEMA_VERSION, N_TABLES);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char path[TU_PATH];
	migrate_from(dir, 4, path);
	migrate_from(dir, 2, path);
	kjit_records *r;
	sqlite3 *db;

	/* the run goes on, on a known device */
	CHECK_OK(kjit_records_open(path, 0, &r));
	kjit_run_desc d = { .signature = SIG, .device_key = DEV, .kernel = "saxpy",
		             .spec = "saxpy.json", .strategy = "random", .problem = PROB, .total = 10 };
	kjit_run *run;
	CHECK_OK(kjit_record_run_start(r, &d, &run));
	CHECK(run->resumed && run->id == 3);
	kjit_eval e = { .config = "{\"BLOCK\":256}", .status = KJIT_RESULT_OK, .timer = "cupti", .l2 = "warm",
		      .median_ns = 1000, .spread_ns = 1, .min_ns = 999, .max_ns = 1001,
		      .objective = 1000, .compile_ms = 40, .arch = "sm_90", .nvrtc = "13.0",
		      .has_device_ordinal = 1, .device_ordinal = 1,
		      .device_uuid = "GPU-3f9d7b25-6a1e-4c8b-b2d4-9e0f1a2b3c4d", .has_profile = 1 };
	kjit_profile_clear(&e.profile);
	e.profile.dram_bytes_per_s = 3e12;
	int improved = 0;
	CHECK_OK(kjit_record_eval(r, run, &e, NULL, &improved));
	CHECK(improved);
	kjit_run_free(run);
	CHECK_OK(kjit_records_close(r));
	db = tu_db_open(path);
	char text[256];
	tu_db_text(db, "SELECT device_ordinal || ' ' || device_uuid FROM results WHERE config = ?1",
	           "{\"BLOCK\":256}", text, sizeof text);
	CHECK_STREQ(text, "1 GPU-3f9d7b25-6a1e-4c8b-b2d4-9e0f1a2b3c4d");
	CHECK(tu_db_int(db, "SELECT evaluated FROM runs WHERE id = 3", NULL) == 4);
	CHECK(tu_db_int(db, "SELECT count(*) FROM results WHERE device_uuid IS NULL", NULL) == 3);
	CHECK(tu_db_int(db, "SELECT count(*) FROM profiles p JOIN results r ON r.id = p.result_id"
	                " WHERE r.config = ?1 AND p.dram_bytes_per_s = 3e12 AND"
	                " p.energy_j IS NULL", "{\"BLOCK\":256}") == 1);
	CHECK(tu_db_int(db, "SELECT count(*) FROM best WHERE config = ?1 AND objective = 'time'",
	                "{\"BLOCK\":256}") == 1);
	OK("the migrated run resumes; its next result names gpu 1 and has a profile, the old rows "
	   "stay unknown");

	/* a version beyond this kjit's: refused, nothing changed */
	char sql[64], want[64];
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", KJIT__SCHEMA_VERSION + 1);
	snprintf(want, sizeof want, "schema version %d, newer", KJIT__SCHEMA_VERSION + 1);
	tu_db_exec(db, sql);
	char *rcols = columns_of(db, "results");
	char *results_now = dump(db, "results", rcols);
	tu_db_close(db);
	CHECK_ST(kjit_records_open(path, 0, &r), KJIT_ERR_DB);
	CHECK_CONTAINS(kjit_last_error(), want);
	db = tu_db_open(path);
	CHECK(tu_db_int(db, "PRAGMA user_version", NULL) == KJIT__SCHEMA_VERSION + 1);
	char *results_then = dump(db, "results", rcols);
	CHECK_STREQ(results_then, results_now);
	tu_db_close(db);
	OK("version %d: refused, \"%s\"; version and rows kept", KJIT__SCHEMA_VERSION + 1,
	   kjit_last_error());
	free(rcols);
	free(results_now);
	free(results_then);
	printf("PASS\n");
	return 0;
}
