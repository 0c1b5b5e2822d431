/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The files behind a process's executable mappings, for eh2table --pid. */
#ifndef EXEC_MAPPINGS_H
#define EXEC_MAPPINGS_H

#include <sys/types.h>

#include "lib/proc_maps.h"

struct pk_exec_mappings {
	char **paths;		/* distinct, in address order of first mapping */
	int n;
};

/* The executable, file-backed mappings of MAPS, each file once. A deleted
 * file keeps its " (deleted)" suffix, so opening it fails with a message
 * that says why. 0 or -ENOMEM. */
int pk_exec_mappings_from(const struct pk_maps *maps, struct pk_exec_mappings *out);

/* Same, from /proc/PID/maps: 0 or -errno (-ENOENT: no such process). */
int pk_exec_mappings_read(pid_t pid, struct pk_exec_mappings *out);

void pk_exec_mappings_free(struct pk_exec_mappings *m);

#endif
