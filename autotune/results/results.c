/*
 * results.c - tuning results in the kjit database (doc/DESIGN.md, "The store"):
 * a kjit__store connection of its own, through which the record room
 * (record.h) writes runs, results and best rows; the objective table, the
 * best row and the exports read them.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "results.h"

struct kt_results {
	kjit__store *store;
};

/* ---- the connection ------------------------------------------------------ */

kjit_status kt_results_open(const char *path, kt_results **out)
{
	char *def = NULL;
	kjit_status st;
	*out = NULL;
	if (!path) {
		if ((st = kjit__store_default_path(&def)) != KJIT_OK)
			return st;
		path = def;
	}
	kt_results *r = calloc(1, sizeof *r);
	if (!r) {
		free(def);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	st = kjit__store_open(path, &r->store);
	free(def);
	if (st != KJIT_OK) {
		free(r);
		return st;
	}
	*out = r;
	return KJIT_OK;
}

kjit_status kt_results_open_existing(const char *path, kt_results **out)
{
	char *def = NULL;
	struct stat sb;
	kjit_status st;
	*out = NULL;
	if (!path) {
		if ((st = kjit__store_default_path(&def)) != KJIT_OK)
			return st;
		path = def;
	}
	if (stat(path, &sb) != 0) {
		st = kjit__error(KJIT_ERR_NOT_FOUND, "no database %s: %s", path, strerror(errno));
		free(def);
		return st;
	}
	st = kt_results_open(path, out);
	free(def);
	return st;
}

kjit_status kt_results_close(kt_results *r)
{
	if (!r)
		return KJIT_OK;
	kjit_status st = kjit__store_close(r->store);
	free(r);
	return st;
}

sqlite3 *kt_results_db(kt_results *r) { return kjit__store_db(r->store); }

static kjit_status prep(kt_results *r, const char *sql, sqlite3_stmt **st, const char *what)
{
	int rc = sqlite3_prepare_v2(kjit__store_db(r->store), sql, -1, st, NULL);
	return rc == SQLITE_OK ? KJIT_OK : kjit__store_fail(r->store, rc, what);
}

static void bind_text(sqlite3_stmt *s, int i, const char *t)
{
	if (t)
		sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static const char *col_text(sqlite3_stmt *s, int col)
{
	return (const char *)sqlite3_column_text(s, col);
}

/* ---- runs and evaluations: the record room's (record.h) --------------- */

kjit_status kt_run_start(kt_results *r, const kjit__run_desc *d, kjit__run **out)
{
	return kjit__record_run_start(r->store, d, out);
}

kjit_status kt_run_finish(kt_results *r, const kjit__run *run, const char *status)
{
	return kjit__record_run_finish(r->store, run, status);
}

kjit_status kt_results_record(kt_results *r, const kjit__run *run, const kjit__eval *e,
                              int64_t *result_id, int *improved)
{
	return kjit__record_eval(r->store, run, e, result_id, improved);
}

kjit_status kt_results_best_rechoose(kt_results *r, const kjit__run *run)
{
	return kjit__record_rechoose(r->store, run);
}

/* ---- the objective table ------------------------------------------------- */

/* A row's configuration is matched to the space by each parameter's
 * value (json_extract), compared as text, else as a number. */
kjit_status kt_results_load(kt_results *r, const kjit__space *space, const char *signature,
                            const char *device_key, kjit__objective by, double **objective,
                            uint8_t **have, size_t *ignored)
{
	const kjit__spec *spec = space->spec;
	char *problem = kjit__problem_json(&spec->problems[space->problem]);
	double *obj = malloc((space->size ? space->size : 1) * sizeof *obj);
	uint8_t *hv = calloc(space->size ? space->size : 1, 1);
	uint16_t *cfg = malloc((spec->n_params ? spec->n_params : 1) * sizeof *cfg);
	size_t ign = 0;
	sqlite3_stmt *s = NULL;
	kjit_status st = KJIT_OK;
	*objective = NULL;
	if (have)
		*have = NULL;
	if (!problem || !obj || !hv || !cfg) {
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < space->size; i++)
		obj[i] = INFINITY;
	sqlite3_stmt *q = NULL;
	kjit__store_lock(r->store);
	char sql[512];
	snprintf(sql, sizeof sql, "SELECT r.config, r.status, %s FROM results r LEFT JOIN "
	         KJIT__T_PROFILES " p ON p.result_id = r.id WHERE r.signature = ?1 AND"
	         " r.device_key = ?2 AND r.problem = ?3", kjit__objective_sql(by));
	st = prep(r, sql, &s, "loading results");
	if (st == KJIT_OK &&
	    (st = prep(r, "SELECT json_extract(?1, '$.\"' || ?2 || '\"')", &q,
	               "reading a configuration")) != KJIT_OK)
		sqlite3_finalize(s);
	if (st == KJIT_OK) {
		bind_text(s, 1, signature);
		bind_text(s, 2, device_key);
		bind_text(s, 3, problem);
		int rc;
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			const char *text = (const char *)sqlite3_column_text(s, 0);
			int valid = text != NULL;
			/* every parameter's value text, compared to the spec's values */
			for (size_t i = 0; valid && i < spec->n_params; i++) {
				const kjit__param *p = &spec->params[i];
				char *v = NULL;
				valid = 0;
				sqlite3_reset(q);
				sqlite3_bind_text(q, 1, text, -1, SQLITE_STATIC);
				sqlite3_bind_text(q, 2, p->name, -1, SQLITE_STATIC);
				int qrc = sqlite3_step(q);
				if (qrc != SQLITE_ROW) { /* an error, not a configuration outside */
					rc = qrc;
					break;
				}
				if (sqlite3_column_text(q, 0))
					v = strdup((const char *)sqlite3_column_text(q, 0));
				long k = v ? kjit__param_value_index(p, v) : -1;
				if (k >= 0) {
					cfg[i] = (uint16_t)k;
					valid = 1;
				}
				free(v);
			}
			if (rc != SQLITE_ROW)
				break;
			int64_t idx = valid ? kjit__space_find(space, cfg) : -1;
			if (idx < 0) {
				ign++;
				continue;
			}
			/* a failure is known under every objective; a success only
			 * with the objective's figure (energy measured, for energy),
			 * and a configuration a race of times stopped as slow, under
			 * time alone: it may still spend the least energy */
			kjit__result_status rs = KJIT__RS_COUNT;
			const char *status = (const char *)sqlite3_column_text(s, 1);
			if (status)
				(void)kjit__result_status_parse(status, &rs);
			int scored = sqlite3_column_type(s, 2) != SQLITE_NULL;
			if (rs == KJIT__RS_OK && scored) {
				double o = sqlite3_column_double(s, 2);
				if (o < obj[idx])
					obj[idx] = o;
			}
			hv[idx] |= rs == KJIT__RS_OK ? scored
			         : rs != KJIT__RS_STOPPED_EARLY || by == KJIT__OBJ_TIME;
		}
		if (rc != SQLITE_DONE)
			st = kjit__store_fail(r->store, rc, "loading results");
		sqlite3_finalize(s);
		sqlite3_finalize(q);
	}
	kjit__store_unlock(r->store);
done:
	free(problem);
	free(cfg);
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

/* The best row of (signature, device_key, problem): each output that is
 * not NULL (the profile's reasons left NULL). KJIT_ERR_NOT_FOUND when there
 * is none. */
static kjit_status read_best_row(kt_results *r, const char *signature, const char *device_key,
                                 const char *problem, char **config, double *median_ns,
                                 kjit__objective *objective, kjit_profile *profile,
                                 int *has_profile)
{
	kjit__buf q = { 0 };
	kjit__buf_str(&q, "SELECT b.config, b.median_ns, b.objective, p.result_id IS NOT NULL");
	kjit__profile_sql_columns(&q, "p");
	kjit__buf_str(&q, " FROM best b LEFT JOIN " KJIT__T_PROFILES " p ON p.result_id ="
	              " b.result_id WHERE b.signature = ?1 AND b.device_key = ?2 AND"
	              " b.problem = ?3");
	char *sql = kjit__buf_done(&q);
	if (!sql)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	sqlite3_stmt *s;
	kjit__store_lock(r->store);
	kjit_status st = prep(r, sql, &s, "reading the best");
	free(sql);
	if (st == KJIT_OK) {
		bind_text(s, 1, signature);
		bind_text(s, 2, device_key);
		bind_text(s, 3, problem);
		int rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			if (config && !(*config = strdup(col_text(s, 0) ? col_text(s, 0) : "{}")))
				st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
			if (median_ns)
				*median_ns = sqlite3_column_double(s, 1);
			/* an objective of a later kjit is not this one's to judge: time */
			if (objective && kjit__objective_parse(col_text(s, 2), objective) != KJIT_OK)
				*objective = KJIT__OBJ_TIME;
			if (profile && (*has_profile = sqlite3_column_int(s, 3)))
				kjit__profile_sql_read(s, 4, profile);
		} else if (rc == SQLITE_DONE) {
			st = kjit__error(KJIT_ERR_NOT_FOUND, "no best configuration yet");
		} else {
			st = kjit__store_fail(r->store, rc, "reading the best");
		}
		sqlite3_finalize(s);
	}
	kjit__store_unlock(r->store);
	return st;
}

kjit_status kt_results_best(kt_results *r, const char *signature, const char *device_key,
                            const char *problem, char **config, double *median_ns)
{
	*config = NULL;
	return read_best_row(r, signature, device_key, problem, config, median_ns, NULL, NULL,
	                     NULL);
}

kjit_status kt_results_best_profile(kt_results *r, const char *signature,
                                    const char *device_key, const char *problem,
                                    kjit__objective *objective, kjit_profile *profile,
                                    int *has_profile)
{
	*has_profile = 0;
	kjit__profile_clear(profile);
	return read_best_row(r, signature, device_key, problem, NULL, NULL, objective, profile,
	                     has_profile);
}

void kt_profile_peak_text(const kjit_profile *p, char *buf, size_t size)
{
	double rate;
	const char *what;
	double f = kjit_profile_peak(p, &rate, &what);
	const char *unit = what && strcmp(what, "DRAM") == 0 ? "B/s" : "FLOP/s";
	static const char *const prefixes[] = { "", "k", "M", "G", "T", "P", "E" };
	int k = 0;
	for (; k < 6 && rate >= 1000; k++)
		rate /= 1000;
	if (isnan(f))
		snprintf(buf, size, "%s", "");
	else
		snprintf(buf, size, "%.3g %s%s %s, %.0f%% of peak", rate, prefixes[k], unit, what,
		         f * 100);
}

kjit_status kt_results_only_device(kt_results *r, const char *signature, char **out)
{
	sqlite3_stmt *s;
	*out = NULL;
	kjit__store_lock(r->store);
	kjit_status st = prep(r, "SELECT DISTINCT device_key FROM results WHERE signature = ?1"
	                         " ORDER BY 1 LIMIT 2", &s, "finding the device key");
	if (st == KJIT_OK) {
		int n = 0, rc;
		bind_text(s, 1, signature);
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			if (n++ == 0)
				*out = strdup((const char *)sqlite3_column_text(s, 0));
		}
		if (rc != SQLITE_DONE)
			st = kjit__store_fail(r->store, rc, "finding the device key");
		else if (n == 0)
			st = kjit__error(KJIT_ERR_NOT_FOUND, "no results for kernel signature %s in %s",
			                 signature, r->store->path);
		else if (n > 1)
			st = kjit__error(KJIT_ERR_INVALID_ARG,
			                 "results of several devices for kernel signature %s: pick one "
			                 "with --device-key", signature);
		else if (!*out)
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		sqlite3_finalize(s);
	}
	kjit__store_unlock(r->store);
	if (st != KJIT_OK) {
		free(*out);
		*out = NULL;
	}
	return st;
}

