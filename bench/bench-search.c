/*
 * bench-search - search efficiency of kjit-tune's strategies on a replayed
 * space (no GPU): for every strategy but exhaustive, the median over seeds
 * of the evaluations needed to come within 5% and within 1% of the best
 * known time, as a fraction of the space. A seed that never gets there
 * counts as the whole space.
 *
 *   bench-search SPEC RESULTS [--problem I] [--seeds N] [--within PERCENT]
 *                [--strategy NAME]...
 *
 * RESULTS is a CSV or JSON results file that kjit-tune --replay reads
 * (kjit-tune SPEC --export csv --db DB writes one from a tuning run).
 * --within measures one threshold instead of both; --strategy (repeated)
 * only the strategies named. The target of search_NAME (within 5%: at
 * most 15% of the space) applies to spaces of 500 configurations or more;
 * smaller ones print target=info, as search_NAME_within1 always does.
 * bench-search-kt measures Kernel Tuner's strategies the same way.
 */
#include "config.h"

#include <math.h>

#include "benchutil.h"
#include "tune.h"

#define LARGE_SPACE 500

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-search SPEC RESULTS [--problem I] [--seeds N] [--within PERCENT]\n"
	           "                    [--strategy NAME]...\n"
	           "  --problem I        problem index of the spec (default 0)\n"
	           "  --seeds N          seeds per strategy (default 20)\n"
	           "  --within PERCENT   closeness to the best known (default: 5 and 1)\n"
	           "  --strategy NAME    only this strategy (repeatable)\n");
}

/* The median over seeds of the fraction of the space evaluated until
 * within `within` of the best known; *reached: the seeds that got there. */
static double median_to_within(const kjit__space *space, const kt_strategy *strategy,
                               const double *obj, int seeds, double within, int *reached,
                               double *frac)
{
	*reached = 0;
	for (int seed = 0; seed < seeds; seed++) {
		kt_replay_result r;
		kt_replay_opts o = { .seed = (uint64_t)seed + 1, .within = within, .until = 1 };
		BENCH_KJIT(kt_replay(space, strategy, &o, obj, &r));
		*reached += r.evals_to_within > 0;
		frac[seed] = (double)(r.evals_to_within ? r.evals_to_within : space->size) /
		             (double)space->size;
	}
	if (getenv("DEV_DIST")) {
		double c[1000];
		memcpy(c, frac, seeds * sizeof *c);
		kjit__sort_doubles(c, seeds);
		fprintf(stderr, "dist %s: %.4f %.4f %.4f %.4f %.4f\n", strategy->name, c[seeds/10], c[seeds/4], c[seeds/2], c[3*seeds/4], c[9*seeds/10]);
	}
	return bench_stats_of(frac, (size_t)seeds).median;
}

/* Moves the --strategy NAME pairs of argv to names[]; returns the new argc. */
static int take_strategies(int argc, char **argv, const char **names, int *n_names)
{
	int k = 0;
	*n_names = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--strategy") == 0 && i + 1 < argc) {
			if (!kt_strategy_find(argv[i + 1]))
				bench_die("--strategy: no strategy '%s'", argv[i + 1]);
			names[(*n_names)++] = argv[++i];
			continue;
		}
		argv[k++] = argv[i];
	}
	return k;
}

static int wanted(const char *name, const char **names, int n_names)
{
	for (int i = 0; i < n_names; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return n_names == 0;
}

int main(int argc, char **argv)
{
	int problem = 0, seeds = 20, within = 0, n_names;
	const char *names[64];
	bench_opt opts[] = { { "problem", 'p', &problem, 0 }, { "seeds", 's', &seeds, 1 },
		             { "within", 'w', &within, 0 } };
	bench_prog = "bench-search";
	if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		usage(argc > 1 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
		return argc > 1 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	const char *spec_path = argv[1], *results = argv[2];
	if (argc > 128)
		bench_die("too many arguments");
	argc = 2 + take_strategies(argc - 2, argv + 2, names, &n_names);
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
	int thresholds[2] = { within ? within : 5, 1 }, n_thresholds = within ? 1 : 2;
	printf("bench-search: %s on %s: %zu configurations (%zu without a time, %zu rows "
	       "outside the space), %d seeds\n",
	       spec_path, results, space->size, failed, ignored, seeds);

	double *frac = bench_malloc((size_t)seeds * sizeof *frac);
	for (size_t s = 0; kt_strategies[s]; s++) {
		const kt_strategy *strategy = kt_strategies[s];
		if (strategy == &kt_strategy_exhaustive || !wanted(strategy->name, names, n_names))
			continue;
		for (int t = 0; t < n_thresholds; t++) {
			int reached;
			double med = median_to_within(space, strategy, obj, seeds, thresholds[t] / 100.0,
			                              &reached, frac);
			char name[96];
			snprintf(name, sizeof name, thresholds[t] == 5 ? "search_%s" : "search_%s_within%d",
			         strategy->name, thresholds[t]);
			printf("  %-14s within %d%%: median %.1f evaluations (%.4f of the space), "
			       "%d of %d seeds got there\n",
			       strategy->name, thresholds[t], med * (double)space->size, med, reached,
			       seeds);
			bench_result(name, med, "fraction", -1,
			             thresholds[t] == 5 && space->size >= LARGE_SPACE ? "value<=0.15"
			                                                              : "info");
		}
	}
	free(frac);
	free(obj);
	kjit__space_free(space);
	kjit__spec_free(spec);
	return 0;
}
