/*
 * base.h - internal header of the base layer: errors, hashing, the
 * environment, the CUDA driver loaded at run time, and the SQLite store.
 * Nothing here knows about engines, kernels or variants.
 */
#ifndef KJIT_BASE_H
#define KJIT_BASE_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda.h>
#include <sqlite3.h>

#include "kjit.h"
#include "store_schema.h"

/* ---- errors (error.c) ------------------------------------------------ */

/* Records a formatted detail message for the calling thread and returns
 * status, so that failures read `return kjit__error(KJIT_ERR_IO, ...)`. */
kjit_status kjit__error(kjit_status status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Takes ownership of a malloc'ed message as the thread's detail. */
kjit_status kjit__error_take(kjit_status status, char *msg);
/* The thread's detail message; never NULL. */
const char *kjit__error_msg(void);

/* printf into a new malloc'ed string; NULL when out of memory. */
char *kjit__strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Monotonic clock in nanoseconds, and wall clock in seconds (Unix time). */
uint64_t kjit__now_ns(void);
double kjit__wall_time(void);

/* 1 in a build under AddressSanitizer or ThreadSanitizer, whose shadow
 * memory and instrumentation change what a test may bound or time. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KJIT__SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KJIT__SANITIZED 1
#endif
#endif
#ifndef KJIT__SANITIZED
#define KJIT__SANITIZED 0
#endif

/* ---- random numbers (rng.c) ------------------------------------------ */

/* Output j of the SplitMix64 sequence from start: a counter-based
 * generator, so that output j needs none of the ones before it. */
uint64_t kjit__splitmix(uint64_t start, uint64_t j);
/* A deterministic stream (xoshiro256**, seeded through kjit__splitmix()),
 * so that a seed repeats. */
typedef struct kjit__rng {
	uint64_t s[4];
} kjit__rng;
void kjit__rng_seed(kjit__rng *r, uint64_t seed);
uint64_t kjit__rng_next(kjit__rng *r);
/* Uniform in [0, n), n > 0. */
uint64_t kjit__rng_below(kjit__rng *r, uint64_t n);
/* Uniform in [0, 1). */
double kjit__rng_unit(kjit__rng *r);
/* Standard normal. */
double kjit__rng_normal(kjit__rng *r);

/* ---- hashing (hash.c) ------------------------------------------------ */

typedef struct kjit__hash128 {
	uint64_t lo, hi;
} kjit__hash128;

/* MurmurHash3 x64 128: keys and blob checksums. */
kjit__hash128 kjit__hash(const void *data, size_t len, uint64_t seed);
/* 32 lowercase hex digits and a NUL into out[33]. */
void kjit__hash_hex(kjit__hash128 h, char out[33]);

/* ---- a hash table of items kept elsewhere (table.c) ------------------- */

/* Open addressing with linear probing, at most half full. A slot holds an
 * item, a pointer or an index + 1 (0: empty); the caller keeps the items
 * and knows their hashes and keys, so that a slot is one word. Zero-
 * initialise; kjit__table_free() frees it. One writer at a time, and no
 * reader while it writes. */
typedef struct kjit__table {
	uintptr_t *slots;
	size_t cap, count; /* cap: a power of two, or 0 */
} kjit__table;

/* The hash of an item already in the table, for moving it as it grows. */
typedef uint64_t (*kjit__table_hash_fn)(const void *ctx, uintptr_t item);

/* The item of hash h that is(ctx, item) accepts, 0 when none. Inline, so
 * that is() inlines into the lookup. */
static inline uintptr_t kjit__table_find(const kjit__table *t, uint64_t h,
                                         int (*is)(const void *ctx, uintptr_t item),
                                         const void *ctx)
{
	if (!t->cap)
		return 0;
	size_t mask = t->cap - 1;
	for (size_t i = (size_t)h & mask; t->slots[i]; i = (i + 1) & mask)
		if (is(ctx, t->slots[i]))
			return t->slots[i];
	return 0;
}
/* Makes room for n more items, so that n inserts allocate nothing. */
kjit_status kjit__table_reserve(kjit__table *t, size_t n, kjit__table_hash_fn hash,
                                const void *ctx);
/* Adds item (not 0, not in the table yet) of hash h. */
kjit_status kjit__table_insert(kjit__table *t, uint64_t h, uintptr_t item,
                               kjit__table_hash_fn hash, const void *ctx);
void kjit__table_free(kjit__table *t);

/* The same table read without a lock: its slots are written once
 * (atomically) by writers that hold a lock of their own; a full table is
 * copied into one twice its size, published whole, the older kept until
 * the table is freed (a reader may still hold it). For the hot paths:
 * kjit_launch()'s problems, a kernel's descriptors as given. */
typedef struct kjit__atable_gen {
	size_t cap, count; /* cap: a power of two */
	struct kjit__atable_gen *older;
	_Atomic(uintptr_t) slots[];
} kjit__atable_gen;
typedef struct kjit__atable {
	_Atomic(kjit__atable_gen *) now; /* NULL: empty */
} kjit__atable;

static inline uintptr_t kjit__atable_find(const kjit__atable *t, uint64_t h,
                                          int (*is)(const void *ctx, uintptr_t item),
                                          const void *ctx)
{
	kjit__atable_gen *g = atomic_load_explicit(&((kjit__atable *)t)->now, memory_order_acquire);
	if (!g)
		return 0;
	size_t mask = g->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		uintptr_t item = atomic_load_explicit(&g->slots[i], memory_order_acquire);
		if (!item || is(ctx, item))
			return item;
	}
}
/* Items in the table (under the writers' lock). */
size_t kjit__atable_count(const kjit__atable *t);
/* Adds item (not 0, not in the table yet) of hash h, under the writers'
 * lock; hash gives the items' hashes as the table grows. */
