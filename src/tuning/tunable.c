/* tunable.c - tunable kernels: a C description or a spec file made into
 * one kjit__spec, and what a configuration of it means: its variant
 * (defines and flags) and its launch dimensions for a problem. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning_private.h"

/* The public roles are the spec's. */
_Static_assert(KJIT_ROLE_BLOCK_X == KJIT__ROLE_BLOCK_X && KJIT_ROLE_BLOCK_Y == KJIT__ROLE_BLOCK_Y &&
               KJIT_ROLE_BLOCK_Z == KJIT__ROLE_BLOCK_Z && KJIT_ROLE_DEFINE == KJIT__ROLE_DEFINE &&
               KJIT_ROLE_FLAGS == KJIT__ROLE_FLAGS, "kjit.h and engine.h roles differ");

static int is_ident(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* A problem size's name: an identifier, or a T1 spec's ProblemSize[i]
 * (its ProblemSize given as a list). */
static int is_size_name(const char *s)
{
	static const char t1[] = "ProblemSize[";
	if (!s || strncmp(s, t1, sizeof t1 - 1) != 0)
		return is_ident(s);
	s += sizeof t1 - 1;
	if (!isdigit((unsigned char)*s))
		return 0;
	while (isdigit((unsigned char)*s))
		s++;
	return strcmp(s, "]") == 0;
}

/* A value's kind, as the spec reader gives JSON values: an integer, a
 * real, else text. */
static kjit_status set_value(kjit__value *v, const char *text)
{
	char *end;
	memset(v, 0, sizeof *v);
	if (!(v->text = strdup(text)))
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	v->kind = SQLITE_TEXT;
	if (!*text || isspace((unsigned char)*text))
		return KJIT_OK;
	long long i = strtoll(text, &end, 10);
	if (!*end) {
		v->kind = SQLITE_INTEGER;
		v->i = i;
		v->d = (double)i;
		return KJIT_OK;
	}
	double d = strtod(text, &end);
	if (!*end && isfinite(d)) {
		v->kind = SQLITE_FLOAT;
		v->d = d;
	}
	return KJIT_OK;
}

static char *dup_or(const char *s, const char *def)
{
	return strdup(s ? s : def);
}

static char **dup_strings(const char *const *s, size_t n, int *oom)
{
	char **out = calloc(n + 1, sizeof *out);
	if (!out) {
		*oom = 1;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (!(out[i] = strdup(s[i] ? s[i] : "")))
			*oom = 1;
	return out;
}

/* The description as a spec, checked as the spec reader checks a file. */
static kjit_status spec_from_desc(const kjit_tunable_desc *d, kjit__spec **out)
{
	const char *who = d->entry;
	kjit__spec *s = calloc(1, sizeof *s);
	int oom = !s;
	*out = NULL;
	if (oom)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	s->path = kjit__strdup_printf("kernel %s", who);
	s->format = strdup("c");
	s->entry = strdup(who);
	s->source_path = d->source_path ? strdup(d->source_path) : NULL;
	s->flags = dup_strings(d->flags, d->n_flags, &oom);
	s->n_flags = d->n_flags;
	s->restrictions = dup_strings(d->restrictions, d->n_restrictions, &oom);
	s->n_restrictions = d->n_restrictions;
	for (int i = 0; i < 3; i++)
		oom |= !(s->grid[i] = dup_or(d->grid_fn ? NULL : d->grid[i], "1"));
	oom |= !(s->shared = dup_or(d->shared, "0"));
	oom |= !s->path || !s->format || !s->entry;
	s->max_threads = 1024;
	s->max_shared = INT64_MAX; /* no limit of its own: the device's */
	s->params = calloc(d->n_params + 1, sizeof *s->params);
	oom |= !s->params;
	kjit_status st = oom ? kjit__error(KJIT_ERR_NOMEM, "out of memory") : KJIT_OK;
	for (size_t i = 0; st == KJIT_OK && i < d->n_params; i++) {
		const kjit_param *in = &d->params[i];
		kjit__param *p = &s->params[i];
		s->n_params++;
		if (!is_ident(in->name)) {
			st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: params[%zu].name: expected an "
			                 "identifier (got \"%s\")", s->path, i,
			                 in->name ? in->name : "(null)");
			break;
		}
		for (size_t j = 0; j < i && st == KJIT_OK; j++)
			if (strcmp(s->params[j].name, in->name) == 0)
				st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: params[%zu].name: expected a "
				                 "unique name (%s repeats)", s->path, i, in->name);
		if (st != KJIT_OK)
			break;
		if (!(p->name = strdup(in->name)) ||
		    !(p->values = calloc(in->n_values + 1, sizeof *p->values))) {
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
			break;
		}
		p->roles = in->roles ? in->roles : KJIT__ROLE_DEFINE;
		p->default_index = in->default_index;
		if (in->roles & ~(unsigned)(KJIT_ROLE_BLOCK_X | KJIT_ROLE_BLOCK_Y | KJIT_ROLE_BLOCK_Z |
		                            KJIT_ROLE_DEFINE | KJIT_ROLE_FLAGS))
			st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: params[%zu] (%s): unknown roles "
			                 "0x%x", s->path, i, in->name, in->roles);
		else if (!in->n_values || !in->values || in->n_values > 65535)
			st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: params[%zu] (%s): expected 1 to "
			                 "65535 values", s->path, i, in->name);
		else if (in->default_index >= in->n_values)
			st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: params[%zu] (%s): default_index "
			                 "%zu is not below n_values %zu", s->path, i, in->name,
			                 in->default_index, in->n_values);
		for (size_t v = 0; st == KJIT_OK && v < in->n_values; v++) {
			if (!in->values[v]) {
				st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: params[%zu] (%s): value %zu "
				                 "is NULL", s->path, i, in->name, v);
				break;
			}
			if ((st = set_value(&p->values[v], in->values[v])) != KJIT_OK)
				break;
			p->n_values++;
			const kjit__value *pv = &p->values[v];
			for (size_t w = 0; w < v && st == KJIT_OK; w++)
				if (strcmp(p->values[w].text, pv->text) == 0)
					st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: params[%zu] (%s): "
					                 "expected distinct values (%s repeats)", s->path,
					                 i, in->name, pv->text);
			if (st == KJIT_OK && (p->roles & (KJIT__ROLE_BLOCK_X | KJIT__ROLE_BLOCK_Y |
			                                   KJIT__ROLE_BLOCK_Z)) &&
			    (pv->kind != SQLITE_INTEGER || pv->i < 1))
				st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: params[%zu] (%s): expected "
				                 "positive integers for a block dimension (got %s)",
				                 s->path, i, in->name, pv->text);
		}
	}
	if (st != KJIT_OK) {
		kjit__spec_free(s);
		return st;
	}
	*out = s;
	return KJIT_OK;
}

