// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf_events.h"

static int open_event(bool software, int cpu, unsigned int freq)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = software ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE,
		.config = software ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_HW_CPU_CYCLES,
		.sample_freq = freq,
		.freq = 1,
		/* libbpf enables it once the program is attached. */
		.disabled = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int pk_perf_events_open(struct pk_perf_events *pe, const bool *cpus, int ncpus,
			unsigned int freq, char err[PK_ERR_LEN])
{
	int i, fd;

	memset(pe, 0, sizeof(*pe));
	pe->fds = calloc(ncpus, sizeof(*pe->fds));
	pe->cpus = calloc(ncpus, sizeof(*pe->cpus));
	if (!pe->fds || !pe->cpus)
		return pk_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < ncpus; i++) {
		if (!cpus[i])
			continue;
		fd = open_event(pe->software, i, freq);
		/* The first CPU decides: no PMU (virtual machines) means no cycles
		 * event anywhere. */
		if (fd < 0 && pe->n == 0 && !pe->software) {
			pe->software = true;
			fd = open_event(true, i, freq);
		}
		if (fd < 0)
			return pk_err(err, fd, "perf_event_open on CPU %d at %u Hz: %s",
				      i, freq, strerror(-fd));
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
