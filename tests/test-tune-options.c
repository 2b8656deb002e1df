/*
 * test-tune-options: a strategy's options (--strategy-option NAME=VALUE,
 * kjit__strategy_options_parse()): each NAME=VALUE parsed into the strategy's own
 * options, a name or value it does not take refused naming the strategy,
 * the option and its options; the options change what the strategy
 * proposes for a seed (genetic's popsize is its generations' size, pso's
 * its swarm's, maxiter ends the search), and the defaults given as
 * options propose as no options do.
 */
#include "testutil.h"

#include <math.h>

#include "search.h"
#include "strategies.h"

/* A bowl with some ripple. */
static double bowl(const kjit__space *space, size_t i)
{
	const uint16_t *c = kjit__space_config(space, i);
	double a = c[0], b = c[1], d = c[2];
	return 1 + (a - 6) * (a - 6) + 0.5 * (b - 3) * (b - 3) + 2 * (d - 2) * (d - 2) +
	       0.3 * ((c[0] * 7 + c[1] * 3 + c[2] + 2) % 5);
}

/* strategy's options of args[n] (NULL for none), which must parse. */
static void *options(const kjit__strategy *strategy, const char *const *args, size_t n)
{
	void *o = NULL;
	kjit_status st = kjit__strategy_options_parse(strategy, args, n, "--strategy-option", &o);
	CHECK_MSG(st == KJIT_OK, "%s: %s", strategy->name, kjit_last_error());
	CHECK((o != NULL) == (n > 0));
	return o;
}

/* The error of strategy's args[n], which must be refused. */
static const char *refused(const kjit__strategy *strategy, const char *const *args, size_t n)
{
	void *o = NULL;
	CHECK_ST(kjit__strategy_options_parse(strategy, args, n, "--strategy-option", &o), KJIT_ERR_INVALID_ARG);
	CHECK(o == NULL);
	return kjit_last_error();
}

/* The proposals of strategy with options o (one at a time, each answered
 * from obj) until it ends, waits or has made cap, as a hash; *count: how
 * many, *ended: 1 when it returned -1. */
static uint64_t proposals(const kjit__space *space, const kjit__strategy *strategy, const void *o,
                          const double *obj, size_t cap, size_t *count, int *ended)
{
	void *st = strategy->init(space, space->size, 11, o);
	CHECK(st);
	uint64_t hash = 1469598103934665603ull;
	*count = 0;
	*ended = 0;
	for (; *count < cap; ++*count) {
		int64_t j = strategy->next(st);
		if (j < 0) {
			*ended = j == -1;
			break;
		}
		CHECK((size_t)j < space->size);
		hash = (hash ^ (uint64_t)j) * 1099511628211ull;
		strategy->report(st, (size_t)j, obj[j]);
	}
	strategy->free(st);
	return hash;
}

/* How many strategy proposes with options o before it first waits, with
 * nothing reported. */
static size_t until_wait(const kjit__space *space, const kjit__strategy *strategy, const void *o)
{
	void *st = strategy->init(space, space->size, 3, o);
	CHECK(st);
	size_t n = 0;
	int64_t j;
	while ((j = strategy->next(st)) >= 0)
		n++;
	CHECK(j == KJIT_SEARCH_WAIT);
	strategy->free(st);
	return n;
}

