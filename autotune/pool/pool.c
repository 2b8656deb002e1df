/*
 * pool.c - kjit-tune's compile pool: one queue, oldest job first,
 * and workers that are threads compiling on the tuner's engine or threads
 * each driving a compile worker process (compile_worker.c) over a pipe.
 * The processes store their binaries in the database, where the GPU worker
 * and later runs find them; a process killed by a signal costs its job one
 * retry on a fresh process, and a job that two are killed on is a failed
 * compile naming the signal. With --mpi the other ranks are workers too,
 * a thread per job one takes at once (mpi_ranks.c ships the binaries
 * back); a rank lost gives its job back to the queue, first in line.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pool.h"
#include "ranks.h"
#include "wire.h"

/* Processes a job may end before it is a failure of its own. */
#define ATTEMPTS 2

typedef struct worker {
	kt_pool *pool;
	pthread_t thread;
	int rank;               /* another rank's: it compiles there */
	kt_child child;         /* processes: pid 0 until started */
	int ran;                /* processes: one was started before */
	kt_buf buf;
} worker;

struct kt_pool {
	kt_pool_opts o;
	int processes;
	worker *workers;
	int n, started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	kt_compile_job *head, *tail; /* queued, oldest first */
	int busy;                    /* jobs being compiled */
	int quit;
	atomic_int kill;             /* kt_pool_drop(p, 1): abandon the jobs in processes */
	size_t jobs, compiled, restarts; /* compiled: by processes and other ranks */
	size_t *rank_jobs, *rank_compiled; /* per rank, [kt_mpi_size()] */
	int *told;                   /* a rank's loss was told */
	double busy_s;
	kjit_engine_stats base;      /* threads: the engine's at open */
	char argv_in[16], argv_out[16];
};

kjit_status kt_pool_mode_parse(const char *s, kt_pool_mode *out)
{
	static const char *const names[] = { "auto", "threads", "processes" };
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (kt_pool_mode)i;
			return KJIT_OK;
		}
	return kjit__error(KJIT_ERR_INVALID_ARG, "expected threads, processes or auto, got '%s'",
	                   s);
}

/* ---- one job ---------------------------------------------------------------- */

static void job_fail(kt_compile_job *j, kjit_status st, const char *why)
{
	j->status = st;
	j->error = strdup(why);
}

static void job_in_thread(worker *w, kt_compile_job *j)
{
	const kt_pool_opts *o = &w->pool->o;
	kjit_config *c;
	kjit_status st = kt_config_open(o->spec, j->config, &c);
	if (st != KJIT_OK) {
		job_fail(j, st, kjit_last_error());
		return;
	}
	kjit_variant *v;
	kjit_variant_info info;
	kjit_cache_tier tier = KJIT_TIER_MEMORY;
	j->status = kjit_variant_get(o->kernel, kjit_config_variant(c), &v, &tier);
	if (j->status == KJIT_OK && kjit_variant_get_info(v, &info) == KJIT_OK) {
		snprintf(j->key, sizeof j->key, "%s", info.key);
		j->compile_ms = info.compile_ms;
	} else if (j->status != KJIT_OK && *kjit_last_error()) {
		j->error = strdup(kjit_last_error());
	}
	j->compiled = tier == KJIT_TIER_COMPILED || j->status == KJIT_ERR_COMPILE ||
	              j->status == KJIT_ERR_LINK;
	j->broken = kjit_engine_store_broken(o->engine, j->status);
	kjit_config_free(c);
}

/* A job for another rank that this process's cache has: answered here
 * (*by 0), so that a binary rank 0 holds is never compiled again. */
static int job_cached(worker *w, kt_compile_job *j)
{
	const kt_pool_opts *o = &w->pool->o;
	kjit_config *c;
	kjit_variant *v;
	kjit_variant_info info;
	if (kt_config_open(o->spec, j->config, &c) != KJIT_OK)
		return 0;
	int hit = kjit_variant_cached(o->kernel, kjit_config_variant(c), &v, NULL) == KJIT_OK &&
	          kjit_variant_get_info(v, &info) == KJIT_OK;
	if (hit) {
		snprintf(j->key, sizeof j->key, "%s", info.key);
		j->compile_ms = info.compile_ms;
	}
	kjit_config_free(c);
	return hit;
}

