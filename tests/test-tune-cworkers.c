/*
 * test-tune-cworkers: kjit-tune's compile worker processes (--compile-pool
 * processes), with real NVRTC, real processes and a real database, no GPU:
 *  1. --compile-only of examples/saxpy stores the 40 variants, each with
 *     its checksum and a CUDA ELF, the same keys as the thread pool; a
 *     second run finds all 40 cached;
 *  2. a worker SIGKILLed mid-run costs nothing: its job is retried on a
 *     fresh worker and all 40 are stored;
 *  3. every worker killed as it starts: the job that died twice is a
 *     failed compile naming the signal, and the run completes the rest;
 *  4. SIGINT to kjit-tune stops the workers, exits 130 and keeps every
 *     binary stored; a second run compiles only the rest.
 */
#include "testutil.h"

#include <dirent.h>
#include <signal.h>

#include "base.h" /* kjit__hash, kjit__hash_hex: the store's checksum */

#define N_VARIANTS 40

static char tool[TU_PATH], spec[TU_PATH];
static const char *dir;

/* Starts kjit-tune --compile-only on spec into db with args (one word
 * each, NULL-terminated), stdout and stderr into out. */
static pid_t start(const char *db, const char *out, const char *const *args)
{
	char *argv[16] = { tool, spec, "--compile-only", "--arch", "sm_90", "--db", (char *)db };
	int n = 7;
	for (; *args && n < 15; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(tool, argv);
		_exit(127);
	}
	return pid;
}

/* Waits for pid and checks its exit code; its output (out), malloc'ed. */
static char *finish(pid_t pid, const char *out, int want)
{
	int rc = tu_wait(pid);
	char *text = tu_read_file(out, NULL);
	CHECK_MSG(rc == want, "exit %d, wanted %d: %s", rc, want, text);
	return text;
}

/* Runs it to the end: the exit code, the output in a static buffer. */
static int compile_only(const char *db, const char *const *args, const char **text)
{
	static char *buf;
	char out[TU_PATH];
	tu_path(out, dir, "run.out");
	int rc = tu_wait(start(db, out, args));
	free(buf);
	buf = tu_read_file(out, NULL);
	*text = buf;
	return rc;
}

