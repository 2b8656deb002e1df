/*
 * test-engine-telemetry - what an engine writes to the events table, on
 * the CPU (compile-only engine, real NVRTC, a real database file):
 *  - a miss records a compile event (NVRTC ms) and a cache miss; a disk
 *    hit in a second engine records a cache event with tier disk; memory
 *    hits are aggregated into cache events whose counts add up to the
 *    number of hits; every row carries the kernel, its signature and pid;
 *  - a tuning note is one tune event with its run, status and count;
 *  - KJIT_TELEMETRY=0 records nothing; bad KJIT_TELEMETRY and KJIT_PROFILE
 *    values are refused with a message naming the variable;
 *  - an engine on :memory: records nothing and needs no file.
 */
#include "testutil.h"

static kjit_engine *open_env(const char *db, kjit_status want)
{
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = db;
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	kjit_engine *e = NULL;
	CHECK_ST(kjit_engine_open(&o, &e), want);
	return e;
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH];
	tu_path(db, dir, "tel.db");

	/* 1. a miss, then memory hits, in one engine */
	kjit_engine *e = open_env(db, KJIT_OK);
	kjit_kernel *k = tu_saxpy_kernel(e);
	tu_saxpy_variant sv;
	tu_saxpy_variant_init(&sv, 256, 2);
	kjit_variant *v;
	kjit_cache_tier tier;
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	const int hits = 1000;
	for (int i = 0; i < hits; i++)
		CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	kjit_variant_info info;
	CHECK_OK(kjit_variant_get_info(v, &info));
	char key[33], sig[33];
	snprintf(key, sizeof key, "%s", info.key);
	snprintf(sig, sizeof sig, "%s", kjit_kernel_signature(k));
	kjit_engine_note_tuning(e, k, 7, KJIT_RESULT_WRONG_RESULT, 3);
	kjit_engine_note_tuning(NULL, k, 8, KJIT_RESULT_OK, 1);
	kjit_engine_note_tuning(e, NULL, 9, KJIT_RESULT_OK, 1);
	kjit_engine_close(e); /* the writer's last tick writes what is left */

	sqlite3 *s = tu_db_open(db);
	CHECK(tu_db_int(s, "SELECT count(*) FROM events WHERE kind = 'compile' AND tier = 'miss'"
	                   " AND value > 0 AND kernel = 'saxpy' AND variant = ?1", key) == 1);
	CHECK(tu_db_int(s, "SELECT count(*) FROM events WHERE kind = 'cache' AND tier = 'miss'"
	                   " AND variant = ?1", key) == 1);
	CHECK(tu_db_int(s, "SELECT sum(count) FROM events WHERE kind = 'cache' AND tier = 'memory'"
	                   " AND kernel = 'saxpy'", NULL) == hits);
	char pid[32];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	CHECK(tu_db_int(s, "SELECT count(*) FROM events WHERE CAST(pid AS TEXT) <> ?1", pid) == 0);
	CHECK(tu_db_int(s, "SELECT count(*) FROM events WHERE signature IS NULL OR kernel IS NULL",
	                NULL) == 0);
	CHECK(tu_db_int(s, "SELECT count(*) FROM events WHERE kind = 'tune'", NULL) == 1);
	CHECK(tu_db_int(s, "SELECT count(*) FROM events WHERE kind = 'tune' AND value = 3 AND "
	                   "kernel = 'saxpy' AND detail = 'run 7 wrong_result' AND signature = ?1",
	                sig) == 1);
	OK("a tuning note: one tune event with the run, the status's word and the count; "
	   "none without an engine or a kernel");
	OK("a miss: one compile event with its NVRTC time and one cache miss; %d memory hits "
	   "aggregated into cache events that add up; every row names the kernel, signature, pid",
	   hits);

	/* 2. a second engine: a disk hit */
	long long before = tu_db_int(s, "SELECT count(*) FROM events", NULL);
	e = open_env(db, KJIT_OK);
	k = tu_saxpy_kernel(e);
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	CHECK(tier == KJIT_TIER_DISK);
	kjit_engine_close(e);
	CHECK(tu_db_int(s, "SELECT count(*) FROM events WHERE kind = 'cache' AND tier = 'disk'"
	                   " AND variant = ?1", key) == 1);
	CHECK(tu_db_int(s, "SELECT count(*) FROM events WHERE kind = 'compile'", NULL) == 1);
	OK("a disk hit in a new engine: one cache event with tier disk, no compile event "
	   "(%lld rows before)", before);

	/* 3. KJIT_TELEMETRY=0: nothing */
	long long rows = tu_db_int(s, "SELECT count(*) FROM events", NULL);
	setenv("KJIT_TELEMETRY", "0", 1);
	e = open_env(db, KJIT_OK);
	k = tu_saxpy_kernel(e);
	tu_saxpy_variant_init(&sv, 128, 1);
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	CHECK(tier == KJIT_TIER_COMPILED);
	kjit_engine_close(e);
	CHECK(tu_db_int(s, "SELECT count(*) FROM events", NULL) == rows);
	OK("KJIT_TELEMETRY=0: a compile records no event");

	/* 4. bad switches are refused, naming the variable */
	setenv("KJIT_TELEMETRY", "yes", 1);
	CHECK(open_env(db, KJIT_ERR_INVALID_ARG) == NULL);
	CHECK_CONTAINS(kjit_last_error(), "KJIT_TELEMETRY");
	unsetenv("KJIT_TELEMETRY");
	const char *bad_rates[] = { "2", "-0.5", "often", "0.1x" };
	for (size_t i = 0; i < sizeof bad_rates / sizeof bad_rates[0]; i++) {
		setenv("KJIT_PROFILE", bad_rates[i], 1);
		CHECK(open_env(db, KJIT_ERR_INVALID_ARG) == NULL);
		CHECK_CONTAINS(kjit_last_error(), "KJIT_PROFILE");
	}
	setenv("KJIT_PROFILE", "0.25", 1); /* valid; without a GPU, no profiling */
	e = open_env(db, KJIT_OK);
	kjit_engine_close(e);
	unsetenv("KJIT_PROFILE");
	OK("KJIT_TELEMETRY=yes and KJIT_PROFILE=2, -0.5, often, 0.1x refused by name; 0.25 taken");

	/* 5. :memory: engines record nothing anywhere */
	e = open_env(":memory:", KJIT_OK);
	k = tu_saxpy_kernel(e);
	CHECK_OK(kjit_variant_get(k, &sv.desc, &v, &tier));
	kjit_engine_close(e);
	CHECK(tu_db_int(s, "SELECT count(*) FROM events", NULL) == rows);
	OK(":memory: engine: no telemetry");
	tu_db_close(s);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
