/*
 * store_reader.c - a database opened for a reader that only looks
 * (kjit-top): read-only, after every rule of the store, a failure sorted
 * by what the reader can do about it (wait, or not), and the words of
 * the store's rows parsed by SQL functions, so that its rows come with
 * their enums.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base.h"

/* One reader's opening: the path, the connection, and where a failure
 * goes. */
typedef struct reader {
	const char *path;
	sqlite3 *db;
	kjit__reader_fail *why;
} reader;

/* Records why the database cannot be read; returns its status. */
static kjit_status fail(reader *r, kjit__reader_fail why, const char *fmt, const char *a,
                        const char *b)
{
	*r->why = why;
	return kjit__error(why == KJIT__READER_ERROR ? KJIT_ERR_DB : KJIT_ERR_IO, fmt, a,
	                   b ? b : "");
}

static kjit_status fail_sql(reader *r, int rc, const char *what)
{
	*r->why = KJIT__READER_ERROR;
	return kjit__error(KJIT_ERR_DB, "%s: %s (%s, %s)", what,
	                   r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc), sqlite3_errstr(rc),
	                   r->path);
}

/* Tells a kjit database from an empty or foreign file before anything
 * is prepared against its tables. */
static kjit_status check_schema(reader *r)
{
#define LISTED(table) "'" table "', "
#define COUNTED(table) +1
	/* NULL ends the list: it matches no name */
	static const char q[] =
		"SELECT (SELECT user_version FROM pragma_user_version),"
		" (SELECT count(*) FROM sqlite_master),"
		" (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
		"  (" KJIT__TABLES(LISTED) "NULL))";
	enum { N_TABLES = 0 KJIT__TABLES(COUNTED) };
#undef LISTED
#undef COUNTED
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(r->db, q, -1, &st, NULL);
	int64_t version = 0, objects = 0, tables = 0;
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		version = sqlite3_column_int64(st, 0);
		objects = sqlite3_column_int64(st, 1);
		tables = sqlite3_column_int64(st, 2);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_NOTADB)
		return fail(r, KJIT__READER_FOREIGN, "%s is not a kjit database (not SQLite at all)",
		            r->path, NULL);
	if (rc != SQLITE_OK)
		return fail_sql(r, rc, "reading the schema");
	if (objects == 0)
		return fail(r, KJIT__READER_EMPTY, "the database %s is empty: run a kjit program "
		            "first", r->path, NULL);
	if (version == 0)
		return fail(r, KJIT__READER_FOREIGN, "%s is not a kjit database (no kjit schema)",
		            r->path, NULL);
	if (kjit__store_check_version(r->path, version) != KJIT_OK) {
		*r->why = KJIT__READER_SCHEMA;
		return KJIT_ERR_DB;
	}
	/* a reader only reads: a writer of this kjit migrates an older file */
	if (version < KJIT__SCHEMA_VERSION) {
		char v[64];
		snprintf(v, sizeof v, "%lld, older than this kjit-top reads (%d)", (long long)version,
		         KJIT__SCHEMA_VERSION);
		return fail(r, KJIT__READER_SCHEMA, "%s has kjit schema version %s: a program of this "
		            "kjit (kjit-tune, an application) migrates it when it opens it", r->path, v);
	}
	if (version != KJIT__SCHEMA_VERSION || tables < N_TABLES) {
		char v[64];
		snprintf(v, sizeof v, "%lld, this kjit-top reads %d", (long long)version,
		         KJIT__SCHEMA_VERSION);
		return fail(r, KJIT__READER_SCHEMA, "%s has kjit schema version %s: use the kjit-top "
		            "of the kjit that wrote it", r->path, v);
	}
	/* SQL that the file holds (a trigger, a generated column) never runs */
	if (kjit__store_check_schema(r->db, r->path, (int)version) != KJIT_OK) {
		*r->why = KJIT__READER_FOREIGN;
		return KJIT_ERR_DB;
	}
	return KJIT_OK;
}

/* After a first read failed: a WAL database in a folder this user cannot
 * write, where SQLite cannot make the -shm file a reader needs. With no
 * -wal file beside it, everything is in the database file, which SQLite
 * can then read as immutable. 1 when reopened so, 0 when that was not
 * the failure, -1 (with the message) when it cannot be read at all. */
