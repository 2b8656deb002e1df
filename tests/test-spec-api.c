/*
 * test-spec-api: kjit.h's specs and spaces, through the public header
 * alone:
 *  - a T1 spec as the community writes it (tests/t1/values.json: Values
 *    as Python expressions, bools, floats, strings, nine conditions):
 *    every parameter's values and the count of valid configurations
 *    equal what Python itself computes (tests/t1/space-oracle.py); the
 *    count without building equals the built space's size; every
 *    configuration finds its own index; its JSON names every parameter;
 *  - a kjit spec's problem (examples/saxpy) and value types; its kernel
 *    (the signature its results are stored under, a variant compiled)
 *    and sgemm's reference kernel;
 *  - configurations to compile and launch (kjit_config): defines and
 *    geometry of saxpy's defaults and of each configuration of its space,
 *    spec expressions with and without one, a generator, a configuration
 *    found by its text;
 *  - a space too large to hold: refused naming it, sampled when asked;
 *  - a T1 key kjit does not know is a warning naming it;
 *  - every misuse and a bad file are errors with messages, nothing
 *    half-made;
 *  - spaces of one spec built and counted on several threads at once.
 */
#include "testutil.h"

#include <math.h>
#include <pthread.h>

#include "kjit.h"

static char t1dir[TU_PATH];

static kjit_spec *load(const char *path)
{
	kjit_spec *spec = NULL;
	CHECK_OK(kjit_spec_load(path, &spec));
	CHECK(spec != NULL);
	return spec;
}

/* The oracle's lines "NAME V1 V2 ..." for each parameter, then "count N". */
static long long against_python(const kjit_spec *spec, const char *path)
{
	char cmd[2 * TU_PATH + 64], line[4096];
	snprintf(cmd, sizeof cmd, "python3 '%s/space-oracle.py' '%s'", t1dir, path);
	FILE *f = popen(cmd, "r");
	CHECK(f != NULL);
	size_t i = 0;
	long long want = -1;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "count %lld", &want) == 1)
			break;
		const char *name;
		size_t n, def;
		CHECK_OK(kjit_spec_param(spec, i, &name, &n, &def));
		CHECK(def < n);
		char got[4096] = "";
		snprintf(got, sizeof got, "%s", name);
		for (size_t j = 0; j < n; j++) {
			kjit_value v;
			CHECK_OK(kjit_spec_value(spec, i, j, &v));
			snprintf(got + strlen(got), sizeof got - strlen(got), " %s", v.text);
		}
		CHECK_STREQ(got, line);
		i++;
	}
	CHECK(pclose(f) == 0);
	CHECK(i == kjit_spec_param_count(spec));
	CHECK(want > 0);

	kjit_space_count c;
	CHECK_OK(kjit_spec_count(spec, 0, NULL, &c));
	CHECK(c.rel_error == 0 && c.valid == (double)want);
	kjit_space *space = NULL;
	CHECK_OK(kjit_space_build(spec, 0, NULL, &space));
	int sampled = -1;
	CHECK(kjit_space_size(space, &sampled) == (size_t)want && sampled == 0);
	double product = 1;
	for (size_t p = 0; p < i; p++) {
		size_t n;
		CHECK_OK(kjit_spec_param(spec, p, NULL, &n, NULL));
		product *= (double)n;
	}
	CHECK(c.product == product);

	size_t values[16], at;
	for (size_t k = 0; k < (size_t)want; k++) {
		CHECK_OK(kjit_space_config(space, k, values));
		CHECK_OK(kjit_space_find(space, values, &at));
		CHECK(at == k);
	}
	/* a in {1, 2, ...} with b = 32 breaks a * b <= 64 only from a = 4 on */
	values[0] = 10, values[1] = 5;
	CHECK(kjit_space_find(space, values, &at) == KJIT_ERR_NOT_FOUND);
	values[0] = 11;
	CHECK(kjit_space_find(space, values, &at) == KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "value 11 of a's 11");

	char *json = NULL;
	CHECK_OK(kjit_space_config_json(space, 0, &json));
	for (size_t p = 0; p < i; p++) {
		const char *name;
		char quoted[64];
		CHECK_OK(kjit_spec_param(spec, p, &name, NULL, NULL));
		snprintf(quoted, sizeof quoted, "\"%s\":", name);
		CHECK_CONTAINS(json, quoted);
	}
	free(json);
	CHECK(kjit_space_config_json(space, (size_t)want, &json) == KJIT_ERR_INVALID_ARG &&
	      !json);
	CHECK(kjit_space_config(space, (size_t)want, values) == KJIT_ERR_INVALID_ARG);
	kjit_space_free(space);
	return want;
}

