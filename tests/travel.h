/*
 * travel.h - the kernel and T1 spec of the tests of databases that travel
 * between GPUs (test-tune-arch, test-gpu-travel): y = a x + y, UNROLL
 * elements a thread, 5 configurations.
 */
#ifndef KJIT_TEST_TRAVEL_H
#define KJIT_TEST_TRAVEL_H

#include "testutil.h"

#define TRAVEL_N_CONFIGS 5

static const char travel_source[] =
	"/* y = a x + y; each thread does UNROLL elements, BLOCK_SIZE apart */\n"
	"extern \"C\" __global__ void axpy_unrolled(int n, float a, const float *x, float *y)\n"
	"{\n"
	"\tint base = blockIdx.x * BLOCK_SIZE * UNROLL + threadIdx.x;\n"
	"#pragma unroll\n"
	"\tfor (int k = 0; k < UNROLL; k++) {\n"
	"\t\tint i = base + k * BLOCK_SIZE;\n"
	"\t\tif (i < n)\n"
	"\t\t\ty[i] = a * x[i] + y[i];\n"
	"\t}\n"
	"}\n";

static const char travel_spec[] =
	"{\n"
	"  \"General\": { \"BenchmarkName\": \"axpy_unrolled\", \"OutputFormat\": \"JSON\" },\n"
	"  \"ConfigurationSpace\": {\n"
	"    \"TuningParameters\": [\n"
	"      { \"Name\": \"BLOCK_SIZE\", \"Type\": \"int\", \"Values\": \"[64, 128, 256]\",\n"
	"        \"Default\": 128 },\n"
	"      { \"Name\": \"UNROLL\", \"Type\": \"int\", \"Values\": \"list(range(1, 3))\",\n"
	"        \"Default\": 1 }\n"
	"    ],\n"
	"    \"Conditions\": [\n"
	"      { \"Expression\": \"BLOCK_SIZE * UNROLL <= 256\",\n"
	"        \"Parameters\": [\"BLOCK_SIZE\", \"UNROLL\"] }\n"
	"    ]\n"
	"  },\n"
	"  \"KernelSpecification\": {\n"
	"    \"Language\": \"CUDA\",\n"
	"    \"CompilerOptions\": [],\n"
	"    \"KernelName\": \"axpy_unrolled\",\n"
	"    \"KernelFile\": \"axpy.cu\",\n"
	"    \"GlobalSizeType\": \"CUDA\",\n"
	"    \"LocalSize\": { \"X\": \"BLOCK_SIZE\", \"Y\": \"1\", \"Z\": \"1\" },\n"
	"    \"GlobalSize\": { \"X\": \"(n + BLOCK_SIZE * UNROLL - 1) // (BLOCK_SIZE * UNROLL)\",\n"
	"                    \"Y\": \"1\", \"Z\": \"1\" },\n"
	"    \"ProblemSize\": { \"n\": 100003 },\n"
	"    \"Arguments\": [\n"
	"      { \"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\", \"FillValue\": \"n\" },\n"
	"      { \"Name\": \"a\", \"Type\": \"float\", \"MemoryType\": \"Scalar\", \"FillValue\": 2.0 },\n"
	"      { \"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": \"ReadOnly\",\n"
	"        \"FillType\": \"Random\", \"Size\": \"n\" },\n"
	"      { \"Name\": \"y\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"AccessType\": \"ReadWrite\",\n"
	"        \"FillType\": \"Random\", \"Size\": \"n\" }\n"
	"    ]\n"
	"  }\n"
	"}\n";

/* Writes the spec and its kernel into dir; the spec's path into spec. */
static inline void travel_write(const char *dir, char spec[TU_PATH])
{
	char src[TU_PATH];
	tu_write_file(tu_path(src, dir, "axpy.cu"), travel_source, strlen(travel_source));
	tu_write_file(tu_path(spec, dir, "axpy.json"), travel_spec, strlen(travel_spec));
}

/* The spec's kernel on engine e, as kjit-tune names it (the same
 * signature, so the same binary keys). */
static inline kjit_kernel *travel_kernel(kjit_engine *e, const char *dir)
{
	static const char *const params[] = { "BLOCK_SIZE", "UNROLL" };
	char src[TU_PATH];
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_from_file(e, "axpy_unrolled", tu_path(src, dir, "axpy.cu"),
	                                      params, 2, &k));
	return k;
}

/* The variant BLOCK_SIZE=block UNROLL=unroll of k. */
static inline kjit_status travel_variant(kjit_kernel *k, int block, int unroll,
                                         kjit_variant **out, kjit_cache_tier *tier)
{
	char b[16], u[16];
	snprintf(b, sizeof b, "%d", block);
	snprintf(u, sizeof u, "%d", unroll);
	kjit_define d[] = { { "BLOCK_SIZE", b }, { "UNROLL", u } };
	kjit_variant_desc desc = { d, 2, NULL, 0 };
	return kjit_variant_get(k, &desc, out, tier);
}

/* Runs kjit-tune (the build's) with args, stderr folded in; the exit code,
 * the output in out. */
static inline int travel_tune(const char *args, char *out, size_t size)
{
	const char *build = getenv("KJIT_BUILDDIR");
	char tool[TU_PATH], cmd[5 * TU_PATH];
	tu_path(tool, build && *build ? build : ".", "autotune/kjit-tune");
	CHECK_MSG(tu_exists(tool), "%s not built", tool);
	snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", tool, args);
	return tu_run(cmd, out, size);
}

#endif /* KJIT_TEST_TRAVEL_H */
