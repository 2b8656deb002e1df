/*
 * test-tune-mpi: kjit-tune --mpi on the CPU, with real MPI ranks (mpirun,
 * Open MPI), real NVRTC and real databases, no GPU:
 *  1. mpirun -n 3 --compile-only of a T1 spec (examples/saxpy/saxpy-t1.json,
 *     40 variants), rank 0 on its --db, ranks 1 and 2 on their default
 *     ($TMPDIR/kjit-UID/mpi.db): the --json summary counts compiles on at
 *     least two ranks; rank 0's database holds all 40 binaries, each
 *     blob's checksum recomputed, the other ranks' included; a second run
 *     finds all 40 cached;
 *  2. rank 2 SIGKILLed mid-run under --enable-recovery: rank 0 exits 0,
 *     says rank 2 was lost, and its database holds every binary of
 *     reduction's 118, those stored before the kill among them; rank 2's
 *     jobs were done by the others;
 *  3. --mpi with --count is a usage error.
 */
#include "testutil.h"

#include <signal.h>

#include "base.h" /* kjit__hash, kjit__hash_hex: the store's checksum */
#include "mpirun.h"

static char tool[TU_PATH];
static const char *dir;

/* The keys of db's binaries, sorted, comma-separated (malloc'ed; "" for
 * no file yet); with check, every blob's checksum is recomputed and the
 * count must be want. */
static char *binaries(const char *path, int check, long long want)
{
	kjit__buf keys = { 0 };
	sqlite3 *db = NULL;
	long long n = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(db, 5000);
		sqlite3_stmt *s = NULL;
		if (sqlite3_prepare_v2(db, "SELECT key, checksum, size, cubin FROM binaries"
		                           " ORDER BY key", -1, &s, NULL) == SQLITE_OK)
			while (sqlite3_step(s) == SQLITE_ROW) {
				const void *cubin = sqlite3_column_blob(s, 3);
				size_t size = (size_t)sqlite3_column_bytes(s, 3);
				const char *key = (const char *)sqlite3_column_text(s, 0);
				char sum[33];
				kjit__hash_hex(kjit__hash(cubin, size, 0x6b6a6974u), sum);
				CHECK_MSG(!check || strcmp(sum, (const char *)sqlite3_column_text(s, 1)) == 0,
				          "binary %s: checksum %s, stored %s", key, sum,
				          sqlite3_column_text(s, 1));
				CHECK(!check || (sqlite3_column_int64(s, 2) == (long long)size &&
				                 tu_is_cuda_elf(cubin, size)));
				kjit__buf_str(&keys, key);
				kjit__buf_str(&keys, ",");
				n++;
			}
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	CHECK_MSG(!check || n == want, "%s: %lld binaries, wanted %lld", path, n, want);
	char *text = kjit__buf_done(&keys);
	CHECK(text != NULL);
	return text;
}

/* 1 when every key of the list sub is in the list all. */
static int keys_within(const char *sub, const char *all)
{
	for (const char *k = sub; *k; k += 33)
		if (!memmem(all, strlen(all), k, 33))
			return 0;
	return 1;
}

static int64_t num(const kjit__json *obj, const char *key)
{
	int64_t v = -1;
	CHECK_MSG(kjit__json_int(kjit__json_get(obj, key), &v) == 1, "no number %s", key);
	return v;
}

/* The --json summary's only target; *doc to free. */
static const kjit__json *target_of(const char *out, kjit__json **doc)
{
	char *text = tu_read_file(out, NULL);
	CHECK_MSG(kjit__json_parse(text, strlen(text), out, doc) == KJIT_OK, "%s", text);
	free(text);
	const kjit__json *t = kjit__json_get(*doc, "targets");
	CHECK(t && t->type == KJIT__JSON_ARRAY && t->n == 1);
	return &t->items[0];
}

/* Rank 0's exit status, which its wrapper wrote (mpirun --enable-recovery
 * exits 0 whatever the ranks do). */
