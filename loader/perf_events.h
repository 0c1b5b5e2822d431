/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One sampling perf event per CPU, for the perf_event program. */
#ifndef PK_PERF_EVENTS_H
#define PK_PERF_EVENTS_H

#include <stdbool.h>

#include "errmsg.h"

struct pk_perf_events {
	int *fds;		/* fds[i] samples cpus[i]; -1 once handed over */
	int *cpus;
	int n;
	bool software;		/* cpu-clock: no hardware PMU */
};

/* Open a disabled event on every CPU set in CPUS[0..ncpus) sampling FREQ
 * times a second: CPU cycles where there is a PMU, else the cpu-clock
 * software event. 0 or negative errno with a message in ERR. */
int pk_perf_events_open(struct pk_perf_events *pe, const bool *cpus, int ncpus,
			unsigned int freq, char err[PK_ERR_LEN]);
/* Close the fds still held and free. */
void pk_perf_events_close(struct pk_perf_events *pe);

#endif
