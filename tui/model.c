/*
 * model.c - kjit-top's data model: one long-lived read-only connection,
 * PRAGMA data_version polled every tick, and each frame's queries in one
 * short read transaction, so that a WAL checkpoint is never held back for
 * longer than a frame and writers never wait for us.
 *
 * Time windows are read through the rowid: the id of the first event of a
 * window comes from one seek in events_ts, then the window is a range of
 * the table's own b-tree, read in order (`+ts` keeps the planner off the
 * index, whose every entry would cost a seek into the table).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base.h"
#include "tui.h"

enum {
	S_VERSION, S_BEGIN, S_COMMIT, S_FIRST_ID, S_MINUTE, S_PIDS, S_SAMPLES, S_COMPILES,
	S_KERNELS, S_BEST, S_RUNS, S_RUN_RESULTS, S_HISTORY, S_D_RESULTS, S_D_BINARIES,
	S_D_RSAMPLES, S_D_ESAMPLES, S_D_BEST, S_COUNT
};

static const char *const sql[S_COUNT] = {
	[S_VERSION] = "PRAGMA data_version",
	[S_BEGIN] = "BEGIN",
	[S_COMMIT] = "COMMIT",
	[S_FIRST_ID] = "SELECT id FROM events WHERE ts >= ?1 ORDER BY ts LIMIT 1",
	[S_MINUTE] = "SELECT kind, signature, kernel, tier, value IS NULL, sum(count)"
		" FROM events WHERE id >= ?1 AND +ts >= ?2 AND +ts <= ?3"
		" GROUP BY kind, signature, kernel, tier, value IS NULL",
	[S_PIDS] = "SELECT count(DISTINCT pid) FROM events"
		" WHERE id >= ?1 AND +ts >= ?2 AND +ts <= ?3",
	[S_SAMPLES] = "SELECT signature, kernel, value FROM events"
		" WHERE id >= ?1 AND +ts >= ?2 AND +ts <= ?3 AND +kind = 'launch'"
		" AND value IS NOT NULL ORDER BY signature, kernel, value",
	[S_COMPILES] = "SELECT signature, kernel, value, ts FROM events"
		" WHERE kind = 'compile' AND ts >= ?1 AND ts <= ?2 AND value IS NOT NULL"
		" ORDER BY signature, kernel, value",
	[S_KERNELS] = "SELECT signature, name FROM kernels",
	[S_BEST] = "SELECT signature, config, median_ns, stale FROM best"
		" ORDER BY signature, updated DESC",
	[S_RUNS] = "SELECT id, kernel, strategy, status, total, evaluated, started, updated,"
		" signature, device_key, problem FROM runs"
		" WHERE status = 'running' OR updated >= ?1"
		" ORDER BY status <> 'running', updated DESC, id DESC LIMIT 64",
	/* the prefix of results' UNIQUE index, so that no run scans the table */
	[S_RUN_RESULTS] = "SELECT status, count(*), min(CASE WHEN status = 'ok' THEN median_ns END)"
		" FROM results WHERE signature = ?1 AND device_key = ?2 AND problem = ?3"
		" AND run_id = ?4 GROUP BY status",
	[S_HISTORY] = "SELECT CAST(ts / 5 AS INTEGER), kind, tier, value IS NULL, sum(count),"
		" sum(value), count(value) FROM events"
		" WHERE id >= ?1 AND +ts >= ?2 AND +ts <= ?3"
		" AND +kind IN ('compile', 'cache', 'launch') GROUP BY 1, 2, 3, 4",
	[S_D_RESULTS] = "SELECT id, config, status, median_ns, n_samples FROM results"
		" WHERE signature = ?1 ORDER BY median_ns IS NULL, median_ns, id LIMIT 500",
	[S_D_BINARIES] = "SELECT key, options FROM binaries WHERE signature = ?1 LIMIT 500",
	[S_D_RSAMPLES] = "SELECT samples FROM results WHERE id = ?1",
	[S_D_ESAMPLES] = "SELECT variant, value FROM events"
		" WHERE id >= ?1 AND +ts >= ?2 AND +ts <= ?3 AND +kind = 'launch'"
		" AND value IS NOT NULL AND +signature = ?4 ORDER BY variant, value",
	[S_D_BEST] = "SELECT device_key, problem, config, stale FROM best WHERE signature = ?1"
		" ORDER BY updated DESC",
};

