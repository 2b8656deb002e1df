/*
 * tune.h - internal header of kjit-tune: search strategies (strategies/),
 * replay (replay.c), results in the database (results.c). The spec, the
 * expressions and the space are the engine layer's (engine.h). Everything here
 * reports failures through kjit__error(), so
 * that kjit_last_error() has the detail.
 */
#ifndef KJIT_TUNE_H
#define KJIT_TUNE_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>

#include <sqlite3.h>

#include "tuning.h"
#include "kjit.h"

/* Exit codes of kjit-tune (doc/kjit-tune.1). */
enum { KT_EXIT_OK = 0, KT_EXIT_RUNTIME = 1, KT_EXIT_USAGE = 2, KT_EXIT_SPEC = 3,
       KT_EXIT_INTERRUPTED = 130 };

/* ---- strategies (strategies/) --------------------------------------- */

/* A deterministic generator (xoshiro256**), so that a seed repeats. */
typedef struct kt_rng {
	uint64_t s[4];
} kt_rng;
void kt_rng_seed(kt_rng *r, uint64_t seed);
/* Output j of the SplitMix64 sequence from start: a counter-based
 * generator, so that output j needs none of the ones before it. */
uint64_t kt_splitmix(uint64_t start, uint64_t j);
uint64_t kt_rng_next(kt_rng *r);
/* Uniform in [0, n), n > 0. */
uint64_t kt_rng_below(kt_rng *r, uint64_t n);
/* Uniform in [0, 1). */
double kt_rng_unit(kt_rng *r);
/* Standard normal. */
double kt_rng_normal(kt_rng *r);

/* A search strategy. init() receives the space, the evaluation budget
 * (it may shape a schedule with it) and a seed, and returns its state;
 * next() returns the next configuration index to evaluate, KT_NEXT_WAIT
 * or -1; report() gives the objective of an index next() returned (lower
 * is better; INFINITY for a failure).
 *
 * The batch contract. The tuner has B measuring workers (1 ..
 * KT_BATCH_MAX; the strategy is not told B) and calls next() while fewer
 * than B proposals are outstanding: returned by next() and not yet
 * reported. Every index next() returned gets exactly one report(), and
 * the reports of outstanding proposals arrive in any order. A repeat of
 * a configuration already known is reported at once, from memory; a
 * repeat of an outstanding one when that one's result arrives.
 * next() returns KT_NEXT_WAIT when it has nothing to propose until it
 * hears back, never while nothing is outstanding. -1 is final: next() is
 * not called again, and the proposals still outstanding are reported.
 * With B = 1 (next(), its report(), next() ...) a strategy proposes what
 * it always has for a seed. Each strategy's file says what it proposes
 * in a batch and when it waits. */
#define KT_NEXT_WAIT (-2)
#define KT_BATCH_MAX 64

typedef struct kt_strategy {
	const char *name;
	const char *summary;
	/* 1 when next() does not wait for report(): the tuner then takes a
	 * window of proposals and compiles them ahead of the measurements. */
	int ahead;
	void *(*init)(const kjit__space *space, size_t budget, uint64_t seed);
	int64_t (*next)(void *state);
	void (*report)(void *state, size_t index, double objective);
	void (*free)(void *state);
} kt_strategy;

extern const kt_strategy kt_strategy_exhaustive;
extern const kt_strategy kt_strategy_random;
extern const kt_strategy kt_strategy_annealing;
extern const kt_strategy kt_strategy_genetic;
extern const kt_strategy kt_strategy_surrogate;
extern const kt_strategy kt_strategy_dual_annealing;
extern const kt_strategy kt_strategy_pso;
extern const kt_strategy kt_strategy_hybrid;

/* The strategy kjit-tune uses when a budget is set and no strategy is
 * named (doc/kjit-tune.1 says why this one). */
#define KT_STRATEGY_DEFAULT "hybrid"

/* NULL-terminated list of every strategy, and lookup by name. */
extern const kt_strategy *const kt_strategies[];
const kt_strategy *kt_strategy_find(const char *name);

/* Helpers shared by the strategies (strategies/common.c). */
/* A random valid neighbour of index: one parameter changed. -1: none
 * found in a few tries. */
int64_t kt_neighbour(const kjit__space *space, size_t index, kt_rng *rng);
/* A random index whose visited[] is 0, -1 when every one is set. */
int64_t kt_random_unvisited(size_t size, const uint8_t *visited, kt_rng *rng);
/* The valid configuration nearest to pos, a point with one coordinate
 * per parameter in value indices: pos rounded when that is valid, else
 * the nearest of the space by squared distance (ties: the first). -1
 * for an empty space. */
int64_t kt_snap(const kjit__space *space, const double *pos);
/* The configurations next to index along each parameter: for each, the
 * nearest valid value below and above with the others kept. Writes at
 * most 2 * n_params indices to out and returns how many. */
size_t kt_adjacent(const kjit__space *space, size_t index, int64_t *out);

/* What a strategy has been told: each configuration's objective, once.
 * seen[] is KT_KNOWN once reported, KT_ASKED while proposed and
 * outstanding, 0 before (kt_random_unvisited() avoids both). */
enum { KT_KNOWN = 1, KT_ASKED = 2 };
typedef struct kt_memo {
	uint8_t *seen;
	double *value;
	size_t n_seen;    /* known */
} kt_memo;
/* 0 when out of memory. */
int kt_memo_init(kt_memo *m, const kjit__space *space);
void kt_memo_free(kt_memo *m);
/* Marks index proposed and returns it (next()'s return). */
int64_t kt_memo_ask(kt_memo *m, int64_t index);
/* Records the objective of index; 0 when it was known already (kept). */
int kt_memo_put(kt_memo *m, size_t index, double objective);

