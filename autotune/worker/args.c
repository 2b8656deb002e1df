/*
 * args.c - a spec's kernel arguments for one problem, on the host:
 * scalars evaluated from their expressions, buffers and symbols filled
 * (random, constant, sequence, file, generator) in every element type,
 * the expected outputs of T1 ReferenceArguments, and which outputs are
 * compared after a run, and how.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker.h"

/* Host memory and device memory are both finite: one argument larger
 * than this is a spec error rather than a failed allocation later. */
#define MAX_BYTES ((uint64_t)64 << 30)

typedef enum { T_BOOL, T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_I64, T_U64, T_F16, T_F32,
               T_F64, T_CUSTOM, T_NONE } elem_type;

/* Integers hold the whole numbers w with lo <= w < hi; floats' random
 * values are k * 2^-bits, exact in the type and below 1. */
static const struct {
	const char *name;
	size_t size;
	int bits;
	double lo, hi;
} types[] = {
	{ "bool", 1, 0, 0, 2 },
	{ "int8", 1, 0, -128, 128 },
	{ "uint8", 1, 0, 0, 256 },
	{ "int16", 2, 0, -32768, 32768 },
	{ "uint16", 2, 0, 0, 65536 },
	{ "int32", 4, 0, -2147483648.0, 2147483648.0 },
	{ "uint32", 4, 0, 0, 4294967296.0 },
	{ "int64", 8, 0, -0x1p63, 0x1p63 },
	{ "uint64", 8, 0, 0, 0x1p64 },
	{ "half", 2, 11, 0, 0 },
	{ "float", 4, 24, 0, 0 },
	{ "double", 8, 53, 0, 0 },
	{ "custom", 1, 0, 0, 0 },
};

static elem_type type_of(const char *t)
{
	for (int i = 0; t && i < T_NONE; i++)
		if (strcmp(t, types[i].name) == 0)
			return (elem_type)i;
	return T_NONE;
}

static int is_float(elem_type t)
{
	return t == T_F16 || t == T_F32 || t == T_F64;
}

uint16_t kt_half_from_double(double v)
{
	uint16_t sign = signbit(v) ? 0x8000 : 0;
	double a = fabs(v);
	if (isnan(v))
		return sign | 0x7e00;
	/* 65520 is halfway between 65504, the largest half, and 65536: to even */
	if (a >= 65520)
		return sign | 0x7c00;
	if (a < 0x1p-14) /* subnormal: units of 2^-24, rounded to even */
		return sign | (uint16_t)nearbyint(ldexp(a, 24));
	int e;
	frexp(a, &e); /* a = m * 2^e, 0.5 <= m < 1: the half exponent is e - 1 */
	/* the significand with its leading 1 in [1024, 2048], rounded to even;
	 * 2048 carries into the exponent by the addition */
	double q = nearbyint(ldexp(a, 11 - e));
	return sign | (uint16_t)(((unsigned)(e - 1 + 15) << 10) + (unsigned)q - 1024);
}

double kt_half_to_double(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
	return h & 0x8000 ? -v : v;
}

/* Stores v as value j of type t at p; -1 when t cannot hold it (an
 * integer type out of range, NaN). Integers truncate toward zero. */
