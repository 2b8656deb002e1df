/*
 * record.c - the record room: the one writer of runs, results, profiles
 * and best rows (doc/DESIGN.md, "The store"), and the one home of the
 * best-row policy. Each evaluation is one transaction: the results row,
 * its profile, the run's progress and the best row are written together
 * or not at all.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tuning_private.h"

static void bind_text(sqlite3_stmt *s, int i, const char *t)
{
	if (t)
		sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

/* The run's problem key as ?1-?3 (signature, device key, problem). */
static void bind_key(sqlite3_stmt *s, const kjit_run *run)
{
	bind_text(s, 1, run->signature);
	bind_text(s, 2, run->device_key);
	bind_text(s, 3, run->problem);
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
	kjit__store *store;
	const kjit_run_desc *d;
	kjit_run *run;
} start_ctx;

static kjit_status start_tx(kjit__store *store, void *arg)
{
	start_ctx *c = arg;
	const kjit_run_desc *d = c->d;
	sqlite3_stmt *s = NULL;
	kjit_status st;
	int rc;
	double now = kjit__wall_time();
	if ((st = kjit__store_prepare(c->store,
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
		st = kjit__store_prepare(c->store,
		          "UPDATE runs SET status = '" KJIT__RUN_RUNNING "', kernel = ?5,"
		          " strategy = ?6, total = ?7, pid = ?8, updated = ?9, finished = NULL"
		          " WHERE id = ?10",
		          &s, "resuming a run");
	else
		st = kjit__store_prepare(c->store,
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

/* KJIT_OK when text (what names it) is a JSON object of numbers and
 * strings in the store's form, the one selection and the readers match
 * by text: keys in ascending byte order, no spaces, each number as
 * written and each string as kjit writes it (kjit_space_config_json(),
 * kjit_spec_problem_text()); with integers, each value an integer (a
 * problem's sizes, which selection reads as such). Front ends hand the
 * record room any text; another form would be stored and never found. */
static kjit_status check_form(const char *text, const char *what, int integers)
{
	kjit__json *v = NULL;
	kjit_status st = kjit__json_parse(text, strlen(text), what, &v);
	if (st != KJIT_OK)
		return st;
	int ok = v->type == KJIT__JSON_OBJECT;
	kjit__buf b = { 0 };
	kjit__buf_add(&b, "{", 1);
	for (size_t i = 0; ok && i < v->n; i++) {
		const kjit__json *m = &v->items[i];
		int64_t size;
		ok = (i == 0 || strcmp(v->keys[i - 1], v->keys[i]) < 0) &&
		     (integers ? kjit__json_int(m, &size) == 1
		               : m->type == KJIT__JSON_NUMBER || m->type == KJIT__JSON_STRING);
		if (!ok)
			break;
		if (i)
			kjit__buf_add(&b, ",", 1);
		kjit__buf_json_str(&b, v->keys[i]);
		kjit__buf_add(&b, ":", 1);
		if (m->type == KJIT__JSON_STRING)
			kjit__buf_json_str(&b, m->text);
		else
			kjit__buf_str(&b, m->text);
	}
	kjit__buf_add(&b, "}", 1);
	kjit__json_free(v);
	char *form = kjit__buf_done(&b);
	char q[120];
	if (!form)
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	else if (!ok || strcmp(form, text) != 0)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: expected a JSON object of %s with "
		                 "sorted keys and no spaces (as %s writes it), got %s", what,
		                 integers ? "integers" : "numbers and strings",
		                 integers ? "kjit_spec_problem_text()" : "kjit_space_config_json()",
		                 kjit__quote(q, sizeof q, text, 80, '\''));
	free(form);
	return st;
}

kjit_status kjit__objective_check(kjit_objective objective, const char *what)
{
	return (unsigned)objective < KJIT__OBJ_COUNT
	               ? KJIT_OK
	               : kjit__error(KJIT_ERR_INVALID_ARG, "%s: objective %d is none of time, "
	                             "energy, edp", what, (int)objective);
}

/* What results are recorded under, as a run's description or a run (one a
 * front end built itself, kjit.h: id 0 is a search outside any run) has
 * it: a signature, a device key, a problem in the store's form, an
 * objective. */
static kjit_status check_key(const char *signature, const char *device_key,
                             const char *problem, kjit_objective objective)
{
	if (!signature || !device_key || !problem)
		return kjit__error(KJIT_ERR_INVALID_ARG,
		                   "a run needs a signature, a device key and a problem");
	kjit_status st = kjit__objective_check(objective, "a run");
	return st == KJIT_OK ? check_form(problem, "a run's problem", 1) : st;
}

static kjit_status check_run(const kjit_run *run)
{
	return check_key(run->signature, run->device_key, run->problem, run->objective);
}

kjit_status kjit_record_run_start(kjit_records *rec, const kjit_run_desc *d,
                                   kjit_run **out)
{
	if (!rec || !d || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "starting a run: a NULL argument");
	kjit__store *store = rec->store;
	*out = NULL;
	kjit_status st = check_key(d->signature, d->device_key, d->problem, d->objective);
	if (st != KJIT_OK)
		return st;
	kjit_run *run = calloc(1, sizeof *run);
	if (run)
		run->objective = d->objective;
	if (!run || !(run->signature = strdup(d->signature)) ||
	    !(run->device_key = strdup(d->device_key)) || !(run->problem = strdup(d->problem))) {
		kjit_run_free(run);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	start_ctx c = { store, d, run };
	kjit__store_lock(store);
	st = kjit__store_transaction(store, start_tx, &c);
	kjit__store_unlock(store);
	if (st != KJIT_OK) {
		kjit_run_free(run);
		return st;
	}
	*out = run;
	return KJIT_OK;
}

void kjit_run_free(kjit_run *run)
{
	if (!run)
		return;
	free(run->signature);
	free(run->device_key);
	free(run->problem);
	free(run);
}

static kjit_status rechoose(kjit__store *store, const kjit_run *run);

kjit_status kjit_record_run_finish(kjit_records *rec, const kjit_run *run, kjit_run_end end)
{
	/* the stored words, at their kjit_run_end values */
	static const char *const words[] = {
		[KJIT_RUN_DONE] = KJIT__RUN_DONE,
		[KJIT_RUN_INTERRUPTED] = KJIT__RUN_INTERRUPTED,
		[KJIT_RUN_FAILED] = KJIT__RUN_FAILED,
	};
	if (!rec || !run)
		return kjit__error(KJIT_ERR_INVALID_ARG, "finishing a run: no records or no run");
	kjit_status st = check_run(run);
	if (st != KJIT_OK)
		return st;
	if ((unsigned)end >= sizeof words / sizeof *words)
		return kjit__error(KJIT_ERR_INVALID_ARG,
		                   "finishing a run: its end %d is not one of " KJIT__RUN_DONE ", "
		                   KJIT__RUN_INTERRUPTED " or " KJIT__RUN_FAILED, (int)end);
	const char *status = words[end];
	kjit__store *store = rec->store;
	sqlite3_stmt *s;
	kjit__store_lock(store);
	st = kjit__store_prepare(store, "UPDATE runs SET status = ?1, finished = ?2, updated = ?2"
	                         " WHERE id = ?3", &s, "finishing a run");
	if (st == KJIT_OK) {
		double now = kjit__wall_time();
		bind_text(s, 1, status);
		sqlite3_bind_double(s, 2, now);
		sqlite3_bind_int64(s, 3, run->id);
		int rc = sqlite3_step(s);
		if (rc != SQLITE_DONE)
			st = kjit__store_fail(store, rc, "finishing a run");
		else if (sqlite3_changes(kjit__store_db(store)) != 1)
			st = kjit__error(KJIT_ERR_INVALID_ARG, "no run %lld", (long long)run->id);
		sqlite3_finalize(s);
	}
	kjit__store_unlock(store);
	return st == KJIT_OK ? rechoose(store, run) : st;
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
	kjit__store *store;
	const kjit_run *run;
	const kjit_eval *e;
	int64_t id;
	int improved;
	best_now before; /* the best row as the transaction found it */
} record_ctx;

static kjit_status step_done(kjit__store *store, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? KJIT_OK : kjit__store_fail(store, rc, what);
}

/* Replaces the profile of result c->id by e's, or removes it: a
 * re-measured result keeps its id, and a profile of the measurement
 * before would be another run's. */
static kjit_status write_profile(record_ctx *c, double now)
{
	sqlite3_stmt *s;
	kjit_status st = kjit__store_prepare(c->store, "DELETE FROM " KJIT__T_PROFILES " WHERE " KJIT__C_RESULT_ID
	                      " = ?1", &s, "replacing a profile");
	if (st != KJIT_OK)
		return st;
	sqlite3_bind_int64(s, 1, c->id);
	if ((st = step_done(c->store, s, "replacing a profile")) != KJIT_OK || !c->e->has_profile)
		return st;
	size_t n;
	const kjit_profile_field *f = kjit_profile_fields(&n);
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
	st = kjit__store_prepare(c->store, sql, &s, "recording a profile");
	free(sql);
	if (st != KJIT_OK)
		return st;
	const kjit_profile *p = &c->e->profile;
	sqlite3_bind_int64(s, 1, c->id);
	bind_text(s, 2, p->counters_reason);
	bind_text(s, 3, p->energy_reason);
	sqlite3_bind_double(s, 4, now);
	for (size_t i = 0; i < n; i++)
		bind_real(s, 5 + (int)i, kjit_profile_get(p, i));
	return step_done(c->store, s, "recording a profile");
}

double kjit_eval_score(const kjit_eval *e, kjit_objective objective)
{
	if (!e || e->status != KJIT_RESULT_OK)
		return NAN;
	double energy = e->has_profile ? e->profile.energy_j : NAN;
	switch (objective) {
	case KJIT_OBJECTIVE_ENERGY:
		return energy;
	case KJIT_OBJECTIVE_EDP:
		return energy * e->median_ns;
	case KJIT_OBJECTIVE_TIME:
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
	         " b.device_key = ?2 AND b.problem = ?3", kjit__objective_sql(c->run->objective));
	kjit_status st = kjit__store_prepare(c->store, sql, &s, "reading the best");
	if (st != KJIT_OK)
		return st;
	bind_key(s, c->run);
	bind_text(s, 4, kjit_objective_name(c->run->objective));
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
	                                             : kjit__store_fail(c->store, rc,
	                                                                "reading the best");
}

/* The one writer of best rows: result id of the run's problem becomes
 * its best (stale cleared), chosen by the run's objective, with arch and
 * nvrtc, its configuration and median read from the results row. */
static kjit_status write_best(kjit__store *store, const kjit_run *run, int64_t id,
                              const char *arch, const char *nvrtc, double now)
{
	sqlite3_stmt *s;
	kjit_status st = kjit__store_prepare(store,
	                      "INSERT INTO best(signature, device_key, problem, arch, config,"
	                      " result_id, median_ns, nvrtc, stale, updated, objective)"
	                      " SELECT signature, device_key, problem, ?2, config, id, median_ns,"
	                      " ?3, 0, ?4, ?5 FROM results WHERE id = ?1"
	                      " ON CONFLICT(signature, device_key, problem) DO UPDATE SET"
	                      " arch = excluded.arch, config = excluded.config,"
	                      " result_id = excluded.result_id, median_ns = excluded.median_ns,"
	                      " nvrtc = excluded.nvrtc, stale = 0, updated = excluded.updated,"
	                      " objective = excluded.objective",
	                      &s, "updating the best");
	if (st != KJIT_OK)
		return st;
	sqlite3_bind_int64(s, 1, id);
	bind_text(s, 2, arch ? arch : "");
	bind_text(s, 3, nvrtc ? nvrtc : "");
	sqlite3_bind_double(s, 4, now);
	bind_text(s, 5, kjit_objective_name(run->objective));
	return step_done(store, s, "updating the best");
}

/* The best row again, from every ok result that has a score: when it
 * pointed at the row just replaced (a re-measurement with --force), or
 * another objective chose it. None when no result has a score. */
static kjit_status recompute_best(kjit__store *store, const kjit_run *run, const char *arch,
                                  const char *nvrtc, double now)
{
	sqlite3_stmt *s;
	char sql[1024];
	const char *score = kjit__objective_sql(run->objective);
	snprintf(sql, sizeof sql,
	         "SELECT r.id FROM results r LEFT JOIN " KJIT__T_PROFILES " p ON"
	         " p.result_id = r.id WHERE r.signature = ?1 AND r.device_key = ?2 AND"
	         " r.problem = ?3 AND r.status = 'ok' AND r.median_ns IS NOT NULL AND"
	         " %s IS NOT NULL ORDER BY %s, r.id LIMIT 1", score, score);
	kjit_status st = kjit__store_prepare(store, sql, &s, "recomputing the best");
	if (st != KJIT_OK)
		return st;
	bind_key(s, run);
	int rc = sqlite3_step(s);
	int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return kjit__store_fail(store, rc, "recomputing the best");
	if (id)
		return write_best(store, run, id, arch, nvrtc, now);
	if ((st = kjit__store_prepare(store, "DELETE FROM best WHERE signature = ?1 AND device_key = ?2"
	               " AND problem = ?3", &s, "recomputing the best")) != KJIT_OK)
		return st;
	bind_key(s, run);
	return step_done(store, s, "recomputing the best");
}

typedef struct rechoose_ctx {
	kjit__store *store;
	const kjit_run *run;
} rechoose_ctx;

/* The best row of another objective, chosen again under the run's, with
 * its arch and NVRTC version. */
static kjit_status rechoose_tx(kjit__store *store, void *arg)
{
	(void)store;
	rechoose_ctx *c = arg;
	sqlite3_stmt *s;
	kjit_status st = kjit__store_prepare(c->store, "SELECT arch, nvrtc FROM best WHERE signature = ?1 AND"
	                      " device_key = ?2 AND problem = ?3 AND objective IS NOT ?4", &s,
	                      "reading the best");
	if (st != KJIT_OK)
		return st;
	bind_key(s, c->run);
	bind_text(s, 4, kjit_objective_name(c->run->objective));
	int rc = sqlite3_step(s);
	char *arch = NULL, *nvrtc = NULL;
	if (rc == SQLITE_ROW) {
		arch = strdup(col_text(s, 0) ? col_text(s, 0) : "");
		nvrtc = strdup(col_text(s, 1) ? col_text(s, 1) : "");
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		st = kjit__store_fail(c->store, rc, "reading the best");
	else if (rc == SQLITE_ROW && (!arch || !nvrtc))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	else if (rc == SQLITE_ROW)
		st = recompute_best(c->store, c->run, arch, nvrtc, kjit__wall_time());
	free(arch);
	free(nvrtc);
	return st;
}

static kjit_status rechoose(kjit__store *store, const kjit_run *run)
{
	rechoose_ctx c = { store, run };
	kjit__store_lock(store);
	kjit_status st = kjit__store_transaction(store, rechoose_tx, &c);
	kjit__store_unlock(store);
	return st;
}

/* The best row after e: e when its score is below the best's (or the
 * best is stale), recomputed when the best was e's row or another
 * objective's. */
static kjit_status update_best(record_ctx *c, double now)
{
	const kjit_eval *e = c->e;
	const kjit_run *run = c->run;
	best_now before = c->before, after;
	kjit_status st;
	double score = kjit_eval_score(e, run->objective);
	if (before.id && (before.id == c->id || before.other)) {
		if ((st = recompute_best(c->store, c->run, c->e->arch, c->e->nvrtc, now)) != KJIT_OK)
			return st;
	} else if (!isnan(score) && !isnan(e->median_ns) &&
	           (!before.id || before.stale || !(score >= before.score))) {
		if ((st = write_best(c->store, run, c->id, e->arch, e->nvrtc, now)) != KJIT_OK)
			return st;
	}
	if ((st = read_best(c, &after)) != KJIT_OK)
		return st;
	c->improved = after.id == c->id && (before.id != c->id || after.score < before.score);
	return KJIT_OK;
}

/* The id of the results row of c->e in mode l2 into c->id. */
static kjit_status read_result_id(record_ctx *c, const char *l2)
{
	const kjit_run *run = c->run;
	sqlite3_stmt *s;
	kjit_status st;
	int rc;
	if ((st = kjit__store_prepare(c->store,
	               "SELECT id FROM results WHERE signature = ?1 AND device_key = ?2 AND"
	               " problem = ?3 AND config = ?4 AND l2 = ?5",
	               &s, "reading back a result")) != KJIT_OK)
		return st;
	bind_key(s, run);
	bind_text(s, 4, c->e->config);
	bind_text(s, 5, l2);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		c->id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return kjit__store_fail(c->store, rc, "reading back a result");
	return KJIT_OK;
}

/* The results row of c->e (its id into c->id), the run's progress and
 * the row's profile. */
static kjit_status write_result(record_ctx *c, double now)
{
	const kjit_eval *e = c->e;
	const kjit_run *run = c->run;
	const char *l2 = e->l2 ? e->l2 : "warm";
	sqlite3_stmt *s;
	kjit_status st;
	if ((st = kjit__store_prepare(c->store,
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
	if (run->id)
		sqlite3_bind_int64(s, 1, run->id);
	else
		sqlite3_bind_null(s, 1);
	bind_text(s, 2, run->signature);
	bind_text(s, 3, run->device_key);
	bind_text(s, 4, run->problem);
	bind_text(s, 5, e->config);
	bind_text(s, 6, e->binary_key);
	bind_text(s, 7, kjit_result_status_name(e->status));
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
	if ((st = step_done(c->store, s, "recording a result")) != KJIT_OK)
		return st;

	if ((st = read_result_id(c, l2)) != KJIT_OK)
		return st;
	if (run->id) {
		if ((st = kjit__store_prepare(c->store,
		               "UPDATE runs SET updated = ?1,"
		               " evaluated = (SELECT count(*) FROM results WHERE run_id = ?2)"
		               " WHERE id = ?2",
		               &s, "updating the run")) != KJIT_OK)
			return st;
		sqlite3_bind_double(s, 1, now);
		sqlite3_bind_int64(s, 2, run->id);
		if ((st = step_done(c->store, s, "updating the run")) != KJIT_OK)
			return st;
	}
	return write_profile(c, now);
}

static kjit_status record_tx(kjit__store *store, void *arg)
{
	record_ctx *c = arg;
	double now = kjit__wall_time();
	kjit_status st;
	(void)store;
	if ((st = read_best(c, &c->before)) != KJIT_OK ||
	    (st = write_result(c, now)) != KJIT_OK)
		return st;
	return update_best(c, now);
}

kjit_status kjit__record_stale(kjit__store *store, const char *signature,
                               const char *device_key, const char *problem)
{
	sqlite3_stmt *s = NULL;
	kjit__store_lock(store);
	int rc = sqlite3_prepare_v2(kjit__store_db(store),
	                            "UPDATE best SET stale = 1, updated = ?4 WHERE signature = ?1"
	                            " AND device_key = ?2 AND problem = ?3", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(s, 1, signature, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, device_key, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, problem, -1, SQLITE_STATIC);
		sqlite3_bind_double(s, 4, kjit__wall_time());
		rc = sqlite3_step(s);
	}
	kjit_status st = rc == SQLITE_DONE ? KJIT_OK : kjit__store_fail(store, rc, "marking a row stale");
	sqlite3_finalize(s);
	kjit__store_unlock(store);
	return st;
}

static kjit_status check_eval(const kjit_eval *e)
{
	if (!e->config)
		return kjit__error(KJIT_ERR_INVALID_ARG, "a result needs a configuration");
	kjit_status st = check_form(e->config, "a result's configuration", 0);
	if (st != KJIT_OK)
		return st;
	if ((unsigned)e->status >= KJIT__RS_COUNT)
		return kjit__error(KJIT_ERR_INVALID_ARG, "a result's status %d is none of the %d "
		                   "kjit_result_status values", (int)e->status, KJIT__RS_COUNT);
	if (e->n_samples && !e->samples)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%zu samples and no samples array",
		                   e->n_samples);
	if (e->n_samples > (size_t)INT32_MAX / 8)
		return kjit__error(KJIT_ERR_INVALID_ARG, "too many samples: %zu", e->n_samples);
	if (e->has_device_ordinal && e->device_ordinal < 0)
		return kjit__error(KJIT_ERR_INVALID_ARG, "device ordinal %d: expected 0 or more "
		                   "(or none, for an unknown device)", (int)e->device_ordinal);
	return KJIT_OK;
}

kjit_status kjit_record_eval(kjit_records *rec, const kjit_run *run, const kjit_eval *e,
                              int64_t *result_id, int *improved)
{
	if (!rec || !run || !e)
		return kjit__error(KJIT_ERR_INVALID_ARG, "recording an evaluation: a NULL argument");
	kjit__store *store = rec->store;
	kjit_status st = check_run(run);
	if (st == KJIT_OK)
		st = check_eval(e);
	if (st != KJIT_OK)
		return st;
	record_ctx c = { store, run, e, 0, 0, { 0, NAN, 0, 0 } };
	kjit__store_lock(store);
	st = kjit__store_transaction(store, record_tx, &c);
	kjit__store_unlock(store);
	if (st == KJIT_OK) {
		if (result_id)
			*result_id = c.id;
		if (improved)
			*improved = c.improved;
	}
	return st;
}

typedef struct search_ctx {
	const kjit_run *run;
	const kjit_eval *evals;
	size_t n, best;
} search_ctx;

static kjit_status search_tx(kjit__store *store, void *arg)
{
	const search_ctx *sc = arg;
	double now = kjit__wall_time();
	int64_t best_id = 0;
	for (size_t i = 0; i < sc->n; i++) {
		record_ctx c = { store, sc->run, &sc->evals[i], 0, 0, { 0, NAN, 0, 0 } };
		kjit_status st = write_result(&c, now);
		if (st != KJIT_OK)
			return st;
		if (i == sc->best)
			best_id = c.id;
	}
	const kjit_eval *b = &sc->evals[sc->best];
	return write_best(store, sc->run, best_id, b->arch, b->nvrtc, now);
}

kjit_status kjit__record_search(kjit__store *store, const char *signature,
                                const char *device_key, const char *problem,
                                kjit_objective objective, const kjit_eval *evals, size_t n,
                                size_t best)
{
	if (best >= n)
		return kjit__error(KJIT_ERR_INVALID_ARG, "recording a search: its best is "
		                   "evaluation %zu of %zu", best, n);
	for (size_t i = 0; i < n; i++) {
		kjit_status st = check_eval(&evals[i]);
		if (st != KJIT_OK)
			return st;
	}
	/* no runs row; the run's texts are only read */
	kjit_run run = { 0, (char *)signature, (char *)device_key, (char *)problem, objective, 0 };
	search_ctx c = { &run, evals, n, best };
	kjit__store_lock(store);
	kjit_status st = kjit__store_transaction(store, search_tx, &c);
	kjit__store_unlock(store);
	return st;
}
