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

kjit_status kjit__store_default_path(char **out)
{
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

/* A database another user can change is one that can hand this user a
 * cubin of theirs (the checksum is integrity, not authentication): its
 * file, its folder and SQLite's side files must belong to this user or
 * to root (who can change any file anyway) and be writable by no one
 * else. */
static kjit_status check_owner(const char *what, const char *path, const struct stat *sb)
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
	if (!S_ISLNK(sb->st_mode) && (sb->st_mode & (S_IWGRP | S_IWOTH)))
		return kjit__error(KJIT_ERR_IO, "%s %s can be written by %s (mode %03o): kjit uses no "
		                   "database another user can change; chmod go-w %s",
		                   what, path, sb->st_mode & S_IWOTH ? "every user" : "its group",
		                   (unsigned)(sb->st_mode & 0777), path);
	return KJIT_OK;
}

static kjit_status unreachable(const char *what, const char *path)
{
	return kjit__error(KJIT_ERR_IO, "cannot reach %s %s: %s (a folder on its path cannot be "
	                   "entered)", what, path, strerror(errno));
}

/* The database's folder (a link to one must be this user's or root's:
 * a sticky /tmp lets no one else swap it). The folders above are not
 * checked: /tmp may hold this user's folder. */
static kjit_status check_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = !slash ? strdup(".") : slash == path ? strdup("/")
	          : kjit__strdup_printf("%.*s", (int)(slash - path), path);
	if (!dir)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	struct stat sb;
	kjit_status st = KJIT_OK;
	if (lstat(dir, &sb) != 0)
		st = unreachable("the database folder", dir);
	else if (S_ISLNK(sb.st_mode) && (st = check_owner("the link", dir, &sb)) == KJIT_OK &&
	         stat(dir, &sb) != 0)
		st = unreachable("the database folder", dir);
	if (st == KJIT_OK && !S_ISDIR(sb.st_mode))
		st = kjit__error(KJIT_ERR_IO, "the database folder %s is not a folder", dir);
	if (st == KJIT_OK)
		st = check_owner("the database folder", dir, &sb);
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
	return check_owner(what, path, &sb);
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
	static const char *const sides[] = { "", "-wal", "-shm", "-journal" };
	for (size_t i = 0; i < sizeof sides / sizeof *sides && st == KJIT_OK; i++) {
		char *side = kjit__strdup_printf("%s%s", path, sides[i]);
		st = !side ? kjit__error(KJIT_ERR_NOMEM, "out of memory")
		           : check_file(i ? "the database's side file" : "the database", side);
		free(side);
	}
	return st;
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
	if (version > KJIT__SCHEMA_VERSION)
		return kjit__error(KJIT_ERR_DB, "%s has schema version %d, newer than this kjit "
		                   "(%s) understands (%d): upgrade kjit; nothing was changed",
		                   s->path, version, PACKAGE_VERSION, KJIT__SCHEMA_VERSION);
	*version_out = version;
	return KJIT_OK;
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

