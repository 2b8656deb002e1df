/*
 * test-tune-results: tuning results in the kjit database (autotune/
 * results.c): runs started, resumed and finished; results rows, the best
 * row only on faster ok results, one transaction per evaluation (a reader
 * in another process never sees half of one; a failing best update leaves
 * nothing behind); samples round-trip bit for bit; the objective table
 * loads back and drives a replay; CSV, JSON and T4 exports; the kernel
 * signature and, when the tool is built, kjit-tune --export/--replay-db.
 */
#include "testutil.h"

#include <math.h>
#include <sys/wait.h>

#include "results.h"
#include "search.h"

static const char *dir;

static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	CHECK(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK);
	CHECK_MSG(sqlite3_step(s) == SQLITE_ROW, "%s: %s", sql, sqlite3_errmsg(db));
	int64_t v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static double q_real(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	CHECK(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK);
	CHECK_MSG(sqlite3_step(s) == SQLITE_ROW, "%s: %s", sql, sqlite3_errmsg(db));
	double v = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	return v;
}

static char *q_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	CHECK(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK);
	CHECK_MSG(sqlite3_step(s) == SQLITE_ROW, "%s: %s", sql, sqlite3_errmsg(db));
	const unsigned char *t = sqlite3_column_text(s, 0);
	char *v = strdup(t ? (const char *)t : "(null)");
	sqlite3_finalize(s);
	CHECK(v);
	return v;
}

static kjit_eval eval_ok(const char *config, double median)
{
	kjit_eval e = { .config = config, .status = KJIT_RESULT_OK, .timer = "events", .l2 = "warm",
		        .median_ns = median, .spread_ns = 1, .min_ns = median - 1,
		        .max_ns = median + 1, .objective = median, .compile_ms = 12.5,
		        .arch = "sm_90", .nvrtc = "12.4" };
	return e;
}

static kjit_eval eval_fail(const char *config, kjit_result_status status)
{
	kjit_eval e = { .config = config, .status = status, .median_ns = NAN, .spread_ns = NAN,
		        .min_ns = NAN, .max_ns = NAN, .objective = NAN, .compile_ms = NAN,
		        .message = "it failed, \"badly\"\nline 2" };
	return e;
}

/* The objective of the synthetic table: a bowl with its minimum at
 * A=3 (index 2), B=1. */
static double synthetic(const kjit__space *space, size_t i)
{
	const uint16_t *c = kjit__space_config(space, i);
	return 100 + 10.0 * (c[0] - 2) * (c[0] - 2) + 3.0 * (c[1] - 1) * (c[1] - 1) + c[2];
}

/* Export to a file, read it back. */
static char *export_to(kjit_records *r, const kjit__spec *spec, int64_t run_id, const char *sig,
                       const char *dev, const char *prob, kt_export_format fmt,
                       const char *name)
{
	char path[TU_PATH];
	tu_path(path, dir, name);
	FILE *f = fopen(path, "w");
	CHECK(f);
	const char *probs[1] = { prob };
	CHECK_OK(kt_results_export(r, spec, run_id, sig, dev, probs, 1, fmt, f));
	CHECK(fclose(f) == 0);
	return tu_read_file(path, NULL);
}

static int json_valid(sqlite3 *db, const char *text)
{
	sqlite3_stmt *s;
	CHECK(sqlite3_prepare_v2(db, "SELECT json_valid(?1)", -1, &s, NULL) == SQLITE_OK);
	sqlite3_bind_text(s, 1, text, -1, SQLITE_STATIC);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	int v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return v;
}

static char *json_get(sqlite3 *db, const char *text, const char *path)
{
	sqlite3_stmt *s;
	CHECK(sqlite3_prepare_v2(db, "SELECT json_extract(?1, ?2)", -1, &s, NULL) == SQLITE_OK);
	sqlite3_bind_text(s, 1, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, path, -1, SQLITE_STATIC);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	const unsigned char *t = sqlite3_column_text(s, 0);
	char *v = t ? strdup((const char *)t) : NULL;
	sqlite3_finalize(s);
	return v;
}

/* Runs a command line, returning its exit status and output (malloc'ed). */
static int run_cmd(const char *cmd, char **out)
{
	char *full = kjit__strdup_printf("%s 2>&1", cmd);
	CHECK(full);
	FILE *p = popen(full, "r");
	CHECK(p);
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap);
	CHECK(buf);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (len + 1 == cap) {
			buf = realloc(buf, cap *= 2);
			CHECK(buf);
		}
	}
	buf[len] = '\0';
	int status = pclose(p);
	free(full);
	CHECK(WIFEXITED(status));
	*out = buf;
	return WEXITSTATUS(status);
}

/* A CSV export opened in a spreadsheet runs no formula: a text field that
 * starts with =, +, -, @ (and is no number) or with a single quote gets a
 * single quote first, and the replay reader drops it again. */
