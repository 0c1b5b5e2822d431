// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers: main -> sort_step -> qsort (libc: qsort_r, msort_with_tmp
 * recursing, all without frame pointers) -> compare, which burns the CPU.
 * Usage: qsort SECONDS
 * The callers above qsort are found only by unwinding libc's frameless
 * merge sort with its CFI.
 */
#include <stdlib.h>

#include "nofp.h"

#define NREC 2048
#define BURN 200

static unsigned int records[NREC];

NOFP_FN int compare(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	for (int i = 0; i < BURN; i++)
		nofp_sink = nofp_sink * 31 + x;
	return (x > y) - (x < y);
}

NOFP_FN void sort_step(unsigned int seed)
{
	for (int i = 0; i < NREC; i++)
		records[i] = seed = seed * 1103515245u + 12345u;
	qsort(records, NREC, sizeof(records[0]), compare);
	NOFP_AFTER_CALL();
}

int main(int argc, char **argv)
{
	unsigned int seed = 1;

	nofp_arm(argc, argv, 1, "qsort SECONDS");
	while (!nofp_stop)
		sort_step(seed++);
	return 0;
}
