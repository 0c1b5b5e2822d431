// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Library 1 of the dlclose_reuse fixture, built without frame pointers:
 * lib1_fn -> lib1_spin. reuse_lib1.c and reuse_lib2.c have the same
 * layout (same code size, so the same mapping size: the second lands where
 * the first was) but frames of different sizes: unwinding one with the
 * other's table goes wrong.
 */
#include "nofp.h"

NOFP_FN void lib1_spin(volatile sig_atomic_t *stop)
{
	volatile char pad[120];

	pad[0] = 1;
	while (!*stop)
		nofp_sink = nofp_sink * 31 + pad[0];
}

NOFP_FN void lib1_fn(volatile sig_atomic_t *stop)
{
	volatile char pad[24];

	pad[0] = 1;
	lib1_spin(stop);
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}
