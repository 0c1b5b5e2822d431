/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One perf event per CPU, for the perf_event program. */
#ifndef PK_PERF_EVENTS_H
#define PK_PERF_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>

#include "eh_frame/errmsg.h"

struct pk_perf_events {
	int *fds;		/* fds[i] samples cpus[i]; -1 once handed over */
	int *cpus;
	int n;
};

/* Open ATTR, disabled, on every CPU set in CPUS[0..ncpus). 0 or negative
 * errno (the first CPU's error as it is: -ENOENT and -EOPNOTSUPP mean no such
 * PMU) with a message in ERR. */
int pk_perf_events_open(struct pk_perf_events *pe, const bool *cpus, int ncpus,
			const struct perf_event_attr *attr, char err[PK_ERR_LEN]);
/* Close the fds still held and free. */
void pk_perf_events_close(struct pk_perf_events *pe);

#endif
