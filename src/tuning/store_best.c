/* store_best.c - the best table as kjit_launch() reads and writes it:
 * candidate rows for a kernel, online tuning results, stale marks. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

void kjit__best_rows_free(kjit__best_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].device_key);
		free(rows[i].problem);
		free(rows[i].config);
		free(rows[i].nvrtc);
		free(rows[i].values);
		free(rows[i].cfg);
		free(rows[i].reasons[0]);
		free(rows[i].reasons[1]);
	}
	free(rows);
}

static char *col_dup(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return strdup(t ? (const char *)t : "");
}

/* Parses a row's problem and configuration with json_each (each is
 * "SELECT key, atom FROM json_each(?1)"); sets r->usable. */
static kjit_status parse_row(sqlite3_stmt *each, const kjit__spec *spec,
                             const char *const *names, size_t n, kjit__best_row *r)
{
	r->values = calloc(n ? n : 1, sizeof *r->values);
	r->cfg = calloc(spec->n_params ? spec->n_params : 1, sizeof *r->cfg);
	if (!r->values || !r->cfg)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	size_t seen_sizes = 0, seen_params = 0, extra = 0;
	for (int pass = 0; pass < 2; pass++) {
		sqlite3_reset(each);
		sqlite3_bind_text(each, 1, pass ? r->config : r->problem, -1, SQLITE_STATIC);
		int rc;
		while ((rc = sqlite3_step(each)) == SQLITE_ROW) {
			const char *key = (const char *)sqlite3_column_text(each, 0);
			const char *atom = (const char *)sqlite3_column_text(each, 1);
			int found = 0;
			if (!key || !atom) {
				extra++;
				continue;
			}
			if (!pass) {
				for (size_t i = 0; i < n && !found; i++)
					if (strcmp(key, names[i]) == 0) {
						r->values[i] = strtoll(atom, NULL, 10);
						found = 1;
						seen_sizes++;
					}
			} else {
				for (size_t i = 0; i < spec->n_params && !found; i++) {
					const kjit__param *p = &spec->params[i];
					if (strcmp(key, p->name) != 0)
						continue;
					long v = kjit__param_value_index(p, atom);
					if (v >= 0) {
						r->cfg[i] = (uint16_t)v;
						found = 1;
						seen_params++;
					}
				}
			}
			extra += !found;
		}
		/* Malformed JSON (an error from json_each) makes the row unusable. */
		if (rc != SQLITE_DONE)
			extra++;
	}
	sqlite3_reset(each);
	r->usable = !extra && seen_sizes == n && seen_params == spec->n_params;
	return KJIT_OK;
}