/* A compile worker's answer into j (its log moves over). */
static void take_answer(kt_compile_job *j, kt_compiled *c)
{
	j->status = c->status;
	j->error = c->error;
	c->error = NULL;
	if (c->key)
		snprintf(j->key, sizeof j->key, "%s", c->key);
	j->compile_ms = c->compile_ms;
	j->compiled = c->compiled;
	j->broken = c->broken;
}

/* On another rank, unless cached here: *by is the rank that answered.
 * 0 when the rank was lost (j untouched but for why). */
static int job_on_rank(worker *w, kt_compile_job *j, int *by, char *why, size_t why_size)
{
	kt_pool *p = w->pool;
	kt_compiled c;
	*by = 0;
	if (job_cached(w, j))
		return 1;
	int r = kt_mpi_compile(w->rank, kjit_engine_arch(p->o.engine), j->config,
	                       (uint32_t)p->o.spec->n_params, p->o.engine, &c, &p->kill, why,
	                       why_size);
	*by = w->rank;
	if (r == -2) {
		job_fail(j, KJIT_ERR_INVALID_ARG, "not compiled: the run was stopped");
	} else if (r == 1) {
		take_answer(j, &c);
	}
	kt_compiled_clear(&c);
	return r != 0;
}

static kjit_status start_process(worker *w)
{
	kt_pool *p = w->pool;
	char *argv[] = { "kjit-tune", "--compile-worker", p->argv_in, p->argv_out,
		         (char *)p->o.spec_path, (char *)kjit_engine_db_path(p->o.engine),
		         (char *)kjit_engine_arch(p->o.engine), NULL };
	kjit_status st = kt_child_start(&w->child, p->o.exe, argv);
	if (st != KJIT_OK)
		return st;
	pthread_mutex_lock(&p->lock);
	p->restarts += (size_t)w->ran;
	pthread_mutex_unlock(&p->lock);
	w->ran = 1;
	return KJIT_OK;
}

/* One attempt in the worker's process: 1 answered (j filled), 0 the
 * process was killed by a signal, -1 it failed otherwise (why says how for
 * both), -2 abandoned (kt_pool_drop(p, 1)). */
static int attempt(worker *w, kt_compile_job *j, char *why, size_t why_size)
{
	kt_pool *p = w->pool;
	if (w->child.pid <= 0 && start_process(w) != KJIT_OK) {
		snprintf(why, why_size, "starting a compile worker: %s", kjit_last_error());
		return -1;
	}
	kt_compile_encode(&w->buf, j->config, (uint32_t)p->o.spec->n_params);
	kt_frame_result fr = KT_FRAME_EOF; /* a write that fails: the process is gone */
	if (kt_frame_write(w->child.to, &w->buf) == KJIT_OK)
		fr = kt_frame_read(w->child.from, &w->buf, 0, &p->kill);
	if (fr == KT_FRAME_STOP) {
		kt_child_stop(&w->child, 1);
		return -2;
	}
	if (fr == KT_FRAME_EOF)
		return kt_child_reason(&w->child, "compile worker", why, why_size) ? 0 : -1;
	kt_compiled c;
	if (fr != KT_FRAME_OK || kt_compiled_decode(&w->buf, &c) != KJIT_OK) {
		/* a broken answer: the process is not to be trusted */
		snprintf(why, why_size, "%s", kjit_last_error());
		kt_child_stop(&w->child, 1);
		return -1;
	}
	take_answer(j, &c);
	kt_compiled_clear(&c);
	return 1;
}

/* A process killed by a signal twice on this job is the job's own failure
 * (NVRTC crashing on the kernel): a failed compile. Any other failure is
 * the pool's. */
static void job_in_process(worker *w, kt_compile_job *j)
{
	char why[256] = "", first[256] = "";
	int r = 0;
	for (int n = 0; n < ATTEMPTS && r == 0; n++) {
		if (n)
			snprintf(first, sizeof first, "%s", why);
		r = attempt(w, j, why, sizeof why);
	}
	if (r == 1)
		return;
	if (r == -2) {
		job_fail(j, KJIT_ERR_INVALID_ARG, "not compiled: the run was stopped");
	} else if (r == -1) {
		job_fail(j, KJIT_ERR_IO, why);
	} else {
		j->status = KJIT_ERR_COMPILE;
		j->error = strcmp(why, first) == 0
		                   ? kjit__strdup_printf("%s while compiling this configuration, "
		                                         "twice", why)
		                   : kjit__strdup_printf("%s while compiling this configuration "
		                                         "(the first attempt: %s)", why, first);
	}
}

