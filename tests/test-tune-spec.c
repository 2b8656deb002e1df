/*
 * test-tune-spec: kjit-tune reads the saxpy spec in both formats to the
 * same thing, and every bad spec is refused with the file, the field and
 * what was expected.
 */
#include "testutil.h"

#include "tuning.h"

static char examples[TU_PATH];

static kjit__spec *load_example(const char *name)
{
	char path[TU_PATH + 64];
	kjit__spec *spec;
	tu_path(path, examples, name);
	CHECK_OK(kjit__spec_load(path, &spec));
	return spec;
}

static void check_saxpy(const kjit__spec *s)
{
	CHECK_STREQ(s->entry, "saxpy");
	CHECK_CONTAINS(s->source_path, "examples/saxpy/saxpy.cu");
	CHECK(tu_exists(s->source_path));
	CHECK(s->n_params == 2);
	CHECK_STREQ(s->params[0].name, "BLOCK_SIZE");
	CHECK(s->params[0].n_values == 5 && s->params[0].values[4].i == 1024);
	CHECK(s->params[0].roles == (KJIT__ROLE_BLOCK_X | KJIT__ROLE_DEFINE));
	CHECK(s->params[0].default_index == 2);
	CHECK_STREQ(s->params[1].name, "ITEMS_PER_THREAD");
	CHECK(s->params[1].n_values == 8 && s->params[1].values[7].i == 8);
	CHECK(s->params[1].roles == KJIT__ROLE_DEFINE);
	CHECK(s->n_problems == 1 && s->problems[0].n == 1);
	CHECK_STREQ(s->problems[0].names[0], "n");
	CHECK(s->problems[0].values[0] == 67108864);
	CHECK(s->n_args == 4);
	CHECK(!s->args[0].is_buffer && s->args[2].is_buffer && s->args[3].access == KJIT__INOUT);
	CHECK_STREQ(s->args[2].type, "float");
	CHECK_STREQ(s->verify, "default");
	CHECK_STREQ(s->grid[1], "1");
}

#define GOOD_KERNEL "\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"}"
#define GOOD_PARAMS "\"parameters\": [{\"name\": \"B\", \"values\": [32, 64], \"roles\": \"block_x\"}]"