/* A local search: first-improvement descent over the adjacent
 * configurations (kt_adjacent()), looked at in a random order. In a batch
 * several neighbours are out at once: the descent moves on the first
 * better result and stays active, waiting, while neighbours it handed out
 * are still to be taken. */
typedef struct kt_local {
	int active;       /* 0 once at a local minimum */
	int64_t at;       /* where the descent is */
	double value;
	int64_t *nb;      /* at's neighbours, 2 * n_params at most */
	size_t n_nb, next;
	int64_t out[KT_BATCH_MAX]; /* handed out, not yet taken */
	size_t n_out;
} kt_local;
/* 0 when out of memory. */
int kt_local_init(kt_local *l, const kjit__space *space);
void kt_local_free(kt_local *l);
/* Starts (or moves) the descent at index, of objective value; what is
 * out stays out. */
void kt_local_start(kt_local *l, const kjit__space *space, size_t index, double value,
                    kt_rng *rng);
/* Ends the descent, forgetting what is out. */
void kt_local_stop(kt_local *l);
/* The next neighbour to look at (out until taken); -1 when none is left:
 * at a local minimum (active is then 0), or, while neighbours are out,
 * until they are taken (active stays 1). */
int64_t kt_local_next(kt_local *l);
/* Configuration j has objective v (a neighbour handed out or any other
 * result): the descent moves there when it is active and v is lower. */
void kt_local_take(kt_local *l, const kjit__space *space, int64_t j, double v, kt_rng *rng);

/* ---- the search driver and replay (replay.c) ------------------------ */

/* A budget: the smallest of the set limits; 0 means unset. */
typedef struct kt_budget {
	size_t evaluations;
	double fraction;  /* of the constrained space, (0, 1] */
	double seconds;   /* wall time */
} kt_budget;

/* The evaluation budget in configurations for a space. */
size_t kt_budget_evaluations(const kt_budget *b, size_t space_size);

/* The name of the strategy of a run: the command line's, else the
 * spec's, else KT_STRATEGY_DEFAULT when budget sets a limit, else
 * exhaustive (either name may be NULL). */
const char *kt_strategy_choose(const char *cli, const char *spec, const kt_budget *budget);

typedef struct kt_replay_result {
	size_t evaluations;       /* distinct configurations evaluated */
	int64_t best_found;       /* index, -1 when all failed */
	double best_found_value;
	size_t evals_to_found;    /* evaluations when best_found was first seen */
	int64_t best_known;       /* the table's best, -1 when all failed */
	double best_known_value;
	size_t evals_to_known;    /* 0 when the best known was not reached */
	size_t evals_to_within;   /* evaluations when a value within the
	                           * fraction `within` of the best known was
	                           * first seen; 0 when never */
	double seconds;           /* the simulated clock at the end (0 without one) */
	double seconds_to_within; /* the simulated clock at evals_to_within */
} kt_replay_result;

/* How a replay runs. */
typedef struct kt_replay_opts {
	const kt_budget *budget;  /* NULL: none */
	uint64_t seed;            /* the strategy's, and the order results arrive in */
	double within;            /* evals_to_within's tolerance (0.05: within 5% of
	                           * the best known) */
	int until;                /* stop once a value within the tolerance is found
	                           * (bench-search: the rest would not change
	                           * evals_to_within) */
	size_t batch;             /* proposals outstanding, 1 .. KT_BATCH_MAX (0: 1) */
	/* The simulated clock, when both costs are set (milliseconds per
	 * configuration): each proposal is compiled on one of `workers`
	 * (first come, first served) and then measured on one of `gpus` (in
	 * the order the compiles end); its result arrives when its
	 * measurement ends. The strategy has workers + gpus proposals
	 * outstanding (at most KT_BATCH_MAX; batch is not used). */
	const double *compile_ms, *measure_ms;
	size_t workers, gpus;     /* 0: 1 */
} kt_replay_opts;

/* Runs strategy on space against objective[space->size] (INFINITY for a
 * failure) as the tuner would with o->batch workers (the batch contract
 * above): results arrive in a pseudo-random order of the seed among the
 * outstanding proposals, or as the simulated clock has them; repeats are
 * answered from memory (they do not count, and cost no time). Ends when the strategy is done or the evaluation budget is
 * spent (with what was outstanding reported), or at once at the time
 * budget or o->until. KJIT_ERR_INVALID_ARG when the strategy breaks the
 * contract (an index outside the space, KT_NEXT_WAIT with nothing
 * outstanding). */
kjit_status kt_replay(const kjit__space *space, const kt_strategy *strategy,
                      const kt_replay_opts *o, const double *objective, kt_replay_result *out);
/* kt_replay() with batch 1 and within 0. */
kjit_status kt_replay_run(const kjit__space *space, const kt_strategy *strategy,
                          const kt_budget *budget, uint64_t seed,
                          const double *objective, kt_replay_result *out);

/* Loads (configuration -> time) from a CSV (a header of parameter names
 * and "time") or JSON (an array of objects with the parameter names and
 * "time") file. Configurations of the space that the file lacks are
 * INFINITY; rows outside the space are counted in *ignored. *out
 * (space->size doubles) is malloc'ed. */
kjit_status kt_replay_load(const kjit__space *space, const char *path, double **out,
                           size_t *ignored);
