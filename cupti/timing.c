/*
 * timing.c - GPU time of kernel launches.
 *
 * Two timers behind one interface (instr.h):
 *
 * CUPTI (the default). CONCURRENT_KERNEL activity records carry the GPU
 * start and end of every kernel; a launch is matched to its record by
 * correlation id. Around each timed launch we push an external correlation
 * id (CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) and pop it after, so CUPTI
 * emits an EXTERNAL_CORRELATION record (external id <-> CUDA correlation
 * id) for the launch API call; the kernel record carries the same
 * correlation id. The two records may come in either order and in
 * different buffers, so whichever comes first waits in a table keyed by
 * correlation id (bounded: the oldest entries are dropped, which only
 * loses kernels that nobody timed). External correlation records are only
 * emitted for API calls that produce API activity records: CUPTI 13.0 on
 * the H200 emitted none with the launch entry points enabled one by one,
 * so the whole CUPTI_ACTIVITY_KIND_DRIVER kind is on by default.
 * $KJIT_CUPTI_DRIVER=launch enables only the launch entry points
 * (cuptiActivityEnableDriverApi), cheaper for the other API calls where a
 * CUPTI emits the records that way; if none ever shows up, the whole kind
 * is enabled after all and the run is repeated once.
 *
 * External ids come from one process-wide counter: timed launches of
 * kjit__timer_run() take plain ids, sampled launches
 * (kjit__timer_launch_tagged) take ids with the top bit set (the caller's
 * tag is kept in the pending entry, so tags of different timers never
 * collide). Pending ids live in one process-wide table, so several timers
 * (and threads) can time at once and any thread that processes a buffer
 * delivers every timer's records.
 *
 * CUPTI is process-wide: the first timer opened subscribes (so that
 * Nsight, compute-sanitizer or another CUPTI client is detected, and so
 * that no other client can steal our buffers), registers the buffer
 * callbacks and enables the activity kinds; the last one closed disables
 * them, flushes and unsubscribes (a refcount under g_setup). Buffers are
 * 8 MiB, 8-byte aligned, recycled through a small pool. The completion
 * callback may run on CUPTI's worker thread or inside
 * cuptiActivityFlushAll() on ours; it takes g_lock, and no CUDA or CUPTI
 * call is ever made while g_lock is held (CUPTI may call back into us from
 * inside any of them).
 *
 * The loaded CUPTI must have the API major version of the header (13):
 * the record layout decoded here is CUpti_ActivityKernel10 (only its
 * start, end and correlationId fields are read) and CUPTI 13 extends
 * records by appending fields, so a newer 13.x library is fine and a
 * 12.x or 14.x one is refused.
 *
 * CUDA events (the fallback: another CUPTI client holds the process, CUPTI
 * failed to initialise or is of another major version, or
 * $KJIT_TIMER=events). A pair of events (default flags) around each launch
 * on the stream, cuEventElapsedTime in ms -> ns. Launches go in chunks of
 * 64 behind a host-function gate (cuLaunchHostFunc waiting for the host to
 * finish enqueueing the chunk), so that the stream runs start event,
 * kernel and end event back to back instead of time-stamping the host's
 * launch latency when the kernel is shorter than a launch.
 *
 * $KJIT_TIMER: "events" forces CUDA events; "cupti" requires CUPTI (open
 * fails with the reason when it cannot be used); "auto" or unset tries
 * CUPTI and falls back. After a fallback, kjit_last_error() on the opening
 * thread says why CUPTI was not used.
 *
 * A timer is used by one thread at a time (open one per thread: CUPTI
 * timers share the process-wide state, so any number can be open).
 * Launch functions must not synchronise (an events chunk waits for the
 * gate, which would then open only on its 250 ms timeout). Sinks run on
 * whichever thread processes the buffer (often CUPTI's) and must not close
 * their timer.
 *
 * Cold L2: a scratch buffer (allocated once per timer, grown on demand) is
 * overwritten with cuMemsetD8Async (a different byte each time) on the
 * stream before each launch. A memset is not a kernel, and it happens
 * outside the external-correlation region, so CUPTI's kernel records
 * exclude it; with events it is enqueued before the start event.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>

#include "instr.h"

#if !defined(CUPTI_API_VERSION) || CUPTI_API_VERSION < 130000
#error "kjit decodes CUpti_ActivityKernel10: it needs the CUPTI 13 headers (CUDA 13.0 or newer)"
#endif

#define BUF_SIZE ((size_t)8 << 20) /* one CUPTI activity buffer */
#define ALIGN_SIZE 8               /* CUPTI's record alignment */
#define POOL_MAX 4                 /* free buffers kept for reuse */
#define CID_CAP (1u << 15)         /* half-matched records kept per table */
#define EVENTS_CHUNK 64            /* launches behind one gate (events) */
#define GATE_TIMEOUT_MS 250        /* a gate opens by itself after this */
#define WAIT_FORCED_NS (100ull * 1000000)   /* then flush with FLUSH_FORCED */
#define WAIT_GIVEUP_NS (5000ull * 1000000)  /* then fail the run */
#define TAG_BIT (1ull << 63)
#define TAG_MAX_PENDING 65536u
#define TAG_EXPIRE_NS (30000ull * 1000000)
#define NS_INVALID UINT64_MAX      /* a kernel record without timestamps */

/* ---- a small open-addressing map, uint64 -> uint64 (key 0: empty) ------- */

typedef struct umap {
	uint64_t *keys, *vals;
	size_t cap, count; /* cap: a power of two, or 0 */
} umap;

static size_t umap_slot(const umap *m, uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return (size_t)k & (m->cap - 1);
}

static int umap_init(umap *m, size_t cap)
{
	m->keys = calloc(cap, sizeof *m->keys);
	m->vals = calloc(cap, sizeof *m->vals);
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		memset(m, 0, sizeof *m);
		return -1;
	}
	m->cap = cap;
	m->count = 0;
	return 0;
}

static void umap_clear(umap *m)
{
	if (m->cap)
		memset(m->keys, 0, m->cap * sizeof *m->keys);
	m->count = 0;
}

