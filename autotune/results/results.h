/*
 * results.h - what kjit-tune found (results/): tuning results in the kjit
 * database (results.c), and what the configurations rejected as wrong
 * have in common (rejected.c).
 */
#ifndef KJIT_TUNE_RESULTS_H
#define KJIT_TUNE_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "tuning.h"
#include "kjit.h"

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
	kjit__objective objective; /* what the best is the least of; zero: time */
} kt_run_desc;

typedef struct kt_run {
	int64_t id;
	char *signature, *device_key, *problem;
	kjit__objective objective;
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
	/* What the launch did on the hardware and cost (kjit_variant_profile());
	 * NAN figures are unknown, stored NULL. */
	int has_profile;          /* 1: profile is set */
	kjit_profile profile;
} kt_eval;

/* The figure that e is the best by under objective: its median time, its
 * energy per launch, or their product; NAN when e is not ok or lacks it. */
double kt_eval_score(const kt_eval *e, kjit__objective objective);

/* Records e in ONE transaction: the results row (upsert on signature,
 * device key, problem, config, l2; the device columns too, so that they
 * name the latest measurement's), its profiles row (replaced, or removed
 * when e has none), runs.evaluated/updated and, when e is ok and its
 * score under the run's objective (kt_eval_score) is below the stored
 * best's (or the stored best is stale, or was chosen by another
 * objective), the best row (stale = 0, its objective the run's). A
 * negative device_ordinal that is set is KJIT_ERR_INVALID_ARG, nothing
 * stored. *result_id and *improved (1: the best is now e, newly or
 * lower) may be NULL. */
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

/* When another objective chose the run's best row, chooses it again under
 * the run's from every stored ok result with a score (a run that measured
 * nothing new still answers by its objective); a no-op otherwise. */
kjit_status kt_results_best_rechoose(kt_results *r, const kt_run *run);

/* The best row of (signature, device_key, problem): the objective that
 * chose it into *objective, and its result's profile into *profile
 * (reasons NULL) with *has_profile 1, or 0 when it has none.
 * KJIT_ERR_NOT_FOUND when there is no best row. */
kjit_status kt_results_best_profile(kt_results *r, const char *signature,
                                    const char *device_key, const char *problem,
                                    kjit__objective *objective, kjit_profile *profile,
                                    int *has_profile);

/* "3.41 TB/s DRAM, 71% of peak" or "52.1 TFLOP/s fp32, 64% of peak":
 * where p stands against the device's peak (kjit__profile_peak) into
 * buf; "" when it cannot be had. */
void kt_profile_peak_text(const kjit_profile *p, char *buf, size_t size);

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

#endif /* KJIT_TUNE_RESULTS_H */
