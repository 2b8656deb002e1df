/*
 * workers.h - the run's own (run/): its measuring workers (workers.c),
 * which tune.c hands tasks.
 */
#ifndef KJIT_TUNE_RUN_WORKERS_H
#define KJIT_TUNE_RUN_WORKERS_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#include "pool.h"
#include "wire.h"

/* ---- the measuring workers of a run (workers.c) ---------------------- */

/* One configuration to measure: the tuner fills job, problem and modes
 * and owns the task; the worker that takes it fills the rest. */
typedef struct kt_task {
	kt_compile_job *job;   /* submitted to the pool; its compile may still run */
	uint32_t problem;
	int modes;             /* bit 0: warm L2, bit 1: cold */
	/* per mode: the reply (status NULL when not measured), and why a
	 * request failed (a timeout, a crash) */
	kt_reply rep[2];
	char why[2][512];
	int setup;             /* the problem cannot be set up: rep's message says why */
	int profile;           /* profile it whatever --profile says (--profile best) */
	int stopped;           /* interrupted before the end */
	size_t worker;         /* the index of the worker that took it last */
	int32_t device;        /* the ordinal and UUID of its device, "" unknown */
	char device_uuid[48];
	/* wall time: the worker's (its restarts, the set-up reply and the
	 * requests); of those, the restarts; waiting for the compile; the
	 * problem's set-up before it, the part not hidden behind the compile */
	double measure_s, restart_s, compile_wait_s, setup_s;
	struct kt_task *next;
} kt_task;

/* What the workers measure with; read by them while the kt_meas is open
 * (the caller sets pool before the first task). */
typedef struct kt_meas_opts {
	const atomic_int *stop;
	kt_pool *pool;
	uint32_t n_params;
	double timeout_s, early_stop, warmup_ms, budget_ms;
	int quiet;
	kt_profile_mode profile;   /* --profile: what the workers profile */
	kjit_objective objective; /* energy or edp: the profile measures energy */
} kt_meas_opts;

/* A worker as the summary reports it (hello: while no task is out). */
typedef struct kt_worker_info {
	const char *name;      /* the link's */
	const kt_hello *hello; /* its last hello; NULL when it never started */
	size_t evaluated, restarts;
	int dropped;
	const char *why;       /* why it was dropped */
} kt_worker_info;

typedef struct kt_meas kt_meas;

/* Starts the workers of links (taken over: kt_meas_close() frees them,
 * also on a failure) and reads their hellos; with all, the first link is
 * the worker of device 0 on this host and local workers (kt_link_local())
 * for the other devices its hello counts are added. Every worker must be
 * of one device key: the first's. A worker that cannot start is an error
 * here; later one that cannot start KT_START_TRIES times in a row, or
 * whose link is lost, is dropped with a message and its task goes to
 * the others. */
#define KT_START_TRIES 3
kjit_status kt_meas_open(kt_link **links, size_t n, const kt_link_args *all,
                         const kt_meas_opts *o, kt_meas **out);
/* The first worker's hello: the device, arch and limits of the run. */
const kt_hello *kt_meas_hello(kt_meas *m);
/* A new problem: the early-stop bound starts at best_ns (INFINITY:
 * none). No task may be out. */
void kt_meas_problem(kt_meas *m, double best_ns);
/* The problem's best median so far (warm L2, else cold), INFINITY none. */
double kt_meas_best(kt_meas *m);
/* Queues t (oldest first). */
void kt_meas_submit(kt_meas *m, kt_task *t);
/* The next task done, in any order: 1 with *out; 0 when *o->stop became
 * non-zero first; -1 when no worker is left (the last error says why). */
int kt_meas_wait(kt_meas *m, kt_task **out);
/* Takes back every task not yet returned by kt_meas_wait(), after the
 * ones being measured are done: a list through next. */
kt_task *kt_meas_drain(kt_meas *m);
/* Workers not dropped. */
size_t kt_meas_live(kt_meas *m);
/* Worker i (< kt_meas_count()) for the summary. */
size_t kt_meas_count(kt_meas *m);
void kt_meas_info(kt_meas *m, size_t i, kt_worker_info *out);
/* Ends the workers and frees m and its links. */
void kt_meas_close(kt_meas *m);

#endif /* KJIT_TUNE_RUN_WORKERS_H */
