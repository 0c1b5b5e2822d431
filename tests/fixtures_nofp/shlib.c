// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers, a chain through a shared library (shlib_lib.c, also
 * without frame pointers): main -> lib_a -> lib_b (in the .so) ->
 * app_callback (back in the executable), which spins. Usage: shlib SECONDS
 */
#include "nofp.h"

void lib_a(void (*cb)(void));

static volatile sig_atomic_t *stop_flag = &nofp_stop;

NOFP_FN void app_callback(void)
{
	while (!*stop_flag)
		nofp_sink = nofp_sink * 31 + 7;
}

int main(int argc, char **argv)
{
	nofp_arm(argc, argv, 1, "shlib SECONDS");
	lib_a(app_callback);
	NOFP_AFTER_CALL();
	return 0;
}