kjit_status kjit__store_best_read(kjit__store *store, const kjit__spec *spec,
                                  const char *const *names, size_t n, const char *signature,
                                  const char *arch, kjit__best_row **rows_out, size_t *n_out)
{
	sqlite3_stmt *s = NULL, *each = NULL;
	kjit__best_row *rows = NULL;
	size_t n_rows = 0, cap = 0;
	kjit_status st = KJIT_OK;
	char prefix[24];
	snprintf(prefix, sizeof prefix, "%s|", arch);
	*rows_out = NULL;
	*n_out = 0;
	/* with the result's profile, when kjit-tune stored one */
	kjit__buf q = { 0 };
	kjit__buf_str(&q, "SELECT b.device_key, b.problem, b.config, b.median_ns, b.nvrtc, b.stale,"
	              " p.result_id IS NOT NULL, p." KJIT__C_COUNTERS_REASON ", p."
	              KJIT__C_ENERGY_REASON);
	kjit__profile_sql_columns(&q, "p");
	kjit__buf_str(&q, " FROM " KJIT__T_BEST " b LEFT JOIN " KJIT__T_PROFILES " p ON"
	              " p.result_id = b.result_id WHERE b.signature = ?1 AND"
	              " substr(b.device_key, 1, length(?2)) = ?2");
	char *sql = kjit__buf_done(&q);
	if (!sql)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	kjit__store_lock(store);
	sqlite3 *db = kjit__store_db(store);
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	free(sql);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "SELECT key, atom FROM json_each(?1)", -1, &each, NULL);
	if (rc != SQLITE_OK) {
		st = kjit__store_fail(store, rc, "reading tuned results");
		goto done;
	}
	sqlite3_bind_text(s, 1, signature, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, prefix, -1, SQLITE_STATIC);
	while (st == KJIT_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (n_rows == cap) {
			size_t nc = cap ? 2 * cap : 16;
			kjit__best_row *r = realloc(rows, nc * sizeof *r);
			if (!r) {
				st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
				break;
			}
			rows = r;
			cap = nc;
		}
		kjit__best_row *r = &rows[n_rows++];
		memset(r, 0, sizeof *r);
		r->device_key = col_dup(s, 0);
		r->problem = col_dup(s, 1);
		r->config = col_dup(s, 2);
		r->median_ns = sqlite3_column_double(s, 3);
		r->nvrtc = col_dup(s, 4);
		r->stale = sqlite3_column_int(s, 5);
		if ((r->has_profile = sqlite3_column_int(s, 6))) {
			kjit__profile_sql_read(s, 9, &r->profile);
			r->profile.counters_reason = r->reasons[0] = col_dup(s, 7);
			r->profile.energy_reason = r->reasons[1] = col_dup(s, 8);
		}
		if (!r->device_key || !r->problem || !r->config || !r->nvrtc ||
		    (r->has_profile && (!r->reasons[0] || !r->reasons[1])))
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		else
			st = parse_row(each, spec, names, n, r);
	}
	if (st == KJIT_OK && rc != SQLITE_DONE)
		st = kjit__store_fail(store, rc, "reading tuned results");
done:
	sqlite3_finalize(s);
	sqlite3_finalize(each);
	kjit__store_unlock(store);
	if (st != KJIT_OK) {
		kjit__best_rows_free(rows, n_rows);
		return st;
	}
	*rows_out = rows;
	*n_out = n_rows;
	return KJIT_OK;
}

/* ---- writing ------------------------------------------------------------- */

typedef struct commit_ctx {
	const char *signature, *device_key, *problem, *arch;
	const kjit__trial_result *trials;
	size_t n, best;
} commit_ctx;

static void bind_real(sqlite3_stmt *s, int i, double d)
{
	if (isnan(d))
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_double(s, i, d);
}

