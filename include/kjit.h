/*
 * kjit.h - the public C API of libkjit.
 *
 * kjit compiles CUDA kernel variants at run time with NVRTC, keeps the
 * binaries in a two-tier cache (in process, then a SQLite database shared by
 * every process), loads them through the CUDA Driver API and launches them.
 *
 * Conventions:
 *  - Every function that can fail returns a kjit_status. KJIT_OK is zero.
 *    kjit_status_str() names a code; kjit_engine_last_error() gives the
 *    detail of the last failure on an engine (the NVRTC log, the CUDA error
 *    name, the SQLite message).
 *  - Handles are opaque. Ownership of anything handed back is stated in the
 *    comment of the function that hands it back.
 *  - libcuda.so.1 is opened at run time, never linked: an engine opened
 *    without a GPU compiles and caches, and fails with KJIT_ERR_NO_GPU (the
 *    reason in the last error) on anything that needs one.
 *
 * Thread safety: an engine may be used from several threads at once; its
 * last-error message is per thread. Kernels and variants belong to their
 * engine and are valid until kjit_engine_close().
 */
#ifndef KJIT_H
#define KJIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KJIT_VERSION_MAJOR 0
#define KJIT_VERSION_MINOR 1
#define KJIT_VERSION_PATCH 0

typedef enum kjit_status {
	KJIT_OK = 0,
	KJIT_ERR_INVALID_ARG,   /* a NULL handle, an empty name, a bad option */
	KJIT_ERR_NOMEM,         /* out of host memory */
	KJIT_ERR_IO,            /* a file could not be read or created */
	KJIT_ERR_NO_GPU,        /* no usable driver or device (reason in last error) */
	KJIT_ERR_CUDA,          /* a CUDA driver call failed (its error name in last error) */
	KJIT_ERR_COMPILE,       /* NVRTC rejected the source (the log in last error) */
	KJIT_ERR_NVRTC,         /* NVRTC itself failed (not a source error) */
	KJIT_ERR_DB,            /* the database failed (the SQLite message in last error) */
	KJIT_ERR_NOT_FOUND,     /* no such entry (lookups of stored data) */
	KJIT_ERR_LAUNCH,        /* the launch was refused (too many resources, bad config) */
	KJIT_ERR_CORRUPT,       /* stored data failed its checksum (a corrupt cached
	                           binary is recompiled instead; see kjit_engine_stats) */
	KJIT_ERR_LINK           /* nvJitLink rejected a link (its logs in last error) */
} kjit_status;

/* A static, never-NULL name for a status code ("KJIT_ERR_COMPILE: ..."). */
const char *kjit_status_str(kjit_status status);

/* The library version as "MAJOR.MINOR.PATCH"; static storage. */
const char *kjit_version(void);

/* The NVRTC that compiles, as "nvrtc-MAJOR.MINOR+SIZE" (its library's size
 * stands for its build): part of every binary's key, so that a binary of
 * another NVRTC is compiled again, and of every tuning run's record;
 * static storage. */
const char *kjit_nvrtc_id(void);

typedef struct kjit_engine kjit_engine;
typedef struct kjit_kernel kjit_kernel;
typedef struct kjit_variant kjit_variant;

/* Compatible with CUstream and cudaStream_t; NULL is the default stream. */
typedef struct CUstream_st *kjit_stream;
/* A device address, compatible with CUdeviceptr. */
typedef uint64_t kjit_devptr;

/* Engine flags. */
#define KJIT_ENGINE_NO_GPU 0x1u /* never touch the driver: compile and cache only */

/*
 * Tuning policies of kjit_launch() for a problem that has no tuned result
 * for this device (no exact row in the database):
 *  - OFF: use what the database has (nearest problem, same arch, else the
 *    default configuration).
 *  - ONLINE: successive launches of that problem each run a configuration
 *    proposed by a search (the whole space when it fits the budget, else
 *    the configuration selected so far and a random sample seeded by the
 *    signature and the problem), timed
 *    on the GPU, until the budget is spent; the best is then written to the
 *    database and used from then on. Every launch computes the kernel's
 *    result. The trial variants are compiled on the pool at first sight.
 *  - BACKGROUND: as ONLINE, but the first launch runs the selected variant
 *    at once while a thread compiles the trial variants; the trials start
 *    once they are all compiled, so no launch waits on NVRTC for more than
 *    the first variant.
 * KJIT_TUNE_ENV (the default) reads $KJIT_TUNE=off|online|background
 * (unset: off); any other value fails kjit_engine_open() naming it.
 */
typedef enum kjit_tune_policy {
	KJIT_TUNE_ENV = 0,
	KJIT_TUNE_OFF,
	KJIT_TUNE_ONLINE,
	KJIT_TUNE_BACKGROUND
} kjit_tune_policy;

typedef struct kjit_engine_options {
	/* Database path; NULL for the default: $KJIT_DB, else
	 * $XDG_CACHE_HOME/kjit/kjit.db, else ~/.cache/kjit/kjit.db.
	 * ":memory:" keeps the second tier in memory (nothing shared). */
	const char *db_path;
	/* CUDA device ordinal (default 0). */
	int device;
	/* Target architecture such as "sm_90". NULL: $KJIT_ARCH, else the
	 * device's. One of them is required when there is no GPU; with a GPU
	 * it must be one the device runs. */
	const char *arch;
	/* Threads of the compile pool; 0 picks the number of online CPUs. */
	int compile_threads;
	/* Size cap of the binaries table in bytes; 0 keeps the default
	 * ($KJIT_CACHE_MAX_BYTES, such as "512M", else 256 MiB); least recently
	 * used go first. */
	int64_t cache_max_bytes;
	/* KJIT_ENGINE_* flags. */
	unsigned flags;
	/* How kjit_launch() treats a problem with no tuned result on this
	 * device (see kjit_tune_policy); KJIT_TUNE_ENV reads $KJIT_TUNE. */
	kjit_tune_policy tune;
	/* Online tuning budget: at most this many configurations (0: 32), each
	 * timed over this many launches (0: 3). */
	unsigned tune_variants;
	unsigned tune_samples;
	/* Drift: a memoised variant whose sampled launches (KJIT_PROFILE) run
	 * this many times slower than its stored timing is marked stale; 0
	 * keeps the default ($KJIT_DRIFT, else 1.3). */
	double drift_threshold;
} kjit_engine_options;

/* Fills *opts with the defaults (device 0, default database, arch NULL:
 * $KJIT_ARCH, else the device's). */
void kjit_engine_options_init(kjit_engine_options *opts);

/*
 * Opens an engine: the database (its folder created 0700 and the file 0600
 * when missing), then, unless KJIT_ENGINE_NO_GPU, the driver, the device
 * and its primary context. opts may be NULL for the defaults.
 *
 * The target arch is opts->arch, else $KJIT_ARCH, else the device's. When
 * the GPU cannot be had (no driver, the stub library, no device) and an
 * arch is set, the engine opens without one: kjit_engine_has_gpu() says 0
 * and kjit_engine_gpu_reason() why. Without an arch that is
 * KJIT_ERR_NO_GPU. KJIT_ERR_INVALID_ARG: an arch that is not sm_NN, an
 * arch whose cubins cannot run on the device (open with
 * KJIT_ENGINE_NO_GPU to compile for another GPU), a device ordinal the
 * driver does not have, unknown flags, KJIT_ENGINE_NO_GPU with no arch.
 *
 * *out receives an engine that the caller owns and frees with
 * kjit_engine_close(). On failure *out is NULL; the reason is available
 * through kjit_last_error().
 */
kjit_status kjit_engine_open(const kjit_engine_options *opts, kjit_engine **out);

/* Frees the engine, its kernels, variants and modules, and records in the
 * database which binaries it used (for LRU eviction). NULL is a no-op. */
void kjit_engine_close(kjit_engine *engine);

/* Detail of the last failure on the calling thread, whichever engine (or
 * none, as when kjit_engine_open() fails); never NULL; valid until the next
 * kjit call on the same thread. Read it right after the call that failed. */
const char *kjit_last_error(void);

/* Detail of the last failure on this engine, from any thread; never NULL.
 * The text is a per-thread copy, valid until the next call of this
 * function on the same thread. */
const char *kjit_engine_last_error(const kjit_engine *engine);

/* 1 when the engine can launch, 0 when it compiles only. When 0,
 * kjit_engine_gpu_reason() says why ("no driver: libcuda.so.1 not found",
 * "CUDA_ERROR_NO_DEVICE", ...). */
int kjit_engine_has_gpu(const kjit_engine *engine);
const char *kjit_engine_gpu_reason(const kjit_engine *engine);

/* The target arch ("sm_90"), the device name ("" without a GPU) and the
 * database path in use; owned by the engine. */
const char *kjit_engine_arch(const kjit_engine *engine);
const char *kjit_engine_device_name(const kjit_engine *engine);
const char *kjit_engine_db_path(const kjit_engine *engine);

