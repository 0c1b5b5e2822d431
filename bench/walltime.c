// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * walltime [-o FILE] [-k] CMD [ARG...]: run CMD once, stdout to FILE
 * (default /dev/null), and print its whole-process wall time in ms. The
 * clock is read right around posix_spawn() and waitpid(), so the figure
 * holds less of the measuring tool than a shell's fork+exec would. Exit
 * status: CMD's, or 0 with -k (keep going: readelf exits 1 on libc.so.6
 * after a complete dump). Used by the bench scripts.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	const char *out = "/dev/null";
	posix_spawn_file_actions_t fa;
	struct timespec t0, t1;
	bool keep_going = false;
	int opt, status, err;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+o:k")) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'k')
			keep_going = true;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: walltime [-o FILE] [-k] CMD [ARG...]\n");
		return 2;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = posix_spawnp(&pid, argv[optind], &fa, NULL, argv + optind, environ);
	if (err) {
		fprintf(stderr, "walltime: %s: %s\n", argv[optind], strerror(err));
		return 127;
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	posix_spawn_file_actions_destroy(&fa);
	printf("%.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	if (!WIFEXITED(status))
		return 1;
	return keep_going ? 0 : WEXITSTATUS(status);
}
