// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eh_frame/errmsg.h"
#include "loader/command.h"
#include "test_util.h"

/* /proc/PID/comm, without its newline, once it reads WANT or after 2 s. */
static char *comm_when(pid_t pid, const char *want)
{
	char path[64], *comm = NULL;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	for (int i = 0; i < 200; i++) {
		free(comm);
		comm = pk_test_read_file(path, NULL);
		ck_assert_ptr_nonnull(comm);
		comm[strcspn(comm, "\n")] = '\0';
		if (!strcmp(comm, want))
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	return comm;
}

/* Held before its exec, the command already has the name its exec will
 * give it (the base name, cut to 15 bytes as the kernel cuts it): a sample
 * taken before the exec completes is the command's, not probe-load's. */
START_TEST(test_named_before_exec)
{
	static const struct {
		const char *argv0, *comm;
	} cases[] = {
		{ "/bin/true", "true" },
		{ "true", "true" },
		{ "/opt/x/a-program-name-longer-than-fifteen", "a-program-name-" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *const argv[] = { (char *)cases[i].argv0, NULL };
		struct pk_command c;
		char err[PK_ERR_LEN];
		sigset_t mask;
		char *comm;

		sigemptyset(&mask);
		ck_assert_int_eq(pk_command_start(&c, argv, &mask, err), 0);
		comm = comm_when(c.pid, cases[i].comm);
		pk_command_abort(&c);
		ck_assert_str_eq(comm, cases[i].comm);
		free(comm);
	}
}
END_TEST

struct polled {
	int fd;
	int calls;
};

/* Take the byte, if there is one; come back twice after 10 ms, then no
 * more (< -1). */
static int poll_run(void *ctx)
{
	struct polled *p = ctx;
	char c;

	if (read(p->fd, &c, 1) < 0 && errno != EAGAIN)
		return -2;
	return ++p->calls < 3 ? 10 : -2;
}

/* While the command runs, the work is called when its fd is readable and
 * at its timeouts, until it says it is done; the command's status is
 * still the wait's. */
START_TEST(test_wait_polls)
{
	char *const argv[] = { "sh", "-c", "sleep 0.3; exit 3", NULL };
	struct polled p = { 0 };
	struct pk_command_poll work = { .timeout_ms = -1, .run = poll_run, .ctx = &p };
	struct pk_command c;
	char err[PK_ERR_LEN];
	sigset_t mask;
	int fds[2];

	ck_assert_int_eq(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
	ck_assert_int_eq(write(fds[1], "r", 1), 1);
	p.fd = work.fd = fds[0];
	sigprocmask(SIG_SETMASK, NULL, &mask);
	ck_assert_int_eq(pk_command_start(&c, argv, &mask, err), 0);
	ck_assert_int_eq(pk_command_release(&c, err), 0);
	ck_assert_int_eq(pk_command_wait(&c, &mask, &work), 3);
	ck_assert_int_eq(p.calls, 3);
	close(fds[0]);
	close(fds[1]);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}
END_TEST

Suite *suite_command(void)
{
	Suite *s = suite_create("command");
	TCase *tc = tcase_create("name");

	tcase_add_test(tc, test_named_before_exec);
	suite_add_tcase(s, tc);
	tc = tcase_create("wait");
	tcase_add_test(tc, test_wait_polls);
	suite_add_tcase(s, tc);
	return s;
}
