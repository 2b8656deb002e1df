/*
 * test-tune-t1: the community's T1 format as Kernel Tuner, KTT and the BAT
 * suite write it (tests/t1/): spaces against Python's own reading of the
 * Values and Conditions (a hand count without python3), the grid of each
 * GlobalSizeType and of ProblemSize with GridDiv, every argument type and
 * fill, references, run settings, warnings for unknown keys, and a clear
 * message for each kind of bad file.
 */
#include "testutil.h"

#include <math.h>
#include <sys/stat.h>

#include "tuning.h"

static char t1dir[TU_PATH];
static const char *tmp;
static int python;

static kjit__spec *load(const char *name)
{
	char path[TU_PATH + 64];
	kjit__spec *spec;
	tu_path(path, t1dir, name);
	CHECK_OK(kjit__spec_load(path, &spec));
	CHECK_STREQ(spec->format, "t1");
	CHECK(spec->python == 1);
	return spec;
}

static const kjit__arg *arg(const kjit__spec *s, const char *name, int symbol)
{
	for (size_t i = 0; i < s->n_args; i++)
		if (strcmp(s->args[i].name, name) == 0 && s->args[i].symbol == symbol)
			return &s->args[i];
	TU_FAIL("%s: no %s argument %s", s->path, symbol ? "symbol" : "", name);
	return NULL;
}

static const kjit__param *param(const kjit__spec *s, const char *name)
{
	for (size_t i = 0; i < s->n_params; i++)
		if (strcmp(s->params[i].name, name) == 0)
			return &s->params[i];
	TU_FAIL("%s: no parameter %s", s->path, name);
	return NULL;
}

/* "a b c": the parameter's value texts joined by spaces. */
static void check_values(const kjit__param *p, const char *want)
{
	char got[4096] = "";
	size_t len = 0;
	for (size_t i = 0; i < p->n_values && len < sizeof got - 64; i++)
		len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", i ? " " : "",
		                        p->values[i].text);
	CHECK_MSG(strcmp(got, want) == 0, "%s: values \"%s\", want \"%s\"", p->name, got, want);
}

static int has_warning(const kjit__spec *s, const char *field, const char *what)
{
	for (size_t i = 0; i < s->n_warnings; i++)
		if (strstr(s->warnings[i], s->path) && strstr(s->warnings[i], field) &&
		    strstr(s->warnings[i], what))
			return 1;
	return 0;
}

#define CHECK_WARNING(s, field, what)                                                   \
	CHECK_MSG(has_warning(s, field, what), "%s: no warning \"%s: ... %s\"", (s)->path, \
	          field, what)

/* The space of problem 0 against a count: Python's own reading of the spec
 * when python3 is here (values and count), else the hand count. */
static void check_space(const kjit__spec *s, const char *name, size_t hand)
{
	kjit__space *space;
	CHECK_OK(kjit__space_build(s, 0, NULL, &space));
	size_t want = hand;
	if (python) {
		char cmd[3 * TU_PATH], out[65536];
		snprintf(cmd, sizeof cmd, "python3 '%s/space-oracle.py' '%s/%s'", t1dir, t1dir, name);
		CHECK(tu_run(cmd, out, sizeof out) == 0);
		for (char *save = NULL, *line = strtok_r(out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *sp = strchr(line, ' ');
			CHECK(sp != NULL);
			*sp = '\0';
			if (strcmp(line, "count") == 0)
				want = strtoull(sp + 1, NULL, 10);
			else
				check_values(param(s, line), sp + 1);
		}
		CHECK_MSG(want == hand, "%s: Python counts %zu, the hand count is %zu", name, want,
		          hand);
	}
	CHECK_MSG(space->size == want, "%s: %zu configurations, want %zu", name, space->size, want);
	OK("%s: %zu of %.0f configurations, as %s", name, space->size, space->product,
	   python ? "Python counts them" : "counted by hand (no python3)");
	kjit__space_free(space);
}

/* The configuration "NAME=VALUE,..." (others at their default). */
static void config_of(const kjit__spec *s, const char *text, uint16_t *c)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", text);
	kjit__spec_default_config(s, c);
	for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		CHECK(eq != NULL);
		*eq = '\0';
		size_t i;
		for (i = 0; i < s->n_params && strcmp(s->params[i].name, kv) != 0; i++)
			;
		CHECK_MSG(i < s->n_params, "no parameter %s", kv);
		long v = kjit__param_value_index(&s->params[i], eq + 1);
		CHECK_MSG(v >= 0, "%s has no value %s", kv, eq + 1);
		c[i] = (uint16_t)v;
	}
}

static void check_dims(const kjit__spec *s, const char *config, unsigned gx, unsigned gy,
                       unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared)
{
	uint16_t c[64];
	unsigned grid[3], block[3], sh;
	config_of(s, config, c);
	CHECK_OK(kjit__config_dims(s, 0, c, grid, block, &sh));
	CHECK_MSG(grid[0] == gx && grid[1] == gy && grid[2] == gz && block[0] == bx &&
	          block[1] == by && block[2] == bz && sh == shared,
	          "%s {%s}: grid %ux%ux%u block %ux%ux%u shared %u, want %ux%ux%u %ux%ux%u %u",
	          s->path, config, grid[0], grid[1], grid[2], block[0], block[1], block[2], sh, gx,
	          gy, gz, bx, by, bz, shared);
}

static double eval0(const kjit__spec *s, const char *expr)
{
	double v;
	CHECK_OK(kjit__spec_eval(s, 0, NULL, expr, "test", &v));
	return v;
}

static kjit__spec *spec_text(const char *name, const char *text)
{
	return tu_spec_from(tmp, name, text);
}

/* Writes text as a spec and checks that it is refused naming the file,
 * the field and what was expected. */
static void bad(const char *text, const char *field, const char *expect)
{
	tu_spec_refused(tmp, text, field, expect);
}

/* A T1 spec around one tuning parameter B (values "[32, 64]"), with the
 * kernel specification's other fields in ks. */
#define T1(params, ks)                                                                   \
	"{\"ConfigurationSpace\": {\"TuningParameters\": [" params "]},"                    \
	" \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"k\","          \
	" \"KernelFile\": \"k.cu\", \"LocalSize\": {\"X\": \"B\"}" ks "}}"
