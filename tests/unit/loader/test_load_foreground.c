// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite load_session (test_load_session.c), the command in the foreground:
 * probe-load -- CMD exits with the command's status, and the command keeps
 * the terminal (its reads, its job control) while probe-load waits.
 */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/session.h"
#include "test_util.h"
#include "unit/loader/load_run.h"

/* --- the command in the foreground --------------------------------------- */

/* probe-load -- CMD ends with the command's status, as a shell reports it. */
START_TEST(test_command_exit_status)
{
	static const struct {
		const char *script;
		int status;
	} cases[] = {
		{ "exit 3", 3 },
		{ "exit 0", 0 },
		{ "kill -TERM $$", 128 + SIGTERM },
		{ "kill -KILL $$", 128 + SIGKILL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;

		ck_assert_int_eq(LOAD(&out, &err, "--", "sh", "-c", cases[i].script),
				 cases[i].status);
		ck_assert_str_eq(out, "");
		ck_assert_ptr_nonnull(strstr(err, "probekit: profiling pid "));
		free(out);
		free(err);
		LOAD_OK("--unload");
	}
}
END_TEST

/* One read of the pty's master, appended to BUF; false once the slave side
 * is closed (EIO) or BUF is full. */
static bool pty_read_some(int master, char *buf, size_t len)
{
	size_t n = strlen(buf);
	ssize_t r;

	do
		r = n + 1 < len ? read(master, buf + n, len - 1 - n) : 0;
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return false;
	buf[n + r] = '\0';
	return true;
}

/* Read until NEEDLE is in BUF (NULL: to the end). */
static bool pty_read_until(int master, char *buf, size_t len, const char *needle)
{
	while (!(needle && strstr(buf, needle)))
		if (!pty_read_some(master, buf, len))
			return false;
	return true;
}

/* probe-load -- sh -c SCRIPT on a terminal of its own: returns its status
 * after SEND was typed on the terminal once the command is up, with what
 * the terminal showed in OUT, and whether the command was in the terminal's
 * foreground process group when it was up. */
static int on_terminal(const char *script, const char *send, char *out, size_t len,
		       bool *foreground)
{
	char path[4096];
	int master, status, cmd = 0;
	const char *line;
	pid_t pid;

	pk_test_build_path("probe-load", path, sizeof(path));
	out[0] = '\0';
	pid = forkpty(&master, NULL, NULL, NULL);
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl(path, path, "--pin-dir", pk_ld_dir, "--", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	/* the command may say it first, or probe-load */
	ck_assert_msg(pty_read_until(master, out, len, "ready"), "terminal: %s", out);
	while (!(line = strstr(out, "probekit: profiling pid ")) || !strchr(line, '\n'))
		ck_assert_msg(pty_read_some(master, out, len), "terminal: %s", out);
	ck_assert_int_eq(sscanf(line, "probekit: profiling pid %d", &cmd), 1);
	*foreground = tcgetpgrp(master) == getpgid(cmd);
	/* held (not sampled) until its exec; sh said "ready": sampled */
	ck_assert_int_eq(pk_ld_target_state(cmd), PK_TARGET_LIVE);
	ck_assert_int_eq(write(master, send, strlen(send)), (ssize_t)strlen(send));
	pty_read_until(master, out, len, NULL);	/* to the end */
	close(master);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* An interactive command keeps the terminal: it reads what is typed (in a
 * background process group it would be stopped by SIGTTIN), and the
 * terminal's Ctrl-C ends it, not probe-load, which reports 128 + SIGINT. */
START_TEST(test_command_keeps_terminal)
{
	char out[8192];
	bool fg = false;

	ck_assert_int_eq(on_terminal("echo ready; read line; echo \"got $line\"; exit 7",
				     "hello\n", out, sizeof(out), &fg), 7);
	ck_assert_msg(fg, "the command is not in the terminal's foreground");
	ck_assert_msg(strstr(out, "got hello"), "terminal: %s", out);
	LOAD_OK("--unload");

	fg = false;
	ck_assert_int_eq(on_terminal("echo ready; read line; echo not-interrupted", "\003",
				     out, sizeof(out), &fg), 128 + SIGINT);
	ck_assert(fg);
	ck_assert_msg(!strstr(out, "not-interrupted"), "terminal: %s", out);
	LOAD_OK("--unload");
}
END_TEST

void pk_ld_foreground_tcase(Suite *s)
{
	TCase *tc = pk_ld_root_case(s, "foreground");

	tcase_add_test(tc, test_command_exit_status);
	tcase_add_test(tc, test_command_keeps_terminal);
}
