/* param_check.c - a variant's kernel parameters, as the driver gives them,
 * against the arguments its spec passes: a spec with one argument too
 * many, or a vector where the kernel takes an int, would otherwise launch
 * and run on garbage. */
#include "config.h"

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

int kjit__kernel_args_refused(kjit_kernel *k)
{
	return atomic_load(&k->args_refused);
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

/* Parameter i's offset and size; 0 past the last one, -1 on a failure. */
static int param_info(const kjit_variant *v, size_t i, size_t *offset, size_t *size)
{
	CUresult r = v->kernel->engine->cu->cuFuncGetParamInfo(v->function, i, offset, size);
	if (r == CUDA_SUCCESS)
		return 1;
	if (r == CUDA_ERROR_INVALID_VALUE)
		return 0;
	kjit__cu_fail(KJIT_ERR_CUDA, r, "cuFuncGetParamInfo");
	return -1;
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
	fprintf(f, "(the driver gives sizes only: a pointer where a 4-byte scalar is expected "
	        "shows as 8 against 4)");
	if (fclose(f) != 0) {
		free(text);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	kjit_status st = kjit__error(KJIT_ERR_INVALID_ARG, "%s", text);
	free(text);
	return st;
}

kjit_status kjit__variant_check_args(kjit_kernel *k, const kjit_variant *v)
{
	const kjit__cu_api *cu = k->engine->cu;
	if (!k->check_args || !v->function || !cu)
		return KJIT_OK;
	if (!cu->cuFuncGetParamInfo) {
		say_unchecked(cu);
		return KJIT_OK;
	}
	size_t n = 0, off, sz;
	int more;
	while (n < MAX_PARAMS && (more = param_info(v, n, &off, &sz)) == 1)
		n++;
	if (n < MAX_PARAMS && more < 0)
		return KJIT_ERR_CUDA;
	size_t *offset = calloc(2 * n + 1, sizeof *offset), *size = offset + n;
	if (!offset)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	int differ = n != k->n_want;
	for (size_t i = 0; i < n; i++) {
		if (param_info(v, i, &offset[i], &size[i]) < 0) {
			free(offset);
			return KJIT_ERR_CUDA;
		}
		differ |= i < k->n_want && size[i] != k->want[i].size;
	}
	kjit_status st = KJIT_OK;
	if (differ) {
		atomic_store(&k->args_refused, 1);
		st = mismatch(k, v, offset, size, n);
	}
	free(offset);
	return st;
}