#define T1X(params, ks, top)                                                             \
	"{\"ConfigurationSpace\": {\"TuningParameters\": [" params "]},"                    \
	" \"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\": \"k.cu\"" ks "}" top "}"
#define PB "{\"Name\": \"B\", \"Type\": \"int\", \"Values\": \"[32, 64]\"}"
#define GS ", \"GlobalSize\": {\"X\": \"4\"}"
#define ARG(fields) ", \"Arguments\": [" fields "]"

static void convolution(void)
{
	kjit__spec *s = load("convolution.json");
	check_space(s, "convolution.json", 6768);
	CHECK_STREQ(s->entry, "convolution_kernel");
	CHECK_CONTAINS(s->source_path, "tests/t1/convolution.cu");
	CHECK(s->n_flags == 1 && strcmp(s->flags[0], "-std=c++11") == 0);
	CHECK(s->n_params == 8 && s->params[2].roles == (KJIT__ROLE_DEFINE | KJIT__ROLE_BLOCK_X));
	CHECK(s->params[3].roles == (KJIT__ROLE_DEFINE | KJIT__ROLE_BLOCK_Y));
	check_values(param(s, "tile_size_x"), "1 2 3 4 5 6 7 8");
	CHECK(param(s, "block_size_y")->default_index == 3);
	CHECK(s->n_restrictions == 3);
	CHECK(s->n_problems == 1 && s->problems[0].n == 2);
	CHECK_STREQ(s->problems[0].names[0], "ProblemSize[0]");
	CHECK_STREQ(s->problems[0].names[1], "ProblemSize[1]");
	CHECK(s->problems[0].values[0] == 256 && s->problems[0].values[1] == 256);
	CHECK_STREQ(s->block[0], "block_size_x");
	CHECK_STREQ(s->block[2], "1");
	/* grid[d] = ceil(ProblemSize[d] / product of GridDiv[d]) */
	check_dims(s, "block_size_x=32,block_size_y=8,tile_size_x=2,tile_size_y=4", 4, 8, 1, 32, 8,
	           1, 0);
	check_dims(s, "block_size_x=48,block_size_y=2,tile_size_x=3,tile_size_y=1", 2, 128, 1, 48,
	           2, 1, 0);
	OK("convolution.json: ProblemSize [256, 256] / GridDivX, GridDivY: grids 4x8 and 2x128");
	CHECK_WARNING(s, "KernelSpecification.GlobalSize", "not used");
	CHECK_WARNING(s, "KernelSpecification.Stream", "null, read as absent");
	CHECK_WARNING(s, "KernelSpecification.BenchmarkName", "unknown key, ignored");
	CHECK(s->budget_evaluations == 200 && !s->strategy);
	CHECK_STREQ(s->verify, "default");
	CHECK(s->n_args == 4);
	const kjit__arg *out = arg(s, "output_image", 0), *in = arg(s, "input_image", 0);
	const kjit__arg *filt = arg(s, "d_filter", 0), *sym = arg(s, "d_filter", 1);
	CHECK(out->is_buffer && out->output == 1 && out->access == KJIT__OUT);
	CHECK(out->data.fill == KJIT__FILL_CONSTANT && out->data.constant == 0);
	CHECK(in->is_buffer && in->output == -1 && in->access == KJIT__IN &&
	      in->data.fill == KJIT__FILL_RANDOM && in->data.seed == 2);
	CHECK(eval0(s, in->length) == 258.0 * 258.0);
	/* MemType Constant: still the kernel's third argument, and the module
	 * variable of its name, with the same data */
	CHECK(s->args + 2 == filt && s->args + 3 == sym);
	CHECK(filt->is_buffer && !filt->symbol && sym->symbol && !sym->is_buffer);
	CHECK(sym->output == 0 && sym->data.fill == KJIT__FILL_RANDOM &&
	      sym->data.seed == filt->data.seed);
	CHECK(eval0(s, sym->length) == 9);
	OK("convolution.json: Output, MemType Constant, Size \"(ProblemSize[0]+max(filter_width)-1)"
	   " * ...\" = 66564, Budget as an object, extra keys warned");
	kjit__spec_free(s);
}

static void vector_add(void)
{
	kjit__spec *s = load("vector_add.json");
	check_space(s, "vector_add.json", 15);
	check_values(param(s, "block_size_x"), "128 192 256 320 384 448 512 576 640 704 768 832 "
	                                       "896 960 1024");
	CHECK(s->params[0].default_index == 6);
	CHECK(s->problems[0].n == 1 && strcmp(s->problems[0].names[0], "ProblemSize") == 0 &&
	      s->problems[0].values[0] == 100000);
	check_dims(s, "block_size_x=512", 196, 1, 1, 512, 1, 1, 0);
	check_dims(s, "block_size_x=128", 782, 1, 1, 128, 1, 1, 0);
	CHECK_WARNING(s, "KernelSpecification.GridDivY", "ProblemSize has no Y entry");
	CHECK_STREQ(s->strategy, "random");
	CHECK(s->budget_evaluations == 20);
	/* an option of the strategy, for kjit-tune (random has none: it says so) */
	CHECK(s->n_strategy_options == 1);
	CHECK_STREQ(s->strategy_options[0], "popsize=10");
	const kjit__arg *n = arg(s, "n", 0);
	CHECK(!n->is_buffer && strcmp(n->value, "ProblemSize") == 0 && strcmp(n->type, "int32") == 0);
	CHECK(arg(s, "a", 0)->data.seed == 11 && arg(s, "b", 0)->data.seed == 3);
	CHECK(eval0(s, arg(s, "c", 0)->length) == 100000);
	OK("vector_add.json: a comprehension of 15 values, ProblemSize 100000 / block_size_x: "
	   "grids 196 and 782, Search random_sample with max_fevals 20");
	kjit__spec_free(s);
}

