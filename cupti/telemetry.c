/*
 * telemetry.c - the telemetry buffer and its writer thread.
 *
 * Any thread records an event by copying it into a bounded buffer under a
 * short mutex; nothing on that path touches SQLite. A background thread
 * wakes every interval_ms, runs the samplers, swaps the buffer for an empty
 * one (O(1) under the mutex) and writes the batch outside the mutex in one
 * transaction on its own connection. Events that find the buffer full are
 * dropped and counted; the count is written as one `drop` event.
 *
 * Invariant kept for the stats: recorded == written + dropped + (events
 * still in memory); after close nothing is in memory.
 *
 * ":memory:" is accepted: the writer's connection then has a private
 * in-memory database of its own, which keeps the events (retention
 * included) until close and which no other connection can see. An engine
 * opened on ":memory:" thus needs no special case.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "instr.h"

/* Retention runs at the writer's start and then this often. */
#define RETAIN_PERIOD_NS (10ull * 1000000000ull)
/* Rows deleted per transaction, so that pruning a large backlog never
 * holds the write lock for long. */
#define RETAIN_CHUNK 5000
/* busy_timeout of explicit flush, retain and the final write at close:
 * the caller asked for it and waits (the store's own figure). */
#define EXPLICIT_BUSY_MS 10000

typedef struct sampler {
	void (*fn)(void *ctx, kjit__telemetry *t);
	void *ctx;
	struct sampler *next;
} sampler;

struct kjit__telemetry {
	kjit__telemetry_opts opts;
	int64_t pid;
	int tick_busy_ms; /* busy_timeout of the periodic write */

	/* Recording side. `lock` guards fill, fill_len, drop_pending and the
	 * four stats counters, and is only ever held for a copy of one event
	 * or a pointer swap. fill is appended from index 0 after every swap,
	 * so only the pages of the largest burst are ever touched. */
	pthread_mutex_t lock;
	kjit__event *fill;
	size_t fill_len;
	uint64_t drop_pending; /* dropped, not yet handed to the writer */
	uint64_t recorded, written, dropped, batches;

	/* Writing side. write_lock serialises the writer thread, flush and
	 * retain; it guards everything below except the samplers and the
	 * wake-up fields. */
	pthread_mutex_t write_lock;
	kjit__store *store;
	sqlite3_stmt *begin, *commit, *rollback, *insert;
	sqlite3_stmt *any_old, *del_age, *id_span, *count, *del_oldest;
	kjit__event *batch;   /* what the next write writes (kept after a failure) */
	size_t batch_len;
	uint64_t drop_batch;  /* dropped count to write with the batch */
	uint64_t last_retain_ns;

	/* Append-only list; nodes are immutable once linked, so the writer
	 * reads each next pointer under sampler_lock and calls outside it. */
	pthread_mutex_t sampler_lock;
	sampler *samplers, *samplers_tail;

	pthread_mutex_t wake_lock;
	pthread_cond_t wake;
	int stop;
	pthread_t thread;
	int thread_started;
	int locks_ready;
};

void kjit__telemetry_defaults(kjit__telemetry_opts *opts)
{
	opts->ring_capacity = 65536;
	opts->interval_ms = 250;
	opts->max_age_s = 7 * 24 * 3600.0;
	opts->max_rows = 1000000;
}

/* ---- SQLite helpers (callers hold write_lock and the store lock) ------- */

/* Steps a statement that returns no row and resets it at once, so that no
 * statement keeps a read transaction open between ticks. The message is
 * taken before the reset, which may replace it. */
static kjit_status run_stmt(kjit__telemetry *t, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	kjit_status r = rc == SQLITE_DONE ? KJIT_OK : kjit__store_fail(t->store, rc, what);
	sqlite3_reset(st);
	return r;
}

