/*
 * test-headers: kernels that include headers, on real NVRTC and a real
 * database file (no GPU).
 *
 *  - a kernel including a file header from an include dir (which
 *    includes one beside it, and one behind a line continuation) and an
 *    in-memory header compiles; #include lines in comments and in an #if 0
 *    branch naming files that do not exist do not matter;
 *  - a fresh process gets a DISK hit with the same key, through the
 *    stored manifest: an unrelated FIFO in the include dir is never
 *    opened (that would hang), and a file whose size and mtime are as
 *    recorded is not re-read (a same-size rewrite with the old mtime
 *    still hits); a file touched but unchanged is re-hashed and hits;
 *  - the header file edited: a new kernel gets a new key, COMPILED, a
 *    different cubin; the next process hits the new key; the in-memory
 *    header edited: a new key;
 *  - a tunable kernel takes kjit_tunable_desc.options;
 *  - cub::BlockReduce compiles with no options; with no_default_includes
 *    it is not found, and the message says so;
 *  - the C and C++ standard headers (math.h, cstdint, type_traits, ...)
 *    compile through kjit's stand-ins; the kernel's own comes first; the
 *    stand-ins enter the key;
 *  - a missing header: KJIT_ERR_COMPILE naming it and the including file;
 *  - bad inputs: two headers of one name, an include dir that does not
 *    exist, -I in the flags;
 *  - a database of schema version 1 is migrated and keeps its binaries;
 *  - $KJIT_CUDA_INCLUDE names the CUDA headers' folder (and its cccl)
 *    instead of the toolkit's, in a fresh process.
 */
#include "testutil.h"
#include "old-schemas.h"

#include "engine.h"

#include <signal.h>

static const char source[] =
	"#include \"tile.h\"\n"
	"#include <mem.h>\n"
	"// #include \"commented.h\"\n"
	"/* #include \"commented-too.h\" */\n"
	"#if 0\n"
	"#include \"never.h\"\n"
	"#endif\n"
	"#  include \\\n"
	"  \"cont.h\"\n"
	"extern \"C\" __global__ void k(int *o) { o[0] = TILE + MEM + DETAIL + CONT; }\n";

/* Options of one include dir and one in-memory header (both kept by
 * pointer: the caller's). */
static kjit_kernel_options options(const char *const *dirs, const kjit_header *mem)
{
	kjit_kernel_options o;
	kjit_kernel_options_init(&o);
	o.include_dirs = dirs;
	o.n_include_dirs = 1;
	o.headers = mem;
	o.n_headers = 1;
	return o;
}

static kjit_kernel *make_kernel(kjit_engine *e, const char *inc, const char *mem_text)
{
	kjit_header mem = { "mem.h", mem_text };
	const char *dirs[] = { inc };
	kjit_kernel_options o = options(dirs, &mem);
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_with(e, "k", source, NULL, NULL, 0, &o, &k));
	return k;
}

/* Gets the kernel's one variant: its tier, key (into key) and cubin. */
static kjit_cache_tier get(kjit_kernel *k, char key[33], void **cubin, size_t *size)
{
	kjit_variant_desc d = { 0 };
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &d, &v, &tier));
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	snprintf(key, 33, "%s", info.key);
	if (cubin) {
		const void *c;
		CHECK_OK(kjit_variant_cubin(v, &c, size));
		*cubin = malloc(*size);
		CHECK(*cubin != NULL);
		memcpy(*cubin, c, *size);
	}
	return tier;
}

/* Writes a file dated an hour ago plus touch seconds (the same date for
 * the same touch within a run). */
static void write_dated(const char *path, const char *text, int touch)
{
	static time_t hour_ago;
	if (!hour_ago)
		hour_ago = time(NULL) - 3600;
	tu_write_file(path, text, strlen(text));
	struct timespec t[2] = { { hour_ago + touch, 0 }, { hour_ago + touch, 0 } };
	CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
}

static void write_old(const char *path, const char *text)
{
	write_dated(path, text, 0);
}

