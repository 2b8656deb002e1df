/*
 * test-gpu-travel: a database compiled without a GPU serves a GPU it has
 * no cubin for, from the PTX of a virtual arch (needs a GPU; exits 77
 * without one). On an H200 (sm_90):
 *  - kjit-tune --compile-only --arch sm_80,compute_90 (no GPU used) fills
 *    the database; an engine on the GPU gets a variant as KJIT_TIER_PTX
 *    with no NVRTC compile (stats.compiles 0, ptx_jits 1), it computes
 *    y = a x + y right, and its sm_90 cubin is now stored under its own
 *    key; a batch of the 5 configurations gives the other 4 the same way;
 *  - a second process (this test run again) finds all 5 sm_90 cubins as
 *    disk hits: no compile, no PTX JIT, the kernel right;
 *  - with PTX for compute_80 (corrupt) and compute_90 (sound), compute_90
 *    is chosen: nothing corrupt is met;
 *  - PTX for a virtual arch above the device's (compute_100 on sm_90) is
 *    never chosen: NVRTC compiles, nothing is counted corrupt;
 *  - an arch-specific engine (sm_90a) does not take generic compute_90 PTX;
 *  - a corrupt compute_90 PTX falls back to NVRTC with the corruption
 *    counted, every other row kept and the new cubin stored.
 */
#include "travel.h"

#define N_ELEMS 100003

static const int configs[TRAVEL_N_CONFIGS][2] = { { 64, 1 }, { 64, 2 }, { 128, 1 },
	                                          { 128, 2 }, { 256, 1 } };

static kjit_engine *open_gpu(const char *db, const char *arch)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = arch;
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);
	return e;
}

/* Launches v (BLOCK_SIZE block, UNROLL unroll) on n elements and checks
 * y = 2 x + y exactly (small integers and halves). */
static void run_and_check(kjit_engine *e, kjit_variant *v, int block, int unroll)
{
	size_t bytes = N_ELEMS * sizeof(float);
	float *x = malloc(bytes), *y = malloc(bytes);
	CHECK(x && y);
	for (int i = 0; i < N_ELEMS; i++) {
		x[i] = (float)(i % 101) * 0.5f;
		y[i] = (float)(i % 7) - 3.0f;
	}
	kjit_devptr dx, dy;
	CHECK_OK(kjit_mem_alloc(e, bytes, &dx));
	CHECK_OK(kjit_mem_alloc(e, bytes, &dy));
	CHECK_OK(kjit_memcpy_htod(e, dx, x, bytes));
	CHECK_OK(kjit_memcpy_htod(e, dy, y, bytes));
	int n = N_ELEMS;
	float a = 2.0f;
	void *args[] = { &n, &a, &dx, &dy };
	unsigned per = (unsigned)(block * unroll);
	unsigned grid[3] = { (N_ELEMS + per - 1) / per, 1, 1 }, threads[3] = { (unsigned)block, 1, 1 };
	CHECK_OK(kjit_variant_launch(v, grid, threads, 0, NULL, args));
	CHECK_OK(kjit_synchronize(e));
	CHECK_OK(kjit_memcpy_dtoh(e, y, dy, bytes));
	for (int i = 0; i < N_ELEMS; i++) {
		float want = 2.0f * ((float)(i % 101) * 0.5f) + ((float)(i % 7) - 3.0f);
		if (y[i] != want)
			TU_FAIL("BLOCK_SIZE=%d UNROLL=%d: y[%d] = %g, expected %g", block, unroll, i,
			        (double)y[i], (double)want);
	}
	CHECK_OK(kjit_mem_free(e, dx));
	CHECK_OK(kjit_mem_free(e, dy));
	free(x);
	free(y);
}

/* kjit-tune --compile-only for targets into db (no GPU used). */
static void compile_for(const char *spec, const char *db, const char *targets)
{
	char out[16384], args[3 * TU_PATH];
	snprintf(args, sizeof args, "'%s' --compile-only --arch %s --db '%s' -j 4", spec, targets,
	         db);
	int rc = travel_tune(args, out, sizeof out);
	CHECK_MSG(rc == 0, "kjit-tune %s: exit %d:\n%s", args, rc, out);
}