/* kt_replay_load(), and the costs of the simulated clock when the CSV has
 * the columns compile_ms and benchmark_ms (both, else *compile_ms and
 * *measure_ms are NULL): per configuration, malloc'ed, 0 where the file
 * lacks the configuration or the cost. */
kjit_status kt_replay_load_costs(const kjit__space *space, const char *path, double **out,
                                 double **compile_ms, double **measure_ms, size_t *ignored);


/* ---- tuning results in the kjit database (results.c) ------------------ */

/* The kernel signature of a spec (kjit__signature of its entry, source
 * text and parameter names), with no engine. *out is malloc'ed. */
kjit_status kt_spec_signature(const kjit__spec *spec, char **out);

/* A connection of its own to the kjit database (kjit__store). */
typedef struct kt_results kt_results;
/* path NULL: $KJIT_DB, else the user cache. */
kjit_status kt_results_open(const char *path, kt_results **out);
/* Closes the database; its status says whether the last writes landed. */
kjit_status kt_results_close(kt_results *r);
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

/* One evaluated configuration. NULL text and NAN numbers are stored as
 * NULL; l2 NULL is "warm". */
typedef struct kt_eval {
	const char *config;     /* JSON, sorted keys */
	const char *status;     /* the text of a kjit__result_status */
	const char *timer;      /* cupti|events */
	const char *l2;         /* warm|cold */
	const char *binary_key;
	double median_ns, spread_ns, min_ns, max_ns;
	const double *samples;  /* stored as little-endian float64 */
	size_t n_samples;
	double objective, compile_ms;
	const char *message;
	const char *arch, *nvrtc; /* for the best row */
	/* The device that measured it, among those sharing the device key
	 * (the worker's kt_hello). Zero, as in an initialiser that names
	 * neither, is unknown: stored NULL. */
	int has_device_ordinal;   /* 1: device_ordinal is set */
	int32_t device_ordinal;   /* its CUDA ordinal on its host, >= 0 */
	const char *device_uuid;  /* "GPU-..." as kt_hello has it; NULL: unknown */
} kt_eval;

/* Records e in ONE transaction: the results row (upsert on signature,
 * device key, problem, config, l2; the device columns too, so that they
 * name the latest measurement's), runs.evaluated/updated and, when e is
 * ok and its median is below the stored best's (or the stored best is
 * stale), the best row (stale = 0). A negative device_ordinal that is
 * set is KJIT_ERR_INVALID_ARG, nothing stored.
 * *result_id and *improved may be NULL. */
kjit_status kt_results_record(kt_results *r, const kt_run *run, const kt_eval *e,
                              int64_t *result_id, int *improved);

/* The objective table of space for (signature, device_key, problem):
 * *objective (space->size doubles) holds each configuration's objective,
 * INFINITY for a failure or no result; *have (may be NULL) marks the
 * configurations with a result of any status (resume skips them unless
 * --force). With several l2 rows, the lowest objective counts.
 * Rows outside the space are counted in *ignored (may be NULL). */
kjit_status kt_results_load(kt_results *r, const kjit__space *space, const char *signature,
                            const char *device_key, double **objective, uint8_t **have,
                            size_t *ignored);

/* The device key of the results of signature when exactly one is
 * present; *out malloc'ed. */
kjit_status kt_results_only_device(kt_results *r, const char *signature, char **out);

typedef enum { KT_EXPORT_CSV, KT_EXPORT_JSON, KT_EXPORT_T4 } kt_export_format;

/* Writes the results of run_id (when > 0), or else of (signature,
 * device_key) for the problems (JSON, as the results table has them), to
 * f. spec (may be NULL) gives the parameter names: CSV then has one
 * column per parameter and "time" (the objective), so that --replay
 * reads it back; and T4's time unit (spec->time_unit, default ms). T4
 * follows the T4 1.0.0 results and metadata schemas (doc/spec-format.md). */
kjit_status kt_results_export(kt_results *r, const kjit__spec *spec, int64_t run_id,
                              const char *signature, const char *device_key,
                              const char *const *problems, size_t n_problems,
                              kt_export_format format, FILE *f);

/* Writes the T4 export of (signature, device_key, problems) to path,
 * through a temporary file renamed into place. */
kjit_status kt_results_write_t4(kt_results *r, const kjit__spec *spec, const char *signature,
                                const char *device_key, const char *const *problems,
                                size_t n_problems, const char *path);

/* As kt_results_open(), but a missing file is KJIT_ERR_NOT_FOUND naming
 * it instead of a new, empty database (--export, --replay-db). */
kjit_status kt_results_open_existing(const char *path, kt_results **out);

/* The best row of (signature, device_key, problem): its configuration
 * (malloc'ed) and median. KJIT_ERR_NOT_FOUND when there is none. */
kjit_status kt_results_best(kt_results *r, const char *signature, const char *device_key,
                            const char *problem, char **config, double *median_ns);

/* ---- configurations as launches (launch.c) ---------------------------- */

/* The compile options of a configuration as one string ("DNAME=value" and
 * "Fflags" lines), so that configurations that differ only in launch
 * settings compile once; malloc'ed, NULL when out of memory. */
char *kt_variant_text(const kjit__spec *spec, const uint16_t *config);

/* What launching one configuration takes: the variant description and
 * the geometry. */
typedef struct kt_launch {
	kjit__config_desc d;
	unsigned grid[3], block[3], shared;
} kt_launch;

/* The description and geometry of config for problem p; kt_launch_clear()
 * frees them. */
kjit_status kt_launch_make(const kjit__spec *spec, size_t p, const uint16_t *config,
                           kt_launch *l);
