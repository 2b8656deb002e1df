/*
 * common.c - what every strategy shares: the neighbourhood of a
 * configuration, what a strategy was told, a local descent, and the list
 * of strategies.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strategies.h"

int64_t kjit__neighbour(const kjit__space *space, size_t index, kjit__rng *rng)
{
	uint16_t cfg[256];
	size_t n = space->n_params;
	if (n == 0 || n > 256)
		return -1;
	for (int tries = 0; tries < 32; tries++) {
		memcpy(cfg, kjit__space_config(space, index), n * sizeof *cfg);
		size_t p = (size_t)kjit__rng_below(rng, n);
		size_t nv = space->spec->params[p].n_values;
		if (nv < 2)
			continue;
		cfg[p] = (uint16_t)((cfg[p] + 1 + kjit__rng_below(rng, nv - 1)) % nv);
		int64_t j = kjit__space_add(space, cfg);
		if (j >= 0)
			return j;
	}
	return -1;
}

int64_t kjit__snap(const kjit__space *space, const double *pos)
{
	uint16_t cfg[256];
	size_t n = space->n_params;
	if (space->size == 0 || n > 256)
		return -1;
	for (size_t p = 0; p < n; p++) {
		double top = (double)space->spec->params[p].n_values - 1, x = floor(pos[p] + 0.5);
		cfg[p] = (uint16_t)(x < 0 ? 0 : x > top ? top : x);
	}
	int64_t j = kjit__space_add(space, cfg);
	if (j >= 0)
		return j;
	/* restrictions leave holes: the nearest valid one of the whole space */
	double best = INFINITY;
	for (size_t i = 0; i < space->size; i++) {
		const uint16_t *c = kjit__space_config(space, i);
		double d = 0;
		for (size_t p = 0; p < n && d < best; p++)
			d += (c[p] - pos[p]) * (c[p] - pos[p]);
		if (d < best) {
			best = d;
			j = (int64_t)i;
		}
	}
	return j;
}

size_t kjit__adjacent(const kjit__space *space, size_t index, int64_t *out)
{
	uint16_t cfg[256];
	size_t n = space->n_params, k = 0;
	if (n > 256)
		return 0;
	const uint16_t *c = kjit__space_config(space, index);
	memcpy(cfg, c, n * sizeof *cfg);
	for (size_t p = 0; p < n; p++) {
		long nv = (long)space->spec->params[p].n_values;
		for (long dir = -1; dir <= 1; dir += 2) {
			for (long v = (long)c[p] + dir; v >= 0 && v < nv; v += dir) {
				cfg[p] = (uint16_t)v;
				int64_t j = kjit__space_add(space, cfg);
				if (j >= 0) {
					out[k++] = j;
					break;
				}
			}
			cfg[p] = c[p];
		}
	}
	return k;
}

int kjit__told_init(kjit__told *m, const kjit__space *space)
{
	m->n_seen = 0;
	m->seen = calloc(space->capacity + 1, 1);
	m->value = malloc((space->capacity + 1) * sizeof *m->value);
	return m->seen && m->value;
}

void kjit__told_free(kjit__told *m)
{
	free(m->seen);
	free(m->value);
	m->seen = NULL;
	m->value = NULL;
}

int64_t kjit__told_ask(kjit__told *m, int64_t index)
{
	m->seen[index] = KJIT__ASKED;
	return index;
}

int kjit__told_put(kjit__told *m, size_t index, double objective)
{
	if (m->seen[index] == KJIT__KNOWN)
		return 0;
	m->seen[index] = KJIT__KNOWN;
	m->value[index] = objective;
	m->n_seen++;
	return 1;
}

int kjit__local_init(kjit__local *l, const kjit__space *space)
{
	memset(l, 0, sizeof *l);
	l->nb = calloc(2 * space->n_params + 1, sizeof *l->nb);
	return l->nb != NULL;
}

void kjit__local_free(kjit__local *l)
{
	free(l->nb);
	l->nb = NULL;
}

void kjit__local_start(kjit__local *l, const kjit__space *space, size_t index, double value,
                    kjit__rng *rng)
{
	l->active = 1;
	l->at = (int64_t)index;
	l->value = value;
	l->n_nb = kjit__adjacent(space, index, l->nb);
	l->next = 0;
	for (size_t i = l->n_nb; i > 1; i--) {
		size_t j = (size_t)kjit__rng_below(rng, i);
		int64_t t = l->nb[i - 1];
		l->nb[i - 1] = l->nb[j];
		l->nb[j] = t;
	}
}

void kjit__local_stop(kjit__local *l)
{
	l->active = 0;
	l->n_out = 0;
}

/* Takes j off the list of neighbours out, when it is there. */
static void local_drop(kjit__local *l, int64_t j)
{
	for (size_t i = 0; i < l->n_out; i++)
		if (l->out[i] == j) {
			l->out[i] = l->out[--l->n_out];
			return;
		}
}

int64_t kjit__local_next(kjit__local *l)
{
	/* a neighbour already out (from a descent before a move) is not
	 * listed twice, so that the list holds outstanding proposals only */
	if (l->active && l->next < l->n_nb && l->n_out < KJIT_SEARCH_BATCH_MAX) {
		int64_t j = l->nb[l->next++];
		local_drop(l, j);
		l->out[l->n_out++] = j;
		return j;
	}
	l->active = l->active && l->n_out > 0;
	return -1;
}

void kjit__local_take(kjit__local *l, const kjit__space *space, int64_t j, double v, kjit__rng *rng)
{
	local_drop(l, j);
	if (l->active && v < l->value)
		kjit__local_start(l, space, (size_t)j, v, rng);
}

const kjit__strategy *const kjit__strategies[] = {
	&kjit__strategy_exhaustive, &kjit__strategy_random, &kjit__strategy_annealing,
	&kjit__strategy_genetic, &kjit__strategy_surrogate, &kjit__strategy_dual_annealing,
	&kjit__strategy_pso, &kjit__strategy_hybrid, NULL,
};

const kjit__strategy *kjit__strategy_find(const char *name)
{
	for (size_t i = 0; kjit__strategies[i]; i++)
		if (strcmp(kjit__strategies[i]->name, name) == 0)
			return kjit__strategies[i];
	return NULL;
}

int64_t kjit__random_unvisited(size_t size, const uint8_t *visited, kjit__rng *rng)
{
	if (size == 0)
		return -1;
	/* a few draws first (uniform), then a scan from a random start so
	 * that a nearly exhausted space still ends */
	for (int i = 0; i < 16; i++) {
		size_t j = (size_t)kjit__rng_below(rng, size);
		if (!visited[j])
			return (int64_t)j;
	}
	size_t start = (size_t)kjit__rng_below(rng, size);
	for (size_t k = 0; k < size; k++) {
		size_t j = (start + k) % size;
		if (!visited[j])
			return (int64_t)j;
	}
	return -1;
}
