/*
 * model.c - kjit-top's data model: one long-lived read-only connection,
 * PRAGMA data_version polled every tick, and each frame's queries in one
 * short read transaction, so that a WAL checkpoint is never held back for
 * longer than a frame and writers never wait for us.
 *
 * The events of the last 10 minutes are kept in memory and each row is
 * read once: a frame reads the ids above the largest it has seen (a range
 * of the table's own b-tree) and counts the windows in C. The first frame
 * finds the window's smallest id in events_ts alone (the index holds the
 * rowid). Writers stamp events before they write them, so ids are only
 * roughly in time order: windows are always filtered on ts.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools.h"
#include "tui.h"

enum {
	S_VERSION, S_BEGIN, S_COMMIT, S_FIRST_ID, S_MAX_ID, S_NEW, S_KERNELS, S_BEST, S_RUNS,
	S_RUN_DEVICES, S_D_RESULTS, S_D_BINARIES,
	S_D_RSAMPLES, S_D_ESAMPLES, S_D_BEST, S_COUNT
};
_Static_assert(S_COUNT <= sizeof ((top_model *)0)->st / sizeof (sqlite3_stmt *),
               "top_model.st is too small");

/* The figures of a result's profile that the detail reads, in this order:
 * fields of kjit_profile (all doubles), whose names the profiles table's
 * columns have (store_schema.h). */
#define TOP_PROFILE_FIELDS(X)                                                \
	X(dram_bytes_per_s) X(flop_per_s) X(achieved_occupancy) X(energy_j)  \
	X(duration_ns) X(flop_fp64) X(flop_fp32) X(flop_fp16)                \
	X(peak_dram_bytes_per_s) X(peak_flop_fp64_per_s)                     \
	X(peak_flop_fp32_per_s) X(peak_flop_fp16_per_s)
#define PROFILE_COLUMN(name) ", p." #name
#define PROFILE_COLUMNS TOP_PROFILE_FIELDS(PROFILE_COLUMN)
#define PROFILE_OFFSET(name) offsetof(kjit_profile, name),
static const size_t profile_offsets[] = { TOP_PROFILE_FIELDS(PROFILE_OFFSET) };

