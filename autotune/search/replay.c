/*
 * replay.c - the search driver, run against known results: the objective
 * of every configuration is looked up instead of measured, so strategies
 * can be compared, and the tuner tested, with no GPU. A batch of B
 * proposals stands for B measuring workers: results arrive in a seeded
 * order, so that a strategy meets out-of-order reports as in a real run.
 * With the costs of each configuration's compile and measurement, a
 * simulated clock runs instead: P compile workers and G GPUs, and the
 * results arrive as they would on them.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"


int kt_budget_limited(const kt_budget *b)
{
	return b && (b->evaluations || b->fraction > 0 || b->seconds > 0);
}

size_t kt_budget_evaluations(const kt_budget *b, size_t space_size)
{
	size_t n = space_size;
	if (b && b->evaluations && b->evaluations < n)
		n = b->evaluations;
	if (b && b->fraction > 0) {
		size_t f = (size_t)ceil(b->fraction * (double)space_size);
		if (f < n)
			n = f;
	}
	return n;
}

kjit_status kt_replay_run(const kjit__space *space, const kjit_strategy *strategy,
                          const kt_budget *budget, uint64_t seed,
                          const double *objective, kt_replay_result *out)
{
	kt_replay_opts o = { .budget = budget, .seed = seed };
	return kt_replay(space, strategy, &o, objective, out);
}

/* The simulated clock: the distinct configurations outstanding as jobs
 * that wait for a compile worker, compile, wait for a GPU, are measured. */
enum { WAIT_COMPILE, COMPILING, WAIT_GPU, MEASURING };
typedef struct sim {
	const double *compile_ms, *measure_ms;
	size_t workers, gpus;
	double now;                       /* seconds */
	int64_t job[KJIT_SEARCH_BATCH_MAX];        /* in the order they were proposed */
	uint8_t stage[KJIT_SEARCH_BATCH_MAX];
	double end[KJIT_SEARCH_BATCH_MAX];         /* of the compile or the measurement; for
	                                   * WAIT_GPU, when the compile ended */
	size_t n;
} sim;

/* Starts what a free compile worker or GPU can take now. */
static void sim_start(sim *c)
{
	size_t compiling = 0, measuring = 0;
	for (size_t i = 0; i < c->n; i++) {
		compiling += c->stage[i] == COMPILING;
		measuring += c->stage[i] == MEASURING;
	}
	for (size_t i = 0; i < c->n && compiling < c->workers; i++)
		if (c->stage[i] == WAIT_COMPILE) {
			c->stage[i] = COMPILING;
			c->end[i] = c->now + c->compile_ms[c->job[i]] * 1e-3;
			compiling++;
		}
	while (measuring < c->gpus) {
		size_t first = c->n;  /* the compile that ended first */
		for (size_t i = 0; i < c->n; i++)
			if (c->stage[i] == WAIT_GPU && (first == c->n || c->end[i] < c->end[first]))
				first = i;
		if (first == c->n)
			break;
		c->stage[first] = MEASURING;
		c->end[first] = c->now + c->measure_ms[c->job[first]] * 1e-3;
		measuring++;
	}
}

/* Runs the clock to the next measurement that ends and returns its
 * configuration; c->n > 0. */
static int64_t sim_arrive(sim *c)
{
	for (;;) {
		sim_start(c);
		size_t next = c->n;
		for (size_t i = 0; i < c->n; i++)
			if ((c->stage[i] == COMPILING || c->stage[i] == MEASURING) &&
			    (next == c->n || c->end[i] < c->end[next]))
				next = i;
		c->now = c->end[next];
		if (c->stage[next] == COMPILING) {
			c->stage[next] = WAIT_GPU;
			continue;
		}
		int64_t j = c->job[next];
		c->n--;
		memmove(c->job + next, c->job + next + 1, (c->n - next) * sizeof *c->job);
		memmove(c->stage + next, c->stage + next + 1, (c->n - next) * sizeof *c->stage);
		memmove(c->end + next, c->end + next + 1, (c->n - next) * sizeof *c->end);
		return j;
	}
}

