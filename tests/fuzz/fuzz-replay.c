/*
 * fuzz-replay: libFuzzer target for the readers of kjit-tune --replay: the
 * input is a results file (CSV, or JSON when it starts with '['), read
 * against the space of a fixed spec of number and text parameters, with
 * the costs of the simulated clock asked for. Every time read must be a
 * number >= 0 or infinity (a failure), every cost finite and >= 0.
 * Then the input's short lines that hold '=' are a strategy's settings
 * (kjit_strategy_new(), the strategy chosen by the first byte): where it
 * takes them, a replay of it against what was read (or a fixed landscape)
 * with up to four outstanding must keep the batch contract and the budget.
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

/* The input's lines of at most 64 bytes that hold '=', at most 8, as
 * settings; strategy by the first byte, batch by the second. */
static void search_with(const kjit__space *space, const unsigned char *data, size_t size,
                        const double *obj)
{
	char lines[8][65];
	const char *settings[8];
	size_t n = 0;
	for (size_t at = 0; at < size && n < 8;) {
		const unsigned char *end = memchr(data + at, '\n', size - at);
		size_t len = end ? (size_t)(end - (data + at)) : size - at;
		if (len <= 64 && memchr(data + at, '=', len) && !memchr(data + at, '\0', len)) {
			memcpy(lines[n], data + at, len);
			lines[n][len] = '\0';
			settings[n] = lines[n];
			n++;
		}
		at += len + 1;
	}
	const char *name, *summary;
	if (size < 2)
		return;
	if (kjit_strategy_describe(data[0] % kjit_strategy_count(), &name, &summary, NULL) !=
	    KJIT_OK)
		abort();
	kjit_strategy_options so;
	kjit_strategy_options_init(&so);
	so.name = name;
	so.settings = settings;
	so.n_settings = n;
	kjit_strategy *st;
	if (kjit_strategy_new(&so, &st, NULL) != KJIT_OK)
		return;
	double flat[64];
	for (size_t i = 0; i < space->size && i < 64; i++)
		flat[i] = 1.0 + (double)((i * 7) % 11);
	kt_budget budget = { .evaluations = 30 };
	kt_replay_opts o = { .budget = &budget, .seed = data[1], .batch = 1 + data[1] % 4 };
	kt_replay_result r;
	if (kt_replay(space, st, &o, obj ? obj : flat, &r) != KJIT_OK || r.evaluations > 30)
		abort();
	kjit_strategy_free(st);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const kjit__space *space = space_once();
	double *obj, *compile_ms, *measure_ms;
	size_t ignored;
	if (space->size > 64)
		abort();
	if (kt_replay_parse(space, "fuzz", (const char *)data, size, &obj, &compile_ms,
	                    &measure_ms, &ignored) != KJIT_OK) {
		search_with(space, data, size, NULL);
		return 0;
	}
	for (size_t i = 0; i < space->size; i++) {
		if (!(obj[i] >= 0))
			abort();
		if (compile_ms && !(isfinite(compile_ms[i]) && compile_ms[i] >= 0 &&
		                    isfinite(measure_ms[i]) && measure_ms[i] >= 0))
			abort();
	}
	search_with(space, data, size, obj);
	free(obj);
	free(compile_ms);
	free(measure_ms);
	return 0;
}