static kjit_status commit_tx(kjit__store *store, void *arg)
{
	const commit_ctx *c = arg;
	sqlite3 *db = kjit__store_db(store);
	sqlite3_stmt *res = NULL, *best = NULL;
	int64_t best_id = 0;
	double now = kjit__wall_time();
	/* a row measured again here is no longer a run's, nor its device's */
	int rc = sqlite3_prepare_v2(
		db,
		"INSERT INTO results(signature, device_key, problem, config, binary_key, status,"
		" timer, l2, median_ns, spread_ns, min_ns, max_ns, n_samples, samples, objective,"
		" message, created)"
		" VALUES(?1, ?2, ?3, ?4, ?5, 'ok', ?6, 'warm', ?7, ?8, ?9, ?10, ?11, ?12, ?7,"
		" 'online', ?13)"
		" ON CONFLICT(signature, device_key, problem, config, l2) DO UPDATE SET"
		" run_id = NULL, device_ordinal = NULL, device_uuid = NULL,"
		" binary_key = excluded.binary_key, status = 'ok',"
		" timer = excluded.timer, median_ns = excluded.median_ns,"
		" spread_ns = excluded.spread_ns, min_ns = excluded.min_ns,"
		" max_ns = excluded.max_ns, n_samples = excluded.n_samples,"
		" samples = excluded.samples, objective = excluded.objective,"
		" message = excluded.message, created = excluded.created",
		-1, &res, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < c->n; i++) {
		const kjit__trial_result *t = &c->trials[i];
		sqlite3_reset(res);
		sqlite3_bind_text(res, 1, c->signature, -1, SQLITE_STATIC);
		sqlite3_bind_text(res, 2, c->device_key, -1, SQLITE_STATIC);
		sqlite3_bind_text(res, 3, c->problem, -1, SQLITE_STATIC);
		sqlite3_bind_text(res, 4, t->config, -1, SQLITE_STATIC);
		sqlite3_bind_text(res, 5, t->binary_key, -1, SQLITE_STATIC);
		sqlite3_bind_text(res, 6, t->timer, -1, SQLITE_STATIC);
		bind_real(res, 7, t->median_ns);
		bind_real(res, 8, t->spread_ns);
		bind_real(res, 9, t->min_ns);
		bind_real(res, 10, t->max_ns);
		sqlite3_bind_int64(res, 11, (sqlite3_int64)t->n_samples);
		kjit_status bst = kjit__store_bind_samples(res, 12, t->samples, t->n_samples);
		if (bst != KJIT_OK) {
			sqlite3_finalize(res);
			return bst;
		}
		sqlite3_bind_double(res, 13, now);
		rc = sqlite3_step(res);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	sqlite3_stmt *id = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, "SELECT id FROM results WHERE signature = ?1 AND"
		                        " device_key = ?2 AND problem = ?3 AND config = ?4 AND"
		                        " l2 = 'warm'", -1, &id, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(id, 1, c->signature, -1, SQLITE_STATIC);
		sqlite3_bind_text(id, 2, c->device_key, -1, SQLITE_STATIC);
		sqlite3_bind_text(id, 3, c->problem, -1, SQLITE_STATIC);
		sqlite3_bind_text(id, 4, c->trials[c->best].config, -1, SQLITE_STATIC);
		rc = sqlite3_step(id);
		if (rc == SQLITE_ROW) {
			best_id = sqlite3_column_int64(id, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(id);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(
			db,
			/* chosen by time: the row says so, whatever chose it before */
			"INSERT INTO best(signature, device_key, problem, arch, config, result_id,"
			" median_ns, nvrtc, stale, updated, objective)"
			" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, 'time')"
			" ON CONFLICT(signature, device_key, problem) DO UPDATE SET"
			" arch = excluded.arch, config = excluded.config,"
			" result_id = excluded.result_id, median_ns = excluded.median_ns,"
			" nvrtc = excluded.nvrtc, stale = 0, updated = excluded.updated,"
			" objective = excluded.objective",
			-1, &best, NULL);
	if (rc == SQLITE_OK) {
		const kjit__trial_result *t = &c->trials[c->best];
		sqlite3_bind_text(best, 1, c->signature, -1, SQLITE_STATIC);
		sqlite3_bind_text(best, 2, c->device_key, -1, SQLITE_STATIC);
		sqlite3_bind_text(best, 3, c->problem, -1, SQLITE_STATIC);
		sqlite3_bind_text(best, 4, c->arch, -1, SQLITE_STATIC);
		sqlite3_bind_text(best, 5, t->config, -1, SQLITE_STATIC);
		sqlite3_bind_int64(best, 6, best_id);
		sqlite3_bind_double(best, 7, t->median_ns);
		sqlite3_bind_text(best, 8, kjit__nvrtc_id(), -1, SQLITE_STATIC);
		sqlite3_bind_double(best, 9, now);
		rc = sqlite3_step(best);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	kjit_status st = rc == SQLITE_OK ? KJIT_OK
	                                 : kjit__store_fail(store, rc, "recording online tuning");
	sqlite3_finalize(res);
	sqlite3_finalize(best);
	return st;
}

kjit_status kjit__store_best_commit(kjit__store *store, const char *signature,
                                    const char *device_key, const char *problem,
                                    const char *arch, const kjit__trial_result *trials,
                                    size_t n, size_t best)
{
	if (best >= n)
		return kjit__error(KJIT_ERR_INVALID_ARG, "online tuning: no successful trial");
	commit_ctx c = { signature, device_key, problem, arch, trials, n, best };
	kjit__store_lock(store);
	kjit_status st = kjit__store_transaction(store, commit_tx, &c);
	kjit__store_unlock(store);
	return st;
}

kjit_status kjit__store_best_stale(kjit__store *store, const char *signature,
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
