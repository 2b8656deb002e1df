/*
 * search.c - kjit.h's strategies and searches: a strategy made from its
 * name and settings, checked once, and a search of one space asked for
 * configurations and told their objective, with the batch contract of
 * strategies.h enforced at the door.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strategies.h"

/* The most of an unknown strategy's name a message repeats. */
#define NAME_ECHO 64

struct kjit_strategy {
	const kjit__strategy *kind;
	void *opts;            /* NULL: the strategy's defaults */
	kjit__warnings warn;
};

struct kjit_search {
	const kjit__strategy *kind;
	const kjit__space *space;
	void *state;
	uint32_t *out;         /* by index (capacity + 1): asked, not yet told */
	size_t outstanding;    /* their sum */
	int ended;
};

size_t kjit_strategy_count(void)
{
	size_t n = 0;
	while (kjit__strategies[n])
		n++;
	return n;
}

kjit_status kjit_strategy_describe(size_t i, const char **name, const char **summary,
                                   char **settings)
{
	if (!name || !summary)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_strategy_describe: NULL argument");
	if (settings)
		*settings = NULL;
	if (i >= kjit_strategy_count())
		return kjit__error(KJIT_ERR_NOT_FOUND, "kjit_strategy_describe: there are %zu "
		                   "strategies, not %zu", kjit_strategy_count(), i + 1);
	const kjit__strategy *s = kjit__strategies[i];
	*name = s->name;
	*summary = s->summary;
	if (settings && !(*settings = kjit__strategy_options_text(s)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	return KJIT_OK;
}

const char *kjit_strategy_canonical(const char *name)
{
	if (!name)
		return NULL;
	const kjit__strategy *s = kjit__strategy_find(name);
	if (s)
		return s->name;
	const char *t1 = kjit__spec_strategy_name(name);
	return t1 && (s = kjit__strategy_find(t1)) ? s->name : NULL;
}

void kjit_strategy_options_init(kjit_strategy_options *opts)
{
	if (opts)
		memset(opts, 0, sizeof *opts);
}

void kjit_strategy_free(kjit_strategy *strategy)
{
	if (!strategy)
		return;
	for (size_t i = 0; i < strategy->warn.n; i++)
		free(strategy->warn.line[i]);
	free(strategy->warn.line);
	free(strategy->opts);
	free(strategy);
}

/* The strategy o names: its own, else the spec's, else by the budget. */
static const char *name_of(const kjit_strategy_options *o, kjit_strategy_fault *fault)
{
	if (o->name) {
		*fault = KJIT_STRATEGY_FAULT_NAME;
		return o->name;
	}
	if (o->spec && o->spec->strategy) {
		*fault = KJIT_STRATEGY_FAULT_SPEC;
		return o->spec->strategy;
	}
	return o->limited ? KJIT_STRATEGY_DEFAULT : "exhaustive";
}

kjit_strategy *kjit__strategy_of(const kjit__strategy *kind)
{
	kjit_strategy *s = calloc(1, sizeof *s);
	if (s)
		s->kind = kind;
	else
		kjit__error(KJIT_ERR_NOMEM, "out of memory");
	return s;
}

kjit_status kjit_strategy_new(const kjit_strategy_options *opts, kjit_strategy **out,
                              kjit_strategy_fault *fault)
{
	kjit_strategy_fault ignored;
	if (!fault)
		fault = &ignored;
	*fault = KJIT_STRATEGY_FAULT_NONE;
	if (!opts || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_strategy_new: NULL argument");
	*out = NULL;
	if (opts->n_settings && !opts->settings)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_strategy_new: %zu settings at NULL",
		                   opts->n_settings);
	kjit_strategy_fault by = KJIT_STRATEGY_FAULT_NONE;
	const char *name = name_of(opts, &by);
	const char *canonical = kjit_strategy_canonical(name);
	if (!canonical) {
		*fault = by;
		/* a name is echoed up to NAME_ECHO bytes: it may be anything */
		if (by == KJIT_STRATEGY_FAULT_SPEC)
			return kjit__error(KJIT_ERR_INVALID_ARG, "%s: the spec's search strategy '%.*s' "
			                   "is not one of kjit's", opts->spec->path, NAME_ECHO, name);
		return kjit__error(KJIT_ERR_INVALID_ARG, "unknown strategy '%.*s'", NAME_ECHO, name);
	}
	kjit_strategy *s = kjit__strategy_of(kjit__strategy_find(canonical));
	if (!s)
		return KJIT_ERR_NOMEM;
	int from_spec = 0;
	kjit_status st = kjit__strategy_options_load(s->kind, opts->spec, opts->settings,
	                                             opts->n_settings, opts->settings_from,
	                                             &s->warn, &s->opts, &from_spec);
	if (st != KJIT_OK) {
		*fault = st == KJIT_ERR_NOMEM ? KJIT_STRATEGY_FAULT_NONE
		         : from_spec ? KJIT_STRATEGY_FAULT_SPEC : KJIT_STRATEGY_FAULT_SETTINGS;
		kjit_strategy_free(s);
		return st;
	}
	*out = s;
	return KJIT_OK;
}

const char *kjit_strategy_name(const kjit_strategy *strategy)
{
	return strategy ? strategy->kind->name : NULL;
}

int kjit_strategy_ahead(const kjit_strategy *strategy)
{
	return strategy ? strategy->kind->ahead : 0;
}

const char *const *kjit_strategy_warnings(const kjit_strategy *strategy, size_t *n)
{
	if (n)
		*n = strategy ? strategy->warn.n : 0;
	return strategy ? (const char *const *)strategy->warn.line : NULL;
}

kjit_status kjit_search_start(const kjit_strategy *strategy, const kjit_space *space,
                              size_t budget, uint64_t seed, kjit_search **out)
{
	if (!strategy || !space || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_search_start: NULL argument");
	*out = NULL;
	kjit_search *s = calloc(1, sizeof *s);
	if (!s)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	s->kind = strategy->kind;
	s->space = space;
	if (!budget || budget > space->size)
		budget = space->size;
	if (!(s->out = calloc(space->capacity + 1, sizeof *s->out)) ||
	    !(s->state = s->kind->init(space, budget, seed, strategy->opts))) {
		free(s->out);
		free(s);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	*out = s;
	return KJIT_OK;
}

kjit_status kjit_search_ask(kjit_search *search, int64_t *index)
{
	if (!search || !index)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_search_ask: NULL argument");
	if (search->ended) {
		*index = KJIT_SEARCH_END;
		return KJIT_OK;
	}
	int64_t j = search->kind->next(search->state);
	*index = KJIT_SEARCH_END;
	if (j == KJIT_SEARCH_WAIT && !search->outstanding)
		return kjit__error(KJIT_ERR_INVALID_ARG, "strategy %s waits with nothing "
		                   "outstanding", search->kind->name);
	if (j == KJIT_SEARCH_WAIT) {
		*index = j;
		return KJIT_OK;
	}
	if (j == KJIT_SEARCH_END) {
		search->ended = 1;
		return KJIT_OK;
	}
	/* a sample of a space too large to hold grows as strategies add to it */
	if (j < 0 || (size_t)j >= search->space->size)
		return kjit__error(KJIT_ERR_INVALID_ARG, "strategy %s proposed %lld of %zu",
		                   search->kind->name, (long long)j, search->space->size);
	if (search->out[j] == UINT32_MAX)
		return kjit__error(KJIT_ERR_INVALID_ARG, "strategy %s proposed %lld again while "
		                   "%u of it are outstanding", search->kind->name, (long long)j,
		                   search->out[j]);
	search->out[j]++;
	search->outstanding++;
	*index = j;
	return KJIT_OK;
}

kjit_status kjit_search_tell(kjit_search *search, size_t index, double objective)
{
	if (!search)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_search_tell: NULL argument");
	if (!search->outstanding)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_search_tell: configuration %zu was "
		                   "not asked for (nothing is outstanding)", index);
	if (index >= search->space->size)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_search_tell: configuration %zu of "
		                   "%zu", index, search->space->size);
	if (!search->out[index])
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_search_tell: configuration %zu is "
		                   "not outstanding (told already, or never asked for)", index);
	search->out[index]--;
	search->outstanding--;
	search->kind->report(search->state, index, isnan(objective) ? INFINITY : objective);
	return KJIT_OK;
}

void kjit_search_free(kjit_search *search)
{
	if (!search)
		return;
	search->kind->free(search->state);
	free(search->out);
	free(search);
}