void kt_launch_clear(kt_launch *l);

/* ---- kernel arguments (args.c) ---------------------------------------- */

typedef struct kt_arg {
	const kjit__arg *spec;
	unsigned components;    /* 1, or a vector type's (float4: 4) */
	size_t elem;            /* bytes of one value: a component, a custom element */
	size_t count;           /* elements (a float4 counts once); 1 for a scalar */
	size_t values;          /* count x components */
	size_t bytes;           /* values x elem */
	void *host;             /* the contents (a scalar's value too), malloc'ed */
	void *reference;        /* verify "data": the expected output, else NULL */
} kt_arg;

typedef struct kt_args {
	kt_arg *a;
	size_t n;
} kt_args;

/* The arguments of problem p: scalars evaluated (every component of a
 * vector type gets the value), buffers and symbols allocated and filled
 * on the host, in any element type (doc/spec-format.md). Random fills:
 * floats uniform in [0, 1), integers uniform in [0, 1000) (to the type's
 * maximum for 8-bit types), bools 0 or 1, custom types random bytes, from
 * the argument's seed. A sequence or generator counts values: a vector
 * type's components one by one. A file fill reads the raw bytes; a
 * missing or short file is an error naming it. With verify "data" the
 * ReferenceArguments data are built too (reference). Errors name the
 * spec, the argument and, for a value, the element. The caller frees
 * *out with kt_args_free(). */
kjit_status kt_args_build(const kjit__spec *spec, size_t p, kt_args **out);
void kt_args_free(kt_args *a);
/* What kt_args_build() can refuse before any problem, with the same
 * errors: unknown types, vector widths, custom types without a size or as
 * scalars, symbols that would be compared. */
kjit_status kt_args_check(const kjit__spec *spec);

/* The size of one value of a spec element type (0 for an unknown name),
 * value i of an array of that type as a double, and whether the type is
 * half, float or double. custom counts bytes. */
size_t kt_elem_size(const char *type);
double kt_elem_load(const char *type, const void *p, size_t i);
int kt_elem_is_float(const char *type);

/* IEEE binary16, rounded to nearest even (overflow to infinity, NaN kept). */
uint16_t kt_half_from_double(double v);
double kt_half_to_double(uint16_t h);

/* How an output is compared: the method and its numbers. */
typedef struct kt_check {
	kjit__check method;
	double atol, rtol;  /* KJIT__CHECK_TOLERANCE */
	double threshold;   /* the other methods */
} kt_check;

/* 1 when argument a is compared after a run: with verify "data" the
 * arguments that have ReferenceArguments data, with "none" none, else
 * a->output, or the out and inout buffers and symbols when it is -1. */
int kt_arg_compared(const kjit__spec *spec, const kjit__arg *a);
/* a's comparison: its ValidationMethod with verify "data" (floating-point
 * types; integers and bools exactly, as KTT), else atol and rtol; custom
 * types bytewise and exactly. */
void kt_arg_check(const kjit__spec *spec, const kjit__arg *a, kt_check *out);

/* The command line's --verify (NULL: the spec's), --atol and --rtol (NaN:
 * the spec's) over the spec's. KJIT_ERR_INVALID_ARG for an unknown mode,
 * "reference" without a reference kernel, "data" without reference data. */
kjit_status kt_verify_override(kjit__spec *spec, const char *verify, double atol, double rtol);

/* ---- verification on the GPU (verify.c) -------------------------------- */

typedef struct kt_verify kt_verify;

/* The comparison kernel on engine; *out is freed with kt_verify_free()
 * before the engine is closed. */
kjit_status kt_verify_open(kjit_engine *engine, kt_verify **out);
void kt_verify_free(kt_verify *v);
/* The comparison variant for element type (compiled, or from the cache,
 * on first use); it belongs to the engine. */
kjit_status kt_verify_variant(kt_verify *v, const char *type, kjit_variant **out);

/* The outcome of a comparison. */
typedef struct kt_mismatch {
	int failed;         /* 1: the output is not the expected one */
	int64_t at;         /* the first value (byte for custom) that differs, -1 none */
	double got, want;   /* the two values there */
	double sum;         /* KJIT__CHECK_ABS_SUM: the sum of |got - want| */
} kt_mismatch;

/* Compares argument a at the device addresses got and want, value by
 * value (componentwise for vector types, bytewise for custom) with check:
 * TOLERANCE each |got - want| <= atol + rtol * |want|; SIDE_BY_SIDE each
 * |got - want| <= threshold; RELATIVE each |got - want| <= 1e-4 or <=
 * threshold * |want| (KTT's rule); ABS_SUM the sum of |got - want| <=
 * threshold. NaN matches NaN only; equal values (infinities) match. Waits
 * for the comparison. */
kjit_status kt_verify_compare(kt_verify *v, const kt_arg *a, kjit_devptr got, kjit_devptr want,
                              const kt_check *check, kt_mismatch *out);
/* A failed comparison in words: "y[3].z = 1.5, expected 2 (atol ...)". */
void kt_mismatch_text(const kt_arg *a, const kt_check *check, const kt_mismatch *m, char *buf,
                      size_t size);

/* ---- the worker protocol (wire.c) ------------------------------------- */

/* A message under construction or being read; zero-initialise. bad is
 * set when a read runs past the end (a truncated message). */
typedef struct kt_buf {
	unsigned char *data;
	size_t len, cap, pos;
	int bad, oom;
} kt_buf;
void kt_buf_free(kt_buf *b);
/* Replaces b's contents with a copy of len bytes (KJIT_ERR_NOMEM). */
kjit_status kt_buf_set(kt_buf *b, const void *data, size_t len);

