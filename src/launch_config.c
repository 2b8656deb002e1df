/*
 * launch_config.c - a configuration of a spec as something to compile and
 * launch: its variant description (defines and flags), its geometry (grid,
 * block, dynamic shared memory), and the value of any spec expression for
 * it. kjit_launch() and kjit-tune both go through here.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

void kjit__spec_default_config(const kjit__spec *spec, uint16_t *config)
{
	for (size_t i = 0; i < spec->n_params; i++)
		config[i] = (uint16_t)spec->params[i].default_index;
}

kjit_status kjit__config_desc_make(const kjit__spec *s, const uint16_t *c, kjit__config_desc *d)
{
	kjit__buf b = { 0 };
	memset(d, 0, sizeof *d);
	/* The flags' text, split in place below; defines point into the spec. */
	for (size_t i = 0; i < s->n_params; i++)
		if (s->params[i].roles & KJIT__ROLE_FLAGS) {
			kjit__buf_str(&b, s->params[i].values[c[i]].text);
			kjit__buf_add(&b, " ", 1);
		}
	if (!(d->text = kjit__buf_done(&b)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	size_t nd = 0, nf = 0;
	for (size_t i = 0; i < s->n_flags && nf < KJIT__MAX_OPTIONS; i++)
		d->flags[nf++] = s->flags[i];
	for (size_t i = 0; i < s->n_params; i++) {
		const kjit__param *p = &s->params[i];
		if ((p->roles & KJIT__ROLE_DEFINE) && nd < KJIT__MAX_OPTIONS) {
			d->defines[nd].name = p->name;
			d->defines[nd++].value = p->values[c[i]].text;
		}
	}
	for (char *save = NULL, *tok = strtok_r(d->text, " ", &save); tok && nf < KJIT__MAX_OPTIONS;
	     tok = strtok_r(NULL, " ", &save))
		d->flags[nf++] = tok;
	d->desc.defines = d->defines;
	d->desc.n_defines = nd;
	d->desc.flags = d->flags;
	d->desc.n_flags = nf;
	return KJIT_OK;
}

void kjit__config_desc_free(kjit__config_desc *d)
{
	free(d->text);
	d->text = NULL;
}

/* The names and values an expression of problem p may read: the sizes,
 * then (with a configuration) the parameters. */
typedef struct scope {
	const char **names;
	kjit__value *slots;
	size_t n;
} scope;

static kjit_status scope_make(const kjit__spec *spec, size_t p, const uint16_t *config, scope *sc)
{
	const kjit__problem *prob = &spec->problems[p];
	sc->n = prob->n + (config ? spec->n_params : 0);
	sc->names = calloc(sc->n + 1, sizeof *sc->names);
	sc->slots = calloc(sc->n + 1, sizeof *sc->slots);
	if (!sc->names || !sc->slots)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < prob->n; i++) {
		sc->names[i] = prob->names[i];
		sc->slots[i].kind = SQLITE_INTEGER;
		sc->slots[i].i = prob->values[i];
	}
	for (size_t i = 0; config && i < spec->n_params; i++) {
		sc->names[prob->n + i] = spec->params[i].name;
		sc->slots[prob->n + i] = spec->params[i].values[config[i]];
	}
	return KJIT_OK;
}

static void scope_free(scope *sc)
{
	free(sc->names);
	free(sc->slots);
}

/* expr in scope on ctx; NaN (a NULL result, x/0) is an error naming it. */
static kjit_status eval_in(kjit__expr_ctx *ctx, const kjit__spec *spec, const scope *sc,
                           const char *expr, const char *what, double *out)
{
	kjit__expr *e = NULL;
	kjit_status st = kjit__expr_prepare(ctx, expr, sc->names, sc->n, what, &e);
	if (st == KJIT_OK)
		st = kjit__expr_eval_sql(e, sc->slots, out);
	kjit__expr_free(e);
	if (st == KJIT_OK && isnan(*out))
		st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: \"%s\" is not a number here",
		                 spec->path, what, expr);
	return st;
}

kjit_status kjit__spec_eval(const kjit__spec *spec, size_t p, const uint16_t *config,
                            const char *expr, const char *what, double *out)
{
	scope sc;
	kjit__expr_ctx *ctx = NULL;
	kjit_status st = scope_make(spec, p, config, &sc);
	if (st == KJIT_OK && (st = kjit__expr_ctx_open(&ctx)) == KJIT_OK)
		st = eval_in(ctx, spec, &sc, expr, what, out);
	kjit__expr_ctx_close(ctx);
	scope_free(&sc);
	return st;
}

static kjit_status to_dim(double v, const char *what, const kjit__spec *s, unsigned *out,
                          int allow_zero)
{
	if (v < (allow_zero ? 0 : 1) || v > 2147483647.0)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s is %g for this problem (expected %s)",
		                   s->path, what, v, allow_zero ? "0 or more" : "1 or more");
	*out = (unsigned)v;
	return KJIT_OK;
}

kjit_status kjit__config_dims(const kjit__spec *s, size_t p, const uint16_t *c,
                              unsigned grid[3], unsigned block[3], unsigned *shared)
{
	for (int d = 0; d < 3; d++)
		block[d] = 1;
	for (size_t i = 0; i < s->n_params; i++)
		for (int d = 0; d < 3; d++)
			if (s->params[i].roles & (KJIT__ROLE_BLOCK_X << d))
				block[d] *= (unsigned)s->params[i].values[c[i]].i;
	scope sc;
	kjit__expr_ctx *ctx = NULL;
	kjit_status st = scope_make(s, p, c, &sc);
	if (st == KJIT_OK)
		st = kjit__expr_ctx_open(&ctx);
	for (int d = 0; st == KJIT_OK && d < 4; d++) {
		char what[32];
		double v;
		snprintf(what, sizeof what, d < 3 ? "grid[%d]" : "shared_memory", d);
		st = eval_in(ctx, s, &sc, d < 3 ? s->grid[d] : s->shared, what, &v);
		if (st == KJIT_OK)
			st = to_dim(v, what, s, d < 3 ? &grid[d] : shared, d == 3);
	}
	kjit__expr_ctx_close(ctx);
	scope_free(&sc);
	return st;
}