typedef struct shared_build {
	const kjit_spec *spec;
	size_t size;
	double valid;
} shared_build;

static void *build_one(void *arg)
{
	shared_build *b = arg;
	kjit_space *space = NULL;
	kjit_space_count c;
	CHECK_OK(kjit_space_build(b->spec, 0, NULL, &space));
	CHECK_OK(kjit_spec_count(b->spec, 0, NULL, &c));
	b->size = kjit_space_size(space, NULL);
	b->valid = c.valid;
	kjit_space_free(space);
	return NULL;
}

/* each thread finds Python's count, want */
static void threads(const kjit_spec *spec, long long want)
{
	enum { N = 4 };
	pthread_t t[N];
	shared_build b[N];
	for (int i = 0; i < N; i++) {
		b[i] = (shared_build){ .spec = spec };
		CHECK(pthread_create(&t[i], NULL, build_one, &b[i]) == 0);
	}
	for (int i = 0; i < N; i++) {
		CHECK(pthread_join(t[i], NULL) == 0);
		CHECK(b[i].size == (size_t)want && b[i].valid == (double)want);
	}
}

/* The plain kernels of a spec: saxpy's, of the signature its results are
 * stored under, compiles its default variant and has no reference
 * kernel; sgemm's reference kernel is its own. */
static void spec_kernels(kjit_engine *e, const kjit_spec *saxpy, const char *sig)
{
	kjit_kernel *k = NULL;
	CHECK_OK(kjit_spec_kernel(e, saxpy, 0, &k));
	CHECK_STREQ(kjit_kernel_signature(k), sig);
	kjit_define defs[] = { { "BLOCK_SIZE", "256" }, { "ITEMS_PER_THREAD", "2" } };
	kjit_variant_desc d = { defs, 2, NULL, 0 };
	kjit_variant *v = NULL;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &d, &v, &tier));
	CHECK(v != NULL && tier == KJIT_TIER_COMPILED);
	CHECK(kjit_engine_binary_kind(e) == KJIT_BINARY_CUBIN && !kjit_kernel_args_refused(k));
	CHECK(kjit_engine_store_broken(e, KJIT_ERR_DB) == 0 && kjit_engine_store_broken(NULL, 0) == 0);
	CHECK(kjit_spec_kernel(e, saxpy, 1, &k) == KJIT_ERR_INVALID_ARG && !k);
	CHECK_CONTAINS(kjit_last_error(), "no reference kernel");
	CHECK(kjit_spec_kernel(NULL, saxpy, 0, &k) == KJIT_ERR_INVALID_ARG);
	CHECK(kjit_spec_kernel(e, NULL, 0, &k) == KJIT_ERR_INVALID_ARG);

	char path[TU_PATH];
	snprintf(path, sizeof path, "%s/examples/sgemm/sgemm.json", tu_srcdir());
	kjit_spec *sgemm = load(path);
	kjit_kernel *kernel = NULL, *reference = NULL;
	CHECK_OK(kjit_spec_kernel(e, sgemm, 0, &kernel));
	CHECK_OK(kjit_spec_kernel(e, sgemm, 1, &reference));
	CHECK(strcmp(kjit_kernel_signature(kernel), kjit_kernel_signature(reference)) != 0);
	kjit_spec_free(sgemm);
	OK("a spec's kernel and reference kernel: the stored signature, a variant compiled; "
	   "no reference kernel and NULL arguments refused");
}

