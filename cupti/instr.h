/*
 * instr.h - internal header of the instrumentation layer: GPU kernel
 * timing (CUPTI activity records, CUDA events as the fallback), hardware
 * counters (CUPTI's range profiler), the measurement protocol, power and
 * energy through NVML, NVTX ranges and the telemetry writer. It stands on
 * the base layer (base.h) and never reaches the engine: launches come in
 * as callbacks, events as plain structs.
 */
#ifndef KJIT_INSTR_H
#define KJIT_INSTR_H

#include "base.h"

/* ---- NVTX ranges (nvtx.c) ---------------------------------------------- */

/* One category (and colour) per kind, in the NVTX domain "kjit". */
typedef enum kjit__nvtx_kind {
	KJIT__NVTX_COMPILE = 1, /* NVRTC compiling one variant */
	KJIT__NVTX_LOOKUP,      /* a cache lookup; its result is a mark inside it */
	KJIT__NVTX_LOAD,        /* cuModuleLoadData and the function */
	KJIT__NVTX_TUNE,        /* a tuning run */
	KJIT__NVTX_EVALUATE,    /* one variant's evaluation (measurement) */
	KJIT__NVTX_KIND_COUNT
} kjit__nvtx_kind;

/* Pushes a range named "<kind name> <detail>" (detail may be NULL) on the
 * calling thread. Costs a pointer test when no tool is attached. */
void kjit__nvtx_push(kjit__nvtx_kind kind, const char *detail);
void kjit__nvtx_pop(void);
/* A mark in the current range, e.g. "hit: memory", "hit: disk", "miss". */
void kjit__nvtx_mark(kjit__nvtx_kind kind, const char *message);

/* ---- kernel timing (timing.c) ------------------------------------------ */

typedef enum kjit__timer_kind {
	KJIT__TIMER_CUPTI = 0, /* CUPTI CONCURRENT_KERNEL activity records */
	KJIT__TIMER_EVENTS     /* CUDA events around each launch */
} kjit__timer_kind;

/* "cupti" or "events", as stored with every result. */
const char *kjit__timer_name(kjit__timer_kind kind);

/* One launch of the kernel under measurement, on stream. Returns the
 * driver's result. */
typedef CUresult (*kjit__launch_fn)(void *ctx, CUstream stream);

typedef struct kjit__timer kjit__timer;

/*
 * A timer for one context. Tries CUPTI (checks that the loaded CUPTI
 * decodes CUpti_ActivityKernel10, i.e. cuptiGetVersion() matches the
 * header's CUPTI_API_VERSION major) and falls back to CUDA events when
 * CUPTI cannot be used (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
 * under Nsight or compute-sanitizer, or $KJIT_TIMER=events); *kind says
 * which ($KJIT_TIMER=cupti insists on CUPTI). CUPTI is process-wide; its
 * state is shared by every open timer, each used by one thread at a time.
 * The caller owns *out and frees it with kjit__timer_close().
 */
kjit_status kjit__timer_open(const kjit__cu_api *cu, CUcontext ctx, kjit__timer **out);
void kjit__timer_close(kjit__timer *timer);
kjit__timer_kind kjit__timer_kind_of(const kjit__timer *timer);

/* Around every module load: CUPTI's timers start and stop between loads,
 * never during one (a kernel of a module loaded meanwhile would have no
 * records). */
void kjit__timer_load_begin(void);
void kjit__timer_load_end(void);

/*
 * Launches fn n times on stream and writes the GPU duration of each launch
 * in nanoseconds to durations[0..n-1], each matched to its own launch (by
 * external correlation id with CUPTI). When flush_bytes > 0, each launch is
 * preceded by a write of flush_bytes to a scratch buffer (cold L2), which
 * is not part of the timed kernel. Synchronizes the stream before it
 * returns.
 */
kjit_status kjit__timer_run(kjit__timer *timer, kjit__launch_fn fn, void *ctx, CUstream stream,
                            size_t n, size_t flush_bytes, double *durations);

/* Twice the L2 size of the timer's device: the flush of cold-L2 runs. */
kjit_status kjit__timer_l2_flush_bytes(kjit__timer *timer, size_t *out);

/*
 * Sampled profiling of ordinary launches (KJIT_PROFILE), CUPTI timers only:
 * launch_tagged launches fn once under external correlation id tag and
 * returns at once; the kernel's duration reaches sink(ctx, tag, ns) later,
 * from kjit__timer_poll() (which flushes CUPTI's buffers) or from CUPTI's
 * own buffer thread. KJIT_ERR_NOT_FOUND from launch_tagged on an events
 * timer: the caller launches untimed.
 */
