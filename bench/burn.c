// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * burn SECONDS: keep one CPU busy for SECONDS s in code spread over libc
 * (qsort calling back, snprintf, strtod), libm and zlib, so that a profile
 * of it has stacks through several files to unwind and name. Built without
 * frame pointers (the distribution's default). One of the workloads of
 * bench/probe-read-system.sh; the deadline ends it should the script die.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

#define N 512

static volatile double sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void sort_round(unsigned *seed)
{
	double v[N];

	for (int i = 0; i < N; i++)
		v[i] = rand_r(seed);
	qsort(v, N, sizeof(v[0]), cmp);
	sink += v[N / 2];
}

static void format_round(unsigned *seed)
{
	char buf[64];

	for (int i = 0; i < N / 8; i++) {
		snprintf(buf, sizeof(buf), "%.17g", rand_r(seed) / 3.0);
		sink += strtod(buf, NULL);
	}
}

static void math_round(unsigned *seed)
{
	double x = rand_r(seed) / (double)RAND_MAX;

	for (int i = 0; i < N; i++)
		x = sin(x) + exp(-x) + log1p(x);
	sink += x;
}

static void zlib_round(unsigned *seed)
{
	unsigned char in[4096], out[8192];
	uLongf outlen = sizeof(out);

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = rand_r(seed) % 16;
	compress2(out, &outlen, in, sizeof(in), 6);
	sink += crc32(0, out, outlen);
}

int main(int argc, char **argv)
{
	double end;
	unsigned seed = 1;

	if (argc != 2 || atof(argv[1]) <= 0) {
		fprintf(stderr, "usage: burn SECONDS\n");
		return 2;
	}
	end = now() + atof(argv[1]);
	while (now() < end) {
		sort_round(&seed);
		format_round(&seed);
		math_round(&seed);
		zlib_round(&seed);
	}
	return 0;
}