/* The engine's GPU: its CUDA ordinal and the count of devices this
 * process sees, its UUID as nvidia-smi writes it ("GPU-" and 32 hex
 * digits), name, arch and device key (what tuned results are stored
 * under: arch, name, multiprocessors, driver; kjit-top and the store's
 * devices table show it), and the limits a launch meets: threads per
 * block and the shared memory a block may opt in to (static and dynamic
 * together, bytes). The strings are the engine's. KJIT_ERR_NO_GPU, naming
 * why, for an engine that compiles only. */
#define KJIT_UUID_TEXT 41
typedef struct kjit_device_info {
	int ordinal, count;
	char uuid[KJIT_UUID_TEXT];
	const char *name, *arch, *key;
	int multiprocessors;
	int max_threads_per_block;
	int max_shared_per_block;
} kjit_device_info;
kjit_status kjit_engine_device(kjit_engine *engine, kjit_device_info *out);

/* Makes the engine's context current on the calling thread. Launches do
 * this themselves; call it before using the context with other APIs. */
kjit_status kjit_engine_make_current(kjit_engine *engine);

/* Counters since the engine was opened. */
typedef struct kjit_engine_stats {
	uint64_t compiles;       /* NVRTC compilations run, failed ones included (of
	                          * variants, and of KJIT_LINK_SOURCE link inputs) */
	uint64_t memory_hits;    /* variants found in the in-process table */
	uint64_t disk_hits;      /* variants found in the database */
	uint64_t misses;         /* variants that had to be compiled */
	uint64_t corrupt;        /* stored blobs rejected (checksum, load, or a PTX the
	                            driver would not compile) */
	double compile_ms_total; /* wall time spent in NVRTC by the compiles that succeeded */
	uint64_t ptx_jits;       /* variants the driver compiled from stored PTX
	                            (KJIT_TIER_PTX): neither compiles nor misses */
	uint64_t links;          /* nvJitLink links run, failed ones included */
	double link_ms_total;    /* wall time spent in nvJitLink */
} kjit_engine_stats;

kjit_status kjit_engine_get_stats(const kjit_engine *engine, kjit_engine_stats *out);

/* 1 when status, what a call on engine returned, is its store failing for
 * good (full, read-only, an I/O error, corrupt): no later binary can be
 * kept, so compiling on is work thrown away. Else 0. */
int kjit_engine_store_broken(const kjit_engine *engine, kjit_status status);

/* A binary of the engine's store as bytes another process's engine can
 * keep, so that one process compiles for another (kjit-tune --mpi's
 * ranks): kjit_engine_binary_export() writes binary key (its whole row:
 * the kernel, options, arch, header manifest, checksum) into *blob,
 * malloc'ed (the caller frees it), and its length into *size;
 * KJIT_ERR_NOT_FOUND when the store lacks it. kjit_engine_binary_import()
 * stores such bytes, from any process, in engine's store after checking
 * them whole: KJIT_ERR_CORRUPT, naming what is wrong, for bytes that are
 * not one, and nothing stored. The key stored goes to key (33 bytes, may
 * be NULL). */
kjit_status kjit_engine_binary_export(kjit_engine *engine, const char *key, void **blob,
                                      size_t *size);
kjit_status kjit_engine_binary_import(kjit_engine *engine, const void *blob, size_t size,
                                      char *key);

/*
 * Kernels. A kernel is CUDA C++ source and the name of its entry point
 * (an extern "C" function name or a C++ name expression such as
 * "scale<float>"). The signature is a hash of the name, the source text and
 * the names of the kernel's tunable parameters (param_names, may be NULL
 * when n_params is 0). The kernel belongs to the engine.
 */
kjit_status kjit_kernel_create(kjit_engine *engine, const char *name,
                               const char *source, const char *const *param_names,
                               size_t n_params, kjit_kernel **out);

/* As kjit_kernel_create(), reading the source from path. */
kjit_status kjit_kernel_create_from_file(kjit_engine *engine, const char *name,
                                         const char *path,
                                         const char *const *param_names,
                                         size_t n_params, kjit_kernel **out);

/*
 * What a kernel's compile reads besides its source, and what its variants
 * are linked with.
 *
 * Headers: #include "name" and #include <name> are looked up in the
 * in-memory headers (by exact name), then in include_dirs in order, then
 * in the toolkit's own headers (CCCL: cub/, thrust/, cuda/std/, and the
 * CUDA headers, with kjit's stand-ins for the C and C++ standard headers
 * that NVRTC lacks: math.h, cstdint, type_traits, ...; kjit(3)) unless
 * no_default_includes is set. Every header a compile
 * actually reads enters the variant's binary key by its content, so an
 * edited header gives a new key and a stale binary is never loaded.
 *
 * Linking (JIT LTO): with link inputs, each variant is compiled to LTO IR
 * (-dlto -rdc) and linked at run time with nvJitLink against the inputs;
 * the linked cubin is cached under a key that covers the variant's key,
 * the content of every input and the link options. A kernel created with
 * the same source and other inputs reuses the stored LTO IR: only the
 * link runs again.
 */
typedef struct kjit_header {
	const char *name; /* as written in #include: "tile.cuh", "lib/ops.h" */
	const char *text; /* its content */
} kjit_header;

typedef enum kjit_link_kind {
	KJIT_LINK_LTOIR = 1, /* LTO IR (nvcc -dlto -ltoir, or NVRTC -dlto) */
	KJIT_LINK_CUBIN,     /* a relocatable cubin (nvcc -rdc -cubin) */
	KJIT_LINK_FATBIN,    /* a fatbin of either */
	KJIT_LINK_OBJECT,    /* a host object with embedded device code (nvcc -dc) */
	KJIT_LINK_LIBRARY,   /* a static library of such objects */
	KJIT_LINK_PTX,       /* PTX text */
	KJIT_LINK_SOURCE     /* CUDA source, compiled by kjit with -dlto -rdc (cached) */
} kjit_link_kind;

typedef struct kjit_link_input {
	kjit_link_kind kind;  /* 0: implied by the ending of path (.ltoir, .lto, .cubin,
	                       * .fatbin, .o, .obj, .a, .lib, .ptx, .cu, .cuh) */
	const char *name;     /* names the input in messages and the nvJitLink log */
	const void *data;     /* the bytes (source text for KJIT_LINK_SOURCE), or NULL */
	size_t size;          /* bytes of data; 0 with data for a NUL-terminated text */
	const char *path;     /* read from this file when data is NULL */
} kjit_link_input;

typedef struct kjit_kernel_options {
	const char *const *include_dirs; /* searched in order */
	size_t n_include_dirs;
	const kjit_header *headers;
	size_t n_headers;
	int no_default_includes;         /* 1: do not search the toolkit's headers */
	const kjit_link_input *link;     /* none: whole-program compile, no link */
	size_t n_link;
	const char *const *link_options; /* nvJitLink options ("-O3", "-lineinfo"); the
	                                  * engine adds -arch */
	size_t n_link_options;
} kjit_kernel_options;

/* Zeroes *opts: no headers, the toolkit's includes, no link. */
void kjit_kernel_options_init(kjit_kernel_options *opts);

/*
 * As kjit_kernel_create(), with headers and link inputs (opts may be NULL:
 * as kjit_kernel_create()). Everything opts points to is copied (files
 * named by a link input are read now). The source is source, or the file
 * at path when source is NULL (NVRTC's messages then name it, and
 * #include "..." searches the file's folder after the in-memory headers
 * and before the include dirs).
 * KJIT_ERR_INVALID_ARG: a header with no name or text, two headers of one
 * name, an unknown link kind (or none that the path implies), an empty
 * link input, a link option that sets -arch, link options without
 * inputs; KJIT_ERR_IO: a link input or source that cannot be read;
 * KJIT_ERR_COMPILE: a KJIT_LINK_SOURCE input that NVRTC rejects (it is
 * compiled now, for the engine's arch, and its LTO IR cached); each names
 * the input.
 */
kjit_status kjit_kernel_create_with(kjit_engine *engine, const char *name, const char *source,
                                    const char *path, const char *const *param_names,
                                    size_t n_params, const kjit_kernel_options *opts,
                                    kjit_kernel **out);

/*
 * Module variables. Sets the __constant__ or __device__ variable named
 * symbol of every module of kernel to size bytes from data (copied: the
 * caller keeps data). symbol is the name in the module: a variable at
 * global namespace scope is found by its own name (C++ does not mangle
 * those); one inside a namespace needs its mangled name. Applied
 * now to each variant already loaded and later to each one as it is
 * loaded (kjit_variant_get(), kjit_launch()), in order, before its first
 * launch; setting the same symbol again replaces the data everywhere.
 * The call waits for the work in flight in the engine's context before it
 * writes and for its writes before it returns: launches made before it
 * read the old data, launches after it the new, on any stream.
 * A loaded variant that has no such symbol gives KJIT_ERR_NOT_FOUND, one
 * whose variable is smaller than size KJIT_ERR_INVALID_ARG (smaller data
 * fills the variable's first size bytes), both naming the
 * variable and the variant's key, and nothing changes; a variant loaded
 * later fails to load (kjit_variant_get()) in the same way. Without a GPU
 * the data is kept for later loads and KJIT_OK returned. NULL or empty
 * arguments, or a size of 0, are KJIT_ERR_INVALID_ARG.
 */
