/*
 * bench-search - search efficiency of kjit-tune's strategies on a replayed
 * space (no GPU): for every strategy but exhaustive, the median over seeds
 * of the evaluations needed to come within 5% of the best known time, as a
 * fraction of the space. A seed that never gets there counts as the whole
 * space.
 *
 *   bench-search SPEC RESULTS [--problem I] [--seeds N] [--within PERCENT]
 *
 * RESULTS is a CSV or JSON results file that kjit-tune --replay reads
 * (kjit-tune SPEC --export csv --db DB writes one from a tuning run).
 * The target (at most 15% of the space) applies to spaces of 500
 * configurations or more; smaller ones print target=info.
 */
#include "config.h"

#include <math.h>

#include "benchutil.h"
#include "tune.h"

#define LARGE_SPACE 500

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-search SPEC RESULTS [--problem I] [--seeds N] [--within PERCENT]\n"
	           "  --problem I        problem index of the spec (default 0)\n"
	           "  --seeds N          seeds per strategy (default 20)\n"
	           "  --within PERCENT   closeness to the best known (default 5)\n");
}

int main(int argc, char **argv)
{
	int problem = 0, seeds = 20, within = 5;
	bench_opt opts[] = { { "problem", 'p', &problem, 0 }, { "seeds", 's', &seeds, 1 },
		             { "within", 'w', &within, 0 } };
	bench_prog = "bench-search";
	if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		usage(argc > 1 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
		return argc > 1 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	const char *spec_path = argv[1], *results = argv[2];
	int rc = bench_parse_options(argc - 2, argv + 2, opts, 3, usage);
	if (rc >= 0)
		return rc;

	kjit__spec *spec = NULL;
	kjit__space *space = NULL;
	double *obj = NULL;
	size_t ignored = 0, failed = 0;
	BENCH_KJIT(kjit__spec_load(spec_path, &spec));
	if ((size_t)problem >= spec->n_problems)
		bench_die("--problem %d: %s has %zu problems", problem, spec_path, spec->n_problems);
	BENCH_KJIT(kjit__space_build(spec, (size_t)problem, NULL, &space));
	BENCH_KJIT(kt_replay_load(space, results, &obj, &ignored));
	for (size_t i = 0; i < space->size; i++)
		failed += isinf(obj[i]);
	if (failed == space->size)
		bench_die("%s: no configuration of the space has a time", results);
	printf("bench-search: %s on %s: %zu configurations (%zu without a time, %zu rows "
	       "outside the space), within %d%% of the best, %d seeds\n",
	       spec_path, results, space->size, failed, ignored, within, seeds);

	double *frac = bench_malloc((size_t)seeds * sizeof *frac);
	for (size_t s = 0; kt_strategies[s]; s++) {
		const kt_strategy *strategy = kt_strategies[s];
		if (strategy == &kt_strategy_exhaustive)
			continue;
		int reached = 0;
		for (int seed = 0; seed < seeds; seed++) {
			kt_replay_result r;
			BENCH_KJIT(kt_replay_run_within(space, strategy, NULL, (uint64_t)seed + 1, obj,
			                                within / 100.0, &r));
			reached += r.evals_to_within > 0;
			frac[seed] = (double)(r.evals_to_within ? r.evals_to_within : space->size) /
			             (double)space->size;
		}
		char name[64];
		snprintf(name, sizeof name, "search_%s", strategy->name);
		bench_stats st = bench_stats_of(frac, (size_t)seeds);
		printf("  %-12s median %.1f evaluations (%.4f of the space), min %.4f, max %.4f, "
		       "%d of %d seeds got there\n",
		       strategy->name, st.median * (double)space->size, st.median, st.min, st.max,
		       reached, seeds);
		bench_result(name, st.median, "fraction", -1,
		             space->size >= LARGE_SPACE ? "value<=0.15" : "info");
	}
	free(frac);
	free(obj);
	kjit__space_free(space);
	kjit__spec_free(spec);
	return 0;
}
