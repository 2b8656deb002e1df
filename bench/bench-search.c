/*
 * bench-search - search efficiency of kjit-tune's strategies on a replayed
 * space (no GPU): for every strategy but exhaustive, the median over seeds
 * of the evaluations needed to come within 5% and within 1% of the best
 * known time, as a fraction of the space, with a bootstrap 95% confidence
 * interval of the median. A seed that never gets there counts as the
 * whole space. The default strategy's lines come again as search_default
 * and search_default_within1.
 *
 *   bench-search SPEC RESULTS [--problem I] [--seeds N] [--within PERCENT]
 *                [--first-seed S] [--batch B] [--workers P --gpus G]
 *                [--strategy NAME]...
 *
 * RESULTS is a CSV or JSON results file that kjit-tune --replay reads
 * (kjit-tune SPEC --export csv --db DB writes one from a tuning run).
 * --within measures one threshold instead of both; --strategy (repeated)
 * only the strategies named; --first-seed S runs the seeds S..S+N-1 instead
 * of 1..N (seeds that chose nothing: a rule or a winner picked on the first
 * hundred is judged on the next); --batch keeps B proposals outstanding,
 * their results arriving in a seeded order. --workers and --gpus run the
 * simulated clock instead (the CSV's compile_ms and benchmark_ms columns: P
 * compile workers, G GPUs, P + G proposals outstanding) and report the
 * median simulated seconds until within each threshold as well
 * (search_time_NAME, search_time_NAME_within1). With --batch B > 1 each
 * strategy runs one at a time as well, and the ratio of the medians (B to
 * one at a time, with a bootstrap 95% interval drawing the seeds in pairs)
 * comes as search_batch_NAME and search_batch_NAME_within1 (target: at most
 * 1.1). The target of search_NAME (within 5%: at most 15% of the space)
 * applies to spaces of 500 configurations or more; smaller ones print
 * target=info, as the other lines do. bench-search-kt measures Kernel
 * Tuner's strategies the same way.
 */
#include "config.h"

#include <math.h>

#include "benchutil.h"
#include "search.h"

#define LARGE_SPACE 500
#define BOOTSTRAP 2000

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-search SPEC RESULTS [--problem I] [--seeds N] [--within PERCENT]\n"
	           "                    [--first-seed S] [--batch B] [--workers P --gpus G]\n"
	           "                    [--strategy NAME]...\n"
	           "  --problem I        problem index of the spec (default 0)\n"
	           "  --seeds N          seeds per strategy (default 100)\n"
	           "  --first-seed S     the seeds are S..S+N-1 (default 1)\n"
	           "  --within PERCENT   closeness to the best known (default: 5 and 1)\n"
	           "  --batch B          proposals outstanding (default 1)\n"
	           "  --workers P        simulated clock: compile workers (with --gpus)\n"
	           "  --gpus G           simulated clock: GPUs measuring (with --workers)\n"
	           "  --strategy NAME    only this strategy (repeatable)\n");
}

/* The median of v[0..n) and a percentile bootstrap 95% interval of it
 * (a fixed generator: a run prints the same interval twice). */
static void median_ci(const double *v, size_t n, double out[3])
{
	double *meds = bench_malloc(BOOTSTRAP * sizeof *meds), *draw = bench_malloc(n * sizeof *draw);
	kjit__rng rng;
	kjit__rng_seed(&rng, 12345);
	for (size_t b = 0; b < BOOTSTRAP; b++) {
		for (size_t i = 0; i < n; i++)
			draw[i] = v[kjit__rng_below(&rng, n)];
		meds[b] = bench_stats_of(draw, n).median;
	}
	kjit__sort_doubles(meds, BOOTSTRAP);
	out[0] = bench_stats_of(v, n).median;
	out[1] = meds[(size_t)(0.025 * BOOTSTRAP)];
	out[2] = meds[(size_t)(0.975 * BOOTSTRAP) - 1];
	free(meds);
	free(draw);
}

/* The ratio of the medians of a[] and b[] (seed i in both) and a
 * percentile bootstrap 95% interval of it, the seeds drawn in pairs. */
