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
	void *cubin;   /* malloc'ed: the cubin, the PTX text (NUL included), or LTO IR
	               * under -dlto */
	size_t size;
	char *lowered; /* malloc'ed lowered name of the entry point ("" with none) */
	double ms;     /* wall time of nvrtcCompileProgram and the extraction (and of
	                * nvJitLink, for a linked variant) */
} kjit__compiled;

/* What NVRTC is handed besides the source: headers by the name written
 * in #include, and the -I options of the toolkit's folders. */
typedef struct kjit__header_set {
	size_t n;
	const char *const *names, *const *texts;
	size_t n_opts;
	const char *const *opts;
	const char *manifest;  /* the files read, one per line; NULL when none */
	kjit__hash128 digest;  /* of the manifest's paths and hashes */
} kjit__header_set;

/* Compiles source to a cubin, to PTX when the -arch of opts is a virtual
 * arch (compute_NN), or to LTO IR when opts has -dlto. name_expr is the
 * entry point, NULL for a library with none; opts the full option list; headers (NULL: none) the headers NVRTC may include. On
 * KJIT_ERR_COMPILE the thread's error holds the NVRTC log. */
kjit_status kjit__nvrtc_compile(const char *source, const char *program_name,
                                const char *name_expr, const char *const *opts, size_t n_opts,
                                const kjit__header_set *headers, kjit__compiled *out);
void kjit__compiled_free(kjit__compiled *c);

/* ---- stand-ins for the standard headers (std_headers.c) ----------------- */

/* The stand-in kjit hands NVRTC for a standard header name (math.h,
 * cstdint, type_traits, ...) that a kernel does not supply itself; NULL
 * when there is none. Static text. */
const char *kjit__std_header(const char *name);
/* "std-" and a hash of every stand-in: part of a key wherever the
 * toolkit's headers are. Static text. */
const char *kjit__std_headers_id(void);

/* ---- the options a kernel may carry (options.c) ------------------------ */

/* The longest option (and option value) accepted, in bytes. */
#define KJIT__MAX_OPTION_BYTES 4096

/* NULL when opts[0] (with opts[1] as its value where it takes one) is an
 * NVRTC option (link 0) or nvJitLink option (link 1) of the allowlist,
 * else why it is refused (static text). *used: how many of the n it takes. */
const char *kjit__option_refusal(int link, const char *const *opts, size_t n, size_t *used);
/* Every option of opts through kjit__option_refusal(): the first refused is
 * KJIT_ERR_INVALID_ARG "WHAT I ('OPTION'): why". */
kjit_status kjit__options_check(int link, const char *const *opts, size_t n, const char *what);

/* 1 for a virtual arch (compute_NN...), whose binary is PTX. */
int kjit__arch_is_virtual(const char *arch);

/* The architecture numbers this NVRTC compiles for (75, 80, ..., 120),
 * ascending, into *archs (static) and *n. */
kjit_status kjit__nvrtc_archs(const int **archs, size_t *n);

/* "NAME-MAJOR.MINOR+SIZE" into out[cap]: a toolkit library's identity,
 * the size of the file that holds symbol standing for its build, so that
 * a patched library of the same version gives new keys. */
void kjit__library_id(char *out, size_t cap, const char *name, int major, int minor,
                      const void *symbol);

/* ---- JIT LTO with nvJitLink (link.c) ------------------------------------ */

/* The NVRTC options of a linked kernel's variants and of a source link
 * input, before -arch, one per line as in a canonical option list. */
#define KJIT__LTO_OPTIONS "-dlto\n-rdc=true\n"

/* A kernel's link inputs, read and hashed once at creation; immutable
 * after, so that the compile pool's threads share it without a lock. */
typedef struct kjit__link kjit__link;

/* Copies the link inputs and link options of opts for a kernel of engine
 * e: files read now, a KJIT_LINK_SOURCE compiled to LTO IR (through the
 * cache). *out is the caller's, freed with kjit__link_free(). */