kjit_status kjit__atable_insert(kjit__atable *t, uint64_t h, uintptr_t item,
                                kjit__table_hash_fn hash, const void *ctx);
/* Frees the table and its older copies, not the items (each is in the
 * newest copy's slots, for the caller to free first). */
void kjit__atable_free(kjit__atable *t);

/* ---- samples (stats.c) ------------------------------------------------ */

/* -1, 0 or 1 as x is below, equal to or above y. A NaN compares equal to
 * everything, so a sort leaves NaNs where qsort happens to put them. */
static inline int kjit__cmp_double(double x, double y)
{
	return (x > y) - (x < y);
}
/* Sorts v[n] ascending by kjit__cmp_double (v may be NULL when n is 0). */
void kjit__sort_doubles(double *v, size_t n);
/* The median of sorted[n]: the middle value, or the mean of the middle
 * two; NAN when n is 0. */
double kjit__median_sorted(const double *sorted, size_t n);
/* Sorts v[n] and gives its median (kjit__median_sorted()). */
double kjit__median(double *v, size_t n);

/* ---- the environment (env.c) ------------------------------------------ */

/*
 * Every environment variable kjit reads, and nothing reads one elsewhere:
 * X(id, name, kind, meaning). A SETTING is the user's choice of what kjit
 * does, and the test harness clears it (tests/testutil.h, tests/env-cleared);
 * a SYSTEM variable says where the system keeps things, and tests keep it
 * because the programs they run need it too.
 */
