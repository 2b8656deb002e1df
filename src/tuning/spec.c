/*
 * spec.c - reads a kjit-tune spec: kjit's own JSON, or the community's T1
 * format (Kernel Tuner, KTT, the BAT suite) in its own terms.
 *
 * Every failure is "FILE: FIELD: expected WHAT (got WHAT)", FIELD being
 * the path of the value in the file (KernelSpecification.Arguments[3].FillType);
 * invalid JSON is "FILE:LINE:COL: expected ...". An unknown key is an
 * error in kjit's format and a warning in T1's, whose schema allows them.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tuning.h"

typedef struct parser {
	const char *file;
	kjit__json *root;
	kjit__spec *spec;
	int t1;
	/* spec->params by name (index + 1), and the room spec->params has:
	 * a spec of many parameters reads in linear time */
	kjit__table names;
	size_t cap_params;
} parser;

typedef const kjit__json json;

#define MAX_VALUES 65535

static kjit_status nomem(void)
{
	return kjit__error(KJIT_ERR_NOMEM, "out of memory");
}

static kjit_status fail(parser *P, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static kjit_status fail(parser *P, const char *path, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: expected %s", P->file,
	                   *path ? path : "(top level)", msg);
}

static kjit_status warn(parser *P, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Adds "FILE: FIELD: msg" to the spec's warnings. */
static kjit_status warn(parser *P, const char *path, const char *fmt, ...)
{
	kjit__spec *s = P->spec;
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char **w = realloc(s->warnings, (s->n_warnings + 1) * sizeof *w);
	if (!w)
		return nomem();
	s->warnings = w;
	if (!(w[s->n_warnings] = kjit__strdup_printf("%s: %s: %s", P->file,
	                                             *path ? path : "(top level)", msg)))
		return nomem();
	s->n_warnings++;
	return KJIT_OK;
}

/* The path of a member or an element: "a.b", "a[3]" (for messages: a
 * path too long is cut short). */
/* a, b and c joined into out, cut at 255 bytes. A path is made for every
 * field read, so this is a copy, not a snprintf(). */
static const char *path_join(char out[256], const char *a, const char *b, const char *c)
{
	size_t n = 0;
	const char *parts[] = { a, b, c };
	for (size_t k = 0; k < 3; k++)
		for (const char *s = parts[k]; *s && n < 255; s++)
			out[n++] = *s;
	out[n] = '\0';
	return out;
}

static const char *key_path(char out[256], const char *base, const char *key)
{
	return path_join(out, base, *base ? "." : "", key);
}

static const char *index_path(char out[256], const char *base, size_t i)
{
	char num[24], *d = num + sizeof num;
	*--d = '\0';
	*--d = ']';
	do
		*--d = (char)('0' + i % 10);
	while ((i /= 10) != 0);
	*--d = '[';
	return path_join(out, base, d, "");
}

/* What a value is, for "(got ...)": its text when a scalar. */
static const char *got(json *v, char out[96])
{
	if (!v)
		return "missing";
	switch (v->type) {
	case KJIT__JSON_NULL: return "null";
	case KJIT__JSON_BOOL: return v->b ? "true" : "false";
	case KJIT__JSON_NUMBER: snprintf(out, 96, "%.60s", v->text); return out;
	case KJIT__JSON_STRING: return kjit__quote(out, 96, v->text, 60, '"');
	case KJIT__JSON_ARRAY: return "an array";
	case KJIT__JSON_OBJECT: return "an object";
	}
	return "?";
}

static kjit_status fail_got(parser *P, const char *path, json *v, const char *what)
{
	char g[96];
	return fail(P, path, "%s (got %s)", what, got(v, g));
}

static int one_of(const char *s, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(s, list[i]) == 0)
			return (int)i;
	return -1;
}

/* Keys of obj outside known[]: errors in kjit's format, warnings in T1. */
/* T1 files in the wild write a key in another case ("kernelSpecification")
 * and null for an absent value: read as the schema's key, and as absent,
 * with a warning. */
static kjit_status t1_key_habits(parser *P, json *cobj, const char *path,
                                 const char *const *known)
{
	/* the tree is P->root's, read-only elsewhere but the parser's own */
	kjit__json *obj = (kjit__json *)cobj;
	char sub[256];
	for (size_t i = 0; i < obj->n; i++) {
		key_path(sub, path, obj->keys[i]);
		if (obj->items[i].type == KJIT__JSON_NULL) {
			kjit_status st = warn(P, sub, "null, read as absent");
			if (st != KJIT_OK)
				return st;
			free(obj->keys[i]);
			memmove(&obj->keys[i], &obj->keys[i + 1], (obj->n - i - 1) * sizeof *obj->keys);
			memmove(&obj->items[i], &obj->items[i + 1], (obj->n - i - 1) * sizeof *obj->items);
			obj->n--;
			i--;
			continue;
		}
		if (one_of(obj->keys[i], known) >= 0)
			continue;
		for (size_t k = 0; known[k]; k++)
			if (strcasecmp(obj->keys[i], known[k]) == 0 && !kjit__json_get(obj, known[k])) {
				char *canon = strdup(known[k]);
				if (!canon)
					return nomem();
				kjit_status st = warn(P, sub, "read as %s (T1 keys are case-sensitive)", canon);
				free(obj->keys[i]);
				obj->keys[i] = canon;
				if (st != KJIT_OK)
					return st;
				break;
			}
	}
	return KJIT_OK;
}

/* The edit distance of a and b, case aside (adjacent transpositions
 * count one), when it is at most 2; 3 otherwise. */
static int near_distance(const char *a, const char *b)
{
	enum { MAX = 64 };
	size_t la = strlen(a), lb = strlen(b);
	if (la > MAX || lb > MAX || la + 2 < lb || lb + 2 < la)
		return 3;
	int d[MAX + 1][MAX + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
			int v = d[i - 1][j - 1] + !same;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) ==
			                              tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb] < 3 ? d[la][lb] : 3;
}

/* The known key that key misspells: 1 edit in 4 characters, 2 at most. */
static const char *misspelt(const char *key, const char *const *known)
{
	for (size_t k = 0; known[k]; k++) {
		int d = near_distance(key, known[k]);
		if (d > 0 && d <= 2 && (size_t)d * 4 <= strlen(known[k]))
			return known[k];
	}
	return NULL;
}

static kjit_status check_keys(parser *P, json *obj, const char *path, const char *const *known)
{
	char sub[256];
	if (P->t1 && obj && obj->type == KJIT__JSON_OBJECT) {
		kjit_status st = t1_key_habits(P, obj, path, known);
		if (st != KJIT_OK)
			return st;
	}
	for (size_t i = 0; obj && obj->type == KJIT__JSON_OBJECT && i < obj->n; i++) {
		if (one_of(obj->keys[i], known) >= 0)
			continue;
		key_path(sub, path, obj->keys[i]);
		/* ignored, a misspelt key would change the run (a space without its
		 * Conditions); one that resembles nothing is a suite's own */
		const char *near = misspelt(obj->keys[i], known);
		if (near && kjit__json_get(obj, near))
			near = NULL;
		if (P->t1 && near)
			return fail(P, sub, "a known key (got an unknown key: %s misspelt?)", near);
		if (P->t1) {
			kjit_status st = warn(P, sub, "unknown key, ignored");
			if (st != KJIT_OK)
				return st;
			continue;
		}
		kjit__buf b = { 0 };
		for (size_t k = 0; known[k]; k++) {
			kjit__buf_str(&b, k ? ", " : "");
			kjit__buf_str(&b, known[k]);
		}
		char *list = kjit__buf_done(&b);
		if (!list)
			return nomem();
		kjit_status st = fail(P, sub, "a key among %s (got an unknown key%s%s%s)", list,
		                      near ? ": " : "", near ? near : "", near ? " misspelt?" : "");
		free(list);
		return st;
	}
	return KJIT_OK;
}

/* An object (NULL when absent and optional). */
static kjit_status want_object(parser *P, json *v, const char *path, int required,
                               const char *what)
{
	if ((!v && !required) || (v && v->type == KJIT__JSON_OBJECT))
		return KJIT_OK;
	return fail_got(P, path, v, what);
}

/* A string, copied into *out; NULL when absent and optional. */
static kjit_status want_string(parser *P, json *v, const char *path, int required, char **out)
{
	*out = NULL;
	if (!v && !required)
		return KJIT_OK;
	if (!v || v->type != KJIT__JSON_STRING)
		return fail_got(P, path, v, "a string");
	return (*out = strdup(v->text)) ? KJIT_OK : nomem();
}

static kjit_status want_int(parser *P, json *v, const char *path, int64_t def, int64_t *out)
{
	*out = def;
	if (!v)
		return KJIT_OK;
	int r = kjit__json_int(v, out);
	if (r == 1)
		return KJIT_OK;
	return fail_got(P, path, v, r < 0 ? "an integer within int64" : "an integer");
}

static kjit_status want_number(parser *P, json *v, const char *path, double def, double *out)
{
	*out = def;
	if (!v)
		return KJIT_OK;
	if (v->type != KJIT__JSON_NUMBER)
		return fail_got(P, path, v, "a number");
	*out = strtod(v->text, NULL);
	if (!isfinite(*out))
		return fail_got(P, path, v, "a finite number");
	return KJIT_OK;
}

static kjit_status want_bool(parser *P, json *v, const char *path, int def, int *out)
{
	*out = def;
	if (!v)
		return KJIT_OK;
	if (v->type == KJIT__JSON_BOOL)
		*out = v->b;
	else if (v->type == KJIT__JSON_NUMBER && (strcmp(v->text, "0") == 0 || strcmp(v->text, "1") == 0))
		*out = v->text[0] == '1';
	else
		return fail_got(P, path, v, "true or false");
	return KJIT_OK;
}

/* An expression: a string, or a number (T1: a bool too, as Python's);
 * def when absent (NULL: required). */
static kjit_status want_expr(parser *P, json *v, const char *path, const char *def, char **out)
{
	int64_t i;
	*out = NULL;
	if (!v && def)
		return (*out = strdup(def)) ? KJIT_OK : nomem();
	if (v && v->type == KJIT__JSON_NUMBER && kjit__json_int(v, &i) < 0)
		return fail_got(P, path, v, "an integer within int64");
	if (v && (v->type == KJIT__JSON_STRING || v->type == KJIT__JSON_NUMBER))
		*out = strdup(v->text);
	else if (v && v->type == KJIT__JSON_BOOL && P->t1)
		*out = strdup(v->b ? "True" : "False");
	else
		return fail_got(P, path, v, "an expression (a string or a number)");
	return *out ? KJIT_OK : nomem();
}

static void free_strings(char **s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		free(s[i]);
	free(s);
}

/* A list of strings (a string alone is a list of one). */
static kjit_status want_strings(parser *P, json *v, const char *path, char ***out, size_t *n)
{
	char sub[256];
	*out = NULL;
	*n = 0;
	if (!v)
		return KJIT_OK;
	if (v->type != KJIT__JSON_STRING && v->type != KJIT__JSON_ARRAY)
		return fail_got(P, path, v, "a string or an array of strings");
	size_t len = v->type == KJIT__JSON_STRING ? 1 : v->n;
	if (!(*out = calloc(len + 1, sizeof **out)))
		return nomem();
	for (size_t i = 0; i < len; i++) {
		json *item = v->type == KJIT__JSON_STRING ? v : &v->items[i];
		kjit_status st = want_string(P, item, v->type == KJIT__JSON_STRING ? path
		                             : index_path(sub, path, i), 1, &(*out)[i]);
		if (st != KJIT_OK)
			return st;
		(*n)++;
	}
	return KJIT_OK;
}

/* NVRTC (link 0) or nvJitLink (link 1) options of the allowlist
 * (options.c), else the one refused, with its index in path when indexed. */
static kjit_status check_options(parser *P, const char *path, int indexed, int link,
                                 const char *const *opts, size_t n)
{
	char sub[256];
	for (size_t i = 0, used; i < n; i += used) {
		const char *why = kjit__option_refusal(link, opts + i, n - i, &used);
		if (why)
			return fail(P, indexed ? index_path(sub, path, i) : path, "%s options kjit "
			            "allows (\"%.160s%s\": %s)", link ? "nvJitLink" : "NVRTC", opts[i],
			            strlen(opts[i]) > 160 ? "..." : "", why);
	}
	return KJIT_OK;
}

/* An expression of the spec's dialect over names[n], parsed once so that a
 * bad one is refused at load; what is its field. */
static kjit_status check_expr(parser *P, const char *text, const char *const *names, size_t n,
                              const char *what, kjit__expr **out)
{
	kjit__expr *e = NULL;
	kjit_status st = kjit__expr_parse(text, P->spec->python ? KJIT__DIALECT_PYTHON
	                                                        : KJIT__DIALECT_KJIT,
	                                  names, n, what, P->spec->expr_budget, &e);
	if (st != KJIT_OK) {
		char *msg = kjit__strdup_printf("%s: %s", P->file, kjit__error_msg());
		return msg ? kjit__error_take(st, msg) : nomem();
	}
	if (out)
		*out = e;
	else
		kjit__expr_free(e);
	return KJIT_OK;
}

/* ---- values ------------------------------------------------------------- */

/* A parameter value from a JSON number, string or (T1) bool; its text
 * Python's str() of it. */
