/*
 * test-cache-corrupt: stored data that is damaged or foreign.
 *
 *  - three binaries are damaged in the file with the SQLite C API: a
 *    flipped byte, a truncated blob, a wrong checksum. On reopen each is
 *    caught by its checksum, recompiled (tier COMPILED, stats.corrupt
 *    counts them) and replaced: the row is whole again and a third open
 *    gets DISK hits with nothing corrupt;
 *  - the checksum column is MurmurHash3 x64 128 of the blob with seed
 *    0x6b6a6974 (the same function recomputed here through the internal
 *    kjit__hash, as test-gpu-errors does to forge a valid checksum);
 *  - a file that is not SQLite, and a SQLite database of another program
 *    (tables, no user_version), are refused with KJIT_ERR_DB and a
 *    message, and the foreign database is left byte-identical;
 *  - a database with user_version 99 is refused as newer, its version kept;
 *  - a whole row read out with its checksum and put into another database
 *    (kjit-tune --mpi ships binaries so) is a disk hit there; a damaged or
 *    missing one is refused on the way out.
 */
#include "testutil.h"

#include "base.h" /* kjit__hash, kjit__hash_hex: the checksum */

#define N 3

static void variant_of(tu_saxpy_variant *v, int i)
{
	tu_saxpy_variant_init(v, 128, i + 1);
}

static void checksum_of(const void *data, size_t size, char out[33])
{
	kjit__hash_hex(kjit__hash(data, size, 0x6b6a6974u), out);
}

static void update_blob(sqlite3 *db, const char *sql, const char *key, const void *blob, size_t n)
{
	sqlite3_stmt *st = NULL;
	CHECK_SQL(db, sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	CHECK_SQL(db, sqlite3_bind_blob(st, 1, blob, (int)n, SQLITE_TRANSIENT), SQLITE_OK);
	CHECK_SQL(db, sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT), SQLITE_OK);
	CHECK_SQL(db, sqlite3_step(st), SQLITE_DONE);
	CHECK(sqlite3_changes(db) == 1);
	sqlite3_finalize(st);
}

