/*
 * test-tune-store-fail: kjit-tune --compile-only on a database that cannot
 * take another binary stops at the first one it cannot keep, says why at
 * once and once, and exits 1, with the threads pool and with compile
 * worker processes (real NVRTC, real SQLite files, no GPU):
 *  - a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored) a little above the
 *    database: its -wal reaches the limit as a full disk would; root too
 *    is held to it;
 *  - a database file made read-only (chmod 0400); skipped as root, whom
 *    the mode does not stop.
 * The space has 800 variants; a run that compiled them all failed.
 */
#include "testutil.h"

#include <sys/resource.h>
#include <signal.h>

#define VARIANTS 800

static char tool[TU_PATH], spec[TU_PATH];

/* A space of VARIANTS variants of a small kernel. */
static void make_spec(const char *dir)
{
	char src[TU_PATH];
	static const char kernel[] = "extern \"C\" __global__ void k(float *p) { p[0] = B; }\n";
	tu_write_file(tu_path(src, dir, "k.cu"), kernel, strlen(kernel));
	char *text = malloc(64 + VARIANTS * 8);
	CHECK(text);
	int n = sprintf(text, "{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"}, "
	                "\"parameters\": [{\"name\": \"B\", \"roles\": \"define\", \"values\": [");
	for (int i = 0; i < VARIANTS; i++)
		n += sprintf(text + n, "%s%d", i ? ", " : "", i);
	n += sprintf(text + n, "]}]}");
	tu_write_file(tu_path(spec, dir, "k.json"), text, (size_t)n);
	free(text);
}

/* A database with the schema, the kernel and no binary, made by the C API. */
static void make_db(const char *db)
{
	kjit_engine_close(tu_engine_cpu(db, "sm_90", 1));
	CHECK(tu_exists(db));
}

/* Runs kjit-tune --compile-only on db with pool options and checks that it
 * stopped early, saying why once; want is the SQLite reason. */
static void stops(const char *db, const char *pool, const char *want, const char *label)
{
	static char buf[65536];
	char cmd[4 * TU_PATH];
	snprintf(cmd, sizeof cmd, "'%s' '%s' --compile-only --arch sm_90 --db '%s' %s 2>&1", tool,
	         spec, db, pool);
	double t0 = tu_now();
	int rc = tu_run(cmd, buf, sizeof buf);
	double el = tu_now() - t0;
	CHECK_MSG(rc == 1, "%s: exit %d, wanted 1:\n%s", cmd, rc, buf);
	const char *said = "stopping: the database cannot keep binaries: ";
	const char *at = strstr(buf, said);
	CHECK_MSG(at && !strstr(at + 1, said), "%s: not said once:\n%s", cmd, buf);
	CHECK_CONTAINS(at, want);
	CHECK_CONTAINS(at, db);
	CHECK_MSG(!strstr(buf, "(no detail)"), "%s:\n%s", cmd, buf);
	CHECK_MSG(!strstr(buf, "failed variant"), "the reason said again:\n%s", buf);
	const char *sum = strstr(buf, "variants 800: compiled ");
	CHECK_MSG(sum, "no summary:\n%s", buf);
	int compiled = atoi(sum + strlen("variants 800: compiled "));
	CHECK_MSG(compiled < 100, "%d of 800 compiled before stopping:\n%s", compiled, buf);
	CHECK_CONTAINS(sum, ", stopped: the database failed");
	OK("%s (%s): exit 1 after %d compiled, %.1f s: \"%.*s\"", label, pool, compiled, el,
	   (int)strcspn(at, "\n"), at);
}

/* The file size limit: a little above the database, so that the first
 * commits fit and a later one does not. */
static void test_full(const char *dir, const char *name, const char *pool)
{
	char db[TU_PATH];
	make_db(tu_path(db, dir, name));
	struct stat sb;
	CHECK(stat(db, &sb) == 0);
	struct rlimit old, lim;
	CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
	lim = old;
	lim.rlim_cur = (rlim_t)sb.st_size + (256 << 10);
	void (*was)(int) = signal(SIGXFSZ, SIG_IGN); /* inherited: a write fails with EFBIG */
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	stops(db, pool, "(SQLite ", "a full disk (a file size limit)");
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
	signal(SIGXFSZ, was);
}

static void test_read_only(const char *dir, const char *name, const char *pool)
{
	if (geteuid() == 0) {
		printf("SKIP: a read-only file does not stop root\n");
		return;
	}
	char db[TU_PATH];
	make_db(tu_path(db, dir, name));
	CHECK(chmod(db, 0400) == 0);
	stops(db, pool, "readonly", "a read-only database");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	tu_kjit_tune(tool);
	const char *dir = tu_tmpdir();
	make_spec(dir);
	test_full(dir, "full-t.db", "--compile-pool threads -j 2");
	test_full(dir, "full-p.db", "--compile-pool processes -j 2");
	test_read_only(dir, "ro-t.db", "--compile-pool threads -j 2");
	test_read_only(dir, "ro-p.db", "--compile-pool processes -j 2");
	printf("%s: PASS\n", tu_prog);
	return 0;
}
