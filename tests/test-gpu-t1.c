/*
 * test-gpu-t1: kjit-tune on the GPU with T1 specs in full, as a user runs
 * it, each into a fresh database. It prints what it ran and what it saw.
 *  1. echo: a kernel that writes back what it read, for every element
 *     type (bool to uint64, half, half2, float, float3, float4, double,
 *     double2, a 12-byte custom type) and fill (Random, Constant,
 *     Generator, BinaryRaw), scalars of nine types, a Symbol and a
 *     MemType Constant argument (module variables through
 *     kjit_kernel_set_symbol). Each output's ReferenceArguments repeat its
 *     input's fill, compared exactly: a variant is ok only when the
 *     device saw exactly the host's bytes. WRONG=1 changes one integer:
 *     caught, and the summary says all rejected ones have WRONG=1.
 *  2. checks: one output per ValidationMethod (AbsoluteDifference,
 *     SideBySideComparison, SideBySideRelativeComparison) and variants
 *     just inside and just outside each threshold.
 *  3. layout: an AoS/SoA parameter whose SoA variants read the same
 *     input otherwise; against the default configuration they are
 *     rejected and the summary names USE_SOA=1 and --verify none; with
 *     --verify none all are ok; OutputFile gets T4 results (run from the
 *     specs' folder: a relative OutputFile is the current directory's); Search and
 *     Budget come from the spec.
 * Skips (77) without a GPU.
 */
#include "testutil.h"

#include <math.h>

static char tool[TU_PATH], db[TU_PATH];
static const char *dir;

static int tune(const char *args, const char **out)
{
	static char buf[1 << 17];
	char cmd[4 * TU_PATH];
	/* in the specs' folder: a relative OutputFile is the current directory's */
	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s --db '%s'", dir, tool, args, db);
	printf("$ kjit-tune %s\n", args);
	fflush(stdout);
	int code = tu_run(cmd, buf, sizeof buf);
	printf("%s", buf);
	*out = buf;
	return code;
}

static void fresh_db(const char *name)
{
	tu_path(db, dir, name);
}

/* Every row of the database with its status and message, for the log. */
static void show_results(void)
{
	sqlite3 *d;
	sqlite3_stmt *s;
	CHECK(sqlite3_open(db, &d) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(d, "SELECT config, status, coalesce(message, '') FROM results"
	                            " ORDER BY id", -1, &s, NULL) == SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW)
		printf("    %s %s %s\n", sqlite3_column_text(s, 0), sqlite3_column_text(s, 1),
		       sqlite3_column_text(s, 2));
	sqlite3_finalize(s);
	sqlite3_close(d);
}

static int db_count(const char *sql)
{
	sqlite3 *d;
	CHECK(sqlite3_open(db, &d) == SQLITE_OK);
	int n = (int)tu_db_int(d, sql, NULL);
	sqlite3_close(d);
	return n;
}

/* ---- 1. every type and fill, echoed ---------------------------------------- */

