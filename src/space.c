/*
 * space.c - expressions evaluated by SQLite, and the constrained space.
 *
 * An expression (a restriction, a grid formula, shared memory) becomes a
 * prepared "SELECT (expr)" whose names are bound parameters. The
 * connection runs under an authorizer that allows SELECT itself and a
 * list of pure functions only, so an expression can read no table, call
 * nothing with a side effect and change nothing.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine.h"

struct kjit__expr_ctx {
	sqlite3 *db;
};

struct kjit__expr {
	sqlite3_stmt *stmt;
	int *slots; /* bound parameter i + 1 reads slots[i] */
	int n_slots;
	int max_slot;
	char *what;
};

/* Functions an expression may call: deterministic, no side effect. */
static const char *const pure_functions[] = {
	"abs", "min", "max", "pow", "power", "floor", "ceil", "ceiling", "sqrt",
	"log", "log2", "log10", "exp", "round", "iif", "coalesce", "ifnull", "nullif",
	NULL
};

static int authorize(void *user, int action, const char *a1, const char *a2,
                     const char *db, const char *trigger)
{
	if (action == SQLITE_SELECT)
		return SQLITE_OK;
	if (action == SQLITE_FUNCTION && a2) {
		for (size_t i = 0; pure_functions[i]; i++)
			if (strcasecmp(a2, pure_functions[i]) == 0)
				return SQLITE_OK;
	}
	return SQLITE_DENY;
}

kjit_status kjit__expr_ctx_open(kjit__expr_ctx **out)
{
	kjit__expr_ctx *ctx = calloc(1, sizeof *ctx);
	*out = NULL;
	if (!ctx)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	int rc = sqlite3_open_v2(":memory:", &ctx->db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_set_authorizer(ctx->db, authorize, NULL);
	if (rc != SQLITE_OK) {
		kjit_status st = kjit__error(KJIT_ERR_DB, "expression engine: %s",
		                             ctx->db ? sqlite3_errmsg(ctx->db) : sqlite3_errstr(rc));
		sqlite3_close(ctx->db);
		free(ctx);
		return st;
	}
	*out = ctx;
	return KJIT_OK;
}

void kjit__expr_ctx_close(kjit__expr_ctx *ctx)
{
	if (!ctx)
		return;
	sqlite3_close(ctx->db);
	free(ctx);
}

static kjit_status translate_fail(kjit__buf *b, const char *expr, const char *what, size_t at)
{
	free(b->p);
	return kjit__error(KJIT_ERR_INVALID_ARG, "%s at offset %zu of \"%s\"", what, at, expr);
}

kjit_status kjit__expr_translate(const char *expr, const char *const *names, size_t n,
                              char **out)
{
	kjit__buf b = { 0 };
	const char *s = expr;
	*out = NULL;
	while (*s) {
		size_t at = (size_t)(s - expr);
		if (isspace((unsigned char)*s)) {
			kjit__buf_add(&b, " ", 1);
			s++;
		} else if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
			const char *e = s;
			while (isalnum((unsigned char)*e) || *e == '.' ||
			       ((*e == '+' || *e == '-') && (e[-1] == 'e' || e[-1] == 'E')))
				e++;
			kjit__buf_add(&b, s, (size_t)(e - s));
			s = e;
		} else if (isalpha((unsigned char)*s) || *s == '_') {
			const char *e = s;
			while (isalnum((unsigned char)*e) || *e == '_')
				e++;
			size_t len = (size_t)(e - s);
			const char *after = e;
			while (isspace((unsigned char)*after))
				after++;
			size_t i;
			for (i = 0; i < n; i++)
				if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
					break;
			if (i < n) {
				kjit__buf_add(&b, ":", 1);
				kjit__buf_add(&b, s, len);
			} else if (len == 3 && memcmp(s, "and", 3) == 0) {
				kjit__buf_str(&b, " AND ");
			} else if (len == 2 && memcmp(s, "or", 2) == 0) {
				kjit__buf_str(&b, " OR ");
			} else if (len == 3 && memcmp(s, "not", 3) == 0) {
				kjit__buf_str(&b, " NOT ");
			} else if (len == 4 && memcmp(s, "True", 4) == 0) {
				kjit__buf_str(&b, "1");
			} else if (len == 5 && memcmp(s, "False", 5) == 0) {
				kjit__buf_str(&b, "0");
			} else if (*after == '(') {
				kjit__buf_add(&b, s, len); /* a call: the authorizer judges it */
			} else {
				char msg[160];
				snprintf(msg, sizeof msg, "unknown name '%.*s' (not a parameter or problem size)",
				         (int)(len > 64 ? 64 : len), s);
				return translate_fail(&b, expr, msg, at);
			}
			s = e;
		} else if (*s == '"' || *s == '\'') {
			/* A string literal: SQL quotes it with ' and doubles an
			 * inner '. */
			char q = *s++;
			kjit__buf_add(&b, "'", 1);
			while (*s && *s != q) {
				if (*s == '\'')
					kjit__buf_add(&b, "'", 1);
				kjit__buf_add(&b, s, 1);
				s++;
			}
			if (!*s)
				return translate_fail(&b, expr, "unterminated string", at);
			kjit__buf_add(&b, "'", 1);
			s++;
		} else if (s[0] == '/' && s[1] == '/') {
			kjit__buf_add(&b, "/", 1); /* integer division of integers */
			s += 2;
		} else if (s[0] == '=' && s[1] == '=') {
			kjit__buf_add(&b, "=", 1);
			s += 2;
		} else if (s[0] == '*' && s[1] == '*') {
			return translate_fail(&b, expr, "'**' is not supported (use pow(a, b))", at);
		} else if (s[0] == '&' && s[1] == '&') {
			kjit__buf_str(&b, " AND ");
			s += 2;
		} else if (s[0] == '|' && s[1] == '|') {
			kjit__buf_str(&b, " OR ");
			s += 2;
		} else if (s[0] == '!' && s[1] != '=') {
			kjit__buf_str(&b, " NOT ");
			s++;
		} else if (strchr("+-*/%()<>=!,", *s)) {
			kjit__buf_add(&b, s, 1);
			s++;
		} else {
			char msg[64];
			snprintf(msg, sizeof msg, "unexpected character '%c'", *s);
			return translate_fail(&b, expr, msg, at);
		}
	}
	if (b.oom || !b.p) {
		free(b.p);
		return b.oom ? kjit__error(KJIT_ERR_NOMEM, "out of memory")
		             : kjit__error(KJIT_ERR_INVALID_ARG, "empty expression");
	}
	*out = b.p;
	return KJIT_OK;
}