kjit_status kjit_kernel_set_symbol(kjit_kernel *kernel, const char *symbol, const void *data,
                                   size_t size);

/*
 * Argument checking. The arguments a caller will pass to every launch of
 * kernel, in order: a name and a type for messages ("x", "float *") and
 * the bytes the launch passes (8 for a device pointer). Each variant the
 * kernel loads afterwards has its parameters (cuFuncGetParamInfo, CUDA
 * 12.4 and later) compared with them; a difference fails the load with
 * KJIT_ERR_INVALID_ARG and the two lists side by side, a mark on each row
 * that differs. Copied. Call it before the kernel's first variant loads;
 * KJIT_ERR_INVALID_ARG: a NULL or empty name or type, a size of 0, a
 * kernel that already expects arguments (a kernel from a spec expects
 * the spec's).
 */
typedef struct kjit_arg {
	const char *name;
	const char *type;
	size_t size;
} kjit_arg;

kjit_status kjit_kernel_expect_args(kjit_kernel *kernel, const kjit_arg *args, size_t n);
/* 1 once the argument check refused a variant of kernel: the expected
 * arguments do not fit the kernel's parameters, so no variant of it
 * launches with them. Else 0. */
int kjit_kernel_args_refused(const kjit_kernel *kernel);

/* The kernel signature as 32 hex digits; owned by the kernel. */
const char *kjit_kernel_signature(const kjit_kernel *kernel);

/* A -D define: -Dname=value, or -Dname when value is NULL. */
typedef struct kjit_define {
	const char *name;
	const char *value;
} kjit_define;

/* What makes a variant: defines and extra NVRTC flags (for example
 * "--use_fast_math", "-maxrregcount=64"). The engine adds -arch. The order
 * of defines does not matter; the order of flags does. */
typedef struct kjit_variant_desc {
	const kjit_define *defines;
	size_t n_defines;
	const char *const *flags;
	size_t n_flags;
} kjit_variant_desc;

/* How a variant was obtained by the call that returned it. */
typedef enum kjit_cache_tier {
	KJIT_TIER_MEMORY = 0, /* in-process table */
	KJIT_TIER_DISK,       /* the database */
	KJIT_TIER_COMPILED,   /* a miss: NVRTC ran (and nvJitLink, for a kernel with links) */
	KJIT_TIER_PTX         /* the database had no cubin for this arch, only the PTX of a
	                       * virtual arch: the driver compiled it, and its cubin is stored */
} kjit_cache_tier;

/*
 * Returns the variant of a kernel for desc: from the in-process table, else
 * the database (checksum verified), else compiled with NVRTC and stored.
 * With a GPU the module is loaded and the function resolved, so the
 * variant is ready to launch; a stored binary that fails to load is
 * recompiled and replaced. tier (may be NULL) says where it came from.
 *
 * On a compile error returns KJIT_ERR_COMPILE with the full NVRTC log in
 * the last error; on a link error (a kernel with link inputs)
 * KJIT_ERR_LINK with nvJitLink's error and info logs and the inputs
 * named. The variant belongs to the engine.
 */
kjit_status kjit_variant_get(kjit_kernel *kernel, const kjit_variant_desc *desc,
                             kjit_variant **out, kjit_cache_tier *tier);

/*
 * As kjit_variant_get() without compiling: the variant from the
 * in-process table or the database, else KJIT_ERR_NOT_FOUND (nothing
 * compiled, nothing stored), for a caller that compiles elsewhere (a pool
 * of its own, another machine) or wants only what is ready.
 */
kjit_status kjit_variant_cached(kjit_kernel *kernel, const kjit_variant_desc *desc,
                                kjit_variant **out, kjit_cache_tier *tier);

/*
 * Gets n variants at once, compiling the misses on the engine's compile
 * pool. out[i] and status[i] (both arrays of n, caller-allocated) receive
 * each variant or its failure; out[i] is NULL where status[i] is not
 * KJIT_OK. threads overrides the pool size for this call (0: the engine's).
 * Returns KJIT_OK when every variant was obtained, else the first failure.
 * When errors (an array of n) is non-NULL, errors[i] receives the detail of
 * each failure as a malloc'ed string, or NULL; the caller frees them.
 */
kjit_status kjit_variants_get(kjit_kernel *kernel, const kjit_variant_desc *descs,
                              size_t n, int threads, kjit_variant **out,
                              kjit_status *status, char **errors);

/* What a variant's binary is: a cubin for a real arch (sm_NN), the PTX
 * text of a virtual one (compute_NN, an engine opened with
 * KJIT_ENGINE_NO_GPU to fill a database for other GPUs). */
typedef enum kjit_binary_kind {
	KJIT_BINARY_CUBIN = 0,
	KJIT_BINARY_PTX
} kjit_binary_kind;
/* What the engine's variants are: PTX for a virtual arch
 * ("compute_90", kjit_engine_arch()), else cubins. */
kjit_binary_kind kjit_engine_binary_kind(const kjit_engine *engine);

typedef struct kjit_variant_info {
	const char *key;        /* binary key, 32 hex digits */
	const char *options;    /* the canonical NVRTC option list, one per line */
	const char *lowered_name; /* the symbol loaded from the module */
	size_t cubin_size;      /* bytes of the binary (a cubin, or PTX with its NUL) */
	double compile_ms;      /* NVRTC time when it was compiled (any process); the
	                           driver's for a cubin made from PTX; NVRTC's and
	                           nvJitLink's for a variant of a kernel with links */
	int num_regs;           /* registers per thread, -1 without a GPU */
	int max_threads_per_block; /* -1 without a GPU */
	int static_shared_bytes;   /* -1 without a GPU */
	const char *arch;       /* the target: the engine's arch ("sm_90", "compute_90") */
	kjit_binary_kind kind;  /* what kjit_variant_cubin() gives */
} kjit_variant_info;

/* Strings in *out are owned by the variant. */
kjit_status kjit_variant_get_info(const kjit_variant *variant, kjit_variant_info *out);

/* The binary's bytes (owned by the variant) and their size: the cubin,
 * or for an engine of a virtual arch the PTX text, NUL included
 * (kjit_variant_info.kind says which). */
kjit_status kjit_variant_cubin(const kjit_variant *variant, const void **data,
                               size_t *size);

/* The loaded CUfunction, as a void pointer (KJIT_ERR_NO_GPU without one). */
kjit_status kjit_variant_function(kjit_variant *variant, void **cufunction);

/*
 * Launches a variant: grid and block dimensions (3 each), dynamic shared
 * memory in bytes, a stream (NULL: default stream) and the kernel argument
 * array as for cuLaunchKernel (an array of pointers to each argument).
 * Asynchronous; a launch refused by the driver returns KJIT_ERR_LAUNCH with
 * the CUDA error name. Dynamic shared memory may pass the default limit
 * per block (48 KiB with the function's static shared memory): the first
 * launch that needs it opts the function in to the device's maximum
 * (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 227 KiB on an
 * H100 or H200); static plus dynamic beyond that is KJIT_ERR_LAUNCH with
 * the numbers.
 */
kjit_status kjit_variant_launch(kjit_variant *variant, const unsigned grid[3],
                                const unsigned block[3], unsigned shared_bytes,
                                kjit_stream stream, void **args);

/*
 * Measuring a variant (the instrumentation layer): GPU time of the kernel
 * alone, from CUPTI activity records (CUDA events when another profiler
 * holds CUPTI). Warm-up by time, then repetitions until the 95% confidence
 * interval of the median is within target_rel_ci of it, or a cap; with a
 * budget, once budget_ms of repetitions and 6 samples are spent; with
 * early stop, once certainly slower than the best (racing: from the first
 * sample, against a margin from the best's noise).
 */
typedef struct kjit_measure_options {
	double target_rel_ci;     /* default 0.01 */
	double warmup_ms;         /* default 20 */
	double max_ms;            /* time cap of the timed phase, default 2000 */
	unsigned min_samples;     /* default 10 */
	unsigned max_samples;     /* default 10000 */
	int cold_l2;              /* 1: overwrite twice the L2 before each launch */
	double best_ns;           /* the best median so far, for early stop; 0: none */
	double early_stop_factor; /* stop once certainly slower than best_ns x this; 0: off */
	double best_hi_ns;        /* the best's ci_high_ns: with early stop, stop once the
	                             interval is above it; 0: unknown */
	double budget_ms;         /* stop once this much timed phase and 6 samples are
	                             spent; default 100, 0: off */
	double warmed_ms;         /* the caller ran the kernel for this long just before
	                             (a checked run): counted as warm-up, none when it
	                             covers warmup_ms; default 0 */
	double best_spread_ns;    /* the best's spread_ns (or that of kernels of its
	                             length): racing's margin; 0: unknown (5% assumed) */
	int no_warmup;            /* 1: no warm-up, the first launch is timed (a checked
	                             run: max_samples 1 times exactly the launch whose
	                             output the caller then compares); default 0 */
	const double *prior_ns;   /* n_prior samples of this launch the caller timed
	                             already (a checked run's, measured so): they are the
	                             first samples, and the stopping rule judges them
	                             before anything runs, so that racing can stop a
	                             configuration on them alone; default none */
	unsigned n_prior;
} kjit_measure_options;