/* ---- export ------------------------------------------------------------------ */

/* A column's number divided by per (a time in ns to another unit, with one
 * correctly rounded division); null for NULL and for what JSON cannot
 * hold (an infinity another writer stored). */
static void put_num(FILE *f, sqlite3_stmt *s, int col, double per)
{
	double v = sqlite3_column_double(s, col) / per;
	if (sqlite3_column_type(s, col) == SQLITE_NULL || !isfinite(v))
		fputs("null", f);
	else
		fprintf(f, "%.17g", v);
}

static void put_csv_num(FILE *f, sqlite3_stmt *s, int col)
{
	double v = sqlite3_column_double(s, col);
	if (sqlite3_column_type(s, col) != SQLITE_NULL && isfinite(v))
		fprintf(f, "%.17g", v);
}

/* 1 when a spreadsheet could read t as a formula: it starts with =, +, -,
 * @, a tab or a carriage return (OWASP's CSV injection list) and is not a
 * plain number; also when it starts with a single quote, so that the mark
 * is always one to drop (kt_replay_load drops it). */
static int csv_formula(const char *t)
{
	if (t[0] == '\'')
		return 1;
	if (!t[0] || !strchr("=+-@\t\r", t[0]))
		return 0;
	char *end;
	strtod(t, &end);
	return end == t || *end;
}

