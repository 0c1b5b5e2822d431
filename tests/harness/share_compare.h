/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Two sampling profiles of one workload, compared as distributions. Two
 * profilers sampling at the same rate but on their own timers never see the
 * same samples, only the same proportions: a stack's share is a binomial
 * proportion on each side, and two shares of one true proportion p from n_a
 * and n_b samples differ by a standard error of
 *     sqrt(p (1 - p) (1/n_a + 1/n_b)),
 * p estimated from both sides together. A stack agrees when its shares
 * differ by at most SIGMAS standard errors.
 */
#ifndef SHARE_COMPARE_H
#define SHARE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sc_count {
	const char *stack;
	unsigned long count;
};

struct sc_row {
	const char *stack;	/* borrowed from the input */
	unsigned long a, b;	/* samples on each side */
	double share_a, share_b;
	double tolerance;	/* SIGMAS standard errors of share_a - share_b */
	bool significant;	/* share >= THRESHOLD on at least one side */
	bool agree;		/* |share_a - share_b| <= tolerance */
};

struct sc_result {
	struct sc_row *rows;	/* every distinct stack, largest share first */
	size_t nrows;
	unsigned long total_a, total_b;
	/* share of each side's samples in stacks the other side never saw */
	double only_a, only_b;
	size_t disagree;	/* significant rows that do not agree */
};

/*
 * Compare A (NA stacks) with B (NB stacks); a stack listed twice on one side
 * counts once with the counts summed. 0; -EINVAL when a side has no samples
 * (no share exists); -ENOMEM. Free OUT with sc_result_free() in every case.
 */
int sc_compare(const struct sc_count *a, size_t na, const struct sc_count *b, size_t nb,
	       double threshold, double sigmas, struct sc_result *out);
void sc_result_free(struct sc_result *r);

/* One line per row: both shares, the tolerance, a verdict; then totals. */
void sc_result_print(FILE *f, const struct sc_result *r, const char *name_a,
		     const char *name_b);

#endif
