/*
 * test-gpu-tune: kjit-tune tuning on the GPU, as a user runs it, into a
 * fresh database:
 *  1. examples/saxpy: all 40 variants ok, the best recorded; a second run
 *     resumes with 0 evaluated; --force --budget 2 evaluates 2 again; a
 *     run stopped by SIGINT exits 130, is marked interrupted and keeps
 *     what it measured.
 *  2. tests/tune-faults.json: one variant per failure (a fault, a hang
 *     under --timeout 2, a launch with too many registers, a wrong
 *     result, a compile error) next to the correct one: the run completes, each gets its
 *     exact status, and the best is the correct variant.
 *  3. tests/tune-reference.json: verification against a reference kernel,
 *     warm and cold L2.
 *  4. tests/tune-race.json: racing. The fastest configuration, measured
 *     first, is measured to its interval; two 3x and 4x slower lose
 *     after their first timed sample (1 or 2 stored).
 * Skips (77) without a GPU.
 */
#include "testutil.h"

#include <math.h>
#include <signal.h>

static char tool[TU_PATH], db[TU_PATH];

/* Runs kjit-tune with args, stdout into *out (static), stderr to ours. */
static int tune(const char *args, const char **out)
{
	static char buf[1 << 16];
	char cmd[4 * TU_PATH];
	snprintf(cmd, sizeof cmd, "'%s' %s --db '%s'", tool, args, db);
	printf("$ kjit-tune %s\n", args);
	fflush(stdout);
	int code = tu_run(cmd, buf, sizeof buf);
	printf("%s", buf);
	*out = buf;
	return code;
}

static void spec_path(char *out, const char *rel)
{
	tu_path(out, tu_srcdir(), rel);
}

static void test_saxpy(void)
{
	char spec[TU_PATH], args[2 * TU_PATH];
	const char *out;
	spec_path(spec, "examples/saxpy/saxpy.json");
	snprintf(args, sizeof args, "'%s' --json --quiet --early-stop 0", spec);
	CHECK(tune(args, &out) == 0);
	CHECK(tu_json_int(out, "$.problems[0].space") == 40);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 40);
	CHECK(tu_json_int(out, "$.problems[0].statuses.ok") == 40);
	CHECK(strcmp(tu_json_get(out, "$.interrupted"), "0") == 0);
	CHECK(strncmp(tu_json_get(out, "$.arch"), "sm_", 3) == 0);
	double median = atof(tu_json_get(out, "$.problems[0].best.median_ns"));
	double gbps = atof(tu_json_get(out, "$.problems[0].best.gbps"));
	CHECK(median > 0 && gbps > 0);
	CHECK(fabs(gbps - 12.0 * 67108864 / median) < 1e-6 * gbps);
	sqlite3 *d;
	CHECK(sqlite3_open(db, &d) == SQLITE_OK);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status = 'ok'", NULL) == 40);
	CHECK(tu_db_int(d, "SELECT count(*) FROM best b JOIN results r ON r.id = b.result_id"
	                   " WHERE r.status = 'ok' AND b.median_ns = r.median_ns AND"
	                   " b.median_ns = (SELECT min(median_ns) FROM results)", NULL) == 1);
	CHECK(tu_db_int(d, "SELECT count(*) FROM runs WHERE status = 'done'", NULL) == 1);
	OK("saxpy: 40 variants ok, best %.0f ns (%.0f GB/s) recorded", median, gbps);

	CHECK(tune(args, &out) == 0);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 0);
	CHECK(tu_json_int(out, "$.problems[0].skipped") == 40);
	CHECK(atof(tu_json_get(out, "$.problems[0].best.median_ns")) == median);
	OK("a second run resumes: 0 evaluated, 40 skipped, the same best");

	snprintf(args, sizeof args, "'%s' --json --quiet --force --budget 2 --early-stop 0", spec);
	CHECK(tune(args, &out) == 0);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 2);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results", NULL) == 40);
	CHECK(tu_db_int(d, "SELECT count(*) FROM best b JOIN results r ON r.id = b.result_id"
	                   " WHERE r.status = 'ok' AND b.median_ns = r.median_ns AND"
	                   " b.median_ns = (SELECT min(median_ns) FROM results"
	                   " WHERE status = 'ok')", NULL) == 1);
	OK("--force --budget 2 evaluates 2 again; the best row still matches the results");

	/* SIGINT in the middle of a forced run, once it has evaluated two
	 * configurations; a 200 ms warm-up per measurement keeps the other 38
	 * from finishing first */
	char outpath[TU_PATH + 8];
	snprintf(outpath, sizeof outpath, "%s.out", db);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execl(tool, "kjit-tune", spec, "--json", "--quiet", "--force", "--early-stop", "0",
		      "--warmup", "200", "--db", db, (char *)NULL);
		_exit(127);
	}
	const char *progress = "SELECT count(*) FROM runs WHERE status = 'running' AND evaluated >= 2";
	for (int i = 0; i < 1200 && tu_db_int(d, progress, NULL) == 0; i++)
		usleep(50000);
	CHECK_MSG(tu_db_int(d, progress, NULL) == 1, "the forced run never got to 2 evaluations");
	CHECK(kill(pid, SIGINT) == 0);
	int status;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status 0x%x", status);
	size_t len;
	char *text = tu_read_file(outpath, &len);
	printf("%s", text);
	CHECK(strcmp(tu_json_get(text, "$.interrupted"), "1") == 0);
	long done = tu_json_int(text, "$.problems[0].evaluated");
	CHECK(done < 40);
	free(text);
	CHECK(tu_db_int(d, "SELECT status = 'interrupted' FROM runs ORDER BY id DESC LIMIT 1", NULL) ==
	      1);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status = 'ok'", NULL) == 40);
	sqlite3_close(d);
	OK("SIGINT: exit 130, the run marked interrupted after %ld evaluations, results kept",
	   done);
}