/* One integer from a one-row query; NULL reads as 0. */
static kjit_status query_i64(kjit__telemetry *t, sqlite3_stmt *st, const char *what,
                             int64_t *out)
{
	int rc = sqlite3_step(st);
	kjit_status r = KJIT_OK;
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else
		r = kjit__store_fail(t->store, rc == SQLITE_DONE ? SQLITE_ERROR : rc, what);
	sqlite3_reset(st);
	return r;
}

static kjit_status set_busy_timeout(kjit__telemetry *t, int ms)
{
	int rc = sqlite3_busy_timeout(kjit__store_db(t->store), ms);
	return rc == SQLITE_OK ? KJIT_OK : kjit__store_fail(t->store, rc, "setting busy_timeout");
}

/* Leaves the connection outside any transaction after a failure, keeping
 * the first error's message. */
static void rollback_if_open(kjit__telemetry *t)
{
	sqlite3 *db = kjit__store_db(t->store);
	if (!sqlite3_get_autocommit(db)) {
		(void)sqlite3_step(t->rollback);
		sqlite3_reset(t->rollback);
	}
}

/* Fixed-size text fields may lack their NUL; "" is stored as NULL. */
static int bind_field(sqlite3_stmt *st, int i, const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	return n ? sqlite3_bind_text(st, i, s, (int)n, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

static kjit_status insert_event(kjit__telemetry *t, const kjit__event *ev)
{
	sqlite3_stmt *st = t->insert;
	int rc = sqlite3_bind_double(st, 1, ev->ts);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 2, t->pid);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 3, kjit__event_kind_name(ev->kind), -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = bind_field(st, 4, ev->signature, sizeof ev->signature);
	if (rc == SQLITE_OK)
		rc = bind_field(st, 5, ev->kernel, sizeof ev->kernel);
	if (rc == SQLITE_OK)
		rc = bind_field(st, 6, ev->variant, sizeof ev->variant);
	if (rc == SQLITE_OK)
		rc = bind_field(st, 7, ev->tier, sizeof ev->tier);
	if (rc == SQLITE_OK)
		rc = ev->kind == KJIT__EV_DROP ? sqlite3_bind_null(st, 8)
		                               : sqlite3_bind_double(st, 8, ev->value);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 9, ev->count ? ev->count : 1);
	if (rc == SQLITE_OK)
		rc = bind_field(st, 10, ev->detail, sizeof ev->detail);
	if (rc != SQLITE_OK) {
		kjit_status r = kjit__store_fail(t->store, rc, "binding a telemetry event");
		sqlite3_reset(st);
		return r;
	}
	return run_stmt(t, st, "writing a telemetry event");
}

/* ---- writing ------------------------------------------------------------- */

/* Writes batch[0..batch_len) and the pending drop count in one
 * transaction. On failure everything stays for the next attempt. */
static kjit_status write_batch(kjit__telemetry *t, int busy_ms)
{
	kjit__store_lock(t->store);
	kjit_status st = set_busy_timeout(t, busy_ms);
	if (st == KJIT_OK)
		st = run_stmt(t, t->begin, "starting the telemetry transaction");
	for (size_t i = 0; st == KJIT_OK && i < t->batch_len; i++)
		st = insert_event(t, &t->batch[i]);
	if (st == KJIT_OK && t->drop_batch) {
		kjit__event drop;
		memset(&drop, 0, sizeof drop);
		drop.ts = kjit__wall_time();
		drop.kind = KJIT__EV_DROP;
		drop.count = (int64_t)t->drop_batch;
		st = insert_event(t, &drop);
	}
	if (st == KJIT_OK)
		st = run_stmt(t, t->commit, "committing telemetry events");
	if (st != KJIT_OK)
		rollback_if_open(t);
	kjit__store_unlock(t->store);
	if (st != KJIT_OK)
		return st;
	pthread_mutex_lock(&t->lock);
	t->written += t->batch_len;
	t->batches++;
	pthread_mutex_unlock(&t->lock);
	t->batch_len = 0;
	t->drop_batch = 0;
	return KJIT_OK;
}