/* Over the schema's names (store_schema.h). */
static const char *const sql[S_COUNT] = {
	[S_VERSION] = "PRAGMA data_version",
	[S_BEGIN] = "BEGIN",
	[S_COMMIT] = "COMMIT",
	/* covering events_ts: a scan of index entries, no seek into the table
	 * (left to itself the planner walks the table for min(id)) */
	[S_FIRST_ID] = "SELECT min(" KJIT__C_ID ") FROM " KJIT__T_EVENTS
		" INDEXED BY " KJIT__I_EVENTS_TS " WHERE " KJIT__C_TS " >= ?1",
	[S_MAX_ID] = "SELECT max(" KJIT__C_ID ") FROM " KJIT__T_EVENTS,
	/* the rows committed since the last frame: a range of the table's
	 * b-tree (+ts keeps the planner off events_ts) */
	[S_NEW] = "SELECT " KJIT__C_ID ", " KJIT__C_TS ", " KJIT__C_PID ", "
		KJIT__F_EVENT_KIND "(" KJIT__C_KIND "), "
		KJIT__C_SIGNATURE ", " KJIT__C_KERNEL ", " KJIT__C_TIER ", " KJIT__C_VALUE ", "
		KJIT__C_COUNT " FROM " KJIT__T_EVENTS
		" WHERE " KJIT__C_ID " > ?1 AND " KJIT__C_ID " <= ?2 AND +" KJIT__C_TS " >= ?3",
	[S_KERNELS] = "SELECT " KJIT__C_SIGNATURE ", " KJIT__C_NAME " FROM " KJIT__T_KERNELS,
	[S_BEST] = "SELECT " KJIT__C_SIGNATURE ", " KJIT__C_CONFIG ", " KJIT__C_MEDIAN_NS ", "
		KJIT__C_STALE " FROM " KJIT__T_BEST
		" ORDER BY " KJIT__C_SIGNATURE ", " KJIT__C_UPDATED " DESC",
	[S_RUNS] = "SELECT " KJIT__C_ID ", " KJIT__C_KERNEL ", " KJIT__C_STRATEGY ", "
		KJIT__C_STATUS ", " KJIT__C_TOTAL ", " KJIT__C_EVALUATED ", " KJIT__C_STARTED ", "
		KJIT__C_UPDATED ", " KJIT__C_SIGNATURE ", " KJIT__C_DEVICE_KEY ", " KJIT__C_PROBLEM
		", " KJIT__C_PID " FROM " KJIT__T_RUNS
		" WHERE " KJIT__C_STATUS " = '" KJIT__RUN_RUNNING "' OR " KJIT__C_UPDATED " >= ?1"
		" ORDER BY " KJIT__C_STATUS " <> '" KJIT__RUN_RUNNING "',"
		" " KJIT__C_UPDATED " DESC, " KJIT__C_ID " DESC LIMIT 64",
	/* the prefix of results' UNIQUE index, so that no run scans the table;
	 * each device's rows together, by ordinal, the unknown one last */
	[S_RUN_DEVICES] = "SELECT " KJIT__C_DEVICE_ORDINAL ", " KJIT__C_DEVICE_UUID ", "
		KJIT__F_RESULT_STATUS "(" KJIT__C_STATUS "), count(*), min(" KJIT__C_MEDIAN_NS "),"
		" max(" KJIT__C_CREATED ")"
		" FROM " KJIT__T_RESULTS " WHERE " KJIT__C_SIGNATURE " = ?1 AND "
		KJIT__C_DEVICE_KEY " = ?2 AND " KJIT__C_PROBLEM " = ?3 AND " KJIT__C_RUN_ID " = ?4"
		" GROUP BY " KJIT__C_DEVICE_ORDINAL ", " KJIT__C_DEVICE_UUID ", " KJIT__C_STATUS
		" ORDER BY " KJIT__C_DEVICE_ORDINAL " IS NULL AND " KJIT__C_DEVICE_UUID " IS NULL, "
		KJIT__C_DEVICE_ORDINAL " IS NULL, " KJIT__C_DEVICE_ORDINAL ", " KJIT__C_DEVICE_UUID,
	/* with the profile's figures that the detail shows (PROFILE_COLUMNS) */
	[S_D_RESULTS] = "SELECT r." KJIT__C_ID ", r." KJIT__C_CONFIG ", r." KJIT__C_STATUS ", r."
		KJIT__C_MEDIAN_NS ", r." KJIT__C_N_SAMPLES ", p." KJIT__C_RESULT_ID " IS NOT NULL, "
		KJIT__F_RESULT_STATUS "(r." KJIT__C_STATUS ")" PROFILE_COLUMNS
		" FROM " KJIT__T_RESULTS " r LEFT JOIN " KJIT__T_PROFILES " p ON p."
		KJIT__C_RESULT_ID " = r." KJIT__C_ID " WHERE r." KJIT__C_SIGNATURE " = ?1 ORDER BY r."
		KJIT__C_MEDIAN_NS " IS NULL, r." KJIT__C_MEDIAN_NS ", r." KJIT__C_ID " LIMIT 500",
	[S_D_BINARIES] = "SELECT " KJIT__C_KEY ", " KJIT__C_OPTIONS " FROM " KJIT__T_BINARIES
		" WHERE " KJIT__C_SIGNATURE " = ?1 LIMIT 500",
	[S_D_RSAMPLES] = "SELECT " KJIT__C_SAMPLES " FROM " KJIT__T_RESULTS
		" WHERE " KJIT__C_ID " = ?1",
	/* ?5, the launch kind, is bound once at connect */
	[S_D_ESAMPLES] = "SELECT " KJIT__C_VARIANT ", " KJIT__C_VALUE " FROM " KJIT__T_EVENTS
		" WHERE " KJIT__C_ID " >= ?1 AND +" KJIT__C_TS " >= ?2 AND +" KJIT__C_TS " <= ?3"
		" AND " KJIT__F_EVENT_KIND "(" KJIT__C_KIND ") = ?5 AND " KJIT__C_VALUE " > 0"
		" AND " KJIT__C_VARIANT " IS NOT NULL AND +" KJIT__C_SIGNATURE " = ?4"
		" ORDER BY " KJIT__C_VARIANT ", " KJIT__C_VALUE,
	[S_D_BEST] = "SELECT " KJIT__C_DEVICE_KEY ", " KJIT__C_PROBLEM ", " KJIT__C_CONFIG ", "
		KJIT__C_STALE " FROM " KJIT__T_BEST " WHERE " KJIT__C_SIGNATURE " = ?1"
		" ORDER BY " KJIT__C_UPDATED " DESC",
};