/* Whether index is among the n proposals outstanding. */
static int outstanding(const int64_t *pend, size_t n, int64_t index)
{
	for (size_t i = 0; i < n; i++)
		if (pend[i] == index)
			return 1;
	return 0;
}

/* A replay under way. */
typedef struct replay {
	const kjit__space *space;
	const kt_replay_opts *o;
	const double *objective;
	kjit_search *st;
	size_t batch, n, repeats, held;
	double *known;              /* capacity + 1 */
	uint8_t *have;
	sim clock;
	int timed, done;
	kjit__rng order;            /* the order results arrive in */
	int64_t pend[KJIT_SEARCH_BATCH_MAX]; /* the proposals outstanding */
	size_t n_pend, measuring;   /* distinct configurations among them */
	uint64_t t0;
	kt_replay_result r;
	kjit_status status;
} replay;

/* Proposals while a worker is free and the budget has room; 1 when the
 * search stops at once (the time budget, or the strategy broke the
 * contract: status). */
static int propose(replay *p)
{
	const kt_budget *budget = p->o->budget;
	while (!p->done && p->n_pend < p->batch && p->r.evaluations + p->measuring < p->n) {
		if (budget && budget->seconds > 0 &&
		    (p->timed ? p->clock.now : (double)(kjit__now_ns() - p->t0) * 1e-9) >=
		            budget->seconds)
			return 1;
		int64_t j;
		if ((p->status = kjit_search_ask(p->st, &j)) != KJIT_OK)
			return 1;
		if (j == KJIT_SEARCH_WAIT)
			break;
		if (j == KJIT_SEARCH_END) {
			p->done = 1;
			break;
		}
		if (p->have[j]) {
			/* answered from memory: no evaluation spent */
			kjit_search_tell(p->st, (size_t)j, p->known[j]);
			if (++p->repeats > KJIT_SEARCH_STUCK_REPEATS)
				p->done = 1;
			continue;
		}
		p->repeats = 0;
		if (!outstanding(p->pend, p->n_pend, j)) {
			p->measuring++;
			if (p->timed) {
				p->clock.job[p->clock.n] = j;
				p->clock.stage[p->clock.n++] = WAIT_COMPILE;
			}
		}
		p->pend[p->n_pend++] = j;
	}
	return 0;
}

/* One result arrives (the clock's next, else any of the configurations
 * outstanding) and is reported with its repeats; 1 when the search stops
 * there (no answer, or o->until met). */
static int arrive(replay *p)
{
	kt_replay_result *r = &p->r;
	const kt_replay_opts *o = p->o;
	int64_t j = p->timed ? sim_arrive(&p->clock) : p->pend[kjit__rng_below(&p->order, p->n_pend)];
	p->known[j] = o->ask ? o->ask(o->ask_ctx, (size_t)j)
	                     : (size_t)j < p->held ? p->objective[j] : INFINITY;
	if (isnan(p->known[j]))
		return 1;
	p->have[j] = 1;
	p->measuring--;
	r->evaluations++;
	/* the proposal and its repeats, in the order they were made */
	size_t k = 0;
	for (size_t i = 0; i < p->n_pend; i++)
		if (p->pend[i] != j)
			p->pend[k++] = p->pend[i];
	for (size_t i = k; i < p->n_pend; i++)
		kjit_search_tell(p->st, (size_t)j, p->known[j]);
	p->n_pend = k;
	if (p->known[j] < r->best_found_value) {
		r->best_found = j;
		r->best_found_value = p->known[j];
		r->evals_to_found = r->evaluations;
		if (p->known[j] <= r->best_known_value && !r->evals_to_known)
			r->evals_to_known = r->evaluations;
		if (p->known[j] <= r->best_known_value * (1 + o->within) && !r->evals_to_within) {
			r->evals_to_within = r->evaluations;
			r->seconds_to_within = p->clock.now;
		}
	}
	r->seconds = p->clock.now;
	return o->until && r->evals_to_within;
}

