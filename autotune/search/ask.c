/*
 * ask.c - the search driver against another program's answers: each
 * configuration the strategy proposes is written as a line of value
 * indices and its objective read back as a line (kjit-tune --ask), so
 * that a caller that measures on its own (kjit.kernel_tuner, with its
 * Python callables) searches with kjit's strategies.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

typedef struct asker {
	const kjit__space *space;
	FILE *in, *out;
	size_t answers;
	kjit_status status;  /* KJIT_OK, or why the search stopped */
} asker;

/* An answer's text: an objective >= 0, or "fail"; NAN when it is neither. */
static double parse_answer(const char *s)
{
	if (strcmp(s, "fail") == 0)
		return INFINITY;
	char *end;
	double v = strtod(s, &end);
	return end == s || *end || !isfinite(v) || v < 0 ? NAN : v;
}

static double ask_one(void *ctx, size_t index)
{
	asker *a = ctx;
	size_t n = a->space->n_params, *cfg = malloc((n + 1) * sizeof *cfg);
	if (!cfg || (a->status = kjit_space_config(a->space, index, cfg)) != KJIT_OK) {
		if (!cfg)
			a->status = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		free(cfg);
		return NAN;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(a->out, i ? " %zu" : "%zu", cfg[i]);
	free(cfg);
	if (fputc('\n', a->out) == EOF || fflush(a->out) != 0) {
		a->status = kjit__error(KJIT_ERR_IO, "--ask: writing a proposal: %s", strerror(errno));
		return NAN;
	}
	char line[KT_ASK_LINE + 2];
	if (!fgets(line, sizeof line, a->in)) {
		if (ferror(a->in))
			a->status = kjit__error(KJIT_ERR_IO, "--ask: reading answer %zu: %s",
			                        a->answers + 1, strerror(errno));
		return NAN; /* the end of the answers ends the search */
	}
	a->answers++;
	size_t len = strlen(line);
	size_t whole = len > 0 && line[len - 1] == '\n';
	line[len - whole] = '\0';
	if (len > whole && line[len - whole - 1] == '\r')
		line[len - whole - 1] = '\0';
	double v = whole || feof(a->in) ? parse_answer(line) : NAN;
	char q[200];
	if (isnan(v))
		a->status = kjit__error(KJIT_ERR_INVALID_ARG, "--ask: answer %zu: expected an "
		                        "objective >= 0 or fail on a line of at most %d bytes, got %s",
		                        a->answers, KT_ASK_LINE, kjit__quote(q, sizeof q, line, 40, '\''));
	return v;
}

kjit_status kt_ask(const kjit__space *space, const kjit_strategy *strategy,
                   const kt_budget *budget, uint64_t seed, FILE *in, FILE *out)
{
	asker a = { .space = space, .in = in, .out = out, .status = KJIT_OK };
	kt_replay_opts o = { .budget = budget, .seed = seed, .ask = ask_one, .ask_ctx = &a };
	kt_replay_result r;
	kjit_status st = kt_replay(space, strategy, &o, NULL, &r);
	return a.status != KJIT_OK ? a.status : st;
}
