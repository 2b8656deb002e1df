/*
 * record_read.c - the record room's reading (doc/DESIGN.md, "The store"):
 * a connection of its own (kjit_records), through which record.c writes
 * runs, results and best rows, and from which kjit-tune reads the
 * objective table, the best row and the rows it exports. The rows leave
 * as values; how they are printed is the reader's.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tuning_private.h"

/* ---- the connection ------------------------------------------------------ */

kjit_status kjit_records_open(const char *path, int must_exist, kjit_records **out)
{
	char *def = NULL;
	struct stat sb;
	kjit_status st;
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "opening the records: no out");
	*out = NULL;
	if (!path) {
		if ((st = kjit_store_default_path(&def)) != KJIT_OK)
			return st;
		path = def;
	}
	kjit_records *rec = NULL;
	if (must_exist && stat(path, &sb) != 0)
		st = kjit__error(KJIT_ERR_NOT_FOUND, "no database %s: %s", path, strerror(errno));
	else if (!(rec = calloc(1, sizeof *rec)))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	else
		st = kjit__store_open(path, &rec->store);
	free(def);
	if (st != KJIT_OK) {
		free(rec);
		return st;
	}
	*out = rec;
	return KJIT_OK;
}

kjit_status kjit_records_close(kjit_records *rec)
{
	if (!rec)
		return KJIT_OK;
	kjit_status st = kjit__store_close(rec->store);
	free(rec);
	return st;
}

static const char *col_text(sqlite3_stmt *s, int col)
{
	return (const char *)sqlite3_column_text(s, col);
}

/* A column's number; NAN for NULL. */
static double col_num(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL ? NAN : sqlite3_column_double(s, col);
}

/* ---- the device ---------------------------------------------------------- */

/* The device key of the results of signature when exactly one is
 * present; *out malloc'ed. */
static kjit_status only_device(kjit_records *rec, const char *signature, char **out)
{
	sqlite3_stmt *s;
	*out = NULL;
	kjit__store_lock(rec->store);
	kjit_status st = kjit__store_prepare(rec->store, "SELECT DISTINCT device_key FROM results WHERE signature = ?1"
	                           " ORDER BY 1 LIMIT 2", &s, "finding the device key");
	if (st == KJIT_OK) {
		int n = 0, rc;
		sqlite3_bind_text(s, 1, signature, -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			if (n++ == 0)
				*out = strdup(col_text(s, 0));
		}
		if (rc != SQLITE_DONE)
			st = kjit__store_fail(rec->store, rc, "finding the device key");
		else if (n == 0)
			st = kjit__error(KJIT_ERR_NOT_FOUND, "no results for kernel signature %s in %s",
			                 signature, rec->store->path);
		else if (n > 1)
			st = kjit__error(KJIT_ERR_INVALID_ARG,
			                 "results of several devices for kernel signature %s: name "
			                 "the device key", signature);
		else if (!*out)
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		sqlite3_finalize(s);
	}
	kjit__store_unlock(rec->store);
	if (st != KJIT_OK) {
		free(*out);
		*out = NULL;
	}
	return st;
}

/* ---- the objective table ------------------------------------------------- */

/* The rows of s (config, status, score) into obj and have. */
static kjit_status load_rows(kjit_records *rec, sqlite3_stmt *s, const kjit__space *space,
                             kjit_objective by, double *obj, uint8_t *have, uint16_t *cfg,
                             size_t *ignored)
{
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *text = col_text(s, 0);
		kjit__json *config = NULL;
		if (text && kjit__json_parse(text, strlen(text), "results.config", &config) != KJIT_OK)
			return kjit__error(KJIT_ERR_DB, "loading results: %s", kjit_last_error());
		/* kjit's strict reader: SQLite's json_extract() misreads some
		 * malformed objects */
		int64_t idx = kjit__config_from_json(space->spec, config, cfg)
		              ? kjit__space_find(space, cfg) : -1;
		kjit__json_free(config);
		if (idx < 0) {
			(*ignored)++;
			continue;
		}
		/* a failure is known under every objective; a success only with
		 * the objective's figure (energy measured, for energy), and a
		 * configuration a race of times stopped as slow, under time
		 * alone: it may still spend the least energy */
		kjit_result_status rs = KJIT__RS_COUNT;
		const char *status = col_text(s, 1);
		if (status)
			(void)kjit_result_status_parse(status, &rs);
		int scored = sqlite3_column_type(s, 2) != SQLITE_NULL;
		if (rs == KJIT_RESULT_OK && scored) {
			double o = sqlite3_column_double(s, 2);
			if (o < obj[idx])
				obj[idx] = o;
		}
		have[idx] |= rs == KJIT_RESULT_OK ? scored
		           : rs != KJIT_RESULT_STOPPED_EARLY || by == KJIT_OBJECTIVE_TIME;
	}
	return rc == SQLITE_DONE ? KJIT_OK : kjit__store_fail(rec->store, rc, "loading results");
}

