/* stats.c - sorting samples and their median. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "base.h"

static int cmp(const void *a, const void *b)
{
	return kjit__cmp_double(*(const double *)a, *(const double *)b);
}

void kjit__sort_doubles(double *v, size_t n)
{
	if (n > 1) /* qsort wants a non-NULL array, even of none */
		qsort(v, n, sizeof *v, cmp);
}

double kjit__median_sorted(const double *sorted, size_t n)
{
	if (n == 0)
		return NAN;
	return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double kjit__median(double *v, size_t n)
{
	kjit__sort_doubles(v, n);
	return kjit__median_sorted(v, n);
}
