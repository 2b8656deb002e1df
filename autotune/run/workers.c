/*
 * workers.c - the measuring workers of a run: a thread per link (a GPU
 * worker on this host or on another rank) takes the oldest task, has its
 * worker set the problem up while the compile finishes, measures the
 * configuration in each L2 mode asked for and hands the task back. The
 * tuner records; nothing here touches the database or CUDA.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workers.h"
#include "pool.h"
#include "wire.h"

/* Seconds a worker has for start-up and for a new problem's buffers and
 * reference output, beyond the per-variant timeout. */
#define SETUP_S 120

typedef struct worker {
	kt_meas *m;
	kt_link *link;
	pthread_t thread;
	int thread_started;
	kt_hello hello;
	int started;           /* a hello was read once */
	int64_t problem;       /* set up on the worker (prepare sent), -1 none */
	int failures;          /* start failures in a row */
	int dropped;
	char why[512];
	size_t evaluated, restarts;
} worker;

struct kt_meas {
	const kt_meas_opts *o;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	kt_task *head, *tail;        /* queued */
	kt_task *done, *done_tail;   /* measured, not yet taken */
	size_t busy;                 /* tasks being measured */
	worker *w;
	size_t n, live;
	double best_ns[2], best_hi_ns[2];
	double best_score;           /* under an energy objective, of whole
	                              * measurements: the energy race's bound */
	kt_hello lead;               /* the first worker's first hello, kept: a
	                              * restart replaces the worker's own */
	int quit;
};

/* What a request came to. */
enum { R_DONE, R_STOP, R_LOST };

static void put_back(kt_meas *m, kt_task *t)
{
	t->next = m->head;
	m->head = t;
	if (!m->tail)
		m->tail = t;
}

static void put_done(kt_meas *m, kt_task *t)
{
	t->next = NULL;
	if (m->done_tail)
		m->done_tail->next = t;
	else
		m->done = t;
	m->done_tail = t;
}

/* Drops w with a message; the caller holds no lock. */
static void drop(worker *w, const char *fmt, const char *detail)
{
	kt_meas *m = w->m;
	snprintf(w->why, sizeof w->why, fmt, detail);
	pthread_mutex_lock(&m->lock);
	w->dropped = 1;
	size_t live = --m->live;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
	w->link->ops->stop(w->link, 1);
	fprintf(stderr, "\nkjit-tune: %s dropped: %s; %zu worker%s left\n", w->link->name, w->why,
	        live, live == 1 ? "" : "s");
}

/* Reads the hello of w's worker, just started. */
static kjit_status greet(worker *w)
{
	kt_meas *m = w->m;
	kt_buf b = { 0 };
	kt_link *l = w->link;
	kjit_status st = KJIT_OK;
	w->problem = -1;
	kt_frame_result fr = l->ops->read(l, &b, kjit__now_ns() + SETUP_S * 1000000000ull, m->o->stop);
	kt_hello h = { 0 };
	if (fr == KT_FRAME_OK)
		st = kt_hello_decode(&b, &h);
	else if (fr == KT_FRAME_STOP)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "interrupted");
	else if (fr == KT_FRAME_EOF) {
		char why[256];
		l->ops->reason(l, why, sizeof why);
		st = kjit__error(KJIT_ERR_NO_GPU, "the GPU worker did not start on %s (%s)", l->name,
		                 why);
	} else if (fr == KT_FRAME_TIMEOUT)
		st = kjit__error(KJIT_ERR_NO_GPU, "the GPU worker did not start on %s (no answer "
		                 "in %d s)", l->name, SETUP_S);
	else
		st = KJIT_ERR_IO;
	if (st == KJIT_OK && h.error)
		st = kjit__error(KJIT_ERR_NO_GPU, "the GPU worker cannot run on %s: %s%s", l->name,
		                 h.error, strstr(h.error, "no GPU")
		                 ? "\ntuning needs a GPU; without one, --compile-only --arch "
		                   "sm_NN compiles the space into the database, --count sizes "
		                   "it, and --replay runs a strategy against known times"
		                 : "");
	if (st == KJIT_OK && w->started && strcmp(h.device_key, w->hello.device_key) != 0)
		st = kjit__error(KJIT_ERR_NO_GPU, "the GPU worker on %s came back on another device "
		                 "(%s, was %s)", l->name, h.device_key, w->hello.device_key);
	kt_buf_free(&b);
	if (st != KJIT_OK) {
		kt_hello_clear(&h);
		l->ops->stop(l, 1);
		return st;
	}
	kt_hello_clear(&w->hello);
	w->hello = h;
	w->started = 1;
	return KJIT_OK;
}

