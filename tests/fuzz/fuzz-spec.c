/*
 * fuzz-spec: libFuzzer target for the spec reader (kjit's JSON format and
 * T1): the input is written as a spec beside a kernel source and read;
 * a spec that reads has its space counted under the walk's own budgets.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tuning.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char dir[64], path[96];
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/kjit-fuzz-spec-%ld", (long)getpid());
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
	if (kjit__spec_load(path, &spec) == KJIT_OK) {
		/* a smaller budget for the walk: the fuzzer is after memory errors and
		 * loops that do not count, not the seconds a spent 2^27 steps take */
		kjit__expr_budget_free(spec->expr_budget);
		if (!(spec->expr_budget = kjit__expr_budget_new((uint64_t)1 << 22)))
			abort();
		/* the walk has no budget of its own: small spaces only, and a clock
		 * (with the draws' tenth of it after it) well within the fuzzer's
		 * timeout, also when the campaign's targets share few cores */
		const kjit__limits limits = { .count_ns = 500000000u };
		double whole = 1;
		for (size_t i = 0; i < spec->n_params; i++)
			whole *= (double)spec->params[i].n_values;
		for (size_t p = 0; whole <= 1e5 && p < spec->n_problems && p < 4; p++) {
			(void)kjit__space_count(spec, p, &limits, &(kjit__count){ 0 });
		}
		kjit__spec_free(spec);
	}
	return 0;
}