static kjit_status json_value(parser *P, json *v, const char *path, kjit__value *out)
{
	char buf[40];
	const char *text = buf;
	memset(out, 0, sizeof *out);
	if (v->type == KJIT__JSON_NUMBER) {
		int r = kjit__json_int(v, &out->i);
		if (r < 0)
			return fail_got(P, path, v, "an integer within int64");
		if (r) {
			out->kind = SQLITE_INTEGER;
			out->d = (double)out->i;
			text = v->text;
		} else {
			out->kind = SQLITE_FLOAT;
			out->d = strtod(v->text, NULL);
			if (!isfinite(out->d))
				return fail_got(P, path, v, "a finite number");
			kjit__float_repr(out->d, buf);
		}
	} else if (v->type == KJIT__JSON_STRING) {
		out->kind = SQLITE_TEXT;
		text = v->text;
	} else if (v->type == KJIT__JSON_BOOL && P->t1) {
		out->kind = SQLITE_INTEGER;
		out->i = v->b;
		out->d = v->b;
		text = v->b ? "True" : "False";
	} else {
		return fail_got(P, path, v, P->t1 ? "a number, a string or a bool"
		                                  : "a number or a string");
	}
	return (out->text = strdup(text)) ? KJIT_OK : nomem();
}

/* Values from a JSON array. */
static kjit_status values_from_json(parser *P, kjit__param *p, json *v, const char *path)
{
	char sub[256];
	if (v->n > MAX_VALUES)
		return fail(P, path, "at most %d values (got %zu)", MAX_VALUES, v->n);
	if (!(p->values = calloc(v->n ? v->n : 1, sizeof *p->values)))
		return nomem();
	for (size_t i = 0; i < v->n; i++) {
		kjit_status st = json_value(P, &v->items[i], index_path(sub, path, i), &p->values[i]);
		if (st != KJIT_OK)
			return st;
		p->n_values++;
	}
	return KJIT_OK;
}

static int is_bool_text(const char *t)
{
	return strcmp(t, "True") == 0 || strcmp(t, "False") == 0;
}

/* A value for a message, a string quoted: the string '1' is not 1. */
static const char *value_got(const kjit__value *v, char out[96])
{
	if (v->kind != SQLITE_TEXT)
		return v->text;
	snprintf(out, 96, "\"%.60s%s\"", v->text, strlen(v->text) > 60 ? "..." : "");
	return out;
}

typedef struct ranked {
	const kjit__value *v;
} ranked;

/* Numbers by value (1 and 1.0 are one value, as in Python), before strings
 * by text. */
static int value_cmp(const void *a, const void *b)
{
	const kjit__value *x = ((const ranked *)a)->v, *y = ((const ranked *)b)->v;
	int tx = x->kind == SQLITE_TEXT, ty = y->kind == SQLITE_TEXT;
	if (tx || ty)
		return tx != ty ? tx - ty : strcmp(x->text, y->text);
	if (x->kind == SQLITE_INTEGER && y->kind == SQLITE_INTEGER)
		return (x->i > y->i) - (x->i < y->i);
	return (x->d > y->d) - (x->d < y->d);
}

/* A value of a flags parameter: options split on spaces, as
 * kjit__config_desc_make() splits them, each of the allowlist. */
static kjit_status check_flag_value(parser *P, const char *value, const char *path)
{
	const char *tok[KJIT__MAX_OPTIONS];
	size_t n = 0;
	if (strlen(value) > KJIT__MAX_OPTION_BYTES)
		return fail(P, path, "flags of at most %d bytes (got %zu)", KJIT__MAX_OPTION_BYTES,
		            strlen(value));
	char *copy = strdup(value);
	if (!copy)
		return nomem();
	for (char *save = NULL, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == KJIT__MAX_OPTIONS) {
			free(copy);
			return fail(P, path, "at most %d flags in a value", KJIT__MAX_OPTIONS);
		}
		tok[n++] = t;
	}
	kjit_status st = check_options(P, path, 0, 0, tok, n);
	free(copy);
	return st;
}

/* Values that fit the parameter's roles: a block dimension takes positive
 * integers, flags take strings. path names the values. */
static kjit_status check_roles(parser *P, const kjit__param *p, const char *path)
{
	char g[96];
	if ((p->roles & (KJIT__ROLE_BLOCK_X | KJIT__ROLE_BLOCK_Y | KJIT__ROLE_BLOCK_Z)))
		for (size_t i = 0; i < p->n_values; i++)
			if (p->values[i].kind != SQLITE_INTEGER || p->values[i].i < 1 ||
			    is_bool_text(p->values[i].text))
				return fail(P, path, "positive integers for block dimension %s "
				            "(got %s)", p->name, value_got(&p->values[i], g));
	if (p->roles & KJIT__ROLE_FLAGS)
		for (size_t i = 0; i < p->n_values; i++) {
			if (p->values[i].kind != SQLITE_TEXT)
				return fail(P, path, "strings of NVRTC flags for %s, of role flags "
				            "(got %s)", p->name, value_got(&p->values[i], g));
			kjit_status st = check_flag_value(P, p->values[i].text, path);
			if (st != KJIT_OK)
				return st;
		}
	return KJIT_OK;
}

/* Checks the values, then picks the default (matched by value; NULL: the
 * first value). */
static kjit_status finish_param(parser *P, kjit__param *p, const char *path, const char *def)
{
	char values[256], g[96];
	key_path(values, path, P->t1 ? "Values" : "values");
	if (p->n_values == 0)
		return fail(P, values, "a non-empty list of values for parameter %s (got an empty "
		            "list)", p->name);
	if (p->n_values > MAX_VALUES)
		return fail(P, values, "at most %d values (got %zu)", MAX_VALUES, p->n_values);
	ranked *r = malloc(p->n_values * sizeof *r);
	if (!r)
		return nomem();
	for (size_t i = 0; i < p->n_values; i++)
		r[i].v = &p->values[i];
	qsort(r, p->n_values, sizeof *r, value_cmp);
	for (size_t i = 1; i < p->n_values; i++)
		if (value_cmp(&r[i - 1], &r[i]) == 0) {
			kjit_status st = fail(P, values, "distinct values (%s repeats)",
			                      value_got(r[i].v, g));
			free(r);
			return st;
		}
	free(r);
	kjit_status st = check_roles(P, p, values);
	if (st != KJIT_OK)
		return st;
	p->default_index = 0;
	if (def) {
		long i = kjit__param_value_index(p, def);
		/* BAT's specs have defaults outside their values */
		if (i < 0 && P->t1)
			return warn(P, path, "Default %s is not among the values: the default is the "
			            "first value, %s", def, p->values[0].text);
		if (i < 0)
			return fail(P, path, "a default among the values (got %s)", def);
		p->default_index = (size_t)i;
	}
	return KJIT_OK;
}

static int is_identifier(const char *name)
{
	if (!(isalpha((unsigned char)name[0]) || name[0] == '_'))
		return 0;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return 0;
	return 1;
}

static uint64_t name_hash(const char *name)
{
	return kjit__hash(name, strlen(name), 0).lo;
}

static uint64_t param_hash(const void *ctx, uintptr_t item)
{
	const kjit__spec *s = ctx;
	return name_hash(s->params[item - 1].name);
}

typedef struct name_key {
	const kjit__spec *s;
	const char *name;
} name_key;

static int param_is(const void *ctx, uintptr_t item)
{
	const name_key *k = ctx;
	return strcmp(k->s->params[item - 1].name, k->name) == 0;
}

static long find_param(const parser *P, const char *name)
{
	name_key k = { P->spec, name };
	return (long)kjit__table_find(&P->names, name_hash(name), param_is, &k) - 1;
}

static kjit_status add_param(parser *P, const char *path, const char *name, kjit__param **out)
{
	kjit__spec *s = P->spec;
	if (!is_identifier(name))
		return fail(P, path, "a parameter name that is an identifier (got \"%s\")", name);
	if (find_param(P, name) >= 0)
		return fail(P, path, "a unique parameter name (%s repeats)", name);
	if (s->n_params == P->cap_params) {
		size_t cap = P->cap_params ? 2 * P->cap_params : 8;
		kjit__param *p = realloc(s->params, cap * sizeof *p);
		if (!p)
			return nomem();
		s->params = p;
		P->cap_params = cap;
	}
	kjit__param *p = &s->params[s->n_params];
	memset(p, 0, sizeof *p);
	if (!(p->name = strdup(name)))
		return nomem();
	s->n_params++;
	kjit_status st = kjit__table_insert(&P->names, name_hash(name), s->n_params, param_hash, s);
	if (st != KJIT_OK)
		return st;
	*out = p;
	return KJIT_OK;
}

/* The default's text as the parameter's values write it. */
static kjit_status default_text(parser *P, json *v, const char *path, char **out)
{
	*out = NULL;
	if (!v)
		return KJIT_OK;
	/* T1 files in the wild write "Default": [0] */
	if (P->t1 && v->type == KJIT__JSON_ARRAY && v->n == 1 &&
	    v->items[0].type != KJIT__JSON_ARRAY && v->items[0].type != KJIT__JSON_OBJECT) {
		char g[96];
		kjit_status st = warn(P, path, "a list of one value, read as %s", got(&v->items[0], g));
		if (st != KJIT_OK)
			return st;
		v = &v->items[0];
	}
	if (v->type == KJIT__JSON_NUMBER || v->type == KJIT__JSON_STRING)
		*out = strdup(v->text);
	else if (v->type == KJIT__JSON_BOOL && P->t1)
		*out = strdup(v->b ? "1" : "0");
	else
		return fail_got(P, path, v, "one of the values (a number or a string)");
	return *out ? KJIT_OK : nomem();
}

/* ---- problems and arguments --------------------------------------------- */

static kjit_status add_size(kjit__problem *pr, const char *name, int64_t value)
{
	char **names = realloc(pr->names, (pr->n + 2) * sizeof *names);
	if (!names)
		return nomem();
	pr->names = names;
	int64_t *values = realloc(pr->values, (pr->n + 1) * sizeof *values);
	if (!values)
		return nomem();
	pr->values = values;
	if (!(names[pr->n] = strdup(name)))
		return nomem();
	names[pr->n + 1] = NULL;
	values[pr->n++] = value;
	return KJIT_OK;
}

static kjit_status new_problems(kjit__spec *s, size_t n)
{
	if (!(s->problems = calloc(n ? n : 1, sizeof *s->problems)))
		return nomem();
	s->n_problems = n;
	return KJIT_OK;
}

/* An object of named integer sizes. */
static kjit_status read_problem(parser *P, json *v, const char *path, kjit__problem *pr)
{
	char sub[256];
	if (v->type != KJIT__JSON_OBJECT)
		return fail_got(P, path, v, "an object of named integer sizes such as {\"n\": 1024}");
	for (size_t i = 0; i < v->n; i++) {
		int64_t value;
		key_path(sub, path, v->keys[i]);
		int r = kjit__json_int(&v->items[i], &value);
		if (r != 1)
			return fail_got(P, sub, &v->items[i], r < 0 ? "an integer size within int64"
			                                            : "an integer size");
		if (find_param(P, v->keys[i]) >= 0)
			return fail(P, sub, "a size name that is not a parameter's (got \"%s\")",
			            v->keys[i]);
		kjit_status st = add_size(pr, v->keys[i], value);
		if (st != KJIT_OK)
			return st;
	}
	return KJIT_OK;
}

/* An object or an array of them; absent: one problem with no sizes. */
static kjit_status read_problems(parser *P, json *v, const char *path)
{
	kjit__spec *s = P->spec;
	char sub[256];
	if (!v)
		return new_problems(s, 1);
	size_t n = v->type == KJIT__JSON_OBJECT ? 1 : v->type == KJIT__JSON_ARRAY ? v->n : 0;
	if (n == 0)
		return fail_got(P, path, v, "a problem object or a non-empty array of them");
	kjit_status st = new_problems(s, n);
	for (size_t i = 0; st == KJIT_OK && i < n; i++)
		st = v->type == KJIT__JSON_OBJECT ? read_problem(P, v, path, &s->problems[0])
		     : read_problem(P, &v->items[i], index_path(sub, path, i), &s->problems[i]);
	return st;
}

static kjit__arg *new_arg(kjit__spec *s)
{
	kjit__arg *a = realloc(s->args, (s->n_args + 1) * sizeof *a);
	if (!a)
		return NULL;
	s->args = a;
	a += s->n_args++;
	memset(a, 0, sizeof *a);
	a->components = 1;
	a->output = -1;
	return a;
}

static void free_data(kjit__data *d)
{
	free(d->file);
	free(d->generator);
}

static void free_arg(kjit__arg *a)
{
	free(a->name);
	free(a->type);
	free(a->value);
	free(a->length);
	free_data(&a->data);
	free_data(&a->reference);
}

/* The names an expression of problem p may read: its sizes, then (with
 * params) the parameters, then extra. */
static const char **scope_names(const kjit__spec *s, size_t p, int params, const char *extra,
                                size_t *n)
{
	const kjit__problem *pr = &s->problems[p];
	size_t np = params ? s->n_params : 0;
	*n = pr->n + np + (extra != NULL);
	const char **names = calloc(*n + 1, sizeof *names);
	if (!names)
		return NULL;
	for (size_t i = 0; i < pr->n; i++)
		names[i] = pr->names[i];
	for (size_t i = 0; i < np; i++)
		names[pr->n + i] = s->params[i].name;
	if (extra)
		names[*n - 1] = extra;
	return names;
}

/* A generator: an expression of the element index i and the problem's
 * sizes. */
static kjit_status check_generator(parser *P, const char *text, const char *what)
{
	kjit_status st = KJIT_OK;
	for (size_t p = 0; st == KJIT_OK && p < P->spec->n_problems; p++) {
		size_t n;
		const char **names = scope_names(P->spec, p, 0, "i", &n);
		if (!names)
			return nomem();
		st = check_expr(P, text, names, n, what, NULL);
		free(names);
	}
	return st;
}

/* A T1 expression over each problem's sizes and the parameters, checked
 * where the file writes it so that an error names its own field. */
static kjit_status check_t1_expr(parser *P, const char *text, const char *path)
{
	kjit_status st = KJIT_OK;
	for (size_t p = 0; st == KJIT_OK && p < P->spec->n_problems; p++) {
		size_t n;
		const char **names = scope_names(P->spec, p, 1, NULL, &n);
		if (!names)
			return nomem();
		st = check_expr(P, text, names, n, path, NULL);
		free(names);
	}
	return st;
}