static void test_csv_formulas(void)
{
	static const char src[] = "extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n";
	char path[TU_PATH], db_path[TU_PATH];
	tu_write_file(tu_path(path, dir, "f.cu"), src, strlen(src));
	kjit__spec *spec = tu_spec_from(dir, "f.json",
		"{\"kernel\": {\"source\": \"f.cu\", \"entry\": \"k\"},"
		" \"parameters\": [{\"name\": \"S\", \"values\": [\"=1+2\", \"+x\", \"-lineinfo\","
		"  \"@SUM(A1)\", \"'q\", \"-2\", \"plain\"]}, {\"name\": \"N\", \"values\": [-3, 4]}],"
		" \"problems\": [{\"n\": 1}]}");
	kjit__space *space;
	CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
	CHECK(space->size == 14);
	kjit_records *r;
	CHECK_OK(kjit_records_open(tu_path(db_path, dir, "formulas.db"), 0, &r));
	char *prob = kjit__problem_json(&spec->problems[0]);
	kjit_run_desc d = { .signature = "sig", .device_key = "dev", .kernel = "k",
		             .spec = spec->path, .strategy = "exhaustive", .problem = prob, .total = 14 };
	kjit_run *run;
	CHECK_OK(kjit_record_run_start(r, &d, &run));
	char *cfg[14];
	for (size_t i = 0; i < space->size; i++) {
		CHECK((cfg[i] = kjit__config_json(space, i)));
		kjit_eval e = eval_ok(cfg[i], 100.0 + (double)i);
		if (i == 0) {
			e = eval_fail(cfg[i], KJIT_RESULT_COMPILE_ERROR);
			e.message = "=HYPERLINK(\"http://x\")";
		}
		CHECK_OK(kjit_record_eval(r, run, &e, NULL, NULL));
	}
	char *csv = export_to(r, spec, run->id, NULL, NULL, NULL, KT_EXPORT_CSV, "formulas.csv");
	CHECK_CONTAINS(csv, "\n'=1+2,-3,");
	CHECK_CONTAINS(csv, "\n'+x,4,");
	CHECK_CONTAINS(csv, "\n'-lineinfo,-3,");
	CHECK_CONTAINS(csv, "\n'@SUM(A1),4,");
	CHECK_CONTAINS(csv, "\n''q,-3,");
	CHECK_CONTAINS(csv, "\n-2,4,");
	CHECK_CONTAINS(csv, "\nplain,-3,");
	CHECK_CONTAINS(csv, ",\"'=HYPERLINK(\"\"http://x\"\")\",");
	for (const char *p = csv; (p = strchr(p, '\n')) && p[1]; p++)
		CHECK_MSG(!strchr("=+@", p[1]), "a line starts with a formula: %.40s", p + 1);
	double *obj;
	size_t ignored;
	tu_path(path, dir, "formulas.csv");
	CHECK_OK(kt_replay_load(space, path, &obj, &ignored));
	CHECK(ignored == 0);
	for (size_t i = 1; i < space->size; i++)
		CHECK_MSG(obj[i] == 100.0 + (double)i, "configuration %zu: %g", i, obj[i]);
	CHECK(isinf(obj[0]));
	free(obj);
	free(csv);
	for (size_t i = 0; i < space->size; i++)
		free(cfg[i]);
	free(prob);
	kjit_run_free(run);
	kjit_records_close(r);
	kjit__space_free(space);
	kjit__spec_free(spec);
	OK("CSV export: fields a spreadsheet would run start with a single quote; replay reads "
	   "them back");
}

/* T1 OutputFile with links planted where kjit-tune would write: at the
 * temporary a writer of a known process id would use, and at the file
 * itself. The writer (another process, whose id the planter learns before
 * it writes) succeeds, the links' targets keep their text, and the file
 * is a new regular file of mode 0600. */
