/*
 * rejected.c - what the configurations rejected as wrong_result have in
 * common: the parameter values all of them share that no accepted
 * configuration has (a layout parameter whose variants read other
 * inputs, say), and the summary's sentence about them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "results.h"

void kt_rejected_free(kt_rejected *r)
{
	if (!r)
		return;
	free(r->shared);
	memset(r, 0, sizeof *r);
}

/* Marks in seen (each parameter's values from off[p]) the values of the
 * configurations of list with bit. */
static kjit_status mark(const kjit__space *space, const size_t *list, size_t n,
                        const size_t *off, size_t *values, uint8_t *seen, uint8_t bit)
{
	for (size_t i = 0; i < n; i++) {
		kjit_status st = kjit_space_config(space, list[i], values);
		if (st != KJIT_OK)
			return st;
		for (size_t p = 0; p < space->n_params; p++)
			seen[off[p] + values[p]] |= bit;
	}
	return KJIT_OK;
}

kjit_status kt_rejected_find(const kjit__space *space, const size_t *rejected, size_t n_rejected,
                             const size_t *accepted, size_t n_accepted, kt_rejected *out)
{
	const kjit__spec *spec = space->spec;
	memset(out, 0, sizeof *out);
	out->n_rejected = n_rejected;
	out->n_accepted = n_accepted;
	if (!n_rejected || !n_accepted)
		return KJIT_OK;
	size_t np = space->n_params, *off = calloc(np + 1, sizeof *off);
	size_t *values = calloc(np + 1, sizeof *values);
	for (size_t p = 0; off && p < np; p++)
		off[p + 1] = off[p] + spec->params[p].n_values;
	/* bit 1: a rejected configuration has the value, bit 2: an accepted one */
	uint8_t *seen = off ? calloc(off[np] + 1, 1) : NULL;
	out->shared = calloc(np + 1, sizeof *out->shared);
	kjit_status st = !off || !values || !seen || !out->shared
	                 ? kjit__error(KJIT_ERR_NOMEM, "out of memory") : KJIT_OK;
	if (st == KJIT_OK)
		st = mark(space, rejected, n_rejected, off, values, seen, 1);
	if (st == KJIT_OK)
		st = mark(space, accepted, n_accepted, off, values, seen, 2);
	for (size_t p = 0; st == KJIT_OK && p < np; p++) {
		kt_shared sh = { .param = p };
		int disjoint = 1;
		for (size_t v = 0; v < spec->params[p].n_values && disjoint; v++) {
			uint8_t b = seen[off[p] + v];
			if (b == 3)
				disjoint = 0;
			else if (b == 1 && sh.n_values++ < KT_SHARED_MAX)
				sh.values[sh.n_values - 1] = (uint16_t)v;
		}
		/* a few values say something; many say only that the space is small */
		if (disjoint && sh.n_values <= KT_SHARED_MAX)
			out->shared[out->n_shared++] = sh;
	}
	free(off);
	free(values);
	free(seen);
	if (st != KJIT_OK)
		kt_rejected_free(out);
	return st;
}

/* NAME=v, or NAME in {a, b} */
static void put_shared(kjit__buf *b, const kjit__spec *spec, const kt_shared *s)
{
	const kjit__param *p = &spec->params[s->param];
	kjit__buf_str(b, p->name);
	kjit__buf_str(b, s->n_values == 1 ? "=" : " in {");
	for (size_t k = 0; k < s->n_values; k++) {
		if (k)
			kjit__buf_str(b, ", ");
		kjit__buf_str(b, p->values[s->values[k]].text);
	}
	if (s->n_values > 1)
		kjit__buf_str(b, "}");
}

/* What the outputs were compared with, in words. */
static const char *against(const kjit__spec *spec, char *buf, size_t size)
{
	if (strcmp(spec->verify, "data") == 0)
		snprintf(buf, size, "the expected output (ReferenceArguments)");
	else if (strcmp(spec->verify, "reference") == 0)
		snprintf(buf, size, "the reference kernel %s", spec->reference_entry);
	else
		snprintf(buf, size, "the default configuration");
	return buf;
}

char *kt_rejected_text(const kjit__spec *spec, const kt_rejected *r)
{
	kjit__buf b = { 0 };
	char text[512], what[256];
	snprintf(text, sizeof text, "%zu of %zu configurations gave other output than %s",
	         r->n_rejected, r->n_rejected + r->n_accepted, against(spec, what, sizeof what));
	kjit__buf_str(&b, text);
	if (r->n_shared) {
		kjit__buf_str(&b, "; all of them have ");
		for (size_t i = 0; i < r->n_shared; i++) {
			if (i)
				kjit__buf_str(&b, i + 1 == r->n_shared ? " and " : ", ");
			put_shared(&b, spec, &r->shared[i]);
		}
		kjit__buf_str(&b, " (no correct one does)");
	} else if (!r->n_accepted) {
		kjit__buf_str(&b, ": none gave the same");
	}
	if (strcmp(spec->verify, "data") == 0)
		kjit__buf_str(&b, ". If their output is expected to differ, check the "
		                  "ReferenceArguments data and ValidationMethod, or run with "
		                  "--verify none.");
	else
		kjit__buf_str(&b, ". If their output is expected to differ (other inputs, another "
		                  "layout), run with --verify none or give ReferenceArguments.");
	return kjit__buf_done(&b);
}

char *kt_rejected_json(const kjit__spec *spec, const kt_rejected *r)
{
	kjit__buf b = { 0 };
	char text[256];
	snprintf(text, sizeof text, "{\"count\": %zu, \"checked\": %zu, \"against\": ",
	         r->n_rejected, r->n_rejected + r->n_accepted);
	kjit__buf_str(&b, text);
	kjit__buf_json_str(&b, strcmp(spec->verify, "data") == 0 ? "data" : spec->verify);
	kjit__buf_str(&b, ", \"shared\": {");
	for (size_t i = 0; i < r->n_shared; i++) {
		const kjit__param *p = &spec->params[r->shared[i].param];
		if (i)
			kjit__buf_str(&b, ", ");
		kjit__buf_json_str(&b, p->name);
		kjit__buf_str(&b, ": [");
		for (size_t k = 0; k < r->shared[i].n_values; k++) {
			const kjit__value *v = &p->values[r->shared[i].values[k]];
			if (k)
				kjit__buf_str(&b, ", ");
			if (v->kind == SQLITE_TEXT)
				kjit__buf_json_str(&b, v->text);
			else
				kjit__buf_str(&b, v->text);
		}
		kjit__buf_str(&b, "]");
	}
	kjit__buf_str(&b, "}, \"message\": ");
	char *msg = kt_rejected_text(spec, r);
	if (msg)
		kjit__buf_json_str(&b, msg);
	else
		b.oom = 1;
	free(msg);
	kjit__buf_str(&b, "}");
	return kjit__buf_done(&b);
}
