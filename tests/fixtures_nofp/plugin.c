// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The library the dlopen fixture loads late, built without frame pointers:
 * plugin_fn -> plugin_spin, spinning while *STOP is 0.
 */
#include "nofp.h"

NOFP_FN void plugin_spin(volatile sig_atomic_t *stop)
{
	while (!*stop)
		nofp_sink = nofp_sink * 31 + 7;
}

NOFP_FN void plugin_fn(volatile sig_atomic_t *stop)
{
	volatile char pad[72];

	pad[0] = 1;
	plugin_spin(stop);
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}
