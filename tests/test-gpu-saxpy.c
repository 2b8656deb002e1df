/*
 * test-gpu-saxpy: every saxpy variant runs and is right (needs a GPU;
 * exits 77 without one).
 *
 *  - the 40 variants (BLOCK_SIZE 64..1024 x ITEMS_PER_THREAD 1..8) are
 *    compiled as one batch and loaded: num_regs > 0, max threads per block
 *    >= BLOCK_SIZE, no static shared memory;
 *  - each launches on n = 2^20 + 7 elements (not a multiple of any block)
 *    with grid (n + B*I - 1) / (B*I) and computes y = 2.5 x + y exactly
 *    (the values are exactly representable), leaving the guard elements
 *    past n untouched;
 *  - a block of 2048 threads is refused with KJIT_ERR_LAUNCH naming
 *    CUDA_ERROR_INVALID_VALUE, and the context still works after it;
 *  - a second process on the same database gets the 40 variants from the
 *    disk (stats.compiles == 0) and they launch and compute right too.
 */
#include "testutil.h"

#define N_ELEMS ((1LL << 20) + 7)
#define GUARD 4096
#define SENTINEL -12345.0f

typedef struct buffers {
	float *x, *y0, *y, *want;
	kjit_devptr dx, dy;
} buffers;

static void buffers_init(kjit_engine *e, buffers *b)
{
	size_t total = (size_t)N_ELEMS + GUARD;
	b->x = malloc(total * sizeof(float));
	b->y0 = malloc(total * sizeof(float));
	b->y = malloc(total * sizeof(float));
	b->want = malloc(total * sizeof(float));
	CHECK(b->x && b->y0 && b->y && b->want);
	const float a = 2.5f;
	for (size_t i = 0; i < total; i++) {
		/* Quarters up to 255.75 and small integers: a*x + y is exact in
		 * float, fused or not. */
		b->x[i] = (float)(i % 1024) * 0.25f;
		b->y0[i] = i < (size_t)N_ELEMS ? (float)(i % 77) - 30.0f : SENTINEL;
		b->want[i] = i < (size_t)N_ELEMS ? a * b->x[i] + b->y0[i] : SENTINEL;
	}
	CHECK_OK(kjit_mem_alloc(e, total * sizeof(float), &b->dx));
	CHECK_OK(kjit_mem_alloc(e, total * sizeof(float), &b->dy));
	CHECK(b->dx != 0 && b->dy != 0 && b->dx != b->dy);
	CHECK_OK(kjit_memcpy_htod(e, b->dx, b->x, total * sizeof(float)));
}

static void buffers_free(kjit_engine *e, buffers *b)
{
	CHECK_OK(kjit_mem_free(e, b->dx));
	CHECK_OK(kjit_mem_free(e, b->dy));
	free(b->x);
	free(b->y0);
	free(b->y);
	free(b->want);
}

/* Launches v as variant sv and checks y; returns the kernel's time in ms
 * as the host saw it (launch + synchronize). */
static double run_and_check(kjit_engine *e, kjit_variant *v, const tu_saxpy_variant *sv,
                            buffers *b)
{
	size_t total = (size_t)N_ELEMS + GUARD;
	CHECK_OK(kjit_memcpy_htod(e, b->dy, b->y0, total * sizeof(float)));
	long long n = N_ELEMS;
	float a = 2.5f;
	void *args[] = { &n, &a, &b->dx, &b->dy };
	long long per_block = (long long)sv->block * sv->items;
	unsigned grid[3] = { (unsigned)((n + per_block - 1) / per_block), 1, 1 };
	unsigned block[3] = { (unsigned)sv->block, 1, 1 };
	double t0 = tu_now();
	CHECK_OK(kjit_variant_launch(v, grid, block, 0, NULL, args));
	CHECK_OK(kjit_synchronize(e));
	double ms = (tu_now() - t0) * 1e3;
	CHECK_OK(kjit_memcpy_dtoh(e, b->y, b->dy, total * sizeof(float)));
	for (size_t i = 0; i < total; i++)
		if (b->y[i] != b->want[i])
			TU_FAIL("BLOCK_SIZE=%d ITEMS_PER_THREAD=%d grid %u: y[%zu] = %.9g, expected "
			        "%.9g (x %.9g, y0 %.9g)%s", sv->block, sv->items, grid[0], i,
			        (double)b->y[i], (double)b->want[i], (double)b->x[i],
			        (double)b->y0[i], i >= (size_t)N_ELEMS ? " (guard element)" : "");
	return ms;
}