double top_now(void)
{
	const char *env = getenv("KJIT_TOP_NOW");
	if (env && *env) {
		char *end = NULL;
		double v = strtod(env, &end);
		if (end && *end == '\0' && isfinite(v) && v > 0)
			return v;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

double top_percentile(const double *sorted, size_t n, double p)
{
	if (n == 0)
		return NAN;
	double r = ceil(p * (double)n);
	size_t i = r < 1 ? 0 : (size_t)r - 1;
	return sorted[i < n ? i : n - 1];
}

static const char *const rs_names[TOP_RS_COUNT] = {
	"ok", "compile_error", "launch_error", "crashed", "timeout", "wrong_result", "stopped_early"
};

const char *top_result_status_name(int status)
{
	return status >= 0 && status < TOP_RS_COUNT ? rs_names[status] : "?";
}

int top_result_status_parse(const char *name)
{
	for (int i = 0; name && i < TOP_RS_COUNT; i++)
		if (strcmp(name, rs_names[i]) == 0)
			return i;
	return -1;
}

/* ---- the connection ------------------------------------------------------------ */

/* Records why the model cannot show data; always returns -1. */
static int fail(top_model *m, top_db_state state, const char *fmt, const char *a, const char *b)
{
	m->state = state;
	snprintf(m->message, sizeof m->message, fmt, a, b ? b : "");
	return -1;
}

static int fail_sql(top_model *m, int rc, const char *what)
{
	const char *msg = m->db ? sqlite3_errmsg(m->db) : sqlite3_errstr(rc);
	m->state = TOP_DB_ERROR;
	snprintf(m->message, sizeof m->message, "%s: %s (%s, %s)", what, msg, sqlite3_errstr(rc),
	         m->path);
	return -1;
}

static void disconnect(top_model *m)
{
	for (int i = 0; i < S_COUNT; i++) {
		sqlite3_finalize(m->st[i]);
		m->st[i] = NULL;
	}
	sqlite3_close(m->db);
	m->db = NULL;
}

void top_model_init(top_model *m, const char *path)
{
	memset(m, 0, sizeof *m);
	m->path = strdup(path ? path : "");
	m->history.newest = -1;
	m->window_bucket = -1;
	for (int i = 0; i < TOP_HISTORY_N; i++)
		m->history.b[i].index = -1;
	m->state = TOP_DB_MISSING;
}

void top_model_close(top_model *m)
{
	disconnect(m);
	free(m->path);
	free(m->kernels);
	free(m->runs);
	free(m->detail.v);
	free(m->detail.samples);
	memset(m, 0, sizeof *m);
}

/* One integer from a one-row statement. */
static int step_int(top_model *m, sqlite3_stmt *st, int64_t *out, const char *what)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	int rc2 = sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return fail_sql(m, rc == SQLITE_DONE ? SQLITE_ERROR : rc2, what);
	return 0;
}

/* Tells a kjit database from an empty or foreign file before preparing
 * anything against its tables. */
static int check_schema(top_model *m)
{
	static const char q[] =
		"SELECT (SELECT user_version FROM pragma_user_version),"
		" (SELECT count(*) FROM sqlite_master),"
		" (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
		"  ('devices', 'kernels', 'binaries', 'runs', 'results', 'best', 'events'))";
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(m->db, q, -1, &st, NULL);
	int64_t version = 0, objects = 0, tables = 0;
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		version = sqlite3_column_int64(st, 0);
		objects = sqlite3_column_int64(st, 1);
		tables = sqlite3_column_int64(st, 2);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_NOTADB)
		return fail(m, TOP_DB_FOREIGN, "%s is not a kjit database (not SQLite at all)",
		            m->path, NULL);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "reading the schema");
	if (objects == 0)
		return fail(m, TOP_DB_EMPTY, "the database %s is empty: run a kjit program first",
		            m->path, NULL);
	if (version == 0)
		return fail(m, TOP_DB_FOREIGN, "%s is not a kjit database (no kjit schema)",
		            m->path, NULL);
	if (version != KJIT__SCHEMA_VERSION || tables < 7) {
		char v[64];
		snprintf(v, sizeof v, "%lld, this kjit-top reads %d", (long long)version,
		         KJIT__SCHEMA_VERSION);
		return fail(m, TOP_DB_SCHEMA, "%s has kjit schema version %s: use the kjit-top of "
		            "the kjit that wrote it", m->path, v);
	}
	return 0;
}

