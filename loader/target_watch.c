// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "lib/pins.h"
#include "lib/session.h"
#include "lib/util/array.h"
#include "loader/target_watch.h"

struct watch {
	const char *dir;
	int targets;		/* the session's targets map */
	__u32 targets_id;	/* which tells our session from a later one */
	struct pollfd *fds;	/* [0]: inotify on DIR; then a pidfd per target */
	__u32 *pids;		/* the tgid of fds[i] */
	size_t n, fds_cap, pids_cap;
};

static __u32 map_id(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* The session pinned at DIR is still the one we watch. */
static bool ours(const struct watch *w)
{
	int fd = pk_pin_open(w->dir, PK_PIN_TARGETS);
	bool same;

	if (fd < 0)
		return false;
	same = map_id(fd) == w->targets_id;
	close(fd);
	return same;
}

static int add_pid(struct watch *w, __u32 tgid)
{
	int fd;

	for (size_t i = 1; i < w->n; i++)
		if (w->pids[i] == tgid)
			return 0;
	/* gone already: its exit took it out of the map, or is about to */
	fd = syscall(SYS_pidfd_open, (pid_t)tgid, 0);
	if (fd < 0)
		return errno == ESRCH ? 0 : -errno;
	if (pk_array_reserve((void **)&w->fds, &w->fds_cap, sizeof(*w->fds), w->n + 1, 16) ||
	    pk_array_reserve((void **)&w->pids, &w->pids_cap, sizeof(*w->pids), w->n + 1, 16)) {
		close(fd);
		return -ENOMEM;
	}
	w->fds[w->n] = (struct pollfd){ .fd = fd, .events = POLLIN };
	w->pids[w->n++] = tgid;
	return 0;
}

/*
 * Watch every target in the map. A process becomes a target only when a
 * target forks it (the map has it before fork() returns), so whenever a
 * watched one exits, the targets alive are all in the map: a scan then
 * finds those we did not watch yet.
 */
static int scan(struct watch *w)
{
	__u32 key, *prev = NULL;
	int ret;

	while (bpf_map_get_next_key(w->targets, prev, &key) == 0) {
		ret = add_pid(w, key);
		if (ret)
			return ret;
		prev = &key;
	}
	return 0;
}

/* The session went away: its session pin or DIR removed. */
static bool unloaded(int inotify_fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t len;

	while ((len = read(inotify_fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + len; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->mask & (IN_DELETE_SELF | IN_IGNORED))
				return true;
			if ((ev->mask & IN_DELETE) && ev->len &&
			    !strcmp(ev->name, PK_PIN_SESSION))
				return true;
		}
	return false;
}

static int watch(struct watch *w)
{
	int ret;

	for (;;) {
		ret = scan(w);
		if (ret)
			return ret;
		if (w->n == 1)
			return ours(w) ? pk_pins_detach(w->dir) : 0;
		if (poll(w->fds, w->n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w->fds[0].revents && unloaded(w->fds[0].fd))
			return 0;
		for (size_t i = w->n; i-- > 1;) {
			if (!w->fds[i].revents)
				continue;
			close(w->fds[i].fd);
			w->fds[i] = w->fds[--w->n];
			w->pids[i] = w->pids[w->n];
		}
	}
}

int pk_target_watch_run(const char *pin_dir)
{
	struct watch w = { .dir = pin_dir, .targets = -1 };
	int ret;

	if (pk_array_reserve((void **)&w.fds, &w.fds_cap, sizeof(*w.fds), 1, 16) ||
	    pk_array_reserve((void **)&w.pids, &w.pids_cap, sizeof(*w.pids), 1, 16)) {
		ret = -ENOMEM;
		goto out;
	}
	w.fds[0] = (struct pollfd){ .fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC),
				    .events = POLLIN };
	w.n = 1;
	if (w.fds[0].fd < 0) {
		ret = -errno;
		goto out;
	}
	/* watched before the targets are opened: an --unload in between is
	 * seen, either as a missing pin or as an event */
	if (inotify_add_watch(w.fds[0].fd, pin_dir, IN_DELETE | IN_DELETE_SELF) < 0) {
		ret = -errno;
		goto out;
	}
	w.targets = pk_pin_open(pin_dir, PK_PIN_TARGETS);
	if (w.targets < 0) {
		ret = w.targets == -ENOENT ? 0 : w.targets;
		goto out;
	}
	w.targets_id = map_id(w.targets);
	ret = watch(&w);
out:
	for (size_t i = 0; w.fds && i < w.n; i++)
		if (w.fds[i].fd >= 0)
			close(w.fds[i].fd);
	if (w.targets >= 0)
		close(w.targets);
	free(w.fds);
	free(w.pids);
	return ret;
}

int pk_target_watch_start(const char *pin_dir, char err[PK_ERR_LEN])
{
	pid_t pid = fork();
	sigset_t none;
	int status, fd;

	if (pid < 0)
		return pk_err(err, -errno, "cannot start the targets' watcher: fork: %s",
			      strerror(errno));
	if (pid == 0) {
		/* Out of the terminal's session, so that its Ctrl-C and hangup
		 * do not end it; the second fork makes init its parent. */
		if (setsid() < 0 || fork() != 0)
			_exit(0);
		fd = open("/dev/null", O_RDWR);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(1);
		/* no fd of the session's may keep a link alive past --unload */
		close_range(3, UINT_MAX, 0);
		if (chdir("/"))
			_exit(1);
		/* probe-load held the stop signals while it loaded: a TERM
		 * ends the watcher as it ends any process */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		prctl(PR_SET_NAME, "probekit-watch");
		_exit(pk_target_watch_run(pin_dir) ? 1 : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			break;
	return 0;
}