double top_now(void)
{
	const char *env = kjit__env(KJIT__ENV_TOP_NOW);
	if (env) {
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
	m->window_bucket = -1;
	m->last_id = -1;
	for (int i = 0; i < TOP_HISTORY_N; i++)
		m->history.b[i].index = -1;
	m->state = TOP_DB_MISSING;
}

static void cache_reset(top_model *m);

void top_model_close(top_model *m)
{
	disconnect(m);
	cache_reset(m);
	free(m->path);
	free(m->kernels);
	free(m->runs);
	free(m->devices);
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

static int connect(top_model *m)
{
	static const top_db_state states[] = {
		[KJIT__READER_MISSING] = TOP_DB_MISSING, [KJIT__READER_EMPTY] = TOP_DB_EMPTY,
		[KJIT__READER_FOREIGN] = TOP_DB_FOREIGN, [KJIT__READER_SCHEMA] = TOP_DB_SCHEMA,
		[KJIT__READER_REFUSED] = TOP_DB_REFUSED, [KJIT__READER_ERROR] = TOP_DB_ERROR,
	};
	kjit__reader_fail why = KJIT__READER_ERROR;
	if (kjit__store_open_reader(m->path, &m->db, &why) != KJIT_OK)
		return fail(m, states[why], "%s", kjit_last_error(), NULL);
	int rc;
	for (int i = 0; i < S_COUNT; i++) {
		rc = sqlite3_prepare_v3(m->db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &m->st[i],
		                        NULL);
		if (rc != SQLITE_OK) {
			fail_sql(m, rc, "preparing a query");
			disconnect(m);
			return -1;
		}
	}
	/* bindings outlive sqlite3_reset(): constants are bound once */
	rc = sqlite3_bind_int(m->st[S_D_ESAMPLES], 5, KJIT__EV_LAUNCH);
	if (rc != SQLITE_OK) {
		fail_sql(m, rc, "binding an event kind");
		disconnect(m);
		return -1;
	}
	m->state = TOP_DB_OK;
	m->message[0] = '\0';
	m->data_version = -1;
	/* perhaps another file by now: read the window afresh */
	cache_reset(m);
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

/* The smallest rowid of the events from `from` on; INT64_MAX when none. */
static int first_id(top_model *m, double from, int64_t *id)
{
	sqlite3_stmt *st = m->st[S_FIRST_ID];
	int rc = sqlite3_bind_double(st, 1, from);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding a time");
	rc = sqlite3_step(st);
	*id = rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
	              ? sqlite3_column_int64(st, 0) : INT64_MAX;
	if (rc == SQLITE_ROW)
		rc = SQLITE_DONE;
	return done(m, st, rc, "finding the first event of a window");
}

/* ---- figures from the file (TOP_COUNT_MAX, TOP_TIME_MAX) ----------------------- */

static int64_t col_count(sqlite3_stmt *st, int col)
{
	int64_t v = sqlite3_column_int64(st, col);
	return sqlite3_column_type(st, col) == SQLITE_INTEGER && v >= 0 && v <= TOP_COUNT_MAX ? v : 0;
}

/* Unix seconds; NAN for none or one beyond the calendar */
static double col_time(sqlite3_stmt *st, int col)
{
	double v = sqlite3_column_double(st, col);
	return sqlite3_column_type(st, col) != SQLITE_NULL && v >= 0 && v <= TOP_TIME_MAX ? v : NAN;
}

/* An enum of the reader's SQL functions (KJIT__F_*); count for a word
 * this kjit-top does not know */
static int col_enum(sqlite3_stmt *st, int col, int count)
{
	int v = sqlite3_column_int(st, col);
	return sqlite3_column_type(st, col) == SQLITE_INTEGER && v >= 0 && v < count ? v : count;
}

/* A duration (ns); NAN for none, or one that is not positive and finite */
static double col_ns(sqlite3_stmt *st, int col)
{
	double v = sqlite3_column_double(st, col);
	return sqlite3_column_type(st, col) != SQLITE_NULL && v > 0 && isfinite(v) ? v : NAN;
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
	if (m->n_kernels > 1) /* qsort wants a non-NULL array, even of none */
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
		k->best_ns = col_ns(st, 2);
		k->stale = sqlite3_column_int(st, 3) != 0;
	}
	return done(m, st, rc, "reading the best configurations");
}

/* Walks rows ordered by (signature, kernel, value) and hands each
 * kernel's sorted values to fn. */
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

/* Values of kernels (by index into m->kernels), for per-kernel medians. */
typedef struct top_kv {
	size_t k;
	double v;
} top_kv;

typedef struct top_kvs {
	top_kv *p;
	size_t n, cap;
} top_kvs;

static int push_kv(top_kvs *a, size_t k, double v)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		top_kv *p = realloc(a->p, cap * sizeof *p);
		if (!p)
			return -1;
		a->p = p;
		a->cap = cap;
	}
	a->p[a->n].k = k;
	a->p[a->n++].v = v;
	return 0;
}

