/*
 * test-top-output - the kjit-top program without a terminal: --once and
 * --json against golden files (tests/test-top-*.golden) on the known
 * database at KJIT_TOP_NOW, the default database path, and the exit
 * codes (0 ok, 1 runtime error, 2 usage).
 *
 * After an intended change of the output, KJIT_TOP_REGEN=1 rewrites the
 * golden files in the source tree. The version reads @VERSION@ there.
 */
#include "testutil.h"
#include "test-top-db.h"

static char top_bin[TU_PATH];
static const char *dir;

/* Runs kjit-top with args in dir; stdout and stderr into out and err
 * (malloc'ed, the caller frees them). Returns the exit code. */
static int run_top(const char *const *args, char **out, char **err)
{
	char out_path[TU_PATH], err_path[TU_PATH];
	tu_path(out_path, dir, "stdout");
	tu_path(err_path, dir, "stderr");
	fflush(NULL);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		const char *argv[16] = { top_bin };
		for (int i = 0; args[i] && i < 14; i++)
			argv[i + 1] = args[i];
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int in = open("/dev/null", O_RDONLY);
		if (o < 0 || e < 0 || in < 0 || chdir(dir) != 0)
			_exit(126);
		dup2(in, 0);
		dup2(o, 1);
		dup2(e, 2);
		execv(top_bin, (char *const *)argv);
		_exit(127);
	}
	int rc = tu_wait(pid);
	*out = tu_read_file(out_path, NULL);
	*err = tu_read_file(err_path, NULL);
	return rc;
}

static void expect(const char *const *args, int want_rc, const char *want_out,
                   const char *want_err)
{
	char *out, *err;
	int rc = run_top(args, &out, &err);
	CHECK_MSG(rc == want_rc, "kjit-top %s ...: exit %d, expected %d; stderr: %s", args[0], rc,
	          want_rc, err);
	if (want_out)
		CHECK_CONTAINS(out, want_out);
	if (want_err)
		CHECK_CONTAINS(err, want_err);
	free(out);
	free(err);
}

static void golden(const char *const *args, const char *name)
{
	char *out, *err;
	int rc = run_top(args, &out, &err);
	CHECK_MSG(rc == 0, "kjit-top %s: exit %d: %s", args[0], rc, err);
	CHECK_MSG(err[0] == '\0', "stderr: %s", err);
	/* the version is not the output's business: @VERSION@ in the files */
	for (char *v; (v = strstr(out, PACKAGE_VERSION)) != NULL;) {
		size_t vl = strlen(PACKAGE_VERSION), tl = strlen("@VERSION@");
		char *o = malloc(strlen(out) - vl + tl + 1);
		CHECK(o != NULL);
		sprintf(o, "%.*s@VERSION@%s", (int)(v - out), out, v + vl);
		free(out);
		out = o;
	}
	char path[TU_PATH];
	snprintf(path, sizeof path, "%s/tests/%s", tu_srcdir(), name);
	const char *regen = getenv("KJIT_TOP_REGEN");
	if (regen && strcmp(regen, "1") == 0) {
		tu_write_file(path, out, strlen(out));
		printf("  rewrote %s\n", path);
	}
	char *want = tu_read_file(path, NULL);
	if (strcmp(out, want) != 0) {
		fprintf(stderr, "--- expected (%s)\n%s--- got\n%s---\n", path, want, out);
		TU_FAIL("kjit-top %s differs from %s (KJIT_TOP_REGEN=1 rewrites it)", args[0], name);
	}
	free(want);
	free(out);
	free(err);
}

/* Figures no writer of kjit's makes: counts of -9e18 and 9e18, times of
 * -1.8e18 and 1.8e18, a median of -1e300. --once and --json show none
 * of them, and no sum of them. */
