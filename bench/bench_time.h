/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The clock and the median of the bench drivers that time runs in their
 * own process (srcline_bench.c, gopclntab_bench.c). */
#ifndef PK_BENCH_TIME_H
#define PK_BENCH_TIME_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of V's N values (V is sorted). */
static inline double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return v[n / 2];
}

#endif
