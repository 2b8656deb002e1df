/*
 * test-search-api: kjit.h's strategies and searches, through the public
 * header alone:
 *  - the catalogue: every strategy with a summary and its settings'
 *    defaults, T1 names taken for kjit's;
 *  - a strategy made from a name, a T1 spec's Search (its Attributes set
 *    options; those of another strategy, or no option of this one, are
 *    warnings) and settings, each refusal naming the setting and saying
 *    whose fault it is;
 *  - a search asked and told: exhaustive covers the space once and then
 *    stays ended, a seed repeats its proposals, proposals outstanding
 *    together (a generation waits for its results), every break of the
 *    contract refused (a tell of a configuration not outstanding too).
 */
#include "testutil.h"

#include <math.h>

#include "kjit.h"

static kjit_strategy *make(const char *name, const kjit_spec *spec, int limited,
                           const char *const *settings, size_t n)
{
	kjit_strategy_options o;
	kjit_strategy_options_init(&o);
	o.name = name;
	o.spec = spec;
	o.limited = limited;
	o.settings = settings;
	o.n_settings = n;
	kjit_strategy *s = NULL;
	kjit_strategy_fault fault;
	kjit_status st = kjit_strategy_new(&o, &s, &fault);
	CHECK_MSG(st == KJIT_OK, "%s: %s", name ? name : "(none)", kjit_last_error());
	CHECK(fault == KJIT_STRATEGY_FAULT_NONE);
	return s;
}

/* The fault and message of options that must be refused. */
static kjit_strategy_fault refused(const kjit_strategy_options *o, const char *says)
{
	kjit_strategy *s = (kjit_strategy *)o;
	kjit_strategy_fault fault = KJIT_STRATEGY_FAULT_NONE;
	CHECK_ST(kjit_strategy_new(o, &s, &fault), KJIT_ERR_INVALID_ARG);
	CHECK(s == NULL);
	CHECK_CONTAINS(kjit_last_error(), says);
	return fault;
}

static void catalogue(void)
{
	size_t n = kjit_strategy_count();
	CHECK(n >= 8);
	int genetic = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name, *summary;
		char *settings;
		CHECK_OK(kjit_strategy_describe(i, &name, &summary, &settings));
		CHECK(*name && *summary && settings);
		CHECK_STREQ(kjit_strategy_canonical(name), name);
		if (strcmp(name, "genetic") == 0) {
			CHECK_CONTAINS(settings, "popsize=20");
			genetic = 1;
		}
		if (strcmp(name, "hybrid") == 0)
			CHECK_STREQ(settings, "");
		free(settings);
	}
	CHECK(genetic);
	const char *name, *summary;
	char *settings = (char *)"x";
	CHECK_ST(kjit_strategy_describe(n, &name, &summary, &settings), KJIT_ERR_NOT_FOUND);
	CHECK(settings == NULL);
	CHECK_ST(kjit_strategy_describe(0, NULL, &summary, &settings), KJIT_ERR_INVALID_ARG);
	CHECK_STREQ(kjit_strategy_canonical("brute_force"), "exhaustive");
	CHECK_STREQ(kjit_strategy_canonical("random_sample"), "random");
	CHECK_STREQ(kjit_strategy_canonical("bayes_opt"), "surrogate");
	CHECK(kjit_strategy_canonical("hill_climbing") == NULL);
	CHECK(kjit_strategy_canonical(NULL) == NULL);
	OK("%zu strategies, each with a summary and its settings' defaults; T1 names are "
	   "kjit's", n);
}

