/*
 * engine.h - internal header of the engine layer: the structures behind
 * the public handles, NVRTC compilation, the compile pool and the
 * in-process variant table.
 */
#ifndef KJIT_ENGINE_H
#define KJIT_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "base.h"
#include "instr.h"

/* ---- NVRTC (compile.c) ----------------------------------------------- */

typedef struct kjit__compiled {
	void *cubin;   /* malloc'ed */
	size_t size;
	char *lowered; /* malloc'ed lowered name of the entry point */
	double ms;     /* wall time of nvrtcCompileProgram and the extraction */
} kjit__compiled;

/* Compiles source to a cubin. name_expr is the entry point; opts the full
 * option list. On KJIT_ERR_COMPILE the thread's error holds the NVRTC log. */
kjit_status kjit__nvrtc_compile(const char *source, const char *program_name,
                                const char *name_expr, const char *const *opts, size_t n_opts,
                                kjit__compiled *out);
void kjit__compiled_free(kjit__compiled *c);

/* "nvrtc-13.0+<build>": the NVRTC identity that enters every binary key;
 * static storage. */
const char *kjit__nvrtc_id(void);

/* ---- kernels (kernel.c) ------------------------------------------------ */

/* The kernel signature (32 hex digits into out) of an entry point, its
 * source text and its parameter names joined by ','. */
kjit_status kjit__signature(const char *name, const char *source, const char *params,
                            char out[33]);

/* ---- compile pool (compile_pool.c) ----------------------------------- */

/* Runs fn(ctx, i) for i in [0, n) on up to threads threads (the caller's
 * thread among them); returns when all are done. */
