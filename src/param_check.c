/* param_check.c - a variant's kernel parameters, as the driver gives them
 * (or, without one, as the cubin records them),
 * against the arguments its spec passes: a spec with one argument too
 * many, or a vector where the kernel takes an int, would otherwise launch
 * and run on garbage. */
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* Kernel parameters fill at most 32764 bytes, one byte each at least. */
#define MAX_PARAMS 32768

kjit_status kjit__kernel_expect_args(kjit_kernel *k, const kjit__arg_want *args, size_t n)
{
	kjit__arg_want *want = calloc(n + 1, sizeof *want);
	if (!want)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	int oom = 0;
	for (size_t i = 0; i < n; i++) {
		want[i].name = strdup(args[i].name);
		want[i].type = strdup(args[i].type);
		want[i].size = args[i].size;
		oom |= !want[i].name || !want[i].type;
	}
	if (oom) {
		for (size_t i = 0; i < n; i++) {
			free(want[i].name);
			free(want[i].type);
		}
		free(want);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	k->want = want;
	k->n_want = n;
	k->check_args = 1;
	return KJIT_OK;
}

kjit_status kjit_kernel_expect_args(kjit_kernel *kernel, const kjit_arg *args, size_t n)
{
	if (!kernel || (n && !args))
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_expect_args: NULL argument");
	if (kernel->check_args)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s already expects its arguments",
		                   kernel->name);
	if (n > MAX_PARAMS)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%zu arguments: a kernel takes at most %d",
		                   n, MAX_PARAMS);
	kjit__arg_want *want = calloc(n + 1, sizeof *want);
	if (!want)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	kjit_status st = KJIT_OK;
	for (size_t i = 0; i < n && st == KJIT_OK; i++) {
		if (!args[i].name || !*args[i].name || !args[i].type || !*args[i].type ||
		    !args[i].size)
			st = kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: argument %zu has no %s",
			                 kernel->name, i,
			                 !args[i].name || !*args[i].name ? "name"
			                 : !args[i].type || !*args[i].type ? "type" : "size");
		/* the copy below takes the strings; the casts only drop const */
		want[i].name = (char *)args[i].name;
		want[i].type = (char *)args[i].type;
		want[i].size = args[i].size;
	}
	if (st == KJIT_OK)
		st = kjit__kernel_expect_args(kernel, want, n);
	free(want);
	return st;
}

int kjit_kernel_args_refused(const kjit_kernel *k)
{
	return k && atomic_load(&k->args_refused);
}

static atomic_flag said_unchecked = ATOMIC_FLAG_INIT;

static void say_unchecked(const kjit__cu_api *cu)
{
	if (atomic_flag_test_and_set(&said_unchecked))
		return;
	fprintf(stderr, "kjit: note: the NVIDIA driver (CUDA %d.%d) has no cuFuncGetParamInfo "
	        "(CUDA 12.4 and later): kernel arguments are not checked against the kernel's "
	        "parameters\n", cu->driver_version / 1000, cu->driver_version % 1000 / 10);
}

/* Reads the offset and size of each of v's parameters into v: from the
 * cubin, which records them (no driver call, which would also load a
 * lazily loaded function), else from the driver (cuFuncGetParamInfo,
 * CUDA 12.4 and later: a PTX binary the driver compiled).
 * KJIT_ERR_NOMEM only; the driver's failure is kept for the check to
 * report. */
static kjit_status read_params(kjit_variant *v)
{
	const kjit__cu_api *cu = v->kernel->engine->cu;
	v->n_params = SIZE_MAX;
	v->params_cu = CUDA_SUCCESS;
	size_t n = 0, cap = 0;
	kjit_status st = kjit__cubin_params(v->cubin, v->size, v->lowered, &v->param_offset,
	                                    &v->param_size, &n);
	if (st == KJIT_OK) {
		v->n_params = n;
		v->params_from_cubin = 1;
		return KJIT_OK;
	}
	if (st == KJIT_ERR_NOMEM)
		return st;
	if (!v->function || !cu || !cu->cuFuncGetParamInfo)
		return KJIT_OK;
	if ((st = kjit__engine_ctx(v->kernel->engine)) != KJIT_OK)
		return st;
	n = 0;
	for (;;) {
		size_t off, sz;
		CUresult r = cu->cuFuncGetParamInfo(v->function, n, &off, &sz);
		if (r == CUDA_ERROR_INVALID_VALUE)
			break; /* past the last one */
		if (r != CUDA_SUCCESS || n == MAX_PARAMS) {
			v->params_cu = r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_VALUE;
			return KJIT_OK;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			size_t *o = realloc(v->param_offset, cap * sizeof *o);
			if (o)
				v->param_offset = o;
			size_t *z = o ? realloc(v->param_size, cap * sizeof *z) : NULL;
			if (!z)
				return kjit__error(KJIT_ERR_NOMEM, "out of memory");
			v->param_size = z;
		}
		v->param_offset[n] = off;
		v->param_size[n] = sz;
		n++;
	}
	v->n_params = n;
	return KJIT_OK;
}