static kjit_engine *open_gpu(const char *db)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	kjit_engine *e = NULL;
	kjit_status st = kjit_engine_open(&o, &e);
	tu_skip_without_gpu(st, e);
	CHECK_OK(st);
	CHECK(kjit_engine_has_gpu(e));
	CHECK_STREQ(kjit_engine_gpu_reason(e), "");
	return e;
}

/* Gets all 40 variants as one batch; checks their attributes. */
static void get_all(kjit_kernel *k, tu_saxpy_variant *sv, kjit_variant **out)
{
	enum { N = TU_SAXPY_N_VARIANTS };
	kjit_variant_desc descs[N];
	kjit_status status[N];
	char *errors[N];
	for (int i = 0; i < N; i++) {
		tu_saxpy_variant_nth(&sv[i], i);
		descs[i] = sv[i].desc;
	}
	kjit_status st = kjit_variants_get(k, descs, N, 0, out, status, errors);
	for (int i = 0; i < N; i++)
		if (status[i] != KJIT_OK)
			TU_FAIL("variant BLOCK_SIZE=%d ITEMS_PER_THREAD=%d: %s\n%s", sv[i].block,
			        sv[i].items, kjit_status_str(status[i]), errors[i] ? errors[i] : "");
	CHECK_OK(st);
	for (int i = 0; i < N; i++) {
		kjit_variant_info info;
		CHECK_OK(kjit_variant_get_info(out[i], &info));
		CHECK_MSG(info.num_regs > 0, "variant %d: num_regs %d", i, info.num_regs);
		CHECK_MSG(info.max_threads_per_block >= sv[i].block &&
		          info.max_threads_per_block <= 1024,
		          "variant %d: max_threads_per_block %d for BLOCK_SIZE %d", i,
		          info.max_threads_per_block, sv[i].block);
		CHECK(info.static_shared_bytes == 0);
		void *fn = NULL;
		CHECK_OK(kjit_variant_function(out[i], &fn));
		CHECK(fn != NULL);
	}
}

