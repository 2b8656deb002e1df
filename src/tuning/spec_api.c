/* spec_api.c - kjit.h's specs and spaces: the checked front door of the
 * spec reader (spec.c) and the space (space.c). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

kjit_status kjit_spec_load(const char *path, kjit_spec **out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_load: out is NULL");
	*out = NULL;
	if (!path || !*path)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_load: no path");
	return kjit__spec_load(path, out);
}

void kjit_spec_free(kjit_spec *spec)
{
	kjit__spec_free(spec);
}

const char *const *kjit_spec_warnings(const kjit_spec *spec, size_t *n)
{
	if (n)
		*n = spec ? spec->n_warnings : 0;
	return spec ? (const char *const *)spec->warnings : NULL;
}

size_t kjit_spec_param_count(const kjit_spec *spec)
{
	return spec ? spec->n_params : 0;
}

static kjit_status param_at(const kjit_spec *spec, size_t i, const char *fn,
                            const kjit__param **out)
{
	if (!spec)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: spec is NULL", fn);
	if (i >= spec->n_params)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: parameter %zu of %zu", fn, i,
		                   spec->n_params);
	*out = &spec->params[i];
	return KJIT_OK;
}

kjit_status kjit_spec_param(const kjit_spec *spec, size_t i, const char **name,
                            size_t *n_values, size_t *default_index)
{
	const kjit__param *p = NULL;
	kjit_status st = param_at(spec, i, "kjit_spec_param", &p);
	if (st != KJIT_OK)
		return st;
	if (name)
		*name = p->name;
	if (n_values)
		*n_values = p->n_values;
	if (default_index)
		*default_index = p->default_index;
	return KJIT_OK;
}

kjit_status kjit_spec_value(const kjit_spec *spec, size_t i, size_t j, kjit_value *out)
{
	const kjit__param *p = NULL;
	kjit_status st = param_at(spec, i, "kjit_spec_value", &p);
	if (st != KJIT_OK)
		return st;
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_value: out is NULL");
	if (j >= p->n_values)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_value: value %zu of %s's %zu", j,
		                   p->name, p->n_values);
	const kjit__value *v = &p->values[j];
	*out = (kjit_value){ .text = v->text, .i = v->i, .d = v->d };
	out->type = v->kind == SQLITE_INTEGER ? KJIT_VALUE_INT
	            : v->kind == SQLITE_FLOAT ? KJIT_VALUE_FLOAT : KJIT_VALUE_TEXT;
	return KJIT_OK;
}

size_t kjit_spec_problem_count(const kjit_spec *spec)
{
	return spec ? spec->n_problems : 0;
}

static kjit_status problem_ok(const kjit_spec *spec, size_t p, const char *fn)
{
	if (!spec)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: spec is NULL", fn);
	if (p >= spec->n_problems)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: problem %zu of %zu", fn, p,
		                   spec->n_problems);
	return KJIT_OK;
}

kjit_status kjit_spec_problem(const kjit_spec *spec, size_t p, const char *const **names,
                              const int64_t **values, size_t *n)
{
	kjit_status st = problem_ok(spec, p, "kjit_spec_problem");
	if (st != KJIT_OK)
		return st;
	const kjit__problem *pr = &spec->problems[p];
	if (names)
		*names = (const char *const *)pr->names;
	if (values)
		*values = pr->values;
	if (n)
		*n = pr->n;
	return KJIT_OK;
}

kjit_status kjit_spec_problem_text(const kjit_spec *spec, size_t p, kjit_problem_form form,
                                   char **out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_problem_text: out is NULL");
	*out = NULL;
	kjit_status st = problem_ok(spec, p, "kjit_spec_problem_text");
	if (st == KJIT_OK && form != KJIT_PROBLEM_JSON && form != KJIT_PROBLEM_KEY)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_problem_text: form %d is neither "
		                 "KJIT_PROBLEM_JSON nor KJIT_PROBLEM_KEY", (int)form);
	if (st != KJIT_OK)
		return st;
	const kjit__problem *pr = &spec->problems[p];
	if (!(*out = form == KJIT_PROBLEM_JSON ? kjit__problem_json(pr) : kjit__problem_key(pr)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	return KJIT_OK;
}

void kjit_space_options_init(kjit_space_options *opts)
{
	if (opts)
		*opts = (kjit_space_options){ 0 };
}

static kjit_status limits_of(const kjit_space_options *o, const char *fn, kjit__limits *out)
{
	*out = (kjit__limits){ 0 };
	if (!o)
		return KJIT_OK;
	if (o->max_threads < 0 || o->max_shared < 0)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: negative limits (max_threads %lld, "
		                   "max_shared %lld)", fn, (long long)o->max_threads,
		                   (long long)o->max_shared);
	*out = (kjit__limits){ .max_threads = o->max_threads, .max_shared = o->max_shared,
	                       .sample = o->sample, .seed = o->seed };
	return KJIT_OK;
}

kjit_status kjit_spec_count(const kjit_spec *spec, size_t problem,
                            const kjit_space_options *opts, kjit_space_count *out)
{
	kjit__limits lim;
	kjit__count c;
	kjit_status st = problem_ok(spec, problem, "kjit_spec_count");
	if (st == KJIT_OK && !out)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_count: out is NULL");
	if (st == KJIT_OK)
		st = limits_of(opts, "kjit_spec_count", &lim);
	if (st == KJIT_OK)
		st = kjit__space_count(spec, problem, &lim, &c);
	if (st == KJIT_OK)
		*out = (kjit_space_count){ .product = c.product, .valid = c.valid,
		                           .rel_error = c.rel_error, .upper = c.upper };
	return st;
}

kjit_status kjit_space_build(const kjit_spec *spec, size_t problem,
                             const kjit_space_options *opts, kjit_space **out)
{
	kjit__limits lim;
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_space_build: out is NULL");
	*out = NULL;
	kjit_status st = problem_ok(spec, problem, "kjit_space_build");
	if (st == KJIT_OK)
		st = limits_of(opts, "kjit_space_build", &lim);
	return st == KJIT_OK ? kjit__space_build(spec, problem, &lim, out) : st;
}

void kjit_space_free(kjit_space *space)
{
	kjit__space_free(space);
}

size_t kjit_space_size(const kjit_space *space, int *sampled)
{
	if (sampled)
		*sampled = space ? space->sampled : 0;
	return space ? space->size : 0;
}

static kjit_status index_ok(const kjit_space *space, size_t index, const char *fn)
{
	if (!space)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: space is NULL", fn);
	if (index >= space->size)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: configuration %zu of %zu", fn, index,
		                   space->size);
	return KJIT_OK;
}

kjit_status kjit_space_config(const kjit_space *space, size_t index, size_t *values)
{
	kjit_status st = index_ok(space, index, "kjit_space_config");
	if (st == KJIT_OK && !values)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "kjit_space_config: values is NULL");
	if (st != KJIT_OK)
		return st;
	const uint16_t *row = kjit__space_config(space, index);
	for (size_t i = 0; i < space->n_params; i++)
		values[i] = row[i];
	return KJIT_OK;
}

kjit_status kjit_space_find(const kjit_space *space, const size_t *values, size_t *index)
{
	if (!space || !values || !index)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_space_find: a NULL argument");
	uint16_t *row = malloc((space->n_params ? space->n_params : 1) * sizeof *row);
	if (!row)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	kjit_status st = KJIT_OK;
	for (size_t i = 0; i < space->n_params && st == KJIT_OK; i++) {
		const kjit__param *p = &space->spec->params[i];
		if (values[i] >= p->n_values)
			st = kjit__error(KJIT_ERR_INVALID_ARG, "kjit_space_find: value %zu of %s's %zu",
			                 values[i], p->name, p->n_values);
		else
			row[i] = (uint16_t)values[i];
	}
	int64_t at = st == KJIT_OK ? kjit__space_find(space, row) : -1;
	free(row);
	if (st == KJIT_OK && at < 0)
		st = kjit__error(KJIT_ERR_NOT_FOUND, "kjit_space_find: the configuration is not in "
		                 "the space");
	if (st == KJIT_OK)
		*index = (size_t)at;
	return st;
}

kjit_status kjit_space_find_text(const kjit_space *space, kjit_space_text_fn value, void *ctx,
                                 size_t *index)
{
	if (!space || !value || !index)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_space_find_text: a NULL argument");
	uint16_t *row = malloc((space->n_params ? space->n_params : 1) * sizeof *row);
	if (!row)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	int64_t at = kjit__space_match(space, value, ctx, row);
	free(row);
	if (at < 0)
		return kjit__error(KJIT_ERR_NOT_FOUND, "kjit_space_find_text: the configuration is "
		                   "not in the space");
	*index = (size_t)at;
	return KJIT_OK;
}

kjit_status kjit_space_config_json(const kjit_space *space, size_t index, char **out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_space_config_json: out is NULL");
	*out = NULL;
	kjit_status st = index_ok(space, index, "kjit_space_config_json");
	if (st == KJIT_OK && !(*out = kjit__config_json(space, index)))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	return st;
}

/* ---- a configuration to compile and launch ---------------------------- */