/* A CSV field: quoted when it holds a comma or a quote; line breaks become
 * spaces, so that one result is one line (kt_replay_load reads lines); a
 * possible formula after a single quote. */
static void put_csv_text(FILE *f, const char *t)
{
	if (!t)
		return;
	int quote = strpbrk(t, ",\"") != NULL;
	if (quote)
		fputc('"', f);
	if (csv_formula(t))
		fputc('\'', f);
	for (; *t; t++) {
		if (*t == '"')
			fputc('"', f);
		fputc(*t == '\n' || *t == '\r' ? ' ' : *t, f);
	}
	if (quote)
		fputc('"', f);
}

/* The samples BLOB as a JSON array, each divided by per. */
static void put_samples(FILE *f, sqlite3_stmt *s, int col, double per)
{
	const unsigned char *p = sqlite3_column_blob(s, col);
	size_t n = (size_t)sqlite3_column_bytes(s, col) / 8;
	fputc('[', f);
	for (size_t i = 0; p && i < n; i++)
		fprintf(f, "%s%.17g", i ? "," : "", kjit__store_sample(p, i) / per);
	fputc(']', f);
}

enum { C_ID, C_RUN, C_SIG, C_DEV, C_PROB, C_CONFIG, C_STATUS, C_TIMER, C_L2, C_MEDIAN,
       C_SPREAD, C_MIN, C_MAX, C_N, C_SAMPLES, C_OBJ, C_COMPILE, C_MSG, C_CREATED,
       C_ORDINAL, C_UUID, C_PARAMS };

