/*
 * test-store-hostile: databases made to hurt the library that opens them,
 * on real SQLite files:
 *
 *  - a schema version of -2, -100000000 or one above this kjit's is
 *    refused naming the version, and the file is left byte for byte;
 *  - a "file:" URI as the path (or as KJIT_DB) is refused: neither the
 *    file it names nor a "file:" folder is made;
 *  - SQL stored in the schema does not run: a planted trigger, a costly
 *    generated column, a view and a costly default are each refused,
 *    naming what was found; kjit-tune's tuning run names the database,
 *    not the GPU worker that would open it;
 *  - the cache_size counter: INT64_MAX evicts nothing that fits, a
 *    negative count still evicts down to the cap, a deleted row is
 *    restored, each set right from the blobs;
 *  - a binary exported from one store and changed on the way to another
 *    (its mark, a length, its key, its bytes, cut short, made longer) is
 *    refused naming why, and nothing is stored; whole, it is stored and
 *    found on disk by a new engine;
 *  - a sticky world-writable folder (as /tmp) holds a database; one
 *    without the sticky bit is refused with its mode and no advice to
 *    change the mode of a folder that is not the user's.
 */
#include "testutil.h"

static kjit_status open_engine(const char *db, int64_t cap, kjit_engine **e)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = "sm_90";
	o.compile_threads = 1;
	o.cache_max_bytes = cap;
	o.flags = KJIT_ENGINE_NO_GPU;
	*e = NULL;
	return kjit_engine_open(&o, e);
}

/* A kjit database of one compiled variant at db. */
static void make_db(const char *db)
{
	kjit_engine *e = tu_engine_cpu(db, "sm_90", 1);
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 64, 1);
	kjit_variant *v;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, NULL));
	kjit_engine_close(e);
}

static void sql_on(const char *db, const char *sql)
{
	sqlite3 *s = tu_db_open(db);
	tu_db_exec(s, sql);
	tu_db_close(s);
}

/* Opening db fails with KJIT_ERR_DB naming want, within seconds, and
 * leaves the file as it was. */
static void refused(const char *db, const char *want)
{
	size_t n0, n1;
	char *before = tu_read_file(db, &n0);
	double t0 = tu_now();
	kjit_engine *e = (kjit_engine *)1;
	CHECK_ST(open_engine(db, 0, &e), KJIT_ERR_DB);
	CHECK(e == NULL);
	CHECK_CONTAINS(kjit_last_error(), want);
	CHECK_CONTAINS(kjit_last_error(), "nothing was changed");
	CHECK_MSG(tu_now() - t0 < 5, "the refusal took %.1f s", tu_now() - t0);
	char *after = tu_read_file(db, &n1);
	CHECK_MSG(n0 == n1 && memcmp(before, after, n0) == 0, "%s changed", db);
	free(before);
	free(after);
}

static void test_versions(const char *dir)
{
	static const int versions[] = { -2, -100000000, KJIT__SCHEMA_VERSION + 1 };
	for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
		char db[TU_PATH], sql[64], want[64];
		snprintf(sql, sizeof sql, "v%zu.db", i);
		tu_path(db, dir, sql);
		make_db(db);
		snprintf(sql, sizeof sql, "PRAGMA user_version=%d", versions[i]);
		sql_on(db, sql);
		snprintf(want, sizeof want, "schema version %d", versions[i]);
		refused(db, want);
		OK("schema version %d: refused naming it, the file unchanged", versions[i]);
	}
}

static void test_uri(const char *dir)
{
	char other[TU_PATH], uri[TU_PATH + 8], cwd[TU_PATH];
	tu_path(other, dir, "other.db");
	snprintf(uri, sizeof uri, "file:%s", other);
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK(chdir(dir) == 0);
	kjit_engine *e = (kjit_engine *)1;
	CHECK_ST(open_engine(uri, 0, &e), KJIT_ERR_IO);
	CHECK(e == NULL);
	CHECK_CONTAINS(kjit_last_error(), uri);
	CHECK_CONTAINS(kjit_last_error(), "URI");
	CHECK(setenv("KJIT_DB", uri, 1) == 0);
	CHECK_ST(open_engine(NULL, 0, &e), KJIT_ERR_IO);
	CHECK(unsetenv("KJIT_DB") == 0);
	CHECK_MSG(!tu_exists(other), "%s was made through the URI", other);
	CHECK_MSG(!tu_exists("file:"), "a folder \"file:\" was made");
	CHECK(chdir(cwd) == 0);
	OK("file: URIs as the path and as KJIT_DB: refused, nothing made");
}