static int connect(top_model *m)
{
	struct stat sb;
	if (stat(m->path, &sb) != 0)
		return fail(m, TOP_DB_MISSING, "no database at %s yet: run a kjit program first",
		            m->path, NULL);
	if (sb.st_size == 0)
		return fail(m, TOP_DB_EMPTY, "the database %s is empty: run a kjit program first",
		            m->path, NULL);
	int rc = sqlite3_open_v2(m->path, &m->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
	                         NULL);
	if (rc != SQLITE_OK) {
		fail_sql(m, rc, "opening the database read-only");
		disconnect(m);
		return -1;
	}
	sqlite3_extended_result_codes(m->db, 1);
	/* Only WAL recovery or a schema change can make a reader wait. */
	sqlite3_busy_timeout(m->db, 1000);
	if (check_schema(m) != 0) {
		disconnect(m);
		return -1;
	}
	for (int i = 0; i < S_COUNT; i++) {
		rc = sqlite3_prepare_v3(m->db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &m->st[i],
		                        NULL);
		if (rc != SQLITE_OK) {
			fail_sql(m, rc, "preparing a query");
			disconnect(m);
			return -1;
		}
	}
	m->state = TOP_DB_OK;
	m->message[0] = '\0';
	m->data_version = -1;
	return 0;
}

/* ---- binding helpers -------------------------------------------------------- */

