/*
 * env.c - the environment variables kjit reads (KJIT__ENV_VARS in base.h).
 */
#include "config.h"

#include <stdlib.h>

#include "base.h"

static const kjit__env_entry table[KJIT__ENV_COUNT] = {
#define ENTRY(id, name, kind, meaning) { name, KJIT__ENV_KIND_##kind, meaning },
	KJIT__ENV_VARS(ENTRY)
#undef ENTRY
};

const char *kjit__env(kjit__env_var v)
{
	if ((unsigned)v >= KJIT__ENV_COUNT)
		return NULL;
	const char *value = getenv(table[v].name);
	return value && *value ? value : NULL;
}

const kjit__env_entry *kjit__env_table(void)
{
	return table;
}