/* ---- kjit's format -------------------------------------------------------- */

static const struct {
	const char *name;
	unsigned role;
} role_names[] = {
	{ "block_x", KJIT__ROLE_BLOCK_X }, { "block_y", KJIT__ROLE_BLOCK_Y },
	{ "block_z", KJIT__ROLE_BLOCK_Z }, { "define", KJIT__ROLE_DEFINE },
	{ "flags", KJIT__ROLE_FLAGS },
};

static const char *const kjit_types[] = { "int32", "int64", "uint32", "uint64", "float",
	                                  "double", NULL };

static kjit_status read_kjit_param(parser *P, json *v, const char *path)
{
	static const char *const keys[] = { "name", "values", "default", "roles", NULL };
	char sub[256], at[256];
	kjit__param *p;
	char *text = NULL, **roles = NULL;
	size_t n_roles = 0;
	kjit_status st = want_object(P, v, path, 1, "a parameter object");
	if (st == KJIT_OK)
		st = check_keys(P, v, path, keys);
	if (st == KJIT_OK)
		st = want_string(P, kjit__json_get(v, "name"), key_path(sub, path, "name"), 1, &text);
	if (st == KJIT_OK)
		st = add_param(P, sub, text, &p);
	free(text);
	if (st == KJIT_OK)
		st = want_strings(P, kjit__json_get(v, "roles"), key_path(sub, path, "roles"), &roles,
		                  &n_roles);
	for (size_t r = 0; st == KJIT_OK && r < n_roles; r++) {
		size_t k;
		for (k = 0; k < sizeof role_names / sizeof role_names[0]; k++)
			if (strcmp(roles[r], role_names[k].name) == 0)
				break;
		if (k == sizeof role_names / sizeof role_names[0])
			st = fail(P, index_path(sub, key_path(at, path, "roles"), r),
			          "one of block_x, block_y, block_z, define, flags (got \"%s\")", roles[r]);
		else
			p->roles |= role_names[k].role;
	}
	free_strings(roles, n_roles);
	if (st != KJIT_OK)
		return st;
	if (n_roles == 0)
		p->roles = KJIT__ROLE_DEFINE;
	json *values = kjit__json_get(v, "values");
	key_path(sub, path, "values");
	if (!values || values->type != KJIT__JSON_ARRAY)
		return fail_got(P, sub, values, "an array of numbers or strings");
	if ((st = values_from_json(P, p, values, sub)) != KJIT_OK ||
	    (st = default_text(P, kjit__json_get(v, "default"), key_path(sub, path, "default"),
	                       &text)) != KJIT_OK)
		return st;
	st = finish_param(P, p, path, text);
	free(text);
	return st;
}

static kjit_status read_kjit_arg(parser *P, json *v, const char *path)
{
	static const char *const keys[] = { "name", "type", "value", "length", "fill", "seed",
		                            "file", "access", NULL };
	static const char *const fills[] = { "random", "constant", "sequence", "file", NULL };
	static const kjit__fill fill_kinds[] = { KJIT__FILL_RANDOM, KJIT__FILL_CONSTANT,
		                                 KJIT__FILL_SEQUENCE, KJIT__FILL_FILE };
	char sub[256], *text = NULL;
	kjit__arg *a = new_arg(P->spec);
	if (!a)
		return nomem();
	kjit_status st = want_object(P, v, path, 1, "an argument object");
	if (st == KJIT_OK)
		st = check_keys(P, v, path, keys);
	if (st == KJIT_OK)
		st = want_string(P, kjit__json_get(v, "name"), key_path(sub, path, "name"), 1, &a->name);
	if (st == KJIT_OK)
		st = want_string(P, kjit__json_get(v, "type"), key_path(sub, path, "type"), 1, &a->type);
	if (st == KJIT_OK && one_of(a->type, kjit_types) < 0)
		st = fail(P, sub, "one of int32, int64, uint32, uint64, float, double (got \"%s\")",
		          a->type);
	if (st != KJIT_OK)
		return st;
	a->access = KJIT__IN;
	json *length = kjit__json_get(v, "length");
	a->is_buffer = length != NULL;
	if (!a->is_buffer)
		return want_expr(P, kjit__json_get(v, "value"), key_path(sub, path, "value"), NULL,
		                 &a->value);
	if ((st = want_expr(P, length, key_path(sub, path, "length"), NULL, &a->length)) != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(v, "fill"), key_path(sub, path, "fill"), 0,
	                      &text)) != KJIT_OK)
		return st;
	int f = text ? one_of(text, fills) : 0;
	if (f < 0)
		st = fail(P, sub, "one of random, constant, sequence, file (got \"%s\")", text);
	free(text);
	text = NULL;
	if (st != KJIT_OK)
		return st;
	a->data.fill = fill_kinds[f];
	int64_t seed;
	if ((st = want_int(P, kjit__json_get(v, "seed"), key_path(sub, path, "seed"), 1, &seed)) !=
	            KJIT_OK ||
	    (st = want_number(P, kjit__json_get(v, "value"), key_path(sub, path, "value"), 0,
	                      &a->data.constant)) != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(v, "file"), key_path(sub, path, "file"),
	                      a->data.fill == KJIT__FILL_FILE, &a->data.file)) != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(v, "access"), key_path(sub, path, "access"), 0,
	                      &text)) != KJIT_OK)
		return st;
	a->data.seed = (uint64_t)seed;
	if (!text || strcmp(text, "in") == 0)
		a->access = KJIT__IN;
	else if (strcmp(text, "out") == 0)
		a->access = KJIT__OUT;
	else if (strcmp(text, "inout") == 0 || strcmp(text, "in-out") == 0)
		a->access = KJIT__INOUT;
	else
		st = fail(P, sub, "one of in, out, inout (got \"%s\")", text);
	free(text);
	return st;
}

/* ---- headers ------------------------------------------------------------------ */

static kjit_status resolve(const char *spec_path, char **path);

