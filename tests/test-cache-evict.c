/*
 * test-cache-evict: the binaries table is capped, least recently used first.
 *
 *  - with cache_max_bytes room for 3 of 10 cubins, compiling the 10 one
 *    after another keeps the table's total size <= the cap after every
 *    store, always keeps the newest, and ends with exactly the 3 newest;
 *  - uses are recorded when an engine closes: after 8 and then 7 are used
 *    again (DISK hits in other engines), storing one more evicts 9, the
 *    least recently used, though it was compiled last;
 *  - a cap smaller than one cubin keeps only the newest (the cap may be
 *    exceeded by the newest entry alone); KJIT_CACHE_MAX_BYTES ("1", "2k")
 *    sets the cap when the options leave it 0, and a malformed value is
 *    refused.
 */
#include "testutil.h"

#define N 10

static void variant_of(tu_saxpy_variant *v, int i)
{
	/* BLOCK_SIZE 64..1024, ITEMS_PER_THREAD 1 for 0-4, 2 for 5-9, 3 for 10 */
	tu_saxpy_variant_init(v, 64 << (i % 5), i / 5 + 1);
}

static kjit_engine *open_capped(const char *db, int64_t cap)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = "sm_90";
	o.compile_threads = 1;
	o.cache_max_bytes = cap;
	o.flags = KJIT_ENGINE_NO_GPU;
	kjit_engine *e = NULL;
	CHECK_OK(kjit_engine_open(&o, &e));
	return e;
}

