/*
 * test-tune-rejected: what the summary says about configurations rejected
 * as wrong_result (autotune/results/rejected.c): the parameter values
 * all of them share and no accepted one has, a few values of one
 * parameter, nothing when the values overlap or are many, no accepted
 * configuration at all; the sentence for each verification mode and the
 * JSON object.
 */
#include "testutil.h"

#include <math.h>

#include "results.h"
#include "worker.h"

static kjit__space *space;
static sqlite3 *mem;

/* The indices of the configurations for which pick() says 1 (rejected)
 * or 2 (accepted); 0 leaves a configuration out. */
static void split(int (*pick)(const uint16_t *c), size_t *rej, size_t *n_rej, size_t *acc,
                  size_t *n_acc)
{
	*n_rej = *n_acc = 0;
	for (size_t i = 0; i < space->size; i++) {
		int k = pick(kjit__space_config(space, i));
		if (k == 1)
			rej[(*n_rej)++] = i;
		else if (k == 2)
			acc[(*n_acc)++] = i;
	}
}

/* parameters: USE_SOA [0, 1], BLOCK [32 .. 512], VEC [1, 2, 4], F ["", "-use_fast_math"] */
static int soa(const uint16_t *c) { return c[0] == 1 ? 1 : 2; }
static int soa_vec4(const uint16_t *c) { return c[0] == 1 && c[2] == 2 ? 1 : 2; }
static int both(const uint16_t *c) { return c[0] == 1 && c[2] == 2 ? 1 : c[0] == 0 && c[2] < 2 ? 2 : 0; }
static int vec(const uint16_t *c) { return c[2] >= 1 ? 1 : 2; }
static int blocks(const uint16_t *c) { return c[1] >= 1 ? 1 : 2; }
static int fast(const uint16_t *c) { return c[3] == 1 ? 1 : 2; }
static int all(const uint16_t *c) { (void)c; return 1; }

static char *summarise(const kjit__spec *spec, int (*pick)(const uint16_t *c), char **json)
{
	size_t *rej = malloc(space->size * sizeof *rej), *acc = malloc(space->size * sizeof *acc);
	size_t nr, na;
	CHECK(rej && acc);
	split(pick, rej, &nr, acc, &na);
	kt_rejected r;
	CHECK_OK(kt_rejected_find(space, rej, nr, acc, na, &r));
	CHECK(r.n_rejected == nr && r.n_accepted == na);
	char *text = kt_rejected_text(spec, &r);
	*json = kt_rejected_json(spec, &r);
	CHECK(text && *json);
	sqlite3_stmt *s;
	CHECK(sqlite3_prepare_v2(mem, "SELECT json_valid(?1), json_extract(?1, '$.message') = ?2",
	                         -1, &s, NULL) == SQLITE_OK);
	sqlite3_bind_text(s, 1, *json, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, text, -1, SQLITE_STATIC);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	CHECK_MSG(sqlite3_column_int(s, 0) == 1 && sqlite3_column_int(s, 1) == 1, "%s", *json);
	sqlite3_finalize(s);
	kt_rejected_free(&r);
	free(rej);
	free(acc);
	printf("  %s\n", text);
	return text;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	CHECK(sqlite3_open(":memory:", &mem) == SQLITE_OK);
	kjit__spec *spec = tu_spec_from(dir, "layout.json",
		"{\"kernel\": {\"source\": \"k.cu\", \"entry\": \"k\"},"
		" \"parameters\": [{\"name\": \"USE_SOA\", \"values\": [0, 1]},"
		"   {\"name\": \"BLOCK\", \"values\": [32, 64, 128, 256, 512]},"
		"   {\"name\": \"VEC\", \"values\": [1, 2, 4]},"
		"   {\"name\": \"F\", \"values\": [\"\", \"-use_fast_math\"], \"roles\": [\"flags\"]}],"
		" \"problems\": {\"n\": 1024}}");
	CHECK_OK(kjit__space_build(spec, 0, NULL, &space));
	CHECK(space->size == 60);
	char *json, *t;

	t = summarise(spec, soa, &json);
	CHECK_STREQ(t, "30 of 60 configurations gave other output than the default configuration; "
	               "all of them have USE_SOA=1 (no correct one does). If their output is "
	               "expected to differ (other inputs, another layout), run with --verify none "
	               "or give ReferenceArguments.");
	CHECK_CONTAINS(json, "\"count\": 30, \"checked\": 60, \"against\": \"default\", "
	                     "\"shared\": {\"USE_SOA\": [1]}");
	free(t);
	free(json);
	OK("one layout parameter separates: USE_SOA=1, and only it");

	t = summarise(spec, soa_vec4, &json);
	CHECK_STREQ(t, "10 of 60 configurations gave other output than the default configuration. "
	               "If their output is expected to differ (other inputs, another layout), run "
	               "with --verify none or give ReferenceArguments.");
	CHECK_CONTAINS(json, "\"shared\": {}");
	free(t);
	free(json);
	t = summarise(spec, both, &json);
	CHECK_CONTAINS(t, "10 of 30 configurations gave other output than the default "
	                  "configuration; all of them have USE_SOA=1 and VEC=4 (no correct one "
	                  "does)");
	CHECK_CONTAINS(json, "\"shared\": {\"USE_SOA\": [1], \"VEC\": [4]}");
	free(t);
	free(json);
	OK("values that correct configurations have too are not named; two that they lack are");

	t = summarise(spec, vec, &json);
	CHECK_CONTAINS(t, "all of them have VEC in {2, 4} (no correct one does)");
	CHECK_CONTAINS(json, "\"VEC\": [2, 4]");
	free(t);
	free(json);
	t = summarise(spec, blocks, &json); /* four values of five: says nothing */
	CHECK(!strstr(t, "all of them"));
	free(t);
	free(json);
	t = summarise(spec, fast, &json);
	CHECK_CONTAINS(t, "all of them have F=-use_fast_math (no correct one does)");
	CHECK_CONTAINS(json, "\"F\": [\"-use_fast_math\"]");
	free(t);
	free(json);
	t = summarise(spec, all, &json);
	CHECK_CONTAINS(t, "60 of 60 configurations gave other output than the default "
	                  "configuration: none gave the same.");
	free(t);
	free(json);
	OK("a few values of one parameter, a flags value as text; many values or no correct "
	   "configuration name nothing");

	spec->reference_entry = strdup("k_ref");
	CHECK_OK(kt_verify_override(spec, "reference", NAN, NAN));
	t = summarise(spec, soa, &json);
	CHECK_CONTAINS(t, "other output than the reference kernel k_ref; all of them have USE_SOA=1");
	CHECK_CONTAINS(json, "\"against\": \"reference\"");
	free(t);
	free(json);
	free(spec->verify);
	spec->verify = strdup("data");
	t = summarise(spec, soa, &json);
	CHECK_CONTAINS(t, "other output than the expected output (ReferenceArguments); all of "
	                  "them have USE_SOA=1 (no correct one does). If their output is expected "
	                  "to differ, check the ReferenceArguments data and ValidationMethod, or "
	                  "run with --verify none.");
	free(t);
	free(json);
	OK("the sentence names what was compared: the reference kernel, the expected data");

	kjit__space_free(space);
	kjit__spec_free(spec);
	sqlite3_close(mem);
	return 0;
}
