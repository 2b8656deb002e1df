/*
 * space.c - the constrained space of a problem: its configurations
 * enumerated depth first, stored or only counted; a configuration's
 * index; configurations and problems as JSON.
 *
 * Every restriction term, grid dimension, shared memory size and block
 * expression is parsed once and runs as soon as the last name it reads
 * is set, so a prefix that fails prunes every configuration below it.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

/* What a check's value must be for the configuration to stay. */
typedef enum {
	CHECK_TRUE,   /* a restriction term: true (non-zero) */
	CHECK_GRID,   /* a grid dimension: 1 to 2^31 - 1 */
	CHECK_SHARED, /* dynamic shared memory: 0 to the limit */
	CHECK_BLOCK   /* a block dimension (T1 LocalSize): an integer, 1 to 2^31 - 1 */
} check_kind;

/* An expression that runs once the parameter at its depth is set. */
typedef struct check {
	kjit__expr *expr;
	long depth; /* -1: reads problem sizes only */
	check_kind kind;
	int dim;    /* CHECK_BLOCK: its dimension */
} check;

typedef struct walker {
	const kjit__spec *spec;
	const kjit__problem *prob;
	kjit__limits limits;
	size_t np;            /* problem slots come first, then the parameters' */
	kjit__value *slots;
	check *checks;        /* ordered by depth */
	size_t n_checks;
	size_t *first;        /* checks of depth d: [first[d + 1], first[d + 2]) */
	long threads_depth;   /* where block x*y*z is known; -2: nothing sets a block */
	long deepest;         /* no check runs deeper */
	int64_t block[3];     /* block expressions' values on the current path */
	double *tail;         /* tail[d]: the product of the value counts from d on */
	int store;            /* 1: keep each configuration; 0: count them */
	uint16_t *cur;
	uint16_t *configs;
	size_t size, cap;
	double count;
} walker;

/* *acc *= f, when f >= 1 and the product stays within max (*acc >= 1). */
static int mul_within(int64_t *acc, int64_t f, int64_t max)
{
	if (f < 1 || *acc > max / f)
		return 0;
	*acc *= f;
	return 1;
}

/* Block x*y*z of the current path within the threads-per-block limit:
 * a dimension from its block expression when it has one, else from the
 * parameters with its role. A product past the limit is invalid, never
 * computed. */
static int threads_within(const walker *w)
{
	const kjit__spec *s = w->spec;
	int64_t threads = 1;
	for (int d = 0; d < 3; d++) {
		if (s->block[d]) {
			if (!mul_within(&threads, w->block[d], w->limits.max_threads))
				return 0;
			continue;
		}
		for (size_t j = 0; j < s->n_params; j++)
			if ((s->params[j].roles & (KJIT__ROLE_BLOCK_X << d)) &&
			    !mul_within(&threads, s->params[j].values[w->cur[j]].i,
			                w->limits.max_threads))
				return 0;
	}
	return 1;
}

/* An evaluation's error, with the problem and the values set so far. */
static kjit_status eval_fail(const walker *w, long depth, kjit_status st)
{
	kjit__buf b = { 0 };
	const char *sep = " (with ";
	kjit__buf_str(&b, kjit__error_msg());
	for (size_t i = 0; i < w->prob->n; i++, sep = ", ") {
		char num[32];
		snprintf(num, sizeof num, "=%lld", (long long)w->prob->values[i]);
		kjit__buf_str(&b, sep);
		kjit__buf_str(&b, w->prob->names[i]);
		kjit__buf_str(&b, num);
	}
	for (long d = 0; d <= depth; d++, sep = ", ") {
		const kjit__param *p = &w->spec->params[d];
		kjit__buf_str(&b, sep);
		kjit__buf_str(&b, p->name);
		kjit__buf_str(&b, "=");
		kjit__buf_str(&b, p->values[w->cur[d]].text);
	}
	if (w->prob->n || depth >= 0)
		kjit__buf_str(&b, ")");
	char *msg = kjit__buf_done(&b);
	return msg ? kjit__error_take(st, msg) : st;
}

static kjit_status run_checks(walker *w, long depth, int *ok)
{
	*ok = 1;
	for (size_t i = w->first[depth + 1]; i < w->first[depth + 2] && *ok; i++) {
		const check *c = &w->checks[i];
		double v;
		kjit_status st = kjit__expr_eval(c->expr, w->slots, &v);
		if (st != KJIT_OK)
			return eval_fail(w, depth, st);
		/* NaN (a division by zero) fails every comparison below */
		switch (c->kind) {
		case CHECK_TRUE:
			*ok = !isnan(v) && v != 0;
			break;
		case CHECK_GRID:
			*ok = v >= 1 && v <= 2147483647.0;
			break;
		case CHECK_SHARED:
			*ok = v >= 0 && v <= (double)w->limits.max_shared;
			break;
		case CHECK_BLOCK:
			*ok = v >= 1 && v <= 2147483647.0 && v == floor(v);
			if (*ok)
				w->block[c->dim] = (int64_t)v;
			break;
		}
	}
	if (*ok && depth == w->threads_depth)
		*ok = threads_within(w);
	return KJIT_OK;
}