kjit_status kt_replay(const kjit__space *space, const kjit_strategy *strategy,
                      const kt_replay_opts *o, const double *objective, kt_replay_result *out)
{
	replay p = { .space = space, .o = o, .objective = objective,
		     .batch = o->batch ? o->batch : 1, .held = space->size, .status = KJIT_OK };
	p.r = (kt_replay_result){ .best_found = -1, .best_found_value = INFINITY,
		                  .best_known = -1, .best_known_value = INFINITY };
	p.clock = (sim){ .compile_ms = o->compile_ms, .measure_ms = o->measure_ms,
		         .workers = o->workers ? o->workers : 1, .gpus = o->gpus ? o->gpus : 1 };
	p.timed = o->compile_ms && o->measure_ms;
	if (p.timed)
		p.batch = p.clock.workers + p.clock.gpus < KJIT_SEARCH_BATCH_MAX
		                  ? p.clock.workers + p.clock.gpus : KJIT_SEARCH_BATCH_MAX;
	if (p.batch > KJIT_SEARCH_BATCH_MAX)
		return kjit__error(KJIT_ERR_INVALID_ARG, "a batch of %zu: at most %d", p.batch,
		                   KJIT_SEARCH_BATCH_MAX);
	/* a sample may grow by what the strategy builds: the results file has
	 * none of those (a failure, as a configuration it lacks) */
	p.n = kt_budget_evaluations(o->budget, space->size);
	p.known = malloc((space->capacity + 1) * sizeof *p.known);
	p.have = calloc(space->capacity + 1, 1);
	kjit_status st = p.known && p.have ? kjit_search_start(strategy, space, p.n, o->seed, &p.st)
	                                   : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st != KJIT_OK) {
		free(p.known);
		free(p.have);
		return st;
	}
	for (size_t i = 0; objective && i < space->size; i++)
		if (objective[i] < p.r.best_known_value) {
			p.r.best_known = (int64_t)i;
			p.r.best_known_value = objective[i];
		}
	/* results arrive in an order of their own stream, so that it does not
	 * follow the strategy's draws */
	kjit__rng_seed(&p.order, ~o->seed);
	p.t0 = kjit__now_ns();
	while (!propose(&p) && p.n_pend > 0 && !arrive(&p))
		;
	kjit_search_free(p.st);
	free(p.known);
	free(p.have);
	*out = p.r;
	return p.status;
}

/* ---- loading known results ---------------------------------------------- */

/* What a results file fills in: the objective, and the costs when the
 * file has them (else NULL). */
typedef struct loaded {
	double *obj, *compile_ms, *measure_ms;
	size_t ignored;
	int want_costs;
} loaded;

/* A cost from the text of a field: 0 when empty or not a number. */
static double parse_cost(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	return end == s || !isfinite(v) || v < 0 ? 0 : v;
}

/* The index of the configuration whose values value(ctx, i) writes as
 * text (kjit_space_find_text()), -1 when the space does not hold it. */
static int64_t match(const kjit__space *space, kjit_space_text_fn value, void *ctx)
{
	size_t j;
	return kjit_space_find_text(space, value, ctx, &j) == KJIT_OK ? (int64_t)j : -1;
}

/* Records one row, j its configuration's index (match());
 * rows outside the space are counted, a repeat keeps the row of the lower
 * time. */
static void put_row(int64_t j, double t, const double cost[2], loaded *out)
{
	if (j < 0) {
		out->ignored++;
		return;
	}
	if (t < out->obj[j] || isinf(out->obj[j])) {
		out->obj[j] = t;
		if (out->compile_ms) {
			out->compile_ms[j] = cost[0];
			out->measure_ms[j] = cost[1];
		}
	}
}

static double parse_time(const char *s)
{
	char *end;
	while (isspace((unsigned char)*s))
		s++;
	double t = strtod(s, &end);
	if (end == s || isnan(t) || t < 0)
		return INFINITY; /* empty, "fail", "nan": a failed configuration */
	return t;
}

/* CSV as RFC 4180 writes it, one reader for the header and the rows: a
 * field in double quotes may hold commas, line breaks and "" for a quote;
 * records end at LF or CRLF, of any length. Spaces around an unquoted
 * field are not part of it. */
