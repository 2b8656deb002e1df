/*
 * record.h - the record room of the tuning layer: the one writer of the
 * store's tuning tables (runs, results, profiles, best) and the one home
 * of the best-row policy (record.c), and their reader for kjit-tune
 * (record_read.c). kjit-tune records and reads its runs through a records
 * handle, online tuning records its searches on its engine's store; the
 * best table's reader for kjit_launch() is store_best.c.
 */
#ifndef KJIT_RECORD_H
#define KJIT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"

struct kjit_space;
struct kjit_spec;

/* A connection of the record room's own to the kjit database. */
typedef struct kjit__records kjit__records;

/* Opens the database at path (NULL: kjit_store_default_path()) as
 * kjit__store_open() does; with must_exist, a missing file is
 * KJIT_ERR_NOT_FOUND naming it instead of a new, empty database. The
 * caller closes *out with kjit__records_close(). */
kjit_status kjit__records_open(const char *path, int must_exist, kjit__records **out);
/* Closes rec; its status says whether the last writes landed. */
kjit_status kjit__records_close(kjit__records *rec);

/* What a run is about. problem is JSON with sorted keys. */
typedef struct kjit__run_desc {
	const char *signature, *device_key, *kernel, *spec, *strategy, *problem;
	int64_t total; /* configurations to evaluate, 0 unknown */
	kjit_objective objective; /* what the best is the least of; zero: time */
} kjit__run_desc;

/* The (signature, device key, problem) that results are recorded under,
 * and the objective that chooses their best. id 0: no runs row (online
 * tuning): the results belong to no run. */
typedef struct kjit__run {
	int64_t id;
	char *signature, *device_key, *problem;
	kjit_objective objective;
	int resumed; /* an earlier run row (same signature, device key,
	              * problem and spec, not done) was continued */
} kjit__run;

/* Starts a run (a runs row, status running) or resumes the latest
 * unfinished one with the same signature, device key, problem and spec.
 * The caller frees *out with kjit__run_free(). */
kjit_status kjit__record_run_start(kjit__records *rec, const kjit__run_desc *d,
                                   kjit__run **out);
void kjit__run_free(kjit__run *run);
/* Sets status (done|interrupted|failed) and the finished time; then,
 * when another objective chose the run's best row, chooses it again under
 * the run's from every stored ok result with a score (a run that
 * measured nothing new still answers by its objective). */
kjit_status kjit__record_run_finish(kjit__records *rec, const kjit__run *run,
                                    const char *status);

/* One evaluated configuration. NULL text and NAN numbers are stored as
 * NULL; l2 NULL is "warm". */
typedef struct kjit__eval {
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
double kjit__eval_score(const kjit__eval *e, kjit_objective objective);

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
kjit_status kjit__record_eval(kjit__records *rec, const kjit__run *run, const kjit__eval *e,
                              int64_t *result_id, int *improved);

/* Records the evaluations of a search outside any run (online tuning) for
 * (signature, device_key, problem), as kjit__record_eval() does, in ONE
 * transaction, and makes evals[best], which the search chose under
 * objective, the best row whatever was stored before: its candidates
 * were measured together, under the same conditions. */
kjit_status kjit__record_search(kjit__store *store, const char *signature,
                                const char *device_key, const char *problem,
                                kjit_objective objective, const kjit__eval *evals, size_t n,
                                size_t best);

/* Marks a best row stale. */
kjit_status kjit__record_stale(kjit__store *store, const char *signature,
                               const char *device_key, const char *problem);

/* ---- reading (record_read.c) --------------------------------------- */

/* A device_key NULL below is the one device key that the results of the
 * signature have: KJIT_ERR_NOT_FOUND when they have none, and
 * KJIT_ERR_INVALID_ARG asking for one when they have several. */

/* The objective table of space for (signature, device_key, its problem)
 * under objective by: *objective (space->size doubles) holds each
 * configuration's score (kjit__objective_sql()), INFINITY for a failure
 * or no score; *have (may be NULL) marks the configurations known under
 * by: a failure, a success with the objective's figure, and under time a
 * configuration a race stopped as slow, so that a result measured for
 * time alone is measured again for energy. With several l2 rows, the
 * lowest score counts. Rows outside the space (kjit__config_from_json()) are
 * counted in *ignored (may be NULL). The caller frees the arrays. */
kjit_status kjit__record_load(kjit__records *rec, const struct kjit_space *space,
                              const char *signature, const char *device_key,
                              kjit_objective by, double **objective, uint8_t **have,
                              size_t *ignored);

/* The best row of (signature, device_key, problem), into each output
 * that is not NULL: its configuration (malloc'ed; NULL first), its
 * median, the objective that chose it (one of a later kjit: time), and
 * its result's profile (reasons NULL; cleared first) with *has_profile
 * 1, or 0 when it has none. KJIT_ERR_NOT_FOUND when there is none. */
kjit_status kjit__record_best(kjit__records *rec, const char *signature,
                              const char *device_key, const char *problem, char **config,
                              double *median_ns, kjit_objective *objective,
                              kjit_profile *profile, int *has_profile);

/* Which results rows to read: run_id's (when > 0), or else those of
 * (signature, device_key; NULL: the one) for the problems (JSON, as the results table
 * has them; at most KJIT__RECORD_PROBLEMS_MAX). spec (may be NULL) names
 * the parameters whose values each row carries. */
#define KJIT__RECORD_PROBLEMS_MAX 30000
typedef struct kjit__record_query {
	int64_t run_id;
	const char *signature, *device_key;
	const char *const *problems;
	size_t n_problems;
	const struct kjit_spec *spec;
} kjit__record_query;

/* A results row and its profile, valid during the callback. A NULL
 * column is a NULL text or a NAN number. */
typedef struct kjit__record_row {
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
} kjit__record_row;

/* What reads the rows: begin once, before them, with the subject (the
 * query's signature and device key, or the run's), then row for each in
 * id order. */
typedef struct kjit__record_reader {
	void (*begin)(void *ctx, const char *signature, const char *device_key);
	void (*row)(void *ctx, const kjit__record_row *row);
	void *ctx;
} kjit__record_reader;

/* Reads the rows of q, in one read under the store's lock. begin is not
 * called when the query cannot start. */
kjit_status kjit__record_rows(kjit__records *rec, const kjit__record_query *q,
                              const kjit__record_reader *reader);

#endif /* KJIT_RECORD_H */
