/*
 * spec.c - reads a kjit-tune spec (kjit's own JSON, or the T1 format of the
 * BAT suite) with SQLite's JSON functions on an in-memory connection.
 *
 * Every failure is "FILE: FIELD: expected WHAT", FIELD being the JSON path
 * without its "$." (parameters[1].values).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine.h"

typedef struct parser {
	const char *file;
	char *doc;
	sqlite3 *db;
	sqlite3_stmt *value; /* json_extract and json_type of a path */
	sqlite3_stmt *each;  /* json_each of a path */
	kjit__spec *spec;
} parser;

static kjit_status fail(parser *P, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static kjit_status fail(parser *P, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *field = strncmp(path, "$.", 2) == 0 ? path + 2 : strcmp(path, "$") == 0 ? "" : path;
	return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: expected %s", P->file,
	                   *field ? field : "(top level)", msg);
}

static kjit_status db_fail(parser *P, const char *what)
{
	return kjit__error(KJIT_ERR_DB, "%s: %s: %s", P->file, what, sqlite3_errmsg(P->db));
}

/* The JSON type of path ("" when absent) and, for scalars, its text
 * (malloc'ed, NULL for objects and arrays). */
static kjit_status lookup(parser *P, const char *path, char type[16], char **text)
{
	int rc = sqlite3_bind_text(P->value, 2, path, -1, SQLITE_TRANSIENT);
	type[0] = '\0';
	if (text)
		*text = NULL;
	if (rc == SQLITE_OK)
		rc = sqlite3_step(P->value);
	if (rc == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(P->value, 1);
		if (t)
			snprintf(type, 16, "%s", t);
		const char *v = (const char *)sqlite3_column_text(P->value, 0);
		if (text && v && strcmp(type, "object") != 0 && strcmp(type, "array") != 0 &&
		    !(*text = strdup(v))) {
			sqlite3_reset(P->value);
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		}
		rc = SQLITE_OK;
	}
	sqlite3_reset(P->value);
	return rc == SQLITE_OK ? KJIT_OK : db_fail(P, path);
}

static int is_number(const char *type)
{
	return strcmp(type, "integer") == 0 || strcmp(type, "real") == 0;
}

/* A string field; *out stays NULL when absent and not required. */
static kjit_status get_string(parser *P, const char *path, int required, char **out)
{
	char type[16];
	*out = NULL;
	kjit_status st = lookup(P, path, type, out);
	if (st != KJIT_OK)
		return st;
	if (!type[0] && !required)
		return KJIT_OK;
	if (strcmp(type, "text") != 0) {
		free(*out);
		*out = NULL;
		return fail(P, path, "a string%s", type[0] ? "" : " (missing)");
	}
	return KJIT_OK;
}

