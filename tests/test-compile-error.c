/*
 * test-compile-error: failures are reported with a status and a message
 * that names the problem.
 *
 *  - a syntax error: KJIT_ERR_COMPILE, the NVRTC log (with "error", the
 *    offending identifier and "<name>.cu") in kjit_last_error() and in
 *    kjit_engine_last_error(); nothing is cached;
 *  - an entry point that the source does not define is reported by name,
 *    once; an error in a source file names that file and the line;
 *  - a batch with one broken variant: that one fails with its own log,
 *    the others succeed;
 *  - invalid arguments (NULLs, bad define names, a duplicate define, -arch
 *    in the flags, newlines, empty flags, bad parameter names, negative
 *    options) give KJIT_ERR_INVALID_ARG with a message naming the problem;
 *  - a missing source file gives KJIT_ERR_IO naming the path;
 *  - an invalid arch at engine open is refused (malformed, or a number NVRTC
 *    does not know), and a virtual arch without KJIT_ENGINE_NO_GPU.
 */
#include "testutil.h"

static const char broken_src[] =
	"extern \"C\" __global__ void broken(float *p)\n"
	"{\n"
	"	p[threadIdx.x] = undefined_thing_42 + 1.0f;\n"
	"}\n";

static const char present_src[] =
	"extern \"C\" __global__ void present(float *p) { p[threadIdx.x] = 1.0f; }\n";

static void test_syntax_error(const char *dir)
{
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "errors.db"), "sm_90", 2);
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "broken", broken_src, NULL, 0, &k));
	kjit_variant *v = (kjit_variant *)1;
	kjit_cache_tier tier;
	CHECK_ST(kjit_variant_get(k, NULL, &v, &tier), KJIT_ERR_COMPILE);
	CHECK(v == NULL);
	/* kjit_last_error() is valid until the next kjit call: keep a copy. */
	char *msg = strdup(kjit_last_error());
	CHECK(msg != NULL);
	CHECK_CONTAINS(msg, "error");
	CHECK_CONTAINS(msg, "undefined_thing_42");
	CHECK_CONTAINS(msg, "broken.cu");
	CHECK_CONTAINS(msg, "-arch=sm_90");
	CHECK_STREQ(kjit_engine_last_error(e), msg);
	OK("syntax error: KJIT_ERR_COMPILE with the NVRTC log in both last errors:\n%s", msg);
	free(msg);

	/* Not cached: nothing in the table, and asking again fails again. */
	sqlite3 *db3 = tu_db_open(db);
	CHECK(tu_db_int(db3, "SELECT count(*) FROM binaries", NULL) == 0);
	tu_db_close(db3);
	CHECK_ST(kjit_variant_get(k, NULL, &v, &tier), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), "undefined_thing_42");
	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.memory_hits + s.disk_hits, 0);
	/* kjit.h and kjit(3): failed compiles count, their time does not */
	CHECK_EQ_U64(s.compiles, 2);
	CHECK(s.compile_ms_total == 0);
	OK("a failed compile is not cached: no row, the second get fails the same way; both "
	   "count in stats.compiles");

	/* A missing entry point. */
	kjit_kernel *absent = NULL;
	CHECK_OK(kjit_kernel_create(e, "absent_entry", present_src, NULL, 0, &absent));
	kjit_status st = kjit_variant_get(absent, NULL, &v, &tier);
	CHECK_MSG(st == KJIT_ERR_COMPILE || st == KJIT_ERR_NOT_FOUND, "got %s",
	          kjit_status_str(st));
	CHECK(v == NULL);
	CHECK_CONTAINS(kjit_last_error(), "entry point 'absent_entry' not found in absent_entry.cu");
	CHECK_MSG(!strstr(kjit_last_error(), "__nv_name_map") &&
	          !strchr(kjit_last_error(), '\n'), "more than one line: %s", kjit_last_error());
	OK("missing entry point: %s naming it, in one line:\n%s", kjit_status_str(st),
	   kjit_last_error());

	/* A batch where only variant 1 is broken (a define that is not a number). */
	kjit_kernel *sx = tu_saxpy_kernel(e);
	tu_saxpy_variant good0, good2;
	tu_saxpy_variant_init(&good0, 128, 1);
	tu_saxpy_variant_init(&good2, 128, 2);
	kjit_define bad_defs[2] = { { "BLOCK_SIZE", "not_a_number_77" },
		                    { "ITEMS_PER_THREAD", "1" } };
	/* ... given twice: the duplicate fails the same way, with its own copy. */
	kjit_variant_desc descs[4] = { good0.desc, { bad_defs, 2, NULL, 0 }, good2.desc,
		                       { bad_defs, 2, NULL, 0 } };
	kjit_variant *out[4];
	kjit_status status[4];
	char *errors[4];
	CHECK_ST(kjit_variants_get(sx, descs, 4, 2, out, status, errors), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), "variant 1");
	CHECK(status[0] == KJIT_OK && out[0] != NULL && errors[0] == NULL);
	CHECK(status[2] == KJIT_OK && out[2] != NULL && errors[2] == NULL);
	for (int i = 1; i < 4; i += 2) {
		CHECK(status[i] == KJIT_ERR_COMPILE && out[i] == NULL && errors[i] != NULL);
		CHECK_CONTAINS(errors[i], "not_a_number_77");
		CHECK_CONTAINS(errors[i], "saxpy.cu");
	}
	CHECK(errors[1] != errors[3]);
	CHECK_CONTAINS(kjit_engine_last_error(e), "not_a_number_77");
	free(errors[1]);
	free(errors[3]);
	OK("batch with a broken variant given twice: both fail with their own copy of the "
	   "log, the other two compile");

	/* The same batch without an errors array. */
	CHECK_ST(kjit_variants_get(sx, descs, 4, 2, out, status, NULL), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), "variant 1");
	CHECK_CONTAINS(kjit_last_error(), "not_a_number_77");
	CHECK(status[0] == KJIT_OK && status[1] == KJIT_ERR_COMPILE && status[2] == KJIT_OK &&
	      status[3] == KJIT_ERR_COMPILE);
	OK("the same batch without an errors array: statuses as before");
	kjit_engine_close(e);
}

