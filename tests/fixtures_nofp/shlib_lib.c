// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shared library of the shlib fixture, built without frame pointers:
 * lib_a -> lib_b -> the application's callback.
 */
#include "nofp.h"

NOFP_FN void lib_b(void (*cb)(void))
{
	volatile char pad[88];

	pad[0] = 1;
	cb();
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

NOFP_FN void lib_a(void (*cb)(void))
{
	volatile char pad[24];

	pad[0] = 1;
	lib_b(cb);
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}