static const char echo_cu[] =
	"struct c12 { unsigned char b[12]; };\n"
	"__constant__ float sym_c[8];\n"
	"__constant__ float cm[16];\n"
	"extern \"C\" __global__ void echo(int n,\n"
	"    const bool *b_i, bool *b_o, const signed char *i8_i, signed char *i8_o,\n"
	"    const unsigned char *u8_i, unsigned char *u8_o, const short *i16_i, short *i16_o,\n"
	"    const unsigned short *u16_i, unsigned short *u16_o, const int *i32_i, int *i32_o,\n"
	"    const unsigned *u32_i, unsigned *u32_o, const long long *i64_i, long long *i64_o,\n"
	"    const unsigned long long *u64_i, unsigned long long *u64_o,\n"
	"    const unsigned short *h_i, unsigned short *h_o, const ushort2 *h2_i, ushort2 *h2_o,\n"
	"    const float *f_i, float *f_o, const float3 *f3_i, float3 *f3_o,\n"
	"    const float4 *f4_i, float4 *f4_o, const double *d_i, double *d_o,\n"
	"    const double2 *d2_i, double2 *d2_o, const c12 *c_i, c12 *c_o,\n"
	"    const float *fr_i, float *fr_o, const float *cm_i, float *cm_o, float *cm_sym_o,\n"
	"    float *sym_o,\n"
	"    bool s_b, signed char s_i8, unsigned short s_u16, int s_i32,\n"
	"    unsigned long long s_u64, unsigned short s_h, float s_f, double s_d, float2 s_f2,\n"
	"    bool *s_b_o, signed char *s_i8_o, unsigned short *s_u16_o, int *s_i32_o,\n"
	"    unsigned long long *s_u64_o, unsigned short *s_h_o, float *s_f_o, double *s_d_o,\n"
	"    float2 *s_f2_o)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n) {\n"
	"\t\tb_o[i] = b_i[i]; i8_o[i] = i8_i[i]; u8_o[i] = u8_i[i]; i16_o[i] = i16_i[i];\n"
	"\t\tu16_o[i] = u16_i[i]; i32_o[i] = i32_i[i] + (WRONG && i == 7);\n"
	"\t\tu32_o[i] = u32_i[i]; i64_o[i] = i64_i[i]; u64_o[i] = u64_i[i]; h_o[i] = h_i[i];\n"
	"\t\th2_o[i] = h2_i[i]; f_o[i] = f_i[i]; f3_o[i] = f3_i[i]; f4_o[i] = f4_i[i];\n"
	"\t\td_o[i] = d_i[i]; d2_o[i] = d2_i[i]; c_o[i] = c_i[i]; fr_o[i] = fr_i[i];\n"
	"\t}\n"
	"\tif (i < 16) {\n"
	"\t\tcm_o[i] = cm_i[i];\n"
	"\t\tcm_sym_o[i] = cm[i];\n"
	"\t}\n"
	"\tif (i < 8)\n"
	"\t\tsym_o[i] = sym_c[i];\n"
	"\tif (i == 0) {\n"
	"\t\t*s_b_o = s_b; *s_i8_o = s_i8; *s_u16_o = s_u16; *s_i32_o = s_i32; *s_u64_o = s_u64;\n"
	"\t\t*s_h_o = s_h; *s_f_o = s_f; *s_d_o = s_d; s_f2_o[0] = s_f2;\n"
	"\t}\n"
	"}\n";

/* An input, its output and the output's reference with the same fill
 * (fill is the JSON members after "FillType"). */
static void pair(kjit__buf *args, kjit__buf *refs, const char *name, const char *type,
                 const char *size, const char *fill)
{
	char *a = kjit__strdup_printf(
		",\n  {\"Name\": \"%s_i\", \"Type\": \"%s\", \"MemoryType\": \"Vector\", \"Size\": \"%s\","
		" \"AccessType\": \"ReadOnly\", \"FillType\": %s},\n"
		"  {\"Name\": \"%s_o\", \"Type\": \"%s\", \"MemoryType\": \"Vector\", \"Size\": \"%s\","
		" \"AccessType\": \"WriteOnly\", \"FillType\": \"Constant\", \"FillValue\": 0}",
		name, type, size, fill, name, type, size);
	char *r = kjit__strdup_printf(
		"%s\n  {\"Name\": \"%s_ref\", \"TargetName\": \"%s_o\", \"FillType\": %s,"
		" \"ValidationMethod\": \"SideBySideComparison\", \"ValidationThreshold\": 0}",
		refs->len ? "," : "", name, name, fill);
	CHECK(a && r);
	kjit__buf_str(args, a);
	kjit__buf_str(refs, r);
	free(a);
	free(r);
}

/* A scalar, and the one-element output its reference fills with the
 * same value. */
static void scalar(kjit__buf *args, kjit__buf *outs, kjit__buf *refs, const char *name,
                   const char *type, const char *value)
{
	char *a = kjit__strdup_printf(",\n  {\"Name\": \"%s\", \"Type\": \"%s\", \"MemoryType\":"
	                              " \"Scalar\", \"FillValue\": %s}", name, type, value);
	char *o = kjit__strdup_printf(",\n  {\"Name\": \"%s_o\", \"Type\": \"%s\", \"MemoryType\":"
	                              " \"Vector\", \"Size\": 1, \"AccessType\": \"WriteOnly\"}",
	                              name, type);
	char *r = kjit__strdup_printf(",\n  {\"Name\": \"%s_ref\", \"TargetName\": \"%s_o\","
	                              " \"FillType\": \"Constant\", \"FillValue\": %s,"
	                              " \"ValidationMethod\": \"SideBySideComparison\","
	                              " \"ValidationThreshold\": 0}", name, name, value);
	CHECK(a && o && r);
	kjit__buf_str(args, a);
	kjit__buf_str(outs, o);
	kjit__buf_str(refs, r);
	free(a);
	free(o);
	free(r);
}

