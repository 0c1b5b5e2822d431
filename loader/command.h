/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * probe-load -- CMD: the command is forked first and held before exec, so
 * its pid can go into the targets map; once sampling is attached it is
 * released and execs, so it is profiled from its first instruction, and
 * probe-load waits for it in the foreground, as perf record -- CMD does.
 */
#ifndef PK_COMMAND_H
#define PK_COMMAND_H

#include <signal.h>
#include <sys/types.h>

#include "eh_frame/errmsg.h"

struct pk_command {
	pid_t pid;		/* -1: not started */
	const char *name;	/* argv[0], for messages */
	int release_fd;		/* write end the child waits on */
	int exec_fd;		/* read end: errno of a failed exec, or EOF */
};

/* Fork the child that will exec ARGV (NULL-terminated) once released,
 * with EXEC_MASK as its signal mask (probe-load blocks some while loading). */
int pk_command_start(struct pk_command *c, char *const argv[],
		     const sigset_t *exec_mask, char err[PK_ERR_LEN]);
/* Let it exec; 0 once the exec succeeded (C->pid runs the command), or
 * -errno with a message if it failed (the child is then reaped and C is
 * done with). */
int pk_command_release(struct pk_command *c, char err[PK_ERR_LEN]);
/* Work done while the command runs: RUN(CTX) each time FD is readable or
 * TIMEOUT_MS have passed (-1: only when FD is); it returns the next
 * timeout, or < -1 to be called no more. */
struct pk_command_poll {
	int fd;
	int timeout_ms;
	int (*run)(void *ctx);
	void *ctx;
};

/* Wait for the released command, with MASK as the signal mask, SIGINT and
 * SIGQUIT ignored (the terminal sends them to the command too) and SIGTERM
 * and SIGHUP passed on to it, doing WORK (NULL: none) meanwhile.
 * Its exit status, or 128 + the signal that killed it, as a shell reports
 * it. */
int pk_command_wait(struct pk_command *c, const sigset_t *mask, struct pk_command_poll *work);
/* Make the held child exit without running anything, and reap it. */
void pk_command_abort(struct pk_command *c);

#endif