static kjit_status migrate(kjit__store *s, void *arg)
{
	(void)arg;
	int version = 0;
	kjit_status st = query_int(s, "PRAGMA user_version", &version);
	if (st != KJIT_OK)
		return st;
	if (version > KJIT__SCHEMA_VERSION)
		return kjit__error(KJIT_ERR_DB, "%s has schema version %d, newer than this kjit "
		                   "(%s) understands (%d): upgrade kjit", s->path, version,
		                   PACKAGE_VERSION, KJIT__SCHEMA_VERSION);
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
	int memory = strcmp(path, ":memory:") == 0;
	struct stat sb;
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
	/* Refuse a foreign file before changing anything in it (one that is
	 * not SQLite at all fails here with SQLITE_NOTADB). 16 KiB pages hold
	 * a typical cubin in its row's page, no overflow chain to follow; the
	 * size only takes effect on a new file. The migration takes the write
	 * lock, so it runs only when the version read here is behind (it
	 * reads it again under the lock). */
	int version = 0;
	if ((st = check_foreign(s, &version)) != KJIT_OK ||
	    (st = exec(s, "PRAGMA page_size=16384", "setting the page size")) != KJIT_OK ||
	    (st = enable_wal(s)) != KJIT_OK ||
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

#define RS_TEXT(id, text, abbrev) text,
static const char *const result_statuses[KJIT__RS_COUNT] = { KJIT__RESULT_STATUSES(RS_TEXT) };
#undef RS_TEXT
#define EV_TEXT(id, text) text,
static const char *const event_kinds[KJIT__EV_COUNT] = { KJIT__EVENT_KINDS(EV_TEXT) };
static const char *const objectives[KJIT__OBJ_COUNT] = { KJIT__OBJECTIVES(EV_TEXT) };
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

const char *kjit__result_status_name(kjit__result_status status)
{
	return word_of(result_statuses, KJIT__RS_COUNT, (unsigned)status);
}

kjit_status kjit__result_status_parse(const char *name, kjit__result_status *out)
{
	size_t i;
	kjit_status st = word_find(result_statuses, KJIT__RS_COUNT, "a result status", name, &i);
	if (st == KJIT_OK)
		*out = (kjit__result_status)i;
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

const char *kjit__objective_name(kjit__objective objective)
{
	return word_of(objectives, KJIT__OBJ_COUNT, (unsigned)objective);
}

kjit_status kjit__objective_parse(const char *name, kjit__objective *out)
{
	size_t i;
	kjit_status st = word_find(objectives, KJIT__OBJ_COUNT, "an objective (time, energy or edp)",
	                           name, &i);
	if (st == KJIT_OK)
		*out = (kjit__objective)i;
	return st;
}

/* ---- the profile's columns ------------------------------------------------ */

#define PF_FIELD(n, kind, unit) { #n, offsetof(kjit_profile, n), KJIT__PF_##kind, unit },
static const kjit__profile_field profile_fields[] = { KJIT__PROFILE_FIELDS(PF_FIELD) };
#undef PF_FIELD

const kjit__profile_field *kjit__profile_fields(size_t *n)
{
	*n = sizeof profile_fields / sizeof *profile_fields;
	return profile_fields;
}

double kjit__profile_get(const kjit_profile *p, const kjit__profile_field *f)
{
	const char *at = (const char *)p + f->offset;
	double d;
	unsigned u;
	int i;
	switch (f->kind) {
	case KJIT__PF_UINT:
		memcpy(&u, at, sizeof u);
		return (double)u;
	case KJIT__PF_INT:
		memcpy(&i, at, sizeof i);
		return i < 0 ? NAN : (double)i;
	case KJIT__PF_REAL:
		break;
	}
	memcpy(&d, at, sizeof d);
	return d;
}

void kjit__profile_set(kjit_profile *p, const kjit__profile_field *f, double v)
{
	char *at = (char *)p + f->offset;
	/* the integers are bounded first: a figure from a file or a peer */
	unsigned u = !(v >= 0) ? 0 : v > (double)UINT_MAX ? UINT_MAX : (unsigned)v;
	int i = !(v >= 0) ? -1 : v > (double)INT_MAX ? INT_MAX : (int)v;
	switch (f->kind) {
	case KJIT__PF_UINT:
		memcpy(at, &u, sizeof u);
		return;
	case KJIT__PF_INT:
		memcpy(at, &i, sizeof i);
		return;
	case KJIT__PF_REAL:
		break;
	}
	memcpy(at, &v, sizeof v);
}

void kjit__profile_clear(kjit_profile *p)
{
	size_t n;
	const kjit__profile_field *f = kjit__profile_fields(&n);
	memset(p, 0, sizeof *p);
	for (size_t i = 0; i < n; i++)
		kjit__profile_set(p, &f[i], NAN);
}

void kjit__profile_sql_columns(kjit__buf *q, const char *alias)
{
	size_t n;
	const kjit__profile_field *f = kjit__profile_fields(&n);
	for (size_t i = 0; i < n; i++) {
		kjit__buf_str(q, ", ");
		kjit__buf_str(q, alias);
		kjit__buf_str(q, ".");
		kjit__buf_str(q, f[i].name);
	}
}

void kjit__profile_sql_read(sqlite3_stmt *s, int col, kjit_profile *out)
{
	size_t n;
	const kjit__profile_field *f = kjit__profile_fields(&n);
	kjit__profile_clear(out);
	for (size_t i = 0; i < n; i++)
		kjit__profile_set(out, &f[i], sqlite3_column_type(s, col + (int)i) == SQLITE_NULL
		                                      ? NAN : sqlite3_column_double(s, col + (int)i));
}

double kjit__profile_peak(const kjit_profile *p, double *rate, const char **what)
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
