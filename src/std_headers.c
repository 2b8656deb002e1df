/* std_headers.c - stand-ins for the C and C++ standard headers that
 * kernels written for nvcc include (<math.h>, <cstdint>, <type_traits>,
 * ...), which NVRTC does not have: each maps to libcu++ (cuda/std/,
 * shipped with the toolkit) or to NVRTC's builtins. A header a kernel
 * supplies itself, in memory or in its folders, comes first. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"

/* A C++ header's names in namespace std as well, as nvcc's kernels use
 * them (std::sqrt, std::numeric_limits). */
#define STD_TOO "namespace std { using namespace ::cuda::std; }\n"
#define CU(h) "#pragma once\n#include <cuda/std/" h ">\n"

/* IEEE 754 binary32 and binary64, as every CUDA GPU has them. */
#define FLOAT_H                                                                           \
	"#pragma once\n"                                                                  \
	"#define FLT_RADIX 2\n#define FLT_MANT_DIG 24\n#define DBL_MANT_DIG 53\n"         \
	"#define FLT_DIG 6\n#define DBL_DIG 15\n#define DECIMAL_DIG 17\n"                  \
	"#define FLT_MIN_EXP (-125)\n#define DBL_MIN_EXP (-1021)\n"                        \
	"#define FLT_MAX_EXP 128\n#define DBL_MAX_EXP 1024\n"                             \
	"#define FLT_MIN_10_EXP (-37)\n#define DBL_MIN_10_EXP (-307)\n"                    \
	"#define FLT_MAX_10_EXP 38\n#define DBL_MAX_10_EXP 308\n"                         \
	"#define FLT_MAX 3.40282347e+38F\n#define DBL_MAX 1.7976931348623157e+308\n"       \
	"#define FLT_MIN 1.17549435e-38F\n#define DBL_MIN 2.2250738585072014e-308\n"       \
	"#define FLT_EPSILON 1.19209290e-7F\n#define DBL_EPSILON 2.2204460492503131e-16\n" \
	"#define FLT_TRUE_MIN 1.40129846e-45F\n#define DBL_TRUE_MIN 4.9406564584124654e-324\n"

static const struct {
	const char *name, *text;
} stand_ins[] = {
	/* C: sqrtf, printf and the like are NVRTC builtins */
	{ "math.h", CU("cmath") },
	{ "stdint.h", CU("cstdint") },
	{ "limits.h", CU("climits") },
	{ "float.h", FLOAT_H },
	{ "stddef.h", CU("cstddef") },
	{ "stdlib.h", CU("cstdlib") },
	{ "string.h", CU("cstring") },
	{ "assert.h", CU("cassert") },
	{ "stdio.h", "#pragma once\n" },
	{ "stdbool.h", "#pragma once\n" },
	/* C++ */
	{ "cmath", CU("cmath") STD_TOO },
	{ "cstdint", CU("cstdint") STD_TOO },
	{ "climits", CU("climits") },
	{ "cfloat", FLOAT_H },
	{ "cstddef", CU("cstddef") STD_TOO },
	{ "cstdlib", CU("cstdlib") STD_TOO },
	{ "cstring", CU("cstring") STD_TOO },
	{ "cassert", CU("cassert") },
	{ "cstdio", "#pragma once\n" },
	{ "limits", CU("limits") STD_TOO },
	{ "type_traits", CU("type_traits") STD_TOO },
	{ "utility", CU("utility") STD_TOO },
	{ "tuple", CU("tuple") STD_TOO },
	{ "array", CU("array") STD_TOO },
	{ "complex", CU("complex") STD_TOO },
	{ "functional", CU("functional") STD_TOO },
};

const char *kjit__std_header(const char *name)
{
	for (size_t i = 0; i < sizeof stand_ins / sizeof *stand_ins; i++)
		if (strcmp(stand_ins[i].name, name) == 0)
			return stand_ins[i].text;
	return NULL;
}

static char id[40];
static pthread_once_t id_once = PTHREAD_ONCE_INIT;

/* Every name and text, chained, so that any change changes the id. */
static void make_id(void)
{
	kjit__hash128 h = { 0, 0 };
	for (size_t i = 0; i < sizeof stand_ins / sizeof *stand_ins; i++) {
		h = kjit__hash(stand_ins[i].name, strlen(stand_ins[i].name) + 1, h.lo ^ h.hi);
		h = kjit__hash(stand_ins[i].text, strlen(stand_ins[i].text) + 1, h.lo ^ h.hi);
	}
	char hex[33];
	kjit__hash_hex(h, hex);
	snprintf(id, sizeof id, "std-%s", hex);
}

const char *kjit__std_headers_id(void)
{
	pthread_once(&id_once, make_id);
	return id;
}