/* Writes everything recorded so far (caller holds write_lock). A batch
 * kept from a failed write goes first, in its own transaction, then what
 * was recorded since. */
static kjit_status drain(kjit__telemetry *t, int busy_ms)
{
	for (int pass = 0; pass < 2; pass++) {
		int swapped = 0;
		if (t->batch_len == 0) {
			pthread_mutex_lock(&t->lock);
			kjit__event *empty = t->batch;
			t->batch = t->fill;
			t->batch_len = t->fill_len;
			t->fill = empty;
			t->fill_len = 0;
			t->drop_batch += t->drop_pending;
			t->drop_pending = 0;
			pthread_mutex_unlock(&t->lock);
			swapped = 1;
		}
		if (t->batch_len == 0 && t->drop_batch == 0)
			return KJIT_OK;
		kjit_status st = write_batch(t, busy_ms);
		if (st != KJIT_OK || swapped)
			return st;
	}
	return KJIT_OK;
}

/* ---- retention -------------------------------------------------------- */

/* Deletes by age, then by count, oldest (ts, id) first, in transactions of
 * RETAIN_CHUNK rows (caller holds write_lock). */
static kjit_status retain_locked(kjit__telemetry *t, int busy_ms)
{
	kjit__store_lock(t->store);
	sqlite3 *db = kjit__store_db(t->store);
	kjit_status st = set_busy_timeout(t, busy_ms);
	if (st == KJIT_OK && t->opts.max_age_s > 0) {
		double cutoff = kjit__wall_time() - t->opts.max_age_s;
		int64_t any = 0;
		int rc = sqlite3_bind_double(t->any_old, 1, cutoff);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_double(t->del_age, 1, cutoff);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int(t->del_age, 2, RETAIN_CHUNK);
		if (rc != SQLITE_OK)
			st = kjit__store_fail(t->store, rc, "binding the telemetry age limit");
		/* A read first (one index seek), so that the usual call takes no
		 * write lock at all. */
		else
			st = query_i64(t, t->any_old, "looking for old telemetry events", &any);
		int deleted = any ? RETAIN_CHUNK : 0;
		while (st == KJIT_OK && deleted >= RETAIN_CHUNK) {
			deleted = 0;
			if ((st = run_stmt(t, t->begin, "starting telemetry retention")) != KJIT_OK)
				break;
			if ((st = run_stmt(t, t->del_age, "deleting old telemetry events")) == KJIT_OK)
				deleted = sqlite3_changes(db);
			if (st == KJIT_OK)
				st = run_stmt(t, t->commit, "committing telemetry retention");
		}
	}
	while (st == KJIT_OK && t->opts.max_rows > 0) {
		/* max(id) - min(id) + 1 bounds the count from above and costs two
		 * b-tree seeks; then a count outside any write transaction. Only
		 * when there is something to delete is the count taken again
		 * under the write lock, so that two processes pruning at once do
		 * not both delete the same excess. */
		int64_t span = 0, n = 0;
		if ((st = query_i64(t, t->id_span, "measuring the events table", &span)) != KJIT_OK ||
		    span <= t->opts.max_rows)
			break;
		if ((st = query_i64(t, t->count, "counting telemetry events", &n)) != KJIT_OK ||
		    n <= t->opts.max_rows)
			break;
		if ((st = run_stmt(t, t->begin, "starting telemetry retention")) != KJIT_OK ||
		    (st = query_i64(t, t->count, "counting telemetry events", &n)) != KJIT_OK)
			break;
		int64_t excess = n - t->opts.max_rows;
		if (excess > 0) {
			int rc = sqlite3_bind_int64(t->del_oldest, 1,
			                            excess < RETAIN_CHUNK ? excess : RETAIN_CHUNK);
			st = rc == SQLITE_OK
			             ? run_stmt(t, t->del_oldest, "deleting the oldest telemetry events")
			             : kjit__store_fail(t->store, rc, "binding the telemetry row limit");
		}
		if (st == KJIT_OK)
			st = run_stmt(t, t->commit, "committing telemetry retention");
		if (excess <= RETAIN_CHUNK)
			break;
	}
	if (st != KJIT_OK)
		rollback_if_open(t);
	kjit__store_unlock(t->store);
	t->last_retain_ns = kjit__now_ns();
	return st;
}