static int bind3(top_model *m, sqlite3_stmt *st, int64_t id, double from, double to)
{
	int rc = sqlite3_bind_int64(st, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(st, 2, from);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(st, 3, to);
	return rc == SQLITE_OK ? 0 : fail_sql(m, rc, "binding a time window");
}

/* Finishes a statement's loop: rc is the last step's result. */
static int done(top_model *m, sqlite3_stmt *st, int rc, const char *what)
{
	int rc2 = sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return fail_sql(m, rc == SQLITE_ROW ? rc2 : rc, what);
	return 0;
}

static void copy_col(sqlite3_stmt *st, int col, char *out, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(out, size, "%s", t ? (const char *)t : "");
}

/* The first rowid of the window starting at from, less the write lag; *id
 * is INT64_MAX when the window is empty. */
static int first_id(top_model *m, double from, int64_t *id)
{
	sqlite3_stmt *st = m->st[S_FIRST_ID];
	int rc = sqlite3_bind_double(st, 1, from - TOP_WRITE_LAG_S);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding a time");
	rc = sqlite3_step(st);
	*id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : INT64_MAX;
	if (rc == SQLITE_ROW)
		rc = SQLITE_DONE;
	return done(m, st, rc, "finding the first event of a window");
}

/* ---- kernels: a sorted array, found by signature or by name ----------------- */

static int cmp_kernel(const void *a, const void *b)
{
	const top_kernel *x = a, *y = b;
	int c = strcmp(x->signature, y->signature);
	return c ? c : strcmp(x->name, y->name);
}

static top_kernel *add_kernel(top_model *m, const char *sig, const char *name)
{
	if (m->n_kernels == m->cap_kernels) {
		size_t cap = m->cap_kernels ? 2 * m->cap_kernels : 64;
		top_kernel *k = realloc(m->kernels, cap * sizeof *k);
		if (!k)
			return NULL;
		m->kernels = k;
		m->cap_kernels = cap;
	}
	top_kernel *k = &m->kernels[m->n_kernels++];
	memset(k, 0, sizeof *k);
	snprintf(k->signature, sizeof k->signature, "%s", sig ? sig : "");
	snprintf(k->name, sizeof k->name, "%s", name ? name : "");
	k->compile_p50_ms = k->recent_ns = k->drift = k->best_ns = NAN;
	return k;
}

/* The kernel of an event: by signature when it has one (kernels are
 * sorted by then), else by name; a kernel only seen in events is added
 * at the end and the array re-sorted by the caller. */
static top_kernel *find_kernel(top_model *m, size_t sorted, const char *sig, const char *name)
{
	sig = sig ? sig : "";
	name = name ? name : "";
	if (*sig) {
		size_t lo = 0, hi = sorted;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int c = strcmp(m->kernels[mid].signature, sig);
			if (c == 0)
				return &m->kernels[mid];
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	for (size_t i = *sig ? sorted : 0; i < m->n_kernels; i++)
		if (strcmp(m->kernels[i].signature, sig) == 0 &&
		    (*sig || strcmp(m->kernels[i].name, name) == 0))
			return &m->kernels[i];
	if (!*sig && !*name)
		return NULL;
	return add_kernel(m, sig, *name ? name : sig);
}

static int query_kernels(top_model *m)
{
	m->n_kernels = 0;
	sqlite3_stmt *st = m->st[S_KERNELS];
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (!add_kernel(m, (const char *)sqlite3_column_text(st, 0),
		                (const char *)sqlite3_column_text(st, 1)))
			return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
	if (done(m, st, rc, "reading the kernels") != 0)
		return -1;
	qsort(m->kernels, m->n_kernels, sizeof *m->kernels, cmp_kernel);

	st = m->st[S_BEST];
	size_t sorted = m->n_kernels;
	char last[33] = "";
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *sig = (const char *)sqlite3_column_text(st, 0);
		/* rows of one signature come newest first: keep that one */
		if (!sig || strcmp(sig, last) == 0)
			continue;
		snprintf(last, sizeof last, "%s", sig);
		top_kernel *k = find_kernel(m, sorted, sig, NULL);
		if (!k)
			continue;
		k->has_best = 1;
		copy_col(st, 1, k->best_config, sizeof k->best_config);
		k->best_ns = sqlite3_column_double(st, 2);
		k->stale = sqlite3_column_int(st, 3) != 0;
	}
	return done(m, st, rc, "reading the best configurations");
}

/* Walks rows ordered by (signature, kernel, value) and hands each
 * kernel's sorted values to fn. */
typedef void (*group_fn)(top_kernel *k, const double *v, size_t n);

typedef struct top_values {
	double *v;
	size_t n, cap;
} top_values;

static int push_value(top_values *a, double x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		double *p = realloc(a->v, cap * sizeof *p);
		if (!p)
			return -1;
		a->v = p;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

/* all (may be NULL) also gets the values whose column 3 is >= all_from. */
static int per_kernel_values(top_model *m, sqlite3_stmt *st, size_t sorted, group_fn fn,
                             top_values *all, double all_from, const char *what)
{
	top_values v = { NULL, 0, 0 };
	char sig[33] = "", name[64] = "";
	int rc;
	int first = 1;
	for (;;) {
		rc = sqlite3_step(st);
		const char *s = NULL, *k = NULL;
		if (rc == SQLITE_ROW) {
			s = (const char *)sqlite3_column_text(st, 0);
			s = s ? s : "";
			k = (const char *)sqlite3_column_text(st, 1);
			k = k ? k : "";
		}
		if (!first && (rc != SQLITE_ROW || strncmp(s, sig, sizeof sig - 1) != 0 ||
		               strncmp(k, name, sizeof name - 1) != 0)) {
			top_kernel *kk = find_kernel(m, sorted, sig, name);
			if (kk)
				fn(kk, v.v, v.n);
			v.n = 0;
		}
		if (rc != SQLITE_ROW)
			break;
		first = 0;
		snprintf(sig, sizeof sig, "%s", s);
		snprintf(name, sizeof name, "%s", k);
		double x = sqlite3_column_double(st, 2);
		if (push_value(&v, x) != 0 ||
		    (all && sqlite3_column_double(st, 3) >= all_from && push_value(all, x) != 0)) {
			free(v.v);
			sqlite3_reset(st);
			return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
		}
	}
	free(v.v);
	return done(m, st, rc, what);
}

static void set_compile(top_kernel *k, const double *v, size_t n)
{
	k->compile_p50_ms = top_percentile(v, n, 0.5);
}

static void set_recent(top_kernel *k, const double *v, size_t n)
{
	k->recent_ns = top_percentile(v, n, 0.5);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
}

/* ---- the frame's queries --------------------------------------------------------- */

static int query_minute(top_model *m, double now, size_t sorted)
{
	top_meters *mt = &m->meters;
	double from = now - TOP_METER_WINDOW_S;
	int64_t id;
	if (first_id(m, from, &id) != 0)
		return -1;
	sqlite3_stmt *st = m->st[S_MINUTE];
	if (bind3(m, st, id, from, now) != 0)
		return -1;
	int64_t launches = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		const char *tier = (const char *)sqlite3_column_text(st, 3);
		int no_value = sqlite3_column_int(st, 4);
		int64_t count = sqlite3_column_int64(st, 5);
		if (!kind)
			continue;
		if (strcmp(kind, "drop") == 0) {
			mt->dropped += count;
			continue;
		}
		int is_cache = strcmp(kind, "cache") == 0;
		int is_launch = strcmp(kind, "launch") == 0 && no_value;
		if (!is_cache && !is_launch)
			continue;
		top_kernel *k = find_kernel(m, sorted, (const char *)sqlite3_column_text(st, 1),
		                            (const char *)sqlite3_column_text(st, 2));
		if (is_launch) {
			launches += count;
			if (k)
				k->launches += count;
			continue;
		}
		int64_t *slot = NULL, *kslot = NULL;
		if (tier && strcmp(tier, "memory") == 0)
			slot = &mt->mem, kslot = k ? &k->mem : NULL;
		else if (tier && strcmp(tier, "disk") == 0)
			slot = &mt->disk, kslot = k ? &k->disk : NULL;
		else if (tier && strcmp(tier, "miss") == 0)
			slot = &mt->miss, kslot = k ? &k->miss : NULL;
		if (slot)
			*slot += count;
		if (kslot)
			*kslot += count;
	}
	if (done(m, st, rc, "reading the last minute of events") != 0)
		return -1;
	mt->launches_per_s = (double)launches / TOP_METER_WINDOW_S;

	st = m->st[S_PIDS];
	if (bind3(m, st, id, from, now) != 0 ||
	    step_int(m, st, &mt->writers, "counting the writing processes") != 0)
		return -1;

	st = m->st[S_SAMPLES];
	if (bind3(m, st, id, from, now) != 0)
		return -1;
	return per_kernel_values(m, st, sorted, set_recent, NULL, 0, "reading the timed launches");
}


static int query_compiles(top_model *m, double now, size_t sorted)
{
	sqlite3_stmt *st = m->st[S_COMPILES];
	int rc = sqlite3_bind_double(st, 1, now - TOP_COMPILE_WINDOW_S);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(st, 2, now);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding a time window");
	top_values all = { NULL, 0, 0 };
	int r = per_kernel_values(m, st, sorted, set_compile, &all, now - TOP_METER_WINDOW_S,
	                          "reading the compiles");
	if (r == 0) {
		sort_doubles(all.v, all.n);
		m->meters.compiles = (int64_t)all.n;
		m->meters.compile_p50_ms = top_percentile(all.v, all.n, 0.5);
		m->meters.compile_p95_ms = top_percentile(all.v, all.n, 0.95);
		m->meters.compile_max_ms = all.n ? all.v[all.n - 1] : NAN;
	}
	free(all.v);
	return r;
}

static int bind_text(top_model *m, sqlite3_stmt *st, int i, const unsigned char *text)
{
	int rc = sqlite3_bind_text(st, i, text ? (const char *)text : "", -1, SQLITE_TRANSIENT);
	return rc == SQLITE_OK ? 0 : fail_sql(m, rc, "binding a key");
}

/* Counts by status and the best so far of one run (stepping `runs`). */
static int run_results(top_model *m, sqlite3_stmt *runs, top_run *r)
{
	sqlite3_stmt *st = m->st[S_RUN_RESULTS];
	if (bind_text(m, st, 1, sqlite3_column_text(runs, 8)) != 0 ||
	    bind_text(m, st, 2, sqlite3_column_text(runs, 9)) != 0 ||
	    bind_text(m, st, 3, sqlite3_column_text(runs, 10)) != 0)
		return -1;
	int rc = sqlite3_bind_int64(st, 4, r->id);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding a run id");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int s = top_result_status_parse((const char *)sqlite3_column_text(st, 0));
		if (s >= 0)
			r->by_status[s] += sqlite3_column_int64(st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			r->best_ns = sqlite3_column_double(st, 2);
	}
	return done(m, st, rc, "reading a run's results");
}

static int query_runs(top_model *m, double now)
{
	m->n_runs = 0;
	sqlite3_stmt *st = m->st[S_RUNS];
	int rc = sqlite3_bind_double(st, 1, now - TOP_RUN_RECENT_S);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding a time");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (m->n_runs == m->cap_runs) {
			size_t cap = m->cap_runs ? 2 * m->cap_runs : 16;
			top_run *p = realloc(m->runs, cap * sizeof *p);
			if (!p) {
				sqlite3_reset(st);
				return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
			}
			m->runs = p;
			m->cap_runs = cap;
		}
		top_run *r = &m->runs[m->n_runs++];
		memset(r, 0, sizeof *r);
		r->id = sqlite3_column_int64(st, 0);
		copy_col(st, 1, r->kernel, sizeof r->kernel);
		copy_col(st, 2, r->strategy, sizeof r->strategy);
		copy_col(st, 3, r->status, sizeof r->status);
		r->total = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
		r->evaluated = sqlite3_column_int64(st, 5);
		r->started = sqlite3_column_double(st, 6);
		r->updated = sqlite3_column_double(st, 7);
		r->best_ns = r->eta_s = NAN;
		int running = strcmp(r->status, "running") == 0;
		m->meters.active_runs += running;
		if (running && r->total >= 0 && r->evaluated >= r->total)
			r->eta_s = 0;
		else if (running && r->total > 0 && r->evaluated > 0 && r->updated > r->started)
			r->eta_s = (double)(r->total - r->evaluated) * (r->updated - r->started) /
			           (double)r->evaluated;
		if (run_results(m, st, r) != 0) {
			sqlite3_reset(st);
			return -1;
		}
	}
	return done(m, st, rc, "reading the tuning runs");
}