static int is_folder(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* kernel.include_dirs: existing folders, relative to the spec's. */
static kjit_status read_include_dirs(parser *P, json *v, const char *path)
{
	kjit__spec *s = P->spec;
	char sub[256];
	kjit_status st = want_strings(P, v, path, &s->include_dirs, &s->n_include_dirs);
	for (size_t i = 0; st == KJIT_OK && i < s->n_include_dirs; i++) {
		char *given = strdup(s->include_dirs[i]);
		if (!given)
			return nomem();
		st = resolve(P->file, &s->include_dirs[i]);
		if (st == KJIT_OK && !is_folder(s->include_dirs[i]))
			st = fail(P, v->type == KJIT__JSON_ARRAY ? index_path(sub, path, i) : path,
			          "an existing folder, relative to the spec's (got \"%s\": %s)", given,
			          s->include_dirs[i]);
		free(given);
	}
	return st;
}

/* kernel.headers: {"name": "text"} or {"name": {"path": "file"}}, the
 * file relative to the spec's folder and read now. */
static kjit_status read_headers(parser *P, json *v, const char *path)
{
	static const char *const header_keys[] = { "path", NULL };
	kjit__spec *s = P->spec;
	char sub[256], at[256];
	/* a file named many times counts each time */
	kjit__budget budget = KJIT__BUDGET(KJIT__MAX_HEADERS_TOTAL_BYTES, "headers");
	if (!v)
		return KJIT_OK;
	if (v->type != KJIT__JSON_OBJECT)
		return fail_got(P, path, v, "an object of header names to texts or {\"path\": FILE}");
	if (!(s->headers = calloc(v->n + 1, sizeof *s->headers)))
		return nomem();
	for (size_t i = 0; i < v->n; i++) {
		json *h = &v->items[i];
		char *text = NULL, *file = NULL;
		kjit_status st = KJIT_OK;
		key_path(sub, path, v->keys[i]);
		if (!*v->keys[i])
			return fail(P, sub, "a header name as written in #include (got \"\")");
		if (h->type == KJIT__JSON_STRING) {
			if ((st = kjit__budget_take(&budget, strlen(h->text), sub)) != KJIT_OK)
				return fail(P, sub, "headers within the total (%s)", kjit__error_msg());
			if (!(text = strdup(h->text)))
				return nomem();
		} else if (h->type != KJIT__JSON_OBJECT) {
			return fail_got(P, sub, h, "the header's text (a string) or {\"path\": FILE}");
		} else if ((st = check_keys(P, h, sub, header_keys)) != KJIT_OK ||
		           (st = want_string(P, kjit__json_get(h, "path"), key_path(at, sub, "path"), 1,
		                             &file)) != KJIT_OK ||
		           (st = resolve(P->file, &file)) != KJIT_OK) {
			free(file);
			return st;
		} else {
			size_t len;
			st = kjit__read_budget(file, KJIT__MAX_TEXT_BYTES, &budget, &text, &len);
			if (st == KJIT_OK && strlen(text) != len)
				st = fail(P, at, "a text file (%s contains a NUL byte)", file);
			else if (st != KJIT_OK)
				st = fail(P, at, "a readable file (%s)", kjit__error_msg());
			free(file);
			if (st != KJIT_OK) {
				free(text);
				return st;
			}
		}
		s->headers[s->n_headers].text = text;
		if (!(s->headers[s->n_headers++].name = strdup(v->keys[i])))
			return nomem();
	}
	return KJIT_OK;
}

/* T1 CompilerOptions: -I DIR, -IDIR, --include-path DIR and
 * --include-path=DIR become include dirs. Kernel Tuner hands them to the
 * compiler as they are, relative to the current folder; kjit looks in the
 * spec's folder first, then there, and drops a folder found in neither
 * with a warning, as a compiler ignores it. */
static kjit_status t1_include_dirs(parser *P)
{
	kjit__spec *s = P->spec;
	char sub[256];
	size_t kept = 0;
	for (size_t i = 0; i < s->n_flags; i++) {
		char *f = s->flags[i], *dir = NULL;
		size_t at = i;
		if ((!strcmp(f, "-I") || !strcmp(f, "--include-path")) && i + 1 < s->n_flags)
			dir = s->flags[++i];
		else if (!strncmp(f, "-I", 2) && f[2])
			dir = f + 2;
		else if (!strncmp(f, "--include-path=", 15))
			dir = f + 15;
		if (!dir) {
			s->flags[kept++] = f;
			continue;
		}
		char *full = strdup(dir);
		kjit_status st = full ? resolve(P->file, &full) : nomem();
		if (st == KJIT_OK && !is_folder(full)) {
			free(full);
			full = is_folder(dir) ? strdup(dir) : NULL;
			if (!full && is_folder(dir))
				st = nomem();
			else if (!full)
				st = warn(P, index_path(sub, "KernelSpecification.CompilerOptions", at),
				          "include folder \"%s\" is in neither the spec's folder nor the "
				          "current one: ignored", dir);
		}
		if (st == KJIT_OK && full) {
			char **d = realloc(s->include_dirs, (s->n_include_dirs + 2) * sizeof *d);
			if (!d) {
				free(full);
				return nomem();
			}
			s->include_dirs = d;
			d[s->n_include_dirs++] = full;
			d[s->n_include_dirs] = NULL;
		}
		if (at != i)
			free(s->flags[at]);
		free(s->flags[i]);
		if (st != KJIT_OK)
			return st;
	}
	s->n_flags = kept;
	if (s->flags)
		s->flags[kept] = NULL;
	return KJIT_OK;
}

/* T1 CompilerOptions after t1_include_dirs(): empty entries dropped; one
 * NVRTC does not take (another compiler's, -cl-fast-relaxed-math) makes
 * the spec one that is counted, with a warning, but not compiled (or,
 * when it is not compiled anyway, a warning). */
static kjit_status t1_options(parser *P)
{
	static const char path[] = "KernelSpecification.CompilerOptions";
	kjit__spec *s = P->spec;
	size_t kept = 0;
	kjit_status st = KJIT_OK;
	for (size_t i = 0, used; i < s->n_flags; i += used) {
		const char *why = *s->flags[i] ? kjit__option_refusal(0, (const char *const *)s->flags + i,
		                                                      s->n_flags - i, &used)
		                               : (used = 1, NULL);
		if (!why && *s->flags[i]) {
			for (size_t k = 0; k < used; k++)
				s->flags[kept++] = s->flags[i + k];
			continue;
		}
		if (why && st == KJIT_OK && s->unrunnable)
			st = warn(P, path, "\"%.160s\": %s: ignored", s->flags[i], why);
		else if (why && st == KJIT_OK &&
		         !(s->unrunnable = kjit__strdup_printf("%s: %s: \"%.160s\": %s", P->file, path,
		                                               s->flags[i], why)))
			st = nomem();
		for (size_t k = 0; k < used; k++)
			free(s->flags[i + k]);
	}
	s->n_flags = kept;
	if (s->flags)
		s->flags[kept] = NULL;
	return st;
}

/* kernel.link: a path or an array of paths and {"path", "kind"} objects;
 * a path's ending gives the kind when none is written. */
static kjit_status read_link(parser *P, json *v, const char *path)
{
	static const char *const keys[] = { "path", "kind", NULL };
	kjit__spec *s = P->spec;
	char sub[256], kpath[256];
	if (!v)
		return KJIT_OK;
	if (v->type != KJIT__JSON_STRING && v->type != KJIT__JSON_ARRAY)
		return fail_got(P, path, v, "a path or an array of link inputs");
	size_t n = v->type == KJIT__JSON_STRING ? 1 : v->n;
	if (!(s->link_paths = calloc(n + 1, sizeof *s->link_paths)) ||
	    !(s->link_kinds = calloc(n + 1, sizeof *s->link_kinds)))
		return nomem();
	for (size_t i = 0; i < n; i++) {
		json *item = v->type == KJIT__JSON_STRING ? v : &v->items[i];
		const char *ipath = v->type == KJIT__JSON_STRING ? path : index_path(sub, path, i);
		char *kind = NULL;
		kjit_status st;
		s->n_link++;
		if (item->type == KJIT__JSON_OBJECT) {
			if ((st = check_keys(P, item, ipath, keys)) != KJIT_OK ||
			    (st = want_string(P, kjit__json_get(item, "path"), key_path(kpath, ipath, "path"),
			                      1, &s->link_paths[i])) != KJIT_OK ||
			    (st = want_string(P, kjit__json_get(item, "kind"), key_path(kpath, ipath, "kind"),
			                      0, &kind)) != KJIT_OK)
				return st;
		} else if (item->type != KJIT__JSON_STRING) {
			return fail_got(P, ipath, item, "a path or an object with \"path\" and \"kind\"");
		} else if (!(s->link_paths[i] = strdup(item->text))) {
			return nomem();
		}
		s->link_kinds[i] = kind ? kjit__link_kind_parse(kind)
		                        : kjit__link_kind_of_path(s->link_paths[i]);
		if (!s->link_kinds[i]) {
			st = kind ? fail(P, key_path(kpath, ipath, "kind"), "one of ltoir, cubin, fatbin, "
			                 "object, library, ptx, source (got \"%s\")", kind)
			          : fail(P, ipath, "a \"kind\": the ending of \"%s\" names none (.ltoir, "
			                 ".cubin, .fatbin, .o, .a, .ptx, .cu)", s->link_paths[i]);
			free(kind);
			return st;
		}
		free(kind);
	}
	return KJIT_OK;
}

static kjit_status read_kjit(parser *P)
{
	static const char *const top_keys[] = { "kernel", "parameters", "restrictions", "grid",
		                                "shared_memory", "problems", "arguments", "verify",
		                                "objective", "limits", NULL };
	static const char *const kernel_keys[] = { "source", "entry", "flags", "include_dirs",
		                                   "headers", "link", "link_options", NULL };
	static const char *const verify_keys[] = { "against", "reference", "atol", "rtol", NULL };
	static const char *const objective_keys[] = { "metric", "bytes", "flops", NULL };
	static const char *const limits_keys[] = { "max_threads_per_block", "max_shared_bytes",
		                                   NULL };
	static const char *const verifies[] = { "default", "reference", "none", NULL };
	static const char *const metrics[] = { "time", "gbps", "gflops", "energy", "edp", NULL };
	kjit__spec *s = P->spec;
	json *root = P->root, *kernel = kjit__json_get(root, "kernel");
	json *verify = kjit__json_get(root, "verify"), *objective = kjit__json_get(root, "objective");
	json *limits = kjit__json_get(root, "limits"), *v;
	char sub[256];
	kjit_status st = check_keys(P, root, "", top_keys);
	if (st != KJIT_OK)
		return st;
	if (!kernel || kernel->type != KJIT__JSON_OBJECT)
		return fail_got(P, "kernel", kernel, "an object with \"source\" and \"entry\"");
	if ((st = check_keys(P, kernel, "kernel", kernel_keys)) != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(kernel, "source"), "kernel.source", 1,
	                      &s->source_path)) != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(kernel, "entry"), "kernel.entry", 1, &s->entry)) !=
	            KJIT_OK ||
	    (st = want_strings(P, kjit__json_get(kernel, "flags"), "kernel.flags", &s->flags,
	                       &s->n_flags)) != KJIT_OK ||
	    (st = read_include_dirs(P, kjit__json_get(kernel, "include_dirs"),
	                            "kernel.include_dirs")) != KJIT_OK ||
	    (st = read_headers(P, kjit__json_get(kernel, "headers"), "kernel.headers")) != KJIT_OK ||
	    (st = read_link(P, kjit__json_get(kernel, "link"), "kernel.link")) != KJIT_OK ||
	    (st = want_strings(P, kjit__json_get(kernel, "link_options"), "kernel.link_options",
	                       &s->link_options, &s->n_link_options)) != KJIT_OK)
		return st;
	if ((st = check_options(P, "kernel.flags", 1, 0, (const char *const *)s->flags,
	                        s->n_flags)) != KJIT_OK ||
	    (st = check_options(P, "kernel.link_options", 1, 1,
	                        (const char *const *)s->link_options, s->n_link_options)) != KJIT_OK)
		return st;
	if (s->n_link_options && !s->n_link)
		return fail(P, "kernel.link_options", "link options only with kernel.link inputs");

	v = kjit__json_get(root, "parameters");
	if (!v || v->type != KJIT__JSON_ARRAY || v->n == 0)
		return fail_got(P, "parameters", v, "a non-empty array of parameters");
	unsigned roles = 0;
	for (size_t i = 0; i < v->n; i++) {
		if ((st = read_kjit_param(P, &v->items[i], index_path(sub, "parameters", i))) != KJIT_OK)
			return st;
		roles |= s->params[i].roles;
	}
	if (!(roles & (KJIT__ROLE_BLOCK_X | KJIT__ROLE_BLOCK_Y | KJIT__ROLE_BLOCK_Z)) &&
	    (st = warn(P, "parameters", "no parameter has a block_x, block_y or block_z role: "
	               "every launch is a block of 1 thread")) != KJIT_OK)
		return st;

	if ((st = want_strings(P, kjit__json_get(root, "restrictions"), "restrictions",
	                       &s->restrictions, &s->n_restrictions)) != KJIT_OK)
		return st;
	/* grid: one expression (x) or an array of up to three. */
	v = kjit__json_get(root, "grid");
	if (v && v->type == KJIT__JSON_ARRAY) {
		if (v->n < 1 || v->n > 3)
			return fail(P, "grid", "an array of 1 to 3 expressions (got %zu)", v->n);
		for (size_t i = 0; i < v->n; i++)
			if ((st = want_expr(P, &v->items[i], index_path(sub, "grid", i), NULL,
			                    &s->grid[i])) != KJIT_OK)
				return st;
	} else if ((st = want_expr(P, v, "grid", "1", &s->grid[0])) != KJIT_OK) {
		return st;
	}
	if ((st = want_expr(P, kjit__json_get(root, "shared_memory"), "shared_memory", "0",
	                    &s->shared)) != KJIT_OK ||
	    (st = read_problems(P, kjit__json_get(root, "problems"), "problems")) != KJIT_OK)
		return st;
	/* arguments: needed to run on a GPU, not to count or compile */
	v = kjit__json_get(root, "arguments");
	if (v && v->type != KJIT__JSON_ARRAY)
		return fail_got(P, "arguments", v, "an array of kernel arguments");
	for (size_t i = 0; v && i < v->n; i++)
		if ((st = read_kjit_arg(P, &v->items[i], index_path(sub, "arguments", i))) != KJIT_OK)
			return st;

	if ((st = want_object(P, verify, "verify", 0, "an object")) != KJIT_OK ||
	    (st = check_keys(P, verify, "verify", verify_keys)) != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(verify, "against"), "verify.against", 0,
	                      &s->verify)) != KJIT_OK)
		return st;
	if (!s->verify && !(s->verify = strdup("default")))
		return nomem();
	if (one_of(s->verify, verifies) < 0)
		return fail(P, "verify.against", "one of default, reference, none (got \"%s\")",
		            s->verify);
	if ((st = want_string(P, kjit__json_get(verify, "reference"), "verify.reference",
	                      strcmp(s->verify, "reference") == 0, &s->reference_entry)) != KJIT_OK ||
	    (st = want_number(P, kjit__json_get(verify, "atol"), "verify.atol", 1e-6, &s->atol)) !=
	            KJIT_OK ||
	    (st = want_number(P, kjit__json_get(verify, "rtol"), "verify.rtol", 1e-5, &s->rtol)) !=
	            KJIT_OK)
		return st;
	if ((st = want_object(P, objective, "objective", 0, "an object")) != KJIT_OK ||
	    (st = check_keys(P, objective, "objective", objective_keys)) != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(objective, "metric"), "objective.metric", 0,
	                      &s->metric)) != KJIT_OK)
		return st;
	if (s->metric && one_of(s->metric, metrics) < 0)
		st = fail(P, "objective.metric", "one of time, gbps, gflops, energy, edp (got \"%s\")",
		          s->metric);
	if (st == KJIT_OK && (v = kjit__json_get(objective, "bytes")))
		st = want_expr(P, v, "objective.bytes", NULL, &s->bytes);
	if (st == KJIT_OK && (v = kjit__json_get(objective, "flops")))
		st = want_expr(P, v, "objective.flops", NULL, &s->flops);
	if (st == KJIT_OK)
		st = want_object(P, limits, "limits", 0, "an object");
	if (st == KJIT_OK)
		st = check_keys(P, limits, "limits", limits_keys);
	if (st == KJIT_OK)
		st = want_int(P, kjit__json_get(limits, "max_threads_per_block"),
		              "limits.max_threads_per_block", s->max_threads, &s->max_threads);
	if (st == KJIT_OK)
		st = want_int(P, kjit__json_get(limits, "max_shared_bytes"), "limits.max_shared_bytes",
		              s->max_shared, &s->max_shared);
	return st;
}

/* ---- T1 --------------------------------------------------------------------- */

/* Value types: T1's names, then KTT's. */
static const char *const t1_param_types[] = { "int", "uint", "float", "bool", "string", "Int",
	                                      "UnsignedInt", "Float", "Double", "Bool",
	                                      "String", NULL };
enum { T_INT, T_UINT, T_FLOAT, T_BOOL, T_STRING };
static const int t1_param_kinds[] = { T_INT, T_UINT, T_FLOAT, T_BOOL, T_STRING, T_INT,
	                              T_UINT, T_FLOAT, T_FLOAT, T_BOOL, T_STRING };

/* Every value fits Type; a bool's becomes 1 or 0 (its -D value). */
static kjit_status check_type(parser *P, kjit__param *p, int kind, const char *type,
                              const char *path)
{
	static const char *const wants[] = { "integers", "non-negative integers", "numbers",
		                             "True or False", "strings" };
	for (size_t i = 0; i < p->n_values; i++) {
		kjit__value *v = &p->values[i];
		int isbool = v->kind == SQLITE_INTEGER && is_bool_text(v->text);
		int ok = kind == T_INT ? v->kind == SQLITE_INTEGER && !isbool
		         : kind == T_UINT ? v->kind == SQLITE_INTEGER && !isbool && v->i >= 0
		         : kind == T_FLOAT ? v->kind != SQLITE_TEXT && !isbool
		         : kind == T_BOOL ? v->kind == SQLITE_INTEGER && (v->i == 0 || v->i == 1)
		                                                        : v->kind == SQLITE_TEXT;
		if (v->kind == KJIT__KIND_LIST)
			ok = 0;
		char g[96];
		/* as a JSON array's values are: inf is no C literal, and no JSON
		 * either, where the store keeps a configuration */
		if (ok && v->kind == SQLITE_FLOAT && !isfinite(v->d))
			return fail(P, path, "finite numbers for Type %s (got %s)", type, value_got(v, g));
		if (!ok)
			return fail(P, path, "%s for Type %s (got %s)", wants[kind], type,
			            value_got(v, g));
		if (kind == T_BOOL) {
			free(v->text);
			if (!(v->text = strdup(v->i ? "1" : "0")))
				return nomem();
		}
	}
	return KJIT_OK;
}

/* Values: a Python expression (T1's form), or a JSON array. */
static kjit_status t1_values(parser *P, kjit__param *p, json *v, const char *path)
{
	if (v && v->type == KJIT__JSON_ARRAY)
		return values_from_json(P, p, v, path);
	if (!v || v->type != KJIT__JSON_STRING)
		return fail_got(P, path, v, "a list of values: a Python expression such as "
		                            "\"[1, 2, 4]\" or \"list(range(1, 9))\", or a JSON array");
	kjit__expr *e;
	kjit_status st = check_expr(P, v->text, NULL, 0, path, &e);
	if (st != KJIT_OK)
		return st;
	st = kjit__expr_eval_list(e, NULL, MAX_VALUES, &p->values, &p->n_values);
	kjit__expr_free(e);
	if (st != KJIT_OK) {
		char *msg = kjit__strdup_printf("%s: %s: expected a list of at most %d values (%s)",
		                                P->file, path, MAX_VALUES, kjit__error_msg());
		return msg ? kjit__error_take(st, msg) : nomem();
	}
	return KJIT_OK;
}

static kjit_status read_t1_param(parser *P, json *v, const char *path)
{
	static const char *const keys[] = { "Name", "Type", "Values", "Default", NULL };
	char sub[256], *text = NULL, *type = NULL;
	kjit__param *p;
	kjit_status st = want_object(P, v, path, 1, "a parameter object");
	if (st == KJIT_OK)
		st = check_keys(P, v, path, keys);
	if (st == KJIT_OK)
		st = want_string(P, kjit__json_get(v, "Name"), key_path(sub, path, "Name"), 1, &text);
	if (st == KJIT_OK)
		st = add_param(P, sub, text, &p);
	free(text);
	text = NULL;
	json *tv = kjit__json_get(v, "Type");
	int t = tv && tv->type == KJIT__JSON_STRING ? one_of(tv->text, t1_param_types) : -1;
	if (st == KJIT_OK && t < 0)
		st = fail_got(P, key_path(sub, path, "Type"), tv, "one of int, uint, float, bool, string");
	if (st == KJIT_OK && !(type = strdup(tv->text)))
		st = nomem();
	if (st == KJIT_OK) {
		p->roles = KJIT__ROLE_DEFINE;
		key_path(sub, path, "Values");
		st = t1_values(P, p, kjit__json_get(v, "Values"), sub);
	}
	if (st == KJIT_OK)
		st = check_type(P, p, t1_param_kinds[t], type, sub);
	json *def = kjit__json_get(v, "Default");
	if (st == KJIT_OK)
		st = default_text(P, def, key_path(sub, path, "Default"), &text);
	if (st == KJIT_OK && text && t1_param_kinds[t] == T_BOOL && is_bool_text(text)) {
		int one = strcmp(text, "True") == 0;
		free(text);
		if (!(text = strdup(one ? "1" : "0")))
			st = nomem();
	}
	free(type);
	if (st == KJIT_OK)
		st = finish_param(P, p, path, text);
	free(text);
	return st;
}