static void test_checksums(const char *dir)
{
	char db[TU_PATH];
	tu_path(db, dir, "corrupt.db");
	char keys[N][33];
	void *cubins[N];
	size_t sizes[N];

	/* 1. Compile N variants. */
	kjit_engine *e = tu_engine_cpu(db, "sm_90", 2);
	kjit_kernel *k = tu_saxpy_kernel(e);
	for (int i = 0; i < N; i++) {
		tu_saxpy_variant sv;
		variant_of(&sv, i);
		kjit_variant *v = NULL;
		CHECK_OK(kjit_variant_get(k, &sv.desc, &v, NULL));
		kjit_variant_info info;
		CHECK_OK(kjit_variant_get_info(v, &info));
		snprintf(keys[i], sizeof keys[i], "%s", info.key);
		const void *c;
		CHECK_OK(kjit_variant_cubin(v, &c, &sizes[i]));
		cubins[i] = malloc(sizes[i]);
		CHECK(cubins[i] != NULL);
		memcpy(cubins[i], c, sizes[i]);
	}
	kjit_engine_close(e);

	/* 2. The checksum column is what we think it is. */
	sqlite3 *s = tu_db_open(db);
	for (int i = 0; i < N; i++) {
		char stored[64], want[33];
		tu_db_text(s, "SELECT checksum FROM binaries WHERE key = ?1", keys[i], stored,
		           sizeof stored);
		checksum_of(cubins[i], sizes[i], want);
		CHECK_STREQ(stored, want);
		CHECK(tu_db_int(s, "SELECT size FROM binaries WHERE key = ?1", keys[i]) ==
		      (long long)sizes[i]);
	}
	OK("stored checksums are MurmurHash3 x64 128 (seed 0x6b6a6974) of the cubins");

	/* 3. Damage them: a flipped byte, a truncated blob, a wrong checksum. */
	unsigned char *flipped = malloc(sizes[0]);
	CHECK(flipped != NULL);
	memcpy(flipped, cubins[0], sizes[0]);
	flipped[sizes[0] / 2] ^= 0x01;
	update_blob(s, "UPDATE binaries SET cubin = ?1 WHERE key = ?2", keys[0], flipped, sizes[0]);
	free(flipped);
	update_blob(s, "UPDATE binaries SET cubin = ?1 WHERE key = ?2", keys[1], cubins[1],
	            sizes[1] - 100);
	update_blob(s, "UPDATE binaries SET checksum = ?1 WHERE key = ?2", keys[2],
	            "00000000000000000000000000000000", 32);
	tu_db_close(s);
	OK("damaged in the file: a flipped byte, 100 bytes cut off, a zeroed checksum");

	/* 4. Reopen: the first caught alone, then the others in a batch. */
	e = tu_engine_cpu(db, "sm_90", 2);
	k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv[N];
	for (int i = 0; i < N; i++)
		variant_of(&sv[i], i);
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &sv[0].desc, &v, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	kjit_engine_stats st = tu_stats(e);
	CHECK_EQ_U64(st.corrupt, 1);
	CHECK_EQ_U64(st.compiles, 1);
	CHECK_EQ_U64(st.disk_hits, 0);
	const void *c;
	size_t size;
	CHECK_OK(kjit_variant_cubin(v, &c, &size));
	CHECK(size == sizes[0] && memcmp(c, cubins[0], size) == 0);
	OK("flipped byte: caught, recompiled (tier COMPILED), stats.corrupt == 1, same cubin");

	kjit_variant_desc descs[2] = { sv[1].desc, sv[2].desc };
	kjit_variant *out[2];
	kjit_status status[2];
	CHECK_OK(kjit_variants_get(k, descs, 2, 2, out, status, NULL));
	st = tu_stats(e);
	CHECK_EQ_U64(st.corrupt, 3);
	CHECK_EQ_U64(st.compiles, 3);
	CHECK_EQ_U64(st.disk_hits, 0);
	for (int i = 1; i < N; i++) {
		CHECK_OK(kjit_variant_cubin(out[i - 1], &c, &size));
		CHECK(size == sizes[i] && memcmp(c, cubins[i], size) == 0);
	}
	OK("truncated blob and wrong checksum (batch): caught, recompiled, stats.corrupt == 3");
	kjit_engine_close(e);

	/* 5. The rows are whole again. */
	s = tu_db_open(db);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == N);
	for (int i = 0; i < N; i++) {
		size_t n = 0;
		void *blob = tu_db_blob(s, "SELECT cubin FROM binaries WHERE key = ?1", keys[i], &n);
		CHECK(n == sizes[i] && memcmp(blob, cubins[i], n) == 0);
		char stored[64], want[33];
		tu_db_text(s, "SELECT checksum FROM binaries WHERE key = ?1", keys[i], stored,
		           sizeof stored);
		checksum_of(blob, n, want);
		CHECK_STREQ(stored, want);
		free(blob);
	}
	tu_db_close(s);
	OK("the %d rows were replaced: original bytes, valid checksums", N);

	/* 6. A third open: disk hits, nothing corrupt. */
	e = tu_engine_cpu(db, "sm_90", 2);
	k = tu_saxpy_kernel(e);
	for (int i = 0; i < N; i++) {
		CHECK_OK(kjit_variant_get(k, &sv[i].desc, &v, &tier));
		CHECK(tier == KJIT_TIER_DISK);
	}
	st = tu_stats(e);
	CHECK_EQ_U64(st.disk_hits, N);
	CHECK_EQ_U64(st.corrupt, 0);
	CHECK_EQ_U64(st.compiles, 0);
	kjit_engine_close(e);
	OK("a third open: %d DISK hits, 0 corrupt, 0 compiles", N);
	for (int i = 0; i < N; i++)
		free(cubins[i]);
}

static kjit_status open_db(const char *path, kjit_engine **e)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = path;
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	*e = (kjit_engine *)1;
	kjit_status st = kjit_engine_open(&o, e);
	CHECK(st == KJIT_OK || *e == NULL);
	return st;
}