static const char *get_key(kjit_kernel *k, int i, kjit_cache_tier want_tier, size_t *size)
{
	static char key[33];
	tu_saxpy_variant sv;
	variant_of(&sv, i);
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	CHECK_MSG(tier == want_tier, "variant %d: tier %d, expected %d", i, (int)tier,
	          (int)want_tier);
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	snprintf(key, sizeof key, "%s", info.key);
	if (size)
		*size = info.cubin_size;
	return key;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char keys[N + 1][33];
	size_t sizes[N + 1];

	/* The sizes of the cubins, from an in-memory engine. */
	kjit_engine *e = tu_engine_cpu(":memory:", "sm_90", 2);
	kjit_kernel *k = tu_saxpy_kernel(e);
	size_t min_size = (size_t)-1;
	for (int i = 0; i <= N; i++) {
		snprintf(keys[i], sizeof keys[i], "%s", get_key(k, i, KJIT_TIER_COMPILED, &sizes[i]));
		if (sizes[i] < min_size)
			min_size = sizes[i];
	}
	kjit_engine_close(e);
	/* Room for the last 3 but not for the last 4. */
	int64_t cap = (int64_t)(sizes[N - 3] + sizes[N - 2] + sizes[N - 1] + min_size - 1);
	CHECK(cap < (int64_t)(sizes[N - 4] + sizes[N - 3] + sizes[N - 2] + sizes[N - 1]));
	OK("cubins of %zu..%zu bytes; cap %lld bytes (3 cubins and a bit)", min_size,
	   sizes[N - 1], (long long)cap);

	char db[TU_PATH];
	tu_path(db, dir, "evict.db");
	e = open_capped(db, cap);
	k = tu_saxpy_kernel(e);
	sqlite3 *s = tu_db_open(db);
	for (int i = 0; i < N; i++) {
		CHECK_STREQ(get_key(k, i, KJIT_TIER_COMPILED, NULL), keys[i]);
		long long total = tu_db_int(s, "SELECT coalesce(sum(size), 0) FROM binaries", NULL);
		long long sum_len = tu_db_int(s, "SELECT coalesce(sum(length(cubin)), 0) FROM "
		                                 "binaries", NULL);
		CHECK(total == sum_len);
		CHECK_MSG(tu_db_int(s, "SELECT bytes FROM cache_size", NULL) == total,
		          "the trigger-kept cache size drifted from sum(size) after variant %d", i);
		CHECK_MSG(total <= cap, "after variant %d: %lld bytes > cap %lld", i, total,
		          (long long)cap);
		CHECK_MSG(tu_db_has_binary(s, keys[i]), "the newest (%d) was evicted", i);
		if (i > 0)
			CHECK_MSG(tu_db_has_binary(s, keys[i - 1]), "variant %d evicted too early", i - 1);
	}
	OK("10 compiles: total size <= cap after every store, the two newest always kept");
	for (int i = 0; i < N; i++)
		CHECK_MSG(tu_db_has_binary(s, keys[i]) == (i >= N - 3),
		          "variant %d: present %d", i, tu_db_has_binary(s, keys[i]));
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == 3);
	OK("at the end exactly the 3 newest (7, 8, 9) are left");
	/* Evicted from the database, still in the engine's memory. */
	CHECK_STREQ(get_key(k, 0, KJIT_TIER_MEMORY, NULL), keys[0]);
	kjit_engine_close(e);

	/* LRU, not FIFO: 8, then 7, are used again in other engines, each
	 * closed to record it; 9, the newest compiled, is then the least
	 * recently used. */
	e = open_capped(db, cap);
	k = tu_saxpy_kernel(e);
	CHECK_STREQ(get_key(k, N - 2, KJIT_TIER_DISK, NULL), keys[N - 2]);
	kjit_engine_close(e);
	e = open_capped(db, cap);
	k = tu_saxpy_kernel(e);
	CHECK_STREQ(get_key(k, N - 3, KJIT_TIER_DISK, NULL), keys[N - 3]);
	kjit_engine_close(e);
	{
		sqlite3_stmt *q = NULL;
		CHECK_SQL(s, sqlite3_prepare_v2(s, "SELECT a.last_used < b.last_used AND "
		                                   "b.last_used < c.last_used FROM binaries a, "
		                                   "binaries b, binaries c WHERE a.key = ?1 AND "
		                                   "b.key = ?2 AND c.key = ?3", -1, &q, NULL),
		          SQLITE_OK);
		sqlite3_bind_text(q, 1, keys[N - 1], -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, keys[N - 2], -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, keys[N - 3], -1, SQLITE_STATIC);
		CHECK_SQL(s, sqlite3_step(q), SQLITE_ROW);
		CHECK_MSG(sqlite3_column_int(q, 0) == 1, "last_used is not 9 < 8 < 7");
		sqlite3_finalize(q);
	}
	OK("DISK hits recorded at close: last_used of 9 < 8 < 7");
	e = open_capped(db, cap);
	k = tu_saxpy_kernel(e);
	CHECK_STREQ(get_key(k, N, KJIT_TIER_COMPILED, NULL), keys[N]);
	CHECK(tu_db_has_binary(s, keys[N]));
	CHECK_MSG(!tu_db_has_binary(s, keys[N - 1]), "variant 9, the least recently used, is "
	          "still there");
	CHECK_MSG(tu_db_has_binary(s, keys[N - 2]), "the recently used variant 8 was evicted");
	CHECK_MSG(tu_db_has_binary(s, keys[N - 3]), "the most recently used variant 7 was "
	          "evicted");
	CHECK(tu_db_int(s, "SELECT coalesce(sum(size), 0) FROM binaries", NULL) <= cap);
	kjit_engine_close(e);
	OK("storing 10 evicted 9 (least recently used), kept 7 and 8 (used since)");

	/* Evicted entries are compiled again when asked for. */
	e = open_capped(db, cap);
	k = tu_saxpy_kernel(e);
	CHECK_STREQ(get_key(k, 0, KJIT_TIER_COMPILED, NULL), keys[0]);
	kjit_engine_close(e);
	OK("an evicted variant is compiled again");

	/* A cap below one cubin: only the newest stays. */
	tu_path(db, dir, "tiny.db");
	e = open_capped(db, 1);
	k = tu_saxpy_kernel(e);
	sqlite3 *t = tu_db_open(db);
	for (int i = 0; i < 4; i++) {
		CHECK_STREQ(get_key(k, i, KJIT_TIER_COMPILED, NULL), keys[i]);
		CHECK(tu_db_int(t, "SELECT count(*) FROM binaries", NULL) == 1);
		CHECK(tu_db_has_binary(t, keys[i]));
	}
	kjit_engine_close(e);
	OK("cap of 1 byte: after each store only the newest is kept");

	/* KJIT_CACHE_MAX_BYTES when the options say 0: bytes, or K, M, G. */
	CHECK(setenv("KJIT_CACHE_MAX_BYTES", "1", 1) == 0);
	e = open_capped(db, 0);
	k = tu_saxpy_kernel(e);
	CHECK_STREQ(get_key(k, 5, KJIT_TIER_COMPILED, NULL), keys[5]);
	CHECK(tu_db_int(t, "SELECT count(*) FROM binaries", NULL) == 1);
	CHECK(tu_db_has_binary(t, keys[5]));
	kjit_engine_close(e);
	CHECK(setenv("KJIT_CACHE_MAX_BYTES", "2k", 1) == 0); /* under one cubin */
	e = open_capped(db, 0);
	k = tu_saxpy_kernel(e);
	CHECK_STREQ(get_key(k, 7, KJIT_TIER_COMPILED, NULL), keys[7]);
	CHECK(tu_db_int(t, "SELECT count(*) FROM binaries", NULL) == 1);
	kjit_engine_close(e);
	/* An explicit cap beats the variable. */
	e = open_capped(db, (int64_t)1 << 30);
	k = tu_saxpy_kernel(e);
	CHECK_STREQ(get_key(k, 8, KJIT_TIER_COMPILED, NULL), keys[8]);
	CHECK(tu_db_int(t, "SELECT count(*) FROM binaries", NULL) == 2);
	kjit_engine_close(e);
	OK("KJIT_CACHE_MAX_BYTES=1 and =2k cap the table; opts.cache_max_bytes beats it");
	static const char *const bad[] = { "lots", "-5", "0", "12Q", "1.5M", "99999999999G" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK(setenv("KJIT_CACHE_MAX_BYTES", bad[i], 1) == 0);
		kjit_engine_options o;
		kjit_engine_options_init(&o);
		o.db_path = db;
		o.arch = "sm_90";
		o.flags = KJIT_ENGINE_NO_GPU;
		kjit_engine *bad_e = (kjit_engine *)1;
		CHECK_ST(kjit_engine_open(&o, &bad_e), KJIT_ERR_INVALID_ARG);
		CHECK(bad_e == NULL);
		CHECK_CONTAINS(kjit_last_error(), "KJIT_CACHE_MAX_BYTES");
		CHECK_CONTAINS(kjit_last_error(), bad[i]);
	}
	OK("KJIT_CACHE_MAX_BYTES=lots, -5, 0, 12Q, 1.5M, 99999999999G: KJIT_ERR_INVALID_ARG");
	CHECK(unsetenv("KJIT_CACHE_MAX_BYTES") == 0);
	e = open_capped(db, 0); /* the default: 256 MiB */
	k = tu_saxpy_kernel(e);
	CHECK_STREQ(get_key(k, 6, KJIT_TIER_COMPILED, NULL), keys[6]);
	CHECK(tu_db_int(t, "SELECT count(*) FROM binaries", NULL) == 3);
	kjit_engine_close(e);
	tu_db_close(t);
	tu_db_close(s);
	OK("KJIT_CACHE_MAX_BYTES unset: the default cap keeps all three");

	/* a size another process wrote as infinity (a fuzzer found it) leaves
	 * the cache size whole: binaries still delete, and the count follows
	 * the blobs */
	t = tu_db_open(db);
	tu_db_exec(t, "UPDATE binaries SET size = 9e999");
	long long blobs = tu_db_int(t, "SELECT sum(length(cubin)) FROM binaries", NULL);
	CHECK(tu_db_int(t, "SELECT bytes FROM cache_size", NULL) == blobs);
	tu_db_exec(t, "DELETE FROM binaries");
	CHECK(tu_db_int(t, "SELECT bytes FROM cache_size", NULL) == 0);
	tu_db_close(t);
	OK("a size of infinity: %lld bytes of blobs counted, every binary deleted, 0 left", blobs);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