/* An expression: a string or a number; def when absent (NULL: required). */
static kjit_status get_expr(parser *P, const char *path, const char *def, char **out)
{
	char type[16];
	kjit_status st = lookup(P, path, type, out);
	if (st != KJIT_OK)
		return st;
	if (!type[0] && def) {
		*out = strdup(def);
		return *out ? KJIT_OK : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	if (strcmp(type, "text") != 0 && !is_number(type)) {
		free(*out);
		*out = NULL;
		return fail(P, path, "an expression (a string or a number)%s",
		            type[0] ? "" : " (missing)");
	}
	return KJIT_OK;
}

static kjit_status get_number(parser *P, const char *path, double def, double *out)
{
	char type[16], *text;
	kjit_status st = lookup(P, path, type, &text);
	if (st != KJIT_OK)
		return st;
	*out = def;
	if (type[0] && !is_number(type)) {
		free(text);
		return fail(P, path, "a number");
	}
	if (text)
		*out = strtod(text, NULL);
	free(text);
	return KJIT_OK;
}

static kjit_status get_int(parser *P, const char *path, int64_t def, int64_t *out)
{
	char type[16], *text;
	kjit_status st = lookup(P, path, type, &text);
	if (st != KJIT_OK)
		return st;
	*out = def;
	if (type[0] && strcmp(type, "integer") != 0) {
		free(text);
		return fail(P, path, "an integer");
	}
	if (text)
		*out = strtoll(text, NULL, 10);
	free(text);
	return KJIT_OK;
}

/* The type of path, and the number of elements when it is an array. */
static kjit_status get_kind(parser *P, const char *path, char type[16], size_t *n)
{
	kjit_status st = lookup(P, path, type, NULL);
	*n = 0;
	if (st != KJIT_OK || strcmp(type, "array") != 0)
		return st;
	int rc = sqlite3_bind_text(P->each, 2, path, -1, SQLITE_TRANSIENT);
	while (rc == SQLITE_OK && (rc = sqlite3_step(P->each)) == SQLITE_ROW) {
		(*n)++;
		rc = SQLITE_OK;
	}
	sqlite3_reset(P->each);
	return rc == SQLITE_DONE ? KJIT_OK : db_fail(P, path);
}

/* The key of each member of the object at path, in order; *keys is a
 * malloc'ed array of malloc'ed names. */
static kjit_status get_keys(parser *P, const char *path, char ***keys, size_t *n)
{
	int rc = sqlite3_bind_text(P->each, 2, path, -1, SQLITE_TRANSIENT);
	*keys = NULL;
	*n = 0;
	while (rc == SQLITE_OK && (rc = sqlite3_step(P->each)) == SQLITE_ROW) {
		char **k = realloc(*keys, (*n + 1) * sizeof *k);
		const char *name = (const char *)sqlite3_column_text(P->each, 0);
		if (!k || !name || !(k[*n] = strdup(name))) {
			if (k)
				*keys = k;
			sqlite3_reset(P->each);
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		}
		*keys = k;
		(*n)++;
		rc = SQLITE_OK;
	}
	sqlite3_reset(P->each);
	return rc == SQLITE_DONE ? KJIT_OK : db_fail(P, path);
}

static void free_strings(char **s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		free(s[i]);
	free(s);
}

/* Reads a list of strings (a string alone is a list of one). */
static kjit_status get_strings(parser *P, const char *path, char ***out, size_t *n)
{
	char type[16], sub[256];
	size_t len;
	*out = NULL;
	*n = 0;
	kjit_status st = get_kind(P, path, type, &len);
	if (st != KJIT_OK || !type[0])
		return st;
	if (strcmp(type, "text") == 0) {
		len = 1;
	} else if (strcmp(type, "array") != 0) {
		return fail(P, path, "a string or an array of strings");
	}
	if (!(*out = calloc(len + 1, sizeof **out)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < len; i++) {
		if (strcmp(type, "text") == 0)
			snprintf(sub, sizeof sub, "%s", path);
		else
			snprintf(sub, sizeof sub, "%s[%zu]", path, i);
		if ((st = get_string(P, sub, 1, &(*out)[i])) != KJIT_OK)
			return st;
		(*n)++;
	}
	return KJIT_OK;
}

/* ---- values ------------------------------------------------------------- */

static kjit_status add_value(kjit__param *p, const char *text, const char *type)
{
	kjit__value *v = realloc(p->values, (p->n_values + 1) * sizeof *v);
	if (!v)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	p->values = v;
	v += p->n_values;
	memset(v, 0, sizeof *v);
	if (!(v->text = strdup(text)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	p->n_values++;
	if (strcmp(type, "integer") == 0) {
		v->kind = SQLITE_INTEGER;
		v->i = strtoll(text, NULL, 10);
		v->d = (double)v->i;
	} else if (strcmp(type, "real") == 0) {
		v->kind = SQLITE_FLOAT;
		v->d = strtod(text, NULL);
	} else {
		v->kind = SQLITE_TEXT;
	}
	return KJIT_OK;
}

/* Values from a JSON array held in a string (T1's "[1, 2, 4]") or from
 * json_each over a path of the document. */
static kjit_status values_from_json(parser *P, kjit__param *p, const char *path,
                                    const char *json)
{
	sqlite3_stmt *stmt = NULL;
	int rc;
	kjit_status st = KJIT_OK;
	if (json) {
		/* CASE is lazy: malformed JSON or a non-array gives no rows
		 * (then "a non-empty list") rather than an SQL error */
		rc = sqlite3_prepare_v2(P->db, "SELECT atom, type FROM json_each(CASE WHEN"
		                        " json_valid(?1) THEN CASE WHEN json_type(?1) = 'array'"
		                        " THEN ?1 END END)", -1, &stmt, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_text(stmt, 1, json, -1, SQLITE_STATIC);
	} else {
		stmt = P->each;
		rc = sqlite3_bind_text(stmt, 2, path, -1, SQLITE_TRANSIENT);
	}
	/* columns: (atom, type) for a string, (key, type, atom) for P->each */
	while (st == KJIT_OK && rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(stmt, 1);
		const char *text = (const char *)sqlite3_column_text(stmt, json ? 0 : 2);
		rc = SQLITE_OK;
		if (!type || !text || (!is_number(type) && strcmp(type, "text") != 0))
			st = fail(P, path, "an array of numbers or strings");
		else
			st = add_value(p, text, type);
	}
	if (json)
		sqlite3_finalize(stmt);
	else
		sqlite3_reset(stmt);
	if (st == KJIT_OK && rc != SQLITE_DONE)
		st = db_fail(P, path);
	return st;
}

/* T1 writes value lists as Python: "[1, 2]" or "list(range(a, b[, s]))". */
static kjit_status values_from_python(parser *P, kjit__param *p, const char *path,
                                      const char *text)
{
	long long a, b, step = 1;
	int used = 0;
	const char *s = text;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '[')
		return values_from_json(P, p, path, s);
	if (sscanf(s, "list(range(%lld , %lld , %lld ))%n", &a, &b, &step, &used) == 3 ||
	    (step = 1, sscanf(s, "list(range(%lld , %lld ))%n", &a, &b, &used) == 2) ||
	    (a = 0, step = 1, sscanf(s, "list(range(%lld ))%n", &b, &used) == 1)) {
		if (step == 0 || (b - a) / step > 65535)
			return fail(P, path, "a range of at most 65535 values");
		for (long long v = a; step > 0 ? v < b : v > b; v += step) {
			char num[32];
			snprintf(num, sizeof num, "%lld", v);
			kjit_status st = add_value(p, num, "integer");
			if (st != KJIT_OK)
				return st;
		}
		return KJIT_OK;
	}
	return fail(P, path, "a list of values: a JSON array, \"[1, 2, 4]\" or "
	                     "\"list(range(A, B[, STEP]))\" (got \"%s\")", text);
}

static kjit_status finish_param(parser *P, kjit__param *p, const char *path, const char *def)
{
	if (p->n_values == 0)
		return fail(P, path, "a non-empty list of values");
	if (p->n_values > 65535)
		return fail(P, path, "at most 65535 values");
	for (size_t i = 0; i < p->n_values; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->values[i].text, p->values[j].text) == 0)
				return fail(P, path, "distinct values (%s repeats)", p->values[i].text);
	if ((p->roles & (KJIT__ROLE_BLOCK_X | KJIT__ROLE_BLOCK_Y | KJIT__ROLE_BLOCK_Z)))
		for (size_t i = 0; i < p->n_values; i++)
			if (p->values[i].kind != SQLITE_INTEGER || p->values[i].i < 1)
				return fail(P, path, "positive integers for a block dimension (got %s)",
				            p->values[i].text);
	if (p->roles & KJIT__ROLE_FLAGS)
		for (size_t i = 0; i < p->n_values; i++)
			if (p->values[i].kind != SQLITE_TEXT)
				return fail(P, path, "strings of NVRTC flags for role flags (got %s)",
				            p->values[i].text);
	p->default_index = 0;
	if (def) {
		size_t i;
		for (i = 0; i < p->n_values; i++)
			if (strcmp(p->values[i].text, def) == 0)
				break;
		if (i == p->n_values)
			return fail(P, path, "a default among the values (got %s)", def);
		p->default_index = i;
	}
	return KJIT_OK;
}

static kjit_status add_param(parser *P, const char *path, const char *name, kjit__param **out)
{
	kjit__spec *s = P->spec;
	if (!name[0] || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
		return fail(P, path, "a parameter name that is an identifier (got \"%s\")", name);
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return fail(P, path, "a parameter name that is an identifier (got \"%s\")", name);
	for (size_t i = 0; i < s->n_params; i++)
		if (strcmp(s->params[i].name, name) == 0)
			return fail(P, path, "a unique parameter name (%s repeats)", name);
	kjit__param *p = realloc(s->params, (s->n_params + 1) * sizeof *p);
	if (!p)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	s->params = p;
	p += s->n_params++;
	memset(p, 0, sizeof *p);
	if (!(p->name = strdup(name)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	*out = p;
	return KJIT_OK;
}

static const struct {
	const char *name;
	unsigned role;
} role_names[] = {
	{ "block_x", KJIT__ROLE_BLOCK_X }, { "block_y", KJIT__ROLE_BLOCK_Y },
	{ "block_z", KJIT__ROLE_BLOCK_Z }, { "define", KJIT__ROLE_DEFINE },
	{ "flags", KJIT__ROLE_FLAGS },
};

/* ---- problems and arguments --------------------------------------------- */

static kjit_status read_problem(parser *P, const char *path, kjit__problem *pr)
{
	char type[16], sub[256];
	size_t n;
	kjit_status st = get_kind(P, path, type, &n);
	if (st != KJIT_OK)
		return st;
	if (strcmp(type, "object") != 0)
		return fail(P, path, "an object of named integer sizes such as {\"n\": 1024}");
	if ((st = get_keys(P, path, &pr->names, &pr->n)) != KJIT_OK)
		return st;
	if (!(pr->values = calloc(pr->n + 1, sizeof *pr->values)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < pr->n; i++) {
		if (snprintf(sub, sizeof sub, "%s.\"%s\"", path, pr->names[i]) >= (int)sizeof sub)
			return fail(P, path, "shorter size names");
		if ((st = lookup(P, sub, type, NULL)) != KJIT_OK)
			return st;
		if (strcmp(type, "integer") != 0)
			return fail(P, sub, "an integer size");
		if ((st = get_int(P, sub, 0, &pr->values[i])) != KJIT_OK)
			return st;
	}
	return KJIT_OK;
}

static kjit_status read_problems(parser *P, const char *path)
{
	kjit__spec *s = P->spec;
	char type[16], sub[256];
	size_t n;
	kjit_status st = get_kind(P, path, type, &n);
	if (st != KJIT_OK)
		return st;
	if (!type[0]) {
		/* No sizes: one problem with none. */
		s->problems = calloc(1, sizeof *s->problems);
		s->n_problems = 1;
		return s->problems ? KJIT_OK : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	if (strcmp(type, "object") == 0)
		n = 1;
	else if (strcmp(type, "array") != 0 || n == 0)
		return fail(P, path, "a problem object or a non-empty array of them");
	if (!(s->problems = calloc(n, sizeof *s->problems)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (strcmp(type, "object") == 0)
			snprintf(sub, sizeof sub, "%s", path);
		else
			snprintf(sub, sizeof sub, "%s[%zu]", path, i);
		s->n_problems++;
		if ((st = read_problem(P, sub, &s->problems[i])) != KJIT_OK)
			return st;
	}
	return KJIT_OK;
}

static const char *const elem_types[] = { "int32", "int64", "uint32", "uint64",
	                                  "float", "double", NULL };

static kjit_status check_type(parser *P, const char *path, const char *type)
{
	for (size_t i = 0; elem_types[i]; i++)
		if (strcmp(type, elem_types[i]) == 0)
			return KJIT_OK;
	return fail(P, path, "one of int32, int64, uint32, uint64, float, double (got \"%s\")",
	            type);
}

static kjit__arg *new_arg(kjit__spec *s)
{
	kjit__arg *a = realloc(s->args, (s->n_args + 1) * sizeof *a);
	if (!a)
		return NULL;
	s->args = a;
	a += s->n_args++;
	memset(a, 0, sizeof *a);
	return a;
}

/* kjit: {"name", "type", "value"} or {"name", "type", "length", "fill",
 * "seed", "value", "file", "access"}. */
static kjit_status read_args(parser *P)
{
	char type[16], sub[256], *text = NULL;
	size_t n;
	kjit_status st = get_kind(P, "$.arguments", type, &n);
	if (st != KJIT_OK)
		return st;
	if (!type[0])
		return KJIT_OK; /* needed to run on a GPU, not to count or compile */
	if (strcmp(type, "array") != 0)
		return fail(P, "$.arguments", "an array of kernel arguments");
	for (size_t i = 0; i < n && st == KJIT_OK; i++) {
		kjit__arg *a = new_arg(P->spec);
		char base[64];
		if (!a)
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		snprintf(base, sizeof base, "$.arguments[%zu]", i);
		snprintf(sub, sizeof sub, "%s.name", base);
		if ((st = get_string(P, sub, 1, &a->name)) != KJIT_OK)
			break;
		snprintf(sub, sizeof sub, "%s.type", base);
		if ((st = get_string(P, sub, 1, &a->type)) != KJIT_OK ||
		    (st = check_type(P, sub, a->type)) != KJIT_OK)
			break;
		snprintf(sub, sizeof sub, "%s.length", base);
		if ((st = lookup(P, sub, type, NULL)) != KJIT_OK)
			break;
		a->is_buffer = type[0] != '\0';
		if (!a->is_buffer) {
			snprintf(sub, sizeof sub, "%s.value", base);
			st = get_expr(P, sub, NULL, &a->value);
			continue;
		}
		if ((st = get_expr(P, sub, NULL, &a->length)) != KJIT_OK)
			break;
		snprintf(sub, sizeof sub, "%s.fill", base);
		if ((st = get_string(P, sub, 0, &text)) != KJIT_OK)
			break;
		if (!text || strcmp(text, "random") == 0)
			a->data.fill = KJIT__FILL_RANDOM;
		else if (strcmp(text, "constant") == 0)
			a->data.fill = KJIT__FILL_CONSTANT;
		else if (strcmp(text, "sequence") == 0)
			a->data.fill = KJIT__FILL_SEQUENCE;
		else if (strcmp(text, "file") == 0)
			a->data.fill = KJIT__FILL_FILE;
		else
			st = fail(P, sub, "one of random, constant, sequence, file (got \"%s\")", text);
		free(text);
		text = NULL;
		int64_t seed;
		snprintf(sub, sizeof sub, "%s.seed", base);
		if (st != KJIT_OK || (st = get_int(P, sub, 1, &seed)) != KJIT_OK)
			break;
		a->data.seed = (uint64_t)seed;
		snprintf(sub, sizeof sub, "%s.value", base);
		if ((st = get_number(P, sub, 0, &a->data.constant)) != KJIT_OK)
			break;
		snprintf(sub, sizeof sub, "%s.file", base);
		if ((st = get_string(P, sub, a->data.fill == KJIT__FILL_FILE, &a->data.file)) != KJIT_OK)
			break;
		snprintf(sub, sizeof sub, "%s.access", base);
		if ((st = get_string(P, sub, 0, &text)) != KJIT_OK)
			break;
		if (!text || strcmp(text, "in") == 0)
			a->access = KJIT__IN;
		else if (strcmp(text, "out") == 0)
			a->access = KJIT__OUT;
		else if (strcmp(text, "inout") == 0 || strcmp(text, "in-out") == 0)
			a->access = KJIT__INOUT;
		else
			st = fail(P, sub, "one of in, out, inout (got \"%s\")", text);
		free(text);
		text = NULL;
	}
	return st;
}

/* ---- the two formats ----------------------------------------------------- */

static kjit_status read_kjit(parser *P)
{
	kjit__spec *s = P->spec;
	char type[16], sub[256], *text = NULL;
	size_t n;
	kjit_status st = lookup(P, "$.kernel", type, NULL);
	if (st != KJIT_OK)
		return st;
	if (strcmp(type, "object") != 0)
		return fail(P, "$.kernel", "an object with \"source\" and \"entry\"%s",
		            type[0] ? "" : " (missing)");
	if ((st = get_string(P, "$.kernel.source", 1, &s->source_path)) != KJIT_OK ||
	    (st = get_string(P, "$.kernel.entry", 1, &s->entry)) != KJIT_OK ||
	    (st = get_strings(P, "$.kernel.flags", &s->flags, &s->n_flags)) != KJIT_OK)
		return st;

	if ((st = get_kind(P, "$.parameters", type, &n)) != KJIT_OK)
		return st;
	if (strcmp(type, "array") != 0 || n == 0)
		return fail(P, "$.parameters", "a non-empty array of parameters%s",
		            type[0] ? "" : " (missing)");
	for (size_t i = 0; i < n; i++) {
		kjit__param *p;
		char **roles = NULL, *def = NULL;
		size_t n_roles = 0;
		snprintf(sub, sizeof sub, "$.parameters[%zu].name", i);
		if ((st = get_string(P, sub, 1, &text)) != KJIT_OK)
			return st;
		st = add_param(P, sub, text, &p);
		free(text);
		if (st != KJIT_OK)
			return st;
		snprintf(sub, sizeof sub, "$.parameters[%zu].roles", i);
		if ((st = get_strings(P, sub, &roles, &n_roles)) != KJIT_OK) {
			free_strings(roles, n_roles);
			return st;
		}
		for (size_t r = 0; r < n_roles && st == KJIT_OK; r++) {
			size_t k;
			for (k = 0; k < sizeof role_names / sizeof role_names[0]; k++)
				if (strcmp(roles[r], role_names[k].name) == 0)
					break;
			if (k == sizeof role_names / sizeof role_names[0]) {
				snprintf(sub, sizeof sub, "$.parameters[%zu].roles[%zu]", i, r);
				st = fail(P, sub, "one of block_x, block_y, block_z, define, flags"
				                  " (got \"%s\")", roles[r]);
			} else {
				p->roles |= role_names[k].role;
			}
		}
		free_strings(roles, n_roles);
		if (st != KJIT_OK)
			return st;
		if (n_roles == 0)
			p->roles = KJIT__ROLE_DEFINE;
		snprintf(sub, sizeof sub, "$.parameters[%zu].values", i);
		if ((st = lookup(P, sub, type, NULL)) != KJIT_OK)
			return st;
		if (strcmp(type, "array") != 0)
			return fail(P, sub, "an array of numbers or strings%s",
			            type[0] ? "" : " (missing)");
		if ((st = values_from_json(P, p, sub, NULL)) != KJIT_OK)
			return st;
		snprintf(sub, sizeof sub, "$.parameters[%zu].default", i);
		if ((st = lookup(P, sub, type, &def)) != KJIT_OK)
			return st;
		snprintf(sub, sizeof sub, "$.parameters[%zu]", i);
		st = finish_param(P, p, sub, def);
		free(def);
		if (st != KJIT_OK)
			return st;
	}

	if ((st = get_strings(P, "$.restrictions", &s->restrictions, &s->n_restrictions)) != KJIT_OK)
		return st;
	/* grid: one expression (x) or an array of up to three. */
	if ((st = get_kind(P, "$.grid", type, &n)) != KJIT_OK)
		return st;
	if (strcmp(type, "array") == 0) {
		if (n < 1 || n > 3)
			return fail(P, "$.grid", "an array of 1 to 3 expressions");
		for (size_t i = 0; i < n; i++) {
			snprintf(sub, sizeof sub, "$.grid[%zu]", i);
			if ((st = get_expr(P, sub, NULL, &s->grid[i])) != KJIT_OK)
				return st;
		}
	} else if ((st = get_expr(P, "$.grid", "1", &s->grid[0])) != KJIT_OK) {
		return st;
	}
	if ((st = get_expr(P, "$.shared_memory", "0", &s->shared)) != KJIT_OK ||
	    (st = read_problems(P, "$.problems")) != KJIT_OK ||
	    (st = read_args(P)) != KJIT_OK)
		return st;

	if ((st = get_string(P, "$.verify.against", 0, &s->verify)) != KJIT_OK)
		return st;
	if (!s->verify && !(s->verify = strdup("default")))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (strcmp(s->verify, "default") != 0 && strcmp(s->verify, "reference") != 0 &&
	    strcmp(s->verify, "none") != 0)
		return fail(P, "$.verify.against", "one of default, reference, none (got \"%s\")",
		            s->verify);
	if ((st = get_string(P, "$.verify.reference", strcmp(s->verify, "reference") == 0,
	                     &s->reference_entry)) != KJIT_OK ||
	    (st = get_number(P, "$.verify.atol", 1e-6, &s->atol)) != KJIT_OK ||
	    (st = get_number(P, "$.verify.rtol", 1e-5, &s->rtol)) != KJIT_OK)
		return st;
	if ((st = get_string(P, "$.objective.metric", 0, &text)) != KJIT_OK)
		return st;
	if (text && strcmp(text, "time") != 0 && strcmp(text, "gbps") != 0 &&
	    strcmp(text, "gflops") != 0)
		st = fail(P, "$.objective.metric", "one of time, gbps, gflops (got \"%s\")", text);
	free(text);
	if (st != KJIT_OK)
		return st;
	if ((st = lookup(P, "$.objective.bytes", type, NULL)) == KJIT_OK && type[0])
		st = get_expr(P, "$.objective.bytes", NULL, &s->bytes);
	if (st == KJIT_OK && (st = lookup(P, "$.objective.flops", type, NULL)) == KJIT_OK &&
	    type[0])
		st = get_expr(P, "$.objective.flops", NULL, &s->flops);
	if (st == KJIT_OK)
		st = get_int(P, "$.limits.max_threads_per_block", 1024, &s->max_threads);
	if (st == KJIT_OK)
		st = get_int(P, "$.limits.max_shared_bytes", 49152, &s->max_shared);
	return st;
}

/* T1: ConfigurationSpace.TuningParameters / Conditions and
 * KernelSpecification (KernelFile, KernelName, LocalSize, GlobalSize,
 * SharedMemory, Arguments). Every parameter is a -D define; a LocalSize
 * that names a parameter makes it that block dimension too. */
static kjit_status read_t1(parser *P)
{
	kjit__spec *s = P->spec;
	char type[16], sub[256], *text = NULL;
	size_t n;
	kjit_status st = lookup(P, "$.KernelSpecification", type, NULL);
	if (st != KJIT_OK)
		return st;
	if (strcmp(type, "object") != 0)
		return fail(P, "$.KernelSpecification", "an object (missing)");
	if ((st = get_string(P, "$.KernelSpecification.KernelFile", 1, &s->source_path)) != KJIT_OK ||
	    (st = get_string(P, "$.KernelSpecification.KernelName", 1, &s->entry)) != KJIT_OK ||
	    (st = get_strings(P, "$.KernelSpecification.CompilerOptions", &s->flags,
	                      &s->n_flags)) != KJIT_OK)
		return st;

	if ((st = get_kind(P, "$.ConfigurationSpace.TuningParameters", type, &n)) != KJIT_OK)
		return st;
	if (strcmp(type, "array") != 0 || n == 0)
		return fail(P, "$.ConfigurationSpace.TuningParameters",
		            "a non-empty array of parameters%s", type[0] ? "" : " (missing)");
	for (size_t i = 0; i < n; i++) {
		kjit__param *p;
		char *def = NULL;
		snprintf(sub, sizeof sub, "$.ConfigurationSpace.TuningParameters[%zu].Name", i);
		if ((st = get_string(P, sub, 1, &text)) != KJIT_OK)
			return st;
		st = add_param(P, sub, text, &p);
		free(text);
		text = NULL;
		if (st != KJIT_OK)
			return st;
		p->roles = KJIT__ROLE_DEFINE;
		snprintf(sub, sizeof sub, "$.ConfigurationSpace.TuningParameters[%zu].Values", i);
		if ((st = lookup(P, sub, type, &text)) != KJIT_OK)
			return st;
		if (strcmp(type, "array") == 0)
			st = values_from_json(P, p, sub, NULL);
		else if (strcmp(type, "text") == 0)
			st = values_from_python(P, p, sub, text);
		else
			st = fail(P, sub, "a list of values%s", type[0] ? "" : " (missing)");
		free(text);
		text = NULL;
		if (st != KJIT_OK)
			return st;
		snprintf(sub, sizeof sub, "$.ConfigurationSpace.TuningParameters[%zu].Default", i);
		if ((st = lookup(P, sub, type, &def)) != KJIT_OK)
			return st;
		snprintf(sub, sizeof sub, "$.ConfigurationSpace.TuningParameters[%zu]", i);
		st = finish_param(P, p, sub, def);
		free(def);
		if (st != KJIT_OK)
			return st;
	}

	/* Conditions: objects with an Expression, or plain strings. */
	if ((st = get_kind(P, "$.ConfigurationSpace.Conditions", type, &n)) != KJIT_OK)
		return st;
	if (type[0] && strcmp(type, "array") != 0)
		return fail(P, "$.ConfigurationSpace.Conditions", "an array of conditions");
	if (!(s->restrictions = calloc(n + 1, sizeof *s->restrictions)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		snprintf(sub, sizeof sub, "$.ConfigurationSpace.Conditions[%zu]", i);
		if ((st = lookup(P, sub, type, NULL)) != KJIT_OK)
			return st;
		if (strcmp(type, "object") == 0)
			snprintf(sub, sizeof sub, "$.ConfigurationSpace.Conditions[%zu].Expression", i);
		if ((st = get_string(P, sub, 1, &s->restrictions[i])) != KJIT_OK)
			return st;
		s->n_restrictions++;
	}

	static const char axes[3] = { 'X', 'Y', 'Z' };
	char *gtype = NULL;
	if ((st = get_string(P, "$.KernelSpecification.GlobalSizeType", 0, &gtype)) != KJIT_OK)
		return st;
	int opencl = gtype && strcasecmp(gtype, "OpenCL") == 0;
	if (gtype && !opencl && strcasecmp(gtype, "CUDA") != 0)
		st = fail(P, "$.KernelSpecification.GlobalSizeType", "CUDA or OpenCL (got \"%s\")",
		          gtype);
	free(gtype);
	for (int d = 0; d < 3 && st == KJIT_OK; d++) {
		char *local = NULL, *global = NULL;
		snprintf(sub, sizeof sub, "$.KernelSpecification.LocalSize.%c", axes[d]);
		st = get_expr(P, sub, "1", &local);
		if (st == KJIT_OK) {
			size_t k;
			for (k = 0; k < s->n_params; k++)
				if (strcmp(s->params[k].name, local) == 0)
					break;
			if (k < s->n_params) {
				s->params[k].roles |= KJIT__ROLE_BLOCK_X << d;
				st = finish_param(P, &s->params[k], sub,
				                  s->params[k].values[s->params[k].default_index].text);
			} else if (strcmp(local, "1") != 0) {
				st = fail(P, sub, "a tuning parameter name or 1 (got \"%s\")", local);
			}
		}
		snprintf(sub, sizeof sub, "$.KernelSpecification.GlobalSize.%c", axes[d]);
		if (st == KJIT_OK)
			st = get_expr(P, sub, "1", &global);
		if (st == KJIT_OK && opencl)
			s->grid[d] = kjit__strdup_printf("((%s) + (%s) - 1) / (%s)", global, local, local);
		else if (st == KJIT_OK)
			s->grid[d] = strdup(global);
		if (st == KJIT_OK && !s->grid[d])
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		free(local);
		free(global);
	}
	if (st != KJIT_OK ||
	    (st = get_expr(P, "$.KernelSpecification.SharedMemory", "0", &s->shared)) != KJIT_OK ||
	    (st = read_problems(P, "$.KernelSpecification.ProblemSize")) != KJIT_OK)
		return st;

	if ((st = get_kind(P, "$.KernelSpecification.Arguments", type, &n)) != KJIT_OK)
		return st;
	if (type[0] && strcmp(type, "array") != 0)
		return fail(P, "$.KernelSpecification.Arguments", "an array of arguments");
	for (size_t i = 0; i < n && st == KJIT_OK; i++) {
		kjit__arg *a = new_arg(s);
		char base[80], *mem = NULL, *acc = NULL, *fill = NULL;
		if (!a)
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		snprintf(base, sizeof base, "$.KernelSpecification.Arguments[%zu]", i);
		snprintf(sub, sizeof sub, "%s.Name", base);
		if ((st = get_string(P, sub, 1, &a->name)) != KJIT_OK)
			break;
		snprintf(sub, sizeof sub, "%s.Type", base);
		if ((st = get_string(P, sub, 1, &a->type)) != KJIT_OK)
			break;
		if (strcmp(a->type, "int") == 0 || strcmp(a->type, "float32") == 0 ||
		    strcmp(a->type, "float64") == 0) {
			/* BAT's spellings */
			const char *t = a->type[0] == 'i' ? "int32" : a->type[5] == '3' ? "float" : "double";
			free(a->type);
			if (!(a->type = strdup(t)))
				return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		}
		if ((st = check_type(P, sub, a->type)) != KJIT_OK)
			break;
		snprintf(sub, sizeof sub, "%s.MemoryType", base);
		if ((st = get_string(P, sub, 1, &mem)) != KJIT_OK)
			break;
		a->is_buffer = strcmp(mem, "Vector") == 0;
		if (!a->is_buffer && strcmp(mem, "Scalar") != 0)
			st = fail(P, sub, "Vector or Scalar (got \"%s\")", mem);
		free(mem);
		snprintf(sub, sizeof sub, "%s.FillValue", base);
		if (st == KJIT_OK && !a->is_buffer) {
			st = get_expr(P, sub, NULL, &a->value);
			continue;
		}
		if (st != KJIT_OK || (st = get_number(P, sub, 0, &a->data.constant)) != KJIT_OK)
			break;
		snprintf(sub, sizeof sub, "%s.Size", base);
		if ((st = get_expr(P, sub, NULL, &a->length)) != KJIT_OK)
			break;
		snprintf(sub, sizeof sub, "%s.FillType", base);
		if ((st = get_string(P, sub, 0, &fill)) != KJIT_OK)
			break;
		if (!fill || strcmp(fill, "Random") == 0)
			a->data.fill = KJIT__FILL_RANDOM;
		else if (strcmp(fill, "Constant") == 0)
			a->data.fill = KJIT__FILL_CONSTANT;
		else if (strcmp(fill, "BinaryRaw") == 0)
			a->data.fill = KJIT__FILL_FILE;
		else
			st = fail(P, sub, "Random, Constant or BinaryRaw (got \"%s\")", fill);
		free(fill);
		a->data.seed = 1;
		snprintf(sub, sizeof sub, "%s.DataSource", base);
		if (st == KJIT_OK && a->data.fill == KJIT__FILL_FILE)
			st = get_string(P, sub, 1, &a->data.file);
		snprintf(sub, sizeof sub, "%s.AccessType", base);
		if (st != KJIT_OK || (st = get_string(P, sub, 0, &acc)) != KJIT_OK)
			break;
		if (!acc || strcmp(acc, "ReadOnly") == 0)
			a->access = KJIT__IN;
		else if (strcmp(acc, "WriteOnly") == 0)
			a->access = KJIT__OUT;
		else if (strcmp(acc, "ReadWrite") == 0)
			a->access = KJIT__INOUT;
		else
			st = fail(P, sub, "ReadOnly, WriteOnly or ReadWrite (got \"%s\")", acc);
		free(acc);
	}
	if (st != KJIT_OK)
		return st;
	if (!(s->verify = strdup("default")))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	s->atol = 1e-6;
	s->rtol = 1e-5;
	s->max_threads = 1024;
	s->max_shared = 49152;
	return KJIT_OK;
}

/* Parses every expression once per problem, so that a bad one is a spec
 * error at load time rather than in the middle of a run. */
static kjit_status check_exprs(parser *P)
{
	kjit__spec *s = P->spec;
	kjit_status st = KJIT_OK;
	for (size_t p = 0; st == KJIT_OK && p < s->n_problems; p++) {
		const kjit__problem *pr = &s->problems[p];
		size_t nn = pr->n + s->n_params;
		const char **names = calloc(nn + 1, sizeof *names);
		if (!names) {
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
			break;
		}
		for (size_t i = 0; i < pr->n; i++)
			names[i] = pr->names[i];
		for (size_t i = 0; i < s->n_params; i++)
			names[pr->n + i] = s->params[i].name;
		for (size_t i = 0; st == KJIT_OK; i++) {
			char what[96];
			const char *text;
			if (i < s->n_restrictions) {
				text = s->restrictions[i];
				snprintf(what, sizeof what, "restrictions[%zu]", i);
			} else if (i < s->n_restrictions + 3) {
				text = s->grid[i - s->n_restrictions];
				snprintf(what, sizeof what, "grid[%zu]", i - s->n_restrictions);
			} else if (i == s->n_restrictions + 3) {
				text = s->shared;
				snprintf(what, sizeof what, "shared_memory");
			} else if (i == s->n_restrictions + 4) {
				text = s->bytes;
				snprintf(what, sizeof what, "objective.bytes");
			} else if (i == s->n_restrictions + 5) {
				text = s->flops;
				snprintf(what, sizeof what, "objective.flops");
			} else if (i < s->n_restrictions + 6 + s->n_args) {
				const kjit__arg *a = &s->args[i - s->n_restrictions - 6];
				text = a->is_buffer ? a->length : a->value;
				snprintf(what, sizeof what, "arguments[%zu].%s",
				         i - s->n_restrictions - 6, a->is_buffer ? "length" : "value");
			} else {
				break;
			}
			kjit__expr *e = NULL;
			if (text && (st = kjit__expr_parse(text, s->python ? KJIT__DIALECT_PYTHON
			                                                   : KJIT__DIALECT_KJIT,
			                                   names, nn, what, &e)) != KJIT_OK) {
				char *msg = kjit__strdup_printf("%s: %s (expected an expression over the"
				                                " parameters and problem sizes)",
				                                P->file, kjit__error_msg());
				if (msg)
					kjit__error_take(st, msg);
			}
			kjit__expr_free(e);
		}
		free(names);
	}
	return st;
}

/* A path relative to the spec's folder. */
static kjit_status resolve(const char *spec_path, char **path)
{
	if (!*path || (*path)[0] == '/')
		return KJIT_OK;
	const char *slash = strrchr(spec_path, '/');
	if (!slash)
		return KJIT_OK;
	char *full = kjit__strdup_printf("%.*s/%s", (int)(slash - spec_path), spec_path, *path);
	if (!full)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	free(*path);
	*path = full;
	return KJIT_OK;
}

kjit_status kjit__spec_load(const char *path, kjit__spec **out)
{
	parser P = { .file = path };
	kjit_status st;
	char type[16];
	*out = NULL;
	if (!(P.spec = calloc(1, sizeof *P.spec)) || !(P.spec->path = strdup(path))) {
		kjit__spec_free(P.spec);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	if ((st = kjit__read_text(path, &P.doc, NULL)) != KJIT_OK)
		goto done;
	int rc = sqlite3_open_v2(":memory:", &P.db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(P.db, "SELECT json_extract(?1, ?2), json_type(?1, ?2)",
		                        -1, &P.value, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(P.db, "SELECT key, type, atom FROM json_each(?1, ?2)", -1,
		                        &P.each, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(P.value, 1, P.doc, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(P.each, 1, P.doc, -1, SQLITE_STATIC);
	if (rc != SQLITE_OK) {
		st = P.db ? db_fail(&P, "JSON reader") : kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto done;
	}
	/* SQLite 3.42 and later also read JSON5 (comments, trailing commas);
	 * json_valid() with one argument accepts plain RFC 8259 JSON alone, so
	 * a spec means the same whichever SQLite reads it. */
	sqlite3_stmt *valid = NULL;
	rc = sqlite3_prepare_v2(P.db, "SELECT json_valid(?1)", -1, &valid, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(valid, 1, P.doc, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(valid);
	int is_valid = rc == SQLITE_ROW && sqlite3_column_int(valid, 0) == 1;
	sqlite3_finalize(valid);
	if (rc != SQLITE_ROW) {
		st = db_fail(&P, "JSON reader");
		goto done;
	}
	if (!is_valid) {
		st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: (top level): expected valid JSON (RFC "
		                 "8259: no comments, no trailing commas)", path);
		goto done;
	}
	/* json_type() of a malformed document fails: say so plainly. */
	rc = sqlite3_bind_text(P.value, 2, "$", -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(P.value);
	if (rc == SQLITE_ROW)
		snprintf(type, sizeof type, "%s",
		         sqlite3_column_text(P.value, 1) ? (const char *)sqlite3_column_text(P.value, 1) : "");
	sqlite3_reset(P.value);
	if (rc != SQLITE_ROW) {
		st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: (top level): expected valid JSON", path);
		goto done;
	}
	if (strcmp(type, "object") != 0) {
		st = fail(&P, "$", "a JSON object");
		goto done;
	}
	if ((st = lookup(&P, "$.ConfigurationSpace", type, NULL)) != KJIT_OK)
		goto done;
	P.spec->format = strdup(type[0] ? "t1" : "kjit");
	if (!P.spec->format) {
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto done;
	}
	st = type[0] ? read_t1(&P) : read_kjit(&P);
	for (int d = 0; st == KJIT_OK && d < 3; d++)
		if (!P.spec->grid[d] && !(P.spec->grid[d] = strdup("1")))
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st == KJIT_OK)
		st = check_exprs(&P);
	if (st == KJIT_OK)
		st = resolve(path, &P.spec->source_path);
	for (size_t i = 0; st == KJIT_OK && i < P.spec->n_args; i++)
		st = resolve(path, &P.spec->args[i].data.file);
done:
	sqlite3_finalize(P.value);
	sqlite3_finalize(P.each);
	sqlite3_close(P.db);
	free(P.doc);
	if (st != KJIT_OK) {
		kjit__spec_free(P.spec);
		return st;
	}
	*out = P.spec;
	return KJIT_OK;
}

void kjit__spec_free(kjit__spec *spec)
{
	if (!spec)
		return;
	free(spec->path);
	free(spec->format);
	free(spec->source_path);
	free(spec->entry);
	free_strings(spec->flags, spec->n_flags);
	for (size_t i = 0; spec->params && i < spec->n_params; i++) {
		for (size_t j = 0; j < spec->params[i].n_values; j++)
			free(spec->params[i].values[j].text);
		free(spec->params[i].values);
		free(spec->params[i].name);
	}
	free(spec->params);
	free_strings(spec->restrictions, spec->n_restrictions);
	for (int d = 0; d < 3; d++)
		free(spec->grid[d]);
	free(spec->shared);
	for (size_t i = 0; spec->problems && i < spec->n_problems; i++) {
		free_strings(spec->problems[i].names, spec->problems[i].n);
		free(spec->problems[i].values);
	}
	free(spec->problems);
	for (size_t i = 0; spec->args && i < spec->n_args; i++) {
		kjit__arg *a = &spec->args[i];
		free(a->name);
		free(a->type);
		free(a->value);
		free(a->length);
		free(a->data.file);
	}
	free(spec->args);
	free(spec->verify);
	free(spec->reference_entry);
	free(spec->bytes);
	free(spec->flops);
	free(spec);
}

char *kjit__problem_key(const kjit__problem *problem)
{
	size_t cap = 1;
	for (size_t i = 0; i < problem->n; i++)
		cap += strlen(problem->names[i]) + 24;
	char *key = malloc(cap), *p = key;
	if (!key)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < problem->n; i++)
		p += snprintf(p, cap - (size_t)(p - key), "%s%s=%lld", i ? "," : "",
		              problem->names[i], (long long)problem->values[i]);
	return key;
}