/* ---- the writer thread ---------------------------------------------------- */

static void run_samplers(kjit__telemetry *t)
{
	pthread_mutex_lock(&t->sampler_lock);
	sampler *s = t->samplers;
	pthread_mutex_unlock(&t->sampler_lock);
	while (s) {
		s->fn(s->ctx, t);
		pthread_mutex_lock(&t->sampler_lock);
		s = s->next;
		pthread_mutex_unlock(&t->sampler_lock);
	}
}

/* Failures here have nobody to report to: the batch is kept for the next
 * tick and the retention is tried again at the next period. */
static void tick(kjit__telemetry *t, int final)
{
	run_samplers(t);
	pthread_mutex_lock(&t->write_lock);
	(void)drain(t, final ? EXPLICIT_BUSY_MS : t->tick_busy_ms);
	if (!final && kjit__now_ns() - t->last_retain_ns >= RETAIN_PERIOD_NS)
		(void)retain_locked(t, t->tick_busy_ms);
	pthread_mutex_unlock(&t->write_lock);
}

static void *writer_main(void *arg)
{
	kjit__telemetry *t = arg;
	pthread_mutex_lock(&t->write_lock);
	(void)retain_locked(t, t->tick_busy_ms);
	pthread_mutex_unlock(&t->write_lock);

	/* A day at most per wait keeps the timespec sane for huge intervals. */
	double ms = t->opts.interval_ms < 86400e3 ? t->opts.interval_ms : 86400e3;
	uint64_t period_ns = (uint64_t)(ms * 1e6);
	pthread_mutex_lock(&t->wake_lock);
	while (!t->stop) {
		struct timespec now, deadline;
		clock_gettime(CLOCK_MONOTONIC, &now);
		uint64_t ns = (uint64_t)now.tv_nsec + period_ns;
		deadline.tv_sec = now.tv_sec + (time_t)(ns / 1000000000u);
		deadline.tv_nsec = (long)(ns % 1000000000u);
		while (!t->stop && pthread_cond_timedwait(&t->wake, &t->wake_lock, &deadline) != ETIMEDOUT)
			;
		if (t->stop)
			break;
		pthread_mutex_unlock(&t->wake_lock);
		tick(t, 0);
		pthread_mutex_lock(&t->wake_lock);
	}
	pthread_mutex_unlock(&t->wake_lock);
	/* The last tick samples too, so that counts since the previous tick
	 * are not lost. */
	tick(t, 1);
	return NULL;
}

/* ---- open and close ------------------------------------------------------- */

static void destroy(kjit__telemetry *t)
{
	sqlite3_finalize(t->begin);
	sqlite3_finalize(t->commit);
	sqlite3_finalize(t->rollback);
	sqlite3_finalize(t->insert);
	sqlite3_finalize(t->any_old);
	sqlite3_finalize(t->del_age);
	sqlite3_finalize(t->id_span);
	sqlite3_finalize(t->count);
	sqlite3_finalize(t->del_oldest);
	kjit__store_close(t->store);
	for (sampler *s = t->samplers, *next; s; s = next) {
		next = s->next;
		free(s);
	}
	if (t->locks_ready) {
		pthread_mutex_destroy(&t->lock);
		pthread_mutex_destroy(&t->write_lock);
		pthread_mutex_destroy(&t->sampler_lock);
		pthread_mutex_destroy(&t->wake_lock);
		pthread_cond_destroy(&t->wake);
	}
	free(t->fill);
	free(t->batch);
	free(t);
}