static void test_faults(void)
{
	char spec[TU_PATH], args[2 * TU_PATH];
	const char *out;
	spec_path(spec, "tests/tune-faults.json");
	snprintf(args, sizeof args, "'%s' --json --timeout 2", spec);
	CHECK(tune(args, &out) == 0);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 6);
	CHECK(tu_json_int(out, "$.problems[0].statuses.ok") == 1);
	CHECK(tu_json_int(out, "$.problems[0].statuses.compile_error") == 1);
	CHECK(tu_json_int(out, "$.problems[0].statuses.crashed") == 1);
	CHECK(tu_json_int(out, "$.problems[0].statuses.timeout") == 1);
	CHECK(tu_json_int(out, "$.problems[0].statuses.launch_error") == 1);
	CHECK(tu_json_int(out, "$.problems[0].statuses.wrong_result") == 1);
	CHECK(tu_json_int(out, "$.problems[0].best.config.MODE") == 0);
	sqlite3 *d;
	CHECK(sqlite3_open(db, &d) == SQLITE_OK);
	static const char *const want[][2] = {
		{ "0", "ok" }, { "1", "crashed" }, { "2", "timeout" }, { "3", "launch_error" },
		{ "4", "wrong_result" }, { "5", "compile_error" },
	};
	for (int i = 0; i < 6; i++) {
		char q[512];
		snprintf(q, sizeof q, "SELECT count(*) FROM results WHERE"
		         " json_extract(config, '$.MODE') = %s AND status = '%s'", want[i][0],
		         want[i][1]);
		CHECK_MSG(tu_db_int(d, q, NULL) == 1, "MODE %s is not %s", want[i][0], want[i][1]);
	}
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status <> 'ok' AND"
	                   " (median_ns IS NOT NULL OR objective IS NOT NULL)", NULL) == 0);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status = 'crashed' AND"
	                   " message LIKE '%CUDA_ERROR_ILLEGAL_ADDRESS%'", NULL) == 1);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status = 'launch_error' AND"
	                   " message LIKE '%CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES%'", NULL) == 1);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status = 'compile_error' AND"
	                   " message LIKE '%MODE 5 does not compile%'", NULL) == 1);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status = 'wrong_result' AND"
	                   " message LIKE 'y[0] = %, expected %'", NULL) == 1);
	CHECK(tu_db_int(d, "SELECT json_extract(config, '$.MODE') FROM best WHERE"
	                   " signature = (SELECT signature FROM runs WHERE kernel = 'faults')",
	                NULL) == 0);
	sqlite3_close(d);
	OK("faults: ok, crashed, timeout, launch_error, wrong_result, compile_error; the best is "
	   "MODE 0");
}

/* verify.against "reference": the reference kernel's output decides, not
 * the default configuration's (MODE 4, wrong, is the default here); with
 * --l2 both each configuration is measured warm and cold. */
