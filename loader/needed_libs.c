// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader/needed_libs.h"

bool pk_needed_libs_parse_line(const char *line, char *buf, size_t len)
{
	const char *p = strstr(line, " => "), *end;
	size_t n;

	if (!p)
		return false;
	p += 4;
	if (*p != '/')		/* "not found" */
		return false;
	end = strstr(p, " (0x");
	if (!end)
		return false;
	n = end - p;
	if (n >= len)
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

int pk_needed_libs(const char *interp, const char *exe,
		   int (*fn)(void *ctx, const char *path), void *ctx)
{
	char *line = NULL, path[PATH_MAX];
	size_t cap = 0;
	int fds[2], status, ret = 0;
	pid_t pid;
	FILE *in;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		/* probe-load holds the stop signals while loading */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execl(interp, interp, "--list", exe, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	if (!in) {
		ret = -errno;
		close(fds[0]);
	} else {
		while (getline(&line, &cap, in) > 0)
			if (!ret && pk_needed_libs_parse_line(line, path, sizeof(path)))
				ret = fn(ctx, path);
		fclose(in);
	}
	free(line);
	if (waitpid(pid, &status, 0) < 0 && !ret)
		ret = -errno;
	if (!ret && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		ret = -ENOEXEC;
	return ret;
}
