/*
 * test-gpu-errors: stored binaries that pass their checksum but do not
 * load, and driver errors (needs a GPU; exits 77 without one).
 *
 *  - three stored binaries are replaced in the file, each with a checksum
 *    that matches (recomputed with the internal kjit__hash, as the store
 *    does): 512 zero bytes (not an image), the valid cubin of another
 *    kernel (loads, but has no saxpy), and a good cubin whose lowered name
 *    is wrong (the checksum covers the blob only). On reopen each load
 *    fails, the variant is recompiled (tier COMPILED, stats.corrupt counts
 *    1, 2, 3), replaced in the database, and launches correctly; a third
 *    open gets them from the disk with nothing corrupt;
 *  - device memory: an impossible allocation is KJIT_ERR_CUDA naming
 *    CUDA_ERROR_OUT_OF_MEMORY; a launch asking for 1 MiB of dynamic shared
 *    memory is KJIT_ERR_LAUNCH, saying what it needs and what the device
 *    allows;
 *  - a device ordinal that does not exist: KJIT_ERR_INVALID_ARG naming
 *    CUDA_ERROR_INVALID_DEVICE, with or without an arch;
 *  - an arch the device cannot run (sm_80 on sm_90) is refused at open
 *    (KJIT_ERR_INVALID_ARG pointing at KJIT_ENGINE_NO_GPU), and works
 *    compile-only; sm_90a on an sm_90 device compiles, loads and runs.
 */
#include "testutil.h"

#include "base.h" /* kjit__hash, kjit__hash_hex: the store's checksum */

#define N 3
#define N_ELEMS 100003

static const char other_src[] =
	"extern \"C\" __global__ void other_kernel(int *p) { p[threadIdx.x] = 42; }\n";

static void checksum_of(const void *data, size_t size, char out[33])
{
	kjit__hash_hex(kjit__hash(data, size, 0x6b6a6974u), out);
}

static void variant_of(tu_saxpy_variant *v, int i)
{
	tu_saxpy_variant_init(v, 256, i + 1);
}

static kjit_engine *open_gpu(const char *db, int device, const char *arch, kjit_status *st_out)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.device = device;
	o.arch = arch;
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	if (st_out) {
		*st_out = st;
		return e;
	}
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);
	CHECK(kjit_engine_has_gpu(e));
	return e;
}

/* Writes blob (and its valid checksum) or a lowered name into the row. */
static void forge(sqlite3 *db, const char *key, const void *blob, size_t n, const char *lowered)
{
	sqlite3_stmt *st = NULL;
	if (blob) {
		char sum[33];
		checksum_of(blob, n, sum);
		CHECK_SQL(db, sqlite3_prepare_v2(db, "UPDATE binaries SET cubin = ?1, size = ?2, "
		                                     "checksum = ?3 WHERE key = ?4", -1, &st, NULL),
		          SQLITE_OK);
		CHECK_SQL(db, sqlite3_bind_blob(st, 1, blob, (int)n, SQLITE_TRANSIENT), SQLITE_OK);
		CHECK_SQL(db, sqlite3_bind_int64(st, 2, (sqlite3_int64)n), SQLITE_OK);
		CHECK_SQL(db, sqlite3_bind_text(st, 3, sum, -1, SQLITE_TRANSIENT), SQLITE_OK);
		CHECK_SQL(db, sqlite3_bind_text(st, 4, key, -1, SQLITE_TRANSIENT), SQLITE_OK);
	} else {
		CHECK_SQL(db, sqlite3_prepare_v2(db, "UPDATE binaries SET lowered_name = ?1 "
		                                     "WHERE key = ?2", -1, &st, NULL),
		          SQLITE_OK);
		CHECK_SQL(db, sqlite3_bind_text(st, 1, lowered, -1, SQLITE_TRANSIENT), SQLITE_OK);
		CHECK_SQL(db, sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT), SQLITE_OK);
	}
	CHECK_SQL(db, sqlite3_step(st), SQLITE_DONE);
	CHECK(sqlite3_changes(db) == 1);
	sqlite3_finalize(st);
}