static int second_process(const char *dir)
{
	tu_init(0, (char *[]){ "test-gpu-saxpy(second)", NULL });
	char db[TU_PATH];
	kjit_engine *e = open_gpu(tu_path(db, dir, "gpu.db"));
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv[TU_SAXPY_N_VARIANTS];
	kjit_variant *out[TU_SAXPY_N_VARIANTS];
	get_all(k, sv, out);
	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.compiles, 0);
	CHECK_EQ_U64(s.disk_hits, TU_SAXPY_N_VARIANTS);
	CHECK_EQ_U64(s.corrupt, 0);
	OK("second process: 40 variants from the database, 0 compiles, all loaded");
	buffers b;
	buffers_init(e, &b);
	for (int i = 0; i < TU_SAXPY_N_VARIANTS; i++)
		run_and_check(e, out[i], &sv[i], &b);
	buffers_free(e, &b);
	OK("second process: all 40 launch and compute y = 2.5 x + y exactly");
	kjit_engine_close(e);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "second") == 0)
		return second_process(argv[2]);
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH];
	double t0 = tu_now();
	kjit_engine *e = open_gpu(tu_path(db, dir, "gpu.db"));
	CHECK(strncmp(kjit_engine_arch(e), "sm_", 3) == 0);
	CHECK(kjit_engine_device_name(e)[0] != '\0');
	CHECK_OK(kjit_engine_make_current(e));
	OK("GPU engine: %s, arch %s (open %.0f ms)", kjit_engine_device_name(e),
	   kjit_engine_arch(e), (tu_now() - t0) * 1e3);

	/* the device as kjit-tune's workers describe it; its key the one the
	 * store's devices table holds with its multiprocessors */
	kjit_device_info d;
	CHECK_OK(kjit_engine_device(e, &d));
	CHECK(d.ordinal == 0 && d.count >= 1);
	CHECK(strlen(d.uuid) == 40 && strncmp(d.uuid, "GPU-", 4) == 0 && d.uuid[12] == '-' &&
	      d.uuid[17] == '-' && d.uuid[22] == '-' && d.uuid[27] == '-');
	CHECK_STREQ(d.name, kjit_engine_device_name(e));
	CHECK_STREQ(d.arch, kjit_engine_arch(e));
	CHECK(d.multiprocessors > 0 && d.max_threads_per_block >= 512 &&
	      d.max_shared_per_block >= 48 * 1024);
	sqlite3 *sdb = tu_db_open(db);
	CHECK(tu_db_int(sdb, "SELECT sm_count FROM devices WHERE key = ?1", d.key) ==
	      d.multiprocessors);
	tu_db_close(sdb);
	OK("kjit_engine_device: %s, device %d of %d, %d SMs, %d threads and %d B of shared "
	   "memory per block, key %s", d.uuid, d.ordinal, d.count, d.multiprocessors,
	   d.max_threads_per_block, d.max_shared_per_block, d.key);

	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv[TU_SAXPY_N_VARIANTS];
	kjit_variant *out[TU_SAXPY_N_VARIANTS];
	t0 = tu_now();
	get_all(k, sv, out);
	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.compiles, TU_SAXPY_N_VARIANTS);
	OK("40 variants compiled and loaded in %.2f s: num_regs > 0, max threads >= BLOCK_SIZE",
	   tu_now() - t0);

	buffers b;
	buffers_init(e, &b);
	double best = 1e30;
	int best_i = 0;
	for (int i = 0; i < TU_SAXPY_N_VARIANTS; i++) {
		double ms = run_and_check(e, out[i], &sv[i], &b);
		if (ms < best) {
			best = ms;
			best_i = i;
		}
	}
	OK("all 40 variants launch on n = 2^20 + 7 and compute y = 2.5 x + y exactly, guard "
	   "untouched (fastest by host clock: BLOCK_SIZE=%d ITEMS=%d, %.3f ms)",
	   sv[best_i].block, sv[best_i].items, best);

	/* A block of 2048 threads. */
	int big = TU_SAXPY_N_VARIANTS - 1; /* BLOCK_SIZE 1024, ITEMS 8 */
	CHECK(sv[big].block == 1024);
	long long n = N_ELEMS;
	float a = 2.5f;
	void *args[] = { &n, &a, &b.dx, &b.dy };
	unsigned grid[3] = { 1, 1, 1 }, block[3] = { 2048, 1, 1 };
	CHECK_ST(kjit_variant_launch(out[big], grid, block, 0, NULL, args), KJIT_ERR_LAUNCH);
	CHECK_CONTAINS(kjit_last_error(), "CUDA_ERROR_INVALID_VALUE");
	CHECK_CONTAINS(kjit_last_error(), "2048");
	OK("block of 2048: KJIT_ERR_LAUNCH, \"%s\"", kjit_last_error());
	CHECK_CONTAINS(kjit_engine_last_error(e), "CUDA_ERROR_INVALID_VALUE");
	run_and_check(e, out[big], &sv[big], &b);
	OK("the same variant still launches and computes right afterwards");

	/* Invalid launch arguments. */
	CHECK_ST(kjit_variant_launch(out[0], NULL, block, 0, NULL, args), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_variant_launch(out[0], grid, NULL, 0, NULL, args), KJIT_ERR_INVALID_ARG);
	OK("NULL grid or block: KJIT_ERR_INVALID_ARG");
	buffers_free(e, &b);
	kjit_engine_close(e);

	t0 = tu_now();
	int rc = tu_spawn_self(argv[0], "second", dir);
	CHECK_MSG(rc == 0, "the second process exited with %d", rc);
	OK("second process exited 0 (%.2f s)", tu_now() - t0);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