/* Starts w's worker and reads its hello. */
static kjit_status start(worker *w)
{
	kjit_status st = w->link->ops->start(w->link);
	return st == KJIT_OK ? greet(w) : st;
}

/* The status of a reply that did not come: a timeout or a crash. */
static void no_reply(kt_reply *rep, kjit_result_status status)
{
	rep->status = status;
	rep->has_status = 1;
}

/* Reads the reply to the request just sent into rep, or sets its status
 * and why for a timeout or a crash. */
static int read_reply(worker *w, kt_reply *rep, char *why, size_t why_size)
{
	kt_meas *m = w->m;
	kt_link *l = w->link;
	kt_buf b = { 0 };
	int ret = R_DONE;
	double timeout_s = m->o->timeout_s;
	uint64_t deadline = kjit__now_ns() + (uint64_t)(SETUP_S + timeout_s) * 1000000000ull;
	for (int begun = 0;;) {
		kt_frame_result fr = l->ops->read(l, &b, deadline, m->o->stop);
		if (fr == KT_FRAME_STOP) {
			l->ops->stop(l, 1);
			ret = R_STOP;
			break;
		}
		if (fr == KT_FRAME_TIMEOUT) {
			l->ops->stop(l, 1);
			snprintf(why, why_size, "no answer after %g s%s (the worker was killed)",
			         begun ? timeout_s : SETUP_S + timeout_s, begun ? "" : " of set-up");
			no_reply(rep, KJIT_RESULT_TIMEOUT);
			break;
		}
		if (fr != KT_FRAME_OK) {
			if (l->ops->reason(l, why, why_size) == KT_END_LOST)
				ret = R_LOST;
			else
				no_reply(rep, KJIT_RESULT_CRASHED);
			break;
		}
		if (!begun && kt_msg_type(&b) == KT_MSG_BEGIN) {
			begun = 1;
			deadline = kjit__now_ns() + (uint64_t)(timeout_s * 1e9);
			continue;
		}
		if (kt_reply_decode(&b, rep) != KJIT_OK) {
			snprintf(why, why_size, "%s", kjit_last_error());
			l->ops->stop(l, 1);
			no_reply(rep, KJIT_RESULT_CRASHED);
		} else if (rep->fatal) {
			l->ops->stop(l, 0);
		}
		break;
	}
	kt_buf_free(&b);
	return ret;
}

/* Sends q and reads its reply (R_DONE with rep's status set, else R_STOP
 * or R_LOST). */
static int request(worker *w, const kt_request *q, kt_reply *rep, char *why, size_t why_size)
{
	kt_buf b = { 0 };
	kt_link *l = w->link;
	int ret = R_DONE;
	kt_request_encode(&b, q);
	if (l->ops->write(l, &b) != KJIT_OK) {
		if (l->ops->reason(l, why, why_size) == KT_END_LOST)
			ret = R_LOST;
		else
			no_reply(rep, KJIT_RESULT_CRASHED);
	} else {
		ret = read_reply(w, rep, why, why_size);
	}
	kt_buf_free(&b);
	if (ret == R_DONE && !rep->has_status)
		no_reply(rep, KJIT_RESULT_CRASHED);
	return ret;
}

