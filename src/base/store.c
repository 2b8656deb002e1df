/* store.c - the SQLite database: path, permissions, pragmas, schema. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

/* Schema version 1: every table of doc/DESIGN.md, so that later work adds code,
 * not tables. Times are Unix seconds (REAL); configurations and problems
 * are JSON objects with sorted keys. A migration's text is history and
 * never changes, so it spells its names out; readers take the names of
 * the current schema, and the words of its enumerated columns, from
 * store_schema.h. */
static const char schema_v1[] =
	"CREATE TABLE devices("
	" id INTEGER PRIMARY KEY,"
	" key TEXT NOT NULL UNIQUE,"        /* arch|name|SMs|driver */
	" name TEXT NOT NULL, arch TEXT NOT NULL, sm_count INTEGER NOT NULL,"
	" driver_version INTEGER NOT NULL,"
	" first_seen REAL NOT NULL, last_seen REAL NOT NULL);"
	"CREATE TABLE kernels("
	" signature TEXT PRIMARY KEY,"
	" name TEXT NOT NULL, source TEXT NOT NULL, params TEXT NOT NULL,"
	" created REAL NOT NULL);"
	"CREATE TABLE binaries("
	/* id: the low 64 bits of the key, so that a lookup walks one b-tree;
	 * the full key is compared on read. */
	" id INTEGER PRIMARY KEY, key TEXT NOT NULL,"
	" signature TEXT NOT NULL, options TEXT NOT NULL, arch TEXT NOT NULL,"
	" nvrtc TEXT NOT NULL, lowered_name TEXT NOT NULL,"
	" size INTEGER NOT NULL, checksum TEXT NOT NULL,"
	" compile_ms REAL NOT NULL, created REAL NOT NULL, last_used REAL NOT NULL,"
	" cubin BLOB NOT NULL);" /* last, so that scans skip its overflow pages */
	"CREATE INDEX binaries_lru ON binaries(last_used);"
	"CREATE INDEX binaries_signature ON binaries(signature);"
	/* The cache size, kept by triggers so that eviction never scans. */
	"CREATE TABLE cache_size(id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL);"
	"INSERT INTO cache_size VALUES(1, 0);"
	"CREATE TRIGGER binaries_add AFTER INSERT ON binaries BEGIN"
	" UPDATE cache_size SET bytes = bytes + NEW.size; END;"
	"CREATE TRIGGER binaries_remove AFTER DELETE ON binaries BEGIN"
	" UPDATE cache_size SET bytes = bytes - OLD.size; END;"
	"CREATE TRIGGER binaries_resize AFTER UPDATE OF size ON binaries BEGIN"
	" UPDATE cache_size SET bytes = bytes - OLD.size + NEW.size; END;"
	"CREATE TABLE runs("
	" id INTEGER PRIMARY KEY,"
	" signature TEXT NOT NULL, device_key TEXT NOT NULL, kernel TEXT NOT NULL,"
	" spec TEXT, strategy TEXT NOT NULL, problem TEXT NOT NULL,"
	" status TEXT NOT NULL DEFAULT 'running'," /* KJIT__RUN_* */
	" total INTEGER, evaluated INTEGER NOT NULL DEFAULT 0,"
	" pid INTEGER, started REAL NOT NULL, updated REAL NOT NULL, finished REAL);"
	"CREATE INDEX runs_status ON runs(status);"
	"CREATE TABLE results("
	" id INTEGER PRIMARY KEY,"
	" run_id INTEGER REFERENCES runs(id),"
	" signature TEXT NOT NULL, device_key TEXT NOT NULL, problem TEXT NOT NULL,"
	" config TEXT NOT NULL, binary_key TEXT,"
	" status TEXT NOT NULL,"  /* KJIT__RESULT_STATUSES */
	" timer TEXT,"            /* cupti|events */
	" l2 TEXT,"               /* warm|cold */
	" median_ns REAL, spread_ns REAL, min_ns REAL, max_ns REAL, n_samples INTEGER,"
	" samples BLOB,"          /* float64 little-endian array of ns */
	" objective REAL, compile_ms REAL, message TEXT, created REAL NOT NULL,"
	" UNIQUE(signature, device_key, problem, config, l2));"
	"CREATE TABLE best("
	" signature TEXT NOT NULL, device_key TEXT NOT NULL, problem TEXT NOT NULL,"
	" arch TEXT NOT NULL, config TEXT NOT NULL, result_id INTEGER REFERENCES results(id),"
	" median_ns REAL NOT NULL, nvrtc TEXT NOT NULL, stale INTEGER NOT NULL DEFAULT 0,"
	" updated REAL NOT NULL,"
	" PRIMARY KEY(signature, device_key, problem));"
	"CREATE TABLE events("
	" id INTEGER PRIMARY KEY,"
	" ts REAL NOT NULL, pid INTEGER NOT NULL,"
	" kind TEXT NOT NULL,"    /* KJIT__EVENT_KINDS */
	" signature TEXT, kernel TEXT, variant TEXT,"
	" tier TEXT,"             /* KJIT__TIER_* */
	" value REAL, count INTEGER NOT NULL DEFAULT 1, detail TEXT);"
	"CREATE INDEX events_ts ON events(ts);"
	"CREATE INDEX events_kind_ts ON events(kind, ts);";

/* Version 2: the header files a binary's compile read, one line each
 * (hash, size, mtime in ns, path; "- - - path" for one looked for and
 * not there), found by the binary's base key (its key before the files
 * entered it) and removed with the binary. */
static const char schema_v2[] =
	"CREATE TABLE manifests("
	" key TEXT PRIMARY KEY, base_key TEXT NOT NULL, files TEXT NOT NULL,"
	" created REAL NOT NULL);"
	"CREATE INDEX manifests_base_key ON manifests(base_key, created);"
	"CREATE TRIGGER binaries_manifest AFTER DELETE ON binaries BEGIN"
	" DELETE FROM manifests WHERE key = OLD.key; END;";

/* Version 3: which device measured a result. Devices of one model share
 * a device key and so its results rows; the ordinal (on its host) and
 * the UUID tell them apart. NULL: not known (every row from before). */
