/*
 * test-cache-concurrent: several processes fill one database at once.
 *
 * Before any kjit call, the parent forks 4 children; each opens its own
 * engine on the same (new) database file and gets the same 16 saxpy
 * variants, each child in another order, one at a time and then as a
 * batch. Every child exits 0 (every variant obtained, compiled or found on
 * disk, never corrupt). Afterwards the binaries table has exactly 16 rows,
 * and a fresh engine gets all 16 from the disk with no compile.
 *
 * Then an open storm: 10 rounds of 8 processes released together (a pipe
 * closing) that open a new database file at the same moment; every open
 * must succeed (the first creates the schema, the others wait for it).
 */
#include "testutil.h"

#define CHILDREN 4
#define N 16

static void variant_of(tu_saxpy_variant *v, int i)
{
	/* BLOCK_SIZE 64..512 x ITEMS_PER_THREAD 1..4 */
	tu_saxpy_variant_init(v, 64 << (i / 4), i % 4 + 1);
}

static int child(int id, const char *db)
{
	char name[64];
	snprintf(name, sizeof name, "test-cache-concurrent(child %d)", id);
	tu_init(0, (char *[]){ name, NULL });
	kjit_engine *e = tu_engine_cpu(db, "sm_90", 1);
	kjit_kernel *k = tu_saxpy_kernel(e);
	int compiled = 0, disk = 0;
	/* Half of each child's variants one by one, in its own order... */
	for (int t = 0; t < N / 2; t++) {
		int i = (t * 5 + id * 4) % N;
		tu_saxpy_variant sv;
		variant_of(&sv, i);
		kjit_variant *v = NULL;
		kjit_cache_tier tier;
		CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
		CHECK(tier == KJIT_TIER_COMPILED || tier == KJIT_TIER_DISK);
		compiled += tier == KJIT_TIER_COMPILED;
		disk += tier == KJIT_TIER_DISK;
	}
	/* ...then all 16 as a batch, in reverse order. */
	tu_saxpy_variant sv[N];
	kjit_variant_desc descs[N];
	for (int i = 0; i < N; i++) {
		variant_of(&sv[i], N - 1 - i);
		descs[i] = sv[i].desc;
	}
	kjit_variant *out[N];
	kjit_status status[N];
	CHECK_OK(kjit_variants_get(k, descs, N, 1, out, status, NULL));
	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.corrupt, 0);
	CHECK_EQ_U64(s.compiles + s.disk_hits, N);
	CHECK_EQ_U64(s.memory_hits, N / 2);
	printf("  child %d: %llu compiles, %llu disk hits (%d and %d one by one)\n", id,
	       (unsigned long long)s.compiles, (unsigned long long)s.disk_hits, compiled, disk);
	kjit_engine_close(e);
	return 0;
}

#define STORM_ROUNDS 10
#define STORM_PROCS 8

/* Waits for the parent to close the pipe, then opens the database. */
static int storm_child(int round, int id, int go_fd, const char *db)
{
	char name[64], c;
	snprintf(name, sizeof name, "test-cache-concurrent(storm %d.%d)", round, id);
	tu_init(0, (char *[]){ name, NULL });
	while (read(go_fd, &c, 1) < 0 && errno == EINTR)
		;
	close(go_fd);
	kjit_engine *e = tu_engine_cpu(db, "sm_90", 1);
	kjit_engine_close(e);
	return 0;
}

/* Returns the number of opens that failed. */
static int open_storm(const char *dir)
{
	int failed = 0;
	for (int r = 0; r < STORM_ROUNDS; r++) {
		char db[TU_PATH], name[64];
		snprintf(name, sizeof name, "storm-%d/kjit.db", r);
		tu_path(db, dir, name);
		int go[2];
		CHECK(pipe(go) == 0);
		pid_t pids[STORM_PROCS];
		fflush(NULL);
		for (int c = 0; c < STORM_PROCS; c++) {
			pids[c] = fork();
			if (pids[c] < 0)
				TU_FAIL("fork: %s", strerror(errno));
			if (pids[c] == 0) {
				close(go[1]);
				int rc = storm_child(r, c, go[0], db);
				fflush(NULL);
				_exit(rc);
			}
		}
		close(go[0]);
		close(go[1]); /* go */
		for (int c = 0; c < STORM_PROCS; c++)
			if (tu_wait(pids[c]) != 0)
				failed++;
	}
	if (failed == 0)
		OK("open storm: %d rounds of %d processes opening a new database at once, all "
		   "succeeded", STORM_ROUNDS, STORM_PROCS);
	else
		fprintf(stderr, "open storm: %d of %d simultaneous opens of a new database "
		        "failed (their messages are above)\n", failed, STORM_ROUNDS * STORM_PROCS);
	return failed;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH];
	tu_path(db, dir, "shared/kjit.db");

	/* Fork first: no kjit state (driver, NVRTC, threads) in the parent. */
	pid_t pids[CHILDREN];
	fflush(NULL);
	for (int c = 0; c < CHILDREN; c++) {
		pids[c] = fork();
		if (pids[c] < 0)
			TU_FAIL("fork: %s", strerror(errno));
		if (pids[c] == 0) {
			int rc = child(c, db);
			fflush(NULL);
			_exit(rc);
		}
	}
	int failed = 0;
	for (int c = 0; c < CHILDREN; c++) {
		int rc = tu_wait(pids[c]);
		if (rc != 0) {
			fprintf(stderr, "child %d exited with %d\n", c, rc);
			failed++;
		}
	}
	/* The storm runs either way, so that both phases report. */
	int storm_failed = open_storm(dir);
	CHECK_MSG(failed == 0, "%d of %d children failed", failed, CHILDREN);
	CHECK_MSG(storm_failed == 0, "the open storm failed");
	OK("%d processes opened the same new database and got the same %d variants", CHILDREN,
	   N);

	sqlite3 *s = tu_db_open(db);
	CHECK(tu_db_int(s, "SELECT count(*) FROM binaries", NULL) == N);
	CHECK(tu_db_int(s, "SELECT count(DISTINCT key) FROM binaries", NULL) == N);
	CHECK(tu_db_int(s, "SELECT count(*) FROM kernels", NULL) == 1);
	CHECK(tu_db_int(s, "PRAGMA user_version", NULL) == KJIT__SCHEMA_VERSION);
	char ok[64];
	tu_db_text(s, "PRAGMA integrity_check", NULL, ok, sizeof ok);
	CHECK_STREQ(ok, "ok");
	tu_db_close(s);
	OK("binaries has exactly %d rows, kernels 1, integrity_check ok", N);

	kjit_engine *e = tu_engine_cpu(db, "sm_90", 1);
	kjit_kernel *k = tu_saxpy_kernel(e);
	for (int i = 0; i < N; i++) {
		tu_saxpy_variant sv;
		variant_of(&sv, i);
		kjit_variant *v = NULL;
		kjit_cache_tier tier;
		CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
		CHECK(tier == KJIT_TIER_DISK);
	}
	kjit_engine_stats st = tu_stats(e);
	CHECK_EQ_U64(st.disk_hits, N);
	CHECK_EQ_U64(st.compiles, 0);
	CHECK_EQ_U64(st.corrupt, 0);
	kjit_engine_close(e);
	OK("a fresh engine: %d DISK hits, 0 compiles, 0 corrupt", N);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