static int store(elem_type t, void *p, size_t j, double v)
{
	if (t == T_BOOL || t == T_CUSTOM) {
		if (isnan(v) || (t == T_CUSTOM && !(v >= 0 && v < 256)))
			return -1;
		((uint8_t *)p)[j] = t == T_BOOL ? v != 0 : (uint8_t)v;
		return 0;
	}
	if (!is_float(t)) {
		double w = trunc(v);
		if (!(w >= types[t].lo && w < types[t].hi))
			return -1;
		v = w;
	}
	switch (t) {
	case T_I8: ((int8_t *)p)[j] = (int8_t)v; break;
	case T_U8: ((uint8_t *)p)[j] = (uint8_t)v; break;
	case T_I16: ((int16_t *)p)[j] = (int16_t)v; break;
	case T_U16: ((uint16_t *)p)[j] = (uint16_t)v; break;
	case T_I32: ((int32_t *)p)[j] = (int32_t)v; break;
	case T_U32: ((uint32_t *)p)[j] = (uint32_t)v; break;
	case T_I64: ((int64_t *)p)[j] = (int64_t)v; break;
	case T_U64: ((uint64_t *)p)[j] = (uint64_t)v; break;
	case T_F16: ((uint16_t *)p)[j] = kt_half_from_double(v); break;
	case T_F32: ((float *)p)[j] = (float)v; break;
	case T_F64: ((double *)p)[j] = v; break;
	default: break;
	}
	return 0;
}

static double load(elem_type t, const void *p, size_t j)
{
	switch (t) {
	case T_BOOL: case T_U8: case T_CUSTOM: return ((const uint8_t *)p)[j];
	case T_I8: return ((const int8_t *)p)[j];
	case T_I16: return ((const int16_t *)p)[j];
	case T_U16: return ((const uint16_t *)p)[j];
	case T_I32: return ((const int32_t *)p)[j];
	case T_U32: return ((const uint32_t *)p)[j];
	case T_I64: return (double)((const int64_t *)p)[j];
	case T_U64: return (double)((const uint64_t *)p)[j];
	case T_F16: return kt_half_to_double(((const uint16_t *)p)[j]);
	case T_F32: return ((const float *)p)[j];
	case T_F64: return ((const double *)p)[j];
	case T_NONE: break;
	}
	return NAN;
}

size_t kt_elem_size(const char *type)
{
	elem_type t = type_of(type);
	return t == T_NONE ? 0 : types[t].size;
}

double kt_elem_load(const char *type, const void *p, size_t i)
{
	return load(type_of(type), p, i);
}

int kt_elem_is_float(const char *type)
{
	return is_float(type_of(type));
}

/* "element 5", or "element 5 component 2" for a vector type: the value
 * index j in words, for messages. */
static void value_name(const kt_arg *a, size_t j, char *buf, size_t size)
{
	if (a->components > 1)
		snprintf(buf, size, "element %zu component %zu", j / a->components,
		         j % a->components);
	else
		snprintf(buf, size, "element %zu", j);
}

static kjit_status fill_file(const kjit__spec *spec, const kt_arg *a, const char *what,
                             const char *file, void *dst)
{
	if (!file)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: a file fill names no file",
		                   spec->path, what);
	int fd;
	size_t size;
	FILE *f = NULL;
	if (kjit__open_regular(file, &fd, &size) != KJIT_OK)
		return kjit__error(KJIT_ERR_IO, "%s: %s: %s", spec->path, what, kjit_last_error());
	if (!(f = fdopen(fd, "rb"))) {
		close(fd);
		return kjit__error(KJIT_ERR_IO, "%s: %s: cannot open %s: %s", spec->path, what, file,
		                   strerror(errno));
	}
	size_t got = fread(dst, 1, a->bytes, f);
	int err = ferror(f);
	fclose(f);
	if (err)
		return kjit__error(KJIT_ERR_IO, "%s: %s: reading %s failed", spec->path, what, file);
	if (got < a->bytes)
		return kjit__error(KJIT_ERR_IO, "%s: %s: %s holds %zu bytes, %zu needed "
		                   "(%zu elements of %zu bytes)", spec->path, what, file, got,
		                   a->bytes, a->count, a->bytes / a->count);
	return KJIT_OK;
}

/* Where a generator's values go, and what its messages name. */
typedef struct generated {
	const kjit__spec *spec;
	const kt_arg *a;
	const char *what, *text;
	elem_type t;
	void *dst;
} generated;

