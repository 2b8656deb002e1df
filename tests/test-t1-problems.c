/*
 * test-t1-problems: every form of a T1 spec's ProblemSize that kjit-tune
 * tunes is usable by kjit_launch() (CPU: the selection, through
 * kjit_explain()). For each form a spec is written as benchmark suites
 * write them; kjit_kernel_create_from_spec() takes it, its problem names
 * are what kjit-tune's are, and a best row stored under kjit-tune's
 * problem key (kjit__problem_json) is what kjit_explain() picks, as exact:
 *  - a number: "ProblemSize": 4096 (one size, ProblemSize);
 *  - a list of numbers: [4096, 2048] (ProblemSize[0], ProblemSize[1]);
 *  - a list of strings, constant expressions: ["4096", "2 * 1024"];
 *  - a list of strings naming parameters (the grid, as Kernel Tuner
 *    reads it): no problem sizes;
 *  - absent: no problem sizes;
 *  - kjit's named sizes: {"n": 4096}.
 * A KernelFile found nowhere is KJIT_ERR_IO naming the field and the
 * places looked in.
 */
#include "testutil.h"

#include <math.h>

#include "tuning_private.h"

#define DEV "sm_90|NVIDIA H200|132|13000"

static const char kernel_cu[] =
	"extern \"C\" __global__ void fill(float *y, int n)\n"
	"{\n"
	"	int i = blockIdx.x * block_size_x + threadIdx.x;\n"
	"	if (i < n)\n"
	"		y[i] = 1.0f;\n"
	"}\n";

static const char spec_head[] =
	"{\n"
	"  \"General\": { \"BenchmarkName\": \"fill\", \"FormatVersion\": 1 },\n"
	"  \"ConfigurationSpace\": { \"TuningParameters\": [\n"
	"    { \"Name\": \"block_size_x\", \"Type\": \"int\", \"Values\": \"[64, 128, 256]\",\n"
	"      \"Default\": 128 } ] },\n"
	"  \"KernelSpecification\": {\n"
	"    \"Language\": \"CUDA\", \"KernelName\": \"fill\", \"KernelFile\": \"fill.cu\",\n"
	"    \"GlobalSizeType\": \"OpenCL\", \"GlobalSize\": { \"X\": \"4096\" },\n"
	"    \"LocalSize\": { \"X\": \"block_size_x\" },\n"
	"    \"Arguments\": [\n"
	"      { \"Name\": \"y\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 4096,\n"
	"        \"FillType\": \"Constant\", \"FillValue\": 0, \"AccessType\": \"WriteOnly\" },\n"
	"      { \"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\",\n"
	"        \"FillValue\": 4096 } ]";

static const struct {
	const char *label, *problem; /* the ProblemSize member, "" when absent */
	size_t n;
	const char *names[2];
	int64_t values[2];
} forms[] = {
	{ "a number", ", \"ProblemSize\": 4096", 1, { "ProblemSize" }, { 4096 } },
	{ "a list of numbers", ", \"ProblemSize\": [4096, 2048]", 2,
	  { "ProblemSize[0]", "ProblemSize[1]" }, { 4096, 2048 } },
	{ "a list of constant strings", ", \"ProblemSize\": [\"4096\", \"2 * 1024\"]", 2,
	  { "ProblemSize[0]", "ProblemSize[1]" }, { 4096, 2048 } },
	{ "a list of strings naming a parameter", ", \"ProblemSize\": [\"block_size_x * 32\"]", 0,
	  { NULL }, { 0 } },
	{ "absent", "", 0, { NULL }, { 0 } },
	{ "kjit's named sizes", ", \"ProblemSize\": { \"n\": 4096 }", 1, { "n" }, { 4096 } },
};

static void one_form(const char *dir, size_t f, const char *db_path)
{
	char spec_path[TU_PATH], name[32];
	snprintf(name, sizeof name, "fill%zu.json", f);
	tu_path(spec_path, dir, name);
	char *text = kjit__strdup_printf("%s%s } }\n", spec_head, forms[f].problem);
	CHECK(text != NULL);
	tu_write_file(spec_path, text, strlen(text));
	free(text);

	/* kjit-tune's reading: its signature and problem key */
	kjit__spec *spec;
	char *sig;
	CHECK_OK(kjit__spec_load(spec_path, &spec));
	CHECK_OK(kjit_spec_signature(spec, &sig));
	char *problem = kjit__problem_json(&spec->problems[0]);
	CHECK(problem != NULL);

	kjit_engine *e = tu_engine_cpu(db_path, "sm_90", 1);
	snprintf(e->device_key, sizeof e->device_key, "%s", DEV);
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_from_spec(e, spec_path, &k));
	CHECK_STREQ(kjit_kernel_signature(k), sig);
	size_t n = 99;
	const char *const *names = kjit_kernel_problem_names(k, &n);
	CHECK_MSG(n == forms[f].n, "%s: %zu problem sizes, expected %zu", forms[f].label, n,
	          forms[f].n);
	for (size_t i = 0; i < n; i++)
		CHECK_STREQ(names[i], forms[f].names[i]);

	double s[1] = { 700 };
	kjit_eval tr = { .config = "{\"block_size_x\":256}", .status = KJIT_RESULT_OK, .binary_key = "k",
		          .timer = "cupti", .median_ns = 700, .spread_ns = NAN, .min_ns = 700,
		          .max_ns = 700, .samples = s, .n_samples = 1, .objective = 700,
		          .compile_ms = NAN, .message = "online", .arch = "sm_90",
		          .nvrtc = kjit_nvrtc_id() };
	CHECK_OK(kjit__record_search(e->store, sig, DEV, problem, KJIT_OBJECTIVE_TIME, &tr, 1, 0));
	kjit_explanation x;
	CHECK_OK(kjit_explain(k, forms[f].values, n, &x));
	CHECK_STREQ(x.rule, "exact");
	CHECK_STREQ(x.config, "{\"block_size_x\":256}");
	CHECK_STREQ(x.problem, problem);
	OK("ProblemSize %s: problem sizes [%s%s%s], kjit-tune's row for %s is chosen exactly",
	   forms[f].label, n ? names[0] : "", n > 1 ? ", " : "", n > 1 ? names[1] : "", problem);
	kjit_engine_close(e);
	free(problem);
	free(sig);
	kjit__spec_free(spec);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char cu[TU_PATH], db[TU_PATH];
	tu_path(cu, dir, "fill.cu");
	tu_write_file(cu, kernel_cu, strlen(kernel_cu));
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		char name[32];
		snprintf(name, sizeof name, "kjit%zu.db", f);
		one_form(dir, f, tu_path(db, dir, name));
	}
	/* no such kernel file */
	char spec_path[TU_PATH];
	tu_path(spec_path, dir, "nowhere.json");
	char *text = kjit__strdup_printf("%s } }\n", spec_head);
	char *at = strstr(text, "fill.cu");
	memcpy(at, "nope.cu", 7);
	tu_write_file(spec_path, text, strlen(text));
	free(text);
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "nowhere.db"), "sm_90", 1);
	kjit_kernel *k = (kjit_kernel *)1;
	CHECK_ST(kjit_kernel_create_from_spec(e, spec_path, &k), KJIT_ERR_IO);
	CHECK(k == NULL);
	CHECK_CONTAINS(kjit_last_error(), "KernelSpecification.KernelFile: kernel file \"nope.cu\" "
	                                  "not found as ");
	CHECK_CONTAINS(kjit_last_error(), dir);
	OK("a KernelFile found nowhere: KJIT_ERR_IO, \"%s\"", kjit_last_error());
	kjit_engine_close(e);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