struct kjit_config {
	const kjit__spec *spec;
	kjit__config_desc d;
	uint16_t values[]; /* n_params, at least one */
};

kjit_status kjit_config_new(const kjit_spec *spec, const size_t *values, kjit_config **out)
{
	if (!out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_config_new: out is NULL");
	*out = NULL;
	if (!spec)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_config_new: spec is NULL");
	for (size_t i = 0; values && i < spec->n_params; i++)
		if (values[i] >= spec->params[i].n_values)
			return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_config_new: value %zu of %s's %zu",
			                   values[i], spec->params[i].name, spec->params[i].n_values);
	/* the spec's reader bounds n_params */
	kjit_config *c = calloc(1, sizeof *c + (spec->n_params + 1) * sizeof c->values[0]);
	if (!c)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	c->spec = spec;
	if (values)
		for (size_t i = 0; i < spec->n_params; i++)
			c->values[i] = (uint16_t)values[i];
	else
		kjit__spec_default_config(spec, c->values);
	kjit_status st = kjit__config_desc_make(spec, c->values, &c->d);
	if (st != KJIT_OK) {
		free(c);
		return st;
	}
	*out = c;
	return KJIT_OK;
}

void kjit_config_free(kjit_config *config)
{
	if (!config)
		return;
	kjit__config_desc_free(&config->d);
	free(config);
}