static void scale_add(void)
{
	kjit__spec *s = load("scale_add.json");
	check_space(s, "scale_add.json", 4);
	CHECK(s->params[0].default_index == 0);
	/* OpenCL: GlobalSize counts threads, the grid is ceil(global / local) */
	check_dims(s, "multiply_block_size=32", 32, 1, 1, 32, 1, 1, 0);
	check_dims(s, "multiply_block_size=256", 4, 1, 1, 256, 1, 1, 0);
	const kjit__arg *a = arg(s, "a", 0), *b = arg(s, "b", 0), *r = arg(s, "result", 0);
	CHECK(a->data.fill == KJIT__FILL_GENERATOR && strcmp(a->data.generator, "i") == 0);
	CHECK(b->data.fill == KJIT__FILL_FILE);
	CHECK_CONTAINS(b->data.file, "tests/t1/data.bin");
	CHECK(tu_exists(b->data.file));
	CHECK(r->has_reference && r->output == 1 && r->access == KJIT__OUT);
	CHECK(r->reference.fill == KJIT__FILL_GENERATOR &&
	      strcmp(r->reference.generator, "2 * i + 3") == 0);
	CHECK(r->check == KJIT__CHECK_RELATIVE && r->threshold == 0.001);
	CHECK(!a->has_reference && !b->has_reference);
	CHECK_STREQ(s->verify, "data");
	CHECK(!arg(s, "scalar", 0)->is_buffer && strcmp(arg(s, "scalar", 0)->value, "3.0") == 0);
	CHECK_STREQ(arg(s, "n", 0)->value, "1000");
	CHECK_STREQ(s->strategy, "annealing");
	CHECK(s->budget_seconds == 30 && s->budget_fraction == 0.5 && s->budget_evaluations == 0);
	CHECK_STREQ(s->time_unit, "us");
	CHECK_STREQ(s->output_file, "TuningOutput.json");
	CHECK_WARNING(s, "KernelSpecification.SimulationInput", "not used");
	CHECK_WARNING(s, "KernelSpecification.Profiling", "not used");
	CHECK_WARNING(s, "KernelSpecification.Device", "not used");
	CHECK(s->n_strategy_options == 1);
	CHECK_STREQ(s->strategy_options[0], "modelPath=2080-vectorAdd_output_DT.sav");
	OK("scale_add.json (KTT): uint, OpenCL grids 32 and 4, Generator and BinaryRaw fills, a "
	   "Generator reference checked side by side relative, MCMC, two budgets, General");
	kjit__spec_free(s);
}

static void types(void)
{
	static const struct {
		const char *name, *type;
		unsigned components;
	} want[] = {
		{ "b", "bool", 1 },      { "i8", "int8", 1 },      { "u8", "uint8", 1 },
		{ "i16", "int16", 1 },   { "u16", "uint16", 1 },   { "i32", "int32", 1 },
		{ "u32", "uint32", 1 },  { "i64", "int64", 1 },    { "u64", "uint64", 1 },
		{ "h", "half", 1 },      { "f", "float", 1 },      { "d", "double", 1 },
		{ "h2", "half", 2 },     { "f4", "float", 4 },     { "d3", "double", 3 },
		{ "f3", "float", 3 },    { "t", "custom", 1 },     { "bat_int", "int32", 1 },
		{ "bat_f32", "float", 1 }, { "bat_f64", "double", 1 },
	};
	kjit__spec *s = load("types.json");
	check_space(s, "types.json", 15);
	check_values(param(s, "use_fast"), "1 0");
	check_values(param(s, "scale"), "0.5 1.0 2");
	CHECK(param(s, "use_fast")->default_index == 0 && param(s, "mode")->default_index == 1 &&
	      param(s, "scale")->default_index == 1);
	CHECK(s->n_args == sizeof want / sizeof want[0] + 5);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const kjit__arg *a = &s->args[i];
		CHECK_STREQ(a->name, want[i].name);
		CHECK_MSG(strcmp(a->type, want[i].type) == 0 && a->components == want[i].components,
		          "%s: %s x%u, want %s x%u", a->name, a->type, a->components, want[i].type,
		          want[i].components);
		CHECK(a->is_buffer && !a->symbol && eval0(s, a->length) == (double)(i + 1));
		CHECK(a->access == KJIT__INOUT && a->output == -1);
		CHECK(a->data.fill == (i == 16 ? KJIT__FILL_FILE : KJIT__FILL_CONSTANT));
	}
	CHECK(arg(s, "t", 0)->custom_size == 12);
	const kjit__arg *n = arg(s, "n", 0), *flag = arg(s, "flag", 0);
	CHECK(!n->is_buffer && eval0(s, n->value) == 64);
	CHECK(!flag->is_buffer && strcmp(flag->value, "True") == 0);
	const kjit__arg *coeffs = arg(s, "coeffs", 1), *counter = arg(s, "counter", 1);
	CHECK(!coeffs->is_buffer && strcmp(coeffs->length, "4") == 0 &&
	      coeffs->data.fill == KJIT__FILL_RANDOM && coeffs->data.seed == 7 &&
	      coeffs->access == KJIT__IN);
	CHECK(!counter->is_buffer && strcmp(counter->length, "1") == 0 &&
	      counter->data.fill == KJIT__FILL_CONSTANT && counter->data.constant == 5);
	for (size_t i = 0; i < s->n_args; i++)
		CHECK(strcmp(s->args[i].name, "scratch") != 0);
	/* SharedMemory plus the Local argument's block_size_x floats */
	check_dims(s, "block_size_x=32", 2, 1, 1, 32, 1, 1, 32 * 8 + 32 * 4);
	check_dims(s, "block_size_x=64,mode=b", 1, 1, 1, 64, 1, 1, 64 * 8 + 64 * 4);
	CHECK_STREQ(s->strategy, "exhaustive");
	CHECK_STREQ(s->time_unit, "ms");
	CHECK_STREQ(s->output_file, "types-results.json");
	CHECK_WARNING(s, "General.OutputFormat", "XML is not written");
	OK("types.json: %zu arguments of every type, vectors and custom, 2 symbols, Local memory "
	   "in the shared size, bool and string parameters", s->n_args);
	kjit__spec_free(s);
}

static void values(void)
{
	kjit__spec *s = load("values.json");
	check_space(s, "values.json", 987);
	check_values(param(s, "a"), "1 2 4 6 8 10 12 14 16 18 20");
	check_values(param(s, "c"), "10 7 4 1");
	check_values(param(s, "d"), "0.5 1.0 1.5 2.0");
	check_values(param(s, "f"), "x yy");
	CHECK(param(s, "b")->default_index == 2 && param(s, "d")->default_index == 1 &&
	      param(s, "e")->default_index == 1);
	CHECK_WARNING(s, "ConfigurationSpace.Conditions[1].Parameters[2]", "\"zz\" is not a tuning "
	                                                                   "parameter");
	CHECK(s->n_warnings == 1);
	OK("values.json: Python's /, //, **, chained comparisons, comprehensions and + of lists");
	kjit__spec_free(s);
}