static void hostile_numbers(void)
{
	char db[TU_PATH];
	tu_path(db, dir, "hostile.db");
	top_test_fill(db);
	sqlite3 *s = tu_db_open(db);
	for (int i = 0; i < 5; i++) {
		top_test_event(s, 5 + i, 101, "launch", SIG_SAXPY, "saxpy", NULL, NULL, "0",
		               -9000000000000000000LL);
		top_test_event(s, 5 + i, 101, "cache", SIG_SAXPY, "saxpy", NULL, "memory", NULL,
		               -500000);
		top_test_event(s, 5 + i, 101, "drop", NULL, NULL, NULL, NULL, NULL, -500000);
	}
	tu_db_exec(s, "INSERT INTO events(ts, pid, kind, count) VALUES(1.8e18, 7, 'launch', 1)");
	tu_db_exec(s, "INSERT INTO runs(signature, device_key, kernel, strategy, problem, status,"
	              " total, evaluated, pid, started, updated) VALUES('" SIG_GEMM "', 'd',"
	              " 'gemm_tiled', 'random', '{}', 'done', 9000000000000000000,"
	              " -9000000000000000000, 1, -1.8e18, " TOP_TEST_NOW_TEXT ")");
	tu_db_exec(s, "UPDATE best SET median_ns = -1e300, updated = -1.8e18");
	tu_db_close(s);
	static const char *const views[] = { "--once", "--json" };
	for (size_t v = 0; v < 2; v++) {
		char *out, *err;
		CHECK(run_top((const char *const[]){ views[v], "--db", "hostile.db", NULL }, &out,
		              &err) == 0);
		static const char *const never[] = { "-9000", "-500000", "-1.8", "e+18", "e+17",
			                             "e+300", "9000000", "-0.0", ":-", " -1" };
		for (size_t i = 0; i < sizeof never / sizeof *never; i++)
			CHECK_MSG(!strstr(out, never[i]), "kjit-top %s shows \"%s\":\n%s", views[v],
			          never[i], out);
		free(out);
		free(err);
	}
	OK("hostile counts, times and medians: shown as none or unknown, in --once and --json");

	/* SQL stored in the file does not run: a costly generated column */
	tu_path(db, dir, "planted.db");
	top_test_fill(db);
	s = tu_db_open(db);
	tu_db_exec(s, "ALTER TABLE events ADD COLUMN heavy BLOB AS (zeroblob(1000000000))");
	tu_db_close(s);
	double t0 = tu_now();
	expect((const char *const[]){ "--once", "--db", "planted.db", NULL }, 1, NULL,
	       "defines the table events otherwise than kjit's schema");
	CHECK(tu_now() - t0 < 5);
	OK("a costly generated column in events: refused naming the table");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *build = getenv("KJIT_BUILDDIR");
	CHECK_MSG(build && *build, "KJIT_BUILDDIR is not set: run through make check");
	snprintf(top_bin, sizeof top_bin, "%s/tui/kjit-top", build);
	dir = tu_tmpdir();
	char db[TU_PATH];
	top_test_fill(tu_path(db, dir, "kjit.db"));
	setenv("KJIT_TOP_NOW", TOP_TEST_NOW_TEXT, 1);
	setenv("COLUMNS", "100", 1);
	unsetenv("KJIT_DB");

	golden((const char *const[]){ "--once", "--db", "kjit.db", NULL }, "test-top-once.golden");
	OK("--once at 100 columns matches test-top-once.golden");
	golden((const char *const[]){ "--json", "-d", "kjit.db", NULL }, "test-top-json.golden");
	OK("--json matches test-top-json.golden");
	/* a narrower width: no line of the snapshot passes it */
	for (int width = 80; width >= 60; width -= 20) {
		char cols[16], *out, *err;
		snprintf(cols, sizeof cols, "%d", width);
		setenv("COLUMNS", cols, 1);
		CHECK(run_top((const char *const[]){ "--once", "--db", "kjit.db", NULL }, &out, &err) ==
		      0);
		size_t longest = 0;
		for (char *l = out; *l;) {
			size_t n = strcspn(l, "\n");
			longest = n > longest ? n : longest;
			l += n + (l[n] == '\n');
		}
		CHECK_MSG(longest <= (size_t)width, "COLUMNS=%d: a line of %zu", width, longest);
		free(out);
		free(err);
	}
	setenv("COLUMNS", "100", 1);
	OK("--once at 80 and 60 columns: no line wider");
	setenv("KJIT_DB", "kjit.db", 1);
	golden((const char *const[]){ "-1", NULL }, "test-top-once.golden");
	OK("$KJIT_DB is the default database");
	unsetenv("KJIT_DB");
	setenv("XDG_CACHE_HOME", dir, 1);
	char want[TU_PATH + 64];
	snprintf(want, sizeof want, "no database at %s/kjit/kjit.db yet: run a kjit program first",
	         dir);
	expect((const char *const[]){ "--once", NULL }, 1, NULL, want);
	CHECK(!tu_exists(want + strlen("no database at ")));
	OK("then $XDG_CACHE_HOME/kjit/kjit.db; a missing one: exit 1 with the message");
	char notes[TU_PATH];
	tu_write_file(tu_path(notes, dir, "notes.txt"), "not a database, just some words\n", 32);
	expect((const char *const[]){ "--json", "--db", "notes.txt", NULL }, 1, NULL,
	       "not a kjit database");
	/* the live view does not wait for it to become one */
	expect((const char *const[]){ "--db", "notes.txt", NULL }, 1, NULL, "not a kjit database");
	OK("a file that is not a kjit database: exit 1, the live view too");

	expect((const char *const[]){ "--help", NULL }, 0, "usage: kjit-top", NULL);
	expect((const char *const[]){ "--version", NULL }, 0, "kjit-top " PACKAGE_VERSION, NULL);
	expect((const char *const[]){ "--bogus", NULL }, 2, NULL, "Try 'kjit-top --help'");
	expect((const char *const[]){ "--interval", "0", NULL }, 2, NULL, "--interval");
	expect((const char *const[]){ "-i", "x", NULL }, 2, NULL, "--interval");
	expect((const char *const[]){ "-n", "0", NULL }, 2, NULL, "-n wants");
	expect((const char *const[]){ "--once", "--json", NULL }, 2, NULL, "exclude");
	expect((const char *const[]){ "extra", NULL }, 2, NULL, "unexpected argument");
	OK("--help and --version exit 0, usage errors exit 2");
	expect((const char *const[]){ "--db", "kjit.db", "-n", "1", NULL }, 1, NULL,
	       "not a terminal");
	OK("the live view without a terminal: exit 1, pointing at --once");
	hostile_numbers();
	printf("PASS\n");
	return 0;
}