/* Conditions: objects with an Expression (and Parameters, which Kernel
 * Tuner does not need), or plain strings. */
static kjit_status read_t1_conditions(parser *P, json *v, const char *path)
{
	static const char *const keys[] = { "Expression", "Parameters", NULL };
	kjit__spec *s = P->spec;
	char sub[256], item[256];
	if (!v)
		return KJIT_OK;
	if (v->type != KJIT__JSON_ARRAY)
		return fail_got(P, path, v, "an array of conditions");
	if (!(s->restrictions = calloc(v->n + 1, sizeof *s->restrictions)))
		return nomem();
	for (size_t i = 0; i < v->n; i++) {
		json *c = &v->items[i], *params;
		kjit_status st;
		index_path(item, path, i);
		if (c->type == KJIT__JSON_STRING) {
			st = want_string(P, c, item, 1, &s->restrictions[i]);
		} else if (c->type != KJIT__JSON_OBJECT) {
			st = fail_got(P, item, c, "a condition: an object with an Expression, or a "
			                          "string");
		} else if ((st = check_keys(P, c, item, keys)) == KJIT_OK &&
		           (st = want_string(P, kjit__json_get(c, "Expression"),
		                             key_path(sub, item, "Expression"), 1,
		                             &s->restrictions[i])) == KJIT_OK &&
		           (params = kjit__json_get(c, "Parameters"))) {
			char **names = NULL;
			size_t n = 0;
			key_path(sub, item, "Parameters");
			st = want_strings(P, params, sub, &names, &n);
			for (size_t k = 0; st == KJIT_OK && k < n; k++)
				if (find_param(P, names[k]) < 0) {
					char at[256];
					st = warn(P, index_path(at, sub, k), "\"%s\" is not a tuning parameter, "
					          "ignored", names[k]);
				}
			free_strings(names, n);
		}
		/* counted once read, so that a later failure frees it */
		if (s->restrictions[i])
			s->n_restrictions++;
		if (st != KJIT_OK)
			return st;
	}
	return KJIT_OK;
}

/* The conditions' expressions, once the problem sizes are known. */
static kjit_status check_t1_conditions(parser *P, json *v, const char *path)
{
	char item[256], sub[256];
	kjit_status st = KJIT_OK;
	for (size_t i = 0; st == KJIT_OK && v && i < P->spec->n_restrictions; i++) {
		index_path(item, path, i);
		st = check_t1_expr(P, P->spec->restrictions[i],
		                   v->items[i].type == KJIT__JSON_OBJECT ? key_path(sub, item, "Expression")
		                                                         : item);
	}
	return st;
}

/* How the grid is read: from GlobalSize, or from an integer or a list
 * ProblemSize divided by GridDivX/Y/Z (Kernel Tuner's rule). */
typedef struct t1_problem {
	int from_size;  /* 1: ProblemSize is an integer or a list */
	size_t n;       /* its entries, at most 3 */
	char *size[3];  /* each entry as an expression: its name, or an expression of the
	                 * parameters when it reads them */
} t1_problem;

/* One entry of an integer or list ProblemSize. */
static kjit_status t1_size(parser *P, json *v, const char *path, const char *name,
                           t1_problem *tp)
{
	kjit__spec *s = P->spec;
	int64_t value;
	int r = kjit__json_int(v, &value);
	if (v->type == KJIT__JSON_STRING) {
		const char **names = calloc(s->n_params + 1, sizeof *names);
		kjit__expr *e = NULL;
		double d;
		if (!names)
			return nomem();
		for (size_t i = 0; i < s->n_params; i++)
			names[i] = s->params[i].name;
		kjit_status st = check_expr(P, v->text, names, s->n_params, path, &e);
		free(names);
		if (st != KJIT_OK)
			return st;
		if (kjit__expr_max_slot(e) >= 0) {
			/* it reads the parameters: part of the grid, not a problem size */
			kjit__expr_free(e);
			tp->size[tp->n] = kjit__strdup_printf("(%s)", v->text);
			tp->n++;
			return tp->size[tp->n - 1] ? KJIT_OK : nomem();
		}
		st = kjit__expr_eval(e, NULL, &d);
		kjit__expr_free(e);
		if (st != KJIT_OK) {
			char *msg = kjit__strdup_printf("%s: %s: expected an integer size (%s)", P->file,
			                                path, kjit__error_msg());
			return msg ? kjit__error_take(st, msg) : nomem();
		}
		if (!(d == floor(d) && fabs(d) < 9.2e18))
			return fail_got(P, path, v, "an expression whose value is an integer");
		value = (int64_t)d;
		r = 1;
	}
	if (r != 1)
		return fail_got(P, path, v, r < 0 ? "an integer size within int64"
		                                  : "an integer size or an expression");
	tp->size[tp->n++] = strdup(name);
	if (!tp->size[tp->n - 1])
		return nomem();
	return add_size(&s->problems[0], name, value);
}

/* ProblemSize: an integer or a list of them (Kernel Tuner, BAT), or kjit's
 * named sizes (an object or an array of objects). */
static kjit_status read_t1_problem(parser *P, json *v, const char *path, t1_problem *tp)
{
	char sub[256], name[64];
	int objects = v && (v->type == KJIT__JSON_OBJECT ||
	                    (v->type == KJIT__JSON_ARRAY && v->n && v->items[0].type == KJIT__JSON_OBJECT));
	if (!v || objects)
		return read_problems(P, v, path);
	kjit_status st = new_problems(P->spec, 1);
	if (st != KJIT_OK)
		return st;
	tp->from_size = 1;
	if (v->type != KJIT__JSON_ARRAY)
		return t1_size(P, v, path, "ProblemSize", tp);
	if (v->n < 1 || v->n > 3)
		return fail(P, path, "1 to 3 sizes (got %zu)", v->n);
	for (size_t i = 0; st == KJIT_OK && i < v->n; i++) {
		snprintf(name, sizeof name, "ProblemSize[%zu]", i);
		st = t1_size(P, &v->items[i], index_path(sub, path, i), name, tp);
	}
	return st;
}

/* A GridDiv list: divisors, each a parameter name, an expression or a
 * number, as "(a) * (b)"; NULL when absent or empty. Checked when used:
 * Kernel Tuner's own files divide axes that have no size by names that
 * are no parameters. */
static kjit_status grid_divisor(parser *P, json *v, const char *path, int used, char **out)
{
	char sub[256];
	kjit__buf b = { 0 };
	*out = NULL;
	if (!v || (v->type == KJIT__JSON_ARRAY && v->n == 0))
		return KJIT_OK;
	size_t n = v->type == KJIT__JSON_ARRAY ? v->n : 1;
	for (size_t i = 0; i < n; i++) {
		json *d = v->type == KJIT__JSON_ARRAY ? &v->items[i] : v;
		char *text;
		const char *at = v->type == KJIT__JSON_ARRAY ? index_path(sub, path, i) : path;
		kjit_status st = want_expr(P, d, at, NULL, &text);
		if (st == KJIT_OK && used && (st = check_t1_expr(P, text, at)) != KJIT_OK)
			free(text);
		if (st != KJIT_OK) {
			free(kjit__buf_done(&b));
			return st;
		}
		kjit__buf_str(&b, i ? " * (" : "(");
		kjit__buf_str(&b, text);
		kjit__buf_str(&b, ")");
		free(text);
	}
	return (*out = kjit__buf_done(&b)) ? KJIT_OK : nomem();
}

/* Kernel Tuner's block where no parameter names it. */
static const char *const kt_default_block[] = { "256", "1", "1" };

/* A LocalSize entry that is a name no parameter or problem size has:
 * Kernel Tuner reads a block size name it does not find as its default,
 * and so does kjit, saying so. */
static kjit_status t1_block_name(parser *P, int d, const char *path)
{
	kjit__spec *s = P->spec;
	const char *name = s->block[d];
	size_t len = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
	if (!len || name[len] || isdigit((unsigned char)name[0]) || find_param(P, name) >= 0 ||
	    check_t1_expr(P, name, path) == KJIT_OK)
		return KJIT_OK;
	kjit_status st = warn(P, path, "no parameter is named \"%.64s\": the block's %c is %s, as "
	                      "Kernel Tuner reads a block size it does not find", name, 'x' + d,
	                      kt_default_block[d]);
	char *def = strdup(kt_default_block[d]);
	if (!def)
		return nomem();
	free(s->block[d]);
	s->block[d] = def;
	return st;
}

static kjit_status read_t1_geometry(parser *P, json *ks, const t1_problem *tp)
{
	static const char *const axis_keys[] = { "X", "Y", "Z", NULL };
	static const char *const size_types[] = { "CUDA", "OpenCL", "Vulkan", NULL };
	static const char *const kt_blocks[] = { "block_size_x", "block_size_y", "block_size_z" };
	kjit__spec *s = P->spec;
	json *local = kjit__json_get(ks, "LocalSize"), *global = kjit__json_get(ks, "GlobalSize");
	char sub[256], *gtype = NULL;
	kjit_status st;
	if ((st = want_object(P, local, "KernelSpecification.LocalSize", 0,
	                      "an object of X, Y, Z block sizes")) != KJIT_OK ||
	    (st = check_keys(P, local, "KernelSpecification.LocalSize", axis_keys)) != KJIT_OK ||
	    (st = want_object(P, global, "KernelSpecification.GlobalSize", 0,
	                      "an object of X, Y, Z grid sizes")) != KJIT_OK ||
	    (st = check_keys(P, global, "KernelSpecification.GlobalSize", axis_keys)) != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(ks, "GlobalSizeType"),
	                      "KernelSpecification.GlobalSizeType", 0, &gtype)) != KJIT_OK)
		return st;
	int size_type = 0;
	for (int k = 0; gtype && size_types[k]; k++)
		if (strcasecmp(gtype, size_types[k]) == 0)
			size_type = k + 1;
	if (gtype && !size_type)
		st = fail(P, "KernelSpecification.GlobalSizeType", "CUDA, OpenCL or Vulkan (got \"%s\")",
		          gtype);
	free(gtype);
	/* KTT: OpenCL counts threads, CUDA and Vulkan count blocks */
	int opencl = size_type == 2;
	if (st == KJIT_OK && tp->from_size && global)
		st = warn(P, "KernelSpecification.GlobalSize", "not used: the grid is ProblemSize "
		          "divided by GridDivX/Y/Z, as Kernel Tuner reads it");
	if (st == KJIT_OK && !tp->from_size && !global)
		st = fail(P, "KernelSpecification.GlobalSize", "an object of X, Y, Z grid sizes, or a "
		          "ProblemSize that is an integer or a list (missing)");
	for (int d = 0; st == KJIT_OK && d < 3; d++) {
		char axis[2] = { (char)('X' + d), '\0' }, gd[16], *div = NULL, *g = NULL;
		/* Kernel Tuner's block without a LocalSize: block_size_x, ... */
		const char *def = local ? "1"
		                  : find_param(P, kt_blocks[d]) >= 0 ? kt_blocks[d] : kt_default_block[d];
		key_path(sub, "KernelSpecification.LocalSize", axis);
		if ((st = want_expr(P, kjit__json_get(local, axis), sub, def, &s->block[d])) != KJIT_OK ||
		    (st = t1_block_name(P, d, sub)) != KJIT_OK ||
		    (st = check_t1_expr(P, s->block[d], sub)) != KJIT_OK)
			break;
		long k = find_param(P, s->block[d]);
		if (k >= 0) {
			s->params[k].roles |= KJIT__ROLE_BLOCK_X << d;
			/* without a LocalSize, the parameter's values are at fault */
			if (!kjit__json_get(local, axis))
				snprintf(sub, sizeof sub, "ConfigurationSpace.TuningParameters[%ld].Values",
				         k);
			if ((st = check_roles(P, &s->params[k], sub)) != KJIT_OK)
				break;
		}
		snprintf(gd, sizeof gd, "GridDiv%s", axis);
		key_path(sub, "KernelSpecification", gd);
		if ((st = grid_divisor(P, kjit__json_get(ks, gd), sub, tp->from_size && (size_t)d < tp->n,
		                       &div)) != KJIT_OK)
			break;
		if (tp->from_size && (size_t)d < tp->n) {
			s->grid[d] = kjit__strdup_printf("-(-(%s) // (%s))", tp->size[d],
			                                 div ? div : s->block[d]);
		} else {
			if (div)
				st = warn(P, sub, tp->from_size ? "not used: ProblemSize has no %s entry"
				          : "not used: the grid is GlobalSize (ProblemSize is not an integer "
				            "or a list)", axis);
			key_path(sub, "KernelSpecification.GlobalSize", axis);
			if (st == KJIT_OK && tp->from_size)
				g = strdup("1");
			else if (st == KJIT_OK && (st = want_expr(P, kjit__json_get(global, axis), sub, "1",
			                                          &g)) == KJIT_OK)
				st = check_t1_expr(P, g, sub);
			if (st == KJIT_OK && g && opencl && !tp->from_size)
				s->grid[d] = kjit__strdup_printf("-(-(%s) // (%s))", g, s->block[d]);
			else if (st == KJIT_OK && g)
				s->grid[d] = strdup(g);
			free(g);
		}
		free(div);
		if (st == KJIT_OK && !s->grid[d])
			st = nomem();
	}
	return st;
}