static uint64_t *umap_find(umap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = umap_slot(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

static int umap_grow(umap *m)
{
	umap n;
	if (umap_init(&n, m->cap ? m->cap * 2 : 256) != 0)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = umap_slot(&n, m->keys[i]);
		while (n.keys[j])
			j = (j + 1) & (n.cap - 1);
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
		n.count++;
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

/* Inserts or replaces; -1 when out of memory. */
static int umap_put(umap *m, uint64_t key, uint64_t val)
{
	if ((m->count + 1) * 2 > m->cap && umap_grow(m) != 0)
		return -1;
	size_t i = umap_slot(m, key);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->count++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

/* Backward-shift deletion: no tombstones. Returns 1 when key was there. */
static int umap_del(umap *m, uint64_t key)
{
	if (!m->cap)
		return 0;
	size_t mask = m->cap - 1, i = umap_slot(m, key);
	while (m->keys[i] != key) {
		if (!m->keys[i])
			return 0;
		i = (i + 1) & mask;
	}
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		if (!m->keys[j])
			break;
		size_t k = umap_slot(m, m->keys[j]);
		/* leave j alone when its home k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		i = j;
	}
	m->keys[i] = 0;
	m->count--;
	return 1;
}

/* A map whose entries are forgotten oldest first beyond CID_CAP. */
typedef struct fifo_map {
	umap map;
	uint64_t *ring;
	size_t pos;
} fifo_map;

static int fifo_init(fifo_map *f)
{
	f->ring = calloc(CID_CAP, sizeof *f->ring);
	if (!f->ring || umap_init(&f->map, (size_t)CID_CAP * 2) != 0) {
		free(f->ring);
		f->ring = NULL;
		return -1;
	}
	f->pos = 0;
	return 0;
}

static void fifo_clear(fifo_map *f)
{
	umap_clear(&f->map);
	if (f->ring)
		memset(f->ring, 0, CID_CAP * sizeof *f->ring);
	f->pos = 0;
}

static void fifo_put(fifo_map *f, uint64_t key, uint64_t val)
{
	if (f->ring[f->pos])
		(void)umap_del(&f->map, f->ring[f->pos]);
	f->ring[f->pos] = key;
	f->pos = (f->pos + 1) % CID_CAP;
	(void)umap_put(&f->map, key, val); /* never grows: count <= CID_CAP */
}

/* ---- the timer ------------------------------------------------------------- */

typedef struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int open;
} gate;

struct kjit__timer {
	const kjit__cu_api *cu;
	CUcontext ctx;
	kjit__timer_kind kind;

	/* events */
	CUevent ev[2 * EVENTS_CHUNK];
	size_t n_ev;
	gate gate;

	/* cold L2 */
	CUdeviceptr scratch;
	size_t scratch_bytes, l2_bytes;
	unsigned flush_seq;

	/* sampled profiling; guarded by g_lock */
	void (*sink)(void *ctx, uint64_t tag, double ns);
	void *sink_ctx;
	unsigned n_tagged;   /* tagged launches waiting for their record */
	unsigned delivering; /* sink calls in progress */
};

/* A launch waiting for its kernel record. */
typedef struct pend {
	uint64_t id;
	int is_tag;
	kjit__timer *timer; /* tagged only */
	uint64_t tag;
	uint64_t born_ns;
	unsigned n_kernels, n_invalid;
	double ns; /* sum of the kernels' durations */
} pend;

typedef struct delivery {
	kjit__timer *timer;
	void (*sink)(void *ctx, uint64_t tag, double ns);
	void *ctx;
	uint64_t tag;
	double ns;
} delivery;

typedef struct delivery_list {
	delivery *v;
	size_t n, cap;
} delivery_list;

/* ---- process-wide CUPTI state ------------------------------------------- */

/* open/close of CUPTI timers: the refcount, enabling and disabling */
static pthread_mutex_t g_setup = PTHREAD_MUTEX_INITIALIZER;
static int g_refs;          /* open CUPTI timers */
static int g_failed;        /* CUPTI was refused once: do not retry */
static char g_reason[512];  /* why (when g_failed) */
static int g_full_driver;   /* CUPTI_ACTIVITY_KIND_DRIVER on (not per API) */
static int g_subscribed;
static CUpti_SubscriberHandle g_sub;

/* records: pending ids, half-matched records, counters */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static umap g_pending;       /* external id -> (pend *) */
static fifo_map g_cid_ext;   /* correlation id + 1 -> external id */
static fifo_map g_cid_ns;    /* correlation id + 1 -> kernel ns (or NS_INVALID) */
static int g_maps_ready;
static uint64_t g_next_id = 1;
static uint64_t g_ext_seen, g_kernels_seen, g_dropped;
static char g_record_error[256];

/* CUPTI instruments a module's kernels for their records as the module
 * loads, and those already loaded as kernel activity is enabled: a module
 * loading on another thread while that is enabled or disabled can be
 * missed, and its kernels then never give a record. Loads hold it shared,
 * the set-up and teardown exclusive (taken after g_setup). */
static pthread_rwlock_t g_loads = PTHREAD_RWLOCK_INITIALIZER;

/* the buffer pool */
static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *g_pool[POOL_MAX];
static int g_pool_n;

static const CUpti_CallbackId driver_launch_cbids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

static const CUpti_CallbackId runtime_launch_cbids[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---- messages --------------------------------------------------------------- */

static const char *cupti_name(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "CUPTI_ERROR_UNKNOWN";
	return s;
}

static const char *cupti_text(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetErrorMessage(r, &s) != CUPTI_SUCCESS || !s)
		return "no description";
	return s;
}

/* "what: CUPTI_ERROR_X (description)" into buf. */
static void cupti_describe(char *buf, size_t size, CUptiResult r, const char *what)
{
	snprintf(buf, size, "%s: %s (%d: %s)", what, cupti_name(r), (int)r, cupti_text(r));
}

static kjit_status cupti_fail(CUptiResult r, const char *what)
{
	return kjit__error(KJIT_ERR_CUDA, "%s: %s (%d: %s)", what, cupti_name(r), (int)r,
	                   cupti_text(r));
}

const char *kjit__timer_name(kjit__timer_kind kind)
{
	return kind == KJIT__TIMER_CUPTI ? "cupti" : "events";
}

kjit__timer_kind kjit__timer_kind_of(const kjit__timer *timer)
{
	return timer ? timer->kind : KJIT__TIMER_EVENTS;
}

/* ---- buffers and records -------------------------------------------------- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	uint8_t *b = NULL;
	pthread_mutex_lock(&g_pool_lock);
	if (g_pool_n > 0)
		b = g_pool[--g_pool_n];
	pthread_mutex_unlock(&g_pool_lock);
	if (!b)
		b = aligned_alloc(ALIGN_SIZE, BUF_SIZE); /* NULL: CUPTI drops records */
	*buffer = b;
	*size = b ? BUF_SIZE : 0;
	*max_records = 0; /* as many as fit */
}

static void buffer_release(uint8_t *b)
{
	pthread_mutex_lock(&g_pool_lock);
	if (g_pool_n < POOL_MAX) {
		g_pool[g_pool_n++] = b;
		b = NULL;
	}
	pthread_mutex_unlock(&g_pool_lock);
	free(b);
}

static void pool_free_all(void)
{
	pthread_mutex_lock(&g_pool_lock);
	while (g_pool_n > 0)
		free(g_pool[--g_pool_n]);
	pthread_mutex_unlock(&g_pool_lock);
}

static void deliveries_add(delivery_list *dl, const delivery *d)
{
	if (dl->n == dl->cap) {
		size_t cap = dl->cap ? dl->cap * 2 : 16;
		delivery *v = realloc(dl->v, cap * sizeof *v);
		if (!v)
			return; /* out of memory: this sample is lost */
		dl->v = v;
		dl->cap = cap;
	}
	dl->v[dl->n++] = *d;
}

/* A kernel record reached launch p (g_lock held). A tagged launch is done
 * at its first kernel: it leaves the table and goes to its timer's sink. */
static void apply_kernel(pend *p, uint64_t ns, delivery_list *dl)
{
	p->n_kernels++;
	if (ns == NS_INVALID)
		p->n_invalid++;
	else
		p->ns += (double)ns;
	if (!p->is_tag)
		return;
	(void)umap_del(&g_pending, p->id);
	kjit__timer *t = p->timer;
	t->n_tagged--;
	if (t->sink) {
		delivery d = { t, t->sink, t->sink_ctx, p->tag, p->n_invalid ? NAN : p->ns };
		size_t before = dl->n;
		deliveries_add(dl, &d);
		if (dl->n > before)
			t->delivering++;
	}
	free(p);
}

static pend *pending_get(uint64_t ext)
{
	uint64_t *v = umap_find(&g_pending, ext);
	return v ? (pend *)(uintptr_t)*v : NULL;
}

static void on_external(uint64_t ext, uint32_t cid, delivery_list *dl)
{
	pend *p = pending_get(ext);
	if (!p)
		return; /* not ours, or given up */
	uint64_t key = (uint64_t)cid + 1;
	uint64_t *ns = umap_find(&g_cid_ns.map, key);
	if (ns) {
		uint64_t v = *ns;
		(void)umap_del(&g_cid_ns.map, key);
		apply_kernel(p, v, dl);
	} else {
		fifo_put(&g_cid_ext, key, ext);
	}
}

static void on_kernel(uint32_t cid, uint64_t ns, delivery_list *dl)
{
	uint64_t key = (uint64_t)cid + 1;
	uint64_t *ext = umap_find(&g_cid_ext.map, key);
	if (ext) {
		uint64_t id = *ext;
		(void)umap_del(&g_cid_ext.map, key);
		pend *p = pending_get(id);
		if (p)
			apply_kernel(p, ns, dl);
	} else {
		fifo_put(&g_cid_ns, key, ns);
	}
}

static void deliver(delivery_list *dl)
{
	for (size_t i = 0; i < dl->n; i++)
		dl->v[i].sink(dl->v[i].ctx, dl->v[i].tag, dl->v[i].ns);
	if (dl->n) {
		pthread_mutex_lock(&g_lock);
		for (size_t i = 0; i < dl->n; i++)
			dl->v[i].timer->delivering--;
		pthread_cond_broadcast(&g_cond);
		pthread_mutex_unlock(&g_lock);
	}
	free(dl->v);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                      size_t size, size_t valid)
{
	delivery_list dl = { NULL, 0, 0 };
	pthread_mutex_lock(&g_lock);
	if (g_maps_ready && buffer && valid > 0) {
		CUpti_Activity *rec = NULL;
		for (;;) {
			CUptiResult r = cuptiActivityGetNextRecord(buffer, valid, &rec);
			if (r == CUPTI_ERROR_MAX_LIMIT_REACHED)
				break;
			if (r != CUPTI_SUCCESS) {
				/* INVALID_KIND: an incomplete record ends the buffer */
				if (r != CUPTI_ERROR_INVALID_KIND)
					cupti_describe(g_record_error, sizeof g_record_error, r,
					               "cuptiActivityGetNextRecord");
				break;
			}
			if (rec->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
				const CUpti_ActivityExternalCorrelation *x =
					(const CUpti_ActivityExternalCorrelation *)(const void *)rec;
				g_ext_seen++;
				if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
					on_external(x->externalId, x->correlationId, &dl);
			} else if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
			           rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
				const CUpti_ActivityKernel10 *k =
					(const CUpti_ActivityKernel10 *)(const void *)rec;
				uint64_t start = k->start, end = k->end;
				g_kernels_seen++;
				on_kernel(k->correlationId,
				          start && end >= start ? end - start : NS_INVALID, &dl);
			}
			/* API records (DRIVER, RUNTIME) only exist to carry the
			 * external correlation: skipped */
		}
	}
	pthread_cond_broadcast(&g_cond);
	pthread_mutex_unlock(&g_lock);

	size_t dropped = 0;
	if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS &&
	    dropped) {
		pthread_mutex_lock(&g_lock);
		g_dropped += dropped;
		pthread_mutex_unlock(&g_lock);
	}
	if (buffer)
		buffer_release(buffer);
	deliver(&dl);
}

/* Never called: the subscription only claims CUPTI for this process. */
static void CUPTIAPI subscriber_callback(void *userdata, CUpti_CallbackDomain domain,
                                         CUpti_CallbackId cbid, const void *cbdata)
{
}

/* ---- CUPTI setup and teardown (g_setup held) ------------------------------ */

static void cupti_api_records(uint8_t on)
{
	for (size_t i = 0; i < N_OF(runtime_launch_cbids); i++)
		(void)cuptiActivityEnableRuntimeApi(runtime_launch_cbids[i], on);
	for (size_t i = 0; i < N_OF(driver_launch_cbids); i++)
		(void)cuptiActivityEnableDriverApi(driver_launch_cbids[i], on);
}

static void cupti_teardown(void)
{
	(void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	(void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
	if (g_full_driver)
		(void)cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
	cupti_api_records(0);
	g_full_driver = 0;
	/* every buffer back to us, complete or not */
	(void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (g_subscribed) {
		(void)cuptiUnsubscribe(g_sub);
		g_subscribed = 0;
	}
	pthread_mutex_lock(&g_lock);
	fifo_clear(&g_cid_ext);
	fifo_clear(&g_cid_ns);
	pthread_mutex_unlock(&g_lock);
	pool_free_all();
}

/* 0 when CUPTI is ready; else -1 and why in g_reason (nothing left on). */
static int cupti_setup(void)
{
	char *why = g_reason;
	size_t wsz = sizeof g_reason;
	uint32_t version = 0;
	CUptiResult r = cuptiGetVersion(&version);
	if (r != CUPTI_SUCCESS) {
		cupti_describe(why, wsz, r, "cuptiGetVersion");
		return -1;
	}
	/* 13.0 on: xxyyzz (CUDA major, minor, CUPTI update); before: 1..28 */
	unsigned hdr_major = CUPTI_API_VERSION / 10000;
	unsigned lib_major = version >= 10000 ? version / 10000 : 0;
	if (lib_major != hdr_major) {
		if (lib_major)
			snprintf(why, wsz,
			         "the loaded CUPTI has API version %u (CUDA %u.%u), kjit was built "
			         "against %u (CUDA %u.x): its kernel records would not decode as "
			         "CUpti_ActivityKernel10",
			         (unsigned)version, lib_major, (unsigned)version / 100 % 100,
			         (unsigned)CUPTI_API_VERSION, hdr_major);
		else
			snprintf(why, wsz,
			         "the loaded CUPTI has API version %u (CUDA 12 or older), kjit was "
			         "built against %u (CUDA %u.x): its kernel records would not decode "
			         "as CUpti_ActivityKernel10",
			         (unsigned)version, (unsigned)CUPTI_API_VERSION, hdr_major);
		return -1;
	}

	pthread_mutex_lock(&g_lock);
	int maps_ok = g_maps_ready;
	if (!maps_ok && fifo_init(&g_cid_ext) == 0) {
		if (fifo_init(&g_cid_ns) == 0)
			maps_ok = g_maps_ready = 1;
		else {
			free(g_cid_ext.ring);
			free(g_cid_ext.map.keys);
			free(g_cid_ext.map.vals);
			memset(&g_cid_ext, 0, sizeof g_cid_ext);
		}
	}
	pthread_mutex_unlock(&g_lock);
	if (!maps_ok) {
		snprintf(why, wsz, "out of memory for the correlation tables");
		return -1;
	}

	char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = "";
	CUpti_SubscriberParams params;
	memset(&params, 0, sizeof params);
	params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
	params.subscriberName = "kjit";
	params.oldSubscriberName = old;
	params.oldSubscriberSize = sizeof old - 1;
	r = cuptiSubscribe_v2(&g_sub, subscriber_callback, NULL, &params);
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		snprintf(why, wsz,
		         "another CUPTI client holds this process (%s; Nsight Systems, Nsight "
		         "Compute, compute-sanitizer and cuda-gdb do): %s",
		         old[0] ? old : "unnamed", cupti_name(r));
		return -1;
	}
	if (r != CUPTI_SUCCESS) {
		cupti_describe(why, wsz, r, "cuptiSubscribe_v2");
		return -1;
	}
	g_subscribed = 1;

	const char *what = "cuptiActivityRegisterCallbacks";
	r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r == CUPTI_SUCCESS) {
		what = "cuptiActivityEnable(CONCURRENT_KERNEL)";
		r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	}
	if (r == CUPTI_SUCCESS) {
		what = "cuptiActivityEnable(EXTERNAL_CORRELATION)";
		r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
	}
	if (r == CUPTI_SUCCESS) {
		const char *mode = kjit__env(KJIT__ENV_CUPTI_DRIVER);
		int full = !(mode && strcmp(mode, "launch") == 0);
		/* API records of the launch entry points only: the external
		 * correlation records ride on them. cuLaunchKernel is the one kjit
		 * uses; the others are best effort. */
		CUpti_CallbackId launch = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
		if (!full && cuptiActivityEnableDriverApi(launch, 1) != CUPTI_SUCCESS)
			full = 1;
		for (size_t i = 0; !full && i < N_OF(driver_launch_cbids); i++)
			(void)cuptiActivityEnableDriverApi(driver_launch_cbids[i], 1);
		if (full) {
			what = "cuptiActivityEnable(DRIVER)";
			r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
			g_full_driver = r == CUPTI_SUCCESS;
		} else {
			for (size_t i = 0; i < N_OF(runtime_launch_cbids); i++)
				(void)cuptiActivityEnableRuntimeApi(runtime_launch_cbids[i], 1);
		}
	}
	if (r != CUPTI_SUCCESS) {
		if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
			snprintf(why, wsz,
			         "another CUPTI client holds this process (Nsight Systems, Nsight "
			         "Compute, compute-sanitizer and cuda-gdb do): %s: %s",
			         what, cupti_name(r));
		else
			cupti_describe(why, wsz, r, what);
		cupti_teardown();
		return -1;
	}
	return 0;
}

static int cupti_acquire(char *why, size_t wsz)
{
	int rc = 0;
	pthread_mutex_lock(&g_setup);
	if (g_refs > 0) {
		g_refs++;
	} else if (g_failed) {
		rc = -1;
	} else {
		pthread_rwlock_wrlock(&g_loads);
		rc = cupti_setup();
		pthread_rwlock_unlock(&g_loads);
		g_refs = rc == 0;
		g_failed = rc != 0;
	}
	if (rc)
		snprintf(why, wsz, "%s", g_reason);
	pthread_mutex_unlock(&g_setup);
	return rc;
}

static void cupti_release(void)
{
	pthread_mutex_lock(&g_setup);
	if (g_refs > 0 && --g_refs == 0) {
		pthread_rwlock_wrlock(&g_loads);
		cupti_teardown();
		pthread_rwlock_unlock(&g_loads);
	}
	pthread_mutex_unlock(&g_setup);
}

/* No external correlation record ever came: turn on every driver API
 * record, which CUPTI is known to need for them. 1 when this call did. */
static int cupti_enable_full_driver(void)
{
	int switched = 0;
	pthread_mutex_lock(&g_setup);
	if (!g_full_driver && g_refs > 0 &&
	    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER) == CUPTI_SUCCESS)
		switched = g_full_driver = 1;
	pthread_mutex_unlock(&g_setup);
	return switched;
}

void kjit__timer_load_begin(void)
{
	pthread_rwlock_rdlock(&g_loads);
}

void kjit__timer_load_end(void)
{
	pthread_rwlock_unlock(&g_loads);
}

/* ---- open and close ----------------------------------------------------------- */

static kjit_status make_current(kjit__timer *t)
{
	CUresult r = t->cu->cuCtxSetCurrent(t->ctx);
	return r == CUDA_SUCCESS ? KJIT_OK : kjit__cu_fail(KJIT_ERR_CUDA, r, "cuCtxSetCurrent");
}

kjit_status kjit__timer_open(const kjit__cu_api *cu, CUcontext ctx, kjit__timer **out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit__timer_open: out is NULL");
	*out = NULL;
	if (!cu)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit__timer_open: no driver table");

	enum { WANT_AUTO, WANT_CUPTI, WANT_EVENTS } want = WANT_AUTO;
	const char *env = kjit__env(KJIT__ENV_TIMER);
	if (env) {
		if (strcmp(env, "events") == 0)
			want = WANT_EVENTS;
		else if (strcmp(env, "cupti") == 0)
			want = WANT_CUPTI;
		else if (strcmp(env, "auto") != 0)
			return kjit__error(KJIT_ERR_INVALID_ARG,
			                   "KJIT_TIMER=%s: expected cupti, events or auto", env);
	}

	CUresult r;
	if (!ctx) {
		r = cu->cuCtxGetCurrent(&ctx);
		if (r != CUDA_SUCCESS)
			return kjit__cu_fail(KJIT_ERR_CUDA, r, "cuCtxGetCurrent");
		if (!ctx)
			return kjit__error(KJIT_ERR_INVALID_ARG,
			                   "kjit__timer_open: no context given and none current");
	}
	r = cu->cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return kjit__cu_fail(KJIT_ERR_CUDA, r, "cuCtxSetCurrent");

	kjit__timer *t = calloc(1, sizeof *t);
	if (!t)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory for a timer");
	t->cu = cu;
	t->ctx = ctx;
	if (pthread_mutex_init(&t->gate.lock, NULL) != 0) {
		free(t);
		return kjit__error(KJIT_ERR_NOMEM, "pthread_mutex_init failed");
	}
	if (pthread_cond_init(&t->gate.cond, NULL) != 0) {
		pthread_mutex_destroy(&t->gate.lock);
		free(t);
		return kjit__error(KJIT_ERR_NOMEM, "pthread_cond_init failed");
	}

	char why[600] = "";
	t->kind = KJIT__TIMER_EVENTS;
	if (want == WANT_EVENTS) {
		snprintf(why, sizeof why, "KJIT_TIMER=events");
	} else if (cupti_acquire(why, sizeof why) == 0) {
		t->kind = KJIT__TIMER_CUPTI;
	} else if (want == WANT_CUPTI) {
		pthread_cond_destroy(&t->gate.cond);
		pthread_mutex_destroy(&t->gate.lock);
		free(t);
		return kjit__error(KJIT_ERR_CUDA, "KJIT_TIMER=cupti, but CUPTI cannot be used: %s",
		                   why);
	}
	if (t->kind == KJIT__TIMER_EVENTS)
		(void)kjit__error(KJIT_OK, "timing with CUDA events: %s", why);
	*out = t;
	return KJIT_OK;
}

/* Collects the keys of t's tagged entries (all of them, or those older
 * than min_age_ns) and frees them (g_lock held). */
static void drop_tagged(kjit__timer *t, uint64_t min_age_ns)
{
	if (!t->n_tagged)
		return;
	uint64_t now = kjit__now_ns();
	uint64_t *keys = malloc(t->n_tagged * sizeof *keys);
	if (!keys) {
		/* out of memory: one at a time, rescanning after each removal
		 * (deletion moves entries) */
		for (size_t i = 0; i < g_pending.cap && t->n_tagged;) {
			pend *p = g_pending.keys[i] ? (pend *)(uintptr_t)g_pending.vals[i] : NULL;
			if (p && p->is_tag && p->timer == t && now - p->born_ns >= min_age_ns) {
				(void)umap_del(&g_pending, p->id);
				free(p);
				t->n_tagged--;
				i = 0;
			} else {
				i++;
			}
		}
		return;
	}
	size_t n = 0;
	for (size_t i = 0; i < g_pending.cap && n < t->n_tagged; i++) {
		if (!g_pending.keys[i])
			continue;
		pend *p = (pend *)(uintptr_t)g_pending.vals[i];
		if (p->is_tag && p->timer == t && now - p->born_ns >= min_age_ns)
			keys[n++] = g_pending.keys[i];
	}
	for (size_t i = 0; i < n; i++) {
		pend *p = pending_get(keys[i]);
		(void)umap_del(&g_pending, keys[i]);
		free(p);
		t->n_tagged--;
	}
	free(keys);
}

void kjit__timer_close(kjit__timer *timer)
{
	if (!timer)
		return;
	kjit__timer *t = timer;
	if (t->kind == KJIT__TIMER_CUPTI) {
		(void)cuptiActivityFlushAll(0); /* what is ready goes to the sink */
		pthread_mutex_lock(&g_lock);
		drop_tagged(t, 0);
		t->sink = NULL;
		while (t->delivering)
			pthread_cond_wait(&g_cond, &g_lock);
		pthread_mutex_unlock(&g_lock);
		cupti_release();
	}
	if (t->n_ev || t->scratch) {
		(void)t->cu->cuCtxSetCurrent(t->ctx);
		for (size_t i = 0; i < t->n_ev; i++)
			(void)t->cu->cuEventDestroy(t->ev[i]);
		if (t->scratch)
			(void)t->cu->cuMemFree(t->scratch);
	}
	pthread_cond_destroy(&t->gate.cond);
	pthread_mutex_destroy(&t->gate.lock);
	free(t);
}

/* ---- cold L2 ----------------------------------------------------------------- */

kjit_status kjit__timer_l2_flush_bytes(kjit__timer *timer, size_t *out)
{
	if (!timer || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit__timer_l2_flush_bytes: NULL");
	if (!timer->l2_bytes) {
		kjit_status st = make_current(timer);
		if (st != KJIT_OK)
			return st;
		CUdevice dev;
		int l2 = 0;
		CUresult r = timer->cu->cuCtxGetDevice(&dev);
		if (r != CUDA_SUCCESS)
			return kjit__cu_fail(KJIT_ERR_CUDA, r, "cuCtxGetDevice");
		r = timer->cu->cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
		if (r != CUDA_SUCCESS)
			return kjit__cu_fail(KJIT_ERR_CUDA, r,
			                     "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)");
		if (l2 <= 0)
			return kjit__error(KJIT_ERR_CUDA, "the device reports an L2 cache of %d bytes",
			                   l2);
		timer->l2_bytes = (size_t)l2;
	}
	*out = 2 * timer->l2_bytes;
	return KJIT_OK;
}

static kjit_status ensure_scratch(kjit__timer *t, size_t bytes)
{
	if (t->scratch_bytes >= bytes)
		return KJIT_OK;
	if (t->scratch) {
		(void)t->cu->cuMemFree(t->scratch);
		t->scratch = 0;
		t->scratch_bytes = 0;
	}
	CUresult r = t->cu->cuMemAlloc(&t->scratch, bytes);
	if (r != CUDA_SUCCESS) {
		t->scratch = 0;
		return kjit__cu_fail(KJIT_ERR_CUDA, r, "cuMemAlloc (cold-L2 scratch buffer)");
	}
	t->scratch_bytes = bytes;
	return KJIT_OK;
}

static CUresult flush_l2(kjit__timer *t, size_t bytes, CUstream stream)
{
	unsigned char value = (unsigned char)(t->flush_seq++ % 251 + 1);
	return t->cu->cuMemsetD8Async(t->scratch, value, bytes, stream);
}

/* ---- the CUPTI timer --------------------------------------------------------- */

/* Adds the deadline to now (CLOCK_REALTIME, as g_cond uses it). */
static struct timespec deadline_in(uint64_t ns)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t total = (uint64_t)ts.tv_nsec + ns;
	ts.tv_sec += (time_t)(total / 1000000000u);
	ts.tv_nsec = (long)(total % 1000000000u);
	return ts;
}

/*
 * After the stream is synchronised: flush until every launch in p[0..n)
 * has its kernel record. Plain flushes first (a forced flush hands back
 * records of kernels still running elsewhere, which are then lost to their
 * owners), FLUSH_FORCED after WAIT_FORCED_NS, failure after WAIT_GIVEUP_NS.
 * *retry: no external correlation record has ever come while kernel
 * records did; every driver API record was turned on, run again.
 */
static kjit_status wait_records(pend *p, size_t n, uint64_t kernels_before, int *retry)
{
	uint64_t t0 = kjit__now_ns();
	for (unsigned attempt = 0;; attempt++) {
		uint64_t waited = kjit__now_ns() - t0;
		int forced = waited >= WAIT_FORCED_NS;
		CUptiResult r =
			cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
		if (r != CUPTI_SUCCESS)
			return cupti_fail(r, "cuptiActivityFlushAll");

		pthread_mutex_lock(&g_lock);
		size_t missing = 0;
		for (size_t i = 0; i < n; i++)
			missing += p[i].n_kernels == 0;
		uint64_t ext_seen = g_ext_seen, kernels = g_kernels_seen - kernels_before;
		uint64_t dropped = g_dropped;
		char record_error[sizeof g_record_error];
		memcpy(record_error, g_record_error, sizeof record_error);
		if (missing && !forced) {
			struct timespec ts = deadline_in((uint64_t)(attempt < 4 ? 1u << attempt : 10) *
			                                 1000000u);
			(void)pthread_cond_timedwait(&g_cond, &g_lock, &ts);
		}
		pthread_mutex_unlock(&g_lock);
		if (!missing)
			return KJIT_OK;

		if (forced && ext_seen == 0 && kernels >= n && cupti_enable_full_driver()) {
			*retry = 1;
			return kjit__error(KJIT_ERR_CUDA, "retry with every driver API record");
		}
		if (waited >= WAIT_GIVEUP_NS)
			return kjit__error(
				KJIT_ERR_CUDA,
				"CUPTI delivered no kernel record for %zu of %zu launches in %.1f s "
				"(%llu kernel records since the first launch, %llu external "
				"correlation records ever, %llu records dropped%s%s)",
				missing, n, (double)waited * 1e-9, (unsigned long long)kernels,
				(unsigned long long)ext_seen, (unsigned long long)dropped,
				record_error[0] ? "; " : "", record_error);
		if (forced) {
			struct timespec ts = { 0, 2000000 };
			nanosleep(&ts, NULL);
		}
	}
}

static kjit_status run_cupti(kjit__timer *t, kjit__launch_fn fn, void *ctx, CUstream stream,
                             size_t n, size_t flush_bytes, double *durations, int *retry)
{
	const kjit__cu_api *cu = t->cu;
	pend *p = calloc(n, sizeof *p);
	if (!p)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory for %zu pending launches", n);

	pthread_mutex_lock(&g_lock);
	uint64_t base = g_next_id;
	g_next_id += n;
	size_t registered = 0;
	for (; registered < n; registered++) {
		p[registered].id = base + registered;
		if (umap_put(&g_pending, p[registered].id, (uint64_t)(uintptr_t)&p[registered]) != 0)
			break;
	}
	uint64_t kernels_before = g_kernels_seen;
	if (registered < n) {
		for (size_t i = 0; i < registered; i++)
			(void)umap_del(&g_pending, p[i].id);
		pthread_mutex_unlock(&g_lock);
		free(p);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory for %zu pending launches", n);
	}
	pthread_mutex_unlock(&g_lock);

	kjit_status st = KJIT_OK;
	for (size_t i = 0; i < n; i++) {
		CUresult r;
		if (flush_bytes && (r = flush_l2(t, flush_bytes, stream)) != CUDA_SUCCESS) {
			st = kjit__cu_fail(KJIT_ERR_CUDA, r, "cuMemsetD8Async (cold L2)");
			break;
		}
		CUptiResult cr =
			cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
			                                       p[i].id);
		if (cr != CUPTI_SUCCESS) {
			st = cupti_fail(cr, "cuptiActivityPushExternalCorrelationId");
			break;
		}
		r = fn(ctx, stream);
		uint64_t last = 0;
		cr = cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
		                                           &last);
		if (r != CUDA_SUCCESS) {
			st = kjit__cu_fail(KJIT_ERR_LAUNCH, r, "launch");
			break;
		}
		if (cr != CUPTI_SUCCESS) {
			st = cupti_fail(cr, "cuptiActivityPopExternalCorrelationId");
			break;
		}
		if (last != p[i].id) {
			st = kjit__error(KJIT_ERR_CUDA,
			                 "external correlation ids unbalanced: pushed %llu, popped "
			                 "%llu (the launch function pushed CUSTOM0 ids of its own)",
			                 (unsigned long long)p[i].id, (unsigned long long)last);
			break;
		}
	}
	CUresult r = cu->cuStreamSynchronize(stream);
	if (st == KJIT_OK && r != CUDA_SUCCESS)
		st = kjit__cu_fail(KJIT_ERR_CUDA, r, "cuStreamSynchronize");
	if (st == KJIT_OK)
		st = wait_records(p, n, kernels_before, retry);

	pthread_mutex_lock(&g_lock);
	for (size_t i = 0; i < n; i++)
		(void)umap_del(&g_pending, p[i].id);
	pthread_mutex_unlock(&g_lock);

	if (st == KJIT_OK) {
		for (size_t i = 0; i < n; i++) {
			if (p[i].n_invalid) {
				st = kjit__error(KJIT_ERR_CUDA,
				                 "CUPTI returned a kernel record without timestamps for "
				                 "launch %zu of %zu (device memory for the records ran "
				                 "out?)",
				                 i + 1, n);
				break;
			}
			durations[i] = p[i].ns;
		}
	}
	free(p);
	return st;
}