static void test_schema_sql(const char *dir)
{
	static const struct {
		const char *name, *sql, *want;
	} planted[] = {
		{ "trigger", "CREATE TRIGGER planted AFTER INSERT ON kernels BEGIN"
		  " DELETE FROM best; END", "trigger planted" },
		{ "generated column", "ALTER TABLE events ADD COLUMN heavy BLOB"
		  " AS (zeroblob(1000000000))", "table events" },
		{ "view", "CREATE VIEW peek AS SELECT * FROM binaries", "view peek" },
		{ "costly default", "ALTER TABLE devices ADD COLUMN pad BLOB"
		  " DEFAULT (zeroblob(1000000000))", "table devices" },
	};
	for (size_t i = 0; i < sizeof planted / sizeof *planted; i++) {
		char db[TU_PATH], name[32];
		snprintf(name, sizeof name, "schema%zu.db", i);
		tu_path(db, dir, name);
		make_db(db);
		sql_on(db, planted[i].sql);
		refused(db, planted[i].want);
		OK("a planted %s: refused naming it", planted[i].name);
	}
}

/* A tuning run (kjit-tune(1)'s example form) on such a database names
 * the database, before any GPU worker starts, and leaves it as it was. */
static void test_tune_names_db(const char *dir)
{
	static const struct {
		const char *sql, *want;
	} bad[] = {
		{ "PRAGMA user_version=-2", "schema version -2" },
		{ "CREATE TRIGGER planted AFTER INSERT ON results BEGIN DELETE FROM best; END",
		  "trigger planted" },
	};
	char tune[TU_PATH];
	tu_kjit_tune(tune);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char db[TU_PATH], name[32], cmd[3 * TU_PATH], out[8192];
		snprintf(name, sizeof name, "tune%zu.db", i);
		tu_path(db, dir, name);
		make_db(db);
		sql_on(db, bad[i].sql);
		size_t n0, n1;
		char *before = tu_read_file(db, &n0);
		snprintf(cmd, sizeof cmd, "'%s' '%s/tests/tune-faults.json' --timeout 2 --db '%s' 2>&1",
		         tune, tu_srcdir(), db);
		CHECK(tu_run(cmd, out, sizeof out) != 0);
		CHECK_MSG(strstr(out, bad[i].want) && strstr(out, db), "no \"%s\" in: %s",
		          bad[i].want, out);
		CHECK_MSG(!strstr(out, "GPU worker"), "the GPU worker blamed: %s", out);
		char *after = tu_read_file(db, &n1);
		CHECK_MSG(n0 == n1 && memcmp(before, after, n0) == 0, "%s changed", db);
		free(before);
		free(after);
		OK("kjit-tune on a database with %s: refused naming it, not the GPU worker",
		   bad[i].want);
	}
}

/* Compiles saxpy variant (block, items) into db under cap. */
static void compile_into(const char *db, int64_t cap, int block, int items)
{
	kjit_engine *e;
	CHECK_OK(open_engine(db, cap, &e));
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, block, items);
	kjit_variant *v;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, NULL));
	kjit_engine_close(e);
}

static long long blob_sum(sqlite3 *s)
{
	return tu_db_int(s, "SELECT coalesce(sum(length(cubin)), 0) FROM binaries", NULL);
}

static void test_cache_size(const char *dir)
{
	char db[TU_PATH];
	tu_path(db, dir, "counter-max.db");
	compile_into(db, 0, 64, 1);
	compile_into(db, 0, 128, 1);
	sqlite3 *s = tu_db_open(db);
	tu_db_exec(s, "UPDATE cache_size SET bytes = 9223372036854775807");
	compile_into(db, 0, 256, 1);
	CHECK_MSG(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == 3,
	          "%lld binaries left of 3", tu_db_int(s, "SELECT count(*) FROM binaries", NULL));
	CHECK(tu_db_int(s, "SELECT bytes FROM cache_size", NULL) == blob_sum(s));
	tu_db_close(s);
	OK("cache_size INT64_MAX: nothing evicted under the cap, the count set right");

	tu_path(db, dir, "counter-neg.db");
	compile_into(db, 0, 64, 1);
	s = tu_db_open(db);
	long long one = blob_sum(s), cap = 2 * one + one / 2;
	tu_db_exec(s, "UPDATE cache_size SET bytes = -1000000000000");
	for (int i = 0; i < 4; i++)
		compile_into(db, cap, 128 << i % 3, 2 + i);
	CHECK_MSG(blob_sum(s) <= cap, "%lld bytes kept over a cap of %lld", blob_sum(s), cap);
	CHECK(tu_db_int(s, "SELECT bytes FROM cache_size", NULL) == blob_sum(s));
	tu_db_close(s);
	OK("cache_size negative: evicted down to the cap of %lld", cap);

	tu_path(db, dir, "counter-gone.db");
	compile_into(db, 0, 64, 1);
	sql_on(db, "DELETE FROM cache_size");
	compile_into(db, 0, 128, 1);
	s = tu_db_open(db);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == 2);
	CHECK(tu_db_int(s, "SELECT bytes FROM cache_size", NULL) == blob_sum(s));
	tu_db_close(s);
	OK("cache_size row deleted: the compile stores, the row is back and right");
}

/* One byte of blob changed, or its length cut, refused with why. */
static void import_refused(kjit_engine *e, const unsigned char *blob, size_t size,
                           size_t at, int cut, const char *why)
{
	unsigned char *copy = malloc(size);
	CHECK(copy != NULL);
	memcpy(copy, blob, size);
	if (!cut)
		copy[at] ^= 0x5a;
	char key[33] = "x";
	CHECK_ST(kjit_engine_binary_import(e, copy, cut ? at : size, key), KJIT_ERR_CORRUPT);
	CHECK_CONTAINS(kjit_last_error(), why);
	CHECK(key[0] == '\0');
	free(copy);
}

