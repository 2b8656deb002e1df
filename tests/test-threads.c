/*
 * test-threads: one engine, 8 threads.
 *
 *  1. racing on first compile: 8 threads start together and each gets the
 *     same 8 new variants in its own order; every thread sees the same
 *     variant pointer for a key, every get succeeds, the counters add up;
 *  2. hammering compiled variants: 8 threads x 4000 gets, some all on one
 *     key, some spread: every get is a MEMORY hit with the right pointer;
 *  3. the batch and the single path racing: 4 threads call
 *     kjit_variants_get and 4 call kjit_variant_get on 8 new keys;
 *  4. per-thread errors: each thread makes its own invalid-argument error
 *     and reads back its own message while the others do the same, with
 *     successful gets and kjit_engine_last_error() calls in between.
 * Run under ASan/UBSan (and TSan) as part of the sanitizer builds.
 */
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>

#define THREADS 8
#define KEYS 8

static kjit_engine *engine;
static kjit_kernel *kernel;
static pthread_barrier_t barrier;
static tu_saxpy_variant first_set[KEYS], batch_set[KEYS];
static kjit_variant *seen_first[THREADS][KEYS], *seen_batch[THREADS][KEYS];
static atomic_int failures;

#define T_CHECK(cond)                                                               \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "%s:%d: thread check failed: %s (%s)\n", __FILE__, \
			        __LINE__, #cond, kjit_last_error());                \
			atomic_fetch_add(&failures, 1);                             \
			return NULL;                                                \
		}                                                                   \
	} while (0)

static void *race_first(void *arg)
{
	int id = (int)(intptr_t)arg;
	pthread_barrier_wait(&barrier);
	for (int t = 0; t < KEYS; t++) {
		int i = (t + id * 3) % KEYS;
		kjit_variant *v = NULL;
		kjit_cache_tier tier;
		T_CHECK(kjit_variant_get(kernel, &first_set[i].desc, &v, &tier) == KJIT_OK);
		T_CHECK(v != NULL);
		seen_first[id][i] = v;
	}
	return NULL;
}

static void *hammer(void *arg)
{
	int id = (int)(intptr_t)arg;
	unsigned r = 12345u + (unsigned)id * 7919u;
	pthread_barrier_wait(&barrier);
	for (int n = 0; n < 4000; n++) {
		int i;
		if (id < 3) {
			i = 0; /* all on one key */
		} else {
			r = r * 1103515245u + 12345u;
			i = (int)((r >> 16) % KEYS);
		}
		kjit_variant *v = NULL;
		kjit_cache_tier tier;
		T_CHECK(kjit_variant_get(kernel, &first_set[i].desc, &v, &tier) == KJIT_OK);
		T_CHECK(v == seen_first[0][i]);
		T_CHECK(tier == KJIT_TIER_MEMORY);
	}
	return NULL;
}

static void *race_batch(void *arg)
{
	int id = (int)(intptr_t)arg;
	pthread_barrier_wait(&barrier);
	if (id % 2 == 0) {
		kjit_variant_desc descs[KEYS];
		for (int i = 0; i < KEYS; i++)
			descs[i] = batch_set[(i + id) % KEYS].desc;
		kjit_variant *out[KEYS];
		kjit_status status[KEYS];
		T_CHECK(kjit_variants_get(kernel, descs, KEYS, 2, out, status, NULL) == KJIT_OK);
		for (int i = 0; i < KEYS; i++) {
			T_CHECK(status[i] == KJIT_OK && out[i] != NULL);
			seen_batch[id][(i + id) % KEYS] = out[i];
		}
	} else {
		for (int t = KEYS - 1; t >= 0; t--) {
			int i = (t + id) % KEYS;
			kjit_variant *v = NULL;
			T_CHECK(kjit_variant_get(kernel, &batch_set[i].desc, &v, NULL) == KJIT_OK);
			seen_batch[id][i] = v;
		}
	}
	return NULL;
}

