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

#include "tools.h"
#include "kjit.h"

/* ---- tuning results in the kjit database (results.c) ------------------ */

/* A connection of its own to the kjit database (kjit__store). */
typedef struct kt_results kt_results;
/* path NULL: $KJIT_DB, else the user cache. */
kjit_status kt_results_open(const char *path, kt_results **out);
/* Closes the database; its status says whether the last writes landed. */
kjit_status kt_results_close(kt_results *r);
sqlite3 *kt_results_db(kt_results *r);

/* Runs and evaluations are written by the record room (record.h):
 * kjit__record_run_start(), kjit__record_run_finish(), kjit__record_eval()
 * and kjit__record_rechoose() on r's connection. */
kjit_status kt_run_start(kt_results *r, const kjit__run_desc *d, kjit__run **out);
kjit_status kt_run_finish(kt_results *r, const kjit__run *run, const char *status);

kjit_status kt_results_record(kt_results *r, const kjit__run *run, const kjit__eval *e,
                              int64_t *result_id, int *improved);

/* The objective table of space for (signature, device_key, problem)
 * under objective by: *objective (space->size doubles) holds each
 * configuration's score (kjit__objective_sql()), INFINITY for a failure
 * or no score; *have (may be NULL) marks the configurations known under
 * by (resume skips them unless --force): a failure, a success with the
 * objective's figure, and under time a configuration a race stopped as
 * slow, so that a result measured for time alone is measured again for
 * energy. With several l2 rows, the lowest score
 * counts. Rows outside the space are counted in *ignored (may be NULL). */
kjit_status kt_results_load(kt_results *r, const kjit__space *space, const char *signature,
                            const char *device_key, kjit__objective by, double **objective,
                            uint8_t **have, size_t *ignored);

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

kjit_status kt_results_best_rechoose(kt_results *r, const kjit__run *run);


/* The best row of (signature, device_key, problem): the objective that
 * chose it into *objective, and its result's profile into *profile
 * (reasons NULL) with *has_profile 1, or 0 when it has none.
 * KJIT_ERR_NOT_FOUND when there is no best row. */
kjit_status kt_results_best_profile(kt_results *r, const char *signature,
                                    const char *device_key, const char *problem,
                                    kjit__objective *objective, kjit_profile *profile,
                                    int *has_profile);

/* "3.41 TB/s DRAM, 71% of peak" or "52.1 TFLOP/s fp32, 64% of peak":
 * where p stands against the device's peak (kjit_profile_peak) into
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