static const char schema_v3[] =
	"ALTER TABLE results ADD COLUMN device_ordinal INTEGER;"
	"ALTER TABLE results ADD COLUMN device_uuid TEXT;";

/* Version 4: the cache size counts each binary's blob, not its size
 * column: a size that another process wrote as infinity made the count
 * NaN (NULL to SQLite), and then no binary could be deleted or evicted. */
static const char schema_v4[] =
	"DROP TRIGGER binaries_add; DROP TRIGGER binaries_remove; DROP TRIGGER binaries_resize;"
	"CREATE TRIGGER binaries_add AFTER INSERT ON binaries BEGIN"
	" UPDATE cache_size SET bytes = bytes + length(NEW.cubin); END;"
	"CREATE TRIGGER binaries_remove AFTER DELETE ON binaries BEGIN"
	" UPDATE cache_size SET bytes = bytes - length(OLD.cubin); END;"
	"CREATE TRIGGER binaries_resize AFTER UPDATE OF cubin ON binaries BEGIN"
	" UPDATE cache_size SET bytes = bytes - length(OLD.cubin) + length(NEW.cubin); END;"
	"UPDATE cache_size SET bytes = (SELECT coalesce(sum(length(cubin)), 0) FROM binaries);";

/* Version 5: what a result's launch did on the hardware and cost in
 * energy (kjit_profile, NAN stored NULL), a row per result that has one,
 * gone with its result; and the objective that chose each best row (the
 * rows from before were chosen by time). */
static const char schema_v5[] =
	"CREATE TABLE profiles("
	" result_id INTEGER PRIMARY KEY REFERENCES results(id) ON DELETE CASCADE,"
	" duration_ns REAL, dram_read_bytes REAL, dram_write_bytes REAL, l2_bytes REAL,"
	" l1_bytes REAL, flop_fp64 REAL, flop_fp32 REAL, flop_fp16 REAL, instructions REAL,"
	" achieved_occupancy REAL, sm_throughput REAL, dram_throughput REAL, passes INTEGER,"
	" peak_dram_bytes_per_s REAL, peak_flop_fp64_per_s REAL, peak_flop_fp32_per_s REAL,"
	" peak_flop_fp16_per_s REAL, dram_bytes_per_s REAL, flop_per_s REAL,"
	" arithmetic_intensity REAL, registers INTEGER, static_shared_bytes INTEGER,"
	" local_bytes INTEGER, const_bytes INTEGER, energy_j REAL, power_w REAL,"
	" energy_rel_spread REAL, counters_reason TEXT, energy_reason TEXT,"
	" created REAL NOT NULL);"
	"ALTER TABLE best ADD COLUMN objective TEXT NOT NULL DEFAULT 'time';";

/* Forward migrations: migrations[v] takes a database from version v to
 * v + 1. Version 0 is an empty file. */
static const char *const migrations[] = { schema_v1, schema_v2, schema_v3, schema_v4,
	                                  schema_v5 };
_Static_assert(sizeof migrations / sizeof *migrations == KJIT__SCHEMA_VERSION,
               "one migration per schema version");

/* Notes a failure that the next write would meet too. */
static void note_failure(kjit__store *s, int rc)
{
	switch (rc & 0xff) {
	case SQLITE_FULL: case SQLITE_READONLY: case SQLITE_IOERR: case SQLITE_CORRUPT:
	case SQLITE_NOTADB: case SQLITE_CANTOPEN: case SQLITE_PERM: case SQLITE_NOLFS: {
		int none = 0;
		atomic_compare_exchange_strong(&s->broken, &none, rc);
		break;
	}
	default:
		break;
	}
}

int kjit__store_broken(kjit__store *s)
{
	return s && atomic_load(&s->broken) != 0;
}

kjit_status kjit__store_fail(kjit__store *s, int rc, const char *what)
{
	if (s)
		note_failure(s, rc);
	const char *msg = s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
	return kjit__error(KJIT_ERR_DB, "%s: %s (SQLite %s, %s)", what, msg, sqlite3_errstr(rc),
	                   s && s->path ? s->path : "no database");
}

kjit_status kjit__store_prepare(kjit__store *s, const char *sql, sqlite3_stmt **st,
                                const char *what)
{
	int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
	return rc == SQLITE_OK ? KJIT_OK : kjit__store_fail(s, rc, what);
}

kjit_status kjit_store_default_path(char **out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_store_default_path: out is NULL");
	*out = NULL;
	const char *env = kjit__env(KJIT__ENV_DB);
	if (env)
		*out = strdup(env);
	/* the XDG rules: a relative XDG_CACHE_HOME is invalid and ignored */
	else if ((env = kjit__env(KJIT__ENV_XDG_CACHE_HOME)) && env[0] == '/')
		*out = kjit__strdup_printf("%s/kjit/kjit.db", env);
	else if ((env = kjit__env(KJIT__ENV_HOME)))
		*out = kjit__strdup_printf("%s/.cache/kjit/kjit.db", env);
	else
		return kjit__error(KJIT_ERR_INVALID_ARG, "no database path: HOME is not set (the "
		                   "database's default is $HOME/.cache/kjit/kjit.db), nor KJIT_DB or "
		                   "an absolute XDG_CACHE_HOME");
	return *out ? KJIT_OK : kjit__error(KJIT_ERR_NOMEM, "out of memory");
}

/* mkdir -p with mode 0700 for the folders it creates. */
static kjit_status make_parent_dirs(const char *path)
{
	char *dir = strdup(path);
	if (!dir)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir) {
		free(dir);
		return KJIT_OK;
	}
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			kjit_status st = kjit__error(KJIT_ERR_IO, "cannot create folder %s for the "
			                             "database: %s", dir, strerror(errno));
			free(dir);
			return st;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	free(dir);
	return KJIT_OK;
}

/* ---- whose files the database is ------------------------------------------ */

