/*
 * test-gpu-cworkers: a tuning run with the compile pool as worker
 * processes gives what it gives with threads. examples/saxpy and
 * tests/tune-faults.json, each tuned twice (exhaustive, which compiles a
 * window ahead) into a fresh database (--compile-pool threads -j 4, then
 * processes -j 4): the same
 * configurations with the same statuses and binary keys, the best within
 * 15% of each other, a compile error's NVRTC message through the pipe,
 * and the --json summary's pool, wait and window.
 * Skips (77) without a GPU.
 */
#include "testutil.h"

#include <math.h>

static char tool[TU_PATH];
static const char *dir;

/* Tunes spec (a path under the source tree) with the pool mode into
 * NAME-MODE.db; the --json summary (malloc'ed) and the database path. */
static char *tune(const char *rel, const char *name, const char *mode, const char *extra,
                  char *db)
{
	char spec[TU_PATH], file[128], cmd[4 * TU_PATH];
	static char buf[1 << 16];
	tu_path(spec, tu_srcdir(), rel);
	snprintf(file, sizeof file, "%s-%s.db", name, mode);
	tu_path(db, dir, file);
	snprintf(cmd, sizeof cmd, "'%s' '%s' --json --quiet --strategy exhaustive --compile-pool %s"
	         " -j 4 %s --db '%s'", tool, spec, mode, extra, db);
	printf("$ %s\n", cmd);
	fflush(stdout);
	int rc = tu_run(cmd, buf, sizeof buf);
	printf("%s", buf);
	CHECK_MSG(rc == 0, "exit %d", rc);
	CHECK_STREQ(tu_json_get(buf, "$.compile.pool"), mode);
	CHECK(tu_json_int(buf, "$.compile.workers") == 4);
	double wait = atof(tu_json_get(buf, "$.problems[0].time.compile_wait_s"));
	double wall = atof(tu_json_get(buf, "$.problems[0].wall_s"));
	CHECK_MSG(wait >= 0 && wait <= wall, "compile_wait_s %g of wall_s %g", wait, wall);
	CHECK(tu_json_int(buf, "$.problems[0].window_max") >= 8);
	return strdup(buf);
}

/* Every result of db as "config status key" lines, ordered (static). */
static const char *results_of(const char *path)
{
	static char out[2][1 << 15];
	static int which;
	char *o = out[which ^= 1];
	sqlite3 *db = tu_db_open(path);
	tu_db_text(db, "SELECT group_concat(line, char(10)) FROM (SELECT config || ' ' || status ||"
	               " ' ' || ifnull(binary_key, '-') AS line FROM results ORDER BY config, l2)",
	           NULL, o, sizeof out[0]);
	tu_db_close(db);
	return o;
}

static void same_results(const char *rel, const char *name, const char *extra, int n)
{
	char tdb[TU_PATH], pdb[TU_PATH];
	char *t = tune(rel, name, "threads", extra, tdb);
	char *p = tune(rel, name, "processes", extra, pdb);
	CHECK(tu_json_int(t, "$.problems[0].evaluated") == n);
	CHECK(tu_json_int(p, "$.problems[0].evaluated") == n);
	const char *rt = results_of(tdb), *rp = results_of(pdb);
	CHECK_MSG(strcmp(rt, rp) == 0, "threads:\n%s\nprocesses:\n%s", rt, rp);
	double bt = atof(tu_json_get(t, "$.problems[0].best.median_ns"));
	double bp = atof(tu_json_get(p, "$.problems[0].best.median_ns"));
	CHECK_MSG(bt > 0 && bp > 0 && fabs(bp - bt) <= 0.15 * bt, "best %g ns with threads, %g "
	          "with processes", bt, bp);
	free(t);
	free(p);
	OK("%s: %d configurations, the same statuses and binaries with threads and processes; "
	   "best %.0f and %.0f ns", name, n, bt, bp);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	tu_require_gpu();
	tu_kjit_tune(tool);
	dir = tu_tmpdir();
	same_results("examples/saxpy/saxpy.json", "saxpy", "--early-stop 0", 40);
	same_results("tests/tune-faults.json", "faults", "--timeout 2", 6);
	char db[TU_PATH];
	tu_path(db, dir, "faults-processes.db");
	sqlite3 *d = tu_db_open(db);
	CHECK(tu_db_int(d, "SELECT count(*) FROM results WHERE status = 'compile_error' AND"
	                   " message LIKE '%MODE 5 does not compile%'", NULL) == 1);
	tu_db_close(d);
	OK("faults with processes: the compile error's NVRTC message came through the pipe");
	return 0;
}