static kjit_status store_generated(void *ctx, size_t j, double v)
{
	const generated *g = ctx;
	char where[96];
	if (store(g->t, g->dst, j, v) == 0)
		return KJIT_OK;
	value_name(g->a, j, where, sizeof where);
	return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: generator \"%s\" gives %.17g at %s "
	                   "(i = %zu): not a value of type %s", g->spec->path, g->what, g->text, v,
	                   where, j, g->a->spec->type);
}

/* The generator's values: the expression parsed once (i is the value
 * index, then the problem's sizes), evaluated per value. */
static kjit_status fill_generator(const kjit__spec *spec, size_t p, const kt_arg *a,
                                  const char *what, const char *text, void *dst)
{
	if (!text)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: a generator fill has no expression",
		                   spec->path, what);
	generated g = { spec, a, what, text, type_of(a->spec->type), dst };
	char field[256], where[96];
	snprintf(field, sizeof field, "%s: generator", what);
	size_t j;
	kjit_status st = kjit_spec_generate(spec, p, text, field, a->values, store_generated, &g,
	                                    &j);
	if (st != KJIT_OK && j != SIZE_MAX) {
		value_name(a, j, where, sizeof where);
		st = kjit__error(st, "%s: %s: generator \"%s\" at %s (i = %zu): %s", spec->path,
		                 what, text, where, j, kjit_last_error());
	}
	return st;
}

/* A random fill's value j is SplitMix64's output j (kjit__splitmix()), a
 * counter-based generator: a large buffer fills on many threads with
 * values that do not depend on the split. */
typedef struct random_part {
	elem_type t;
	void *dst;
	uint64_t start;
	size_t from, to; /* values, or bytes for a custom type */
	pthread_t thread;
	int threaded;
} random_part;

static void *random_main(void *arg)
{
	random_part *r = arg;
	elem_type t = r->t;
	if (t == T_CUSTOM) {
		for (size_t j = r->from; j < r->to; j++)
			((uint8_t *)r->dst)[j] = (uint8_t)(kjit__splitmix(r->start, j) >> 56);
	} else if (t == T_F32) { /* the common case: no double, no switch */
		for (size_t j = r->from; j < r->to; j++)
			((float *)r->dst)[j] = (float)(kjit__splitmix(r->start, j) >> 40) * 0x1p-24f;
	} else {
		double unit = is_float(t) ? ldexp(1, -types[t].bits) : 0; /* exact: k x unit */
		uint64_t below = types[t].hi < 1000 ? (uint64_t)types[t].hi : 1000;
		for (size_t j = r->from; j < r->to; j++) {
			uint64_t bits = kjit__splitmix(r->start, j);
			double v = is_float(t) ? (double)(bits >> (64 - types[t].bits)) * unit
			                       : (double)(uint64_t)(((unsigned __int128)bits * below) >> 64);
			store(t, r->dst, j, v);
		}
	}
	return NULL;
}

/* A random fill of a (its values in [0, 1) for floats, [0, 1000) or the
 * type's range for integers), on a thread per 2^20 values up to the
 * CPUs: a problem's inputs are on the critical path of a tuning run. */
static void fill_random(elem_type t, const kt_arg *a, uint64_t seed, void *dst)
{
	enum { PART = 1 << 20, MOST = 64 };
	size_t n = t == T_CUSTOM ? a->bytes : a->values;
	size_t parts = n / PART + 1, cpus = (size_t)kjit__cpu_count();
	parts = parts < cpus ? parts : cpus;
	parts = parts < MOST ? parts : MOST;
	random_part part[MOST];
	uint64_t start = kjit__splitmix(seed, UINT64_MAX); /* seeds 7 and 8: unrelated streams */
	for (size_t i = 0; i < parts; i++) {
		part[i] = (random_part){ .t = t, .dst = dst, .start = start, .from = n / parts * i,
			                 .to = i + 1 == parts ? n : n / parts * (i + 1) };
		part[i].threaded = i + 1 < parts &&
		                   pthread_create(&part[i].thread, NULL, random_main, &part[i]) == 0;
		if (!part[i].threaded) /* the last part, or no thread to be had */
			random_main(&part[i]);
	}
	for (size_t i = 0; i < parts; i++)
		if (part[i].threaded)
			pthread_join(part[i].thread, NULL);
}