/* T4's invalidity for a status (the schema's enum): stopped_early was
 * verified and measured, only cut short as certainly slow. */
static const char *t4_invalidity(const char *text)
{
	kjit__result_status status;
	if (!text)
		return "correct";
	if (kjit__result_status_parse(text, &status) != KJIT_OK)
		return "runtime";
	switch (status) {
	case KJIT__RS_OK:
	case KJIT__RS_STOPPED_EARLY:
		return "correct";
	case KJIT__RS_COMPILE_ERROR:
		return "compile";
	case KJIT__RS_WRONG_RESULT:
		return "correctness";
	case KJIT__RS_TIMEOUT:
		return "timeout";
	case KJIT__RS_LAUNCH_ERROR:
	case KJIT__RS_CRASHED:
	case KJIT__RS_COUNT:
		break;
	}
	return "runtime";
}

/* A time unit of T1's General.TimeUnit: its names and its size in ns. */
typedef struct t4_unit {
	const char *abbrev, *name;
	double ns;
} t4_unit;

static t4_unit t4_unit_of(const kjit__spec *spec)
{
	static const t4_unit units[] = { { "ns", "nanoseconds", 1 }, { "us", "microseconds", 1e3 },
		                         { "ms", "milliseconds", 1e6 }, { "s", "seconds", 1e9 } };
	const char *u = spec && spec->time_unit ? spec->time_unit : "ms";
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (strcmp(u, units[i].abbrev) == 0)
			return units[i];
	return units[2];
}