static int cmp_kv(const void *a, const void *b)
{
	const top_kv *x = a, *y = b;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return kjit__cmp_double(x->v, y->v);
}

/* The median of each kernel's values into its field at `offset`. */
static int per_kernel_median(top_model *m, top_kvs *a, size_t offset)
{
	if (a->n > 1)
		qsort(a->p, a->n, sizeof *a->p, cmp_kv);
	double *v = malloc((a->n + 1) * sizeof *v);
	if (!v)
		return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
	for (size_t i = 0; i < a->n; i++)
		v[i] = a->p[i].v;
	for (size_t i = 0, j; i < a->n; i = j) {
		for (j = i; j < a->n && a->p[j].k == a->p[i].k; j++)
			;
		double med = top_percentile(v + i, j - i, 0.5);
		memcpy((char *)&m->kernels[a->p[i].k] + offset, &med, sizeof med);
	}
	free(v);
	return 0;
}

/* The pids seen; writers come in batches, so the last one found is
 * usually the next one wanted. */
typedef struct top_pids {
	int64_t *p;
	size_t n, cap, last;
} top_pids;

static int add_pid(top_pids *s, int64_t pid)
{
	if (s->n && s->p[s->last] == pid)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i] == pid) {
			s->last = i;
			return 0;
		}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		int64_t *p = realloc(s->p, cap * sizeof *p);
		if (!p)
			return -1;
		s->p = p;
		s->cap = cap;
	}
	s->last = s->n;
	s->p[s->n++] = pid;
	return 0;
}

static const char *col_text(sqlite3_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st, col);
}

/* ---- the event cache -------------------------------------------------------------- */

enum { TIER_NONE, TIER_MEMORY, TIER_DISK, TIER_PTX, TIER_MISS };
#define NO_KEY UINT32_MAX

struct top_ev {
	double ts, value;  /* value NAN: NULL */
	int64_t count;
	int32_t pid;
	uint32_t key;      /* index into keys, NO_KEY: no kernel */
	uint8_t kind, tier;
};

struct top_key {
	char signature[33];
	char name[64];
};

static void cache_reset(top_model *m)
{
	free(m->ev);
	free(m->keys);
	if (m->key_index)
		kjit__table_free(m->key_index);
	free(m->key_index);
	m->ev = NULL;
	m->keys = NULL;
	m->key_index = NULL;
	m->n_ev = m->cap_ev = m->n_keys = m->cap_keys = 0;
	m->last_id = -1;
}

static uint64_t key_hash(const char *sig, const char *name)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = sig; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static uint64_t hash_of_key(const void *ctx, uintptr_t item)
{
	const struct top_key *k = &((const top_model *)ctx)->keys[item - 1];
	return key_hash(k->signature, k->name);
}

/* A key looked for: m's keys and the value. */
typedef struct key_probe {
	const top_model *m;
	const char *signature, *name;
} key_probe;

static int is_key(const void *ctx, uintptr_t item)
{
	const key_probe *p = ctx;
	const struct top_key *k = &p->m->keys[item - 1];
	return strcmp(k->signature, p->signature) == 0 && strcmp(k->name, p->name) == 0;
}

/* Copies at most size - 1 bytes of s (NULL: "") and its NUL into out. */
static void copy_field(char *out, size_t size, const char *s)
{
	size_t n = s ? strnlen(s, size - 1) : 0;
	if (n)
		memcpy(out, s, n);
	out[n] = '\0';
}

/* The key of (signature, name), added when new; NO_KEY for an event of
 * no kernel, or when out of memory (*oom set). Runs once per event read:
 * no printf here. */
static uint32_t key_of(top_model *m, const char *sig, const char *name, int *oom)
{
	char s[33], n[64];
	copy_field(s, sizeof s, sig);
	copy_field(n, sizeof n, name);
	if (!s[0] && !n[0])
		return NO_KEY;
	uint64_t h = key_hash(s, n);
	key_probe probe = { m, s, n };
	uintptr_t item = m->key_index ? kjit__table_find(m->key_index, h, is_key, &probe) : 0;
	if (item)
		return (uint32_t)(item - 1);
	if (!m->key_index && !(m->key_index = calloc(1, sizeof *m->key_index))) {
		*oom = 1;
		return NO_KEY;
	}
	if (m->n_keys == m->cap_keys) {
		size_t cap = m->cap_keys ? 2 * m->cap_keys : 256;
		struct top_key *p = realloc(m->keys, cap * sizeof *p);
		if (!p) {
			*oom = 1;
			return NO_KEY;
		}
		m->keys = p;
		m->cap_keys = cap;
	}
	memcpy(m->keys[m->n_keys].signature, s, sizeof s);
	memcpy(m->keys[m->n_keys].name, n, sizeof n);
	if (kjit__table_insert(m->key_index, h, m->n_keys + 1, hash_of_key, m) != KJIT_OK) {
		*oom = 1;
		return NO_KEY;
	}
	return (uint32_t)m->n_keys++;
}

