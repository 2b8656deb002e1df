/*
 * space.c - the constrained space of a problem: its configurations
 * enumerated depth first, stored or only counted; a configuration's
 * index; configurations and problems as JSON.
 *
 * Every restriction term, grid dimension, shared memory size and block
 * expression is parsed once and runs as soon as the last name it reads
 * is set, so a prefix that fails prunes every configuration below it.
 * A space too large to hold is refused or, when the caller asks, stood
 * for by a uniform random sample of its valid configurations.
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
	uint64_t steps;       /* nodes visited, max_steps at most */
	uint64_t max_steps;
	uint64_t deadline;    /* kjit__now_ns() the walk ends by, its checks not drawing on
	                       * the spec's budget; 0: none, they draw on it */
	int too_large;        /* the walk ran past its budget */
	uint64_t clock_ns;    /* an exact count's clock: deadline is its end */
	uint64_t clock_last;  /* past_deadline(): when it last read the clock, */
	uint64_t clock_mask;  /* and the steps between its readings, less one */
	/* a count by groups: the parameters that vary and the checks that run
	 * (NULL: all), and whether the thread limit is among them */
	const uint8_t *active;
	const uint8_t *check_on;
	int threads_on;
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
		if (w->check_on && !w->check_on[i])
			continue;
		const check *c = &w->checks[i];
		double v;
		kjit_status st = w->deadline ? kjit__expr_eval_own(c->expr, w->slots, &v)
		                             : kjit__expr_eval(c->expr, w->slots, &v);
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
	if (*ok && depth == w->threads_depth && (!w->check_on || w->threads_on))
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
	if (w->size == KJIT__SPACE_HOLD) {
		w->too_large = 1;
		return KJIT_ERR_NOMEM;
	}
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

/* Whether the walk's clock has run out. The clock is read every
 * clock_mask + 1 steps: rarely while steps are quick, every step once
 * one is slow (a check that loops over a range), so that a walk ends
 * within one evaluation of its deadline. */
