/*
 * test-tune-t4: kjit-tune's T4 export validates. Results of every status
 * go into a real database through kjit_record_eval(), the T4 file is
 * written as a run's OutputFile would be (kt_results_write_t4), its numbers are checked in milliseconds and in
 * microseconds (one time unit throughout), and the file is validated by
 * Python's jsonschema against Kernel Tuner 1.5.0's T4 1.0.0 results and
 * metadata schemas; a document the schema must refuse shows the
 * validator can fail.
 *
 * The schemas: $KJIT_T4_SCHEMA_DIR (the folder of results-schema.json),
 * else those of an installed kernel_tuner. Without python3's jsonschema or
 * the schemas the checks before validation run and the test skips (77).
 */
#include "testutil.h"

#include <math.h>

#include "results.h"

static const char *dir;

static void check_field(const char *doc, const char *path, const char *want)
{
	const char *v = tu_json_get(doc, path);
	CHECK_MSG(strcmp(v, want ? want : "(null)") == 0, "%s is %s, expected %s", path, v,
	          want ? want : "(absent)");
}

static void check_num(const char *doc, const char *path, double want)
{
	const char *v = tu_json_get(doc, path);
	CHECK_MSG(fabs(strtod(v, NULL) - want) <= 1e-12 * fabs(want), "%s is %s, expected %.17g",
	          path, v, want);
}

/* The schema folder, or NULL. */
static const char *schema_dir(void)
{
	static char found[TU_PATH];
	const char *env = getenv("KJIT_T4_SCHEMA_DIR");
	if (env && *env)
		snprintf(found, sizeof found, "%s", env);
	else if (tu_run("python3 -c 'import importlib.util, os; s = importlib.util.find_spec("
	                "\"kernel_tuner\"); print(os.path.dirname(s.origin) + "
	                "\"/schema/T4/1.0.0\")' 2>/dev/null", found, sizeof found) != 0)
		return NULL;
	found[strcspn(found, "\n")] = '\0';
	char probe[TU_PATH];
	return tu_exists(tu_path(probe, found, "results-schema.json")) ? found : NULL;
}

/* Validates the file doc against both schemas: 0 valid, 1 invalid, 77
 * no validator. The validator's words go to stdout. */
static int validate(const char *schemas, const char *doc)
{
	static const char script[] =
		"import json, sys\n"
		"try:\n"
		"    import jsonschema\n"
		"except ImportError:\n"
		"    sys.exit(77)\n"
		"d = json.load(open(sys.argv[2]))\n"
		"for name in ('results', 'metadata'):\n"
		"    schema = json.load(open(sys.argv[1] + '/' + name + '-schema.json'))\n"
		"    cls = jsonschema.validators.validator_for(schema)\n"
		"    cls.check_schema(schema)\n"
		"    errors = list(cls(schema).iter_errors(d))\n"
		"    for e in errors:\n"
		"        print('    %s schema: %s at %s' % (name, e.message, list(e.absolute_path)))\n"
		"    if errors:\n"
		"        sys.exit(1)\n"
		"print('    valid against the results and metadata schemas')\n";
	char py[TU_PATH], out[8192];
	tu_write_file(tu_path(py, dir, "validate.py"), script, strlen(script));
	char *cmd = kjit__strdup_printf("python3 '%s' '%s' '%s' 2>&1", py, schemas, doc);
	CHECK(cmd);
	int code = tu_run(cmd, out, sizeof out);
	free(cmd);
	printf("%s", out);
	return code;
}

