/*
 * test-tune-strategy: every strategy finds the known best of a synthetic
 * objective within a budget and repeats itself for a seed; exhaustive
 * visits each valid configuration once, in an order its seed shuffles;
 * budgets; hybrid in a batch proposes from its model, not at random;
 * replay from CSV and JSON.
 */
#include "testutil.h"

#include <math.h>

#include "search.h"

static const char *dir;

/* A bowl with its minimum at A=6, B=3, C=2 and some ripple. */
static double synthetic(const kjit__space *space, size_t i)
{
	const uint16_t *c = kjit__space_config(space, i);
	double a = c[0], b = c[1], d = c[2];
	return 1 + (a - 6) * (a - 6) + 0.5 * (b - 3) * (b - 3) + 2 * (d - 2) * (d - 2) +
	       0.3 * ((c[0] * 7 + c[1] * 3 + c[2] + 2) % 5);
}

/* The configurations exhaustive proposes for seed, in order (each told
 * obj[]); every one of the space exactly once. Owned by the caller. */
static size_t *exhaustive_order(const kjit__space *space, uint64_t seed, const double *obj)
{
	kjit_search *st;
	CHECK_OK(kjit_search_start(tu_strategy("exhaustive"), space, 0, seed, &st));
	size_t *order = calloc(space->size + 1, sizeof *order), n = 0;
	uint8_t *seen = calloc(space->size + 1, 1);
	CHECK(order && seen);
	for (int64_t j; kjit_search_ask(st, &j) == KJIT_OK && j >= 0; n++) {
		CHECK((size_t)j < space->size && !seen[j] && n < space->size);
		seen[j] = 1;
		order[n] = (size_t)j;
		CHECK_OK(kjit_search_tell(st, (size_t)j, obj[j]));
	}
	kjit_search_free(st);
	free(seen);
	CHECK(n == space->size);
	return order;
}

/* The seconds of an exhaustive replay of space on the simulated clock. */
static double clocked(const kjit__space *space, const double *obj, double compile,
                      double measure, size_t workers, size_t gpus)
{
	double *c = malloc(space->size * sizeof *c), *m = malloc(space->size * sizeof *m);
	CHECK(c && m);
	for (size_t i = 0; i < space->size; i++) {
		c[i] = compile;
		m[i] = measure;
	}
	kt_replay_opts o = { .seed = 1, .compile_ms = c, .measure_ms = m, .workers = workers,
		             .gpus = gpus, .within = 0.5 };
	kt_replay_result r;
	CHECK_OK(kt_replay(space, tu_strategy("exhaustive"), &o, obj, &r));
	CHECK(r.evaluations == space->size && r.seconds_to_within > 0 &&
	      r.seconds_to_within <= r.seconds);
	free(c);
	free(m);
	return r.seconds;
}

/* hybrid with b proposals outstanding (at most B), on a bowl of 10
 * parameters of 4 values (a million configurations), results told oldest
 * first: after its start (a few spread, or the first batch) every
 * proposal is a local move or a perturbation, within three parameters of
 * a configuration it was told of, or a jump, one it was told of with
 * parameters set to an end of their range; a uniform draw from so large
 * a space almost never is either. Returns the proposals that were not. */
static size_t far_proposals(const kjit__space *space, uint64_t seed, size_t b)
{
	enum { B = 8, PROPOSALS = 80, N_PARAMS = 10, START = N_PARAMS + 1 };
	double *obj = malloc(space->size * sizeof *obj);
	CHECK(obj);
	for (size_t i = 0; i < space->size; i++) {
		const uint16_t *c = kjit__space_config(space, i);
		obj[i] = 1;
		for (size_t p = 0; p < N_PARAMS; p++)
			obj[i] += (c[p] - 2.0) * (c[p] - 2.0) * (double)(p + 1);
	}
	kjit_search *st;
	CHECK_OK(kjit_search_start(tu_strategy("hybrid"), space, 0, seed, &st));
	int64_t out[B], known[PROPOSALS];
	size_t n_out = 0, n_known = 0, n_prop = 0, far = 0;
	while (n_prop < PROPOSALS || n_out > 0) {
		for (; n_out < b && n_prop < PROPOSALS; n_prop++) {
			int64_t j;
			CHECK_OK(kjit_search_ask(st, &j));
			CHECK(j >= 0 && (size_t)j < space->size);
			const uint16_t *c = kjit__space_config(space, (size_t)j);
			size_t nearest = N_PARAMS;
			int jump = 0;
			for (size_t k = 0; k < n_known; k++) {
				const uint16_t *o = kjit__space_config(space, (size_t)known[k]);
				size_t d = 0, inside = 0;
				for (size_t p = 0; p < N_PARAMS; p++) {
					d += c[p] != o[p];
					inside += c[p] != o[p] && c[p] != 0 && c[p] != 3;
				}
				nearest = d < nearest ? d : nearest;
				jump |= inside == 0;
			}
			far += n_prop >= START && n_known > 0 && nearest > 3 && !jump;
			out[n_out++] = j;
		}
		int64_t j = out[0];
		memmove(out, out + 1, --n_out * sizeof *out);
		CHECK_OK(kjit_search_tell(st, (size_t)j, obj[j]));
		known[n_known++] = j;
	}
	kjit_search_free(st);
	free(obj);
	return far;
}

