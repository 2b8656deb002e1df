/*
 * strategies.h - the search strategies of kjit-tune (strategies/): what a
 * strategy is and the batch contract it keeps, every strategy by name, the
 * helpers they share, and the choice of a run's strategy. The space is the
 * engine layer's (tuning.h). Failures are reported through kjit__error(),
 * so that kjit_last_error() has the detail.
 */
#ifndef KJIT_TUNE_STRATEGIES_H
#define KJIT_TUNE_STRATEGIES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools.h"

/* ---- strategies (strategies/) --------------------------------------- */

/* Draws from the library's generator (kjit__rng, kjit__splitmix). */
/* Uniform in [0, n), n > 0. */
uint64_t kt_rng_below(kjit__rng *r, uint64_t n);
/* Uniform in [0, 1). */
double kt_rng_unit(kjit__rng *r);
/* Standard normal. */
double kt_rng_normal(kjit__rng *r);

/* An option of a strategy (--strategy-option NAME=VALUE): a field of the
 * strategy's own options struct, at offset: a count (size_t) or a real
 * (double), from min to max, or one of words (an int, the word's index). */
typedef enum { KT_OPT_COUNT, KT_OPT_REAL, KT_OPT_WORD } kt_opt_type;
typedef struct kt_option {
	const char *name;
	kt_opt_type type;
	size_t offset;
	double min, max;
	const char *const *words;  /* KT_OPT_WORD: NULL-terminated */
} kt_option;

/* A search strategy. init() receives the space, the evaluation budget
 * (it may shape a schedule with it), a seed and its options (its own
 * struct, NULL: its defaults), and returns its state;
 * next() returns the next configuration index to evaluate, KT_NEXT_WAIT
 * or -1; report() gives the objective of an index next() returned (lower
 * is better; INFINITY for a failure).
 *
 * The batch contract. The tuner has B measuring workers (1 ..
 * KT_BATCH_MAX; the strategy is not told B) and calls next() while fewer
 * than B proposals are outstanding: returned by next() and not yet
 * reported. Every index next() returned gets exactly one report(), and
 * the reports of outstanding proposals arrive in any order. A repeat of
 * a configuration already known is reported at once, from memory; a
 * repeat of an outstanding one when that one's result arrives.
 * next() returns KT_NEXT_WAIT when it has nothing to propose until it
 * hears back, never while nothing is outstanding. -1 is final: next() is
 * not called again, and the proposals still outstanding are reported.
 * With B = 1 (next(), its report(), next() ...) a strategy proposes what
 * it always has for a seed. Each strategy's file says what it proposes
 * in a batch and when it waits. */
#define KT_NEXT_WAIT (-2)
#define KT_BATCH_MAX 64
/* A strategy that proposes only configurations it has seen, this many in
 * a row, is stuck: its search ends. */
#define KT_STUCK_REPEATS 10000

typedef struct kt_strategy {
	const char *name;
	const char *summary;
	/* 1 when next() does not wait for report(): the tuner then takes a
	 * window of proposals and compiles them ahead of the measurements. */
	int ahead;
	void *(*init)(const kjit__space *space, size_t budget, uint64_t seed, const void *opts);
	int64_t (*next)(void *state);
	void (*report)(void *state, size_t index, double objective);
	void (*free)(void *state);
	/* Its options, NULL-terminated by name (NULL: none), and their
	 * struct: its size and the defaults, kjit's settings. */
	const kt_option *options;
	size_t options_size;
	const void *defaults;
	/* 0, with why (cap bytes) saying what is wrong, when the options
	 * (each already in its range) cannot go together; else 1. NULL: any
	 * combination goes. */
	int (*check)(const void *opts, char *why, size_t cap);
} kt_strategy;

extern const kt_strategy kt_strategy_exhaustive;
extern const kt_strategy kt_strategy_random;
extern const kt_strategy kt_strategy_annealing;
extern const kt_strategy kt_strategy_genetic;
extern const kt_strategy kt_strategy_surrogate;
extern const kt_strategy kt_strategy_dual_annealing;
extern const kt_strategy kt_strategy_pso;
extern const kt_strategy kt_strategy_hybrid;

/* The strategy kjit-tune uses when a budget is set and no strategy is
 * named (doc/kjit-tune.1 says why this one). */
#define KT_STRATEGY_DEFAULT "hybrid"

/* NULL-terminated list of every strategy, and lookup by name. */
extern const kt_strategy *const kt_strategies[];
const kt_strategy *kt_strategy_find(const char *name);

/* ---- a strategy's options (strategies/options.c) -------------------- */

/* The most --strategy-option arguments of a run. */
#define KT_OPTION_ARGS_MAX 32

/* Sets each of args[n] ("NAME=VALUE", --strategy-option), in order, on
 * *opts, the options struct of strategy for init(), which starts as its
 * defaults when *opts is NULL (malloc'ed; the caller frees it; it stays
 * NULL when n is 0: init() then takes the defaults).
 * KJIT_ERR_INVALID_ARG naming the strategy, the option and the
 * strategy's options when a name is not one of them or a value is not
 * what the option takes (more than KT_OPTION_ARGS_MAX is one too); *opts
 * is then freed and NULL. */
kjit_status kt_options_parse(const kt_strategy *strategy, const char *const *args, size_t n,
                             void **opts);
