/*
 * test-tune-sgemm-replay: every strategy, replayed on the SGEMM space of
 * examples/sgemm/sgemm.json against times recorded on an H200
 * (tests/data/sgemm-h200.csv, from kjit-tune --export csv), finds the best
 * known configuration or one within 5% of it within its budget, at each
 * of seeds 1 to 5 but one (a local search can be unlucky from one start):
 * the whole space for exhaustive (which must hit the best itself), half of
 * it for random (few configurations come within 5% of the best), a quarter
 * of it for the guided ones. Skips (77) while the recording is missing.
 * An argument names another results file.
 */
#include "testutil.h"

#include <math.h>

#include "search.h"

#define WITHIN 0.05
#define FRACTION_RANDOM 0.5
#define FRACTION_GUIDED 0.25
#define SEEDS 5

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	char results[TU_PATH], spec_path[TU_PATH];
	if (argc > 1)
		snprintf(results, sizeof results, "%s", argv[1]);
	else
		snprintf(results, sizeof results, "%s/tests/data/sgemm-h200.csv", tu_srcdir());
	snprintf(spec_path, sizeof spec_path, "%s/examples/sgemm/sgemm.json", tu_srcdir());
	if (!tu_exists(results)) {
		printf("SKIP: %s is missing (it is recorded from a GPU tuning run of %s)\n",
		       results, spec_path);
		return 77;
	}
	kjit__spec *spec;
	kjit__space *space;
	double *obj;
	size_t ignored, timed = 0;
	CHECK_OK(kjit__spec_load(spec_path, &spec));
	CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
	CHECK_MSG(space->size >= 500, "the SGEMM space has %zu configurations", space->size);
	CHECK_OK(kt_replay_load(space, results, &obj, &ignored));
	for (size_t i = 0; i < space->size; i++)
		timed += !isinf(obj[i]);
	printf("%s: %zu of %zu configurations timed, %zu rows outside the space\n", results,
	       timed, space->size, ignored);
	CHECK_MSG(timed * 2 >= space->size, "only %zu of %zu configurations have a time", timed,
	          space->size);

	for (size_t s = 0; s < kjit_strategy_count(); s++) {
		const char *name, *summary;
		CHECK_OK(kjit_strategy_describe(s, &name, &summary, NULL));
		const kjit_strategy *strategy = tu_strategy(name);
		int exhaustive = strcmp(name, "exhaustive") == 0;
		kt_budget budget = { .fraction = exhaustive ? 1.0
		                                 : strcmp(name, "random") == 0 ? FRACTION_RANDOM
		                                                               : FRACTION_GUIDED };
		size_t reached = 0;
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			kt_replay_result r;
			kt_replay_opts o = { .budget = &budget, .seed = seed, .within = WITHIN };
			CHECK_OK(kt_replay(space, strategy, &o, obj, &r));
			int ok = r.evals_to_within > 0 &&
			         r.best_found_value <= r.best_known_value * (1 + WITHIN);
			reached += ok;
			printf("%-12s seed %llu: %zu evaluations, best found %g (known %g), %s\n",
			       name, (unsigned long long)seed, r.evaluations, r.best_found_value,
			       r.best_known_value, ok ? "within 5%" : "NOT within 5%");
			if (exhaustive)
				CHECK_MSG(r.best_found == r.best_known && r.evaluations == space->size,
				          "exhaustive: found %lld after %zu evaluations, best known %lld",
				          (long long)r.best_found, r.evaluations, (long long)r.best_known);
		}
		CHECK_MSG(reached >= SEEDS - 1, "%s: within %.0f%% of the best at %zu of %d seeds",
		          name, WITHIN * 100, reached, SEEDS);
	}

	/* a results file that lacks the time column is refused by name */
	char bad[TU_PATH];
	tu_path(bad, tu_tmpdir(), "no-time.csv");
	tu_write_file(bad, "BM,BN,BK,TM,TN,THREADS,PAD,DOUBLE_BUF,MIN_BLOCKS\n", 49);
	double *none = NULL;
	CHECK_ST(kt_replay_load(space, bad, &none, &ignored), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "\"time\" column");
	CHECK(none == NULL);

	free(obj);
	kjit__space_free(space);
	kjit__spec_free(spec);
	printf("ok\n");
	return 0;
}
