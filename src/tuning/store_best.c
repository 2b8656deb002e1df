/* store_best.c - the best table as kjit_launch() reads it: candidate rows
 * for a kernel (its writer is the record room, record.c). */
#include "config.h"

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