/* Launches a saxpy variant on N_ELEMS elements and checks y = 2 x + y. */
static void check_launch(kjit_engine *e, kjit_variant *v, const tu_saxpy_variant *sv)
{
	static float x[N_ELEMS], y[N_ELEMS];
	for (int i = 0; i < N_ELEMS; i++) {
		x[i] = (float)(i % 1000);
		y[i] = (float)(i % 13);
	}
	kjit_devptr dx, dy;
	CHECK_OK(kjit_mem_alloc(e, sizeof x, &dx));
	CHECK_OK(kjit_mem_alloc(e, sizeof y, &dy));
	CHECK_OK(kjit_memcpy_htod(e, dx, x, sizeof x));
	CHECK_OK(kjit_memcpy_htod(e, dy, y, sizeof y));
	long long n = N_ELEMS;
	float a = 2.0f;
	void *args[] = { &n, &a, &dx, &dy };
	long long per = (long long)sv->block * sv->items;
	unsigned grid[3] = { (unsigned)((n + per - 1) / per), 1, 1 };
	unsigned block[3] = { (unsigned)sv->block, 1, 1 };
	CHECK_OK(kjit_variant_launch(v, grid, block, 0, NULL, args));
	CHECK_OK(kjit_synchronize(e));
	CHECK_OK(kjit_memcpy_dtoh(e, y, dy, sizeof y));
	for (int i = 0; i < N_ELEMS; i++)
		if (y[i] != 2.0f * (float)(i % 1000) + (float)(i % 13))
			TU_FAIL("y[%d] = %g after launch", i, (double)y[i]);
	CHECK_OK(kjit_mem_free(e, dx));
	CHECK_OK(kjit_mem_free(e, dy));
}

