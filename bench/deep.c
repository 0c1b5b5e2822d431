// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * deep DEPTH SECONDS [NPROC [sort]]: the workload of bench/dwarf.sh and
 * bench/overhead.sh. NPROC processes (default 1; the first is this one, the
 * others forked) each recurse DEPTH frames deep and spin at the bottom for
 * SECONDS of wall time. A sample of the spin holds DEPTH frames of rec()
 * plus main, __libc_start_call_main, __libc_start_main and _start. With
 * `sort`, the bottom sorts arrays of records with libc's qsort() and a
 * comparator instead of spinning: about 12 more frames (glibc 2.36's
 * merge-sort recursion, the comparator), in libc and in this file.
 *
 * bench/dwarf.sh builds it twice: -O2 -fomit-frame-pointer (no frame
 * pointers: only the CFI unwinds it) and -O2 -fno-omit-frame-pointer (the
 * same code for a frame-pointer reference). The asm barrier after each call
 * keeps it out of tail position, noinline/noipa keeps every frame.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__clang__)
#define DEEP_FN __attribute__((noinline, used))
#else
#define DEEP_FN __attribute__((noinline, noipa, used))
#endif
#define AFTER_CALL() __asm__ __volatile__("" ::: "memory")

static volatile sig_atomic_t stop;
static volatile unsigned long sink;
static int sorting;

#define NREC	4096

struct rec {
	unsigned long key;
	char name[24];
};

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sort until the alarm: keys that repeat, so that names are compared. */
DEEP_FN void sort_until_stop(void)
{
	static struct rec recs[NREC];
	unsigned long x = (unsigned long)getpid() * 2654435761u + 1;

	while (!stop) {
		for (int i = 0; i < NREC; i++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			recs[i].key = x >> 52;
			snprintf(recs[i].name, sizeof(recs[i].name), "%lu", x >> 20);
		}
		qsort(recs, NREC, sizeof(recs[0]), cmp_rec);
		sink += recs[NREC / 2].key;
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

DEEP_FN void rec(int n)
{
	volatile char pad[8];

	pad[0] = (char)n;
	if (n <= 1) {
		if (sorting)
			sort_until_stop();
		while (!stop)
			sink = sink * 31 + 7;
		return;
	}
	rec(n - 1);
	AFTER_CALL();
	sink += pad[0];
}

int main(int argc, char **argv)
{
	int depth, secs, nproc = 1, status, ret = 0;

	if (argc < 3 || argc > 5 || (depth = atoi(argv[1])) < 1 || (secs = atoi(argv[2])) < 1 ||
	    (argc > 3 && (nproc = atoi(argv[3])) < 1) ||
	    (argc > 4 && !(sorting = !strcmp(argv[4], "sort")))) {
		fprintf(stderr, "usage: deep DEPTH SECONDS [NPROC [sort]]\n");
		return 2;
	}
	for (int i = 1; i < nproc; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("deep: fork");
			ret = 1;
			break;
		}
		if (pid == 0) {
			/* a child: wait for nobody, die with the parent (a
			 * killed workload leaves no spinner behind) */
			nproc = 0;
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				return 0;
			break;
		}
	}
	signal(SIGALRM, on_alarm);
	alarm((unsigned int)secs);
	rec(depth);
	AFTER_CALL();
	if (nproc)
		while (wait(&status) > 0)
			;
	return ret;
}