/* Flips one byte of the blob of every row of arch, leaving its
 * checksum: the store will call it corrupt. */
static void corrupt_rows(const char *db, const char *arch)
{
	sqlite3 *s = tu_db_open(db);
	sqlite3_stmt *st;
	CHECK_SQL(s, sqlite3_prepare_v2(s, "UPDATE binaries SET cubin = ?2 WHERE id = ?1", -1, &st,
	                                NULL), SQLITE_OK);
	sqlite3_stmt *q;
	CHECK_SQL(s, sqlite3_prepare_v2(s, "SELECT id, cubin FROM binaries WHERE arch = ?1", -1, &q,
	                                NULL), SQLITE_OK);
	sqlite3_bind_text(q, 1, arch, -1, SQLITE_STATIC);
	int n = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		size_t size = (size_t)sqlite3_column_bytes(q, 1);
		char *b = malloc(size);
		CHECK(b && size > 64);
		memcpy(b, sqlite3_column_blob(q, 1), size);
		b[size / 2] ^= 0x20;
		sqlite3_bind_int64(st, 1, sqlite3_column_int64(q, 0));
		sqlite3_bind_blob(st, 2, b, (int)size, SQLITE_TRANSIENT);
		CHECK_SQL(s, sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
		free(b);
		n++;
	}
	sqlite3_finalize(q);
	sqlite3_finalize(st);
	tu_db_close(s);
	CHECK(n == TRAVEL_N_CONFIGS);
}

/* The second process: every sm_90 cubin from the disk. */
static int child(const char *dir)
{
	char db[TU_PATH];
	tu_path(db, dir, "travel.db");
	kjit_engine *e = open_gpu(db, NULL);
	kjit_kernel *k = travel_kernel(e, dir);
	for (int i = 0; i < TRAVEL_N_CONFIGS; i++) {
		kjit_variant *v;
		kjit_cache_tier tier;
		CHECK_OK(travel_variant(k, configs[i][0], configs[i][1], &v, &tier));
		CHECK_MSG(tier == KJIT_TIER_DISK, "config %d: tier %d", i, (int)tier);
		run_and_check(e, v, configs[i][0], configs[i][1]);
	}
	kjit_engine_stats s = tu_stats(e);
	CHECK(s.disk_hits == TRAVEL_N_CONFIGS && s.compiles == 0 && s.ptx_jits == 0 &&
	      s.corrupt == 0);
	kjit_engine_close(e);
	OK("second process: the 5 sm_90 cubins are disk hits, no compile and no PTX JIT");
	return 0;
}