/* The kind of an events row (column col); KJIT__EV_COUNT for one the
 * windows do not count (a load, a tune, or a kind this kjit-top does not
 * know). */
static kjit__event_kind event_kind(sqlite3_stmt *st, int col)
{
	kjit__event_kind k = (kjit__event_kind)col_enum(st, col, KJIT__EV_COUNT);
	return k == KJIT__EV_LOAD || k == KJIT__EV_TUNE ? KJIT__EV_COUNT : k;
}

static int parse_tier(const char *t)
{
	if (!t)
		return TIER_NONE;
	return strcmp(t, KJIT__TIER_MEMORY) == 0 ? TIER_MEMORY
	     : strcmp(t, KJIT__TIER_DISK) == 0 ? TIER_DISK
	     : strcmp(t, KJIT__TIER_PTX) == 0 ? TIER_PTX
	     : strcmp(t, KJIT__TIER_MISS) == 0 ? TIER_MISS : TIER_NONE;
}

/* Drops what left the 10-minute window, then reads the rows committed
 * since the last frame (on the first, the window from events_ts). */
static int read_new_events(top_model *m, double now)
{
	double from = now - TOP_HISTORY_N * TOP_HISTORY_BUCKET_S;
	int64_t max_id = 0;
	if (step_int(m, m->st[S_MAX_ID], &max_id, "reading the last event id") != 0)
		return -1;
	/* fewer rows than before at the top: another file, or rows deleted */
	if (max_id < m->last_id)
		cache_reset(m);
	size_t keep = 0;
	for (size_t i = 0; i < m->n_ev; i++)
		if (m->ev[i].ts >= from)
			m->ev[keep++] = m->ev[i];
	m->n_ev = keep;
	int64_t after = m->last_id;
	if (after < 0) {
		int64_t first;
		if (first_id(m, from, &first) != 0)
			return -1;
		after = first == INT64_MAX ? max_id : first - 1;
	}
	sqlite3_stmt *st = m->st[S_NEW];
	int rc = sqlite3_bind_int64(st, 1, after);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 2, max_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(st, 3, from);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding an id range");
	int oom = 0;
	while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (m->n_ev == m->cap_ev) {
			size_t cap = m->cap_ev ? 2 * m->cap_ev : 4096;
			struct top_ev *p = realloc(m->ev, cap * sizeof *p);
			if (!p) {
				oom = 1;
				break;
			}
			m->ev = p;
			m->cap_ev = cap;
		}
		struct top_ev *e = &m->ev[m->n_ev];
		e->ts = col_time(st, 1);
		e->pid = (int32_t)sqlite3_column_int64(st, 2);
		e->kind = (uint8_t)event_kind(st, 3);
		/* only compiles and the last minute are counted per kernel: the
		 * rest of the history needs no key (the clock only moves on) */
		e->key = e->kind == KJIT__EV_COMPILE || e->ts >= now - TOP_METER_WINDOW_S
		                 ? key_of(m, col_text(st, 4), col_text(st, 5), &oom) : NO_KEY;
		e->tier = (uint8_t)parse_tier(col_text(st, 6));
		e->value = sqlite3_column_type(st, 7) == SQLITE_NULL ? NAN
		                                                      : sqlite3_column_double(st, 7);
		if (!isfinite(e->value))
			e->value = NAN;
		e->count = col_count(st, 8);
		/* a row of no known time is in no window */
		m->n_ev += e->kind != KJIT__EV_COUNT && !isnan(e->ts);
	}
	if (oom) {
		sqlite3_reset(st);
		cache_reset(m);
		return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
	}
	if (done(m, st, rc, "reading the new events") != 0)
		return -1;
	m->last_id = max_id;
	return 0;
}

/* ---- the windows: meters, kernels, history ------------------------------------------ */

typedef struct window {
	size_t *kernel;    /* per key: index into m->kernels, SIZE_MAX: not looked up */
	top_kvs samples;   /* timed launches of the last minute */
	top_kvs compiles;  /* compiles of the last 10 minutes */
	top_values minute_compiles;
	top_pids pids;
	int64_t launches;
} window;