static void kjit_spec_problem_and_types(void)
{
	char path[TU_PATH];
	snprintf(path, sizeof path, "%s/examples/saxpy/saxpy.json", tu_srcdir());
	kjit_spec *spec = load(path);
	CHECK(kjit_spec_problem_count(spec) == 1);
	const char *const *names;
	const int64_t *values;
	size_t n;
	CHECK_OK(kjit_spec_problem(spec, 0, &names, &values, &n));
	CHECK(n == 1 && strcmp(names[0], "n") == 0 && values[0] == 67108864);
	CHECK(kjit_spec_problem(spec, 1, &names, &values, &n) == KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "problem 1 of 1");

	/* the signature the store keys saxpy's results by, without an engine:
	 * the kernel's that kjit_kernel_create_from_spec() makes */
	char *sig = NULL, db[TU_PATH];
	CHECK_OK(kjit_spec_signature(spec, &sig));
	CHECK(strlen(sig) == 32 && strspn(sig, "0123456789abcdef") == 32);
	kjit_engine *e = tu_engine_cpu(tu_path(db, tu_tmpdir(), "sig.db"), "sm_90", 1);
	kjit_kernel *k;
	CHECK_OK(kjit_kernel_create_from_spec(e, path, &k));
	CHECK_STREQ(kjit_kernel_signature(k), sig);
	spec_kernels(e, spec, sig);
	kjit_engine_close(e);
	free(sig);
	CHECK(kjit_spec_signature(NULL, &sig) == KJIT_ERR_INVALID_ARG);

	const char *name;
	size_t nv, def;
	CHECK_OK(kjit_spec_param(spec, 0, &name, &nv, &def));
	kjit_value v;
	CHECK_OK(kjit_spec_value(spec, 0, def, &v));
	CHECK(strcmp(name, "BLOCK_SIZE") == 0 && nv == 5 && v.type == KJIT_VALUE_INT &&
	      v.i == 256 && strcmp(v.text, "256") == 0);
	CHECK(kjit_spec_value(spec, 0, 5, &v) == KJIT_ERR_INVALID_ARG);
	CHECK(kjit_spec_param(spec, 2, &name, NULL, NULL) == KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "parameter 2 of 2");

	kjit_space_count c;
	kjit_space *space = NULL;
	CHECK_OK(kjit_spec_count(spec, 0, NULL, &c));
	CHECK(c.valid == 40 && c.product == 40 && c.rel_error == 0);
	/* a device of 256 threads a block keeps three block sizes of five */
	kjit_space_options o;
	kjit_space_options_init(&o);
	o.max_threads = 256;
	CHECK_OK(kjit_space_build(spec, 0, &o, &space));
	CHECK(kjit_space_size(space, NULL) == 24);
	kjit_space_free(space);
	o.max_threads = -1;
	CHECK(kjit_space_build(spec, 0, &o, &space) == KJIT_ERR_INVALID_ARG && !space);
	CHECK(kjit_space_build(spec, 1, NULL, &space) == KJIT_ERR_INVALID_ARG && !space);
	kjit_spec_free(spec);
}

/* A define's value in a variant description, NULL when it has none. */
static const char *define_of(const kjit_variant_desc *d, const char *name)
{
	for (size_t i = 0; i < d->n_defines; i++)
		if (strcmp(d->defines[i].name, name) == 0)
			return d->defines[i].value;
	return NULL;
}

static kjit_status sum_each(void *ctx, size_t i, double v)
{
	double *sum = ctx;
	*sum += v;
	return i == 3 && v < 0 ? KJIT_ERR_INVALID_ARG : KJIT_OK;
}

/* saxpy's configurations as something to compile and launch: the
 * defaults, every configuration of its space, its expressions. */