void kjit_measure_options_init(kjit_measure_options *opts);

typedef struct kjit_measurement {
	double median_ns, spread_ns; /* spread: 1.4826 x median absolute deviation */
	double min_ns, max_ns;
	double ci_low_ns, ci_high_ns; /* 95% confidence interval of the median */
	size_t n_samples;
	double *samples_ns;           /* every sample, in launch order; malloc'ed */
	const char *timer;            /* "cupti" or "events"; static */
	const char *stop;             /* "converged", "time_cap", "count_cap",
	                                 "stopped_early" or "budget"; static */
	int cold_l2;
	double wall_ms;               /* warm-up and timed phase */
	double warmup_ms;             /* of wall_ms, the warm-up */
} kjit_measurement;

/*
 * Measures a variant with the launch configuration and arguments of
 * kjit_variant_launch(). The arguments must leave the kernel safe to run
 * many times. *out owns samples_ns: free it with kjit_measurement_free().
 */
kjit_status kjit_variant_measure(kjit_variant *variant, const unsigned grid[3],
                                 const unsigned block[3], unsigned shared_bytes,
                                 kjit_stream stream, void **args,
                                 const kjit_measure_options *opts, kjit_measurement *out);
void kjit_measurement_free(kjit_measurement *m);

/*
 * Tunable kernels: a kernel with its space of configurations, launched by
 * problem size through kjit_launch(), which picks the variant from the
 * database. The model is the one of a kjit-tune spec (doc/spec-format.md):
 * parameters with value lists and roles, restrictions, grid and shared
 * memory formulas over the parameters and the problem sizes.
 */

/* Roles of a parameter; one parameter may have several. 0 means DEFINE. */
#define KJIT_ROLE_BLOCK_X 0x1u /* the block's x dimension (values: integers >= 1) */
#define KJIT_ROLE_BLOCK_Y 0x2u
#define KJIT_ROLE_BLOCK_Z 0x4u
#define KJIT_ROLE_DEFINE 0x8u  /* -DNAME=value */
#define KJIT_ROLE_FLAGS 0x10u  /* the value is NVRTC flags, split on spaces */

typedef struct kjit_param {
	const char *name;           /* an identifier */
	const char *const *values;  /* as text: "128", "0.5", "--use_fast_math" */
	size_t n_values;
	size_t default_index;       /* the default configuration's value */
	unsigned roles;             /* KJIT_ROLE_* */
} kjit_param;

/*
 * A grid callback, called when a configuration is first chosen for a
 * problem (never on a memoised launch): problem[] holds the sizes in the
 * order of the description's problem_names, config[i] the value of
 * parameter i as an integer (0 for a value that is not one). Fills
 * grid[3]; returns 0, or nonzero to refuse the configuration.
 */
typedef int (*kjit_grid_fn)(const int64_t *problem, const int64_t *config, unsigned grid[3],
                            void *user);

typedef struct kjit_tunable_desc {
	const char *entry;        /* the entry point, as for kjit_kernel_create() */
	const char *source;       /* source text, or NULL to read source_path */
	const char *source_path;
	const kjit_param *params;
	size_t n_params;
	const char *const *restrictions; /* expressions that must hold ("BLOCK*ITEMS <= 4096") */
	size_t n_restrictions;
	const char *grid[3];      /* expressions; NULL is "1" */
	kjit_grid_fn grid_fn;     /* used instead of grid[] when set */
	void *grid_user;
	const char *shared;       /* dynamic shared memory bytes, an expression; NULL is "0" */
	const char *const *flags; /* fixed NVRTC flags of every variant */
	size_t n_flags;
	const char *const *problem_names; /* the sizes that key the selection ("n", or "m","n","k") */
	size_t n_problem;
	const kjit_kernel_options *options; /* headers and link inputs; NULL: none */
} kjit_tunable_desc;

/*
 * Creates a tunable kernel from a description. Expressions use the syntax
 * of spec files and may name the parameters and the problem sizes; a bad
 * one is KJIT_ERR_INVALID_ARG naming the field. The signature is the one
 * kjit-tune gives the same kernel described by a spec (entry, source text,
 * parameter names), so results tuned by kjit-tune are found. The
 * description is copied; the kernel belongs to the engine.
 */
kjit_status kjit_kernel_create_tunable(kjit_engine *engine, const kjit_tunable_desc *desc,
                                       kjit_kernel **out);

/*
 * Creates a tunable kernel from a kjit-tune spec file (kjit or T1 format).
 * The problem sizes are those of the spec's first problem, in the order
 * the spec writes them ({"m": .., "n": .., "k": ..} gives m, n, k).
 */
kjit_status kjit_kernel_create_from_spec(kjit_engine *engine, const char *spec_path,
                                         kjit_kernel **out);

/* The problem size names of a tunable kernel, in kjit_launch() order
 * (owned by the kernel), and their count; NULL and 0 for a plain kernel. */
const char *const *kjit_kernel_problem_names(const kjit_kernel *kernel, size_t *n);

/*
 * Specs and their search spaces, read as kjit-tune reads them, with no
 * engine, GPU or NVRTC: a kjit or T1 spec (kjit-spec(5)), its tunable
 * parameters and problems, and per problem the configurations that its
 * restrictions and limits allow. A spec error is KJIT_ERR_INVALID_ARG
 * (KJIT_ERR_IO for a file that cannot be read) with "FILE: FIELD: ..." in
 * kjit_last_error(). *out is NULL on failure; the caller frees the spec
 * with kjit_spec_free() after every space built from it (NULL is
 * ignored). A spec and its spaces may be read from several threads.
 */
typedef struct kjit_spec kjit_spec;
kjit_status kjit_spec_load(const char *path, kjit_spec **out);
void kjit_spec_free(kjit_spec *spec);

/* Lines ("FILE: FIELD: ...") about fields read but unused or unknown
 * (T1's), owned by the spec; their count in *n. */
const char *const *kjit_spec_warnings(const kjit_spec *spec, size_t *n);

/* A parameter value: its text is canonical, the -D value of a variant
 * ("64", "0.5"; T1's as Python's str() writes it, a T1 bool's as 1 or 0);
 * i holds an integer's value, d a number's. Owned by the spec. */
typedef enum kjit_value_type {
	KJIT_VALUE_INT = 1,
	KJIT_VALUE_FLOAT,
	KJIT_VALUE_TEXT
} kjit_value_type;
typedef struct kjit_value {
	const char *text;
	kjit_value_type type;
	int64_t i;
	double d;
} kjit_value;

/* The tunable parameters in the spec's order. kjit_spec_param() gives
 * parameter i's name (owned by the spec), its value count and its
 * default value's index; kjit_spec_value() value j of parameter i.
 * KJIT_ERR_INVALID_ARG for an index out of range. */
size_t kjit_spec_param_count(const kjit_spec *spec);
kjit_status kjit_spec_param(const kjit_spec *spec, size_t i, const char **name,
                            size_t *n_values, size_t *default_index);
kjit_status kjit_spec_value(const kjit_spec *spec, size_t i, size_t j, kjit_value *out);

/* The problems (named sizes, kjit_launch()'s order): problem p's names
 * and values (owned by the spec) and their count. */
size_t kjit_spec_problem_count(const kjit_spec *spec);
kjit_status kjit_spec_problem(const kjit_spec *spec, size_t p, const char *const **names,
                              const int64_t **values, size_t *n);
/* Problem p as text, malloc'ed into *out (the caller frees it): as the
 * store keeps it (KJIT_PROBLEM_JSON: {"m":1024,"n":512}, sorted keys, as
 * kjit_run_desc.problem and kjit_record_best() take it), or as messages
 * name it (KJIT_PROBLEM_KEY: "n=512,m=1024", the spec's order; "" for a
 * spec without problem sizes). */
typedef enum kjit_problem_form { KJIT_PROBLEM_JSON, KJIT_PROBLEM_KEY } kjit_problem_form;
kjit_status kjit_spec_problem_text(const kjit_spec *spec, size_t p, kjit_problem_form form,
                                   char **out);

/* The kernel signature the store keeps the spec's results under (as
 * kjit_kernel_signature() of the kernel kjit_kernel_create_from_spec()
 * makes of it: its entry, source text and parameter names), with no
 * engine; *out is malloc'ed (the caller frees it). KJIT_ERR_IO when the
 * source cannot be read. */