kjit_status kjit__store_check_name(const char *path)
{
	/* SQLite reads a name beginning "file:" as a URI (Debian builds it so)
	 * and opens another file than the one the checks below looked at */
	if (strncmp(path, "file:", 5) == 0)
		return kjit__error(KJIT_ERR_IO, "database %s: SQLite would read the name as "
		                   "a URI and open another file; kjit takes a file name, not a URI "
		                   "(./%s names the file of that name)", path, path);
	if (!*path)
		return kjit__error(KJIT_ERR_IO, "the database path is empty");
	return KJIT_OK;
}

/* A database another user can change is one that can hand this user a
 * cubin of theirs (the checksum is integrity, not authentication): its
 * file, its folder and SQLite's side files must belong to this user or
 * to root (who can change any file anyway) and be writable by no one
 * else; a folder others may write is fine when it is sticky (as /tmp),
 * where no one else can remove or replace this user's files. */
static kjit_status check_owner(const char *what, const char *path, const struct stat *sb,
                               int folder)
{
	if (sb->st_uid != geteuid() && sb->st_uid != 0) {
		char buf[1024], name[256] = "";
		struct passwd pw, *found = NULL;
		if (getpwuid_r(sb->st_uid, &pw, buf, sizeof buf, &found) == 0 && found)
			snprintf(name, sizeof name, "user %s, ", found->pw_name);
		return kjit__error(KJIT_ERR_IO, "%s %s belongs to another user (%suid %ld): kjit uses "
		                   "no database another user can change; give a path of your own",
		                   what, path, name, (long)sb->st_uid);
	}
	if (S_ISLNK(sb->st_mode) || !(sb->st_mode & (S_IWGRP | S_IWOTH)) ||
	    (folder && (sb->st_mode & S_ISVTX)))
		return KJIT_OK;
	/* no advice to change a folder's mode: it may be the system's */
	return kjit__error(KJIT_ERR_IO, "%s %s can be written by %s (mode %04o): kjit uses no "
	                   "database another user can change; %s%s", what, path,
	                   sb->st_mode & S_IWOTH ? "every user" : "its group",
	                   (unsigned)(sb->st_mode & 07777),
	                   folder ? "give a path in a folder of your own that others cannot "
	                            "write, or in a sticky one such as /tmp" : "chmod go-w ",
	                   folder ? "" : path);
}

static kjit_status unreachable(const char *what, const char *path)
{
	return kjit__error(KJIT_ERR_IO, "cannot reach %s %s: %s (a folder on its path cannot be "
	                   "entered)", what, path, strerror(errno));
}

/* The folder of a path, malloc'ed; NULL when out of memory. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return !slash ? strdup(".") : slash == path ? strdup("/")
	     : kjit__strdup_printf("%.*s", (int)(slash - path), path);
}

/* The database's folder (a link to one must be this user's or root's:
 * a sticky /tmp lets no one else swap it). The folders above are not
 * checked: /tmp may hold this user's folder. */
static kjit_status check_folder(const char *path)
{
	char *dir = folder_of(path);
	if (!dir)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	struct stat sb;
	kjit_status st = KJIT_OK;
	if (lstat(dir, &sb) != 0 && errno == ENOENT) {
		free(dir); /* none yet: a writer makes it, 0700 */
		return KJIT_OK;
	}
	if (lstat(dir, &sb) != 0)
		st = unreachable("the database folder", dir);
	else if (S_ISLNK(sb.st_mode) && (st = check_owner("the link", dir, &sb, 0)) == KJIT_OK &&
	         stat(dir, &sb) != 0)
		st = unreachable("the database folder", dir);
	if (st == KJIT_OK && !S_ISDIR(sb.st_mode))
		st = kjit__error(KJIT_ERR_IO, "the database folder %s is not a folder", dir);
	if (st == KJIT_OK)
		st = check_owner("the database folder", dir, &sb, 1);
	free(dir);
	return st;
}

/* A file there (the database or a side file of SQLite's) is a regular
 * file, never a link that SQLite would follow; none there is fine. */
static kjit_status check_file(const char *what, const char *path)
{
	struct stat sb;
	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? KJIT_OK : unreachable(what, path);
	if (S_ISLNK(sb.st_mode))
		return kjit__error(KJIT_ERR_IO, "%s %s is a symbolic link: kjit does not follow one "
		                   "(another user may have planted it); give the path it points to",
		                   what, path);
	if (S_ISDIR(sb.st_mode))
		return kjit__error(KJIT_ERR_IO, "%s %s is a directory", what, path);
	if (!S_ISREG(sb.st_mode))
		return kjit__error(KJIT_ERR_IO, "%s %s is not a regular file", what, path);
	return check_owner(what, path, &sb, 0);
}

/* A side file that the user cannot write beside a database the user can
 * (left by a read-only time: SQLite gives its side files the database's
 * mode) keeps every writer out: made writable again when it is the
 * user's, else named with its mode. */
static kjit_status side_writable(const char *side, const struct stat *db)
{
	struct stat sb;
	if (lstat(side, &sb) != 0 || (sb.st_mode & S_IWUSR) || !(db->st_mode & S_IWUSR))
		return KJIT_OK;
	int fd = sb.st_uid == geteuid() ? open(side, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	struct stat fb;
	int fixed = fd >= 0 && fstat(fd, &fb) == 0 && fb.st_ino == sb.st_ino &&
	            fb.st_dev == sb.st_dev && fchmod(fd, (fb.st_mode & 0777) | S_IWUSR) == 0;
	if (fd >= 0)
		close(fd);
	return fixed ? KJIT_OK
	             : kjit__error(KJIT_ERR_IO, "the database's side file %s cannot be written "
	                           "(mode %04o), while the database can: no program can write "
	                           "the database; remove it when no program has the database "
	                           "open", side, (unsigned)(sb.st_mode & 07777));
}

/* The database and the side files a crash may have left; with repair, a
 * read-only side file of the user's is made writable. */
static kjit_status check_files(const char *path, int repair)
{
	static const char *const sides[] = { "", "-wal", "-shm", "-journal" };
	struct stat db;
	kjit_status st = KJIT_OK;
	for (size_t i = 0; i < sizeof sides / sizeof *sides && st == KJIT_OK; i++) {
		char *side = kjit__strdup_printf("%s%s", path, sides[i]);
		st = !side ? kjit__error(KJIT_ERR_NOMEM, "out of memory")
		           : check_file(i ? "the database's side file" : "the database", side);
		if (st == KJIT_OK && i == 0 && repair && lstat(path, &db) != 0)
			repair = 0;
		if (st == KJIT_OK && i > 0 && repair)
			st = side_writable(side, &db);
		free(side);
	}
	return st;
}

static kjit_status check_kjit_file(kjit__store *s, int *version);

/* The schema version and the schema of the database there, read only;
 * a file that cannot be read so is left to the open that follows. */
static kjit_status check_contents(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) != 0 || sb.st_size == 0)
		return KJIT_OK;
	kjit__store s = { .path = (char *)path };
	int version, rc = sqlite3_open_v2(path, &s.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
	                                  NULL);
	kjit_status st = KJIT_OK;
	if (rc == SQLITE_OK && (rc = sqlite3_busy_timeout(s.db, 10000)) == SQLITE_OK &&
	    kjit__store_harden(s.db, path) == KJIT_OK)
		st = check_kjit_file(&s, &version);
	sqlite3_close(s.db);
	/* a verdict on the file stands (another schema, no database, a damaged
	 * one); a failure to read it is the open's to say */
	int code = atomic_load(&s.broken) & 0xff;
	return st == KJIT_ERR_DB && (!code || code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
	               ? st
	               : KJIT_OK;
}

