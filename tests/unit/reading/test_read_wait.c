// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reading/read_wait.h"
#include "test_util.h"

/* Waits that end at once when the code is right: a wait that should have
 * ended by an event and did not comes back 0 after this long and fails. */
#define LONG_MS 10000

/* A directory DIR/links, held open as a session's reader holds links/; a
 * pipe stands in for the ring buffer's epoll fd. */
struct fixture {
	char dir[64], links[PATH_MAX];
	int links_fd, pipe[2];
	struct pk_read_wait w;
};

static void fixture_open(struct fixture *f, bool watch_dir)
{
	snprintf(f->dir, sizeof(f->dir), "/tmp/pk-read-wait.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	snprintf(f->links, sizeof(f->links), "%s/links", f->dir);
	ck_assert_int_eq(mkdir(f->links, 0700), 0);
	f->links_fd = open(f->links, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(f->links_fd, 0);
	ck_assert_int_eq(pipe2(f->pipe, O_NONBLOCK | O_CLOEXEC), 0);
	ck_assert_int_eq(pk_read_wait_open(&f->w, f->pipe[0], watch_dir ? f->links_fd : -1), 0);
}

static void fixture_close(struct fixture *f)
{
	pk_read_wait_close(&f->w);
	ck_assert_int_eq(f->w.epoll_fd, -1);
	ck_assert_int_eq(f->w.wake_fd, -1);
	close(f->links_fd);
	close(f->pipe[0]);
	close(f->pipe[1]);
	rmdir(f->links);
	ck_assert_int_eq(rmdir(f->dir), 0);
}

START_TEST(test_timeout)
{
	struct fixture f;

	fixture_open(&f, true);
	ck_assert_int_ge(f.w.inotify_fd, 0);
	ck_assert_int_eq(pk_read_wait(&f.w, 0), 0);
	ck_assert_int_eq(pk_read_wait(&f.w, 1), 0);
	fixture_close(&f);
}
END_TEST

/* Readable input ends the wait, for as long as it is not read: the reader
 * consumes after every wait, whatever ended it. */
START_TEST(test_samples)
{
	struct fixture f;
	char c = 'x';

	fixture_open(&f, true);
	ck_assert_int_eq(write(f.pipe[1], &c, 1), 1);
	ck_assert_int_eq(pk_read_wait(&f.w, LONG_MS), PK_WAIT_SAMPLES);
	ck_assert_int_eq(pk_read_wait(&f.w, LONG_MS), PK_WAIT_SAMPLES);
	ck_assert_int_eq(read(f.pipe[0], &c, 1), 1);
	ck_assert_int_eq(pk_read_wait(&f.w, 0), 0);
	fixture_close(&f);
}
END_TEST

/* A wake ends one wait, and is used up by it. */
START_TEST(test_woken)
{
	struct fixture f;

	fixture_open(&f, false);
	pk_read_wait_wake(&f.w);
	pk_read_wait_wake(&f.w);
	ck_assert_int_eq(pk_read_wait(&f.w, LONG_MS), PK_WAIT_WOKEN);
	ck_assert_int_eq(pk_read_wait(&f.w, 0), 0);
	fixture_close(&f);
}
END_TEST

static struct pk_read_wait *signalled;

static void on_usr1(int sig)
{
	(void)sig;
	pk_read_wait_wake(signalled);
}

/* A signal that comes before the wait still ends it: no window between
 * the caller's last look at its flag and the sleep. */
START_TEST(test_signal_before_wait)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	struct fixture f;

	fixture_open(&f, true);
	signalled = &f.w;
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, &old), 0);
	ck_assert_int_eq(raise(SIGUSR1), 0);
	ck_assert_int_eq(pk_read_wait(&f.w, LONG_MS), PK_WAIT_WOKEN);
	ck_assert_int_eq(sigaction(SIGUSR1, &old, NULL), 0);
	fixture_close(&f);
}
END_TEST

/* The directory removed while held open, as --unload removes links/ under
 * its reader: the wait ends, and once seen, the removal wakes no more. */
START_TEST(test_unloaded)
{
	struct fixture f;

	fixture_open(&f, true);
	ck_assert_int_eq(rmdir(f.links), 0);
	ck_assert_int_eq(pk_read_wait(&f.w, LONG_MS), PK_WAIT_UNLOADED);
	ck_assert_int_eq(pk_read_wait(&f.w, 0), 0);
	fixture_close(&f);
}
END_TEST