static void geometry(void)
{
	/* CUDA and Vulkan: GlobalSize counts blocks */
	kjit__spec *s = spec_text("cuda.json", T1(PB, ", \"GlobalSize\": {\"X\": \"256 // B\","
	                                              " \"Y\": 3}"));
	CHECK(s->n_warnings == 0);
	check_dims(s, "B=32", 8, 3, 1, 32, 1, 1, 0);
	kjit__spec_free(s);
	s = spec_text("vulkan.json", T1(PB, ", \"GlobalSizeType\": \"Vulkan\", \"GlobalSize\":"
	                                    " {\"X\": \"256 // B\"}"));
	check_dims(s, "B=64", 4, 1, 1, 64, 1, 1, 0);
	kjit__spec_free(s);
	s = spec_text("opencl.json", T1(PB, ", \"GlobalSizeType\": \"OpenCL\", \"GlobalSize\":"
	                                    " {\"X\": \"100\", \"Y\": 7, \"Z\": \"2\"}"));
	check_dims(s, "B=64", 2, 7, 2, 64, 1, 1, 0);
	kjit__spec_free(s);
	OK("GlobalSizeType CUDA and Vulkan count blocks, OpenCL threads (ceil(100 / 64) = 2)");

	/* KTT's template arguments, and none (an empty list: the entry as it is) */
	s = spec_text("types.json", T1(PB, ", \"GlobalSize\": {\"X\": 8},"
	                                   " \"KernelTypeNames\": [\"float\", \"int\"]"));
	CHECK_STREQ(s->entry, "k<float, int>");
	kjit__spec_free(s);
	s = spec_text("notypes.json", T1(PB, ", \"GlobalSize\": {\"X\": 8},"
	                                     " \"KernelTypeNames\": []"));
	CHECK_STREQ(s->entry, "k");
	kjit__spec_free(s);
	OK("KernelTypeNames: k<float, int>; an empty list leaves the entry k");

	/* ProblemSize with no GridDiv: divided by the block; an entry that reads
	 * a parameter is part of the grid, not a problem size */
	s = spec_text("ps.json", T1(PB, ", \"ProblemSize\": [1000, \"B * 3\", \"2 ** 3\"]"));
	CHECK(s->problems[0].n == 2 && strcmp(s->problems[0].names[1], "ProblemSize[2]") == 0 &&
	      s->problems[0].values[1] == 8);
	check_dims(s, "B=64", 16, 192, 8, 64, 1, 1, 0);
	kjit__spec_free(s);
	/* no LocalSize: Kernel Tuner's block_size_x, block_size_y names */
	s = spec_text("kt.json", "{\"ConfigurationSpace\": {\"TuningParameters\": ["
	                         "{\"Name\": \"block_size_y\", \"Type\": \"int\", \"Values\": \"[2, 4]\"},"
	                         "{\"Name\": \"block_size_x\", \"Type\": \"int\", \"Values\": \"[16]\"}]},"
	                         " \"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\":"
	                         " \"k.cu\", \"ProblemSize\": [100, 100], \"GridDivY\": []}}");
	CHECK_STREQ(s->block[0], "block_size_x");
	CHECK_STREQ(s->block[1], "block_size_y");
	check_dims(s, "block_size_y=4", 7, 25, 1, 16, 4, 1, 0);
	kjit__spec_free(s);
	OK("ProblemSize [1000, \"B * 3\", \"2 ** 3\"] / the block: 16x192x8; without LocalSize, "
	   "block_size_x and block_size_y are the block");
}

