/*
 * test-no-driver: kjit without a usable CUDA driver.
 *
 * With KJIT_LIBCUDA=/nonexistent/libcuda.so.1 (set before the first kjit
 * call: the driver is loaded once per process):
 *  - an engine without an arch fails with KJIT_ERR_NO_GPU, naming libcuda
 *    and suggesting an arch;
 *  - with an arch (in the options or KJIT_ARCH) it opens compile-only:
 *    has_gpu 0, the reason names the library, compiling works, and
 *    launching, the memory helpers, synchronize and make_current fail with
 *    KJIT_ERR_NO_GPU and a message that says why;
 *  - kjit_kernel_set_symbol keeps a copy of the data (KJIT_OK), replaces
 *    it when set again, and refuses NULL or empty arguments;
 *  - KJIT_ENGINE_NO_GPU without an arch is refused.
 * Then, in a second process, KJIT_LIBCUDA points at the toolkit's stub
 * libcuda ($KJIT_CUDA_HOME/lib64/stubs/libcuda.so): the engine fails with
 * KJIT_ERR_NO_GPU and a reason that names CUDA_ERROR_STUB_LIBRARY.
 */
#include "testutil.h"

#define MISSING "/nonexistent/libcuda.so.1"

static kjit_status open_engine(const char *db, const char *arch, unsigned flags,
                               kjit_engine **e)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = arch;
	o.flags = flags;
	o.compile_threads = 1;
	*e = (kjit_engine *)1;
	kjit_status st = kjit_engine_open(&o, e);
	CHECK(st == KJIT_OK ? *e != NULL : *e == NULL);
	return st;
}

static void check_no_gpu_calls(kjit_engine *e, kjit_variant *v, const char *why)
{
	unsigned grid[3] = { 1, 1, 1 }, block[3] = { 64, 1, 1 };
	long long n = 0;
	float a = 1;
	kjit_devptr x = 0, y = 0;
	void *args[] = { &n, &a, &x, &y };
	CHECK_ST(kjit_variant_launch(v, grid, block, 0, NULL, args), KJIT_ERR_NO_GPU);
	CHECK_CONTAINS(kjit_last_error(), "saxpy");
	CHECK_CONTAINS(kjit_last_error(), why);
	OK("kjit_variant_launch: KJIT_ERR_NO_GPU, \"%s\"", kjit_last_error());
	CHECK_CONTAINS(kjit_engine_last_error(e), why);

	void *fn = (void *)1;
	CHECK_ST(kjit_variant_function(v, &fn), KJIT_ERR_NO_GPU);
	CHECK(fn == NULL);
	CHECK_CONTAINS(kjit_last_error(), why);

	kjit_devptr p = 1;
	CHECK_ST(kjit_mem_alloc(e, 1024, &p), KJIT_ERR_NO_GPU);
	CHECK(p == 0);
	CHECK_CONTAINS(kjit_last_error(), "no GPU");
	CHECK_CONTAINS(kjit_last_error(), why);
	OK("kjit_mem_alloc: KJIT_ERR_NO_GPU, \"%s\"", kjit_last_error());
	char buf[16] = { 0 };
	CHECK_ST(kjit_memcpy_htod(e, 0, buf, sizeof buf), KJIT_ERR_NO_GPU);
	CHECK_ST(kjit_memcpy_dtoh(e, buf, 0, sizeof buf), KJIT_ERR_NO_GPU);
	CHECK_ST(kjit_mem_free(e, 0), KJIT_ERR_NO_GPU);
	CHECK_ST(kjit_synchronize(e), KJIT_ERR_NO_GPU);
	CHECK_ST(kjit_engine_make_current(e), KJIT_ERR_NO_GPU);
	CHECK_CONTAINS(kjit_engine_last_error(e), why);
	OK("memcpy, mem_free, synchronize, make_current: KJIT_ERR_NO_GPU");
}

/* kjit_kernel_set_symbol without a GPU: the data is kept (a copy) for
 * later loads; bad arguments are refused. */