static void bad(const char *dir, const char *text, const char *field, const char *expect)
{
	tu_spec_refused(dir, text, field, expect);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	snprintf(examples, sizeof examples, "%s", tu_saxpy_path());
	*strrchr(examples, '/') = '\0';

	kjit__spec *kj = load_example("saxpy.json");
	CHECK_STREQ(kj->format, "kjit");
	check_saxpy(kj);
	CHECK_STREQ(kj->bytes, "12 * n");
	OK("saxpy.json: 2 parameters, roles, 1 problem, 4 arguments, verify, objective");
	kjit__spec *t1 = load_example("saxpy-t1.json");
	CHECK_STREQ(t1->format, "t1");
	check_saxpy(t1);
	OK("saxpy-t1.json (T1) reads to the same parameters, problem and arguments");
	char *key = kjit__problem_key(&kj->problems[0]);
	CHECK_STREQ(key, "n=67108864");
	free(key);
	kjit__spec_free(kj);
	kjit__spec_free(t1);

	const char *dir = tu_tmpdir();
	bad(dir, "{ " GOOD_PARAMS " }", "kernel", "expected an object with \"source\" and \"entry\"");
	bad(dir, "{\"kernel\": {\"entry\": \"k\"}, " GOOD_PARAMS " }", "kernel.source",
	    "expected a string");
#define LINK_KERNEL(link) "\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\", " link "}"
	bad(dir, "{ " LINK_KERNEL("\"link\": [\"ops.cu\", \"ops.bin\"]") ", " GOOD_PARAMS " }",
	    "kernel.link[1]", "expected a \"kind\": the ending of \"ops.bin\" names none");
	bad(dir, "{ " LINK_KERNEL("\"link\": [{\"path\": \"ops.o\", \"kind\": \"elf\"}]") ", "
	    GOOD_PARAMS " }", "kernel.link[0].kind", "expected one of ltoir, cubin");
	bad(dir, "{ " LINK_KERNEL("\"link\": [{\"kind\": \"ltoir\"}]") ", " GOOD_PARAMS " }",
	    "kernel.link[0].path", "expected a string");
	bad(dir, "{ " LINK_KERNEL("\"link\": [{\"path\": \"a.ltoir\", \"type\": \"ltoir\"}]") ", "
	    GOOD_PARAMS " }", "kernel.link[0]", "type");
	bad(dir, "{ " LINK_KERNEL("\"link\": 3") ", " GOOD_PARAMS " }", "kernel.link",
	    "expected a path or an array of link inputs (got 3)");
	bad(dir, "{ " LINK_KERNEL("\"link_options\": [\"-O3\"]") ", " GOOD_PARAMS " }",
	    "kernel.link_options", "expected link options only with kernel.link inputs");
	bad(dir, "{ " GOOD_KERNEL ", \"parameters\": [{\"name\": \"B\", \"values\": \"32\"}]}",
	    "parameters[0].values", "expected an array");
	bad(dir, "{ " GOOD_KERNEL ", \"parameters\": [{\"name\": 7, \"values\": [1]}]}",
	    "parameters[0].name", "expected a string");
	bad(dir, "{ " GOOD_KERNEL ", \"parameters\": [{\"name\": \"B\", \"values\": [1],"
	         " \"roles\": [\"define\", \"blockx\"]}]}",
	    "parameters[0].roles[1]", "expected one of block_x");
	bad(dir, "{ " GOOD_KERNEL ", " GOOD_PARAMS ", \"restrictions\": [\"B <= \"]}",
	    "restrictions[0]", "bad expression");
	bad(dir, "{ " GOOD_KERNEL ", " GOOD_PARAMS ", \"restrictions\": [\"B % 2 == 0\", \"FOO < 3\"]}",
	    "restrictions[1]", "unknown name 'FOO'");
	bad(dir, "{ " GOOD_KERNEL ", " GOOD_PARAMS ", \"objective\": {\"metric\": \"watts\"}}",
	    "objective.metric", "one of time, gbps, gflops, energy, edp (got \"watts\")");
	{
		static const char *const metrics[] = { "energy", "edp" };
		for (int i = 0; i < 2; i++) {
			char text[256];
			snprintf(text, sizeof text, "{ " GOOD_KERNEL ", " GOOD_PARAMS ", \"objective\":"
			         " {\"metric\": \"%s\"}}", metrics[i]);
			kjit__spec *sp = tu_spec_from(dir, "m.json", text);
			CHECK_STREQ(sp->metric, metrics[i]);
			kjit__spec_free(sp);
		}
		OK("objective.metric energy and edp are read and kept");
	}
	bad(dir, "{ " GOOD_KERNEL ", " GOOD_PARAMS ", \"grid\": \"n / B\"}", "grid[0]",
	    "unknown name 'n'");
	bad(dir, "{ " GOOD_KERNEL ", \"parameters\": [{\"name\": \"B\", \"values\": [1.5],"
	         " \"roles\": \"block_y\"}]}",
	    "parameters[0]", "expected positive integers");
	bad(dir, "{ " GOOD_KERNEL ", " GOOD_PARAMS ", \"problems\": [{\"n\": \"big\"}]}",
	    "problems[0].n", "expected an integer size (got \"big\")");
	/* a terminal's escapes in a string stay out of the message */
	bad(dir, "{ " GOOD_KERNEL ", " GOOD_PARAMS ", \"problems\": [{\"n\": \"\\u001b[2J\\n\"}]}",
	    "problems[0].n", "expected an integer size (got \"\\x1b[2J\\n\")");
	bad(dir, "{ " GOOD_KERNEL ", " GOOD_PARAMS ", \"arguments\": [{\"name\": \"x\","
	         " \"type\": \"half\", \"length\": 4}]}",
	    "arguments[0].type", "expected one of int32");
	bad(dir, "{ " GOOD_KERNEL ", " GOOD_PARAMS ", \"verify\": {\"against\": \"oracle\"}}",
	    "verify.against", "expected one of default, reference, none");
	bad(dir, "{ " GOOD_KERNEL ", " GOOD_PARAMS ", }", "bad.json:1:",
	    "expected a string key (no trailing commas in JSON)");
	bad(dir, "[1, 2]", "(top level)", "expected a JSON object");
	bad(dir, "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"B\", \"Values\":"
	         " \"[1, 2]\"}]}, \"KernelSpecification\": {\"KernelFile\": \"k.cu\","
	         " \"KernelName\": \"k\"}}",
	    "ConfigurationSpace.TuningParameters[0].Type", "expected one of int, uint, float, bool, "
	                                                   "string (got missing)");
	bad(dir, "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"B\", \"Type\":"
	         " \"int\", \"Values\": \"[]\"}]}, \"KernelSpecification\": {\"KernelFile\":"
	         " \"k.cu\", \"KernelName\": \"k\"}}",
	    "ConfigurationSpace.TuningParameters[0].Values",
	    "expected a non-empty list of values for parameter B (got an empty list)");
	bad(dir, "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"B\", \"Type\":"
	         " \"int\", \"Values\": [1, 2]}]}, \"KernelSpecification\": {\"KernelFile\":"
	         " \"k.cu\"}}",
	    "KernelSpecification.KernelName", "expected a string");

	/* a kjit spec where nothing sets the block: said, not launched silently
	 * as blocks of 1 thread */
	kjit__spec *spec = tu_spec_from(dir, "noblock.json",
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"}, \"parameters\":"
		" [{\"name\": \"T\", \"values\": [1, 2], \"roles\": [\"define\"]}]}");
	CHECK(spec->n_warnings == 1);
	CHECK_CONTAINS(spec->warnings[0], "noblock.json: parameters: no parameter has a block_x, "
	                                  "block_y or block_z role: every launch is a block of 1 "
	                                  "thread");
	kjit__spec_free(spec);
	spec = tu_spec_from(dir, "block.json",
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"}, \"parameters\":"
		" [{\"name\": \"B\", \"values\": [32, 64], \"roles\": [\"block_y\"]}]}");
	CHECK(spec->n_warnings == 0);
	kjit__spec_free(spec);
	OK("no block role: a warning that every launch is a block of 1 thread; a block_y role: none");

	char missing[TU_PATH];
	tu_path(missing, dir, "none.json");
	CHECK_ST(kjit__spec_load(missing, &spec), KJIT_ERR_IO);
	CHECK_CONTAINS(kjit_last_error(), missing);
	OK("a missing file is KJIT_ERR_IO naming it");
	return 0;
}