static void big_values(void)
{
	double t0 = tu_now();
	kjit__spec *s = spec_text("big.json", T1("{\"Name\": \"V\", \"Type\": \"int\", \"Values\":"
	                                         " \"list(range(65535))\"}," PB, GS));
	double dt = tu_now() - t0;
	CHECK(s->params[0].n_values == 65535 && s->params[0].values[65534].i == 65534);
	OK("list(range(65535)): 65535 distinct values read in %.3f s", dt);
	kjit__spec_free(s);
	/* the same as a JSON array, in reverse (the distinct check sorts) */
	kjit__buf b = { 0 };
	kjit__buf_str(&b, "{\"ConfigurationSpace\": {\"TuningParameters\": [" PB ", {\"Name\": \"V\","
	                  " \"Type\": \"float\", \"Values\": [");
	for (int i = 65534; i >= 0; i--) {
		char num[32];
		snprintf(num, sizeof num, "%s%d.5", i < 65534 ? ", " : "", i);
		kjit__buf_str(&b, num);
	}
	kjit__buf_str(&b, "]}]}, \"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\":"
	                  " \"k.cu\"" GS "}}");
	char *text = kjit__buf_done(&b);
	CHECK(text != NULL);
	t0 = tu_now();
	s = spec_text("array.json", text);
	dt = tu_now() - t0;
	CHECK(s->params[1].n_values == 65535 && strcmp(s->params[1].values[0].text, "65534.5") == 0);
	OK("a JSON array of 65535 floats: read and checked distinct in %.3f s", dt);
	kjit__spec_free(s);
	free(text);
	bad(T1("{\"Name\": \"V\", \"Type\": \"int\", \"Values\": \"list(range(65536))\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values", "65535");
	bad(T1("{\"Name\": \"V\", \"Type\": \"int\", \"Values\": \"[3] + list(range(5000))\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values", "distinct values (3 repeats)");
}

static void warnings_and_keys(void)
{
	kjit__spec *s = spec_text("extra.json", "{\"ConfigurationSpace\": {\"TuningParameters\": ["
	                          PB "], \"Misc\": []}, \"BenchmarkConfig\": {\"iterations\": 10},"
	                          " \"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\":"
	                          " \"k.cu\", \"LocalSize\": {\"X\": \"B\", \"W\": 1}" GS
	                          ", \"BenchmarkName\": \"k\"}}");
	char want[TU_PATH + 128];
	snprintf(want, sizeof want, "%s: KernelSpecification.BenchmarkName: unknown key, ignored",
	         s->path);
	int found = 0;
	for (size_t i = 0; i < s->n_warnings; i++)
		found |= strcmp(s->warnings[i], want) == 0;
	CHECK_MSG(found, "no warning \"%s\"", want);
	CHECK_WARNING(s, "ConfigurationSpace.Misc", "unknown key");
	CHECK_WARNING(s, "BenchmarkConfig", "unknown key");
	CHECK_WARNING(s, "KernelSpecification.LocalSize.W", "unknown key");
	CHECK(s->n_warnings == 4);
	OK("T1: %zu unknown keys that resemble no known one, each a warning: %s", s->n_warnings,
	   want);
	kjit__spec_free(s);

	/* a condition read before its Parameters fail is freed with the spec
	 * (a leak the spec fuzzer found) */
	bad("{\"ConfigurationSpace\": {\"TuningParameters\": [" PB "], \"Conditions\": [\"B > 0\","
	    " {\"Expression\": \"B > 32\", \"Parameters\": 5}]},"
	    " \"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\": \"k.cu\"" GS "}}",
	    "ConfigurationSpace.Conditions[1].Parameters", "an array");

	/* A misspelt known key would be ignored and change the run: an error
	 * naming the key it resembles (case aside, 1 edit in 4 letters). */
	bad("{\"ConfigurationSpace\": {\"TuningParameters\": [" PB "], \"Conditons\": [\"B > 32\"]},"
	    " \"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\": \"k.cu\"" GS "}}",
	    "ConfigurationSpace.Conditons", "a known key (got an unknown key: Conditions misspelt?)");
	bad("{\"ConfigurationSpace\": {\"TuningParamters\": [" PB "]}, \"KernelSpecification\":"
	    " {\"KernelName\": \"k\", \"KernelFile\": \"k.cu\"" GS "}}",
	    "ConfigurationSpace.TuningParamters", "TuningParameters misspelt?");
	bad(T1(PB, GS ", \"CompilerOption\": [\"-G\"]"), "KernelSpecification.CompilerOption",
	    "CompilerOptions misspelt?");
	bad(T1(PB, GS ", \"Argumnets\": []"), "KernelSpecification.Argumnets",
	    "Arguments misspelt?");
	OK("T1: Conditons, TuningParamters, CompilerOption, Argumnets are errors naming the key "
	   "they resemble");

	/* "Default": [64], a list of one value, is 64 */
	s = spec_text("default.json", T1("{\"Name\": \"B\", \"Type\": \"int\", \"Values\":"
	                                 " \"[32, 64]\", \"Default\": [64]}", GS));
	CHECK(s->params[0].default_index == 1);
	CHECK_WARNING(s, "ConfigurationSpace.TuningParameters[0].Default",
	              "a list of one value, read as 64");
	kjit__spec_free(s);
	bad(T1("{\"Name\": \"B\", \"Type\": \"int\", \"Values\": \"[32, 64]\", \"Default\":"
	       " [32, 64]}", GS), "ConfigurationSpace.TuningParameters[0].Default",
	    "one of the values (a number or a string) (got an array)");
	OK("T1: \"Default\": [64] is read as 64, with a warning; a longer list is refused");

	/* A kernel file found nowhere: the field and the places looked in,
	 * said when a kernel is made (a space is counted without it) */
	s = spec_text("nofile.json", T1(PB, GS));
	CHECK(s->source_missing != NULL);
	CHECK_CONTAINS(s->source_missing, "KernelSpecification.KernelFile: kernel file \"k.cu\" "
	                                  "not found as ");
	CHECK_CONTAINS(s->source_missing, "/k.cu, k.cu or ");
	CHECK_CONTAINS(s->source_missing, "/../k.cu");
	printf("  %s\n", s->source_missing);
	kjit__spec_free(s);
	OK("T1: a missing KernelFile is named with the three places looked in");

	/* kjit's own format: an unknown key is an error, naming the keys it has */
	const char *k = "\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"}, \"parameters\":"
	                " [{\"name\": \"B\", \"values\": [1, 2]}]";
	char text[1024];
	snprintf(text, sizeof text, "{%s, \"restriction\": [\"B > 1\"]}", k);
	bad(text, "restriction", "a key among kernel, parameters, restrictions");
	snprintf(text, sizeof text, "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\","
	         " \"flag\": \"-G\"}, \"parameters\": [{\"name\": \"B\", \"values\": [1]}]}");
	bad(text, "kernel.flag", "a key among source, entry, flags");
	snprintf(text, sizeof text, "{%s, \"arguments\": [{\"name\": \"x\", \"type\": \"float\","
	         " \"lenght\": 4}]}", k);
	bad(text, "arguments[0].lenght", "a key among name, type, value, length");
	snprintf(text, sizeof text, "{%s, \"problems\": [{\"n\": 99999999999999999999}]}", k);
	bad(text, "problems[0].n", "an integer size within int64 (got 99999999999999999999)");
	snprintf(text, sizeof text, "{%s, \"limits\": {\"max_shared_bytes\": 1e5}}", k);
	bad(text, "limits.max_shared_bytes", "an integer (got 1e5)");
	snprintf(text, sizeof text, "{%s}", k);
	s = spec_text("kjit.json", text);
	CHECK(s->max_shared == 232448 && s->max_threads == 1024 && !s->python);
	kjit__spec_free(s);
	OK("kjit's format: unknown keys and integers beyond int64 refused; max_shared 232448");
}

/* What public T1 files do that the schema does not say, read with a warning. */
static void habits(void)
{
	kjit__spec *s = spec_text("habits.json",
		"{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"B\", \"Type\": \"int\","
		" \"Values\": \"[32, 64]\", \"Default\": 16}]},"
		" \"kernelSpecification\": {\"Language\": \"OpenCL\", \"KernelName\": \"k\","
		" \"KernelFile\": \"k.cu\", \"LocalSize\": {\"X\": \"B\"}, \"SharedMemory\": null" GS
		ARG("{\"Name\": \"x\", \"Type\": \"Float\", \"MemoryType\": \"Vector\", \"Size\": 4,"
		    " \"FillType\": \"Constant\", \"FillValue\": 1}, {\"Name\": \"d\", \"Type\": \"double\","
		    " \"TypeSize\": 1, \"MemoryType\": \"Vector\", \"Size\": 4, \"FillType\": \"Random\"}")
		"}, \"Search\": {}, \"General\": {\"OutputFormat\": \"JSON_T4\"}}");
	CHECK_WARNING(s, "kernelSpecification", "read as KernelSpecification");
	CHECK_WARNING(s, "KernelSpecification.SharedMemory", "null, read as absent");
	CHECK_WARNING(s, "ConfigurationSpace.TuningParameters[0]",
	              "Default 16 is not among the values: the default is the first value, 32");
	CHECK_WARNING(s, "KernelSpecification.Arguments[1].TypeSize",
	              "1, but a double has 8 bytes: read as 8");
	CHECK_WARNING(s, "Search", "no Name");
	CHECK(s->params[0].default_index == 0);
	CHECK(strcmp(s->args[0].type, "float") == 0 && strcmp(s->args[1].type, "double") == 0);
	CHECK(s->unrunnable && strstr(s->unrunnable, "OpenCL kernels are not run"));
	kjit__space *space;
	CHECK_OK(kjit__space_build(s, 0, NULL, &space));
	CHECK(space->size == 2);
	kjit__space_free(space);
	OK("habits: a key in another case, null, a Default outside Values, TypeSize 1 for a double,"
	   " KTT's Float, Search {}, JSON_T4 read with %zu warnings; OpenCL counted, not run",
	   s->n_warnings);
	kjit__spec_free(s);
	/* a condition that runs away stops with its budget, named as the file names it */
	s = spec_text("runaway.json", "{\"ConfigurationSpace\": {\"TuningParameters\": [" PB "],"
	              " \"Conditions\": [\"B > 0\", \"len([i for i in range(10 ** 9) if i < 0]) =="
	              " 0\"]}, \"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\":"
	              " \"k.cu\"" GS "}}");
	CHECK(kjit__space_build(s, 0, NULL, &space) != KJIT_OK);
	CHECK_CONTAINS(kjit_last_error(), "ConfigurationSpace.Conditions[1]");
	CHECK_CONTAINS(kjit_last_error(), "the evaluation budget is spent");
	kjit__spec_free(s);
	OK("a runaway condition: %s", kjit_last_error());
}

/* CompilerOptions as other tools' specs write them, and a LocalSize that
 * names no parameter (an OpenCL GEMM's "X": "block_size_x"). */
static void options_and_block_names(void)
{
	kjit__spec *s = spec_text("opts.json", T1(PB, GS ", \"CompilerOptions\": [\"\", \"-std=c++17\","
	                                                   " \"\", \"-cl-fast-relaxed-math\"]"));
	CHECK(s->n_flags == 1 && strcmp(s->flags[0], "-std=c++17") == 0);
	CHECK(s->unrunnable);
	CHECK_CONTAINS(s->unrunnable, "KernelSpecification.CompilerOptions: "
	                              "\"-cl-fast-relaxed-math\": not an NVRTC option kjit allows");
	OK("CompilerOptions: empty entries dropped; -cl-fast-relaxed-math: %s", s->unrunnable);
	kjit__spec_free(s);
	s = spec_text("empty.json", T1(PB, GS ", \"CompilerOptions\": [\"\"]"));
	CHECK(s->n_flags == 0 && !s->unrunnable && s->n_warnings == 0);
	kjit__spec_free(s);
	s = spec_text("ocl.json", T1X(PB, GS ", \"Language\": \"OpenCL\", \"CompilerOptions\":"
	                                     " [\"-cl-fast-relaxed-math\"]", ""));
	CHECK(s->unrunnable && strstr(s->unrunnable, "OpenCL kernels are not run"));
	CHECK_WARNING(s, "KernelSpecification.CompilerOptions",
	              "\"-cl-fast-relaxed-math\": not an NVRTC option kjit allows");
	kjit__spec_free(s);
	OK("CompilerOptions [\"\"]: nothing, silently; an OpenCL spec's own option: a warning");

	s = spec_text("gemm.json", "{\"ConfigurationSpace\": {\"TuningParameters\": ["
	                           "{\"Name\": \"MWG\", \"Type\": \"int\", \"Values\": \"[16, 32]\"}]},"
	                           " \"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\":"
	                           " \"k.cu\", \"LocalSize\": {\"X\": \"block_size_x\", \"Y\":"
	                           " \"block_size_y\", \"Z\": \"1\"}" GS "}}");
	CHECK_STREQ(s->block[0], "256");
	CHECK_STREQ(s->block[1], "1");
	CHECK_WARNING(s, "KernelSpecification.LocalSize.X", "no parameter is named \"block_size_x\": "
	              "the block's x is 256, as Kernel Tuner reads a block size it does not find");
	CHECK_WARNING(s, "KernelSpecification.LocalSize.Y", "the block's y is 1");
	check_dims(s, "MWG=16", 4, 1, 1, 256, 1, 1, 0);
	kjit__spec_free(s);
	OK("LocalSize naming no parameter: Kernel Tuner's 256 x 1, with a warning each");
}

static void bad_json(void)
{
	bad("{\n  \"a\": 1\n  \"b\": 2\n}", "bad.json:3:3", "expected ',' or '}' (got '\"')");
	bad("{\"a\": [1, 2,]}", "bad.json:1:13", "no trailing commas");
	bad("{\"a\": 1, }", "bad.json:1:10", "a string key (no trailing commas in JSON)");
	bad("{\n\t// note\n\t\"a\": 1}", "bad.json:2:2", "no comments in JSON");
	bad("{\"a\": 'x'}", "bad.json:1:7", "strings take double quotes");
	bad("{\"a\": 01}", "bad.json:1:8", "no leading zeros");
	bad("{\"a\": 1, \"a\": 2}", "bad.json:1:10", "each key once (\"a\" repeats)");
	bad("{\"a\": \"\\x\"}", "bad.json:1:8", "an escape");
	bad("{\"a\": \"\xff\"}", "bad.json:1:8", "UTF-8");
	bad("{\"a\": [1, 2]", "bad.json:1:13", "expected ',' or '}' (got end of file)");
	bad("{} x", "bad.json:1:4", "the end of the document");
	bad("[1, 2]", "(top level)", "a JSON object");
}

static void bad_t1(void)
{
	bad("{\"ConfigurationSpace\": {}, \"KernelSpecification\": {}}",
	    "ConfigurationSpace.TuningParameters", "a non-empty array of parameters (got missing)");
	bad("{\"ConfigurationSpace\": {\"TuningParameters\": [" PB "]}, \"KernelSpecification\":"
	    " {\"KernelName\": \"k\"" GS "}}",
	    "KernelSpecification.KernelFile", "a string (got missing)");
	bad(T1("{\"Name\": \"B\", \"Type\": \"int\", \"Values\": \"[1, 2\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values", "[1, 2");
	bad(T1("{\"Name\": \"B\", \"Type\": \"int\", \"Values\": \"[i for i in rnage(4)]\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values", "rnage");
	bad(T1("{\"Name\": \"B\", \"Type\": \"int\", \"Values\": 7}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values", "a list of values");
	bad(T1("{\"Name\": \"B\", \"Type\": \"uint\", \"Values\": \"[-32, 32]\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values",
	    "non-negative integers for Type uint (got -32)");
	bad(T1("{\"Name\": \"B\", \"Type\": \"int\", \"Values\": \"[32, 64.0]\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values", "integers for Type int (got 64.0)");
	bad(T1("{\"Name\": \"B\", \"Type\": \"bool\", \"Values\": \"[0, 2]\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values", "True or False for Type bool (got 2)");
	bad(T1("{\"Name\": \"B\", \"Type\": \"string\", \"Values\": \"['a', 3]\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values", "strings for Type string (got 3)");
	bad(T1("{\"Name\": \"B\", \"Type\": \"integer\", \"Values\": \"[1]\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Type",
	    "one of int, uint, float, bool, string (got \"integer\")");
	/* as a JSON array's are: no C literal and no JSON for the store */
	bad(T1("{\"Name\": \"B\", \"Type\": \"float\", \"Values\": \"[1.0, math.inf]\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values",
	    "finite numbers for Type float (got inf)");
	bad(T1("{\"Name\": \"B\", \"Type\": \"float\", \"Values\": \"[-math.inf, 2.0]\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values",
	    "finite numbers for Type float (got -inf)");
	bad(T1("{\"Name\": \"B\", \"Type\": \"float\", \"Values\": \"[32, 0.5, 32.0]\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values", "distinct values (32");
	bad(T1(PB, ", \"GlobalSizeType\": \"Metal\"" GS), "KernelSpecification.GlobalSizeType",
	    "CUDA, OpenCL or Vulkan (got \"Metal\")");
	bad(T1(PB, ""), "KernelSpecification.GlobalSize", "a ProblemSize that is an integer or a list");
	bad(T1(PB, ", \"ProblemSize\": [1, 2, 3, 4]"), "KernelSpecification.ProblemSize",
	    "1 to 3 sizes (got 4)");
	bad(T1(PB, ", \"ProblemSize\": \"n\""), "KernelSpecification.ProblemSize", "'n'");
	bad(T1(PB, ", \"ProblemSize\": [1.5]"), "KernelSpecification.ProblemSize[0]",
	    "an integer size or an expression (got 1.5)");
	bad(T1("{\"Name\": \"B\", \"Type\": \"float\", \"Values\": \"[0.5, 1]\"}", GS),
	    "KernelSpecification.LocalSize.X", "positive integers for block dimension B (got 0.5)");
	/* without a LocalSize, block_size_x is the block: its Values are at fault */
	bad(T1X("{\"Name\": \"block_size_x\", \"Type\": \"int\", \"Values\": \"[-1, 32]\"}",
	        ", \"ProblemSize\": [4096]", ""),
	    "ConfigurationSpace.TuningParameters[0].Values",
	    "positive integers for block dimension block_size_x (got -1)");
	/* the string '1' is not the number 1 */
	bad(T1("{\"Name\": \"B\", \"Type\": \"int\", \"Values\": \"['1', '2']\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values", "integers for Type int (got \"1\")");
	bad(T1("{\"Name\": \"B\", \"Type\": \"int\", \"Values\": \"[]\"}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values",
	    "a non-empty list of values for parameter B (got an empty list)");
	bad(T1("{\"Name\": \"B\", \"Type\": \"int\", \"Values\": []}", GS),
	    "ConfigurationSpace.TuningParameters[0].Values",
	    "a non-empty list of values for parameter B (got an empty list)");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                  " \"Size\": 4, \"FillType\": \"Randon\"}")),
	    "KernelSpecification.Arguments[0].FillType",
	    "Constant, Random, Generator or BinaryRaw (got \"Randon\")");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                  " \"Size\": 4, \"FillType\": \"Script\", \"DataSource\": \"gen.py\"}")),
	    "KernelSpecification.Arguments[0].FillType", "kjit does not run scripts");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                  " \"Size\": 4, \"FillType\": \"BinaryHDF\", \"DataSource\": \"x.h5\"}")),
	    "KernelSpecification.Arguments[0].FillType", "kjit does not read HDF5 files");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                  " \"Size\": 4, \"FillType\": \"Generator\", \"DataSource\": \"j * 2\"}")),
	    "KernelSpecification.Arguments[0].DataSource", "'j'");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                  " \"Size\": 4, \"FillType\": \"BinaryRaw\"}")),
	    "KernelSpecification.Arguments[0].DataSource", "a string (got missing)");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"complex\", \"MemoryType\": \"Vector\","
	                  " \"Size\": 4}")),
	    "KernelSpecification.Arguments[0].Type", "half2 to double16, or custom with TypeSize "
	                                             "(got \"complex\")");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"half3\", \"MemoryType\": \"Vector\","
	                  " \"Size\": 4}")),
	    "KernelSpecification.Arguments[0].Type", "(got \"half3\")");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"custom\", \"MemoryType\": \"Vector\","
	                  " \"Size\": 4}")),
	    "KernelSpecification.Arguments[0].TypeSize", "custom Type (missing)");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Texture\"}")),
	    "KernelSpecification.Arguments[0].MemoryType",
	    "Scalar, Vector, Symbol or Local (got \"Texture\")");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\"}")),
	    "KernelSpecification.Arguments[0].Size", "an expression (a string or a number) (got "
	                                             "missing)");
	bad(T1(PB, GS ARG("{\"Type\": \"float\", \"MemoryType\": \"Symbol\", \"FillValue\": 1}")),
	    "KernelSpecification.Arguments[0].Name", "a string (got missing)");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                  " \"Size\": 4, \"AccessType\": \"Write\"}")),
	    "KernelSpecification.Arguments[0].AccessType",
	    "ReadOnly, WriteOnly or ReadWrite (got \"Write\")");
	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                  " \"Size\": \"n * 2\"}")),
	    "KernelSpecification.Arguments[0].Size", "'n'");

	bad(T1(PB, GS ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\","
	                  " \"Size\": 4}, {\"Name\": \"x\", \"Type\": \"int32\","
	                  " \"MemoryType\": \"Scalar\", \"FillValue\": 1}")),
	    "KernelSpecification.Arguments[1].Name", "a Name no other argument has (\"x\" repeats)");

