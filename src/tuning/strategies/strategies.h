/*
 * strategies.h - the search strategies (strategies/), behind kjit.h's
 * kjit_strategy and kjit_search: what a strategy is and the batch contract
 * it keeps, every strategy by name, their options and the helpers they
 * share. Failures are reported through kjit__error(), so that
 * kjit_last_error() has the detail.
 */
#ifndef KJIT_STRATEGIES_H
#define KJIT_STRATEGIES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tuning.h"

/* ---- strategies (strategies/) --------------------------------------- */

/* An option of a strategy (a setting NAME=VALUE): a field of the
 * strategy's own options struct, at offset: a count (size_t) or a real
 * (double), from min to max, or one of words (an int, the word's index). */
typedef enum { KJIT__OPT_COUNT, KJIT__OPT_REAL, KJIT__OPT_WORD } kjit__opt_type;
typedef struct kjit__strategy_option {
	const char *name;
	kjit__opt_type type;
	size_t offset;
	double min, max;
	const char *const *words;  /* KJIT__OPT_WORD: NULL-terminated */
} kjit__strategy_option;

/* A search strategy. init() receives the space, the evaluation budget
 * (it may shape a schedule with it), a seed and its options (its own
 * struct, NULL: its defaults), and returns its state;
 * next() returns the next configuration index to evaluate, KJIT_SEARCH_WAIT
 * or -1; report() gives the objective of an index next() returned (lower
 * is better; INFINITY for a failure).
 *
 * The batch contract. The tuner has B measuring workers (1 ..
 * KJIT_SEARCH_BATCH_MAX; the strategy is not told B) and calls next() while fewer
 * than B proposals are outstanding: returned by next() and not yet
 * reported. Every index next() returned gets exactly one report(), and
 * the reports of outstanding proposals arrive in any order. A repeat of
 * a configuration already known is reported at once, from memory; a
 * repeat of an outstanding one when that one's result arrives.
 * next() returns KJIT_SEARCH_WAIT when it has nothing to propose until it
 * hears back, never while nothing is outstanding. -1 is final: next() is
 * not called again, and the proposals still outstanding are reported.
 * With B = 1 (next(), its report(), next() ...) a strategy proposes what
 * it always has for a seed. Each strategy's file says what it proposes
 * in a batch and when it waits. */

typedef struct kjit__strategy {
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
	const kjit__strategy_option *options;
	size_t options_size;
	const void *defaults;
	/* 0, with why (cap bytes) saying what is wrong, when the options
	 * (each already in its range) cannot go together; else 1. NULL: any
	 * combination goes. */
	int (*check)(const void *opts, char *why, size_t cap);
} kjit__strategy;

extern const kjit__strategy kjit__strategy_exhaustive;
extern const kjit__strategy kjit__strategy_random;
extern const kjit__strategy kjit__strategy_annealing;
extern const kjit__strategy kjit__strategy_genetic;
extern const kjit__strategy kjit__strategy_surrogate;
extern const kjit__strategy kjit__strategy_dual_annealing;
extern const kjit__strategy kjit__strategy_pso;
extern const kjit__strategy kjit__strategy_hybrid;


/* NULL-terminated list of every strategy, and lookup by name. */
extern const kjit__strategy *const kjit__strategies[];
const kjit__strategy *kjit__strategy_find(const char *name);
/* kind as a kjit_strategy with its defaults (kind outlives it), for
 * kjit_search_start(); NULL when out of memory. */
kjit_strategy *kjit__strategy_of(const kjit__strategy *kind);

/* ---- a strategy's options (strategies/options.c) -------------------- */

/* Lines said of what was not used (malloc'ed each). */
typedef struct kjit__warnings {
	char **line;
	size_t n;
} kjit__warnings;

/* Sets each of args[n] ("NAME=VALUE", which from names in messages,
 * NULL: "setting"), in order, on *opts, the options struct of strategy
 * for init(), which starts as its defaults when *opts is NULL
 * (malloc'ed; the caller frees it; it stays NULL when n is 0: init()
 * then takes the defaults). KJIT_ERR_INVALID_ARG naming the strategy,
 * the option and the strategy's options when a name is not one of them
 * or a value is not what the option takes (more than
 * KJIT_STRATEGY_SETTINGS_MAX is one too); *opts is then freed and NULL. */
kjit_status kjit__strategy_options_parse(const kjit__strategy *strategy, const char *const *args,
                                         size_t n, const char *from, void **opts);
/* kjit__strategy_options_parse() of a spec's T1 Search.Attributes
 * (spec->strategy_options; spec NULL: none), when strategy is the spec's:
 * an attribute that names no option of it, or one for another strategy
 * than the run's, is not used, which a line added to warn says.
 * KJIT_ERR_INVALID_ARG naming the spec and Search.Attributes when a value
 * is not what the option takes. */