static int rank0_status(const char *status)
{
	char *text = tu_read_file(status, NULL);
	int rc = atoi(text);
	free(text);
	return rc;
}

static void test_compile(void)
{
	char spec[TU_PATH], db[TU_PATH], out[TU_PATH], err[TU_PATH], mine[TU_PATH];
	tu_path(spec, tu_srcdir(), "examples/saxpy/saxpy-t1.json");
	tu_path(db, dir, "rank0.db");
	tu_path(out, dir, "c.out");
	tu_path(err, dir, "c.err");
	snprintf(mine, sizeof mine, "%s/kjit-%ld/mpi.db", dir, (long)getuid());
	const char *args[] = { "-n", "1", tool, spec, "--mpi", "--compile-only", "--arch", "sm_90",
		               "--db", db, "-j", "1", "--json", ":", "-n", "2", tool, spec,
		               "--mpi", "-j", "1", NULL };
	CHECK(setenv("TMPDIR", dir, 1) == 0);
	for (int pass = 0; pass < 2; pass++) {
		int rc = tu_wait(tu_mpirun_start(out, err, args));
		char *e = tu_read_file(err, NULL);
		CHECK_MSG(rc == 0, "mpirun exit %d: %s", rc, e);
		CHECK_CONTAINS(e, "kjit-tune: rank 1 on ");
		CHECK_CONTAINS(e, "kjit-tune: rank 2 on ");
		free(e);
		kjit__json *doc;
		const kjit__json *t = target_of(out, &doc);
		CHECK(num(t, "variants") == 40 && num(t, "failed") == 0);
		const kjit__json *ranks = kjit__json_get(t, "ranks");
		CHECK(ranks && ranks->type == KJIT__JSON_ARRAY && ranks->n == 3);
		int64_t jobs = 0, compiled = 0, busy = 0;
		for (size_t r = 0; r < 3; r++) {
			CHECK(num(&ranks->items[r], "rank") == (int64_t)r);
			jobs += num(&ranks->items[r], "jobs");
			compiled += num(&ranks->items[r], "compiled");
			busy += num(&ranks->items[r], "compiled") > 0;
		}
		CHECK_MSG(jobs == 40, "%lld jobs", (long long)jobs);
		if (pass == 0) {
			CHECK(num(t, "compiled") == 40 && compiled == 40);
			CHECK_MSG(busy >= 2, "compiles on %lld ranks", (long long)busy);
			OK("mpirun -n 3 --compile-only: 40 compiles over %lld ranks (%lld, %lld, %lld)",
			   (long long)busy, (long long)num(&ranks->items[0], "compiled"),
			   (long long)num(&ranks->items[1], "compiled"),
			   (long long)num(&ranks->items[2], "compiled"));
		} else {
			CHECK(num(t, "compiled") == 0 && num(t, "cached") == 40 && compiled == 0);
			OK("the second run: all 40 cached");
		}
		kjit__json_free(doc);
	}
	char *all = binaries(db, 1, 40), *theirs = binaries(mine, 0, 0);
	CHECK_MSG(*theirs && keys_within(theirs, all), "ranks 1 and 2: %s", theirs);
	OK("rank 0's database: 40 binaries, each checksum its blob's, the %zu the other ranks "
	   "compiled in %s among them", strlen(theirs) / 33, mine);
	free(all);
	free(theirs);
}

