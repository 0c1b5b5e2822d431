// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers, one address range for two libraries in turn:
 * dlopen reuse_lib1-<cc>.so, spin in it (main -> run_lib -> lib1_fn ->
 * lib1_spin) for SECONDS of CPU time, dlclose it, dlopen
 * reuse_lib2-<cc>.so, which the kernel maps into the hole lib1 left, and
 * spin in it (main -> run_lib -> lib2_fn -> lib2_spin) for SECONDS more.
 * Usage: dlclose_reuse SECONDS REPORT_FILE
 * Writes "lib1 START-END\nlib2 START-END\nreused yes|no\n" to REPORT_FILE,
 * the executable mappings from /proc/self/maps: "yes" when lib2's text
 * starts at lib1's.
 */
#include <stdint.h>
#include <time.h>

#include "nofp.h"
#include "nofp_dl.h"

typedef void lib_fn_t(volatile sig_atomic_t *stop);

/* The first executable mapping of PATH in /proc/self/maps. */
static int text_range(const char *path, unsigned long *start, unsigned long *end)
{
	FILE *f = fopen("/proc/self/maps", "r");
	static char line[4608], file[4200];
	char perms[8];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4199s", start, end, perms, file) >= 3 &&
		    perms[2] == 'x' && !strcmp(file, path))
			found = 1;
	}
	fclose(f);
	return found;
}

/* %rbp holds junk below run_lib: a frame-pointer step from the libraries
 * (an unwinder's fallback where it has no table) stops at once instead of
 * making up callers, so a wrong caller in a profile can only come from a
 * wrong table. */
NOFP_FN void run_lib(lib_fn_t *fn)
{
	volatile char pad[56];

	pad[0] = 1;
	__asm__ __volatile__("mov $0x7, %%rbp" ::: "rbp");
	fn(&nofp_stop);
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

/* Spin in NAME's FN for SECS seconds of CPU time; its text range in START
 * and END. */
NOFP_FN int phase(const char *name, const char *fn_name, double secs, unsigned long *start,
		 unsigned long *end, void **handle)
{
	static char path[4200];
	lib_fn_t *fn;

	if (!(*handle = nofp_dlopen(name, path, sizeof(path))) ||
	    !(fn = (lib_fn_t *)dlsym(*handle, fn_name)) || !text_range(path, start, end))
		return -1;
	nofp_stop = 0;
	if (cpu_budget_arm(secs, &nofp_stop))
		return -1;
	run_lib(fn);
	NOFP_AFTER_CALL();
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long s1, e1, s2, e2;
	void *h1, *h2;
	FILE *report;
	double secs = nofp_arm(argc, argv, 1, "dlclose_reuse SECONDS REPORT_FILE");

	if (argc < 3)
		return 2;
	if (phase("reuse_lib1", "lib1_fn", secs, &s1, &e1, &h1))
		return 1;
	if (dlclose(h1))
		return 1;
	if (phase("reuse_lib2", "lib2_fn", secs, &s2, &e2, &h2))
		return 1;
	if (!(report = fopen(argv[2], "w")))
		return 1;
	fprintf(report, "lib1 %lx-%lx\nlib2 %lx-%lx\nreused %s\n", s1, e1, s2, e2,
		s1 == s2 ? "yes" : "no");
	return fclose(report) ? 1 : 0;
}
