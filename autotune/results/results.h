/*
 * results.h - what kjit-tune found (results/): tuning results written out
 * as CSV, JSON and T4 (results.c), and what the configurations rejected
 * as wrong have in common (rejected.c).
 */
#ifndef KJIT_TUNE_RESULTS_H
#define KJIT_TUNE_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools.h"
#include "kjit.h"

/* ---- tuning results as kjit-tune writes them out (results.c) ---------- */

/* The database is the record room's (record.h): kjit-tune opens it with
 * kjit_records_open(), records its runs and reads them back there. */

typedef enum { KT_EXPORT_CSV, KT_EXPORT_JSON, KT_EXPORT_T4 } kt_export_format;

/* Writes the results of run_id (when > 0), or else of (signature,
 * device_key; NULL: the one, kjit_record_rows()) for the problems (JSON, as the results table has them), to
 * f. spec (may be NULL) gives the parameter names: CSV then has one
 * column per parameter and "time" (the objective), so that --replay
 * reads it back; and T4's time unit (spec->time_unit, default ms). T4
 * follows the T4 1.0.0 results and metadata schemas (doc/spec-format.md). */
kjit_status kt_results_export(kjit_records *rec, const kjit__spec *spec, int64_t run_id,
                              const char *signature, const char *device_key,
                              const char *const *problems, size_t n_problems,
                              kt_export_format format, FILE *f);

/* Writes the T4 export of (signature, device_key, problems) to path,
 * through a temporary file renamed into place. */
kjit_status kt_results_write_t4(kjit_records *rec, const kjit__spec *spec,
                                const char *signature, const char *device_key,
                                const char *const *problems, size_t n_problems,
                                const char *path);

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