static int read_only_folder(reader *r)
{
	char wal[4096];
	snprintf(wal, sizeof wal, "%s-wal", r->path);
	int rc = sqlite3_extended_errcode(r->db);
	if ((rc & 0xff) != SQLITE_READONLY && (rc & 0xff) != SQLITE_CANTOPEN)
		return 0;
	struct stat sb;
	if (stat(wal, &sb) == 0 && sb.st_size > 0)
		return fail(r, KJIT__READER_ERROR, "cannot read %s: its folder cannot be written and "
		            "it has a -wal file that only a writer can fold in", r->path, NULL), -1;
	kjit__buf uri = { 0 };
	kjit__buf_str(&uri, "file:");
	for (const char *p = r->path; *p; p++) {
		char esc[4];
		snprintf(esc, sizeof esc, "%%%02X", (unsigned char)*p);
		if (*p == '%' || *p == '?' || *p == '#')
			kjit__buf_str(&uri, esc);
		else
			kjit__buf_add(&uri, p, 1);
	}
	kjit__buf_str(&uri, "?immutable=1");
	char *u = kjit__buf_done(&uri);
	if (!u)
		return fail(r, KJIT__READER_ERROR, "out of memory", NULL, NULL), -1;
	sqlite3_close(r->db);
	r->db = NULL;
	rc = sqlite3_open_v2(u, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
	                     SQLITE_OPEN_URI, NULL);
	free(u);
	if (rc == SQLITE_OK)
		rc = sqlite3_extended_result_codes(r->db, 1);
	if (rc == SQLITE_OK && kjit__store_harden(r->db, r->path) != KJIT_OK) {
		*r->why = KJIT__READER_ERROR;
		return -1;
	}
	return rc == SQLITE_OK ? 1 : (fail_sql(r, rc, "opening the database read-only"), -1);
}

/* KJIT__F_EVENT_KIND(word) and KJIT__F_RESULT_STATUS(word): the enum of
 * a stored word, NULL for a word this kjit does not know. */
static void event_kind_fn(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	kjit__event_kind k;
	(void)argc;
	if (kjit__event_kind_parse((const char *)sqlite3_value_text(argv[0]), &k) == KJIT_OK)
		sqlite3_result_int(c, (int)k);
	else
		sqlite3_result_null(c);
}

static void result_status_fn(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	kjit_result_status s;
	(void)argc;
	if (kjit_result_status_parse((const char *)sqlite3_value_text(argv[0]), &s) == KJIT_OK)
		sqlite3_result_int(c, (int)s);
	else
		sqlite3_result_null(c);
}

/* Direct only: SQL that a database holds never calls them. */
static int add_functions(sqlite3 *db)
{
	static const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY;
	int rc = sqlite3_create_function_v2(db, KJIT__F_EVENT_KIND, 1, flags, NULL, event_kind_fn,
	                                    NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, KJIT__F_RESULT_STATUS, 1, flags, NULL,
		                                result_status_fn, NULL, NULL, NULL);
	return rc;
}

/* The file at r->path, opened and read as a kjit database. */
static kjit_status open_file(reader *r)
{
	int rc = sqlite3_open_v2(r->path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
	                         NULL);
	if (rc != SQLITE_OK)
		return fail_sql(r, rc, "opening the database read-only");
	if (kjit__store_harden(r->db, r->path) != KJIT_OK) {
		*r->why = KJIT__READER_ERROR;
		return KJIT_ERR_DB;
	}
	/* Only WAL recovery or a schema change can make a reader wait. */
	if ((rc = sqlite3_extended_result_codes(r->db, 1)) != SQLITE_OK ||
	    (rc = sqlite3_busy_timeout(r->db, 1000)) != SQLITE_OK)
		return fail_sql(r, rc, "setting up the connection");
	kjit_status st = check_schema(r);
	if (st != KJIT_OK) {
		int again = read_only_folder(r);
		if (again < 0)
			return KJIT_ERR_DB;
		if (again == 1)
			st = check_schema(r);
	}
	return st;
}

kjit_status kjit__store_open_reader(const char *path, sqlite3 **out, kjit__reader_fail *why)
{
	reader r = { path, NULL, why };
	struct stat sb;
	*out = NULL;
	if (kjit__store_check_name(path) != KJIT_OK) {
		*why = KJIT__READER_REFUSED;
		return KJIT_ERR_INVALID_ARG;
	}
	if (stat(path, &sb) != 0 && errno != ENOENT) /* there, but out of reach */
		return fail(&r, KJIT__READER_ERROR, "cannot reach the database %s: %s", path,
		            strerror(errno));
	/* where this user's kjit refuses to make it, waiting is for another
	 * user's: say why */
	if (stat(path, &sb) != 0 && kjit_store_check_path(path) != KJIT_OK) {
		char *why_not = kjit__strdup_printf("%s", kjit__error_msg());
		kjit_status st = fail(&r, KJIT__READER_MISSING, "no database at %s yet, and no kjit "
		                      "program of yours makes one there: %s", path,
		                      why_not ? why_not : "out of memory");
		free(why_not);
		return st;
	}
	if (stat(path, &sb) != 0)
		return fail(&r, KJIT__READER_MISSING, "no database at %s yet: run a kjit program "
		            "first", path, NULL);
	if (sb.st_size == 0)
		return fail(&r, KJIT__READER_EMPTY, "the database %s is empty: run a kjit program "
		            "first", path, NULL);
	kjit_status st = open_file(&r);
	int rc = st == KJIT_OK ? add_functions(r.db) : SQLITE_OK;
	if (rc != SQLITE_OK)
		st = fail_sql(&r, rc, "adding the reader's SQL functions");
	if (st != KJIT_OK) {
		sqlite3_close(r.db);
		return st;
	}
	*out = r.db;
	return KJIT_OK;
}