/* ---- the workers --------------------------------------------------------------- */

static void *worker_main(void *arg)
{
	worker *w = arg;
	kt_pool *p = w->pool;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		kt_compile_job *j = p->head;
		if (!j) {
			if (p->quit)
				break;
			pthread_cond_wait(&p->cond, &p->lock);
			continue;
		}
		if (!(p->head = j->next))
			p->tail = NULL;
		p->busy++;
		pthread_mutex_unlock(&p->lock);
		char why[320];
		int kept = 1, by = 0;
		uint64_t t0 = kjit__now_ns();
		if (w->rank)
			kept = job_on_rank(w, j, &by, why, sizeof why);
		else if (p->processes)
			job_in_process(w, j);
		else
			job_in_thread(w, j);
		double dt = (double)(kjit__now_ns() - t0) * 1e-9;
		pthread_mutex_lock(&p->lock);
		p->busy--;
		if (!kept) {
			/* first in line for another worker; this one's rank is gone */
			if (!(j->next = p->head))
				p->tail = j;
			p->head = j;
			p->n--;
			if (!p->told[w->rank]++)
				fprintf(stderr, "\nkjit-tune: %s; its compiles go to the other workers\n",
				        why);
			pthread_cond_broadcast(&p->cond);
			break;
		}
		p->jobs++;
		p->rank_jobs[by]++;
		p->rank_compiled[by] += (size_t)j->compiled;
		if (p->processes || by)
			p->compiled += (size_t)j->compiled;
		p->busy_s += dt;
		j->done = 1;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	/* EOF: the process ends after the job it is on, which it stores */
	kt_child_stop(&w->child, 0);
	kt_buf_free(&w->buf);
	return NULL;
}

