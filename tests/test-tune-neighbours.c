/*
 * test-tune-neighbours: local search on a space too large to hold. The
 * space of tests/t1/huge_space.json (8.65e12 configurations, the
 * restriction unused_9 <= unused_8) is held as a random sample of 4096;
 * kjit__space_add() builds a configuration outside the sample when the
 * restriction passes (and refuses one it fails, or a value out of range),
 * and the strategies' moves use it: with an objective whose optimum is
 * planted one parameter away from a sampled configuration, and so not in
 * the sample, hybrid, dual_annealing and genetic evaluate configurations
 * that were not drawn and reach the optimum within a budget of 1500 (a
 * descent of about 40 steps of one value index).
 */
#include "testutil.h"

#include <math.h>


#define SAMPLE 4096
#define BUDGET 1500

static uint16_t target[16];

/* 1 at the planted optimum, growing with the distance in value indices. */
static double objective(const kjit__space *space, size_t j)
{
	const uint16_t *c = kjit__space_config(space, j);
	double d = 1;
	for (size_t p = 0; p < space->n_params; p++)
		d += fabs((double)c[p] - (double)target[p]);
	return d;
}

/* One strategy, one proposal at a time; repeats answered from memory. */
static void search(const kjit__space *space, const char *name, size_t held)
{
	kjit_search *st;
	CHECK_OK(kjit_search_start(tu_strategy(name), space, BUDGET, 7, &st));
	uint8_t *known = calloc(space->capacity + 1, 1);
	double *value = calloc(space->capacity + 1, sizeof *value);
	CHECK(known && value);
	size_t evaluations = 0, built = 0, at_best = 0;
	double best = INFINITY;
	for (size_t k = 0; evaluations < BUDGET && k < 100 * BUDGET; k++) {
		int64_t j;
		CHECK_OK(kjit_search_ask(st, &j));
		if (j < 0)
			break;
		if (!known[j]) {
			known[j] = 1;
			value[j] = objective(space, (size_t)j);
			evaluations++;
			built += (size_t)j >= held;
			if (value[j] < best) {
				best = value[j];
				at_best = evaluations;
			}
		}
		CHECK_OK(kjit_search_tell(st, (size_t)j, value[j]));
	}
	kjit_search_free(st);
	free(known);
	free(value);
	CHECK_MSG(built >= 10, "%s: %zu of %zu evaluations outside the sample", name, built,
	          evaluations);
	CHECK_MSG(best == 1, "%s: best %g after %zu evaluations (the optimum is 1)", name, best,
	          evaluations);
	OK("%s: %zu evaluations, %zu of them built outside the sample of %zu; the planted "
	   "optimum after %zu", name, evaluations, built, held, at_best);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	char path[TU_PATH];
	snprintf(path, sizeof path, "%s/tests/t1/huge_space.json", tu_srcdir());
	kjit__spec *spec;
	kjit__space *space;
	CHECK_OK(kjit__spec_load(path, &spec));
	kjit__limits lim = { .sample = SAMPLE, .seed = 3 };
	CHECK_OK(kjit__space_build(spec, 0, &lim, &space));
	size_t n = space->n_params, held = space->size;
	CHECK(n == 11 && space->sampled && held == SAMPLE);
	CHECK(space->capacity == held + KJIT__SPACE_GROW);

	/* the optimum: sampled configuration 0 with unused_0 changed, not drawn */
	memcpy(target, kjit__space_config(space, 0), n * sizeof *target);
	for (uint16_t v = 0; v < 15 && kjit__space_find(space, target) >= 0; v++)
		target[1] = v;
	CHECK(kjit__space_find(space, target) < 0);
	int64_t j = kjit__space_add(space, target);
	CHECK_MSG(j == (int64_t)held && space->size == held + 1, "added at %lld, size %zu",
	          (long long)j, space->size);
	CHECK(kjit__space_add(space, target) == j && kjit__space_find(space, target) == j);
	CHECK(memcmp(kjit__space_config(space, (size_t)j), target, n * sizeof *target) == 0);
	uint16_t bad[16];
	memcpy(bad, target, sizeof bad);
	bad[9] = 0;   /* unused_8 = 1 */
	bad[10] = 14; /* unused_9 = 15 > unused_8 */
	CHECK(kjit__space_add(space, bad) == -1 && space->size == held + 1);
	bad[10] = 15; /* no such value */
	CHECK(kjit__space_add(space, bad) == -1 && space->size == held + 1);
	OK("a sample of %zu: a configuration not drawn is added once (index %lld); one the "
	   "restriction refuses, or out of range, is not", held, (long long)j);
	kjit__space_free(space);

	/* fresh samples, the optimum outside them */
	const char *strategies[] = { "hybrid", "dual_annealing", "genetic" };
	for (size_t s = 0; s < 3; s++) {
		CHECK_OK(kjit__space_build(spec, 0, &lim, &space));
		CHECK(kjit__space_find(space, target) < 0);
		search(space, strategies[s], held);
		kjit__space_free(space);
	}

	/* a space held whole does not grow */
	kjit__spec_free(spec);
	snprintf(path, sizeof path, "%s/examples/saxpy/saxpy.json", tu_srcdir());
	CHECK_OK(kjit__spec_load(path, &spec));
	CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
	uint16_t cfg[2] = { 0, 0 };
	CHECK(space->capacity == space->size && space->size == 40);
	CHECK(kjit__space_add(space, cfg) == kjit__space_find(space, cfg));
	cfg[1] = 99;
	CHECK(kjit__space_add(space, cfg) == -1 && space->size == 40);
	OK("a space held whole: kjit__space_add() only finds");
	kjit__space_free(space);
	kjit__spec_free(spec);
	return 0;
}
