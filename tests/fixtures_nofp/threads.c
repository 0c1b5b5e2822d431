// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers, two worker threads: clone3 -> start_thread -> worker ->
 * work_a -> spin, all of the CPU time in spin; the main thread waits in
 * pthread_join. Usage: threads SECONDS (of CPU time, both workers'
 * together: about SECONDS / 2 of wall time on an idle machine)
 */
#include <pthread.h>

#include "nofp.h"

#define NTHREADS 2

NOFP_FN void spin(void)
{
	while (!nofp_stop)
		nofp_sink = nofp_sink * 31 + 7;
}

NOFP_FN void work_a(void)
{
	volatile char pad[56];

	pad[0] = 1;
	spin();
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

NOFP_FN void *worker(void *arg)
{
	volatile char pad[24];

	pad[0] = 1;
	work_a();
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];

	nofp_arm(argc, argv, 1, "threads SECONDS");
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
