/* vtable.c - the in-process tier of the cache: variants in a kjit__table
 * by their 128-bit binary key, placed by its low half; and each kernel's
 * table of descriptors as given, by the hash of their bytes. */
#include "config.h"

#include <stdlib.h>

#include "engine.h"

static int has_key(const void *ctx, uintptr_t item)
{
	const kjit__hash128 *key = ctx;
	const kjit_variant *v = (const kjit_variant *)item;
	return v->hkey.lo == key->lo && v->hkey.hi == key->hi;
}

static uint64_t hash_of(const void *ctx, uintptr_t item)
{
	(void)ctx;
	return ((const kjit_variant *)item)->hkey.lo;
}

kjit_variant *kjit__vtable_find(const kjit__table *t, kjit__hash128 key)
{
	return (kjit_variant *)kjit__table_find(t, key.lo, has_key, &key);
}

kjit_variant *kjit__vtable_insert(kjit__table *t, kjit_variant *v)
{
	kjit_variant *have = kjit__vtable_find(t, v->hkey);
	if (have)
		return have;
	return kjit__table_insert(t, v->hkey.lo, (uintptr_t)v, hash_of, NULL) == KJIT_OK ? v : NULL;
}

/* ---- descriptors as given ------------------------------------------------ */

/* Entries per kernel: each is a descriptor a caller wrote in its own order
 * of defines, so a caller permuting them cannot grow the table past this. */
#define GIVEN_MAX 4096

typedef struct given {
	kjit__hash128 h;
	kjit_variant *v;
} given;

static int given_is(const void *ctx, uintptr_t item)
{
	const kjit__hash128 *h = ctx;
	const given *g = (const given *)item;
	return g->h.lo == h->lo && g->h.hi == h->hi;
}

static uint64_t given_hash(const void *ctx, uintptr_t item)
{
	(void)ctx;
	return ((const given *)item)->h.lo;
}

kjit_variant *kjit__given_find(const kjit__atable *t, kjit__hash128 h)
{
	const given *g = (const given *)kjit__atable_find(t, h.lo, given_is, &h);
	return g ? g->v : NULL;
}

void kjit__given_insert(kjit__atable *t, kjit__hash128 h, kjit_variant *v)
{
	if (kjit__atable_count(t) >= GIVEN_MAX || kjit__atable_find(t, h.lo, given_is, &h))
		return;
	given *g = malloc(sizeof *g);
	if (!g)
		return;
	*g = (given){ h, v };
	if (kjit__atable_insert(t, h.lo, (uintptr_t)g, given_hash, NULL) != KJIT_OK)
		free(g);
}

void kjit__given_free(kjit__atable *t)
{
	kjit__atable_gen *g = atomic_load_explicit(&t->now, memory_order_relaxed);
	for (size_t i = 0; g && i < g->cap; i++)
		free((given *)atomic_load_explicit(&g->slots[i], memory_order_relaxed));
	kjit__atable_free(t);
}
