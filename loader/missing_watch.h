/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * probe-load -- CMD, while it waits for the command: the tables of the
 * files the command's processes exec and map after the load, so that their
 * samples need no stack copy when no probe-read runs (read after the
 * command, the copies filled the ring buffer and lost samples, and deep
 * stacks were cut at the copy's end).
 *
 * The kernel sends each no-table report to a small ring of its own
 * (PK_PIN_MISSING) as well as to the samples' ring, which stays the
 * reader's. The reports are loaded at once while no reader holds the
 * session; while one does, they wait, since the reader loads the same
 * files from its own ring: once it lets the session go, what it did not
 * load is loaded (a file that has its entry costs one lookup).
 */
#ifndef PK_MISSING_WATCH_H
#define PK_MISSING_WATCH_H

#include "eh_frame/errmsg.h"
#include "lib/unwind_store.h"

struct pk_missing_watch;

/* The session at PIN_DIR's missing ring and unwind store (tables built
 * JOBS at once, 0: one per online CPU). 0 or a negative errno with ERR. */
int pk_missing_watch_open(const char *pin_dir, unsigned int jobs,
			  struct pk_missing_watch **out, char err[PK_ERR_LEN]);

/* What to poll for reports. */
int pk_missing_watch_fd(const struct pk_missing_watch *w);

/* Take the reports that came and load what no reader will: the next
 * timeout in ms (-1: none, until the next report; > 0: reports wait for a
 * reader to let the session go), or a negative errno < -1 with ERR when
 * the maps failed (the watch is then of no more use). */
int pk_missing_watch_run(struct pk_missing_watch *w, char err[PK_ERR_LEN]);

/* What was added since the open. */
const struct pk_unwind_stats *pk_missing_watch_stats(const struct pk_missing_watch *w);

void pk_missing_watch_free(struct pk_missing_watch *w);

#endif
