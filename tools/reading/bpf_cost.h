/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What each event of a session costs in BPF, for probe-read --stats: the
 * run time per run of the programs behind it (kernel.bpf_stats, whose run
 * time and run count the kernel keeps per program only while statistics are
 * enabled), beside its per-event counters (hits, samples, skipped, short
 * blocks, lost).
 *
 * pk_bpf_cost_start() enables the statistics for as long as the object
 * lives (BPF_ENABLE_STATS: the kernel turns them off again when the last
 * holder goes, so a crashed reader leaves nothing on) and reads every
 * program once; pk_bpf_cost_print() reads them again and reports the
 * difference. Several events may run one program (tracepoints share theirs):
 * its cost is that program's, said to be shared, never split by guess.
 */
#ifndef PK_BPF_COST_H
#define PK_BPF_COST_H

#include <linux/types.h>
#include <stdio.h>

#include "bpf/probekit.h"
#include "eh_frame/errmsg.h"

/* One BPF program's statistics at one moment. */
struct pk_prog_run {
	__u32 id;
	int err;		/* 0; or the negative errno it could not be read
				 * with (-ENOENT: the program is gone) */
	__u64 run_time_ns;
	__u64 run_cnt;
};

struct pk_bpf_cost;

/*
 * Enable BPF run-time statistics (or find them enabled by the sysctl
 * kernel.bpf_stats_enabled) and read every distinct program of
 * EV[0..N).prog_ids. A program that is already gone is reported so by
 * print; not being allowed to read statistics (not root) is an error:
 * a negative errno and one line in ERR.
 */
int pk_bpf_cost_start(const struct pk_event_desc *ev, unsigned int n,
		       struct pk_bpf_cost **out, char err[PK_ERR_LEN]);

/*
 * One line per event on F, after a header line: its counters from COUNTS
 * (the session's event_counts summed over CPUs; NULL: none) and what its
 * programs cost since pk_bpf_cost_start(). EV and N as given to start.
 */
void pk_bpf_cost_print(const struct pk_bpf_cost *c, const struct pk_event_desc *ev,
			unsigned int n, const __u64 (*counts)[PK_ECNT_SLOTS], FILE *f);

void pk_bpf_cost_free(struct pk_bpf_cost *c);

/* The distinct non-zero program ids of EV[0..N), ascending, into IDS (room
 * for 2 * N); returns how many. */
unsigned int pk_bpf_cost_prog_ids(const struct pk_event_desc *ev, unsigned int n, __u32 *ids);

/*
 * What print prints, from two readings of the same NPROGS programs
 * (BEFORE[i].id == AFTER[i].id, ascending as pk_bpf_cost_prog_ids gives
 * them) taken INTERVAL_NS apart: the part of print that needs no kernel.
 */
void pk_bpf_cost_report(FILE *f, const struct pk_event_desc *ev, unsigned int n,
			const __u64 (*counts)[PK_ECNT_SLOTS],
			const struct pk_prog_run *before, const struct pk_prog_run *after,
			unsigned int nprogs, __u64 interval_ns);

#endif
