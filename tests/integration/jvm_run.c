// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A JVM the HotSpot tests start and talk to (jvm_run.h). */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "integration/jvm_run.h"
#include "test_util.h"

void pk_jvm_wait_line(struct pk_jvm *vm, const char *word, char *rest, size_t len)
{
	char buf[4096];
	size_t have = 0, n = strlen(word);

	/* a byte at a time: what follows the line stays in the pipe */
	for (;;) {
		struct pollfd p = { vm->out, POLLIN, 0 };

		ck_assert_msg(poll(&p, 1, 120000 * (int)pk_test_slowdown()) == 1,
			      "the JVM printed no '%s'", word);
		ck_assert_msg(read(vm->out, buf + have, 1) == 1, "the JVM exited: %.*s",
			      (int)have, buf);
		if (buf[have] != '\n') {
			have += have < sizeof(buf) - 1;
			continue;
		}
		if (have >= n && !memcmp(buf, word, n) && (have == n || buf[n] == ' ')) {
			buf[have] = 0;
			if (rest)
				snprintf(rest, len, "%s", have > n ? buf + n + 1 : "");
			return;
		}
		have = 0;
	}
}

/* /proc/PID/comm is "java". */
static bool is_java(pid_t pid)
{
	char path[64], *t;
	bool yes;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	t = pk_test_read_file(path, NULL);
	yes = t && !strcmp(t, "java\n");
	free(t);
	return yes;
}

pid_t pk_jvm_find(pid_t pid, int depth)
{
	char path[64], *t, *p, *end;
	pid_t found = 0;

	if (is_java(pid))
		return pid;
	if (!depth)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	t = pk_test_read_file(path, NULL);
	for (p = t; p && *p && !found; p = end) {
		pid_t c = (pid_t)strtol(p, &end, 10);

		if (end == p)
			break;
		found = pk_jvm_find(c, depth - 1);
	}
	free(t);
	return found;
}

pid_t pk_jvm_ns_pid(pid_t pid)
{
	char path[64], *t, *l;
	pid_t v = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	t = pk_test_read_file(path, NULL);
	ck_assert_ptr_nonnull(t);
	l = strstr(t, "\nNSpid:");
	ck_assert_ptr_nonnull(l);
	for (char *p = l + 7, *end; *p && *p != '\n'; p = end) {
		long x = strtol(p, &end, 10);

		if (end == p)
			break;
		v = (pid_t)x;
	}
	free(t);
	return v;
}

void pk_jvm_start(const char *root, const char *java, const char *const args[],
		  struct pk_jvm *vm)
{
	char fix[4096], in_root[4096], rootdir[4096];
	const char *argv[32];
	int in[2], out[2];
	pid_t parent = getpid();
	size_t n = 0;

	pk_test_build_path("fixtures_java", fix, sizeof(fix));
	if (root) {
		pk_test_src_path("tests/roots/in_root.sh", in_root, sizeof(in_root));
		pk_test_roots_path(root, rootdir, sizeof(rootdir));
		argv[n++] = in_root;
		argv[n++] = "-o";
		argv[n++] = fix;
		argv[n++] = rootdir;
	}
	argv[n++] = java;
	argv[n++] = "-cp";
	argv[n++] = root ? "/mnt/out" : fix;
	for (size_t i = 0; args[i]; i++) {
		ck_assert_uint_lt(n, sizeof(argv) / sizeof(argv[0]) - 1);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	vm->child = fork();
	ck_assert_int_ge(vm->child, 0);
	if (vm->child == 0) {
		pk_test_die_with_parent(parent);
		dup2(in[0], 0);
		dup2(out[1], 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	vm->in = in[1];
	vm->out = out[0];
	pk_jvm_wait_line(vm, "ready", NULL, 0);
	vm->pid = pk_jvm_find(vm->child, 3);
	ck_assert_msg(vm->pid > 0, "no java under %d", vm->child);
	vm->nspid = pk_jvm_ns_pid(vm->pid);
}

void pk_jvm_stop(struct pk_jvm *vm)
{
	int st;

	close(vm->in);
	ck_assert_int_eq(waitpid(vm->child, &st, 0), vm->child);
	close(vm->out);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the JVM ended with %#x", st);
}