/* Mode "disk DIR KEY": a fresh process must get a DISK hit under KEY. */
static int second(const char *dir, const char *want)
{
	char db[TU_PATH], inc[TU_PATH], key[33];
	tu_init(0, (char *[]){ "test-headers(second)", NULL });
	alarm(120); /* a resolver that opened the FIFO would hang */
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "h.db"), "sm_90", 1);
	kjit_kernel *k = make_kernel(e, tu_path(inc, dir, "inc"), "#define MEM 2\n");
	kjit_cache_tier tier = get(k, key, NULL, NULL);
	CHECK_MSG(tier == KJIT_TIER_DISK, "tier %d", (int)tier);
	CHECK_STREQ(key, want);
	CHECK_EQ_U64(tu_stats(e).compiles, 0);
	kjit_engine_close(e);
	return 0;
}

/* The child of cuda_include(): a kernel that includes a header of the
 * folder and one of its cccl: 0 compiled, 10 not found, 1 otherwise. */
static int cuda_include_child(const char *dir)
{
	char db[TU_PATH];
	tu_init(0, (char *[]){ "test-headers(cuda-include)", NULL });
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "cuda-include.db"), "sm_90", 1);
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "probe", "#include <kjit_probe.h>\n#include <probe_cccl.h>\n"
	                            "extern \"C\" __global__ void probe(int *x) { *x = PROBE + CCCL; }\n",
	                            NULL, 0, &k));
	kjit_variant_desc d = { 0 };
	kjit_variant *v;
	kjit_status st = kjit_variant_get(k, &d, &v, NULL);
	int rc = st == KJIT_OK ? 0 : st == KJIT_ERR_COMPILE &&
	         strstr(kjit_last_error(), "kjit_probe.h") ? 10 : 1;
	if (rc == 1)
		fprintf(stderr, "%s\n", kjit_last_error());
	kjit_engine_close(e);
	return rc;
}

static void cuda_include(const char *argv0, const char *dir)
{
	char inc[TU_PATH], cccl[TU_PATH], path[TU_PATH];
	tu_path(inc, dir, "cuda-include");
	tu_path(cccl, inc, "cccl");
	CHECK(mkdir(inc, 0700) == 0 && mkdir(cccl, 0700) == 0);
	write_old(tu_path(path, inc, "kjit_probe.h"), "#define PROBE 1\n");
	write_old(tu_path(path, cccl, "probe_cccl.h"), "#define CCCL 2\n");
	CHECK(setenv("KJIT_CUDA_INCLUDE", inc, 1) == 0);
	CHECK_MSG(tu_spawn_self(argv0, "cuda-include", dir) == 0,
	          "a header of $KJIT_CUDA_INCLUDE and one of its cccl were not found");
	CHECK(unsetenv("KJIT_CUDA_INCLUDE") == 0);
	CHECK_MSG(tu_spawn_self(argv0, "cuda-include", dir) == 10,
	          "without $KJIT_CUDA_INCLUDE the folder's header was found");
	OK("$KJIT_CUDA_INCLUDE: its headers and its cccl's are found, and only with it");
}

static void expect_disk(const char *argv0, const char *dir, const char *key, const char *why)
{
	char arg[TU_PATH + 40];
	snprintf(arg, sizeof arg, "%s|%s", dir, key);
	CHECK_MSG(tu_spawn_self(argv0, "disk", arg) == 0, "%s", why);
	OK("a fresh process: DISK hit under %s (%s)", key, why);
}