/* Starts w's worker when it is not running; R_LOST when it cannot (its
 * task goes back: w is dropped after KT_START_TRIES). */
static int ensure(worker *w, kt_task *t)
{
	if (w->link->ops->running(w->link))
		return R_DONE;
	uint64_t t0 = kjit__now_ns();
	kjit_status st = start(w);
	double d = (double)(kjit__now_ns() - t0) * 1e-9;
	t->restart_s += d;
	t->measure_s += d; /* the worker's time: its part of measure_s */
	if (st == KJIT_OK) {
		w->failures = 0;
		pthread_mutex_lock(&w->m->lock);
		w->restarts++;
		pthread_mutex_unlock(&w->m->lock);
		return R_DONE;
	}
	if (*w->m->o->stop)
		return R_STOP;
	if (++w->failures >= KT_START_TRIES)
		drop(w, "its worker failed to start 3 times: %s", kjit_last_error());
	return R_LOST;
}

/* Measures t on w: R_DONE, R_STOP, or R_LOST when t is to go back. */
static int run_task(worker *w, kt_task *t)
{
	kt_meas *m = w->m;
	const kt_meas_opts *o = m->o;
	int r = ensure(w, t);
	if (r != R_DONE)
		return r;
	int preparing = 0;
	if (w->problem != (int64_t)t->problem) {
		/* the worker makes the problem's buffers while the compile runs */
		kt_request q = { .prepare = 1, .problem = t->problem };
		kt_buf b = { 0 };
		kt_request_encode(&b, &q);
		preparing = w->link->ops->write(w->link, &b) == KJIT_OK;
		kt_buf_free(&b);
		w->problem = t->problem;
	}
	if (!kt_pool_wait(o->pool, t->job, o->stop, &t->compile_wait_s))
		return R_STOP;
	if (preparing) {
		kt_reply pre = { 0 };
		char why[512];
		uint64_t t0 = kjit__now_ns();
		r = read_reply(w, &pre, why, sizeof why);
		/* what the set-up cost beyond the compile it overlapped */
		double d = (double)(kjit__now_ns() - t0) * 1e-9;
		t->measure_s += d;
		t->setup_s += d < pre.setup_ms * 1e-3 ? d : pre.setup_ms * 1e-3;
		if (pre.setup)
			w->problem = -1; /* the request sets it up again, and says why */
		kt_reply_clear(&pre);
		if (r != R_DONE)
			return r;
		if ((r = ensure(w, t)) != R_DONE)
			return r;
	}
	if (t->job->status != KJIT_OK)
		return R_DONE; /* a compile error: nothing to measure */
	t->device = w->hello.device;
	snprintf(t->device_uuid, sizeof t->device_uuid, "%s",
	         w->hello.device_uuid ? w->hello.device_uuid : "");
	for (int mode = 0; mode < 2; mode++) {
		if (!(t->modes & (1 << mode)))
			continue;
		if ((r = ensure(w, t)) != R_DONE)
			return r;
		if (w->link->ops->binary && w->link->ops->binary(w->link, t->job->key) != KJIT_OK)
			return R_LOST;
		kt_request q = { .problem = t->problem, .n_config = o->n_params,
			         .config = (uint16_t *)t->job->config, .cold_l2 = mode,
			         .early_factor = o->early_stop, .max_ms = o->timeout_s * 1000 * 0.4,
			         .warmup_ms = o->warmup_ms, .budget_ms = o->budget_ms };
		pthread_mutex_lock(&m->lock);
		q.best_ns = isfinite(m->best_ns[mode]) ? m->best_ns[mode] : 0;
		q.best_hi_ns = m->best_hi_ns[mode];
		double race = isfinite(m->best_score) && o->early_stop > 0 ? m->best_score : 0;
		pthread_mutex_unlock(&m->lock);
		if (o->objective == KJIT_OBJECTIVE_ENERGY)
			q.race_j = race;
		else if (o->objective == KJIT_OBJECTIVE_EDP)
			q.race_jns = race;
		if (o->profile == KT_PROFILE_ALL || t->profile)
			q.profile |= KT_PROF_COUNTERS;
		if (o->objective != KJIT_OBJECTIVE_TIME)
			q.profile |= KT_PROF_ENERGY;
		/* the more frugal may be the slower, and the best measured again
		 * to be profiled must not race itself */
		if (o->objective != KJIT_OBJECTIVE_TIME || t->profile)
			q.early_factor = 0;
		kt_reply *rep = &t->rep[mode];
		uint64_t t0 = kjit__now_ns();
		kjit__nvtx_push(KJIT__NVTX_EVALUATE, t->job->key);
		r = request(w, &q, rep, t->why[mode], sizeof t->why[mode]);
		kjit__nvtx_pop();
		t->measure_s += (double)(kjit__now_ns() - t0) * 1e-9;
		if (r != R_DONE)
			return r;
		if (!rep->timer) /* nothing was measured */
			rep->median_ns = rep->spread_ns = rep->min_ns = rep->max_ns = NAN;
		if (rep->setup) {
			t->setup = 1;
			break;
		}
		if (rep->status == KJIT_RESULT_OK) {
			/* a figure the race cut after one repeat (no spread) does not
			 * set the bound; one cut after two lies above it already */
			kjit_eval e = { .status = KJIT_RESULT_OK, .median_ns = rep->median_ns,
				        .has_profile = rep->has_profile, .profile = rep->profile };
			double score = rep->has_profile && !isnan(rep->profile.energy_rel_spread)
			               ? kjit_eval_score(&e, o->objective) : NAN;
			pthread_mutex_lock(&m->lock);
			if (rep->median_ns < m->best_ns[mode]) {
				m->best_ns[mode] = rep->median_ns;
				m->best_hi_ns[mode] = isfinite(rep->ci_high_ns) ? rep->ci_high_ns : 0;
			}
			if (score < m->best_score)
				m->best_score = score;
			pthread_mutex_unlock(&m->lock);
		}
	}
	return R_DONE;
}

