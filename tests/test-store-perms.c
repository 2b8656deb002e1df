/*
 * test-store-perms: where the database goes and how it is made.
 *
 *  - under umask 0 and umask 022, a database path inside two new folders:
 *    the folders are created 0700, the file 0600 (and its -wal and -shm);
 *    an existing folder keeps its mode;
 *  - the default path: KJIT_DB wins, else $XDG_CACHE_HOME/kjit/kjit.db,
 *    else $HOME/.cache/kjit/kjit.db (empty variables count as unset); an
 *    explicit db_path beats them all; with none of them, a clear error;
 *  - ":memory:" creates no file;
 *  - the schema: the current user_version, journal_mode wal, the 9 tables;
 *  - links: one as the database (to a file, dangling) or as its -wal is
 *    refused and nothing is written through it; a linked folder is used;
 *  - modes: a database or its folder writable by group or others is
 *    refused; a 0644 database of ours is used as it is; a sticky 01777
 *    folder (as /tmp), as the database's folder or above it, is fine;
 *  - as root only: a database, folder or folder link of another user
 *    (nobody) is refused, naming the owner.
 */
#include "testutil.h"

static void check_new_db(const char *dir, const char *sub1, mode_t mask)
{
	char d1[TU_PATH], d2[TU_PATH], db[TU_PATH], side[TU_PATH + 8];
	tu_path(d1, dir, sub1);
	tu_path(d2, d1, "inner");
	tu_path(db, d2, "kjit.db");
	CHECK(!tu_exists(d1));
	mode_t old = umask(mask);
	kjit_engine *e = tu_engine_cpu(db, "sm_90", 1);
	/* A write, so that the -wal file certainly exists while open. */
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 64, 1);
	kjit_variant *v;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, NULL));
	CHECK_MSG(tu_mode(d1) == 0700, "%s: mode %o", d1, tu_mode(d1));
	CHECK_MSG(tu_mode(d2) == 0700, "%s: mode %o", d2, tu_mode(d2));
	CHECK_MSG(tu_mode(db) == 0600, "%s: mode %o", db, tu_mode(db));
	snprintf(side, sizeof side, "%s-wal", db);
	CHECK_MSG(tu_mode(side) == 0600, "%s: mode %o", side, tu_mode(side));
	snprintf(side, sizeof side, "%s-shm", db);
	CHECK_MSG(tu_mode(side) == 0600, "%s: mode %o", side, tu_mode(side));
	kjit_engine_close(e);
	umask(old);
	CHECK(tu_mode(db) == 0600);
	OK("umask %03o: %s/inner created 0700, kjit.db, -wal and -shm 0600", (unsigned)mask, sub1);
}

static void check_default(const char *want_path, const char *label)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	kjit_engine *e = NULL;
	CHECK_OK(kjit_engine_open(&o, &e));
	CHECK_STREQ(kjit_engine_db_path(e), want_path);
	kjit_engine_close(e);
	CHECK_MSG(tu_mode(want_path) == 0600, "%s: mode %o", want_path, tu_mode(want_path));
	OK("%s: %s", label, want_path);
}

static void test_default_path(const char *dir)
{
	char envdb[TU_PATH], xdg[TU_PATH], home[TU_PATH], want[TU_PATH], explicit_db[TU_PATH];
	tu_path(envdb, dir, "env/by-env.db");
	tu_path(xdg, dir, "xdg-cache");
	tu_path(home, dir, "home");
	CHECK(mkdir(home, 0755) == 0);

	CHECK(setenv("KJIT_DB", envdb, 1) == 0);
	CHECK(setenv("XDG_CACHE_HOME", xdg, 1) == 0);
	CHECK(setenv("HOME", home, 1) == 0);
	check_default(envdb, "KJIT_DB set: KJIT_DB wins");
	CHECK(!tu_exists(xdg));

	/* An explicit path beats KJIT_DB. */
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	o.db_path = tu_path(explicit_db, dir, "explicit.db");
	kjit_engine *e = NULL;
	CHECK_OK(kjit_engine_open(&o, &e));
	CHECK_STREQ(kjit_engine_db_path(e), explicit_db);
	kjit_engine_close(e);
	CHECK(tu_exists(explicit_db));
	OK("opts.db_path beats KJIT_DB");

	CHECK(setenv("KJIT_DB", "", 1) == 0);
	tu_path(want, xdg, "kjit/kjit.db");
	check_default(want, "KJIT_DB empty: $XDG_CACHE_HOME/kjit/kjit.db");
	CHECK(tu_mode(xdg) == 0700);
	tu_path(want, xdg, "kjit");
	CHECK(tu_mode(want) == 0700);

	CHECK(unsetenv("KJIT_DB") == 0);
	CHECK(setenv("XDG_CACHE_HOME", "", 1) == 0);
	tu_path(want, home, ".cache/kjit/kjit.db");
	check_default(want, "KJIT_DB unset, XDG_CACHE_HOME empty: $HOME/.cache/kjit/kjit.db");
	CHECK(tu_mode(home) == 0755); /* existing folders are left alone */
	tu_path(want, home, ".cache");
	CHECK(tu_mode(want) == 0700);

	CHECK(setenv("XDG_CACHE_HOME", "relative/cache", 1) == 0);
	tu_path(want, home, ".cache/kjit/kjit.db");
	check_default(want, "XDG_CACHE_HOME relative: ignored, as the XDG rules say");

	CHECK(unsetenv("XDG_CACHE_HOME") == 0);
	tu_path(want, home, ".cache/kjit/kjit.db");
	check_default(want, "KJIT_DB and XDG_CACHE_HOME unset: $HOME/.cache/kjit/kjit.db");

	CHECK(unsetenv("HOME") == 0);
	o.db_path = NULL;
	e = (kjit_engine *)1;
	kjit_status st = kjit_engine_open(&o, &e);
	CHECK(st != KJIT_OK && e == NULL);
	CHECK_CONTAINS(kjit_last_error(), "KJIT_DB");
	CHECK_CONTAINS(kjit_last_error(), "HOME is not set");
	OK("no KJIT_DB, XDG_CACHE_HOME or HOME: %s, \"%s\"", kjit_status_str(st), kjit_last_error());
}

