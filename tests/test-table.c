/*
 * test-table: the hash table of items kept elsewhere (base.h).
 *
 *  - an empty table finds nothing, and frees;
 *  - 100000 items (indices + 1 into an array of keys), with a good hash
 *    and with one that puts them in 7 runs: each is found, no absent key
 *    is, and the table is a power of two at most half full as it grows;
 *  - reserving room for n items makes n inserts move nothing;
 *  - items as pointers (strings, found by their text);
 *  - a reservation beyond memory fails and leaves the table as it was.
 */
#include "testutil.h"

#include "base.h"

#define N 100000

static uint64_t keys[N];

typedef struct hashing {
	uint64_t (*of)(uint64_t key);
} hashing;

static uint64_t good(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	return key ^ key >> 33;
}

static uint64_t runs(uint64_t key)
{
	return key % 7;
}

static uint64_t hash_item(const void *ctx, uintptr_t item)
{
	return ((const hashing *)ctx)->of(keys[item - 1]);
}

static int is_key(const void *ctx, uintptr_t item)
{
	return keys[item - 1] == *(const uint64_t *)ctx;
}

static void fill(const hashing *hs, size_t n, const char *label)
{
	kjit__table t = { 0 };
	for (size_t i = 0; i < n; i++) {
		CHECK_OK(kjit__table_insert(&t, hs->of(keys[i]), i + 1, hash_item, hs));
		CHECK((t.cap & (t.cap - 1)) == 0 && 2 * t.count <= t.cap && t.count == i + 1);
	}
	for (size_t i = 0; i < n; i++)
		CHECK_MSG(kjit__table_find(&t, hs->of(keys[i]), is_key, &keys[i]) == i + 1,
		          "%s: item %zu not found", label, i + 1);
	for (uint64_t k = 1; k < 2000; k += 2) /* keys are even */
		CHECK(kjit__table_find(&t, hs->of(k), is_key, &k) == 0);
	kjit__table_free(&t);
	CHECK(!t.slots && !t.cap && !t.count);
	OK("%zu items, %s: each found, 1000 absent keys not, half full at most", n, label);
}

static int is_text(const void *ctx, uintptr_t item)
{
	return strcmp((const char *)item, ctx) == 0;
}

static uint64_t text_hash(const char *s)
{
	kjit__hash128 h = kjit__hash(s, strlen(s), 0);
	return h.lo;
}

static uint64_t hash_text(const void *ctx, uintptr_t item)
{
	(void)ctx;
	return text_hash((const char *)item);
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	kjit__table t = { 0 };
	uint64_t k = 42;
	CHECK(kjit__table_find(&t, 42, is_key, &k) == 0);
	kjit__table_free(&t);
	OK("an empty table finds nothing");

	for (size_t i = 0; i < N; i++)
		keys[i] = 2 * (i * 2654435761u % 1000003) + 1000000;
	hashing g = { good }, r = { runs };
	fill(&g, N, "a good hash");
	fill(&r, 3000, "7 runs of collisions");

	CHECK_OK(kjit__table_reserve(&t, 5000, hash_item, &g));
	uintptr_t *slots = t.slots;
	size_t cap = t.cap;
	for (size_t i = 0; i < 5000; i++)
		CHECK_OK(kjit__table_insert(&t, good(keys[i]), i + 1, hash_item, &g));
	CHECK(t.slots == slots && t.cap == cap && t.count == 5000);
	CHECK_ST(kjit__table_reserve(&t, SIZE_MAX - 3, hash_item, &g), KJIT_ERR_NOMEM);
	CHECK(t.slots == slots && t.cap == cap && t.count == 5000);
	CHECK(kjit__table_find(&t, good(keys[4999]), is_key, &keys[4999]) == 5000);
	kjit__table_free(&t);
	OK("reserve: 5000 inserts move nothing; one beyond memory fails, the table kept");

	static const char *const words[] = { "ok", "compile_error", "launch_error", "crashed",
		                             "timeout", "wrong_result", "stopped_early" };
	for (size_t i = 0; i < 7; i++)
		CHECK_OK(kjit__table_insert(&t, text_hash(words[i]), (uintptr_t)words[i], hash_text,
		                            NULL));
	char copy[32];
	for (size_t i = 0; i < 7; i++) {
		snprintf(copy, sizeof copy, "%s", words[i]);
		CHECK(kjit__table_find(&t, text_hash(copy), is_text, copy) == (uintptr_t)words[i]);
	}
	CHECK(kjit__table_find(&t, text_hash("okay"), is_text, "okay") == 0);
	kjit__table_free(&t);
	OK("pointers as items: 7 strings found by a copy of their text");
	return 0;
}