static void test_travel(const char *argv0, const char *dir, const char *spec, const char *varch)
{
	char db[TU_PATH], targets[64];
	tu_path(db, dir, "travel.db");
	snprintf(targets, sizeof targets, "sm_80,%s", varch);
	compile_for(spec, db, targets);

	kjit_engine *e = open_gpu(db, NULL);
	kjit_kernel *k = travel_kernel(e, dir);
	kjit_variant *v;
	kjit_cache_tier tier;
	CHECK_OK(travel_variant(k, 128, 2, &v, &tier));
	CHECK_MSG(tier == KJIT_TIER_PTX, "tier %d", (int)tier);
	kjit_engine_stats s = tu_stats(e);
	CHECK_MSG(s.compiles == 0 && s.misses == 0 && s.ptx_jits == 1 && s.corrupt == 0,
	          "compiles %llu misses %llu ptx_jits %llu corrupt %llu",
	          (unsigned long long)s.compiles, (unsigned long long)s.misses,
	          (unsigned long long)s.ptx_jits, (unsigned long long)s.corrupt);
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	CHECK(info.kind == KJIT_BINARY_CUBIN && strcmp(info.arch, kjit_engine_arch(e)) == 0);
	CHECK(info.num_regs > 0);
	run_and_check(e, v, 128, 2);
	sqlite3 *d = tu_db_open(db);
	CHECK(tu_db_int(d, "SELECT substr(cubin, 1, 4) = x'7f454c46' FROM binaries WHERE key = ?1",
	                info.key) == 1);
	tu_db_close(d);
	OK("%s: BLOCK_SIZE=128 UNROLL=2 from %s PTX (KJIT_TIER_PTX), no NVRTC, computes right; "
	   "its cubin stored under its key", kjit_engine_arch(e), varch);

	kjit_variant_desc descs[TRAVEL_N_CONFIGS];
	kjit_define defs[TRAVEL_N_CONFIGS][2];
	char vals[TRAVEL_N_CONFIGS][2][8];
	for (int i = 0; i < TRAVEL_N_CONFIGS; i++) {
		snprintf(vals[i][0], sizeof vals[i][0], "%d", configs[i][0]);
		snprintf(vals[i][1], sizeof vals[i][1], "%d", configs[i][1]);
		defs[i][0] = (kjit_define){ "BLOCK_SIZE", vals[i][0] };
		defs[i][1] = (kjit_define){ "UNROLL", vals[i][1] };
		descs[i] = (kjit_variant_desc){ defs[i], 2, NULL, 0 };
	}
	kjit_variant *vs[TRAVEL_N_CONFIGS];
	kjit_status sts[TRAVEL_N_CONFIGS];
	CHECK_OK(kjit_variants_get(k, descs, TRAVEL_N_CONFIGS, 0, vs, sts, NULL));
	for (int i = 0; i < TRAVEL_N_CONFIGS; i++)
		run_and_check(e, vs[i], configs[i][0], configs[i][1]);
	s = tu_stats(e);
	CHECK(s.compiles == 0 && s.ptx_jits == TRAVEL_N_CONFIGS && s.corrupt == 0);
	kjit_engine_close(e);

	d = tu_db_open(db);
	CHECK(tu_db_int(d, "SELECT count(*) FROM binaries WHERE arch = ?1 AND"
	                   " substr(cubin, 1, 4) = x'7f454c46'", info.arch) == TRAVEL_N_CONFIGS);
	CHECK(tu_db_int(d, "SELECT count(*) FROM binaries", NULL) == 3 * TRAVEL_N_CONFIGS);
	tu_db_close(d);
	OK("a batch: the other 4 from PTX too (ptx_jits 5, compiles 0); 5 %s cubins stored",
	   info.arch);

	CHECK(tu_spawn_self(argv0, "--child", dir) == 0);
}

/* Which PTX serves: the highest virtual arch the device runs, never one
 * above it, and generic PTX never an arch-specific engine. */
