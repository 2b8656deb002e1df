/*
 * test-tune-headers: headers in specs, through kjit-tune --compile-only
 * (real NVRTC, a real database file, no GPU).
 *
 *  - a kjit spec with kernel.include_dirs (relative to the spec's folder)
 *    and kernel.headers (a text, and {"path": ...}) compiles its space; its
 *    binaries carry a manifest naming the dir's header;
 *  - a T1 spec whose CompilerOptions hold "-I", "include" and "-Idetail"
 *    (relative to the spec's folder) compiles; a -I folder that exists
 *    nowhere is dropped with a warning;
 *  - wrong inputs name the field: kernel.include_dirs of the wrong type
 *    or naming no folder, kernel.headers of the wrong type, a header that
 *    is neither a text nor {"path"}, a path that cannot be read, -I in
 *    kernel.flags.
 */
#include "testutil.h"

static char tool[TU_PATH];

static int run(const char *args, const char **out)
{
	static char buf[65536];
	char cmd[4 * TU_PATH];
	snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", tool, args);
	*out = buf;
	return tu_run(cmd, buf, sizeof buf);
}

static void write_in(const char *dir, const char *name, const char *text)
{
	char path[TU_PATH];
	tu_write_file(tu_path(path, dir, name), text, strlen(text));
}

static const char kjit_format_spec[] =
	"{\n"
	"  \"kernel\": { \"source\": \"k.cu\", \"entry\": \"scale\",\n"
	"              \"include_dirs\": [\"inc\"],\n"
	"              \"headers\": { \"mem.h\": \"#define MEM 2\\n\",\n"
	"                           \"lib/file.h\": { \"path\": \"extra/file.h\" } } },\n"
	"  \"parameters\": [ { \"name\": \"BLOCK\", \"values\": [64, 128], \"default\": 64,\n"
	"                    \"roles\": [\"block_x\", \"define\"] } ],\n"
	"  \"grid\": \"(n + BLOCK - 1) / BLOCK\",\n"
	"  \"problems\": [ { \"n\": 1024 } ]\n"
	"}\n";

static const char t1_spec[] =
	"{\n"
	"  \"General\": { \"BenchmarkName\": \"scale\", \"OutputFormat\": \"JSON\" },\n"
	"  \"ConfigurationSpace\": {\n"
	"    \"TuningParameters\": [\n"
	"      { \"Name\": \"block_size_x\", \"Type\": \"int\", \"Values\": \"[32*i for i in "
	"range(1, 5)]\", \"Default\": 64 }\n"
	"    ],\n"
	"    \"Conditions\": []\n"
	"  },\n"
	"  \"KernelSpecification\": {\n"
	"    \"Language\": \"CUDA\",\n"
	"    \"CompilerOptions\": [\"-std=c++17\", \"-I\", \"include\", \"-Idetail\", \"-Igone\"],\n"
	"    \"KernelName\": \"scale\",\n"
	"    \"KernelFile\": \"t1.cu\",\n"
	"    \"GlobalSizeType\": \"CUDA\",\n"
	"    \"LocalSize\": { \"X\": \"block_size_x\", \"Y\": \"1\", \"Z\": \"1\" },\n"
	"    \"GridDivX\": [\"block_size_x\"],\n"
	"    \"ProblemSize\": 4096,\n"
	"    \"Arguments\": [\n"
	"      { \"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": "
	"\"ReadWrite\", \"FillType\": \"Random\", \"Size\": \"ProblemSize\" },\n"
	"      { \"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\", \"AccessType\": "
	"\"ReadOnly\", \"FillValue\": \"ProblemSize\" }\n"
	"    ]\n"
	"  }\n"
	"}\n";

/* kjit-tune --compile-only of spec into db: its output. */
static const char *compile_only(const char *spec, const char *db)
{
	char cmd[2 * TU_PATH + 64];
	const char *out;
	snprintf(cmd, sizeof cmd, "'%s' --compile-only --arch sm_90 --db '%s' -j 1", spec, db);
	int rc = run(cmd, &out);
	CHECK_MSG(rc == 0, "kjit-tune %s: exit %d:\n%s", cmd, rc, out);
	return out;
}

