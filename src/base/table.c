/* table.c - growing the hash tables of items kept elsewhere, the locked
 * one and the one read without a lock (base.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "base.h"

#define MIN_CAP 16

/* Puts item in the first empty slot of h's probe sequence. */
static void place(kjit__table *t, uint64_t h, uintptr_t item)
{
	size_t mask = t->cap - 1, i = (size_t)h & mask;
	while (t->slots[i])
		i = (i + 1) & mask;
	t->slots[i] = item;
}

kjit_status kjit__table_reserve(kjit__table *t, size_t n, kjit__table_hash_fn hash,
                                const void *ctx)
{
	if (n > SIZE_MAX / 4 - t->count)
		return kjit__error(KJIT_ERR_NOMEM, "a table of more than %zu items", SIZE_MAX / 4);
	size_t want = 2 * (t->count + n), cap = t->cap ? t->cap : MIN_CAP;
	while (cap < want)
		cap *= 2;
	if (cap == t->cap)
		return KJIT_OK;
	uintptr_t *slots = calloc(cap, sizeof *slots);
	if (!slots)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory for a table of %zu slots", cap);
	kjit__table old = *t;
	t->slots = slots;
	t->cap = cap;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i])
			place(t, hash(ctx, old.slots[i]), old.slots[i]);
	free(old.slots);
	return KJIT_OK;
}

kjit_status kjit__table_insert(kjit__table *t, uint64_t h, uintptr_t item,
                               kjit__table_hash_fn hash, const void *ctx)
{
	kjit_status st = kjit__table_reserve(t, 1, hash, ctx);
	if (st != KJIT_OK)
		return st;
	place(t, h, item);
	t->count++;
	return KJIT_OK;
}

void kjit__table_free(kjit__table *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->count = 0;
}

/* ---- read without a lock ------------------------------------------------ */

static void place_atomic(kjit__atable_gen *g, uint64_t h, uintptr_t item)
{
	size_t mask = g->cap - 1, i = (size_t)h & mask;
	while (atomic_load_explicit(&g->slots[i], memory_order_relaxed))
		i = (i + 1) & mask;
	atomic_store_explicit(&g->slots[i], item, memory_order_release);
	g->count++;
}

size_t kjit__atable_count(const kjit__atable *t)
{
	kjit__atable_gen *g = atomic_load_explicit(&((kjit__atable *)t)->now, memory_order_relaxed);
	return g ? g->count : 0;
}

kjit_status kjit__atable_insert(kjit__atable *t, uint64_t h, uintptr_t item,
                                kjit__table_hash_fn hash, const void *ctx)
{
	kjit__atable_gen *g = atomic_load_explicit(&t->now, memory_order_relaxed);
	if (!g || 2 * (g->count + 1) > g->cap) {
		size_t cap = g ? 2 * g->cap : MIN_CAP;
		if (cap > (SIZE_MAX - sizeof *g) / sizeof g->slots[0])
			return kjit__error(KJIT_ERR_NOMEM, "a table of more than %zu items", cap / 2);
		kjit__atable_gen *n = malloc(sizeof *n + cap * sizeof n->slots[0]);
		if (!n)
			return kjit__error(KJIT_ERR_NOMEM, "out of memory for a table of %zu slots", cap);
		n->cap = cap;
		n->count = 0;
		n->older = g; /* readers may still hold it */
		for (size_t i = 0; i < cap; i++)
			atomic_init(&n->slots[i], 0);
		for (size_t i = 0; g && i < g->cap; i++) {
			uintptr_t old = atomic_load_explicit(&g->slots[i], memory_order_relaxed);
			if (old)
				place_atomic(n, hash(ctx, old), old);
		}
		place_atomic(n, h, item);
		atomic_store_explicit(&t->now, n, memory_order_release);
		return KJIT_OK;
	}
	place_atomic(g, h, item);
	return KJIT_OK;
}

void kjit__atable_free(kjit__atable *t)
{
	for (kjit__atable_gen *g = atomic_load_explicit(&t->now, memory_order_relaxed), *older; g;
	     g = older) {
		older = g->older;
		free(g);
	}
	atomic_store_explicit(&t->now, NULL, memory_order_relaxed);
}