static void test_t4_planted_links(void)
{
	static const char src[] = "extern \"C\" __global__ void k(float *x) { x[0] = 1; }\n";
	char path[TU_PATH], out[TU_PATH], victim[TU_PATH], victim2[TU_PATH], link[TU_PATH + 32];
	tu_write_file(tu_path(path, dir, "o.cu"), src, strlen(src));
	kjit__spec *spec = tu_spec_from(dir, "o.json",
		"{\"kernel\": {\"source\": \"o.cu\", \"entry\": \"k\"},"
		" \"parameters\": [{\"name\": \"N\", \"values\": [1, 2]}]}");
	tu_write_file(tu_path(victim, dir, "victim"), "precious\n", 9);
	tu_write_file(tu_path(victim2, dir, "victim2"), "precious\n", 9);
	tu_path(out, dir, "out.json");
	CHECK(symlink(victim2, out) == 0);
	int go[2];
	CHECK(pipe(go) == 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char c;
		kjit_records *r;
		close(go[1]);
		if (read(go[0], &c, 1) != 1 || kjit_records_open(tu_path(path, dir, "o.db"), 0, &r))
			_exit(2);
		kjit_status st = kt_results_write_t4(r, spec, "sig", "dev", NULL, 0, out);
		if (st != KJIT_OK)
			fprintf(stderr, "%s\n", kjit_last_error());
		kjit_records_close(r);
		_exit(st == KJIT_OK ? 0 : 1);
	}
	close(go[0]);
	snprintf(link, sizeof link, "%s.tmp.%ld", out, (long)pid);
	CHECK(symlink(victim, link) == 0);
	CHECK(write(go[1], "x", 1) == 1);
	close(go[1]);
	int status;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer failed: %d", status);
	char *text = tu_read_file(victim, NULL);
	CHECK_STREQ(text, "precious\n");
	free(text);
	text = tu_read_file(victim2, NULL);
	CHECK_STREQ(text, "precious\n");
	free(text);
	struct stat st;
	CHECK(lstat(out, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
	text = tu_read_file(out, NULL);
	CHECK_CONTAINS(text, "\"results\"");
	free(text);
	kjit__spec_free(spec);
	OK("OutputFile with links planted at its temporary and at itself: written, mode 0600, "
	   "the links' targets untouched");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	dir = tu_tmpdir();
	test_csv_formulas();
	test_t4_planted_links();
	char db_path[TU_PATH], src[TU_PATH];
	tu_path(db_path, dir, "kjit.db");
	tu_path(src, dir, "k.cu");
	static const char kernel_src[] =
		"extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= TB; }\n";
	tu_write_file(src, kernel_src, strlen(kernel_src));
	/* parameters in an unsorted order, one of them text */
	kjit__spec *spec = tu_spec_from(dir, "k.json",
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
		" \"parameters\": ["
		"  {\"name\": \"TB\", \"values\": [1,2,3,4,5], \"roles\": [\"block_x\", \"define\"]},"
		"  {\"name\": \"NA\", \"values\": [\"x\",\"y\",\"z\"]},"
		"  {\"name\": \"C\", \"values\": [0,1]}],"
		" \"problems\": [{\"n\": 1024, \"m\": 8}, {\"n\": 4096, \"m\": 8}]}");
	kjit__space *space;
	CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
	CHECK(space->size == 30);

	/* sorted JSON */
	char *prob = kjit__problem_json(&spec->problems[0]);
	CHECK_STREQ(prob, "{\"m\":8,\"n\":1024}");
	char *cfg0 = kjit__config_json(space, 0);
	CHECK_STREQ(cfg0, "{\"C\":0,\"NA\":\"x\",\"TB\":1}");
	OK("configurations and problems as JSON with sorted keys");

	/* the signature is libkjit's */
	char *sig;
	CHECK_OK(kjit_spec_signature(spec, &sig));
	{
		kjit_engine *e = tu_engine_cpu(":memory:", "sm_80", 1);
		kjit_kernel *k;
		const char *names[] = { "TB", "NA", "C" };
		CHECK_OK(kjit_kernel_create(e, "k", kernel_src, names, 3, &k));
		CHECK_STREQ(sig, kjit_kernel_signature(k));
		kjit_engine_close(e);
	}
	OK("spec signature %.12s... matches kjit_kernel_signature", sig);

	kjit_records *r;
	CHECK_OK(kjit_records_open(db_path, 0, &r));
	sqlite3 *db;
	CHECK(sqlite3_open(db_path, &db) == SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	const char *dev = "sm_90|Test GPU|132|12040";
	kjit_run_desc d = { .signature = sig, .device_key = dev, .kernel = "k",
		             .spec = spec->path, .strategy = "random", .problem = prob, .total = 30 };
	kjit_run *run;
	CHECK_OK(kjit_record_run_start(r, &d, &run));
	CHECK(!run->resumed && run->id > 0);
	CHECK(q_int(db, "SELECT count(*) FROM runs WHERE status = 'running' AND total = 30 AND"
	                " evaluated = 0 AND pid > 0 AND started > 1e9 AND finished IS NULL") == 1);
	char *t = q_text(db, "SELECT problem || '|' || kernel || '|' || strategy FROM runs");
	CHECK_STREQ(t, "{\"m\":8,\"n\":1024}|k|random");
	free(t);
	OK("a run starts: running, total, pid, started");

	/* results: ok, slower ok, failures, faster ok */
	char *cfg[30];
	for (size_t i = 0; i < space->size; i++)
		CHECK((cfg[i] = kjit__config_json(space, i)));
	int64_t id1, id;
	int improved;
	kjit_eval e = eval_ok(cfg[0], 1000);
	CHECK_OK(kjit_record_eval(r, run, &e, &id1, &improved));
	CHECK(improved == 1);
	e = eval_ok(cfg[1], 2000);
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	CHECK(improved == 0);
	e = eval_fail(cfg[2], KJIT_RESULT_COMPILE_ERROR);
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	CHECK(improved == 0);
	e = eval_fail(cfg[3], KJIT_RESULT_WRONG_RESULT);
	e.median_ns = 1; /* a fast wrong result never becomes the best */
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	CHECK(improved == 0);
	e = eval_fail(cfg[4], (kjit_result_status)KJIT__RS_COUNT);
	CHECK_ST(kjit_record_eval(r, run, &e, &id, &improved), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "status 7");
	CHECK(q_int(db, "SELECT evaluated FROM runs") == 4);
	CHECK(q_int(db, "SELECT count(*) FROM results") == 4);
	CHECK(q_real(db, "SELECT median_ns FROM best") == 1000);
	CHECK(q_int(db, "SELECT result_id FROM best") == id1);
	e = eval_ok(cfg[5], 500);
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	CHECK(improved == 1);
	CHECK(q_real(db, "SELECT median_ns FROM best") == 500);
	CHECK(q_int(db, "SELECT result_id FROM best") == id);
	t = q_text(db, "SELECT config || '|' || arch || '|' || nvrtc || '|' || stale || '|' ||"
	               " problem || '|' || device_key FROM best");
	char *want = kjit__strdup_printf("%s|sm_90|12.4|0|%s|%s", cfg[5], prob, dev);
	CHECK_STREQ(t, want);
	free(t);
	free(want);
	CHECK(q_int(db, "SELECT count(*) FROM results WHERE status = 'compile_error' AND"
	                " median_ns IS NULL AND objective IS NULL AND message LIKE 'it failed%'"
	                " AND l2 = 'warm'") == 1);
	/* a re-measurement upserts: same row, new numbers */
	e = eval_ok(cfg[1], 1500);
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	CHECK(improved == 0);
	CHECK(q_int(db, "SELECT count(*) FROM results") == 5);
	CHECK(q_real(db, "SELECT median_ns FROM results WHERE id = (SELECT max(id) FROM results"
	                 " WHERE median_ns = 1500)") == 1500);
	CHECK(q_int(db, "SELECT evaluated FROM runs") == 5);
	/* another l2 is another row */
	e = eval_ok(cfg[1], 1700);
	e.l2 = "cold";
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	CHECK(q_int(db, "SELECT count(*) FROM results") == 6);
	/* a stale best gives way to any ok result */
	CHECK(sqlite3_exec(db, "UPDATE best SET stale = 1", NULL, NULL, NULL) == SQLITE_OK);
	e = eval_ok(cfg[1], 1800);
	e.l2 = "cold";
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	CHECK(improved == 1);
	CHECK(q_real(db, "SELECT median_ns FROM best WHERE stale = 0") == 1800);
	e = eval_ok(cfg[5], 500);
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	CHECK(improved == 1 && q_real(db, "SELECT median_ns FROM best") == 500);
	OK("results rows; the best moves only on faster ok results; upsert per l2");

	/* the device that measured a row: the latest measurement's */
	char *dev5 = kjit__strdup_printf("SELECT coalesce(device_ordinal, 'null') || '|' ||"
	                                 " coalesce(device_uuid, 'null') FROM results"
	                                 " WHERE config = '%s' AND l2 = 'warm'", cfg[5]);
	CHECK(dev5);
	t = q_text(db, dev5);
	CHECK_STREQ(t, "null|null");
	free(t);
	e.has_device_ordinal = 1;
	e.device_ordinal = 1;
	e.device_uuid = "GPU-3f9d7b25-6a1e-4c8b-b2d4-9e0f1a2b3c4d";
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	t = q_text(db, dev5);
	CHECK_STREQ(t, "1|GPU-3f9d7b25-6a1e-4c8b-b2d4-9e0f1a2b3c4d");
	free(t);
	e.device_ordinal = 0;
	e.device_uuid = "GPU-8c4e2a1f-0b6d-4e3a-9f1c-2d5e7a9b0c11";
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	t = q_text(db, dev5);
	CHECK_STREQ(t, "0|GPU-8c4e2a1f-0b6d-4e3a-9f1c-2d5e7a9b0c11");
	free(t);
	e.device_ordinal = -1;
	CHECK_ST(kjit_record_eval(r, run, &e, &id, &improved), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "device ordinal -1");
	t = q_text(db, dev5);
	CHECK_STREQ(t, "0|GPU-8c4e2a1f-0b6d-4e3a-9f1c-2d5e7a9b0c11");
	free(t);
	e = eval_ok(cfg[5], 500); /* names no device */
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	t = q_text(db, dev5);
	CHECK_STREQ(t, "null|null");
	free(t);
	CHECK(q_int(db, "SELECT count(*) FROM results") == 6);
	CHECK(q_int(db, "SELECT evaluated FROM runs") == 6);
	free(dev5);
	OK("device ordinal and UUID stored, overwritten by the next measurement, NULL when "
	   "unnamed; a negative ordinal refused, the row kept");

	/* samples round-trip bit for bit */
	double samples[] = { 1.0 / 3, -0.0, 1e-300, 123456789.123456789, 5e300, 0x1p-1074 };
	e = eval_ok(cfg[6], 900);
	e.samples = samples;
	e.n_samples = sizeof samples / sizeof *samples;
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	{
		sqlite3_stmt *s;
		CHECK(sqlite3_prepare_v2(db, "SELECT samples, n_samples FROM results WHERE id = ?1",
		                         -1, &s, NULL) == SQLITE_OK);
		sqlite3_bind_int64(s, 1, id);
		CHECK(sqlite3_step(s) == SQLITE_ROW);
		const unsigned char *b = sqlite3_column_blob(s, 0);
		CHECK(sqlite3_column_bytes(s, 0) == (int)sizeof samples);
		CHECK(sqlite3_column_int(s, 1) == (int)e.n_samples);
		for (size_t i = 0; i < e.n_samples; i++) {
			uint64_t u = 0, v;
			for (int k = 0; k < 8; k++)
				u |= (uint64_t)b[i * 8 + (size_t)k] << (8 * k);
			memcpy(&v, &samples[i], 8);
			CHECK_MSG(u == v, "sample %zu", i);
		}
		sqlite3_finalize(s);
	}
	OK("samples round-trip as little-endian float64");

	/* a failing best update leaves nothing of the evaluation */
	CHECK(sqlite3_exec(db, "CREATE TRIGGER no_best BEFORE UPDATE ON best BEGIN"
	                       " SELECT RAISE(ABORT, 'best refused on purpose'); END;",
	                   NULL, NULL, NULL) == SQLITE_OK);
	int64_t n_before = q_int(db, "SELECT count(*) FROM results");
	int64_t ev_before = q_int(db, "SELECT evaluated FROM runs");
	double up_before = q_real(db, "SELECT updated FROM runs");
	e = eval_ok(cfg[7], 100);
	CHECK_ST(kjit_record_eval(r, run, &e, &id, &improved), KJIT_ERR_DB);
	CHECK_CONTAINS(kjit_last_error(), "best refused on purpose");
	CHECK(q_int(db, "SELECT count(*) FROM results") == n_before);
	CHECK(q_int(db, "SELECT evaluated FROM runs") == ev_before);
	CHECK(q_real(db, "SELECT updated FROM runs") == up_before);
	CHECK(q_real(db, "SELECT median_ns FROM best") == 500);
	/* a slower result does not touch best, so it goes through */
	e = eval_ok(cfg[7], 5000);
	CHECK_OK(kjit_record_eval(r, run, &e, &id, &improved));
	CHECK(q_int(db, "SELECT count(*) FROM results") == n_before + 1);
	CHECK(sqlite3_exec(db, "DROP TRIGGER no_best", NULL, NULL, NULL) == SQLITE_OK);
	OK("a failed best update rolls back the results row and the run's progress");

	/* a reader in another process never sees half an evaluation */
	{
		kjit_run *run2;
		kjit_run_desc d2 = d;
		d2.device_key = "sm_90|Other GPU|132|12040";
		CHECK_OK(kjit_record_run_start(r, &d2, &run2));
		pid_t pid = fork();
		CHECK(pid >= 0);
		if (pid == 0) {
			kjit_records *rc;
			if (kjit_records_open(db_path, 0, &rc) != KJIT_OK)
				_exit(2);
			for (int k = 0; k < 3; k++)
				for (size_t i = 0; i < space->size; i++) {
					kjit_eval ce = eval_ok(cfg[i], 10000.0 - 100.0 * (double)(k * 30 + (int)i));
					if (kjit_record_eval(rc, run2, &ce, NULL, NULL) != KJIT_OK)
						_exit(3);
				}
			kjit_records_close(rc);
			_exit(0);
		}
		char *sql = kjit__strdup_printf(
			"SELECT (SELECT evaluated FROM runs WHERE id = %lld) ="
			"  (SELECT count(*) FROM results WHERE run_id = %lld) AND"
			" coalesce((SELECT median_ns FROM best WHERE device_key = '%s'), -1) ="
			"  coalesce((SELECT min(median_ns) FROM results WHERE device_key = '%s'"
			"   AND status = 'ok'), -1)",
			(long long)run2->id, (long long)run2->id, d2.device_key, d2.device_key);
		CHECK(sql);
		int status, checks = 0;
		for (;;) {
			int done = waitpid(pid, &status, WNOHANG) == pid;
			CHECK(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK);
			CHECK_MSG(q_int(db, sql) == 1, "a reader saw half an evaluation");
			CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);
			checks++;
			if (done)
				break;
		}
		free(sql);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		CHECK(q_int(db, "SELECT count(*) FROM results WHERE device_key ="
		                " 'sm_90|Other GPU|132|12040'") == 30);
		CHECK(q_real(db, "SELECT median_ns FROM best WHERE device_key ="
		                 " 'sm_90|Other GPU|132|12040'") == 10000.0 - 100.0 * 89);
		kjit_run_free(run2);
		OK("a concurrent reader saw whole evaluations only (%d checks)", checks);
	}

	/* resume */
	kjit_run *again;
	CHECK_OK(kjit_record_run_start(r, &d, &again));
	CHECK(again->resumed && again->id == run->id);
	CHECK(q_int(db, "SELECT count(*) FROM runs WHERE device_key = 'sm_90|Test GPU|132|12040'")
	      == 1);
	double *obj;
	uint8_t *have;
	size_t ignored;
	CHECK_OK(kjit_record_load(r, space, sig, dev, KJIT_OBJECTIVE_TIME, &obj, &have, &ignored));
	CHECK(ignored == 0);
	size_t n_have = 0;
	for (size_t i = 0; i < space->size; i++)
		n_have += have[i];
	CHECK(n_have == 7); /* 0-7 but 4, whose status was refused */
	for (size_t i = 0; i < 8; i++)
		CHECK(have[i] == (i != 4));
	CHECK(isinf(obj[2]) && isinf(obj[3]) && obj[5] == 500 && obj[1] == 1500);
	free(obj);
	free(have);
	kjit_run_free(again);
	OK("resume continues the run and knows the 7 evaluated configurations");

	/* finish */
	CHECK_ST(kjit_record_run_finish(r, run, (kjit_run_end)7), KJIT_ERR_INVALID_ARG);
	CHECK_OK(kjit_record_run_finish(r, run, KJIT_RUN_INTERRUPTED));
	CHECK(q_int(db, "SELECT count(*) FROM runs WHERE status = 'interrupted' AND"
	                " finished IS NOT NULL") == 1);
	CHECK_OK(kjit_record_run_start(r, &d, &again));
	CHECK(again->resumed && again->id == run->id);
	kjit_run_free(again);
	CHECK_OK(kjit_record_run_finish(r, run, KJIT_RUN_DONE));
	CHECK(q_int(db, "SELECT count(*) FROM runs WHERE status = 'done' AND"
	                " finished >= started") == 1);
	CHECK_OK(kjit_record_run_start(r, &d, &again));
	CHECK(!again->resumed && again->id != run->id);
	CHECK_OK(kjit_record_run_finish(r, again, KJIT_RUN_FAILED));
	kjit_run_free(again);
	OK("finish sets the status; a done run is not resumed");

	/* the objective table drives a replay to the right best */
	kjit__space *space1;
	CHECK_OK(kjit__space_build(spec, 1, NULL, &space1));
	char *prob1 = kjit__problem_json(&spec->problems[1]);
	d.problem = prob1;
	kjit_run *run1;
	CHECK_OK(kjit_record_run_start(r, &d, &run1));
	size_t argmin = 0;
	for (size_t i = 0; i < space1->size; i++) {
		e = eval_ok(cfg[i], synthetic(space1, i));
		if (i % 7 == 3) {
			e = eval_fail(cfg[i], KJIT_RESULT_LAUNCH_ERROR);
		} else if (synthetic(space1, i) < synthetic(space1, argmin) || argmin % 7 == 3) {
			argmin = i;
		}
		/* the odd ones measured on gpu 1, the even ones on no known device */
		e.has_device_ordinal = i % 2;
		e.device_ordinal = 1;
		e.device_uuid = i % 2 ? "GPU-3f9d7b25" : NULL;
		CHECK_OK(kjit_record_eval(r, run1, &e, NULL, NULL));
	}
	CHECK_OK(kjit_record_load(r, space1, sig, dev, KJIT_OBJECTIVE_TIME, &obj, NULL, &ignored));
	for (size_t i = 0; i < space1->size; i++)
		CHECK(i % 7 == 3 ? isinf(obj[i]) : obj[i] == synthetic(space1, i));
	kt_replay_result rr;
	kt_budget budget = { 0 };
	CHECK_OK(kt_replay_run(space1, tu_strategy("exhaustive"), &budget, 1, obj, &rr));
	CHECK(rr.best_found == (int64_t)argmin && rr.best_known == (int64_t)argmin);
	const uint16_t *bc = kjit__space_config(space1, argmin);
	CHECK(bc[0] == 2 && bc[1] == 1 && bc[2] == 0);
	free(obj);
	char *best_cfg = kjit__strdup_printf("SELECT config = '%s' FROM best WHERE problem = '%s'"
	                                     " AND device_key = '%s'", cfg[argmin], prob1, dev);
	CHECK(q_int(db, best_cfg) == 1);
	free(best_cfg);
	OK("the objective table loads back; replay finds its best (index %zu)", argmin);

	/* exports */
	char *csv = export_to(r, spec, run1->id, NULL, NULL, NULL, KT_EXPORT_CSV, "run.csv");
	CHECK(strncmp(csv, "TB,NA,C,time,status,l2,timer,median_ns,", 39) == 0);
	size_t lines = 0;
	for (const char *p = csv; *p; p++)
		lines += *p == '\n';
	CHECK(lines == 1 + space1->size);
	CHECK_CONTAINS(csv, ",compile_ms,message,device_ordinal,device_uuid,duration_ns,");
	CHECK_CONTAINS(csv, "\n3,y,0,100,ok,warm,events,100,");
	/* i = 3 on gpu 1, i = 10 on no known device */
	CHECK_CONTAINS(csv, ",launch_error,warm,,,,,,0,,\"it failed, \"\"badly\"\" line 2\","
	               "1,GPU-3f9d7b25,");
	CHECK_CONTAINS(csv, ",launch_error,warm,,,,,,0,,\"it failed, \"\"badly\"\" line 2\",,,");
	free(csv);
	/* the CSV reads back as a replay table */
	char csv_path[TU_PATH];
	tu_path(csv_path, dir, "run.csv");
	CHECK_OK(kt_replay_load(space1, csv_path, &obj, &ignored));
	for (size_t i = 0; i < space1->size; i++)
		CHECK(i % 7 == 3 ? isinf(obj[i]) : obj[i] == synthetic(space1, i));
	free(obj);
	char *json = export_to(r, spec, 0, sig, dev, prob, KT_EXPORT_JSON, "p0.json");
	CHECK(json_valid(db, json));
	char *v = json_get(db, json, "$.results[0].config.NA");
	CHECK_STREQ(v, "x");
	free(v);
	CHECK((v = json_get(db, json, "$.results[5].samples_ns[0]")) == NULL);
	v = json_get(db, json, "$.results[6].samples_ns[3]");
	CHECK(v && fabs(strtod(v, NULL) - samples[3]) < 1e-6); /* SQLite prints 15 digits */
	CHECK_CONTAINS(json, "\"samples_ns\":[0.33333333333333331,-0,1e-300,");
	free(v);
	v = json_get(db, json, "$.results[2].message");
	CHECK_STREQ(v, "it failed, \"badly\"\nline 2");
	free(v);
	CHECK_CONTAINS(json, "\"device_key\":\"sm_90|Test GPU|132|12040\",\"device_ordinal\":null,"
	               "\"device_uuid\":null,");
	CHECK(q_int(db, "SELECT 1") == 1);
	free(json);
	json = export_to(r, spec, run1->id, NULL, NULL, NULL, KT_EXPORT_JSON, "run1.json");
	CHECK(json_valid(db, json));
	v = json_get(db, json, "$.results[1].device_ordinal");
	CHECK_STREQ(v, "1");
	free(v);
	v = json_get(db, json, "$.results[1].device_uuid");
	CHECK_STREQ(v, "GPU-3f9d7b25");
	free(v);
	CHECK((v = json_get(db, json, "$.results[0].device_uuid")) == NULL);
	free(json);
	char *t4 = export_to(r, spec, 0, sig, dev, prob, KT_EXPORT_T4, "p0.t4.json");
	CHECK(json_valid(db, t4));
	static const char *const t4_fields[] = {
		"$.schema_version", "$.metadata.timeunit", "$.results[0].configuration",
		"$.results[0].times", "$.results[0].measurements", "$.results[0].correctness",
		"$.results[0].invalidity", "$.results[0].times.runtimes"
	};
	for (size_t i = 0; i < sizeof t4_fields / sizeof *t4_fields; i++) {
		CHECK_MSG((v = json_get(db, t4, t4_fields[i])) != NULL, "T4 lacks %s", t4_fields[i]);
		free(v);
	}
	v = json_get(db, t4, "$.results[2].invalidity");
	CHECK_STREQ(v, "compile");
	free(v);
	v = json_get(db, t4, "$.results[0].measurements[0].value");
	CHECK(v && strtod(v, NULL) == 1e-3);
	free(v);
	free(t4);
	char *empty = export_to(r, spec, 0, sig, "none", prob, KT_EXPORT_JSON, "none.json");
	CHECK(json_valid(db, empty));
	free(empty);
	OK("CSV (replayable, the device columns last), JSON (with the devices) and T4 exports");

	/* no device key: the only one; two are present for this signature */
	double *none_obj = NULL;
	CHECK_ST(kjit_record_load(r, space1, sig, NULL, KJIT_OBJECTIVE_TIME, &none_obj, NULL, NULL),
	         KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "several devices");
	CHECK_CONTAINS(kjit_last_error(), "name the device key");
	CHECK_ST(kjit_record_load(r, space1, "nosuchsig", NULL, KJIT_OBJECTIVE_TIME, &none_obj, NULL,
	                           NULL), KJIT_ERR_NOT_FOUND);
	CHECK(none_obj == NULL);
	{
		FILE *devnull = fopen("/dev/null", "w");
		const char *probs[1] = { prob };
		CHECK(devnull != NULL);
		CHECK_ST(kt_results_export(r, spec, 0, sig, NULL, probs, 1, KT_EXPORT_JSON, devnull),
		         KJIT_ERR_INVALID_ARG);
		fclose(devnull);
	}
	/* --force re-measures: when the best configuration comes back slower
	 * (or failing), the best row is recomputed from the ok rows. */
	{
		kjit_run_desc df = d;
		df.device_key = "force|gpu";
		kjit_run *rf;
		CHECK_OK(kjit_record_run_start(r, &df, &rf));
		const char *bq = "SELECT config || '|' || median_ns FROM best WHERE"
		                 " device_key = 'force|gpu'";
		e = eval_ok(cfg[0], 100);
		CHECK_OK(kjit_record_eval(r, rf, &e, NULL, NULL));
		e = eval_ok(cfg[1], 200);
		CHECK_OK(kjit_record_eval(r, rf, &e, NULL, NULL));
		e = eval_ok(cfg[2], 400);
		CHECK_OK(kjit_record_eval(r, rf, &e, NULL, NULL));
		want = kjit__strdup_printf("%s|100.0", cfg[0]);
		t = q_text(db, bq);
		CHECK_STREQ(t, want);
		free(t);
		free(want);
		e = eval_ok(cfg[0], 300); /* the best, re-measured slower */
		CHECK_OK(kjit_record_eval(r, rf, &e, NULL, &improved));
		want = kjit__strdup_printf("%s|200.0", cfg[1]);
		t = q_text(db, bq);
		CHECK_STREQ(t, want);
		free(t);
		free(want);
		e = eval_fail(cfg[1], KJIT_RESULT_CRASHED); /* the new best now fails */
		CHECK_OK(kjit_record_eval(r, rf, &e, NULL, NULL));
		want = kjit__strdup_printf("%s|300.0", cfg[0]);
		t = q_text(db, bq);
		CHECK_STREQ(t, want);
		free(t);
		free(want);
		e = eval_ok(cfg[0], 50); /* faster again: an ordinary improvement */
		CHECK_OK(kjit_record_eval(r, rf, &e, NULL, &improved));
		CHECK(improved == 1);
		want = kjit__strdup_printf("%s|50.0", cfg[0]);
		t = q_text(db, bq);
		CHECK_STREQ(t, want);
		free(t);
		free(want);
		e = eval_fail(cfg[0], KJIT_RESULT_WRONG_RESULT);
		CHECK_OK(kjit_record_eval(r, rf, &e, NULL, NULL));
		e = eval_fail(cfg[2], KJIT_RESULT_TIMEOUT);
		CHECK_OK(kjit_record_eval(r, rf, &e, NULL, NULL));
		CHECK(q_int(db, "SELECT count(*) FROM best WHERE device_key = 'force|gpu'") == 0);
		char *bestc = NULL;
		double bm;
		CHECK_ST(kjit_record_best(r, sig, "force|gpu", prob, &bestc, &bm, NULL, NULL, NULL),
		         KJIT_ERR_NOT_FOUND);
		CHECK_OK(kjit_record_best(r, sig, dev, prob, &bestc, &bm, NULL, NULL, NULL));
		CHECK(bm == 500);
		free(bestc);
		kjit_run_free(rf);
		OK("a re-measured best that got slower or failed gives way to the best ok row");
	}

	/* a row whose configuration is not JSON is an error, not a configuration
	 * outside the space */
	{
		char *was = q_text(db, "SELECT config FROM results WHERE rowid ="
		                       " (SELECT min(rowid) FROM results)");
		tu_db_exec(db, "UPDATE results SET config = '{\"broken' WHERE rowid ="
		               " (SELECT min(rowid) FROM results)");
		double *o2;
		size_t ign2;
		CHECK_ST(kjit_record_load(r, space, sig, dev, KJIT_OBJECTIVE_TIME, &o2, NULL, &ign2),
		         KJIT_ERR_DB);
		CHECK_CONTAINS(kjit_last_error(), "loading results");
		OK("a configuration that is not JSON: KJIT_ERR_DB, \"%s\"", kjit_last_error());
		/* an array as a key: SQLite's json_extract() read freed memory on it */
		tu_db_exec(db, "UPDATE results SET config = '{\"BLOCK_SIZE\":64,[{\"config\":"
		               "{\"BLOCK_SIZE\":32}}]:{\"config\":{\"BLOCK_SIZE\":32}},\"a,b\":\"e\"}'"
		               " WHERE rowid = (SELECT min(rowid) FROM results)");
		CHECK_ST(kjit_record_load(r, space, sig, dev, KJIT_OBJECTIVE_TIME, &o2, NULL, &ign2),
		         KJIT_ERR_DB);
		CHECK_CONTAINS(kjit_last_error(), "loading results");
		OK("a configuration with an array as a key: KJIT_ERR_DB, \"%s\"", kjit_last_error());
		char *fix = sqlite3_mprintf("UPDATE results SET config = %Q WHERE rowid ="
		                            " (SELECT min(rowid) FROM results)", was);
		tu_db_exec(db, fix);
		sqlite3_free(fix);
		free(was);
	}

	kjit_run_free(run1);
	kjit_run_free(run);
	kjit_records_close(r);

	/* --export and --replay-db read an existing database; they never make one */
	{
		char missing[TU_PATH];
		kjit_records *none;
		tu_path(missing, dir, "no-such.db");
		CHECK_ST(kjit_records_open(missing, 1, &none), KJIT_ERR_NOT_FOUND);
		CHECK_CONTAINS(kjit_last_error(), "no-such.db");
		CHECK(!tu_exists(missing));
		CHECK_OK(kjit_records_open(db_path, 1, &none));
		kjit_records_close(none);
		OK("kjit_records_open(must_exist) refuses a missing file and creates nothing");
	}

	/* the command, when built next to the test */
	const char *build = getenv("KJIT_BUILDDIR");
	char tool[TU_PATH];
	tu_path(tool, build && *build ? build : ".", "autotune/kjit-tune");
	if (tu_exists(tool)) {
		char *out, *cmd;
		cmd = kjit__strdup_printf("'%s' '%s' --export csv --db '%s' --device-key '%s'"
		                          " --problem 1", tool, spec->path, db_path, dev);
		CHECK(run_cmd(cmd, &out) == 0);
		CHECK(strncmp(out, "TB,NA,C,time,", 13) == 0);
		free(cmd);
		free(out);
		cmd = kjit__strdup_printf("'%s' '%s' --export t4 --db '%s'", tool, spec->path,
		                          db_path);
		CHECK(run_cmd(cmd, &out) == 1);
		CHECK_CONTAINS(out, "--device-key");
		free(cmd);
		free(out);
		cmd = kjit__strdup_printf("'%s' '%s' --replay db:%s --device-key '%s' --problem 1"
		                          " --strategy exhaustive", tool, spec->path, db_path, dev);
		CHECK(run_cmd(cmd, &out) == 0);
		CHECK_CONTAINS(out, "best known: {\"C\":0,\"NA\":\"y\",\"TB\":3} 100");
		CHECK_CONTAINS(out, "best found: {\"C\":0,\"NA\":\"y\",\"TB\":3} 100");
		free(cmd);
		free(out);
		cmd = kjit__strdup_printf("'%s' '%s' --replay-db --db '%s' --device-key '%s'"
		                          " --budget 5", tool, spec->path, db_path, dev);
		CHECK(run_cmd(cmd, &out) == 0);
		CHECK_CONTAINS(out, "evaluations: 5");
		free(cmd);
		free(out);
		cmd = kjit__strdup_printf("'%s' '%s' --export xml --db '%s'", tool, spec->path,
		                          db_path);
		CHECK(run_cmd(cmd, &out) == 2);
		free(cmd);
		free(out);
		char missing[TU_PATH];
		tu_path(missing, dir, "missing.db");
		cmd = kjit__strdup_printf("'%s' '%s' --export csv --db '%s' --device-key x", tool,
		                          spec->path, missing);
		CHECK(run_cmd(cmd, &out) == 1);
		CHECK_CONTAINS(out, "no database");
		CHECK_CONTAINS(out, "missing.db");
		free(cmd);
		free(out);
		cmd = kjit__strdup_printf("'%s' '%s' --replay-db --db '%s'", tool, spec->path,
		                          missing);
		CHECK(run_cmd(cmd, &out) == 1);
		CHECK_CONTAINS(out, "missing.db");
		free(cmd);
		free(out);
		cmd = kjit__strdup_printf("'%s' '%s' --replay db:%s", tool, spec->path, missing);
		CHECK(run_cmd(cmd, &out) == 1);
		free(cmd);
		free(out);
		CHECK(!tu_exists(missing));
		OK("kjit-tune --export and --replay db:PATH / --replay-db");
	}

	sqlite3_close(db);
	for (size_t i = 0; i < space->size; i++)
		free(cfg[i]);
	free(cfg0);
	free(prob);
	free(prob1);
	free(sig);
	kjit__space_free(space);
	kjit__space_free(space1);
	kjit__spec_free(spec);
	return 0;
}