void kjit__timer_set_sink(kjit__timer *timer, void (*sink)(void *ctx, uint64_t tag, double ns),
                          void *ctx);
kjit_status kjit__timer_launch_tagged(kjit__timer *timer, kjit__launch_fn fn, void *ctx,
                                      CUstream stream, uint64_t tag);
kjit_status kjit__timer_poll(kjit__timer *timer);

/* ---- hardware counters (counters.c) -------------------------------------- */

typedef struct kjit__counters kjit__counters;

/*
 * The hardware counters of ctx through CUPTI's range profiler: the
 * profiler initialised, the metric set's config image made (the passes it
 * needs counted). A refusal (no permission, an unsupported device, CUPTI
 * held by another tool, $KJIT_PROFILER=off, any CUPTI call failing) is not
 * an error: *out is made, refused, and its reason says why. Errors: out of
 * memory, a $KJIT_PROFILER that is neither on nor off. The caller owns
 * *out and frees it with kjit__counters_close().
 */
kjit_status kjit__counters_open(const kjit__cu_api *cu, CUcontext ctx, kjit__counters **out);
void kjit__counters_close(kjit__counters *c);

/* "" while the counters can be read, else why not (or which metrics the
 * chip lacks); set once, valid until close. */
const char *kjit__counters_reason(const kjit__counters *c);

/* The metric names the counters collect (static), so that another tool
 * can be asked for the same set. */
const char *const *kjit__counters_metric_names(size_t *n);

/* Sets the counter fields of *out (not the resource usage, not the energy
 * and its reason) to NAN and passes to 0. */
void kjit__counters_clear(kjit_profile *out);

/*
 * Profiles one launch of fn on stream (kernel replay: fn runs once, CUPTI
 * replays its kernel pass by pass with the device memory restored before
 * each) and fills the counter fields of *out; counters_reason points to
 * the object's reason, or to a static line. A refusal gives KJIT_OK with
 * the counters NAN; KJIT_ERR_LAUNCH when the launch itself fails. One
 * profile at a time in the process: others wait.
 */
kjit_status kjit__counters_profile(kjit__counters *c, kjit__launch_fn fn, void *fn_ctx,
                                   CUstream stream, kjit_profile *out);

/* ---- the measurement protocol (protocol.c) ------------------------------ */

typedef struct kjit__protocol_opts {
	double warmup_ms;     /* warm up by time (and at least 2 launches) */
	double target_rel_ci; /* stop when (ci_high - ci_low) / median <= this */
	double max_ms;        /* time cap for the timed phase */
	size_t min_samples;   /* never stop before this many */
	size_t max_samples;   /* count cap */
	int cold_l2;          /* flush 2x the L2 before every launch */
	double best_ns;       /* the best median so far (0: none) */
	double early_factor;  /* stop once ci_low > best_ns * early_factor (0: off) */
	double best_hi_ns;    /* the best's ci_high: with early stop on, stop once
	                       * ci_low is above it (0: unknown) */
	double best_spread_ns; /* racing's noise: the per-sample spread of kernels
	                        * of the best's length (the best's own, or what
	                        * the caller learned of such kernels; 0: unknown) */
	double budget_ms;     /* past this much timed phase, stop at 6 samples (0: off) */
	double warmed_ms;     /* the caller's runs of the kernel just before (a
	                       * checked run): counted as warm-up, none at all
	                       * when they cover warmup_ms */
	int no_warmup;        /* 1: none; the first launch is timed (a checked
	                       * run, whose output is that of one launch) */
	const double *prior_ns; /* n_prior samples the caller timed already (a
	                         * checked run's): the first samples, judged
	                         * before anything runs */
	size_t n_prior;
} kjit__protocol_opts;

/* The defaults: 20 ms warm-up, 1% CI, 2 s cap, a 100 ms budget,
 * 10..10000 samples, warm L2, no early stop, nothing warmed. */
void kjit__protocol_defaults(kjit__protocol_opts *opts);

typedef enum kjit__stop {
	KJIT__GO_ON = 0,
	KJIT__STOP_CONVERGED, /* the CI of the median reached the target */
	KJIT__STOP_TIME_CAP,
	KJIT__STOP_COUNT_CAP,
	KJIT__STOP_EARLY,     /* certainly slower than the best */
	KJIT__STOP_BUDGET     /* the time budget spent, the CI meaningful */
} kjit__stop;

