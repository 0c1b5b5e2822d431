// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers: main -> rec (250 frames deep) spinning at the bottom.
 * Usage: recurse SECONDS
 * With _start, __libc_start_main and __libc_start_call_main, a sample holds
 * 254 user frames: within the DWARF unwinder's 256.
 */
#include "nofp.h"

#define DEPTH 250

NOFP_FN void rec(int n)
{
	volatile char pad[8];

	pad[0] = (char)n;
	if (n <= 1) {
		while (!nofp_stop)
			nofp_sink = nofp_sink * 31 + 7;
		return;
	}
	rec(n - 1);
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

int main(int argc, char **argv)
{
	nofp_arm(argc, argv, 1, "recurse SECONDS");
	rec(DEPTH);
	NOFP_AFTER_CALL();
	return 0;
}