/* Parses every expression once, so that a bad one fails at creation. */
static kjit_status check_exprs(const kjit__spec *s, char *const *sizes, size_t n)
{
	const char **names = calloc(n + s->n_params + 1, sizeof *names);
	if (!names)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		names[i] = sizes[i];
	for (size_t i = 0; i < s->n_params; i++)
		names[n + i] = s->params[i].name;
	kjit_status st = KJIT_OK;
	for (size_t i = 0; st == KJIT_OK && i < s->n_restrictions + 7; i++) {
		char what[160];
		const char *text;
		size_t r = i - s->n_restrictions;
		if (i < s->n_restrictions) {
			text = s->restrictions[i];
			snprintf(what, sizeof what, "%s: restrictions[%zu]", s->path, i);
		} else if (r < 3) {
			text = s->grid[r];
			snprintf(what, sizeof what, "%s: grid[%zu]", s->path, r);
		} else if (r == 3) {
			text = s->shared;
			snprintf(what, sizeof what, "%s: shared", s->path);
		} else {
			text = s->block[r - 4];
			snprintf(what, sizeof what, "%s: block[%zu]", s->path, r - 4);
		}
		kjit__expr *e = NULL;
		if (text)
			st = kjit__expr_parse(text, s->python ? KJIT__DIALECT_PYTHON : KJIT__DIALECT_KJIT,
			                      names, n + s->n_params, what, s->expr_budget, &e);
		kjit__expr_free(e);
	}
	free(names);
	return st;
}

/* Makes the kernel (its signature as kjit-tune computes it: entry, source
 * text, parameter names) and attaches the tunable part; takes spec and
 * sizes. */
/* The bytes of one element of a spec type; 0 for custom. */
static size_t type_bytes(const char *type)
{
	static const struct {
		const char *name;
		size_t bytes;
	} types[] = { { "bool", 1 }, { "int8", 1 },  { "uint8", 1 },  { "int16", 2 },
		      { "uint16", 2 }, { "int32", 4 }, { "uint32", 4 }, { "int64", 8 },
		      { "uint64", 8 }, { "half", 2 },  { "float", 4 },  { "double", 8 } };
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcmp(type, types[i].name) == 0)
			return types[i].bytes;
	return 0;
}

/* What the spec passes to the kernel, in order: its arguments but the
 * module variables; a buffer is a device pointer. */