#define KJIT__ENV_VARS(X)                                                      \
	X(DB, "KJIT_DB", SETTING, "the database file, before the two below")    \
	X(XDG_CACHE_HOME, "XDG_CACHE_HOME", SYSTEM,                            \
	  "the default database is $XDG_CACHE_HOME/kjit/kjit.db")                \
	X(HOME, "HOME", SYSTEM, "else it is $HOME/.cache/kjit/kjit.db")         \
	X(ARCH, "KJIT_ARCH", SETTING,                                          \
	  "the target arch (sm_90) when the options or --arch give none")       \
	X(CUDA_INCLUDE, "KJIT_CUDA_INCLUDE", SETTING,                          \
	  "the CUDA headers' folder kernels compile against (and its cccl)")    \
	X(LIBCUDA, "KJIT_LIBCUDA", SETTING,                                    \
	  "the CUDA driver library opened instead of libcuda.so.1")             \
	X(NVML, "KJIT_NVML", SETTING,                                          \
	  "off: no power or energy through NVML; counter: energy from its "    \
	  "energy counter, not its power samples")                              \
	X(LIBNVML, "KJIT_LIBNVML", SETTING,                                    \
	  "the NVML library opened instead of libnvidia-ml.so.1")               \
	X(CACHE_MAX_BYTES, "KJIT_CACHE_MAX_BYTES", SETTING,                    \
	  "the cap of the binaries table (bytes, K, M or G suffix)")            \
	X(TELEMETRY, "KJIT_TELEMETRY", SETTING, "0: no telemetry (default 1)")  \
	X(PROFILE, "KJIT_PROFILE", SETTING,                                    \
	  "the share of launches timed into telemetry, 0 to 1 (default 0)")     \
	X(TUNE, "KJIT_TUNE", SETTING,                                          \
	  "the tuning policy under KJIT_TUNE_ENV: off, online or background")   \
	X(DRIFT, "KJIT_DRIFT", SETTING,                                        \
	  "the slowdown that marks a best row stale (default 1.3)")             \
	X(TIMER, "KJIT_TIMER", SETTING, "the kernel timer: auto, cupti or events") \
	X(PROFILER, "KJIT_PROFILER", SETTING,                                  \
	  "off: kjit_variant_profile() reads no hardware counters (default on)") \
	X(CUPTI_DRIVER, "KJIT_CUPTI_DRIVER", SETTING,                          \
	  "launch: CUPTI records the launch entry points, not the whole API")   \
	X(TOP_NOW, "KJIT_TOP_NOW", SETTING,                                    \
	  "kjit-top's clock in Unix seconds, so that snapshots repeat")          \
	X(NO_COLOR, "NO_COLOR", SETTING, "kjit-top draws no colours when set")  \
	X(COLUMNS, "COLUMNS", SETTING, "the width of kjit-top --once")          \
	X(TERM, "TERM", SYSTEM, "the terminal, named when curses cannot start") \
	X(TMPDIR, "TMPDIR", SYSTEM,                                            \
	  "kjit-tune --mpi: a rank other than 0 keeps $TMPDIR/kjit-UID/mpi.db")

typedef enum kjit__env_var {
#define KJIT__ENV_ID(id, name, kind, meaning) KJIT__ENV_##id,
	KJIT__ENV_VARS(KJIT__ENV_ID)
#undef KJIT__ENV_ID
	KJIT__ENV_COUNT
} kjit__env_var;

typedef enum kjit__env_kind { KJIT__ENV_KIND_SETTING, KJIT__ENV_KIND_SYSTEM } kjit__env_kind;

typedef struct kjit__env_entry {
	const char *name;
	kjit__env_kind kind;
	const char *meaning;
} kjit__env_entry;

/* The value of v, NULL when it is unset or empty (kjit treats both as
 * unset). */
const char *kjit__env(kjit__env_var v);

/* The table: KJIT__ENV_COUNT entries in kjit__env_var order. */
const kjit__env_entry *kjit__env_table(void);

/* ---- the CUDA driver, opened at run time (driver.c) ----------------- */

/* Entry points resolved through cuGetProcAddress_v2; the typedefs come
 * from cuda.h's own prototypes so that a signature cannot drift. */
