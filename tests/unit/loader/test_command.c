// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
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

Suite *suite_command(void)
{
	Suite *s = suite_create("command");
	TCase *tc = tcase_create("name");

	tcase_add_test(tc, test_named_before_exec);
	suite_add_tcase(s, tc);
	return s;
}