static void test_unloadable(const char *dir)
{
	char db[TU_PATH];
	tu_path(db, dir, "unloadable.db");
	char keys[N][33];
	void *cubins[N];
	size_t sizes[N];
	tu_saxpy_variant sv[N];

	kjit_engine *e = open_gpu(db, 0, NULL, NULL);
	OK("GPU engine: %s, arch %s", kjit_engine_device_name(e), kjit_engine_arch(e));
	kjit_kernel *k = tu_saxpy_kernel(e);
	for (int i = 0; i < N; i++) {
		variant_of(&sv[i], i);
		kjit_variant *v = NULL;
		CHECK_OK(kjit_variant_get(k, &sv[i].desc, &v, NULL));
		kjit_variant_info info;
		CHECK_OK(kjit_variant_get_info(v, &info));
		snprintf(keys[i], sizeof keys[i], "%s", info.key);
		const void *c;
		CHECK_OK(kjit_variant_cubin(v, &c, &sizes[i]));
		cubins[i] = malloc(sizes[i]);
		CHECK(cubins[i] != NULL);
		memcpy(cubins[i], c, sizes[i]);
		check_launch(e, v, &sv[i]);
	}
	/* A loadable cubin without saxpy in it. */
	kjit_kernel *ko = NULL;
	CHECK_OK(kjit_kernel_create(e, "other_kernel", other_src, NULL, 0, &ko));
	kjit_variant *vo = NULL;
	CHECK_OK(kjit_variant_get(ko, NULL, &vo, NULL));
	const void *other;
	size_t other_size;
	CHECK_OK(kjit_variant_cubin(vo, &other, &other_size));
	CHECK(tu_is_cuda_elf(other, other_size));
	void *other_copy = malloc(other_size);
	CHECK(other_copy != NULL);
	memcpy(other_copy, other, other_size);
	kjit_engine_close(e);
	OK("%d saxpy variants compiled, launched and stored; other_kernel compiled", N);

	sqlite3 *s = tu_db_open(db);
	for (int i = 0; i < N; i++) {
		char stored[64], want[33];
		tu_db_text(s, "SELECT checksum FROM binaries WHERE key = ?1", keys[i], stored,
		           sizeof stored);
		checksum_of(cubins[i], sizes[i], want);
		CHECK_STREQ(stored, want);
	}
	static const unsigned char zeros[512];
	forge(s, keys[0], zeros, sizeof zeros, NULL);
	forge(s, keys[1], other_copy, other_size, NULL);
	forge(s, keys[2], NULL, 0, "no_such_symbol");
	tu_db_close(s);
	free(other_copy);
	OK("forged with valid checksums: 512 zero bytes, other_kernel's cubin, a wrong "
	   "lowered name");

	e = open_gpu(db, 0, NULL, NULL);
	k = tu_saxpy_kernel(e);
	for (int i = 0; i < N; i++) {
		kjit_variant *v = NULL;
		kjit_cache_tier tier;
		CHECK_OK(kjit_variant_get(k, &sv[i].desc, &v, &tier));
		CHECK_MSG(tier == KJIT_TIER_COMPILED, "variant %d: tier %d", i, (int)tier);
		kjit_engine_stats st = tu_stats(e);
		CHECK_EQ_U64(st.corrupt, i + 1);
		CHECK_EQ_U64(st.compiles, i + 1);
		kjit_variant_info info;
		CHECK_OK(kjit_variant_get_info(v, &info));
		CHECK_STREQ(info.lowered_name, "saxpy");
		CHECK(info.num_regs > 0);
		check_launch(e, v, &sv[i]);
	}
	kjit_engine_close(e);
	OK("reopen: each load failed, was recompiled (stats.corrupt 1, 2, 3) and launches right");

	s = tu_db_open(db);
	for (int i = 0; i < N; i++) {
		size_t n = 0;
		void *blob = tu_db_blob(s, "SELECT cubin FROM binaries WHERE key = ?1", keys[i], &n);
		CHECK(tu_is_cuda_elf(blob, n));
		char stored[64], want[33], lowered[64];
		tu_db_text(s, "SELECT checksum FROM binaries WHERE key = ?1", keys[i], stored,
		           sizeof stored);
		checksum_of(blob, n, want);
		CHECK_STREQ(stored, want);
		tu_db_text(s, "SELECT lowered_name FROM binaries WHERE key = ?1", keys[i], lowered,
		           sizeof lowered);
		CHECK_STREQ(lowered, "saxpy");
		free(blob);
	}
	tu_db_close(s);
	OK("the rows were replaced: CUDA ELF images, valid checksums, lowered name saxpy");

	e = open_gpu(db, 0, NULL, NULL);
	k = tu_saxpy_kernel(e);
	for (int i = 0; i < N; i++) {
		kjit_variant *v = NULL;
		kjit_cache_tier tier;
		CHECK_OK(kjit_variant_get(k, &sv[i].desc, &v, &tier));
		CHECK(tier == KJIT_TIER_DISK);
		check_launch(e, v, &sv[i]);
	}
	kjit_engine_stats st = tu_stats(e);
	CHECK_EQ_U64(st.disk_hits, N);
	CHECK_EQ_U64(st.corrupt, 0);
	CHECK_EQ_U64(st.compiles, 0);
	OK("a third open: %d DISK hits that launch, 0 corrupt", N);

	/* Driver errors on a working engine. */
	kjit_devptr p = 0;
	CHECK_ST(kjit_mem_alloc(e, (size_t)1 << 50, &p), KJIT_ERR_CUDA);
	CHECK_CONTAINS(kjit_last_error(), "CUDA_ERROR_OUT_OF_MEMORY");
	OK("1 PiB allocation: KJIT_ERR_CUDA, \"%s\"", kjit_last_error());
	CHECK_CONTAINS(kjit_engine_last_error(e), "cuMemAlloc");
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(k, &sv[0].desc, &v, NULL));
	long long n = 0;
	float a = 1.0f;
	kjit_devptr null_ptr = 0;
	void *args[] = { &n, &a, &null_ptr, &null_ptr };
	unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
	CHECK_ST(kjit_variant_launch(v, grid, block, 1u << 20, NULL, args), KJIT_ERR_LAUNCH);
	CHECK_CONTAINS(kjit_last_error(), "needs 1048576 B dynamic + 0 B static shared memory");
	CHECK_CONTAINS(kjit_last_error(), "the device allows");
	OK("1 MiB of dynamic shared memory: KJIT_ERR_LAUNCH, \"%s\"", kjit_last_error());
	check_launch(e, v, &sv[0]);
	OK("the context still works afterwards");
	kjit_engine_close(e);
	for (int i = 0; i < N; i++)
		free(cubins[i]);
}

