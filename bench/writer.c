// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * writer N: N one-byte write(2)s to /dev/null from writer(), then print the
 * time they took in ms: the workload of bench/kprobe.sh (each write is one
 * vfs_write and one sys_enter_write). Timed inside, so the figure holds the
 * writes only, not the process start.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static int writer(int fd, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n;
	char *end;
	double t0;
	int fd;

	if (argc != 2 || (n = strtoul(argv[1], &end, 10), *end || !*argv[1])) {
		fprintf(stderr, "usage: writer N\n");
		return 2;
	}
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0) {
		perror("writer: /dev/null");
		return 1;
	}
	t0 = now_ms();
	if (writer(fd, n)) {
		perror("writer: write");
		return 1;
	}
	printf("%.3f\n", now_ms() - t0);
	return 0;
}