kjit_status kjit__strategy_options_spec(const kjit__strategy *strategy, const kjit__spec *spec,
                                        kjit__warnings *warn, void **opts);
/* A run's options of strategy into *opts (NULL: the defaults; the
 * caller frees it): the spec's (kjit__strategy_options_spec()), then
 * args[n] (kjit__strategy_options_parse()), then the strategy's check()
 * of them together. On failure *opts is NULL and *from_spec says whether
 * the spec is at fault (1) or args (0: they were given, or the spec's
 * are fine alone and args changed them). */
kjit_status kjit__strategy_options_load(const kjit__strategy *strategy, const kjit__spec *spec,
                                        const char *const *args, size_t n, const char *from,
                                        kjit__warnings *warn, void **opts, int *from_spec);
/* The strategy's options as "NAME=DEFAULT NAME=DEFAULT" ("" when it has
 * none), malloc'ed; NULL when out of memory. */
char *kjit__strategy_options_text(const kjit__strategy *strategy);

/* Helpers shared by the strategies (strategies/common.c). In a sample of
 * a space too large to hold, the configurations they make by changing
 * values are built (kjit__space_add()), not only found in the sample, so
 * indices grow up to space->capacity: a strategy sizes what it keeps per
 * configuration by capacity. */
/* A random valid neighbour of index: one parameter changed. -1: none
 * found in a few tries. */
int64_t kjit__neighbour(const kjit__space *space, size_t index, kjit__rng *rng);
/* A random index whose visited[] is 0, -1 when every one is set. */
int64_t kjit__random_unvisited(size_t size, const uint8_t *visited, kjit__rng *rng);
/* The valid configuration nearest to pos, a point with one coordinate
 * per parameter in value indices: pos rounded when that is valid, else
 * the nearest of the space by squared distance (ties: the first). -1
 * for an empty space. */
int64_t kjit__snap(const kjit__space *space, const double *pos);
/* The configurations next to index along each parameter: for each, the
 * nearest valid value below and above with the others kept. Writes at
 * most 2 * n_params indices to out and returns how many. */
size_t kjit__adjacent(const kjit__space *space, size_t index, int64_t *out);

/* What a strategy has been told: each configuration's objective, once.
 * seen[] is KJIT__KNOWN once reported, KJIT__ASKED while proposed and
 * outstanding, 0 before (kjit__random_unvisited() avoids both). */
enum { KJIT__KNOWN = 1, KJIT__ASKED = 2 };
typedef struct kjit__told {
	uint8_t *seen;
	double *value;
	size_t n_seen;    /* known */
} kjit__told;
/* 0 when out of memory. */
int kjit__told_init(kjit__told *m, const kjit__space *space);
void kjit__told_free(kjit__told *m);
/* Marks index proposed and returns it (next()'s return). */
int64_t kjit__told_ask(kjit__told *m, int64_t index);
/* Records the objective of index; 0 when it was known already (kept). */
int kjit__told_put(kjit__told *m, size_t index, double objective);

/* A local search: first-improvement descent over the adjacent
 * configurations (kjit__adjacent()), looked at in a random order. In a batch
 * several neighbours are out at once: the descent moves on the first
 * better result and stays active, waiting, while neighbours it handed out
 * are still to be taken. */
typedef struct kjit__local {
	int active;       /* 0 once at a local minimum */
	int64_t at;       /* where the descent is */
	double value;
	int64_t *nb;      /* at's neighbours, 2 * n_params at most */
	size_t n_nb, next;
	int64_t out[KJIT_SEARCH_BATCH_MAX]; /* handed out, not yet taken */
	size_t n_out;
} kjit__local;
/* 0 when out of memory. */
int kjit__local_init(kjit__local *l, const kjit__space *space);
void kjit__local_free(kjit__local *l);
/* Starts (or moves) the descent at index, of objective value; what is
 * out stays out. */
void kjit__local_start(kjit__local *l, const kjit__space *space, size_t index, double value,
                    kjit__rng *rng);
/* Ends the descent, forgetting what is out. */
void kjit__local_stop(kjit__local *l);
/* The next neighbour to look at (out until taken); -1 when none is left:
 * at a local minimum (active is then 0), or, while neighbours are out,
 * until they are taken (active stays 1). */
int64_t kjit__local_next(kjit__local *l);
/* Configuration j has objective v (a neighbour handed out or any other
 * result): the descent moves there when it is active and v is lower. */
void kjit__local_take(kjit__local *l, const kjit__space *space, int64_t j, double v, kjit__rng *rng);

#endif /* KJIT_STRATEGIES_H */
