/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The CPU budget of the profiling fixtures (tests/fixtures*): a fixture
 * asked to run SECONDS runs until the process has used SECONDS of CPU time,
 * all of its threads together (CLOCK_PROCESS_CPUTIME_ID), not of wall
 * time. cpu-clock samples CPU time, so a test that needs N samples at F Hz
 * gets them from N/F seconds on a busy machine as on an idle one; on a
 * busy one the fixture just takes longer.
 */
#ifndef PK_CPU_BUDGET_H
#define PK_CPU_BUDGET_H

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds of CPU time the process has used, for code that may read a
 * clock between bursts of work. */
static inline double cpu_budget_used(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t *cpu_budget_stop;

static void cpu_budget_expired(int sig)
{
	(void)sig;
	*cpu_budget_stop = 1;
}

/*
 * Set *STOP once the process has used SECS more seconds of CPU time: a
 * CPU-time timer that sends SIGALRM, so that no clock call in the spinning
 * code adds frames to its samples. Arming again starts a new budget.
 * Returns 0, or -1 (errno set).
 * With PK_FIXTURE_HOLD set in the environment, the first budget starts
 * only after the process stopped itself (SIGSTOP) and was continued: a
 * test attaches its profilers to a fixture that has mapped its files but
 * spent none of its budget yet.
 */
static inline int cpu_budget_arm(double secs, volatile sig_atomic_t *stop)
{
	static timer_t timer;
	static int have_timer;
	struct sigevent ev;
	struct itimerspec its;

	memset(&ev, 0, sizeof(ev));
	memset(&its, 0, sizeof(its));
	if (!have_timer && getenv("PK_FIXTURE_HOLD")) {
		unsetenv("PK_FIXTURE_HOLD");
		raise(SIGSTOP);
	}
	cpu_budget_stop = stop;
	signal(SIGALRM, cpu_budget_expired);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGALRM;
	if (!have_timer && timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &timer))
		return -1;
	have_timer = 1;
	its.it_value.tv_sec = (time_t)secs;
	its.it_value.tv_nsec = (long)((secs - (double)its.it_value.tv_sec) * 1e9);
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;	/* zero would disarm it */
	return timer_settime(timer, 0, &its, NULL);
}

#endif