static void test_choice(const char *dir, const char *spec, const char *dev_arch)
{
	int dev = atoi(dev_arch + 3);
	char db[TU_PATH], targets[64];
	kjit_variant *v;
	kjit_cache_tier tier;

	/* compute_80 corrupt, compute_NN sound: compute_NN is tried first */
	tu_path(db, dir, "order.db");
	snprintf(targets, sizeof targets, "compute_80,compute_%d", dev);
	compile_for(spec, db, targets);
	corrupt_rows(db, "compute_80");
	kjit_engine *e = open_gpu(db, NULL);
	kjit_kernel *k = travel_kernel(e, dir);
	CHECK_OK(travel_variant(k, 64, 2, &v, &tier));
	kjit_engine_stats s = tu_stats(e);
	CHECK_MSG(tier == KJIT_TIER_PTX && s.corrupt == 0 && s.compiles == 0, "tier %d corrupt %llu",
	          (int)tier, (unsigned long long)s.corrupt);
	run_and_check(e, v, 64, 2);
	kjit_engine_close(e);
	OK("PTX of compute_80 (corrupt) and compute_%d: compute_%d chosen, nothing corrupt met",
	   dev, dev);

	/* only PTX above the device */
	if (dev < 100) {
		tu_path(db, dir, "above.db");
		compile_for(spec, db, "compute_100");
		e = open_gpu(db, NULL);
		k = travel_kernel(e, dir);
		CHECK_OK(travel_variant(k, 64, 2, &v, &tier));
		s = tu_stats(e);
		CHECK_MSG(tier == KJIT_TIER_COMPILED && s.compiles == 1 && s.ptx_jits == 0 &&
		          s.corrupt == 0, "tier %d compiles %llu corrupt %llu", (int)tier,
		          (unsigned long long)s.compiles, (unsigned long long)s.corrupt);
		run_and_check(e, v, 64, 2);
		kjit_engine_close(e);
		OK("only compute_100 PTX on %s: never chosen, NVRTC compiles, nothing corrupt",
		   dev_arch);
	}

	/* an arch-specific engine and generic PTX */
	if (dev == 90) {
		tu_path(db, dir, "specific.db");
		compile_for(spec, db, "compute_90");
		e = open_gpu(db, "sm_90a");
		k = travel_kernel(e, dir);
		CHECK_OK(travel_variant(k, 64, 2, &v, &tier));
		s = tu_stats(e);
		CHECK_MSG(tier == KJIT_TIER_COMPILED && s.ptx_jits == 0 && s.corrupt == 0, "tier %d",
		          (int)tier);
		run_and_check(e, v, 64, 2);
		kjit_engine_close(e);
		OK("sm_90a engine: compute_90 PTX not taken, NVRTC compiles for sm_90a");
	}
}

static void test_corrupt_ptx(const char *dir, const char *spec, const char *dev_arch)
{
	char db[TU_PATH], targets[64], vtarget[24];
	tu_path(db, dir, "corrupt.db");
	snprintf(vtarget, sizeof vtarget, "compute_%s", dev_arch + 3);
	snprintf(targets, sizeof targets, "sm_80,%s", vtarget);
	compile_for(spec, db, targets);
	corrupt_rows(db, vtarget);
	kjit_engine *e = open_gpu(db, NULL);
	kjit_kernel *k = travel_kernel(e, dir);
	kjit_variant *v;
	kjit_cache_tier tier;
	CHECK_OK(travel_variant(k, 256, 1, &v, &tier));
	kjit_engine_stats s = tu_stats(e);
	CHECK_MSG(tier == KJIT_TIER_COMPILED && s.compiles == 1 && s.corrupt == 1 &&
	          s.ptx_jits == 0, "tier %d compiles %llu corrupt %llu", (int)tier,
	          (unsigned long long)s.compiles, (unsigned long long)s.corrupt);
	run_and_check(e, v, 256, 1);
	kjit_engine_close(e);
	sqlite3 *d = tu_db_open(db);
	CHECK(tu_db_int(d, "SELECT count(*) FROM binaries WHERE arch = 'sm_80'", NULL) ==
	      TRAVEL_N_CONFIGS);
	CHECK(tu_db_int(d, "SELECT count(*) FROM binaries WHERE arch = ?1", vtarget) ==
	      TRAVEL_N_CONFIGS);
	CHECK(tu_db_int(d, "SELECT count(*) FROM binaries WHERE arch = ?1", dev_arch) == 1);
	tu_db_close(d);
	OK("corrupt %s PTX: NVRTC compiles (corrupt 1), every stored row kept, the new cubin "
	   "stored", vtarget);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child(argv[2]);
	const char *dir = tu_tmpdir();
	char probe[TU_PATH], spec[TU_PATH], dev_arch[16], varch[24];
	kjit_engine *e = open_gpu(tu_path(probe, dir, "probe.db"), NULL);
	snprintf(dev_arch, sizeof dev_arch, "%s", kjit_engine_arch(e));
	kjit_engine_close(e);
	printf("  device arch %s\n", dev_arch);
	snprintf(varch, sizeof varch, "compute_%s", dev_arch + 3);
	travel_write(dir, spec);
	test_travel(argv[0], dir, spec, varch);
	test_choice(dir, spec, dev_arch);
	test_corrupt_ptx(dir, spec, dev_arch);
	return 0;
}
