/*
 * store_schema.h - the words of the store's schema, for the programs that
 * read it (kjit-top) and the code that writes its enumerated columns: the
 * schema version, the names of the tables and of the columns that readers
 * select, and the words those columns hold. Names are string literals to
 * paste into SQL. They name the schema of KJIT__SCHEMA_VERSION; the
 * migrations in store.c that build it spell their names out, being
 * history. Part of the base layer (base.h includes it); it needs nothing
 * but kjit.h, so that a tool can read the schema without the rest.
 */
#ifndef KJIT_STORE_SCHEMA_H
#define KJIT_STORE_SCHEMA_H

#include <stddef.h>

#include "kjit.h"

#define KJIT__SCHEMA_VERSION 5

/* ---- tables ----------------------------------------------------------- */

#define KJIT__T_DEVICES "devices"
#define KJIT__T_KERNELS "kernels"
#define KJIT__T_BINARIES "binaries" /* arch: the target; a compute_NN row holds PTX text
                                      * (NUL included), an sm_NN row a cubin */
#define KJIT__T_RUNS "runs"
#define KJIT__T_RESULTS "results"
#define KJIT__T_BEST "best"
#define KJIT__T_EVENTS "events"
#define KJIT__T_MANIFESTS "manifests" /* the header files a binary's compile read */
#define KJIT__T_PROFILES "profiles" /* a result's counters and energy (kjit_profile) */

/* The tables of every kjit database (the store's own bookkeeping aside). */
#define KJIT__TABLES(X)                                                      \
	X(KJIT__T_DEVICES)                                                   \
	X(KJIT__T_KERNELS)                                                   \
	X(KJIT__T_BINARIES)                                                  \
	X(KJIT__T_RUNS)                                                      \
	X(KJIT__T_RESULTS)                                                   \
	X(KJIT__T_BEST)                                                      \
	X(KJIT__T_EVENTS)                                                    \
	X(KJIT__T_MANIFESTS)                                                 \
	X(KJIT__T_PROFILES)

#define KJIT__I_EVENTS_TS "events_ts" /* events(ts) */

/* ---- columns that readers select -------------------------------------- */

/* One name per column name: the key columns (signature, device_key,
 * problem, config) mean the same in every table that has them. */
#define KJIT__C_ID "id"
#define KJIT__C_SIGNATURE "signature"
#define KJIT__C_DEVICE_KEY "device_key"
#define KJIT__C_PROBLEM "problem"
#define KJIT__C_CONFIG "config"
#define KJIT__C_NAME "name"           /* kernels */
#define KJIT__C_KEY "key"             /* binaries: 32 hex digits */
#define KJIT__C_OPTIONS "options"     /* binaries */
#define KJIT__C_KERNEL "kernel"       /* runs, events: the kernel's name */
#define KJIT__C_STRATEGY "strategy"   /* runs */
#define KJIT__C_STATUS "status"       /* runs: KJIT__RUN_*; results: KJIT__RESULT_STATUSES */
#define KJIT__C_TOTAL "total"         /* runs */
#define KJIT__C_EVALUATED "evaluated" /* runs */
#define KJIT__C_STARTED "started"     /* runs */
#define KJIT__C_UPDATED "updated"     /* runs, best */
#define KJIT__C_RUN_ID "run_id"       /* results */
#define KJIT__C_MEDIAN_NS "median_ns" /* results, best */
#define KJIT__C_N_SAMPLES "n_samples" /* results */
#define KJIT__C_CREATED "created"     /* results: when it was (last) measured */
#define KJIT__C_DEVICE_ORDINAL "device_ordinal" /* results: NULL unknown */
#define KJIT__C_DEVICE_UUID "device_uuid" /* results: "GPU-...", NULL unknown */
#define KJIT__C_SAMPLES "samples"     /* results: float64 little-endian ns */
#define KJIT__C_STALE "stale"         /* best */
#define KJIT__C_OBJECTIVE "objective" /* best: the KJIT__OBJECTIVES word that chose it;
                                       * results: the figure the strategy heard */
#define KJIT__C_RESULT_ID "result_id" /* best, profiles */
#define KJIT__C_COUNTERS_REASON "counters_reason" /* profiles: why counters are NULL */
#define KJIT__C_ENERGY_REASON "energy_reason"     /* profiles: why energy is NULL */
#define KJIT__C_TS "ts"               /* events */
#define KJIT__C_PID "pid"             /* events */
#define KJIT__C_KIND "kind"           /* events: KJIT__EVENT_KINDS */
#define KJIT__C_VARIANT "variant"     /* events: a binary key */
#define KJIT__C_TIER "tier"           /* events: KJIT__TIER_* */
#define KJIT__C_VALUE "value"         /* events */
#define KJIT__C_COUNT "count"         /* events */

/* ---- runs.status ------------------------------------------------------ */

#define KJIT__RUN_RUNNING "running"
#define KJIT__RUN_DONE "done"
#define KJIT__RUN_INTERRUPTED "interrupted"
#define KJIT__RUN_FAILED "failed"
/* what readers show for a run still "running" whose process is gone */
#define KJIT__RUN_ABANDONED "abandoned"

/* ---- results.status --------------------------------------------------- */

/* X(ID, text, two-letter abbreviation) of each kjit_result_status of
 * kjit.h (ID: its enumerator's name past the prefix), in its order, the
 * order every count by status is shown. */