static kjit_status prepare(kjit__telemetry *t, const char *sql, sqlite3_stmt **out)
{
	int rc = sqlite3_prepare_v3(kjit__store_db(t->store), sql, -1, SQLITE_PREPARE_PERSISTENT,
	                            out, NULL);
	return rc == SQLITE_OK ? KJIT_OK : kjit__store_fail(t->store, rc, sql);
}

static kjit_status prepare_all(kjit__telemetry *t)
{
	kjit_status st;
	kjit__store_lock(t->store);
	if ((st = prepare(t, "BEGIN IMMEDIATE", &t->begin)) == KJIT_OK &&
	    (st = prepare(t, "COMMIT", &t->commit)) == KJIT_OK &&
	    (st = prepare(t, "ROLLBACK", &t->rollback)) == KJIT_OK &&
	    (st = prepare(t, "INSERT INTO events(ts, pid, kind, signature, kernel, variant, tier,"
	                     " value, count, detail) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	                  &t->insert)) == KJIT_OK &&
	    (st = prepare(t, "SELECT EXISTS(SELECT 1 FROM events WHERE ts < ?1)",
	                  &t->any_old)) == KJIT_OK &&
	    (st = prepare(t, "DELETE FROM events WHERE id IN"
	                     " (SELECT id FROM events WHERE ts < ?1 ORDER BY ts LIMIT ?2)",
	                  &t->del_age)) == KJIT_OK &&
	    /* two subqueries: min() and max() together would scan the table */
	    (st = prepare(t, "SELECT (SELECT max(id) FROM events) - (SELECT min(id) FROM events) + 1",
	                  &t->id_span)) == KJIT_OK &&
	    (st = prepare(t, "SELECT count(*) FROM events", &t->count)) == KJIT_OK)
		st = prepare(t, "DELETE FROM events WHERE id IN"
		                " (SELECT id FROM events ORDER BY ts, id LIMIT ?1)", &t->del_oldest);
	kjit__store_unlock(t->store);
	return st;
}

kjit_status kjit__telemetry_open(const char *db_path, const kjit__telemetry_opts *opts,
                                 kjit__telemetry **out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "telemetry: no output handle");
	*out = NULL;
	if (!db_path || !*db_path)
		return kjit__error(KJIT_ERR_INVALID_ARG, "telemetry: no database path");
	kjit__telemetry_opts o;
	kjit__telemetry_defaults(&o);
	if (opts)
		o = *opts;
	if (o.ring_capacity == 0)
		return kjit__error(KJIT_ERR_INVALID_ARG, "telemetry: ring_capacity must be > 0");
	if (!(o.interval_ms > 0) || !isfinite(o.interval_ms))
		return kjit__error(KJIT_ERR_INVALID_ARG, "telemetry: interval_ms must be > 0 (got %g)",
		                   o.interval_ms);

	kjit__telemetry *t = calloc(1, sizeof *t);
	if (!t)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	t->opts = o;
	t->pid = (int64_t)getpid();
	/* Long enough to ride out another process's short write, short
	 * enough that a stuck lock delays the batch by a tick, not more. */
	double busy = 4 * o.interval_ms;
	t->tick_busy_ms = busy < 100 ? 100 : busy > 5000 ? 5000 : (int)busy;

	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&t->lock, NULL);
	pthread_mutex_init(&t->write_lock, NULL);
	pthread_mutex_init(&t->sampler_lock, NULL);
	pthread_mutex_init(&t->wake_lock, NULL);
	pthread_cond_init(&t->wake, &ca);
	pthread_condattr_destroy(&ca);
	t->locks_ready = 1;

	/* calloc'ed, so that untouched pages of a large buffer cost nothing. */
	t->fill = calloc(o.ring_capacity, sizeof *t->fill);
	t->batch = calloc(o.ring_capacity, sizeof *t->batch);
	kjit_status st;
	if (!t->fill || !t->batch) {
		st = kjit__error(KJIT_ERR_NOMEM, "telemetry: out of memory for a ring of %zu events",
		                 o.ring_capacity);
		goto fail;
	}
	/* Our own connection, with the store's WAL, busy timeout and schema. */
	if ((st = kjit__store_open(db_path, &t->store)) != KJIT_OK) {
		st = kjit__error(st, "telemetry: cannot open the database %s: %s", db_path,
		                 kjit__error_msg());
		goto fail;
	}
	if ((st = prepare_all(t)) != KJIT_OK)
		goto fail;
	int err = pthread_create(&t->thread, NULL, writer_main, t);
	if (err) {
		st = kjit__error(KJIT_ERR_NOMEM, "telemetry: cannot start the writer thread: %s",
		                 strerror(err));
		goto fail;
	}
	t->thread_started = 1;
	*out = t;
	return KJIT_OK;
fail:
	destroy(t);
	return st;
}

