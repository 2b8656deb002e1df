/*
 * test-records-api: the record room through kjit.h alone (kjit_records,
 * kjit_record_*), on a real SQLite file, with saxpy's spec and space.
 *
 *  - a store that must exist and does not is KJIT_ERR_NOT_FOUND naming
 *    it, and no file is made;
 *  - a run's evaluations: the first ok result is the best, a slower one
 *    is not, a faster one is, a failure is not; kjit_record_best() gives
 *    the fastest; kjit_record_load() gives each configuration's score by
 *    index (INFINITY for the failure, unknown elsewhere);
 *    kjit_record_rows() reads the four rows back in order, with their
 *    words and parameter values; a second start of the unfinished run
 *    resumes it, a start after it is done does not;
 *  - the score of an evaluation under each objective;
 *  - a configuration or a problem in another form than the store's
 *    (spaces, keys out of order, an array, not JSON) is refused, naming
 *    it, and nothing is stored; kjit_spec_problem_text()'s two forms;
 *  - a run end beyond the list and every NULL argument are
 *    KJIT_ERR_INVALID_ARG;
 *  - what is recorded here is what kjit_explain() (and so kjit_launch())
 *    chooses: on a GPU for the engine's device key, as "exact"; without
 *    one, for another GPU of the engine's arch, as "same_arch".
 */
#include "testutil.h"

#include <math.h>

#include "kjit.h"

#define SAXPY_PROBLEM "{\"n\":67108864}"

typedef struct seen {
	int begins;
	size_t rows;
	char status[4][32], config[4][128], block[4][16];
} seen;

static void on_begin(void *ctx, const char *signature, const char *device_key)
{
	(void)signature;
	(void)device_key;
	((seen *)ctx)->begins++;
}

static void on_row(void *ctx, const kjit_record_row *row)
{
	seen *s = ctx;
	if (s->rows < 4) {
		snprintf(s->status[s->rows], sizeof s->status[0], "%s", row->status);
		snprintf(s->config[s->rows], sizeof s->config[0], "%s", row->config);
		snprintf(s->block[s->rows], sizeof s->block[0], "%s",
		         row->values && row->values[0] ? row->values[0] : "(none)");
	}
	s->rows++;
}

/* Configuration index of space as the store keeps it (sorted keys: saxpy's
 * parameters are in that order already). */
static char *config_of(const kjit_space *space, size_t index)
{
	char *c = NULL;
	CHECK_OK(kjit_space_config_json(space, index, &c));
	return c;
}

static kjit_eval eval_of(const char *config, kjit_result_status status, double median)
{
	kjit_eval e = { .config = config, .status = status, .timer = "events",
		        .median_ns = median, .spread_ns = NAN, .min_ns = median,
		        .max_ns = median, .objective = median, .compile_ms = 12.5,
		        .arch = "sm_90", .nvrtc = "nvrtc-test" };
	return e;
}

