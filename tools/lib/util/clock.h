/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading the clocks in nanoseconds. */
#ifndef PK_CLOCK_H
#define PK_CLOCK_H

#include <linux/types.h>
#include <time.h>

/* CLOCK's time in nanoseconds. */
static inline __u64 pk_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* CLOCK_MONOTONIC nanoseconds: for durations and deadlines. */
static inline __u64 pk_now_ns(void)
{
	return pk_clock_ns(CLOCK_MONOTONIC);
}

/* The same in seconds: for deadlines given in seconds (-d, timeouts). */
static inline double pk_now_s(void)
{
	return (double)pk_now_ns() / 1e9;
}

#endif
