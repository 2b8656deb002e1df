/*
 * tuning.h - internal header of the tuning layer of libkjit: the spec,
 * expressions, the constrained space, a configuration as something to
 * compile and launch, the record room (record.h), best rows and
 * selection. kjit-tune and the tests use it; the structures of
 * kjit_launch() are in tuning_private.h.
 */
#ifndef KJIT_TUNING_H
#define KJIT_TUNING_H

#include "engine.h"
#include "record.h"

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

/* struct kjit_spec is kjit.h's opaque kjit_spec: the public functions take it as is. */
typedef struct kjit_spec {
	char *path;          /* the spec file, for messages */
	char *format;        /* "kjit" or "t1" */
	int python;          /* 1: expressions have Python's semantics (T1) */
	char *source_path;   /* resolved against the spec's folder */
	char *source_missing; /* T1: why no KernelFile was found (the field, the
	                       * places looked in); NULL when it was */
	char *entry;
	char **flags;        /* fixed NVRTC flags */
	size_t n_flags;
	char **include_dirs; /* resolved against the spec's folder */
	size_t n_include_dirs;
	kjit_header *headers; /* in-memory headers (names and texts owned) */
	size_t n_headers;
	char **link_paths;   /* kernel.link: resolved against the spec's folder */
	kjit_link_kind *link_kinds;
	size_t n_link;
	char **link_options; /* kernel.link_options: nvJitLink options */
	size_t n_link_options;
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
	char *metric;        /* objective.metric: time, gbps, gflops (time's order), energy
	                      * or edp (kjit_objective); NULL: time */
	int64_t max_threads; /* threads per block limit (1024) */
	int64_t max_shared;  /* dynamic shared memory limit in bytes */
	/* what the spec asks of a run (T1 Search, Budget, General); 0/NULL unset */
	char *strategy;      /* a kjit strategy name (T1 Search.Name mapped) */
	/* T1 Search.Attributes other than the budgets, "NAME=VALUE", in order:
	 * options of the strategy (kjit-tune reads them); at most
	 * KJIT__SPEC_STRATEGY_OPTIONS_MAX */
	char **strategy_options;
	size_t n_strategy_options;
	int64_t budget_evaluations;
	double budget_fraction, budget_seconds;
	char *output_file;   /* T1 General.OutputFile: T4 results at the end of a run */
	char *time_unit;     /* T1 General.TimeUnit: "ns", "us", "ms" or "s" */
	char *unrunnable;    /* why the spec can be counted but not compiled or run (a T1
	                      * Language other than CUDA); NULL when it can */
	char **warnings;     /* "FILE: FIELD: ..." lines (unknown T1 keys, fields
	                      * read but unused); kjit-tune prints them */
	size_t n_warnings;
	struct kjit__expr_budget *expr_budget; /* every evaluation of its expressions draws on it
	                                 * (KJIT__SPEC_EXPR_STEPS); NULL: none */
} kjit__spec;

/* The most T1 Search.Attributes a spec gives its strategy. */
#define KJIT__SPEC_STRATEGY_OPTIONS_MAX 32

/* Reads a kjit or T1 spec. A spec error is KJIT_ERR_INVALID_ARG (or
 * KJIT_ERR_IO) with "FILE: FIELD: expected ..." in kjit_last_error();
 * invalid JSON names the line and column. Every name used by an
 * expression is checked here. The caller owns *out and frees it with
 * kjit__spec_free(). */
kjit_status kjit__spec_load(const char *path, kjit__spec **out);
void kjit__spec_free(kjit__spec *spec);

/* The kjit strategy that a T1 Search.Name (Kernel Tuner's, KTT's or
 * kjit's own, case-insensitive) names, such as "exhaustive" for
 * "brute_force"; NULL when kjit has none. */
const char *kjit__spec_strategy_name(const char *name);

/* Creates the kernel of a spec for entry (spec->entry, or a reference
 * kernel's): source, or spec->source_path when NULL, with the spec's
 * parameter names, header options and link inputs and options, or opts
 * when not NULL. */
kjit_status kjit__spec_kernel(kjit_engine *e, const kjit__spec *spec, const char *entry,
                              const char *source, const kjit_kernel_options *opts,
                              kjit_kernel **out);

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

/* Each evaluation has 2^25 steps (a node, a list item, 64 bytes compared
 * or copied) and 64 MiB of values. A spec's evaluations also draw on one
 * budget of steps together, over the spec's whole life (every restriction
 * over every configuration, every count and build of its spaces, its
 * sizes, arguments and generators): KJIT__SPEC_EXPR_STEPS, so that a
 * check cheap once cannot add up to hours over a large space. Spent, every
 * evaluation of the spec fails, saying so. Threads share it. */