enum { KT_MSG_HELLO = 1, KT_MSG_REQUEST, KT_MSG_BEGIN, KT_MSG_REPLY, KT_MSG_COMPILE,
       KT_MSG_COMPILED };

/* The worker's first message: its device, or why it has none. */
typedef struct kt_hello {
	char *error;  /* NULL when the worker is ready */
	char *arch, *device_name, *device_key;
	char *device_uuid;     /* "GPU-8-4-4-4-12 hex digits", as nvidia-smi writes it */
	int64_t max_threads, max_shared;
	int32_t device;        /* the worker's device ordinal */
	int32_t device_count;  /* the devices its driver sees */
} kt_hello;

/* Evaluate one configuration (parameter value indices) of a problem; or,
 * with prepare set and no configuration, only make the problem's buffers
 * and expected outputs (while the tuner compiles the first variants). */
typedef struct kt_request {
	int32_t prepare;
	uint32_t problem;
	uint32_t n_config;
	uint16_t *config;
	int32_t cold_l2;
	double best_ns, early_factor, max_ms;
	double warmup_ms; /* the protocol's warm-up; < 0: its default */
	double best_hi_ns; /* the best's ci_high (0: unknown), for early stop */
	double budget_ms;  /* the protocol's time budget (0: none) */
} kt_request;

/* The answer: the text of a kjit__result_status and the measurement. fatal: the
 * worker exits after sending it (a sticky CUDA error). setup: the
 * problem's arguments or expected outputs could not be made, so no
 * configuration of it can be evaluated (message says why). */
typedef struct kt_reply {
	char *status, *message, *timer, *stop;
	int32_t regs, fatal, setup;
	double median_ns, spread_ns, min_ns, max_ns, ci_high_ns;
	double *samples;
	uint32_t n_samples;
	/* where the worker's time went, ms: the problem's buffers and
	 * expected outputs (the first request of a problem), the variant's
	 * load, the checked run (outputs restored, launch, comparison), the
	 * protocol's warm-up and timed batches */
	double setup_ms, load_ms, check_ms, warmup_ms, timed_ms;
} kt_reply;

/* Encoders start a new message in b (type byte first). Decoders read a
 * whole message of that type from b; KJIT_ERR_CORRUPT when it is
 * truncated, of another type or has bytes left over. Decoded strings and
 * arrays are malloc'ed: free with the *_clear functions. */
void kt_hello_encode(kt_buf *b, const kt_hello *h);
kjit_status kt_hello_decode(kt_buf *b, kt_hello *h);
void kt_hello_clear(kt_hello *h);
void kt_request_encode(kt_buf *b, const kt_request *q);
kjit_status kt_request_decode(kt_buf *b, kt_request *q);
void kt_request_clear(kt_request *q);
void kt_reply_encode(kt_buf *b, const kt_reply *r);
kjit_status kt_reply_decode(kt_buf *b, kt_reply *r);
void kt_reply_clear(kt_reply *r);
void kt_begin_encode(kt_buf *b);
/* The type of the message in b (its first byte), 0 when empty. */
int kt_msg_type(const kt_buf *b);

/* A compile worker's job (KT_MSG_COMPILE: a configuration's value
 * indices) and its answer (KT_MSG_COMPILED). */
typedef struct kt_compiled {
	int32_t status;     /* a kjit_status */
	char *key;          /* the binary key, NULL on a failure */
	char *error;        /* the NVRTC log or why, NULL on success */
	double compile_ms;
	int32_t compiled;   /* 1: NVRTC ran; 0: a cache hit */
} kt_compiled;
void kt_compile_encode(kt_buf *b, const uint16_t *config, uint32_t n_config);
/* *config (n_config + 1 entries) is malloc'ed. */
kjit_status kt_compile_decode(kt_buf *b, uint16_t **config, uint32_t *n_config);
void kt_compiled_encode(kt_buf *b, const kt_compiled *c);
kjit_status kt_compiled_decode(kt_buf *b, kt_compiled *c);
void kt_compiled_clear(kt_compiled *c);

/* A frame is a 4-byte little-endian length and the message. */
kjit_status kt_frame_write(int fd, const kt_buf *b);
typedef enum { KT_FRAME_OK = 0, KT_FRAME_EOF, KT_FRAME_TIMEOUT, KT_FRAME_STOP,
               KT_FRAME_ERROR } kt_frame_result;
/* Reads one frame into b (replacing its contents) before deadline_ns
 * (kjit__now_ns() clock; 0: none). *stop (may be NULL) is polled every
 * 100 ms: KT_FRAME_STOP when it becomes non-zero. KT_FRAME_ERROR (detail
 * in the last error): a read error or an oversized frame. */
kt_frame_result kt_frame_read(int fd, kt_buf *b, uint64_t deadline_ns,
                              const atomic_int *stop);

/* ---- the GPU worker process (worker.c) ---------------------------------- */

/* The verification settings the tuner runs with (kt_verify_override()). */
typedef struct kt_worker_verify {
	const char *verify;
	double atol, rtol;
} kt_worker_verify;

/* The worker's main: loads the spec, applies wv, opens an engine with
 * GPU device on the database db, says hello on out_fd, then answers
 * requests from in_fd until EOF. Returns the process exit code. */
int kt_worker_main(const char *spec_path, const char *db, const kt_worker_verify *wv,
                   int device, int in_fd, int out_fd);