kjit_status kjit_spec_signature(const kjit_spec *spec, char **out);

/*
 * The kernel a loaded spec describes (kjit_spec_load()), as a
 * plain kernel whose variants kjit_variant_get() compiles with the
 * spec's parameters as defines: its entry, source, parameter names,
 * headers and link inputs, and, where the spec gives its arguments,
 * those arguments expected (kjit_kernel_expect_args()). With reference
 * set, the spec's reference kernel instead. The engine owns *out.
 * KJIT_ERR_INVALID_ARG: a NULL argument, a spec that cannot be compiled
 * (a T1 language other than CUDA, said), no reference kernel to make;
 * KJIT_ERR_IO: its source cannot be read.
 */
kjit_status kjit_spec_kernel(kjit_engine *engine, const kjit_spec *spec, int reference,
                             kjit_kernel **out);

/* How a space is built and counted: the spec's limits (0: the spec's own,
 * else its defaults of 1024 threads and 227 KiB of dynamic shared memory
 * per block), and for a space too large to hold whole, a uniform random
 * sample of at most sample valid configurations drawn from seed (0:
 * refused, naming its size). */
typedef struct kjit_space_options {
	int64_t max_threads;
	int64_t max_shared;
	size_t sample;
	uint64_t seed;
} kjit_space_options;
void kjit_space_options_init(kjit_space_options *opts);

/* A space's size without building it: the product of the parameters'
 * value counts, and the valid configurations, exact (rel_error 0) when
 * the walk could be made within about ten seconds, else estimated from
 * random draws with their relative standard error (INFINITY when the draws
 * found none, with upper the count's 95% bound). */
typedef struct kjit_space_count {
	double product;
	double valid;
	double rel_error;
	double upper;
} kjit_space_count;
kjit_status kjit_spec_count(const kjit_spec *spec, size_t problem,
                            const kjit_space_options *opts, kjit_space_count *out);

/*
 * The valid configurations of a problem, in the order of the parameters'
 * value lists (or a sample of them, see kjit_space_options; opts NULL:
 * the defaults). KJIT_ERR_INVALID_ARG for a problem out of range, a space
 * with no valid configuration or one too large to hold (naming why). The
 * caller frees *out with kjit_space_free() (NULL is ignored).
 */
typedef struct kjit_space kjit_space;
kjit_status kjit_space_build(const kjit_spec *spec, size_t problem,
                             const kjit_space_options *opts, kjit_space **out);
void kjit_space_free(kjit_space *space);
/* The configurations it holds; 1 in *sampled when they are a sample. */
size_t kjit_space_size(const kjit_space *space, int *sampled);
/* Configuration index as one value index per parameter, into
 * values[kjit_spec_param_count()]. */
kjit_status kjit_space_config(const kjit_space *space, size_t index, size_t *values);
/* The index of a configuration given as value indices; KJIT_ERR_NOT_FOUND
 * when the space does not hold it. */
kjit_status kjit_space_find(const kjit_space *space, const size_t *values, size_t *index);
/* The index of a configuration written as text (a CSV row, a results
 * file, a cache of another tuner): value(ctx, i) gives parameter i's
 * value as text (NULL: none; valid until the next call), asked for every
 * parameter in order, also after one that does not match; numbers
 * compare by value ("4.0" is 4). KJIT_ERR_NOT_FOUND when a value is none
 * or not among its parameter's, or the space does not hold the
 * configuration. */
typedef const char *(*kjit_space_text_fn)(void *ctx, size_t i);
kjit_status kjit_space_find_text(const kjit_space *space, kjit_space_text_fn value, void *ctx,
                                 size_t *index);
/* Configuration index as JSON as the store keeps it ({"NAME":value,...},
 * sorted keys, no spaces: kjit_eval.config, kjit_explanation.config),
 * malloc'ed into *out: the caller frees it. */
kjit_status kjit_space_config_json(const kjit_space *space, size_t index, char **out);

/*
 * A configuration as something to compile and launch: the variant
 * description of its values (the spec's defines and flags, as
 * kjit_variant_get() takes it), its launch geometry for a problem, and
 * the value of the spec's expressions for it. values holds one value
 * index per parameter (kjit_space_config()'s); NULL stands for each
 * parameter's default. The values need not be in a space (a default may
 * break a restriction). The configuration keeps a pointer to spec,
 * which must outlive it; the caller frees *out with kjit_config_free()
 * (NULL is ignored). KJIT_ERR_INVALID_ARG, naming the parameter, for a
 * value index out of range.
 */
typedef struct kjit_config kjit_config;
kjit_status kjit_config_new(const kjit_spec *spec, const size_t *values, kjit_config **out);
void kjit_config_free(kjit_config *config);
/* Owned by the configuration. */
const kjit_variant_desc *kjit_config_variant(const kjit_config *config);
/* Grid, block and dynamic shared memory (bytes) for problem: the spec's
 * formulas, a block dimension without one from the parameters' roles.
 * KJIT_ERR_INVALID_ARG naming the formula whose value is no launch
 * dimension. Parsed on each call: meant once per configuration, not per
 * launch. */
kjit_status kjit_config_dims(const kjit_config *config, size_t problem, unsigned grid[3],
                             unsigned block[3], unsigned *shared);

/* The value of a spec expression (an argument's size or value, an
 * objective formula) for problem and, when config is not NULL, that
 * configuration (of this spec); without one a parameter's name stands
 * for its whole list, as T1's argument sizes read "max(filter_width)".
 * what names the expression in messages. A NaN is an error. */
kjit_status kjit_spec_eval(const kjit_spec *spec, size_t problem, const kjit_config *config,
                           const char *expr, const char *what, double *out);
/* A generator: expr over i (0 to n - 1) and problem's sizes, parsed
 * once, each value handed to each(ctx, i, value) in order; the first
 * status other than KJIT_OK ends it and is returned. An evaluation's
 * failure sets *failed_at to its i (failed_at may be NULL); any other
 * outcome leaves SIZE_MAX there. */
typedef kjit_status (*kjit_spec_each)(void *ctx, size_t i, double value);
kjit_status kjit_spec_generate(const kjit_spec *spec, size_t problem, const char *expr,
                               const char *what, size_t n, kjit_spec_each each, void *ctx,
                               size_t *failed_at);

/*
 * Search: a strategy proposes configurations of a space and hears their
 * objective (lower is better), the search kjit-tune runs, for a front end
 * that measures on its own. A kjit_strategy is a strategy with its
 * settings, checked once; each space is then searched with
 * kjit_search_start(), asking for configurations and telling their
 * objective. A kjit_strategy is read-only once made (searches may share
 * it); a kjit_search is one thread's.
 */
typedef struct kjit_strategy kjit_strategy;

/* The strategy kjit_strategy_new() takes for a limited run that names
 * none (doc/kjit-tune.1 says why this one). */
#define KJIT_STRATEGY_DEFAULT "hybrid"
/* The most settings a strategy takes. */
#define KJIT_STRATEGY_SETTINGS_MAX 32

/* The strategies kjit has: kjit_strategy_count() of them, each by index
 * with its name, a line that sums it up and its settings with their
 * defaults ("NAME=VALUE NAME=VALUE", "" for none), malloc'ed into
 * *settings (settings NULL: not wanted): the caller frees it.
 * KJIT_ERR_NOT_FOUND past the last. */
size_t kjit_strategy_count(void);
kjit_status kjit_strategy_describe(size_t i, const char **name, const char **summary,
                                   char **settings);
/* The name of the strategy that name is, given as kjit's name or as a
 * T1 Search.Name (brute_force, genetic_algorithm, ...); NULL when it is
 * neither. */
const char *kjit_strategy_canonical(const char *name);

/* What a strategy is made of. */
typedef struct kjit_strategy_options {
	/* kjit's name or a T1 name; NULL: the spec's Search.Name, else
	 * KJIT_STRATEGY_DEFAULT when limited, else "exhaustive" */
	const char *name;
	/* the spec whose Search.Attributes set the strategy's options when
	 * it is the spec's strategy (NULL: none) */
	const kjit_spec *spec;
	/* 1 when a budget limits the run */
	int limited;
	/* "NAME=VALUE" each, after the spec's; at most
	 * KJIT_STRATEGY_SETTINGS_MAX */
	const char *const *settings;
	size_t n_settings;
	/* what messages call the settings (NULL: "setting") */
	const char *settings_from;
} kjit_strategy_options;
void kjit_strategy_options_init(kjit_strategy_options *opts);

/* Whose setting a strategy refused. */
typedef enum kjit_strategy_fault {
	KJIT_STRATEGY_FAULT_NONE = 0,
	KJIT_STRATEGY_FAULT_NAME,     /* opts->name is no strategy */
	KJIT_STRATEGY_FAULT_SPEC,     /* the spec's strategy or its Search.Attributes */
	KJIT_STRATEGY_FAULT_SETTINGS  /* opts->settings (or they with the spec's) */
} kjit_strategy_fault;

