// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers: main -> f1 -> f2 -> f3 -> f4 -> f5, all of the CPU time
 * in f5. Usage: chain5 SECONDS [LINGER]
 * With LINGER, it then sleeps LINGER seconds before it exits: alive (its
 * mappings readable) but off the CPU, so that a reader started after the
 * spinning can still symbolize it.
 *
 * Each function has a stack frame of a different size, so a wrong CFA rule
 * lands on a wrong return address. f3 saves %rbp and loads a junk value into
 * it for f4 and f5: a frame-pointer walk from f5 stops at once (it can never
 * find f4's caller), while a DWARF walk restores %rbp from f3's CFI.
 */
#include <time.h>

#include "nofp.h"

NOFP_FN void f5(void)
{
	while (!nofp_stop)
		nofp_sink = nofp_sink * 31 + 7;
}

NOFP_FN void f4(void)
{
	volatile char pad[24];

	pad[0] = 4;
	f5();
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

NOFP_FN void f3(void)
{
	volatile char pad[40];

	pad[0] = 3;
	/* %rbp is callee-saved: the clobber makes f3 push it (with CFI) */
	__asm__ __volatile__("mov $0x7, %%rbp" ::: "rbp");
	f4();
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

NOFP_FN void f2(void)
{
	volatile char pad[72];

	pad[0] = 2;
	f3();
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

NOFP_FN void f1(void)
{
	volatile char pad[136];

	pad[0] = 1;
	f2();
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

int main(int argc, char **argv)
{
	struct timespec linger = { argc > 2 ? atoi(argv[2]) : 0, 0 };

	nofp_arm(argc, argv, 1, "chain5 SECONDS [LINGER]");
	f1();
	NOFP_AFTER_CALL();
	while (nanosleep(&linger, &linger))
		;
	return 0;
}
