/*
 * verify.c - compares a variant's outputs with the reference on the GPU.
 * One pass of a small kernel per buffer reads both copies at memory speed;
 * copying a 256 MB output to the host and looping there cost a few hundred
 * milliseconds per variant, more than measuring it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tune.h"

/* The first mismatching index by atomicMin: each thread stops at its own
 * first mismatch, and the smallest of those is the first of all. NaN
 * matches NaN only, as |NaN - w| <= tolerance is false. */
static const char source[] =
	"typedef int i32; typedef long long i64;\n"
	"typedef unsigned int u32; typedef unsigned long long u64;\n"
	"typedef float f32; typedef double f64;\n"
	"extern \"C\" __global__ void kt_verify(const ELEM *got, const ELEM *want, u64 n,\n"
	"                                       double atol, double rtol, u64 *first)\n"
	"{\n"
	"\tu64 step = (u64)gridDim.x * blockDim.x;\n"
	"\tfor (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += step) {\n"
	"\t\tdouble g = (double)got[i], w = (double)want[i];\n"
	"\t\tbool same = isnan(w) ? isnan(g) : fabs(g - w) <= atol + rtol * fabs(w);\n"
	"\t\tif (!same) {\n"
	"\t\t\tatomicMin(first, i);\n"
	"\t\t\treturn;\n"
	"\t\t}\n"
	"\t}\n"
	"}\n";

#define THREADS 256
#define MAX_BLOCKS 4096

struct kt_verify {
	kjit_engine *engine;
	kjit_kernel *kernel;
	kjit_devptr first; /* the kernel's answer, allocated on first compare */
};

/* The kernel's ELEM for a spec element type. */
static const char *elem_name(const char *type)
{
	static const char *const map[][2] = {
		{ "int32", "i32" }, { "int64", "i64" }, { "uint32", "u32" },
		{ "uint64", "u64" }, { "float", "f32" }, { "double", "f64" },
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (strcmp(type, map[i][0]) == 0)
			return map[i][1];
	return NULL;
}

kjit_status kt_verify_open(kjit_engine *engine, kt_verify **out)
{
	kt_verify *v = calloc(1, sizeof *v);
	*out = NULL;
	if (!v)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	v->engine = engine;
	kjit_status st = kjit_kernel_create(engine, "kt_verify", source, NULL, 0, &v->kernel);
	if (st != KJIT_OK) {
		free(v);
		return st;
	}
	*out = v;
	return KJIT_OK;
}

void kt_verify_free(kt_verify *v)
{
	if (!v)
		return;
	if (v->first)
		kjit_mem_free(v->engine, v->first);
	free(v);
}

kjit_status kt_verify_variant(kt_verify *v, const char *type, kjit_variant **out)
{
	const char *elem = elem_name(type);
	if (!elem)
		return kjit__error(KJIT_ERR_INVALID_ARG, "verification: no element type '%s'", type);
	kjit_define d = { "ELEM", elem };
	kjit_variant_desc desc = { &d, 1, NULL, 0 };
	return kjit_variant_get(v->kernel, &desc, out, NULL);
}

kjit_status kt_verify_compare(kt_verify *v, const char *type, kjit_devptr got,
                              kjit_devptr want, size_t count, double atol, double rtol,
                              int64_t *at, double *got_v, double *want_v)
{
	kjit_variant *var;
	uint64_t first = UINT64_MAX, n = count;
	*at = -1;
	if (count == 0)
		return KJIT_OK;
	kjit_status st = kt_verify_variant(v, type, &var);
	if (st == KJIT_OK && !v->first)
		st = kjit_mem_alloc(v->engine, sizeof first, &v->first);
	if (st == KJIT_OK)
		st = kjit_memcpy_htod(v->engine, v->first, &first, sizeof first);
	if (st != KJIT_OK)
		return st;
	uint64_t blocks = (n + THREADS - 1) / THREADS;
	unsigned grid[3] = { blocks < MAX_BLOCKS ? (unsigned)blocks : MAX_BLOCKS, 1, 1 };
	unsigned block[3] = { THREADS, 1, 1 };
	void *args[] = { &got, &want, &n, &atol, &rtol, &v->first };
	if ((st = kjit_variant_launch(var, grid, block, 0, NULL, args)) != KJIT_OK ||
	    (st = kjit_memcpy_dtoh(v->engine, &first, v->first, sizeof first)) != KJIT_OK)
		return st;
	if (first == UINT64_MAX)
		return KJIT_OK;
	/* the two values at the first mismatch, for the message */
	unsigned char g[8], w[8];
	size_t elem = kt_elem_size(type);
	if ((st = kjit_memcpy_dtoh(v->engine, g, got + first * elem, elem)) != KJIT_OK ||
	    (st = kjit_memcpy_dtoh(v->engine, w, want + first * elem, elem)) != KJIT_OK)
		return st;
	*at = (int64_t)first;
	*got_v = kt_elem_load(type, g, 0);
	*want_v = kt_elem_load(type, w, 0);
	return KJIT_OK;
}