/* Fills dst (a->bytes) from d; what names it ("argument x"). */
static kjit_status fill(const kjit__spec *spec, size_t p, const kt_arg *a,
                        const kjit__data *d, const char *what, void *dst)
{
	elem_type t = type_of(a->spec->type);
	char where[96];
	if (t == T_CUSTOM && (d->fill == KJIT__FILL_SEQUENCE || d->fill == KJIT__FILL_GENERATOR))
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: type custom is raw bytes: its fill "
		                   "is Random, Constant (every byte) or a file, not %s", spec->path,
		                   what, d->fill == KJIT__FILL_SEQUENCE ? "a sequence" : "a generator");
	switch (d->fill) {
	case KJIT__FILL_RANDOM:
		fill_random(t, a, d->seed, dst);
		return KJIT_OK;
	case KJIT__FILL_CONSTANT:
	case KJIT__FILL_SEQUENCE:
		for (size_t j = 0; j < (t == T_CUSTOM ? a->bytes : a->values); j++) {
			double v = d->constant + (d->fill == KJIT__FILL_SEQUENCE ? (double)j : 0);
			if (store(t, dst, j, v) != 0) {
				value_name(a, j, where, sizeof where);
				return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: %.17g at %s is not a value "
				                   "of type %s%s", spec->path, what, v, where, a->spec->type,
				                   t == T_CUSTOM ? " (a custom constant is a byte, 0 to 255)"
				                                 : "");
			}
		}
		return KJIT_OK;
	case KJIT__FILL_FILE:
		return fill_file(spec, a, what, d->file, dst);
	case KJIT__FILL_GENERATOR:
		return fill_generator(spec, p, a, what, d->generator, dst);
	}
	return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: unknown fill %d", spec->path, what,
	                   (int)d->fill);
}

/* count x components x element size, checked. */
static kjit_status size_of(const kjit__spec *spec, kt_arg *a)
{
	size_t values, bytes;
	if (__builtin_mul_overflow(a->count, a->components, &values) ||
	    __builtin_mul_overflow(values, a->elem, &bytes) || (uint64_t)bytes > MAX_BYTES)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: argument %s: %zu elements of %zu x %zu "
		                   "bytes are above kjit-tune's limit of %llu GiB per argument",
		                   spec->path, a->spec->name, a->count, (size_t)a->components,
		                   a->elem, (unsigned long long)(MAX_BYTES >> 30));
	a->values = values;
	a->bytes = bytes;
	return KJIT_OK;
}

/* A value of its own (an expression), not a length and a fill: a scalar
 * argument, or a symbol given so. */
static int is_scalar(const kjit__arg *a)
{
	return !a->is_buffer && !(a->symbol && a->length);
}

/* What can be said of an argument before its problem: type, width,
 * whether it can be compared. */
static kjit_status check_arg(const kjit__spec *spec, const kjit__arg *sa, const char *what)
{
	elem_type t = type_of(sa->type);
	if (t == T_NONE)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: no element type '%s'", spec->path,
		                   what, sa->type ? sa->type : "(none)");
	if (t != T_CUSTOM && (sa->components < 1 || sa->components > 16))
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: %u components (expected 1 to 16)",
		                   spec->path, what, sa->components);
	if (t == T_CUSTOM && sa->custom_size < 1)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: type custom needs its size in bytes "
		                   "(TypeSize)", spec->path, what);
	if (t == T_CUSTOM && is_scalar(sa))
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: a scalar of type custom has no "
		                   "value to give it: make it a buffer filled from a file",
		                   spec->path, what);
	if (sa->symbol && kt_arg_compared(spec, sa))
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: a symbol (module variable) that the "
		                   "kernel writes would be compared after each run, and kjit-tune "
		                   "cannot read a module variable back: make it ReadOnly, or run "
		                   "with --verify none", spec->path, what);
	return KJIT_OK;
}