#define KJIT__CU_FUNCS(X)                                                    \
	X(cuInit)                                                            \
	X(cuDriverGetVersion)                                                \
	X(cuDeviceGetCount)                                                  \
	X(cuDeviceGet)                                                       \
	X(cuDeviceGetName)                                                   \
	X(cuDeviceGetUuid)                                                   \
	X(cuDeviceGetAttribute)                                              \
	X(cuDevicePrimaryCtxRetain)                                          \
	X(cuDevicePrimaryCtxRelease)                                         \
	X(cuCtxSetCurrent)                                                   \
	X(cuCtxGetCurrent)                                                   \
	X(cuCtxSynchronize)                                                  \
	X(cuModuleLoadData)                                                  \
	X(cuModuleUnload)                                                    \
	X(cuModuleGetFunction)                                               \
	X(cuFuncGetAttribute)                                                \
	X(cuFuncSetAttribute)                                                \
	X(cuModuleGetGlobal)                                                 \
	X(cuLaunchKernel)                                                    \
	X(cuMemAlloc)                                                        \
	X(cuMemFree)                                                         \
	X(cuMemcpyHtoD)                                                      \
	X(cuMemcpyDtoH)                                                      \
	X(cuMemcpyDtoD)                                                      \
	X(cuMemsetD8)                                                        \
	X(cuStreamCreate)                                                    \
	X(cuStreamDestroy)                                                   \
	X(cuStreamSynchronize)                                               \
	X(cuEventCreate)                                                     \
	X(cuEventRecord)                                                     \
	X(cuEventSynchronize)                                                \
	X(cuEventElapsedTime)                                                \
	X(cuEventDestroy)                                                    \
	X(cuGetErrorName)                                                    \
	X(cuGetErrorString)                                                  \
	X(cuCtxGetDevice)                                                    \
	X(cuMemsetD8Async)                                                   \
	X(cuLaunchHostFunc)                                                  \
	X(cuLinkCreate)                                                      \
	X(cuLinkAddData)                                                     \
	X(cuLinkComplete)                                                    \
	X(cuLinkDestroy)

typedef struct kjit__cu_api {
#define KJIT__CU_MEMBER(fn) __typeof__(fn) *fn;
	KJIT__CU_FUNCS(KJIT__CU_MEMBER)
#undef KJIT__CU_MEMBER
	/* CUDA 12.4 and later; NULL with an older driver */
	__typeof__(cuFuncGetParamInfo) *cuFuncGetParamInfo;
	__typeof__(cuFuncLoad) *cuFuncLoad;
	int driver_version; /* cuDriverGetVersion, e.g. 13000 */
} kjit__cu_api;

/*
 * Opens libcuda.so.1 (or $KJIT_LIBCUDA), resolves every entry point (the
 * optional ones NULL when the driver lacks them) and
 * runs cuInit(0), once per process. Returns the table, or NULL with
 * KJIT_ERR_NO_GPU and a message naming the cause: library not found, the
 * toolkit's stub library (CUDA_ERROR_STUB_LIBRARY), no device
 * (CUDA_ERROR_NO_DEVICE), a driver too old for an entry point.
 */
const kjit__cu_api *kjit__cu(kjit_status *status);

/* "CUDA_ERROR_ILLEGAL_ADDRESS" for any code, with or without a driver. */
const char *kjit__cu_error_name(CUresult r);

/* Builds the error for a failed driver call: "what: NAME (description)". */
kjit_status kjit__cu_fail(kjit_status status, CUresult r, const char *what);

/* A device's UUID as nvidia-smi and NVML write it: "GPU-" and its 16
 * bytes as 8-4-4-4-12 hex digits (KJIT_UUID_TEXT: 40 characters and the
 * NUL). */
void kjit__cu_uuid_text(const CUuuid *uuid, char out[KJIT_UUID_TEXT]);

/* ---- the store (store.c, store_binaries.c; its schema's words in
 * store_schema.h) ------------------------------------------------------- */

#define KJIT__DEFAULT_CACHE_MAX ((int64_t)256 << 20)

