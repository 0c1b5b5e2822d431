/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What /proc/PID/status says of a process that a file it writes is named
 * or owned by: the JIT's /tmp/perf-PID.map is named by the pid the
 * process has in its own pid namespace (a container's) and owned by its
 * effective user.
 */
#ifndef PK_PROC_STATUS_H
#define PK_PROC_STATUS_H

#include <sys/types.h>

/* PID's effective uid and its tgid in its own pid namespace (NStgid's
 * last field; the pid itself before Linux 4.1), from PROC/PID/status
 * (PROC NULL: "/proc"): 0, -ESRCH when PID is gone, -EBADMSG when the
 * file says neither, another negative errno. */
int pk_proc_ids(const char *proc, pid_t pid, uid_t *euid, pid_t *nstgid);

#endif