/* Makes the strategy opts describes, its settings checked: the spec's
 * attributes, then opts->settings, then all of them together.
 * KJIT_ERR_INVALID_ARG naming the setting and the strategy's settings,
 * with *fault (NULL: not said) saying whose it is. The spec's attributes
 * that are not the strategy's are not used: kjit_strategy_warnings() says
 * which. The caller frees *out with kjit_strategy_free() (NULL is
 * ignored); the spec may be freed before it. */
kjit_status kjit_strategy_new(const kjit_strategy_options *opts, kjit_strategy **out,
                              kjit_strategy_fault *fault);
void kjit_strategy_free(kjit_strategy *strategy);
const char *kjit_strategy_name(const kjit_strategy *strategy);
/* 1 when the strategy proposes without waiting for results, so that a
 * driver may compile a window of proposals ahead of the measurements. */
int kjit_strategy_ahead(const kjit_strategy *strategy);
/* The lines of what the strategy did not use, in order (*n of them;
 * owned by the strategy). */
const char *const *kjit_strategy_warnings(const kjit_strategy *strategy, size_t *n);

/*
 * A search of space by strategy, with a budget of evaluations (0: the
 * space's size; the strategy may shape its schedule with it) and a seed
 * (the same seed, the same answers: the same proposals).
 * kjit_search_ask() gives the next configuration's index in *index, or
 * KJIT_SEARCH_WAIT when the strategy needs results first, or
 * KJIT_SEARCH_END when it is done (then for good). Every index asked
 * is told exactly once, with kjit_search_tell(): its objective, lower is
 * better, INFINITY (or NaN) for a failure; with B results outstanding (1 ..
 * KJIT_SEARCH_BATCH_MAX workers measuring) they may be told in any
 * order. A strategy may propose a configuration it proposed before: tell
 * it the objective already known (without measuring it again), or for
 * one still outstanding, when its result comes. A driver ends a search
 * whose last KJIT_SEARCH_STUCK_REPEATS proposals were all known.
 * KJIT_ERR_INVALID_ARG for a strategy that breaks this contract (a wait
 * with nothing outstanding, an index outside the space) and for a tell
 * of a configuration not outstanding (never asked for, or told already). The space must outlive the search; the caller
 * frees *out with kjit_search_free() (NULL is ignored).
 */
typedef struct kjit_search kjit_search;
#define KJIT_SEARCH_END (-1)
#define KJIT_SEARCH_WAIT (-2)
#define KJIT_SEARCH_BATCH_MAX 64
#define KJIT_SEARCH_STUCK_REPEATS 10000
kjit_status kjit_search_start(const kjit_strategy *strategy, const kjit_space *space,
                              size_t budget, uint64_t seed, kjit_search **out);
kjit_status kjit_search_ask(kjit_search *search, int64_t *index);
kjit_status kjit_search_tell(kjit_search *search, size_t index, double objective);
void kjit_search_free(kjit_search *search);

/*
 * Launches a tunable kernel for a problem (n sizes, in the kernel's
 * order) with the kernel argument array of cuLaunchKernel, on stream.
 * The first launch of a problem chooses the configuration (exact problem
 * on this device; else the nearest tuned problem on this device, by the
 * sum over the sizes of |log a - log b|; else the nearest on another
 * device of the same architecture; else the default configuration),
 * compiles or loads its variant through the cache and memoises the
 * launch; a repeat launch is a hash lookup and cuLaunchKernel. Rows of
 * another NVRTC version, stale rows and configurations outside the
 * kernel's space are never chosen. The shared memory formula may ask for
 * more than 48 KiB as with kjit_variant_launch(); the space keeps the
 * configurations whose dynamic shared memory the device allows (and the
 * spec's limits.max_shared_bytes, for a kernel from a spec). Thread-safe.
 * Module variables set with kjit_kernel_set_symbol() reach every variant
 * it loads. KJIT_ERR_INVALID_ARG: not
 * a tunable kernel, a wrong size count, a problem with no valid
 * configuration; KJIT_ERR_LAUNCH: the driver refused the launch.
 */
kjit_status kjit_launch(kjit_kernel *kernel, const int64_t *problem, size_t n, void **args,
                        kjit_stream stream);

/* What kjit_launch() runs for a problem, and why. */
typedef struct kjit_explanation {
	const char *rule;       /* "exact", "nearest", "same_arch", "default" or "online" */
	const char *config;     /* the configuration, JSON with sorted keys */
	double median_ns;       /* its stored timing; NAN for the default */
	int stale;              /* its timing drifted (or the row was marked stale) */
	int tuning;             /* online tuning of this problem is under way */
	const char *problem;    /* JSON of the problem it was tuned for; "" for the default */
	const char *device_key; /* the device it was tuned on ("sm_90|NAME|SMs|driver"); "" */
	/* the chosen row's profile as kjit-tune --profile stored it (the figures
	 * of kjit_variant_profile(), below); NULL when none was stored */
	const struct kjit_profile *profile;
} kjit_explanation;

/*
 * Fills *out for a problem, choosing (and memoising) as the first
 * kjit_launch() would, without compiling or launching; works without a
 * GPU. The strings are owned by the kernel and valid until
 * kjit_engine_close().
 */
kjit_status kjit_explain(kjit_kernel *kernel, const int64_t *problem, size_t n,
                         kjit_explanation *out);

/*
 * The store: the SQLite database of an engine (kjit_engine_options.db_path)
 * that keeps the compiled binaries and the tuning records that kjit-tune
 * and online tuning write: runs, results, best rows and profiles.
 */

/* The store's default path: $KJIT_DB, else $XDG_CACHE_HOME/kjit/kjit.db
 * (an absolute XDG_CACHE_HOME), else $HOME/.cache/kjit/kjit.db, into *out,
 * malloc'ed (the caller frees it). KJIT_ERR_INVALID_ARG: out is NULL, or
 * none of the three is set. */
kjit_status kjit_store_default_path(char **out);

/* The checks that kjit_engine_open() makes of a store's path, creating
 * nothing: SQLite reads it as the file of that name (not empty, no
 * "file:" URI); its folder, the database and the database's side files
 * belong to the user or root and no one else may write them (a sticky
 * folder aside); a database there has kjit's schema, of this version or
 * an older one it migrates. ":memory:" passes. KJIT_OK where an engine
 * may create or open its store; else the status of the first check that
 * failed, with a message that names it. */
kjit_status kjit_store_check_path(const char *path);

/* How a configuration's evaluation ended, as the store's results keep
 * it; the comment gives the stored word. */
typedef enum kjit_result_status {
	KJIT_RESULT_OK,            /* "ok": measured */
	KJIT_RESULT_COMPILE_ERROR, /* "compile_error" */
	KJIT_RESULT_LAUNCH_ERROR,  /* "launch_error": the driver refused the launch */
	KJIT_RESULT_CRASHED,       /* "crashed": the process that ran it died */
	KJIT_RESULT_TIMEOUT,       /* "timeout": it ran past its time */
	KJIT_RESULT_WRONG_RESULT,  /* "wrong_result": its output failed the check */
	KJIT_RESULT_STOPPED_EARLY  /* "stopped_early": verified, then cut short as
	                            * certainly slower than the best */
} kjit_result_status;

/* What a tuning run minimises, as its best rows keep it; a result with no
 * energy measured cannot be the best of the last two. */
typedef enum kjit_objective {
	KJIT_OBJECTIVE_TIME,   /* "time": the median time of a launch */
	KJIT_OBJECTIVE_ENERGY, /* "energy": the energy of a launch (kjit_profile.energy_j) */
	KJIT_OBJECTIVE_EDP     /* "edp": that energy times the median time */
} kjit_objective;

/* The stored word of a status or an objective ("wrong_result", "edp");
 * "unknown" for a value beyond the lists; static storage. */
const char *kjit_result_status_name(kjit_result_status status);
const char *kjit_objective_name(kjit_objective objective);
/* The status or objective whose word is name, into *out (untouched on
 * failure); KJIT_ERR_INVALID_ARG naming name for any other word (NULL
 * included) or a NULL out. */
kjit_status kjit_result_status_parse(const char *name, kjit_result_status *out);
kjit_status kjit_objective_parse(const char *name, kjit_objective *out);

/*
 * Profiling a variant: what one launch does on the hardware (CUPTI's
 * range profiler, replayed over as many passes as the counters need, the
 * device memory the kernel can reach restored before each pass), the
 * device's peaks that place it on the roofline, the binary's resource
 * usage, and with NVML what a launch costs in energy. A figure that could
 * not be had is NAN (counters refused, a counter the GPU lacks, no NVML);
 * counters_reason and energy_reason say why in one line ("" when read).
 */
