/*
 * test-store-perms: where the database goes and how it is made.
 *
 *  - under umask 0 and umask 022, a database path inside two new folders:
 *    the folders are created 0700, the file 0600 (and its -wal and -shm);
 *    an existing folder keeps its mode;
 *  - the default path: KJIT_DB wins, else $XDG_CACHE_HOME/kjit/kjit.db,
 *    else $HOME/.cache/kjit/kjit.db (empty variables count as unset); an
 *    explicit db_path beats them all; with none of them, a clear error;
 *  - ":memory:" creates no file;
 *  - the schema: the current user_version, journal_mode wal, the 8 tables.
 */
#include "testutil.h"

static void check_new_db(const char *dir, const char *sub1, mode_t mask)
{
	char d1[TU_PATH], d2[TU_PATH], db[TU_PATH], side[TU_PATH + 8];
	tu_path(d1, dir, sub1);
	tu_path(d2, d1, "inner");
	tu_path(db, d2, "kjit.db");
	CHECK(!tu_exists(d1));
	mode_t old = umask(mask);
	kjit_engine *e = tu_engine_cpu(db, "sm_90", 1);
	/* A write, so that the -wal file certainly exists while open. */
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 64, 1);
	kjit_variant *v;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, NULL));
	CHECK_MSG(tu_mode(d1) == 0700, "%s: mode %o", d1, tu_mode(d1));
	CHECK_MSG(tu_mode(d2) == 0700, "%s: mode %o", d2, tu_mode(d2));
	CHECK_MSG(tu_mode(db) == 0600, "%s: mode %o", db, tu_mode(db));
	snprintf(side, sizeof side, "%s-wal", db);
	CHECK_MSG(tu_mode(side) == 0600, "%s: mode %o", side, tu_mode(side));
	snprintf(side, sizeof side, "%s-shm", db);
	CHECK_MSG(tu_mode(side) == 0600, "%s: mode %o", side, tu_mode(side));
	kjit_engine_close(e);
	umask(old);
	CHECK(tu_mode(db) == 0600);
	OK("umask %03o: %s/inner created 0700, kjit.db, -wal and -shm 0600", (unsigned)mask, sub1);
}

static void check_default(const char *want_path, const char *label)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	kjit_engine *e = NULL;
	CHECK_OK(kjit_engine_open(&o, &e));
	CHECK_STREQ(kjit_engine_db_path(e), want_path);
	kjit_engine_close(e);
	CHECK_MSG(tu_mode(want_path) == 0600, "%s: mode %o", want_path, tu_mode(want_path));
	OK("%s: %s", label, want_path);
}

static void test_default_path(const char *dir)
{
	char envdb[TU_PATH], xdg[TU_PATH], home[TU_PATH], want[TU_PATH], explicit_db[TU_PATH];
	tu_path(envdb, dir, "env/by-env.db");
	tu_path(xdg, dir, "xdg-cache");
	tu_path(home, dir, "home");
	CHECK(mkdir(home, 0755) == 0);

	CHECK(setenv("KJIT_DB", envdb, 1) == 0);
	CHECK(setenv("XDG_CACHE_HOME", xdg, 1) == 0);
	CHECK(setenv("HOME", home, 1) == 0);
	check_default(envdb, "KJIT_DB set: KJIT_DB wins");
	CHECK(!tu_exists(xdg));

	/* An explicit path beats KJIT_DB. */
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	o.db_path = tu_path(explicit_db, dir, "explicit.db");
	kjit_engine *e = NULL;
	CHECK_OK(kjit_engine_open(&o, &e));
	CHECK_STREQ(kjit_engine_db_path(e), explicit_db);
	kjit_engine_close(e);
	CHECK(tu_exists(explicit_db));
	OK("opts.db_path beats KJIT_DB");

	CHECK(setenv("KJIT_DB", "", 1) == 0);
	tu_path(want, xdg, "kjit/kjit.db");
	check_default(want, "KJIT_DB empty: $XDG_CACHE_HOME/kjit/kjit.db");
	CHECK(tu_mode(xdg) == 0700);
	tu_path(want, xdg, "kjit");
	CHECK(tu_mode(want) == 0700);

	CHECK(unsetenv("KJIT_DB") == 0);
	CHECK(setenv("XDG_CACHE_HOME", "", 1) == 0);
	tu_path(want, home, ".cache/kjit/kjit.db");
	check_default(want, "KJIT_DB unset, XDG_CACHE_HOME empty: $HOME/.cache/kjit/kjit.db");
	CHECK(tu_mode(home) == 0755); /* existing folders are left alone */
	tu_path(want, home, ".cache");
	CHECK(tu_mode(want) == 0700);

	CHECK(setenv("XDG_CACHE_HOME", "relative/cache", 1) == 0);
	tu_path(want, home, ".cache/kjit/kjit.db");
	check_default(want, "XDG_CACHE_HOME relative: ignored, as the XDG rules say");

	CHECK(unsetenv("XDG_CACHE_HOME") == 0);
	tu_path(want, home, ".cache/kjit/kjit.db");
	check_default(want, "KJIT_DB and XDG_CACHE_HOME unset: $HOME/.cache/kjit/kjit.db");

	CHECK(unsetenv("HOME") == 0);
	o.db_path = NULL;
	e = (kjit_engine *)1;
	kjit_status st = kjit_engine_open(&o, &e);
	CHECK(st != KJIT_OK && e == NULL);
	CHECK_CONTAINS(kjit_last_error(), "KJIT_DB");
	CHECK_CONTAINS(kjit_last_error(), "HOME is not set");
	OK("no KJIT_DB, XDG_CACHE_HOME or HOME: %s, \"%s\"", kjit_status_str(st), kjit_last_error());
}