static void *own_errors(void *arg)
{
	int id = (int)(intptr_t)arg;
	char name[32];
	snprintf(name, sizeof name, "%dBAD_THREAD_%d", id, id);
	kjit_define d[1] = { { name, "1" } };
	kjit_variant_desc desc = { d, 1, NULL, 0 };
	pthread_barrier_wait(&barrier);
	for (int n = 0; n < 200; n++) {
		kjit_variant *v = NULL;
		T_CHECK(kjit_variant_get(kernel, &desc, &v, NULL) == KJIT_ERR_INVALID_ARG);
		T_CHECK(strstr(kjit_last_error(), name) != NULL);
		/* Successes in between, while other threads fail. */
		T_CHECK(kjit_variant_get(kernel, &first_set[n % KEYS].desc, &v, NULL) == KJIT_OK);
		/* The engine's message is some thread's: only its form is known. */
		T_CHECK(strstr(kjit_engine_last_error(engine), "BAD_THREAD_") != NULL);
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *))
{
	pthread_t tids[THREADS];
	CHECK(pthread_barrier_init(&barrier, NULL, THREADS) == 0);
	for (int t = 0; t < THREADS; t++)
		CHECK(pthread_create(&tids[t], NULL, fn, (void *)(intptr_t)t) == 0);
	for (int t = 0; t < THREADS; t++)
		CHECK(pthread_join(tids[t], NULL) == 0);
	CHECK(pthread_barrier_destroy(&barrier) == 0);
	CHECK(atomic_load(&failures) == 0);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	const char *dir = tu_tmpdir();
	char db[TU_PATH];
	kjit_engine *e = tu_engine_cpu(tu_path(db, dir, "threads.db"), "sm_90", 2);
	engine = e;
	kernel = tu_saxpy_kernel(e);
	for (int i = 0; i < KEYS; i++) {
		tu_saxpy_variant_init(&first_set[i], 64 << (i % 4), i / 4 + 1);
		tu_saxpy_variant_init(&batch_set[i], 64 << (i % 4), i / 4 + 3);
	}

	/* 1. */
	double t0 = tu_now();
	run_threads(race_first);
	for (int i = 0; i < KEYS; i++) {
		CHECK(seen_first[0][i] != NULL);
		for (int t = 1; t < THREADS; t++)
			CHECK_MSG(seen_first[t][i] == seen_first[0][i], "key %d: thread %d got %p, "
			          "thread 0 %p", i, t, (void *)seen_first[t][i], (void *)seen_first[0][i]);
		for (int j = 0; j < i; j++)
			CHECK(seen_first[0][j] != seen_first[0][i]);
	}
	kjit_engine_stats s = tu_stats(e);
	CHECK_EQ_U64(s.memory_hits + s.disk_hits + s.misses, THREADS * KEYS);
	CHECK(s.misses >= KEYS);
	CHECK(s.compiles == s.misses);
	CHECK_EQ_U64(s.corrupt, 0);
	OK("race on first compile: 8 threads x 8 keys in %.2f s, one variant per key "
	   "(%llu compiles, %llu disk, %llu memory)", tu_now() - t0,
	   (unsigned long long)s.compiles, (unsigned long long)s.disk_hits,
	   (unsigned long long)s.memory_hits);

	/* 2. */
	kjit_engine_stats before = s;
	t0 = tu_now();
	run_threads(hammer);
	s = tu_stats(e);
	CHECK_EQ_U64(s.memory_hits - before.memory_hits, THREADS * 4000);
	CHECK_EQ_U64(s.compiles, before.compiles);
	CHECK_EQ_U64(s.disk_hits, before.disk_hits);
	OK("hammer: 8 threads x 4000 gets in %.3f s, all MEMORY hits on the right variant",
	   tu_now() - t0);

	/* 3. */
	run_threads(race_batch);
	for (int i = 0; i < KEYS; i++) {
		CHECK(seen_batch[0][i] != NULL);
		for (int t = 1; t < THREADS; t++)
			CHECK(seen_batch[t][i] == seen_batch[0][i]);
		for (int j = 0; j < KEYS; j++)
			CHECK(seen_batch[0][i] != seen_first[0][j]);
	}
	OK("batch and single gets racing on 8 new keys: one variant per key");

	/* 4. */
	run_threads(own_errors);
	OK("per-thread last errors: each of 8 threads read back its own message 200 times");

	kjit_engine_close(e);
	sqlite3 *sq = tu_db_open(db);
	CHECK(tu_db_int(sq, "SELECT count(*) FROM binaries", NULL) == 2 * KEYS);
	tu_db_close(sq);
	OK("%d rows in the database", 2 * KEYS);
	printf("%s: PASS\n", tu_prog);
	return 0;
}