#define KJIT__SPEC_EXPR_STEPS ((uint64_t)1 << 27)
typedef struct kjit__expr_budget kjit__expr_budget;
/* NULL when out of memory. */
kjit__expr_budget *kjit__expr_budget_new(uint64_t steps);
void kjit__expr_budget_free(kjit__expr_budget *b);

/* Parses text; a name must be one of names[n] (slot i), a function or a
 * keyword, else the error names it. what names the field in messages
 * ("restrictions[2]"). Every evaluation of the expression (and of its
 * split terms) draws on budget too, when not NULL: the spec's, which must
 * outlive it. The caller frees *out with kjit__expr_free(). */
kjit_status kjit__expr_parse(const char *text, kjit__dialect dialect, const char *const *names,
                             size_t n, const char *what, kjit__expr_budget *budget,
                             kjit__expr **out);
void kjit__expr_free(kjit__expr *e);
/* The highest slot that e reads, -1 when none. */
int kjit__expr_max_slot(const kjit__expr *e);
/* Sets reads[i] for every slot i < len that e reads. */
void kjit__expr_reads(const kjit__expr *e, uint8_t *reads, size_t len);
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
/* The same, not drawing on the spec's budget: for a walk that bounds its
 * own time (an exact count). */
kjit_status kjit__expr_eval_own(const kjit__expr *e, const kjit__value *slots, double *out);
/* kjit__expr_eval_own() by the tree alone, never by the flat program of
 * integer arithmetic that evaluates most restrictions: what that program
 * is checked against (test-expr, fuzz-expr); and whether e has one. */
kjit_status kjit__expr_eval_tree(const kjit__expr *e, const kjit__value *slots, double *out);
int kjit__expr_is_flat(const kjit__expr *e);
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

/* The limits of a spec that sets none (kjit-spec(5), limits): threads per
 * block, and dynamic shared memory per block, the opt-in maximum of
 * current data-centre GPUs (kjit-tune takes the device's when lower). */
#define KJIT__MAX_THREADS_DEFAULT 1024
#define KJIT__MAX_SHARED_DEFAULT 232448

/* Device limits that prune the space. */
typedef struct kjit__limits {
	int64_t max_threads; /* block x*y*z; default 1024 */
	int64_t max_shared;  /* dynamic shared memory bytes; default 48 KiB */
	/* A space too large to hold whole (KJIT__SPACE_HOLD configurations,
	 * or a walk of KJIT__SPACE_STEPS): with sample > 0, a uniform random
	 * sample of at most that many valid configurations (drawn from seed)
	 * stands for it; with 0 it is refused, naming its product. */
	size_t sample;
	uint64_t seed;
	uint64_t count_ns; /* an exact count's clock; 0: KJIT__COUNT_NS */
} kjit__limits;

/* What a space may hold and cost to enumerate: about 150 MB for a space
 * of ten parameters, and a few seconds of walking. */
#define KJIT__SPACE_HOLD ((size_t)1 << 22)
#define KJIT__SPACE_STEPS 10000000u
/* The sample a budgeted search of a space too large to hold draws, and
 * how many configurations it may take on beyond it (kjit__space_add()). */
#define KJIT__SPACE_SAMPLE ((size_t)1 << 18)
#define KJIT__SPACE_GROW ((size_t)1 << 18)

/* The constrained space of one problem: every valid configuration as a
 * row of value indices (one per parameter), in lexicographic order.
 * Enumerated depth first: each restriction term, grid dimension, shared
 * memory size and block expression runs as soon as the parameters it
 * reads are set, so the unconstrained product is never built. */
/* kjit.h's opaque kjit_space. */
typedef struct kjit_space {
	const kjit__spec *spec;
	size_t problem;
	size_t n_params;
	uint16_t *configs;   /* size * n_params */
	size_t size;
	double product;      /* size of the unconstrained product */
	int sampled;         /* 1: a random sample of a space too large to hold */
	size_t capacity;     /* size may grow to this (kjit__space_add()): an index
	                      * is below it; size when the space is held whole */
	kjit__table index;   /* the configurations by value: index + 1 */
	void *grow;          /* a sample's checks, for kjit__space_add() (space.c) */
} kjit__space;

/* Builds the space of problem p of spec. limits may be NULL (the spec's;
 * no sample). The caller owns *out; kjit__space_free() frees it. */
kjit_status kjit__space_build(const kjit__spec *spec, size_t p, const kjit__limits *limits,
                           kjit__space **out);