static void test_killed_rank(void)
{
	char spec[TU_PATH], db[3][TU_PATH], out[TU_PATH], err[TU_PATH], status[TU_PATH],
	        wrap[TU_PATH + 64];
	tu_path(spec, tu_srcdir(), "examples/reduction/reduction.json");
	for (int r = 0; r < 3; r++) {
		char name[16];
		snprintf(name, sizeof name, "k%d.db", r);
		tu_path(db[r], dir, name);
	}
	tu_path(out, dir, "k.out");
	tu_path(err, dir, "k.err");
	tu_path(status, dir, "k.status");
	snprintf(wrap, sizeof wrap, "\"$0\" \"$@\"; echo $? > %s", status);
	const char *args[] = { "--enable-recovery", "-n", "1", "sh", "-c", wrap, tool, spec,
		               "--mpi", "--mpi-timeout", "3", "--compile-only", "--arch", "sm_90",
		               "--db", db[0], "-j", "1", "--json", ":", "-n", "1", tool, spec,
		               "--mpi", "-j", "1", "--db", db[1], ":", "-n", "1", tool, spec, "--mpi",
		               "-j", "1", "--db", db[2], NULL };
	pid_t pid = tu_mpirun_start(out, err, args);
	char *before = NULL, *theirs = NULL;
	/* once rank 2 has compiles of its own and rank 0 has stored some */
	for (double t0 = tu_now();; usleep(20000)) {
		CHECK_MSG(tu_now() - t0 < 120, "no compiles after 120 s");
		free(before);
		free(theirs);
		before = binaries(db[0], 0, 0);
		theirs = binaries(db[2], 0, 0);
		if (strlen(before) >= 10 * 33 && strlen(theirs) >= 2 * 33)
			break;
	}
	pid_t victim = tu_rank_pid(tool, db[2]);
	CHECK_MSG(victim > 0, "rank 2 (--db %s) not found", db[2]);
	CHECK(kill(victim, SIGKILL) == 0);
	int rc = tu_wait(pid);
	char *e = tu_read_file(err, NULL);
	CHECK_MSG(rc == 0 && rank0_status(status) == 0, "mpirun %d, rank 0 %d: %s", rc,
	          rank0_status(status), e);
	CHECK_CONTAINS(e, "rank 2 was lost: no message in 3 s; its compiles go to the other "
	                  "workers");
	kjit__json *doc;
	const kjit__json *t = target_of(out, &doc);
	CHECK(num(t, "variants") == 118 && num(t, "failed") == 0 &&
	      num(t, "compiled") + num(t, "cached") == 118);
	const kjit__json *ranks = kjit__json_get(t, "ranks");
	CHECK(ranks && ranks->n == 3);
	int64_t j0 = num(&ranks->items[0], "jobs"), j1 = num(&ranks->items[1], "jobs"),
	        j2 = num(&ranks->items[2], "jobs");
	CHECK_MSG(j0 + j1 + j2 == 118 && j2 < 118 && j0 + j1 > 0, "jobs %lld %lld %lld",
	          (long long)j0, (long long)j1, (long long)j2);
	char *all = binaries(db[0], 1, 118);
	CHECK(keys_within(before, all));
	OK("rank 2 killed after %zu binaries stored: rank 0 exits 0, all 118 binaries in its "
	   "database with their checksums, %lld jobs of rank 2's and %lld of the others",
	   strlen(before) / 33, (long long)j2, (long long)(j0 + j1));
	kjit__json_free(doc);
	free(all);
	free(before);
	free(theirs);
	free(e);
}

static void test_usage(void)
{
	char cmd[3 * TU_PATH], text[4096];
	snprintf(cmd, sizeof cmd, "'%s' '%s/examples/saxpy/saxpy.json' --mpi --count 2>&1", tool,
	         tu_srcdir());
	CHECK(tu_run(cmd, text, sizeof text) == 2);
	CHECK_CONTAINS(text, "--mpi goes with tuning and --compile-only, not --count");
	OK("--mpi --count: a usage error");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	tu_require_mpi();
	tu_kjit_tune(tool);
	dir = tu_tmpdir();
	/* the ranks find the tool by this path: an absolute one */
	char *abs = realpath(tool, NULL);
	CHECK(abs != NULL);
	snprintf(tool, sizeof tool, "%s", abs);
	free(abs);
	test_usage();
	test_compile();
	test_killed_rank();
	return 0;
}