/* ---- history ----------------------------------------------------------------- */

static top_bucket *bucket_at(top_history *h, int64_t index)
{
	return &h->b[index % TOP_HISTORY_N];
}

static void bucket_clear(top_bucket *b, int64_t index)
{
	memset(b, 0, sizeof *b);
	b->index = index;
}

/* Queries the buckets that can still change (late writes land up to
 * TOP_WRITE_LAG_S back) and the new ones; older buckets stay in the ring. */
static int query_history(top_model *m, double now)
{
	top_history *h = &m->history;
	int64_t nb = (int64_t)floor(now / TOP_HISTORY_BUCKET_S);
	int64_t lag = (int64_t)ceil(TOP_WRITE_LAG_S / TOP_HISTORY_BUCKET_S);
	int64_t start = h->newest < 0 || nb - h->newest >= TOP_HISTORY_N ? nb - TOP_HISTORY_N + 1
	                                                                  : h->newest - lag;
	if (start < nb - TOP_HISTORY_N + 1)
		start = nb - TOP_HISTORY_N + 1;
	for (int64_t b = start; b <= nb; b++)
		bucket_clear(bucket_at(h, b), b);
	double from = (double)start * TOP_HISTORY_BUCKET_S;
	int64_t id;
	if (first_id(m, from, &id) != 0)
		return -1;
	sqlite3_stmt *st = m->st[S_HISTORY];
	if (bind3(m, st, id, from, now) != 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, 0);
		const char *kind = (const char *)sqlite3_column_text(st, 1);
		const char *tier = (const char *)sqlite3_column_text(st, 2);
		if (b < start || b > nb || !kind)
			continue;
		top_bucket *k = bucket_at(h, b);
		double count = sqlite3_column_double(st, 4);
		if (strcmp(kind, "compile") == 0) {
			k->compiles += count;
		} else if (strcmp(kind, "cache") == 0) {
			k->lookups += count;
			if (tier && (strcmp(tier, "memory") == 0 || strcmp(tier, "disk") == 0))
				k->hits += count;
		} else if (sqlite3_column_int(st, 3)) {
			k->launches += count;
		} else {
			k->kernel_ns_sum += sqlite3_column_double(st, 5);
			k->kernel_ns_n += sqlite3_column_double(st, 6);
		}
	}
	if (done(m, st, rc, "reading the history") != 0)
		return -1;
	h->newest = nb;
	return 0;
}

