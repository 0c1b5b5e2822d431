// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Linked after nocfi_mid.c (tests/nofp.mk): a function with CFI after mid,
 * so that mid is a gap between FDEs (an END row of the table), not code
 * past the table's end.
 */
#include "nofp.h"

void nocfi_tail(void);

NOFP_FN void nocfi_tail(void)
{
	nofp_sink++;
}