static void configurations(void)
{
	char path[TU_PATH];
	snprintf(path, sizeof path, "%s/examples/saxpy/saxpy.json", tu_srcdir());
	kjit_spec *spec = load(path);
	kjit_config *c = NULL;
	unsigned grid[3], block[3], shared;
	CHECK_OK(kjit_config_new(spec, NULL, &c));
	const kjit_variant_desc *d = kjit_config_variant(c);
	CHECK(d->n_defines == 2 && d->n_flags == 0);
	CHECK_STREQ(define_of(d, "BLOCK_SIZE"), "256");
	CHECK_STREQ(define_of(d, "ITEMS_PER_THREAD"), "1");
	CHECK_OK(kjit_config_dims(c, 0, grid, block, &shared));
	CHECK(grid[0] == 67108864 / 256 && grid[1] == 1 && block[0] == 256 && block[1] == 1 &&
	      shared == 0);
	kjit_config_free(c);

	/* every configuration of the space: its defines are its values, its
	 * grid covers n, its rate formula reads the problem */
	kjit_space *space = NULL;
	CHECK_OK(kjit_space_build(spec, 0, NULL, &space));
	size_t values[2], n = kjit_space_size(space, NULL);
	for (size_t j = 0; j < n; j++) {
		CHECK_OK(kjit_space_config(space, j, values));
		CHECK_OK(kjit_config_new(spec, values, &c));
		d = kjit_config_variant(c);
		kjit_value bs, ipt;
		CHECK_OK(kjit_spec_value(spec, 0, values[0], &bs));
		CHECK_OK(kjit_spec_value(spec, 1, values[1], &ipt));
		CHECK_STREQ(define_of(d, "BLOCK_SIZE"), bs.text);
		CHECK_STREQ(define_of(d, "ITEMS_PER_THREAD"), ipt.text);
		CHECK_OK(kjit_config_dims(c, 0, grid, block, &shared));
		int64_t per = bs.i * ipt.i;
		CHECK(block[0] == (unsigned)bs.i && grid[0] == (unsigned)((67108864 + per - 1) / per));
		double v;
		CHECK_OK(kjit_spec_eval(spec, 0, c, "BLOCK_SIZE * ITEMS_PER_THREAD + n", "test", &v));
		CHECK(v == (double)(per + 67108864));
		kjit_config_free(c);
	}
	kjit_space_free(space);

	/* a configuration written as text, as a CSV row writes it: every
	 * parameter is asked for, also after one that does not match */
	CHECK_OK(kjit_space_build(spec, 0, NULL, &space));
	tu_texts t = { { "512.0", "3" }, 0 };
	size_t j = 99, want;
	CHECK_OK(kjit_space_find_text(space, tu_text_of, &t, &j));
	values[0] = 3;
	values[1] = 2;
	CHECK_OK(kjit_space_find(space, values, &want));
	CHECK(j == want && t.asked == 2);
	static const tu_texts misses[] = { { { "500", "3" }, 0 }, { { NULL, "3" }, 0 },
		                        { { "512", "9" }, 0 }, { { "'512", "3" }, 0 } };
	for (size_t k = 0; k < sizeof misses / sizeof *misses; k++) {
		t = misses[k];
		CHECK_MSG(kjit_space_find_text(space, tu_text_of, &t, &j) == KJIT_ERR_NOT_FOUND &&
		          t.asked == 2, "miss %zu: found, or asked %zu of 2", k, t.asked);
	}
	CHECK(kjit_space_find_text(space, NULL, &t, &j) == KJIT_ERR_INVALID_ARG);
	CHECK(kjit_space_find_text(NULL, tu_text_of, &t, &j) == KJIT_ERR_INVALID_ARG);
	kjit_space_free(space);

	/* expressions without a configuration, and a generator */
	double v = 0;
	CHECK_OK(kjit_spec_eval(spec, 0, NULL, "n / 4", NULL, &v));
	CHECK(v == 67108864 / 4);
	CHECK(kjit_spec_eval(spec, 0, NULL, "BLOCK_SIZE +", "arguments x: length", &v) ==
	      KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "arguments x: length");
	CHECK(kjit_spec_eval(spec, 1, NULL, "n", NULL, &v) == KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "problem 1 of 1");
	double sum = 0;
	size_t at = 0;
	CHECK_OK(kjit_spec_generate(spec, 0, "i * 2 + n - n", "fill", 5, sum_each, &sum, &at));
	CHECK(sum == 20 && at == SIZE_MAX);
	/* each()'s refusal ends the walk; an evaluation's names its i */
	sum = 0;
	CHECK(kjit_spec_generate(spec, 0, "1 - i", "fill", 10, sum_each, &sum, &at) ==
	      KJIT_ERR_INVALID_ARG);
	CHECK(sum == 1 + 0 - 1 - 2 && at == SIZE_MAX);
	sum = 0;
	CHECK(kjit_spec_generate(spec, 0, "1 << (2 - i)", "fill", 10, sum_each, &sum, &at) ==
	      KJIT_ERR_INVALID_ARG);
	CHECK(sum == 4 + 2 + 1 && at == 3);
	CHECK_CONTAINS(kjit_last_error(), "negative shift");
	CHECK(kjit_spec_generate(spec, 0, "1 << (2 - i)", "fill", 10, sum_each, &sum, NULL) ==
	      KJIT_ERR_INVALID_ARG);
	CHECK(kjit_spec_generate(spec, 0, "nosuch + i", "fill", 3, sum_each, &sum, &at) ==
	      KJIT_ERR_INVALID_ARG);
	CHECK(at == SIZE_MAX);
	CHECK_CONTAINS(kjit_last_error(), "nosuch");

	/* misuse: a value out of range names its parameter; another spec's
	 * configuration is refused; nothing half-made */
	size_t bad[2] = { 0, 8 };
	c = (kjit_config *)1;
	CHECK(kjit_config_new(spec, bad, &c) == KJIT_ERR_INVALID_ARG && !c);
	CHECK_CONTAINS(kjit_last_error(), "ITEMS_PER_THREAD");
	CHECK(kjit_config_new(NULL, NULL, &c) == KJIT_ERR_INVALID_ARG && !c);
	CHECK(kjit_config_new(spec, NULL, NULL) == KJIT_ERR_INVALID_ARG);
	kjit_spec *other = load(path);
	CHECK_OK(kjit_config_new(other, NULL, &c));
	CHECK(kjit_spec_eval(spec, 0, c, "n", NULL, &v) == KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "another spec");
	CHECK(kjit_config_dims(c, 1, grid, block, &shared) == KJIT_ERR_INVALID_ARG);
	CHECK(kjit_config_dims(NULL, 0, grid, block, &shared) == KJIT_ERR_INVALID_ARG);
	CHECK(kjit_config_variant(NULL) == NULL);
	kjit_config_free(c);
	kjit_config_free(NULL);
	kjit_spec_free(other);
	kjit_spec_free(spec);
	OK("configurations: saxpy's defaults and each of its %zu as defines and a geometry, "
	   "expressions with and without one, a generator, one found by its text, misuse refused",
	   n);
}

