/*
 * verify.c - compares a variant's outputs with the expected ones on the
 * GPU. One pass of a small kernel per buffer reads both copies at memory
 * speed; copying a 256 MB output to the host and looping there cost a few
 * hundred milliseconds per variant, more than measuring it.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "worker.h"

/* mode 0: |g - w| <= atol + rtol |w|; 1: |g - w| <= atol or <= rtol |w|;
 * 2: the sum of |g - w| into *sum. Equal values match (infinities too),
 * NaN matches NaN; any other difference with an infinity or NaN does not
 * (rtol * inf would pass anything). The first mismatching index by
 * atomicMin: each thread stops at its own first mismatch, and the
 * smallest of those is the first of all. half arrives as its bits. */
static const char source[] =
	"typedef signed char i8; typedef unsigned char u8;\n"
	"typedef short i16; typedef unsigned short u16;\n"
	"typedef int i32; typedef long long i64;\n"
	"typedef unsigned int u32; typedef unsigned long long u64;\n"
	"typedef float f32; typedef double f64; typedef unsigned short f16;\n"
	"#ifdef HALF\n"
	"__device__ double value(f16 h)\n"
	"{\n"
	"\tu64 s = (u64)(h >> 15) << 63, e = (h >> 10) & 31, m = h & 1023;\n"
	"\tif (e == 0)\n"
	"\t\treturn (s ? -1.0 : 1.0) * (double)m * 5.9604644775390625e-08;\n"
	"\treturn __longlong_as_double((long long)(s | (e == 31 ? 2047ull : e - 15 + 1023) << 52 |\n"
	"\t                                        m << 42));\n"
	"}\n"
	"#else\n"
	"__device__ double value(ELEM v) { return (double)v; }\n"
	"#endif\n"
	"__device__ void add(double *sum, double v)\n"
	"{\n"
	"\tu64 *p = (u64 *)sum, old = *p, seen;\n"
	"\tdo {\n"
	"\t\tseen = old;\n"
	"\t\told = atomicCAS(p, seen, (u64)__double_as_longlong(__longlong_as_double((long long)seen) + v));\n"
	"\t} while (old != seen);\n"
	"}\n"
	"extern \"C\" __global__ void kt_verify(const ELEM *got, const ELEM *want, u64 n,\n"
	"                                       double atol, double rtol, int mode, u64 *first,\n"
	"                                       double *sum)\n"
	"{\n"
	"\tu64 step = (u64)gridDim.x * blockDim.x;\n"
	"\tdouble part = 0;\n"
	"\tfor (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += step) {\n"
	"\t\tdouble g = value(got[i]), w = value(want[i]);\n"
	"\t\tdouble d = g == w || (isnan(g) && isnan(w)) ? 0.0 : fabs(g - w);\n"
	"\t\tif (isnan(d))\n"
	"\t\t\td = __longlong_as_double(0x7ff0000000000000ll);\n"
	"\t\tif (mode == 2) {\n"
	"\t\t\tpart += d;\n"
	"\t\t\tcontinue;\n"
	"\t\t}\n"
	"\t\tbool same = d == 0 || (isfinite(d) && (mode == 0 ? d <= atol + rtol * fabs(w)\n"
	"\t\t                                              : d <= atol || d <= rtol * fabs(w)));\n"
	"\t\tif (!same) {\n"
	"\t\t\tatomicMin(first, i);\n"
	"\t\t\treturn;\n"
	"\t\t}\n"
	"\t}\n"
	"\tif (part != 0)\n"
	"\t\tadd(sum, part);\n"
	"}\n";

#define THREADS 256
#define MAX_BLOCKS 4096
/* KTT's SideBySideRelativeComparison passes any difference up to this */
#define RELATIVE_FLOOR 1e-4

struct kt_verify {
	kjit_engine *engine;
	kjit_kernel *kernel;
	kjit_devptr answer; /* the first mismatch (u64) and the sum (double), made on first use */
};

/* The kernel's ELEM for a spec element type. */
static const char *elem_name(const char *type)
{
	static const char *const map[][2] = {
		{ "bool", "u8" },    { "int8", "i8" },     { "uint8", "u8" },   { "int16", "i16" },
		{ "uint16", "u16" }, { "int32", "i32" },   { "uint32", "u32" }, { "int64", "i64" },
		{ "uint64", "u64" }, { "half", "f16" },    { "float", "f32" },  { "double", "f64" },
		{ "custom", "u8" },
	};
	for (size_t i = 0; type && i < sizeof map / sizeof *map; i++)
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
	if (v->answer)
		kjit_mem_free(v->engine, v->answer);
	free(v);
}

kjit_status kt_verify_variant(kt_verify *v, const char *type, kjit_variant **out)
{
	const char *elem = elem_name(type);
	if (!elem)
		return kjit__error(KJIT_ERR_INVALID_ARG, "verification: no element type '%s'",
		                   type ? type : "(none)");
	kjit_define d[2] = { { "ELEM", elem }, { "HALF", NULL } };
	kjit_variant_desc desc = { d, strcmp(elem, "f16") == 0 ? 2 : 1, NULL, 0 };
	return kjit_variant_get(v->kernel, &desc, out, NULL);
}