typedef struct kjit__store kjit__store;

/* Private to store*.c; here so that the layer keeps one header. */
struct kjit__store {
	sqlite3 *db;
	char *path;
	pthread_mutex_t lock; /* guards db, the statements and the touches */
	sqlite3_stmt *bin_get, *bin_put, *kernel_put, *bin_del, *bin_touch,
		*bin_total, *bin_oldest, *manifest_get, *manifest_put;
	char (*touches)[33];
	size_t n_touches, cap_touches;
	atomic_int broken;    /* the SQLite code of a failure that lasts, 0: none yet */
};
/* Prepares (and warms) the binary lookup ahead, so that an engine's first
 * hit pays no parse; finalizes the statements of store_binaries.c. */
kjit_status kjit__store_prepare_binaries(kjit__store *store);
void kjit__store_finalize_binaries(kjit__store *store);

/* The path of a database in memory, gone at its close. */
#define KJIT__STORE_MEMORY ":memory:"
/* Refuses a database path that SQLite reads as something else than the
 * file of that name (a "file:" URI) and the empty one. */
kjit_status kjit__store_check_name(const char *path);
/* KJIT_ERR_DB naming path and version unless 0 <= version <=
 * KJIT__SCHEMA_VERSION. */
kjit_status kjit__store_check_version(const char *path, long long version);
/* KJIT_ERR_DB, naming the first object that differs, unless the schema
 * of db (tables, indexes, triggers, views) is exactly that of kjit's
 * version (0 <= version <= KJIT__SCHEMA_VERSION). */
kjit_status kjit__store_check_schema(sqlite3 *db, const char *path, int version);
/* Stops SQL that a database holds from calling functions with side
 * effects (trusted_schema off), and SQL from changing the schema's
 * text (defensive on). */
kjit_status kjit__store_harden(sqlite3 *db, const char *path);

/* Why a reader cannot read a database yet: the ones it may wait out
 * first (no file, an empty one), then the ones that last. */
typedef enum kjit__reader_fail {
	KJIT__READER_MISSING = 1, /* no file yet */
	KJIT__READER_EMPTY,       /* a file with no schema yet */
	KJIT__READER_FOREIGN,     /* not a kjit database */
	KJIT__READER_SCHEMA,      /* a schema version this kjit does not read */
	KJIT__READER_REFUSED,     /* a path that names no file (a URI) */
	KJIT__READER_ERROR        /* any other failure: the message says which */
} kjit__reader_fail;
/* Opens the kjit database at path for a reader that never writes:
 * read-only, hardened, extended result codes and a 1 s busy timeout,
 * after the checks of kjit_store_check_path() and of the schema's
 * version and SQL, creating nothing. In a folder this user cannot write,
 * a WAL database with no -wal file is read as immutable. Its SQL has the
 * functions KJIT__F_EVENT_KIND and KJIT__F_RESULT_STATUS (store_schema.h),
 * which the database's own SQL cannot call. KJIT_OK with
 * *out the connection (the caller closes it with sqlite3_close());
 * otherwise *out is NULL, *why says which failure and the message names
 * it. */
kjit_status kjit__store_open_reader(const char *path, sqlite3 **out, kjit__reader_fail *why);

/* Opens (creating the folder 0700 and the file 0600 when missing) and
 * migrates the schema to KJIT__SCHEMA_VERSION. A database from a newer
 * kjit, or a file that is not a kjit database, is refused with a message.
 * The caller owns *out and frees it with kjit__store_close(). */
kjit_status kjit__store_open(const char *path, kjit__store **out);
/* Writes what is pending (the use times of binaries) and closes; frees
 * store either way. A failure of the last writes or of the close is its
 * status, so that a caller that must not lose them can say so. */
kjit_status kjit__store_close(kjit__store *store);

/* The connection, for layers above that prepare their own statements.
 * Callers hold kjit__store_lock() while they use it. */
