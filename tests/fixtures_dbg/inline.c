// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Source-line fixture (tests/dbg.mk, -O2 -g): inline helpers nested up to
 * three deep, called in loops, some from a header, some in a lexical block,
 * so that many addresses sit in inlined code and their chains differ. Only
 * read by tests (eu-addr2line is the oracle), and profiled by one
 * (tests/integration/test_inline_e2e.c): ./inline N does the work over N
 * numbers once and prints a number; ./inline N SECONDS does it over and
 * over, on other numbers each round, until it has run SECONDS of CPU time
 * (so that a profiler gets as many samples on a busy machine), sampling the
 * inlined code and libc's qsort, which calls cmp_unsigned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "inline_helpers.h"

#define NOINLINE __attribute__((noinline))

struct acc {
	unsigned long sum;
	unsigned count;
};

DBG_ALWAYS void acc_add(struct acc *a, unsigned v)
{
	a->sum += v;
	a->count++;
}

/* Three deep: step -> mix_twice -> mix, all always_inline. */
DBG_ALWAYS unsigned step(struct acc *a, unsigned i)
{
	unsigned v = mix_twice(i, a->count);

	acc_add(a, v);
	return v;
}

/* Plain static inline: gcc decides, at -O2 it inlines (one caller). */
static inline unsigned long scale(unsigned long x, unsigned s)
{
	while (s--)
		x = x * 3 + 1;
	return x;
}

NOINLINE unsigned long run_steps(unsigned n)
{
	struct acc a = { 0, 0 };

	for (unsigned i = 0; i < n; i++) {
		unsigned v = step(&a, i);

		if (v % 7 == 0) {
			/* A lexical block holding an inlined call. */
			unsigned w = mix(v);

			a.sum ^= scale(w, v & 3);
		}
	}
	return a.sum + a.count;
}

NOINLINE unsigned long sum_mixed(const unsigned *v, size_t n)
{
	unsigned long s = 0;

	for (size_t i = 0; i < n; i++)
		s += mix_twice(v[i], (unsigned)i);
	return s;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = mix(*(const unsigned *)a), y = mix(*(const unsigned *)b);

	return (x > y) - (x < y);
}

/* CPU time: what sampling at a frequency counts. */
static double cpu_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One round over N numbers from SEED: sorted by qsort, then summed. */
NOINLINE unsigned long round_of(unsigned *v, unsigned n, unsigned seed)
{
	for (unsigned i = 0; i < n; i++)
		v[i] = mix(i + seed);
	qsort(v, n, sizeof(*v), cmp_unsigned);
	return run_steps(n) + sum_mixed(v, n);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 1000;
	double secs = argc > 2 ? strtod(argv[2], NULL) : 0;
	unsigned *v = malloc(sizeof(*v) * (n ? n : 1));
	unsigned long r = 0;
	unsigned seed = 0;

	if (!v)
		return 1;
	do
		r += round_of(v, n, seed++ * n);
	while (cpu_time() < secs);
	printf("%lu\n", r);
	free(v);
	return 0;
}