kjit_status kjit_store_check_path(const char *path)
{
	if (!path)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_store_check_path: path is NULL");
	if (strcmp(path, KJIT__STORE_MEMORY) == 0)
		return KJIT_OK;
	kjit_status st = kjit__store_check_name(path);
	if (st == KJIT_OK)
		st = check_folder(path);
	if (st == KJIT_OK)
		st = check_files(path, 0);
	return st == KJIT_OK ? check_contents(path) : st;
}

/* Creates the file 0600 ourselves, so that neither umask nor SQLite's
 * defaults decide its mode (SQLite gives its side files the database's
 * mode), and never through a link; checks the one there, and the side
 * files a crash may have left. */
static kjit_status create_file(const char *path)
{
	kjit_status st = check_folder(path);
	if (st != KJIT_OK)
		return st;
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	else if (errno != EEXIST) {
		/* a database there that this user cannot reach is not one to create */
		int err = errno;
		struct stat sb;
		if (stat(path, &sb) != 0 && errno != ENOENT)
			return unreachable("database", path);
		return kjit__error(KJIT_ERR_IO, "cannot create database %s: %s", path,
		                   strerror(err));
	}
	return check_files(path, 1);
}

static kjit_status exec(kjit__store *s, const char *sql, const char *what)
{
	char *msg = NULL;
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
	if (rc == SQLITE_OK)
		return KJIT_OK;
	note_failure(s, rc);
	kjit_status st = kjit__error(KJIT_ERR_DB, "%s: %s (SQLite %s, %s)", what,
	                             msg ? msg : sqlite3_errmsg(s->db), sqlite3_errstr(rc), s->path);
	sqlite3_free(msg);
	return st;
}

static kjit_status query_int(kjit__store *s, const char *sql, int *out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			*out = sqlite3_column_int(st, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? KJIT_OK : kjit__store_fail(s, rc, sql);
}

kjit_status kjit__store_check_version(const char *path, long long version)
{
	if (version < 0)
		return kjit__error(KJIT_ERR_DB, "%s has schema version %lld, which no kjit writes "
		                   "(its versions are 1 to %d): the file is damaged or not kjit's; "
		                   "nothing was changed", path, version, KJIT__SCHEMA_VERSION);
	if (version > KJIT__SCHEMA_VERSION)
		return kjit__error(KJIT_ERR_DB, "%s has schema version %lld, newer than this kjit "
		                   "(%s) understands (%d): upgrade kjit; nothing was changed",
		                   path, version, PACKAGE_VERSION, KJIT__SCHEMA_VERSION);
	return KJIT_OK;
}

/* One statement, so that both figures come from one snapshot even while
 * another process creates the schema. */
static kjit_status check_foreign(kjit__store *s, int *version_out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db,
	                            "SELECT (SELECT user_version FROM pragma_user_version),"
	                            " (SELECT count(*) FROM sqlite_master WHERE type = 'table')",
	                            -1, &st, NULL);
	int version = 0, tables = 0;
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		version = sqlite3_column_int(st, 0);
		tables = sqlite3_column_int(st, 1);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if ((rc & 0xff) == SQLITE_READONLY)
		return kjit__error(KJIT_ERR_DB, "%s cannot be written by this user: the file, or its "
		                   "folder (where SQLite keeps the -wal and -shm files), is read-only",
		                   s->path);
	if (rc != SQLITE_OK)
		return kjit__store_fail(s, rc, "reading the schema version");
	if (version == 0 && tables > 0)
		return kjit__error(KJIT_ERR_DB, "%s is not a kjit database (it has tables but no "
		                   "kjit schema version); nothing was changed", s->path);
	kjit_status bad = kjit__store_check_version(s->path, version);
	if (bad != KJIT_OK)
		return bad;
	*version_out = version;
	return KJIT_OK;
}

/* ---- the schema is kjit's ------------------------------------------------- */

/* Every object of a schema, one order for both sides of the comparison;
 * ANALYZE's statistics hold no SQL. */
static const char schema_sql[] =
	"SELECT type, name, coalesce(sql, '') FROM sqlite_master"
	" WHERE NOT (type = 'table' AND name LIKE 'sqlite\\_stat%' ESCAPE '\\')"
	" ORDER BY type, name";

static int word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || (c & 0x80);
}

/* sql with each run of spacing dropped, or made one space between two
 * words, into out (as long as sql); the spacing of a schema is the
 * writer's (SQLite keeps the text as given). */
static void unspaced(const char *sql, char *out)
{
	char last = '\0';
	for (const char *p = sql; *p;) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
				p++;
			if (word_char(last) && word_char(*p))
				*out++ = ' ';
			continue;
		}
		*out++ = last = *p++;
	}
	*out = '\0';
}