/* Argument element types: T1's, then BAT's spellings. */
static const struct {
	const char *name, *type;
	size_t bytes;
} t1_elems[] = {
	{ "bool", "bool", 1 },     { "int8", "int8", 1 },       { "uint8", "uint8", 1 },
	{ "int16", "int16", 2 },   { "uint16", "uint16", 2 },   { "int32", "int32", 4 },
	{ "uint32", "uint32", 4 }, { "int64", "int64", 8 },     { "uint64", "uint64", 8 },
	{ "half", "half", 2 },     { "float", "float", 4 },     { "double", "double", 8 },
	{ "int", "int32", 4 },     { "float32", "float", 4 },   { "float64", "double", 8 },
	{ "uint", "uint32", 4 },   { "char", "int8", 1 },       { "short", "int16", 2 },
	{ "long", "int64", 8 },
	/* KTT's names */
	{ "Bool", "bool", 1 },     { "Char", "int8", 1 },       { "UnsignedChar", "uint8", 1 },
	{ "Short", "int16", 2 },   { "UnsignedShort", "uint16", 2 }, { "Int", "int32", 4 },
	{ "UnsignedInt", "uint32", 4 }, { "Long", "int64", 8 }, { "UnsignedLong", "uint64", 8 },
	{ "Half", "half", 2 },     { "Float", "float", 4 },     { "Double", "double", 8 },
};

/* Type (and TypeSize) into a's type, components and custom_size; *bytes
 * is the size of one element. */
static kjit_status t1_type(parser *P, json *v, const char *path, kjit__arg *a, size_t *bytes)
{
	char sub[256], base[16];
	int64_t type_size = 0;
	kjit_status st = want_string(P, kjit__json_get(v, "Type"), key_path(sub, path, "Type"), 1,
	                             &a->type);
	if (st != KJIT_OK)
		return st;
	char typepath[256];
	snprintf(typepath, sizeof typepath, "%s", sub);
	json *ts = kjit__json_get(v, "TypeSize");
	key_path(sub, path, "TypeSize");
	if ((st = want_int(P, ts, sub, 0, &type_size)) != KJIT_OK)
		return st;
	if (ts && type_size < 1)
		return fail_got(P, sub, ts, "a positive number of bytes");
	if (strcmp(a->type, "custom") == 0) {
		if (!ts)
			return fail(P, sub, "the bytes of one element of a custom Type (missing)");
		a->custom_size = (size_t)type_size;
		*bytes = (size_t)type_size;
		return KJIT_OK;
	}
	size_t k, n_elems = sizeof t1_elems / sizeof t1_elems[0];
	unsigned n = 1;
	for (k = 0; k < n_elems; k++)
		if (strcmp(a->type, t1_elems[k].name) == 0)
			break;
	if (k == n_elems) {
		/* halfN, floatN, doubleN: N components of the base type (float3 and
		 * double3 from BAT) */
		size_t len = strcspn(a->type, "0123456789");
		char *end;
		unsigned long c = strtoul(a->type + len, &end, 10);
		snprintf(base, sizeof base, "%.*s", (int)(len < 15 ? len : 15), a->type);
		int vec = (strcmp(base, "half") == 0 && (c == 2 || c == 4 || c == 8 || c == 16)) ||
		          ((strcmp(base, "float") == 0 || strcmp(base, "double") == 0) &&
		           (c == 2 || c == 3 || c == 4 || c == 8 || c == 16));
		for (k = 0; vec && !*end && a->type[len] && k < n_elems; k++)
			if (strcmp(base, t1_elems[k].name) == 0)
				break;
		if (!vec || *end || !a->type[len] || k == n_elems)
			return fail(P, typepath, "one of bool, int8, uint8, int16, uint16, int32, uint32, "
			            "int64, uint64, half, float, double, their vectors half2 to double16, "
			            "or custom with TypeSize (got \"%s\")", a->type);
		n = (unsigned)c;
	}
	a->components = n;
	*bytes = t1_elems[k].bytes * n;
	free(a->type);
	if (!(a->type = strdup(t1_elems[k].type)))
		return nomem();
	/* Kernel Tuner does not read TypeSize; BAT writes 1 for a double */
	if (ts && (size_t)type_size != *bytes)
		return warn(P, sub, "%lld, but a %s has %zu bytes: read as %zu",
		            (long long)type_size, kjit__json_get(v, "Type")->text, *bytes, *bytes);
	return KJIT_OK;
}

/* FillType, FillValue, DataSource, RandomSeed into d (an argument's or a
 * reference's). */
static kjit_status t1_data(parser *P, json *v, const char *path, uint64_t seed, kjit__data *d)
{
	static const char *const fills[] = { "Constant", "Random", "Generator", "BinaryRaw",
		                             "Script", "BinaryHDF", NULL };
	char sub[256], fpath[256];
	json *f = kjit__json_get(v, "FillType");
	key_path(fpath, path, "FillType");
	int k = 0; /* KTT's default: Constant */
	if (f && (f->type != KJIT__JSON_STRING || (k = one_of(f->text, fills)) < 0))
		return fail_got(P, fpath, f, "Constant, Random, Generator or BinaryRaw");
	if (k == 4)
		return fail(P, fpath, "Constant, Random, Generator or BinaryRaw (got \"Script\": kjit "
		            "does not run scripts)");
	if (k == 5)
		return fail(P, fpath, "Constant, Random, Generator or BinaryRaw (got \"BinaryHDF\": "
		            "kjit does not read HDF5 files)");
	static const kjit__fill kinds[] = { KJIT__FILL_CONSTANT, KJIT__FILL_RANDOM,
		                            KJIT__FILL_GENERATOR, KJIT__FILL_FILE };
	d->fill = kinds[k];
	int64_t s;
	json *fv = kjit__json_get(v, "FillValue");
	kjit_status st = want_int(P, kjit__json_get(v, "RandomSeed"), key_path(sub, path, "RandomSeed"),
	                          (int64_t)seed, &s);
	if (st != KJIT_OK)
		return st;
	d->seed = (uint64_t)s;
	key_path(sub, path, "FillValue");
	if (fv && fv->type == KJIT__JSON_BOOL)
		d->constant = fv->b;
	else if ((st = want_number(P, fv, sub, 0, &d->constant)) != KJIT_OK)
		return st;
	key_path(sub, path, "DataSource");
	if (d->fill == KJIT__FILL_GENERATOR) {
		if ((st = want_string(P, kjit__json_get(v, "DataSource"), sub, 1, &d->generator)) !=
		    KJIT_OK)
			return st;
		return check_generator(P, d->generator, sub);
	}
	if (d->fill == KJIT__FILL_FILE)
		return want_string(P, kjit__json_get(v, "DataSource"), sub, 1, &d->file);
	return KJIT_OK;
}

static kjit_status data_copy(kjit__data *dst, const kjit__data *src)
{
	*dst = *src;
	dst->file = src->file ? strdup(src->file) : NULL;
	dst->generator = src->generator ? strdup(src->generator) : NULL;
	return (src->file && !dst->file) || (src->generator && !dst->generator) ? nomem() : KJIT_OK;
}

/* Kernel Tuner's MemType Constant: the buffer stays a kernel argument, and
 * the module variable of its name gets the same data. */
static kjit_status add_constant_copy(kjit__spec *s, size_t i)
{
	kjit__arg *c = new_arg(s), *a = &s->args[i];
	if (!c)
		return nomem();
	c->name = strdup(a->name);
	c->type = strdup(a->type);
	c->length = strdup(a->length);
	c->components = a->components;
	c->custom_size = a->custom_size;
	c->symbol = 1;
	c->access = KJIT__IN;
	c->output = 0;
	if (!c->name || !c->type || !c->length)
		return nomem();
	return data_copy(&c->data, &a->data);
}

static kjit_status read_t1_arg(parser *P, json *v, const char *path, size_t index,
                               kjit__buf *local)
{
	static const char *const keys[] = { "Name", "Type", "Size", "TypeSize", "FillType",
		                            "FillValue", "DataSource", "RandomSeed", "AccessType",
		                            "MemoryType", "MemType", "Output", NULL };
	static const char *const mems[] = { "Scalar", "Vector", "Symbol", "Local", NULL };
	static const char *const accesses[] = { "ReadOnly", "WriteOnly", "ReadWrite", NULL };
	kjit__spec *s = P->spec;
	char sub[256], *text = NULL;
	size_t bytes = 0, i = s->n_args;
	kjit__arg *a = new_arg(s);
	if (!a)
		return nomem();
	kjit_status st = want_object(P, v, path, 1, "an argument object");
	if (st == KJIT_OK)
		st = check_keys(P, v, path, keys);
	if (st != KJIT_OK)
		return st;
	json *memtype = kjit__json_get(v, "MemType"), *mem = kjit__json_get(v, "MemoryType");
	key_path(sub, path, "MemoryType");
	int m = mem && mem->type == KJIT__JSON_STRING ? one_of(mem->text, mems) : -1;
	if (m < 0)
		return fail_got(P, sub, mem, "Scalar, Vector, Symbol or Local");
	int constant = 0;
	if (memtype) {
		key_path(sub, path, "MemType");
		if (memtype->type != KJIT__JSON_STRING)
			return fail_got(P, sub, memtype, "a string (Constant)");
		constant = strcmp(memtype->text, "Constant") == 0;
		if (!constant && (st = warn(P, sub, "\"%s\" is not Constant, ignored", memtype->text)) !=
		                         KJIT_OK)
			return st;
	}
	/* a symbol's name is the module variable's */
	key_path(sub, path, "Name");
	if ((st = want_string(P, kjit__json_get(v, "Name"), sub, m == 2 || constant, &a->name)) !=
	    KJIT_OK)
		return st;
	if (!a->name && !(a->name = kjit__strdup_printf("arg%zu", index)))
		return nomem();
	if ((st = t1_type(P, v, path, a, &bytes)) != KJIT_OK)
		return st;
	json *out = kjit__json_get(v, "Output");
	if (out) {
		int o;
		if ((st = want_bool(P, out, key_path(sub, path, "Output"), 0, &o)) != KJIT_OK)
			return st;
		a->output = o;
	}
	key_path(sub, path, "AccessType");
	if ((st = want_string(P, kjit__json_get(v, "AccessType"), sub, 0, &text)) != KJIT_OK)
		return st;
	int acc = text ? one_of(text, accesses) : m == 2 ? 0 : 2; /* KTT: ReadWrite */
	if (acc < 0)
		st = fail(P, sub, "ReadOnly, WriteOnly or ReadWrite (got \"%s\")", text);
	free(text);
	if (st != KJIT_OK)
		return st;
	a->access = acc == 0 ? KJIT__IN : acc == 1 ? KJIT__OUT : KJIT__INOUT;
	if (m == 0) {
		key_path(sub, path, "FillValue");
		if ((st = want_expr(P, kjit__json_get(v, "FillValue"), sub, NULL, &a->value)) != KJIT_OK)
			return st;
		return check_t1_expr(P, a->value, sub);
	}
	key_path(sub, path, "Size");
	if ((st = want_expr(P, kjit__json_get(v, "Size"), sub, m == 2 ? "1" : NULL, &a->length)) !=
	            KJIT_OK ||
	    (st = check_t1_expr(P, a->length, sub)) != KJIT_OK)
		return st;
	if (m == 3) {
		/* KTT: local memory is the launch's dynamic shared memory, not an
		 * argument of a CUDA kernel */
		char num[32];
		snprintf(num, sizeof num, "%zu", bytes);
		kjit__buf_str(local, " + (");
		kjit__buf_str(local, a->length);
		kjit__buf_str(local, ") * ");
		kjit__buf_str(local, num);
		free_arg(a);
		s->n_args--;
		return KJIT_OK;
	}
	a->is_buffer = m == 1;
	a->symbol = m == 2;
	if ((st = t1_data(P, v, path, (uint64_t)index + 1, &a->data)) != KJIT_OK)
		return st;
	return constant && m == 1 ? add_constant_copy(s, i) : KJIT_OK;
}

/* ReferenceArguments: the expected contents of an argument after a run. */
static kjit_status read_t1_reference(parser *P, json *v, const char *path, size_t index)
{
	static const char *const keys[] = { "Name", "TargetName", "FillType", "FillValue",
		                            "DataSource", "RandomSeed", "ValidationMethod",
		                            "ValidationThreshold", NULL };
	static const char *const methods[] = { "AbsoluteDifference", "SideBySideComparison",
		                               "SideBySideRelativeComparison", NULL };
	kjit__spec *s = P->spec;
	char sub[256], *name = NULL, *target = NULL, *method = NULL;
	kjit_status st = want_object(P, v, path, 1, "a reference argument object");
	if (st == KJIT_OK)
		st = check_keys(P, v, path, keys);
	if (st == KJIT_OK)
		st = want_string(P, kjit__json_get(v, "Name"), key_path(sub, path, "Name"), 1, &name);
	free(name);
	if (st == KJIT_OK)
		st = want_string(P, kjit__json_get(v, "TargetName"), key_path(sub, path, "TargetName"), 1,
		                 &target);
	kjit__arg *a = NULL;
	for (size_t i = 0; st == KJIT_OK && i < s->n_args; i++)
		if (strcmp(s->args[i].name, target) == 0 && (!a || a->symbol))
			a = &s->args[i];
	if (st == KJIT_OK && !a)
		st = fail(P, sub, "the Name of a Vector or Symbol argument (got \"%s\": no such "
		          "argument)", target);
	else if (st == KJIT_OK && !a->is_buffer && !a->symbol)
		st = fail(P, sub, "the Name of a Vector or Symbol argument (got \"%s\", a Scalar)",
		          target);
	else if (st == KJIT_OK && a->has_reference)
		st = fail(P, sub, "one reference per argument (\"%s\" has one already)", target);
	free(target);
	if (st != KJIT_OK)
		return st;
	kjit__data d = { 0 };
	if (!kjit__json_get(v, "FillType"))
		return fail(P, key_path(sub, path, "FillType"), "Constant, Random, Generator or "
		            "BinaryRaw (missing)");
	if ((st = t1_data(P, v, path, (uint64_t)index + 1, &d)) != KJIT_OK) {
		free_data(&d);
		return st;
	}
	a->reference = d;
	a->has_reference = 1;
	a->output = 1;
	key_path(sub, path, "ValidationMethod");
	if ((st = want_string(P, kjit__json_get(v, "ValidationMethod"), sub, 0, &method)) != KJIT_OK)
		return st;
	/* KTT's defaults: side by side, 1e-4 */
	int k = method ? one_of(method, methods) : 1;
	if (k < 0)
		st = fail(P, sub, "AbsoluteDifference, SideBySideComparison or "
		          "SideBySideRelativeComparison (got \"%s\")", method);
	free(method);
	if (st != KJIT_OK)
		return st;
	a->check = k == 0 ? KJIT__CHECK_ABS_SUM : k == 1 ? KJIT__CHECK_SIDE_BY_SIDE
	                                                  : KJIT__CHECK_RELATIVE;
	json *t = kjit__json_get(v, "ValidationThreshold");
	key_path(sub, path, "ValidationThreshold");
	if ((st = want_number(P, t, sub, 1e-4, &a->threshold)) != KJIT_OK)
		return st;
	if (a->threshold < 0)
		return fail_got(P, sub, t, "a threshold of 0 or more");
	return KJIT_OK;
}