/* A T1 spec of scale_add whose Search is search (a JSON object). */
static kjit_spec *t1_spec(const char *dir, const char *file, const char *search)
{
	char path[TU_PATH], text[4096];
	snprintf(text, sizeof text,
	         "{\"ConfigurationSpace\": {\"TuningParameters\": ["
	         " {\"Name\": \"block_size_x\", \"Type\": \"uint\", \"Values\": \"[32, 64, 128, 256]\"},"
	         " {\"Name\": \"tile\", \"Type\": \"uint\", \"Values\": \"[1, 2, 4]\"}]},"
	         " \"Search\": %s,"
	         " \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"scale_add\","
	         "  \"KernelFile\": \"scale_add.cu\", \"GlobalSizeType\": \"CUDA\","
	         "  \"GlobalSize\": {\"X\": 1000}, \"LocalSize\": {\"X\": \"block_size_x\"},"
	         "  \"Arguments\": [{\"Name\": \"n\", \"Type\": \"int32\", \"FillType\": \"Constant\","
	         "   \"FillValue\": 1000, \"MemoryType\": \"Scalar\"}]}}",
	         search);
	static const char source[] = "extern \"C\" __global__ void scale_add(int n) {}\n";
	tu_write_file(tu_path(path, dir, file), text, strlen(text));
	tu_write_file(tu_path(path, dir, "scale_add.cu"), source, sizeof source - 1);
	kjit_spec *spec = NULL;
	CHECK_MSG(kjit_spec_load(tu_path(path, dir, file), &spec) == KJIT_OK, "%s",
	          kjit_last_error());
	return spec;
}