/* ---- the events timer ------------------------------------------------------- */

static void CUDA_CB gate_wait(void *arg)
{
	gate *g = arg;
	struct timespec ts = deadline_in((uint64_t)GATE_TIMEOUT_MS * 1000000u);
	pthread_mutex_lock(&g->lock);
	while (!g->open)
		if (pthread_cond_timedwait(&g->cond, &g->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&g->lock);
}

static void gate_set(gate *g, int open)
{
	pthread_mutex_lock(&g->lock);
	g->open = open;
	if (open)
		pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static kjit_status ensure_events(kjit__timer *t)
{
	while (t->n_ev < 2 * EVENTS_CHUNK) {
		CUresult r = t->cu->cuEventCreate(&t->ev[t->n_ev], CU_EVENT_DEFAULT);
		if (r != CUDA_SUCCESS)
			return kjit__cu_fail(KJIT_ERR_CUDA, r, "cuEventCreate");
		t->n_ev++;
	}
	return KJIT_OK;
}

static kjit_status run_events(kjit__timer *t, kjit__launch_fn fn, void *ctx, CUstream stream,
                              size_t n, size_t flush_bytes, double *durations)
{
	const kjit__cu_api *cu = t->cu;
	kjit_status st = ensure_events(t);
	if (st != KJIT_OK)
		return st;
	CUevent *start = t->ev, *end = t->ev + EVENTS_CHUNK;
	for (size_t done = 0; done < n && st == KJIT_OK;) {
		size_t m = n - done < EVENTS_CHUNK ? n - done : EVENTS_CHUNK;
		/* hold the stream until the chunk is enqueued; without the gate the
		 * chunk still runs, only less tightly */
		gate_set(&t->gate, 0);
		int gated = cu->cuLaunchHostFunc(stream, gate_wait, &t->gate) == CUDA_SUCCESS;
		size_t i = 0;
		for (; i < m; i++) {
			CUresult r;
			if (flush_bytes && (r = flush_l2(t, flush_bytes, stream)) != CUDA_SUCCESS) {
				st = kjit__cu_fail(KJIT_ERR_CUDA, r, "cuMemsetD8Async (cold L2)");
				break;
			}
			if ((r = cu->cuEventRecord(start[i], stream)) != CUDA_SUCCESS) {
				st = kjit__cu_fail(KJIT_ERR_CUDA, r, "cuEventRecord");
				break;
			}
			if ((r = fn(ctx, stream)) != CUDA_SUCCESS) {
				st = kjit__cu_fail(KJIT_ERR_LAUNCH, r, "launch");
				break;
			}
			if ((r = cu->cuEventRecord(end[i], stream)) != CUDA_SUCCESS) {
				st = kjit__cu_fail(KJIT_ERR_CUDA, r, "cuEventRecord");
				break;
			}
		}
		if (gated)
			gate_set(&t->gate, 1);
		CUresult r = cu->cuStreamSynchronize(stream);
		if (st == KJIT_OK && r != CUDA_SUCCESS)
			st = kjit__cu_fail(KJIT_ERR_CUDA, r, "cuStreamSynchronize");
		for (size_t k = 0; st == KJIT_OK && k < m; k++) {
			float ms = 0;
			r = cu->cuEventElapsedTime(&ms, start[k], end[k]);
			if (r != CUDA_SUCCESS)
				st = kjit__cu_fail(KJIT_ERR_CUDA, r, "cuEventElapsedTime");
			else
				durations[done + k] = (double)ms * 1e6;
		}
		done += m;
	}
	return st;
}

/* ---- running ------------------------------------------------------------------- */

kjit_status kjit__timer_run(kjit__timer *timer, kjit__launch_fn fn, void *ctx, CUstream stream,
                            size_t n, size_t flush_bytes, double *durations)
{
	if (!timer || !fn || (n && !durations))
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit__timer_run: NULL argument");
	if (!n)
		return KJIT_OK;
	kjit_status st = make_current(timer);
	if (st != KJIT_OK)
		return st;
	if (flush_bytes && (st = ensure_scratch(timer, flush_bytes)) != KJIT_OK)
		return st;
	if (timer->kind == KJIT__TIMER_EVENTS)
		return run_events(timer, fn, ctx, stream, n, flush_bytes, durations);
	int retry = 0;
	st = run_cupti(timer, fn, ctx, stream, n, flush_bytes, durations, &retry);
	if (retry) {
		retry = 0;
		st = run_cupti(timer, fn, ctx, stream, n, flush_bytes, durations, &retry);
	}
	return st;
}

/* ---- sampled profiling ------------------------------------------------------- */

void kjit__timer_set_sink(kjit__timer *timer, void (*sink)(void *ctx, uint64_t tag, double ns),
                          void *ctx)
{
	if (!timer)
		return;
	pthread_mutex_lock(&g_lock);
	timer->sink = sink;
	timer->sink_ctx = ctx;
	pthread_mutex_unlock(&g_lock);
}

kjit_status kjit__timer_launch_tagged(kjit__timer *timer, kjit__launch_fn fn, void *ctx,
                                      CUstream stream, uint64_t tag)
{
	if (!timer || !fn)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit__timer_launch_tagged: NULL argument");
	if (timer->kind != KJIT__TIMER_CUPTI)
		return kjit__error(KJIT_ERR_NOT_FOUND,
		                   "sampled timing needs CUPTI; this timer uses CUDA events");
	kjit_status st = make_current(timer);
	if (st != KJIT_OK)
		return st;
	pend *p = calloc(1, sizeof *p);
	if (!p)
		return kjit__error(KJIT_ERR_NOT_FOUND, "out of memory for a sampled launch");
	p->is_tag = 1;
	p->timer = timer;
	p->tag = tag;
	p->born_ns = kjit__now_ns();

	pthread_mutex_lock(&g_lock);
	if (timer->n_tagged >= TAG_MAX_PENDING) {
		pthread_mutex_unlock(&g_lock);
		free(p);
		return kjit__error(KJIT_ERR_NOT_FOUND,
		                   "%u sampled launches are waiting for their records already",
		                   TAG_MAX_PENDING);
	}
	uint64_t id = (g_next_id++) | TAG_BIT;
	p->id = id;
	if (umap_put(&g_pending, id, (uint64_t)(uintptr_t)p) != 0) {
		pthread_mutex_unlock(&g_lock);
		free(p);
		return kjit__error(KJIT_ERR_NOT_FOUND, "out of memory for a sampled launch");
	}
	timer->n_tagged++;
	pthread_mutex_unlock(&g_lock);
	/* from here on p may be delivered and freed by another thread */

	CUptiResult cr =
		cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
	CUresult r = CUDA_SUCCESS;
	uint64_t last = 0;
	if (cr == CUPTI_SUCCESS) {
		r = fn(ctx, stream);
		(void)cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
		                                            &last);
	}
	if (cr == CUPTI_SUCCESS && r == CUDA_SUCCESS)
		return KJIT_OK;

	pthread_mutex_lock(&g_lock);
	pend *q = pending_get(id);
	if (q) {
		(void)umap_del(&g_pending, id);
		timer->n_tagged--;
		free(q);
	}
	pthread_mutex_unlock(&g_lock);
	if (cr != CUPTI_SUCCESS) /* not launched: the caller launches untimed */
		return kjit__error(KJIT_ERR_NOT_FOUND, "cuptiActivityPushExternalCorrelationId: %s",
		                   cupti_name(cr));
	return kjit__cu_fail(KJIT_ERR_LAUNCH, r, "launch");
}

kjit_status kjit__timer_poll(kjit__timer *timer)
{
	if (!timer)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit__timer_poll: NULL timer");
	if (timer->kind != KJIT__TIMER_CUPTI)
		return KJIT_OK;
	CUptiResult r = cuptiActivityFlushAll(0);
	pthread_mutex_lock(&g_lock);
	drop_tagged(timer, TAG_EXPIRE_NS); /* their records are not coming */
	pthread_mutex_unlock(&g_lock);
	return r == CUPTI_SUCCESS ? KJIT_OK : cupti_fail(r, "cuptiActivityFlushAll");
}
