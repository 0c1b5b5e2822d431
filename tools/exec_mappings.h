/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The files behind a process's executable mappings, from /proc/PID/maps. */
#ifndef EXEC_MAPPINGS_H
#define EXEC_MAPPINGS_H

#include <stdio.h>
#include <sys/types.h>

struct exec_mappings {
	char **paths;		/* distinct, in order of first mapping */
	int n;
};

/* Read the executable ('x'), file-backed (path starting with '/') mappings
 * listed in F, in /proc/PID/maps syntax; each file once. A mapping of a
 * deleted file keeps its " (deleted)" suffix, so opening it fails with a
 * message that says why. 0 or -errno (-EBADMSG on a malformed line). */
int exec_mappings_parse(FILE *f, struct exec_mappings *out);

/* Same, from /proc/PID/maps. */
int exec_mappings_read(pid_t pid, struct exec_mappings *out);

void exec_mappings_free(struct exec_mappings *m);

#endif