static int same_sql(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	char *na = malloc(strlen(a) + 1), *nb = malloc(strlen(b) + 1);
	int same = 0;
	if (na && nb) {
		unspaced(a, na);
		unspaced(b, nb);
		same = strcmp(na, nb) == 0;
	}
	free(na);
	free(nb);
	return same;
}

/* kjit's schema at one version, as schema_sql reads it. */
typedef struct ref_row {
	char *type, *name, *sql;
} ref_row;
typedef struct ref_schema {
	ref_row *rows;
	size_t n;
} ref_schema;

/* Each version's schema, made once per process: replaying the migrations
 * into a database in memory takes milliseconds, and every connection
 * (the engine's, its telemetry writer's, a reader's) checks its file
 * against it. Kept until the process ends. */
static ref_schema refs[KJIT__SCHEMA_VERSION + 1];
static int refs_made[KJIT__SCHEMA_VERSION + 1];
static pthread_mutex_t refs_lock = PTHREAD_MUTEX_INITIALIZER;

static char *dup_text(sqlite3_stmt *s, int col)
{
	const char *t = (const char *)sqlite3_column_text(s, col);
	return strdup(t ? t : "");
}

/* The rows of schema_sql in a database in memory that the migrations up
 * to version made; an SQLite code on failure (nothing kept). */
static int ref_make(int version, ref_schema *out)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *s = NULL;
	ref_schema r = { 0 };
	size_t cap = 0;
	int rc = sqlite3_open_v2(KJIT__STORE_MEMORY, &ref, SQLITE_OPEN_READWRITE, NULL);
	for (int v = 0; rc == SQLITE_OK && v < version; v++)
		rc = sqlite3_exec(ref, migrations[v], NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(ref, schema_sql, -1, &s, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (r.n == cap) {
			ref_row *g = realloc(r.rows, (cap = cap ? 2 * cap : 64) * sizeof *g);
			if (!g) {
				rc = SQLITE_NOMEM;
				break;
			}
			r.rows = g;
		}
		ref_row *row = &r.rows[r.n++];
		*row = (ref_row){ dup_text(s, 0), dup_text(s, 1), dup_text(s, 2) };
		rc = row->type && row->name && row->sql ? SQLITE_OK : SQLITE_NOMEM;
	}
	sqlite3_finalize(s);
	sqlite3_close(ref);
	if (rc == SQLITE_DONE) {
		*out = r;
		return SQLITE_OK;
	}
	for (size_t i = 0; i < r.n; i++) {
		free(r.rows[i].type);
		free(r.rows[i].name);
		free(r.rows[i].sql);
	}
	free(r.rows);
	return rc == SQLITE_OK ? SQLITE_ERROR : rc;
}

/* The schema of version (0 .. KJIT__SCHEMA_VERSION), made on first use;
 * an SQLite code when it cannot be made. */
static int ref_of(int version, const ref_schema **out)
{
	int rc = SQLITE_OK;
	pthread_mutex_lock(&refs_lock);
	if (!refs_made[version] && (rc = ref_make(version, &refs[version])) == SQLITE_OK)
		refs_made[version] = 1;
	pthread_mutex_unlock(&refs_lock);
	*out = &refs[version];
	return rc;
}

/* schema_diff()'s verdict that the schemas differ: no SQLite code. */
#define SCHEMA_DIFFERS (-1)

/* The first difference of the rows of a (schema_sql) and b into why:
 * SCHEMA_DIFFERS, 0 when there is none, or SQLite's code of a failed
 * read. */
static int schema_diff(sqlite3_stmt *a, const ref_schema *b, char *why, size_t size)
{
	int ra = sqlite3_step(a);
	size_t ib = 0;
	for (; ra == SQLITE_ROW || ib < b->n; ) {
		if (ra != SQLITE_ROW && ra != SQLITE_DONE)
			return ra; /* a failed read is no verdict */
		const char *ta = ra == SQLITE_ROW ? (const char *)sqlite3_column_text(a, 0) : NULL;
		const char *na = ta ? (const char *)sqlite3_column_text(a, 1) : NULL;
		const ref_row *rb = ib < b->n ? &b->rows[ib] : NULL;
		int c = !ta ? 1 : !rb ? -1 : strcmp(ta, rb->type) ? strcmp(ta, rb->type)
		      : strcmp(na ? na : "", rb->name);
		if (c < 0) {
			snprintf(why, size, "has a %s %s that kjit's schema does not have", ta, na);
			return SCHEMA_DIFFERS;
		}
		if (c > 0) {
			snprintf(why, size, "lacks the %s %s of kjit's schema", rb->type, rb->name);
			return SCHEMA_DIFFERS;
		}
		if (!same_sql((const char *)sqlite3_column_text(a, 2), rb->sql)) {
			snprintf(why, size, "defines the %s %s otherwise than kjit's schema", ta, na);
			return SCHEMA_DIFFERS;
		}
		ra = sqlite3_step(a);
		ib++;
	}
	return ra != SQLITE_DONE ? ra : 0;
}

kjit_status kjit__store_check_schema(sqlite3 *db, const char *path, int version)
{
	kjit_status st = kjit__store_check_version(path, version);
	if (st != KJIT_OK)
		return st;
	const ref_schema *want = NULL;
	sqlite3_stmt *have = NULL;
	char why[512] = "";
	int rc = ref_of(version, &want);
	if (rc != SQLITE_OK)
		return kjit__error(KJIT_ERR_DB, "building kjit's schema of version %d to check %s "
		                   "against: %s", version, path, sqlite3_errstr(rc));
	rc = sqlite3_prepare_v2(db, schema_sql, -1, &have, NULL);
	int diff = rc == SQLITE_OK ? schema_diff(have, want, why, sizeof why) : rc;
	if (diff == SCHEMA_DIFFERS)
		st = kjit__error(KJIT_ERR_DB, "%s is not a kjit database of schema version %d: it %s; "
		                 "kjit runs no SQL that a database holds; nothing was changed", path,
		                 version, why);
	else if (diff != 0)
		st = kjit__error(KJIT_ERR_DB, "reading the schema of %s: %s", path,
		                 sqlite3_errstr(diff));
	sqlite3_finalize(have);
	return st;
}