void top_history_series(const top_history *h, top_series which, double now, double *out,
                        int n)
{
	int64_t nb = (int64_t)floor(now / TOP_HISTORY_BUCKET_S);
	for (int i = 0; i < n; i++) {
		int64_t b = nb - (n - 1 - i);
		const top_bucket *k = b >= 0 ? &h->b[b % TOP_HISTORY_N] : NULL;
		out[i] = NAN;
		if (!k || k->index != b || nb - b >= TOP_HISTORY_N)
			continue;
		if (which == TOP_SERIES_COMPILES)
			out[i] = k->compiles / TOP_HISTORY_BUCKET_S;
		else if (which == TOP_SERIES_HIT_RATE && k->lookups > 0)
			out[i] = k->hits / k->lookups;
		else if (which == TOP_SERIES_KERNEL_NS && k->kernel_ns_n > 0)
			out[i] = k->kernel_ns_sum / k->kernel_ns_n;
	}
}

/* ---- refresh ----------------------------------------------------------------- */

static int begin(top_model *m)
{
	int rc = sqlite3_step(m->st[S_BEGIN]);
	sqlite3_reset(m->st[S_BEGIN]);
	return rc == SQLITE_DONE ? 0 : fail_sql(m, rc, "starting a read transaction");
}

/* Ends the read transaction whatever happened inside it. */
static int commit(top_model *m, int r)
{
	int rc = sqlite3_step(m->st[S_COMMIT]);
	sqlite3_reset(m->st[S_COMMIT]);
	if (rc != SQLITE_DONE && r == 0)
		r = fail_sql(m, rc, "ending a read transaction");
	if (r != 0)
		disconnect(m);
	return r;
}

static int build(top_model *m, double now)
{
	memset(&m->meters, 0, sizeof m->meters);
	m->meters.compile_p50_ms = m->meters.compile_p95_ms = m->meters.compile_max_ms = NAN;
	if (query_kernels(m) != 0)
		return -1;
	size_t sorted = m->n_kernels;
	if (query_minute(m, now, sorted) != 0 || query_compiles(m, now, sorted) != 0 ||
	    query_runs(m, now) != 0 || query_history(m, now) != 0)
		return -1;
	for (size_t i = 0; i < m->n_kernels; i++) {
		top_kernel *k = &m->kernels[i];
		if (k->has_best && k->best_ns > 0 && k->recent_ns > 0)
			k->drift = k->recent_ns / k->best_ns - 1;
	}
	/* kernels only seen in events were appended: back in order */
	qsort(m->kernels, m->n_kernels, sizeof *m->kernels, cmp_kernel);
	return 0;
}