/* Parses text into checks of kind: a restriction gives one per term (each
 * runs as soon as its own names are set), anything else one. */
static kjit_status add_checks(walker *w, const char *const *names, const char *text,
                              const char *what, check_kind kind, int dim)
{
	const kjit__spec *s = w->spec;
	kjit__expr *e = NULL, **terms = &e;
	size_t n = 1;
	kjit_status st = kjit__expr_parse(text, s->python ? KJIT__DIALECT_PYTHON : KJIT__DIALECT_KJIT,
	                                  names, w->np + s->n_params, what, s->expr_budget, &e);
	if (st != KJIT_OK)
		return st;
	if (kind == CHECK_TRUE) {
		st = kjit__expr_split(e, &terms, &n);
		kjit__expr_free(e);
		if (st != KJIT_OK)
			return st;
	}
	check *c = n <= SIZE_MAX / sizeof *c - w->n_checks
	                   ? realloc(w->checks, (w->n_checks + n) * sizeof *c)
	                   : NULL;
	if (c)
		w->checks = c;
	else
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (st != KJIT_OK) {
			kjit__expr_free(terms[i]);
			continue;
		}
		c = &w->checks[w->n_checks++];
		c->expr = terms[i];
		c->kind = kind;
		c->dim = dim;
		c->depth = kjit__expr_max_slot(terms[i]) - (long)w->np;
		if (c->depth < -1)
			c->depth = -1;
	}
	if (terms != &e)
		free(terms);
	return st;
}

/* Every check of the spec for the walk, ordered by depth (stably: the
 * spec's order within a depth), with where the thread count is known. */
static kjit_status plan(walker *w, const char *const *names)
{
	const kjit__spec *s = w->spec;
	kjit_status st = KJIT_OK;
	w->threads_depth = -2;
	for (size_t i = 0; st == KJIT_OK && i < s->n_restrictions + 7; i++) {
		char what[64];
		size_t r = i - s->n_restrictions;
		if (i < s->n_restrictions) {
			/* named in the file's own terms */
			snprintf(what, sizeof what, s->python ? "ConfigurationSpace.Conditions[%zu]"
			                                      : "restrictions[%zu]", i);
			st = add_checks(w, names, s->restrictions[i], what, CHECK_TRUE, 0);
		} else if (r < 3) {
			snprintf(what, sizeof what, "grid[%zu]", r);
			st = add_checks(w, names, s->grid[r], what, CHECK_GRID, 0);
		} else if (r == 3) {
			st = add_checks(w, names, s->shared, "shared_memory", CHECK_SHARED, 0);
		} else if (s->block[r - 4]) {
			snprintf(what, sizeof what, "block[%zu]", r - 4);
			st = add_checks(w, names, s->block[r - 4], what, CHECK_BLOCK, (int)(r - 4));
			if (st == KJIT_OK && w->checks[w->n_checks - 1].depth > w->threads_depth)
				w->threads_depth = w->checks[w->n_checks - 1].depth;
		}
	}
	if (st != KJIT_OK)
		return st;
	for (size_t j = 0; j < s->n_params; j++)
		for (int d = 0; d < 3; d++)
			if (!s->block[d] && (s->params[j].roles & (KJIT__ROLE_BLOCK_X << d)))
				w->threads_depth = (long)j;
	for (size_t i = 1; i < w->n_checks; i++) {
		check c = w->checks[i];
		size_t j = i;
		for (; j > 0 && w->checks[j - 1].depth > c.depth; j--)
			w->checks[j] = w->checks[j - 1];
		w->checks[j] = c;
	}
	w->deepest = w->threads_depth > -1 ? w->threads_depth : -1;
	for (size_t i = 0, d = 0; d < s->n_params + 2; d++) {
		while (i < w->n_checks && w->checks[i].depth + 1 < (long)d)
			i++;
		w->first[d] = i;
	}
	if (w->n_checks && w->checks[w->n_checks - 1].depth > w->deepest)
		w->deepest = w->checks[w->n_checks - 1].depth;
	return KJIT_OK;
}

/* Appends the current configuration. */
static kjit_status keep(walker *w)
{
	size_t n = w->spec->n_params;
	if (w->size == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		if (cap < w->cap || cap > SIZE_MAX / (n * sizeof *w->configs))
			return kjit__error(KJIT_ERR_NOMEM, "the space has more configurations "
			                   "than this machine can hold (%zu so far)", w->size);
		uint16_t *c = realloc(w->configs, cap * n * sizeof *c);
		if (!c)
			return kjit__error(KJIT_ERR_NOMEM, "out of memory (a space of %zu configurations "
			                   "so far)", w->size);
		w->configs = c;
		w->cap = cap;
	}
	memcpy(w->configs + w->size * n, w->cur, n * sizeof *w->cur);
	w->size++;
	return KJIT_OK;
}