typedef struct csv {
	char *p, *end;   /* the text left; fields are unquoted in place */
	size_t line;     /* of the record read last (its first line) */
	size_t next_line;
	char **fields;
	size_t n, cap;
} csv;

static kjit_status csv_push(csv *c, char *field)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		char **f = realloc(c->fields, cap * sizeof *f);
		if (!f)
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		c->fields = f;
		c->cap = cap;
	}
	c->fields[c->n++] = field;
	return KJIT_OK;
}

/* One field from c->p, NUL-terminated in place; *last: the record ended. */
static kjit_status csv_field(csv *c, const char *path, char **out, int *last)
{
	char *p = c->p, *w;
	while (p < c->end && (*p == ' ' || *p == '\t'))
		p++;
	*out = w = p;
	if (p < c->end && *p == '"') {
		*out = w = ++p;
		for (;;) {
			if (p == c->end)
				return kjit__error(KJIT_ERR_INVALID_ARG, "%s: line %zu: a quoted field "
				                   "that does not end", path, c->line);
			if (*p == '"' && p + 1 < c->end && p[1] == '"') {
				*w++ = '"';
				p += 2;
				continue;
			}
			if (*p == '"')
				break;
			c->next_line += *p == '\n';
			*w++ = *p++;
		}
		for (p++; p < c->end && (*p == ' ' || *p == '\t'); p++)
			;
		if (p < c->end && *p != ',' && *p != '\n' && !(*p == '\r' && p + 1 < c->end &&
		                                                 p[1] == '\n'))
			return kjit__error(KJIT_ERR_INVALID_ARG, "%s: line %zu: expected ',' or the "
			                   "line's end after a quoted field", path, c->next_line);
	} else {
		while (p < c->end && *p != ',' && *p != '\n')
			p++;
		w = p;
		while (w > *out && (w[-1] == ' ' || w[-1] == '\t' || w[-1] == '\r'))
			w--;
	}
	*last = p == c->end || *p == '\n' || *p == '\r';
	if (p < c->end && *p == '\r')
		p++;
	if (p < c->end) {
		c->next_line += *p == '\n';
		p++;
	}
	*w = '\0';
	c->p = p;
	return KJIT_OK;
}

/* The next record's fields in c->fields[c->n]; 0 at the end of the text. */
static kjit_status csv_record(csv *c, const char *path, int *more)
{
	int last = 0;
	kjit_status st = KJIT_OK;
	c->n = 0;
	c->line = c->next_line;
	*more = c->p < c->end;
	while (*more && !last && st == KJIT_OK) {
		char *field;
		if ((st = csv_field(c, path, &field, &last)) == KJIT_OK)
			st = csv_push(c, field);
	}
	return st;
}

/* The header's columns: of each parameter, of the time and of the costs. */
static kjit_status csv_header(const kjit__space *space, const char *path, csv *c, long *col,
                              long *time_col, long cost_col[2])
{
	const kjit__spec *spec = space->spec;
	int more;
	kjit_status st = csv_record(c, path, &more);
	if (st != KJIT_OK)
		return st;
	if (!more)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: line 1: expected a header", path);
	for (size_t i = 0; i < spec->n_params; i++)
		col[i] = -1;
	for (size_t k = 0; k < c->n; k++) {
		const char *name = c->fields[k];
		if (strcmp(name, "time") == 0 || strcmp(name, "objective") == 0)
			*time_col = (long)k;
		if (strcmp(name, "compile_ms") == 0)
			cost_col[0] = (long)k;
		if (strcmp(name, "benchmark_ms") == 0)
			cost_col[1] = (long)k;
		for (size_t i = 0; i < spec->n_params; i++)
			if (strcmp(name, spec->params[i].name) == 0)
				col[i] = (long)k;
	}
	if (*time_col < 0)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: line 1: expected a \"time\" column",
		                   path);
	for (size_t i = 0; i < spec->n_params; i++)
		if (col[i] < 0)
			return kjit__error(KJIT_ERR_INVALID_ARG, "%s: line 1: expected a column %s",
			                   path, spec->params[i].name);
	return KJIT_OK;
}

/* A CSV row's value of parameter i (match()): the mark before
 * a field a spreadsheet could run (kjit-tune --export csv) is not part of
 * the value. */
