/*
 * test-store-paths: kjit_store_default_path() and kjit_store_check_path()
 * of kjit.h, on real folders and files.
 *
 *  - the default: $KJIT_DB, else an absolute $XDG_CACHE_HOME's
 *    kjit/kjit.db (a relative one is ignored), else
 *    $HOME/.cache/kjit/kjit.db; none of them set is an error naming HOME;
 *  - the check creates nothing, passes a path where an engine opens its
 *    store (a new file in the user's folder, ":memory:", a store an engine
 *    made), and refuses, naming the problem: "", a "file:" URI, a folder
 *    others may write, a database others may write, a file that is no
 *    SQLite database, a store of a newer schema; an engine refuses the
 *    same paths ("" aside: an engine's default);
 *  - NULL arguments are KJIT_ERR_INVALID_ARG.
 */
#include "testutil.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include "kjit.h"

static void want_default(const char *expect)
{
	char *p = NULL;
	CHECK_OK(kjit_store_default_path(&p));
	CHECK_STREQ(p, expect);
	free(p);
}

static void test_default(void)
{
	CHECK(setenv("HOME", "/home/someone", 1) == 0);
	CHECK(unsetenv("XDG_CACHE_HOME") == 0);
	CHECK(unsetenv("KJIT_DB") == 0);
	want_default("/home/someone/.cache/kjit/kjit.db");
	CHECK(setenv("XDG_CACHE_HOME", "relative/cache", 1) == 0);
	want_default("/home/someone/.cache/kjit/kjit.db");
	CHECK(setenv("XDG_CACHE_HOME", "/var/cache/me", 1) == 0);
	want_default("/var/cache/me/kjit/kjit.db");
	CHECK(setenv("KJIT_DB", "/data/tuned.db", 1) == 0);
	want_default("/data/tuned.db");
	OK("the default: $KJIT_DB, else $XDG_CACHE_HOME/kjit/kjit.db (absolute only), else "
	   "$HOME/.cache/kjit/kjit.db");

	CHECK(unsetenv("KJIT_DB") == 0);
	CHECK(unsetenv("XDG_CACHE_HOME") == 0);
	CHECK(unsetenv("HOME") == 0);
	char *p = (char *)"untouched";
	CHECK_ST(kjit_store_default_path(&p), KJIT_ERR_INVALID_ARG);
	CHECK(p == NULL);
	CHECK_CONTAINS(kjit_last_error(), "HOME");
	CHECK_ST(kjit_store_default_path(NULL), KJIT_ERR_INVALID_ARG);
	OK("no HOME, KJIT_DB or XDG_CACHE_HOME: an error naming HOME; a NULL out refused");
}

/* An engine that compiles only, on the store at path. */
static kjit_status open_engine(const char *path, kjit_engine **out)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = path;
	o.flags = KJIT_ENGINE_NO_GPU;
	o.arch = "sm_90";
	return kjit_engine_open(&o, out);
}

/* Refused with status st and a message holding word, nothing made at
 * path; an engine refuses it alike. */
static void refused(const char *path, kjit_status st, const char *word)
{
	struct stat before;
	int existed = lstat(path, &before) == 0;
	CHECK_ST(kjit_store_check_path(path), st);
	CHECK_CONTAINS(kjit_last_error(), word);
	struct stat after;
	CHECK((lstat(path, &after) == 0) == existed);
	kjit_engine *e = NULL;
	CHECK_ST(open_engine(path, &e), st);
	CHECK(e == NULL);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	CHECK(fputs(text, f) >= 0);
	CHECK(fclose(f) == 0);
	CHECK(chmod(path, mode) == 0);
}

static void test_check(void)
{
	const char *dir = tu_tmpdir();
	char path[TU_PATH];
	tu_path(path, dir, "new.db");
	CHECK_OK(kjit_store_check_path(path));
	CHECK(access(path, F_OK) != 0);
	CHECK_OK(kjit_store_check_path(":memory:"));
	OK("a new store in the user's folder and :memory: pass; nothing is created");

	kjit_engine *e = NULL;
	CHECK_OK(open_engine(path, &e));
	kjit_engine_close(e);
	CHECK_OK(kjit_store_check_path(path));
	OK("a store an engine made passes");

	/* an engine's "" is its default path: the check alone */
	CHECK_ST(kjit_store_check_path(""), KJIT_ERR_IO);
	CHECK_CONTAINS(kjit_last_error(), "empty");
	char uri[TU_PATH];
	CHECK(snprintf(uri, sizeof uri, "file:%s", path) < (int)sizeof uri);
	refused(uri, KJIT_ERR_IO, "URI");
	CHECK_ST(kjit_store_check_path(NULL), KJIT_ERR_INVALID_ARG);
	OK("\"\", a file: URI and NULL are refused");

	char open_dir[TU_PATH], in_open[TU_PATH];
	tu_path(open_dir, dir, "everyone");
	CHECK(mkdir(open_dir, 0700) == 0);
	CHECK(chmod(open_dir, 0777) == 0);
	tu_path(in_open, open_dir, "k.db");
	refused(in_open, KJIT_ERR_IO, open_dir);
	OK("a store in a folder others may write is refused, naming the folder");

	chmod(path, 0666);
	refused(path, KJIT_ERR_IO, path);
	chmod(path, 0600);
	OK("a store others may write is refused, naming it");

	char junk[TU_PATH];
	tu_path(junk, dir, "notes.db");
	write_file(junk, "these are not the pages of a database\n", 0600);
	refused(junk, KJIT_ERR_DB, junk);
	OK("a file that is no SQLite database is refused, naming it");

	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 999999", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_close(db) == SQLITE_OK);
	refused(path, KJIT_ERR_DB, "999999");
	OK("a store of a newer schema is refused, naming its version");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	test_default();
	test_check();
	return 0;
}