const kjit_variant_desc *kjit_config_variant(const kjit_config *config)
{
	return config ? &config->d.desc : NULL;
}

kjit_status kjit_config_dims(const kjit_config *config, size_t problem, unsigned grid[3],
                             unsigned block[3], unsigned *shared)
{
	if (!config || !grid || !block || !shared)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_config_dims: a NULL argument");
	kjit_status st = problem_ok(config->spec, problem, "kjit_config_dims");
	return st == KJIT_OK ? kjit__config_dims(config->spec, problem, config->values, grid, block,
	                                          shared)
	                     : st;
}

kjit_status kjit_spec_eval(const kjit_spec *spec, size_t problem, const kjit_config *config,
                           const char *expr, const char *what, double *out)
{
	kjit_status st = problem_ok(spec, problem, "kjit_spec_eval");
	if (st != KJIT_OK)
		return st;
	if (!expr || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_eval: expr or out is NULL");
	if (config && config->spec != spec)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_eval: a configuration of "
		                   "another spec");
	return kjit__spec_eval(spec, problem, config ? config->values : NULL, expr,
	                       what ? what : "expression", out);
}

kjit_status kjit_spec_generate(const kjit_spec *spec, size_t problem, const char *expr,
                               const char *what, size_t n, kjit_spec_each each, void *ctx,
                               size_t *failed_at)
{
	size_t at;
	if (failed_at)
		*failed_at = SIZE_MAX;
	kjit_status st = problem_ok(spec, problem, "kjit_spec_generate");
	if (st != KJIT_OK)
		return st;
	if (!expr || !each)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_generate: expr or each is NULL");
	st = kjit__spec_generate(spec, problem, expr, what ? what : "expression", n, each, ctx,
	                         &at);
	if (failed_at)
		*failed_at = at;
	return st;
}