static top_bucket *bucket_at(top_history *h, int64_t index)
{
	return &h->b[index % TOP_HISTORY_N];
}

/* Adds one cached event at ts in [now - 10 min, now] to the history and,
 * within the last minute, to the meters and its kernel. */
static int count_event(top_model *m, window *w, const struct top_ev *e, size_t sorted,
                       double now)
{
	top_bucket *b = bucket_at(&m->history, (int64_t)floor(e->ts / TOP_HISTORY_BUCKET_S));
	double c = (double)e->count;
	/* the writer stores 0 (or NULL) as the value of a count row */
	int timed = e->value > 0;
	top_kernel *k = NULL;
	if (e->key != NO_KEY) {
		if (w->kernel[e->key] == SIZE_MAX) {
			k = find_kernel(m, sorted, m->keys[e->key].signature, m->keys[e->key].name);
			if (!k)
				return -1;
			w->kernel[e->key] = (size_t)(k - m->kernels);
		}
		k = &m->kernels[w->kernel[e->key]];
	}
	size_t ki = k ? (size_t)(k - m->kernels) : 0;
	int minute = e->ts >= now - TOP_METER_WINDOW_S;
	top_meters *mt = &m->meters;
	switch (e->kind) {
	case KJIT__EV_COMPILE:
		b->compiles += c;
		if (!isnan(e->value) && ((k && push_kv(&w->compiles, ki, e->value) != 0) ||
		              (minute && push_value(&w->minute_compiles, e->value) != 0)))
			return -1;
		break;
	case KJIT__EV_CACHE:
		b->lookups += c;
		/* a hit: no NVRTC (the driver's compile of stored PTX included) */
		b->hits += e->tier == TIER_MEMORY || e->tier == TIER_DISK || e->tier == TIER_PTX ? c : 0;
		if (!minute)
			break;
		int64_t *tier = e->tier == TIER_MEMORY ? &mt->mem : e->tier == TIER_DISK ? &mt->disk
		              : e->tier == TIER_PTX ? &mt->ptx : e->tier == TIER_MISS ? &mt->miss
		              : NULL;
		int64_t *ktier = !k ? NULL : e->tier == TIER_MEMORY ? &k->mem
		               : e->tier == TIER_DISK ? &k->disk : e->tier == TIER_PTX ? &k->ptx
		               : e->tier == TIER_MISS ? &k->miss : NULL;
		if (tier)
			*tier += e->count;
		if (ktier)
			*ktier += e->count;
		break;
	case KJIT__EV_LAUNCH:
		/* a count row, or a timed sample of one profiled launch */
		if (timed) {
			b->kernel_ns_sum += e->value;
			b->kernel_ns_n += 1;
			if (minute && k && push_kv(&w->samples, ki, e->value) != 0)
				return -1;
		} else {
			b->launches += c;
			if (minute) {
				w->launches += e->count;
				if (k)
					k->launches += e->count;
			}
		}
		break;
	case KJIT__EV_DROP:
		mt->dropped += minute ? e->count : 0;
		break;
	default:
		break;
	}
	return minute ? add_pid(&w->pids, e->pid) : 0;
}

static int count_window(top_model *m, double now, size_t sorted)
{
	top_history *h = &m->history;
	int64_t nb = (int64_t)floor(now / TOP_HISTORY_BUCKET_S);
	for (int64_t i = nb - TOP_HISTORY_N + 1; i <= nb; i++) {
		top_bucket *b = bucket_at(h, i);
		memset(b, 0, sizeof *b);
		b->index = i;
	}
	window w;
	memset(&w, 0, sizeof w);
	w.kernel = malloc((m->n_keys + 1) * sizeof *w.kernel);
	int r = w.kernel ? 0 : -1;
	for (size_t i = 0; r == 0 && i < m->n_keys; i++)
		w.kernel[i] = SIZE_MAX;
	double from = (double)(nb - TOP_HISTORY_N + 1) * TOP_HISTORY_BUCKET_S;
	for (size_t i = 0; r == 0 && i < m->n_ev; i++)
		if (m->ev[i].ts >= from && m->ev[i].ts <= now)
			r = count_event(m, &w, &m->ev[i], sorted, now);
	if (r == 0)
		r = per_kernel_median(m, &w.samples, offsetof(top_kernel, recent_ns));
	if (r == 0)
		r = per_kernel_median(m, &w.compiles, offsetof(top_kernel, compile_p50_ms));
	if (r == 0) {
		top_meters *mt = &m->meters;
		top_values *c = &w.minute_compiles;
		kjit__sort_doubles(c->v, c->n);
		mt->compiles = (int64_t)c->n;
		mt->compile_p50_ms = top_percentile(c->v, c->n, 0.5);
		mt->compile_p95_ms = top_percentile(c->v, c->n, 0.95);
		mt->compile_max_ms = c->n ? c->v[c->n - 1] : NAN;
		mt->launches_per_s = (double)w.launches / TOP_METER_WINDOW_S;
		mt->writers = (int64_t)w.pids.n;
	}
	free(w.kernel);
	free(w.samples.p);
	free(w.compiles.p);
	free(w.minute_compiles.v);
	free(w.pids.p);
	return r == 0 ? 0 : fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
}