kjit_status kjit__link_make(kjit_engine *e, const kjit_kernel_options *opts, kjit__link **out);
void kjit__link_free(kjit__link *link);

/* The link key of a variant: its compile key (the hash of its NVRTC
 * options) with the kinds and contents of the inputs, the link options
 * and the nvJitLink identity. */
kjit__hash128 kjit__link_key(const kjit__link *link, kjit__hash128 compile_key);

/* The linked cubin of a variant of k whose canonical option list is
 * options (text the source NVRTC compiles, with the variant's defines;
 * opts[n] what NVRTC is handed, headers its headers): the
 * variant's LTO IR from the store under compile_key, else from NVRTC
 * (and stored), linked with every input. A link failure is KJIT_ERR_LINK
 * with nvJitLink's error and info logs. */
kjit_status kjit__link_build(kjit_kernel *k, kjit__hash128 compile_key, const char *text,
                             const char *options, const char *const *opts, size_t n,
                             const kjit__header_set *headers, kjit__compiled *out);

/* "nvjitlink-13.0+<build>": the nvJitLink identity in every link key;
 * static storage. */
const char *kjit__nvjitlink_id(void);

/* A link kind's word ("ltoir", "cubin", "fatbin", "object", "library",
 * "ptx", "source"; "unknown" beyond them), the kind of a word, and the
 * kind a file name's ending implies (.ltoir, .cubin, .fatbin, .o, .a,
 * .ptx, .cu, ...); 0 for none. */
const char *kjit__link_kind_name(kjit_link_kind kind);
kjit_link_kind kjit__link_kind_parse(const char *word);
kjit_link_kind kjit__link_kind_of_path(const char *path);
/* (link_kinds.c, with the three above) 1 for a kind of kjit_link_kind;
 * the nvJitLinkInputType of a kind, -1 for another value. */
int kjit__link_kind_known(kjit_link_kind kind);
int kjit__link_kind_input(kjit_link_kind kind);

/* Counts a compile by NVRTC (failed ones too) of ms wall time. */
void kjit__count_compile(kjit_engine *e, double ms);

/* ---- kernels (kernel.c) ------------------------------------------------ */

/* The kernel signature (32 hex digits into out) of an entry point, its
 * source text and its parameter names joined by ',' (kjit__param_list()). */
kjit_status kjit__signature(const char *name, const char *source, const char *params,
                            char out[33]);
/* Parameter names joined by ',', as a signature and a binary key take
 * them; malloc'ed, NULL when out of memory. */
char *kjit__param_list(const char *const *names, size_t n);

/* ---- headers (headers.c) ----------------------------------------------- */

/* Called for each #include "name" (angle 0) or #include <name> (angle 1)
 * with the line of its '#'; nonzero stops the scan. */
typedef int (*kjit__include_fn)(void *ctx, const char *name, int angle, unsigned line);

/* Calls fn for every #include directive of text: comments, literals
 * (raw strings too), line continuations and "#  include" understood;
 * conditionals are not evaluated, so every branch counts, and an include
 * of a macro is skipped. Returns what fn returned to stop, else 0. */
int kjit__scan_includes(const char *text, kjit__include_fn fn, void *ctx);

/*
 * A kernel's headers. An #include is answered by the in-memory header of
 * that exact name, else (#include "..." from the source or a file header)
 * a file in the including file's folder, else a file in the include dirs
 * in order; a name none of these has is left to the toolkit's folders
 * (-I, unless no_default_includes), or to NVRTC's error. Every user header
 * is handed to NVRTC by name, so NVRTC reads exactly the texts hashed.
 *
 * The key: the in-memory headers enter the kernel's key seed by content
 * (kjit__headers_identity()); the files, found only by reading them,
 * enter each variant's binary key, which is its base key combined with
 * the digest of the manifest (every file looked for: its hash, or its
 * absence). A later process finds the manifest stored with the base
 * key's binary and checks it by stat (re-hashing a file whose size or
 * mtime changed) instead of reading the tree. A kernel settles its files
 * once per process: an edit made later is seen by a new kernel or the
 * next process.
 */