static void test_memory(const char *dir)
{
	char cwd[TU_PATH];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK(chdir(dir) == 0);
	kjit_engine *e = tu_engine_cpu(":memory:", "sm_90", 1);
	CHECK_STREQ(kjit_engine_db_path(e), ":memory:");
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 64, 2);
	kjit_variant *v;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	kjit_engine_close(e);
	CHECK(!tu_exists(":memory:"));
	CHECK(chdir(cwd) == 0);
	OK("\":memory:\": compiles and caches, no file of that name");
}

static void test_schema(const char *dir)
{
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "schema/kjit.db"), "sm_90", 1);
	kjit_engine_close(e);
	sqlite3 *s = tu_db_open(db);
	CHECK(tu_db_int(s, "PRAGMA user_version", NULL) == KJIT__SCHEMA_VERSION);
	char mode[32];
	tu_db_text(s, "PRAGMA journal_mode", NULL, mode, sizeof mode);
	CHECK_STREQ(mode, "wal");
	static const char *const tables[] = { "devices", "kernels", "binaries", "runs",
		                              "results", "best", "events", "manifests", "profiles" };
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
		CHECK_MSG(tu_db_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
		                       "AND name = ?1", tables[i]) == 1,
		          "table %s is missing", tables[i]);
	CHECK(tu_db_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND "
	                   "name = 'binaries_lru'", NULL) == 1);
	/* The binaries columns that the cache relies on. */
	static const char *const cols[] = { "key", "signature", "options", "arch", "nvrtc",
		                            "lowered_name", "cubin", "size", "checksum",
		                            "compile_ms", "created", "last_used" };
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
		CHECK_MSG(tu_db_int(s, "SELECT count(*) FROM pragma_table_info('binaries') "
		                       "WHERE name = ?1", cols[i]) == 1,
		          "binaries.%s is missing", cols[i]);
	long long n_objects = tu_db_int(s, "SELECT count(*) FROM sqlite_master", NULL);
	tu_db_close(s);

	/* Opening again changes nothing (no second migration). */
	e = tu_engine_cpu(db, "sm_90", 1);
	kjit_engine_close(e);
	s = tu_db_open(db);
	CHECK(tu_db_int(s, "PRAGMA user_version", NULL) == KJIT__SCHEMA_VERSION);
	CHECK(tu_db_int(s, "SELECT count(*) FROM sqlite_master", NULL) == n_objects);
	tu_db_close(s);
	OK("schema: user_version %d, journal_mode wal, the 9 tables, binaries columns and LRU index",
	   KJIT__SCHEMA_VERSION);
}

/* Opens path as a database and expects a refusal with want in its message. */
static void refused(const char *path, const char *want, const char *label)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	o.db_path = path;
	kjit_engine *e = (kjit_engine *)1;
	kjit_status st = kjit_engine_open(&o, &e);
	CHECK_MSG(st == KJIT_ERR_IO && e == NULL, "%s: %s, %s", path, kjit_status_str(st),
	          kjit_last_error());
	CHECK_CONTAINS(kjit_last_error(), want);
	OK("%s: \"%s\"", label, kjit_last_error());
}

static void opens(const char *path, const char *label)
{
	kjit_engine_close(tu_engine_cpu(path, "sm_90", 1));
	OK("%s", label);
}

/* Links: never followed to the database or a side file of it; a linked
 * folder of this user's is. */