static int bind_text(top_model *m, sqlite3_stmt *st, int i, const unsigned char *text)
{
	int rc = sqlite3_bind_text(st, i, text ? (const char *)text : "", -1, SQLITE_TRANSIENT);
	return rc == SQLITE_OK ? 0 : fail_sql(m, rc, "binding a key");
}

static top_run_device *add_device(top_model *m, int64_t ordinal, const char *uuid)
{
	if (m->n_devices == m->cap_devices) {
		size_t cap = m->cap_devices ? 2 * m->cap_devices : 16;
		top_run_device *p = realloc(m->devices, cap * sizeof *p);
		if (!p)
			return NULL;
		m->devices = p;
		m->cap_devices = cap;
	}
	top_run_device *d = &m->devices[m->n_devices++];
	memset(d, 0, sizeof *d);
	d->ordinal = ordinal;
	snprintf(d->uuid, sizeof d->uuid, "%s", uuid);
	d->best_ns = NAN;
	return d;
}

/* Counts by status and the best so far of one run, in all and by the
 * device that measured them (stepping `runs`). */
static int run_results(top_model *m, sqlite3_stmt *runs, top_run *r)
{
	sqlite3_stmt *st = m->st[S_RUN_DEVICES];
	if (bind_text(m, st, 1, sqlite3_column_text(runs, 8)) != 0 ||
	    bind_text(m, st, 2, sqlite3_column_text(runs, 9)) != 0 ||
	    bind_text(m, st, 3, sqlite3_column_text(runs, 10)) != 0)
		return -1;
	int rc = sqlite3_bind_int64(st, 4, r->id);
	if (rc != SQLITE_OK)
		return fail_sql(m, rc, "binding a run id");
	r->first_device = m->n_devices;
	top_run_device *d = NULL;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t ordinal = sqlite3_column_type(st, 0) == SQLITE_NULL
		                          ? -1 : sqlite3_column_int64(st, 0);
		const char *uuid = col_text(st, 1) ? col_text(st, 1) : "";
		if (!d || d->ordinal != ordinal || strncmp(d->uuid, uuid, sizeof d->uuid - 1) != 0) {
			if (!(d = add_device(m, ordinal, uuid))) {
				sqlite3_reset(st);
				return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
			}
			r->n_devices++;
		}
		d->evaluated += sqlite3_column_int64(st, 3);
		if (col_time(st, 5) > d->last)
			d->last = col_time(st, 5);
		/* a status this kjit-top does not know is counted nowhere */
		int s = col_enum(st, 2, KJIT__RS_COUNT);
		if (s == KJIT__RS_COUNT)
			continue;
		r->by_status[s] += sqlite3_column_int64(st, 3);
		d->by_status[s] += sqlite3_column_int64(st, 3);
		if (s == KJIT_RESULT_OK && sqlite3_column_type(st, 4) != SQLITE_NULL) {
			d->best_ns = col_ns(st, 4);
			if (isnan(r->best_ns) || d->best_ns < r->best_ns)
				r->best_ns = d->best_ns;
		}
	}
	return done(m, st, rc, "reading a run's results");
}