static void test_foreign_files(const char *dir)
{
	char path[TU_PATH];
	kjit_engine *e = NULL;

	/* Not SQLite at all. */
	tu_path(path, dir, "notes.txt");
	char text[8192];
	for (size_t i = 0; i < sizeof text; i++)
		text[i] = (char)("kjit is not this file's owner\n"[i % 30]);
	tu_write_file(path, text, sizeof text);
	CHECK_ST(open_db(path, &e), KJIT_ERR_DB);
	CHECK_CONTAINS(kjit_last_error(), "not a database");
	CHECK_CONTAINS(kjit_last_error(), path);
	size_t n = 0;
	char *after = tu_read_file(path, &n);
	CHECK(n == sizeof text && memcmp(after, text, n) == 0);
	free(after);
	OK("a text file: KJIT_ERR_DB, \"%s\", file unchanged", kjit_last_error());

	/* Another program's SQLite database. */
	tu_path(path, dir, "other.db");
	sqlite3 *s = NULL;
	CHECK_SQL(s, sqlite3_open(path, &s), SQLITE_OK);
	tu_db_exec(s, "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);"
	              "INSERT INTO notes(body) VALUES('keep me'), ('and me');");
	tu_db_close(s);
	size_t before_n = 0;
	char *before = tu_read_file(path, &before_n);
	CHECK_ST(open_db(path, &e), KJIT_ERR_DB);
	CHECK_CONTAINS(kjit_last_error(), "not a kjit database");
	CHECK_CONTAINS(kjit_last_error(), path);
	after = tu_read_file(path, &n);
	CHECK(n == before_n && memcmp(after, before, n) == 0);
	free(after);
	free(before);
	char wal[TU_PATH + 8];
	snprintf(wal, sizeof wal, "%s-wal", path);
	CHECK(!tu_exists(wal));
	OK("a foreign SQLite database: KJIT_ERR_DB, \"%s\"; byte-identical, no -wal left",
	   kjit_last_error());

	/* A newer kjit's database. */
	tu_path(path, dir, "newer.db");
	CHECK_SQL(s, sqlite3_open(path, &s), SQLITE_OK);
	tu_db_exec(s, "PRAGMA user_version = 99; CREATE TABLE binaries(key TEXT PRIMARY KEY);");
	tu_db_close(s);
	CHECK_ST(open_db(path, &e), KJIT_ERR_DB);
	CHECK_CONTAINS(kjit_last_error(), "99");
	CHECK_CONTAINS(kjit_last_error(), "newer");
	CHECK_CONTAINS(kjit_last_error(), path);
	s = tu_db_open(path);
	CHECK(tu_db_int(s, "PRAGMA user_version", NULL) == 99);
	CHECK(tu_db_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table'", NULL) == 1);
	tu_db_close(s);
	OK("user_version 99: KJIT_ERR_DB, \"%s\"; version and tables kept", kjit_last_error());

	/* An empty file is a new database. */
	tu_path(path, dir, "empty.db");
	tu_write_file(path, "", 0);
	CHECK_OK(open_db(path, &e));
	kjit_engine_close(e);
	s = tu_db_open(path);
	CHECK(tu_db_int(s, "PRAGMA user_version", NULL) == KJIT__SCHEMA_VERSION);
	tu_db_close(s);
	OK("an empty file becomes a kjit database (user_version %d)", KJIT__SCHEMA_VERSION);
}

/* A whole row read out (kjit__store_binary_read(), what kjit-tune --mpi
 * ships between databases) and put into another database is a disk hit
 * there; a damaged one is refused on the way out. */
static void test_row_travels(const char *dir)
{
	char from[TU_PATH], to[TU_PATH], key[33], sum[33];
	tu_path(from, dir, "from.db");
	tu_path(to, dir, "to.db");
	kjit_engine *e = tu_engine_cpu(from, "sm_90", 1);
	tu_saxpy_variant sv;
	variant_of(&sv, 0);
	kjit_variant *v = NULL;
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get(tu_saxpy_kernel(e), &sv.desc, &v, NULL));
	CHECK_OK(kjit_variant_get_info(v, &info));
	snprintf(key, sizeof key, "%s", info.key);
	kjit_engine_close(e);

	kjit__store *a, *b;
	kjit__binary bin;
	void *mem;
	CHECK_OK(kjit__store_open(from, &a));
	CHECK_OK(kjit__store_binary_read(a, key, &bin, sum, &mem));
	char want[33];
	checksum_of(bin.cubin, bin.size, want);
	CHECK_STREQ(sum, want);
	CHECK(strcmp(bin.key, key) == 0 && strcmp(bin.kernel_name, "saxpy") == 0 &&
	      strcmp(bin.arch, "sm_90") == 0 && bin.size > 0 && tu_is_cuda_elf(bin.cubin, bin.size));
	CHECK_OK(kjit__store_open(to, &b));
	CHECK_OK(kjit__store_binary_put(b, &bin, KJIT__DEFAULT_CACHE_MAX));
	free(mem);
	CHECK_OK(kjit__store_close(b));
	e = tu_engine_cpu(to, "sm_90", 1);
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(tu_saxpy_kernel(e), &sv.desc, &v, &tier));
	CHECK(tier == KJIT_TIER_DISK && tu_stats(e).compiles == 0);
	kjit_engine_close(e);
	OK("a whole row read out and put into another database: a disk hit there, no compile");

	CHECK_ST(kjit__store_binary_read(a, "00000000000000000000000000000000", &bin, sum, &mem),
	         KJIT_ERR_NOT_FOUND);
	CHECK_OK(kjit__store_close(a));
	sqlite3 *s = tu_db_open(from);
	update_blob(s, "UPDATE binaries SET checksum = ?1 WHERE key = ?2", key,
	            "00000000000000000000000000000000", 32);
	tu_db_close(s);
	CHECK_OK(kjit__store_open(from, &a));
	CHECK_ST(kjit__store_binary_read(a, key, &bin, sum, &mem), KJIT_ERR_CORRUPT);
	CHECK_CONTAINS(kjit_last_error(), key);
	CHECK(mem == NULL);
	CHECK_OK(kjit__store_close(a));
	OK("reading out a missing key: KJIT_ERR_NOT_FOUND; a wrong checksum: KJIT_ERR_CORRUPT");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	test_checksums(dir);
	test_row_travels(dir);
	test_foreign_files(dir);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
