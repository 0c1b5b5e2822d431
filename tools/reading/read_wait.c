// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "reading/read_wait.h"

/* FD into the wait, its events tagged WHAT (a PK_WAIT_* bit) and, for a
 * process, its index in pidfds above the low 32 bits. */
static int watch(int epoll_fd, int fd, uint64_t what)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = what };

	return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* The removal of DIR_FD's directory, as an inotify fd; -1 when inotify
 * cannot watch it (no instances or watches left). Seen from its parent:
 * the directory's own IN_DELETE_SELF waits for its last close, and DIR_FD
 * is one. Any entry's removal wakes the wait; its caller looks again. */
static int watch_removal(int dir_fd)
{
	char path[64];
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		return -1;
	/* the directory open, wherever its path now leads */
	snprintf(path, sizeof(path), "/proc/self/fd/%d/..", dir_fd);
	if (inotify_add_watch(fd, path, IN_DELETE | IN_ONLYDIR) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int pk_read_wait_open(struct pk_read_wait *w, int ready_fd, int dir_fd)
{
	int ret;

	w->inotify_fd = -1;
	w->wake_fd = -1;
	w->npidfds = w->live = 0;
	w->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epoll_fd < 0)
		return -errno;
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->wake_fd < 0) {
		ret = -errno;
		goto fail;
	}
	ret = watch(w->epoll_fd, ready_fd, PK_WAIT_SAMPLES);
	if (!ret)
		ret = watch(w->epoll_fd, w->wake_fd, PK_WAIT_WOKEN);
	if (ret)
		goto fail;
	if (dir_fd >= 0)
		w->inotify_fd = watch_removal(dir_fd);
	if (w->inotify_fd >= 0 && watch(w->epoll_fd, w->inotify_fd, PK_WAIT_UNLOADED)) {
		close(w->inotify_fd);
		w->inotify_fd = -1;
	}
	return 0;
fail:
	pk_read_wait_close(w);
	return ret;
}

static void close_fd(int *fd)
{
	int was = *fd;

	/* -1 first: a signal handler may wake through it meanwhile */
	*fd = -1;
	if (was >= 0)
		close(was);
}

void pk_read_wait_close(struct pk_read_wait *w)
{
	pk_read_wait_unwatch(w);
	close_fd(&w->wake_fd);
	close_fd(&w->inotify_fd);
	close_fd(&w->epoll_fd);
}

void pk_read_wait_wake(const struct pk_read_wait *w)
{
	uint64_t one = 1;
	int saved = errno;

	if (w->wake_fd >= 0 && write(w->wake_fd, &one, sizeof(one)) < 0) {
		/* full (2^64 - 2 wakes pending): it wakes all the same */
	}
	errno = saved;
}

/* Empty FD (nonblocking), so that what was seen does not wake the next
 * wait: the inotify events, the eventfd's count. */
static void drain_fd(int fd)
{
	char buf[256] __attribute__((aligned(8)));

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

int pk_read_wait_watch_exit(struct pk_read_wait *w, int pid)
{
	int fd, ret;

	if (w->npidfds >= PK_WAIT_MAX_PIDS)
		return -ENOSPC;
	fd = pidfd_open(pid, 0);
	if (fd < 0)
		return -errno;
	ret = watch(w->epoll_fd, fd, PK_WAIT_EXITED | (uint64_t)w->npidfds << 32);
	if (ret) {
		close(fd);
		return ret;
	}
	w->pidfds[w->npidfds++] = fd;
	w->live++;
	return 0;
}

void pk_read_wait_unwatch(struct pk_read_wait *w)
{
	for (int i = 0; i < w->npidfds; i++)
		close_fd(&w->pidfds[i]);	/* closed, it leaves the epoll set */
	w->npidfds = w->live = 0;
}

/* The process watched at I exited (its pidfd is readable for good). */
static void exited(struct pk_read_wait *w, uint32_t i)
{
	if (i >= (uint32_t)w->npidfds || w->pidfds[i] < 0)
		return;
	close_fd(&w->pidfds[i]);
	w->live--;
}

int pk_read_wait(struct pk_read_wait *w, int timeout_ms)
{
	struct epoll_event ev[8];
	int n = epoll_wait(w->epoll_fd, ev, 8, timeout_ms), what = 0;

	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		uint32_t tag = (uint32_t)ev[i].data.u64;

		if (tag == PK_WAIT_EXITED)
			exited(w, ev[i].data.u64 >> 32);
		else
			what |= (int)tag;
	}
	if (w->npidfds && !w->live)
		what |= PK_WAIT_EXITED;
	if (what & PK_WAIT_WOKEN)
		drain_fd(w->wake_fd);
	if (what & PK_WAIT_UNLOADED)
		drain_fd(w->inotify_fd);
	return what;
}