static void test_links(const char *dir)
{
	char victim[TU_PATH], link[TU_PATH], dangling[TU_PATH], target[TU_PATH];
	tu_write_file(tu_path(victim, dir, "victim"), "precious", 8);
	CHECK(symlink(victim, tu_path(link, dir, "link.db")) == 0);
	refused(link, "is a symbolic link", "a link to a file as the database");
	size_t len;
	char *text = tu_read_file(victim, &len);
	CHECK(len == 8 && memcmp(text, "precious", 8) == 0);
	free(text);

	tu_path(target, dir, "not-there");
	CHECK(symlink(target, tu_path(dangling, dir, "dangling.db")) == 0);
	refused(dangling, "is a symbolic link", "a dangling link as the database");
	CHECK(!tu_exists(target));

	char db[TU_PATH], wal[TU_PATH + 8];
	opens(tu_path(db, dir, "side.db"), "a database of ours");
	snprintf(wal, sizeof wal, "%s-wal", db);
	CHECK(symlink(victim, wal) == 0);
	refused(db, "side file", "a link as its -wal file");
	CHECK(unlink(wal) == 0);

	char real[TU_PATH], linked[TU_PATH];
	CHECK(mkdir(tu_path(real, dir, "real"), 0700) == 0);
	CHECK(symlink(real, tu_path(linked, dir, "linked")) == 0);
	opens(tu_path(db, linked, "k.db"), "a database in a linked folder of ours");
	CHECK(tu_exists(tu_path(db, real, "k.db")));
}

/* Modes: a database or folder others can write is refused, however
 * made, unless the folder is sticky (as /tmp), where no one else can
 * replace the database's files; a folder above it is not checked. */
static void test_modes(const char *dir)
{
	char db[TU_PATH], folder[TU_PATH];
	opens(tu_path(db, dir, "shared.db"), "made 0600");
	CHECK(chmod(db, 0660) == 0);
	refused(db, "can be written by its group (mode 0660)", "a group-writable database");
	CHECK(chmod(db, 0602) == 0);
	refused(db, "can be written by every user", "a world-writable database");
	CHECK(chmod(db, 0644) == 0);
	opens(db, "a database of ours at 0644: used (others may read it, not change it)");
	CHECK(tu_mode(db) == 0644);

	CHECK(mkdir(tu_path(folder, dir, "group"), 0700) == 0 && chmod(folder, 0770) == 0);
	refused(tu_path(db, folder, "k.db"), "the database folder", "a group-writable folder");
	CHECK(!tu_exists(db));

	char mine[TU_PATH];
	CHECK(mkdir(tu_path(folder, dir, "tmp"), 0700) == 0 && chmod(folder, 01777) == 0);
	opens(tu_path(db, folder, "k.db"), "a sticky world-writable folder as the database's own");
	CHECK(tu_mode(db) == 0600);
	tu_path(mine, folder, "kjit-me");
	opens(tu_path(db, mine, "mpi.db"), "a sticky world-writable folder above it (as /tmp)");
	CHECK(tu_mode(mine) == 0700 && tu_mode(db) == 0600);
}

/* Another user's database, folder or link: only root can make them. */
static void test_other_owner(const char *dir)
{
	if (geteuid() != 0) {
		printf("SKIP: files of another user need root to make\n");
		return;
	}
	uid_t nobody = 65534;
	char db[TU_PATH], folder[TU_PATH], link[TU_PATH];
	opens(tu_path(db, dir, "theirs.db"), "made by us");
	CHECK(chown(db, nobody, (gid_t)-1) == 0);
	refused(db, "belongs to another user (", "another user's database");
	CHECK_CONTAINS(kjit_last_error(), "uid 65534");

	CHECK(mkdir(tu_path(folder, dir, "kjit-0"), 0700) == 0 && chown(folder, nobody, 0) == 0);
	refused(tu_path(db, folder, "mpi.db"), "the database folder", "a folder of another user's "
	        "where $TMPDIR/kjit-UID would be");
	CHECK(!tu_exists(db));

	char real[TU_PATH];
	CHECK(mkdir(tu_path(real, dir, "ours"), 0700) == 0);
	CHECK(symlink(real, tu_path(link, dir, "their-link")) == 0);
	CHECK(lchown(link, nobody, (gid_t)-1) == 0);
	refused(tu_path(db, link, "k.db"), "the link", "a folder link of another user's");
	CHECK(!tu_exists(tu_path(db, real, "k.db")));
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	check_new_db(dir, "umask0", 0);
	check_new_db(dir, "umask022", 022);
	check_new_db(dir, "umask077", 077);
	test_default_path(dir);
	test_memory(dir);
	test_schema(dir);
	test_links(dir);
	test_modes(dir);
	test_other_owner(dir);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