static kjit_status expect_args(kjit_kernel *k, const kjit__spec *spec)
{
	kjit__arg_want *want = calloc(spec->n_args + 1, sizeof *want);
	size_t n = 0;
	kjit_status st = want ? KJIT_OK : kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; st == KJIT_OK && i < spec->n_args; i++) {
		const kjit__arg *a = &spec->args[i];
		if (a->symbol)
			continue;
		char base[48];
		if (a->custom_size)
			snprintf(base, sizeof base, "custom(%zu)", a->custom_size);
		else if (a->components > 1)
			snprintf(base, sizeof base, "%.24s%u", a->type, a->components);
		else
			snprintf(base, sizeof base, "%.24s", a->type);
		size_t scalar = a->custom_size ? a->custom_size
		                               : type_bytes(a->type) * (a->components ? a->components : 1);
		want[n].name = a->name;
		want[n].size = a->is_buffer ? sizeof(CUdeviceptr) : scalar;
		want[n].type = kjit__strdup_printf("%s%s", base, a->is_buffer ? " *" : "");
		if (!want[n++].type)
			st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	if (st == KJIT_OK)
		st = kjit__kernel_expect_args(k, want, n);
	for (size_t i = 0; i < n; i++)
		free(want[i].type);
	free(want);
	return st;
}

kjit_status kjit_spec_signature(const kjit__spec *spec, char **out)
{
	if (!spec || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_signature: NULL argument");
	char *source = NULL, *params = NULL, sig[33];
	size_t len;
	const char **names = calloc(spec->n_params + 1, sizeof *names);
	*out = NULL;
	kjit_status st = kjit__read_text(spec->source_path, &source, &len);
	if (st == KJIT_OK && strlen(source) != len)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "kernel source %s contains a NUL byte: "
		                 "not CUDA source text", spec->source_path);
	for (size_t i = 0; names && i < spec->n_params; i++)
		names[i] = spec->params[i].name;
	if (st == KJIT_OK && (!names || !(params = kjit__param_list(names, spec->n_params))))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st == KJIT_OK && (st = kjit__signature(spec->entry, source, params, sig)) == KJIT_OK &&
	    !(*out = strdup(sig)))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	free(names);
	free(params);
	free(source);
	return st;
}

kjit_status kjit__spec_kernel(kjit_engine *e, const kjit__spec *spec, const char *entry,
                              const char *source, const kjit_kernel_options *opts,
                              kjit_kernel **out)
{
	if (!source && spec->source_missing)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_IO, "%s", spec->source_missing));
	const char **names = calloc(spec->n_params + 1, sizeof *names);
	if (!names)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_NOMEM, "out of memory"));
	for (size_t i = 0; i < spec->n_params; i++)
		names[i] = spec->params[i].name;
	kjit_kernel_options own;
	kjit_link_input *link = calloc(spec->n_link + 1, sizeof *link);
	if (!link) {
		free(names);
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_NOMEM, "out of memory"));
	}
	if (!opts) {
		kjit_kernel_options_init(&own);
		own.include_dirs = (const char *const *)spec->include_dirs;
		own.n_include_dirs = spec->n_include_dirs;
		own.headers = spec->headers;
		own.n_headers = spec->n_headers;
		for (size_t i = 0; i < spec->n_link; i++)
			link[i] = (kjit_link_input){ .kind = spec->link_kinds[i],
				                     .path = spec->link_paths[i] };
		own.link = link;
		own.n_link = spec->n_link;
		own.link_options = (const char *const *)spec->link_options;
		own.n_link_options = spec->n_link_options;
		opts = &own;
	}
	kjit_status st = kjit_kernel_create_with(e, entry, source, source ? NULL : spec->source_path,
	                                         names, spec->n_params, opts, out);
	free(link);
	free(names);
	/* a kernel made from a description has no arguments to check, nor a
	 * spec that gives none (it is counted or compiled, not run) */
	if (st == KJIT_OK && strcmp(spec->format, "c") != 0 && spec->n_args &&
	    (st = expect_args(*out, spec)) != KJIT_OK) {
		*out = NULL; /* the engine frees it as it closes */
		return kjit__engine_fail(e, st);
	}
	return st;
}

kjit_status kjit_spec_kernel(kjit_engine *engine, const kjit_spec *spec, int reference,
                             kjit_kernel **out)
{
	if (out)
		*out = NULL;
	if (!engine || !spec || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_spec_kernel: engine, spec and out "
		                   "must not be NULL");
	const char *entry = reference ? spec->reference_entry : spec->entry;
	kjit_status st = KJIT_OK;
	if (spec->unrunnable)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "%s", spec->unrunnable);
	else if (!entry)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: the spec names no reference kernel",
		                 spec->path);
	return st == KJIT_OK ? kjit__spec_kernel(engine, spec, entry, NULL, NULL, out)
	                     : kjit__engine_fail(engine, st);
}