kjit_status kjit_record_load(kjit_records *rec, const kjit__space *space,
                              const char *signature, const char *device_key,
                              kjit_objective by, double **objective, uint8_t **have,
                              size_t *ignored)
{
	if (!rec || !space || !signature || !objective)
		return kjit__error(KJIT_ERR_INVALID_ARG, "loading results: a NULL argument");
	kjit_status bad = kjit__objective_check(by, "loading results");
	if (bad != KJIT_OK)
		return bad;
	const kjit__spec *spec = space->spec;
	char *problem = kjit__problem_json(&spec->problems[space->problem]);
	double *obj = malloc((space->size ? space->size : 1) * sizeof *obj);
	uint8_t *hv = calloc(space->size ? space->size : 1, 1);
	uint16_t *cfg = malloc((spec->n_params ? spec->n_params : 1) * sizeof *cfg);
	size_t ign = 0;
	sqlite3_stmt *s = NULL;
	char *only = NULL;
	kjit_status st = KJIT_OK;
	*objective = NULL;
	if (have)
		*have = NULL;
	if (!problem || !obj || !hv || !cfg)
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	else if (!device_key && (st = only_device(rec, signature, &only)) == KJIT_OK)
		device_key = only;
	if (st != KJIT_OK)
		goto done;
	for (size_t i = 0; i < space->size; i++)
		obj[i] = INFINITY;
	char sql[512];
	snprintf(sql, sizeof sql, "SELECT r.config, r.status, %s FROM results r LEFT JOIN "
	         KJIT__T_PROFILES " p ON p.result_id = r.id WHERE r.signature = ?1 AND"
	         " r.device_key = ?2 AND r.problem = ?3", kjit__objective_sql(by));
	kjit__store_lock(rec->store);
	if ((st = kjit__store_prepare(rec->store, sql, &s, "loading results")) == KJIT_OK) {
		sqlite3_bind_text(s, 1, signature, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, device_key, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, problem, -1, SQLITE_STATIC);
		st = load_rows(rec, s, space, by, obj, hv, cfg, &ign);
	}
	sqlite3_finalize(s);
	kjit__store_unlock(rec->store);
done:
	free(problem);
	free(cfg);
	free(only);
	if (st != KJIT_OK) {
		free(obj);
		free(hv);
		return st;
	}
	*objective = obj;
	if (have)
		*have = hv;
	else
		free(hv);
	if (ignored)
		*ignored = ign;
	return KJIT_OK;
}

/* ---- the best row ----------------------------------------- */

kjit_status kjit_record_best(kjit_records *rec, const char *signature,
                              const char *device_key, const char *problem, char **config,
                              double *median_ns, kjit_objective *objective,
                              kjit_profile *profile, int *has_profile)
{
	if (!rec || !signature || !device_key || !problem || (profile && !has_profile))
		return kjit__error(KJIT_ERR_INVALID_ARG, "reading the best: a NULL argument");
	if (config)
		*config = NULL;
	if (profile) {
		*has_profile = 0;
		kjit_profile_clear(profile);
	}
	kjit__buf b = { 0 };
	kjit__buf_str(&b, "SELECT b.config, b.median_ns, b.objective, p.result_id IS NOT NULL");
	kjit__profile_sql_columns(&b, "p");
	kjit__buf_str(&b, " FROM best b LEFT JOIN " KJIT__T_PROFILES " p ON p.result_id ="
	              " b.result_id WHERE b.signature = ?1 AND b.device_key = ?2 AND"
	              " b.problem = ?3");
	char *sql = kjit__buf_done(&b);
	if (!sql)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	sqlite3_stmt *s;
	kjit__store_lock(rec->store);
	kjit_status st = kjit__store_prepare(rec->store, sql, &s, "reading the best");
	free(sql);
	if (st == KJIT_OK) {
		sqlite3_bind_text(s, 1, signature, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, device_key, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, problem, -1, SQLITE_STATIC);
		int rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			if (config && !(*config = strdup(col_text(s, 0) ? col_text(s, 0) : "{}")))
				st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
			if (median_ns)
				*median_ns = sqlite3_column_double(s, 1);
			/* an objective of a later kjit is not this one's to judge: time */
			if (objective && kjit_objective_parse(col_text(s, 2), objective) != KJIT_OK)
				*objective = KJIT_OBJECTIVE_TIME;
			if (profile && (*has_profile = sqlite3_column_int(s, 3)))
				kjit__profile_sql_read(s, 4, profile);
		} else if (rc == SQLITE_DONE) {
			st = kjit__error(KJIT_ERR_NOT_FOUND, "no best configuration yet");
		} else {
			st = kjit__store_fail(rec->store, rc, "reading the best");
		}
		sqlite3_finalize(s);
	}
	kjit__store_unlock(rec->store);
	return st;
}