static void toolkit(const char *dir)
{
	char db[TU_PATH], key[33];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "cub.db"), "sm_90", 1);
	static const char cub[] =
		"#include <cub/block/block_reduce.cuh>\n"
		"extern \"C\" __global__ void sum(const int *in, int *out) {\n"
		"  typedef cub::BlockReduce<int, 128> R;\n"
		"  __shared__ typename R::TempStorage tmp;\n"
		"  int s = R(tmp).Sum(in[threadIdx.x]);\n"
		"  if (threadIdx.x == 0) *out = s;\n"
		"}\n";
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "sum", cub, NULL, 0, &k));
	CHECK(get(k, key, NULL, NULL) == KJIT_TIER_COMPILED);
	OK("cub::BlockReduce compiles with no options (the toolkit's CCCL)");

	kjit_kernel_options o;
	kjit_kernel_options_init(&o);
	o.no_default_includes = 1;
	CHECK_OK(kjit_kernel_create_with(e, "sum", cub, NULL, NULL, 0, &o, &k));
	kjit_variant_desc d = { 0 };
	kjit_variant *v = NULL;
	CHECK_ST(kjit_variant_get(k, &d, &v, NULL), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), "\"cub/block/block_reduce.cuh\" not found");
	CHECK_CONTAINS(kjit_last_error(), "no_default_includes");
	OK("no_default_includes: %.160s", kjit_last_error());
	kjit_engine_close(e);
}

/* Kernels written for nvcc include the C and C++ standard headers: each
 * compiles through its stand-in; a header of the kernel's own name comes
 * first; the stand-ins enter the key. */
static void standard(const char *dir)
{
	char db[TU_PATH], key[33], own_key[33];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "std.db"), "sm_90", 1);
	static const char std_src[] =
		"#include <math.h>\n#include <stdint.h>\n#include <limits.h>\n#include <float.h>\n"
		"#include <stdio.h>\n#include <assert.h>\n#include <stddef.h>\n#include <cmath>\n"
		"#include <cstdint>\n#include <climits>\n#include <cfloat>\n#include <limits>\n"
		"#include <type_traits>\n#include \"math.h\"\n"
		"extern \"C\" __global__ void k(float *x, uint32_t n) {\n"
		"  static_assert(std::is_same<int32_t, int>::value, \"int32_t\");\n"
		"  std::uint64_t big = ULLONG_MAX;\n"
		"  size_t i = threadIdx.x;\n"
		"  assert(n > 0);\n"
		"  if (i < n) x[i] = sqrtf(x[i]) + std::sqrt(2.0f) + (INT_MAX > 0) + (FLT_MAX > 0)\n"
		"                    + (DBL_EPSILON > 0) + std::numeric_limits<int>::max() + big % 2;\n"
		"  if (i == 0) printf(\"%u\\n\", n);\n"
		"}\n";
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "k", std_src, NULL, 0, &k));
	CHECK(get(k, key, NULL, NULL) == KJIT_TIER_COMPILED);
	OK("math.h, stdint.h, limits.h, float.h, stdio.h, assert.h, stddef.h, cmath, cstdint, "
	   "climits, cfloat, limits, type_traits: sqrtf, std::sqrt, uint32_t, INT_MAX, FLT_MAX, "
	   "printf, assert, std::numeric_limits, std::is_same compile");

	/* the kernel's own math.h comes first, and makes another key */
	static const char own_src[] =
		"#include <math.h>\n#ifndef OWN_MATH\n#error not the kernel's own math.h\n#endif\n"
		"extern \"C\" __global__ void k(float *x) { x[0] = sqrtf(x[0]) * OWN_MATH; }\n";
	kjit_header own = { "math.h", "#pragma once\n#define OWN_MATH 2\n" };
	kjit_kernel_options o;
	kjit_kernel_options_init(&o);
	o.headers = &own;
	o.n_headers = 1;
	CHECK_OK(kjit_kernel_create_with(e, "k", own_src, NULL, NULL, 0, &o, &k));
	CHECK(get(k, own_key, NULL, NULL) == KJIT_TIER_COMPILED);
	CHECK(strcmp(key, own_key) != 0);
	OK("an in-memory math.h of the kernel's own is used instead: key %s", own_key);

	/* the key holds the stand-ins' hash, as it holds the toolkit's version */
	kjit__headers *h;
	CHECK_OK(kjit__headers_make("k", std_src, NULL, "k.cu", NULL, &h));
	const char *id = kjit__std_headers_id();
	CHECK(strncmp(id, "std-", 4) == 0 && strlen(id) == 36);
	CHECK(kjit__headers_identity(h) && strstr(kjit__headers_identity(h), id));
	kjit__headers_free(h);
	CHECK(kjit__std_header("math.h") && kjit__std_header("type_traits") &&
	      !kjit__std_header("vector"));
	OK("the stand-ins enter the key seed (%s)", id);

	/* without the toolkit's headers, no stand-ins: the include fails */
	o.headers = NULL;
	o.n_headers = 0;
	o.no_default_includes = 1;
	CHECK_OK(kjit_kernel_create_with(e, "k", std_src, NULL, NULL, 0, &o, &k));
	kjit_variant_desc d = { 0 };
	kjit_variant *v = NULL;
	CHECK_ST(kjit_variant_get(k, &d, &v, NULL), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), "math.h");
	OK("no_default_includes: no stand-ins either");
	kjit_engine_close(e);
}