/* One invalid variant description: KJIT_ERR_INVALID_ARG naming `what`. */
static void expect_bad_desc(kjit_engine *e, kjit_kernel *k, const kjit_variant_desc *d,
                            const char *what, const char *label)
{
	kjit_variant *v = (kjit_variant *)1;
	CHECK_ST(kjit_variant_get(k, d, &v, NULL), KJIT_ERR_INVALID_ARG);
	CHECK(v == NULL);
	CHECK_CONTAINS(kjit_last_error(), what);
	CHECK_CONTAINS(kjit_engine_last_error(e), what);
	/* The batch path validates the same way, per variant. */
	kjit_variant *out[1];
	kjit_status status[1];
	char *errors[1];
	CHECK_ST(kjit_variants_get(k, d, 1, 1, out, status, errors), KJIT_ERR_INVALID_ARG);
	CHECK(status[0] == KJIT_ERR_INVALID_ARG && out[0] == NULL && errors[0] != NULL);
	CHECK_CONTAINS(errors[0], what);
	free(errors[0]);
	OK("%s: KJIT_ERR_INVALID_ARG, \"%s\"", label, kjit_engine_last_error(e));
}

static void test_invalid_args(const char *dir)
{
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "args.db"), "sm_90", 1);
	kjit_kernel *k = tu_saxpy_kernel(e);
	kjit_variant *v = NULL;

	/* NULL handles and out pointers. */
	kjit_kernel *k2 = (kjit_kernel *)1;
	CHECK_ST(kjit_kernel_create(NULL, "saxpy", "x", NULL, 0, &k2), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "NULL");
	CHECK(k2 == NULL);
	CHECK_ST(kjit_kernel_create(e, "saxpy", "x", NULL, 0, NULL), KJIT_ERR_INVALID_ARG);
	k2 = (kjit_kernel *)1;
	CHECK_ST(kjit_kernel_create(e, NULL, "x", NULL, 0, &k2), KJIT_ERR_INVALID_ARG);
	CHECK(k2 == NULL);
	CHECK_CONTAINS(kjit_last_error(), "name");
	CHECK_ST(kjit_kernel_create(e, "", "x", NULL, 0, &k2), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "empty");
	CHECK_ST(kjit_kernel_create(e, "saxpy", NULL, NULL, 0, &k2), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "source");
	CHECK_ST(kjit_kernel_create(e, "saxpy", "x", NULL, 2, &k2), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "parameter");
	const char *bad_params[] = { "BLOCK_SIZE", "2B" };
	CHECK_ST(kjit_kernel_create(e, "saxpy", "x", bad_params, 2, &k2), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "'2B'");
	const char *null_param[] = { NULL };
	CHECK_ST(kjit_kernel_create(e, "saxpy", "x", null_param, 1, &k2), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_kernel_create_from_file(e, "saxpy", NULL, NULL, 0, &k2), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_variant_get(NULL, NULL, &v, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_variant_get(k, NULL, NULL, NULL), KJIT_ERR_INVALID_ARG);
	kjit_variant_desc d1 = { NULL, 0, NULL, 0 };
	kjit_variant *out[1];
	kjit_status status[1];
	CHECK_ST(kjit_variants_get(NULL, &d1, 1, 1, out, status, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_variants_get(k, NULL, 1, 1, out, status, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_variants_get(k, &d1, 1, 1, NULL, status, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_variants_get(k, &d1, 1, 1, out, NULL, NULL), KJIT_ERR_INVALID_ARG);
	kjit_variant_info info;
	CHECK_ST(kjit_variant_get_info(NULL, &info), KJIT_ERR_INVALID_ARG);
	const void *data;
	size_t size;
	CHECK_ST(kjit_variant_cubin(NULL, &data, &size), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_engine_get_stats(NULL, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_engine_make_current(NULL), KJIT_ERR_INVALID_ARG);
	unsigned g[3] = { 1, 1, 1 };
	CHECK_ST(kjit_variant_launch(NULL, g, g, 0, NULL, NULL), KJIT_ERR_INVALID_ARG);
	kjit_devptr p;
	CHECK_ST(kjit_mem_alloc(NULL, 16, &p), KJIT_ERR_INVALID_ARG);
	CHECK_STREQ(kjit_kernel_signature(NULL), "");
	CHECK(kjit_engine_has_gpu(NULL) == 0);
	kjit_engine_close(NULL);
	OK("NULL handles, names, sources, out pointers: KJIT_ERR_INVALID_ARG (and close(NULL) "
	   "is a no-op)");

	/* Define names. */
	kjit_define d_digit[2] = { { "1X", "1" }, { "BLOCK_SIZE", "64" } };
	kjit_variant_desc desc = { d_digit, 2, NULL, 0 };
	expect_bad_desc(e, k, &desc, "'1X'", "define name 1X");
	kjit_define d_empty[1] = { { "", "1" } };
	desc = (kjit_variant_desc){ d_empty, 1, NULL, 0 };
	expect_bad_desc(e, k, &desc, "invalid name", "empty define name");
	kjit_define d_null[1] = { { NULL, "1" } };
	desc = (kjit_variant_desc){ d_null, 1, NULL, 0 };
	expect_bad_desc(e, k, &desc, "invalid name", "NULL define name");
	kjit_define d_space[1] = { { "A B", "1" } };
	desc = (kjit_variant_desc){ d_space, 1, NULL, 0 };
	expect_bad_desc(e, k, &desc, "'A B'", "define name with a space");
	kjit_define d_eq[1] = { { "A=2", "1" } };
	desc = (kjit_variant_desc){ d_eq, 1, NULL, 0 };
	expect_bad_desc(e, k, &desc, "'A=2'", "define name with '='");
	kjit_define d_dup[3] = { { "BLOCK_SIZE", "64" }, { "ITEMS_PER_THREAD", "1" },
		                 { "BLOCK_SIZE", "128" } };
	desc = (kjit_variant_desc){ d_dup, 3, NULL, 0 };
	expect_bad_desc(e, k, &desc, "BLOCK_SIZE given twice", "duplicate define");
	kjit_define d_nl[1] = { { "BLOCK_SIZE", "64\n-DEVIL=1" } };
	desc = (kjit_variant_desc){ d_nl, 1, NULL, 0 };
	expect_bad_desc(e, k, &desc, "newline", "newline in a define value");

	/* Flags. */
	const char *f_arch[] = { "-arch=sm_80" };
	desc = (kjit_variant_desc){ NULL, 0, f_arch, 1 };
	expect_bad_desc(e, k, &desc, "-arch=sm_80", "flag -arch=sm_80");
	CHECK_CONTAINS(kjit_last_error(), "engine sets");
	const char *f_arch2[] = { "--use_fast_math", "--gpu-architecture=compute_80" };
	desc = (kjit_variant_desc){ NULL, 0, f_arch2, 2 };
	expect_bad_desc(e, k, &desc, "--gpu-architecture", "flag --gpu-architecture");
	const char *f_empty[] = { "" };
	desc = (kjit_variant_desc){ NULL, 0, f_empty, 1 };
	expect_bad_desc(e, k, &desc, "empty", "empty flag");
	const char *f_null[] = { NULL };
	desc = (kjit_variant_desc){ NULL, 0, f_null, 1 };
	expect_bad_desc(e, k, &desc, "empty", "NULL flag");
	const char *f_nl[] = { "-lineinfo\n-G" };
	desc = (kjit_variant_desc){ NULL, 0, f_nl, 1 };
	expect_bad_desc(e, k, &desc, "newline", "newline in a flag");
	desc = (kjit_variant_desc){ NULL, 2, NULL, 0 };
	expect_bad_desc(e, k, &desc, "NULL", "2 defines announced, array NULL");
	desc = (kjit_variant_desc){ NULL, 0, NULL, 1 };
	expect_bad_desc(e, k, &desc, "NULL", "1 flag announced, array NULL");

	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.compiles, 0);
	CHECK_EQ_U64(s.memory_hits + s.disk_hits + s.misses, 0);
	OK("no invalid description reached NVRTC or the cache");
	kjit_engine_close(e);
}

static void test_missing_file(const char *dir)
{
	char db[TU_PATH], src[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "io.db"), "sm_90", 1);
	tu_path(src, dir, "no/such/kernel.cu");
	kjit_kernel *k = (kjit_kernel *)1;
	CHECK_ST(kjit_kernel_create_from_file(e, "saxpy", src, NULL, 0, &k), KJIT_ERR_IO);
	CHECK(k == NULL);
	CHECK_CONTAINS(kjit_last_error(), src);
	CHECK_CONTAINS(kjit_last_error(), "No such file");
	OK("missing source file: KJIT_ERR_IO, \"%s\"", kjit_last_error());
	CHECK_CONTAINS(kjit_engine_last_error(e), src);

	/* A folder is not a source file. */
	CHECK_ST(kjit_kernel_create_from_file(e, "saxpy", dir, NULL, 0, &k), KJIT_ERR_IO);
	CHECK(k == NULL);
	CHECK_CONTAINS(kjit_last_error(), dir);
	OK("a folder as the source: KJIT_ERR_IO, \"%s\"", kjit_last_error());

	/* A source with a NUL byte in it is not text. */
	tu_path(src, dir, "nul.cu");
	tu_write_file(src, "extern \"C\" __global__ void f() {}\0junk", 39);
	CHECK_ST(kjit_kernel_create_from_file(e, "f", src, NULL, 0, &k), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "NUL");
	OK("source with a NUL byte: KJIT_ERR_INVALID_ARG, \"%s\"", kjit_last_error());

	/* NVRTC's messages name the file the source came from. */
	char sub[TU_PATH];
	tu_path(sub, dir, "broken");
	CHECK(mkdir(sub, 0700) == 0);
	tu_path(src, sub, "saxpy.cu");
	tu_write_file(src, broken_src, strlen(broken_src));
	CHECK_OK(kjit_kernel_create_from_file(e, "broken", src, NULL, 0, &k));
	kjit_variant *v;
	CHECK_ST(kjit_variant_get(k, NULL, &v, NULL), KJIT_ERR_COMPILE);
	char where[TU_PATH + 8];
	snprintf(where, sizeof where, "%s(3)", src);
	CHECK_CONTAINS(kjit_last_error(), where);
	OK("an error in a source file names it and its line: %s", where);
	/* The defines, written ahead of the source, do not move its lines. */
	kjit_define defs[] = { { "pad", "1" }, { "width", "64" }, { "size", NULL } };
	kjit_variant_desc d = { defs, 3, NULL, 0 };
	CHECK_ST(kjit_variant_get(k, &d, &v, NULL), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), where);
	CHECK_CONTAINS(kjit_last_error(), "variant -Dpad=1 -Dsize -Dwidth=64:");
	OK("with defines pad, size and width: still %s, the message names the defines", where);
	kjit_engine_close(e);
}

static void expect_bad_arch(const char *db, const char *arch)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = arch;
	o.flags = KJIT_ENGINE_NO_GPU;
	kjit_engine *e = (kjit_engine *)1;
	CHECK_ST(kjit_engine_open(&o, &e), KJIT_ERR_INVALID_ARG);
	CHECK(e == NULL);
	CHECK_CONTAINS(kjit_last_error(), arch);
	CHECK_CONTAINS(kjit_last_error(), "sm_90");
	OK("arch \"%s\" refused: \"%s\"", arch, kjit_last_error());
}