typedef struct csv_row {
	char **fields;
	long n;
	const long *col;
} csv_row;

static const char *csv_value(void *ctx, size_t i)
{
	const csv_row *r = ctx;
	const char *v = r->col[i] < r->n ? r->fields[r->col[i]] : NULL;
	return v && v[0] == '\'' ? v + 1 : v;
}

static kjit_status load_csv(const kjit__space *space, const char *path, char *text, size_t len,
                            loaded *out)
{
	const kjit__spec *spec = space->spec;
	long col[256];
	long time_col = -1, cost_col[2] = { -1, -1 };
	csv c = { .p = text, .end = text + len, .next_line = 1 };
	if (spec->n_params > 256)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: too many parameters", path);
	kjit_status st = csv_header(space, path, &c, col, &time_col, cost_col);
	if (st == KJIT_OK && out->want_costs && cost_col[0] >= 0 && cost_col[1] >= 0) {
		out->compile_ms = calloc(space->size + 1, sizeof *out->compile_ms);
		out->measure_ms = calloc(space->size + 1, sizeof *out->measure_ms);
		if (!out->compile_ms || !out->measure_ms)
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	int more = 1;
	while (st == KJIT_OK && (st = csv_record(&c, path, &more)) == KJIT_OK && more) {
		char **fields = c.fields;
		long nf = (long)c.n;
		if (nf == 1 && fields[0][0] == '\0')
			continue;
		if (nf <= time_col) {
			st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: line %zu: expected %ld fields",
			                 path, c.line, time_col + 1);
			break;
		}
		csv_row row = { fields, nf, col };
		int64_t j = match(space, csv_value, &row);
		double cost[2];
		for (int i = 0; i < 2; i++)
			cost[i] = cost_col[i] >= 0 && cost_col[i] < nf ? parse_cost(fields[cost_col[i]]) : 0;
		put_row(j, parse_time(fields[time_col]), cost, out);
	}
	free(c.fields);
	return st;
}

/* A row of a JSON array as load_json() reads it: the object, its
 * "config" object (NULL: none), and st the first failure. */
typedef struct json_row {
	const kjit__json *obj, *config;
	const char *path;
	size_t index; /* in the array */
	const kjit__spec *spec;
	kjit_status st;
} json_row;

/* key's value in the row's "config" object, else in the row itself; NULL
 * when neither has one other than null. */
static const kjit__json *json_member(const json_row *r, const char *key)
{
	const kjit__json *v = r->config ? kjit__json_get(r->config, key) : NULL;
	if (!v || v->type == KJIT__JSON_NULL)
		v = kjit__json_get(r->obj, key);
	return v && v->type != KJIT__JSON_NULL ? v : NULL;
}

/* Parameter i's value (match()): a parameter without one is
 * an error, not a configuration outside the space. */
static const char *json_value(void *ctx, size_t i)
{
	json_row *r = ctx;
	if (r->st != KJIT_OK)
		return NULL;
	const char *key = r->spec->params[i].name;
	const kjit__json *v = json_member(r, key);
	if (!v)
		r->st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: [%zu].%s: expected a value", r->path,
		                    r->index, key);
	return kjit__json_scalar_text(v);
}

/* JSON: an array of objects holding the parameter names and "time" (or
 * "objective"); the parameters may sit in a "config" object instead. */
