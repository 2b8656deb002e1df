/* select.c - which tuned configuration serves a problem (doc/DESIGN.md,
 * "Problem key"): exact, nearest on this device, same architecture,
 * default. Pure: the rows come from store_best.c. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "tuning.h"

const char *kjit__rule_name(kjit__rule rule)
{
	switch (rule) {
	case KJIT__RULE_EXACT: return "exact";
	case KJIT__RULE_NEAREST: return "nearest";
	case KJIT__RULE_SAME_ARCH: return "same_arch";
	case KJIT__RULE_ONLINE: return "online";
	default: return "default";
	}
}

/* Sum over the sizes of |log a - log b|; a size <= 0 counts as 1. In
 * base 2, rounded to 1e-9, so that equal ratios tie exactly (2^22 is as
 * far from 2^20 as from 2^24) and the tie rules decide. */
static double log_distance(const int64_t *a, const int64_t *b, size_t n)
{
	double d = 0;
	for (size_t i = 0; i < n; i++)
		d += fabs(log2((double)(a[i] > 0 ? a[i] : 1)) - log2((double)(b[i] > 0 ? b[i] : 1)));
	return round(d * 1e9) / 1e9;
}

/* 1 when row a ranks before row b at equal rule. */
static int better(const kjit__best_row *a, double da, const kjit__best_row *b, double db)
{
	if (da != db)
		return da < db;
	if (a->median_ns != b->median_ns)
		return a->median_ns < b->median_ns;
	int c = strcmp(a->problem, b->problem);
	if (c)
		return c < 0;
	return strcmp(a->device_key, b->device_key) < 0;
}

kjit__rule kjit__select(const kjit__best_row *rows, size_t n_rows, const int64_t *values,
                        size_t n, const char *device_key, const char *nvrtc,
                        const kjit__space *space, int64_t *row)
{
	/* Per rule (exact, nearest, same arch) the best row so far. */
	int64_t pick[3] = { -1, -1, -1 };
	double dist[3] = { 0, 0, 0 };
	for (size_t i = 0; i < n_rows; i++) {
		const kjit__best_row *r = &rows[i];
		if (!r->usable || r->stale || strcmp(r->nvrtc, nvrtc) != 0 ||
		    !(r->median_ns > 0) || kjit__space_find(space, r->cfg) < 0)
			continue;
		double d = log_distance(r->values, values, n);
		int same_device = device_key[0] && strcmp(r->device_key, device_key) == 0;
		int exact = same_device && (!n || memcmp(r->values, values, n * sizeof *values) == 0);
		int k = exact ? 0 : same_device ? 1 : 2;
		if (pick[k] < 0 || better(r, d, &rows[pick[k]], dist[k])) {
			pick[k] = (int64_t)i;
			dist[k] = d;
		}
	}
	for (int k = 0; k < 3; k++)
		if (pick[k] >= 0) {
			*row = pick[k];
			return (kjit__rule)k;
		}
	*row = -1;
	return KJIT__RULE_DEFAULT;
}
