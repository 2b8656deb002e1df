/*
 * test-gpu-mpi: kjit-tune --mpi on the GPU, with real ranks: rank 0 owns
 * the run and measures nowhere (--devices none, through mpirun's MPMD
 * form), rank 1 measures on its GPU with a database of its own. A
 * budgeted tune of examples/saxpy: every result is rank 1's worker's (the
 * --json summary's workers name it), recorded in rank 0's database for
 * rank 1's device; every binary measured is in rank 1's database (it
 * compiled it, or rank 0 shipped it). Skips (77) without a GPU, a
 * kjit-tune built --with-mpi or mpirun.
 */
#include "testutil.h"

#include "mpirun.h"

#define BUDGET 12

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	tu_require_mpi();
	tu_require_gpu();
	char tool[TU_PATH], spec[TU_PATH], db0[TU_PATH], db1[TU_PATH], out[TU_PATH], err[TU_PATH];
	tu_kjit_tune(tool);
	char *abs = realpath(tool, NULL);
	CHECK(abs != NULL);
	snprintf(tool, sizeof tool, "%s", abs);
	free(abs);
	const char *dir = tu_tmpdir();
	tu_path(spec, tu_srcdir(), "examples/saxpy/saxpy.json");
	tu_path(db0, dir, "rank0.db");
	tu_path(db1, dir, "rank1.db");
	tu_path(out, dir, "t.out");
	tu_path(err, dir, "t.err");
	const char *args[] = { "-n", "1", tool, spec, "--mpi", "--devices", "none", "--db", db0,
		               "--strategy", "random", "--budget", "12", "--seed", "1", "--early-stop", "0",
		               "--json", ":",
		               "-n", "1", tool, spec, "--mpi", "--db", db1, "-j", "1", NULL };
	int rc = tu_wait(tu_mpirun_start(out, err, args));
	char *o = tu_read_file(out, NULL), *e = tu_read_file(err, NULL);
	CHECK_MSG(rc == 0, "mpirun exit %d:\n%s\n%s", rc, o, e);
	CHECK_CONTAINS(e, "; measures on device 0 (");
	CHECK_MSG(strcmp(tu_json_get(o, "$.workers[0].name"), "rank 1 device 0") == 0 &&
	          strcmp(tu_json_get(o, "$.workers[1].name"), "(null)") == 0, "%s", o);
	CHECK_MSG(tu_json_int(o, "$.workers[0].evaluated") == BUDGET &&
	          tu_json_int(o, "$.problems[0].evaluated") == BUDGET, "%s", o);
	OK("mpirun -n 2, rank 0 --devices none: the %d evaluations are rank 1's worker's", BUDGET);

	char device[512];
	snprintf(device, sizeof device, "%s", tu_json_get(o, "$.device_key"));
	sqlite3 *a = tu_db_open(db0), *b = tu_db_open(db1);
	CHECK(tu_db_int(a, "SELECT count(*) FROM results WHERE device_key = ?1 AND status = 'ok'",
	                device) == BUDGET);
	sqlite3_stmt *s = NULL;
	CHECK_SQL(a, sqlite3_prepare_v2(a, "SELECT binary_key FROM results", -1, &s, NULL),
	          SQLITE_OK);
	int n = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(s, 0);
		CHECK_MSG(key && tu_db_has_binary(b, key), "binary %s not in rank 1's database",
		          key ? key : "(none)");
		n++;
	}
	sqlite3_finalize(s);
	CHECK(n == BUDGET);
	tu_db_close(a);
	tu_db_close(b);
	OK("rank 0's database: %d results for %s; rank 1's has every binary it measured", n,
	   device);
	free(o);
	free(e);
	return 0;
}