static void test_run(const char *dir, const kjit_spec *spec, const kjit_space *space,
                     const char *sig)
{
	char path[TU_PATH];
	tu_path(path, dir, "records.db");
	kjit_records *rec = (kjit_records *)1;
	CHECK_ST(kjit_records_open(path, 1, &rec), KJIT_ERR_NOT_FOUND);
	CHECK(rec == NULL && !tu_exists(path));
	CHECK_CONTAINS(kjit_last_error(), path);
	OK("a store that must exist and does not: KJIT_ERR_NOT_FOUND naming it, no file made");

	CHECK_OK(kjit_records_open(path, 0, &rec));
	kjit_run_desc d = { .signature = sig, .device_key = "sm_90|Test GPU|132|13000",
		            .kernel = "saxpy", .spec = "saxpy.json", .strategy = "random",
		            .problem = SAXPY_PROBLEM, .total = 4 };
	kjit_run *run = NULL;
	CHECK_OK(kjit_record_run_start(rec, &d, &run));
	CHECK(run && run->id > 0 && !run->resumed && run->objective == KJIT_OBJECTIVE_TIME);

	size_t idx[4] = { 0, 5, 9, 13 };
	const double median[4] = { 2000, 3000, 1500, 0 };
	const kjit_result_status status[4] = { KJIT_RESULT_OK, KJIT_RESULT_OK, KJIT_RESULT_OK,
		                               KJIT_RESULT_COMPILE_ERROR };
	const int improves[4] = { 1, 0, 1, 0 };
	char *cfg[4];
	for (int i = 0; i < 4; i++) {
		cfg[i] = config_of(space, idx[i]);
		kjit_eval e = eval_of(cfg[i], status[i], status[i] ? NAN : median[i]);
		if (status[i])
			e.message = "error: expected a ';'";
		int64_t id = 0;
		int improved = -1;
		CHECK_OK(kjit_record_eval(rec, run, &e, &id, &improved));
		CHECK(id > 0);
		CHECK_MSG(improved == improves[i], "evaluation %d: improved %d, want %d", i,
		          improved, improves[i]);
	}
	OK("a run's evaluations: the first ok is the best, a slower one not, a faster one is, "
	   "a failure not");

	char *best = NULL;
	double best_ns = 0;
	kjit_objective by = KJIT_OBJECTIVE_EDP;
	kjit_profile prof;
	int has_profile = -1;
	CHECK_OK(kjit_record_best(rec, sig, d.device_key, SAXPY_PROBLEM, &best, &best_ns, &by,
	                          &prof, &has_profile));
	CHECK_STREQ(best, cfg[2]);
	CHECK(best_ns == 1500 && by == KJIT_OBJECTIVE_TIME && has_profile == 0);
	free(best);
	CHECK_ST(kjit_record_best(rec, sig, d.device_key, "{\"n\":1}", NULL, NULL, NULL, NULL,
	                          NULL), KJIT_ERR_NOT_FOUND);
	OK("kjit_record_best(): the fastest, under time, without a profile; none for another "
	   "problem");

	double *obj = NULL;
	uint8_t *have = NULL;
	size_t ignored = 99;
	CHECK_OK(kjit_record_load(rec, space, sig, NULL, KJIT_OBJECTIVE_TIME, &obj, &have,
	                          &ignored));
	size_t known = 0;
	for (size_t j = 0; j < kjit_space_size(space, NULL); j++)
		known += have[j];
	CHECK(known == 4 && ignored == 0);
	for (int i = 0; i < 4; i++) {
		CHECK(have[idx[i]] == 1);
		CHECK(status[i] ? isinf(obj[idx[i]]) : obj[idx[i]] == median[i]);
	}
	free(obj);
	free(have);
	OK("kjit_record_load(): each configuration's score by index, the failure INFINITY, "
	   "the rest unknown");

	kjit_run *again = NULL;
	CHECK_OK(kjit_record_run_start(rec, &d, &again));
	CHECK(again->id == run->id && again->resumed == 1);
	kjit_run_free(again);
	CHECK_ST(kjit_record_run_finish(rec, run, (kjit_run_end)3), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "done");
	CHECK_OK(kjit_record_run_finish(rec, run, KJIT_RUN_DONE));
	CHECK_OK(kjit_record_run_start(rec, &d, &again));
	CHECK(again->id != run->id && again->resumed == 0);
	CHECK_OK(kjit_record_run_finish(rec, again, KJIT_RUN_INTERRUPTED));
	kjit_run_free(again);
	OK("an unfinished run is resumed, a done one is not; an end beyond the list refused");

	seen s = { 0 };
	kjit_record_query q = { .run_id = run->id, .spec = spec };
	kjit_record_reader r = { on_begin, on_row, &s };
	CHECK_OK(kjit_record_rows(rec, &q, &r));
	CHECK(s.begins == 1 && s.rows == 4);
	for (int i = 0; i < 4; i++) {
		CHECK_STREQ(s.status[i], kjit_result_status_name(status[i]));
		CHECK_STREQ(s.config[i], cfg[i]);
		size_t values[2];
		kjit_value v;
		CHECK_OK(kjit_space_config(space, idx[i], values));
		CHECK_OK(kjit_spec_value(spec, 0, values[0], &v));
		CHECK_STREQ(s.block[i], v.text);
	}
	OK("kjit_record_rows(): the run's four rows in order, with their words and values");

	kjit_eval e = eval_of(cfg[0], KJIT_RESULT_OK, 100);
	CHECK(kjit_eval_score(&e, KJIT_OBJECTIVE_TIME) == 100);
	CHECK(isnan(kjit_eval_score(&e, KJIT_OBJECTIVE_ENERGY)));
	kjit_profile_clear(&e.profile);
	e.has_profile = 1;
	e.profile.energy_j = 0.5;
	CHECK(kjit_eval_score(&e, KJIT_OBJECTIVE_ENERGY) == 0.5);
	CHECK(kjit_eval_score(&e, KJIT_OBJECTIVE_EDP) == 50);
	e.status = KJIT_RESULT_TIMEOUT;
	CHECK(isnan(kjit_eval_score(&e, KJIT_OBJECTIVE_TIME)));
	CHECK(isnan(kjit_eval_score(NULL, KJIT_OBJECTIVE_TIME)));
	OK("kjit_eval_score(): time, energy, their product; NAN without the figure or for a "
	   "failure");

	e.status = KJIT_RESULT_OK;
	e.has_profile = 0;
	/* a problem's sizes are integers: selection reads no other */
	static const char *const sizes[] = { "{\"n\":6.7108864e7}", "{\"n\":\"67108864\"}",
		                             "{\"n\":67108864.0}" };
	kjit_run_desc ds = d;
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		ds.problem = sizes[i];
		CHECK_ST(kjit_record_run_start(rec, &ds, &again), KJIT_ERR_INVALID_ARG);
		CHECK_CONTAINS(kjit_last_error(), "integers");
	}
	static const char *const bad[] = {
		"{\"BLOCK_SIZE\": 64,\"ITEMS_PER_THREAD\":1}",
		"{\"ITEMS_PER_THREAD\":1,\"BLOCK_SIZE\":64}",
		"{\"BLOCK_SIZE\":[64],\"ITEMS_PER_THREAD\":1}",
		"{\"BLOCK_SIZE\":64,\"BLOCK_SIZE\":64}",
		"{\"BLOCK_SIZE\":64",
		"[64,1]",
	};
	kjit_run_desc dd = d;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		e.config = bad[i];
		CHECK_ST(kjit_record_eval(rec, run, &e, NULL, NULL), KJIT_ERR_INVALID_ARG);
		CHECK_CONTAINS(kjit_last_error(), "configuration");
		dd.problem = bad[i];
		CHECK_ST(kjit_record_run_start(rec, &dd, &again), KJIT_ERR_INVALID_ARG);
		CHECK_CONTAINS(kjit_last_error(), "problem");
	}
	e.config = cfg[0];
	seen none = { 0 };
	kjit_record_reader count = { on_begin, on_row, &none };
	CHECK_OK(kjit_record_rows(rec, &q, &count));
	CHECK(none.rows == 4);
	char *pj = NULL, *pk = NULL;
	CHECK_OK(kjit_spec_problem_text(spec, 0, KJIT_PROBLEM_JSON, &pj));
	CHECK_OK(kjit_spec_problem_text(spec, 0, KJIT_PROBLEM_KEY, &pk));
	CHECK_STREQ(pj, SAXPY_PROBLEM);
	CHECK_STREQ(pk, "n=67108864");
	free(pj);
	free(pk);
	CHECK_ST(kjit_spec_problem_text(spec, 1, KJIT_PROBLEM_JSON, &pj), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_spec_problem_text(spec, 0, (kjit_problem_form)2, &pj), KJIT_ERR_INVALID_ARG);
	CHECK(pj == NULL);
	OK("a configuration or problem in another form refused, nothing stored; the problem's "
	   "two forms");

	CHECK_ST(kjit_records_open(path, 0, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_run_start(NULL, &d, &again), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_run_start(rec, NULL, &again), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_run_start(rec, &d, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_run_finish(NULL, run, KJIT_RUN_DONE), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_run_finish(rec, NULL, KJIT_RUN_DONE), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_eval(NULL, run, &e, NULL, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_eval(rec, NULL, &e, NULL, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_eval(rec, run, NULL, NULL, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_load(rec, NULL, sig, NULL, KJIT_OBJECTIVE_TIME, &obj, NULL, NULL),
	         KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_load(rec, space, sig, NULL, KJIT_OBJECTIVE_TIME, NULL, NULL, NULL),
	         KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_best(rec, NULL, d.device_key, SAXPY_PROBLEM, NULL, NULL, NULL, NULL,
	                          NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_best(rec, sig, d.device_key, SAXPY_PROBLEM, NULL, NULL, NULL, &prof,
	                          NULL), KJIT_ERR_INVALID_ARG);
	/* a run a front end built itself: each part it needs */
	kjit_run mine = { .id = 0, .signature = (char *)sig, .device_key = (char *)"sm_90|X|1|1",
		          .problem = (char *)SAXPY_PROBLEM };
	CHECK_OK(kjit_record_eval(rec, &mine, &e, NULL, NULL));
	mine.problem = (char *)"{\"n\": 1}";
	CHECK_ST(kjit_record_eval(rec, &mine, &e, NULL, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "problem");
	mine.problem = NULL;
	CHECK_ST(kjit_record_eval(rec, &mine, &e, NULL, NULL), KJIT_ERR_INVALID_ARG);
	mine.problem = (char *)SAXPY_PROBLEM;
	mine.objective = (kjit_objective)9;
	CHECK_ST(kjit_record_eval(rec, &mine, &e, NULL, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_run_finish(rec, &mine, KJIT_RUN_DONE), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "objective");
	mine.objective = KJIT_OBJECTIVE_TIME;
	mine.id = 999999;
	CHECK_ST(kjit_record_run_finish(rec, &mine, KJIT_RUN_DONE), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "no run 999999");
	kjit_eval nos = e;
	nos.n_samples = 3;
	CHECK_ST(kjit_record_eval(rec, run, &nos, NULL, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "samples");
	CHECK_ST(kjit_record_load(rec, space, sig, d.device_key, (kjit_objective)7, &obj, NULL,
	                          NULL), KJIT_ERR_INVALID_ARG);
	kjit_record_query by_sig = { .device_key = d.device_key, .n_problems = 1 };
	CHECK_ST(kjit_record_rows(rec, &by_sig, &r), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "no signature or no problems");
	by_sig.signature = sig;
	CHECK_ST(kjit_record_rows(rec, &by_sig, &r), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "no signature or no problems");
	kjit_record_reader half = { NULL, on_row, &s };
	CHECK_ST(kjit_record_rows(rec, &q, &half), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_rows(rec, NULL, &r), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_record_rows(NULL, &q, &r), KJIT_ERR_INVALID_ARG);
	CHECK_OK(kjit_records_close(NULL));
	OK("every NULL argument, and a run or query lacking a part: KJIT_ERR_INVALID_ARG");

	kjit_run_free(run);
	for (int i = 0; i < 4; i++)
		free(cfg[i]);
	CHECK_OK(kjit_records_close(rec));
}

/* What a front end records is what kjit_launch() chooses: on a GPU, a
 * result of its device as "exact"; without one (an engine for sm_90), a
 * result of another GPU of that arch as "same_arch", as a database
 * shipped from a machine with one is used. */
static void test_chosen(const char *dir, const char *spec_path, const kjit_space *space,
                        const char *sig)
{
	char path[TU_PATH];
	tu_path(path, dir, "chosen.db");
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = path;
	kjit_engine *engine = NULL;
	kjit_status st = kjit_engine_open(&o, &engine);
	if (st == KJIT_ERR_NO_GPU)
		engine = tu_engine_cpu(path, "sm_90", 0);
	else
		CHECK_OK(st);
	int gpu = kjit_engine_has_gpu(engine);
	kjit_device_info dev = { .key = "sm_90|a GPU of this arch|132|13000", .arch = "sm_90" };
	if (gpu)
		CHECK_OK(kjit_engine_device(engine, &dev));
	kjit_records *rec = NULL;
	CHECK_OK(kjit_records_open(path, 1, &rec));
	kjit_run_desc d = { .signature = sig, .device_key = dev.key, .kernel = "saxpy",
		            .problem = SAXPY_PROBLEM };
	kjit_run *run = NULL;
	CHECK_OK(kjit_record_run_start(rec, &d, &run));
	char *cfg = config_of(space, 7);
	kjit_eval e = eval_of(cfg, KJIT_RESULT_OK, 1000);
	e.arch = dev.arch;
	e.nvrtc = kjit_nvrtc_id();
	CHECK_OK(kjit_record_eval(rec, run, &e, NULL, NULL));
	CHECK_OK(kjit_record_run_finish(rec, run, KJIT_RUN_DONE));
	kjit_run_free(run);
	CHECK_OK(kjit_records_close(rec));

	kjit_kernel *k = NULL;
	CHECK_OK(kjit_kernel_create_from_spec(engine, spec_path, &k));
	CHECK_STREQ(kjit_kernel_signature(k), sig);
	int64_t n = 67108864;
	kjit_explanation x;
	CHECK_OK(kjit_explain(k, &n, 1, &x));
	CHECK_STREQ(x.rule, gpu ? "exact" : "same_arch");
	CHECK_STREQ(x.config, cfg);
	CHECK_STREQ(x.device_key, dev.key);
	free(cfg);
	kjit_engine_close(engine);
	OK("a configuration recorded through kjit_records is kjit_explain()'s choice (%s)",
	   gpu ? "exact, the engine's device" : "same_arch: no GPU, an engine for sm_90");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char path[TU_PATH];
	tu_path(path, tu_srcdir(), "examples/saxpy/saxpy.json");
	kjit_spec *spec = NULL;
	CHECK_OK(kjit_spec_load(path, &spec));
	kjit_space *space = NULL;
	CHECK_OK(kjit_space_build(spec, 0, NULL, &space));
	char *sig = NULL;
	CHECK_OK(kjit_spec_signature(spec, &sig));
	test_run(dir, spec, space, sig);
	test_chosen(dir, path, space, sig);
	free(sig);
	kjit_space_free(space);
	kjit_spec_free(spec);
	printf("PASS\n");
	return 0;
}