static void errors(const char *dir, const char *inc)
{
	char db[TU_PATH], path[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "err.db"), "sm_90", 1);
	write_old(tu_path(path, inc, "broken.h"), "#include \"gone.h\"\n");
	const char *dirs[] = { inc };
	kjit_kernel_options o;
	kjit_kernel_options_init(&o);
	o.include_dirs = dirs;
	o.n_include_dirs = 1;
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_with(e, "k", "#include \"broken.h\"\n"
	                                 "extern \"C\" __global__ void k() {}\n", NULL, NULL, 0,
	                                 &o, &k));
	kjit_variant_desc d = { 0 };
	kjit_variant *v = NULL;
	CHECK_ST(kjit_variant_get(k, &d, &v, NULL), KJIT_ERR_COMPILE);
	CHECK_CONTAINS(kjit_last_error(), "\"gone.h\" not found");
	CHECK_CONTAINS(kjit_last_error(), path);
	CHECK_CONTAINS(kjit_last_error(), inc);
	OK("a missing header: %.200s", kjit_last_error());

	kjit_header two[] = { { "a.h", "1" }, { "a.h", "2" } };
	o.headers = two;
	o.n_headers = 2;
	CHECK_ST(kjit_kernel_create_with(e, "k", "", NULL, NULL, 0, &o, &k), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "two headers are named \"a.h\"");
	two[1].name = NULL;
	CHECK_ST(kjit_kernel_create_with(e, "k", "", NULL, NULL, 0, &o, &k), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "has no name");
	o.n_headers = 0;
	dirs[0] = tu_path(path, dir, "no-such-dir");
	CHECK_ST(kjit_kernel_create_with(e, "k", "", NULL, NULL, 0, &o, &k), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), path);
	OK("refused: two headers of one name, a nameless one, %s", kjit_last_error());

	CHECK_OK(kjit_kernel_create(e, "k", "extern \"C\" __global__ void k() {}\n", NULL, 0, &k));
	const char *flags[] = { "-I/usr/include" };
	kjit_variant_desc df = { NULL, 0, flags, 1 };
	CHECK_ST(kjit_variant_get(k, &df, &v, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "include_dirs");
	OK("-I in the flags refused: %s", kjit_last_error());
	kjit_engine_close(e);
}

/* 40 headers included, each a link to one file of 8 MiB (read once per
 * name): past the 256 MiB of a kernel's headers, refused naming the total. */
