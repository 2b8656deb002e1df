/*
 * tune.h - internal header of kjit-tune: the spec (spec.c), expressions and
 * the constrained space (space.c), search strategies (strategies/), replay
 * (replay.c), results in the database (results.c). Everything here
 * reports failures through kjit__error(), so
 * that kjit_last_error() has the detail.
 */
#ifndef KJIT_TUNE_H
#define KJIT_TUNE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "base.h"
#include "kjit.h"

/* Exit codes of kjit-tune (doc/kjit-tune.1). */
enum { KT_EXIT_OK = 0, KT_EXIT_RUNTIME = 1, KT_EXIT_USAGE = 2, KT_EXIT_SPEC = 3 };

/* ---- the spec (spec.c) ---------------------------------------------- */

/* Roles of a tunable parameter; one parameter may have several. */
#define KT_ROLE_BLOCK_X 0x1u
#define KT_ROLE_BLOCK_Y 0x2u
#define KT_ROLE_BLOCK_Z 0x4u
#define KT_ROLE_DEFINE 0x8u /* -DNAME=value */
#define KT_ROLE_FLAGS 0x10u /* the value is NVRTC flags, split on spaces */

typedef struct kt_value {
	char *text;   /* canonical text: "64", "0.5", "--use_fast_math" */
	int kind;     /* SQLITE_INTEGER, SQLITE_FLOAT or SQLITE_TEXT */
	int64_t i;
	double d;
} kt_value;

typedef struct kt_param {
	char *name;
	kt_value *values;
	size_t n_values;
	size_t default_index; /* the default configuration's value */
	unsigned roles;
} kt_param;

/* A problem: named integer sizes (n, or m,n,k). */
typedef struct kt_problem {
	char **names;
	int64_t *values;
	size_t n;
} kt_problem;

typedef enum { KT_FILL_RANDOM, KT_FILL_CONSTANT, KT_FILL_SEQUENCE, KT_FILL_FILE } kt_fill;
typedef enum { KT_IN = 1, KT_OUT = 2, KT_INOUT = 3 } kt_access;

/* A kernel argument: a scalar (value is an expression) or a buffer. */
typedef struct kt_arg {
	char *name;
	char *type;      /* element type: int32 int64 uint32 uint64 float double */
	int is_buffer;
	char *value;     /* scalar: expression over the problem sizes */
	char *length;    /* buffer: element count, an expression */
	kt_fill fill;
	uint64_t seed;   /* KT_FILL_RANDOM */
	double constant; /* KT_FILL_CONSTANT; start of KT_FILL_SEQUENCE */
	char *file;      /* KT_FILL_FILE, resolved against the spec's folder */
	kt_access access;
} kt_arg;

typedef struct kt_spec {
	char *path;          /* the spec file, for messages */
	char *format;        /* "kjit" or "t1" */
	char *source_path;   /* resolved against the spec's folder */
	char *entry;
	char **flags;        /* fixed NVRTC flags */
	size_t n_flags;
	kt_param *params;
	size_t n_params;
	char **restrictions; /* kjit expression syntax (translated from T1) */
	size_t n_restrictions;
	char *grid[3];       /* expressions; "1" when absent */
	char *shared;        /* dynamic shared memory bytes, an expression */
	kt_problem *problems;
	size_t n_problems;
	kt_arg *args;
	size_t n_args;
	char *verify;        /* "default", "reference" or "none" */
	char *reference_entry; /* verify against a reference kernel */
	double atol, rtol;
	char *bytes, *flops; /* objective formulas, NULL when absent */
	int64_t max_threads; /* threads per block limit (1024) */
	int64_t max_shared;  /* dynamic shared memory limit in bytes */
} kt_spec;

/* Reads a kjit or T1 spec. A spec error is KJIT_ERR_INVALID_ARG (or
 * KJIT_ERR_IO) with "FILE: FIELD: expected ..." in kjit_last_error().
 * Every name used by an expression is checked here. The caller owns *out
 * and frees it with kt_spec_free(). */
kjit_status kt_spec_load(const char *path, kt_spec **out);
void kt_spec_free(kt_spec *spec);

/* A problem as "n=67108864,m=4" (the problem key); malloc'ed. */
char *kt_problem_key(const kt_problem *problem);

/* ---- expressions (space.c) ------------------------------------------ */

/* An expression context: an in-memory SQLite connection under an
 * authorizer that lets a statement read its bound parameters and call
 * pure functions, and nothing else. */
typedef struct kt_expr_ctx kt_expr_ctx;
typedef struct kt_expr kt_expr;

kjit_status kt_expr_ctx_open(kt_expr_ctx **out);
void kt_expr_ctx_close(kt_expr_ctx *ctx);

/* Translates Python-style syntax (//, ==, and/or/not, True/False, "str")
 * to SQL, turning every name in names[n] into the bound parameter :name.
 * Another bare name (not a call) is an error naming it. *out is
 * malloc'ed. */
kjit_status kt_expr_translate(const char *expr, const char *const *names, size_t n,
                              char **out);

/* Prepares SELECT (sql) under the authorizer; names as above map bound
 * parameters to slots. what names the field for messages. */