kjit_status kjit__store_harden(sqlite3 *db, const char *path)
{
	int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	return rc == SQLITE_OK ? KJIT_OK
	                       : kjit__error(KJIT_ERR_DB, "setting up %s: %s", path,
	                                     sqlite3_errstr(rc));
}

/* The version, and the schema that it should have, read in one snapshot
 * (another process may be creating the schema), before anything reads
 * a table. */
static kjit_status check_kjit_file(kjit__store *s, int *version)
{
	kjit_status st = exec(s, "BEGIN", "reading the schema");
	if (st != KJIT_OK)
		return st;
	if ((st = check_foreign(s, version)) == KJIT_OK)
		st = kjit__store_check_schema(s->db, s->path, *version);
	sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL); /* a read: nothing to lose */
	return st;
}

/* Switching a new file to WAL needs an exclusive lock that the busy
 * handler does not wait for; processes creating one database together
 * retry for as long as the busy timeout. */
static kjit_status enable_wal(kjit__store *s)
{
	for (int tries = 0;; tries++) {
		char *msg = NULL;
		int rc = sqlite3_exec(s->db, "PRAGMA journal_mode=WAL", NULL, NULL, &msg);
		sqlite3_free(msg);
		if (rc == SQLITE_OK)
			return KJIT_OK;
		if ((rc & 0xff) != SQLITE_BUSY || tries >= 5000)
			return kjit__store_fail(s, rc, "enabling WAL");
		sqlite3_sleep(2);
	}
}

/* In a sticky folder others can write, another user may plant a side
 * file between the checks and SQLite's open of it (and remove it again,
 * being theirs). The ones SQLite holds once it reads are there and the
 * user's afterwards only if they were the user's: in such a folder no
 * one else can remove or replace them. */
static kjit_status check_held(kjit__store *s)
{
	struct stat sb;
	char *dir = folder_of(s->path);
	int shared = dir && stat(dir, &sb) == 0 && (sb.st_mode & S_ISVTX) &&
	             (sb.st_mode & (S_IWGRP | S_IWOTH));
	free(dir);
	int n;
	kjit_status st = shared ? query_int(s, "SELECT count(*) FROM sqlite_master", &n) : KJIT_OK;
	static const char *const held[] = { "-wal", "-shm" };
	for (size_t i = 0; shared && st == KJIT_OK && i < sizeof held / sizeof *held; i++) {
		char *side = kjit__strdup_printf("%s%s", s->path, held[i]);
		if (!side)
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		else if (lstat(side, &sb) != 0)
			st = kjit__error(KJIT_ERR_IO, "the database's side file %s went away while "
			                 "SQLite opened it: another user may have planted one; nothing "
			                 "was changed", side);
		else
			st = check_file("the database's side file", side);
		free(side);
	}
	return st;
}

static kjit_status migrate(kjit__store *s, void *arg)
{
	(void)arg;
	int version = 0;
	kjit_status st = query_int(s, "PRAGMA user_version", &version);
	if (st != KJIT_OK)
		return st;
	if ((st = kjit__store_check_version(s->path, version)) != KJIT_OK)
		return st;
	for (int v = version; v < KJIT__SCHEMA_VERSION; v++) {
		char what[64];
		snprintf(what, sizeof what, "migrating the schema to version %d", v + 1);
		if ((st = exec(s, migrations[v], what)) != KJIT_OK)
			return st;
	}
	if (version < KJIT__SCHEMA_VERSION) {
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA user_version=%d", KJIT__SCHEMA_VERSION);
		return exec(s, sql, "setting the schema version");
	}
	return KJIT_OK;
}

kjit_status kjit__store_open(const char *path, kjit__store **out)
{
	*out = NULL;
	kjit__store *s = calloc(1, sizeof *s);
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	pthread_mutex_init(&s->lock, NULL);
	kjit_status st = KJIT_OK;
	int memory = strcmp(path, KJIT__STORE_MEMORY) == 0;
	struct stat sb;
	if (!memory && (st = kjit__store_check_name(path)) != KJIT_OK)
		goto fail;
	if (!memory && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		st = kjit__error(KJIT_ERR_IO, "database %s: is a directory", path);
		goto fail;
	}
	if (!memory && ((st = make_parent_dirs(path)) != KJIT_OK || (st = create_file(path)) != KJIT_OK))
		goto fail;
	int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                         SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		st = kjit__store_fail(s, rc, "opening the database");
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, 10000);
	if ((st = kjit__store_harden(s->db, path)) != KJIT_OK)
		goto fail;
	/* Refuse a foreign file before changing anything in it (one that is
	 * not SQLite at all fails here with SQLITE_NOTADB). 16 KiB pages hold
	 * a typical cubin in its row's page, no overflow chain to follow; the
	 * size only takes effect on a new file. The migration takes the write
	 * lock, so it runs only when the version read here is behind (it
	 * reads it again under the lock). */
	int version = 0;
	if ((st = check_kjit_file(s, &version)) != KJIT_OK ||
	    (st = exec(s, "PRAGMA page_size=16384", "setting the page size")) != KJIT_OK ||
	    (st = enable_wal(s)) != KJIT_OK || (!memory && (st = check_held(s)) != KJIT_OK) ||
	    (st = exec(s, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
	               " PRAGMA mmap_size=268435456",
	               "setting pragmas")) != KJIT_OK ||
	    (version < KJIT__SCHEMA_VERSION &&
	     (st = kjit__store_transaction(s, migrate, NULL)) != KJIT_OK))
		goto fail;
	*out = s;
	return KJIT_OK;
fail:
	(void)kjit__store_close(s); /* the open failed: st says why */
	return st;
}

kjit_status kjit__store_close(kjit__store *s)
{
	if (!s)
		return KJIT_OK;
	kjit_status st = s->db ? kjit__store_flush_touches(s) : KJIT_OK;
	kjit__store_finalize_binaries(s);
	int rc = sqlite3_close(s->db);
	if (rc != SQLITE_OK && st == KJIT_OK)
		st = kjit__error(KJIT_ERR_DB, "closing %s: %s", s->path, sqlite3_errstr(rc));
	pthread_mutex_destroy(&s->lock);
	free(s->path);
	free(s);
	return st;
}

