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

/* Parses a row's problem and configuration by kjit's strict JSON reader
 * (a stored row is input like any other); sets r->usable: every size an
 * integer and every parameter a value of its own, each named once, and
 * nothing else. */
static kjit_status parse_row(const kjit__spec *spec, const char *const *names, size_t n,
                             kjit__best_row *r)
{
	r->values = calloc(n ? n : 1, sizeof *r->values);
	r->cfg = calloc(spec->n_params ? spec->n_params : 1, sizeof *r->cfg);
	if (!r->values || !r->cfg)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	kjit__json *problem = NULL, *config = NULL;
	kjit_status st = kjit__json_parse(r->problem, strlen(r->problem), "best.problem", &problem);
	kjit_status sc = kjit__json_parse(r->config, strlen(r->config), "best.config", &config);
	if (st == KJIT_ERR_NOMEM || sc == KJIT_ERR_NOMEM) {
		kjit__json_free(problem);
		kjit__json_free(config);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	/* usable: every size an integer and every parameter's value its own,
	 * with nothing else in either object */
	int usable = st == KJIT_OK && problem->type == KJIT__JSON_OBJECT && problem->n == n &&
	             sc == KJIT_OK && config->type == KJIT__JSON_OBJECT &&
	             config->n == spec->n_params && kjit__config_from_json(spec, config, r->cfg);
	for (size_t i = 0; usable && i < n; i++)
		usable = kjit__json_int(kjit__json_get(problem, names[i]), &r->values[i]) == 1;
	r->usable = usable;
	kjit__json_free(problem);
	kjit__json_free(config);
	return KJIT_OK;
}

kjit_status kjit__store_best_read(kjit__store *store, const kjit__spec *spec,
                                  const char *const *names, size_t n, const char *signature,
                                  const char *arch, kjit__best_row **rows_out, size_t *n_out)
{
	sqlite3_stmt *s = NULL;
	kjit__best_row *rows = NULL;
	size_t n_rows = 0, cap = 0;
	kjit_status st = KJIT_OK;
	char prefix[24];
	snprintf(prefix, sizeof prefix, "%s|", arch);
	*rows_out = NULL;
	*n_out = 0;
	/* whether the result has a profile; its figures are read for the
	 * chosen row alone (kjit__store_best_profile()), so that the first
	 * launch does not prepare a statement of every profile column */
	static const char sql[] =
		"SELECT b.device_key, b.problem, b.config, b.median_ns, b.nvrtc, b.stale,"
		" b.result_id, EXISTS (SELECT 1 FROM " KJIT__T_PROFILES " p WHERE p.result_id ="
		" b.result_id) FROM " KJIT__T_BEST " b WHERE b.signature = ?1 AND"
		" substr(b.device_key, 1, length(?2)) = ?2";
	kjit__store_lock(store);
	int rc = sqlite3_prepare_v2(kjit__store_db(store), sql, -1, &s, NULL);
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
		r->result_id = sqlite3_column_int64(s, 6);
		r->has_profile = sqlite3_column_int(s, 7);
		if (!r->device_key || !r->problem || !r->config || !r->nvrtc)
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		else
			st = parse_row(spec, names, n, r);
	}
	if (st == KJIT_OK && rc != SQLITE_DONE)
		st = kjit__store_fail(store, rc, "reading tuned results");
done:
	sqlite3_finalize(s);
	kjit__store_unlock(store);
	if (st != KJIT_OK) {
		kjit__best_rows_free(rows, n_rows);
		return st;
	}
	*rows_out = rows;
	*n_out = n_rows;
	return KJIT_OK;
}

kjit_status kjit__store_best_profile(kjit__store *store, kjit__best_row *row)
{
	if (!row->has_profile)
		return KJIT_OK;
	kjit__buf q = { 0 };
	kjit__buf_str(&q, "SELECT " KJIT__C_COUNTERS_REASON ", " KJIT__C_ENERGY_REASON);
	kjit__profile_sql_columns(&q, KJIT__T_PROFILES);
	kjit__buf_str(&q, " FROM " KJIT__T_PROFILES " WHERE result_id = ?1");
	char *sql = kjit__buf_done(&q);
	if (!sql)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	sqlite3_stmt *s = NULL;
	kjit__store_lock(store);
	int rc = sqlite3_prepare_v2(kjit__store_db(store), sql, -1, &s, NULL);
	free(sql);
	kjit_status st = KJIT_OK;
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, row->result_id);
		rc = sqlite3_step(s);
	}
	if (rc == SQLITE_ROW) {
		kjit__profile_sql_read(s, 2, &row->profile);
		row->profile.counters_reason = row->reasons[0] = col_dup(s, 0);
		row->profile.energy_reason = row->reasons[1] = col_dup(s, 1);
		if (!row->reasons[0] || !row->reasons[1])
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	} else if (rc == SQLITE_DONE) {
		row->has_profile = 0; /* gone since the rows were read */
	} else {
		st = kjit__store_fail(store, rc, "reading a tuned result's profile");
	}
	sqlite3_finalize(s);
	kjit__store_unlock(store);
	return st;
}
