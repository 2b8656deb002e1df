/*
 * options.c - a strategy's options (settings NAME=VALUE): each
 * setting parsed into the field of the strategy's own options struct
 * its table names, and the tables described for messages and --help.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strategies.h"

/* The longest name or value a message repeats. */
#define ECHO_MAX 40

/* What option o takes, as "popsize (a count from 1 to 65536)". */
static void describe(kjit__buf *b, const kjit__strategy_option *o)
{
	char text[80];
	kjit__buf_str(b, o->name);
	if (o->type == KJIT__OPT_WORD) {
		kjit__buf_str(b, " (one of ");
		for (size_t w = 0; o->words[w]; w++) {
			kjit__buf_str(b, w ? ", " : "");
			kjit__buf_str(b, o->words[w]);
		}
		kjit__buf_str(b, ")");
		return;
	}
	snprintf(text, sizeof text, " (%s from %.15g to %.15g)",
	         o->type == KJIT__OPT_COUNT ? "a count" : "a number", o->min, o->max);
	kjit__buf_str(b, text);
}

/* The strategy's options as "popsize (a count ...); maxiter (...)"
 * (malloc'ed; NULL when out of memory). */
static char *list(const kjit__strategy *s)
{
	kjit__buf b = { 0 };
	kjit__buf_str(&b, "");
	for (const kjit__strategy_option *o = s->options; o && o->name; o++) {
		kjit__buf_str(&b, o == s->options ? "" : "; ");
		describe(&b, o);
	}
	return kjit__buf_done(&b);
}

/* The error of argument arg of strategy s, given by from: what is wrong,
 * then the strategy's options. */
static kjit_status refuse(const kjit__strategy *s, const char *from, const char *what,
                          const char *arg)
{
	char *options = list(s);
	kjit_status st = kjit__error(KJIT_ERR_INVALID_ARG, "%s '%.*s%s': strategy %s %s%s%s",
	                             from, ECHO_MAX, arg, strlen(arg) > ECHO_MAX ? "..." : "",
	                             s->name, s->options ? what : "has no options",
	                             s->options ? "; its options: " : "",
	                             options ? options : "");
	free(options);
	return st;
}

/* The option of strategy s that arg ("NAME=VALUE") names; NULL when none
 * does. */
static const kjit__strategy_option *named(const kjit__strategy *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	for (const kjit__strategy_option *o = s->options; eq && o && o->name; o++)
		if (strlen(o->name) == (size_t)(eq - arg) && strncmp(o->name, arg, (size_t)(eq - arg)) == 0)
			return o;
	return NULL;
}

/* Sets option o of the struct opts to text; 0 when text is not a value
 * it takes. */
static int set(const kjit__strategy_option *o, void *opts, const char *text)
{
	char *field = (char *)opts + o->offset, *end = NULL;
	if (o->type == KJIT__OPT_WORD) {
		for (int w = 0; o->words[w]; w++)
			if (strcmp(text, o->words[w]) == 0) {
				memcpy(field, &w, sizeof w);
				return 1;
			}
		return 0;
	}
	double v;
	errno = 0;
	if (o->type == KJIT__OPT_COUNT)
		v = isdigit((unsigned char)*text) ? (double)strtoull(text, &end, 10) : NAN;
	else
		v = strtod(text, &end);
	if (!isfinite(v) || end == text || *end || errno ||
	    !(v >= o->min && v <= o->max))
		return 0;
	if (o->type == KJIT__OPT_COUNT) {
		size_t n = (size_t)v;
		memcpy(field, &n, sizeof n);
	} else {
		memcpy(field, &v, sizeof v);
	}
	return 1;
}

/* Sets arg ("NAME=VALUE", given by from) on the options *opts of s,
 * allocated with the defaults when NULL. */
static kjit_status set_arg(const kjit__strategy *s, void **opts, const char *arg,
                           const char *from)
{
	const kjit__strategy_option *o = named(s, arg);
	if (!strchr(arg, '='))
		return refuse(s, from, "takes NAME=VALUE", arg);
	if (!o)
		return refuse(s, from, "has no option of that name", arg);
	if (!*opts) {
		if (!(*opts = malloc(s->options_size)))
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		memcpy(*opts, s->defaults, s->options_size);
	}
	if (set(o, *opts, strchr(arg, '=') + 1))
		return KJIT_OK;
	kjit__buf b = { 0 };
	kjit__buf_str(&b, "takes ");
	describe(&b, o);
	char *what = kjit__buf_done(&b);
	kjit_status st = refuse(s, from, what ? what : "takes another value", arg);
	free(what);
	return st;
}

