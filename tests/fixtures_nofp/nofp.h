/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the fixtures built without frame pointers (tests/nofp.mk): keep
 * every function of a known call chain a real frame of its own at -O2.
 *
 * NOFP_FN: never inlined, never cloned or specialised (gcc's noipa; clang
 * has no noipa, but noinline + optnone-free bodies with side effects keep
 * the call there).
 * NOFP_AFTER_CALL: an empty asm after a call, so the call is not in tail
 * position: no sibling call even where -fno-optimize-sibling-calls is
 * missing, and the return address stays in the caller.
 * A fixture's SECONDS are seconds of CPU time (nofp_arm, cpu_budget.h).
 */
#ifndef NOFP_H
#define NOFP_H

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "../cpu_budget.h"

#if defined(__clang__)
#define NOFP_FN __attribute__((noinline, used))
#else
#define NOFP_FN __attribute__((noinline, noipa, used))
#endif
#define NOFP_AFTER_CALL() __asm__ __volatile__("" ::: "memory")

static volatile sig_atomic_t nofp_stop;
static volatile unsigned long nofp_sink;

/* Set nofp_stop after SECONDS (argv[ARGI], fractions allowed) of CPU time
 * (cpu_budget.h). Returns SECONDS. */
static inline double nofp_arm(int argc, char **argv, int argi, const char *usage)
{
	double secs;

	if (argc <= argi || !((secs = atof(argv[argi])) > 0) || secs > 1e6) {
		static const char pre[] = "usage: ";

		(void)!write(2, pre, sizeof(pre) - 1);
		(void)!write(2, usage, __builtin_strlen(usage));
		(void)!write(2, "\n", 1);
		exit(2);
	}
	if (cpu_budget_arm(secs, &nofp_stop))
		exit(1);
	return secs;
}

#endif
