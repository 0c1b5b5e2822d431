// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers, a signal handler on the stack: main -> sig_a ->
 * sig_work spins; every 20 ms of CPU time SIGPROF interrupts it and the
 * handler spins in handler_spin for a while. Usage: signal SECONDS
 * In the handler the stack is main;sig_a;sig_work;__restore_rt;on_prof;
 * handler_spin: the unwinder must cross the kernel's signal frame (glibc's
 * __restore_rt, whose CFI reads the registers from the ucontext).
 */
#include <sys/time.h>

#include "nofp.h"

#define HANDLER_SPINS 4000000

NOFP_FN void handler_spin(void)
{
	for (long i = 0; i < HANDLER_SPINS && !nofp_stop; i++)
		nofp_sink = nofp_sink * 31 + 7;
}

NOFP_FN void on_prof(int sig)
{
	volatile char pad[40];

	pad[0] = (char)sig;
	handler_spin();
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

NOFP_FN void sig_work(void)
{
	volatile char pad[24];

	pad[0] = 1;
	while (!nofp_stop)
		nofp_sink = nofp_sink * 17 + pad[0];
}

NOFP_FN void sig_a(void)
{
	volatile char pad[104];

	pad[0] = 1;
	sig_work();
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	struct sigaction sa = { 0 };

	nofp_arm(argc, argv, 1, "signal SECONDS");
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) || setitimer(ITIMER_PROF, &it, NULL))
		return 1;
	sig_a();
	NOFP_AFTER_CALL();
	return 0;
}