typedef struct kjit__headers kjit__headers;

/* Finds the toolkit's headers and their version, once per process (a
 * stat and a file read: at engine open, not on a first kernel). */
void kjit__headers_init(void);

/* Checks and copies the header options (opts may be NULL) of kernel who
 * with source (both kept by pointer: the kernel's own copies), read from
 * path (NULL: none; #include "..." then searches the current folder, as
 * NVRTC does) and named main in NVRTC's messages. Scans the source and
 * the in-memory headers, reading no file. KJIT_ERR_INVALID_ARG: a header
 * with no name or text, two of one name, an include dir that is not a
 * folder. The caller frees *out with kjit__headers_free(). */
kjit_status kjit__headers_make(const char *who, const char *source, const char *path,
                               const char *main, const kjit_kernel_options *opts,
                               kjit__headers **out);
void kjit__headers_free(kjit__headers *h);

/* The text that joins the kernel's key seed, NULL when nothing does (a
 * source with no #include gets the keys it always had). */
const char *kjit__headers_identity(const kjit__headers *h);

/* The binary key of a variant of base key base into *out: base itself
 * when no file can be read, else base combined with the files' digest.
 * Returns 0 (and base) while that digest is not known in this process. */
int kjit__headers_key(kjit__headers *h, kjit__hash128 base, kjit__hash128 *out);

/* Makes the files' digest known: the manifest stored with the binary of
 * base_key when every file still matches it, else by reading the files. */
kjit_status kjit__headers_prepare(kjit__headers *h, kjit__store *store, const char *base_key);

/* What NVRTC is handed, the files read once per kernel; *out is the
 * kernel's. */
kjit_status kjit__headers_load(kjit__headers *h, const kjit__header_set **out);

/* The binary key of base for a compile handed set. */
kjit__hash128 kjit__headers_final_key(const kjit__header_set *set, kjit__hash128 base);

/* After a failed compile: NVRTC's "cannot open source file" becomes a
 * message naming the header, the file that includes it and the folders
 * searched (NVRTC's log after it). Returns st. */
kjit_status kjit__headers_missing(const kjit__headers *h, kjit_status st);

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
	/* its parameters as the cubin records them (else as the driver gives
	 * them), read once by the first check that needs them
	 * (kjit__variant_check_args()); params_cu is the driver's answer
	 * when that failed, and n_params SIZE_MAX when neither can say;
	 * params_state says whether they were read */
	size_t n_params, *param_offset, *param_size;
	CUresult params_cu;
	int params_from_cubin; /* 1: read from the cubin (the driver unasked) */
	atomic_int params_state;
	struct kjit_variant *next_in_engine;
};

struct kjit_kernel {
	kjit_engine *engine;
	char *name;
	char *source;
	char *file;   /* NVRTC's name for the source, in its messages: the source's
	               * path (kjit_kernel_create_from_file()), else NAME.cu */
	char *params; /* tunable parameter names joined by ',' */
	kjit__headers *headers;
	char signature[33];
	uint64_t key_seed; /* hash of the signature and the NVRTC identity */
	uint64_t memory_hits, reported_hits;      /* under the engine lock (reported: with given_hits) */
	/* variants by the hash of a descriptor as the caller wrote it, put
	 * there once that descriptor was checked and its variant found: a
	 * hit costs a hash and a probe without a lock (vtable.c); written
	 * under the engine lock. given_hits: its hits (relaxed: a count) */
	kjit__atable given;
	atomic_uint_fast64_t given_hits;
	atomic_uint_fast64_t launches;            /* relaxed: a count, not an order */
	uint64_t reported_launches;               /* the telemetry sampler's */
	struct kjit__tunable *tun;                /* NULL for a plain kernel */
	kjit__link *link;                         /* NULL: whole-program compile */
	/* module variables (kjit_kernel_set_symbol()); the lock also covers
	 * writing them into a variant's module and publishing that variant,
	 * so that no variant misses a change */
	pthread_mutex_t symbols_lock;
	struct kjit__symbol *symbols;
	size_t n_symbols;
	/* the arguments a spec passes (kjit__kernel_expect_args()); set
	 * before any variant loads, then only read */
	struct kjit__arg_want *want;
	size_t n_want;
	int check_args;
	atomic_int args_refused;                  /* a variant's parameters did not match */
	struct kjit_kernel *next;
};

