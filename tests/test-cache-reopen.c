/*
 * test-cache-reopen: the database tier works across processes.
 *
 * Process A compiles N saxpy variants into a database file and writes each
 * cubin, compile time and key next to it; then it runs itself again as
 * process B ("reopen" mode) on the same database. B gets every variant as
 * a DISK hit (no compile; kjit_variant_cached() for half of them, and a
 * miss without a compile for one A never made), with the same key,
 * byte-identical cubins and the compile time recorded by A; a second get
 * in B is a MEMORY hit.
 */
#include "testutil.h"

#define N 8

static void variant_of(tu_saxpy_variant *v, int i)
{
	/* BLOCK_SIZE 64..512 x ITEMS_PER_THREAD 1..2 */
	tu_saxpy_variant_init(v, 64 << (i / 2), i % 2 + 1);
}

static int process_b(const char *dir)
{
	char db[TU_PATH];
	tu_init(0, (char *[]){ "test-cache-reopen(B)", NULL });
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "cache.db"), "sm_90", 2);
	kjit_kernel *k = tu_saxpy_kernel(e);
	for (int i = 0; i < N; i++) {
		tu_saxpy_variant sv;
		variant_of(&sv, i);
		kjit_variant *v = NULL;
		kjit_cache_tier tier;
		/* kjit_variant_cached() finds what is stored and compiles nothing */
		CHECK_OK(i % 2 ? kjit_variant_cached(k, &sv.desc, &v, &tier)
		               : kjit_variant_get(k, &sv.desc, &v, &tier));
		CHECK_MSG(tier == KJIT_TIER_DISK, "variant %d: tier %d", i, (int)tier);
		kjit_variant_info info;
		CHECK_OK(kjit_variant_get_info(v, &info));
		const void *cubin;
		size_t size;
		CHECK_OK(kjit_variant_cubin(v, &cubin, &size));

		char name[64], path[TU_PATH];
		snprintf(name, sizeof name, "a-%d.cubin", i);
		size_t a_size = 0;
		char *a_cubin = tu_read_file(tu_path(path, dir, name), &a_size);
		CHECK_MSG(a_size == size && memcmp(a_cubin, cubin, size) == 0,
		          "variant %d: cubin differs from process A's (%zu vs %zu bytes)", i, size,
		          a_size);
		free(a_cubin);

		snprintf(name, sizeof name, "a-%d.info", i);
		char *a_info = tu_read_file(tu_path(path, dir, name), NULL);
		char a_key[64] = "";
		double a_ms = -1;
		CHECK(sscanf(a_info, "%63s %lf", a_key, &a_ms) == 2);
		free(a_info);
		CHECK_STREQ(info.key, a_key);
		CHECK_MSG(info.compile_ms == a_ms, "compile_ms %.17g vs A's %.17g", info.compile_ms,
		          a_ms);
		CHECK(info.cubin_size == size);
		CHECK_STREQ(info.lowered_name, "saxpy");
	}
	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.compiles, 0);
	CHECK_EQ_U64(s.misses, 0);
	CHECK_EQ_U64(s.disk_hits, N);
	CHECK_EQ_U64(s.corrupt, 0);
	CHECK(s.compile_ms_total == 0);
	tu_saxpy_variant absent;
	tu_saxpy_variant_init(&absent, 1024, 4);
	kjit_variant *none = (kjit_variant *)&absent;
	CHECK_ST(kjit_variant_cached(k, &absent.desc, &none, NULL), KJIT_ERR_NOT_FOUND);
	CHECK(none == NULL);
	CHECK_ST(kjit_variant_cached(NULL, &absent.desc, &none, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "kjit_variant_cached");
	CHECK_EQ_U64(tu_stats(e).compiles, 0);
	OK("B: %d DISK hits, 0 compiles; keys, cubins (byte for byte) and compile times as A's",
	   N);

	/* Now in memory. */
	for (int i = 0; i < N; i++) {
		tu_saxpy_variant sv;
		variant_of(&sv, i);
		kjit_variant *v = NULL;
		kjit_cache_tier tier;
		CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
		CHECK(tier == KJIT_TIER_MEMORY);
	}
	s = tu_stats(e);
	CHECK_EQ_U64(s.memory_hits, N);
	CHECK_EQ_U64(s.disk_hits, N);
	OK("B: asking again gives %d MEMORY hits", N);
	kjit_engine_close(e);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "reopen") == 0)
		return process_b(argv[2]);
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "cache.db"), "sm_90", 2);
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv[N];
	kjit_variant_desc descs[N];
	for (int i = 0; i < N; i++) {
		variant_of(&sv[i], i);
		descs[i] = sv[i].desc;
	}
	kjit_variant *out[N];
	kjit_status status[N];
	CHECK_OK(kjit_variants_get(k, descs, N, 2, out, status, NULL));
	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.compiles, N);
	CHECK_EQ_U64(s.disk_hits, 0);
	for (int i = 0; i < N; i++) {
		const void *cubin;
		size_t size;
		kjit_variant_info info;
		CHECK_OK(kjit_variant_cubin(out[i], &cubin, &size));
		CHECK_OK(kjit_variant_get_info(out[i], &info));
		char name[64], path[TU_PATH], text[128];
		snprintf(name, sizeof name, "a-%d.cubin", i);
		tu_write_file(tu_path(path, dir, name), cubin, size);
		snprintf(name, sizeof name, "a-%d.info", i);
		int n = snprintf(text, sizeof text, "%s %.17g\n", info.key, info.compile_ms);
		tu_write_file(tu_path(path, dir, name), text, (size_t)n);
	}
	OK("A: compiled %d variants into %s", N, db);
	kjit_engine_close(e);

	sqlite3 *db3 = tu_db_open(db);
	CHECK(tu_db_int(db3, "SELECT count(*) FROM binaries", NULL) == N);
	CHECK(tu_db_int(db3, "SELECT count(*) FROM kernels", NULL) == 1);
	tu_db_close(db3);
	OK("A: %d rows in binaries, 1 in kernels", N);

	int rc = tu_spawn_self(argv[0], "reopen", dir);
	CHECK_MSG(rc == 0, "process B exited with %d", rc);
	OK("B (a second process on the same file) exited 0");
	printf("%s: PASS\n", tu_prog);
	return 0;
}
