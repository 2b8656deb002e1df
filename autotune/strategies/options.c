/*
 * options.c - a strategy's options (--strategy-option NAME=VALUE): each
 * argument parsed into the field of the strategy's own options struct
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
static void describe(kjit__buf *b, const kt_option *o)
{
	char text[80];
	kjit__buf_str(b, o->name);
	if (o->type == KT_OPT_WORD) {
		kjit__buf_str(b, " (one of ");
		for (size_t w = 0; o->words[w]; w++) {
			kjit__buf_str(b, w ? ", " : "");
			kjit__buf_str(b, o->words[w]);
		}
		kjit__buf_str(b, ")");
		return;
	}
	snprintf(text, sizeof text, " (%s from %.15g to %.15g)",
	         o->type == KT_OPT_COUNT ? "a count" : "a number", o->min, o->max);
	kjit__buf_str(b, text);
}

/* The error of argument arg of strategy s: what is wrong, then the
 * strategy's options. */
static kjit_status refuse(const kt_strategy *s, const char *what, const char *arg)
{
	kjit__buf b = { 0 };
	for (const kt_option *o = s->options; o && o->name; o++) {
		kjit__buf_str(&b, o == s->options ? "" : "; ");
		describe(&b, o);
	}
	char *list = kjit__buf_done(&b);
	kjit_status st = kjit__error(KJIT_ERR_INVALID_ARG, "--strategy-option '%.*s%s': strategy "
	                             "%s %s%s%s", ECHO_MAX, arg,
	                             strlen(arg) > ECHO_MAX ? "..." : "", s->name,
	                             s->options ? what : "has no options",
	                             s->options ? "; its options: " : "",
	                             list ? list : "");
	free(list);
	return st;
}

/* Sets option o of the struct opts to text; 0 when text is not a value
 * it takes. */
static int set(const kt_option *o, void *opts, const char *text)
{
	char *field = (char *)opts + o->offset, *end = NULL;
	if (o->type == KT_OPT_WORD) {
		for (int w = 0; o->words[w]; w++)
			if (strcmp(text, o->words[w]) == 0) {
				memcpy(field, &w, sizeof w);
				return 1;
			}
		return 0;
	}
	double v;
	errno = 0;
	if (o->type == KT_OPT_COUNT)
		v = isdigit((unsigned char)*text) ? (double)strtoull(text, &end, 10) : NAN;
	else
		v = strtod(text, &end);
	if (!isfinite(v) || end == text || *end || errno ||
	    !(v >= o->min && v <= o->max))
		return 0;
	if (o->type == KT_OPT_COUNT) {
		size_t n = (size_t)v;
		memcpy(field, &n, sizeof n);
	} else {
		memcpy(field, &v, sizeof v);
	}
	return 1;
}

kjit_status kt_options_parse(const kt_strategy *strategy, const char *const *args, size_t n,
                             void **out)
{
	*out = NULL;
	if (n == 0)
		return KJIT_OK;
	if (n > KT_OPTION_ARGS_MAX) {
		char what[64];
		snprintf(what, sizeof what, "takes at most %d of them", KT_OPTION_ARGS_MAX);
		return refuse(strategy, what, args[KT_OPTION_ARGS_MAX]);
	}
	void *opts = malloc(strategy->options_size + 1);
	if (!opts)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (strategy->options_size)
		memcpy(opts, strategy->defaults, strategy->options_size);
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(args[i], '=');
		const kt_option *o = strategy->options;
		for (; eq && o && o->name; o++)
			if (strlen(o->name) == (size_t)(eq - args[i]) &&
			    strncmp(o->name, args[i], (size_t)(eq - args[i])) == 0)
				break;
		kjit_status st = KJIT_OK;
		if (!eq)
			st = refuse(strategy, "takes NAME=VALUE", args[i]);
		else if (!o || !o->name)
			st = refuse(strategy, "has no option of that name", args[i]);
		else if (!set(o, opts, eq + 1)) {
			kjit__buf b = { 0 };
			kjit__buf_str(&b, "takes ");
			describe(&b, o);
			char *what = kjit__buf_done(&b);
			st = refuse(strategy, what ? what : "takes another value", args[i]);
			free(what);
		}
		if (st != KJIT_OK) {
			free(opts);
			return st;
		}
	}
	*out = opts;
	return KJIT_OK;
}

void kt_options_print(FILE *f, const kt_strategy *strategy)
{
	for (const kt_option *o = strategy->options; o && o->name; o++) {
		const char *field = (const char *)strategy->defaults + o->offset;
		size_t n;
		double v;
		int w;
		if (o->type == KT_OPT_COUNT) {
			memcpy(&n, field, sizeof n);
			fprintf(f, " %s=%zu", o->name, n);
		} else if (o->type == KT_OPT_REAL) {
			memcpy(&v, field, sizeof v);
			fprintf(f, " %s=%g", o->name, v);
		} else {
			memcpy(&w, field, sizeof w);
			fprintf(f, " %s=%s", o->name, o->words[w]);
		}
	}
}
