/*
 * launch_config.c - a configuration of a spec as something to compile and
 * launch: its variant description (defines and flags), its geometry (grid,
 * block, dynamic shared memory), and the value of any spec expression for
 * it. kjit_launch() and kjit-tune both go through here.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning_private.h"

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
 * then the parameters: a configuration's values, or without one each
 * parameter's whole list (T1's argument sizes read "max(filter_width)"). */
typedef struct scope {
	const char **names;
	kjit__value *slots;
	size_t n;
} scope;

static kjit_status scope_make(const kjit__spec *spec, size_t p, const uint16_t *config, scope *sc)
{
	const kjit__problem *prob = &spec->problems[p];
	sc->n = prob->n + spec->n_params;
	sc->names = calloc(sc->n + 1, sizeof *sc->names);
	sc->slots = calloc(sc->n + 1, sizeof *sc->slots);
	if (!sc->names || !sc->slots)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < prob->n; i++) {
		sc->names[i] = prob->names[i];
		sc->slots[i].kind = SQLITE_INTEGER;
		sc->slots[i].i = prob->values[i];
	}
	for (size_t i = 0; i < spec->n_params; i++) {
		const kjit__param *pa = &spec->params[i];
		sc->names[prob->n + i] = pa->name;
		if (config)
			sc->slots[prob->n + i] = pa->values[config[i]];
		else
			sc->slots[prob->n + i] = (kjit__value){ .text = pa->name, .kind = KJIT__KIND_LIST,
				                                .items = pa->values,
				                                .n_items = pa->n_values };
	}
	return KJIT_OK;
}

static void scope_free(scope *sc)
{
	free(sc->names);
	free(sc->slots);
}

/* expr parsed in scope and evaluated; NaN (x/0) is an error naming it. */
static kjit_status eval_in(const kjit__spec *spec, const scope *sc, const char *expr,
                           const char *what, double *out)
{
	kjit__expr *e = NULL;
	kjit_status st = kjit__expr_parse(expr, spec->python ? KJIT__DIALECT_PYTHON
	                                                     : KJIT__DIALECT_KJIT,
	                                  sc->names, sc->n, what, spec->expr_budget, &e);
	if (st == KJIT_OK)
		st = kjit__expr_eval(e, sc->slots, out);
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
	kjit_status st = scope_make(spec, p, config, &sc);
	if (st == KJIT_OK)
		st = eval_in(spec, &sc, expr, what, out);
	scope_free(&sc);
	return st;
}

kjit_status kjit__spec_generate(const kjit__spec *spec, size_t p, const char *expr,
                                const char *what, size_t n, kjit_spec_each each, void *ctx,
                                size_t *failed_at)
{
	const kjit__problem *prob = &spec->problems[p];
	const char **names = calloc(prob->n + 1, sizeof *names);
	kjit__value *slots = calloc(prob->n + 1, sizeof *slots);
	kjit__expr *e = NULL;
	kjit_status st = KJIT_OK;
	*failed_at = SIZE_MAX;
	if (!names || !slots)
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st == KJIT_OK) {
		names[0] = "i";
		slots[0].kind = SQLITE_INTEGER;
		for (size_t k = 0; k < prob->n; k++) {
			names[k + 1] = prob->names[k];
			slots[k + 1].kind = SQLITE_INTEGER;
			slots[k + 1].i = prob->values[k];
			slots[k + 1].d = (double)prob->values[k];
		}
		st = kjit__expr_parse(expr, spec->python ? KJIT__DIALECT_PYTHON : KJIT__DIALECT_KJIT,
		                      names, prob->n + 1, what, spec->expr_budget, &e);
	}
	for (size_t j = 0; st == KJIT_OK && j < n; j++) {
		double v;
		slots[0].i = (int64_t)j;
		slots[0].d = (double)j;
		if ((st = kjit__expr_eval(e, slots, &v)) != KJIT_OK)
			*failed_at = j;
		else
			st = each(ctx, j, v);
	}
	kjit__expr_free(e);
	free(names);
	free(slots);
	return st;
}

/* What a launch dimension may be. */
typedef enum { DIM_SHARED, DIM_GRID, DIM_BLOCK } dim_kind;

static kjit_status to_dim(double v, const char *what, const kjit__spec *s, unsigned *out,
                          dim_kind kind)
{
	static const char *const expected[] = { "0 to 2147483647", "1 to 2147483647",
		                                "an integer, 1 to 2147483647" };
	if (!(v >= (kind == DIM_SHARED ? 0 : 1) && v <= 2147483647.0) ||
	    (kind == DIM_BLOCK && v != floor(v)))
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s is %g for this problem (expected %s)",
		                   s->path, what, v, expected[kind]);
	*out = (unsigned)v;
	return KJIT_OK;
}

/* Called once per configuration (a tuning evaluation, an online trial, a
 * memoised choice), never per launch: parsing here costs nothing that
 * matters next to what the configuration is for. */
kjit_status kjit__config_dims(const kjit__spec *s, size_t p, const uint16_t *c,
                              unsigned grid[3], unsigned block[3], unsigned *shared)
{
	scope sc;
	kjit_status st = scope_make(s, p, c, &sc);
	for (int d = 0; st == KJIT_OK && d < 7; d++) {
		char what[32];
		double v = 1;
		if (d < 3) {
			snprintf(what, sizeof what, "grid[%d]", d);
			if ((st = eval_in(s, &sc, s->grid[d], what, &v)) == KJIT_OK)
				st = to_dim(v, what, s, &grid[d], DIM_GRID);
		} else if (d == 3) {
			snprintf(what, sizeof what, "shared_memory");
			if ((st = eval_in(s, &sc, s->shared, what, &v)) == KJIT_OK)
				st = to_dim(v, what, s, shared, DIM_SHARED);
		} else {
			int b = d - 4;
			snprintf(what, sizeof what, "block[%d]", b);
			if (s->block[b])
				st = eval_in(s, &sc, s->block[b], what, &v);
			else
				for (size_t i = 0; i < s->n_params; i++)
					if (s->params[i].roles & (KJIT__ROLE_BLOCK_X << b))
						v *= (double)s->params[i].values[c[i]].i;
			if (st == KJIT_OK)
				st = to_dim(v, what, s, &block[b], DIM_BLOCK);
		}
	}
	scope_free(&sc);
	return st;
}

/* ---- a configuration of a tunable kernel ------------------------------ */

kjit_status kjit__launch_dims(const kjit__tunable *t, const kjit__memo_entry *en, size_t index,
                              unsigned grid[3], unsigned block[3], unsigned *shared)
{
	const kjit__spec *s = t->spec;
	const uint16_t *c = kjit__space_config(en->space, index);
	/* en->pspec is the kernel's spec with this problem alone */
	kjit_status st = kjit__config_dims(en->pspec, 0, c, grid, block, shared);
	if (st != KJIT_OK || !t->grid_fn)
		return st;
	int64_t *ints = calloc(s->n_params + 1, sizeof *ints);
	if (!ints)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < s->n_params; i++) {
		const kjit__value *v = &s->params[i].values[c[i]];
		ints[i] = v->kind == SQLITE_INTEGER ? v->i : 0;
	}
	grid[0] = grid[1] = grid[2] = 1;
	if (t->grid_fn(en->values, ints, grid, t->grid_user) != 0 || !grid[0] || !grid[1] ||
	    !grid[2])
		st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: the grid callback refused "
		                 "configuration %zu of problem %s", s->path, index, en->problem_json);
	free(ints);
	return st;
}
