/*
 * run.h - a run of kjit-tune (run/): rank 0's tuning run, which joins the
 * strategy, the compile pool, the measuring workers and the results
 * (tune.c), and the run of a rank other than 0 (serve.c).
 */
#ifndef KJIT_TUNE_RUN_H
#define KJIT_TUNE_RUN_H

#include <stdint.h>

#include "pool.h"
#include "search.h"
#include "wire.h"
#include "tools.h"

/* ---- a tuning run (tune.c) ---------------------------------------------- */

/* --profile (kt_profile_mode, wire.h): "all" (also NULL: --profile alone) or "best" into *out; anything else
 * is KJIT_ERR_INVALID_ARG naming it. */
kjit_status kt_profile_mode_parse(const char *text, kt_profile_mode *out);

typedef struct kt_tune_opts {
	const char *spec_path, *db, *strategy;
	/* --strategy-option NAME=VALUE, for the run's strategy */
	const char *const *strategy_args;
	size_t n_strategy_args;
	kt_budget budget;
	uint64_t seed;
	int64_t problem;       /* -1: every problem */
	int force, quiet, json;
	double timeout_s;      /* per variant */
	double early_stop;     /* factor; 0 off */
	double warmup_ms;      /* each measurement's warm-up */
	double budget_ms;      /* each measurement's time budget; 0 none */
	int l2;                /* 1 warm, 2 cold, 3 both */
	kjit_space_options limits; /* 0: min(spec's, device's) */
	int jobs;
	kt_pool_mode pool;
	kt_devices devices;    /* the GPUs to measure on (--devices) */
	int mpi;               /* --mpi: rank 0 of an MPI run */
	int objective_set;     /* --objective given: objective, else the spec's metric */
	kjit_objective objective;
	kt_profile_mode profile; /* --profile; the workers have it (kt_meas_opts) */
} kt_tune_opts;

/* What a run of o on spec minimises: --objective, else the spec's metric
 * (gbps and gflops order as time does), else time. */
kjit_objective kt_objective_of(const kt_tune_opts *o, const kjit__spec *spec);

/* The strategy of a run of spec into *out (the caller frees it with
 * kjit_strategy_free()): name (NULL: the spec's, else as budget limits
 * the run) with the spec's Search.Attributes and the command line's
 * args[n]; what it does not use said on stderr. KT_EXIT_OK, else
 * KT_EXIT_SPEC (the spec's fault) or KT_EXIT_USAGE (the command line's),
 * having said why. */
int kt_strategy_make(const char *name, const kjit__spec *spec, const kt_budget *budget,
                     const char *const *args, size_t n, kjit_strategy **out);

/* Tunes spec on the GPU (a worker process) and returns the exit code. */
int kt_tune(const kjit__spec *spec, const kt_tune_opts *o);

/* The error of problem p, whose restrictions and limits leave no valid
 * configuration: KJIT_ERR_INVALID_ARG naming the spec, the problem, the
 * product ruled out and the limits. */
kjit_status kt_space_empty(const kjit__spec *spec, size_t p, const kjit_space_options *lim);

/* ---- a rank other than 0 (serve.c) ------------------------------------ */

/* A rank other than 0 (serve.c): its own database (NULL:
 * $TMPDIR/kjit-UID/mpi.db), devices, compile workers and pool mode. */
typedef struct kt_serve_opts {
	const char *db;
	const kt_devices *devices;
	int jobs;
	kt_pool_mode pool;
} kt_serve_opts;
/* Waits for rank 0's SETUP, reports its role, then compiles and relays its
 * workers until QUIT. Returns the exit code. */
int kt_mpi_serve(const kt_serve_opts *o);

#endif /* KJIT_TUNE_RUN_H */