/* ---- the rows ------------------------------------------------------------ */

/* The query's columns: the results row's, each parameter's value, then
 * the profile's (whether the result has one, its reasons, its figures). */
enum { C_ID, C_RUN, C_SIG, C_DEV, C_PROB, C_CONFIG, C_STATUS, C_TIMER, C_L2, C_MEDIAN,
       C_SPREAD, C_MIN, C_MAX, C_N, C_SAMPLES, C_OBJ, C_COMPILE, C_MSG, C_CREATED,
       C_ORDINAL, C_UUID, C_PARAMS };
enum { P_HAS, P_COUNTERS_REASON, P_ENERGY_REASON, P_FIELDS };

/* The rows' query: of run_id (?1) or of (signature ?2, device_key ?3,
 * problems ?4...). NULL when out of memory. */
static char *rows_sql(const kjit_record_query *q)
{
	kjit__buf b = { 0 };
	kjit__buf_str(&b, "SELECT r.id, r.run_id, r.signature, r.device_key, r.problem, r.config,"
	              " r.status, r.timer, r.l2, r.median_ns, r.spread_ns, r.min_ns, r.max_ns,"
	              " r.n_samples, r.samples, r.objective, r.compile_ms, r.message, r.created,"
	              " r.device_ordinal, r.device_uuid");
	size_t np = q->spec ? q->spec->n_params : 0;
	for (size_t i = 0; i < np; i++) {
		/* parameter names are identifiers (spec.c checks them) */
		kjit__buf_str(&b, ", json_extract(r.config, '$.\"");
		kjit__buf_str(&b, q->spec->params[i].name);
		kjit__buf_str(&b, "\"')");
	}
	kjit__buf_str(&b, ", p.result_id IS NOT NULL, p." KJIT__C_COUNTERS_REASON ", p."
	              KJIT__C_ENERGY_REASON);
	kjit__profile_sql_columns(&b, "p");
	kjit__buf_str(&b, " FROM results r LEFT JOIN " KJIT__T_PROFILES " p ON p.result_id = r.id");
	if (q->run_id > 0) {
		kjit__buf_str(&b, " WHERE r.run_id = ?1 ORDER BY r.id");
	} else {
		kjit__buf_str(&b, " WHERE r.signature = ?2 AND r.device_key = ?3 AND"
		              " r.problem IN (");
		for (size_t i = 0; i < q->n_problems; i++) {
			char ph[32];
			snprintf(ph, sizeof ph, "%s?%zu", i ? ", " : "", i + 4);
			kjit__buf_str(&b, ph);
		}
		kjit__buf_str(&b, q->n_problems ? ") ORDER BY r.id" : "NULL) ORDER BY r.id");
	}
	return kjit__buf_done(&b);
}

