// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers: main -> spawn_one -> vfork, COUNT times, each child
 * exec'ing /bin/true. Usage: vfork COUNT
 *
 * The parent waits inside glibc's __vfork until its child has exec'd:
 * off-CPU samples (-e off-cpu) find it there, where the CFI keeps the
 * return address in %rdi (pop %rdi; syscall; push %rdi: DW_CFA_register
 * rip, rdi), a rule the walk evaluates only while it knows %rdi (the
 * interrupted registers).
 */
#include <stdio.h>
#include <sys/wait.h>

#include "nofp.h"

NOFP_FN void spawn_one(void)
{
	char *const argv[] = { "true", NULL };
	char *const envp[] = { NULL };
	int status;
	pid_t pid = vfork();

	if (pid == 0) {
		execve("/bin/true", argv, envp);
		_exit(127);
	}
	NOFP_AFTER_CALL();
	if (pid > 0)
		waitpid(pid, &status, 0);
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 0;

	if (count <= 0) {
		fputs("usage: vfork COUNT\n", stderr);
		return 2;
	}
	for (int i = 0; i < count; i++) {
		spawn_one();
		NOFP_AFTER_CALL();
	}
	return 0;
}