#define REF(fields)                                                                      \
	ARG("{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 4},"  \
	    "{\"Name\": \"n\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\", \"FillValue\": 4}") \
	", \"ReferenceArguments\": [" fields "]"
	bad(T1(PB, GS REF("{\"Name\": \"r\", \"TargetName\": \"y\", \"FillType\": \"Constant\"}")),
	    "KernelSpecification.ReferenceArguments[0].TargetName", "(got \"y\": no such argument)");
	bad(T1(PB, GS REF("{\"Name\": \"r\", \"TargetName\": \"n\", \"FillType\": \"Constant\"}")),
	    "KernelSpecification.ReferenceArguments[0].TargetName", "(got \"n\", a Scalar)");
	bad(T1(PB, GS REF("{\"Name\": \"r\", \"TargetName\": \"x\"}")),
	    "KernelSpecification.ReferenceArguments[0].FillType", "(missing)");
	bad(T1(PB, GS REF("{\"Name\": \"r\", \"TargetName\": \"x\", \"FillType\": \"Constant\","
	                  " \"ValidationMethod\": \"Exact\"}")),
	    "KernelSpecification.ReferenceArguments[0].ValidationMethod",
	    "AbsoluteDifference, SideBySideComparison or SideBySideRelativeComparison");
	bad(T1(PB, GS REF("{\"Name\": \"r\", \"TargetName\": \"x\", \"FillType\": \"Constant\"},"
	                  "{\"Name\": \"s\", \"TargetName\": \"x\", \"FillType\": \"Random\"}")),
	    "KernelSpecification.ReferenceArguments[1].TargetName", "one reference per argument");

	bad(T1X(PB, GS, ", \"Budget\": [{\"Type\": \"Energy\", \"BudgetValue\": 1}]"),
	    "Budget[0].Type", "ConfigurationCount, ConfigurationFraction or TuningDuration");
	bad(T1X(PB, GS, ", \"Budget\": {\"Type\": \"ConfigurationCount\", \"BudgetValue\": 0}"),
	    "Budget.BudgetValue", "a positive integer count of configurations (got 0)");
	bad(T1X(PB, GS, ", \"Budget\": [{\"Type\": \"ConfigurationFraction\","
	                " \"BudgetValue\": 1.5}]"),
	    "Budget[0].BudgetValue", "a fraction of the space in (0, 1] (got 1.5)");
	bad(T1X(PB, GS, ", \"Budget\": [{\"Type\": \"TuningDuration\", \"BudgetValue\": 5},"
	                " {\"Type\": \"TuningDuration\", \"BudgetValue\": 6}]"),
	    "Budget[1].Type", "one budget of each Type (TuningDuration repeats)");
	bad(T1X(PB, GS, ", \"General\": {\"TimeUnit\": \"Minutes\"}"), "General.TimeUnit",
	    "Nanoseconds, Microseconds, Milliseconds or Seconds (got \"Minutes\")");
	bad(T1X(PB, GS, ", \"General\": {\"OutputFormat\": \"CSV\"}"), "General.OutputFormat",
	    "JSON, JSON_T4 or XML (got \"CSV\")");
	bad(T1X(PB, GS, ", \"Search\": {\"Name\": \"random_sample\", \"Attributes\":"
	                " [{\"Name\": \"max_fevals\", \"Value\": \"many\"}]}"),
	    "Search.Attributes[0].Value", "a positive integer (got \"many\")");
	char items[2048] = "", many[4096];
	for (int i = 0; i <= KJIT__SPEC_STRATEGY_OPTIONS_MAX; i++)
		snprintf(items + strlen(items), sizeof items - strlen(items),
		         "%s{\"Name\": \"w\", \"Value\": %d}", i ? ", " : "", i);
	snprintf(many, sizeof many,
	         T1X(PB, GS, ", \"Search\": {\"Name\": \"pso\", \"Attributes\": [%s]}"), items);
	bad(many, "Search.Attributes[32]", "at most 32 strategy options");
	bad("{\"ConfigurationSpace\": {\"TuningParameters\": [" PB "], \"Conditions\": [7]},"
	    " \"KernelSpecification\": {\"KernelName\": \"k\", \"KernelFile\": \"k.cu\"" GS "}}",
	    "ConfigurationSpace.Conditions[0]", "a condition: an object with an Expression, or a "
	                                       "string (got 7)");
	bad("{\"ConfigurationSpace\": {\"TuningParameters\": [" PB "], \"Conditions\":"
	    " [{\"Expression\": \"B >\"}]}, \"KernelSpecification\": {\"KernelName\": \"k\","
	    " \"KernelFile\": \"k.cu\"" GS "}}",
	    "ConfigurationSpace.Conditions[0]", "B >");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	snprintf(t1dir, sizeof t1dir, "%s/tests/t1", tu_srcdir());
	/* a folder of its own below the test's, so that the folders a kernel
	 * file is looked for in (the spec's, its parent) are the test's alone */
	static char specs[TU_PATH];
	tmp = tu_path(specs, tu_tmpdir(), "specs");
	CHECK(mkdir(tmp, 0700) == 0);
	python = system("command -v python3 >/dev/null 2>&1") == 0;
	convolution();
	vector_add();
	scale_add();
	types();
	values();
	geometry();
	big_values();
	warnings_and_keys();
	habits();
	options_and_block_names();
	bad_json();
	bad_t1();
	return 0;
}