kjit_status kt_pool_open(const kt_pool_opts *o, kt_pool **out)
{
	*out = NULL;
	size_t size = (size_t)kt_mpi_size(), n_ranks = 0;
	int *ranks = calloc(size, sizeof *ranks), *slots = calloc(size, sizeof *slots);
	if (ranks && slots)
		n_ranks = kt_mpi_compilers(ranks, slots, size);
	kt_pool *p = calloc(1, sizeof *p);
	int n = o->workers > 0 ? o->workers : kjit__cpu_count();
	if (n > KT_POOL_MAX_WORKERS)
		n = KT_POOL_MAX_WORKERS;
	if (n < 1)
		n = 1;
	int total = n;
	for (size_t i = 0; i < n_ranks; i++)
		total += slots[i] < KT_POOL_MAX_WORKERS ? slots[i] : KT_POOL_MAX_WORKERS;
	if (!p || !ranks || !slots || !(p->workers = calloc((size_t)total, sizeof *p->workers)) ||
	    !(p->rank_jobs = calloc(size, sizeof *p->rank_jobs)) ||
	    !(p->rank_compiled = calloc(size, sizeof *p->rank_compiled)) ||
	    !(p->told = calloc(size, sizeof *p->told))) {
		if (p) {
			free(p->workers);
			free(p->rank_jobs);
			free(p->rank_compiled);
		}
		free(p);
		free(ranks);
		free(slots);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	for (int i = n, r = 0; i < total; r++)
		for (int k = 0; k < slots[r] && k < KT_POOL_MAX_WORKERS; k++)
			p->workers[i++].rank = ranks[r];
	free(ranks);
	free(slots);
	p->o = *o;
	p->processes = o->mode == KT_POOL_PROCESSES ||
	               (o->mode == KT_POOL_AUTO && n > KT_POOL_AUTO_THREADS);
	snprintf(p->argv_in, sizeof p->argv_in, "%d", KT_CHILD_IN_FD);
	snprintf(p->argv_out, sizeof p->argv_out, "%d", KT_CHILD_OUT_FD);
	kjit_engine_get_stats(o->engine, &p->base);
	/* a worker that died is an EPIPE on its pipe, not the end of this process */
	if (p->processes)
		signal(SIGPIPE, SIG_IGN);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	int rc = 0;
	for (; p->started < total; p->started++) {
		worker *w = &p->workers[p->started];
		w->pool = p;
		if ((rc = kt_thread_start(&w->thread, worker_main, w)) != 0)
			break;
	}
	p->n = p->started; /* fewer when a thread could not start */
	if (!p->started) {
		kt_pool_close(p);
		return kjit__error(KJIT_ERR_NOMEM, "cannot start a compile thread: %s", strerror(rc));
	}
	*out = p;
	return KJIT_OK;
}

void kt_pool_submit(kt_pool *p, kt_compile_job *j)
{
	j->done = 0;
	j->next = NULL;
	j->error = NULL;
	j->key[0] = '\0';
	j->compile_ms = 0;
	j->compiled = 0;
	j->status = KJIT_OK;
	pthread_mutex_lock(&p->lock);
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

int kt_pool_wait(kt_pool *p, kt_compile_job *j, const atomic_int *stop, double *waited_s)
{
	uint64_t t0 = kjit__now_ns();
	pthread_mutex_lock(&p->lock);
	while (!j->done && !(stop && *stop))
		kt_cond_wait_ns(&p->cond, &p->lock, 100000000u);
	int done = j->done;
	pthread_mutex_unlock(&p->lock);
	if (waited_s)
		*waited_s += (double)(kjit__now_ns() - t0) * 1e-9;
	return done;
}

void kt_pool_drop(kt_pool *p, int now)
{
	pthread_mutex_lock(&p->lock);
	for (kt_compile_job *j = p->head; j; j = j->next) {
		job_fail(j, KJIT_ERR_INVALID_ARG, "not compiled: the run was stopped");
		j->done = 1;
	}
	p->head = p->tail = NULL;
	if (now)
		p->kill = 1;
	while (p->busy)
		pthread_cond_wait(&p->cond, &p->lock);
	p->kill = 0;
	pthread_mutex_unlock(&p->lock);
}

void kt_pool_close(kt_pool *p)
{
	if (!p)
		return;
	kt_pool_drop(p, 0);
	pthread_mutex_lock(&p->lock);
	p->quit = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->started; i++)
		pthread_join(p->workers[i].thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p->workers);
	free(p->rank_jobs);
	free(p->rank_compiled);
	free(p->told);
	free(p);
}

/* ---- what it did ------------------------------------------------------------------ */

void kt_pool_get_stats(kt_pool *p, kt_pool_stats *out)
{
	memset(out, 0, sizeof *out);
	out->mode = p->processes ? "processes" : "threads";
	pthread_mutex_lock(&p->lock);
	out->workers = p->n;
	out->jobs = p->jobs;
	out->compiled = p->compiled;
	out->restarts = p->restarts;
	out->busy_s = p->busy_s;
	pthread_mutex_unlock(&p->lock);
	if (!p->processes) {
		kjit_engine_stats now;
		kjit_engine_get_stats(p->o.engine, &now);
		out->compiled += (size_t)(now.compiles - p->base.compiles);
	}
	out->rate = out->busy_s > 0 ? (double)out->workers * (double)out->jobs / out->busy_s : 0;
}

size_t kt_pool_rank_jobs(kt_pool *p, int rank, size_t *compiled)
{
	size_t jobs = 0;
	pthread_mutex_lock(&p->lock);
	if (rank >= 0 && rank < kt_mpi_size()) {
		jobs = p->rank_jobs[rank];
		if (compiled)
			*compiled = p->rank_compiled[rank];
	}
	pthread_mutex_unlock(&p->lock);
	return jobs;
}

size_t kt_pool_window(kt_pool *p, double consume_per_s)
{
	kt_pool_stats s;
	kt_pool_get_stats(p, &s);
	double ahead = 1;
	if (consume_per_s > 0 && s.rate > 0 && consume_per_s > s.rate)
		ahead = consume_per_s / s.rate;
	double w = ceil(2.0 * s.workers * ahead);
	return w < KT_WINDOW_MAX ? (size_t)w : KT_WINDOW_MAX;
}

int kt_pool_args_refused(kjit_kernel *kernel, const kjit__spec *spec, const uint16_t *config)
{
	if (kjit_kernel_args_refused(kernel))
		return 1;
	kjit_config *c;
	kjit_variant *v = NULL;
	if (!config || kt_config_open(spec, config, &c) != KJIT_OK)
		return 0;
	kjit_status st = kjit_variant_get(kernel, kjit_config_variant(c), &v, NULL);
	kjit_config_free(c);
	return st == KJIT_ERR_INVALID_ARG && kjit_kernel_args_refused(kernel);
}