static void test_parsing(void)
{
	const char *a[] = { "popsize=5", "maxiter=3", "method=two_point", "mutation_chance=1",
		            "popsize=6" };
	free(options(&kjit__strategy_genetic, a, 5));
	CHECK(options(&kjit__strategy_genetic, a, 0) == NULL);
	const char *r[] = { "T=0.25", "T_min=1e-4", "alpha=0.9975", "maxiter=2" };
	free(options(&kjit__strategy_annealing, r, 4));
	const char *p[] = { "w=-0.5", "c1=0", "c2=2.5" };
	free(options(&kjit__strategy_pso, p, 3));
	OK("options parse: counts, numbers, words, repeats (the last wins)");

	static const struct {
		const kjit__strategy *strategy;
		const char *arg, *says;
	} bad[] = {
		{ &kjit__strategy_genetic, "popsiz=5", "'popsiz=5': strategy genetic has no option of "
		  "that name; its options: popsize (a count from 1 to 4096); maxiter (a count "
		  "from 0 to 1000000000); mutation_chance (a count from 0 to 1000000000); method "
		  "(one of uniform, single_point, two_point, disruptive_uniform)" },
		{ &kjit__strategy_genetic, "popsize=0", "strategy genetic takes popsize (a count from 1 "
		  "to 4096); its options: popsize" },
		{ &kjit__strategy_genetic, "popsize=4097", "takes popsize (a count from 1 to 4096)" },
		{ &kjit__strategy_genetic, "popsize=2.5", "takes popsize" },
		{ &kjit__strategy_genetic, "popsize=-1", "takes popsize" },
		{ &kjit__strategy_genetic, "popsize= 4", "takes popsize" },
		{ &kjit__strategy_genetic, "popsize=", "takes popsize" },
		{ &kjit__strategy_genetic, "popsize=99999999999999999999999", "takes popsize" },
		{ &kjit__strategy_genetic, "method=Uniform", "takes method (one of uniform, "
		  "single_point, two_point, disruptive_uniform)" },
		{ &kjit__strategy_genetic, "popsize", "'popsize': strategy genetic takes NAME=VALUE" },
		{ &kjit__strategy_genetic, "=5", "has no option of that name" },
		{ &kjit__strategy_annealing, "T=nan", "strategy annealing takes T (a number from" },
		{ &kjit__strategy_annealing, "T=inf", "takes T" },
		{ &kjit__strategy_annealing, "T=0", "takes T" },
		{ &kjit__strategy_annealing, "alpha=1.5", "takes alpha (a number from 0 to 1)" },
		{ &kjit__strategy_annealing, "alpha=0.5x", "takes alpha" },
		{ &kjit__strategy_pso, "mutation_chance=3", "strategy pso has no option of that name; "
		  "its options: popsize" },
		{ &kjit__strategy_surrogate, "num_initial=-3", "strategy surrogate takes num_initial" },
		{ &kjit__strategy_hybrid, "popsize=3", "'popsize=3': strategy hybrid has no options" },
		{ &kjit__strategy_dual_annealing, "method=COBYLA", "strategy dual_annealing has no "
		  "options" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *e = refused(bad[i].strategy, &bad[i].arg, 1);
		CHECK_CONTAINS(e, bad[i].says);
		CHECK_CONTAINS(e, "--strategy-option ");
	}
	const char *good_bad[] = { "popsize=4", "maxiter=x" };
	CHECK_CONTAINS(refused(&kjit__strategy_genetic, good_bad, 2), "'maxiter=x': strategy genetic "
	               "takes maxiter");
	char longname[300];
	memset(longname, 'x', 200);
	strcpy(longname + 200, "=1");
	const char *l[] = { longname };
	const char *e = refused(&kjit__strategy_genetic, l, 1);
	CHECK_MSG(strlen(e) < 400, "%s", e);
	CHECK_CONTAINS(e, "xxx...': strategy genetic has no option");
	const char *many[KJIT_STRATEGY_SETTINGS_MAX + 1];
	for (size_t i = 0; i <= KJIT_STRATEGY_SETTINGS_MAX; i++)
		many[i] = "popsize=4";
	free(options(&kjit__strategy_genetic, many, KJIT_STRATEGY_SETTINGS_MAX));
	CHECK_CONTAINS(refused(&kjit__strategy_genetic, many, KJIT_STRATEGY_SETTINGS_MAX + 1),
	               "strategy genetic takes at most 32 of them");
	OK("a name or value a strategy does not take is refused naming the strategy, the "
	   "option and its options; an echo is cut; at most %d options", KJIT_STRATEGY_SETTINGS_MAX);
}

/* Options change what a strategy proposes; its defaults as options
 * propose as no options do. */
static void test_effects(const kjit__space *space, const double *obj)
{
	static const struct {
		const kjit__strategy *strategy;
		const char *defaults, *changed;
	} cases[] = {
		{ &kjit__strategy_genetic, "popsize=20", "popsize=7" },
		{ &kjit__strategy_genetic, "method=uniform", "method=single_point" },
		{ &kjit__strategy_genetic, "method=uniform", "method=two_point" },
		{ &kjit__strategy_genetic, "method=uniform", "method=disruptive_uniform" },
		{ &kjit__strategy_genetic, "mutation_chance=0", "mutation_chance=1" },
		{ &kjit__strategy_annealing, "T=0.5", "T=1e-9" },
		{ &kjit__strategy_annealing, "T_min=0.001", "T_min=0.4" },
		{ &kjit__strategy_annealing, "alpha=0", "alpha=0.5" },
		{ &kjit__strategy_annealing, "maxiter=1", "maxiter=50" },
		{ &kjit__strategy_pso, "popsize=20", "popsize=5" },
		{ &kjit__strategy_pso, "w=0.5", "w=0" },
		{ &kjit__strategy_pso, "c1=3.5", "c1=0" },
		{ &kjit__strategy_pso, "c2=1", "c2=3" },
		{ &kjit__strategy_surrogate, "num_initial=8", "num_initial=100" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const kjit__strategy *s = cases[i].strategy;
		size_t n0, n1, n2;
		int e0, e1, e2;
		void *d = options(s, &cases[i].defaults, 1), *c = options(s, &cases[i].changed, 1);
		uint64_t none = proposals(space, s, NULL, obj, 150, &n0, &e0);
		uint64_t same = proposals(space, s, d, obj, 150, &n1, &e1);
		uint64_t other = proposals(space, s, c, obj, 150, &n2, &e2);
		CHECK_MSG(none == same && n0 == n1, "%s %s: not as without options", s->name,
		          cases[i].defaults);
		CHECK_MSG(other != none, "%s %s: proposes as without it", s->name, cases[i].changed);
		free(d);
		free(c);
	}
	OK("each option changes the first 150 proposals of seed 11; the defaults given propose "
	   "as none");

	const char *g[] = { "popsize=7" }, *p[] = { "popsize=4" };
	void *go = options(&kjit__strategy_genetic, g, 1), *po = options(&kjit__strategy_pso, p, 1);
	CHECK(until_wait(space, &kjit__strategy_genetic, NULL) == 20);
	CHECK(until_wait(space, &kjit__strategy_genetic, go) == 7);
	CHECK(until_wait(space, &kjit__strategy_pso, NULL) == 20);
	CHECK(until_wait(space, &kjit__strategy_pso, po) == 4);
	free(go);
	free(po);
	OK("genetic's generation and pso's swarm are popsize (20 without it) before they wait");

	size_t n;
	int ended;
	const char *gm[] = { "popsize=7", "maxiter=3" }, *pm[] = { "popsize=4", "maxiter=2" };
	go = options(&kjit__strategy_genetic, gm, 2);
	proposals(space, &kjit__strategy_genetic, go, obj, space->size, &n, &ended);
	/* three generations: 7, then 5 children after the 2 elites, twice */
	CHECK_MSG(ended && n == 7 + 5 + 5, "genetic maxiter=3: %zu proposals, ended %d", n, ended);
	proposals(space, &kjit__strategy_genetic, NULL, obj, 400, &n, &ended);
	CHECK(!ended && n == 400);
	po = options(&kjit__strategy_pso, pm, 2);
	proposals(space, &kjit__strategy_pso, po, obj, space->size, &n, &ended);
	CHECK_MSG(ended && n >= 4 && n < 40, "pso maxiter=2: %zu proposals, ended %d", n, ended);
	proposals(space, &kjit__strategy_pso, NULL, obj, 400, &n, &ended);
	CHECK(!ended && n == 400);
	free(go);
	free(po);
	OK("maxiter ends genetic after its generations, pso after its iterations");
}

/* Options that cannot go together: annealing's temperature falls from T
 * to T_min. */
static void test_together(const kjit__spec *spec)
{
	void *o = (void *)1;
	int from_spec = -1;
	kjit__warnings warn = { 0 };
	const char *up[] = { "T_min=5" }, *both[] = { "T=2", "T_min=1" }, *eq[] = { "T=0.25",
		                                                                   "T_min=0.25" };
	CHECK(kjit__strategy_options_load(&kjit__strategy_annealing, spec, up, 1, "--strategy-option", &warn, &o, &from_spec) ==
	      KJIT_ERR_INVALID_ARG);
	CHECK(o == NULL && from_spec == 0);
	CHECK_CONTAINS(kjit_last_error(), "--strategy-option: strategy annealing: T_min (5) is "
	                                  "above T (0.5)");
	CHECK_OK(kjit__strategy_options_load(&kjit__strategy_annealing, spec, both, 2, "--strategy-option", &warn, &o, &from_spec));
	CHECK(o != NULL);
	free(o);
	CHECK_OK(kjit__strategy_options_load(&kjit__strategy_annealing, spec, eq, 2, "--strategy-option", &warn, &o, &from_spec));
	free(o);
	CHECK_OK(kjit__strategy_options_load(&kjit__strategy_annealing, spec, NULL, 0, "--strategy-option", &warn, &o, &from_spec));
	CHECK(o == NULL);
	CHECK_OK(kjit__strategy_options_load(&kjit__strategy_genetic, spec, up, 0, "--strategy-option", &warn, &o, &from_spec));
	CHECK(warn.n == 0);
	OK("annealing's T_min above T refused as a pair; at or below it, or defaults, taken");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	kjit__spec *spec;
	kjit__space *space = tu_abc_space(dir, "bowl.json", &spec);
	double *obj = malloc(space->size * sizeof *obj);
	CHECK(obj);
	for (size_t i = 0; i < space->size; i++)
		obj[i] = bowl(space, i);
	test_parsing();
	test_together(spec);
	test_effects(space, obj);
	free(obj);
	kjit__space_free(space);
	kjit__spec_free(spec);
	return 0;
}
