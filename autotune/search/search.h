/*
 * search.h - the search driver of kjit-tune (search/): a budget in
 * configurations, and replay: a strategy (kjit.h's kjit_search) run
 * against known results as the tuner would run it, so that strategies can
 * be compared with no GPU, or against another program's answers (--ask).
 */
#ifndef KJIT_TUNE_SEARCH_H
#define KJIT_TUNE_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools.h"
#include "kjit.h"

/* ---- the search driver and replay (replay.c) ------------------------ */

/* A budget: the smallest of the set limits; 0 means unset. */
typedef struct kt_budget {
	size_t evaluations;
	double fraction;  /* of the constrained space, (0, 1] */
	double seconds;   /* wall time */
} kt_budget;

/* 1 when b sets a limit (kjit_strategy_options.limited). */
int kt_budget_limited(const kt_budget *b);

/* The evaluation budget in configurations for a space. */
size_t kt_budget_evaluations(const kt_budget *b, size_t space_size);

typedef struct kt_replay_result {
	size_t evaluations;       /* distinct configurations evaluated */
	int64_t best_found;       /* index, -1 when all failed */
	double best_found_value;
	size_t evals_to_found;    /* evaluations when best_found was first seen */
	int64_t best_known;       /* the table's best, -1 when all failed */
	double best_known_value;
	size_t evals_to_known;    /* 0 when the best known was not reached */
	size_t evals_to_within;   /* evaluations when a value within the
	                           * fraction `within` of the best known was
	                           * first seen; 0 when never */
	double seconds;           /* the simulated clock at the end (0 without one) */
	double seconds_to_within; /* the simulated clock at evals_to_within */
} kt_replay_result;

/* How a replay runs. */
typedef struct kt_replay_opts {
	const kt_budget *budget;  /* NULL: none */
	uint64_t seed;            /* the strategy's, and the order results arrive in */
	double within;            /* evals_to_within's tolerance (0.05: within 5% of
	                           * the best known) */
	int until;                /* stop once a value within the tolerance is found
	                           * (bench-search: the rest would not change
	                           * evals_to_within) */
	size_t batch;             /* proposals outstanding, 1 .. KJIT_SEARCH_BATCH_MAX (0: 1) */
	/* The simulated clock, when both costs are set (milliseconds per
	 * configuration): each proposal is compiled on one of `workers`
	 * (first come, first served) and then measured on one of `gpus` (in
	 * the order the compiles end); its result arrives when its
	 * measurement ends. The strategy has workers + gpus proposals
	 * outstanding (at most KJIT_SEARCH_BATCH_MAX; batch is not used), and the time
	 * budget is of simulated seconds. */
	const double *compile_ms, *measure_ms;
	size_t workers, gpus;     /* 0: 1 */
	/* The objective of a configuration asked of the caller when its result
	 * arrives, instead of looked up (objective is then NULL): lower is
	 * better, INFINITY a failure, NAN ends the search there (the caller has
	 * no more answers; the result is not reported). */
	double (*ask)(void *ctx, size_t index);
	void *ask_ctx;
} kt_replay_opts;

/* Runs strategy on space against objective[space->size] (INFINITY for a
 * failure), or o->ask's answers, as the tuner would with o->batch workers (the batch contract
 * above): results arrive in a pseudo-random order of the seed among the
 * outstanding proposals, or as the simulated clock has them; repeats are
 * answered from memory (they do not count, and cost no time). Ends when the strategy is done or the evaluation budget is
 * spent (with what was outstanding reported), or at once at the time
 * budget or o->until. KJIT_ERR_INVALID_ARG when the strategy breaks the
 * contract (an index outside the space, KJIT_SEARCH_WAIT with nothing
 * outstanding). */
kjit_status kt_replay(const kjit__space *space, const kjit_strategy *strategy,
                      const kt_replay_opts *o, const double *objective, kt_replay_result *out);
/* kt_replay() with batch 1 and within 0. */
kjit_status kt_replay_run(const kjit__space *space, const kjit_strategy *strategy,
                          const kt_budget *budget, uint64_t seed,
                          const double *objective, kt_replay_result *out);

/* ---- the search driver against another program's answers (ask.c) --- */

/* The longest answer line --ask reads, without its line end. */
#define KT_ASK_LINE 64

/* Runs strategy on space with the objectives another program gives
 * (kjit-tune --ask): for each configuration, in the order the strategy
 * proposes them (one at a time), a line of its value indices (one per
 * parameter, in the spec's order, separated by spaces) on out, then a
 * line read from in: the objective (a number >= 0, lower is better) or
 * "fail". A configuration proposed again is answered from memory, not
 * asked. Ends when the strategy is done, the budget is spent or in ends
 * (KJIT_OK); an answer of another form is KJIT_ERR_INVALID_ARG naming
 * it. */
kjit_status kt_ask(const kjit__space *space, const kjit_strategy *strategy,
                   const kt_budget *budget, uint64_t seed, FILE *in, FILE *out);

/* The largest results file --replay reads. */
#define KT_REPLAY_MAX_BYTES ((size_t)1 << 30)

/* Loads (configuration -> time) from a CSV (a header of parameter names
 * and "time") or JSON (an array of objects with the parameter names and
 * "time") file. Configurations of the space that the file lacks are
 * INFINITY; rows outside the space are counted in *ignored. *out
 * (space->size doubles) is malloc'ed. */
kjit_status kt_replay_load(const kjit__space *space, const char *path, double **out,
                           size_t *ignored);
/* kt_replay_load(), and the costs of the simulated clock when the CSV has
 * the columns compile_ms and benchmark_ms (both, else *compile_ms and
 * *measure_ms are NULL): per configuration, malloc'ed, 0 where the file
 * lacks the configuration or the cost. */
kjit_status kt_replay_load_costs(const kjit__space *space, const char *path, double **out,
                                 double **compile_ms, double **measure_ms, size_t *ignored);
/* kt_replay_load_costs() of a file's text already read (len bytes, any
 * bytes; path names it in messages). */
kjit_status kt_replay_parse(const kjit__space *space, const char *path, const char *text,
                            size_t len, double **out, double **compile_ms, double **measure_ms,
                            size_t *ignored);

#endif /* KJIT_TUNE_SEARCH_H */