static void total(const char *dir)
{
	char db[TU_PATH], inc[TU_PATH], big[TU_PATH], path[TU_PATH], name[32];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "total.db"), "sm_90", 1);
	tu_path(inc, dir, "many");
	CHECK(mkdir(inc, 0700) == 0);
	size_t len = (size_t)8 << 20;
	char *text = malloc(len);
	CHECK(text);
	for (size_t i = 0; i < len; i++)
		text[i] = i % 64 == 63 ? '\n' : i % 64 < 2 ? '/' : 'h';
	tu_write_file(tu_path(big, dir, "big.h"), text, len);
	free(text);
	kjit__buf src = { 0 };
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "h%d.h", i);
		CHECK(symlink(big, tu_path(path, inc, name)) == 0);
		kjit__buf_str(&src, "#include \"");
		kjit__buf_str(&src, name);
		kjit__buf_str(&src, "\"\n");
	}
	kjit__buf_str(&src, "extern \"C\" __global__ void k() {}\n");
	char *text_all = kjit__buf_done(&src);
	CHECK(text_all);
	const char *dirs[] = { inc };
	kjit_kernel_options o;
	kjit_kernel_options_init(&o);
	o.include_dirs = dirs;
	o.n_include_dirs = 1;
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_with(e, "k", text_all, NULL, NULL, 0, &o, &k));
	kjit_variant_desc d = { 0 };
	kjit_variant *v = NULL;
	CHECK(kjit_variant_get(k, &d, &v, NULL) != KJIT_OK);
	CHECK_CONTAINS(kjit_last_error(), "headers of one spec or kernel would pass 256 MiB in all");
	OK("40 includes of an 8 MiB header: %.200s", kjit_last_error());
	free(text_all);
	kjit_engine_close(e);
}

/* kjit_kernel_create_tunable() takes the header options of its
 * description (copied: the caller's arrays may go). */
static void tunable(const char *dir, const char *inc)
{
	char db[TU_PATH], key[33];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "tun.db"), "sm_90", 1);
	char mem_name[] = "mem.h", mem_text[] = "#define MEM 2\n";
	kjit_header mem = { mem_name, mem_text };
	const char *dirs[] = { inc };
	kjit_kernel_options o = options(dirs, &mem);
	static const char *const values[] = { "1", "2" };
	kjit_param p = { "UNROLL", values, 2, 0, KJIT_ROLE_DEFINE };
	kjit_tunable_desc d = { 0 };
	d.entry = "k";
	d.source = source;
	d.params = &p;
	d.n_params = 1;
	d.options = &o;
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_tunable(e, &d, &k));
	memset(mem_name, 'x', sizeof mem_name - 1);
	CHECK(get(k, key, NULL, NULL) == KJIT_TIER_COMPILED);
	OK("kjit_kernel_create_tunable with kjit_tunable_desc.options compiles (%s)", key);
	kjit_engine_close(e);
}

/* A database of schema version 1 (no manifests) opens, is migrated and
 * keeps its binaries: one compiled into a current database, copied into
 * a file of the version 1 schema (binaries have not changed since). */