/* The two lists side by side, a mark on each row that differs. */
static kjit_status mismatch(const kjit_kernel *k, const kjit_variant *v, const size_t *offset,
                            const size_t *size, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	fprintf(f, "kernel %s (variant %s): its parameters do not match the arguments given "
	        "(%zu parameter%s, %zu argument%s):\n  %-5s %6s %5s | %-24s %-16s %5s\n",
	        k->name, v->key, n, n == 1 ? "" : "s", k->n_want, k->n_want == 1 ? "" : "s",
	        "index", "offset", "size", "argument", "type", "size");
	for (size_t i = 0; i < n || i < k->n_want; i++) {
		if (i < n)
			fprintf(f, "  %-5zu %6zu %5zu | ", i, offset[i], size[i]);
		else
			fprintf(f, "  %-5s %6s %5s | ", "-", "-", "-");
		if (i < k->n_want)
			fprintf(f, "%-24.64s %-16.32s %5zu", k->want[i].name, k->want[i].type,
			        k->want[i].size);
		else
			fprintf(f, "%-24s %-16s %5s", "-", "-", "-");
		fprintf(f, "%s\n", i >= n ? "  <- no such parameter"
		                   : i >= k->n_want ? "  <- no argument"
		                   : size[i] != k->want[i].size ? "  <- sizes differ" : "");
	}
	fprintf(f, "(the %s gives sizes only: a pointer where a 4-byte scalar is expected "
	        "shows as 8 against 4)", v->params_from_cubin ? "cubin" : "driver");
	if (fclose(f) != 0) {
		free(text);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	kjit_status st = kjit__error(KJIT_ERR_INVALID_ARG, "%s", text);
	free(text);
	return st;
}

enum { PARAMS_UNREAD, PARAMS_READING, PARAMS_READ };

/* Reads v's parameters once, whichever thread asks first; the others wait
 * for its answer. */
static kjit_status params_of(kjit_variant *v)
{
	for (;;) {
		int s = atomic_load_explicit(&v->params_state, memory_order_acquire);
		if (s == PARAMS_READ)
			return KJIT_OK;
		if (s == PARAMS_UNREAD &&
		    atomic_compare_exchange_strong(&v->params_state, &s, PARAMS_READING)) {
			kjit_status st = read_params(v);
			atomic_store_explicit(&v->params_state,
			                      st == KJIT_OK ? PARAMS_READ : PARAMS_UNREAD,
			                      memory_order_release);
			return st;
		}
		sched_yield();
	}
}

kjit_status kjit__variant_check_args(kjit_kernel *k, kjit_variant *v)
{
	const kjit__cu_api *cu = k->engine->cu;
	if (!k->check_args)
		return KJIT_OK;
	kjit_status st = params_of(v);
	if (st != KJIT_OK)
		return st;
	if (v->params_cu != CUDA_SUCCESS)
		return kjit__cu_fail(KJIT_ERR_CUDA, v->params_cu, "cuFuncGetParamInfo");
	if (v->n_params == SIZE_MAX) {
		if (cu && v->function)
			say_unchecked(cu);
		return KJIT_OK;
	}
	size_t n = v->n_params;
	int differ = n != k->n_want;
	for (size_t i = 0; i < n && i < k->n_want; i++)
		differ |= v->param_size[i] != k->want[i].size;
	if (!differ)
		return KJIT_OK;
	atomic_store(&k->args_refused, 1);
	return mismatch(k, v, v->param_offset, v->param_size, n);
}