/* ---- links to measuring workers (link.c; mpi.c for other ranks) ------- */

/* A GPU worker as the tuner sees it: a worker process on this host over
 * two pipes, or one on another MPI rank that the rank relays. The tuner
 * speaks the worker protocol over it (the hello, requests, begin marks,
 * replies), one request at a time, from one thread per link. */
typedef struct kt_link kt_link;
/* How a worker ended: of itself, by a signal (the variant's doing, as a
 * fault), or with its link (a rank lost: the request was not the cause
 * and goes to another worker). */
typedef enum { KT_END_EXIT, KT_END_SIGNAL, KT_END_LOST } kt_end;
typedef struct kt_link_ops {
	/* Starts the worker (again, after it ended); its hello is the first
	 * frame read() then gives. */
	kjit_status (*start)(kt_link *l);
	kjit_status (*write)(kt_link *l, const kt_buf *b);
	/* As kt_frame_read(); KT_FRAME_EOF when the worker ended. */
	kt_frame_result (*read)(kt_link *l, kt_buf *b, uint64_t deadline_ns,
	                        const atomic_int *stop);
	/* Ends the worker, killed first when kill_it; start() may follow. */
	void (*stop)(kt_link *l, int kill_it);
	/* After read() gave KT_FRAME_EOF: why the worker ended ("the worker
	 * process was killed by signal 9 (Killed)", "rank 2 was lost"). */
	kt_end (*reason)(kt_link *l, char *buf, size_t size);
	/* 1 while the worker runs. */
	int (*running)(kt_link *l);
	/* Before a request: makes the binary of key (in the tuner's
	 * database) available to the worker; NULL when the worker reads the
	 * tuner's database itself. */
	kjit_status (*binary)(kt_link *l, const char *key);
	void (*free)(kt_link *l);
} kt_link_ops;

struct kt_link {
	const kt_link_ops *ops;
	void *ctx;
	char name[64]; /* for messages: "device 1", "rank 2 device 0" */
};

/* What a worker is started with: the spec, the database it opens (on its
 * own host), the verification the tuner runs with, the device ordinal. */
typedef struct kt_link_args {
	const char *spec_path, *db;
	const char *verify;
	double atol, rtol;
	int device;
} kt_link_args;

/* The devices of --devices: "all", "none" (measure nowhere: compile
 * only, for an MPI rank), or a comma list of ordinals (one may repeat:
 * two workers share that GPU). Zero-initialised: not given. */
#define KT_DEVICES_MAX 64
typedef struct kt_devices {
	int all, none;
	size_t n;
	int list[KT_DEVICES_MAX];
} kt_devices;
/* KJIT_ERR_INVALID_ARG naming the fault for anything else. */
kjit_status kt_devices_parse(const char *s, kt_devices *out);

/* A worker process on this host for a->device (the strings are copied).
 * *out is freed with its ops->free. */
kjit_status kt_link_local(const kt_link_args *a, kt_link **out);

/* ---- child processes (child.c) ------------------------------------------ */

/* A worker process on two pipes: the parent writes requests to `to` and
 * reads answers from `from`; the child has them as these descriptors. */
enum { KT_CHILD_IN_FD = 3, KT_CHILD_OUT_FD = 4 };
typedef struct kt_child {
	pid_t pid;  /* 0: none */
	int to, from;
} kt_child;

/* fork + exec of exe (NULL: this program) with argv. The child ignores
 * SIGINT (the parent stops it), and is killed when the thread that
 * started it ends. */
kjit_status kt_child_start(kt_child *c, const char *exe, char *const argv[]);
/* Closes the pipes and waits for the child, SIGKILLed first when kill_it. */
void kt_child_stop(kt_child *c, int kill_it);
/* After its pipe closed: waits for the child and says why it ended ("the
 * WHAT process was killed by signal 11 (Segmentation fault)"); 1 when a
 * signal ended it. */
int kt_child_reason(kt_child *c, const char *what, char *buf, size_t size);
/* pthread_create() of a thread that does not take SIGINT and SIGTERM:
 * they are to interrupt the waits of the main thread. Returns its code. */
int kt_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);
/* pthread_cond_timedwait() for at most ns nanoseconds: the waits that
 * also poll a stop flag. */
void kt_cond_wait_ns(pthread_cond_t *c, pthread_mutex_t *m, uint64_t ns);

/* ---- the compile pool (compile_pool.c, compile_worker.c) -------------------- */

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

/* The compile worker's main: loads the spec, opens an engine (no GPU) for
 * arch on db, then answers compile messages from in_fd on out_fd until
 * EOF. Returns the process exit code. */
int kt_compile_worker_main(const char *spec_path, const char *db, const char *arch, int in_fd,
                           int out_fd);

/* ---- the measuring workers of a run (measure.c) ----------------------- */

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

/* ---- rejected configurations (rejected.c) ----------------------------- */

#define KT_SHARED_MAX 3

/* A parameter and the values (indices) that every rejected configuration
 * has one of and no accepted one has. */
typedef struct kt_shared {
	size_t param;
	size_t n_values;
	uint16_t values[KT_SHARED_MAX];
} kt_shared;

typedef struct kt_rejected {
	size_t n_rejected, n_accepted;
	kt_shared *shared;  /* malloc'ed, n_shared of them */
	size_t n_shared;
} kt_rejected;

/* The parameters that separate the rejected configurations (indices into
 * space) from the accepted ones: those whose values among the rejected
 * are at most KT_SHARED_MAX and none of the accepted ones' values. None
 * when either list is empty. kt_rejected_free() frees *out. */
