/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One reader per session. Two readers of one ring buffer each take records
 * the other needed (a stack's mapping reports, one interval's samples), so
 * a reader holds the session for itself: an exclusive flock(2) on the
 * session's links/ directory (lib/pins.h: made by the load that claims the
 * pin directory, removed by --unload). The kernel drops the lock with its
 * holder's last descriptor, so a reader killed by SIGKILL blocks nobody;
 * the directory being the session's, not the path's, a lock never outlives
 * its session, and the directory's removal is how the holder learns that
 * the session was unloaded (pk_session_lock_unloaded()).
 */
#ifndef PK_SESSION_LOCK_H
#define PK_SESSION_LOCK_H

#include <sys/types.h>

/* Take the session at PIN_DIR (NULL: the default) for this process: an fd
 * to close to give it back (O_CLOEXEC: a command run from the holder does
 * not keep it). -ENOENT when nothing is loaded there; -EBUSY when another
 * process holds it, *HOLDER then its pid (0 when the kernel does not say:
 * another pid namespace); other negative errno. */
int pk_session_lock_take(const char *pin_dir, pid_t *holder);

/* 1 when the session LOCK_FD holds was unloaded (its directory removed),
 * 0 when it is still loaded, or negative errno. One fstat(2). */
int pk_session_lock_unloaded(int lock_fd);

/* The pid of the process holding an exclusive flock on the file FD opens
 * (from /proc/locks), 0 when none is listed, or negative errno. */
pid_t pk_flock_holder(int fd);

#endif