const char *kjit__stop_name(kjit__stop stop);

/* The order-statistic 95% confidence interval of the median of sorted[n]
 * (distribution free); the median itself in *median. n >= 1. */
void kjit__median_ci(const double *sorted, size_t n, double *median, double *ci_low,
                     double *ci_high);

/* The stopping rule alone, a pure function: sorted[n] samples so far,
 * elapsed_ms of timed phase. */
kjit__stop kjit__protocol_decide(const double *sorted, size_t n, double elapsed_ms,
                                 const kjit__protocol_opts *opts);

/* The next timed batch after n samples, before the count and time caps:
 * a pure function too (racing looks after 1, 2, 4 and 6 samples). */
size_t kjit__protocol_batch(size_t n, const kjit__protocol_opts *opts);

typedef struct kjit__measurement {
	double median_ns, spread_ns; /* spread: 1.4826 x median absolute deviation */
	double min_ns, max_ns, ci_low_ns, ci_high_ns;
	size_t n;
	double *samples_ns;          /* malloc'ed, in launch order; kjit__measurement_free */
	kjit__stop stop;
	kjit__timer_kind timer;
	int cold_l2;
	double wall_ms;              /* warm-up and timed phase */
	double warmup_ms;            /* of wall_ms, the warm-up */
} kjit__measurement;

/* Runs the protocol: warm-up, then batches of timed launches (growing
 * geometrically) until kjit__protocol_decide() says stop. */
kjit_status kjit__protocol_measure(kjit__timer *timer, kjit__launch_fn fn, void *ctx,
                                   CUstream stream, const kjit__protocol_opts *opts,
                                   kjit__measurement *out);
void kjit__measurement_free(kjit__measurement *m);

/* ---- NVML: power and energy (nvml.c, energy.c) ---------------------------- */

typedef struct kjit__nvml kjit__nvml;

/*
 * Opens NVML (libnvidia-ml.so.1, or $KJIT_LIBNVML, with dlopen) for the
 * GPU whose UUID is uuid ("GPU-...", as kjit__cu_uuid_text() writes it),
 * or NVML's first GPU when uuid is NULL. KJIT_ERR_NO_GPU with one line
 * naming the reason when energy cannot be had: $KJIT_NVML=off, no
 * library, NVML's own failure, a GPU NVML does not know, a GPU without an
 * energy counter (NVML_ERROR_NOT_SUPPORTED). The caller owns *out and
 * frees it with kjit__nvml_close().
 */
kjit_status kjit__nvml_open_uuid(const char *uuid, kjit__nvml **out);
/* The same for a CUDA device, matched to NVML's by its UUID. */
kjit_status kjit__nvml_open(const kjit__cu_api *cu, CUdevice device, kjit__nvml **out);
void kjit__nvml_close(kjit__nvml *n);
/* NVML's name of the GPU ("NVIDIA H200"), owned by n. */
const char *kjit__nvml_name(const kjit__nvml *n);
/* The board's power as NVML reports it (nvmlDeviceGetPowerUsage: on
 * recent GPUs an average over about a second), in watts. */
kjit_status kjit__nvml_power_w(kjit__nvml *n, double *watts);
/* The GPU's temperature and clocks now (kjit_power_sensors()). */
kjit_status kjit__nvml_sensors(kjit__nvml *n, kjit_gpu_sensors *out);
/* The energy counter: mJ since the driver loaded, the whole board. */
kjit_status kjit__nvml_energy_mj(kjit__nvml *n, unsigned long long *mj);
/*
 * The board's energy read in steps: NVML's power samples (each the power
 * since the one before, 20 ms apart on the H100) where the GPU keeps them
 * and $KJIT_NVML is not "counter", else its energy counter (steps 100 ms
 * apart, a read 3 to 4 ms). steps_begin starts a running sum at the
 * present; step_after gives the first step at or after not_before (the
 * host's monotonic clock, seconds): the sum there (mJ) and the step's
 * time, *found 0 while NVML has not taken it (the call then waits a
 * millisecond or a read). The source's name: "power samples" or "energy
 * counter".
 */
kjit_status kjit__nvml_steps_begin(kjit__nvml *n);
kjit_status kjit__nvml_step_after(kjit__nvml *n, double not_before, double *mj, double *at,
                                  int *found);