kjit_status kt_verify_compare(kt_verify *v, const kt_arg *a, kjit_devptr got, kjit_devptr want,
                              const kt_check *check, kt_mismatch *out)
{
	const char *type = a->spec->type;
	int custom = strcmp(type, "custom") == 0;
	uint64_t n = custom ? a->bytes : a->values;
	struct {
		uint64_t first;
		double sum;
	} answer = { UINT64_MAX, 0 };
	double atol = check->atol, rtol = check->rtol;
	int mode = 0;
	switch (check->method) {
	case KJIT__CHECK_TOLERANCE: break;
	case KJIT__CHECK_SIDE_BY_SIDE: atol = check->threshold; rtol = 0; break;
	case KJIT__CHECK_RELATIVE: mode = 1; atol = RELATIVE_FLOOR; rtol = check->threshold; break;
	case KJIT__CHECK_ABS_SUM: mode = 2; break;
	}
	memset(out, 0, sizeof *out);
	out->at = -1;
	if (n == 0)
		return KJIT_OK;
	kjit_variant *var;
	kjit_status st = kt_verify_variant(v, type, &var);
	if (st == KJIT_OK && !v->answer)
		st = kjit_mem_alloc(v->engine, sizeof answer, &v->answer);
	if (st == KJIT_OK)
		st = kjit_memcpy_htod(v->engine, v->answer, &answer, sizeof answer);
	if (st != KJIT_OK)
		return st;
	uint64_t blocks = (n + THREADS - 1) / THREADS;
	unsigned grid[3] = { blocks < MAX_BLOCKS ? (unsigned)blocks : MAX_BLOCKS, 1, 1 };
	unsigned block[3] = { THREADS, 1, 1 };
	kjit_devptr first = v->answer, sum = v->answer + sizeof(uint64_t);
	void *args[] = { &got, &want, &n, &atol, &rtol, &mode, &first, &sum };
	if ((st = kjit_variant_launch(var, grid, block, 0, NULL, args)) != KJIT_OK ||
	    (st = kjit_memcpy_dtoh(v->engine, &answer, v->answer, sizeof answer)) != KJIT_OK)
		return st;
	out->sum = answer.sum;
	if (mode == 2) {
		out->failed = !(answer.sum <= check->threshold);
		return KJIT_OK;
	}
	if (answer.first == UINT64_MAX)
		return KJIT_OK;
	/* the two values at the first mismatch, for the message */
	unsigned char g[8], w[8];
	size_t elem = custom ? 1 : a->elem;
	if ((st = kjit_memcpy_dtoh(v->engine, g, got + answer.first * elem, elem)) != KJIT_OK ||
	    (st = kjit_memcpy_dtoh(v->engine, w, want + answer.first * elem, elem)) != KJIT_OK)
		return st;
	out->failed = 1;
	out->at = (int64_t)answer.first;
	out->got = kt_elem_load(type, g, 0);
	out->want = kt_elem_load(type, w, 0);
	return KJIT_OK;
}

static const char *method_name(kjit__check c)
{
	switch (c) {
	case KJIT__CHECK_ABS_SUM: return "AbsoluteDifference";
	case KJIT__CHECK_SIDE_BY_SIDE: return "SideBySideComparison";
	case KJIT__CHECK_RELATIVE: return "SideBySideRelativeComparison";
	case KJIT__CHECK_TOLERANCE: break;
	}
	return "tolerance";
}

void kt_mismatch_text(const kt_arg *a, const kt_check *check, const kt_mismatch *m, char *buf,
                      size_t size)
{
	const char *name = a->spec->name;
	if (check->method == KJIT__CHECK_ABS_SUM) {
		snprintf(buf, size, "%s: the sum of |got - expected| is %.9g, above the threshold %g "
		         "(AbsoluteDifference)", name, m->sum, check->threshold);
		return;
	}
	char where[64], how[96];
	if (strcmp(a->spec->type, "custom") == 0) {
		snprintf(buf, size, "%s[%llu]: byte %llu is 0x%02x, expected 0x%02x", name,
		         (unsigned long long)((uint64_t)m->at / a->elem),
		         (unsigned long long)((uint64_t)m->at % a->elem), (unsigned)m->got,
		         (unsigned)m->want);
		return;
	}
	uint64_t at = (uint64_t)m->at;
	if (a->components == 1)
		snprintf(where, sizeof where, "[%llu]", (unsigned long long)at);
	else if (a->components <= 4)
		snprintf(where, sizeof where, "[%llu].%c", (unsigned long long)(at / a->components),
		         "xyzw"[at % a->components]);
	else
		snprintf(where, sizeof where, "[%llu][%llu]", (unsigned long long)(at / a->components),
		         (unsigned long long)(at % a->components));
	if (check->method == KJIT__CHECK_TOLERANCE)
		snprintf(how, sizeof how, "atol %g, rtol %g", check->atol, check->rtol);
	else
		snprintf(how, sizeof how, "%s, threshold %g", method_name(check->method),
		         check->threshold);
	snprintf(buf, size, "%s%s = %.9g, expected %.9g (%s)", name, where, m->got, m->want, how);
}