static int query_runs(top_model *m, double now)
{
	m->n_runs = 0;
	m->n_devices = 0;
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
		r->total = col_count(st, 4) > 0 ? col_count(st, 4) : -1; /* -1: not known */
		r->evaluated = col_count(st, 5);
		r->started = col_time(st, 6);
		r->updated = col_time(st, 7);
		r->best_ns = r->eta_s = NAN;
		int running = strcmp(r->status, KJIT__RUN_RUNNING) == 0;
		/* a writer killed before it could say so: its process is gone */
		pid_t pid = (pid_t)sqlite3_column_int64(st, 11);
		if (running && pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) {
			snprintf(r->status, sizeof r->status, "%s", KJIT__RUN_ABANDONED);
			running = 0;
		}
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
	if (read_new_events(m, now) != 0 || query_kernels(m) != 0)
		return -1;
	if (count_window(m, now, m->n_kernels) != 0 || query_runs(m, now) != 0)
		return -1;
	for (size_t i = 0; i < m->n_kernels; i++) {
		top_kernel *k = &m->kernels[i];
		if (k->has_best && k->best_ns > 0 && k->recent_ns > 0)
			k->drift = k->recent_ns / k->best_ns - 1;
	}
	/* kernels only seen in events were appended: back in order */
	if (m->n_kernels > 1) /* qsort wants a non-NULL array, even of none */
		qsort(m->kernels, m->n_kernels, sizeof *m->kernels, cmp_kernel);
	return 0;
}

int top_model_refresh(top_model *m, double now, int force)
{
	if (!m->db && connect(m) != 0)
		return -1;
	int64_t version = 0;
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
	v->median_ns = v->dram_bytes_per_s = v->flop_per_s = v->peak = v->occupancy =
		v->energy_j = NAN;
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
	return top_config_cmp(x->config, y->config);
}

/* The profile's figures from column col on (TOP_PROFILE_FIELDS), NULL as
 * NAN, into v. */
static void read_profile(sqlite3_stmt *st, int col, top_variant *v)
{
	kjit_profile p;
	kjit_profile_clear(&p);
	for (size_t i = 0; i < sizeof profile_offsets / sizeof *profile_offsets; i++) {
		int c = col + (int)i;
		double d = sqlite3_column_type(st, c) == SQLITE_NULL ? NAN
		         : sqlite3_column_double(st, c);
		memcpy((char *)&p + profile_offsets[i], &d, sizeof d);
	}
	double rate;
	const char *what;
	v->dram_bytes_per_s = p.dram_bytes_per_s;
	v->flop_per_s = p.flop_per_s;
	v->occupancy = p.achieved_occupancy;
	v->energy_j = p.energy_j;
	v->peak = kjit_profile_peak(&p, &rate, &what);
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
		top_config_text(col_text(st, 1), v->config, sizeof v->config);
		copy_col(st, 2, v->status, sizeof v->status);
		int rs = col_enum(st, 6, KJIT__RS_COUNT);
		v->failed = rs != KJIT__RS_COUNT && rs != KJIT_RESULT_OK;
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			v->median_ns = col_ns(st, 3);
		v->n_samples = col_count(st, 4);
		if ((v->has_profile = sqlite3_column_int(st, 5)))
			read_profile(st, 7, v);
		d->has_profiles |= v->has_profile;
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
			size_t i = 0;
			while (i < d->n_v && strcmp(d->v[i].key, key) != 0)
				i++;
			/* launched, but evicted from the cache since: known by its key */
			int evicted = i == d->n_v;
			top_variant *v = evicted ? add_variant(d, cap) : &d->v[i];
			if (!v) {
				free(cur.v);
				sqlite3_reset(st);
				return fail(m, TOP_DB_ERROR, "out of memory", NULL, NULL);
			}
			if (evicted) {
				snprintf(v->key, sizeof v->key, "%s", key);
				snprintf(v->config, sizeof v->config, "binary %.12s", key);
				snprintf(v->status, sizeof v->status, "evicted");
			}
			v->median_ns = top_percentile(cur.v, cur.n, 0.5);
			v->n_samples = (int64_t)cur.n;
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
	if (d->n_v > 1)
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

/* What kjit_launch would do for this kernel (the rules of doc/DESIGN.md). */
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
	/* signature may be d->signature itself (a reload) */
	char sig[sizeof d->signature];
	snprintf(sig, sizeof sig, "%s", signature ? signature : "");
	memcpy(d->signature, sig, sizeof sig);
	d->n_v = 0;
	d->has_profiles = 0;
	d->n_samples = 0;
	d->sel = 0;
	d->rule[0] = '\0';
	d->name[0] = '\0';
	d->mem = d->disk = d->ptx = d->miss = 0;
	for (size_t i = 0; i < m->n_kernels; i++) {
		const top_kernel *k = &m->kernels[i];
		if (strcmp(k->signature, d->signature) != 0)
			continue;
		snprintf(d->name, sizeof d->name, "%s", k->name);
		d->mem = k->mem;
		d->disk = k->disk;
		d->ptx = k->ptx;
		d->miss = k->miss;
	}
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
	kjit__sort_doubles(samples.v, samples.n);
	free(d->samples);
	d->samples = samples.v;
	d->n_samples = samples.n;
	return r;
}