static kjit_eval eval_of(const char *config, kjit_result_status status, double median,
                          double compile_ms)
{
	static const double samples[] = { 1000, 1200, 1100 };
	int timed = !isnan(median);
	kjit_eval e = { .config = config, .status = status, .timer = timed ? "events" : NULL,
		        .l2 = "warm", .median_ns = median, .spread_ns = timed ? 50 : NAN,
		        .min_ns = timed ? 1000 : NAN, .max_ns = timed ? 1200 : NAN,
		        .samples = timed ? samples : NULL, .n_samples = timed ? 3 : 0,
		        .objective = status == KJIT_RESULT_OK ? median : NAN,
		        .compile_ms = compile_ms, .message = timed ? NULL : "it failed",
		        .arch = "sm_90", .nvrtc = "nvrtc-test" };
	return e;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	dir = tu_tmpdir();
	char src[TU_PATH], db_path[TU_PATH];
	static const char kernel_src[] = "extern \"C\" __global__ void k(float *x) { x[0] = M; }\n";
	tu_write_file(tu_path(src, dir, "k.cu"), kernel_src, strlen(kernel_src));
	kjit__spec *spec = tu_spec_from(dir, "t4.json",
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
		" \"parameters\": [{\"name\": \"M\", \"values\": [0, 1, 2, 3, 4, 5, 6]},"
		"   {\"name\": \"F\", \"values\": [\"\", \"-use_fast_math\"], \"roles\": [\"flags\"]}],"
		" \"problems\": [{\"n\": 1024}, {\"n\": 2048}]}");
	char *sig;
	CHECK_OK(kjit_spec_signature(spec, &sig));
	const char *dev = "sm_90|NVIDIA H200|132|13000";
	char *probs[2] = { kjit__problem_json(&spec->problems[0]),
		           kjit__problem_json(&spec->problems[1]) };
	CHECK(probs[0] && probs[1]);

	kjit_records *r;
	CHECK_OK(kjit_records_open(tu_path(db_path, dir, "kjit.db"), 0, &r));
	/* the words the export must hold, of the statuses in kjit.h's order */
	static const char *const statuses[] = { "ok", "compile_error", "launch_error", "crashed",
		                                "timeout", "wrong_result", "stopped_early" };
	for (int p = 0; p < 2; p++) {
		kjit_run_desc d = { sig, dev, "k", spec->path, "exhaustive", probs[p], 7, KJIT_OBJECTIVE_TIME };
		kjit_run *run;
		CHECK_OK(kjit_record_run_start(r, &d, &run));
		for (int m = 0; m < 7; m++) {
			char cfg[64];
			snprintf(cfg, sizeof cfg, "{\"F\":\"\",\"M\":%d}", m);
			int timed = m == 0 || m == 6;
			kjit_eval e = eval_of(cfg, (kjit_result_status)m, timed ? 1100.0 * (p + 1) : NAN,
			                    m == 3 ? NAN : 12.5);
			CHECK_OK(kjit_record_eval(r, run, &e, NULL, NULL));
		}
		kjit_eval cold = eval_of("{\"F\":\"-use_fast_math\",\"M\":0}", KJIT_RESULT_OK, 5000, 20);
		cold.l2 = "cold";
		CHECK_OK(kjit_record_eval(r, run, &cold, NULL, NULL));
		CHECK_OK(kjit_record_run_finish(r, run, KJIT_RUN_DONE));
		kjit_run_free(run);
	}

	char *path = kjit__strdup_printf("%s/Results.json", dir);
	CHECK(path);
	CHECK_OK(kt_results_write_t4(r, spec, sig, dev, (const char *const *)probs, 2, path));
	char *doc = tu_read_file(path, NULL);
	check_field(doc, "$.schema_version", "1.0.0");
	check_field(doc, "$.metadata.timeunit", "milliseconds");
	check_field(doc, "$.metadata.environment.device_query.name", "NVIDIA H200");
	check_field(doc, "$.metadata.environment.device_query.arch", "sm_90");
	check_field(doc, "$.results[16]", NULL);
	static const char *const invalidity[] = { "correct", "compile", "runtime", "runtime",
		                                  "timeout", "correctness", "correct" };
	for (int m = 0; m < 7; m++) {
		char p[64];
		snprintf(p, sizeof p, "$.results[%d].invalidity", m);
		check_field(doc, p, invalidity[m]);
		snprintf(p, sizeof p, "$.results[%d].correctness", m);
		check_field(doc, p, m == 5 ? "0" : "1");
		snprintf(p, sizeof p, "$.results[%d].measurements[%d].value", m,
		         m == 0 || m == 6 ? 1 : 0);
		check_field(doc, p, statuses[m]);
	}
	check_num(doc, "$.results[0].measurements[0].value", 1.1e-3);
	check_field(doc, "$.results[0].measurements[0].name", "time");
	check_field(doc, "$.results[0].measurements[0].unit", "ms");
	check_num(doc, "$.results[0].times.runtimes[1]", 1.2e-3);
	check_num(doc, "$.results[0].times.compilation_time", 12.5);
	check_field(doc, "$.results[3].times.compilation_time", NULL);
	check_field(doc, "$.results[3].times.runtimes", "[]");
	check_field(doc, "$.results[7].measurements[2].value", "cold");
	check_field(doc, "$.results[8].problem.n", "2048");
	check_num(doc, "$.results[8].measurements[0].value", 2.2e-3);
	check_field(doc, "$.results[0].objectives[0]", "time");
	const char *stamp = tu_json_get(doc, "$.results[0].timestamp");
	CHECK(strlen(stamp) == 29 && stamp[10] == 'T' && strcmp(stamp + 23, "+00:00") == 0);
	free(doc);
	OK("T4 in ms: invalidity and correctness per status, times, samples, both problems");

	spec->time_unit = strdup("us");
	CHECK_OK(kt_results_write_t4(r, spec, sig, dev, (const char *const *)probs, 1, path));
	free(spec->time_unit);
	spec->time_unit = NULL;
	doc = tu_read_file(path, NULL);
	check_field(doc, "$.metadata.timeunit", "microseconds");
	check_num(doc, "$.results[0].measurements[0].value", 1.1);
	check_field(doc, "$.results[0].measurements[0].unit", "us");
	check_num(doc, "$.results[0].times.runtimes[0]", 1.0);
	check_num(doc, "$.results[0].times.compilation_time", 12500);
	check_field(doc, "$.results[8]", NULL);
	free(doc);
	OK("TimeUnit us: every time in microseconds, the metadata says so");

	char bad_path[TU_PATH];
	tu_path(bad_path, dir, "no-such-dir/out.json");
	CHECK_ST(kt_results_write_t4(r, spec, sig, dev, (const char *const *)probs, 1, bad_path),
	         KJIT_ERR_IO);
	CHECK_CONTAINS(kjit_last_error(), "no-such-dir/out.json");
	OK("an OutputFile that cannot be written is named");

	const char *schemas = schema_dir();
	int code = 77;
	if (schemas) {
		printf("  schemas: %s\n", schemas);
		char us_path[TU_PATH];
		spec->time_unit = strdup("us");
		CHECK_OK(kt_results_write_t4(r, spec, sig, dev, (const char *const *)probs, 2,
		                             tu_path(us_path, dir, "us.json")));
		free(spec->time_unit);
		spec->time_unit = NULL;
		CHECK_OK(kt_results_write_t4(r, spec, sig, dev, (const char *const *)probs, 2, path));
		code = validate(schemas, path);
		if (code != 77) {
			CHECK_MSG(code == 0, "%s does not validate", path);
			CHECK(validate(schemas, us_path) == 0);
			/* the validator fails what the schema refuses */
			doc = tu_read_file(path, NULL);
			char *inv = strstr(doc, "\"invalidity\":\"correct\"");
			CHECK(inv);
			memcpy(inv + 14, "XXXXXXX", 7);
			char broken[TU_PATH];
			tu_write_file(tu_path(broken, dir, "broken.json"), doc, strlen(doc));
			free(doc);
			CHECK(validate(schemas, broken) == 1);
			OK("T4 validates against Kernel Tuner's T4 1.0.0 results and metadata schemas, "
			   "in ms and us; a wrong invalidity does not");
		}
	}
	if (code == 77)
		printf("SKIP: no python3 jsonschema or no T4 schemas (KJIT_T4_SCHEMA_DIR%s)\n",
		       schemas ? "" : " unset and no kernel_tuner installed");
	kjit_records_close(r);
	free(path);
	free(sig);
	free(probs[0]);
	free(probs[1]);
	kjit__spec_free(spec);
	return code == 77 ? 77 : 0;
}