/* ISO 8601 in UTC, as Python's isoformat() writes it. */
static void put_timestamp(FILE *f, double t)
{
	time_t sec = (time_t)floor(t);
	struct tm tm;
	char text[64];
	int ms = (int)((t - floor(t)) * 1000);
	if (!gmtime_r(&sec, &tm) || !strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(text, sizeof text, "1970-01-01T00:00:00");
	fprintf(f, "\"%s.%03d+00:00\"", text, ms > 999 ? 999 : ms);
}

static void put_json_text(FILE *f, const char *t)
{
	kjit__buf b = { 0 };
	kjit__buf_json_str(&b, t ? t : "");
	fputs(b.oom ? "\"\"" : b.p, f);
	free(b.p);
}

static void put_json_text_or_null(FILE *f, const char *t)
{
	if (t)
		put_json_text(f, t);
	else
		fputs("null", f);
}

/* The device key and signature of the export (a run's from its row), for
 * the metadata. */
static kjit_status t4_subject(kt_results *r, int64_t run_id, const char *signature,
                              const char *device_key, char **sig, char **dev)
{
	*sig = signature ? strdup(signature) : NULL;
	*dev = device_key ? strdup(device_key) : NULL;
	if (run_id <= 0)
		return KJIT_OK;
	sqlite3_stmt *s;
	kjit_status st = prep(r, "SELECT signature, device_key FROM runs WHERE id = ?1", &s,
	                      "reading the run");
	if (st != KJIT_OK)
		return st;
	sqlite3_bind_int64(s, 1, run_id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		free(*sig);
		free(*dev);
		*sig = strdup(col_text(s, 0) ? col_text(s, 0) : "");
		*dev = strdup(col_text(s, 1) ? col_text(s, 1) : "");
	} else if (rc != SQLITE_DONE) {
		st = kjit__store_fail(r->store, rc, "reading the run");
	}
	sqlite3_finalize(s);
	return st;
}

/* T4's metadata: Kernel Tuner's timeunit, and the metadata schema's
 * hardware and environment (device_query from the device key
 * "arch|name|SMs|driver"). */
static void t4_metadata(FILE *f, const t4_unit *u, int64_t run_id, const char *sig,
                        const char *dev)
{
	struct utsname un;
	fprintf(f, "\"metadata\":{\"timeunit\":\"%s\",\"tool\":\"kjit-tune\",\"tool_version\":\""
	        PACKAGE_VERSION "\",\"signature\":", u->name);
	put_json_text(f, sig);
	fputs(",\"device_key\":", f);
	put_json_text(f, dev);
	if (run_id > 0)
		fprintf(f, ",\"run_id\":%lld", (long long)run_id);
	fputs(",\"hardware\":{\"operating_system\":", f);
	put_json_text(f, uname(&un) == 0 ? un.sysname : "unidentified OS");
	fputs("},\"environment\":{\"device_query\":{", f);
	static const char *const fields[] = { "arch", "name", "multiprocessors", "driver" };
	const char *p = dev ? dev : "";
	for (size_t i = 0; i < 4 && *p; i++) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		char *part = strndup(p, len);
		fprintf(f, "%s\"%s\":", i ? "," : "", fields[i]);
		put_json_text(f, part);
		free(part);
		p += len + (bar != NULL);
	}
	fprintf(f, "},\"requirements\":[\"libkjit==%s\"]}}", kjit_version());
}

/* The profile's columns of an export row start at pcol: whether the
 * result has one, its reasons, then the figures (kjit__profile_sql_columns). */
enum { P_HAS, P_COUNTERS_REASON, P_ENERGY_REASON, P_FIELDS };

/* CSV: every figure, then the reasons; empty fields without a profile. */
static void put_profile_csv(FILE *f, sqlite3_stmt *s, int pcol)
{
	size_t n;
	kjit__profile_fields(&n);
	for (size_t i = 0; i < n; i++) {
		fputc(',', f);
		put_csv_num(f, s, pcol + P_FIELDS + (int)i);
	}
	fputc(',', f);
	put_csv_text(f, col_text(s, pcol + P_COUNTERS_REASON));
	fputc(',', f);
	put_csv_text(f, col_text(s, pcol + P_ENERGY_REASON));
}

/* JSON: ,"profile":{...} with the figures and reasons it has; nothing
 * without a profile. */
static void put_profile_json(FILE *f, sqlite3_stmt *s, int pcol)
{
	if (!sqlite3_column_int(s, pcol + P_HAS))
		return;
	size_t n;
	const kjit__profile_field *fd = kjit__profile_fields(&n);
	const char *sep = "";
	fputs(",\"profile\":{", f);
	for (size_t i = 0; i < n; i++) {
		if (sqlite3_column_type(s, pcol + P_FIELDS + (int)i) == SQLITE_NULL)
			continue;
		fprintf(f, "%s\"%s\":", sep, fd[i].name);
		put_num(f, s, pcol + P_FIELDS + (int)i, 1);
		sep = ",";
	}
	static const char *const reasons[] = { KJIT__C_COUNTERS_REASON, KJIT__C_ENERGY_REASON };
	for (int k = 0; k < 2; k++) {
		const char *t = col_text(s, pcol + P_COUNTERS_REASON + k);
		if (!t)
			continue;
		fprintf(f, "%s\"%s\":", sep, reasons[k]);
		put_json_text(f, t);
		sep = ",";
	}
	fputc('}', f);
}