int top_model_refresh(top_model *m, double now, int force)
{
	if (!m->db && connect(m) != 0)
		return -1;
	int64_t version;
	if (step_int(m, m->st[S_VERSION], &version, "reading data_version") != 0) {
		disconnect(m);
		return -1;
	}
	int64_t wb = (int64_t)floor(now / TOP_HISTORY_BUCKET_S);
	if (!force && version == m->data_version && wb == m->window_bucket)
		return 0;
	double t0 = mono_ms();
	if (begin(m) != 0) {
		disconnect(m);
		return -1;
	}
	if (commit(m, build(m, now)) != 0)
		return -1;
	m->data_version = version;
	m->window_bucket = wb;
	m->now = now;
	m->queries++;
	m->build_ms = mono_ms() - t0;
	return 1;
}

/* ---- the detail of one kernel -------------------------------------------------- */

static top_variant *add_variant(top_detail *d, size_t *cap)
{
	if (d->n_v == *cap) {
		size_t c = *cap ? 2 * *cap : 32;
		top_variant *p = realloc(d->v, c * sizeof *p);
		if (!p)
			return NULL;
		d->v = p;
		*cap = c;
	}
	top_variant *v = &d->v[d->n_v++];
	memset(v, 0, sizeof *v);
	v->median_ns = NAN;
	return v;
}

static int cmp_variant(const void *a, const void *b)
{
	const top_variant *x = a, *y = b;
	int xn = isnan(x->median_ns), yn = isnan(y->median_ns);
	if (xn != yn)
		return xn - yn;
	if (!xn && x->median_ns != y->median_ns)
		return x->median_ns < y->median_ns ? -1 : 1;
	return strcmp(x->config, y->config);
}

/* Tuning results of the kernel, fastest first. */
static int detail_results(top_model *m, const char *sig, size_t *cap)
{
	top_detail *d = &m->detail;
	sqlite3_stmt *st = m->st[S_D_RESULTS];
	int rc = sqlite3_bind_text(st, 1, sig, -1, SQLITE_TRANSIENT);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding a signature");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		top_variant *v = add_variant(d, cap);
		if (!v) {
			sqlite3_reset(st);
			return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
		}
		v->result_id = sqlite3_column_int64(st, 0);
		copy_col(st, 1, v->config, sizeof v->config);
		copy_col(st, 2, v->status, sizeof v->status);
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			v->median_ns = sqlite3_column_double(st, 3);
		v->n_samples = sqlite3_column_int64(st, 4);
	}
	return done(m, st, rc, "reading the kernel's results");
}

/* Without tuning results: the cached binaries, timed by the sampled
 * launches of the last 10 minutes. */
static int detail_binaries(top_model *m, const char *sig, size_t *cap, double now,
                           top_values *samples_of_sel, size_t sel)
{
	top_detail *d = &m->detail;
	sqlite3_stmt *st = m->st[S_D_BINARIES];
	int rc = sqlite3_bind_text(st, 1, sig, -1, SQLITE_TRANSIENT);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding a signature");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		top_variant *v = add_variant(d, cap);
		if (!v) {
			sqlite3_reset(st);
			return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
		}
		copy_col(st, 0, v->key, sizeof v->key);
		top_config_text((const char *)sqlite3_column_text(st, 1), v->config,
		                sizeof v->config);
		snprintf(v->status, sizeof v->status, "cached");
	}
	if (done(m, st, rc, "reading the kernel's binaries") != 0)
		return -1;

	double from = now - TOP_HISTORY_N * TOP_HISTORY_BUCKET_S;
	int64_t id;
	if (first_id(m, from, &id) != 0)
		return -1;
	st = m->st[S_D_ESAMPLES];
	if (bind3(m, st, id, from, now) != 0)
		return -1;
	if ((rc = sqlite3_bind_text(st, 4, sig, -1, SQLITE_TRANSIENT)) != SQLITE_OK)
		return fail_sql(m, rc, "binding a signature");
	/* rows come grouped by variant: one group at a time */
	top_values cur = { NULL, 0, 0 };
	char key[33] = "";
	for (;;) {
		rc = sqlite3_step(st);
		const char *k = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
		k = k ? k : "";
		if (cur.n && (rc != SQLITE_ROW || strcmp(k, key) != 0)) {
			for (size_t i = 0; i < d->n_v; i++)
				if (strcmp(d->v[i].key, key) == 0) {
					d->v[i].median_ns = top_percentile(cur.v, cur.n, 0.5);
					d->v[i].n_samples = (int64_t)cur.n;
				}
			cur.n = 0;
		}
		if (rc != SQLITE_ROW)
			break;
		snprintf(key, sizeof key, "%s", k);
		if (push_value(&cur, sqlite3_column_double(st, 1)) != 0) {
			free(cur.v);
			sqlite3_reset(st);
			return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
		}
	}
	free(cur.v);
	if (done(m, st, rc, "reading the kernel's timed launches") != 0)
		return -1;
	qsort(d->v, d->n_v, sizeof *d->v, cmp_variant);
	if (d->n_v == 0)
		return 0;
	d->sel = sel < d->n_v ? sel : d->n_v - 1;
	/* the selected variant's samples, by its key this time */
	const char *want = d->v[d->sel].key;
	if (bind3(m, st, id, from, now) != 0)
		return -1;
	if ((rc = sqlite3_bind_text(st, 4, sig, -1, SQLITE_TRANSIENT)) != SQLITE_OK)
		return fail_sql(m, rc, "binding a signature");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		if (k && strcmp(k, want) == 0 && push_value(samples_of_sel, sqlite3_column_double(st, 1)))
		{
			sqlite3_reset(st);
			return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
		}
	}
	return done(m, st, rc, "reading the variant's timed launches");
}