/* The simulated clock: a GPU-bound space takes the measurements end to
 * end after the first compile, a compile-bound one its compiles spread
 * over the workers. */
static void simulated_clock(const kjit__space *space, const double *obj)
{
	double n = (double)space->size;
	double one = clocked(space, obj, 1, 100, 2, 1), two = clocked(space, obj, 1, 100, 2, 2);
	CHECK_MSG(fabs(one - (0.001 + 0.1 * n)) < 1e-6, "GPU-bound, one GPU: %g s", one);
	CHECK_MSG(fabs(two - (0.001 + 0.1 * ceil(n / 2))) < 1e-6, "GPU-bound, two: %g s", two);
	double cb = clocked(space, obj, 1000, 1, 4, 1);
	CHECK_MSG(cb >= n / 4 && cb <= ceil(n / 4) + 0.1, "compile-bound, 4 workers: %g s", cb);
	kt_replay_result r;
	kt_replay_opts o = { .seed = 1 };
	CHECK_OK(kt_replay(space, tu_strategy("exhaustive"), &o, obj, &r));
	CHECK(r.seconds == 0);
	OK("simulated clock over %zu: %.3f s on one GPU, %.3f s on two, %.3f s compile-bound on 4 "
	   "workers; none without costs", space->size, one, two, cb);
}

/* CSV as pandas and Kernel Tuner write it, on the saxpy space: an unnamed
 * index column first, CRLF, quoted fields with commas, quotes and line
 * breaks, a quoted header cell, a line longer than 8 KB; a quote that
 * never ends is refused naming its line. */
