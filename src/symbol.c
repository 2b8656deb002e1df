/* symbol.c - module variables: the data of a kernel's __constant__ and
 * __device__ variables, kept on the kernel and written into the module of
 * every variant, those loaded and those to come. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* The address of variable name in v's module, checked against size: data
 * smaller than the variable fills its start (a table declared for the
 * largest case, as Kernel Tuner copies it), data larger is refused. */
static kjit_status symbol_address(const kjit_variant *v, const char *name, size_t size,
                                  CUdeviceptr *out)
{
	const kjit__cu_api *cu = v->kernel->engine->cu;
	size_t have = 0;
	CUresult r = cu->cuModuleGetGlobal(out, &have, v->module, name);
	if (r == CUDA_ERROR_NOT_FOUND)
		return kjit__error(KJIT_ERR_NOT_FOUND, "kernel %s: variant %s has no module variable "
		                   "'%s' (a __constant__ or __device__ variable, looked up by its "
		                   "name)", v->kernel->name, v->key, name);
	if (r != CUDA_SUCCESS) {
		char what[320];
		snprintf(what, sizeof what, "cuModuleGetGlobal('%.100s') in variant %s of %.100s",
		         name, v->key, v->kernel->name);
		return kjit__cu_fail(KJIT_ERR_CUDA, r, what);
	}
	if (size > have)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: module variable '%s' of variant "
		                   "%s is %zu bytes, the data given is %zu bytes (more than it holds)",
		                   v->kernel->name, name, v->key, have, size);
	return KJIT_OK;
}

/* Copies the data in; kjit__symbols_done() waits for the copies. */
static kjit_status symbol_write(const kjit_variant *v, const kjit__symbol *s)
{
	CUdeviceptr p;
	kjit_status st = symbol_address(v, s->name, s->size, &p);
	if (st != KJIT_OK)
		return st;
	CUresult r = v->kernel->engine->cu->cuMemcpyHtoD(p, s->data, s->size);
	if (r != CUDA_SUCCESS) {
		char what[320];
		snprintf(what, sizeof what, "cuMemcpyHtoD to '%.100s' in variant %s of %.100s",
		         s->name, v->key, v->kernel->name);
		return kjit__cu_fail(KJIT_ERR_CUDA, r, what);
	}
	return KJIT_OK;
}

/* A copy from pageable memory may return before its transfer ends; the
 * copies are on the default stream, so waiting for it finishes them
 * before any later launch, whatever its stream. */
static kjit_status symbols_done(const kjit_engine *e)
{
	CUresult r = e->cu->cuStreamSynchronize(NULL);
	return r == CUDA_SUCCESS ? KJIT_OK
	                         : kjit__cu_fail(KJIT_ERR_CUDA, r, "cuStreamSynchronize after "
	                                         "writing module variables");
}

kjit_status kjit__variant_symbols(kjit_variant *v)
{
	const kjit_kernel *k = v->kernel;
	if (!v->module || !k->n_symbols)
		return KJIT_OK;
	for (size_t i = 0; i < k->n_symbols; i++) {
		kjit_status st = symbol_write(v, &k->symbols[i]);
		if (st != KJIT_OK)
			return st;
	}
	return symbols_done(k->engine);
}

/* Under k->symbols_lock: keeps a copy of the data as symbol's. */
static kjit_status symbol_keep(kjit_kernel *k, const char *symbol, const void *data,
                               size_t size, const kjit__symbol **out)
{
	kjit__symbol *s = NULL;
	for (size_t i = 0; i < k->n_symbols && !s; i++)
		if (strcmp(k->symbols[i].name, symbol) == 0)
			s = &k->symbols[i];
	void *copy = malloc(size);
	if (!copy)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	memcpy(copy, data, size);
	if (!s) {
		char *name = strdup(symbol);
		kjit__symbol *grown = name ? realloc(k->symbols, (k->n_symbols + 1) * sizeof *grown)
		                           : NULL;
		if (!grown) {
			free(name);
			free(copy);
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		}
		k->symbols = grown;
		s = &k->symbols[k->n_symbols++];
		s->name = name;
		s->data = NULL;
	}
	free(s->data);
	s->data = copy;
	s->size = size;
	*out = s;
	return KJIT_OK;
}

kjit_status kjit_kernel_set_symbol(kjit_kernel *k, const char *symbol, const void *data,
                                   size_t size)
{
	if (!k)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_set_symbol: kernel is NULL");
	kjit_engine *e = k->engine;
	if (!symbol || !*symbol || !data || !size)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_set_symbol: "
		                         "kernel %s: expected a variable name, data and a size above "
		                         "0 (got %s%s%s, %s, %zu)", k->name, symbol ? "'" : "",
		                         symbol ? symbol : "NULL", symbol ? "'" : "",
		                         data ? "data" : "NULL", size));
	pthread_mutex_lock(&k->symbols_lock);
	/* The list only grows at its head and its nodes never change once
	 * there; a variant of k joins it only under k->symbols_lock, held. */
	pthread_mutex_lock(&e->lock);
	kjit_variant *all = e->variants;
	pthread_mutex_unlock(&e->lock);
	int loaded = 0;
	kjit_status st = KJIT_OK;
	/* Every loaded variant must take the data before anything changes. */
	for (kjit_variant *v = all; v && st == KJIT_OK; v = v->next_in_engine) {
		CUdeviceptr p;
		if (v->kernel != k || !v->module)
			continue;
		if (!loaded++)
			st = kjit__engine_ctx(e);
		if (st == KJIT_OK)
			st = symbol_address(v, symbol, size, &p);
	}
	const kjit__symbol *s = NULL;
	if (st == KJIT_OK)
		st = symbol_keep(k, symbol, data, size, &s);
	if (st == KJIT_OK && loaded) {
		/* Launches made before this call read the old data. */
		CUresult r = e->cu->cuCtxSynchronize();
		if (r != CUDA_SUCCESS)
			st = kjit__cu_fail(KJIT_ERR_CUDA, r, "cuCtxSynchronize before writing module "
			                   "variable");
		for (kjit_variant *v = all; v && st == KJIT_OK; v = v->next_in_engine)
			if (v->kernel == k && v->module)
				st = symbol_write(v, s);
		if (st == KJIT_OK)
			st = symbols_done(e);
	}
	pthread_mutex_unlock(&k->symbols_lock);
	return st == KJIT_OK ? KJIT_OK : kjit__engine_fail(e, st);
}