static void test_echo(void)
{
	char path[TU_PATH], spec[TU_PATH];
	tu_write_file(tu_path(path, dir, "echo.cu"), echo_cu, strlen(echo_cu));
	/* BinaryRaw data: 1000 custom elements of 12 bytes, 1000 floats */
	unsigned char *bytes = malloc(12000);
	float *floats = malloc(1000 * sizeof *floats);
	CHECK(bytes && floats);
	for (int i = 0; i < 12000; i++)
		bytes[i] = (unsigned char)(i * 131 + 7);
	for (int i = 0; i < 1000; i++)
		floats[i] = (float)sin(i) * 1e3f;
	tu_write_file(tu_path(path, dir, "c12.bin"), bytes, 12000);
	tu_write_file(tu_path(path, dir, "floats.bin"), floats, 1000 * sizeof *floats);
	free(bytes);
	free(floats);

	kjit__buf args = { 0 }, refs = { 0 }, outs = { 0 };
	kjit__buf_str(&args, "  {\"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\","
	                     " \"FillValue\": \"n\"}");
	pair(&args, &refs, "b", "bool", "n", "\"Random\", \"RandomSeed\": 11");
	pair(&args, &refs, "i8", "int8", "n", "\"Generator\", \"DataSource\": \"i % 200 - 100\"");
	pair(&args, &refs, "u8", "uint8", "n", "\"Constant\", \"FillValue\": 200");
	pair(&args, &refs, "i16", "int16", "n", "\"Random\", \"RandomSeed\": 12");
	pair(&args, &refs, "u16", "uint16", "n", "\"Generator\", \"DataSource\": \"i * 61 % 65536\"");
	pair(&args, &refs, "i32", "int32", "n", "\"Random\", \"RandomSeed\": 13");
	pair(&args, &refs, "u32", "uint32", "n", "\"Constant\", \"FillValue\": 4000000000");
	pair(&args, &refs, "i64", "int64", "n",
	     "\"Generator\", \"DataSource\": \"i * 1000003 - 5000000000\"");
	pair(&args, &refs, "u64", "uint64", "n", "\"Random\", \"RandomSeed\": 14");
	pair(&args, &refs, "h", "half", "n", "\"Generator\", \"DataSource\": \"i / 3 - 100\"");
	pair(&args, &refs, "h2", "half2", "n", "\"Random\", \"RandomSeed\": 15");
	pair(&args, &refs, "f", "float", "n", "\"Random\", \"RandomSeed\": 16");
	pair(&args, &refs, "f3", "float3", "n", "\"Generator\", \"DataSource\": \"i * 0.25\"");
	pair(&args, &refs, "f4", "float4", "n", "\"Generator\", \"DataSource\": \"(i % 4) - i / 7\"");
	pair(&args, &refs, "d", "double", "n", "\"Constant\", \"FillValue\": 0.1");
	pair(&args, &refs, "d2", "double2", "n", "\"Random\", \"RandomSeed\": 17");
	/* custom: no Type arithmetic, TypeSize bytes each */
	char *c = kjit__strdup_printf(
		",\n  {\"Name\": \"c_i\", \"Type\": \"custom\", \"TypeSize\": 12, \"MemoryType\":"
		" \"Vector\", \"Size\": \"n\", \"AccessType\": \"ReadOnly\", \"FillType\": \"BinaryRaw\","
		" \"DataSource\": \"c12.bin\"},\n"
		"  {\"Name\": \"c_o\", \"Type\": \"custom\", \"TypeSize\": 12, \"MemoryType\": \"Vector\","
		" \"Size\": \"n\", \"AccessType\": \"WriteOnly\", \"FillType\": \"Constant\","
		" \"FillValue\": 0}");
	kjit__buf_str(&args, c);
	free(c);
	kjit__buf_str(&refs, ",\n  {\"Name\": \"c_ref\", \"TargetName\": \"c_o\", \"FillType\":"
	                     " \"BinaryRaw\", \"DataSource\": \"c12.bin\"}");
	pair(&args, &refs, "fr", "float", "n", "\"BinaryRaw\", \"DataSource\": \"floats.bin\"");
	/* MemType Constant: a kernel argument and the module variable cm */
	kjit__buf_str(&args, ",\n  {\"Name\": \"cm\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                     " \"MemType\": \"Constant\", \"Size\": 16, \"AccessType\": \"ReadOnly\","
	                     " \"FillType\": \"Generator\", \"DataSource\": \"i * i + 0.5\"},\n"
	                     "  {\"Name\": \"cm_o\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                     " \"Size\": 16, \"AccessType\": \"WriteOnly\"},\n"
	                     "  {\"Name\": \"cm_sym_o\", \"Type\": \"float\", \"MemoryType\":"
	                     " \"Vector\", \"Size\": 16, \"AccessType\": \"WriteOnly\"},\n"
	                     "  {\"Name\": \"sym_c\", \"Type\": \"float\", \"MemoryType\": \"Symbol\","
	                     " \"Size\": 8, \"AccessType\": \"ReadOnly\", \"FillType\": \"Generator\","
	                     " \"DataSource\": \"100 - i\"},\n"
	                     "  {\"Name\": \"sym_o\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                     " \"Size\": 8, \"AccessType\": \"WriteOnly\"}");
	kjit__buf_str(&refs, ",\n  {\"Name\": \"cm_ref\", \"TargetName\": \"cm_o\", \"FillType\":"
	                     " \"Generator\", \"DataSource\": \"i * i + 0.5\","
	                     " \"ValidationThreshold\": 0},\n"
	                     "  {\"Name\": \"cm_sym_ref\", \"TargetName\": \"cm_sym_o\", \"FillType\":"
	                     " \"Generator\", \"DataSource\": \"i * i + 0.5\","
	                     " \"ValidationThreshold\": 0},\n"
	                     "  {\"Name\": \"sym_ref\", \"TargetName\": \"sym_o\", \"FillType\":"
	                     " \"Generator\", \"DataSource\": \"100 - i\", \"ValidationThreshold\": 0}");
	scalar(&args, &outs, &refs, "s_b", "bool", "1");
	scalar(&args, &outs, &refs, "s_i8", "int8", "-77");
	scalar(&args, &outs, &refs, "s_u16", "uint16", "65000");
	scalar(&args, &outs, &refs, "s_i32", "int32", "-123456789");
	scalar(&args, &outs, &refs, "s_u64", "uint64", "4000000000123");
	scalar(&args, &outs, &refs, "s_h", "half", "0.333");
	scalar(&args, &outs, &refs, "s_f", "float", "3.25");
	scalar(&args, &outs, &refs, "s_d", "double", "0.1");
	scalar(&args, &outs, &refs, "s_f2", "float2", "-1.5");
	kjit__buf_str(&args, outs.p);
	char *a = kjit__buf_done(&args), *r = kjit__buf_done(&refs);
	free(outs.p);
	CHECK(a && r);
	char *text = kjit__strdup_printf(
		"{\"General\": {\"BenchmarkName\": \"echo\", \"FormatVersion\": \"1.0.0\"},\n"
		" \"ConfigurationSpace\": {\"TuningParameters\": [\n"
		"  {\"Name\": \"BLOCK\", \"Type\": \"int\", \"Values\": \"[64, 128]\", \"Default\": 64},\n"
		"  {\"Name\": \"WRONG\", \"Type\": \"int\", \"Values\": \"[0, 1]\", \"Default\": 0}],\n"
		"  \"Conditions\": []},\n"
		" \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"echo\","
		" \"KernelFile\": \"echo.cu\", \"GlobalSizeType\": \"CUDA\",\n"
		"  \"LocalSize\": {\"X\": \"BLOCK\", \"Y\": \"1\", \"Z\": \"1\"},\n"
		"  \"GlobalSize\": {\"X\": \"(n + BLOCK - 1) // BLOCK\", \"Y\": \"1\", \"Z\": \"1\"},\n"
		"  \"ProblemSize\": {\"n\": 1000},\n"
		"  \"Arguments\": [\n%s],\n"
		"  \"ReferenceArguments\": [%s]}}\n", a, r);
	free(a);
	free(r);
	CHECK(text);
	tu_write_file(tu_path(spec, dir, "echo.json"), text, strlen(text));
	free(text);

	fresh_db("echo.db");
	const char *out;
	char cmdline[2 * TU_PATH];
	snprintf(cmdline, sizeof cmdline, "'%s' --json --early-stop 0", spec);
	int code = tune(cmdline, &out);
	show_results();
	CHECK_MSG(code == 0, "exit %d", code);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 4);
	CHECK(tu_json_int(out, "$.problems[0].statuses.ok") == 2);
	CHECK(tu_json_int(out, "$.problems[0].statuses.wrong_result") == 2);
	CHECK(tu_json_int(out, "$.problems[0].best.config.WRONG") == 0);
	CHECK(strcmp(tu_json_get(out, "$.problems[0].rejected.against"), "data") == 0);
	CHECK(tu_json_int(out, "$.problems[0].rejected.count") == 2);
	CHECK(tu_json_int(out, "$.problems[0].rejected.shared.WRONG[0]") == 1);
	CHECK_CONTAINS(tu_json_get(out, "$.problems[0].rejected.message"), "all of them have WRONG=1");
	CHECK(db_count("SELECT count(*) FROM results WHERE status = 'wrong_result' AND"
	               " message LIKE 'i32_o[7] = %, expected %'") == 2);
	OK("echo: 19 buffer types and fills, 9 scalars, a Symbol and a MemType Constant arrive "
	   "exactly (WRONG=0 ok at both blocks); WRONG=1 caught at i32_o[7] and named in the "
	   "summary");
}