/* Search.Name: Kernel Tuner's, KTT's and kjit's own names of the
 * strategies kjit has. */
static const struct {
	const char *name, *strategy;
} t1_strategies[] = {
	{ "brute_force", "exhaustive" },   { "Deterministic", "exhaustive" },
	{ "exhaustive", "exhaustive" },    { "random_sample", "random" },
	{ "Random", "random" },            { "simulated_annealing", "annealing" },
	{ "dual_annealing", "dual_annealing" }, { "pso", "pso" },
	{ "MCMC", "annealing" },
	{ "annealing", "annealing" },      { "genetic_algorithm", "genetic" },
	{ "genetic", "genetic" },          { "bayes_opt", "surrogate" },
	{ "skopt", "surrogate" },          { "surrogate", "surrogate" },
};

const char *kjit__spec_strategy_name(const char *name)
{
	for (size_t i = 0; i < sizeof t1_strategies / sizeof t1_strategies[0]; i++)
		if (strcasecmp(name, t1_strategies[i].name) == 0)
			return t1_strategies[i].strategy;
	return NULL;
}

/* A budget value given as a number or as a numeric string (KTT writes
 * attribute values as strings). */
static int number_of(json *v, double *out)
{
	char *end;
	if (!v || (v->type != KJIT__JSON_NUMBER && v->type != KJIT__JSON_STRING))
		return 0;
	*out = strtod(v->text, &end);
	return end != v->text && !*end && isfinite(*out);
}

/* A strategy's option of a Search.Attributes entry (at path), as NAME=VALUE
 * for kjit-tune. */
static kjit_status add_strategy_option(parser *P, const char *path, const char *name,
                                       const char *value)
{
	kjit__spec *s = P->spec;
	if (s->n_strategy_options == KJIT__SPEC_STRATEGY_OPTIONS_MAX)
		return fail(P, path, "at most %d strategy options", KJIT__SPEC_STRATEGY_OPTIONS_MAX);
	char **o = realloc(s->strategy_options, (s->n_strategy_options + 1) * sizeof *o);
	if (!o)
		return nomem();
	s->strategy_options = o;
	if (!(o[s->n_strategy_options] = kjit__strdup_printf("%s=%s", name, value)))
		return nomem();
	s->n_strategy_options++;
	return KJIT_OK;
}

static kjit_status read_t1_search(parser *P, json *v)
{
	static const char *const keys[] = { "Name", "Attributes", NULL };
	static const char *const attr_keys[] = { "Name", "Value", NULL };
	kjit__spec *s = P->spec;
	char sub[256], *name = NULL;
	kjit_status st = want_object(P, v, "Search", 0, "an object with a Name");
	if (st != KJIT_OK || !v)
		return st;
	if ((st = check_keys(P, v, "Search", keys)) != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(v, "Name"), "Search.Name", 0, &name)) != KJIT_OK)
		return st;
	if (!name) /* KTT writes "Search": {} */
		return warn(P, "Search", "no Name: kjit-tune's default strategy is used");
	const char *strategy = kjit__spec_strategy_name(name);
	if (strategy && !(s->strategy = strdup(strategy)))
		st = nomem();
	if (st == KJIT_OK && !strategy)
		st = warn(P, "Search.Name", "\"%s\" has no kjit counterpart; kjit-tune's default "
		          "strategy is used", name);
	free(name);
	json *attrs = kjit__json_get(v, "Attributes");
	if (st == KJIT_OK && attrs && attrs->type != KJIT__JSON_ARRAY)
		st = fail_got(P, "Search.Attributes", attrs, "an array of {Name, Value}");
	for (size_t i = 0; st == KJIT_OK && attrs && i < attrs->n; i++) {
		json *at = &attrs->items[i], *value = kjit__json_get(at, "Value");
		char *an = NULL;
		double d;
		index_path(sub, "Search.Attributes", i);
		if ((st = want_object(P, at, sub, 1, "an object with Name and Value")) != KJIT_OK ||
		    (st = check_keys(P, at, sub, attr_keys)) != KJIT_OK)
			break;
		char np[256];
		if ((st = want_string(P, kjit__json_get(at, "Name"), key_path(np, sub, "Name"), 1,
		                      &an)) != KJIT_OK)
			break;
		/* Kernel Tuner's budgets among the strategy options */
		int fevals = strcmp(an, "max_fevals") == 0, limit = strcmp(an, "time_limit") == 0;
		key_path(np, sub, "Value");
		if ((fevals || limit) && (!number_of(value, &d) || d <= 0 ||
		                          (fevals && (d != floor(d) || d > 9e18))))
			st = fail_got(P, np, value, fevals ? "a positive integer" : "a positive number of "
			                                                          "seconds");
		else if (fevals)
			s->budget_evaluations = (int64_t)d;
		else if (limit)
			s->budget_seconds = d;
		else if (value && (value->type == KJIT__JSON_NUMBER || value->type == KJIT__JSON_STRING))
			st = add_strategy_option(P, sub, an, value->text);
		else
			st = warn(P, sub, "\"%s\": a Value that is not a number or a string is not "
			          "used, ignored", an);
		free(an);
	}
	return st;
}

/* Budget: the schema's array of {Type, BudgetValue}, or one such object
 * (BAT). */
static kjit_status read_t1_budget(parser *P, json *v)
{
	static const char *const keys[] = { "Type", "BudgetValue", NULL };
	static const char *const types[] = { "ConfigurationCount", "ConfigurationFraction",
		                             "TuningDuration", NULL };
	kjit__spec *s = P->spec;
	char sub[256], item[256];
	int seen[3] = { 0 };
	if (!v)
		return KJIT_OK;
	if (v->type != KJIT__JSON_ARRAY && v->type != KJIT__JSON_OBJECT)
		return fail_got(P, "Budget", v, "an array of {Type, BudgetValue}");
	size_t n = v->type == KJIT__JSON_ARRAY ? v->n : 1;
	for (size_t i = 0; i < n; i++) {
		json *b = v->type == KJIT__JSON_ARRAY ? &v->items[i] : v, *t, *val;
		kjit_status st;
		if (v->type == KJIT__JSON_ARRAY)
			index_path(item, "Budget", i);
		else
			snprintf(item, sizeof item, "Budget");
		if ((st = want_object(P, b, item, 1, "an object with Type and BudgetValue")) != KJIT_OK ||
		    (st = check_keys(P, b, item, keys)) != KJIT_OK)
			return st;
		t = kjit__json_get(b, "Type");
		key_path(sub, item, "Type");
		int k = t && t->type == KJIT__JSON_STRING ? one_of(t->text, types) : -1;
		if (k < 0)
			return fail_got(P, sub, t, "ConfigurationCount, ConfigurationFraction or "
			                           "TuningDuration");
		if (seen[k]++)
			return fail(P, sub, "one budget of each Type (%s repeats)", types[k]);
		val = kjit__json_get(b, "BudgetValue");
		key_path(sub, item, "BudgetValue");
		double d;
		if ((st = want_number(P, val, sub, NAN, &d)) != KJIT_OK)
			return st;
		if (k == 0 && !(d >= 1 && d == floor(d) && d < 9e18))
			return fail_got(P, sub, val, "a positive integer count of configurations");
		if (k == 1 && !(d > 0 && d <= 1))
			return fail_got(P, sub, val, "a fraction of the space in (0, 1]");
		if (k == 2 && !(d > 0))
			return fail_got(P, sub, val, "a positive number of seconds");
		if (k == 0)
			s->budget_evaluations = (int64_t)d;
		else if (k == 1)
			s->budget_fraction = d;
		else
			s->budget_seconds = d;
	}
	return KJIT_OK;
}

static kjit_status read_t1_general(parser *P, json *v)
{
	static const char *const keys[] = { "FormatVersion", "LoggingLevel", "TimeUnit",
		                            "OutputFile", "OutputFormat", "BenchmarkName", NULL };
	static const char *const units[] = { "Nanoseconds", "Microseconds", "Milliseconds",
		                             "Seconds", NULL };
	static const char *const unit_names[] = { "ns", "us", "ms", "s" };
	kjit__spec *s = P->spec;
	char *text = NULL;
	kjit_status st = want_object(P, v, "General", 0, "an object");
	if (st != KJIT_OK || !v)
		return st;
	if ((st = check_keys(P, v, "General", keys)) != KJIT_OK)
		return st;
	json *fv = kjit__json_get(v, "FormatVersion");
	if (fv && fv->type != KJIT__JSON_NUMBER && fv->type != KJIT__JSON_STRING)
		return fail_got(P, "General.FormatVersion", fv, "a number or a string");
	if ((st = want_string(P, kjit__json_get(v, "LoggingLevel"), "General.LoggingLevel", 0,
	                      &text)) != KJIT_OK)
		return st;
	free(text);
	if ((st = want_string(P, kjit__json_get(v, "BenchmarkName"), "General.BenchmarkName", 0,
	                      &text)) != KJIT_OK)
		return st;
	free(text);
	if ((st = want_string(P, kjit__json_get(v, "TimeUnit"), "General.TimeUnit", 0, &text)) !=
	    KJIT_OK)
		return st;
	int u = text ? one_of(text, units) : -1;
	if (text && u < 0)
		st = fail(P, "General.TimeUnit", "Nanoseconds, Microseconds, Milliseconds or Seconds "
		          "(got \"%s\")", text);
	else if (text && !(s->time_unit = strdup(unit_names[u])))
		st = nomem();
	free(text);
	if (st != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(v, "OutputFile"), "General.OutputFile", 0, &text)) !=
	            KJIT_OK)
		return st;
	/* KTT: a name without its extension, in the current directory */
	size_t len = text ? strlen(text) : 0;
	if (text && !(s->output_file = len >= 5 && strcmp(text + len - 5, ".json") == 0
	                               ? strdup(text) : kjit__strdup_printf("%s.json", text)))
		st = nomem();
	free(text);
	if (st != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(v, "OutputFormat"), "General.OutputFormat", 0,
	                      &text)) != KJIT_OK)
		return st;
	/* KTT writes JSON_T4 for what the schema calls JSON */
	if (text && strcmp(text, "XML") == 0)
		st = warn(P, "General.OutputFormat", "XML is not written: the results file is T4 JSON");
	else if (text && strcmp(text, "JSON") != 0 && strcmp(text, "JSON_T4") != 0)
		st = fail(P, "General.OutputFormat", "JSON, JSON_T4 or XML (got \"%s\")", text);
	free(text);
	return st;
}

/* Fields kjit reads and has no use for, said once. */
static kjit_status read_t1_unused(parser *P, json *ks)
{
	static const char *const device_keys[] = { "PlatformId", "DeviceId", "Name", NULL };
	json *device = kjit__json_get(ks, "Device"), *sim = kjit__json_get(ks, "SimulationInput");
	char *text = NULL;
	int profiling;
	kjit_status st = want_object(P, device, "KernelSpecification.Device", 0,
	                             "an object of PlatformId, DeviceId, Name");
	if (st == KJIT_OK)
		st = check_keys(P, device, "KernelSpecification.Device", device_keys);
	if (st == KJIT_OK && device)
		st = warn(P, "KernelSpecification.Device", "not used: kjit-tune tunes on the GPU it "
		          "runs on");
	if (st == KJIT_OK)
		st = want_bool(P, kjit__json_get(ks, "Profiling"), "KernelSpecification.Profiling", 0,
		               &profiling);
	if (st == KJIT_OK && profiling)
		st = warn(P, "KernelSpecification.Profiling", "not used: kjit-tune times kernels with "
		          "CUPTI activity records and collects no hardware counters");
	if (st == KJIT_OK)
		st = want_string(P, sim, "KernelSpecification.SimulationInput", 0, &text);
	free(text);
	if (st == KJIT_OK && sim)
		st = warn(P, "KernelSpecification.SimulationInput", "not used: kjit-tune measures on "
		          "the GPU (--replay runs a strategy on known results)");
	return st;
}

/* The kernel file: in the spec's folder, else where Kernel Tuner also
 * looks (the current directory, the spec folder's parent). */