static void test_engine_open_args(const char *dir)
{
	char db[TU_PATH];
	tu_path(db, dir, "open.db");
	expect_bad_arch(db, "compute_");
	expect_bad_arch(db, "compute_9x");
	expect_bad_arch(db, "sm_91");
	expect_bad_arch(db, "compute_91");
	expect_bad_arch(db, "sm_");
	expect_bad_arch(db, "sm_9x");
	expect_bad_arch(db, "90");
	expect_bad_arch(db, "sm_90 -G");
	expect_bad_arch(db, "sm_1234567890123");

	/* KJIT_ARCH is checked the same way when opts->arch is NULL. */
	CHECK(setenv("KJIT_ARCH", "compute_8x", 1) == 0);
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.flags = KJIT_ENGINE_NO_GPU;
	kjit_engine *e = NULL;
	CHECK_ST(kjit_engine_open(&o, &e), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "compute_8x");
	CHECK(unsetenv("KJIT_ARCH") == 0);
	OK("KJIT_ARCH=compute_8x refused the same way");

	/* A virtual arch compiles PTX: only for an engine that never uses the GPU. */
	o.arch = "compute_90";
	CHECK_OK(kjit_engine_open(&o, &e));
	CHECK_STREQ(kjit_engine_arch(e), "compute_90");
	kjit_engine_close(e);
	o.flags = 0;
	e = (kjit_engine *)1;
	CHECK_ST(kjit_engine_open(&o, &e), KJIT_ERR_INVALID_ARG);
	CHECK(e == NULL);
	CHECK_CONTAINS(kjit_last_error(), "compute_90");
	CHECK_CONTAINS(kjit_last_error(), "KJIT_ENGINE_NO_GPU");
	o.flags = KJIT_ENGINE_NO_GPU;
	OK("compute_90: opens with KJIT_ENGINE_NO_GPU, refused without: \"%s\"",
	   kjit_last_error());

	/* Architecture suffixes that NVRTC accepts are accepted. */
	o.arch = "sm_90a";
	CHECK_OK(kjit_engine_open(&o, &e));
	CHECK_STREQ(kjit_engine_arch(e), "sm_90a");
	kjit_engine_close(e);
	OK("sm_90a accepted");

	CHECK_ST(kjit_engine_open(&o, NULL), KJIT_ERR_INVALID_ARG);
	o.flags = KJIT_ENGINE_NO_GPU | 0x80u;
	CHECK_ST(kjit_engine_open(&o, &e), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "0x80");
	CHECK(e == NULL);
	o.flags = KJIT_ENGINE_NO_GPU;
	o.compile_threads = -1;
	CHECK_ST(kjit_engine_open(&o, &e), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "compile_threads");
	o.compile_threads = 0;
	o.cache_max_bytes = -5;
	CHECK_ST(kjit_engine_open(&o, &e), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "cache_max_bytes");
	OK("NULL out, unknown flags, negative compile_threads or cache_max_bytes: "
	   "KJIT_ERR_INVALID_ARG");

	/* A database path that cannot be created. */
	char file[TU_PATH], bad[TU_PATH];
	tu_write_file(tu_path(file, dir, "plainfile"), "x", 1);
	tu_path(bad, dir, "plainfile/sub/kjit.db");
	o.cache_max_bytes = 0;
	o.db_path = bad;
	o.arch = "sm_90";
	CHECK_ST(kjit_engine_open(&o, &e), KJIT_ERR_IO);
	CHECK(e == NULL);
	CHECK_CONTAINS(kjit_last_error(), "plainfile");
	OK("database under a plain file: KJIT_ERR_IO, \"%s\"", kjit_last_error());
}