typedef struct kjit_profile {
	/* counters of one launch */
	double duration_ns;          /* the kernel's GPU time in the profiled pass */
	double dram_read_bytes, dram_write_bytes;
	double l2_bytes;             /* L2 traffic, all requests */
	double l1_bytes;             /* L1/texture traffic */
	double flop_fp64, flop_fp32, flop_fp16; /* an FMA counts two */
	double instructions;         /* warp instructions executed */
	double achieved_occupancy;   /* active warps over the SMs' maximum, 0..1 */
	double sm_throughput;        /* the busiest SM unit (instruction issue, fp32
	                              * work against its peak rate, the ALU, FP64,
	                              * tensor, load/store and shared pipes),
	                              * fraction of its peak */
	double dram_throughput;      /* DRAM, fraction of its peak */
	unsigned passes;             /* replay passes the counters took */
	/* the device's peaks, and what they make of the counters: DRAM's at
	 * the memory clock of the profiled pass, the FLOP peaks and flop_per_s
	 * at the clock timed runs reach (the device's, or the pass's when
	 * higher), flop_per_s from the cycles the pass took */
	double peak_dram_bytes_per_s;
	double peak_flop_fp64_per_s, peak_flop_fp32_per_s, peak_flop_fp16_per_s;
	double dram_bytes_per_s;     /* (read + write) / duration */
	double flop_per_s;           /* all precisions, per second at the peaks' clock */
	double arithmetic_intensity; /* FLOPs per DRAM byte */
	/* resource usage, from the binary (no launch needed) */
	int registers;               /* per thread */
	int static_shared_bytes;     /* per block */
	int local_bytes;             /* per thread: local arrays and spills */
	int const_bytes;
	/* energy (NVML), over a timed batch of launches */
	double energy_j;             /* per launch */
	double power_w;              /* average over the batch */
	double energy_rel_spread;    /* (max - min) / median of the batch's repeats */
	const char *counters_reason; /* valid until the engine closes */
	const char *energy_reason;
} kjit_profile;

typedef struct kjit_profile_options {
	int counters;     /* read the hardware counters; default 1 */
	int energy;       /* measure energy per launch through NVML; default 0 */
	double energy_ms; /* each of the energy measurement's three repeats runs at
	                   * least this long, and to NVML's next step (a power
	                   * sample, 20 ms apart on the H100, or a step of the
	                   * energy counter, 100 ms apart); default 20 */
	double energy_best_j; /* a race against the best energy per launch so
	                       * far: the measurement ends after its first repeat
	                       * when that repeat is 10% above it (energy_rel_spread
	                       * then NAN), after its second when both are 2%
	                       * above it; 0: no race (default) */
} kjit_profile_options;

void kjit_profile_options_init(kjit_profile_options *opts);

/*
 * Profiles one launch of a variant with the launch configuration and
 * arguments of kjit_variant_launch() (the counters' passes replay it; the
 * energy batch runs it many times, so the arguments must leave the kernel
 * safe to run again); it synchronizes stream. Figures that cannot be had
 * are NAN with their reason; that is not an error: KJIT_OK with
 * counters_reason set when the counters are refused (no permission, an
 * unsupported device, CUPTI held by another tool, $KJIT_PROFILER=off; a
 * refusal is kept for the engine's life). The strings in *out are valid
 * until the engine closes. KJIT_ERR_INVALID_ARG: a NULL argument, a grid
 * or block dimension of 0, energy_ms out of (0, 60000] with energy set;
 * KJIT_ERR_NO_GPU; KJIT_ERR_LAUNCH: the launch failed.
 */
kjit_status kjit_variant_profile(kjit_variant *variant, const unsigned grid[3],
                                 const unsigned block[3], unsigned shared_bytes,
                                 kjit_stream stream, void **args,
                                 const kjit_profile_options *opts, kjit_profile *out);

/*
 * Where a profile stands against the device's peaks: the larger fraction
 * of DRAM bandwidth (dram_bytes_per_s over its peak) and of FLOP rate
 * (each precision's share of flop_per_s, over that precision's peak).
 * *rate gets that figure (B/s or FLOP/s) and *what "DRAM", "fp64",
 * "fp32" or "fp16" (a static string); either may be NULL. NAN, with
 * *rate NAN and *what NULL, when neither can be had (a NULL profile
 * included).
 */
double kjit_profile_peak(const kjit_profile *profile, double *rate, const char **what);

/*
 * The figures of kjit_profile as a table, for code that treats them all
 * alike (a file, a pipe, a Python dict): each one's name (its member's,
 * as the store's profiles columns and kjit-tune --json name it), its unit
 * ("" for none) and whether it is an integer. The table is static;
 * kjit_profile_fields() gives its length in *n (n may be NULL).
 * kjit_profile_get(): figure i of p, NAN when it is unknown (a NAN real,
 * a negative integer) or i is out of range. kjit_profile_set(): sets it
 * (NAN: unknown; an integer is bounded to its type); nothing when i is
 * out of range. kjit_profile_clear(): every figure unknown, no reasons.
 */
typedef struct kjit_profile_field {
	const char *name;
	const char *unit;
	int integer;
} kjit_profile_field;
const kjit_profile_field *kjit_profile_fields(size_t *n);
double kjit_profile_get(const kjit_profile *p, size_t i);
void kjit_profile_set(kjit_profile *p, size_t i, double v);
void kjit_profile_clear(kjit_profile *p);

/*
 * A GPU's power draw, read through NVML (libnvidia-ml.so.1 or
 * $KJIT_LIBNVML, opened at run time; no engine or CUDA context needed).
 * kjit_power_open() opens NVML for the GPU whose UUID is gpu_uuid
 * ("GPU-...", as nvidia-smi -L prints it), or NVML's first GPU when it
 * is NULL. KJIT_ERR_NO_GPU with one line naming why when the power cannot
 * be had: $KJIT_NVML=off, no library, NVML's own failure, a GPU NVML does
 * not know or one without an energy counter; KJIT_ERR_INVALID_ARG for a
 * NULL out. *out is NULL on failure; the caller closes it with
 * kjit_power_close() (NULL is ignored). Each handle is independent.
 */
typedef struct kjit_power kjit_power;
kjit_status kjit_power_open(const char *gpu_uuid, kjit_power **out);
/* The board's power in watts (NVML's reading: on recent GPUs an average
 * over about a second). KJIT_ERR_INVALID_ARG for a NULL argument,
 * KJIT_ERR_CUDA when NVML cannot read it; *watts is untouched then. */
kjit_status kjit_power_read(kjit_power *power, double *watts);
/* What NVML reads of the GPU now: its temperature and its graphics and
 * memory clocks (Kernel Tuner's NVMLObserver's temperature, core_freq and
 * mem_freq). KJIT_ERR_INVALID_ARG for a NULL argument, KJIT_ERR_CUDA when
 * NVML cannot read one; *out is untouched then. */
typedef struct kjit_gpu_sensors {
	double temperature_c;      /* NVML_TEMPERATURE_GPU */
	double graphics_clock_mhz; /* NVML_CLOCK_GRAPHICS */
	double mem_clock_mhz;      /* NVML_CLOCK_MEM */
} kjit_gpu_sensors;
kjit_status kjit_power_sensors(kjit_power *power, kjit_gpu_sensors *out);
/* NVML's name of the GPU ("NVIDIA H200"), owned by power; "" for NULL. */
const char *kjit_power_gpu_name(const kjit_power *power);
void kjit_power_close(kjit_power *power);

/*
 * Tuning records: the store's runs, results, profiles and best rows,
 * written and read by kjit-tune, by online tuning and by any other front
 * end through one record room, which is also the one home of the best-row
 * policy (time, energy or EDP). What a front end measures and records here
 * is what kjit_launch() then chooses from. A NULL handle, or a NULL where
 * an argument is needed, is KJIT_ERR_INVALID_ARG. One kjit_records is used
 * by one thread at a time.
 */

/* A connection of the record room's own to a store. */
typedef struct kjit_records kjit_records;

/* Opens the store at path (NULL: kjit_store_default_path()) after the
 * checks of kjit_store_check_path(), creating it as kjit_engine_open()
 * would; with must_exist, a missing file is KJIT_ERR_NOT_FOUND naming it
 * instead of a new, empty store. The caller closes *out with
 * kjit_records_close(). */
kjit_status kjit_records_open(const char *path, int must_exist, kjit_records **out);
/* Closes rec; its status says whether the last writes landed. */
kjit_status kjit_records_close(kjit_records *rec);

/* What a run is about: the kernel's signature (kjit_spec_signature()),
 * the device key, names of the kernel, spec and strategy, and the problem
 * as the store keeps it (kjit_spec_problem_text()'s KJIT_PROBLEM_JSON:
 * {"m":1024,"n":512}, integer sizes; another form is
 * KJIT_ERR_INVALID_ARG). */
typedef struct kjit_run_desc {
	const char *signature, *device_key, *kernel, *spec, *strategy, *problem;
	int64_t total; /* configurations to evaluate, 0 unknown */
	kjit_objective objective; /* what the best is the least of; zero: time */
} kjit_run_desc;