void kjit__pool_run(int threads, size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

/* Online CPUs, at least 1. */
int kjit__cpu_count(void);

/* ---- handles ------------------------------------------------------------ */

#define KJIT__MAX_OPTIONS 256

struct kjit_variant {
	kjit_kernel *kernel;
	kjit__hash128 hkey;
	char key[33];
	char *options; /* canonical list, one option per line */
	void *cubin;
	size_t size;
	char *lowered;
	double compile_ms;
	CUmodule module;
	CUfunction function;
	int num_regs, max_threads, static_shared;
	/* dynamic shared memory bytes a launch may ask for, as far as known:
	 * 0 until a launch asks for some (kjit__variant_shared()) */
	atomic_uint shared_allowed;
	uint64_t id; /* index in the engine's by_id, the tag of profiled launches */
	struct kjit_variant *next_in_engine;
};

struct kjit_kernel {
	kjit_engine *engine;
	char *name;
	char *source;
	char *params; /* tunable parameter names joined by ',' */
	char signature[33];
	uint64_t key_seed; /* hash of the signature and the NVRTC identity */
	uint64_t memory_hits, reported_hits;      /* under the engine lock */
	atomic_uint_fast64_t launches;            /* relaxed: a count, not an order */
	uint64_t reported_launches;               /* the telemetry sampler's */
	struct kjit__tunable *tun;                /* NULL for a plain kernel */
	/* module variables (kjit_kernel_set_symbol()); the lock also covers
	 * writing them into a variant's module and publishing that variant,
	 * so that no variant misses a change */
	pthread_mutex_t symbols_lock;
	struct kjit__symbol *symbols;
	size_t n_symbols;
	struct kjit_kernel *next;
};

/* Frees a kernel and what it owns (its tunable part excepted). */
void kjit__kernel_free(kjit_kernel *k);

/* The in-process tier of the cache: a table of variants by binary key. */
kjit_variant *kjit__vtable_find(const kjit__table *t, kjit__hash128 key);
/* Inserts v, or returns the variant already there under the same key;
 * NULL when out of memory. */
kjit_variant *kjit__vtable_insert(kjit__table *t, kjit_variant *v);

struct kjit_engine {
	kjit__store *store;
	char *db_path;
	int64_t cache_max;
	int threads;

	const kjit__cu_api *cu; /* NULL without a GPU */
	char gpu_reason[512];
	CUdevice device;
	CUcontext ctx;
	char arch[16];
	char device_name[256];
	char device_key[384];
	/* shared memory bytes per block, static and dynamic together: the
	 * default limit, and the most a function opted in may use (0 and 0
	 * without a GPU) */
	int shared_default, shared_optin;

	pthread_mutex_t lock; /* the table, the lists, the stats, last_error */
	kjit__table table; /* variants by binary key (vtable.c) */
	kjit_kernel *kernels;
	kjit_variant *variants;
	kjit_engine_stats stats;
	char *last_error;
	kjit_variant **by_id;
	size_t n_ids, cap_ids;

	kjit_tune_policy tune;     /* never KJIT_TUNE_ENV once open */
	unsigned tune_variants, tune_samples;
	double drift_threshold;
	struct kjit__memo_entry **memo_by_id; /* profiled memo launches' tags, under lock */
	size_t n_memo_ids, cap_memo_ids;

	pthread_mutex_t timer_lock;
	kjit__timer *timer;        /* made on first measurement or for profiling */
	kjit__telemetry *telemetry; /* NULL with KJIT_TELEMETRY=0 */
	uint64_t profile_every;    /* time one launch in this many; 0: off */
	atomic_uint_fast64_t launch_seq;
};

/* The engine's timer, opened on first use, its sink kjit__engine_sink. */
kjit_status kjit__engine_timer(kjit_engine *engine, kjit__timer **out);

/* Where the durations of tagged launches arrive (from CUPTI's buffer
 * delivery), routed by the tag. */
void kjit__engine_sink(void *ctx, uint64_t tag, double ns);

/*
 * The tag of a profiled launch, which the timer hands back with its
 * duration:
 *   bit 63 clear: a variant's id (KJIT_PROFILE of kjit_variant_launch());
 *   bit 63 set, bit 62 clear: a memo entry's id (a profiled kjit_launch());
 *   bits 63 and 62 set: an online trial, the entry's id above the
 *   KJIT__TAG_SLOT_BITS of the sample slot.
 */
#define KJIT__TAG_MEMO (UINT64_C(1) << 63)
#define KJIT__TAG_TRIAL (UINT64_C(1) << 62)
#define KJIT__TAG_SLOT_BITS 24
#define KJIT__TAG_SLOTS (UINT64_C(1) << KJIT__TAG_SLOT_BITS) /* trial launches of a search */
#define KJIT__TAG_IDS (KJIT__TAG_TRIAL >> KJIT__TAG_SLOT_BITS) /* entries a trial can name */

/* The tag of memo entry id (< KJIT__TAG_IDS). */
static inline uint64_t kjit__tag_memo(uint64_t id)
{
	return KJIT__TAG_MEMO | id;
}
/* The tag of a trial of memo entry id, in slot (< KJIT__TAG_SLOTS). */
static inline uint64_t kjit__tag_trial(uint64_t id, uint64_t slot)
{
	return KJIT__TAG_MEMO | KJIT__TAG_TRIAL | id << KJIT__TAG_SLOT_BITS | slot;
}
/* 1 for a memo entry's tag or a trial's, 0 for a variant's id. */
static inline int kjit__tag_is_memo(uint64_t tag)
{
	return (tag & KJIT__TAG_MEMO) != 0;
}
static inline int kjit__tag_is_trial(uint64_t tag)
{
	return (tag & KJIT__TAG_TRIAL) != 0;
}
/* The memo entry's id in its tag or its trial's. */
static inline uint64_t kjit__tag_id(uint64_t tag)
{
	return kjit__tag_is_trial(tag) ? (tag & (KJIT__TAG_TRIAL - 1)) >> KJIT__TAG_SLOT_BITS
	                               : tag & ~KJIT__TAG_MEMO;
}
/* The sample slot of a trial's tag. */
static inline uint64_t kjit__tag_slot(uint64_t tag)
{
	return tag & (KJIT__TAG_SLOTS - 1);
}

/* Records a telemetry event about a kernel (and variant, may be NULL)
 * when telemetry is on. */
void kjit__engine_event(kjit_engine *engine, kjit__event_kind kind, const kjit_kernel *kernel,
                        const kjit_variant *variant, const char *tier, double value,
                        int64_t count);

/* Copies the thread's error detail to the engine and returns status. */
kjit_status kjit__engine_fail(kjit_engine *engine, kjit_status status);

/* Makes the engine's context current on this thread when it is not. */
kjit_status kjit__engine_ctx(kjit_engine *engine);

/* Unloads (in the current context) and frees a variant. */
void kjit__variant_free(kjit_variant *v);

/* One launch's configuration, for the timer's launch callbacks
 * (measurements and profiled launches). */
typedef struct kjit__launch {
	const kjit__cu_api *cu;
	CUfunction fn;
	const unsigned *grid, *block;
	unsigned shared;
	void **args;
} kjit__launch;

/* A kjit__launch_fn: ctx is a kjit__launch. */
CUresult kjit__launch_once(void *ctx, CUstream stream);

/* Loads a cubin into the engine's context and resolves the function and
 * its attributes; a no-op without a GPU. */
kjit_status kjit__variant_load(kjit_variant *v);

/* Lets v's function launch with shared bytes of dynamic shared memory:
 * beyond the default per-block limit (with its static shared memory) it
 * opts the function in, once, to all the device allows. KJIT_ERR_LAUNCH
 * with the numbers when static + dynamic exceed the device's maximum. */
kjit_status kjit__variant_shared_grow(kjit_variant *v, unsigned shared);
/* The check of every launch: one atomic read. */
static inline kjit_status kjit__variant_shared(kjit_variant *v, unsigned shared)
{
	return shared <= atomic_load_explicit(&v->shared_allowed, memory_order_acquire)
	               ? KJIT_OK
	               : kjit__variant_shared_grow(v, shared);
}

/* ---- module variables (symbol.c) ------------------------------------ */

typedef struct kjit__symbol {
	char *name;
	void *data;
	size_t size;
} kjit__symbol;

/* Under v->kernel->symbols_lock: writes every module variable set on the
 * kernel into v's freshly loaded module (a no-op without one). */
kjit_status kjit__variant_symbols(kjit_variant *v);

/* ---- the spec (spec.c) ---------------------------------------------- */

/* Roles of a tunable parameter; one parameter may have several. */
#define KJIT__ROLE_BLOCK_X 0x1u
#define KJIT__ROLE_BLOCK_Y 0x2u
#define KJIT__ROLE_BLOCK_Z 0x4u
#define KJIT__ROLE_DEFINE 0x8u /* -DNAME=value */
#define KJIT__ROLE_FLAGS 0x10u /* the value is NVRTC flags, split on spaces */

/* Value kinds: SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, and a list (an
 * expression's binding of a whole value list, T1's "max(filter_width)"). */
#define KJIT__KIND_LIST 100

typedef struct kjit__value {
	char *text;   /* canonical text (Python's str() for T1): "64", "0.5", "--use_fast_math" */
	int kind;     /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or KJIT__KIND_LIST */
	int64_t i;
	double d;
	const struct kjit__value *items; /* KJIT__KIND_LIST: n_items values (not owned) */
	size_t n_items;
} kjit__value;

typedef struct kjit__param {
	char *name;
	kjit__value *values;
	size_t n_values;
	size_t default_index; /* the default configuration's value */
	unsigned roles;
} kjit__param;

/* A problem: named integer sizes (n, or m,n,k). A T1 ProblemSize that is
 * an integer is the one size "ProblemSize"; a list gives "ProblemSize[0]",
 * "ProblemSize[1]", ... (an expression's ProblemSize[1] reads that name). */
typedef struct kjit__problem {
	char **names;
	int64_t *values;
	size_t n;
} kjit__problem;

typedef enum { KJIT__FILL_RANDOM, KJIT__FILL_CONSTANT, KJIT__FILL_SEQUENCE, KJIT__FILL_FILE,
               KJIT__FILL_GENERATOR } kjit__fill;
typedef enum { KJIT__IN = 1, KJIT__OUT = 2, KJIT__INOUT = 3 } kjit__access;

/* How an output is checked against given reference data (T1
 * ReferenceArguments' ValidationMethod). */
typedef enum {
	KJIT__CHECK_TOLERANCE = 0, /* |got - want| <= atol + rtol * |want|, per element */
	KJIT__CHECK_ABS_SUM,       /* AbsoluteDifference: sum |got - want| <= threshold */
	KJIT__CHECK_SIDE_BY_SIDE,  /* SideBySideComparison: each |got - want| <= threshold */
	KJIT__CHECK_RELATIVE       /* SideBySideRelativeComparison: each |got - want| <=
	                            * threshold * |want| */
} kjit__check;

/* Where the values of an argument come from (its own fill, or a
 * reference's). */
typedef struct kjit__data {
	kjit__fill fill;
	uint64_t seed;   /* KJIT__FILL_RANDOM */
	double constant; /* KJIT__FILL_CONSTANT; start of KJIT__FILL_SEQUENCE */
	char *file;      /* KJIT__FILL_FILE, resolved against the spec's folder */
	char *generator; /* KJIT__FILL_GENERATOR: an expression of the element index i
	                  * (and the problem's sizes) */
} kjit__data;

/* A kernel argument: a scalar (value is an expression), a buffer, or a
 * module variable (symbol) written before each launch. */
typedef struct kjit__arg {
	char *name;
	char *type;      /* element type: bool int8 uint8 int16 uint16 int32 uint32 int64
	                  * uint64 half float double, or "custom" (raw bytes) */
	unsigned components; /* 1, or 2, 3, 4, 8, 16 for the vector types (float4: type
	                      * "float", components 4); a buffer's length counts vectors */
	size_t custom_size;  /* "custom": bytes per element (T1 TypeSize) */
	int is_buffer;
	int symbol;      /* 1: written to the module variable `name` (T1 MemoryType
	                  * Symbol, MemType Constant), not a kernel parameter */
	char *value;     /* scalar: expression over the problem sizes */
	char *length;    /* buffer or symbol: element count, an expression */
	kjit__data data; /* the argument's own values (a buffer's, a symbol's) */
	kjit__access access;
	int output;      /* compared after a run: -1 from access (out, inout), else 0/1 */
	/* T1 ReferenceArguments: the expected output, when has_reference */
	int has_reference;
	kjit__data reference;
	kjit__check check;
	double threshold;
} kjit__arg;

typedef struct kjit__spec {
	char *path;          /* the spec file, for messages */
	char *format;        /* "kjit" or "t1" */
	int python;          /* 1: expressions have Python's semantics (T1) */
	char *source_path;   /* resolved against the spec's folder */
	char *entry;
	char **flags;        /* fixed NVRTC flags */
	size_t n_flags;
	kjit__param *params;
	size_t n_params;
	char **restrictions; /* expressions, in the spec's dialect */
	size_t n_restrictions;
	char *grid[3];       /* expressions; "1" when absent */
	char *block[3];      /* expressions (T1 LocalSize); NULL: from the roles */
	char *shared;        /* dynamic shared memory bytes, an expression */
	kjit__problem *problems;
	size_t n_problems;
	kjit__arg *args;
	size_t n_args;
	char *verify;        /* "default", "reference", "data" (T1 ReferenceArguments) or "none" */
	char *reference_entry; /* verify against a reference kernel */
	double atol, rtol;
	char *bytes, *flops; /* objective formulas, NULL when absent */
	int64_t max_threads; /* threads per block limit (1024) */
	int64_t max_shared;  /* dynamic shared memory limit in bytes */
	/* what the spec asks of a run (T1 Search, Budget, General); 0/NULL unset */
	char *strategy;      /* a kjit strategy name (T1 Search.Name mapped) */
	int64_t budget_evaluations;
	double budget_fraction, budget_seconds;
	char *output_file;   /* T1 General.OutputFile: T4 results at the end of a run */
	char *time_unit;     /* T1 General.TimeUnit: "ns", "us", "ms" or "s" */
	char *unrunnable;    /* why the spec can be counted but not compiled or run (a T1
	                      * Language other than CUDA); NULL when it can */
	char **warnings;     /* "FILE: FIELD: ..." lines (unknown T1 keys, fields
	                      * read but unused); kjit-tune prints them */
	size_t n_warnings;
} kjit__spec;

/* Reads a kjit or T1 spec. A spec error is KJIT_ERR_INVALID_ARG (or
 * KJIT_ERR_IO) with "FILE: FIELD: expected ..." in kjit_last_error();
 * invalid JSON names the line and column. Every name used by an
 * expression is checked here. The caller owns *out and frees it with
 * kjit__spec_free(). */
kjit_status kjit__spec_load(const char *path, kjit__spec **out);
void kjit__spec_free(kjit__spec *spec);

/* A problem as "n=67108864,m=4" (the problem key); malloc'ed. */
char *kjit__problem_key(const kjit__problem *problem);

/* ---- expressions (expr.c) ------------------------------------------- */

/* Expressions are parsed once into a tree and evaluated by kjit itself
 * (no SQLite), with a budget of steps and memory: Python's syntax and
 * semantics for T1 (true division, floor // and %, **, chained
 * comparisons, conditional expressions, list literals, range, list
 * comprehensions, min/max/abs/...), and kjit's own dialect for kjit specs
 * (the same syntax; / and % of integers truncate as in C, &&, ||, !, the
 * SQL-style functions of doc/spec-format.md). An evaluated expression is
 * immutable: evaluation is reentrant. */
typedef struct kjit__expr kjit__expr;
typedef enum { KJIT__DIALECT_KJIT = 0, KJIT__DIALECT_PYTHON = 1 } kjit__dialect;

/* Parses text; a name must be one of names[n] (slot i), a function or a
 * keyword, else the error names it. what names the field in messages
 * ("restrictions[2]"). The caller frees *out with kjit__expr_free(). */
kjit_status kjit__expr_parse(const char *text, kjit__dialect dialect, const char *const *names,
                             size_t n, const char *what, kjit__expr **out);
void kjit__expr_free(kjit__expr *e);
/* The highest slot that e reads, -1 when none. */
int kjit__expr_max_slot(const kjit__expr *e);
/* e's top-level conjuncts ("a and b", "a <= b <= c") as expressions of
 * their own, so that each runs as soon as its names are set; one term
 * when e is no conjunction. *terms (malloc'ed) and each term are the
 * caller's. */
kjit_status kjit__expr_split(const kjit__expr *e, kjit__expr ***terms, size_t *n);
/* Evaluates with slots[i] bound to every slot i that e reads. *out is
 * the result as a number (True 1, False 0); NaN for a division by zero.
 * An integer result that does not fit int64 continues as a double. A
 * string or list result, a type error or a spent budget is an error. */
kjit_status kjit__expr_eval(const kjit__expr *e, const kjit__value *slots, double *out);
/* Evaluates an expression whose result is a list (T1 Values): each item
 * a number, a string or a bool, its text Python's str() of it. At most
 * max items. *out (malloc'ed values with malloc'ed text) is the caller's:
 * kjit__values_free(). */
kjit_status kjit__expr_eval_list(const kjit__expr *e, const kjit__value *slots, size_t max,
                                 kjit__value **out, size_t *n);
void kjit__values_free(kjit__value *v, size_t n);
/* A finite or infinite double as Python's repr() writes it (the shortest
 * digits that read back, "1.0", "1e-05", "inf") into out[40]. */
void kjit__float_repr(double d, char out[40]);

/* ---- the space (space.c) -------------------------------------------- */

/* Device limits that prune the space. */
typedef struct kjit__limits {
	int64_t max_threads; /* block x*y*z; default 1024 */
	int64_t max_shared;  /* dynamic shared memory bytes; default 48 KiB */
} kjit__limits;

/* The constrained space of one problem: every valid configuration as a
 * row of value indices (one per parameter), in lexicographic order.
 * Enumerated depth first: each restriction term, grid dimension, shared
 * memory size and block expression runs as soon as the parameters it
 * reads are set, so the unconstrained product is never built. */
typedef struct kjit__space {
	const kjit__spec *spec;
	size_t problem;
	size_t n_params;
	uint16_t *configs;   /* size * n_params */
	size_t size;
	double product;      /* size of the unconstrained product */
	kjit__table index;   /* the configurations by value: index + 1 */
} kjit__space;

/* Builds the space of problem p of spec. limits may be NULL (the spec's).
 * The caller owns *out; kjit__space_free() frees it. */
kjit_status kjit__space_build(const kjit__spec *spec, size_t p, const kjit__limits *limits,
                           kjit__space **out);
void kjit__space_free(kjit__space *space);
/* The same walk, storing nothing: *size valid configurations of the
 * *product. The parameters after the last one that any check reads
 * multiply in at once: a product with no restriction counts without a
 * walk. */
kjit_status kjit__space_count(const kjit__spec *spec, size_t p, const kjit__limits *limits,
                              double *product, double *size);
const uint16_t *kjit__space_config(const kjit__space *space, size_t index);
/* The index of a configuration, or -1 when it is not in the space. */
int64_t kjit__space_find(const kjit__space *space, const uint16_t *config);
/* ---- a configuration as something to compile and launch (launch_config.c) */

/* The variant description of a configuration: defines point into the
 * spec, flags into text (kjit__config_desc_free() frees it). */
typedef struct kjit__config_desc {
	kjit_variant_desc desc;
	kjit_define defines[KJIT__MAX_OPTIONS];
	const char *flags[KJIT__MAX_OPTIONS];
	char *text;
} kjit__config_desc;
kjit_status kjit__config_desc_make(const kjit__spec *spec, const uint16_t *config,
                                   kjit__config_desc *out);
void kjit__config_desc_free(kjit__config_desc *d);

/* Block from the spec's block expressions or, where a dimension has
 * none, from the roles; grid and dynamic shared memory from the spec's
 * formulas; for config and problem p. */
kjit_status kjit__config_dims(const kjit__spec *spec, size_t p, const uint16_t *config,
                              unsigned grid[3], unsigned block[3], unsigned *shared);

/* The value of a spec expression (an argument, an objective formula) for
 * problem p and, when config is not NULL, that configuration; what names
 * it in messages. NaN is an error. */
kjit_status kjit__spec_eval(const kjit__spec *spec, size_t p, const uint16_t *config,
                            const char *expr, const char *what, double *out);

/* Each parameter's default value index. */
void kjit__spec_default_config(const kjit__spec *spec, uint16_t *config);

/* The index of text among p's values; numbers compare by value ("1.0"
 * is 1). -1 when absent. */
long kjit__param_value_index(const kjit__param *p, const char *text);
/* A configuration as JSON {"NAME":value,...}; malloc'ed. */
char *kjit__space_config_json(const kjit__space *space, size_t index);

/* Configurations and problems as JSON objects with sorted keys (the form
 * the runs, results and best tables hold); malloc'ed. */
char *kjit__config_json(const kjit__space *space, size_t index);
char *kjit__problem_json(const kjit__problem *problem);

/* ---- best rows (store_best.c) ------------------------------------------ */

/* A row of the best table, parsed against a kernel's spec. */
typedef struct kjit__best_row {
	char *device_key, *problem, *config, *nvrtc;
	double median_ns;
	int stale;
	int64_t *values;   /* the problem's sizes in the kernel's order */
	uint16_t *cfg;     /* value index per parameter */
	int usable;        /* every size named and every value found */
} kjit__best_row;

/* Rows of signature whose device key starts with "arch|"; names[n] are the
 * kernel's problem sizes. The caller frees them with kjit__best_rows_free(). */
kjit_status kjit__store_best_read(kjit__store *store, const kjit__spec *spec,
                                  const char *const *names, size_t n, const char *signature,
                                  const char *arch, kjit__best_row **rows, size_t *n_rows);
void kjit__best_rows_free(kjit__best_row *rows, size_t n);

/* One timed configuration of an online search. */
typedef struct kjit__trial_result {
	const char *config;    /* JSON */
	const char *binary_key;
	const char *timer;
	double median_ns, spread_ns, min_ns, max_ns;
	const double *samples;
	size_t n_samples;
} kjit__trial_result;

/* Records results rows for the trials and makes trials[best] the best row
 * (stale cleared), in one transaction. */
kjit_status kjit__store_best_commit(kjit__store *store, const char *signature,
                                    const char *device_key, const char *problem,
                                    const char *arch, const kjit__trial_result *trials,
                                    size_t n, size_t best);

/* Marks a best row stale. */
kjit_status kjit__store_best_stale(kjit__store *store, const char *signature,
                                   const char *device_key, const char *problem);

/* ---- selection (select.c) ---------------------------------------------- */

typedef enum kjit__rule {
	KJIT__RULE_EXACT,
	KJIT__RULE_NEAREST,
	KJIT__RULE_SAME_ARCH,
	KJIT__RULE_DEFAULT,
	KJIT__RULE_ONLINE
} kjit__rule;

const char *kjit__rule_name(kjit__rule rule);

/* Chooses among rows for problem values[] (sizes in the kernel's order):
 * exact on device_key, else nearest on device_key (log distance), else
 * nearest on another device, skipping stale rows, rows of another NVRTC
 * than nvrtc and configurations outside space. Ties: smaller distance,
 * then lower median, then problem text, then device key. *row is the
 * chosen index, or -1 with rule DEFAULT. */
kjit__rule kjit__select(const kjit__best_row *rows, size_t n_rows, const int64_t *values,
                        size_t n, const char *device_key, const char *nvrtc,
                        const kjit__space *space, int64_t *row);

/* ---- tunable kernels (tunable.c, launch.c, tune_online.c) ------------- */

/* The launch of one configuration for one problem: immutable once
 * published, freed at engine close. */
typedef struct kjit__choice {
	kjit_variant *variant;  /* NULL until loaded */
	CUfunction fn;
	unsigned grid[3], block[3], shared;
	kjit__rule rule;
	size_t index;           /* in the problem's space */
	char *config, *problem, *device_key; /* explanation texts */
	double median_ns;
	struct kjit__choice *older; /* the choices it replaced */
} kjit__choice;

typedef struct kjit__online kjit__online;

/* One memoised problem. */
typedef struct kjit__memo_entry {
	uint64_t hash;
	kjit_kernel *kernel;
	int64_t *values;
	char *problem_json;
	_Atomic(kjit__choice *) choice;
	atomic_int slow;        /* 1: the hot path cannot serve it (not loaded, tuning) */
	atomic_int stale;
	atomic_int retune;      /* drift asks online tuning for a new search */
	kjit__space *space;     /* built at first sight */
	kjit__spec *pspec;      /* the spec the space points at (this problem only) */
	kjit__problem prob;
	kjit__online *online;   /* tuning state, NULL when none */
	uint64_t tag;           /* profiled launches' tag */
	double window[16];      /* sampled durations for drift (under engine lock) */
	size_t n_window;
	int drift_pending;      /* marked stale here, the row not yet */
	int searched;           /* an online search ran (under the kernel's lock) */
	struct kjit__memo_entry *next_all;
} kjit__memo_entry;

/* Open-addressing table of entries, published with an atomic pointer;
 * slots are written once (atomically) under the kernel's lock; a full
 * table is copied into a larger one, the old kept until close. */
typedef struct kjit__memo {
	size_t cap; /* power of two */
	size_t count;
	struct kjit__memo *older;
	_Atomic(kjit__memo_entry *) slots[];
} kjit__memo;

typedef struct kjit__tunable {
	kjit__spec *spec;        /* params, restrictions, grid, shared, flags */
	char **names;            /* problem sizes, launch order */
	size_t n;
	kjit_grid_fn grid_fn;
	void *grid_user;
	_Atomic(kjit__memo *) memo;
	pthread_mutex_t lock;    /* writers of the memo, choices, online state */
	kjit__memo_entry *entries;
} kjit__tunable;

/* The hash of a problem. */
static inline uint64_t kjit__problem_hash(const int64_t *v, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ n;
	for (size_t i = 0; i < n; i++) {
		h ^= (uint64_t)v[i];
		h *= 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	return h;
}

/* At engine close: stop (join) online searches, then free. */
void kjit__tunable_stop(kjit_kernel *k);
void kjit__tunable_free(kjit__tunable *t);

/* Finds or makes (selection included) the entry of a problem; under no
 * lock, takes the kernel's. */
kjit_status kjit__memo_get(kjit_kernel *k, const int64_t *values, kjit__memo_entry **out);

/* The launch dimensions of configuration index of an entry's space (the
 * kernel's grid callback, when it has one, gives the grid). */
kjit_status kjit__launch_dims(const kjit__tunable *t, const kjit__memo_entry *en, size_t index,
                              unsigned grid[3], unsigned block[3], unsigned *shared);

/* Makes a choice for index of en's space (dims, explanation texts). */
kjit_status kjit__choice_make(kjit_kernel *k, kjit__memo_entry *en, size_t index,
                              kjit__rule rule, const kjit__best_row *row, kjit__choice **out);
/* Under t->lock: loads en's choice (through the cache) and launches it. */
kjit_status kjit__entry_serve(kjit_kernel *k, kjit__memo_entry *en, void **args,
                              CUstream stream);
/* Publishes c as en's choice (the old one kept until close). Under t->lock. */
void kjit__choice_publish(kjit__memo_entry *en, kjit__choice *c);

/* Online tuning (tune_online.c). start: under t->lock, begins a search for
 * en (compiling its trials now or on a thread). launch: under t->lock,
 * runs the next trial launch (or the choice while trials compile); sets
 * *done when the search committed. free: at close. */
kjit_status kjit__online_start(kjit_kernel *k, kjit__memo_entry *en);
kjit_status kjit__online_launch(kjit_kernel *k, kjit__memo_entry *en, void **args,
                                CUstream stream);
void kjit__online_free(kjit__online *o);
/* Takes en's search away from the sink (under the engine lock); the
 * caller frees it. */
kjit__online *kjit__online_detach(kjit_engine *engine, kjit__memo_entry *en);
/* A trial's duration (under the engine lock, from the sink). */
void kjit__online_sample(kjit__memo_entry *en, uint64_t slot, double ns);

/* Drift: a profiled duration of a memoised launch (from the timer's sink),
 * and the writer's tick that marks drifted rows stale. */
void kjit__drift_sample(kjit_engine *engine, uint64_t tag, double ns);
void kjit__drift_flush(kjit_engine *engine);

#endif /* KJIT_ENGINE_H */