static void test_status_names(void)
{
	char want[32];
	snprintf(want, sizeof want, "%d.%d.%d", KJIT_VERSION_MAJOR, KJIT_VERSION_MINOR,
	         KJIT_VERSION_PATCH);
	CHECK_STREQ(kjit_version(), want);
	static const struct {
		kjit_status st;
		const char *name;
	} names[] = {
		{ KJIT_OK, "KJIT_OK" },
		{ KJIT_ERR_INVALID_ARG, "KJIT_ERR_INVALID_ARG" },
		{ KJIT_ERR_NOMEM, "KJIT_ERR_NOMEM" },
		{ KJIT_ERR_IO, "KJIT_ERR_IO" },
		{ KJIT_ERR_NO_GPU, "KJIT_ERR_NO_GPU" },
		{ KJIT_ERR_CUDA, "KJIT_ERR_CUDA" },
		{ KJIT_ERR_COMPILE, "KJIT_ERR_COMPILE" },
		{ KJIT_ERR_NVRTC, "KJIT_ERR_NVRTC" },
		{ KJIT_ERR_DB, "KJIT_ERR_DB" },
		{ KJIT_ERR_NOT_FOUND, "KJIT_ERR_NOT_FOUND" },
		{ KJIT_ERR_LAUNCH, "KJIT_ERR_LAUNCH" },
		{ KJIT_ERR_CORRUPT, "KJIT_ERR_CORRUPT" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const char *s = kjit_status_str(names[i].st);
		size_t n = strlen(names[i].name);
		CHECK(s != NULL);
		CHECK_MSG(strncmp(s, names[i].name, n) == 0 && s[n] == ':', "%s", s);
	}
	CHECK(kjit_status_str((kjit_status)999) != NULL);
	OK("kjit_version() is %s; kjit_status_str names every code (and copes with 999)", want);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	test_status_names();
	test_syntax_error(dir);
	test_invalid_args(dir);
	test_missing_file(dir);
	test_engine_open_args(dir);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