/* The samples BLOB of a result: little-endian float64 ns. */
static int result_samples(top_model *m, int64_t id, top_values *out)
{
	sqlite3_stmt *st = m->st[S_D_RSAMPLES];
	int rc = sqlite3_bind_int64(st, 1, id);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding a result id");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *p = sqlite3_column_blob(st, 0);
		size_t n = (size_t)sqlite3_column_bytes(st, 0) / 8;
		for (size_t i = 0; p && i < n; i++) {
			uint64_t bits = 0;
			for (int b = 7; b >= 0; b--)
				bits = bits << 8 | p[8 * i + (size_t)b];
			double x;
			memcpy(&x, &bits, sizeof x);
			if (isfinite(x) && push_value(out, x) != 0) {
				sqlite3_reset(st);
				return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
			}
		}
	}
	return done(m, st, rc, "reading a result's samples");
}

/* What kjit_launch would do for this kernel (the rules of DESIGN.md). */
static int detail_rule(top_model *m, const char *sig)
{
	top_detail *d = &m->detail;
	sqlite3_stmt *st = m->st[S_D_BEST];
	int rc = sqlite3_bind_text(st, 1, sig, -1, SQLITE_TRANSIENT);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding a signature");
	int n = 0, stale = 0;
	char first[200] = "";
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n++ == 0) {
			char cfg[96];
			top_config_text((const char *)sqlite3_column_text(st, 2), cfg, sizeof cfg);
			snprintf(first, sizeof first, "newest: %s on %s -> %s",
			         (const char *)sqlite3_column_text(st, 1),
			         (const char *)sqlite3_column_text(st, 0), cfg);
		}
		stale += sqlite3_column_int(st, 3) != 0;
	}
	if (done(m, st, rc, "reading the kernel's best configurations") != 0)
		return -1;
	if (n == 0)
		snprintf(d->rule, sizeof d->rule,
		         "rule: default (nothing tuned: launches use the default configuration)");
	else
		snprintf(d->rule, sizeof d->rule,
		         "rule: exact (device, problem) of %d tuned, else nearest problem, same "
		         "arch, default%s; %s", n, stale ? " [some stale]" : "", first);
	return 0;
}

int top_model_load_detail(top_model *m, const char *signature, size_t sel, double now)
{
	top_detail *d = &m->detail;
	d->n_v = 0;
	d->n_samples = 0;
	d->sel = 0;
	d->rule[0] = '\0';
	snprintf(d->signature, sizeof d->signature, "%s", signature ? signature : "");
	d->name[0] = '\0';
	for (size_t i = 0; i < m->n_kernels; i++)
		if (strcmp(m->kernels[i].signature, d->signature) == 0)
			snprintf(d->name, sizeof d->name, "%s", m->kernels[i].name);
	if (!m->db && connect(m) != 0)
		return -1;
	if (begin(m) != 0) {
		disconnect(m);
		return -1;
	}
	/* start from nothing: the old array's capacity is not kept */
	size_t cap = 0;
	free(d->v);
	d->v = NULL;
	top_values samples = { NULL, 0, 0 };
	int r = detail_results(m, d->signature, &cap);
	if (r == 0 && d->n_v > 0) {
		d->sel = sel < d->n_v ? sel : d->n_v - 1;
		r = result_samples(m, d->v[d->sel].result_id, &samples);
	} else if (r == 0) {
		r = detail_binaries(m, d->signature, &cap, now, &samples, sel);
	}
	if (r == 0)
		r = detail_rule(m, d->signature);
	r = commit(m, r);
	sort_doubles(samples.v, samples.n);
	free(d->samples);
	d->samples = samples.v;
	d->n_samples = samples.n;
	return r;
}
