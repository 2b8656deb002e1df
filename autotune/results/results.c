/*
 * results.c - tuning results in the kjit database (doc/DESIGN.md, "The store"):
 * runs, one results row per evaluated configuration and the best row per
 * (signature, device, problem), through a kjit__store connection of its
 * own. Each evaluation is one transaction: the results row, the run's
 * progress and the best row are written together or not at all.
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

kjit_status kt_spec_signature(const kjit__spec *spec, char **out)
{
	char *source = NULL, sig[33];
	size_t len;
	kjit__buf params = { 0 };
	*out = NULL;
	kjit_status st = kjit__read_text(spec->source_path, &source, &len);
	if (st == KJIT_OK && strlen(source) != len)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "kernel source %s contains a NUL byte: "
		                 "not CUDA source text", spec->source_path);
	for (size_t i = 0; i < spec->n_params; i++) {
		if (i)
			kjit__buf_add(&params, ",", 1);
		kjit__buf_str(&params, spec->params[i].name);
	}
	char *joined = kjit__buf_done(&params);
	if (st == KJIT_OK && !joined)
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st == KJIT_OK && (st = kjit__signature(spec->entry, source, joined, sig)) == KJIT_OK &&
	    !(*out = strdup(sig)))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	free(joined);
	free(source);
	return st;
}

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

static void bind_real(sqlite3_stmt *s, int i, double d)
{
	if (isnan(d))
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_double(s, i, d);
}

static const char *col_text(sqlite3_stmt *s, int col)
{
	return (const char *)sqlite3_column_text(s, col);
}

/* ---- runs ------------------------------------------------------------------ */

typedef struct start_ctx {
	kt_results *r;
	const kt_run_desc *d;
	kt_run *run;
} start_ctx;

static kjit_status start_tx(kjit__store *store, void *arg)
{
	start_ctx *c = arg;
	const kt_run_desc *d = c->d;
	sqlite3_stmt *s = NULL;
	kjit_status st;
	int rc;
	double now = kjit__wall_time();
	if ((st = prep(c->r,
	               "SELECT id FROM runs WHERE signature = ?1 AND device_key = ?2 AND"
	               " problem = ?3 AND spec IS ?4 AND status <> '" KJIT__RUN_DONE "'"
	               " ORDER BY id DESC LIMIT 1",
	               &s, "finding a run to resume")) != KJIT_OK)
		return st;
	bind_text(s, 1, d->signature);
	bind_text(s, 2, d->device_key);
	bind_text(s, 3, d->problem);
	bind_text(s, 4, d->spec);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		c->run->id = sqlite3_column_int64(s, 0);
		c->run->resumed = 1;
	} else if (rc != SQLITE_DONE) {
		st = kjit__store_fail(store, rc, "finding a run to resume");
	}
	sqlite3_finalize(s);
	if (st != KJIT_OK)
		return st;
	if (c->run->resumed)
		st = prep(c->r,
		          "UPDATE runs SET status = '" KJIT__RUN_RUNNING "', kernel = ?5,"
		          " strategy = ?6, total = ?7, pid = ?8, updated = ?9, finished = NULL"
		          " WHERE id = ?10",
		          &s, "resuming a run");
	else
		st = prep(c->r,
		          "INSERT INTO runs(signature, device_key, problem, spec, kernel, strategy,"
		          " total, pid, started, updated, status)"
		          " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, '" KJIT__RUN_RUNNING
		          "')",
		          &s, "starting a run");
	if (st != KJIT_OK)
		return st;
	if (!c->run->resumed) {
		bind_text(s, 1, d->signature);
		bind_text(s, 2, d->device_key);
		bind_text(s, 3, d->problem);
		bind_text(s, 4, d->spec);
	}
	bind_text(s, 5, d->kernel ? d->kernel : "");
	bind_text(s, 6, d->strategy ? d->strategy : "");
	if (d->total > 0)
		sqlite3_bind_int64(s, 7, d->total);
	else
		sqlite3_bind_null(s, 7);
	sqlite3_bind_int64(s, 8, (sqlite3_int64)getpid());
	sqlite3_bind_double(s, 9, now);
	if (c->run->resumed)
		sqlite3_bind_int64(s, 10, c->run->id);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return kjit__store_fail(store, rc, "starting a run");
	if (!c->run->resumed)
		c->run->id = sqlite3_last_insert_rowid(kjit__store_db(store));
	return KJIT_OK;
}