static void bad(const char *dir, const char *kernel, const char *field, const char *expect)
{
	char text[2048];
	snprintf(text, sizeof text, "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"scale\", %s},"
	         " \"parameters\": [{\"name\": \"B\", \"values\": [1]}]}", kernel);
	tu_spec_refused(dir, text, field, expect);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *build = getenv("KJIT_BUILDDIR");
	tu_path(tool, build && *build ? build : ".", "autotune/kjit-tune");
	CHECK_MSG(tu_exists(tool), "%s not built", tool);
	char *abs = realpath(tool, NULL); /* the test runs it from another folder too */
	CHECK(abs != NULL);
	snprintf(tool, sizeof tool, "%s", abs);
	free(abs);
	const char *dir = tu_tmpdir(), *out;
	char sub[TU_PATH], spec[TU_PATH], db[TU_PATH];
	static const char *const folders[] = { "inc", "extra", "include", "detail" };
	for (size_t i = 0; i < sizeof folders / sizeof folders[0]; i++)
		CHECK(mkdir(tu_path(sub, dir, folders[i]), 0700) == 0);
	write_in(dir, "inc/tile.h", "#define TILE 4\n");
	write_in(dir, "extra/file.h", "#define FILE_H 8\n");
	/* with standard headers, as kernels written for nvcc have them */
	write_in(dir, "k.cu", "#include \"tile.h\"\n#include <mem.h>\n#include \"lib/file.h\"\n"
	         "#include <math.h>\n#include <stdint.h>\n#include <limits.h>\n"
	         "extern \"C\" __global__ void scale(float *x, int n) {\n"
	         "  uint32_t i = blockIdx.x * BLOCK + threadIdx.x;\n"
	         "  if (i < (uint32_t)n && n < INT_MAX) x[i] *= sqrtf(TILE + MEM + FILE_H);\n}\n");

	tu_path(spec, dir, "k.json");
	tu_write_file(spec, kjit_format_spec, strlen(kjit_format_spec));
	compile_only(spec, tu_path(db, dir, "k.db"));
	sqlite3 *s = tu_db_open(db);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == 2);
	CHECK(tu_db_int(s, "SELECT count(*) FROM manifests WHERE files LIKE '%/inc/tile.h%'",
	                NULL) == 2);
	tu_db_close(s);
	OK("kjit spec: kernel.include_dirs and kernel.headers, and math.h, stdint.h, limits.h; 2 "
	   "variants compiled, manifests name inc/tile.h");

	write_in(dir, "include/scale.cuh", "#include <detail.cuh>\n");
	write_in(dir, "detail/detail.cuh", "#define FACTOR 3\n");
	write_in(dir, "t1.cu", "#include <scale.cuh>\n#include <cmath>\n#include <cfloat>\n"
	         "#include <cstdint>\n#include <type_traits>\n#include <assert.h>\n"
	         "extern \"C\" __global__ void scale(float *x, int n) {\n"
	         "  static_assert(std::is_same<std::int32_t, int>::value, \"int32_t\");\n"
	         "  int i = blockIdx.x * block_size_x + threadIdx.x;\n"
	         "  assert(n > 0);\n"
	         "  if (i < n) x[i] *= std::sqrt(FACTOR * 1.0f) + (FLT_MAX > 0);\n}\n");
	tu_path(spec, dir, "t1.json");
	tu_write_file(spec, t1_spec, strlen(t1_spec));
	/* from another folder: -I is the spec's folder's, not the current one's */
	CHECK(chdir("/") == 0);
	out = compile_only(spec, tu_path(db, dir, "t1.db"));
	CHECK_CONTAINS(out, "KernelSpecification.CompilerOptions[4]");
	CHECK_CONTAINS(out, "\"gone\"");
	s = tu_db_open(db);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == 4);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries WHERE options LIKE '%-I%'", NULL) == 0);
	tu_db_close(s);
	kjit__spec *t1 = tu_spec_from(dir, "t1.json", t1_spec);
	CHECK(t1->n_include_dirs == 2 && t1->n_flags == 1);
	CHECK_STREQ(t1->flags[0], "-std=c++17");
	kjit__spec_free(t1);
	OK("T1 spec: CompilerOptions -I include, -Idetail from the spec's folder, and cmath, "
	   "cfloat, cstdint, type_traits, assert.h; 4 variants; -Igone dropped with a warning");

	bad(dir, "\"include_dirs\": 5", "kernel.include_dirs", "a string or an array of strings");
	bad(dir, "\"include_dirs\": [\"inc\", \"nowhere\"]", "kernel.include_dirs[1]",
	    "an existing folder");
	bad(dir, "\"headers\": [\"a.h\"]", "kernel.headers", "an object of header names");
	bad(dir, "\"headers\": {\"a.h\": 3}", "kernel.headers.a.h", "the header's text");
	bad(dir, "\"headers\": {\"a.h\": {\"path\": \"none.h\"}}", "kernel.headers.a.h.path",
	    "a readable file");
	bad(dir, "\"headers\": {\"a.h\": {\"file\": \"x\"}}", "kernel.headers.a.h.file",
	    "a key among path");
	bad(dir, "\"flags\": [\"-lineinfo\", \"-Iinc\"]", "kernel.flags[1]", "kernel.include_dirs");
	return 0;
}