#define KJIT__RESULT_STATUSES(X)                                             \
	X(OK, "ok", "ok")                                                    \
	X(COMPILE_ERROR, "compile_error", "ce")                              \
	X(LAUNCH_ERROR, "launch_error", "le")                                \
	X(CRASHED, "crashed", "cr")                                          \
	X(TIMEOUT, "timeout", "to")                                          \
	X(WRONG_RESULT, "wrong_result", "wr")                                \
	X(STOPPED_EARLY, "stopped_early", "se") /* verified, cut short as certainly slow */
#define KJIT__RS_COUNT (KJIT_RESULT_STOPPED_EARLY + 1)

/* ---- profiles ---------------------------------------------------------- */

/* The numeric columns of profiles, one per field of kjit_profile of the
 * same name: X(name, kind, unit), kind REAL (a double, NAN stored NULL),
 * UINT or INT (INTEGER; a negative INT is unknown, stored NULL). The
 * reasons are TEXT columns of their own (KJIT__C_*_REASON), and created
 * the time the row was written. */
#define KJIT__PROFILE_FIELDS(X)                                              \
	X(duration_ns, REAL, "ns")                                           \
	X(dram_read_bytes, REAL, "B")                                        \
	X(dram_write_bytes, REAL, "B")                                       \
	X(l2_bytes, REAL, "B")                                               \
	X(l1_bytes, REAL, "B")                                               \
	X(flop_fp64, REAL, "FLOP")                                           \
	X(flop_fp32, REAL, "FLOP")                                           \
	X(flop_fp16, REAL, "FLOP")                                           \
	X(instructions, REAL, "")                                            \
	X(achieved_occupancy, REAL, "")                                      \
	X(sm_throughput, REAL, "")                                           \
	X(dram_throughput, REAL, "")                                         \
	X(passes, UINT, "")                                                  \
	X(peak_dram_bytes_per_s, REAL, "B/s")                                \
	X(peak_flop_fp64_per_s, REAL, "FLOP/s")                              \
	X(peak_flop_fp32_per_s, REAL, "FLOP/s")                              \
	X(peak_flop_fp16_per_s, REAL, "FLOP/s")                              \
	X(dram_bytes_per_s, REAL, "B/s")                                     \
	X(flop_per_s, REAL, "FLOP/s")                                        \
	X(arithmetic_intensity, REAL, "FLOP/B")                              \
	X(registers, INT, "")                                                \
	X(static_shared_bytes, INT, "B")                                     \
	X(local_bytes, INT, "B")                                             \
	X(const_bytes, INT, "B")                                             \
	X(energy_j, REAL, "J")                                               \
	X(power_w, REAL, "W")                                                \
	X(energy_rel_spread, REAL, "")

/* ---- best.objective --------------------------------------------------- */

/* X(ID, text) of each kjit_objective of kjit.h (ID as above), the text
 * as best.objective stores it. A result without energy cannot be the
 * best of energy or edp. */
#define KJIT__OBJECTIVES(X)                                                  \
	X(TIME, "time")                                                      \
	X(ENERGY, "energy")                                                  \
	X(EDP, "edp")
#define KJIT__OBJ_COUNT (KJIT_OBJECTIVE_EDP + 1)

/* A result's score under objective as an SQL expression over results r
 * and profiles p (NULL where the result has no figure for it, energy
 * unmeasured): the one home of what each objective minimises in SQL. */
const char *kjit__objective_sql(kjit_objective objective);

/* ---- events.kind and events.tier -------------------------------------- */

#define KJIT__EVENT_KINDS(X)                                                 \
	X(COMPILE, "compile") /* value: NVRTC ms; tier miss */               \
	X(CACHE, "cache")     /* tier memory|disk|ptx|miss; count: lookups;  \
	                         value: the driver's ms for ptx */           \
	X(LOAD, "load")       /* value: module load us */                    \
	X(LAUNCH, "launch")   /* value: kernel ns of a sampled launch; count */ \
	X(TUNE, "tune")       /* value: evaluated so far; detail: run id, status */ \
	X(DROP, "drop")       /* count: events dropped since the last drop event */

typedef enum kjit__event_kind {
#define KJIT__EV_ENUM(id, text) KJIT__EV_##id,
	KJIT__EVENT_KINDS(KJIT__EV_ENUM)
#undef KJIT__EV_ENUM
	KJIT__EV_COUNT
} kjit__event_kind;

/* The text stored in events.kind; "unknown" for a value beyond the list. */
const char *kjit__event_kind_name(kjit__event_kind kind);
/* The kind whose text is name into *out; KJIT_ERR_INVALID_ARG naming it
 * for any other text (NULL included), *out untouched. */
kjit_status kjit__event_kind_parse(const char *name, kjit__event_kind *out);

/* SQL functions of a reader's connection (kjit__store_open_reader): the
 * kjit__event_kind of an events.kind word and the kjit_result_status of
 * a results.status word, as integers; NULL for a word this kjit does not
 * know (NULL included). A reader's rows so come with the enums. */
#define KJIT__F_EVENT_KIND "kjit_event_kind"
#define KJIT__F_RESULT_STATUS "kjit_result_status"

/* Where a cache lookup was answered (events.tier). */
#define KJIT__TIER_MEMORY "memory"
#define KJIT__TIER_DISK "disk"
#define KJIT__TIER_PTX "ptx"   /* no cubin stored: the driver compiled a virtual arch's PTX */
#define KJIT__TIER_MISS "miss"

#endif /* KJIT_STORE_SCHEMA_H */