/* ---- 2. one output per validation method ------------------------------------ */

static const char checks_cu[] =
	"extern \"C\" __global__ void checks(int n, const float *x, float *a, float *b, float *c)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i >= n)\n"
	"\t\treturn;\n"
	"\tfloat v = 2 * x[i];\n"
	"\ta[i] = v + (MODE == 1 && i == 0 ? 0.5f : 0) + (MODE == 2 ? 0.01f : 0);\n"
	"\tb[i] = v + (MODE == 3 && i == 5 ? 0.005f : 0) + (MODE == 4 && i == 5 ? 0.02f : 0);\n"
	"\tc[i] = v * (MODE == 5 ? 1.005f : 1) * (MODE == 6 && i == 100 ? 1.02f : 1);\n"
	"}\n";

static void test_checks(void)
{
	char path[TU_PATH], spec[TU_PATH];
	tu_write_file(tu_path(path, dir, "checks.cu"), checks_cu, strlen(checks_cu));
	static const char text[] =
		"{\"General\": {\"FormatVersion\": \"1.0.0\"},\n"
		" \"ConfigurationSpace\": {\"TuningParameters\": [\n"
		"  {\"Name\": \"MODE\", \"Type\": \"int\", \"Values\": \"list(range(7))\", \"Default\": 0}],\n"
		"  \"Conditions\": []},\n"
		" \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"checks\","
		" \"KernelFile\": \"checks.cu\",\n"
		"  \"LocalSize\": {\"X\": \"256\", \"Y\": \"1\", \"Z\": \"1\"},\n"
		"  \"GlobalSize\": {\"X\": \"(n + 255) // 256\", \"Y\": \"1\", \"Z\": \"1\"},\n"
		"  \"ProblemSize\": {\"n\": 1024},\n"
		"  \"Arguments\": [\n"
		"   {\"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\", \"FillValue\": \"n\"},\n"
		"   {\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": \"n\","
		"    \"AccessType\": \"ReadOnly\", \"FillType\": \"Generator\", \"DataSource\": \"i\"},\n"
		"   {\"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": \"n\","
		"    \"AccessType\": \"WriteOnly\"},\n"
		"   {\"Name\": \"b\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": \"n\","
		"    \"AccessType\": \"WriteOnly\"},\n"
		"   {\"Name\": \"c\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": \"n\","
		"    \"AccessType\": \"WriteOnly\"}],\n"
		"  \"ReferenceArguments\": [\n"
		"   {\"Name\": \"ra\", \"TargetName\": \"a\", \"FillType\": \"Generator\","
		"    \"DataSource\": \"2 * i\", \"ValidationMethod\": \"AbsoluteDifference\","
		"    \"ValidationThreshold\": 1.0},\n"
		"   {\"Name\": \"rb\", \"TargetName\": \"b\", \"FillType\": \"Generator\","
		"    \"DataSource\": \"2 * i\", \"ValidationMethod\": \"SideBySideComparison\","
		"    \"ValidationThreshold\": 0.01},\n"
		"   {\"Name\": \"rc\", \"TargetName\": \"c\", \"FillType\": \"Generator\","
		"    \"DataSource\": \"2 * i\", \"ValidationMethod\": \"SideBySideRelativeComparison\","
		"    \"ValidationThreshold\": 0.01}]}}\n";
	tu_write_file(tu_path(spec, dir, "checks.json"), text, strlen(text));
	fresh_db("checks.db");
	const char *out;
	char cmdline[2 * TU_PATH];
	snprintf(cmdline, sizeof cmdline, "'%s' --json --early-stop 0", spec);
	int code = tune(cmdline, &out);
	show_results();
	CHECK_MSG(code == 0, "exit %d", code);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 7);
	static const char *const want[7] = { "ok", "ok", "wrong_result", "ok", "wrong_result", "ok",
		                             "wrong_result" };
	static const char *const message[7] = { NULL, NULL, "a: the sum of |got - expected| is %",
		                                NULL, "b[5] = %SideBySideComparison, threshold 0.01%",
		                                NULL, "c[100] = %SideBySideRelativeComparison%" };
	for (int m = 0; m < 7; m++) {
		char q[512];
		snprintf(q, sizeof q, "SELECT count(*) FROM results WHERE json_extract(config, '$.MODE')"
		         " = %d AND status = '%s' AND (%d OR message LIKE '%s')", m, want[m],
		         message[m] == NULL, message[m] ? message[m] : "");
		CHECK_MSG(db_count(q) == 1, "MODE %d is not %s", m, want[m]);
	}
	OK("AbsoluteDifference: 0.5 in all passes, 10.24 fails; SideBySideComparison: 0.005 passes, "
	   "0.02 fails at b[5]; SideBySideRelativeComparison: 0.5%% passes, 2%% fails at c[100]");
}

