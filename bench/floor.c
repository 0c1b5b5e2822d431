// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * floor SECONDS FREQ [NAME]: attach bench/floor.bpf.c's program floor_NAME
 * (empty, the default; copy_ring; fp_walk) to a cpu-clock event at FREQ Hz
 * on every online CPU, system-wide, for SECONDS of wall time, and print
 * "RUN_TIME_NS RUN_CNT" of its runs. The kernel
 * keeps run-time statistics only while somebody asks for them: the caller
 * holds them on (bench/bpf_events.bash's stats_hold), or the counts are 0.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "floor.skel.h"

#define MAX_CPUS	1024

static int open_cpu_clock(int cpu, unsigned long freq)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = freq,
	};

	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	struct bpf_link *links[MAX_CPUS] = { 0 };
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	const char *name = argc > 3 ? argv[3] : "empty";
	struct bpf_program *prog;
	struct floor_bpf *skel;
	int ncpus, secs, ret = 1;
	unsigned long freq;
	char prog_name[64];

	if (argc < 3 || argc > 4 || (secs = atoi(argv[1])) < 1 ||
	    !(freq = strtoul(argv[2], NULL, 10))) {
		fprintf(stderr, "usage: floor SECONDS FREQ [empty|copy_ring|fp_walk]\n");
		return 2;
	}
	skel = floor_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "floor: cannot load the reference programs: %s\n", strerror(errno));
		return 1;
	}
	snprintf(prog_name, sizeof(prog_name), "floor_%s", name);
	prog = bpf_object__find_program_by_name(skel->obj, prog_name);
	if (!prog) {
		fprintf(stderr, "floor: no reference program %s (empty, copy_ring, fp_walk)\n", name);
		ret = 2;
		goto out;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus < 0 || ncpus > MAX_CPUS) {
		fprintf(stderr, "floor: cannot count the CPUs\n");
		goto out;
	}
	for (int cpu = 0; cpu < ncpus; cpu++) {
		int fd = open_cpu_clock(cpu, freq);

		if (fd < 0 && errno == ENODEV)
			continue;	/* offline */
		if (fd < 0) {
			fprintf(stderr, "floor: perf_event_open on CPU %d: %s\n", cpu, strerror(errno));
			goto out;
		}
		links[cpu] = bpf_program__attach_perf_event(prog, fd);
		if (!links[cpu]) {
			fprintf(stderr, "floor: attach on CPU %d: %s\n", cpu, strerror(errno));
			close(fd);
			goto out;
		}
	}
	sleep(secs);
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len)) {
		fprintf(stderr, "floor: the program's statistics: %s\n", strerror(errno));
		goto out;
	}
	printf("%llu %llu\n", (unsigned long long)info.run_time_ns,
	       (unsigned long long)info.run_cnt);
	ret = 0;
out:
	for (int cpu = 0; cpu < MAX_CPUS; cpu++)
		bpf_link__destroy(links[cpu]);
	floor_bpf__destroy(skel);
	return ret;
}
