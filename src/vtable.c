/* vtable.c - the in-process tier of the cache: open addressing on the
 * 128-bit binary key. */
#include "config.h"

#include <stdlib.h>

#include "engine.h"

static size_t slot_of(const kjit__vtable *t, kjit__hash128 key)
{
	return (size_t)key.lo & (t->cap - 1);
}

kjit_variant *kjit__vtable_find(const kjit__vtable *t, kjit__hash128 key)
{
	if (!t->cap)
		return NULL;
	for (size_t i = slot_of(t, key);; i = (i + 1) & (t->cap - 1)) {
		kjit_variant *v = t->slots[i];
		if (!v)
			return NULL;
		if (v->hkey.lo == key.lo && v->hkey.hi == key.hi)
			return v;
	}
}

static int grow(kjit__vtable *t)
{
	size_t cap = t->cap ? 2 * t->cap : 64;
	kjit_variant **slots = calloc(cap, sizeof *slots);
	if (!slots)
		return -1;
	kjit__vtable old = *t;
	t->slots = slots;
	t->cap = cap;
	for (size_t i = 0; i < old.cap; i++) {
		kjit_variant *v = old.slots[i];
		if (!v)
			continue;
		size_t j = slot_of(t, v->hkey);
		while (t->slots[j])
			j = (j + 1) & (cap - 1);
		t->slots[j] = v;
	}
	free(old.slots);
	return 0;
}

kjit_variant *kjit__vtable_insert(kjit__vtable *t, kjit_variant *v)
{
	kjit_variant *have = kjit__vtable_find(t, v->hkey);
	if (have)
		return have;
	if ((t->count + 1) * 2 > t->cap && grow(t) != 0)
		return NULL;
	size_t i = slot_of(t, v->hkey);
	while (t->slots[i])
		i = (i + 1) & (t->cap - 1);
	t->slots[i] = v;
	t->count++;
	return v;
}

void kjit__vtable_free(kjit__vtable *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->count = 0;
}