/* Frees a kernel and what it owns (its tunable part excepted). */
void kjit__kernel_free(kjit_kernel *k);

/* The in-process tier of the cache: a table of variants by binary key. */
kjit_variant *kjit__vtable_find(const kjit__table *t, kjit__hash128 key);
/* Inserts v, or returns the variant already there under the same key;
 * NULL when out of memory. */
kjit_variant *kjit__vtable_insert(kjit__table *t, kjit_variant *v);
/* The variant a kernel's given table holds for a descriptor's hash, NULL
 * when none; kjit__given_insert() adds one (a full table, or no memory,
 * leaves it out: the caller's slow path still finds the variant). */
kjit_variant *kjit__given_find(const kjit__atable *t, kjit__hash128 given);
void kjit__given_insert(kjit__atable *t, kjit__hash128 given, kjit_variant *v);
void kjit__given_free(kjit__atable *t);

struct kjit_engine {
	kjit__store *store;
	char *db_path;
	int64_t cache_max;
	int threads;

	const kjit__cu_api *cu; /* NULL without a GPU */
	char gpu_reason[512];
	CUdevice device;
	int ordinal;
	int sms;
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
	/* the tuning layer's (kjit__engine_hooks()), NULL until a tunable kernel */
	_Atomic(const struct kjit__tuning_hooks *) tuning;
	struct kjit__memo_entry **memo_by_id; /* its profiled launches' tags, under lock */
	size_t n_memo_ids, cap_memo_ids;

	pthread_mutex_t timer_lock; /* the timer and the counters */
	kjit__timer *timer;        /* made on first measurement or for profiling */
	kjit__counters *counters;  /* made on the first kjit_variant_profile() */
	kjit__nvml *nvml;          /* made on the first energy profile; NULL: refused */
	int nvml_tried;
	char nvml_reason[512];     /* why nvml is NULL */
	kjit__telemetry *telemetry; /* NULL with KJIT_TELEMETRY=0 */
	uint64_t profile_every;    /* time one launch in this many; 0: off */
	atomic_uint_fast64_t launch_seq;
};

/* The engine's timer, opened on first use, its sink kjit__engine_sink. */
kjit_status kjit__engine_timer(kjit_engine *engine, kjit__timer **out);
/* The engine's hardware counters, opened on first use (refused ones too:
 * their reason says why). */
kjit_status kjit__engine_counters(kjit_engine *engine, kjit__counters **out);
/* The engine's device in NVML, opened on first use; NULL when it cannot
 * be (once tried, not again), and then the returned reason says why. */
kjit__nvml *kjit__engine_nvml(kjit_engine *engine, const char **reason);

/* Where the durations of tagged launches arrive (from CUPTI's buffer
 * delivery), routed by the tag: a variant's here, the tuning layer's
 * through its hooks. */
void kjit__engine_sink(void *ctx, uint64_t tag, double ns);

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

/* ---- the PTX tier (ptx.c) ---------------------------------------------- */

/* For a variant of k with the canonical options (its -arch line last)
 * and the header files it reads, that has no cubin stored: the PTX stored
 * for the best virtual arch the engine's GPU can run, compiled by the
 * driver into *out (the cubin, the lowered name, the JIT's ms). KJIT_ERR_NOT_FOUND: no usable PTX, or no
 * GPU. *corrupt counts the stored PTX rejected on the way (checksum, or
 * the JIT failed: its log is the engine's last error). */