void kjit__space_free(kjit__space *space);
/* A space's size: exact where kjit__space_count() could walk it. */
typedef struct kjit__count {
	double product;   /* the unconstrained product */
	double valid;     /* valid configurations */
	double rel_error; /* 0: valid is exact; else an estimate from random draws and its
	                   * relative standard error; INFINITY: the draws found none */
	double upper;     /* with rel_error INFINITY: valid is at most about this (95%) */
} kjit__count;

/* A count is exact when every group (below) has a product of at most
 * KJIT__COUNT_EXACT_PRODUCT and the walks end within KJIT__COUNT_NS. */
#define KJIT__COUNT_EXACT_PRODUCT 1e8
#define KJIT__COUNT_NS ((uint64_t)10000000000u)

/* The same walk, storing nothing, in *out. The parameters split into
 * groups that checks connect, and the count is the product of the
 * groups' counts; within a group, the parameters after the last one that
 * a check reads multiply in at once. A group is walked whole when its
 * product is at most KJIT__COUNT_EXACT_PRODUCT (within KJIT__COUNT_NS
 * for all groups), a larger one while its walk is short; past those it
 * is estimated from random draws. Exact counts beyond 2^53 round as
 * doubles do. */
kjit_status kjit__space_count(const kjit__spec *spec, size_t p, const kjit__limits *limits,
                              kjit__count *out);
const uint16_t *kjit__space_config(const kjit__space *space, size_t index);
/* The index of a configuration, or -1 when it is not in the space. */
int64_t kjit__space_find(const kjit__space *space, const uint16_t *config);
/* kjit__space_find(), and in a sample of a space too large to hold, a
 * configuration it was not drawn with appended (size grows by one, the
 * other indices and rows stay) when it passes the space's checks and
 * size is below capacity: so that a search builds the neighbours of a
 * configuration instead of finding them in the sample. -1 when not
 * valid (or no room). The space is const to its readers: what it holds
 * grows, what it says about a configuration does not change. */
int64_t kjit__space_add(const kjit__space *space, const uint16_t *config);
/* A stored configuration's place in the space: value(ctx, i) gives the
 * text of parameter i's value (NULL: none; valid until the next call),
 * asked for every parameter in order, also after one that does not
 * match; each is matched as kjit__param_value_index() does, into
 * config[n_params] (the caller's). The index, or -1 when a value is
 * none or not among its parameter's, or the configuration is not in the
 * space. */
int64_t kjit__space_match(const kjit__space *space, kjit_space_text_fn value, void *ctx,
                          uint16_t *config);
/* The same reading without a space: 1 when every parameter's value is
 * one of its own (config holds the indices), else 0. */
int kjit__config_indices(const kjit__spec *spec, kjit_space_text_fn value, void *ctx,
                         uint16_t *config);
/* kjit__config_indices() of a configuration stored as a JSON object
 * {"NAME": value, ...}, read by kjit's strict reader (every store row's
 * configuration is read so); keys that are no parameter's are the
 * caller's to judge. */
int kjit__config_from_json(const kjit__spec *spec, const kjit__json *obj, uint16_t *config);
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

/* A generator: expr over i (0 to n - 1) and problem p's sizes, parsed
 * once (what names it in messages), evaluated for each i in turn and
 * handed to each(), whose status other than KJIT_OK ends the walk. An
 * evaluation's failure is its status with *failed_at = i; any other
 * failure leaves *failed_at SIZE_MAX. */
kjit_status kjit__spec_generate(const kjit__spec *spec, size_t p, const char *expr,
                                const char *what, size_t n, kjit_spec_each each, void *ctx,
                                size_t *failed_at);

/* Each parameter's default value index. */
void kjit__spec_default_config(const kjit__spec *spec, uint16_t *config);

/* The index of text among p's values; numbers compare by value ("1.0"
 * is 1). -1 when absent. */
long kjit__param_value_index(const kjit__param *p, const char *text);

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
	int64_t result_id;
	int has_profile;   /* its result has a stored profile (kjit-tune --profile) */
	kjit_profile profile; /* kjit__store_best_profile()'s; the reasons point into reasons[] */
	char *reasons[2];
} kjit__best_row;

/* Rows of signature whose device key starts with "arch|"; names[n] are the
 * kernel's problem sizes. The caller frees them with kjit__best_rows_free(). */
kjit_status kjit__store_best_read(kjit__store *store, const kjit__spec *spec,
                                  const char *const *names, size_t n, const char *signature,
                                  const char *arch, kjit__best_row **rows, size_t *n_rows);
void kjit__best_rows_free(kjit__best_row *rows, size_t n);
/* Reads row's profile when it has one (has_profile 0 when it has gone). */
kjit_status kjit__store_best_profile(kjit__store *store, kjit__best_row *row);

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

#endif /* KJIT_TUNING_H */