sqlite3 *kjit__store_db(kjit__store *s) { return s->db; }
void kjit__store_lock(kjit__store *s) { pthread_mutex_lock(&s->lock); }
void kjit__store_unlock(kjit__store *s) { pthread_mutex_unlock(&s->lock); }

kjit_status kjit__store_bind_samples(sqlite3_stmt *s, int col, const double *v, size_t n)
{
	if (n == 0)
		return sqlite3_bind_null(s, col) == SQLITE_OK
		               ? KJIT_OK
		               : kjit__error(KJIT_ERR_DB, "binding samples: %s",
		                             sqlite3_errmsg(sqlite3_db_handle(s)));
	unsigned char *blob = malloc(n * 8);
	if (!blob)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory for %zu samples", n);
	for (size_t i = 0; i < n; i++) {
		uint64_t u;
		memcpy(&u, &v[i], 8);
		for (int b = 0; b < 8; b++)
			blob[i * 8 + (size_t)b] = (unsigned char)(u >> (8 * b));
	}
	/* SQLite frees blob, also when the bind fails */
	if (sqlite3_bind_blob(s, col, blob, (int)(n * 8), free) != SQLITE_OK)
		return kjit__error(KJIT_ERR_DB, "binding %zu samples: %s", n,
		                   sqlite3_errmsg(sqlite3_db_handle(s)));
	return KJIT_OK;
}

double kjit__store_sample(const void *blob, size_t i)
{
	const unsigned char *p = (const unsigned char *)blob + i * 8;
	uint64_t u = 0;
	double d;
	for (int b = 0; b < 8; b++)
		u |= (uint64_t)p[b] << (8 * b);
	memcpy(&d, &u, 8);
	return d;
}

kjit_status kjit__store_transaction(kjit__store *s, kjit_status (*fn)(kjit__store *, void *),
                                    void *arg)
{
	kjit_status st = exec(s, "BEGIN IMMEDIATE", "starting a write transaction");
	if (st != KJIT_OK)
		return st;
	st = fn(s, arg);
	if (st == KJIT_OK)
		st = exec(s, "COMMIT", "committing");
	if (st != KJIT_OK) {
		char *keep = strdup(kjit__error_msg());
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		if (keep)
			kjit__error_take(st, keep);
	}
	return st;
}

kjit_status kjit__store_device_put(kjit__store *s, const char *device_key, const char *name,
                                   const char *arch, int sm_count, int driver_version)
{
	static const char sql[] =
		"INSERT INTO devices(key, name, arch, sm_count, driver_version, first_seen, last_seen)"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?6)"
		" ON CONFLICT(key) DO UPDATE SET last_seen = excluded.last_seen";
	sqlite3_stmt *st = NULL;
	kjit__store_lock(s);
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, device_key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, arch, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, sm_count);
		sqlite3_bind_int(st, 5, driver_version);
		sqlite3_bind_double(st, 6, kjit__wall_time());
		rc = sqlite3_step(st);
	}
	kjit_status r = rc == SQLITE_DONE ? KJIT_OK : kjit__store_fail(s, rc, "recording the device");
	sqlite3_finalize(st);
	kjit__store_unlock(s);
	return r;
}

/* ---- the words of the enumerated columns --------------------------------- */

/* kjit.h's enums are the homes of the values, the lists of
 * store_schema.h of their words: each word is put at its value, and a
 * list that names fewer values than its enum has does not compile. */
#define RS_TEXT(id, text, abbrev) [KJIT_RESULT_##id] = text,
#define RS_ONE(id, text, abbrev) +1
static const char *const result_statuses[KJIT__RS_COUNT] = { KJIT__RESULT_STATUSES(RS_TEXT) };
_Static_assert(0 KJIT__RESULT_STATUSES(RS_ONE) == KJIT__RS_COUNT, "a result status has no word");
#undef RS_TEXT
#undef RS_ONE
#define OBJ_TEXT(id, text) [KJIT_OBJECTIVE_##id] = text,
#define OBJ_ONE(id, text) +1
static const char *const objectives[KJIT__OBJ_COUNT] = { KJIT__OBJECTIVES(OBJ_TEXT) };
_Static_assert(0 KJIT__OBJECTIVES(OBJ_ONE) == KJIT__OBJ_COUNT, "an objective has no word");
#undef OBJ_TEXT
#undef OBJ_ONE
#define EV_TEXT(id, text) text,
static const char *const event_kinds[KJIT__EV_COUNT] = { KJIT__EVENT_KINDS(EV_TEXT) };
#undef EV_TEXT

static const char *word_of(const char *const *words, size_t n, unsigned i)
{
	return i < n ? words[i] : "unknown";
}

/* The index of name in words[n] into *out. */
static kjit_status word_find(const char *const *words, size_t n, const char *what,
                             const char *name, size_t *out)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(name, words[i]) == 0) {
			*out = i;
			return KJIT_OK;
		}
	return kjit__error(KJIT_ERR_INVALID_ARG, "'%s' is not %s", name ? name : "(null)", what);
}

const char *kjit_result_status_name(kjit_result_status status)
{
	return word_of(result_statuses, KJIT__RS_COUNT, (unsigned)status);
}

kjit_status kjit_result_status_parse(const char *name, kjit_result_status *out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_result_status_parse: out is NULL");
	size_t i;
	kjit_status st = word_find(result_statuses, KJIT__RS_COUNT, "a result status", name, &i);
	if (st == KJIT_OK)
		*out = (kjit_result_status)i;
	return st;
}

const char *kjit__event_kind_name(kjit__event_kind kind)
{
	return word_of(event_kinds, KJIT__EV_COUNT, (unsigned)kind);
}

kjit_status kjit__event_kind_parse(const char *name, kjit__event_kind *out)
{
	size_t i;
	kjit_status st = word_find(event_kinds, KJIT__EV_COUNT, "an event kind", name, &i);
	if (st == KJIT_OK)
		*out = (kjit__event_kind)i;
	return st;
}