const char *kjit__nvml_steps_source(const kjit__nvml *n);
int kjit__nvml_steps_sampled(const kjit__nvml *n); /* 1: power samples */
/* The host's monotonic clock the steps are timed by, in seconds. */
double kjit__nvml_clock_s(void);

typedef struct kjit__energy {
	double energy_j;   /* per launch: power_w times launch_s */
	double power_w;    /* the board's average power in the median repeat */
	double launch_s;   /* one launch's period, back to back, over the stretch */
	double rel_spread; /* (max - min) / median of the repeats' powers, as of
	                    * their energies per launch; NAN after one repeat */
	unsigned repeats;  /* 3, or 1 or 2 when the race ended it */
	size_t launches;   /* every launch the measurement ran */
	double wall_ms;
} kjit__energy;

/*
 * Energy per launch of fn on stream: calibrates the launch period, then
 * runs the kernel back to back in one stretch of three repeats, each
 * between two of NVML's steps at least batch_ms apart (0 <
 * batch_ms <= 60000), and reports the board's energy per launch, idle and
 * background power included (energy.c says what the figure means). A
 * race against a best of best_j > 0 a launch ends the stretch after its
 * first repeat when that repeat is 10% above it, after its second when
 * both are 2% above it (the median of three would be too; 2% for the
 * calibrated period the race uses). The kernel runs many
 * times: its arguments must leave it safe to run again. Synchronizes the
 * stream before it returns.
 */
kjit_status kjit__energy_measure(kjit__nvml *n, const kjit__cu_api *cu, kjit__launch_fn fn,
                                 void *ctx, CUstream stream, double batch_ms, double best_j,
                                 kjit__energy *out);

/* ---- telemetry (telemetry.c) -------------------------------------------- */

/* An events row, copied into the ring: no pointers to the caller's memory
 * survive. Its kinds (kjit__event_kind) and tiers are the schema's words
 * (store_schema.h). */
typedef struct kjit__event {
	double ts;             /* Unix seconds; 0: filled in by record */
	kjit__event_kind kind;
	char signature[33];    /* "" when none */
	char kernel[64];
	char variant[33];      /* binary key, "" when none */
	char tier[8];          /* a KJIT__TIER_*, or "" */
	double value;
	int64_t count;         /* 0 is stored as 1 */
	char detail[96];
} kjit__event;

typedef struct kjit__telemetry_opts {
	size_t ring_capacity;  /* events held in memory (default 65536) */
	double interval_ms;    /* writer period (default 250) */
	double max_age_s;      /* retention by age (default 7 days) */
	int64_t max_rows;      /* retention by count (default 1000000) */
} kjit__telemetry_opts;

void kjit__telemetry_defaults(kjit__telemetry_opts *opts);

typedef struct kjit__telemetry kjit__telemetry;

/*
 * Opens its own connection to db_path and starts the writer thread, which
 * every interval_ms writes what the ring holds into the events table in
 * one transaction, calls the samplers first (so that they can record
 * aggregated counts), and applies retention now and then. The caller owns
 * *out; kjit__telemetry_close() writes what is left and stops the thread.
 */
kjit_status kjit__telemetry_open(const char *db_path, const kjit__telemetry_opts *opts,
                                 kjit__telemetry **out);
void kjit__telemetry_close(kjit__telemetry *t);

/* Never blocks on the database: when the ring is full the event is
 * dropped and counted (written later as a KJIT__EV_DROP event). */
void kjit__telemetry_record(kjit__telemetry *t, const kjit__event *ev);

/* fn(ctx, t) runs on the writer thread at every tick, before the write. */
kjit_status kjit__telemetry_add_sampler(kjit__telemetry *t,
                                        void (*fn)(void *ctx, kjit__telemetry *t), void *ctx);

/* Writes everything recorded so far, now, from the calling thread. */
kjit_status kjit__telemetry_flush(kjit__telemetry *t);

/* Deletes events older than max_age_s and beyond max_rows (oldest first). */
kjit_status kjit__telemetry_retain(kjit__telemetry *t);

typedef struct kjit__telemetry_stats {
	uint64_t recorded, written, dropped, batches;
} kjit__telemetry_stats;

void kjit__telemetry_get_stats(kjit__telemetry *t, kjit__telemetry_stats *out);

#endif /* KJIT_INSTR_H */