kjit_status kt_expr_prepare(kt_expr_ctx *ctx, const char *expr, const char *const *names,
                            size_t n, const char *what, kt_expr **out);
/* The same, for SQL that is already translated (the tests use it). */
kjit_status kt_expr_prepare_sql(kt_expr_ctx *ctx, const char *sql,
                                const char *const *names, size_t n, const char *what,
                                kt_expr **out);
void kt_expr_free(kt_expr *e);
/* The highest slot that e reads, -1 when none. */
int kt_expr_max_slot(const kt_expr *e);
/* Evaluates with slots[i] bound to every slot i that e reads. *out is
 * the result as a number (NULL is an error). */
kjit_status kt_expr_eval(kt_expr *e, const kt_value *slots, double *out);

/* ---- the space (space.c) -------------------------------------------- */

/* Device limits that prune the space. */
typedef struct kt_limits {
	int64_t max_threads; /* block x*y*z; default 1024 */
	int64_t max_shared;  /* dynamic shared memory bytes; default 48 KiB */
} kt_limits;

/* The constrained space of one problem: every valid configuration as a
 * row of value indices (one per parameter), in lexicographic order.
 * Enumerated depth first: a restriction runs as soon as the parameters
 * it reads are set, so the unconstrained product is never built. */
typedef struct kt_space {
	const kt_spec *spec;
	size_t problem;
	size_t n_params;
	uint16_t *configs;   /* size * n_params */
	size_t size;
	double product;      /* size of the unconstrained product */
	size_t *hash;        /* open addressing: index + 1, 0 empty */
	size_t hash_cap;
} kt_space;

/* Builds the space of problem p of spec. limits may be NULL (the spec's).
 * The caller owns *out; kt_space_free() frees it. */
kjit_status kt_space_build(const kt_spec *spec, size_t p, const kt_limits *limits,
                           kt_space **out);
void kt_space_free(kt_space *space);
const uint16_t *kt_space_config(const kt_space *space, size_t index);
/* The index of a configuration, or -1 when it is not in the space. */
int64_t kt_space_find(const kt_space *space, const uint16_t *config);
/* A configuration as JSON {"NAME":value,...}; malloc'ed. */
char *kt_space_config_json(const kt_space *space, size_t index);

/* ---- strategies (strategies/) --------------------------------------- */

/* A deterministic generator (xoshiro256**), so that a seed repeats. */
typedef struct kt_rng {
	uint64_t s[4];
} kt_rng;
void kt_rng_seed(kt_rng *r, uint64_t seed);
uint64_t kt_rng_next(kt_rng *r);
/* Uniform in [0, n), n > 0. */
uint64_t kt_rng_below(kt_rng *r, uint64_t n);
/* Uniform in [0, 1). */
double kt_rng_unit(kt_rng *r);

/* A search strategy. init() receives the space, the evaluation budget
 * (it may shape a schedule with it) and a seed, and returns its state;
 * next() returns the next configuration index to evaluate or -1 when it
 * is done; report() gives the objective of an index next() returned
 * (lower is better; INFINITY for a failure). */
typedef struct kt_strategy {
	const char *name;
	const char *summary;
	void *(*init)(const kt_space *space, size_t budget, uint64_t seed);
	int64_t (*next)(void *state);
	void (*report)(void *state, size_t index, double objective);
	void (*free)(void *state);
} kt_strategy;

extern const kt_strategy kt_strategy_exhaustive;
extern const kt_strategy kt_strategy_random;
extern const kt_strategy kt_strategy_annealing;
extern const kt_strategy kt_strategy_genetic;
extern const kt_strategy kt_strategy_surrogate;

/* NULL-terminated list of every strategy, and lookup by name. */
extern const kt_strategy *const kt_strategies[];
const kt_strategy *kt_strategy_find(const char *name);

/* Helpers shared by the strategies (strategies/common.c). */
/* A random valid neighbour of index: one parameter changed. -1: none
 * found in a few tries. */
int64_t kt_neighbour(const kt_space *space, size_t index, kt_rng *rng);
/* A random index whose visited[] is 0, -1 when every one is set. */
int64_t kt_random_unvisited(size_t size, const uint8_t *visited, kt_rng *rng);

/* ---- the search driver and replay (replay.c) ------------------------ */

/* A budget: the smallest of the set limits; 0 means unset. */
typedef struct kt_budget {
	size_t evaluations;
	double fraction;  /* of the constrained space, (0, 1] */
	double seconds;   /* wall time */
} kt_budget;

/* The evaluation budget in configurations for a space. */
size_t kt_budget_evaluations(const kt_budget *b, size_t space_size);

typedef struct kt_replay_result {
	size_t evaluations;       /* distinct configurations evaluated */
	int64_t best_found;       /* index, -1 when all failed */
	double best_found_value;
	size_t evals_to_found;    /* evaluations when best_found was first seen */
	int64_t best_known;       /* the table's best, -1 when all failed */
	double best_known_value;
	size_t evals_to_known;    /* 0 when the best known was not reached */
} kt_replay_result;

