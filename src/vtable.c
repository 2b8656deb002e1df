/* vtable.c - the in-process tier of the cache: variants in a kjit__table
 * by their 128-bit binary key, placed by its low half. */
#include "config.h"

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
