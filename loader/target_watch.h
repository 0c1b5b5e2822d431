/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A session of -p or -- CMD stops sampling once its targets are gone. Its
 * programs run on every CPU's timer and on tracepoints anywhere, filtered
 * by the targets map, so they would cost for ever; BPF cannot detach its
 * own links. A small process of probe-load's, without terminal or fds,
 * sleeps on a pidfd per target (and on the pin directory, for --unload)
 * and unpins the links when the last target exits: the maps stay for
 * probe-read, the programs stop.
 */
#ifndef PK_TARGET_WATCH_H
#define PK_TARGET_WATCH_H

#include "eh_frame/errmsg.h"

/* Start the watcher of the session pinned at PIN_DIR, detached from this
 * process (its own session, stdio on /dev/null, no other fd). */
int pk_target_watch_start(const char *pin_dir, char err[PK_ERR_LEN]);

/* The watcher itself, in this process: returns once the session's targets
 * have all exited and its links are unpinned (0), or once the session is
 * unloaded or replaced (0, nothing touched), or on an error (-errno). */
int pk_target_watch_run(const char *pin_dir);

#endif
