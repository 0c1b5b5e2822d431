// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers, blocked in known places for known times (off-cpu).
 * Usage: ev_block sleep|pipe|futex [TRUTH_FILE]
 *   sleep: main -> wait_here -> nanosleep, 100 ms twenty times, with about
 *          20 ms of spinning (spin) between: 2.0 s blocked in wait_here.
 *   pipe:  main -> pipe_reader -> read() of a pipe a child writes to after
 *          300 ms: blocked in the kernel's pipe_read.
 *   futex: main -> lock_waiter -> pthread_mutex_lock of a mutex another
 *          thread holds for 300 ms: blocked in futex_wait.
 * The nominal times are what the fixture asks for; a busy machine adds the
 * time the woken thread waits for a CPU, and off-CPU time rightly counts it.
 * So the fixture measures the truth itself: the wall time (CLOCK_MONOTONIC)
 * from before each blocking call to after it, summed, in microseconds, to
 * TRUTH_FILE.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "nofp.h"

NOFP_FN void spin(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			nofp_sink = nofp_sink * 31 + 7;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 20000000L);
}

NOFP_FN void wait_here(void)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	NOFP_AFTER_CALL();
}

NOFP_FN void pipe_reader(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		exit(1);
	NOFP_AFTER_CALL();
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int held;

static void *holder(void *arg)
{
	struct timespec ts = { 0, 300 * 1000 * 1000 };

	(void)arg;
	pthread_mutex_lock(&lock);
	held = 1;
	nanosleep(&ts, NULL);
	pthread_mutex_unlock(&lock);
	return NULL;
}

NOFP_FN void lock_waiter(void)
{
	pthread_mutex_lock(&lock);
	NOFP_AFTER_CALL();
	pthread_mutex_unlock(&lock);
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double blocked = 0, t0;

	if (!strcmp(mode, "sleep")) {
		for (int i = 0; i < 20; i++) {
			t0 = now_us();
			wait_here();
			NOFP_AFTER_CALL();
			blocked += now_us() - t0;
			spin();
			NOFP_AFTER_CALL();
		}
	} else if (!strcmp(mode, "pipe")) {
		int p[2];
		pid_t child;

		if (pipe(p))
			return 1;
		child = fork();
		if (child == 0) {
			struct timespec ts = { 0, 300 * 1000 * 1000 };

			nanosleep(&ts, NULL);
			_exit(write(p[1], "x", 1) != 1);
		}
		t0 = now_us();
		pipe_reader(p[0]);
		NOFP_AFTER_CALL();
		blocked += now_us() - t0;
		waitpid(child, NULL, 0);
	} else if (!strcmp(mode, "futex")) {
		pthread_t t;

		if (pthread_create(&t, NULL, holder, NULL))
			return 1;
		while (!held)
			;
		t0 = now_us();
		lock_waiter();
		NOFP_AFTER_CALL();
		blocked += now_us() - t0;
		pthread_join(t, NULL);
	} else {
		static const char usage[] = "usage: ev_block sleep|pipe|futex [TRUTH_FILE]\n";

		(void)!write(2, usage, sizeof(usage) - 1);
		return 2;
	}
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");

		if (!f || fprintf(f, "%.0f\n", blocked) < 0 || fclose(f))
			return 1;
	}
	return 0;
}
