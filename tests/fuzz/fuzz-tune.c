/*
 * fuzz-tune: libFuzzer target for the spec path as kjit-tune runs it
 * before the GPU: the input is written as a spec (kjit's JSON format or
 * T1) beside a kernel source and read; the arguments are checked; for
 * the first problems the space is built, the arguments built on the host,
 * and for some configurations the variant (defines, flags), the launch
 * geometry and the objective formulas evaluated. Each piece is the
 * library's own; only the sizes are kept small, so that a run is about
 * the parsers and the expressions, not about allocating what a spec asks.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker.h"
#include "tuning.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* The bytes problem p's buffers and symbols ask for, or more than max when
 * a length does not evaluate (kt_args_build() then says why, cheaply). */
static double arg_bytes(const kjit__spec *spec, size_t p)
{
	double total = 0;
	for (size_t i = 0; i < spec->n_args; i++) {
		const kjit__arg *a = &spec->args[i];
		double n;
		if (!a->length)
			continue;
		if (kjit__spec_eval(spec, p, NULL, a->length, "length", &n) != KJIT_OK)
			return 0;
		total += fabs(n) * 16 * (a->components ? a->components : 1) *
		         (a->custom_size ? (double)a->custom_size : 1);
	}
	return total;
}

/* A few configurations of problem p as the tuner prepares them. */
static void configurations(const kjit__spec *spec, size_t p, const kjit__space *space)
{
	for (size_t k = 0; k < space->size && k < 4; k++) {
		size_t i = k < 2 ? k : space->size - 1 - (k - 2);
		const uint16_t *config = kjit__space_config(space, i);
		kjit__config_desc d;
		if (kjit__config_desc_make(spec, config, &d) == KJIT_OK)
			kjit__config_desc_free(&d);
		unsigned grid[3], block[3], shared;
		(void)kjit__config_dims(spec, p, config, grid, block, &shared);
		double v;
		if (spec->bytes)
			(void)kjit__spec_eval(spec, p, config, spec->bytes, "bytes", &v);
		if (spec->flops)
			(void)kjit__spec_eval(spec, p, config, spec->flops, "flops", &v);
		char *json = kjit__config_json(space, i);
		free(json);
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char dir[64], path[96];
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/kjit-fuzz-tune-%ld", (long)getpid());
		snprintf(path, sizeof path, "%s/spec.json", dir);
		char cu[96];
		snprintf(cu, sizeof cu, "%s/k.cu", dir);
		if (mkdir(dir, 0700) != 0)
			abort();
		FILE *f = fopen(cu, "w");
		if (!f || fputs("extern \"C\" __global__ void k(float *p) {}\n", f) < 0 || fclose(f))
			abort();
	}
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	kjit__spec *spec;
	if (kjit__spec_load(path, &spec) != KJIT_OK)
		return 0;
	/* a smaller budget for the walk: the fuzzer is after memory errors and
	 * loops that do not count, not the seconds a spent 2^27 steps take */
	kjit__expr_budget_free(spec->expr_budget);
	if (!(spec->expr_budget = kjit__expr_budget_new((uint64_t)1 << 22)))
		abort();
	double whole = 1;
	for (size_t i = 0; i < spec->n_params; i++)
		whole *= (double)spec->params[i].n_values;
	int args_ok = kt_args_check(spec) == KJIT_OK;
	for (size_t p = 0; whole <= 1e5 && p < spec->n_problems && p < 2; p++) {
		kjit__space *space;
		if (kjit__space_build(spec, p, NULL, &space) == KJIT_OK) {
			configurations(spec, p, space);
			kjit__space_free(space);
		}
		kt_args *args;
		if (args_ok && arg_bytes(spec, p) <= (1 << 20) &&
		    kt_args_build(spec, p, &args) == KJIT_OK)
			kt_args_free(args);
	}
	kjit__spec_free(spec);
	return 0;
}