const char *kjit_objective_name(kjit_objective objective)
{
	return word_of(objectives, KJIT__OBJ_COUNT, (unsigned)objective);
}

kjit_status kjit_objective_parse(const char *name, kjit_objective *out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_objective_parse: out is NULL");
	size_t i;
	kjit_status st = word_find(objectives, KJIT__OBJ_COUNT, "an objective (time, energy or edp)",
	                           name, &i);
	if (st == KJIT_OK)
		*out = (kjit_objective)i;
	return st;
}

const char *kjit__objective_sql(kjit_objective objective)
{
	switch (objective) {
	case KJIT_OBJECTIVE_ENERGY:
		return "p.energy_j";
	case KJIT_OBJECTIVE_EDP:
		return "p.energy_j * r.median_ns";
	case KJIT_OBJECTIVE_TIME:
		break;
	}
	return "r.median_ns";
}

/* ---- the profile's columns ------------------------------------------------ */

typedef enum profile_kind { PF_REAL, PF_UINT, PF_INT } profile_kind;
#define PF_FIELD(n, kind, unit) { #n, unit, PF_##kind != PF_REAL },
static const kjit_profile_field profile_fields[] = { KJIT__PROFILE_FIELDS(PF_FIELD) };
#undef PF_FIELD
/* where each figure lies in kjit_profile, and its type */
#define PF_LAYOUT(n, kind, unit) { offsetof(kjit_profile, n), PF_##kind },
static const struct {
	size_t offset;
	profile_kind kind;
} profile_layout[] = { KJIT__PROFILE_FIELDS(PF_LAYOUT) };
#undef PF_LAYOUT
#define N_PROFILE_FIELDS (sizeof profile_fields / sizeof *profile_fields)

const kjit_profile_field *kjit_profile_fields(size_t *n)
{
	if (n)
		*n = N_PROFILE_FIELDS;
	return profile_fields;
}

double kjit_profile_get(const kjit_profile *p, size_t f)
{
	if (!p || f >= N_PROFILE_FIELDS)
		return NAN;
	const char *at = (const char *)p + profile_layout[f].offset;
	double d;
	unsigned u;
	int i;
	switch (profile_layout[f].kind) {
	case PF_UINT:
		memcpy(&u, at, sizeof u);
		return (double)u;
	case PF_INT:
		memcpy(&i, at, sizeof i);
		return i < 0 ? NAN : (double)i;
	case PF_REAL:
		break;
	}
	memcpy(&d, at, sizeof d);
	return d;
}

void kjit_profile_set(kjit_profile *p, size_t f, double v)
{
	if (!p || f >= N_PROFILE_FIELDS)
		return;
	char *at = (char *)p + profile_layout[f].offset;
	/* the integers are bounded first: a figure from a file or a peer */
	unsigned u = !(v >= 0) ? 0 : v > (double)UINT_MAX ? UINT_MAX : (unsigned)v;
	int i = !(v >= 0) ? -1 : v > (double)INT_MAX ? INT_MAX : (int)v;
	switch (profile_layout[f].kind) {
	case PF_UINT:
		memcpy(at, &u, sizeof u);
		return;
	case PF_INT:
		memcpy(at, &i, sizeof i);
		return;
	case PF_REAL:
		break;
	}
	memcpy(at, &v, sizeof v);
}

void kjit_profile_clear(kjit_profile *p)
{
	if (!p)
		return;
	memset(p, 0, sizeof *p);
	for (size_t i = 0; i < N_PROFILE_FIELDS; i++)
		kjit_profile_set(p, i, NAN);
}

void kjit__profile_sql_columns(kjit__buf *q, const char *alias)
{
	for (size_t i = 0; i < N_PROFILE_FIELDS; i++) {
		kjit__buf_str(q, ", ");
		kjit__buf_str(q, alias);
		kjit__buf_str(q, ".");
		kjit__buf_str(q, profile_fields[i].name);
	}
}

void kjit__profile_sql_read(sqlite3_stmt *s, int col, kjit_profile *out)
{
	kjit_profile_clear(out);
	for (size_t i = 0; i < N_PROFILE_FIELDS; i++)
		kjit_profile_set(out, i, sqlite3_column_type(s, col + (int)i) == SQLITE_NULL
		                                 ? NAN : sqlite3_column_double(s, col + (int)i));
}

static double peak_of(const kjit_profile *p, double *rate, const char **what)
{
	double best = NAN;
	*rate = NAN;
	*what = NULL;
	if (p->peak_dram_bytes_per_s > 0 && p->dram_bytes_per_s >= 0) {
		best = p->dram_bytes_per_s / p->peak_dram_bytes_per_s;
		*rate = p->dram_bytes_per_s;
		*what = "DRAM";
	}
	const struct {
		double flop, peak;
		const char *name;
	} prec[] = { { p->flop_fp64, p->peak_flop_fp64_per_s, "fp64" },
		     { p->flop_fp32, p->peak_flop_fp32_per_s, "fp32" },
		     { p->flop_fp16, p->peak_flop_fp16_per_s, "fp16" } };
	/* each precision's share of flop_per_s, which is at the peaks' clock
	 * (a precision the GPU does not count is NAN, and no share) */
	double flop = 0;
	for (size_t i = 0; i < sizeof prec / sizeof *prec; i++)
		flop += prec[i].flop > 0 ? prec[i].flop : 0;
	for (size_t i = 0; flop > 0 && p->flop_per_s > 0 && i < sizeof prec / sizeof *prec; i++) {
		double r = prec[i].flop / flop * p->flop_per_s;
		if (prec[i].peak > 0 && r > 0 && !(r / prec[i].peak <= best)) {
			best = r / prec[i].peak;
			*rate = r;
			*what = prec[i].name;
		}
	}
	return best;
}

double kjit_profile_peak(const kjit_profile *profile, double *rate, const char **what)
{
	double r = NAN;
	const char *w = NULL;
	double f = profile ? peak_of(profile, &r, &w) : NAN;
	if (rate)
		*rate = r;
	if (what)
		*what = w;
	return f;
}