static kjit_status make_tunable(kjit_engine *e, const char *source, kjit__spec *spec,
                                char **sizes, size_t n, kjit_grid_fn grid_fn, void *grid_user,
                                const kjit_kernel_options *opts, kjit_kernel **out)
{
	kjit_kernel *k = NULL;
	kjit__tunable *t = NULL;
	kjit_status st = KJIT_OK;
	for (size_t i = 0; st == KJIT_OK && i < n; i++) {
		if (!is_size_name(sizes[i]))
			st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: problem size %zu: expected an "
			                 "identifier (got \"%s\")", spec->path, i, sizes[i]);
		for (size_t j = 0; st == KJIT_OK && j < spec->n_params; j++)
			if (strcmp(sizes[i], spec->params[j].name) == 0)
				st = kjit__error(KJIT_ERR_INVALID_ARG, "%s: problem size %s is also a "
				                 "parameter name", spec->path, sizes[i]);
	}
	if (st == KJIT_OK)
		st = check_exprs(spec, sizes, n);
	if (st == KJIT_OK)
		st = kjit__spec_kernel(e, spec, spec->entry, source, opts, &k);
	if (st == KJIT_OK && !(t = calloc(1, sizeof *t)))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st != KJIT_OK) {
		kjit__spec_free(spec);
		for (size_t i = 0; sizes && i < n; i++)
			free(sizes[i]);
		free(sizes);
		return kjit__engine_fail(e, st);
	}
	t->spec = spec;
	t->names = sizes;
	t->n = n;
	t->grid_fn = grid_fn;
	t->grid_user = grid_user;
	pthread_mutex_init(&t->lock, NULL);
	atomic_init(&t->memo.now, NULL);
	pthread_mutex_lock(&e->lock);
	k->tun = t;
	pthread_mutex_unlock(&e->lock);
	kjit__engine_hooks(e, &kjit__tuning);
	*out = k;
	return KJIT_OK;
}

static void kernel_free(kjit_kernel *k)
{
	kjit__tunable_free(k->tun);
	k->tun = NULL;
}

static void engine_close(kjit_engine *e)
{
	free(e->memo_by_id);
	e->memo_by_id = NULL;
}

const kjit__tuning_hooks kjit__tuning = {
	.stop = kjit__tunable_stop,
	.free = kernel_free,
	.sample = kjit__drift_sample,
	.tick = kjit__drift_flush,
	.close = engine_close,
};

kjit_status kjit_kernel_create_tunable(kjit_engine *e, const kjit_tunable_desc *d,
                                       kjit_kernel **out)
{
	if (out)
		*out = NULL;
	if (!e || !d || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_create_tunable: engine, desc "
		                   "and out must not be NULL");
	if (!d->entry || !*d->entry || (!d->source && !d->source_path) ||
	    (d->n_params && !d->params) || (d->n_restrictions && !d->restrictions) ||
	    (d->n_flags && !d->flags) || (d->n_problem && !d->problem_names))
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_INVALID_ARG,
		                         "kjit_kernel_create_tunable: the description needs an "
		                         "entry, a source or source_path, and arrays for its counts"));
	kjit__spec *spec;
	kjit_status st = spec_from_desc(d, &spec);
	if (st != KJIT_OK)
		return kjit__engine_fail(e, st);
	int oom = 0;
	char **sizes = dup_strings(d->problem_names, d->n_problem, &oom);
	if (oom) {
		for (size_t i = 0; sizes && i < d->n_problem; i++)
			free(sizes[i]);
		free(sizes);
		kjit__spec_free(spec);
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_NOMEM, "out of memory"));
	}
	return make_tunable(e, d->source, spec, sizes, d->n_problem, d->grid_fn, d->grid_user,
	                    d->options, out);
}

kjit_status kjit_kernel_create_from_spec(kjit_engine *e, const char *path, kjit_kernel **out)
{
	if (out)
		*out = NULL;
	if (!e || !path || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_create_from_spec: engine, "
		                   "path and out must not be NULL");
	kjit__spec *spec;
	kjit_status st = kjit__spec_load(path, &spec);
	if (st != KJIT_OK)
		return kjit__engine_fail(e, st);
	if (spec->unrunnable) {
		st = kjit__error(KJIT_ERR_INVALID_ARG, "%s", spec->unrunnable);
		kjit__spec_free(spec);
		return kjit__engine_fail(e, st);
	}
	size_t n = spec->n_problems ? spec->problems[0].n : 0;
	int oom = 0;
	char **sizes = dup_strings(n ? (const char *const *)spec->problems[0].names : NULL, n, &oom);
	if (oom) {
		free(sizes);
		kjit__spec_free(spec);
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_NOMEM, "out of memory"));
	}
	return make_tunable(e, NULL, spec, sizes, n, NULL, NULL, NULL, out);
}

const char *const *kjit_kernel_problem_names(const kjit_kernel *k, size_t *n)
{
	if (n)
		*n = k && k->tun ? k->tun->n : 0;
	return k && k->tun ? (const char *const *)k->tun->names : NULL;
}

