/* table.c - growing the hash table of items kept elsewhere (base.h). */
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