static void migration(const char *dir)
{
	char made[TU_PATH], db[TU_PATH], key[33], again[33];
	tu_path(made, dir, "made.db");
	tu_path(db, dir, "v1.db");
	kjit_engine *e = tu_engine_cpu(made, "sm_90", 1);
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create(e, "k", "extern \"C\" __global__ void k() {}\n", NULL, 0, &k));
	CHECK(get(k, key, NULL, NULL) == KJIT_TIER_COMPILED);
	kjit_engine_close(e);
	sqlite3 *s = NULL;
	CHECK_SQL(s, sqlite3_open(db, &s), SQLITE_OK);
	tu_db_exec(s, TU_SCHEMA_V1 "PRAGMA user_version = 1;");
	char *copy = kjit__strdup_printf("ATTACH '%s' AS made; INSERT INTO binaries SELECT * FROM"
	                                 " made.binaries; DETACH made", made);
	CHECK(copy);
	tu_db_exec(s, copy);
	free(copy);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == 1);
	tu_db_close(s);
	e = tu_engine_cpu(db, "sm_90", 1);
	CHECK_OK(kjit_kernel_create(e, "k", "extern \"C\" __global__ void k() {}\n", NULL, 0, &k));
	CHECK(get(k, again, NULL, NULL) == KJIT_TIER_DISK);
	CHECK_STREQ(again, key);
	kjit_engine_close(e);
	s = tu_db_open(db);
	CHECK(tu_db_int(s, "PRAGMA user_version", NULL) == KJIT__SCHEMA_VERSION);
	CHECK(tu_db_int(s, "SELECT count(*) FROM manifests", NULL) == 0);
	tu_db_close(s);
	OK("a version 1 database migrates to %d and keeps its binary", KJIT__SCHEMA_VERSION);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "cuda-include") == 0)
		return cuda_include_child(argv[2]);
	if (argc == 3 && strcmp(argv[1], "disk") == 0) {
		char *bar = strrchr(argv[2], '|');
		CHECK(bar != NULL);
		*bar = '\0';
		return second(argv[2], bar + 1);
	}
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH], inc[TU_PATH], path[TU_PATH], k1[33], k2[33], k3[33], key[33];
	tu_path(inc, dir, "inc");
	CHECK(mkdir(inc, 0700) == 0);
	char tile[TU_PATH];
	tu_path(tile, inc, "tile.h");
	write_old(tile, "#include \"detail.h\"\n#define TILE 4\n");
	write_old(tu_path(path, inc, "detail.h"), "#define DETAIL 8\n");
	write_old(tu_path(path, inc, "cont.h"), "#define CONT 16\n");
	CHECK(mkfifo(tu_path(path, inc, "unrelated.h"), 0600) == 0);

	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "h.db"), "sm_90", 1);
	kjit_kernel *k = make_kernel(e, inc, "#define MEM 2\n");
	void *cubin1, *cubin2;
	size_t size1, size2;
	CHECK(get(k, k1, &cubin1, &size1) == KJIT_TIER_COMPILED);
	sqlite3 *s = tu_db_open(db);
	char files[4096];
	tu_db_text(s, "SELECT files FROM manifests WHERE key = ?1", k1, files, sizeof files);
	tu_db_close(s);
	CHECK_CONTAINS(files, tile);
	CHECK_CONTAINS(files, "/inc/detail.h");
	CHECK_CONTAINS(files, "/inc/cont.h");
	CHECK(!strstr(files, "unrelated.h") && !strstr(files, "commented"));
	CHECK_CONTAINS(files, "- - - ./never.h"); /* looked for, not there: recorded */
	OK("compiled %s: a dir header (and the two it reaches), a memory header; manifest "
	   "lists the files read", k1);

	expect_disk(argv[0], dir, k1, "the manifest holds");
	/* same size, other text, the old mtime: trusted without reading */
	write_old(tile, "#include \"detail.h\"\n#define TILE 5\n");
	expect_disk(argv[0], dir, k1, "size and mtime as recorded: the file is not re-read");
	write_dated(tile, "#include \"detail.h\"\n#define TILE 4\n", 1);
	expect_disk(argv[0], dir, k1, "touched, same content: re-hashed, same key");

	write_old(tile, "#include \"detail.h\"\n#define TILE 400\n");
	kjit_kernel *k_edit = make_kernel(e, inc, "#define MEM 2\n");
	CHECK(get(k_edit, k2, &cubin2, &size2) == KJIT_TIER_COMPILED);
	CHECK(strcmp(k1, k2) != 0);
	CHECK(size1 != size2 || memcmp(cubin1, cubin2, size1) != 0);
	CHECK(get(k, key, NULL, NULL) == KJIT_TIER_MEMORY); /* the first kernel settled its files */
	CHECK_STREQ(key, k1);
	OK("header file edited: a new kernel gets %s, COMPILED, another cubin", k2);
	expect_disk(argv[0], dir, k2, "the edited header's binary");

	kjit_kernel *k_mem = make_kernel(e, inc, "#define MEM 3\n");
	CHECK(get(k_mem, k3, NULL, NULL) == KJIT_TIER_COMPILED);
	CHECK(strcmp(k3, k2) != 0 && strcmp(k3, k1) != 0);
	OK("memory header edited: %s", k3);
	free(cubin1);
	free(cubin2);
	kjit_engine_close(e);

	toolkit(dir);
	standard(dir);
	tunable(dir, inc);
	errors(dir, inc);
	total(dir);
	migration(dir);
	cuda_include(argv[0], dir);
	return 0;
}