void kjit__telemetry_close(kjit__telemetry *t)
{
	if (!t)
		return;
	if (t->thread_started) {
		pthread_mutex_lock(&t->wake_lock);
		t->stop = 1;
		pthread_cond_signal(&t->wake);
		pthread_mutex_unlock(&t->wake_lock);
		pthread_join(t->thread, NULL);
	}
	/* What the final write could not write is lost: count it, so that
	 * recorded == written + dropped holds. */
	pthread_mutex_lock(&t->lock);
	t->dropped += t->fill_len + t->batch_len;
	pthread_mutex_unlock(&t->lock);
	destroy(t);
}

/* ---- recording ---------------------------------------------------------------- */

void kjit__telemetry_record(kjit__telemetry *t, const kjit__event *ev)
{
	if (!t || !ev)
		return;
	/* A NaN or negative ts would fail NOT NULL or mislead retention. */
	double ts = ev->ts > 0 && isfinite(ev->ts) ? ev->ts : kjit__wall_time();
	pthread_mutex_lock(&t->lock);
	t->recorded++;
	if (t->fill_len < t->opts.ring_capacity) {
		kjit__event *slot = &t->fill[t->fill_len++];
		*slot = *ev;
		slot->ts = ts;
	} else {
		t->dropped++;
		t->drop_pending++;
	}
	pthread_mutex_unlock(&t->lock);
}

kjit_status kjit__telemetry_add_sampler(kjit__telemetry *t,
                                        void (*fn)(void *ctx, kjit__telemetry *t), void *ctx)
{
	if (!t || !fn)
		return kjit__error(KJIT_ERR_INVALID_ARG, "telemetry: no handle or no sampler");
	sampler *s = malloc(sizeof *s);
	if (!s)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	s->fn = fn;
	s->ctx = ctx;
	s->next = NULL;
	pthread_mutex_lock(&t->sampler_lock);
	if (t->samplers_tail)
		t->samplers_tail->next = s;
	else
		t->samplers = s;
	t->samplers_tail = s;
	pthread_mutex_unlock(&t->sampler_lock);
	return KJIT_OK;
}

kjit_status kjit__telemetry_flush(kjit__telemetry *t)
{
	if (!t)
		return kjit__error(KJIT_ERR_INVALID_ARG, "telemetry: no handle");
	pthread_mutex_lock(&t->write_lock);
	kjit_status st = drain(t, EXPLICIT_BUSY_MS);
	pthread_mutex_unlock(&t->write_lock);
	return st;
}

kjit_status kjit__telemetry_retain(kjit__telemetry *t)
{
	if (!t)
		return kjit__error(KJIT_ERR_INVALID_ARG, "telemetry: no handle");
	pthread_mutex_lock(&t->write_lock);
	kjit_status st = retain_locked(t, EXPLICIT_BUSY_MS);
	pthread_mutex_unlock(&t->write_lock);
	return st;
}

void kjit__telemetry_get_stats(kjit__telemetry *t, kjit__telemetry_stats *out)
{
	memset(out, 0, sizeof *out);
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	out->recorded = t->recorded;
	out->written = t->written;
	out->dropped = t->dropped;
	out->batches = t->batches;
	pthread_mutex_unlock(&t->lock);
}
