/* exhaustive.c - every configuration once, in the space's order. */
#include "config.h"

#include <stdlib.h>

#include "strategies.h"

typedef struct state {
	size_t next, size;
} state;

static void *init(const kjit__space *space, size_t budget, uint64_t seed, const void *opts)
{
	state *s = calloc(1, sizeof *s);
	if (s)
		s->size = space->size;
	return s;
}

static int64_t next(void *st)
{
	state *s = st;
	return s->next < s->size ? (int64_t)s->next++ : -1;
}

static void report(void *st, size_t index, double objective)
{
}

const kjit__strategy kjit__strategy_exhaustive = {
	"exhaustive", "every configuration once, in order", 1, init, next, report, free, NULL, 0, NULL, NULL,
};