kjit_status kt_args_check(const kjit__spec *spec)
{
	for (size_t i = 0; i < spec->n_args; i++) {
		char what[160];
		snprintf(what, sizeof what, "argument %s", spec->args[i].name);
		kjit_status st = check_arg(spec, &spec->args[i], what);
		if (st != KJIT_OK)
			return st;
	}
	return KJIT_OK;
}

static kjit_status build_one(const kjit__spec *spec, size_t p, const kjit__arg *sa, kt_arg *a)
{
	elem_type t = type_of(sa->type);
	char what[160], field[160];
	double v = 0;
	a->spec = sa;
	snprintf(what, sizeof what, "argument %s", sa->name);
	kjit_status st = check_arg(spec, sa, what);
	if (st != KJIT_OK)
		return st;
	a->components = t == T_CUSTOM ? 1 : sa->components;
	a->elem = t == T_CUSTOM ? sa->custom_size : types[t].size;
	if (is_scalar(sa)) {
		if (!sa->value)
			return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: no value", spec->path, what);
		snprintf(field, sizeof field, "arguments %s: value", sa->name);
		if ((st = kjit_spec_eval(spec, p, NULL, sa->value, field, &v)) != KJIT_OK)
			return st;
		a->count = 1;
	} else {
		snprintf(field, sizeof field, "arguments %s: length", sa->name);
		if ((st = kjit_spec_eval(spec, p, NULL, sa->length, field, &v)) != KJIT_OK)
			return st;
		if (!(v >= 1 && v <= 0x1p53 && v == floor(v)))
			return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: length %g is not a positive "
			                   "whole number", spec->path, what, v);
		a->count = (size_t)v;
	}
	if ((st = size_of(spec, a)) != KJIT_OK)
		return st;
	if (!(a->host = malloc(a->bytes)))
		return kjit__error(KJIT_ERR_NOMEM, "%s: out of memory for %zu bytes", what, a->bytes);
	if (is_scalar(sa)) {
		for (size_t j = 0; j < a->values; j++)
			if (store(t, a->host, j, v) != 0)
				return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %s: value %.17g is not a value "
				                   "of type %s", spec->path, what, v, sa->type);
	} else if ((st = fill(spec, p, a, &sa->data, what, a->host)) != KJIT_OK) {
		return st;
	}
	if (!sa->has_reference || strcmp(spec->verify, "data") != 0)
		return KJIT_OK;
	snprintf(what, sizeof what, "argument %s: reference", sa->name);
	if (!(a->reference = malloc(a->bytes)))
		return kjit__error(KJIT_ERR_NOMEM, "%s: out of memory for %zu bytes", what, a->bytes);
	return fill(spec, p, a, &sa->reference, what, a->reference);
}

/* One argument's build, on a thread of its own for a buffer: the fills
 * are independent (each has its own seed), and a problem's set-up (2 x
 * 2^26 random floats for saxpy) is on the critical path of a tuning run. */
typedef struct build_job {
	const kjit__spec *spec;
	size_t p;
	const kjit__arg *arg;
	kt_arg *out;
	kjit_status st;
	char *error;           /* the failure's message, malloc'ed */
	pthread_t thread;
	int started;
} build_job;

static void *build_main(void *arg)
{
	build_job *j = arg;
	j->st = build_one(j->spec, j->p, j->arg, j->out);
	if (j->st != KJIT_OK) /* the message is the thread's own */
		j->error = strdup(kjit_last_error());
	return NULL;
}