/* The compile workers of parent (children running --compile-worker). */
static int workers_of(pid_t parent, pid_t *pids, int max)
{
	DIR *d = opendir("/proc");
	CHECK(d != NULL);
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL && n < max;) {
		char path[300], line[1024];
		long pid = atol(e->d_name), ppid = 0;
		if (pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t len = fread(line, 1, sizeof line - 1, f);
		fclose(f);
		line[len] = '\0';
		const char *paren = strrchr(line, ')');
		if (!paren || sscanf(paren + 1, " %*c %ld", &ppid) != 1 || ppid != parent)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
		if (!(f = fopen(path, "r")))
			continue;
		len = fread(line, 1, sizeof line - 1, f);
		fclose(f);
		line[len] = '\0';
		/* argv[1], after the first NUL */
		if (strlen(line) < len && strcmp(line + strlen(line) + 1, "--compile-worker") == 0)
			pids[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

/* Binaries stored in db so far (0 before the file is there). */
static long long stored(const char *path)
{
	sqlite3 *db = NULL;
	long long n = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(db, 5000);
		sqlite3_stmt *s = NULL;
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM binaries", -1, &s, NULL) ==
		            SQLITE_OK &&
		    sqlite3_step(s) == SQLITE_ROW)
			n = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	return n;
}

/* Every binary of db: its checksum is the cubin's, and the cubin a CUDA
 * ELF of its size. Returns the keys, sorted, comma-separated (static). */
static const char *check_binaries(const char *path, long long want)
{
	static char keys[N_VARIANTS * 40];
	sqlite3 *db = tu_db_open(path);
	sqlite3_stmt *s = NULL;
	CHECK_SQL(db, sqlite3_prepare_v2(db, "SELECT key, checksum, size, cubin FROM binaries"
	                                     " ORDER BY key", -1, &s, NULL), SQLITE_OK);
	long long n = 0;
	keys[0] = '\0';
	while (sqlite3_step(s) == SQLITE_ROW) {
		const void *cubin = sqlite3_column_blob(s, 3);
		size_t size = (size_t)sqlite3_column_bytes(s, 3);
		char sum[33];
		kjit__hash_hex(kjit__hash(cubin, size, 0x6b6a6974u), sum);
		const char *key = (const char *)sqlite3_column_text(s, 0);
		CHECK_MSG(strcmp(sum, (const char *)sqlite3_column_text(s, 1)) == 0,
		          "binary %s: checksum %s, stored %s", key, sum, sqlite3_column_text(s, 1));
		CHECK(sqlite3_column_int64(s, 2) == (long long)size && tu_is_cuda_elf(cubin, size));
		CHECK(strlen(keys) + 34 < sizeof keys);
		strcat(strcat(keys, key), ",");
		n++;
	}
	sqlite3_finalize(s);
	tu_db_close(db);
	CHECK_MSG(n == want, "%s: %lld binaries, wanted %lld", path, n, want);
	return keys;
}

static void test_same_as_threads(void)
{
	char p[TU_PATH], t[TU_PATH];
	const char *out;
	tu_path(p, dir, "p.db");
	tu_path(t, dir, "t.db");
	const char *procs[] = { "-j", "2", "--compile-pool", "processes", NULL };
	const char *threads[] = { "-j", "2", "--compile-pool", "threads", NULL };
	CHECK_MSG(compile_only(p, procs, &out) == 0, "%s", out);
	CHECK_CONTAINS(out, "variants 40: compiled 40, cached 0, failed 0 (arch sm_90");
	CHECK_MSG(compile_only(t, threads, &out) == 0, "%s", out);
	CHECK_CONTAINS(out, "variants 40: compiled 40, cached 0, failed 0 (arch sm_90");
	static char keys[N_VARIANTS * 40];
	snprintf(keys, sizeof keys, "%s", check_binaries(p, N_VARIANTS));
	CHECK_MSG(strcmp(keys, check_binaries(t, N_VARIANTS)) == 0, "the keys differ");
	CHECK_MSG(compile_only(p, procs, &out) == 0, "%s", out);
	CHECK_CONTAINS(out, "variants 40: compiled 0, cached 40, failed 0");
	OK("--compile-pool processes: 40 binaries, checksums and keys as the thread pool's; "
	   "then 40 cached");

	const char *bogus[] = { "--compile-pool", "forks", NULL };
	CHECK(compile_only(p, bogus, &out) == 2);
	CHECK_CONTAINS(out, "--compile-pool: expected threads, processes or auto, got 'forks'");
	OK("--compile-pool forks: a usage error");
}

/* Waits (up to 60 s) until parent has a compile worker; its pid. */
static pid_t wait_worker(pid_t parent)
{
	pid_t pids[8];
	for (double t0 = tu_now(); tu_now() - t0 < 60; usleep(2000))
		if (workers_of(parent, pids, 8) > 0)
			return pids[0];
	TU_FAIL("no compile worker appeared");
	return 0;
}

static void test_killed_worker(void)
{
	char db[TU_PATH], out[TU_PATH];
	tu_path(db, dir, "k.db");
	tu_path(out, dir, "k.out");
	const char *args[] = { "-j", "2", "--compile-pool", "processes", NULL };
	pid_t pid = start(db, out, args);
	/* once a compile is stored, the workers are mid-run */
	for (double t0 = tu_now(); stored(db) < 1 && tu_now() - t0 < 60;)
		usleep(5000);
	pid_t victim = wait_worker(pid);
	CHECK(kill(victim, SIGKILL) == 0);
	char *text = finish(pid, out, 0);
	/* the job killed may have been stored first: then its retry is a hit */
	const char *summary = strstr(text, "variants 40: ");
	int compiled = 0, cached = 0, failed = -1;
	CHECK_MSG(summary && sscanf(summary, "variants 40: compiled %d, cached %d, failed %d",
	                            &compiled, &cached, &failed) == 3, "no summary: %s", text);
	CHECK_MSG(failed == 0 && compiled + cached == N_VARIANTS && cached <= 2, "%s", text);
	free(text);
	check_binaries(db, N_VARIANTS);
	OK("a worker SIGKILLed mid-run: its job retried, 40 of 40 stored");

	/* Kill every worker as it appears: the first job dies twice. */
	tu_path(db, dir, "k2.db");
	const char *one[] = { "-j", "1", "--compile-pool", "processes", NULL };
	pid = start(db, out, one);
	pid_t last = 0;
	for (int killed = 0; killed < 3;) {
		pid_t w = wait_worker(pid);
		if (w != last && kill(w, SIGKILL) == 0) {
			killed++;
			last = w;
		}
	}
	text = finish(pid, out, 0);
	CHECK_CONTAINS(text, "the compile worker process was killed by signal 9");
	summary = strstr(text, "variants 40: ");
	long n_failed = 0;
	CHECK_MSG(summary && sscanf(summary, "variants 40: compiled %*d, cached %*d, failed %ld",
	                            &n_failed) == 1, "no summary: %s", text);
	CHECK_MSG(n_failed >= 1 && n_failed <= 2, "%ld failed: %s", n_failed, text);
	free(text);
	check_binaries(db, N_VARIANTS - n_failed);
	OK("a job that kills two workers: a failed compile naming signal 9; the other %ld stored",
	   N_VARIANTS - n_failed);
}

static void test_interrupt(void)
{
	char db[TU_PATH], out[TU_PATH];
	tu_path(db, dir, "i.db");
	tu_path(out, dir, "i.out");
	const char *args[] = { "-j", "2", "--compile-pool", "processes", NULL };
	pid_t pid = start(db, out, args), pids[8];
	for (double t0 = tu_now(); stored(db) < 3 && tu_now() - t0 < 60;)
		usleep(5000);
	int n = workers_of(pid, pids, 8);
	long long before = stored(db);
	CHECK(before >= 3 && before < N_VARIANTS);
	CHECK(kill(pid, SIGINT) == 0);
	char *text = finish(pid, out, 130);
	CHECK_CONTAINS(text, ", interrupted");
	free(text);
	for (int i = 0; i < n; i++)
		CHECK_MSG(kill(pids[i], 0) != 0 && errno == ESRCH, "worker %ld outlived kjit-tune",
		          (long)pids[i]);
	long long after = stored(db);
	CHECK(after >= before);
	check_binaries(db, after);
	const char *o;
	CHECK_MSG(compile_only(db, args, &o) == 0, "%s", o);
	char want[128];
	snprintf(want, sizeof want, "compiled %lld, cached %lld, failed 0", N_VARIANTS - after,
	         after);
	CHECK_CONTAINS(o, want);
	OK("SIGINT: exit 130, %d workers gone, %lld binaries kept; the next run compiles the "
	   "other %lld", n, after, N_VARIANTS - after);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	tu_kjit_tune(tool);
	tu_path(spec, tu_srcdir(), "examples/saxpy/saxpy.json");
	dir = tu_tmpdir();
	test_same_as_threads();
	test_killed_worker();
	test_interrupt();
	return 0;
}