/* Calls begin with the query's subject: a run's from its row. */
static kjit_status rows_begin(kjit_records *rec, const kjit_record_query *q,
                              const kjit_record_reader *reader)
{
	if (q->run_id <= 0) {
		reader->begin(reader->ctx, q->signature, q->device_key);
		return KJIT_OK;
	}
	sqlite3_stmt *s;
	kjit_status st = kjit__store_prepare(rec->store, "SELECT signature, device_key FROM runs WHERE id = ?1", &s,
	                      "reading the run");
	if (st != KJIT_OK)
		return st;
	sqlite3_bind_int64(s, 1, q->run_id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		reader->begin(reader->ctx, col_text(s, 0) ? col_text(s, 0) : "",
		              col_text(s, 1) ? col_text(s, 1) : "");
	else if (rc == SQLITE_DONE)
		reader->begin(reader->ctx, q->signature, q->device_key);
	else
		st = kjit__store_fail(rec->store, rc, "reading the run");
	sqlite3_finalize(s);
	return st;
}

/* Where the rows' arrays live while the reader reads one. */
typedef struct row_space {
	const char **values;
	double *figures, *samples;
	size_t n_figures, cap;
} row_space;

/* Row s as *r, its arrays in m (the samples grown as needed). */
static kjit_status row_of(sqlite3_stmt *s, size_t np, row_space *m, kjit_record_row *r)
{
	const unsigned char *blob = sqlite3_column_blob(s, C_SAMPLES);
	size_t n = blob ? (size_t)sqlite3_column_bytes(s, C_SAMPLES) / 8 : 0;
	if (n > m->cap) {
		double *grown = realloc(m->samples, n * sizeof *grown);
		if (!grown)
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		m->samples = grown;
		m->cap = n;
	}
	for (size_t i = 0; i < n; i++)
		m->samples[i] = kjit__store_sample(blob, i);
	for (size_t i = 0; i < np; i++)
		m->values[i] = col_text(s, C_PARAMS + (int)i);
	int pcol = C_PARAMS + (int)np;
	for (size_t i = 0; i < m->n_figures; i++)
		m->figures[i] = col_num(s, pcol + P_FIELDS + (int)i);
	*r = (kjit_record_row){
		.id = sqlite3_column_int64(s, C_ID), .run_id = col_num(s, C_RUN),
		.signature = col_text(s, C_SIG), .device_key = col_text(s, C_DEV),
		.problem = col_text(s, C_PROB), .config = col_text(s, C_CONFIG),
		.status = col_text(s, C_STATUS), .timer = col_text(s, C_TIMER),
		.l2 = col_text(s, C_L2), .median_ns = col_num(s, C_MEDIAN),
		.spread_ns = col_num(s, C_SPREAD), .min_ns = col_num(s, C_MIN),
		.max_ns = col_num(s, C_MAX), .n_samples = col_num(s, C_N), .samples = m->samples,
		.n_blob = n, .objective = col_num(s, C_OBJ), .compile_ms = col_num(s, C_COMPILE),
		.message = col_text(s, C_MSG), .created = col_num(s, C_CREATED),
		.device_ordinal = col_num(s, C_ORDINAL), .device_uuid = col_text(s, C_UUID),
		.values = m->values, .has_profile = sqlite3_column_int(s, pcol + P_HAS),
		.figures = m->figures,
		.counters_reason = col_text(s, pcol + P_COUNTERS_REASON),
		.energy_reason = col_text(s, pcol + P_ENERGY_REASON)
	};
	return KJIT_OK;
}

/* Hands each row of s to the reader; the SQLite code that ended them, or
 * SQLITE_NOMEM with *st set. */
static int rows_read(sqlite3_stmt *s, size_t np, const kjit_record_reader *reader,
                     kjit_status *st)
{
	row_space m = { 0 };
	kjit_profile_fields(&m.n_figures);
	m.values = calloc(np ? np : 1, sizeof *m.values);
	m.figures = calloc(m.n_figures ? m.n_figures : 1, sizeof *m.figures);
	int rc = SQLITE_NOMEM;
	if (!m.values || !m.figures)
		*st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	else
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			kjit_record_row r;
			if ((*st = row_of(s, np, &m, &r)) != KJIT_OK) {
				rc = SQLITE_NOMEM;
				break;
			}
			reader->row(reader->ctx, &r);
		}
	free(m.values);
	free(m.figures);
	free(m.samples);
	return rc;
}

kjit_status kjit_record_rows(kjit_records *rec, const kjit_record_query *q,
                              const kjit_record_reader *reader)
{
	if (!rec || !q || !reader || !reader->begin || !reader->row)
		return kjit__error(KJIT_ERR_INVALID_ARG, "reading results: a NULL argument");
	if (q->run_id <= 0 && (!q->signature || (q->n_problems && !q->problems)))
		return kjit__error(KJIT_ERR_INVALID_ARG, "reading results: no run, and no signature "
		                   "or no problems");
	if (q->run_id <= 0 && q->n_problems > KJIT_RECORD_PROBLEMS_MAX)
		return kjit__error(KJIT_ERR_INVALID_ARG, "reading results: %zu problems (at most %d)",
		                   q->n_problems, KJIT_RECORD_PROBLEMS_MAX);
	kjit_record_query one = *q;
	char *only = NULL;
	if (q->run_id <= 0 && !q->device_key) {
		kjit_status st = only_device(rec, q->signature, &only);
		if (st != KJIT_OK)
			return st;
		one.device_key = only;
		q = &one;
	}
	char *sql = rows_sql(q);
	if (!sql) {
		free(only);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	sqlite3_stmt *s;
	kjit__store_lock(rec->store);
	kjit_status st = kjit__store_prepare(rec->store, sql, &s, "exporting results");
	free(sql);
	if (st == KJIT_OK && (st = rows_begin(rec, q, reader)) == KJIT_OK) {
		if (q->run_id > 0) {
			sqlite3_bind_int64(s, 1, q->run_id);
		} else {
			sqlite3_bind_text(s, 2, q->signature, -1, SQLITE_STATIC);
			sqlite3_bind_text(s, 3, q->device_key, -1, SQLITE_STATIC);
			for (size_t i = 0; i < q->n_problems; i++)
				sqlite3_bind_text(s, (int)i + 4, q->problems[i], -1, SQLITE_STATIC);
		}
		int rc = rows_read(s, q->spec ? q->spec->n_params : 0, reader, &st);
		if (st == KJIT_OK && rc != SQLITE_DONE)
			st = kjit__store_fail(rec->store, rc, "exporting results");
	}
	sqlite3_finalize(s);
	kjit__store_unlock(rec->store);
	free(only);
	return st;
}
