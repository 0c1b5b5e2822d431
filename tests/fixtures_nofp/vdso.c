// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers, and much of the time in the vDSO, which has no file:
 * main -> timer_loop -> clock_gettime (libc) -> the vDSO's clock_gettime.
 * Its table comes from the [vdso] image. Usage: vdso SECONDS
 */
#include <time.h>

#include "nofp.h"

NOFP_FN void timer_loop(void)
{
	struct timespec ts;

	while (!nofp_stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		nofp_sink += ts.tv_nsec;
	}
}

int main(int argc, char **argv)
{
	nofp_arm(argc, argv, 1, "vdso SECONDS");
	timer_loop();
	NOFP_AFTER_CALL();
	return 0;
}
