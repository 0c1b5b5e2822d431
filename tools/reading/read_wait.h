/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * How probe-read sleeps between batches of samples: until the ring buffer
 * wakes it (a quarter full, or code with no table met), the session it
 * reads is unloaded, the processes it profiles exit, a signal handler
 * wakes it, or a timeout. Each wakeup costs a
 * reader on a busy machine two context switches and its caches: a timer
 * at 10 Hz made most of its CPU time in a machine-wide session.
 */
#ifndef PK_READ_WAIT_H
#define PK_READ_WAIT_H

/* What ended a pk_read_wait(), as bits; 0: the timeout. */
enum {
	PK_WAIT_SAMPLES = 1 << 0,	/* the ring buffer has records for us */
	PK_WAIT_UNLOADED = 1 << 1,	/* an entry of the watched directory's
					 * parent was removed: maybe it */
	PK_WAIT_WOKEN = 1 << 2,		/* pk_read_wait_wake() */
	PK_WAIT_EXITED = 1 << 3,	/* the last of the processes watched
					 * (pk_read_wait_watch_exit) exited */
};

/* Processes watched at most: a session's targets beyond that are looked
 * at on a timer. */
#define PK_WAIT_MAX_PIDS	64

struct pk_read_wait {
	int epoll_fd;
	int inotify_fd;		/* -1: no watch (the caller polls) */
	int wake_fd;		/* an eventfd */
	int pidfds[PK_WAIT_MAX_PIDS];	/* -1 once exited */
	int npidfds, live;	/* watched; of those, not seen exit */
};

/*
 * Wait on READY_FD (the ring buffer's epoll fd: readable when a ring has
 * records) and on the removal of the directory open as DIR_FD (the
 * session's links/, which --unload removes last; -1: none). Returns 0 or
 * a negative errno. When the directory cannot be watched (inotify limits),
 * w->inotify_fd is -1 and the caller must look at it on a timer.
 */
int pk_read_wait_open(struct pk_read_wait *w, int ready_fd, int dir_fd);
void pk_read_wait_close(struct pk_read_wait *w);

/* Watch process PID (a thread group's leader) until it exits: the wait
 * that sees the last watched one exit returns PK_WAIT_EXITED. 0, -ESRCH
 * when it is gone already, -ENOSPC past PK_WAIT_MAX_PIDS, -ENOSYS where
 * there are no pidfds, or another negative errno. */
int pk_read_wait_watch_exit(struct pk_read_wait *w, int pid);
/* Stop watching every process. */
void pk_read_wait_unwatch(struct pk_read_wait *w);

/* Async-signal-safe: the wait under way, or the next, ends at once. */
void pk_read_wait_wake(const struct pk_read_wait *w);

/* Sleep until one of the above or TIMEOUT_MS (-1: none). Returns the
 * PK_WAIT_* bits, 0 on timeout, -EINTR when a signal came first, or
 * another negative errno. */
int pk_read_wait(struct pk_read_wait *w, int timeout_ms);

#endif /* PK_READ_WAIT_H */