static void csv_forms(const kjit__space *space, const char *csv)
{
	uint16_t c256_4[2] = { 2, 3 }, c64_1[2] = { 0, 0 }, c128_2[2] = { 1, 1 };
	char *times = malloc(20000);
	CHECK(times);
	size_t n = 0;
	for (int i = 0; n < 16000; i++)
		n += (size_t)snprintf(times + n, 20000 - n, "%s%d.25", i ? ", " : "", i);
	size_t cap = n + 1024;
	char *text = malloc(cap);
	CHECK(text);
	snprintf(text, cap,
	         ",BLOCK_SIZE,ITEMS_PER_THREAD,\"time\",times,note\r\n"
	         "0,256,4,1.5,\"[1.4, 1.5, 1.6]\",\"a \"\"quoted\"\", two-line\nnote\"\r\n"
	         "1,64,1,5.0,\"[%s]\",long\r\n"
	         "2,128,2,2.5,\"[2.5]\",\r\n",
	         times);
	tu_write_file(csv, text, strlen(text));
	double *t;
	size_t ignored;
	CHECK_OK(kt_replay_load(space, csv, &t, &ignored));
	CHECK_MSG(ignored == 0, "%zu rows ignored", ignored);
	CHECK(t[kjit__space_find(space, c256_4)] == 1.5);
	CHECK(t[kjit__space_find(space, c64_1)] == 5.0);
	CHECK(t[kjit__space_find(space, c128_2)] == 2.5);
	free(t);
	OK("CSV with pandas' unnamed index column, CRLF, quoted commas, quotes and line breaks, "
	   "a %zu-byte line: every row read where its header says", strlen(text));
	const char *open_quote = "BLOCK_SIZE,ITEMS_PER_THREAD,time\n256,4,1.5\n64,1,\"5.0\n";
	tu_write_file(csv, open_quote, strlen(open_quote));
	CHECK_ST(kt_replay_load(space, csv, &t, &ignored), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "line 3: a quoted field that does not end");
	OK("CSV: a quote that never ends is refused: %s", kjit_last_error());
	free(text);
	free(times);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	dir = tu_tmpdir();
	kjit__spec *spec;
	kjit__space *space = tu_abc_space(dir, "syn.json", &spec);
	double *obj = malloc(space->size * sizeof *obj);
	CHECK(obj);
	for (size_t i = 0; i < space->size; i++)
		obj[i] = synthetic(space, i);
	uint16_t best_cfg[3] = { 6, 3, 2 };
	int64_t best = kjit__space_find(space, best_cfg);
	CHECK(best >= 0);
	for (size_t i = 0; i < space->size; i++)
		CHECK((int64_t)i == best || obj[i] > obj[best]);
	OK("synthetic space: %zu configurations, best at A=6 B=3 C=2", space->size);

	/* exhaustive: each valid configuration exactly once, in an order
	 * the seed shuffles (the same for the same seed) */
	static const uint64_t seeds[3] = { 1, 1, 2 };
	size_t *order[3];
	for (int i = 0; i < 3; i++)
		order[i] = exhaustive_order(space, seeds[i], obj);
	size_t n = space->size, in_place = 0, same = 0;
	for (size_t i = 0; i < n; i++) {
		in_place += order[0][i] == i;
		same += order[1][i] == order[2][i];
	}
	CHECK(memcmp(order[0], order[1], n * sizeof *order[0]) == 0);
	CHECK_MSG(in_place < n / 4 && same < n / 4, "%zu of %zu in the space's order, %zu the same "
	          "for seeds 1 and 2", in_place, n, same);
	for (int i = 0; i < 3; i++)
		free(order[i]);
	OK("exhaustive visits all %zu once: shuffled (%zu in the space's order), the same order "
	   "for a seed, another for another seed (%zu alike)", n, in_place, same);

	/* each strategy reaches the best within a budget, for several seeds */
	for (size_t s = 0; s < kjit_strategy_count(); s++) {
		const char *name, *summary;
		CHECK_OK(kjit_strategy_describe(s, &name, &summary, NULL));
		const kjit_strategy *strat = tu_strategy(name);
		int full = strcmp(name, "exhaustive") == 0 || strcmp(name, "random") == 0;
		kt_budget b = { .fraction = full ? 1.0 : 0.4 };
		size_t total = 0;
		for (uint64_t seed = 1; seed <= 5; seed++) {
			kt_replay_result r, r2;
			CHECK_OK(kt_replay_run(space, strat, &b, seed, obj, &r));
			CHECK_MSG(r.best_found == best && r.evals_to_known > 0,
			          "%s seed %llu: best %lld (%g) after %zu evaluations", name,
			          (unsigned long long)seed, (long long)r.best_found,
			          r.best_found_value, r.evaluations);
			CHECK(r.evaluations <= kt_budget_evaluations(&b, space->size));
			CHECK_OK(kt_replay_run(space, strat, &b, seed, obj, &r2));
			CHECK(memcmp(&r, &r2, sizeof r) == 0);
			total += r.evals_to_known;
		}
		OK("%-10s reaches the best within %.0f%% of the space, mean %.1f evaluations;"
		   " repeatable per seed", name, b.fraction * 100, (double)total / 5);
	}
	CHECK_STREQ(kjit_strategy_canonical("genetic"), "genetic");
	CHECK_STREQ(kjit_strategy_canonical("genetic_algorithm"), "genetic");
	CHECK(kjit_strategy_canonical("nope") == NULL);

	/* budgets */
	kt_budget b = { .evaluations = 7 };
	kt_replay_result r;
	CHECK_OK(kt_replay_run(space, tu_strategy("random"), &b, 3, obj, &r));
	CHECK(r.evaluations == 7);
	b = (kt_budget){ .fraction = 0.1 };
	CHECK(kt_budget_evaluations(&b, 400) == 40);
	b = (kt_budget){ .evaluations = 100, .fraction = 0.1 };
	CHECK(kt_budget_evaluations(&b, 400) == 40);
	b = (kt_budget){ .seconds = 1e-9 };
	CHECK_OK(kt_replay_run(space, tu_strategy("random"), &b, 3, obj, &r));
	CHECK(r.evaluations <= 1);
	b = (kt_budget){ .evaluations = 12 };
	kt_replay_opts bo = { .budget = &b, .seed = 5, .batch = 16 };
	CHECK_OK(kt_replay(space, tu_strategy("hybrid"), &bo, obj, &r));
	CHECK(r.evaluations == 12);
	OK("budgets by evaluations, fraction and time; hybrid with 16 outstanding spends 12 of 12");
	simulated_clock(space, obj);
	kjit__space_free(space);
	kjit__spec_free(spec);
	free(obj);

	spec = tu_spec_from(dir, "bowl.json",
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"}, \"parameters\": ["
		"  {\"name\": \"P0\", \"values\": [0,1,2,3]}, {\"name\": \"P1\", \"values\": [0,1,2,3]},"
		"  {\"name\": \"P2\", \"values\": [0,1,2,3]}, {\"name\": \"P3\", \"values\": [0,1,2,3]},"
		"  {\"name\": \"P4\", \"values\": [0,1,2,3]}, {\"name\": \"P5\", \"values\": [0,1,2,3]},"
		"  {\"name\": \"P6\", \"values\": [0,1,2,3]}, {\"name\": \"P7\", \"values\": [0,1,2,3]},"
		"  {\"name\": \"P8\", \"values\": [0,1,2,3]}, {\"name\": \"P9\", \"values\": [0,1,2,3]}]}");
	CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
	for (size_t n_out = 1; n_out <= 8; n_out += 7)
		for (uint64_t seed = 1; seed <= 5; seed++) {
			size_t far = far_proposals(space, seed, n_out);
			CHECK_MSG(far == 0, "seed %llu, %zu outstanding: %zu proposals were more "
			          "than three parameters from all known", (unsigned long long)seed,
			          n_out, far);
		}
	OK("hybrid one at a time and with 8 outstanding, over %zu configurations: after its "
	   "start every proposal is within three parameters of one known or one known with "
	   "parameters at the ends of their ranges (random only as the fallback)", space->size);
	kjit__space_free(space);
	kjit__spec_free(spec);

	/* replay from files, on the saxpy space */
	char path[TU_PATH + 64], csv[TU_PATH], json[TU_PATH];
	snprintf(path, sizeof path, "%s", tu_saxpy_path());
	strcpy(strrchr(path, '/'), "/saxpy.json");
	CHECK_OK(kjit__spec_load(path, &spec));
	CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
	tu_path(csv, dir, "r.csv");
	const char *csv_text = "ITEMS_PER_THREAD,BLOCK_SIZE,time\n"
	                       "1,64,5.0\n4,256,1.5\n2,512,fail\n8,2048,0.1\n3,128,2.0\n";
	tu_write_file(csv, csv_text, strlen(csv_text));
	size_t ignored;
	double *t;
	CHECK_OK(kt_replay_load(space, csv, &t, &ignored));
	uint16_t c256_4[2] = { 2, 3 }, c512_2[2] = { 3, 1 }, c64_1[2] = { 0, 0 };
	CHECK(t[kjit__space_find(space, c256_4)] == 1.5);
	CHECK(t[kjit__space_find(space, c64_1)] == 5.0);
	CHECK(isinf(t[kjit__space_find(space, c512_2)]));
	CHECK(ignored == 1);
	CHECK_OK(kt_replay_run(space, tu_strategy("exhaustive"), NULL, 1, t, &r));
	size_t *places = exhaustive_order(space, 1, t), at = 0;
	while (places[at] != (size_t)kjit__space_find(space, c256_4))
		at++;
	free(places);
	CHECK_MSG(r.best_found == kjit__space_find(space, c256_4) && r.evals_to_known == at + 1,
	          "best %lld after %zu; expected %lld, exhaustive's %zuth", (long long)r.best_found,
	          r.evals_to_known, (long long)kjit__space_find(space, c256_4), at + 1);
	free(t);
	double *cm, *bm;
	CHECK_OK(kt_replay_load_costs(space, csv, &t, &cm, &bm, &ignored));
	CHECK(cm == NULL && bm == NULL && t[kjit__space_find(space, c256_4)] == 1.5);
	free(t);
	const char *cost_text = "BLOCK_SIZE,ITEMS_PER_THREAD,time,status,compile_ms,benchmark_ms\n"
	                        "256,4,1.5,ok,812.5,40\n256,4,1.75,ok,9,9\n64,1,,fail,30,\n";
	tu_write_file(csv, cost_text, strlen(cost_text));
	CHECK_OK(kt_replay_load_costs(space, csv, &t, &cm, &bm, &ignored));
	CHECK(cm && bm && ignored == 0);
	CHECK(cm[kjit__space_find(space, c256_4)] == 812.5 && bm[kjit__space_find(space, c256_4)] == 40);
	CHECK(cm[kjit__space_find(space, c64_1)] == 30 && bm[kjit__space_find(space, c64_1)] == 0);
	CHECK(cm[kjit__space_find(space, c512_2)] == 0 && isinf(t[kjit__space_find(space, c64_1)]));
	free(t);
	free(cm);
	free(bm);
	OK("CSV: columns by name, failures, a row outside the space; exhaustive finds 1.5 where "
	   "its order has it; compile_ms and benchmark_ms when present (the lower time's row)");
	tu_path(json, dir, "r.json");
	const char *json_text = "[{\"config\": {\"BLOCK_SIZE\": 256, \"ITEMS_PER_THREAD\": 4},"
	                        " \"time\": 1.25},"
	                        " {\"BLOCK_SIZE\": 64, \"ITEMS_PER_THREAD\": 1, \"time\": 3},"
	                        " {\"BLOCK_SIZE\": 64, \"ITEMS_PER_THREAD\": 9, \"time\": 0.5}]";
	tu_write_file(json, json_text, strlen(json_text));
	CHECK_OK(kt_replay_load(space, json, &t, &ignored));
	CHECK(t[kjit__space_find(space, c256_4)] == 1.25 && t[kjit__space_find(space, c64_1)] == 3);
	CHECK(ignored == 1);
	free(t);
	tu_write_file(json, "[1, 2]", 6);
	CHECK_ST(kt_replay_load(space, json, &t, &ignored), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "expected an object");
	tu_write_file(json, "[{\"BLOCK_SIZE\": 64", 18);
	CHECK_ST(kt_replay_load(space, json, &t, &ignored), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "expected a non-empty JSON array");
	/* an array as a key (fuzz-replay's find): SQLite's json_valid() passes
	 * it, and its json_extract() then read freed memory on the item */
	const char *array_key =
		"[{\"config\": {\"BLOCK_SIZE\": 32, \"ITEMS_PER_THREAD\": 1, \"LOOP\": \"un'roeoll\"}},\n"
		" {\"BLOCK_SIZE\": 128, \"ITEMS_PER_THREAD\": 3, \"LOOP\": \"plain\", \"ttim\xf1" "e\": 1},\n"
		" {\"BLOCK_SIZE\": 64, [{\"config\": {\"BLOCK_SIZE\": 32, \"ITEMS_PER_THREAD\": 1,"
		" \"LOOP\": \"oll\"}, \"mte\": \"fil\"}]\n: \"a,b\", \"e\": \"fal\"}]\n";
	tu_write_file(json, array_key, strlen(array_key));
	kjit_status bad_key = kt_replay_load(space, json, &t, &ignored);
	if (bad_key == KJIT_OK)
		free(t);
	CHECK(bad_key == KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "expected a");
	/* true and false read as 1 and 0, as before; null as no value */
	const char *scalars = "[{\"config\": {\"BLOCK_SIZE\": null, \"ITEMS_PER_THREAD\": 4},"
	                      " \"BLOCK_SIZE\": 256, \"time\": true}]";
	tu_write_file(json, scalars, strlen(scalars));
	CHECK_OK(kt_replay_load(space, json, &t, &ignored));
	CHECK(t[kjit__space_find(space, c256_4)] == 1 && ignored == 0);
	free(t);
	OK("JSON: flat and nested config, a value outside the space, bad files refused (an "
	   "array as a key too)");
	csv_forms(space, csv);
	kjit__space_free(space);
	kjit__spec_free(spec);
	return 0;
}