sqlite3 *kjit__store_db(kjit__store *store);
void kjit__store_lock(kjit__store *store);
void kjit__store_unlock(kjit__store *store);

/* Maps a SQLite failure to KJIT_ERR_DB with "what: message (path)". */
kjit_status kjit__store_fail(kjit__store *store, int rc, const char *what);
/* Prepares sql on the connection into *st; a failure is
 * kjit__store_fail()'s, naming what. */
kjit_status kjit__store_prepare(kjit__store *store, const char *sql, sqlite3_stmt **st,
                                const char *what);
/* Whether a write failed for a reason that the next write meets too
 * (disk full, a read-only file, an I/O error, corruption), so that work
 * whose point is to be stored stops; a busy database is not one. */
int kjit__store_broken(kjit__store *store);

/* Runs fn inside BEGIN IMMEDIATE ... COMMIT, rolled back on failure. */
kjit_status kjit__store_transaction(kjit__store *store,
                                    kjit_status (*fn)(kjit__store *, void *), void *arg);

/* The samples column of results: float64, little-endian, whatever the
 * host. bind_samples binds v[n] to column col of s (NULL when n is 0);
 * sample reads element i of such a blob. */
kjit_status kjit__store_bind_samples(sqlite3_stmt *s, int col, const double *v, size_t n);
double kjit__store_sample(const void *blob, size_t i);

/* Records (or refreshes) a device row. */
kjit_status kjit__store_device_put(kjit__store *store, const char *device_key,
                                   const char *name, const char *arch, int sm_count,
                                   int driver_version);

/* A row of the binaries table. */
typedef struct kjit__binary {
	const char *key;          /* 32 hex digits */
	const char *signature;
	const char *kernel_name;  /* for the kernels table */
	const char *source;       /* idem */
	const char *params;       /* idem, names joined by ',' */
	const char *options;
	const char *arch;
	const char *nvrtc;
	const char *lowered_name;
	const void *cubin;
	size_t size;
	double compile_ms;
	const char *base_key;     /* the key before header files entered it */
	const char *manifest;     /* the header files read, NULL when none */
} kjit__binary;

/* Looks up key. On a hit returns KJIT_OK with a malloc'ed copy of the blob
 * in *cubin and of the lowered name in *lowered (caller frees both);
 * KJIT_ERR_NOT_FOUND on a miss; KJIT_ERR_CORRUPT when the checksum does not
 * match (the row is left for the caller to replace). */
kjit_status kjit__store_binary_get(kjit__store *store, const char *key, void **cubin,
                                   size_t *size, char **lowered, double *compile_ms);

/* The whole row of key with its kernel row and manifest, for another
 * database (kjit-tune --mpi ships binaries between ranks): b's strings
 * and cubin point into *mem (malloc'ed, the caller frees it; base_key and
 * manifest NULL when the compile read no header), checksum is the stored
 * one, verified. KJIT_ERR_NOT_FOUND on a miss, KJIT_ERR_CORRUPT when the
 * checksum does not match. */
kjit_status kjit__store_binary_read(kjit__store *store, const char *key, kjit__binary *b,
                                    char checksum[33], void **mem);

/* The checksum the binaries table keeps of a blob: 32 hex digits. */
void kjit__store_checksum(const void *data, size_t size, char out[33]);

/* The texts of a row in the binaries table's order (key, signature,
 * kernel name, source, parameter names, options, arch, NVRTC, lowered
 * name, then base key and manifest, which may be NULL): where each is
 * kept in b, into out. */
#define KJIT__BINARY_TEXTS 11
void kjit__binary_texts(kjit__binary *b, const char **out[KJIT__BINARY_TEXTS]);

/* A whole row (kjit__store_binary_read()'s, with its checksum) as bytes
 * for another store, malloc'ed into *out (store_travel.c). */
kjit_status kjit__binary_encode(const kjit__binary *b, const char checksum[33], void **out,
                                size_t *size);