static int past_deadline(walker *w)
{
	if (!w->deadline || (w->steps & w->clock_mask))
		return 0;
	uint64_t now = kjit__now_ns();
	if (now - w->clock_last > 1000000u)
		w->clock_mask = 0;
	else if (now - w->clock_last < 50000u && w->clock_mask < 0xff)
		w->clock_mask = 2 * w->clock_mask + 1;
	w->clock_last = now;
	return now > w->deadline;
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
	size_t n_values = w->active && !w->active[depth] ? 1 : p->n_values;
	for (size_t v = 0; v < n_values; v++) {
		int ok;
		if (++w->steps > w->max_steps || past_deadline(w)) {
			w->too_large = 1;
			return KJIT_ERR_NOMEM;
		}
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

/* Readies w (zeroed by the caller, freed with walker_free()) for a walk
 * of problem p; *ok: the checks that read problem sizes only pass. */
static kjit_status walk_prepare(walker *w, const kjit__spec *spec, size_t p,
                                const kjit__limits *limits, int store, int *ok)
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
	*ok = 0;
	return st == KJIT_OK ? run_checks(w, -1, ok) : st;
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

/* Sized once for every configuration it may hold: no insert moves
 * another. */
static kjit_status build_index(kjit__space *s)
{
	kjit_status st = kjit__table_reserve(&s->index, s->capacity, hash_of, s);
	for (size_t i = 0; st == KJIT_OK && i < s->size; i++)
		st = kjit__table_insert(&s->index, hash_of(s, i + 1), i + 1, hash_of, s);
	return st;
}


/* ---- a sample of a space too large to hold -------------------------------- */

/* The draws of a sample: kjit__splitmix() outputs from seed, j counting. */
typedef struct draws {
	uint64_t seed, j;
} draws;

static uint64_t held_hash(const void *ctx, uintptr_t item)
{
	const walker *w = ctx;
	return config_hash(w->configs + (item - 1) * w->spec->n_params, w->spec->n_params);
}

static int held_is_cur(const void *ctx, uintptr_t item)
{
	const walker *w = ctx;
	size_t n = w->spec->n_params;
	return memcmp(w->configs + (item - 1) * n, w->cur, n * sizeof *w->cur) == 0;
}

/* One draw of every parameter, the checks of each depth as it is set:
 * *ok 0 as soon as one fails (rejection keeps the sample uniform over
 * the valid configurations). */
static kjit_status draw(walker *w, draws *rng, int *ok)
{
	const kjit__spec *spec = w->spec;
	*ok = 1;
	for (size_t d = 0; d < spec->n_params && *ok; d++) {
		const kjit__param *p = &spec->params[d];
		size_t v = w->active && !w->active[d]
		           ? 0 : (size_t)(kjit__splitmix(rng->seed, rng->j++) % p->n_values);
		w->cur[d] = (uint16_t)v;
		w->slots[w->np + d] = p->values[v];
		w->steps++;
		kjit_status st = run_checks(w, (long)d, ok);
		if (st != KJIT_OK)
			return st;
	}
	return KJIT_OK;
}

/* Up to want distinct valid configurations drawn at random into w's
 * configurations, within KJIT__SPACE_STEPS. */
static kjit_status sample(walker *w, size_t want, uint64_t seed)
{
	kjit__table seen = { 0 };
	draws rng = { seed, 0 };
	kjit_status st = KJIT_OK;
	w->size = 0;
	w->steps = 0;
	w->too_large = 0;
	while (st == KJIT_OK && w->size < want && w->steps < KJIT__SPACE_STEPS) {
		int ok;
		st = draw(w, &rng, &ok);
		if (st != KJIT_OK || !ok)
			continue;
		uint64_t h = config_hash(w->cur, w->spec->n_params);
		if (kjit__table_find(&seen, h, held_is_cur, w))
			continue;
		st = keep(w);
		if (st == KJIT_OK)
			st = kjit__table_insert(&seen, h, w->size, held_hash, w);
	}
	kjit__table_free(&seen);
	return st;
}

/* ---- counting by groups -------------------------------------------------- */

/* A group too large to count exactly walks for a second or so, then is
 * estimated from random draws: as many as ESTIMATE_DRAWS, and in an exact
 * count's walk, which has run to its clock, as many as the groups' draws
 * together fit in a tenth of that clock past it (each group one at
 * least), for checks slow enough to make 2^16 draws a matter of hours. */
#define COUNT_STEPS 1000000u
#define ESTIMATE_DRAWS (1u << 16)

static size_t root_of(size_t *up, size_t i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

static void unite(size_t *up, size_t a, size_t b)
{
	a = root_of(up, a);
	b = root_of(up, b);
	if (a != b)
		up[a > b ? a : b] = a < b ? a : b;
}

/* up[] (n_params): the parameters that one check reads in one group, and
 * those that the thread limit reads in one; root[i] (n_checks): check
 * i's group, SIZE_MAX for one that reads no parameter (it ran once);
 * *threads: the thread limit's group, SIZE_MAX when it reads none. */
static kjit_status find_groups(const walker *w, size_t *up, size_t *root, size_t *threads)
{
	const kjit__spec *s = w->spec;
	size_t n = s->n_params, tg = SIZE_MAX;
	uint8_t *reads = malloc(w->np + n + 1);
	if (!reads)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t j = 0; j < n; j++)
		up[j] = j;
	for (size_t i = 0; i < w->n_checks; i++) {
		memset(reads, 0, w->np + n);
		kjit__expr_reads(w->checks[i].expr, reads, w->np + n);
		root[i] = SIZE_MAX;
		for (size_t j = 0; j < n; j++) {
			if (!reads[w->np + j])
				continue;
			if (root[i] == SIZE_MAX)
				root[i] = j;
			unite(up, j, root[i]);
			if (w->checks[i].kind == CHECK_BLOCK)
				unite(up, j, tg == SIZE_MAX ? (tg = j) : tg);
		}
	}
	unsigned block_roles = KJIT__ROLE_BLOCK_X | KJIT__ROLE_BLOCK_Y | KJIT__ROLE_BLOCK_Z;
	for (size_t j = 0; j < n && w->threads_depth > -2; j++)
		if (s->params[j].roles & block_roles)
			unite(up, j, tg == SIZE_MAX ? (tg = j) : tg);
	for (size_t i = 0; i < w->n_checks; i++)
		if (root[i] != SIZE_MAX)
			root[i] = root_of(up, root[i]);
	*threads = tg == SIZE_MAX ? SIZE_MAX : root_of(up, tg);
	free(reads);
	return KJIT_OK;
}

/* The count of group g: a walk (whole when exact and its product allows,
 * else within COUNT_STEPS), else an estimate from random draws (*rel:
 * its relative standard error, INFINITY when no draw was valid, *upper
 * then the count it is 95% sure is not passed). */
static kjit_status count_group(walker *w, size_t *up, const size_t *root, size_t threads,
                               size_t g, int exact, double *out, double *rel, double *upper)
{
	const kjit__spec *s = w->spec;
	size_t n = s->n_params;
	uint8_t *active = (uint8_t *)w->active, *on = (uint8_t *)w->check_on;
	w->deepest = -1;
	for (size_t j = 0; j < n; j++)
		active[j] = root_of(up, j) == g;
	for (size_t i = 0; i < w->n_checks; i++)
		if ((on[i] = root[i] == g) && w->checks[i].depth > w->deepest)
			w->deepest = w->checks[i].depth;
	w->threads_on = threads == g;
	if (w->threads_on && w->threads_depth > w->deepest)
		w->deepest = w->threads_depth;
	w->tail[n] = 1;
	for (size_t j = n; j-- > 0;)
		w->tail[j] = w->tail[j + 1] * (active[j] ? (double)s->params[j].n_values : 1);
	w->count = 0;
	w->too_large = 0;
	w->steps = 0;
	w->max_steps = exact && w->tail[0] <= KJIT__COUNT_EXACT_PRODUCT ? UINT64_MAX : COUNT_STEPS;
	*rel = 0;
	kjit_status st = walk(w, 0);
	if (!w->too_large) {
		*out = w->count;
		return st;
	}
	draws rng = { 0x6b6a6974u + g, 0 };
	uint64_t hits = 0, stop = w->deadline ? w->deadline + w->clock_ns / 10 : 0;
	uint32_t k = 0;
	while (k < ESTIMATE_DRAWS && (!k || !stop || kjit__now_ns() <= stop)) {
		int ok;
		if ((st = draw(w, &rng, &ok)) != KJIT_OK)
			return st;
		hits += (uint64_t)ok;
		k++;
	}
	double p = (double)hits / k;
	*out = w->tail[0] * p;
	/* every draw valid is no proof that every configuration is: an
	 * estimate keeps an error of at least one draw's share */
	*rel = hits ? fmax(sqrt((1 - p) / (double)hits), 1.0 / k) : INFINITY;
	/* none in N draws: p < 3 / N with 95% confidence */
	*upper = w->tail[0] * (hits ? p : fmin(1, 3.0 / k));
	return KJIT_OK;
}

/* kjit__space_count(); exact 0: walks only as long as a large group's
 * (a quick figure for deciding whether a space can be held). */
static kjit_status count_space(const kjit__spec *spec, size_t p, const kjit__limits *limits,
                               int exact, kjit__count *out)
{
	walker w = { 0 };
	int ok;
	size_t n = spec->n_params, threads = SIZE_MAX;
	kjit_status st = walk_prepare(&w, spec, p, limits, 0, &ok);
	size_t *up = calloc(n + 1, sizeof *up), *root = calloc(w.n_checks + 1, sizeof *root);
	uint8_t *active = calloc(n + 1, 1), *on = calloc(w.n_checks + 1, 1);
	uint8_t *checked = calloc(n + 1, 1);
	if (st == KJIT_OK && (!up || !root || !active || !on || !checked))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	memset(out, 0, sizeof *out);
	out->product = w.tail ? w.tail[0] : 0;
	out->valid = ok;
	out->upper = ok;
	if (st == KJIT_OK && ok)
		st = find_groups(&w, up, root, &threads);
	/* A group no check reads is one parameter, all of whose values stay:
	 * counted without a walk over all n, so that n of them cost O(n). */
	for (size_t i = 0; st == KJIT_OK && ok && i < w.n_checks; i++)
		if (root[i] != SIZE_MAX)
			checked[root[i]] = 1;
	if (threads != SIZE_MAX)
		checked[threads] = 1;
	w.active = active;
	w.check_on = on;
	w.clock_ns = limits && limits->count_ns ? limits->count_ns : KJIT__COUNT_NS;
	w.deadline = exact ? kjit__now_ns() + w.clock_ns : 0;
	double var = 0;
	for (size_t g = 0; st == KJIT_OK && ok && g < n; g++) {
		if (root_of(up, g) != g)
			continue;
		double c = (double)spec->params[g].n_values, rel = 0, upper = c;
		if (checked[g])
			st = count_group(&w, up, root, threads, g, exact, &c, &rel, &upper);
		out->valid *= c;
		out->upper *= rel > 0 ? upper : c;
		var += rel * rel;
	}
	out->rel_error = sqrt(var);
	if (out->rel_error == 0)
		out->upper = out->valid;
	walker_free(&w);
	free(up);
	free(root);
	free(active);
	free(on);
	free(checked);
	return st;
}

kjit_status kjit__space_count(const kjit__spec *spec, size_t p, const kjit__limits *limits,
                              kjit__count *out)
{
	return count_space(spec, p, limits, 1, out);
}

static _Thread_local size_t sort_width;

/* Lexicographic by value index, the order of a walk. */
static int cmp_config(const void *a, const void *b)
{
	const uint16_t *x = a, *y = b;
	for (size_t i = 0; i < sort_width; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Whether the count of the space says it is too large to hold, so that
 * its walk need not hold KJIT__SPACE_HOLD configurations to find out (an
 * estimate: when its interval is all above). */
static int surely_too_large(const kjit__spec *spec, size_t p, const kjit__limits *limits)
{
	kjit__count c;
	if (count_space(spec, p, limits, 0, &c) != KJIT_OK)
		return 0; /* the walk will say what is wrong */
	return c.valid * (1 - 3 * c.rel_error) > (double)KJIT__SPACE_HOLD;
}

/* A sample keeps its walker's checks, and room for KJIT__SPACE_GROW more
 * rows, for kjit__space_add(); w is left empty. */
static kjit_status keep_checks(kjit__space *s, walker *w)
{
	size_t n = s->n_params ? s->n_params : 1, cap = s->size + KJIT__SPACE_GROW;
	uint16_t *c = realloc(s->configs, cap * n * sizeof *c);
	walker *g = malloc(sizeof *g);
	if (!c || !g) {
		free(g);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	s->configs = c;
	s->capacity = cap;
	*g = *w;
	memset(w, 0, sizeof *w);
	s->grow = g;
	return KJIT_OK;
}

kjit_status kjit__space_build(const kjit__spec *spec, size_t p, const kjit__limits *limits,
                              kjit__space **out)
{
	walker w = { 0 };
	kjit__space *s = calloc(1, sizeof *s);
	int ok = 0;
	*out = NULL;
	kjit_status st = s ? walk_prepare(&w, spec, p, limits, 1, &ok)
	                   : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	w.max_steps = KJIT__SPACE_STEPS;
	if (st == KJIT_OK && ok && spec->n_params && w.tail[0] > (double)KJIT__SPACE_HOLD &&
	    surely_too_large(spec, p, limits))
		w.too_large = 1;
	else if (st == KJIT_OK && ok && spec->n_params)
		st = walk(&w, 0);
	if (w.too_large && limits && limits->sample) {
		s->sampled = 1;
		st = sample(&w, limits->sample, limits->seed);
		if (st == KJIT_OK && !w.size)
			st = kjit__error(KJIT_ERR_INVALID_ARG, "no valid configuration in %llu random "
			                 "draws of a space of %.3g configurations (the restrictions "
			                 "leave too few to sample)", (unsigned long long)w.steps,
			                 w.tail[0]);
	} else if (w.too_large) {
		st = kjit__error(KJIT_ERR_INVALID_ARG, "the space is too large to hold whole (more "
		                 "than %zu valid configurations, or more than %u steps to enumerate; "
		                 "its product is %.3g): give a budget, so that a random sample of "
		                 "it is searched", KJIT__SPACE_HOLD, KJIT__SPACE_STEPS, w.tail[0]);
	}
	if (st == KJIT_OK) {
		s->spec = spec;
		s->problem = p;
		s->n_params = spec->n_params;
		s->product = w.tail[0];
		s->configs = w.configs;
		s->capacity = s->size = w.size;
		w.configs = NULL;
		if (s->sampled) {
			sort_width = s->n_params;
			qsort(s->configs, s->size, s->n_params * sizeof *s->configs, cmp_config);
			st = keep_checks(s, &w);
		}
		if (st == KJIT_OK)
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
	if (space->grow)
		walker_free(space->grow);
	free(space->grow);
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

int64_t kjit__space_add(const kjit__space *space, const uint16_t *config)
{
	int64_t j = kjit__space_find(space, config);
	walker *w = space->grow;
	size_t n = space->n_params;
	if (j >= 0 || !w || space->size >= space->capacity)
		return j;
	/* the checks of each depth as its value is set, as a draw runs them */
	int ok = 1;
	for (size_t d = 0; d < n && ok; d++) {
		const kjit__param *p = &space->spec->params[d];
		if (config[d] >= p->n_values)
			return -1;
		w->cur[d] = config[d];
		w->slots[w->np + d] = p->values[config[d]];
		if (run_checks(w, (long)d, &ok) != KJIT_OK)
			return -1;
	}
	if (!ok)
		return -1;
	kjit__space *s = (kjit__space *)space; /* grows; see tuning.h */
	memcpy(s->configs + s->size * n, config, n * sizeof *config);
	if (kjit__table_insert(&s->index, config_hash(config, n), s->size + 1, hash_of, s) !=
	    KJIT_OK)
		return -1;
	return (int64_t)s->size++;
}

int kjit__config_indices(const kjit__spec *spec, kjit_space_text_fn value, void *ctx,
                         uint16_t *config)
{
	int valid = 1;
	for (size_t i = 0; i < spec->n_params; i++) {
		const char *v = value(ctx, i);
		long k = v ? kjit__param_value_index(&spec->params[i], v) : -1;
		valid &= k >= 0;
		config[i] = (uint16_t)(k < 0 ? 0 : k);
	}
	return valid;
}

typedef struct json_config {
	const kjit__json *obj;
	const kjit__spec *spec;
} json_config;

static const char *json_config_value(void *ctx, size_t i)
{
	json_config *c = ctx;
	return kjit__json_scalar_text(kjit__json_get(c->obj, c->spec->params[i].name));
}

int kjit__config_from_json(const kjit__spec *spec, const kjit__json *obj, uint16_t *config)
{
	json_config c = { obj, spec };
	return kjit__config_indices(spec, json_config_value, &c, config);
}

int64_t kjit__space_match(const kjit__space *space, kjit_space_text_fn value, void *ctx,
                          uint16_t *config)
{
	return kjit__config_indices(space->spec, value, ctx, config)
	       ? kjit__space_find(space, config) : -1;
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
 * order[]. */
static char *config_json(const kjit__space *space, size_t index, const size_t *order)
{
	const kjit__spec *spec = space->spec;
	const uint16_t *c = kjit__space_config(space, index);
	kjit__buf b = { 0 };
	kjit__buf_add(&b, "{", 1);
	for (size_t k = 0; k < spec->n_params; k++) {
		size_t i = order[k];
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
