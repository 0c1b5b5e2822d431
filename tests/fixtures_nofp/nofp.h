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
 */
#ifndef NOFP_H
#define NOFP_H

#include <signal.h>
#include <sys/time.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__clang__)
#define NOFP_FN __attribute__((noinline, used))
#else
#define NOFP_FN __attribute__((noinline, noipa, used))
#endif
#define NOFP_AFTER_CALL() __asm__ __volatile__("" ::: "memory")

static volatile sig_atomic_t nofp_stop;
static volatile unsigned long nofp_sink;

static void nofp_on_alarm(int sig)
{
	(void)sig;
	nofp_stop = 1;
}

/* Stop after SECONDS (fractions allowed) of wall time: a timer signal, so
 * no clock call adds frames to the samples. Returns whole seconds. */
static inline int nofp_arm(int argc, char **argv, int argi, const char *usage)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	double secs;

	if (argc <= argi || !((secs = atof(argv[argi])) > 0) || secs > 1e6) {
		static const char pre[] = "usage: ";

		(void)!write(2, pre, sizeof(pre) - 1);
		(void)!write(2, usage, __builtin_strlen(usage));
		(void)!write(2, "\n", 1);
		exit(2);
	}
	signal(SIGALRM, nofp_on_alarm);
	it.it_value.tv_sec = (time_t)secs;
	it.it_value.tv_usec = (suseconds_t)((secs - (double)it.it_value.tv_sec) * 1e6);
	setitimer(ITIMER_REAL, &it, NULL);
	return (int)secs;
}

#endif