static void making(const char *dir)
{
	kjit_strategy *s = make(NULL, NULL, 0, NULL, 0);
	CHECK_STREQ(kjit_strategy_name(s), "exhaustive");
	kjit_strategy_free(s);
	s = make(NULL, NULL, 1, NULL, 0);
	CHECK_STREQ(kjit_strategy_name(s), KJIT_STRATEGY_DEFAULT);
	size_t nw = 9;
	CHECK(kjit_strategy_warnings(s, &nw) == NULL || nw == 0);
	CHECK(nw == 0);
	kjit_strategy_free(s);
	s = make("random_sample", NULL, 0, NULL, 0);
	CHECK_STREQ(kjit_strategy_name(s), "random");
	CHECK(kjit_strategy_ahead(s) == 1);
	kjit_strategy_free(s);
	s = make("genetic", NULL, 0, NULL, 0);
	CHECK(kjit_strategy_ahead(s) == 0); /* it waits for each generation's results */
	kjit_strategy_free(s);

	kjit_strategy_options o;
	kjit_strategy_options_init(&o);
	o.name = "hill_climbing";
	CHECK(refused(&o, "unknown strategy 'hill_climbing'") == KJIT_STRATEGY_FAULT_NAME);
	const char *bad[] = { "popsize=4", "popsize=0" };
	o.name = "genetic";
	o.settings = bad;
	o.n_settings = 2;
	CHECK(refused(&o, "setting 'popsize=0': strategy genetic takes popsize (a count from 1") ==
	      KJIT_STRATEGY_FAULT_SETTINGS);
	o.settings_from = "--opt";
	CHECK(refused(&o, "--opt 'popsize=0'") == KJIT_STRATEGY_FAULT_SETTINGS);
	const char *pair[] = { "T_min=5" };
	o.name = "annealing";
	o.settings = pair;
	o.n_settings = 1;
	CHECK(refused(&o, "strategy annealing: T_min (5) is above T") ==
	      KJIT_STRATEGY_FAULT_SETTINGS);
	o.settings = NULL;
	CHECK(refused(&o, "1 settings at NULL") == KJIT_STRATEGY_FAULT_NONE);
	CHECK_ST(kjit_strategy_new(NULL, &s, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_strategy_new(&o, NULL, NULL), KJIT_ERR_INVALID_ARG);
	OK("a strategy by name, T1 name or default; unknown names, bad settings and settings "
	   "that cannot go together refused, naming them and whose they are");

	/* a spec's Search: its name and attributes */
	kjit_spec *spec = t1_spec(dir, "ga.json",
	                          "{\"Name\": \"genetic_algorithm\", \"Attributes\": ["
	                          " {\"Name\": \"popsize\", \"Value\": 6},"
	                          " {\"Name\": \"temperature\", \"Value\": 2}]}");
	s = make(NULL, spec, 1, NULL, 0);
	CHECK_STREQ(kjit_strategy_name(s), "genetic");
	const char *const *w = kjit_strategy_warnings(s, &nw);
	CHECK(nw == 1);
	CHECK_CONTAINS(w[0], "Search.Attributes \"temperature\": not an option of strategy "
	                     "genetic");
	CHECK_CONTAINS(w[0], "not used");
	kjit_space *space;
	CHECK_OK(kjit_space_build(spec, 0, NULL, &space));
	kjit_search *search;
	CHECK_OK(kjit_search_start(s, space, 0, 3, &search));
	int64_t j;
	size_t asked = 0;
	for (;; asked++) {
		CHECK_OK(kjit_search_ask(search, &j));
		if (j < 0)
			break;
	}
	CHECK_MSG(j == KJIT_SEARCH_WAIT && asked == 6, "genetic of popsize 6 (the spec's): %zu "
	          "asked, then %lld", asked, (long long)j);
	kjit_search_free(search);
	kjit_space_free(space);
	kjit_spec_free(spec); /* the strategy keeps what it took */
	CHECK_STREQ(kjit_strategy_name(s), "genetic");
	kjit_strategy_free(s);

	/* another strategy named: the spec's attributes are not its */
	spec = t1_spec(dir, "ga2.json", "{\"Name\": \"genetic_algorithm\", \"Attributes\": ["
	                                " {\"Name\": \"popsize\", \"Value\": 6}]}");
	s = make("pso", spec, 1, NULL, 0);
	w = kjit_strategy_warnings(s, &nw);
	CHECK(nw == 1);
	CHECK_CONTAINS(w[0], "an option of the spec's strategy (genetic), not of the run's (pso)");
	kjit_strategy_free(s);
	kjit_spec_free(spec);
	spec = t1_spec(dir, "ga3.json", "{\"Name\": \"genetic_algorithm\", \"Attributes\": ["
	                                " {\"Name\": \"popsize\", \"Value\": 100000}]}");
	kjit_strategy_options_init(&o);
	o.spec = spec;
	CHECK(refused(&o, "Search.Attributes 'popsize=100000': strategy genetic takes popsize") ==
	      KJIT_STRATEGY_FAULT_SPEC);
	kjit_spec_free(spec);
	OK("a spec's Search names the strategy and sets its options; attributes it cannot use "
	   "are warnings, a bad one the spec's fault");
}

/* Exhaustive's whole walk, one at a time. */
static void searching(void)
{
	char path[TU_PATH];
	snprintf(path, sizeof path, "%s/examples/saxpy/saxpy.json", tu_srcdir());
	kjit_spec *spec;
	CHECK_OK(kjit_spec_load(path, &spec));
	kjit_space *space;
	CHECK_OK(kjit_space_build(spec, 0, NULL, &space));
	size_t size = kjit_space_size(space, NULL);
	kjit_strategy *ex = make("exhaustive", NULL, 0, NULL, 0);
	kjit_search *s;
	CHECK_OK(kjit_search_start(ex, space, 0, 1, &s));
	uint8_t *seen = calloc(size, 1);
	CHECK(seen);
	size_t n = 0;
	int64_t j;
	CHECK_ST(kjit_search_tell(s, 0, 1.0), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "nothing is outstanding");
	for (;;) {
		CHECK_OK(kjit_search_ask(s, &j));
		if (j == KJIT_SEARCH_END)
			break;
		CHECK(j >= 0 && (size_t)j < size && !seen[j]);
		seen[j] = 1;
		n++;
		CHECK_ST(kjit_search_tell(s, size, 1.0), KJIT_ERR_INVALID_ARG);
		CHECK_OK(kjit_search_tell(s, (size_t)j, j % 5 ? (double)j : NAN));
	}
	CHECK(n == size);
	CHECK_OK(kjit_search_ask(s, &j));
	CHECK(j == KJIT_SEARCH_END);
	CHECK_ST(kjit_search_ask(NULL, &j), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_search_ask(s, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_search_tell(NULL, 0, 1), KJIT_ERR_INVALID_ARG);
	kjit_search_free(s);
	kjit_search_free(NULL);
	kjit_strategy_free(NULL);
	CHECK_ST(kjit_search_start(NULL, space, 0, 1, &s), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_search_start(ex, NULL, 0, 1, &s), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit_search_start(ex, space, 0, 1, NULL), KJIT_ERR_INVALID_ARG);
	OK("exhaustive: all %zu configurations once, then ended for good; a tell not asked for, "
	   "one outside the space and NULL arguments refused", size);

	/* the default with a budget: the same proposals for a seed, others for another */
	kjit_strategy *def = make(NULL, NULL, 1, NULL, 0);
	int64_t seq[3][12];
	for (int run = 0; run < 3; run++) {
		CHECK_OK(kjit_search_start(def, space, 12, run == 2 ? 8 : 7, &s));
		for (size_t k = 0; k < 12; k++) {
			CHECK_OK(kjit_search_ask(s, &seq[run][k]));
			CHECK(seq[run][k] >= 0);
			double v = fabs((double)seq[run][k] - 17.0);
			CHECK_OK(kjit_search_tell(s, (size_t)seq[run][k], v));
		}
		kjit_search_free(s);
	}
	CHECK(memcmp(seq[0], seq[1], sizeof seq[0]) == 0);
	CHECK(memcmp(seq[0], seq[2], sizeof seq[0]) != 0);
	OK("%s: the same twelve proposals for a seed, others for another", KJIT_STRATEGY_DEFAULT);

	/* random proposes ahead: KJIT_SEARCH_BATCH_MAX outstanding, told in reverse */
	kjit_strategy *rnd = make("random", NULL, 0, NULL, 0);
	CHECK_OK(kjit_search_start(rnd, space, 0, 5, &s));
	int64_t out[KJIT_SEARCH_BATCH_MAX];
	size_t k = 0;
	for (; k < size && k < KJIT_SEARCH_BATCH_MAX; k++) {
		CHECK_OK(kjit_search_ask(s, &out[k]));
		CHECK(out[k] >= 0);
	}
	/* a configuration not outstanding: never asked for, or told already */
	int64_t other = -1;
	for (size_t i = 0; i < size && other < 0; i++) {
		other = (int64_t)i;
		for (size_t m = 0; m < k; m++)
			other = out[m] == (int64_t)i ? -1 : other;
	}
	if (other >= 0) {
		CHECK_ST(kjit_search_tell(s, (size_t)other, 1.0), KJIT_ERR_INVALID_ARG);
		CHECK_CONTAINS(kjit_last_error(), "not outstanding");
	}
	CHECK_OK(kjit_search_tell(s, (size_t)out[0], 1.0));
	CHECK_ST(kjit_search_tell(s, (size_t)out[0], 1.0), KJIT_ERR_INVALID_ARG);
	while (k-- > 1)
		CHECK_OK(kjit_search_tell(s, (size_t)out[k], 1.0));
	kjit_search_free(s);
	OK("random: %zu proposals outstanding at once, told in any order; a tell of one not "
	   "outstanding, or told already, refused",
	   size < KJIT_SEARCH_BATCH_MAX ? size : (size_t)KJIT_SEARCH_BATCH_MAX);
	kjit_strategy_free(rnd);
	kjit_strategy_free(def);
	kjit_strategy_free(ex);
	free(seen);
	kjit_space_free(space);
	kjit_spec_free(spec);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	catalogue();
	making(tu_tmpdir());
	searching();
	return 0;
}