static void test_reference(void)
{
	char spec[TU_PATH], args[2 * TU_PATH];
	const char *out;
	spec_path(spec, "tests/tune-reference.json");
	/* the same kernel (signature) and problem as tune-faults.json: its
	 * results would be skipped, so another database */
	char *slash = strrchr(db, '/');
	snprintf(slash + 1, sizeof db - (size_t)(slash + 1 - db), "reference.db");
	snprintf(args, sizeof args, "'%s' --json --l2 both", spec);
	CHECK(tune(args, &out) == 0);
	CHECK(tu_json_int(out, "$.problems[0].evaluated") == 2);
	CHECK(tu_json_int(out, "$.problems[0].statuses.ok") == 2);
	CHECK(tu_json_int(out, "$.problems[0].statuses.wrong_result") == 2);
	CHECK(tu_json_int(out, "$.problems[0].best.config.MODE") == 0);
	sqlite3 *d;
	CHECK(sqlite3_open(db, &d) == SQLITE_OK);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status = 'ok' AND"
	                   " json_extract(config, '$.MODE') = 0 AND l2 IN ('warm', 'cold') AND"
	                   " run_id = (SELECT max(id) FROM runs)", NULL) == 2);
	sqlite3_close(d);
	OK("verify against a reference kernel; --l2 both gives a warm and a cold row");
}

/* The n_samples of the REPEAT r row of the last run. */
static long long race_samples(sqlite3 *d, int r)
{
	char q[256];
	snprintf(q, sizeof q, "SELECT n_samples FROM results WHERE"
	         " json_extract(config, '$.REPEAT') = %d AND run_id = (SELECT max(id) FROM runs)",
	         r);
	return tu_db_int(d, q, NULL);
}

static void test_race(void)
{
	char spec[TU_PATH], args[2 * TU_PATH];
	const char *out;
	spec_path(spec, "tests/tune-race.json");
	char *slash = strrchr(db, '/');
	snprintf(slash + 1, sizeof db - (size_t)(slash + 1 - db), "race.db");
	sqlite3 *d;
	double timed[2];
	for (int racing = 1; racing >= 0; racing--) {
		/* exhaustive's shuffle for seed 7 measures the best first */
		snprintf(args, sizeof args, "'%s' --json --quiet --force --seed 7%s", spec,
		         racing ? "" : " --early-stop 0");
		CHECK(tune(args, &out) == 0);
		CHECK(tu_json_int(out, "$.problems[0].evaluated") == 3);
		CHECK(tu_json_int(out, "$.problems[0].best.config.REPEAT") == 1);
		timed[racing] = atof(tu_json_get(out, "$.problems[0].time.timed_s"));
		CHECK(sqlite3_open(db, &d) == SQLITE_OK);
		CHECK_MSG(tu_db_int(d, "SELECT json_extract(config, '$.REPEAT') FROM results WHERE "
		                    "run_id = (SELECT max(id) FROM runs) ORDER BY rowid LIMIT 1",
		                    NULL) == 1, "seed 7 no longer measures REPEAT 1 first");
		long long n1 = race_samples(d, 1), n3 = race_samples(d, 3), n4 = race_samples(d, 4);
		printf("  %s: n_samples %lld, %lld, %lld for REPEAT 1, 3, 4; timed %.3f ms, "
		       "measure_s %s\n", racing ? "racing" : "no early stop", n1, n3, n4,
		       timed[racing] * 1e3, tu_json_get(out, "$.problems[0].measure_s"));
		CHECK(n1 >= 6);
		if (racing) {
			CHECK(tu_json_int(out, "$.problems[0].statuses.ok") == 1);
			CHECK(tu_json_int(out, "$.problems[0].statuses.stopped_early") == 2);
			CHECK_MSG(n3 >= 1 && n3 <= 2 && n4 >= 1 && n4 <= 2,
			          "3x and 4x the best: %lld and %lld samples", n3, n4);
		} else {
			CHECK(tu_json_int(out, "$.problems[0].statuses.ok") == 3);
			CHECK(n3 >= 6 && n4 >= 6);
		}
		sqlite3_close(d);
	}
	OK("racing: 3x and 4x the best stop after 1-2 samples (timed phase %.3f ms, %.3f ms "
	   "without early stop)", timed[1] * 1e3, timed[0] * 1e3);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	tu_require_gpu();
	tu_kjit_tune(tool);
	const char *dir = tu_tmpdir();
	tu_path(db, dir, "tune.db");
	if (argc < 2 || strcmp(argv[1], "faults") != 0)
		test_saxpy();
	if (argc < 2 || strcmp(argv[1], "saxpy") != 0) {
		test_faults();
		test_reference();
		test_race();
	}
	return 0;
}