/* Forgets what a request that is to be made again left in t. */
static void reset(kt_task *t)
{
	for (int i = 0; i < 2; i++) {
		kt_reply_clear(&t->rep[i]);
		memset(&t->rep[i], 0, sizeof t->rep[i]);
		t->why[i][0] = '\0';
	}
	t->setup = 0;
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	kt_meas *m = w->m;
	pthread_mutex_lock(&m->lock);
	while (!w->dropped) {
		while (!m->head && !m->quit)
			pthread_cond_wait(&m->cond, &m->lock);
		if (m->quit)
			break;
		kt_task *t = m->head;
		if (!(m->head = t->next))
			m->tail = NULL;
		m->busy++;
		pthread_mutex_unlock(&m->lock);
		t->worker = (size_t)(w - m->w);
		int r = run_task(w, t);
		if (r == R_LOST && !w->dropped) {
			/* the link's loss: its rank is gone, or a restart failed */
			char why[512];
			w->link->ops->reason(w->link, why, sizeof why);
			if (w->failures == 0)
				drop(w, "%s", t->why[0][0] ? t->why[0] : t->why[1][0] ? t->why[1] : why);
		}
		pthread_mutex_lock(&m->lock);
		m->busy--;
		if (r == R_LOST) {
			reset(t);
			put_back(m, t);
		} else {
			t->stopped = r == R_STOP;
			if (r == R_DONE && t->job->status == KJIT_OK)
				w->evaluated++;
			put_done(m, t);
		}
		pthread_cond_broadcast(&m->cond);
	}
	pthread_mutex_unlock(&m->lock);
	w->link->ops->stop(w->link, 0);
	return NULL;
}

