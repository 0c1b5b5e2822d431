/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's own count of one task's hits of a tracepoint: the oracle of
 * an event source's counts where the kernel, not the test, decides how many
 * hits a task makes (the block layer issues a request from the writer's
 * system call, or from a kworker when the queue is busy). A tracefs
 * instance of the test's own, named as its pins are (pk_e2e_cleanup_all
 * removes what a failed test left), with the event enabled in it alone,
 * filtered by the task's pid.
 */
#ifndef PK_TEST_FTRACE_COUNT_H
#define PK_TEST_FTRACE_COUNT_H

#include <sys/types.h>

struct pk_ftrace_count {
	char dir[256];		/* the instance */
	char event[128];	/* "block/block_rq_issue" */
};

/* Count EVENT ("system/name") of PID from now. */
void pk_ftrace_count_start(struct pk_ftrace_count *c, const char *event, pid_t pid);
/* The hits since start (a lost one fails the test); the instance removed. */
unsigned long pk_ftrace_count_stop(struct pk_ftrace_count *c);
/* Remove the instances of the tests of runner RUNNER. */
void pk_ftrace_count_cleanup(pid_t runner);

#endif