kjit_status kt_rejected_find(const kjit__space *space, const size_t *rejected, size_t n_rejected,
                             const size_t *accepted, size_t n_accepted, kt_rejected *out);
void kt_rejected_free(kt_rejected *r);
/* The summary's sentence ("105 of 200 configurations gave other output
 * than the default configuration; all of them have USE_SOA=1 (no correct
 * one does). If ...") and the same as a JSON object {"count", "checked",
 * "against", "shared": {NAME: [values]}, "message"}; malloc'ed, NULL when
 * out of memory. */
char *kt_rejected_text(const kjit__spec *spec, const kt_rejected *r);
char *kt_rejected_json(const kjit__spec *spec, const kt_rejected *r);

/* ---- a tuning run (tune.c) ---------------------------------------------- */

typedef struct kt_tune_opts {
	const char *spec_path, *db, *strategy;
	kt_budget budget;
	uint64_t seed;
	int64_t problem;       /* -1: every problem */
	int force, quiet, json;
	double timeout_s;      /* per variant */
	double early_stop;     /* factor; 0 off */
	double warmup_ms;      /* each measurement's warm-up */
	double budget_ms;      /* each measurement's time budget; 0 none */
	int l2;                /* 1 warm, 2 cold, 3 both */
	kjit__limits limits;   /* 0: min(spec's, device's) */
	int jobs;
	kt_pool_mode pool;
	kt_devices devices;    /* the GPUs to measure on (--devices) */
	int mpi;               /* --mpi: rank 0 of an MPI run */
} kt_tune_opts;

/* Tunes spec on the GPU (a worker process) and returns the exit code. */
int kt_tune(const kjit__spec *spec, const kt_tune_opts *o);

/* ---- other MPI ranks (mpi*.c; their messages in wire.c) ----------------- */

/* kjit-tune --mpi: rank 0 owns the database, the strategy and the run; the
 * other ranks compile for rank 0's compile pool and measure on the GPU
 * workers of their hosts, each on a database of its own on its host, and
 * send rank 0 what rank 0 records. A rank that dies or stops answering is
 * lost: what it had in flight goes to the others. Built without MPI
 * (mpi_off.c) there are no other ranks, and --mpi is refused. */

/* The rank messages. Rank 0 sends SETUP, QUIT and RCOMPILE, and on a
 * link's channel LSTART, LSTOP, LFRAME and LBINARY; the other ranks send
 * ROLE, BYE and RCOMPILED, and LFRAME, LEOF and LSTORED; both BEAT. */
enum { KT_MSG_SETUP = 32, KT_MSG_ROLE, KT_MSG_BEAT, KT_MSG_QUIT, KT_MSG_BYE, KT_MSG_RCOMPILE,
       KT_MSG_RCOMPILED, KT_MSG_LSTART, KT_MSG_LSTOP, KT_MSG_LFRAME, KT_MSG_LEOF,
       KT_MSG_LBINARY, KT_MSG_LSTORED };

/* What rank 0 tells every rank at start-up: the spec (a path every host
 * reads), its kernel signature (the same file everywhere), the mode, and
 * the verification the workers run with. */
typedef struct kt_setup {
	char *spec_path, *signature, *verify;
	double atol, rtol;
	int32_t compile_only;
} kt_setup;
void kt_setup_encode(kt_buf *b, const kt_setup *s);
kjit_status kt_setup_decode(kt_buf *b, kt_setup *s);
void kt_setup_clear(kt_setup *s);

/* A rank's answer: where it runs and what it does. */
typedef struct kt_role {
	int32_t code;        /* 0: ready; else the exit code of why it is not (error) */
	char *error;
	char *host, *nvrtc;  /* kjit__nvrtc_id(): binaries of the same keys as rank 0's */
	char *db;            /* its database, a real path */
	int32_t db_shared;   /* db is on a network file system */
	int32_t slots;       /* compile jobs it takes at once */
	char *note;          /* devices it cannot measure on, and why; NULL none */
	uint32_t n_hellos;
	kt_buf *hellos;      /* the hello of each worker it measures with, as sent */
} kt_role;
void kt_role_encode(kt_buf *b, const kt_role *r);
kjit_status kt_role_decode(kt_buf *b, kt_role *r);
void kt_role_clear(kt_role *r);

/* The short messages: BEAT and QUIT (nothing), BYE (text: why it leaves
 * before a QUIT, NULL after one), LSTART (gen), LSTOP (gen; num: kill
 * first), LEOF (gen; num: a kt_end; text: why), LSTORED (gen; num: a
 * kjit_status; text: why not). gen numbers a link's worker: a message of
 * an earlier worker is stale. */
typedef struct kt_note {
	uint32_t gen;
	int32_t num;
	char *text;
} kt_note;
void kt_note_encode(kt_buf *b, int type, const kt_note *n);
kjit_status kt_note_decode(kt_buf *b, int type, kt_note *n);
void kt_note_clear(kt_note *n);

/* LFRAME: a worker-protocol message on a link; *frame gets a copy. */
void kt_lframe_encode(kt_buf *b, uint32_t gen, const kt_buf *frame);
kjit_status kt_lframe_decode(kt_buf *b, uint32_t *gen, kt_buf *frame);

/* RCOMPILE: a configuration to compile for arch, answered on channel. */
typedef struct kt_rjob {
	uint32_t channel;
	char *arch;
	uint16_t *config;   /* n_config + 1 entries */
	uint32_t n_config;
} kt_rjob;
void kt_rjob_encode(kt_buf *b, const kt_rjob *j);
kjit_status kt_rjob_decode(kt_buf *b, kt_rjob *j);
void kt_rjob_clear(kt_rjob *j);