static void free_workers(kt_meas *m)
{
	for (size_t i = 0; i < m->n; i++) {
		if (m->w[i].link)
			m->w[i].link->ops->free(m->w[i].link);
		kt_hello_clear(&m->w[i].hello);
	}
	free(m->w);
}

/* Adds local workers for devices 1.. of the first worker's count. */
static kjit_status add_all(kt_meas *m, const kt_link_args *all, size_t extra)
{
	int count = m->w[0].hello.device_count;
	if (count <= 1)
		return KJIT_OK;
	worker *nw = realloc(m->w, (m->n + extra + (size_t)count - 1) * sizeof *nw);
	if (!nw)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	m->w = nw;
	/* the local devices come right after device 0, the other links after */
	memmove(m->w + count, m->w + 1, (m->n - 1) * sizeof *m->w);
	memset(m->w + 1, 0, ((size_t)count - 1) * sizeof *m->w);
	m->n += (size_t)count - 1;
	for (int d = 1; d < count; d++) {
		kt_link_args a = *all;
		a.device = d;
		kjit_status st = kt_link_local(&a, &m->w[d].link);
		if (st != KJIT_OK)
			return st;
	}
	return KJIT_OK;
}

kjit_status kt_meas_open(kt_link **links, size_t n, const kt_link_args *all,
                         const kt_meas_opts *o, kt_meas **out)
{
	kt_meas *m = calloc(1, sizeof *m);
	*out = NULL;
	if (!m || !(m->w = calloc(n + 1, sizeof *m->w))) {
		for (size_t i = 0; i < n; i++)
			links[i]->ops->free(links[i]);
		free(m);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	m->o = o;
	m->n = n;
	for (size_t i = 0; i < n; i++)
		m->w[i].link = links[i];
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, NULL);
	m->best_ns[0] = m->best_ns[1] = INFINITY;
	m->best_score = INFINITY;
	kjit_status st = n ? KJIT_OK
	                   : kjit__error(KJIT_ERR_NO_GPU, "no device to measure on: every rank "
	                                 "was given --devices none or has no GPU");
	/* the first worker alone when it counts the devices; then the others
	 * start together, and their hellos are read in turn */
	if (st == KJIT_OK && all) {
		m->w[0].m = m;
		if ((st = start(&m->w[0])) == KJIT_OK)
			st = add_all(m, all, 0);
	}
	for (size_t i = all ? 1 : 0; st == KJIT_OK && i < m->n; i++) {
		m->w[i].m = m;
		st = m->w[i].link->ops->start(m->w[i].link);
	}
	for (size_t i = all ? 1 : 0; st == KJIT_OK && i < m->n; i++)
		st = greet(&m->w[i]);
	for (size_t i = 0; st == KJIT_OK && i < m->n; i++) {
		worker *w = &m->w[i];
		w->m = m;
		if (strcmp(w->hello.device_key, m->w[0].hello.device_key) != 0)
			st = kjit__error(KJIT_ERR_INVALID_ARG, "%s is a %s (%s) and %s a %s (%s): a run "
			                 "tunes one model of GPU; give --devices with devices of one "
			                 "model", w->link->name, w->hello.device_name,
			                 w->hello.device_key, m->w[0].link->name,
			                 m->w[0].hello.device_name, m->w[0].hello.device_key);
		for (size_t j = 0; st == KJIT_OK && j < i; j++)
			if (strcmp(w->hello.device_uuid, m->w[j].hello.device_uuid) == 0 && !o->quiet)
				fprintf(stderr, "kjit-tune: %s and %s are one GPU (%s): their timings "
				        "disturb each other\n", m->w[j].link->name, w->link->name,
				        w->hello.device_uuid);
	}
	if (st == KJIT_OK) {
		kt_buf b = { 0 };
		kt_hello_encode(&b, &m->w[0].hello);
		st = b.oom ? kjit__error(KJIT_ERR_NOMEM, "out of memory") : kt_hello_decode(&b, &m->lead);
		kt_buf_free(&b);
	}
	m->live = m->n;
	for (size_t i = 0; st == KJIT_OK && i < m->n; i++) {
		if (kt_thread_start(&m->w[i].thread, worker_main, &m->w[i]) != 0)
			st = kjit__error(KJIT_ERR_IO, "cannot start a thread");
		else
			m->w[i].thread_started = 1;
	}
	if (st != KJIT_OK) {
		kt_meas_close(m);
		return st;
	}
	*out = m;
	return KJIT_OK;
}