/* T4: a measurement {name, value, unit} per figure and reason it has. */
static void put_profile_t4(FILE *f, sqlite3_stmt *s, int pcol)
{
	if (!sqlite3_column_int(s, pcol + P_HAS))
		return;
	size_t n;
	const kjit__profile_field *fd = kjit__profile_fields(&n);
	for (size_t i = 0; i < n; i++) {
		if (sqlite3_column_type(s, pcol + P_FIELDS + (int)i) == SQLITE_NULL)
			continue;
		fprintf(f, ",{\"name\":\"%s\",\"value\":", fd[i].name);
		put_num(f, s, pcol + P_FIELDS + (int)i, 1);
		fprintf(f, ",\"unit\":\"%s\"}", fd[i].unit);
	}
	static const char *const reasons[] = { KJIT__C_COUNTERS_REASON, KJIT__C_ENERGY_REASON };
	for (int k = 0; k < 2; k++) {
		const char *t = col_text(s, pcol + P_COUNTERS_REASON + k);
		if (!t)
			continue;
		fprintf(f, ",{\"name\":\"%s\",\"value\":", reasons[k]);
		put_json_text(f, t);
		fputs(",\"unit\":\"\"}", f);
	}
}

/* One result in T4 (results-schema.json 1.0.0), times in the unit; its
 * profile, when it has one, from column pcol on (put_profile_t4). */
static void t4_result(FILE *f, sqlite3_stmt *s, const t4_unit *u, int pcol)
{
	const char *status = col_text(s, C_STATUS), *inv = t4_invalidity(status);
	const char *cfg = col_text(s, C_CONFIG), *prob = col_text(s, C_PROB);
	fputs("{\"timestamp\":", f);
	put_timestamp(f, sqlite3_column_double(s, C_CREATED));
	fprintf(f, ",\"configuration\":%s,\"problem\":%s,\"objectives\":[\"time\"],\"times\":{",
	        cfg ? cfg : "{}", prob ? prob : "{}");
	if (sqlite3_column_type(s, C_COMPILE) != SQLITE_NULL) {
		fputs("\"compilation_time\":", f);
		/* ms to ns exactly, then to the unit */
		fprintf(f, "%.17g", sqlite3_column_double(s, C_COMPILE) * 1e6 / u->ns);
		fputc(',', f);
	}
	fputs("\"runtimes\":", f);
	put_samples(f, s, C_SAMPLES, u->ns);
	fprintf(f, "},\"invalidity\":\"%s\",\"correctness\":%d,\"measurements\":[", inv,
	        strcmp(inv, "correctness") != 0);
	if (sqlite3_column_type(s, C_MEDIAN) != SQLITE_NULL) {
		fputs("{\"name\":\"time\",\"value\":", f);
		put_num(f, s, C_MEDIAN, u->ns);
		fprintf(f, ",\"unit\":\"%s\"},", u->abbrev);
	}
	fputs("{\"name\":\"status\",\"value\":", f);
	put_json_text(f, status);
	fputs(",\"unit\":\"\"},{\"name\":\"l2\",\"value\":", f);
	put_json_text(f, col_text(s, C_L2) ? col_text(s, C_L2) : "warm");
	fputs(",\"unit\":\"\"}", f);
	put_profile_t4(f, s, pcol);
	fputs("]}", f);
}


static void put_csv_header(FILE *f, const kjit__spec *spec, size_t np)
{
	for (size_t i = 0; i < np; i++)
		fprintf(f, "%s,", spec->params[i].name);
	if (!np)
		fputs("config,", f);
	/* the device and profile columns last: a reader that knows the columns
	 * before them by position still finds them there (--replay reads by
	 * name) */
	fputs("time,status,l2,timer,median_ns,spread_ns,min_ns,max_ns,n_samples,"
	      "compile_ms,message,device_ordinal,device_uuid", f);
	size_t n;
	const kjit__profile_field *fd = kjit__profile_fields(&n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, ",%s", fd[i].name);
	fputs("," KJIT__C_COUNTERS_REASON "," KJIT__C_ENERGY_REASON "\n", f);
}