kjit_status kjit__ptx_find(kjit_kernel *k, const char *options,
                           const kjit__header_set *headers, kjit__compiled *out, int *corrupt);

/* ---- module variables (symbol.c) ------------------------------------ */

typedef struct kjit__symbol {
	char *name;
	void *data;
	size_t size;
} kjit__symbol;

/* Under v->kernel->symbols_lock: writes every module variable set on the
 * kernel into v's freshly loaded module (a no-op without one). */
kjit_status kjit__variant_symbols(kjit_variant *v);

/* ---- kernel parameters against the arguments passed (param_check.c) - */

/* The offset and size of each parameter of the kernel entry (its lowered
 * name) as the cubin's .nv.info.<entry> section records them (ELF64;
 * bounded, hostile-safe): *offset and *psize (malloc'ed, the caller's)
 * hold *n. KJIT_ERR_NOT_FOUND (no error set) when the cubin does not say
 * (PTX, another layout); KJIT_ERR_NOMEM. (cubin_params.c) */
kjit_status kjit__cubin_params(const void *cubin, size_t size, const char *entry,
                               size_t **offset, size_t **psize, size_t *n);

typedef struct kjit__arg_want {
	char *name;
	char *type; /* as the spec gives it: "int32", "float2 *" */
	size_t size; /* bytes the launch passes */
} kjit__arg_want;

/* Keeps a copy of args[n] on k, before any variant of it loads: each
 * variant loaded afterwards has its parameters checked against them. */
kjit_status kjit__kernel_expect_args(kjit_kernel *k, const kjit__arg_want *args, size_t n);

/* v's parameters against the arguments kernel k expects (k need not be
 * the kernel that loaded v: kernels of one signature share it), read
 * by the first check that needs them, never for a kernel that expects no
 * arguments: from the cubin, else from the driver (asking it loads the
 * function, which a lazy module load leaves to the first launch):
 * KJIT_ERR_INVALID_ARG with the two side by side when they differ,
 * KJIT_ERR_CUDA when the driver failed to give them. KJIT_OK without
 * expected arguments, or with a driver older than CUDA 12.4 (said once on
 * stderr). */
kjit_status kjit__variant_check_args(kjit_kernel *k, kjit_variant *v);

/* ---- what the tuning layer does for the core -------------------------- */

/*
 * The tag of a profiled launch, which the timer hands back with its
 * duration:
 *   bit 63 clear: a variant's id (KJIT_PROFILE of kjit_variant_launch());
 *   bit 63 set, bit 62 clear: a memo entry's id (a profiled kjit_launch());
 *   bits 63 and 62 set: an online trial, the entry's id above the
 *   KJIT__TAG_SLOT_BITS of the sample slot.
 * Tags with bit 63 set are the tuning layer's.
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

/* The calls the core makes into the tuning layer (src/tuning/), through
 * pointers that layer installs on the engine with its first tunable
 * kernel (kjit__engine_hooks()), so that no core file names a tuning
 * function. */
typedef struct kjit__tuning_hooks {
	void (*stop)(kjit_kernel *k);  /* at close, first: join a kernel's online searches */
	void (*free)(kjit_kernel *k);  /* at close: a kernel's tunable part */
	void (*sample)(kjit_engine *e, uint64_t tag, double ns); /* a duration tagged
	                                                           * KJIT__TAG_MEMO */
	void (*tick)(kjit_engine *e);  /* the telemetry writer's tick */
	void (*close)(kjit_engine *e); /* at close, last: the engine's tuning state */
} kjit__tuning_hooks;

/* Installs hooks on e (the same ones every time; any thread). */
void kjit__engine_hooks(kjit_engine *e, const kjit__tuning_hooks *hooks);

#endif /* KJIT_ENGINE_H */
