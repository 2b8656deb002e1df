/*
 * record.h - the record room of the tuning layer (record.c): the one
 * writer of the store's tuning tables (runs, results, profiles, best) and
 * the one home of the best-row policy. kjit-tune records its runs here,
 * online tuning its searches; the best table's reader is store_best.c.
 */
#ifndef KJIT_RECORD_H
#define KJIT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"

/* What a run is about. problem is JSON with sorted keys. */
typedef struct kjit__run_desc {
	const char *signature, *device_key, *kernel, *spec, *strategy, *problem;
	int64_t total; /* configurations to evaluate, 0 unknown */
	kjit__objective objective; /* what the best is the least of; zero: time */
} kjit__run_desc;

/* The (signature, device key, problem) that results are recorded under,
 * and the objective that chooses their best. id 0: no runs row (online
 * tuning): the results belong to no run. */
typedef struct kjit__run {
	int64_t id;
	char *signature, *device_key, *problem;
	kjit__objective objective;
	int resumed; /* an earlier run row (same signature, device key,
	              * problem and spec, not done) was continued */
} kjit__run;

/* Starts a run (a runs row, status running) or resumes the latest
 * unfinished one with the same signature, device key, problem and spec.
 * The caller frees *out with kjit__run_free(). */
kjit_status kjit__record_run_start(kjit__store *store, const kjit__run_desc *d,
                                   kjit__run **out);
void kjit__run_free(kjit__run *run);
/* Sets status (done|interrupted|failed) and the finished time. */
kjit_status kjit__record_run_finish(kjit__store *store, const kjit__run *run,
                                    const char *status);

/* One evaluated configuration. NULL text and NAN numbers are stored as
 * NULL; l2 NULL is "warm". */
typedef struct kjit__eval {
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
} kjit__eval;

/* The figure that e is the best by under objective: its median time, its
 * energy per launch, or their product; NAN when e is not ok or lacks it. */
double kjit__eval_score(const kjit__eval *e, kjit__objective objective);

/* Records e in ONE transaction: the results row (upsert on signature,
 * device key, problem, config, l2; the device columns too, so that they
 * name the latest measurement's), its profiles row (replaced, or removed
 * when e has none), runs.evaluated/updated and, when e is ok and its
 * score under the run's objective (kjit__eval_score) is below the stored
 * best's (or the stored best is stale, or was chosen by another
 * objective), the best row (stale = 0, its objective the run's). A
 * negative device_ordinal that is set is KJIT_ERR_INVALID_ARG, nothing
 * stored. *result_id and *improved (1: the best is now e, newly or
 * lower) may be NULL. */
kjit_status kjit__record_eval(kjit__store *store, const kjit__run *run, const kjit__eval *e,
                              int64_t *result_id, int *improved);

/* Records the evaluations of a search outside any run (online tuning) for
 * (signature, device_key, problem), as kjit__record_eval() does, in ONE
 * transaction, and makes evals[best], which the search chose under
 * objective, the best row whatever was stored before: its candidates
 * were measured together, under the same conditions. */
kjit_status kjit__record_search(kjit__store *store, const char *signature,
                                const char *device_key, const char *problem,
                                kjit__objective objective, const kjit__eval *evals, size_t n,
                                size_t best);

/* When another objective chose the run's best row, chooses it again under
 * the run's from every stored ok result with a score (a run that measured
 * nothing new still answers by its objective); a no-op otherwise. */
kjit_status kjit__record_rechoose(kjit__store *store, const kjit__run *run);

/* Marks a best row stale. */
kjit_status kjit__record_stale(kjit__store *store, const char *signature,
                               const char *device_key, const char *problem);

#endif /* KJIT_RECORD_H */
