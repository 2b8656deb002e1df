/*
 * pool.h - kjit-tune's compile pool (pool/): one queue of configurations
 * to compile and its workers, threads or compile worker processes
 * (compile_worker.c), and other ranks' cores (ranks.h).
 */
#ifndef KJIT_TUNE_POOL_H
#define KJIT_TUNE_POOL_H

#include <stddef.h>
#include <stdatomic.h>

#include "tools.h"
#include "kjit.h"

/* ---- the compile pool (pool.c, compile_worker.c) -------------------- */

/* One configuration to compile. The caller owns it and sets index (its
 * own) and config (n_params value indices, read until the job is done);
 * the pool fills the rest. */
typedef struct kt_compile_job {
	size_t index;
	const uint16_t *config;
	kjit_status status;
	char *error;           /* the NVRTC log or why, malloc'ed: the caller frees it */
	char key[33];          /* the binary key when status is KJIT_OK */
	double compile_ms;
	int compiled;          /* NVRTC ran for it (a failed compile too); 0: a cache hit */
	int broken;            /* the database failed for good: the run stops */
	int done;              /* set by the pool, under its lock */
	struct kt_compile_job *next; /* the pool's queue */
} kt_compile_job;

typedef enum { KT_POOL_AUTO, KT_POOL_THREADS, KT_POOL_PROCESSES } kt_pool_mode;

/* The most workers and the largest window of jobs ahead. */
#define KT_POOL_MAX_WORKERS 64
#define KT_WINDOW_MAX 1024

typedef struct kt_pool_opts {
	const kjit__spec *spec;
	const char *spec_path;  /* what the processes load */
	kjit_engine *engine;    /* the processes' engines have its database and arch */
	kjit_kernel *kernel;    /* of engine: what the threads compile */
	const char *exe;        /* the processes run `exe --compile-worker`; NULL: this program */
	int workers;            /* 0: online CPUs; more than KT_POOL_MAX_WORKERS: that many */
	kt_pool_mode mode;
} kt_pool_opts;

typedef struct kt_pool kt_pool;

/* "threads", "processes" or "auto" (KJIT_ERR_INVALID_ARG for another word). */
kjit_status kt_pool_mode_parse(const char *s, kt_pool_mode *out);

/* Starts the workers: threads, or processes each with its own engine on
 * the same database (NVRTC serialises much of a compile within one
 * process). A worker process killed by a signal costs its job one retry
 * on a fresh process; killed twice, the job is a failed compile
 * (KJIT_ERR_COMPILE) naming the signal; a worker that cannot start or
 * fails otherwise is KJIT_ERR_IO. A job dropped is KJIT_ERR_INVALID_ARG. AUTO picks processes for more than KT_POOL_AUTO_THREADS
 * workers. *out is freed with kt_pool_close(). */
#define KT_POOL_AUTO_THREADS 2
kjit_status kt_pool_open(const kt_pool_opts *o, kt_pool **out);
/* Queues j; the oldest job queued is compiled first. */
void kt_pool_submit(kt_pool *p, kt_compile_job *j);
/* Waits until j is done; 0 when *stop became non-zero first. *waited_s
 * (may be NULL) adds the time waited. */
int kt_pool_wait(kt_pool *p, kt_compile_job *j, const atomic_int *stop, double *waited_s);
/* Drops the jobs not yet taken (done, status KJIT_ERR_INVALID_ARG) and
 * waits for those being compiled; with now, worker processes are killed
 * and their jobs dropped too. Afterwards no job of the caller's is in the
 * pool. */
void kt_pool_drop(kt_pool *p, int now);
/* Stops the workers (kt_pool_drop(p, 0) first) and frees p. */
void kt_pool_close(kt_pool *p);

/* What the pool is and how fast it has compiled. */
typedef struct kt_pool_stats {
	const char *mode;      /* "threads" or "processes" */
	int workers;
	size_t jobs;           /* done */
	size_t compiled;       /* NVRTC ran (failures included); the rest were cache hits */
	size_t restarts;       /* worker processes started again after one ended */
	double busy_s;         /* job time summed over the workers */
	double rate;           /* configurations/s with every worker busy; 0: none yet */
} kt_pool_stats;
void kt_pool_get_stats(kt_pool *p, kt_pool_stats *out);
/* The jobs done by the workers of rank (0: this process's own), and of
 * them those NVRTC ran for (*compiled, may be NULL). */
size_t kt_pool_rank_jobs(kt_pool *p, int rank, size_t *compiled);

/* How many jobs to keep queued or done ahead of a consumer taking
 * consume_per_s (0: unknown): 2 x workers x max(1, consume_per_s / the
 * compile rate), at most KT_WINDOW_MAX. With a faster compile rate, 2 x
 * workers keeps every worker busy and a job submitted now is compiled
 * long before the consumer reaches it; with a slower one, the pool must
 * never stop for want of a window while the consumer is slow for a while
 * (a new problem's set-up, a slow variant), and banks what it can. */
size_t kt_pool_window(kt_pool *p, double consume_per_s);

/* Whether the variant of config failed, as a job of the pool, because
 * the spec's arguments do not fit the kernel's parameters: the kernel in
 * this process says, or (a worker process saw it) the variant is taken
 * here from the database its binary went to, and checked. */
int kt_pool_args_refused(kjit_kernel *kernel, const kjit__spec *spec, const uint16_t *config);

/* The compile worker's main: loads the spec, opens an engine (no GPU) for
 * arch on db, then answers compile messages from in_fd on out_fd until
 * EOF. Returns the process exit code. */
int kt_compile_worker_main(const char *spec_path, const char *db, const char *arch, int in_fd,
                           int out_fd);

#endif /* KJIT_TUNE_POOL_H */