static void check_symbols(kjit_engine *e, kjit_kernel *k)
{
	float table[4] = { 1, 2, 3, 4 };
	CHECK_OK(kjit_kernel_set_symbol(k, "coeff", table, sizeof table));
	table[0] = 99; /* the kernel holds its own copy */
	int bias = 7;
	CHECK_OK(kjit_kernel_set_symbol(k, "bias", &bias, sizeof bias));
	CHECK_MSG(k->n_symbols == 2, "%zu symbols kept, expected 2", k->n_symbols);
	CHECK_STREQ(k->symbols[0].name, "coeff");
	CHECK_MSG(k->symbols[0].size == sizeof table && ((float *)k->symbols[0].data)[0] == 1 &&
	          ((float *)k->symbols[0].data)[3] == 4, "coeff kept as %zu bytes, [0] = %g",
	          k->symbols[0].size, ((float *)k->symbols[0].data)[0]);
	OK("set_symbol without a GPU: KJIT_OK, coeff (%zu bytes, a copy) and bias kept",
	   k->symbols[0].size);
	double wider[2] = { 5, 6 };
	CHECK_OK(kjit_kernel_set_symbol(k, "coeff", wider, sizeof wider));
	CHECK_MSG(k->n_symbols == 2 && k->symbols[0].size == sizeof wider &&
	          ((double *)k->symbols[0].data)[1] == 6,
	          "%zu symbols, coeff %zu bytes after setting it again", k->n_symbols,
	          k->symbols[0].size);
	OK("setting coeff again replaces its data (now %zu bytes)", k->symbols[0].size);

	CHECK_ST(kjit_kernel_set_symbol(NULL, "coeff", table, sizeof table), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "kernel is NULL");
	struct { const char *symbol; const void *data; size_t size; const char *says; } bad[] = {
		{ NULL, table, sizeof table, "got NULL, data, 16" },
		{ "", table, sizeof table, "got '', data, 16" },
		{ "coeff", NULL, sizeof table, "got 'coeff', NULL, 16" },
		{ "coeff", table, 0, "got 'coeff', data, 0" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_ST(kjit_kernel_set_symbol(k, bad[i].symbol, bad[i].data, bad[i].size),
		         KJIT_ERR_INVALID_ARG);
		CHECK_CONTAINS(kjit_last_error(), "kjit_kernel_set_symbol");
		CHECK_CONTAINS(kjit_last_error(), bad[i].says);
		CHECK_CONTAINS(kjit_engine_last_error(e), bad[i].says);
		printf("  refused: \"%s\"\n", kjit_last_error());
	}
	CHECK_MSG(k->n_symbols == 2, "%zu symbols after the refused calls", k->n_symbols);
	OK("NULL kernel, NULL or empty name, NULL data, size 0: KJIT_ERR_INVALID_ARG, nothing "
	   "kept");
}

static int stub_process(const char *dir)
{
	tu_init(0, (char *[]){ "test-no-driver(stub)", NULL });
	const char *stub = getenv("KJIT_LIBCUDA");
	char db[TU_PATH];
	tu_path(db, dir, "stub.db");
	kjit_engine *e = NULL;
	CHECK_ST(open_engine(db, NULL, 0, &e), KJIT_ERR_NO_GPU);
	const char *msg = kjit_last_error();
	printf("  stub libcuda (%s), no arch: \"%s\"\n", stub, msg);
	CHECK_CONTAINS(msg, "CUDA_ERROR_STUB_LIBRARY");
	CHECK_CONTAINS(msg, "arch");
	OK("stub libcuda: KJIT_ERR_NO_GPU naming CUDA_ERROR_STUB_LIBRARY");

	CHECK_OK(open_engine(db, "sm_90", 0, &e));
	CHECK(!kjit_engine_has_gpu(e));
	CHECK_CONTAINS(kjit_engine_gpu_reason(e), "CUDA_ERROR_STUB_LIBRARY");
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 128, 1);
	kjit_variant *v = NULL;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, NULL));
	check_no_gpu_calls(e, v, "CUDA_ERROR_STUB_LIBRARY");
	kjit_engine_close(e);
	OK("stub libcuda with arch sm_90: compile-only engine, reason \"%s\"",
	   "CUDA_ERROR_STUB_LIBRARY");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "stub") == 0)
		return stub_process(argv[2]);
	tu_init(argc, argv);
	/* Before any kjit call. */
	CHECK(setenv("KJIT_LIBCUDA", MISSING, 1) == 0);
	CHECK(unsetenv("KJIT_ARCH") == 0);
	const char *dir = tu_tmpdir();
	char db[TU_PATH];
	tu_path(db, dir, "nodriver.db");

	kjit_engine *e = NULL;
	CHECK_ST(open_engine(db, NULL, 0, &e), KJIT_ERR_NO_GPU);
	CHECK_CONTAINS(kjit_last_error(), "libcuda");
	CHECK_CONTAINS(kjit_last_error(), MISSING);
	CHECK_CONTAINS(kjit_last_error(), "--arch sm_NN or $KJIT_ARCH");
	OK("no driver, no arch: KJIT_ERR_NO_GPU, \"%s\"", kjit_last_error());
	/* Asking twice gives the same answer (the load is remembered). */
	CHECK_ST(open_engine(db, NULL, 0, &e), KJIT_ERR_NO_GPU);
	CHECK_CONTAINS(kjit_last_error(), MISSING);

	CHECK_ST(open_engine(db, NULL, KJIT_ENGINE_NO_GPU, &e), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "--arch sm_NN or $KJIT_ARCH");
	OK("KJIT_ENGINE_NO_GPU without an arch: KJIT_ERR_INVALID_ARG, \"%s\"", kjit_last_error());

	CHECK_OK(open_engine(db, "sm_90", 0, &e));
	CHECK(kjit_engine_has_gpu(e) == 0);
	CHECK_CONTAINS(kjit_engine_gpu_reason(e), MISSING);
	CHECK_STREQ(kjit_engine_arch(e), "sm_90");
	CHECK_STREQ(kjit_engine_device_name(e), "");
	kjit_device_info d;
	CHECK_ST(kjit_engine_device(e, &d), KJIT_ERR_NO_GPU);
	CHECK_CONTAINS(kjit_last_error(), MISSING);
	CHECK(d.name == NULL && d.uuid[0] == '\0');
	OK("no driver, arch sm_90: opened compile-only, reason \"%s\"", kjit_engine_gpu_reason(e));

	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 256, 2);
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	CHECK(info.num_regs == -1 && info.cubin_size > 0);
	OK("compiling works without a driver (%zu byte cubin)", info.cubin_size);
	check_no_gpu_calls(e, v, MISSING);
	check_symbols(e, k);
	kjit_engine_close(e);

	/* KJIT_ARCH stands in for opts->arch. */
	CHECK(setenv("KJIT_ARCH", "sm_80", 1) == 0);
	CHECK_OK(open_engine(db, NULL, 0, &e));
	CHECK(!kjit_engine_has_gpu(e));
	CHECK_STREQ(kjit_engine_arch(e), "sm_80");
	kjit_engine_close(e);
	CHECK_OK(open_engine(db, "sm_90", 0, &e)); /* the option wins */
	CHECK_STREQ(kjit_engine_arch(e), "sm_90");
	kjit_engine_close(e);
	CHECK(unsetenv("KJIT_ARCH") == 0);
	OK("KJIT_ARCH=sm_80 gives the arch when the options have none; the option wins");

	/* The toolkit's stub libcuda, in a fresh process. */
	const char *cuda = getenv("KJIT_CUDA_HOME");
	if (!cuda || !*cuda)
		cuda = "/usr/local/cuda";
	char stub[TU_PATH];
	snprintf(stub, sizeof stub, "%s/lib64/stubs/libcuda.so", cuda);
	if (!tu_exists(stub)) {
		printf("  note: %s not found; the stub part is not run\n", stub);
	} else {
		CHECK(setenv("KJIT_LIBCUDA", stub, 1) == 0);
		int rc = tu_spawn_self(argv[0], "stub", dir);
		CHECK_MSG(rc == 0, "the stub process exited with %d", rc);
		OK("stub process exited 0");
	}
	printf("%s: PASS\n", tu_prog);
	return 0;
}