/* ---- 3. two layouts, the summary, OutputFile, run settings ----------------- */

static const char layout_cu[] =
	"extern \"C\" __global__ void layout(int n, const float *in, float *out)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i >= n)\n"
	"\t\treturn;\n"
	"#if USE_SOA\n"
	"\tout[i] = in[i] - in[n + i];\n"
	"#else\n"
	"\tout[i] = in[2 * i] - in[2 * i + 1];\n"
	"#endif\n"
	"}\n";

static void write_layout(const char *name, const char *extra)
{
	char path[TU_PATH];
	char *text = kjit__strdup_printf(
		"{\"General\": {\"FormatVersion\": \"1.0.0\", \"OutputFile\": \"%s-t4\","
		" \"TimeUnit\": \"Microseconds\"},\n%s"
		" \"ConfigurationSpace\": {\"TuningParameters\": [\n"
		"  {\"Name\": \"USE_SOA\", \"Type\": \"int\", \"Values\": \"[0, 1]\", \"Default\": 0},\n"
		"  {\"Name\": \"BLOCK\", \"Type\": \"int\", \"Values\": \"[64, 128, 256]\","
		" \"Default\": 128}],\n"
		"  \"Conditions\": []},\n"
		" \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"layout\","
		" \"KernelFile\": \"layout.cu\",\n"
		"  \"LocalSize\": {\"X\": \"BLOCK\", \"Y\": \"1\", \"Z\": \"1\"},\n"
		"  \"GlobalSize\": {\"X\": \"(n + BLOCK - 1) // BLOCK\", \"Y\": \"1\", \"Z\": \"1\"},\n"
		"  \"ProblemSize\": {\"n\": 1048576},\n"
		"  \"Arguments\": [\n"
		"   {\"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\", \"FillValue\": \"n\"},\n"
		"   {\"Name\": \"in\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": \"2 * n\","
		"    \"AccessType\": \"ReadOnly\", \"FillType\": \"Random\", \"RandomSeed\": 3},\n"
		"   {\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": \"n\","
		"    \"AccessType\": \"WriteOnly\"}]}}\n", name, extra);
	CHECK(text);
	char file[64];
	snprintf(file, sizeof file, "%s.json", name);
	tu_write_file(tu_path(path, dir, file), text, strlen(text));
	free(text);
}