kjit_status kt_args_build(const kjit__spec *spec, size_t p, kt_args **out)
{
	*out = NULL;
	kt_args *args = calloc(1, sizeof *args);
	build_job *jobs = calloc(spec->n_args + 1, sizeof *jobs);
	if (!args || !jobs || !(args->a = calloc(spec->n_args + 1, sizeof *args->a))) {
		free(args);
		free(jobs);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	args->n = spec->n_args;
	for (size_t i = 0; i < spec->n_args; i++) {
		build_job *j = &jobs[i];
		*j = (build_job){ .spec = spec, .p = p, .arg = &spec->args[i], .out = &args->a[i] };
		if (j->arg->is_buffer || j->arg->symbol)
			j->started = pthread_create(&j->thread, NULL, build_main, j) == 0;
		if (!j->started)
			build_main(j);
	}
	kjit_status st = KJIT_OK;
	for (size_t i = 0; i < spec->n_args; i++) {
		if (jobs[i].started)
			pthread_join(jobs[i].thread, NULL);
		if (st == KJIT_OK && jobs[i].st != KJIT_OK) /* the first in the spec's order */
			st = kjit__error(jobs[i].st, "%s", jobs[i].error ? jobs[i].error : "out of memory");
		free(jobs[i].error);
	}
	free(jobs);
	if (st != KJIT_OK) {
		kt_args_free(args);
		return st;
	}
	*out = args;
	return KJIT_OK;
}

void kt_args_free(kt_args *args)
{
	if (!args)
		return;
	for (size_t i = 0; i < args->n; i++) {
		free(args->a[i].host);
		free(args->a[i].reference);
	}
	free(args->a);
	free(args);
}

/* ---- what is compared ------------------------------------------------------ */

int kt_arg_compared(const kjit__spec *spec, const kjit__arg *a)
{
	if ((!a->is_buffer && !a->symbol) || strcmp(spec->verify, "none") == 0)
		return 0;
	if (strcmp(spec->verify, "data") == 0)
		return a->has_reference;
	return a->output >= 0 ? a->output : (a->access & KJIT__OUT) != 0;
}

void kt_arg_check(const kjit__spec *spec, const kjit__arg *a, kt_check *out)
{
	elem_type t = type_of(a->type);
	out->method = KJIT__CHECK_TOLERANCE;
	out->atol = spec->atol;
	out->rtol = spec->rtol;
	out->threshold = 0;
	if (t == T_CUSTOM) {
		out->atol = out->rtol = 0; /* raw bytes: equal or not */
	} else if (strcmp(spec->verify, "data") == 0 && a->check != KJIT__CHECK_TOLERANCE) {
		/* KTT's validation methods are for floating-point outputs; it
		 * compares integers exactly */
		if (is_float(t)) {
			out->method = a->check;
			out->threshold = a->threshold;
		} else {
			out->atol = out->rtol = 0;
		}
	}
}

kjit_status kt_verify_override(kjit__spec *spec, const char *verify, double atol, double rtol)
{
	if (verify) {
		int any_reference = 0;
		for (size_t i = 0; i < spec->n_args; i++)
			any_reference |= spec->args[i].has_reference;
		if (strcmp(verify, "default") != 0 && strcmp(verify, "reference") != 0 &&
		    strcmp(verify, "data") != 0 && strcmp(verify, "none") != 0)
			return kjit__error(KJIT_ERR_INVALID_ARG, "--verify: expected default, reference, "
			                   "data or none, got '%s'", verify);
		if (strcmp(verify, "reference") == 0 && !spec->reference_entry)
			return kjit__error(KJIT_ERR_INVALID_ARG, "--verify reference: %s names no "
			                   "reference kernel (verify.reference)", spec->path);
		if (strcmp(verify, "data") == 0 && !any_reference)
			return kjit__error(KJIT_ERR_INVALID_ARG, "--verify data: %s gives no expected "
			                   "output (T1 ReferenceArguments)", spec->path);
		char *copy = strdup(verify);
		if (!copy)
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		free(spec->verify);
		spec->verify = copy;
	}
	if (!isnan(atol))
		spec->atol = atol;
	if (!isnan(rtol))
		spec->rtol = rtol;
	return KJIT_OK;
}