static kjit_status load_json(const kjit__space *space, const char *path, const char *doc,
                             loaded *out)
{
	static const double no_cost[2];
	const kjit__spec *spec = space->spec;
	sqlite3 *db = NULL;
	sqlite3_stmt *rows = NULL;
	kjit_status st = KJIT_OK;
	int rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		/* SQLite splits the array, of any length, into its items; malformed
		 * JSON or a non-array gives no rows, and the message below, rather
		 * than an SQL error */
		rc = sqlite3_prepare_v2(db, "SELECT key, value, type FROM json_each(CASE WHEN"
		                        " json_valid(?1) THEN CASE WHEN json_type(?1) = 'array'"
		                        " THEN ?1 END END)", -1, &rows, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(rows, 1, doc, -1, SQLITE_STATIC);
	if (rc != SQLITE_OK) {
		st = kjit__error(KJIT_ERR_DB, "%s: JSON reader: %s", path,
		                 db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		goto done;
	}
	size_t n_rows = 0;
	while (st == KJIT_OK && (rc = sqlite3_step(rows)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(rows, 2);
		const char *row = (const char *)sqlite3_column_text(rows, 1);
		n_rows++;
		/* each item is read by kjit's own strict reader: SQLite's json_valid()
		 * lets some malformed documents through (an array as a key), whose
		 * items its other JSON functions then misread */
		kjit__json *obj = NULL;
		if (!type || strcmp(type, "object") != 0 || !row ||
		    kjit__json_parse(row, strlen(row), path, &obj) != KJIT_OK) {
			st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: [%lld]: expected an object",
			                 path, (long long)sqlite3_column_int64(rows, 0));
			break;
		}
		const kjit__json *config = kjit__json_get(obj, "config");
		json_row jr = { obj, config && config->type == KJIT__JSON_OBJECT ? config : NULL,
			        path, n_rows - 1, spec, KJIT_OK };
		int64_t j = match(space, json_value, &jr);
		const char *v = jr.st == KJIT_OK ? kjit__json_scalar_text(json_member(&jr, "time"))
		                                 : NULL;
		if ((st = jr.st) == KJIT_OK)
			put_row(j, v ? parse_time(v) : INFINITY, no_cost, out);
		kjit__json_free(obj);
	}
	if (st == KJIT_OK && rc != SQLITE_DONE)
		st = kjit__error(KJIT_ERR_DB, "%s: %s", path, sqlite3_errmsg(db));
	if (st == KJIT_OK && n_rows == 0)
		st = kjit__error(KJIT_ERR_INVALID_ARG,
		                 "%s: expected a non-empty JSON array of result objects", path);
done:
	sqlite3_finalize(rows);
	sqlite3_close(db);
	return st;
}

kjit_status kt_replay_parse(const kjit__space *space, const char *path, const char *text,
                            size_t len, double **out, double **compile_ms, double **measure_ms,
                            size_t *ignored)
{
	loaded l = { .obj = malloc((space->size + 1) * sizeof *l.obj), .want_costs = !!compile_ms };
	/* a copy: the CSV reader unquotes in place, the JSON one wants a NUL */
	char *copy = malloc(len + 1);
	kjit_status st;
	*out = NULL;
	*ignored = 0;
	if (compile_ms)
		*compile_ms = *measure_ms = NULL;
	if (!l.obj || !copy) {
		free(l.obj);
		free(copy);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (size_t i = 0; i < space->size; i++)
		l.obj[i] = INFINITY;
	size_t k = 0;
	while (k < len && isspace((unsigned char)text[k]))
		k++;
	st = k < len && text[k] == '[' ? load_json(space, path, copy, &l)
	                               : load_csv(space, path, copy, len, &l);
	free(copy);
	if (st != KJIT_OK) {
		free(l.obj);
		free(l.compile_ms);
		free(l.measure_ms);
		return st;
	}
	*out = l.obj;
	*ignored = l.ignored;
	if (compile_ms) {
		*compile_ms = l.compile_ms;
		*measure_ms = l.measure_ms;
	}
	return KJIT_OK;
}

kjit_status kt_replay_load_costs(const kjit__space *space, const char *path, double **out,
                                 double **compile_ms, double **measure_ms, size_t *ignored)
{
	char *text;
	size_t len;
	*out = NULL;
	*ignored = 0;
	if (compile_ms)
		*compile_ms = *measure_ms = NULL;
	kjit_status st = kjit__read_file(path, KT_REPLAY_MAX_BYTES, &text, &len);
	if (st != KJIT_OK)
		return st;
	st = kt_replay_parse(space, path, text, len, out, compile_ms, measure_ms, ignored);
	free(text);
	return st;
}

kjit_status kt_replay_load(const kjit__space *space, const char *path, double **out,
                           size_t *ignored)
{
	return kt_replay_load_costs(space, path, out, NULL, NULL, ignored);
}