/* Bytes of kjit__binary_encode() from another process, checked whole (the
 * layout, the NOT NULL texts, the key, the checksum: KJIT_ERR_CORRUPT
 * naming what is wrong), into b, whose strings and binary point into
 * *mem (malloc'ed, the caller frees it). */
kjit_status kjit__binary_decode(const void *data, size_t size, kjit__binary *b, void **mem);

/* The manifest (malloc'ed, the caller frees it) stored last with a
 * binary of base key base_key; KJIT_ERR_NOT_FOUND when there is none. */
kjit_status kjit__store_manifest_get(kjit__store *store, const char *base_key, char **manifest);

/* Inserts or replaces a binary (and its kernel row, and its manifest when
 * it has one) in one transaction, then evicts least recently used
 * binaries beyond max_bytes (their manifests go with them). */
kjit_status kjit__store_binary_put(kjit__store *store, const kjit__binary *b,
                                   int64_t max_bytes);

/* Removes a binary (a corrupt or unloadable one). */
kjit_status kjit__store_binary_delete(kjit__store *store, const char *key);

/* Notes a use of key; written in one batch at the next put or at close,
 * so that hits cost no write. */
void kjit__store_binary_touch(kjit__store *store, const char *key);

/* Writes the pending touches (kjit__store_close() calls it). */
kjit_status kjit__store_flush_touches(kjit__store *store);

/* ---- files (file.c) ---------------------------------------------------- */

/* The largest spec, source or header read (kjit__read_text()), and the
 * largest link input read from a file. */
#define KJIT__MAX_TEXT_BYTES ((size_t)64 << 20)
#define KJIT__MAX_LINK_BYTES ((size_t)1 << 30)
/* The most read for one spec or kernel, all files of a kind together:
 * its headers (each named or included one, however often), its link
 * inputs. */
#define KJIT__MAX_HEADERS_TOTAL_BYTES ((size_t)256 << 20)
#define KJIT__MAX_LINK_TOTAL_BYTES ((size_t)1 << 30)

/* Bytes left of such a total; what names it in messages ("headers"). */
typedef struct kjit__budget {
	size_t left, total;
	const char *what;
} kjit__budget;

#define KJIT__BUDGET(total, what) ((kjit__budget){ (total), (total), (what) })

/* Opens path for reading, never waiting on it: a regular file only (a
 * folder is "is a directory"; a FIFO, device or socket is refused at
 * once), into *fd with its size in *size. KJIT_ERR_IO names the file. */
kjit_status kjit__open_regular(const char *path, int *fd, size_t *size);
/* Reads a whole regular file of at most max bytes into *out (malloc'ed,
 * NUL-terminated; *len, may be NULL, its length, NUL bytes included).
 * KJIT_ERR_IO names the file; a larger one is KJIT_ERR_INVALID_ARG. */
kjit_status kjit__read_file(const char *path, size_t max, char **out, size_t *len);
/* kjit__read_file() of at most KJIT__MAX_TEXT_BYTES. */
kjit_status kjit__read_text(const char *path, char **out, size_t *len);
/* kjit__read_file() that also takes what it reads from b (a file larger
 * than b->left is refused, naming the total, before it is read). */
kjit_status kjit__read_budget(const char *path, size_t max, kjit__budget *b, char **out,
                              size_t *len);
/* Takes n bytes (held in memory) from b; who names them in the error
 * when b has not that many left (KJIT_ERR_INVALID_ARG). */
kjit_status kjit__budget_take(kjit__budget *b, size_t n, const char *who);

/* Writes a file whole: write(f, ctx) fills a new temporary file beside
 * path (mode 0600, created exclusively under an unguessable name, so never
 * through a link planted there), which then replaces path by rename(),
 * itself never following a link at path. On any failure nothing is left
 * and path is untouched; errors start with what (the file's role). */
