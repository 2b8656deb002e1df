/*
 * args.c - a spec's kernel arguments for one problem, on the host:
 * scalars evaluated from their expressions, buffers filled (random,
 * constant, sequence, file), and the comparison of output buffers.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

typedef enum { T_I32, T_I64, T_U32, T_U64, T_F32, T_F64 } elem_type;

static elem_type type_of(const char *t)
{
	static const char *const names[] = { "int32", "int64", "uint32", "uint64", "float",
		                             "double" };
	for (int i = 0; i < 6; i++)
		if (strcmp(t, names[i]) == 0)
			return (elem_type)i;
	return T_F64; /* the spec reader admits only the names above */
}

static size_t type_size(elem_type t)
{
	return t == T_I32 || t == T_U32 || t == T_F32 ? 4 : 8;
}

/* Stores v as element i of type t at p. */
static void store(elem_type t, void *p, size_t i, double v)
{
	switch (t) {
	case T_I32: ((int32_t *)p)[i] = (int32_t)v; break;
	case T_I64: ((int64_t *)p)[i] = (int64_t)v; break;
	case T_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case T_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
	case T_F32: ((float *)p)[i] = (float)v; break;
	case T_F64: ((double *)p)[i] = v; break;
	}
}

static double load(elem_type t, const void *p, size_t i)
{
	switch (t) {
	case T_I32: return ((const int32_t *)p)[i];
	case T_I64: return (double)((const int64_t *)p)[i];
	case T_U32: return ((const uint32_t *)p)[i];
	case T_U64: return (double)((const uint64_t *)p)[i];
	case T_F32: return ((const float *)p)[i];
	case T_F64: return ((const double *)p)[i];
	}
	return 0;
}

static kjit_status fill_file(const kjit__spec *spec, kt_arg *a)
{
	size_t bytes = a->count * a->elem;
	FILE *f = fopen(a->spec->data.file, "rb");
	if (!f)
		return kjit__error(KJIT_ERR_IO, "%s: argument %s: cannot open %s: %s", spec->path,
		                   a->spec->name, a->spec->data.file, strerror(errno));
	size_t got = fread(a->host, 1, bytes, f);
	int err = ferror(f);
	fclose(f);
	if (err)
		return kjit__error(KJIT_ERR_IO, "%s: argument %s: reading %s failed", spec->path,
		                   a->spec->name, a->spec->data.file);
	if (got < bytes)
		return kjit__error(KJIT_ERR_IO, "%s: argument %s: %s holds %zu bytes, %zu needed "
		                   "(%zu elements of %zu bytes)", spec->path, a->spec->name,
		                   a->spec->data.file, got, bytes, a->count, a->elem);
	return KJIT_OK;
}

static kjit_status build_one(const kjit__spec *spec, size_t p, const kjit__arg *sa, kt_arg *a)
{
	elem_type t = type_of(sa->type);
	char what[128];
	double v;
	kjit_status st;
	a->spec = sa;
	a->elem = type_size(t);
	if (!sa->is_buffer) {
		snprintf(what, sizeof what, "arguments %s: value", sa->name);
		if ((st = kjit__spec_eval(spec, p, NULL, sa->value, what, &v)) != KJIT_OK)
			return st;
		store(t, a->scalar, 0, v);
		return KJIT_OK;
	}
	snprintf(what, sizeof what, "arguments %s: length", sa->name);
	if ((st = kjit__spec_eval(spec, p, NULL, sa->length, what, &v)) != KJIT_OK)
		return st;
	if (!(v >= 1 && v <= 1e12 && v == floor(v)))
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: argument %s: length %g is not a "
		                   "positive whole number", spec->path, sa->name, v);
	a->count = (size_t)v;
	if (!(a->host = malloc(a->count * a->elem)))
		return kjit__error(KJIT_ERR_NOMEM, "argument %s: out of memory for %zu bytes",
		                   sa->name, a->count * a->elem);
	kt_rng rng;
	switch (sa->data.fill) {
	case KJIT__FILL_RANDOM:
		kt_rng_seed(&rng, sa->data.seed);
		for (size_t i = 0; i < a->count; i++)
			store(t, a->host, i, t == T_F32 || t == T_F64
			                     ? kt_rng_unit(&rng) : (double)kt_rng_below(&rng, 1000));
		break;
	case KJIT__FILL_CONSTANT:
		for (size_t i = 0; i < a->count; i++)
			store(t, a->host, i, sa->data.constant);
		break;
	case KJIT__FILL_SEQUENCE:
		for (size_t i = 0; i < a->count; i++)
			store(t, a->host, i, sa->data.constant + (double)i);
		break;
	case KJIT__FILL_FILE:
		return fill_file(spec, a);
	case KJIT__FILL_GENERATOR:
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: argument %s: generator fills are not "
		                   "read yet", spec->path, sa->name);
	}
	return KJIT_OK;
}

kjit_status kt_args_build(const kjit__spec *spec, size_t p, kt_args **out)
{
	*out = NULL;
	kt_args *args = calloc(1, sizeof *args);
	if (!args || !(args->a = calloc(spec->n_args + 1, sizeof *args->a))) {
		free(args);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	args->n = spec->n_args;
	for (size_t i = 0; i < spec->n_args; i++) {
		kjit_status st = build_one(spec, p, &spec->args[i], &args->a[i]);
		if (st != KJIT_OK) {
			kt_args_free(args);
			return st;
		}
	}
	*out = args;
	return KJIT_OK;
}

void kt_args_free(kt_args *args)
{
	if (!args)
		return;
	for (size_t i = 0; i < args->n; i++)
		free(args->a[i].host);
	free(args->a);
	free(args);
}

size_t kt_elem_size(const char *type)
{
	return type_size(type_of(type));
}

double kt_elem_load(const char *type, const void *p, size_t i)
{
	return load(type_of(type), p, i);
}
