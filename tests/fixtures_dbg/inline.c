// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Source-line fixture (tests/dbg.mk, -O2 -g): inline helpers nested up to
 * three deep, called in loops, some from a header, some in a lexical block,
 * so that many addresses sit in inlined code and their chains differ. Only
 * read by tests (eu-addr2line is the oracle), run by nobody but a smoke
 * check: ./inline N prints a number.
 */
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 1000;
	unsigned *v = malloc(sizeof(*v) * (n ? n : 1));
	unsigned long r;

	if (!v)
		return 1;
	for (unsigned i = 0; i < n; i++)
		v[i] = mix(i);
	qsort(v, n, sizeof(*v), cmp_unsigned);
	r = run_steps(n) + sum_mixed(v, n);
	printf("%lu\n", r);
	free(v);
	return 0;
}