static void test_device_and_arch(const char *dir)
{
	char db[TU_PATH];
	tu_path(db, dir, "device.db");
	kjit_status st;
	kjit_engine *e = open_gpu(db, 999, NULL, &st);
	CHECK_ST(st, KJIT_ERR_INVALID_ARG);
	CHECK(e == NULL);
	CHECK_CONTAINS(kjit_last_error(), "CUDA_ERROR_INVALID_DEVICE");
	CHECK_CONTAINS(kjit_last_error(), "999");
	OK("device 999: KJIT_ERR_INVALID_ARG, \"%s\"", kjit_last_error());
	e = open_gpu(db, 999, "sm_90", &st);
	CHECK_ST(st, KJIT_ERR_INVALID_ARG);
	CHECK(e == NULL);
	CHECK_CONTAINS(kjit_last_error(), "CUDA_ERROR_INVALID_DEVICE");
	OK("device 999 with an arch: KJIT_ERR_INVALID_ARG as well");

	/* An arch whose cubins the device cannot run (another generation). */
	e = open_gpu(db, 0, NULL, NULL);
	char dev_arch[16];
	snprintf(dev_arch, sizeof dev_arch, "%s", kjit_engine_arch(e));
	kjit_engine_close(e);
	const char *other = strncmp(dev_arch, "sm_8", 4) == 0 ? "sm_90" : "sm_80";
	e = open_gpu(db, 0, other, &st);
	CHECK_ST(st, KJIT_ERR_INVALID_ARG);
	CHECK(e == NULL);
	CHECK_CONTAINS(kjit_last_error(), other);
	CHECK_CONTAINS(kjit_last_error(), "KJIT_ENGINE_NO_GPU");
	OK("arch %s on a %s device: KJIT_ERR_INVALID_ARG, \"%s\"", other, dev_arch,
	   kjit_last_error());

	/* The same arch compile-only: fine. */
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = other;
	o.flags = KJIT_ENGINE_NO_GPU;
	CHECK_OK(kjit_engine_open(&o, &e));
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	variant_of(&sv, 0);
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, NULL));
	kjit_engine_close(e);
	OK("arch %s with KJIT_ENGINE_NO_GPU: compiles", other);

	/* The arch-specific variant of the device's own arch runs on it. */
	if (strcmp(dev_arch, "sm_90") == 0) {
		e = open_gpu(db, 0, "sm_90a", NULL);
		CHECK_STREQ(kjit_engine_arch(e), "sm_90a");
		k = tu_saxpy_kernel(e);
		CHECK_OK(kjit_variant_get(k, &sv.desc, &v, NULL));
		kjit_variant_info info;
		CHECK_OK(kjit_variant_get_info(v, &info));
		CHECK_CONTAINS(info.options, "-arch=sm_90a");
		check_launch(e, v, &sv);
		kjit_engine_close(e);
		OK("arch sm_90a on the sm_90 device: compiles, loads and computes right");
	}
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	test_unloadable(dir);
	test_device_and_arch(dir);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