static void too_large(void)
{
	char path[TU_PATH];
	tu_path(path, t1dir, "huge_space.json");
	kjit_spec *spec = load(path);
	kjit_space_count c;
	CHECK_OK(kjit_spec_count(spec, 0, NULL, &c));
	CHECK(c.product > 1e10);
	kjit_space *space = NULL;
	CHECK(kjit_space_build(spec, 0, NULL, &space) == KJIT_ERR_INVALID_ARG && !space);
	CHECK_CONTAINS(kjit_last_error(), "too large to hold");
	kjit_space_options o;
	kjit_space_options_init(&o);
	o.sample = 500;
	o.seed = 7;
	CHECK_OK(kjit_space_build(spec, 0, &o, &space));
	int sampled = 0;
	size_t n = kjit_space_size(space, &sampled);
	CHECK(sampled == 1 && n > 0 && n <= 500);
	size_t values[64], at;
	CHECK(kjit_spec_param_count(spec) <= 64);
	CHECK_OK(kjit_space_config(space, n - 1, values));
	CHECK_OK(kjit_space_find(space, values, &at));
	CHECK(at == n - 1);
	kjit_space_free(space);
	kjit_spec_free(spec);
}

static void warnings_and_errors(const char *dir)
{
	char path[TU_PATH], kernel[TU_PATH];
	tu_path(kernel, dir, "k.cu");
	tu_write_file(kernel, "__global__ void k(float *x) {}\n", 31);
	static const char t1[] =
		"{\"General\": {\"BenchmarkName\": \"k\", \"FormatVersion\": 1},"
		" \"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"block_size_x\","
		" \"Type\": \"int\", \"Values\": [32, 64]}], \"Conditions\": [], \"Colour\": 1},"
		" \"KernelSpecification\": {\"Language\": \"CUDA\", \"KernelName\": \"k\","
		" \"KernelFile\": \"k.cu\", \"GlobalSize\": {\"X\": \"1\"}}}";
	tu_path(path, dir, "warn.json");
	tu_write_file(path, t1, strlen(t1));
	kjit_spec *spec = load(path);
	size_t n = 0;
	const char *const *lines = kjit_spec_warnings(spec, &n);
	int named = 0;
	for (size_t i = 0; i < n; i++)
		named |= strstr(lines[i], "Colour") != NULL;
	CHECK(named);
	kjit_spec_free(spec);

	spec = (kjit_spec *)1;
	tu_path(path, dir, "missing.json");
	CHECK(kjit_spec_load(path, &spec) == KJIT_ERR_IO && !spec);
	CHECK_CONTAINS(kjit_last_error(), "missing.json");
	tu_path(path, dir, "broken.json");
	tu_write_file(path, "{\"parameters\": [", 16);
	CHECK(kjit_spec_load(path, &spec) == KJIT_ERR_INVALID_ARG && !spec);
	CHECK_CONTAINS(kjit_last_error(), "broken.json");
	CHECK(kjit_spec_load(NULL, &spec) == KJIT_ERR_INVALID_ARG);
	CHECK(kjit_spec_load(path, NULL) == KJIT_ERR_INVALID_ARG);

	kjit_space_count c;
	CHECK(kjit_spec_count(NULL, 0, NULL, &c) == KJIT_ERR_INVALID_ARG);
	CHECK(kjit_spec_param_count(NULL) == 0 && kjit_spec_problem_count(NULL) == 0);
	CHECK(kjit_space_size(NULL, NULL) == 0);
	kjit_spec_free(NULL);
	kjit_space_free(NULL);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	snprintf(t1dir, sizeof t1dir, "%s/tests/t1", tu_srcdir());
	char path[TU_PATH];
	tu_path(path, t1dir, "values.json");
	kjit_spec *spec = load(path);
	threads(spec, against_python(spec, path));
	kjit_spec_free(spec);
	kjit_spec_problem_and_types();
	configurations();
	too_large();
	warnings_and_errors(dir);
	OK("specs and spaces through kjit.h: T1 values and counts as Python's, saxpy's "
	   "problem and limits, a space sampled, warnings, errors, four threads at once");
	return 0;
}