/* kt_options_parse() of a spec's T1 Search.Attributes
 * (spec->strategy_options), when strategy is the spec's: an attribute
 * that names no option of it, or one for another strategy than the run's,
 * is not used, which a warning line on warn says. KJIT_ERR_INVALID_ARG
 * naming the spec and Search.Attributes when a value is not what the
 * option takes. */
kjit_status kt_options_spec(const kt_strategy *strategy, const kjit__spec *spec, FILE *warn,
                            void **opts);
/* A run's options of strategy into *opts (NULL: the defaults; the
 * caller frees it): the spec's (kt_options_spec()), then the command
 * line's args[n] (kt_options_parse()), then the strategy's check() of
 * them together. On failure *opts is NULL and *from_spec says whether
 * the spec is at fault (1) or the command line (0: it gave options, or
 * the spec's are fine alone and the command line's changed them). */
kjit_status kt_options_load(const kt_strategy *strategy, const kjit__spec *spec,
                            const char *const *args, size_t n, FILE *warn, void **opts,
                            int *from_spec);
/* The strategy's options as NAME=DEFAULT words (nothing when it has
 * none), for --help. */
void kt_options_print(FILE *f, const kt_strategy *strategy);

/* Helpers shared by the strategies (strategies/common.c). In a sample of
 * a space too large to hold, the configurations they make by changing
 * values are built (kjit__space_add()), not only found in the sample, so
 * indices grow up to space->capacity: a strategy sizes what it keeps per
 * configuration by capacity. */
/* A random valid neighbour of index: one parameter changed. -1: none
 * found in a few tries. */
int64_t kt_neighbour(const kjit__space *space, size_t index, kjit__rng *rng);
/* A random index whose visited[] is 0, -1 when every one is set. */
int64_t kt_random_unvisited(size_t size, const uint8_t *visited, kjit__rng *rng);
/* The valid configuration nearest to pos, a point with one coordinate
 * per parameter in value indices: pos rounded when that is valid, else
 * the nearest of the space by squared distance (ties: the first). -1
 * for an empty space. */
int64_t kt_snap(const kjit__space *space, const double *pos);
/* The configurations next to index along each parameter: for each, the
 * nearest valid value below and above with the others kept. Writes at
 * most 2 * n_params indices to out and returns how many. */
size_t kt_adjacent(const kjit__space *space, size_t index, int64_t *out);

/* What a strategy has been told: each configuration's objective, once.
 * seen[] is KT_KNOWN once reported, KT_ASKED while proposed and
 * outstanding, 0 before (kt_random_unvisited() avoids both). */
enum { KT_KNOWN = 1, KT_ASKED = 2 };
typedef struct kt_memo {
	uint8_t *seen;
	double *value;
	size_t n_seen;    /* known */
} kt_memo;
/* 0 when out of memory. */
int kt_memo_init(kt_memo *m, const kjit__space *space);
void kt_memo_free(kt_memo *m);
/* Marks index proposed and returns it (next()'s return). */
int64_t kt_memo_ask(kt_memo *m, int64_t index);
/* Records the objective of index; 0 when it was known already (kept). */
int kt_memo_put(kt_memo *m, size_t index, double objective);

/* A local search: first-improvement descent over the adjacent
 * configurations (kt_adjacent()), looked at in a random order. In a batch
 * several neighbours are out at once: the descent moves on the first
 * better result and stays active, waiting, while neighbours it handed out
 * are still to be taken. */
typedef struct kt_local {
	int active;       /* 0 once at a local minimum */
	int64_t at;       /* where the descent is */
	double value;
	int64_t *nb;      /* at's neighbours, 2 * n_params at most */
	size_t n_nb, next;
	int64_t out[KT_BATCH_MAX]; /* handed out, not yet taken */
	size_t n_out;
} kt_local;
/* 0 when out of memory. */
int kt_local_init(kt_local *l, const kjit__space *space);
void kt_local_free(kt_local *l);
/* Starts (or moves) the descent at index, of objective value; what is
 * out stays out. */
void kt_local_start(kt_local *l, const kjit__space *space, size_t index, double value,
                    kjit__rng *rng);
/* Ends the descent, forgetting what is out. */
void kt_local_stop(kt_local *l);
/* The next neighbour to look at (out until taken); -1 when none is left:
 * at a local minimum (active is then 0), or, while neighbours are out,
 * until they are taken (active stays 1). */
int64_t kt_local_next(kt_local *l);
/* Configuration j has objective v (a neighbour handed out or any other
 * result): the descent moves there when it is active and v is lower. */
void kt_local_take(kt_local *l, const kjit__space *space, int64_t j, double v, kjit__rng *rng);

/* ---- a run's strategy, by its budget (strategies/common.c) ----------- */

/* A budget: the smallest of the set limits; 0 means unset. */
typedef struct kt_budget {
	size_t evaluations;
	double fraction;  /* of the constrained space, (0, 1] */
	double seconds;   /* wall time */
} kt_budget;

/* The name of the strategy of a run: the command line's, else the
 * spec's, else KT_STRATEGY_DEFAULT when budget sets a limit, else
 * exhaustive (either name may be NULL). */
const char *kt_strategy_choose(const char *cli, const char *spec, const kt_budget *budget);

#endif /* KJIT_TUNE_STRATEGIES_H */