static void test_layout(void)
{
	char path[TU_PATH], spec[TU_PATH], cmdline[2 * TU_PATH];
	const char *out;
	tu_write_file(tu_path(path, dir, "layout.cu"), layout_cu, strlen(layout_cu));
	write_layout("layout", "");
	tu_path(spec, dir, "layout.json");
	fresh_db("layout.db");
	snprintf(cmdline, sizeof cmdline, "'%s' --early-stop 0", spec);
	int code = tune(cmdline, &out);
	CHECK_MSG(code == 0, "exit %d", code);
	CHECK_CONTAINS(out, "3 of 6 configurations gave other output than the default "
	                    "configuration; all of them have USE_SOA=1 (no correct one does). If "
	                    "their output is expected to differ (other inputs, another layout), run "
	                    "with --verify none or give ReferenceArguments.");
	snprintf(cmdline, sizeof cmdline, "'%s' --json --force --early-stop 0", spec);
	CHECK(tune(cmdline, &out) == 0);
	CHECK(tu_json_int(out, "$.problems[0].rejected.count") == 3);
	CHECK(tu_json_int(out, "$.problems[0].rejected.checked") == 6);
	CHECK(tu_json_int(out, "$.problems[0].rejected.shared.USE_SOA[0]") == 1);
	CHECK(strcmp(tu_json_get(out, "$.problems[0].rejected.against"), "default") == 0);
	OK("layout: the 3 SoA variants rejected, the summary names USE_SOA=1 and --verify none");

	/* OutputFile, in the current directory, in the spec's TimeUnit */
	char t4[TU_PATH];
	tu_path(t4, dir, "layout-t4.json");
	CHECK_MSG(tu_exists(t4), "%s not written", t4);
	char *doc = tu_read_file(t4, NULL);
	CHECK(strcmp(tu_json_get(doc, "$.schema_version"), "1.0.0") == 0);
	CHECK(strcmp(tu_json_get(doc, "$.metadata.timeunit"), "microseconds") == 0);
	CHECK(strcmp(tu_json_get(doc, "$.results[5].configuration.BLOCK"), "(null)") != 0);
	CHECK(strcmp(tu_json_get(doc, "$.results[6]"), "(null)") == 0);
	int correctness = 0;
	for (int i = 0; i < 6; i++) {
		char p[64];
		snprintf(p, sizeof p, "$.results[%d].invalidity", i);
		correctness += strcmp(tu_json_get(doc, p), "correctness") == 0;
		snprintf(p, sizeof p, "$.results[%d].measurements[0].unit", i);
		if (strcmp(tu_json_get(doc, p), "us") == 0) {
			snprintf(p, sizeof p, "$.results[%d].measurements[0].value", i);
			double us = atof(tu_json_get(doc, p));
			CHECK_MSG(us > 0.1 && us < 1e5, "a time of %g us", us);
		}
	}
	CHECK(correctness == 3);
	printf("  %s: %.300s...\n", t4, doc);
	free(doc);
	OK("OutputFile: T4 results in the current directory, times in the spec's microseconds");

	snprintf(cmdline, sizeof cmdline, "'%s' --json --force --verify none --early-stop 0", spec);
	CHECK(tune(cmdline, &out) == 0);
	CHECK(tu_json_int(out, "$.problems[0].statuses.ok") == 6);
	CHECK(strcmp(tu_json_get(out, "$.problems[0].rejected"), "(null)") == 0);
	OK("--verify none: all 6 ok, nothing rejected");

	/* Search and Budget from the spec; the command line's --budget wins */
	write_layout("layout-budget", " \"Search\": {\"Name\": \"random_sample\"},\n"
	                              " \"Budget\": [{\"Type\": \"ConfigurationCount\","
	                              " \"BudgetValue\": 2}],\n");
	tu_path(spec, dir, "layout-budget.json");
	fresh_db("budget.db");
	snprintf(cmdline, sizeof cmdline, "'%s' --json --verify none --early-stop 0", spec);
	CHECK(tune(cmdline, &out) == 0);
	CHECK(strcmp(tu_json_get(out, "$.strategy"), "random") == 0);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 2);
	snprintf(cmdline, sizeof cmdline, "'%s' --json --verify none --early-stop 0 --force"
	         " --budget 3 --strategy exhaustive", spec);
	CHECK(tune(cmdline, &out) == 0);
	CHECK(strcmp(tu_json_get(out, "$.strategy"), "exhaustive") == 0);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 3);
	OK("Search random_sample and a budget of 2 from the spec; --strategy and --budget win");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	tu_require_gpu();
	tu_kjit_tune(tool);
	dir = tu_tmpdir();
	test_echo();
	test_checks();
	test_layout();
	return 0;
}