static void ratio_ci(const double *a, const double *b, size_t n, double out[3])
{
	double *r = bench_malloc(BOOTSTRAP * sizeof *r), *da = bench_malloc(2 * n * sizeof *da);
	double *db = da + n;
	kjit__rng rng;
	kjit__rng_seed(&rng, 12345);
	for (size_t k = 0; k < BOOTSTRAP; k++) {
		for (size_t i = 0; i < n; i++) {
			size_t j = (size_t)kjit__rng_below(&rng, n);
			da[i] = a[j];
			db[i] = b[j];
		}
		r[k] = bench_stats_of(da, n).median / bench_stats_of(db, n).median;
	}
	kjit__sort_doubles(r, BOOTSTRAP);
	out[0] = bench_stats_of(a, n).median / bench_stats_of(b, n).median;
	out[1] = r[(size_t)(0.025 * BOOTSTRAP)];
	out[2] = r[(size_t)(0.975 * BOOTSTRAP) - 1];
	free(r);
	free(da);
}

/* What a run replays: the space, its objective and costs, the options. */
typedef struct run {
	const kjit__space *space;
	const double *obj;
	kt_replay_opts opts;
	int seeds, first_seed;
	double *frac1, *secs1; /* a batch's run again one at a time */
} run;

/* Each seed's fraction of the space evaluated (frac[]) and simulated
 * seconds (secs[]) until within `within` of the best known; the seeds
 * that got there. */
static int to_within(const run *ru, const kjit_strategy *strategy, double within, double *frac,
                     double *secs)
{
	int reached = 0;
	for (int seed = 0; seed < ru->seeds; seed++) {
		kt_replay_result r;
		kt_replay_opts o = ru->opts;
		o.seed = (uint64_t)seed + (uint64_t)ru->first_seed;
		o.within = within;
		o.until = 1;
		BENCH_KJIT(kt_replay(ru->space, strategy, &o, ru->obj, &r));
		reached += r.evals_to_within > 0;
		frac[seed] = (double)(r.evals_to_within ? r.evals_to_within : ru->space->size) /
		             (double)ru->space->size;
		secs[seed] = r.evals_to_within ? r.seconds_to_within : INFINITY;
	}
	return reached;
}

/* The lines of one strategy and threshold; again as search_default for
 * the default strategy. */
static void report(const run *ru, const kjit_strategy *strategy, int percent, double *frac,
                   double *secs)
{
	size_t size = ru->space->size;
	int reached = to_within(ru, strategy, percent / 100.0, frac, secs);
	double m[3], t[3];
	median_ci(frac, (size_t)ru->seeds, m);
	printf("  %-14s within %d%%: median %.1f evaluations (%.4f of the space, 95%% CI "
	       "%.4f-%.4f), %d of %d seeds got there\n",
	       kjit_strategy_name(strategy), percent, m[0] * (double)size, m[0], m[1], m[2], reached, ru->seeds);
	int timed = ru->opts.compile_ms != NULL;
	if (timed) {
		median_ci(secs, (size_t)ru->seeds, t);
		printf("  %-14s within %d%%: median %.1f simulated seconds (95%% CI %.1f-%.1f)\n",
		       kjit_strategy_name(strategy), percent, t[0], t[1], t[2]);
	}
	double q[3] = { 0 };
	if (ru->opts.batch > 1 && !timed) {
		run one = *ru;
		one.opts.batch = 1;
		to_within(&one, strategy, percent / 100.0, ru->frac1, ru->secs1);
		ratio_ci(frac, ru->frac1, (size_t)ru->seeds, q);
		printf("  %-14s within %d%%: batch %zu / one at a time: %.2f (95%% CI %.2f-%.2f)\n",
		       kjit_strategy_name(strategy), percent, ru->opts.batch, q[0], q[1], q[2]);
	}
	const char *target = percent == 5 && size >= LARGE_SPACE ? "value<=0.15" : "info";
	int is_default = strcmp(kjit_strategy_name(strategy), KJIT_STRATEGY_DEFAULT) == 0;
	for (int alias = 0; alias <= is_default; alias++) {
		const char *name = alias ? "default" : kjit_strategy_name(strategy);
		char label[96];
		snprintf(label, sizeof label, percent == 5 ? "search_%s" : "search_%s_within%d", name,
		         percent);
		bench_result(label, m[0], "fraction", -1, target);
		if (timed) {
			snprintf(label, sizeof label,
			         percent == 5 ? "search_time_%s" : "search_time_%s_within%d", name,
			         percent);
			bench_result(label, t[0], "s", -1, "info");
		}
		if (q[0] > 0) {
			snprintf(label, sizeof label,
			         percent == 5 ? "search_batch_%s" : "search_batch_%s_within%d", name,
			         percent);
			bench_result(label, q[0], "ratio", -1, "value<=1.1");
		}
	}
}