/* The (signature, device key, problem) that results are recorded under,
 * and the objective that chooses their best. id 0: no runs row (online
 * tuning): the results belong to no run. */
typedef struct kjit_run {
	int64_t id;
	char *signature, *device_key, *problem;
	kjit_objective objective;
	int resumed; /* an earlier run row (same signature, device key,
	              * problem and spec, not done) was continued */
} kjit_run;

/* Starts a run (a runs row, status running) or resumes the latest
 * unfinished one with the same signature, device key, problem and spec.
 * The caller frees *out with kjit_run_free(). */
kjit_status kjit_record_run_start(kjit_records *rec, const kjit_run_desc *d,
                                   kjit_run **out);
void kjit_run_free(kjit_run *run);
/* How a run ended, as the runs table keeps it ("done", "interrupted",
 * "failed"). */
typedef enum kjit_run_end {
	KJIT_RUN_DONE,        /* it evaluated what it set out to */
	KJIT_RUN_INTERRUPTED, /* a signal or the caller stopped it */
	KJIT_RUN_FAILED       /* an error ended it */
} kjit_run_end;
/* Sets how the run ended and when; then, when another objective chose
 * the run's best row, chooses it again under the run's from every stored
 * ok result with a score (a run that measured nothing new still answers
 * by its objective). KJIT_ERR_INVALID_ARG for an end beyond the list, or
 * for a run that kjit_record_run_start() did not give (no run of its id). */
kjit_status kjit_record_run_finish(kjit_records *rec, const kjit_run *run, kjit_run_end end);

/* Tells kjit-top, through the engine's telemetry (when it is on), that
 * run (its id) has evaluated its evaluated-th configuration of kernel,
 * with status. A front end that tunes calls it after each
 * kjit_record_eval(); it writes nothing to the store. */
void kjit_engine_note_tuning(kjit_engine *engine, const kjit_kernel *kernel, int64_t run,
                             kjit_result_status status, size_t evaluated);

/* One evaluated configuration. NULL text and NAN numbers are stored as
 * NULL; l2 NULL is "warm". config is the configuration as the store
 * keeps it (kjit_space_config_json(): sorted keys, no spaces); another
 * form is KJIT_ERR_INVALID_ARG, nothing stored. Its numbers are kept as
 * written: another spelling of a value (2.56e2 for 256) is selected as
 * that value but stored as another row. A run of id 0 (built by the
 * caller: a search outside any run) is recorded under its signature,
 * device key and problem; another id must be a run of the store. */
typedef struct kjit_eval {
	const char *config;     /* JSON, sorted keys */
	kjit_result_status status; /* how it ended (zero: ok) */
	const char *timer;      /* cupti|events */
	const char *l2;         /* warm|cold */
	const char *binary_key;
	double median_ns, spread_ns, min_ns, max_ns;
	const double *samples;  /* stored as little-endian float64 */
	size_t n_samples;
	double objective, compile_ms;
	const char *message;
	const char *arch, *nvrtc; /* for the best row */
	/* The device that measured it, among those sharing the device key.
	 * Zero, as in an initialiser that names neither, is unknown: stored
	 * NULL. */
	int has_device_ordinal;   /* 1: device_ordinal is set */
	int32_t device_ordinal;   /* its CUDA ordinal on its host, >= 0 */
	const char *device_uuid;  /* "GPU-..." as nvidia-smi -L has it; NULL: unknown */
	/* What the launch did on the hardware and cost (kjit_variant_profile());
	 * NAN figures are unknown, stored NULL. */
	int has_profile;          /* 1: profile is set */
	kjit_profile profile;
} kjit_eval;

/* The figure that e is the best by under objective: its median time, its
 * energy per launch, or their product; NAN when e is not ok or lacks it. */
double kjit_eval_score(const kjit_eval *e, kjit_objective objective);

/* Records e in ONE transaction: the results row (upsert on signature,
 * device key, problem, config, l2; the device columns too, so that they
 * name the latest measurement's), its profiles row (replaced, or removed
 * when e has none), runs.evaluated/updated and, when e is ok and its
 * score under the run's objective (kjit_eval_score()) is below the stored
 * best's (or the stored best is stale, or was chosen by another
 * objective), the best row (stale = 0, its objective the run's). A
 * negative device_ordinal that is set is KJIT_ERR_INVALID_ARG, nothing
 * stored. *result_id and *improved (1: the best is now e, newly or
 * lower) may be NULL. */
kjit_status kjit_record_eval(kjit_records *rec, const kjit_run *run, const kjit_eval *e,
                              int64_t *result_id, int *improved);

/* A device_key NULL in kjit_record_load() and kjit_record_rows() is the
 * one device key that the results of the signature have:
 * KJIT_ERR_NOT_FOUND when they have none, and KJIT_ERR_INVALID_ARG asking
 * for one when they have several. */

/* The objective table of space for (signature, device_key, its problem)
 * under objective by: *objective (kjit_space_size() doubles, by index)
 * holds each configuration's score (as kjit_eval_score() has it),
 * INFINITY for a failure or no score; *have (may be NULL) marks the
 * configurations known under by: a failure, a success with the
 * objective's figure, and under time a configuration a race stopped as
 * slow, so that a result measured for time alone is measured again for
 * energy. With several l2 rows, the lowest score counts. Rows whose
 * configuration is not in the space are counted in *ignored (may be
 * NULL). The caller frees the arrays. */
kjit_status kjit_record_load(kjit_records *rec, const kjit_space *space,
                              const char *signature, const char *device_key,
                              kjit_objective by, double **objective, uint8_t **have,
                              size_t *ignored);

/* The best row of (signature, device_key, problem), into each output
 * that is not NULL: its configuration (malloc'ed; NULL first), its
 * median, the objective that chose it (one of a later kjit: time), and
 * its result's profile (reasons NULL; cleared first) with *has_profile
 * 1, or 0 when it has none (profile and has_profile go together).
 * KJIT_ERR_NOT_FOUND when there is none. */
kjit_status kjit_record_best(kjit_records *rec, const char *signature,
                              const char *device_key, const char *problem, char **config,
                              double *median_ns, kjit_objective *objective,
                              kjit_profile *profile, int *has_profile);

/* Which results rows to read: run_id's (when > 0), or else those of
 * (signature, device_key; NULL: the one) for the problems (JSON, as the
 * results table has them; at most KJIT_RECORD_PROBLEMS_MAX). spec (may
 * be NULL) names the parameters whose values each row carries. */
#define KJIT_RECORD_PROBLEMS_MAX 30000
typedef struct kjit_record_query {
	int64_t run_id;
	const char *signature, *device_key;
	const char *const *problems;
	size_t n_problems;
	const kjit_spec *spec;
} kjit_record_query;

/* A results row and its profile, valid during the callback. A NULL
 * column is a NULL text or a NAN number. status is the stored word
 * (kjit_result_status_parse() reads it; a later kjit may write others). */
typedef struct kjit_record_row {
	int64_t id;
	double run_id;
	const char *signature, *device_key, *problem, *config, *status, *timer, *l2;
	double median_ns, spread_ns, min_ns, max_ns, n_samples;
	const double *samples; /* the samples column, n_blob of them */
	size_t n_blob;
	double objective, compile_ms;
	const char *message;
	double created, device_ordinal;
	const char *device_uuid;
	const char *const *values; /* each parameter's value (json_extract's text) */
	int has_profile;
	const double *figures; /* in kjit_profile_fields() order */
	const char *counters_reason, *energy_reason;
} kjit_record_row;

/* What reads the rows: begin once, before them, with the subject (the
 * query's signature and device key, or the run's), then row for each in
 * id order. */
typedef struct kjit_record_reader {
	void (*begin)(void *ctx, const char *signature, const char *device_key);
	void (*row)(void *ctx, const kjit_record_row *row);
	void *ctx;
} kjit_record_reader;

/* Reads the rows of q, in one read under the store's lock. begin is not
 * called when the query cannot start. */
kjit_status kjit_record_rows(kjit_records *rec, const kjit_record_query *q,
                              const kjit_record_reader *reader);

/* Device memory helpers, so that a program needs no libcuda link. */
kjit_status kjit_mem_alloc(kjit_engine *engine, size_t bytes, kjit_devptr *out);
kjit_status kjit_mem_free(kjit_engine *engine, kjit_devptr ptr);
kjit_status kjit_memcpy_htod(kjit_engine *engine, kjit_devptr dst, const void *src,
                             size_t bytes);
kjit_status kjit_memcpy_dtoh(kjit_engine *engine, void *dst, kjit_devptr src,
                             size_t bytes);
/* Device to device, with the semantics of cuMemcpyDtoD (ordered with the
 * default stream). */
kjit_status kjit_memcpy_dtod(kjit_engine *engine, kjit_devptr dst, kjit_devptr src,
                             size_t bytes);
/* Waits for all work on the engine's context. */
kjit_status kjit_synchronize(kjit_engine *engine);

#ifdef __cplusplus
}
#endif

#endif /* KJIT_H */