static kjit_status walk(walker *w, size_t depth)
{
	const kjit__spec *spec = w->spec;
	if (!w->store && (long)depth > w->deepest) {
		/* nothing reads this parameter or a later one: all their values stay */
		w->count += w->tail[depth];
		return KJIT_OK;
	}
	if (depth == spec->n_params)
		return keep(w);
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

static void walker_free(walker *w)
{
	for (size_t i = 0; i < w->n_checks; i++)
		kjit__expr_free(w->checks[i].expr);
	free(w->checks);
	free(w->first);
	free(w->tail);
	free(w->configs);
	free(w->cur);
	free(w->slots);
}

/* The walk of problem p, into w (zeroed by the caller, freed with
 * walker_free()): the configurations when store, else their count. */
static kjit_status space_walk(walker *w, const kjit__spec *spec, size_t p,
                              const kjit__limits *limits, int store)
{
	const kjit__problem *prob = &spec->problems[p];
	size_t n_names = prob->n + spec->n_params;
	w->spec = spec;
	w->prob = prob;
	w->np = prob->n;
	w->store = store;
	w->limits.max_threads = limits && limits->max_threads ? limits->max_threads : spec->max_threads;
	w->limits.max_shared = limits && limits->max_shared ? limits->max_shared : spec->max_shared;
	const char **names = calloc(n_names + 1, sizeof *names);
	w->slots = calloc(n_names + 1, sizeof *w->slots);
	w->cur = calloc(spec->n_params + 1, sizeof *w->cur);
	w->tail = calloc(spec->n_params + 1, sizeof *w->tail);
	w->first = calloc(spec->n_params + 2, sizeof *w->first);
	if (!names || !w->slots || !w->cur || !w->tail || !w->first) {
		free(names);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < prob->n; i++) {
		names[i] = prob->names[i];
		w->slots[i].kind = SQLITE_INTEGER;
		w->slots[i].i = prob->values[i];
		w->slots[i].d = (double)prob->values[i];
	}
	w->tail[spec->n_params] = 1;
	for (size_t i = spec->n_params; i-- > 0;) {
		names[prob->n + i] = spec->params[i].name;
		w->tail[i] = w->tail[i + 1] * (double)spec->params[i].n_values;
	}
	kjit_status st = plan(w, names);
	free(names);
	int ok;
	if (st == KJIT_OK)
		st = run_checks(w, -1, &ok);
	if (st == KJIT_OK && ok && spec->n_params)
		st = walk(w, 0);
	return st;
}

kjit_status kjit__space_count(const kjit__spec *spec, size_t p, const kjit__limits *limits,
                              double *product, double *size)
{
	walker w = { 0 };
	kjit_status st = space_walk(&w, spec, p, limits, 0);
	if (st == KJIT_OK) {
		*product = w.tail[0];
		*size = w.count;
	}
	walker_free(&w);
	return st;
}

static uint64_t config_hash(const uint16_t *c, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

static uint64_t hash_of(const void *ctx, uintptr_t item)
{
	const kjit__space *s = ctx;
	return config_hash(kjit__space_config(s, item - 1), s->n_params);
}

/* Sized once for every configuration: no insert moves another. */
static kjit_status build_index(kjit__space *s)
{
	kjit_status st = kjit__table_reserve(&s->index, s->size, hash_of, s);
	for (size_t i = 0; st == KJIT_OK && i < s->size; i++)
		st = kjit__table_insert(&s->index, hash_of(s, i + 1), i + 1, hash_of, s);
	return st;
}


kjit_status kjit__space_build(const kjit__spec *spec, size_t p, const kjit__limits *limits,
                              kjit__space **out)
{
	walker w = { 0 };
	kjit__space *s = calloc(1, sizeof *s);
	*out = NULL;
	kjit_status st = s ? space_walk(&w, spec, p, limits, 1)
	                   : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st == KJIT_OK) {
		s->spec = spec;
		s->problem = p;
		s->n_params = spec->n_params;
		s->product = w.tail[0];
		s->configs = w.configs;
		s->size = w.size;
		w.configs = NULL;
		st = build_index(s);
	}
	walker_free(&w);
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
	kjit__table_free(&space->index);
	free(space);
}

const uint16_t *kjit__space_config(const kjit__space *space, size_t index)
{
	return space->configs + index * space->n_params;
}

typedef struct probe {
	const kjit__space *space;
	const uint16_t *config;
} probe;

static int is_config(const void *ctx, uintptr_t item)
{
	const probe *p = ctx;
	return memcmp(kjit__space_config(p->space, item - 1), p->config,
	              p->space->n_params * sizeof *p->config) == 0;
}

int64_t kjit__space_find(const kjit__space *space, const uint16_t *config)
{
	probe p = { space, config };
	uintptr_t item = kjit__table_find(&space->index, config_hash(config, space->n_params),
	                                  is_config, &p);
	return item ? (int64_t)(item - 1) : -1;
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