kjit_status kt_run_start(kt_results *r, const kt_run_desc *d, kt_run **out)
{
	*out = NULL;
	if (!d->signature || !d->device_key || !d->problem)
		return kjit__error(KJIT_ERR_INVALID_ARG,
		                   "a run needs a signature, a device key and a problem");
	if ((unsigned)d->objective >= KJIT__OBJ_COUNT)
		return kjit__error(KJIT_ERR_INVALID_ARG, "a run's objective: %d is none of time, "
		                   "energy, edp", (int)d->objective);
	kt_run *run = calloc(1, sizeof *run);
	if (run)
		run->objective = d->objective;
	if (!run || !(run->signature = strdup(d->signature)) ||
	    !(run->device_key = strdup(d->device_key)) || !(run->problem = strdup(d->problem))) {
		kt_run_free(run);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	start_ctx c = { r, d, run };
	kjit__store_lock(r->store);
	kjit_status st = kjit__store_transaction(r->store, start_tx, &c);
	kjit__store_unlock(r->store);
	if (st != KJIT_OK) {
		kt_run_free(run);
		return st;
	}
	*out = run;
	return KJIT_OK;
}

void kt_run_free(kt_run *run)
{
	if (!run)
		return;
	free(run->signature);
	free(run->device_key);
	free(run->problem);
	free(run);
}

kjit_status kt_run_finish(kt_results *r, const kt_run *run, const char *status)
{
	if (!status || (strcmp(status, KJIT__RUN_DONE) && strcmp(status, KJIT__RUN_INTERRUPTED) &&
	                strcmp(status, KJIT__RUN_FAILED)))
		return kjit__error(KJIT_ERR_INVALID_ARG,
		                   "run status: expected " KJIT__RUN_DONE ", " KJIT__RUN_INTERRUPTED
		                   " or " KJIT__RUN_FAILED ", got '%s'",
		                   status ? status : "(null)");
	sqlite3_stmt *s;
	kjit__store_lock(r->store);
	kjit_status st = prep(r, "UPDATE runs SET status = ?1, finished = ?2, updated = ?2"
	                         " WHERE id = ?3", &s, "finishing a run");
	if (st == KJIT_OK) {
		double now = kjit__wall_time();
		bind_text(s, 1, status);
		sqlite3_bind_double(s, 2, now);
		sqlite3_bind_int64(s, 3, run->id);
		int rc = sqlite3_step(s);
		if (rc != SQLITE_DONE)
			st = kjit__store_fail(r->store, rc, "finishing a run");
		else if (sqlite3_changes(kjit__store_db(r->store)) != 1)
			st = kjit__error(KJIT_ERR_INVALID_ARG, "no run %lld", (long long)run->id);
		sqlite3_finalize(s);
	}
	kjit__store_unlock(r->store);
	return st;
}

/* ---- one evaluation ---------------------------------------------------- */

/* The best row of the run's problem: its result, its score under the
 * run's objective (NAN: none), whether it is stale, whether another
 * objective chose it. id 0: no best row. */
typedef struct best_now {
	int64_t id;
	double score;
	int stale, other;
} best_now;

typedef struct record_ctx {
	kt_results *r;
	const kt_run *run;
	const kt_eval *e;
	int64_t id;
	int improved;
	best_now before; /* the best row as the transaction found it */
} record_ctx;

static kjit_status step_done(kt_results *r, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? KJIT_OK : kjit__store_fail(r->store, rc, what);
}

/* Replaces the profile of result c->id by e's, or removes it: a
 * re-measured result keeps its id, and a profile of the measurement
 * before would be another run's. */
static kjit_status write_profile(record_ctx *c, double now)
{
	sqlite3_stmt *s;
	kjit_status st = prep(c->r, "DELETE FROM " KJIT__T_PROFILES " WHERE " KJIT__C_RESULT_ID
	                      " = ?1", &s, "replacing a profile");
	if (st != KJIT_OK)
		return st;
	sqlite3_bind_int64(s, 1, c->id);
	if ((st = step_done(c->r, s, "replacing a profile")) != KJIT_OK || !c->e->has_profile)
		return st;
	size_t n;
	const kjit__profile_field *f = kjit__profile_fields(&n);
	kjit__buf q = { 0 };
	kjit__buf_str(&q, "INSERT INTO " KJIT__T_PROFILES "(" KJIT__C_RESULT_ID ", "
	              KJIT__C_COUNTERS_REASON ", " KJIT__C_ENERGY_REASON ", " KJIT__C_CREATED);
	for (size_t i = 0; i < n; i++) {
		kjit__buf_str(&q, ", ");
		kjit__buf_str(&q, f[i].name);
	}
	kjit__buf_str(&q, ") VALUES(?1, ?2, ?3, ?4");
	for (size_t i = 0; i < n; i++)
		kjit__buf_str(&q, ", ?");
	kjit__buf_str(&q, ")");
	char *sql = kjit__buf_done(&q);
	if (!sql)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	st = prep(c->r, sql, &s, "recording a profile");
	free(sql);
	if (st != KJIT_OK)
		return st;
	const kjit_profile *p = &c->e->profile;
	sqlite3_bind_int64(s, 1, c->id);
	bind_text(s, 2, p->counters_reason);
	bind_text(s, 3, p->energy_reason);
	sqlite3_bind_double(s, 4, now);
	for (size_t i = 0; i < n; i++)
		bind_real(s, 5 + (int)i, kjit__profile_get(p, &f[i]));
	return step_done(c->r, s, "recording a profile");
}

/* A result's score under objective in SQL, of results r and profiles p. */
static const char *score_sql(kjit__objective objective)
{
	switch (objective) {
	case KJIT__OBJ_ENERGY:
		return "p.energy_j";
	case KJIT__OBJ_EDP:
		return "p.energy_j * r.median_ns";
	case KJIT__OBJ_TIME:
	case KJIT__OBJ_COUNT:
		break;
	}
	return "r.median_ns";
}

double kt_eval_score(const kt_eval *e, kjit__objective objective)
{
	if (!e->status || strcmp(e->status, "ok") != 0)
		return NAN;
	double energy = e->has_profile ? e->profile.energy_j : NAN;
	switch (objective) {
	case KJIT__OBJ_ENERGY:
		return energy;
	case KJIT__OBJ_EDP:
		return energy * e->median_ns;
	case KJIT__OBJ_TIME:
	case KJIT__OBJ_COUNT:
		break;
	}
	return e->median_ns;
}

static kjit_status read_best(record_ctx *c, best_now *b)
{
	sqlite3_stmt *s;
	char sql[512];
	snprintf(sql, sizeof sql, "SELECT b.result_id, %s, b.stale <> 0, b.objective IS NOT ?4"
	         " FROM best b LEFT JOIN results r ON r.id = b.result_id LEFT JOIN "
	         KJIT__T_PROFILES " p ON p.result_id = b.result_id WHERE b.signature = ?1 AND"
	         " b.device_key = ?2 AND b.problem = ?3", score_sql(c->run->objective));
	kjit_status st = prep(c->r, sql, &s, "reading the best");
	if (st != KJIT_OK)
		return st;
	bind_text(s, 1, c->run->signature);
	bind_text(s, 2, c->run->device_key);
	bind_text(s, 3, c->run->problem);
	bind_text(s, 4, kjit__objective_name(c->run->objective));
	int rc = sqlite3_step(s);
	*b = (best_now){ 0, NAN, 0, 0 };
	if (rc == SQLITE_ROW) {
		b->id = sqlite3_column_int64(s, 0);
		if (sqlite3_column_type(s, 1) != SQLITE_NULL)
			b->score = sqlite3_column_double(s, 1);
		b->stale = sqlite3_column_int(s, 2);
		b->other = sqlite3_column_int(s, 3);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? KJIT_OK
	                                             : kjit__store_fail(c->r->store, rc,
	                                                                "reading the best");
}

/* The best row again, from every ok result that has a score: when it
 * pointed at the row just replaced (a re-measurement with --force), or
 * another objective chose it. None when no result has a score. */
static kjit_status recompute_best(kt_results *r, const kt_run *run, const char *arch,
                                  const char *nvrtc, double now)
{
	sqlite3_stmt *s;
	kjit_status st = prep(r, "DELETE FROM best WHERE signature = ?1 AND device_key = ?2"
	                      " AND problem = ?3", &s, "recomputing the best");
	if (st != KJIT_OK)
		return st;
	bind_text(s, 1, run->signature);
	bind_text(s, 2, run->device_key);
	bind_text(s, 3, run->problem);
	if ((st = step_done(r, s, "recomputing the best")) != KJIT_OK)
		return st;
	char sql[1024];
	const char *score = score_sql(run->objective);
	snprintf(sql, sizeof sql,
	         "INSERT INTO best(signature, device_key, problem, arch, config, result_id,"
	         " median_ns, nvrtc, stale, updated, objective)"
	         " SELECT r.signature, r.device_key, r.problem, ?4, r.config, r.id, r.median_ns,"
	         " ?5, 0, ?6, ?7 FROM results r LEFT JOIN " KJIT__T_PROFILES " p ON"
	         " p.result_id = r.id WHERE r.signature = ?1 AND r.device_key = ?2 AND"
	         " r.problem = ?3 AND r.status = 'ok' AND r.median_ns IS NOT NULL AND"
	         " %s IS NOT NULL ORDER BY %s, r.id LIMIT 1", score, score);
	if ((st = prep(r, sql, &s, "recomputing the best")) != KJIT_OK)
		return st;
	bind_text(s, 1, run->signature);
	bind_text(s, 2, run->device_key);
	bind_text(s, 3, run->problem);
	bind_text(s, 4, arch ? arch : "");
	bind_text(s, 5, nvrtc ? nvrtc : "");
	sqlite3_bind_double(s, 6, now);
	bind_text(s, 7, kjit__objective_name(run->objective));
	return step_done(r, s, "recomputing the best");
}

typedef struct rechoose_ctx {
	kt_results *r;
	const kt_run *run;
} rechoose_ctx;

/* The best row of another objective, chosen again under the run's, with
 * its arch and NVRTC version. */
static kjit_status rechoose_tx(kjit__store *store, void *arg)
{
	(void)store;
	rechoose_ctx *c = arg;
	sqlite3_stmt *s;
	kjit_status st = prep(c->r, "SELECT arch, nvrtc FROM best WHERE signature = ?1 AND"
	                      " device_key = ?2 AND problem = ?3 AND objective IS NOT ?4", &s,
	                      "reading the best");
	if (st != KJIT_OK)
		return st;
	bind_text(s, 1, c->run->signature);
	bind_text(s, 2, c->run->device_key);
	bind_text(s, 3, c->run->problem);
	bind_text(s, 4, kjit__objective_name(c->run->objective));
	int rc = sqlite3_step(s);
	char *arch = NULL, *nvrtc = NULL;
	if (rc == SQLITE_ROW) {
		arch = strdup(col_text(s, 0) ? col_text(s, 0) : "");
		nvrtc = strdup(col_text(s, 1) ? col_text(s, 1) : "");
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		st = kjit__store_fail(c->r->store, rc, "reading the best");
	else if (rc == SQLITE_ROW && (!arch || !nvrtc))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	else if (rc == SQLITE_ROW)
		st = recompute_best(c->r, c->run, arch, nvrtc, kjit__wall_time());
	free(arch);
	free(nvrtc);
	return st;
}

kjit_status kt_results_best_rechoose(kt_results *r, const kt_run *run)
{
	rechoose_ctx c = { r, run };
	kjit__store_lock(r->store);
	kjit_status st = kjit__store_transaction(r->store, rechoose_tx, &c);
	kjit__store_unlock(r->store);
	return st;
}

/* The best row after e: e when its score is below the best's (or the
 * best is stale), recomputed when the best was e's row or another
 * objective's. */
static kjit_status update_best(record_ctx *c, double now)
{
	const kt_eval *e = c->e;
	const kt_run *run = c->run;
	best_now before = c->before, after;
	kjit_status st;
	double score = kt_eval_score(e, run->objective);
	if (before.id && (before.id == c->id || before.other)) {
		if ((st = recompute_best(c->r, c->run, c->e->arch, c->e->nvrtc, now)) != KJIT_OK)
			return st;
	} else if (!isnan(score) && !isnan(e->median_ns) &&
	           (!before.id || before.stale || !(score >= before.score))) {
		sqlite3_stmt *s;
		if ((st = prep(c->r,
		               "INSERT INTO best(signature, device_key, problem, arch, config,"
		               " result_id, median_ns, nvrtc, stale, updated, objective)"
		               " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?10)"
		               " ON CONFLICT(signature, device_key, problem) DO UPDATE SET"
		               " arch = excluded.arch, config = excluded.config,"
		               " result_id = excluded.result_id, median_ns = excluded.median_ns,"
		               " nvrtc = excluded.nvrtc, stale = 0, updated = excluded.updated,"
		               " objective = excluded.objective",
		               &s, "updating the best")) != KJIT_OK)
			return st;
		bind_text(s, 1, run->signature);
		bind_text(s, 2, run->device_key);
		bind_text(s, 3, run->problem);
		bind_text(s, 4, e->arch ? e->arch : "");
		bind_text(s, 5, e->config);
		sqlite3_bind_int64(s, 6, c->id);
		sqlite3_bind_double(s, 7, e->median_ns);
		bind_text(s, 8, e->nvrtc ? e->nvrtc : "");
		sqlite3_bind_double(s, 9, now);
		bind_text(s, 10, kjit__objective_name(run->objective));
		if ((st = step_done(c->r, s, "updating the best")) != KJIT_OK)
			return st;
	}
	if ((st = read_best(c, &after)) != KJIT_OK)
		return st;
	c->improved = after.id == c->id && (before.id != c->id || after.score < before.score);
	return KJIT_OK;
}

static kjit_status record_tx(kjit__store *store, void *arg)
{
	record_ctx *c = arg;
	const kt_eval *e = c->e;
	const kt_run *run = c->run;
	const char *l2 = e->l2 ? e->l2 : "warm";
	sqlite3_stmt *s;
	kjit_status st;
	int rc;
	double now = kjit__wall_time();
	(void)store;
	if ((st = read_best(c, &c->before)) != KJIT_OK)
		return st;

	if ((st = prep(c->r,
	               "INSERT INTO results(run_id, signature, device_key, problem, config,"
	               " binary_key, status, timer, l2, median_ns, spread_ns, min_ns, max_ns,"
	               " n_samples, samples, objective, compile_ms, message, created,"
	               " device_ordinal, device_uuid)"
	               " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
	               " ?15, ?16, ?17, ?18, ?19, ?20, ?21)"
	               " ON CONFLICT(signature, device_key, problem, config, l2) DO UPDATE SET"
	               " run_id = excluded.run_id, binary_key = excluded.binary_key,"
	               " status = excluded.status, timer = excluded.timer,"
	               " median_ns = excluded.median_ns, spread_ns = excluded.spread_ns,"
	               " min_ns = excluded.min_ns, max_ns = excluded.max_ns,"
	               " n_samples = excluded.n_samples, samples = excluded.samples,"
	               " objective = excluded.objective, compile_ms = excluded.compile_ms,"
	               " message = excluded.message, created = excluded.created,"
	               " device_ordinal = excluded.device_ordinal,"
	               " device_uuid = excluded.device_uuid",
	               &s, "recording a result")) != KJIT_OK)
		return st;
	sqlite3_bind_int64(s, 1, run->id);
	bind_text(s, 2, run->signature);
	bind_text(s, 3, run->device_key);
	bind_text(s, 4, run->problem);
	bind_text(s, 5, e->config);
	bind_text(s, 6, e->binary_key);
	bind_text(s, 7, e->status);
	bind_text(s, 8, e->timer);
	bind_text(s, 9, l2);
	bind_real(s, 10, e->median_ns);
	bind_real(s, 11, e->spread_ns);
	bind_real(s, 12, e->min_ns);
	bind_real(s, 13, e->max_ns);
	sqlite3_bind_int64(s, 14, (sqlite3_int64)e->n_samples);
	if ((st = kjit__store_bind_samples(s, 15, e->samples, e->n_samples)) != KJIT_OK) {
		sqlite3_finalize(s);
		return st;
	}
	bind_real(s, 16, e->objective);
	bind_real(s, 17, e->compile_ms);
	bind_text(s, 18, e->message);
	sqlite3_bind_double(s, 19, now);
	if (e->has_device_ordinal)
		sqlite3_bind_int(s, 20, e->device_ordinal);
	else
		sqlite3_bind_null(s, 20);
	bind_text(s, 21, e->device_uuid);
	if ((st = step_done(c->r, s, "recording a result")) != KJIT_OK)
		return st;

	if ((st = prep(c->r,
	               "SELECT id FROM results WHERE signature = ?1 AND device_key = ?2 AND"
	               " problem = ?3 AND config = ?4 AND l2 = ?5",
	               &s, "reading back a result")) != KJIT_OK)
		return st;
	bind_text(s, 1, run->signature);
	bind_text(s, 2, run->device_key);
	bind_text(s, 3, run->problem);
	bind_text(s, 4, e->config);
	bind_text(s, 5, l2);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		c->id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return kjit__store_fail(c->r->store, rc, "reading back a result");

	if ((st = prep(c->r,
	               "UPDATE runs SET updated = ?1,"
	               " evaluated = (SELECT count(*) FROM results WHERE run_id = ?2)"
	               " WHERE id = ?2",
	               &s, "updating the run")) != KJIT_OK)
		return st;
	sqlite3_bind_double(s, 1, now);
	sqlite3_bind_int64(s, 2, run->id);
	if ((st = step_done(c->r, s, "updating the run")) != KJIT_OK)
		return st;

	if ((st = write_profile(c, now)) != KJIT_OK)
		return st;
	return update_best(c, now);
}

/* "ok|compile_error|...": each status after a '|', the first '|' skipped. */
#define STATUS_PIPED(id, text, abbrev) "|" text
#define STATUS_LIST (KJIT__RESULT_STATUSES(STATUS_PIPED) + 1)

kjit_status kt_results_record(kt_results *r, const kt_run *run, const kt_eval *e,
                              int64_t *result_id, int *improved)
{
	kjit__result_status status;
	if (!e->config || kjit__result_status_parse(e->status, &status) != KJIT_OK)
		return kjit__error(KJIT_ERR_INVALID_ARG,
		                   "a result needs a configuration and a status (%s), got '%s'",
		                   STATUS_LIST, e->status ? e->status : "(null)");
	if (e->n_samples > (size_t)INT32_MAX / 8)
		return kjit__error(KJIT_ERR_INVALID_ARG, "too many samples: %zu", e->n_samples);
	if (e->has_device_ordinal && e->device_ordinal < 0)
		return kjit__error(KJIT_ERR_INVALID_ARG, "device ordinal %d: expected 0 or more "
		                   "(or none, for an unknown device)", (int)e->device_ordinal);
	record_ctx c = { r, run, e, 0, 0, { 0, NAN, 0, 0 } };
	kjit__store_lock(r->store);
	kjit_status st = kjit__store_transaction(r->store, record_tx, &c);
	kjit__store_unlock(r->store);
	if (st == KJIT_OK) {
		if (result_id)
			*result_id = c.id;
		if (improved)
			*improved = c.improved;
	}
	return st;
}

/* ---- the objective table ------------------------------------------------- */

/* A row's configuration is matched to the space by each parameter's
 * value (json_extract), compared as text, else as a number. */
kjit_status kt_results_load(kt_results *r, const kjit__space *space, const char *signature,
                            const char *device_key, double **objective, uint8_t **have,
                            size_t *ignored)
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
	st = prep(r, "SELECT config, status, objective FROM results WHERE signature = ?1 AND"
	             " device_key = ?2 AND problem = ?3", &s, "loading results");
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
			hv[idx] = 1;
			const char *status = (const char *)sqlite3_column_text(s, 1);
			if (status && strcmp(status, "ok") == 0 &&
			    sqlite3_column_type(s, 2) != SQLITE_NULL) {
				double o = sqlite3_column_double(s, 2);
				if (o < obj[idx])
					obj[idx] = o;
			}
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
	double f = kjit__profile_peak(p, &rate, &what);
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
