// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Code without CFI inside a file that has some: main -> nocfi_top -> mid ->
 * leaf, where mid (nocfi_mid.c) is built with -fno-asynchronous-unwind-tables
 * -fno-omit-frame-pointer, so that no FDE covers it but it keeps a frame
 * pointer. All of the CPU time is in leaf. Usage: nocfi SECONDS [nofp]
 * With nofp, nocfi_top calls mid_nofp instead: no CFI and no frame
 * pointer, where the walk must stop and say so ("no CFI at PC").
 *
 * The DWARF walk finds no rule at mid's return address (a gap between FDEs)
 * and must take a frame-pointer step through mid to nocfi_top, whose CFI
 * it follows again, to _start. perf --call-graph dwarf (6.1, libdw 0.188)
 * is no oracle here: its frame-pointer fallback crosses mid but loses
 * nocfi_top's caller (`[unknown];nocfi_top;mid;leaf`, with or without the
 * junk %rbp below), so the test asserts the known chain.
 */
#include <string.h>

#include "nofp.h"

void mid(void);
void mid_nofp(void);

static int use_nofp;

NOFP_FN void leaf(void)
{
	for (int i = 0; i < 4096 && !nofp_stop; i++)
		nofp_sink = nofp_sink * 31 + 7;
}

NOFP_FN void nocfi_top(void)
{
	volatile char pad[40];

	pad[0] = 1;
	/* %rbp is callee-saved and mid sets its own: junk here, so that only
	 * the frame mid builds makes the step through it */
	__asm__ __volatile__("mov $0x7, %%rbp" ::: "rbp");
	while (!nofp_stop) {
		if (use_nofp)
			mid_nofp();
		else
			mid();
		NOFP_AFTER_CALL();
	}
	nofp_sink += pad[0];
}

int main(int argc, char **argv)
{
	nofp_arm(argc, argv, 1, "nocfi SECONDS [nofp]");
	use_nofp = argc > 2 && !strcmp(argv[2], "nofp");
	nocfi_top();
	NOFP_AFTER_CALL();
	return 0;
}
