/*
 * fuzz-replay: libFuzzer target for the readers of kjit-tune --replay: the
 * input is a results file (CSV, or JSON when it starts with '['), read
 * against the space of a fixed spec of number and text parameters, with
 * the costs of the simulated clock asked for. Every time read must be a
 * number >= 0 or infinity (a failure), every cost finite and >= 0.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "search.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static const char spec_text[] =
	"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
	" \"parameters\": [{\"name\": \"BLOCK_SIZE\", \"values\": [32, 64, 128, 256]},"
	"  {\"name\": \"TILE\", \"values\": [1, 2, 4]},"
	"  {\"name\": \"LOOP\", \"values\": [\"unroll\", \"plain\", \"a,b\"]}],"
	" \"restrictions\": [\"BLOCK_SIZE * TILE <= 512\"]}\n";

static const kjit__space *space_once(void)
{
	static kjit__space *space;
	if (space)
		return space;
	char dir[64], path[96];
	snprintf(dir, sizeof dir, "/tmp/kjit-fuzz-replay-%ld", (long)getpid());
	if (mkdir(dir, 0700) != 0)
		abort();
	snprintf(path, sizeof path, "%s/k.cu", dir);
	FILE *f = fopen(path, "w");
	if (!f || fputs("extern \"C\" __global__ void k() {}\n", f) < 0 || fclose(f))
		abort();
	snprintf(path, sizeof path, "%s/spec.json", dir);
	f = fopen(path, "w");
	if (!f || fputs(spec_text, f) < 0 || fclose(f))
		abort();
	kjit__spec *spec;
	if (kjit__spec_load(path, &spec) != KJIT_OK ||
	    kjit__space_build(spec, 0, NULL, &space) != KJIT_OK)
		abort();
	return space;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const kjit__space *space = space_once();
	double *obj, *compile_ms, *measure_ms;
	size_t ignored;
	if (kt_replay_parse(space, "fuzz", (const char *)data, size, &obj, &compile_ms,
	                    &measure_ms, &ignored) != KJIT_OK)
		return 0;
	for (size_t i = 0; i < space->size; i++) {
		if (!(obj[i] >= 0))
			abort();
		if (compile_ms && !(isfinite(compile_ms[i]) && compile_ms[i] >= 0 &&
		                    isfinite(measure_ms[i]) && measure_ms[i] >= 0))
			abort();
	}
	free(obj);
	free(compile_ms);
	free(measure_ms);
	return 0;
}