static void test_memory(const char *dir)
{
	char cwd[TU_PATH];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK(chdir(dir) == 0);
	kjit_engine *e = tu_engine_cpu(":memory:", "sm_90", 1);
	CHECK_STREQ(kjit_engine_db_path(e), ":memory:");
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 64, 2);
	kjit_variant *v;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	kjit_engine_close(e);
	CHECK(!tu_exists(":memory:"));
	CHECK(chdir(cwd) == 0);
	OK("\":memory:\": compiles and caches, no file of that name");
}

static void test_schema(const char *dir)
{
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "schema/kjit.db"), "sm_90", 1);
	kjit_engine_close(e);
	sqlite3 *s = tu_db_open(db);
	CHECK(tu_db_int(s, "PRAGMA user_version", NULL) == KJIT__SCHEMA_VERSION);
	char mode[32];
	tu_db_text(s, "PRAGMA journal_mode", NULL, mode, sizeof mode);
	CHECK_STREQ(mode, "wal");
	static const char *const tables[] = { "devices", "kernels", "binaries", "runs",
		                              "results", "best", "events", "manifests" };
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
		CHECK_MSG(tu_db_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
		                       "AND name = ?1", tables[i]) == 1,
		          "table %s is missing", tables[i]);
	CHECK(tu_db_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND "
	                   "name = 'binaries_lru'", NULL) == 1);
	/* The binaries columns that the cache relies on. */
	static const char *const cols[] = { "key", "signature", "options", "arch", "nvrtc",
		                            "lowered_name", "cubin", "size", "checksum",
		                            "compile_ms", "created", "last_used" };
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
		CHECK_MSG(tu_db_int(s, "SELECT count(*) FROM pragma_table_info('binaries') "
		                       "WHERE name = ?1", cols[i]) == 1,
		          "binaries.%s is missing", cols[i]);
	long long n_objects = tu_db_int(s, "SELECT count(*) FROM sqlite_master", NULL);
	tu_db_close(s);

	/* Opening again changes nothing (no second migration). */
	e = tu_engine_cpu(db, "sm_90", 1);
	kjit_engine_close(e);
	s = tu_db_open(db);
	CHECK(tu_db_int(s, "PRAGMA user_version", NULL) == KJIT__SCHEMA_VERSION);
	CHECK(tu_db_int(s, "SELECT count(*) FROM sqlite_master", NULL) == n_objects);
	tu_db_close(s);
	OK("schema: user_version %d, journal_mode wal, the 8 tables, binaries columns and LRU index",
	   KJIT__SCHEMA_VERSION);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	check_new_db(dir, "umask0", 0);
	check_new_db(dir, "umask022", 022);
	check_new_db(dir, "umask077", 077);
	test_default_path(dir);
	test_memory(dir);
	test_schema(dir);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