static void put_csv_row(FILE *f, sqlite3_stmt *s, size_t np)
{
	const char *status = col_text(s, C_STATUS);
	for (size_t i = 0; i < np; i++) {
		put_csv_text(f, col_text(s, C_PARAMS + (int)i));
		fputc(',', f);
	}
	if (!np) {
		put_csv_text(f, col_text(s, C_CONFIG));
		fputc(',', f);
	}
	if (status && strcmp(status, "ok") == 0)
		put_csv_num(f, s, C_OBJ);
	fputc(',', f);
	put_csv_text(f, status);
	fputc(',', f);
	put_csv_text(f, col_text(s, C_L2));
	fputc(',', f);
	put_csv_text(f, col_text(s, C_TIMER));
	for (int c = C_MEDIAN; c <= C_N; c++) {
		fputc(',', f);
		put_csv_num(f, s, c);
	}
	fputc(',', f);
	put_csv_num(f, s, C_COMPILE);
	fputc(',', f);
	put_csv_text(f, col_text(s, C_MSG));
	fputc(',', f);
	put_csv_num(f, s, C_ORDINAL);
	fputc(',', f);
	put_csv_text(f, col_text(s, C_UUID));
	put_profile_csv(f, s, C_PARAMS + (int)np);
	fputc('\n', f);
}

static void put_json_row(FILE *f, sqlite3_stmt *s, size_t np)
{
	const char *cfg = col_text(s, C_CONFIG);
	fprintf(f, "{\"id\":%lld,\"run_id\":", (long long)sqlite3_column_int64(s, C_ID));
	put_num(f, s, C_RUN, 1);
	fputs(",\"signature\":", f);
	put_json_text(f, col_text(s, C_SIG));
	fputs(",\"device_key\":", f);
	put_json_text(f, col_text(s, C_DEV));
	fputs(",\"device_ordinal\":", f);
	put_num(f, s, C_ORDINAL, 1);
	fputs(",\"device_uuid\":", f);
	put_json_text_or_null(f, col_text(s, C_UUID));
	fprintf(f, ",\"problem\":%s,\"config\":%s,\"status\":",
	        col_text(s, C_PROB) ? col_text(s, C_PROB) : "null", cfg ? cfg : "null");
	put_json_text(f, col_text(s, C_STATUS));
	static const int texts[] = { C_TIMER, C_L2 };
	static const char *const text_names[] = { "timer", "l2" };
	for (int k = 0; k < 2; k++) {
		fprintf(f, ",\"%s\":", text_names[k]);
		put_json_text_or_null(f, col_text(s, texts[k]));
	}
	static const char *const names[] = { "median_ns", "spread_ns", "min_ns", "max_ns",
		                             "n_samples" };
	for (int c = C_MEDIAN; c <= C_N; c++) {
		fprintf(f, ",\"%s\":", names[c - C_MEDIAN]);
		put_num(f, s, c, 1);
	}
	fputs(",\"samples_ns\":", f);
	put_samples(f, s, C_SAMPLES, 1);
	fputs(",\"objective\":", f);
	put_num(f, s, C_OBJ, 1);
	fputs(",\"compile_ms\":", f);
	put_num(f, s, C_COMPILE, 1);
	fputs(",\"message\":", f);
	put_json_text_or_null(f, col_text(s, C_MSG));
	fputs(",\"created\":", f);
	put_num(f, s, C_CREATED, 1);
	put_profile_json(f, s, C_PARAMS + (int)np);
	fputc('}', f);
}

/* The export's query: the results columns of the C_* enum, each
 * parameter's value, the profile's columns; of run_id (?1) or of
 * (signature ?2, device_key ?3, problems ?4...). NULL when out of memory. */
static char *export_sql(const kjit__spec *spec, int64_t run_id, size_t n_problems)
{
	kjit__buf q = { 0 };
	kjit__buf_str(&q, "SELECT r.id, r.run_id, r.signature, r.device_key, r.problem, r.config,"
	              " r.status, r.timer, r.l2, r.median_ns, r.spread_ns, r.min_ns, r.max_ns,"
	              " r.n_samples, r.samples, r.objective, r.compile_ms, r.message, r.created,"
	              " r.device_ordinal, r.device_uuid");
	size_t np = spec ? spec->n_params : 0;
	for (size_t i = 0; i < np; i++) {
		/* parameter names are identifiers (spec.c checks them) */
		kjit__buf_str(&q, ", json_extract(r.config, '$.\"");
		kjit__buf_str(&q, spec->params[i].name);
		kjit__buf_str(&q, "\"')");
	}
	kjit__buf_str(&q, ", p.result_id IS NOT NULL, p." KJIT__C_COUNTERS_REASON ", p."
	              KJIT__C_ENERGY_REASON);
	kjit__profile_sql_columns(&q, "p");
	kjit__buf_str(&q, " FROM results r LEFT JOIN " KJIT__T_PROFILES " p ON p.result_id = r.id");
	if (run_id > 0) {
		kjit__buf_str(&q, " WHERE r.run_id = ?1 ORDER BY r.id");
	} else {
		kjit__buf_str(&q, " WHERE r.signature = ?2 AND r.device_key = ?3 AND"
		              " r.problem IN (");
		for (size_t i = 0; i < n_problems; i++) {
			char ph[32];
			snprintf(ph, sizeof ph, "%s?%zu", i ? ", " : "", i + 4);
			kjit__buf_str(&q, ph);
		}
		kjit__buf_str(&q, n_problems ? ") ORDER BY r.id" : "NULL) ORDER BY r.id");
	}
	return kjit__buf_done(&q);
}

