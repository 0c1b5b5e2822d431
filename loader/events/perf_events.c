// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "loader/events/perf_events.h"

int pk_perf_events_open(struct pk_perf_events *pe, const bool *cpus, int ncpus,
			const struct perf_event_attr *attr, char err[PK_ERR_LEN])
{
	struct perf_event_attr a = *attr;
	int fd;

	memset(pe, 0, sizeof(*pe));
	pe->fds = calloc(ncpus, sizeof(*pe->fds));
	pe->cpus = calloc(ncpus, sizeof(*pe->cpus));
	if (!pe->fds || !pe->cpus)
		return pk_err(err, -ENOMEM, "out of memory");
	a.size = sizeof(a);
	a.disabled = 1;		/* libbpf enables it once the program is attached */
	for (int i = 0; i < ncpus; i++) {
		if (!cpus[i])
			continue;
		fd = syscall(SYS_perf_event_open, &a, -1, i, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return pk_err(err, -errno, "perf_event_open on CPU %d: %s", i,
				      strerror(errno));
		pe->cpus[pe->n] = i;
		pe->fds[pe->n++] = fd;
	}
	return 0;
}

void pk_perf_events_close(struct pk_perf_events *pe)
{
	for (int i = 0; i < pe->n; i++)
		if (pe->fds[i] >= 0)
			close(pe->fds[i]);
	free(pe->fds);
	free(pe->cpus);
	memset(pe, 0, sizeof(*pe));
}
