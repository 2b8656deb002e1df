/*
 * launch.c - a configuration as something to compile and launch: its
 * variant description (defines and flags) and its geometry (grid, block,
 * dynamic shared memory), and the value of spec expressions for it.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

kjit_status kt_expr_value(const kjit__spec *spec, size_t p, const uint16_t *config,
                          const char *expr, const char *what, double *out)
{
	const kjit__problem *prob = &spec->problems[p];
	size_t n = prob->n + (config ? spec->n_params : 0);
	const char **names = calloc(n + 1, sizeof *names);
	kjit__value *slots = calloc(n + 1, sizeof *slots);
	kjit__expr_ctx *ctx = NULL;
	kjit__expr *e = NULL;
	kjit_status st;
	if (!names || !slots) {
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < prob->n; i++) {
		names[i] = prob->names[i];
		slots[i].kind = SQLITE_INTEGER;
		slots[i].i = prob->values[i];
	}
	for (size_t i = 0; config && i < spec->n_params; i++) {
		names[prob->n + i] = spec->params[i].name;
		slots[prob->n + i] = spec->params[i].values[config[i]];
	}
	if ((st = kjit__expr_ctx_open(&ctx)) == KJIT_OK &&
	    (st = kjit__expr_prepare(ctx, expr, names, n, what, &e)) == KJIT_OK) {
		st = kjit__expr_eval(e, slots, out);
		if (st == KJIT_OK && isnan(*out))
			st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: \"%s\" is not a number here",
			                 spec->path, what, expr);
	}
done:
	kjit__expr_free(e);
	kjit__expr_ctx_close(ctx);
	free(names);
	free(slots);
	return st;
}

char *kt_variant_text(const kjit__spec *spec, const uint16_t *c)
{
	kjit__buf b = { 0 };
	for (size_t i = 0; i < spec->n_params; i++) {
		const kjit__param *pa = &spec->params[i];
		if (pa->roles & KJIT__ROLE_DEFINE) {
			kjit__buf_str(&b, "D");
			kjit__buf_str(&b, pa->name);
			kjit__buf_str(&b, "=");
			kjit__buf_str(&b, pa->values[c[i]].text);
			kjit__buf_str(&b, "\n");
		}
		if (pa->roles & KJIT__ROLE_FLAGS) {
			kjit__buf_str(&b, "F");
			kjit__buf_str(&b, pa->values[c[i]].text);
			kjit__buf_str(&b, "\n");
		}
	}
	return kjit__buf_done(&b);
}

void kt_launch_desc(const kjit__spec *spec, char *text, kt_launch *d)
{
	size_t nd = 0, nf = 0;
	d->text = text;
	for (size_t i = 0; i < spec->n_flags && nf < KJIT__MAX_OPTIONS; i++)
		d->flags[nf++] = spec->flags[i];
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == 'D' && nd < KJIT__MAX_OPTIONS) {
			char *eq = strchr(line, '=');
			*eq = '\0';
			d->defines[nd].name = line + 1;
			d->defines[nd++].value = eq + 1;
		} else if (line[0] == 'F') {
			for (char *s2 = NULL, *tok = strtok_r(line + 1, " ", &s2);
			     tok && nf < KJIT__MAX_OPTIONS; tok = strtok_r(NULL, " ", &s2))
				d->flags[nf++] = tok;
		}
	}
	d->desc.defines = d->defines;
	d->desc.n_defines = nd;
	d->desc.flags = d->flags;
	d->desc.n_flags = nf;
}

kjit_status kt_launch_make(const kjit__spec *spec, size_t p, const uint16_t *config,
                           kt_launch *l)
{
	memset(l, 0, sizeof *l);
	char *text = kt_variant_text(spec, config);
	if (!text)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	kt_launch_desc(spec, text, l);
	for (int i = 0; i < 3; i++) {
		double v;
		char what[32];
		snprintf(what, sizeof what, "grid[%d]", i);
		kjit_status st = kt_expr_value(spec, p, config, spec->grid[i], what, &v);
		if (st == KJIT_OK && !(v >= 1 && v <= 2147483647.0))
			st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s is %g", spec->path, what, v);
		if (st != KJIT_OK) {
			kt_launch_clear(l);
			return st;
		}
		l->grid[i] = (unsigned)v;
		l->block[i] = 1;
	}
	for (size_t j = 0; j < spec->n_params; j++)
		for (int axis = 0; axis < 3; axis++)
			if (spec->params[j].roles & (KJIT__ROLE_BLOCK_X << axis))
				l->block[axis] *= (unsigned)spec->params[j].values[config[j]].i;
	double sh;
	kjit_status st = kt_expr_value(spec, p, config, spec->shared, "shared_memory", &sh);
	if (st == KJIT_OK && !(sh >= 0 && sh <= 4294967295.0))
		st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: shared_memory is %g", spec->path, sh);
	if (st != KJIT_OK) {
		kt_launch_clear(l);
		return st;
	}
	l->shared = (unsigned)sh;
	return KJIT_OK;
}

void kt_launch_clear(kt_launch *l)
{
	free(l->text);
	l->text = NULL;
}

void kt_default_config(const kjit__spec *spec, uint16_t *config)
{
	for (size_t i = 0; i < spec->n_params; i++)
		config[i] = (uint16_t)spec->params[i].default_index;
}
