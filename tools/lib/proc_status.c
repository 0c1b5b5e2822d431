// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/proc_status.h"

int pk_proc_ids(const char *proc, pid_t pid, uid_t *euid, pid_t *nstgid)
{
	char path[4096 + 32], *line = NULL;
	size_t cap = 0;
	bool uid_seen = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc ? proc : "/proc", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	*nstgid = pid;
	while (getline(&line, &cap, f) > 0) {
		unsigned int r, e;

		if (sscanf(line, "Uid: %u %u", &r, &e) == 2) {
			*euid = e;
			uid_seen = true;
		} else if (strncmp(line, "NStgid:", 7) == 0) {
			char *last = strrchr(line, '\t');

			*nstgid = last ? (pid_t)atoi(last + 1) : pid;
		}
	}
	free(line);
	fclose(f);
	return uid_seen && *nstgid > 0 ? 0 : -EBADMSG;
}
