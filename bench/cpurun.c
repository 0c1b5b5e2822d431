// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cpurun -t FILE CMD [ARG...]: run CMD (stdin, stdout, stderr inherited) and
 * write "WALL_MS USER_MS SYS_MS" to FILE: its wall time and the CPU time of
 * CMD and the descendants it waited for, from wait4(2) on CMD alone (a
 * shell's `time` adds every other child the shell reaps meanwhile). Exit
 * status: CMD's. Used by bench/dwarf.sh.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double ms(struct timeval tv)
{
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	struct timespec t0, t1;
	struct rusage ru;
	int opt, status, err;
	FILE *f;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+t:")) != -1) {
		if (opt == 't')
			out = optarg;
		else
			return 2;
	}
	if (!out || optind >= argc) {
		fprintf(stderr, "usage: cpurun -t FILE CMD [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = posix_spawnp(&pid, argv[optind], NULL, NULL, argv + optind, environ);
	if (err) {
		fprintf(stderr, "cpurun: %s: %s\n", argv[optind], strerror(err));
		return 127;
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "cpurun: %s: %s\n", out, strerror(errno));
		return 1;
	}
	fprintf(f, "%.3f %.3f %.3f\n",
		(t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
		ms(ru.ru_utime), ms(ru.ru_stime));
	if (fclose(f))
		return 1;
	if (!WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