START_TEST(test_no_watch)
{
	struct fixture f;

	fixture_open(&f, false);
	ck_assert_int_eq(f.w.inotify_fd, -1);
	ck_assert_int_eq(rmdir(f.links), 0);
	ck_assert_int_eq(pk_read_wait(&f.w, 0), 0);
	fixture_close(&f);
}
END_TEST

/* A child that exits when its pipe's write end (*FD) is closed. */
static pid_t child_until_closed(int *fd)
{
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		char c;

		/* none of the other children's write ends held open here */
		if (dup2(p[0], 0) < 0 || close_range(3, ~0u, 0))
			_exit(1);
		_exit(read(0, &c, 1) < 0);
	}
	close(p[0]);
	*fd = p[1];
	return pid;
}

/* Two processes watched: the first one's exit ends a wait with nothing,
 * the last one's with PK_WAIT_EXITED, which holds until they are
 * unwatched. */
START_TEST(test_exited)
{
	struct fixture f;
	siginfo_t info;
	int fd1, fd2;
	pid_t c1 = child_until_closed(&fd1), c2 = child_until_closed(&fd2);

	fixture_open(&f, true);
	ck_assert_int_eq(pk_read_wait_watch_exit(&f.w, c1), 0);
	ck_assert_int_eq(pk_read_wait_watch_exit(&f.w, c2), 0);
	ck_assert_int_eq(pk_read_wait(&f.w, 0), 0);
	close(fd1);
	/* exited, not reaped: a zombie's pidfd says it exited too */
	ck_assert_int_eq(waitid(P_PID, c1, &info, WEXITED | WNOWAIT), 0);
	ck_assert_int_eq(pk_read_wait(&f.w, LONG_MS), 0);
	ck_assert_int_eq(f.w.live, 1);
	close(fd2);
	ck_assert_int_eq(pk_read_wait(&f.w, LONG_MS), PK_WAIT_EXITED);
	ck_assert_int_eq(pk_read_wait(&f.w, 0), PK_WAIT_EXITED);
	pk_read_wait_unwatch(&f.w);
	ck_assert_int_eq(pk_read_wait(&f.w, 0), 0);
	ck_assert_int_eq(pk_test_wait(c1), 0);
	ck_assert_int_eq(pk_test_wait(c2), 0);
	/* reaped: gone for good */
	ck_assert_int_eq(pk_read_wait_watch_exit(&f.w, c1), -ESRCH);
	fixture_close(&f);
}
END_TEST

/* No more than PK_WAIT_MAX_PIDS watched: the caller looks on a timer. */
START_TEST(test_watch_bound)
{
	struct fixture f;

	fixture_open(&f, true);
	for (int i = 0; i < PK_WAIT_MAX_PIDS; i++)
		ck_assert_int_eq(pk_read_wait_watch_exit(&f.w, getpid()), 0);
	ck_assert_int_eq(pk_read_wait_watch_exit(&f.w, getpid()), -ENOSPC);
	ck_assert_int_eq(pk_read_wait(&f.w, 0), 0);
	fixture_close(&f);
	ck_assert_int_eq(f.w.npidfds, 0);
}
END_TEST

START_TEST(test_bad_fd)
{
	struct pk_read_wait w;

	ck_assert_int_eq(pk_read_wait_open(&w, -1, -1), -EBADF);
	ck_assert_int_eq(w.epoll_fd, -1);
	ck_assert_int_eq(w.wake_fd, -1);
	ck_assert_int_eq(w.inotify_fd, -1);
}
END_TEST

Suite *suite_read_wait(void)
{
	Suite *s = suite_create("read_wait");
	TCase *tc = tcase_create("wait");

	tcase_add_test(tc, test_timeout);
	tcase_add_test(tc, test_samples);
	tcase_add_test(tc, test_woken);
	tcase_add_test(tc, test_signal_before_wait);
	tcase_add_test(tc, test_unloaded);
	tcase_add_test(tc, test_no_watch);
	tcase_add_test(tc, test_exited);
	tcase_add_test(tc, test_watch_bound);
	tcase_add_test(tc, test_bad_fd);
	suite_add_tcase(s, tc);
	return s;
}
