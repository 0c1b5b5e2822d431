/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* dlopen() of a library that lies beside the running executable. */
#ifndef NOFP_DL_H
#define NOFP_DL_H

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* NAME-<compiler>.so beside /proc/self/exe, the compiler the fixture was
 * built with (NOFP_CC, set by tests/nofp.mk). */
static inline void *nofp_dlopen(const char *name, char *path, size_t len)
{
	static char exe[4096];	/* static: keep the stack small for perf's 8 KiB copy */
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	void *h;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(path, len, "%s/%s-%s.so", exe, name, NOFP_CC);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fprintf(stderr, "dlopen: %s\n", dlerror());
	return h;
}

#endif