static kjit_status t1_kernel_file(parser *P, const char *file)
{
	const char *slash = strrchr(P->file, '/');
	int dir = slash ? (int)(slash - P->file) : 0;
	char *cand[3] = { NULL, NULL, NULL };
	if (file[0] == '/') {
		cand[0] = strdup(file);
	} else {
		cand[0] = slash ? kjit__strdup_printf("%.*s/%s", dir, P->file, file) : strdup(file);
		cand[1] = strdup(file);
		cand[2] = slash ? kjit__strdup_printf("%.*s/../%s", dir, P->file, file)
		                : kjit__strdup_printf("../%s", file);
	}
	if (!cand[0] || (file[0] != '/' && (!cand[1] || !cand[2]))) {
		for (int i = 0; i < 3; i++)
			free(cand[i]);
		return nomem();
	}
	int pick = -1;
	for (int i = 0; i < 3 && pick < 0; i++)
		if (cand[i] && access(cand[i], R_OK) == 0)
			pick = i;
	/* said where it is needed: a space is counted without its kernel */
	if (pick < 0 &&
	    !(P->spec->source_missing = kjit__strdup_printf(
		      "%s: KernelSpecification.KernelFile: kernel file \"%s\" not found as %s%s%s%s%s",
		      P->file, file, cand[0], cand[1] ? ", " : "", cand[1] ? cand[1] : "",
		      cand[2] ? " or " : "", cand[2] ? cand[2] : ""))) {
		for (int i = 0; i < 3; i++)
			free(cand[i]);
		return nomem();
	}
	pick = pick < 0 ? 0 : pick;
	P->spec->source_path = cand[pick];
	for (int i = 0; i < 3; i++)
		if (i != pick)
			free(cand[i]);
	return KJIT_OK;
}

static kjit_status read_t1(parser *P)
{
	static const char *const top_keys[] = { "ConfigurationSpace", "KernelSpecification",
		                                "Search", "Budget", "General", NULL };
	static const char *const cs_keys[] = { "TuningParameters", "Conditions", NULL };
	static const char *const ks_keys[] = {
		"Language", "CompilerOptions", "Profiling", "KernelName", "KernelFile",
		"KernelTypeNames", "GlobalSizeType", "SharedMemory", "SimulationInput", "GlobalSize",
		"LocalSize", "Arguments", "ReferenceArguments", "Device", "ProblemSize", "GridDivX",
		"GridDivY", "GridDivZ", NULL
	};
	kjit__spec *s = P->spec;
	json *root = P->root, *cs, *ks, *v;
	char sub[256], *text = NULL, **types = NULL;
	size_t n_types = 0;
	t1_problem tp = { 0 };
	kjit__buf local = { 0 };
	kjit_status st = check_keys(P, root, "", top_keys);
	cs = kjit__json_get(root, "ConfigurationSpace");
	ks = kjit__json_get(root, "KernelSpecification");
	if (st != KJIT_OK ||
	    (st = want_object(P, cs, "ConfigurationSpace", 1, "an object")) != KJIT_OK ||
	    (st = check_keys(P, cs, "ConfigurationSpace", cs_keys)) != KJIT_OK ||
	    (st = want_object(P, ks, "KernelSpecification", 1, "an object")) != KJIT_OK ||
	    (st = check_keys(P, ks, "KernelSpecification", ks_keys)) != KJIT_OK)
		return st;

	v = kjit__json_get(cs, "TuningParameters");
	if (!v || v->type != KJIT__JSON_ARRAY || v->n == 0)
		return fail_got(P, "ConfigurationSpace.TuningParameters", v,
		                "a non-empty array of parameters");
	for (size_t i = 0; i < v->n; i++)
		if ((st = read_t1_param(P, &v->items[i], index_path(sub, "ConfigurationSpace."
		                                                     "TuningParameters", i))) != KJIT_OK)
			return st;
	if ((st = read_t1_conditions(P, kjit__json_get(cs, "Conditions"),
	                             "ConfigurationSpace.Conditions")) != KJIT_OK)
		return st;

	if ((st = want_string(P, kjit__json_get(ks, "Language"), "KernelSpecification.Language", 0,
	                      &text)) != KJIT_OK)
		return st;
	if (text && strcasecmp(text, "CUDA") != 0 &&
	    !(s->unrunnable = kjit__strdup_printf("%s: KernelSpecification.Language: %s kernels "
	                                          "are not run (kjit compiles and runs CUDA only)",
	                                          P->file, text)))
		st = nomem();
	free(text);
	if (st != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(ks, "KernelFile"), "KernelSpecification.KernelFile", 1,
	                      &text)) != KJIT_OK)
		return st;
	st = t1_kernel_file(P, text);
	free(text);
	if (st != KJIT_OK ||
	    (st = want_string(P, kjit__json_get(ks, "KernelName"), "KernelSpecification.KernelName", 1,
	                      &s->entry)) != KJIT_OK ||
	    (st = want_strings(P, kjit__json_get(ks, "KernelTypeNames"),
	                       "KernelSpecification.KernelTypeNames", &types, &n_types)) != KJIT_OK ||
	    (st = want_strings(P, kjit__json_get(ks, "CompilerOptions"),
	                       "KernelSpecification.CompilerOptions", &s->flags, &s->n_flags)) != KJIT_OK ||
	    (st = t1_include_dirs(P)) != KJIT_OK ||
	    (st = t1_options(P)) != KJIT_OK) {
		free_strings(types, n_types);
		return st;
	}
	if (n_types) {
		/* KTT: the template arguments of the kernel, name<T1, T2> */
		kjit__buf b = { 0 };
		kjit__buf_str(&b, s->entry);
		for (size_t i = 0; i < n_types; i++) {
			kjit__buf_str(&b, i ? ", " : "<");
			kjit__buf_str(&b, types[i]);
		}
		kjit__buf_str(&b, ">");
		free(s->entry);
		s->entry = kjit__buf_done(&b);
	}
	/* an empty list too: want_strings() allocates one */
	free_strings(types, n_types);
	if (!s->entry)
		return nomem();

	st = read_t1_problem(P, kjit__json_get(ks, "ProblemSize"), "KernelSpecification.ProblemSize",
	                     &tp);
	if (st == KJIT_OK)
		st = read_t1_geometry(P, ks, &tp);
	for (size_t i = 0; i < 3; i++)
		free(tp.size[i]);
	if (st != KJIT_OK ||
	    (st = check_t1_conditions(P, kjit__json_get(cs, "Conditions"),
	                              "ConfigurationSpace.Conditions")) != KJIT_OK ||
	    (st = want_expr(P, kjit__json_get(ks, "SharedMemory"), "KernelSpecification.SharedMemory",
	                    "0", &text)) != KJIT_OK)
		return st;
	if ((st = check_t1_expr(P, text, "KernelSpecification.SharedMemory")) != KJIT_OK) {
		free(text);
		return st;
	}
	v = kjit__json_get(ks, "Arguments");
	if (v && v->type != KJIT__JSON_ARRAY)
		st = fail_got(P, "KernelSpecification.Arguments", v, "an array of arguments");
	/* names are what references and symbols go by */
	for (size_t i = 0; st == KJIT_OK && v && i < v->n; i++) {
		json *ni = kjit__json_get(&v->items[i], "Name");
		for (size_t j = 0; ni && ni->type == KJIT__JSON_STRING && j < i; j++) {
			json *nj = kjit__json_get(&v->items[j], "Name");
			if (nj && nj->type == KJIT__JSON_STRING && strcmp(ni->text, nj->text) == 0) {
				char at[256];
				index_path(sub, "KernelSpecification.Arguments", i);
				st = fail(P, key_path(at, sub, "Name"), "a Name no other argument has "
				          "(\"%s\" repeats)", ni->text);
				break;
			}
		}
	}
	for (size_t i = 0; st == KJIT_OK && v && i < v->n; i++)
		st = read_t1_arg(P, &v->items[i], index_path(sub, "KernelSpecification.Arguments", i), i,
		                 &local);
	char *extra = kjit__buf_done(&local);
	if (st == KJIT_OK && !extra)
		st = nomem();
	if (st == KJIT_OK && !(s->shared = *extra ? kjit__strdup_printf("(%s)%s", text, extra)
	                                         : strdup(text)))
		st = nomem();
	free(extra);
	free(text);
	if (st != KJIT_OK)
		return st;

	v = kjit__json_get(ks, "ReferenceArguments");
	if (v && v->type != KJIT__JSON_ARRAY)
		return fail_got(P, "KernelSpecification.ReferenceArguments", v,
		                "an array of reference arguments");
	for (size_t i = 0; v && i < v->n; i++)
		if ((st = read_t1_reference(P, &v->items[i],
		                            index_path(sub, "KernelSpecification.ReferenceArguments", i),
		                            i)) != KJIT_OK)
			return st;
	if (!(s->verify = strdup(v && v->n ? "data" : "default")))
		return nomem();
	if ((st = read_t1_unused(P, ks)) != KJIT_OK ||
	    (st = read_t1_search(P, kjit__json_get(root, "Search"))) != KJIT_OK ||
	    (st = read_t1_budget(P, kjit__json_get(root, "Budget"))) != KJIT_OK)
		return st;
	return read_t1_general(P, kjit__json_get(root, "General"));
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
		if (!names)
			return nomem();
		for (size_t i = 0; i < pr->n; i++)
			names[i] = pr->names[i];
		for (size_t i = 0; i < s->n_params; i++)
			names[pr->n + i] = s->params[i].name;
		size_t r = s->n_restrictions;
		for (size_t i = 0; st == KJIT_OK && i < r + 9 + s->n_args; i++) {
			char what[96];
			const char *text;
			if (i < r) {
				text = s->restrictions[i];
				snprintf(what, sizeof what, "restrictions[%zu]", i);
			} else if (i < r + 3) {
				text = s->grid[i - r];
				snprintf(what, sizeof what, "grid[%zu]", i - r);
			} else if (i < r + 6) {
				text = s->block[i - r - 3];
				snprintf(what, sizeof what, "block[%zu]", i - r - 3);
			} else if (i == r + 6) {
				text = s->shared;
				snprintf(what, sizeof what, "shared_memory");
			} else if (i == r + 7) {
				text = s->bytes;
				snprintf(what, sizeof what, "objective.bytes");
			} else if (i == r + 8) {
				text = s->flops;
				snprintf(what, sizeof what, "objective.flops");
			} else {
				const kjit__arg *a = &s->args[i - r - 9];
				text = a->is_buffer || a->symbol ? a->length : a->value;
				snprintf(what, sizeof what, "arguments[%zu].%s", i - r - 9,
				         a->is_buffer || a->symbol ? "length" : "value");
			}
			if (text)
				st = check_expr(P, text, names, nn, what, NULL);
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
	char *doc = NULL;
	size_t len;
	*out = NULL;
	if (!(P.spec = calloc(1, sizeof *P.spec)) || !(P.spec->path = strdup(path)) ||
	    !(P.spec->expr_budget = kjit__expr_budget_new(KJIT__SPEC_EXPR_STEPS))) {
		kjit__spec_free(P.spec);
		return nomem();
	}
	if ((st = kjit__read_text(path, &doc, &len)) != KJIT_OK ||
	    (st = kjit__json_parse(doc, len, path, &P.root)) != KJIT_OK)
		goto done;
	if (P.root->type != KJIT__JSON_OBJECT) {
		st = fail(&P, "", "a JSON object");
		goto done;
	}
	P.t1 = kjit__json_get(P.root, "ConfigurationSpace") != NULL;
	P.spec->python = P.t1;
	if (!(P.spec->format = strdup(P.t1 ? "t1" : "kjit"))) {
		st = nomem();
		goto done;
	}
	P.spec->atol = 1e-6;
	P.spec->rtol = 1e-5;
	P.spec->max_threads = KJIT__MAX_THREADS_DEFAULT;
	P.spec->max_shared = KJIT__MAX_SHARED_DEFAULT;
	st = P.t1 ? read_t1(&P) : read_kjit(&P);
	for (int d = 0; st == KJIT_OK && d < 3; d++)
		if (!P.spec->grid[d] && !(P.spec->grid[d] = strdup("1")))
			st = nomem();
	if (st == KJIT_OK)
		st = P.t1 ? KJIT_OK : check_exprs(&P); /* STUBTEST */
	if (st == KJIT_OK && !P.t1)
		st = resolve(path, &P.spec->source_path);
	for (size_t i = 0; st == KJIT_OK && i < P.spec->n_link; i++)
		st = resolve(path, &P.spec->link_paths[i]);
	for (size_t i = 0; st == KJIT_OK && i < P.spec->n_args; i++) {
		st = resolve(path, &P.spec->args[i].data.file);
		if (st == KJIT_OK)
			st = resolve(path, &P.spec->args[i].reference.file);
	}
done:
	kjit__json_free(P.root);
	kjit__table_free(&P.names);
	free(doc);
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
	free(spec->source_missing);
	free(spec->entry);
	free_strings(spec->flags, spec->n_flags);
	free_strings(spec->include_dirs, spec->n_include_dirs);
	for (size_t i = 0; spec->headers && i < spec->n_headers; i++) {
		free((char *)spec->headers[i].name);
		free((char *)spec->headers[i].text);
	}
	free(spec->headers);
	free_strings(spec->link_paths, spec->n_link);
	free(spec->link_kinds);
	free_strings(spec->link_options, spec->n_link_options);
	for (size_t i = 0; spec->params && i < spec->n_params; i++) {
		for (size_t j = 0; j < spec->params[i].n_values; j++)
			free(spec->params[i].values[j].text);
		free(spec->params[i].values);
		free(spec->params[i].name);
	}
	free(spec->params);
	free_strings(spec->restrictions, spec->n_restrictions);
	for (int d = 0; d < 3; d++) {
		free(spec->grid[d]);
		free(spec->block[d]);
	}
	free(spec->shared);
	for (size_t i = 0; spec->problems && i < spec->n_problems; i++) {
		free_strings(spec->problems[i].names, spec->problems[i].n);
		free(spec->problems[i].values);
	}
	free(spec->problems);
	for (size_t i = 0; spec->args && i < spec->n_args; i++)
		free_arg(&spec->args[i]);
	free(spec->args);
	free(spec->verify);
	free(spec->reference_entry);
	free(spec->bytes);
	free(spec->flops);
	free(spec->strategy);
	free(spec->output_file);
	free(spec->unrunnable);
	free(spec->time_unit);
	free(spec->metric);
	free_strings(spec->warnings, spec->n_warnings);
	free_strings(spec->strategy_options, spec->n_strategy_options);
	kjit__expr_budget_free(spec->expr_budget);
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