const kt_hello *kt_meas_hello(kt_meas *m)
{
	return &m->lead;
}

void kt_meas_problem(kt_meas *m, double best_ns)
{
	pthread_mutex_lock(&m->lock);
	m->best_ns[0] = m->best_ns[1] = best_ns;
	m->best_hi_ns[0] = m->best_hi_ns[1] = 0;
	m->best_score = INFINITY;
	pthread_mutex_unlock(&m->lock);
}

double kt_meas_best(kt_meas *m)
{
	pthread_mutex_lock(&m->lock);
	double b = isfinite(m->best_ns[0]) ? m->best_ns[0] : m->best_ns[1];
	pthread_mutex_unlock(&m->lock);
	return b;
}

void kt_meas_submit(kt_meas *m, kt_task *t)
{
	pthread_mutex_lock(&m->lock);
	t->next = NULL;
	if (m->tail)
		m->tail->next = t;
	else
		m->head = t;
	m->tail = t;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

int kt_meas_wait(kt_meas *m, kt_task **out)
{
	int ret;
	pthread_mutex_lock(&m->lock);
	for (;;) {
		if (m->done) {
			*out = m->done;
			if (!(m->done = m->done->next))
				m->done_tail = NULL;
			ret = 1;
			break;
		}
		if (*m->o->stop) {
			ret = 0;
			break;
		}
		if (!m->live && !m->busy) {
			ret = -1;
			break;
		}
		kt_cond_wait_ns(&m->cond, &m->lock, 100000000u);
	}
	pthread_mutex_unlock(&m->lock);
	if (ret < 0)
		kjit__error(KJIT_ERR_NO_GPU, "no GPU worker is left to measure on (every one was "
		            "dropped: see the messages above)");
	return ret;
}

kt_task *kt_meas_drain(kt_meas *m)
{
	pthread_mutex_lock(&m->lock);
	kt_task *list = m->head;
	m->head = m->tail = NULL;
	while (m->busy)
		pthread_cond_wait(&m->cond, &m->lock);
	/* the queued ones, then the done ones */
	kt_task **end = &list;
	while (*end)
		end = &(*end)->next;
	*end = m->done;
	m->done = m->done_tail = NULL;
	pthread_mutex_unlock(&m->lock);
	return list;
}

size_t kt_meas_live(kt_meas *m)
{
	pthread_mutex_lock(&m->lock);
	size_t n = m->live;
	pthread_mutex_unlock(&m->lock);
	return n;
}

size_t kt_meas_count(kt_meas *m)
{
	return m->n;
}

void kt_meas_info(kt_meas *m, size_t i, kt_worker_info *out)
{
	worker *w = &m->w[i];
	pthread_mutex_lock(&m->lock);
	out->name = w->link->name;
	out->hello = w->started ? &w->hello : NULL;
	out->evaluated = w->evaluated;
	out->restarts = w->restarts;
	out->dropped = w->dropped;
	out->why = w->dropped ? w->why : NULL;
	pthread_mutex_unlock(&m->lock);
}

void kt_meas_close(kt_meas *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->quit = 1;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
	for (size_t i = 0; i < m->n; i++)
		if (m->w[i].thread_started)
			pthread_join(m->w[i].thread, NULL);
	free_workers(m);
	kt_hello_clear(&m->lead);
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->cond);
	free(m);
}