kjit_status kjit__strategy_options_parse(const kjit__strategy *strategy, const char *const *args,
                                         size_t n, const char *from, void **opts)
{
	kjit_status st = KJIT_OK;
	if (!from)
		from = "setting";
	if (n > KJIT_STRATEGY_SETTINGS_MAX) {
		char what[64];
		snprintf(what, sizeof what, "takes at most %d of them", KJIT_STRATEGY_SETTINGS_MAX);
		st = refuse(strategy, from, what, args[KJIT_STRATEGY_SETTINGS_MAX]);
	}
	for (size_t i = 0; st == KJIT_OK && i < n; i++)
		st = args[i] ? set_arg(strategy, opts, args[i], from)
		             : kjit__error(KJIT_ERR_INVALID_ARG, "%s %zu: NULL", from, i);
	if (st != KJIT_OK) {
		free(*opts);
		*opts = NULL;
	}
	return st;
}

/* Where a T1 spec keeps its strategy's options, after the spec's path. */
static const char spec_options[] = ": Search.Attributes";

/* Adds a line to the warnings; 0 when out of memory. */
static int warn_add(kjit__warnings *w, char *line)
{
	char **more = line ? realloc(w->line, (w->n + 1) * sizeof *more) : NULL;
	if (!more) {
		free(line);
		return 0;
	}
	w->line = more;
	w->line[w->n++] = line;
	return 1;
}

kjit_status kjit__strategy_options_spec(const kjit__strategy *strategy, const kjit__spec *spec,
                                        kjit__warnings *warn, void **opts)
{
	if (!spec || !spec->n_strategy_options)
		return KJIT_OK;
	int theirs = spec->strategy && strcmp(spec->strategy, strategy->name) == 0;
	kjit_status st = KJIT_OK;
	char *from = kjit__strdup_printf("%s%s", spec->path, spec_options);
	if (!from)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; st == KJIT_OK && i < spec->n_strategy_options; i++) {
		const char *arg = spec->strategy_options[i];
		int len = (int)(strchr(arg, '=') - arg);
		char *line = NULL;
		if (!theirs) {
			line = kjit__strdup_printf("%s \"%.*s\": an option of the spec's strategy "
			                           "(%s), not of the run's (%s): not used", from, len, arg,
			                           spec->strategy ? spec->strategy : "none of kjit's",
			                           strategy->name);
		} else if (!named(strategy, arg)) {
			char *options = list(strategy);
			line = kjit__strdup_printf("%s \"%.*s\": not an option of strategy %s (%s%s): "
			                           "not used", from, len, arg, strategy->name,
			                           strategy->options ? "its options: " : "it has none",
			                           options ? options : "");
			free(options);
		} else {
			st = set_arg(strategy, opts, arg, from);
			continue;
		}
		if (!warn_add(warn, line))
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	free(from);
	if (st != KJIT_OK) {
		free(*opts);
		*opts = NULL;
	}
	return st;
}

kjit_status kjit__strategy_options_load(const kjit__strategy *strategy, const kjit__spec *spec,
                                        const char *const *args, size_t n, const char *from,
                                        kjit__warnings *warn, void **opts, int *from_spec)
{
	*opts = NULL;
	*from_spec = 1;
	kjit_status st = kjit__strategy_options_spec(strategy, spec, warn, opts);
	if (st != KJIT_OK)
		return st;
	*from_spec = 0;
	if ((st = kjit__strategy_options_parse(strategy, args, n, from, opts)) != KJIT_OK)
		return st;
	char why[160];
	if (!*opts || !strategy->check || strategy->check(*opts, why, sizeof why))
		return KJIT_OK;
	*from_spec = n == 0;
	st = kjit__error(KJIT_ERR_INVALID_ARG, "%s%s: strategy %s: %s",
	                 n ? (from ? from : "setting") : spec->path, n ? "" : spec_options,
	                 strategy->name, why);
	free(*opts);
	*opts = NULL;
	return st;
}

char *kjit__strategy_options_text(const kjit__strategy *strategy)
{
	kjit__buf b = { 0 };
	char text[64];
	kjit__buf_str(&b, "");
	for (const kjit__strategy_option *o = strategy->options; o && o->name; o++) {
		const char *field = (const char *)strategy->defaults + o->offset;
		size_t n;
		double v;
		int w;
		kjit__buf_str(&b, o == strategy->options ? "" : " ");
		kjit__buf_str(&b, o->name);
		if (o->type == KJIT__OPT_COUNT) {
			memcpy(&n, field, sizeof n);
			snprintf(text, sizeof text, "=%zu", n);
		} else if (o->type == KJIT__OPT_REAL) {
			memcpy(&v, field, sizeof v);
			snprintf(text, sizeof text, "=%g", v);
		} else {
			memcpy(&w, field, sizeof w);
			snprintf(text, sizeof text, "=%s", o->words[w]);
		}
		kjit__buf_str(&b, text);
	}
	return kjit__buf_done(&b);
}
