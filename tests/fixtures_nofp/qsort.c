// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers: main -> sort_step -> qsort (libc: qsort_r, msort_with_tmp
 * recursing, all without frame pointers) -> compare, which burns the CPU.
 * Usage: qsort SECONDS
 * The callers above qsort are found only by unwinding libc's frameless
 * merge sort with its CFI.
 * Each step sorts a number of records drawn at random from 1 to NREC: a
 * step takes 0.9 ms of CPU on average, 2 ms at most, and a 99 Hz timer's
 * period spans a dozen of them, so that where in a step a sample falls
 * (which depth of the merge sort it sees) is independent of where the last
 * one fell. Sorts of one size, 2048 records, took 4.5 to 6.5 ms as the
 * machine's load varied, a half to two thirds of the period: for long
 * stretches the samples fell on the same few points of the sort, and the
 * shares varied far more than from sample to sample.
 */
#include <stdlib.h>

#include "nofp.h"

#define NREC 1024
#define BURN 200

static unsigned int records[NREC];

NOFP_FN int compare(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	for (int i = 0; i < BURN; i++)
		nofp_sink = nofp_sink * 31 + x;
	return (x > y) - (x < y);
}

/* SEED's bits mixed (murmur3's finalizer): consecutive seeds give
 * unrelated numbers. */
static unsigned int mix(unsigned int h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ h >> 16;
}

NOFP_FN void sort_step(unsigned int seed)
{
	unsigned int n = 1 + mix(seed) % NREC;

	for (unsigned int i = 0; i < n; i++)
		records[i] = seed = seed * 1103515245u + 12345u;
	qsort(records, n, sizeof(records[0]), compare);
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