/* A binary travels as a row of the binaries table (kjit__binary) and its
 * checksum. RCOMPILED is a compile's answer, with its binary when
 * c->status is KJIT_OK; LBINARY a binary for a link's rank to store. The
 * decoders verify the checksum against the blob (KJIT_ERR_CORRUPT naming
 * the key) and leave bin's strings and cubin in b: valid while b is. */
void kt_rcompiled_encode(kt_buf *b, const kt_compiled *c, const kjit__binary *bin,
                         const char *checksum);
kjit_status kt_rcompiled_decode(kt_buf *b, kt_compiled *c, kjit__binary *bin);
void kt_lbinary_encode(kt_buf *b, uint32_t gen, const kjit__binary *bin, const char *checksum);
kjit_status kt_lbinary_decode(kt_buf *b, uint32_t *gen, kjit__binary *bin);

/* MPI itself (mpi.c): MPI_Init_thread and one communication thread per
 * process, which makes every MPI call until kt_mpi_finalize(). A rank
 * silent for timeout_s (heartbeats are sent every timeout_s / 4 at most)
 * is lost. KJIT_ERR_INVALID_ARG built without MPI. */
kjit_status kt_mpi_init(int *argc, char ***argv, double timeout_s);
int kt_mpi_rank(void);       /* 0 without --mpi */
int kt_mpi_size(void);       /* 1 without --mpi */
int kt_mpi_local_rank(void); /* among the ranks of this host */
/* Rank 0 ends the others (QUIT, then their BYE or loss); then every rank
 * stops its thread and calls MPI_Finalize(), unless a rank was lost other
 * than by its BYE (its fence could wait for the dead forever: mpi.c).
 * Nothing without --mpi. */
void kt_mpi_finalize(void);

/* Messages arrive in mailboxes, one per (rank, channel): channel 0 is
 * the control channel between rank 0 and each rank (its mailbox is
 * kt_mpi_control()'s, open from kt_mpi_init() on), 1 + i a rank's link
 * i, kt_mpi_channel() a fresh one. hook (may be NULL) sees each message
 * as it arrives, on the communication thread: it must not block. A
 * message for no mailbox is dropped. *out is freed with
 * kt_mpi_mbox_close(). */
typedef struct kt_mbox kt_mbox;
kjit_status kt_mpi_mbox_open(int rank, int channel, void (*hook)(void *, const kt_buf *),
                             void *arg, kt_mbox **out);
void kt_mpi_mbox_close(kt_mbox *m);
/* NULL for rank 0 on rank 0, and for a rank other than 0 on another. */
kt_mbox *kt_mpi_control(int rank);
int kt_mpi_channel(void);
/* The next message into b, as kt_frame_read(); KT_FRAME_EOF when the rank
 * was lost (kt_mpi_lost() says why). */
kt_frame_result kt_mpi_recv(kt_mbox *m, kt_buf *b, uint64_t deadline_ns,
                            const atomic_int *stop);
/* Queues a copy of b for rank's channel; KJIT_ERR_IO when it was lost. */
kjit_status kt_mpi_send(int rank, int channel, const kt_buf *b);
/* 1 when rank was lost: why ("rank 2 was lost: no message in 10 s"). */
int kt_mpi_lost(int rank, char *why, size_t size);

/* Rank 0 and the other ranks (mpi_ranks.c). The database path in real
 * form (malloc'ed) and whether it is on a network file system. */
kjit_status kt_mpi_db_where(const char *db, char **real, int *shared);
/* Rank 0, once the spec is read: sends every rank s and waits for their
 * roles; then prints them to stderr unless quiet. A rank that cannot
 * take part, or whose database another host writes too, is an error
 * naming it; the return is an exit code. */
int kt_mpi_setup(const kt_setup *s, const char *db, int quiet);
/* The role rank reported (NULL before kt_mpi_setup() or for rank 0). */
const kt_role *kt_mpi_role(int rank);
/* The ranks that compile for this one's pool and how many jobs each takes
 * at once: at most max, their number returned (0 without other ranks). */
size_t kt_mpi_compilers(int *ranks, int *slots, size_t max);
/* Compiles config for arch on rank: the answer's binary is verified and
 * stored in e's database before *c is filled (1). 0: the rank was lost
 * (why): the job is to go to another worker. -2: *stop first. */
int kt_mpi_compile(int rank, const char *arch, const uint16_t *config, uint32_t n_config,
                   kjit_engine *e, kt_compiled *c, const atomic_int *stop, char *why,
                   size_t why_size);
/* Whether rank has the binary of key in its database (it compiled it or
 * was sent it), and that it now has. */
int kt_mpi_has_binary(int rank, const char *key);
void kt_mpi_add_binary(int rank, const char *key);

/* Rank 0 (mpi_link.c): one link per worker another rank measures with
 * (none without --mpi). start() has that rank start its worker again (the
 * first start is the one its role reported); the frames travel to and
 * from it; binary() ships a binary from a->db unless the rank has it, and
 * returns once the rank has verified and stored it. A lost rank ends the
 * link with KT_END_LOST. *out is malloc'ed; each link is freed with its
 * ops->free. */
kjit_status kt_mpi_links(const kt_link_args *a, kt_link ***out, size_t *n);

/* A rank other than 0 (mpi_serve.c): its own database (NULL:
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

#endif /* KJIT_TUNE_H */