/* Runs strategy on space against objective[space->size] (INFINITY for a
 * failure): answers repeats from memory (they do not count) and stops at
 * the budget or when the strategy is done. */
kjit_status kt_replay_run(const kt_space *space, const kt_strategy *strategy,
                          const kt_budget *budget, uint64_t seed,
                          const double *objective, kt_replay_result *out);

/* Loads (configuration -> time) from a CSV (a header of parameter names
 * and "time") or JSON (an array of objects with the parameter names and
 * "time") file. Configurations of the space that the file lacks are
 * INFINITY; rows outside the space are counted in *ignored. *out
 * (space->size doubles) is malloc'ed. */
kjit_status kt_replay_load(const kt_space *space, const char *path, double **out,
                           size_t *ignored);


/* ---- tuning results in the kjit database (results.c) ------------------ */

/* Configurations and problems as JSON objects with sorted keys (the form
 * the runs, results and best tables hold); malloc'ed. */
char *kt_config_json_sorted(const kt_space *space, size_t index);
char *kt_problem_json(const kt_problem *problem);

/* The kernel signature of a spec, as libkjit computes it: a compile-only
 * engine on ":memory:" (arch sm_90, KJIT_ENGINE_NO_GPU) creates the
 * kernel from the entry, the source text and the parameter names.
 * *out is malloc'ed. */
kjit_status kt_spec_signature(const kt_spec *spec, char **out);

/* A connection of its own to the kjit database (kjit__store). */
typedef struct kt_results kt_results;
/* path NULL: $KJIT_DB, else the user cache. */
kjit_status kt_results_open(const char *path, kt_results **out);
void kt_results_close(kt_results *r);
sqlite3 *kt_results_db(kt_results *r);

/* What a run is about. problem is JSON with sorted keys. */
typedef struct kt_run_desc {
	const char *signature, *device_key, *kernel, *spec, *strategy, *problem;
	int64_t total; /* configurations to evaluate, 0 unknown */
} kt_run_desc;

typedef struct kt_run {
	int64_t id;
	char *signature, *device_key, *problem;
	int resumed; /* an earlier run row (same signature, device key,
	              * problem and spec, not done) was continued */
} kt_run;

/* Starts a run (a runs row, status running) or resumes the latest
 * unfinished one with the same signature, device key, problem and spec.
 * The caller frees *out with kt_run_free(). */
kjit_status kt_run_start(kt_results *r, const kt_run_desc *d, kt_run **out);
void kt_run_free(kt_run *run);
/* Sets status (done|interrupted|failed) and the finished time. */
kjit_status kt_run_finish(kt_results *r, const kt_run *run, const char *status);

/* Statuses of a result. */
#define KT_STATUSES "ok|compile_error|launch_error|crashed|timeout|wrong_result|stopped_early"
int kt_status_valid(const char *status);

/* One evaluated configuration. NULL text and NAN numbers are stored as
 * NULL; l2 NULL is "warm". */
typedef struct kt_eval {
	const char *config;     /* JSON, sorted keys */
	const char *status;     /* one of KT_STATUSES */
	const char *timer;      /* cupti|events */
	const char *l2;         /* warm|cold */
	const char *binary_key;
	double median_ns, spread_ns, min_ns, max_ns;
	const double *samples;  /* stored as little-endian float64 */
	size_t n_samples;
	double objective, compile_ms;
	const char *message;
	const char *arch, *nvrtc; /* for the best row */
} kt_eval;

/* Records e in ONE transaction: the results row (upsert on signature,
 * device key, problem, config, l2), runs.evaluated/updated and, when e
 * is ok and its median is below the stored best's (or the stored best is
 * stale), the best row (stale = 0).
 * *result_id and *improved may be NULL. */
kjit_status kt_results_record(kt_results *r, const kt_run *run, const kt_eval *e,
                              int64_t *result_id, int *improved);

/* The objective table of space for (signature, device_key, problem):
 * *objective (space->size doubles) holds each configuration's objective,
 * INFINITY for a failure or no result; *have (may be NULL) marks the
 * configurations with a result of any status (resume skips them unless
 * --force). With several l2 rows, the lowest objective counts.
 * Rows outside the space are counted in *ignored (may be NULL). */
kjit_status kt_results_load(kt_results *r, const kt_space *space, const char *signature,
                            const char *device_key, double **objective, uint8_t **have,
                            size_t *ignored);

/* The device key of the results of signature when exactly one is
 * present; *out malloc'ed. */
kjit_status kt_results_only_device(kt_results *r, const char *signature, char **out);

typedef enum { KT_EXPORT_CSV, KT_EXPORT_JSON, KT_EXPORT_T4 } kt_export_format;

/* Writes the results of run_id (when > 0) or else of (signature,
 * device_key, problem) to f. spec (may be NULL) gives the parameter
 * names: CSV then has one column per parameter and "time" (the
 * objective), so that --replay reads it back. */
kjit_status kt_results_export(kt_results *r, const kt_spec *spec, int64_t run_id,
                              const char *signature, const char *device_key,
                              const char *problem, kt_export_format format, FILE *f);

#endif /* KJIT_TUNE_H */
