// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nocfi's middle frames, built without CFI (tests/nofp.mk): mid keeps a
 * frame pointer, the code a frame-pointer step must cross; mid_nofp has
 * none, and no step can cross it.
 */
#include "nofp.h"

void leaf(void);
void mid(void);
void mid_nofp(void);

/* In assembly, so that no compiler gives it a frame pointer: 24 bytes of
 * frame, %rbp untouched (the caller's junk). */
__asm__(".text\n"
	".globl mid_nofp\n"
	".type mid_nofp, @function\n"
	"mid_nofp:\n"
	"	sub $24, %rsp\n"
	"	call leaf\n"
	"	add $24, %rsp\n"
	"	ret\n"
	".size mid_nofp, .-mid_nofp\n");

NOFP_FN void mid(void)
{
	for (int i = 0; i < 16; i++) {
		leaf();
		NOFP_AFTER_CALL();
	}
}