/* Moves the --strategy NAME pairs of argv to names[]; returns the new argc. */
static int take_strategies(int argc, char **argv, const char **names, int *n_names)
{
	int k = 0;
	*n_names = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--strategy") == 0 && i + 1 < argc) {
			if (!kjit_strategy_canonical(argv[i + 1]))
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
	int problem = 0, seeds = 100, first_seed = 1, within = 0, batch = 1, workers = 0, gpus = 0,
	    n_names;
	const char *names[64];
	bench_opt opts[] = { { "problem", 'p', &problem, 0 }, { "seeds", 's', &seeds, 1 },
		             { "within", 'w', &within, 0 },   { "batch", 'b', &batch, 1 },
		             { "workers", 'P', &workers, 0 }, { "gpus", 'G', &gpus, 0 },
		             { "first-seed", 'f', &first_seed, 1 } };
	bench_prog = "bench-search";
	if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		usage(argc > 1 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
		return argc > 1 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
	}
	const char *spec_path = argv[1], *results = argv[2];
	if (argc > 128)
		bench_die("too many arguments");
	argc = 2 + take_strategies(argc - 2, argv + 2, names, &n_names);
	int rc = bench_parse_options(argc - 2, argv + 2, opts, 7, usage);
	if (rc >= 0)
		return rc;
	if (batch > KJIT_SEARCH_BATCH_MAX || (workers > 0) != (gpus > 0))
		bench_die(batch > KJIT_SEARCH_BATCH_MAX ? "--batch: at most %d"
		                               : "--workers and --gpus go together (batch %d max)",
		          KJIT_SEARCH_BATCH_MAX);

	kjit__spec *spec = NULL;
	kjit__space *space = NULL;
	double *obj = NULL, *compile_ms = NULL, *measure_ms = NULL;
	size_t ignored = 0, failed = 0;
	BENCH_KJIT(kjit__spec_load(spec_path, &spec));
	if ((size_t)problem >= spec->n_problems)
		bench_die("--problem %d: %s has %zu problems", problem, spec_path, spec->n_problems);
	BENCH_KJIT(kjit__space_build(spec, (size_t)problem, NULL, &space));
	BENCH_KJIT(kt_replay_load_costs(space, results, &obj, &compile_ms, &measure_ms, &ignored));
	for (size_t i = 0; i < space->size; i++)
		failed += isinf(obj[i]);
	if (failed == space->size)
		bench_die("%s: no configuration of the space has a time", results);
	if (workers && !compile_ms)
		bench_die("%s: --workers needs the columns compile_ms and benchmark_ms", results);
	run ru = { .space = space, .obj = obj, .seeds = seeds, .first_seed = first_seed,
		   .opts = { .batch = (size_t)batch } };
	if (workers) {
		ru.opts.compile_ms = compile_ms;
		ru.opts.measure_ms = measure_ms;
		ru.opts.workers = (size_t)workers;
		ru.opts.gpus = (size_t)gpus;
	}
	int thresholds[2] = { within ? within : 5, 1 }, n_thresholds = within ? 1 : 2;
	printf("bench-search: %s on %s: %zu configurations (%zu without a time, %zu rows "
	       "outside the space), %d seeds from %d, ",
	       spec_path, results, space->size, failed, ignored, seeds, first_seed);
	if (workers)
		printf("simulated clock: %d compile workers, %d GPUs\n", workers, gpus);
	else
		printf("batch %d\n", batch);

	double *frac = bench_malloc((size_t)seeds * sizeof *frac);
	double *secs = bench_malloc((size_t)seeds * sizeof *secs);
	ru.frac1 = bench_malloc((size_t)seeds * sizeof *ru.frac1);
	ru.secs1 = bench_malloc((size_t)seeds * sizeof *ru.secs1);
	for (size_t s = 0; s < kjit_strategy_count(); s++) {
		const char *name, *summary;
		BENCH_KJIT(kjit_strategy_describe(s, &name, &summary, NULL));
		if (strcmp(name, "exhaustive") == 0 || !wanted(name, names, n_names))
			continue;
		kjit_strategy_options so;
		kjit_strategy_options_init(&so);
		so.name = name;
		kjit_strategy *strategy;
		BENCH_KJIT(kjit_strategy_new(&so, &strategy, NULL));
		for (int t = 0; t < n_thresholds; t++)
			report(&ru, strategy, thresholds[t], frac, secs);
		kjit_strategy_free(strategy);
	}
	free(frac);
	free(secs);
	free(ru.frac1);
	free(ru.secs1);
	free(obj);
	free(compile_ms);
	free(measure_ms);
	kjit__space_free(space);
	kjit__spec_free(spec);
	return 0;
}
