// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers, a library loaded after the profiler started:
 * sleeps DELAY seconds, then dlopen()s plugin-<cc>.so (plugin.c) and spins
 * in it for SECONDS: main -> use_plugin -> plugin_fn -> plugin_spin.
 * Usage: dlopen DELAY SECONDS
 */
#include <time.h>

#include "nofp.h"
#include "nofp_dl.h"

typedef void plugin_fn_t(volatile sig_atomic_t *stop);

NOFP_FN void use_plugin(plugin_fn_t *fn)
{
	volatile char pad[40];

	pad[0] = 1;
	fn(&nofp_stop);
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

int main(int argc, char **argv)
{
	static char path[4200];
	void *h;
	plugin_fn_t *fn;
	int delay = argc > 2 ? atoi(argv[1]) : -1;
	struct timespec ts = { delay, 0 };

	if (delay < 0) {
		fprintf(stderr, "usage: dlopen DELAY SECONDS\n");
		return 2;
	}
	while (nanosleep(&ts, &ts))
		;
	if (!(h = nofp_dlopen("plugin", path, sizeof(path))) ||
	    !(fn = (plugin_fn_t *)dlsym(h, "plugin_fn")))
		return 1;
	nofp_arm(argc, argv, 2, "dlopen DELAY SECONDS");
	use_plugin(fn);
	NOFP_AFTER_CALL();
	return 0;
}