/* A binary that travels: exported from one store, imported into another,
 * where a new engine finds it on disk without compiling; bytes changed on
 * the way are refused, naming why, and store nothing. */
static void test_travel(const char *dir)
{
	char from[TU_PATH], to[TU_PATH];
	tu_path(from, dir, "travel-from.db");
	tu_path(to, dir, "travel-to.db");
	kjit_engine *a, *b;
	CHECK_OK(open_engine(from, 0, &a));
	kjit_kernel *k = tu_saxpy_kernel(a);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 128, 4);
	kjit_variant *v;
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, NULL));
	CHECK_OK(kjit_variant_get_info(v, &info));
	char key[33];
	snprintf(key, sizeof key, "%s", info.key);
	void *blob = NULL;
	size_t size = 0;
	CHECK_OK(kjit_engine_binary_export(a, key, &blob, &size));
	CHECK(blob && size > info.cubin_size);
	void *none = (void *)1;
	size_t n = 1;
	CHECK_ST(kjit_engine_binary_export(a, "0123456789abcdef0123456789abcdef", &none, &n),
	         KJIT_ERR_NOT_FOUND);
	CHECK(none == NULL && n == 0);
	CHECK_ST(kjit_engine_binary_export(NULL, key, &none, &n), KJIT_ERR_INVALID_ARG);
	kjit_engine_close(a);

	CHECK_OK(open_engine(to, 0, &b));
	const unsigned char *p = blob;
	CHECK_ST(kjit_engine_binary_export(b, key, &none, &n), KJIT_ERR_NOT_FOUND);
	/* the mark, a length, the key, the binary's last byte (its checksum no
	 * longer matches), and the bytes cut short or one too many */
	import_refused(b, p, size, 0, 0, "KJITBIN1");
	import_refused(b, p, size, 11, 0, "cut short");
	import_refused(b, p, size, 12, 0, "32 hex digits");
	import_refused(b, p, size, size - 33, 0, "arrived with checksum");
	import_refused(b, p, size, size - 1, 1, "cut short");
	unsigned char *longer = malloc(size + 1);
	CHECK(longer != NULL);
	memcpy(longer, blob, size);
	longer[size] = 0;
	CHECK_ST(kjit_engine_binary_import(b, longer, size + 1, NULL), KJIT_ERR_CORRUPT);
	CHECK_CONTAINS(kjit_last_error(), "bytes after its end");
	free(longer);
	CHECK_ST(kjit_engine_binary_import(b, NULL, size, NULL), KJIT_ERR_INVALID_ARG);
	sqlite3 *s = tu_db_open(to);
	CHECK(!tu_db_has_binary(s, key));
	char got[33];
	CHECK_OK(kjit_engine_binary_import(b, blob, size, got));
	CHECK_STREQ(got, key);
	CHECK(tu_db_has_binary(s, key));
	sqlite3_close(s);
	kjit_engine_close(b);

	CHECK_OK(open_engine(to, 0, &b));
	k = tu_saxpy_kernel(b);
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	CHECK(tier == KJIT_TIER_DISK);
	kjit_engine_stats st;
	CHECK_OK(kjit_engine_get_stats(b, &st));
	CHECK(st.compiles == 0);
	kjit_engine_close(b);
	free(blob);
	OK("a binary travels: exported (%zu bytes), refused when changed or cut, naming why, "
	   "with nothing stored; imported whole, found on disk by a new engine, no compile",
	   size);
}

static void test_folders(const char *dir)
{
	char sticky[TU_PATH], open_dir[TU_PATH], db[TU_PATH];
	tu_path(sticky, dir, "sticky");
	CHECK(mkdir(sticky, 0700) == 0 && chmod(sticky, 01777) == 0);
	tu_path(db, sticky, "faults.db");
	make_db(db);
	CHECK(tu_mode(db) == 0600);
	make_db(db);
	OK("a database in a sticky world-writable folder (mode 1777): made and opened again");

	tu_path(open_dir, dir, "open");
	CHECK(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 0777) == 0);
	tu_path(db, open_dir, "faults.db");
	kjit_engine *e;
	CHECK_ST(open_engine(db, 0, &e), KJIT_ERR_IO);
	CHECK_CONTAINS(kjit_last_error(), open_dir);
	CHECK_CONTAINS(kjit_last_error(), "(mode 0777)");
	CHECK_MSG(!strstr(kjit_last_error(), "chmod"), "advice to chmod: %s", kjit_last_error());
	CHECK(!tu_exists(db));
	OK("a world-writable folder without the sticky bit: refused, mode 0777, no chmod advice");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	test_versions(dir);
	test_uri(dir);
	test_schema_sql(dir);
	test_tune_names_db(dir);
	test_cache_size(dir);
	test_travel(dir);
	test_folders(dir);
	return 0;
}
