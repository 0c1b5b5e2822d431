// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
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
	tcase_add_test(tc, test_bad_fd);
	suite_add_tcase(s, tc);
	return s;
}