typedef kjit_status (*kjit__file_writer)(FILE *f, void *ctx);
kjit_status kjit__write_replace(const char *path, const char *what, kjit__file_writer write,
                                void *ctx);

/* ---- JSON (json.c) ----------------------------------------------------- */

typedef enum {
	KJIT__JSON_NULL,
	KJIT__JSON_BOOL,
	KJIT__JSON_NUMBER,
	KJIT__JSON_STRING,
	KJIT__JSON_ARRAY,
	KJIT__JSON_OBJECT
} kjit__json_type;

/* A JSON value. Numbers keep their text as written; objects keep their
 * keys in order. */
typedef struct kjit__json {
	kjit__json_type type;
	int b;                    /* BOOL */
	char *text;               /* STRING: decoded UTF-8; NUMBER: as written */
	size_t n;                 /* ARRAY, OBJECT: members */
	struct kjit__json *items; /* the n members */
	char **keys;              /* OBJECT: their n keys */
} kjit__json;

/* The largest JSON document read, in bytes and in values (each number,
 * string, literal, array and object counts one; keys do not). */
#define KJIT__JSON_MAX_BYTES KJIT__MAX_TEXT_BYTES
#define KJIT__JSON_MAX_VALUES ((size_t)1 << 20)

/* Parses text[len] as strict RFC 8259 JSON (no comments, no trailing
 * commas, each key once per object, UTF-8), of at most KJIT__JSON_MAX_BYTES
 * and KJIT__JSON_MAX_VALUES. An error is
 * KJIT_ERR_INVALID_ARG with "FILE:LINE:COL: expected ... (got ...)" at the
 * first fault. The caller frees *out with kjit__json_free(). */
kjit_status kjit__json_parse(const char *text, size_t len, const char *file, kjit__json **out);
void kjit__json_free(kjit__json *v);
/* The member key of an object, NULL when absent or not an object. */
const kjit__json *kjit__json_get(const kjit__json *obj, const char *key);
/* A scalar's text as a stored value is matched (SQLite's reading of
 * it): a string's, a number's as written, a bool's 1 or 0; NULL for
 * null, an array, an object or no value (v NULL). */
const char *kjit__json_scalar_text(const kjit__json *v);
/* 1 with *out when v is an integer (no fraction, no exponent) within
 * int64, -1 when it is an integer beyond, 0 when it is none (or v is
 * NULL). */
int kjit__json_int(const kjit__json *v, int64_t *out);

/* ---- strings (strbuf.c) ------------------------------------------------ */

/* A growing string; zero-initialise. After a failed allocation every
 * append is a no-op and kjit__buf_done() returns NULL. */
typedef struct kjit__buf {
	char *p;
	size_t len, cap;
	int oom;
} kjit__buf;

void kjit__buf_add(kjit__buf *b, const char *s, size_t n);
void kjit__buf_str(kjit__buf *b, const char *s);
/* s as a JSON string literal, quotes included. */
void kjit__buf_json_str(kjit__buf *b, const char *s);

/* Text written by others, quoted for a message: at most max bytes of s
 * between quote characters q, each control byte as \n, \t or \xNN (so
 * that a message never carries a terminal's escapes), "..." after a cut;
 * into out[cap] (cut to fit). Returns out. */
const char *kjit__quote(char *out, size_t cap, const char *s, size_t max, char q);

/* The profiles table in SQL (store.c): ", ALIAS.field" for each field of
 * kjit_profile_fields() onto q; and those columns of a row, from col on,
 * into *out (NULL is NAN; the reasons left NULL). */
void kjit__profile_sql_columns(kjit__buf *q, const char *alias);
void kjit__profile_sql_read(sqlite3_stmt *s, int col, kjit_profile *out);
/* The text (malloc'ed, "" when nothing was added; the caller frees it),
 * or NULL after a failed allocation. */
char *kjit__buf_done(kjit__buf *b);

#endif /* KJIT_BASE_H */
