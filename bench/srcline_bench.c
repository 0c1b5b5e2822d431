// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * srcline_bench FILE [EVERY]: source lines of FILE's instructions (every
 * EVERY-th one objdump -d lists, default 10), by pk_srcline and by
 * eu-addr2line -f -i -C over the same addresses, each 5 times; prints the
 * median addresses per second of both. pk_srcline runs cold every time: a
 * new Dwfl, the file and its debug file opened, every unit read on its first
 * address, as eu-addr2line does in its one process. Then the steady state
 * (a second pass over the same addresses, units already read) and the heap
 * the lookups added.
 */
#include <elfutils/libdwfl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_time.h"
#include "symbolization/srcline.h"

#define RUNS 5
#define MAX_FRAMES 64

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static double median(double *v)
{
	return bench_median(v, RUNS);
}

/* Every EVERY-th instruction objdump -d lists in PATH. */
static unsigned long long *insn_addrs(const char *path, int every, size_t *n)
{
	char cmd[4200], line[4096];
	unsigned long long *v = NULL;
	size_t cap = 0, seen = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		unsigned long long a;

		while (*p == ' ')
			p++;
		a = strtoull(p, &end, 16);
		if (end == p || end[0] != ':' || end[1] != '\t' || seen++ % every)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 4096;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				exit(1);
		}
		v[(*n)++] = a;
	}
	pclose(f);
	return v;
}

/* eu-addr2line over the addresses in ADDRS_PATH (its stdin), output
 * dropped: seconds, or < 0. */
static double run_eu(const char *path, const char *addrs_path)
{
	double t = bench_now();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (!freopen(addrs_path, "r", stdin) || !freopen("/dev/null", "w", stdout))
			_exit(127);
		execlp("eu-addr2line", "eu-addr2line", "-f", "-i", "-C", "-e", path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > 1)
		return -1;
	return bench_now() - t;
}

struct ours {
	double cold, warm;	/* seconds */
	size_t heap;		/* bytes the lookups added */
	size_t frames, inlined;
};

static int run_ours(const char *path, const unsigned long long *v, size_t n, struct ours *o)
{
	struct pk_srcline_frame f[MAX_FRAMES];
	struct pk_srcline *sl;
	Dwfl_Module *dm;
	Dwarf_Addr bias;
	size_t heap0;
	double t = bench_now();
	Dwfl *dwfl = dwfl_begin(&callbacks);

	if (!dwfl)
		return -1;
	dwfl_report_begin(dwfl);
	dm = dwfl_report_elf(dwfl, "bench", path, -1, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	sl = dm ? pk_srcline_new(dm) : NULL;
	if (!sl) {
		dwfl_end(dwfl);
		return -1;
	}
	o->frames = o->inlined = 0;
	for (size_t i = 0; i < n; i++) {
		int k = pk_srcline_lookup(sl, v[i], f, MAX_FRAMES);

		o->frames += k > 0 ? k : 0;
		o->inlined += k > 1;
	}
	o->cold = bench_now() - t;
	t = bench_now();
	for (size_t i = 0; i < n; i++)
		pk_srcline_lookup(sl, v[i], f, MAX_FRAMES);
	o->warm = bench_now() - t;
	pk_srcline_free(sl);
	dwfl_end(dwfl);

	/* The heap: the module and its DWARF opened, then all lookups. */
	dwfl = dwfl_begin(&callbacks);
	dwfl_report_begin(dwfl);
	dm = dwfl_report_elf(dwfl, "bench", path, -1, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	dwfl_module_getdwarf(dm, &bias);
	heap0 = mallinfo2().uordblks;
	sl = pk_srcline_new(dm);
	for (size_t i = 0; sl && i < n; i++)
		pk_srcline_lookup(sl, v[i], f, MAX_FRAMES);
	o->heap = mallinfo2().uordblks - heap0;
	pk_srcline_free(sl);
	dwfl_end(dwfl);
	return 0;
}

int main(int argc, char **argv)
{
	double eu[RUNS], cold[RUNS], warm[RUNS];
	char addrs_path[] = "/tmp/srcline-bench-XXXXXX";
	unsigned long long *v;
	struct ours o = {};
	size_t n;
	FILE *f;
	int fd;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s FILE [EVERY]\n", argv[0]);
		return 2;
	}
	v = insn_addrs(argv[1], argc > 2 ? atoi(argv[2]) : 10, &n);
	if (!v || !n) {
		fprintf(stderr, "%s: no instructions (objdump -d)\n", argv[1]);
		return 1;
	}
	fd = mkstemp(addrs_path);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return 1;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx\n", v[i]);
	fclose(f);
	for (int r = 0; r < RUNS; r++) {
		eu[r] = run_eu(argv[1], addrs_path);
		if (eu[r] < 0 || run_ours(argv[1], v, n, &o)) {
			fprintf(stderr, "%s: a run failed\n", argv[1]);
			unlink(addrs_path);
			return 1;
		}
		cold[r] = o.cold;
		warm[r] = o.warm;
	}
	unlink(addrs_path);
	printf("%s: %zu addresses (%zu with inlined calls, %zu frames), median of %d runs\n",
	       argv[1], n, o.inlined, o.frames, RUNS);
	printf("  eu-addr2line -f -i -C   %10.0f addresses/s  (%.3f s)\n", n / median(eu),
	       median(eu));
	printf("  pk_srcline, cold        %10.0f addresses/s  (%.3f s)  %.1fx\n", n / median(cold),
	       median(cold), median(eu) / median(cold));
	printf("  pk_srcline, units read  %10.0f addresses/s  (%.3f s)\n", n / median(warm),
	       median(warm));
	printf("  heap added by the lookups: %.1f MiB (%.0f bytes per address)\n",
	       o.heap / 1048576.0, (double)o.heap / n);
	free(v);
	return 0;
}