kjit_status kjit__expr_prepare_sql(kjit__expr_ctx *ctx, const char *sql,
                                const char *const *names, size_t n, const char *what,
                                kjit__expr **out)
{
	*out = NULL;
	kjit__expr *e = calloc(1, sizeof *e);
	char *full = kjit__strdup_printf("SELECT (%s)", sql);
	if (!e || !full || !(e->what = strdup(what))) {
		free(full);
		kjit__expr_free(e);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	const char *tail = NULL;
	int rc = sqlite3_prepare_v2(ctx->db, full, -1, &e->stmt, &tail);
	if (rc == SQLITE_OK && tail && *tail) {
		rc = SQLITE_ERROR; /* "1); DELETE ..." would hide a second statement */
		kjit_status st = kjit__error(KJIT_ERR_INVALID_ARG,
		                             "%s: expected one expression, got more: \"%s\"", what, sql);
		free(full);
		kjit__expr_free(e);
		return st;
	}
	free(full);
	if (rc != SQLITE_OK || !e->stmt) {
		kjit_status st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: bad expression \"%s\": %s",
		                             what, sql, sqlite3_errmsg(ctx->db));
		kjit__expr_free(e);
		return st;
	}
	e->n_slots = sqlite3_bind_parameter_count(e->stmt);
	e->max_slot = -1;
	e->slots = calloc((size_t)e->n_slots + 1, sizeof *e->slots);
	if (!e->slots) {
		kjit__expr_free(e);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	for (int i = 0; i < e->n_slots; i++) {
		const char *pn = sqlite3_bind_parameter_name(e->stmt, i + 1);
		size_t k = n;
		if (pn && pn[0] == ':')
			for (k = 0; k < n; k++)
				if (strcmp(pn + 1, names[k]) == 0)
					break;
		if (k == n) {
			kjit_status st = kjit__error(KJIT_ERR_INVALID_ARG,
			                             "%s: unknown name %s in \"%s\"", what,
			                             pn ? pn : "?", sql);
			kjit__expr_free(e);
			return st;
		}
		e->slots[i] = (int)k;
		if ((int)k > e->max_slot)
			e->max_slot = (int)k;
	}
	*out = e;
	return KJIT_OK;
}

kjit_status kjit__expr_prepare(kjit__expr_ctx *ctx, const char *expr, const char *const *names,
                            size_t n, const char *what, kjit__expr **out)
{
	char *sql;
	*out = NULL;
	kjit_status st = kjit__expr_translate(expr, names, n, &sql);
	if (st != KJIT_OK) {
		char *msg = kjit__strdup_printf("%s: bad expression: %s", what, kjit__error_msg());
		return msg ? kjit__error_take(st, msg) : st;
	}
	st = kjit__expr_prepare_sql(ctx, sql, names, n, what, out);
	free(sql);
	if (st == KJIT_ERR_INVALID_ARG) /* show the text as written, not its SQL */
		return kjit__error(st, "%s: bad expression \"%s\": %s", what, expr,
		                   sqlite3_errmsg(ctx->db));
	return st;
}

void kjit__expr_free(kjit__expr *e)
{
	if (!e)
		return;
	sqlite3_finalize(e->stmt);
	free(e->slots);
	free(e->what);
	free(e);
}

int kjit__expr_max_slot(const kjit__expr *e)
{
	return e->max_slot;
}

kjit_status kjit__expr_eval_sql(kjit__expr *e, const kjit__value *slots, double *out)
{
	int rc = SQLITE_OK;
	for (int i = 0; i < e->n_slots && rc == SQLITE_OK; i++) {
		const kjit__value *v = &slots[e->slots[i]];
		if (v->kind == SQLITE_INTEGER)
			rc = sqlite3_bind_int64(e->stmt, i + 1, v->i);
		else if (v->kind == SQLITE_FLOAT)
			rc = sqlite3_bind_double(e->stmt, i + 1, v->d);
		else
			rc = sqlite3_bind_text(e->stmt, i + 1, v->text, -1, SQLITE_STATIC);
	}
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(e->stmt);
		if (rc == SQLITE_ROW) {
			/* NULL (as from a division by zero) reads as NaN. */
			*out = sqlite3_column_type(e->stmt, 0) == SQLITE_NULL
			               ? NAN
			               : sqlite3_column_double(e->stmt, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_reset(e->stmt);
	if (rc != SQLITE_OK)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: evaluation failed: %s", e->what,
		                   sqlite3_errstr(rc));
	return KJIT_OK;
}

/* ---- the space ---------------------------------------------------------- */

/* A check that runs once parameter depth is set. */
typedef struct check {
	kjit__expr *expr;
	long depth;   /* -1: reads problem sizes only */
	int kind;     /* 0 restriction (true), 1 grid (>= 1), 2 shared (<= limit) */
} check;

typedef struct walker {
	const kjit__spec *spec;
	kjit__limits limits;
	size_t np;            /* problem slots come first */
	kjit__value *slots;
	check *checks;
	size_t n_checks;
	long last_block;      /* the depth where block x*y*z is known */
	uint16_t *cur;
	uint16_t *configs;
	size_t size, cap;
} walker;

static kjit_status run_checks(walker *w, long depth, int *ok)
{
	*ok = 1;
	for (size_t i = 0; i < w->n_checks && *ok; i++) {
		check *c = &w->checks[i];
		if (c->depth != depth)
			continue;
		double v;
		kjit_status st = kjit__expr_eval_sql(c->expr, w->slots, &v);
		if (st != KJIT_OK)
			return st;
		if (c->kind == 0)
			*ok = !isnan(v) && v != 0;
		else if (c->kind == 1)
			*ok = !isnan(v) && v >= 1 && v <= 2147483647.0;
		else
			*ok = !isnan(v) && v >= 0 && v <= (double)w->limits.max_shared;
	}
	if (*ok && depth == w->last_block) {
		int64_t threads = 1;
		for (size_t j = 0; j < w->spec->n_params; j++) {
			const kjit__param *p = &w->spec->params[j];
			for (unsigned r = KJIT__ROLE_BLOCK_X; r <= KJIT__ROLE_BLOCK_Z; r <<= 1)
				if (p->roles & r)
					threads *= p->values[w->cur[j]].i;
		}
		*ok = threads >= 1 && threads <= w->limits.max_threads;
	}
	return KJIT_OK;
}

/* The top-level conjuncts of translated SQL: "a AND b AND c" gives a, b
 * and c, so that each runs as soon as its own parameters are set (what
 * SQLite does with the terms of a WHERE). With a top-level OR the whole
 * is one term (AND binds tighter than OR). Cuts sql in place; *n_out
 * parts start at parts[]. */
static size_t split_and(char *sql, char **parts, size_t max)
{
	size_t n = 0;
	int depth = 0, quoted = 0;
	for (char *p = sql; *p; p++) {
		if (*p == '\'')
			quoted = !quoted;
		else if (!quoted && *p == '(')
			depth++;
		else if (!quoted && *p == ')')
			depth--;
		else if (!quoted && depth == 0 && strncmp(p, " OR ", 4) == 0)
			return (parts[0] = sql, 1);
	}
	parts[n++] = sql;
	depth = 0;
	quoted = 0;
	for (char *p = sql; *p && n < max; p++) {
		if (*p == '\'')
			quoted = !quoted;
		else if (!quoted && *p == '(')
			depth++;
		else if (!quoted && *p == ')')
			depth--;
		else if (!quoted && depth == 0 && strncmp(p, " AND ", 5) == 0) {
			*p = '\0';
			parts[n++] = p + 5;
			p += 4;
		}
	}
	return n;
}

static kjit_status add_checks(walker *w, kjit__expr_ctx *ctx, const char *text,
                              const char *const *names, size_t n_names, const char *what,
                              int kind)
{
	char *sql, *parts[64];
	kjit_status st = kjit__expr_translate(text, names, n_names, &sql);
	if (st != KJIT_OK) {
		char *msg = kjit__strdup_printf("%s: bad expression: %s", what, kjit__error_msg());
		return msg ? kjit__error_take(st, msg) : st;
	}
	size_t n = kind == 0 ? split_and(sql, parts, 64) : (parts[0] = sql, 1);
	check *c = realloc(w->checks, (w->n_checks + n) * sizeof *c);
	if (!c) {
		free(sql);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	w->checks = c;
	for (size_t i = 0; i < n && st == KJIT_OK; i++) {
		c = &w->checks[w->n_checks];
		st = kjit__expr_prepare_sql(ctx, parts[i], names, n_names, what, &c->expr);
		if (st != KJIT_OK)
			break;
		c->kind = kind;
		c->depth = kjit__expr_max_slot(c->expr) - (long)w->np;
		if (c->depth < -1)
			c->depth = -1;
		w->n_checks++;
	}
	free(sql);
	return st;
}

static kjit_status walk(walker *w, size_t depth)
{
	const kjit__spec *spec = w->spec;
	if (depth == spec->n_params) {
		if (w->size == w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 256;
			uint16_t *c = realloc(w->configs, cap * spec->n_params * sizeof *c);
			if (!c)
				return kjit__error(KJIT_ERR_NOMEM, "out of memory");
			w->configs = c;
			w->cap = cap;
		}
		memcpy(w->configs + w->size * spec->n_params, w->cur,
		       spec->n_params * sizeof *w->cur);
		w->size++;
		return KJIT_OK;
	}
	const kjit__param *p = &spec->params[depth];
	for (size_t v = 0; v < p->n_values; v++) {
		int ok;
		w->cur[depth] = (uint16_t)v;
		w->slots[w->np + depth] = p->values[v];
		kjit_status st = run_checks(w, (long)depth, &ok);
		if (st == KJIT_OK && ok)
			st = walk(w, depth + 1);
		if (st != KJIT_OK)
			return st;
	}
	return KJIT_OK;
}

static uint64_t config_hash(const uint16_t *c, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

static kjit_status build_hash(kjit__space *s)
{
	s->hash_cap = 16;
	while (s->hash_cap < 2 * s->size)
		s->hash_cap *= 2;
	s->hash = calloc(s->hash_cap, sizeof *s->hash);
	if (!s->hash)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < s->size; i++) {
		size_t h = (size_t)config_hash(kjit__space_config(s, i), s->n_params) & (s->hash_cap - 1);
		while (s->hash[h])
			h = (h + 1) & (s->hash_cap - 1);
		s->hash[h] = i + 1;
	}
	return KJIT_OK;
}

kjit_status kjit__space_build(const kjit__spec *spec, size_t p, const kjit__limits *limits,
                           kjit__space **out)
{
	const kjit__problem *prob = &spec->problems[p];
	size_t n_names = prob->n + spec->n_params;
	walker w = { .spec = spec, .np = prob->n, .last_block = -2 };
	const char **names = calloc(n_names, sizeof *names);
	kjit__expr_ctx *ctx = NULL;
	kjit__space *s = calloc(1, sizeof *s);
	kjit_status st = KJIT_OK;
	*out = NULL;
	w.limits.max_threads = limits && limits->max_threads ? limits->max_threads : spec->max_threads;
	w.limits.max_shared = limits && limits->max_shared ? limits->max_shared : spec->max_shared;
	w.slots = calloc(n_names, sizeof *w.slots);
	w.cur = calloc(spec->n_params + 1, sizeof *w.cur);
	if (!names || !s || !w.slots || !w.cur) {
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < prob->n; i++) {
		names[i] = prob->names[i];
		w.slots[i].kind = SQLITE_INTEGER;
		w.slots[i].i = prob->values[i];
	}
	s->product = 1;
	for (size_t i = 0; i < spec->n_params; i++) {
		names[prob->n + i] = spec->params[i].name;
		s->product *= (double)spec->params[i].n_values;
		if (spec->params[i].roles & (KJIT__ROLE_BLOCK_X | KJIT__ROLE_BLOCK_Y | KJIT__ROLE_BLOCK_Z))
			w.last_block = (long)i;
	}
	st = kjit__expr_ctx_open(&ctx);
	/* Restrictions, then the grid and shared memory: each runs at the
	 * depth of the last parameter it reads. */
	for (size_t i = 0; st == KJIT_OK && i < spec->n_restrictions + 4; i++) {
		const char *text;
		char what[64];
		int kind;
		if (i < spec->n_restrictions) {
			text = spec->restrictions[i];
			kind = 0;
			snprintf(what, sizeof what, "restrictions[%zu]", i);
		} else if (i < spec->n_restrictions + 3) {
			text = spec->grid[i - spec->n_restrictions];
			kind = 1;
			snprintf(what, sizeof what, "grid[%zu]", i - spec->n_restrictions);
		} else {
			text = spec->shared;
			kind = 2;
			snprintf(what, sizeof what, "shared_memory");
		}
		st = add_checks(&w, ctx, text, names, n_names, what, kind);
	}
	if (st == KJIT_OK) {
		int ok;
		st = run_checks(&w, -1, &ok);
		if (st == KJIT_OK && ok && spec->n_params)
			st = walk(&w, 0);
	}
	if (st == KJIT_OK) {
		s->spec = spec;
		s->problem = p;
		s->n_params = spec->n_params;
		s->configs = w.configs;
		s->size = w.size;
		w.configs = NULL;
		st = build_hash(s);
	}
done:
	for (size_t i = 0; i < w.n_checks; i++)
		kjit__expr_free(w.checks[i].expr);
	kjit__expr_ctx_close(ctx);
	free(w.checks);
	free(w.configs);
	free(w.cur);
	free(w.slots);
	free(names);
	if (st != KJIT_OK) {
		kjit__space_free(s);
		return st;
	}
	*out = s;
	return KJIT_OK;
}

void kjit__space_free(kjit__space *space)
{
	if (!space)
		return;
	free(space->configs);
	free(space->hash);
	free(space);
}

const uint16_t *kjit__space_config(const kjit__space *space, size_t index)
{
	return space->configs + index * space->n_params;
}

int64_t kjit__space_find(const kjit__space *space, const uint16_t *config)
{
	size_t h = (size_t)config_hash(config, space->n_params) & (space->hash_cap - 1);
	while (space->hash[h]) {
		size_t i = space->hash[h] - 1;
		if (memcmp(kjit__space_config(space, i), config, space->n_params * sizeof *config) == 0)
			return (int64_t)i;
		h = (h + 1) & (space->hash_cap - 1);
	}
	return -1;
}

long kjit__param_value_index(const kjit__param *p, const char *text)
{
	char *end;
	double d = strtod(text, &end);
	int numeric = end != text && *end == '\0';
	for (size_t k = 0; k < p->n_values; k++) {
		const kjit__value *v = &p->values[k];
		if (strcmp(v->text, text) == 0 ||
		    (numeric && v->kind != SQLITE_TEXT &&
		     d == (v->kind == SQLITE_INTEGER ? (double)v->i : v->d)))
			return (long)k;
	}
	return -1;
}

/* Indices of names[n] in name order (insertion sort: n is a handful). */
static size_t *sorted_order(const char *const *names, size_t n)
{
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	if (!idx)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		for (; j > 0 && strcmp(names[idx[j - 1]], names[i]) > 0; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return idx;
}

/* Configuration index as a JSON object, its keys in the order of
 * order[] (NULL: the spec's). */
static char *config_json(const kjit__space *space, size_t index, const size_t *order)
{
	const kjit__spec *spec = space->spec;
	const uint16_t *c = kjit__space_config(space, index);
	kjit__buf b = { 0 };
	kjit__buf_add(&b, "{", 1);
	for (size_t k = 0; k < spec->n_params; k++) {
		size_t i = order ? order[k] : k;
		const kjit__param *p = &spec->params[i];
		const kjit__value *v = &p->values[c[i]];
		if (k)
			kjit__buf_add(&b, ",", 1);
		kjit__buf_json_str(&b, p->name);
		kjit__buf_add(&b, ":", 1);
		if (v->kind == SQLITE_TEXT)
			kjit__buf_json_str(&b, v->text);
		else
			kjit__buf_str(&b, v->text);
	}
	kjit__buf_add(&b, "}", 1);
	return kjit__buf_done(&b);
}

char *kjit__space_config_json(const kjit__space *space, size_t index)
{
	return config_json(space, index, NULL);
}

char *kjit__config_json(const kjit__space *space, size_t index)
{
	const kjit__spec *spec = space->spec;
	const char **names = malloc((spec->n_params ? spec->n_params : 1) * sizeof *names);
	if (!names)
		return NULL;
	for (size_t i = 0; i < spec->n_params; i++)
		names[i] = spec->params[i].name;
	size_t *idx = sorted_order(names, spec->n_params);
	free(names);
	if (!idx)
		return NULL;
	char *json = config_json(space, index, idx);
	free(idx);
	return json;
}

char *kjit__problem_json(const kjit__problem *problem)
{
	size_t *idx = sorted_order((const char *const *)problem->names, problem->n);
	if (!idx)
		return NULL;
	kjit__buf b = { 0 };
	kjit__buf_add(&b, "{", 1);
	for (size_t k = 0; k < problem->n; k++) {
		char num[32];
		if (k)
			kjit__buf_add(&b, ",", 1);
		kjit__buf_json_str(&b, problem->names[idx[k]]);
		snprintf(num, sizeof num, ":%lld", (long long)problem->values[idx[k]]);
		kjit__buf_str(&b, num);
	}
	kjit__buf_add(&b, "}", 1);
	free(idx);
	return kjit__buf_done(&b);
}