kjit_status kt_results_export(kt_results *r, const kjit__spec *spec, int64_t run_id,
                              const char *signature, const char *device_key,
                              const char *const *problems, size_t n_problems,
                              kt_export_format format, FILE *f)
{
	if (run_id <= 0 && n_problems > 30000)
		return kjit__error(KJIT_ERR_INVALID_ARG, "export: %zu problems (at most 30000)",
		                   n_problems);
	char *sql = export_sql(spec, run_id, n_problems);
	if (!sql)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	size_t np = spec ? spec->n_params : 0;
	sqlite3_stmt *s;
	char *sig = NULL, *dev = NULL;
	t4_unit unit = t4_unit_of(spec);
	kjit__store_lock(r->store);
	kjit_status st = prep(r, sql, &s, "exporting results");
	free(sql);
	if (st == KJIT_OK && format == KT_EXPORT_T4 &&
	    (st = t4_subject(r, run_id, signature, device_key, &sig, &dev)) != KJIT_OK)
		sqlite3_finalize(s);
	if (st != KJIT_OK) {
		kjit__store_unlock(r->store);
		free(sig);
		free(dev);
		return st;
	}
	if (run_id > 0) {
		sqlite3_bind_int64(s, 1, run_id);
	} else {
		bind_text(s, 2, signature);
		bind_text(s, 3, device_key);
		for (size_t i = 0; i < n_problems; i++)
			bind_text(s, (int)i + 4, problems[i]);
	}
	if (format == KT_EXPORT_CSV) {
		put_csv_header(f, spec, np);
	} else if (format == KT_EXPORT_JSON) {
		fputs("{\"format\":\"kjit-results\",\"version\":1,\"results\":[", f);
	} else {
		fputs("{\"schema_version\":\"1.0.0\",", f);
		t4_metadata(f, &unit, run_id, sig, dev);
		fputs(",\"results\":[", f);
	}
	free(sig);
	free(dev);
	int rc, first = 1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (format == KT_EXPORT_CSV) {
			put_csv_row(f, s, np);
			continue;
		}
		fputs(first ? "\n" : ",\n", f);
		first = 0;
		if (format == KT_EXPORT_T4)
			t4_result(f, s, &unit, C_PARAMS + (int)np);
		else
			put_json_row(f, s, np);
	}
	if (rc != SQLITE_DONE)
		st = kjit__store_fail(r->store, rc, "exporting results");
	sqlite3_finalize(s);
	kjit__store_unlock(r->store);
	if (format != KT_EXPORT_CSV)
		fputs(first ? "]}\n" : "\n]}\n", f);
	if (st == KJIT_OK && ferror(f))
		st = kjit__error(KJIT_ERR_IO, "writing the export: %s", "output error");
	return st;
}

typedef struct t4_file {
	kt_results *r;
	const kjit__spec *spec;
	const char *signature, *device_key;
	const char *const *problems;
	size_t n_problems;
} t4_file;

static kjit_status write_t4(FILE *f, void *ctx)
{
	t4_file *t = ctx;
	return kt_results_export(t->r, t->spec, 0, t->signature, t->device_key, t->problems,
	                         t->n_problems, KT_EXPORT_T4, f);
}

kjit_status kt_results_write_t4(kt_results *r, const kjit__spec *spec, const char *signature,
                                const char *device_key, const char *const *problems,
                                size_t n_problems, const char *path)
{
	t4_file t = { r, spec, signature, device_key, problems, n_problems };
	return kjit__write_replace(path, "OutputFile", write_t4, &t);
}
