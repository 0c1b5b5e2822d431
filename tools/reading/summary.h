/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * probe-read's summary lines on stderr about what the reader saw: samples
 * read and lost, how DWARF walks of user stacks ended, and what became of
 * the files the kernel reported without a table.
 */
#ifndef PK_SUMMARY_H
#define PK_SUMMARY_H

#include <stdio.h>

#include "bpf/probekit.h"
#include "reading/reader.h"

/* The lines printed after the summary when samples were lost. */
extern const char pk_summary_lost_hint[];

/* All of them, after the line of samples read, lost and failed (loss
 * counters from COUNTERS_FD, the session's) and, last, mapping reports
 * lost. EVENTS[0..n) the session's, KEEP as for pk_summary_events(). */
void pk_summary_print(FILE *f, const struct pk_reader *reader, int counters_fd,
		      const struct pk_event_desc *events, unsigned int nevents, int keep);

/*
 * One line per event, when the session has more than cpu-clock alone, so
 * that the reader of folded stacks knows what the counts are:
 *   "probe-read: cpu-clock: 1234 samples, 12.340 s of CPU (folded: samples)"
 *   "probe-read: off-cpu: 40 samples, 2001234 us blocked (folded: microseconds off-CPU)"
 *   "probe-read: kprobe:vfs_write: 100 samples of 1000 hits (folded: samples)"
 * The weight is left out where it is not known (samples from before
 * events); an event other than KEEP (>= 0: --event) says it was not written.
 */
void pk_summary_events(FILE *f, const struct pk_reader_stats *st,
		       const struct pk_event_desc *ev, unsigned int n, int keep);

/* "user stacks: 99.1% complete, 0.6% no table yet, 0.3% read fault": the
 * share of the samples with a DWARF walk that ended each way, for the ways
 * some did, in enum order. Nothing when no sample had a DWARF walk. */
void pk_summary_ustack_ends(FILE *f, const struct pk_reader_stats *st);

/* --aggregate: "probe-read: 9000 of them counted in the kernel
 * (--aggregate), 40 stacks sent to define them; 3 sent whole (the counts
 * map was full: ...)" and the samples counted under stacks whose
 * definition never came. CNT: the session's counters, or NULL. Nothing
 * for a session without aggregation. */
void pk_summary_aggregate(FILE *f, const struct pk_reader_stats *st, const __u64 *cnt);

/* "unsupported rules: 12 CFA expression, 3 return-address register not
 * known": the session's walks that ended "unsupported rule", by what was
 * not supported (the counters, CNT). Nothing when none did. */
void pk_summary_unsupported(FILE *f, const __u64 cnt[PK_CNT__MAX]);

/* "unwind tables: 3 files reported without one, 2 added, 1 gone (process
 * exited)": nothing when no file was reported. */
void pk_summary_no_table(FILE *f, const struct pk_reader_stats *st);
/* --from-now: how many samples of the backlog were dropped (nothing when
 * none was). */
void pk_summary_from_now(FILE *f, const struct pk_reader_stats *st);

/* "symbols: 99.2% of user frames named, 41.0% with a source line, 12.5%
 * inlined; 100.0% of kernel frames named": over every frame of every
 * sample read. Nothing without samples. Then, when a Go binary's
 * .gopclntab was refused (gopclntab.h), "symbols: FILE: why" (and how many
 * more were). */
void pk_summary_symbols(FILE *f, const struct pk_reader_stats *st);

/* "python: 1200 frames in 300 samples with a Python walk, 99.5% named,
 * 99.0% with a line; 4 past the native frames (put outermost); 98.0%
 * complete, 2.0% depth limit": the Python frames of every sample read
 * (the merge's mismatches, see reader.c) and how the Python walks ended.
 * Nothing without a Python walk. */
void pk_summary_python(FILE *f, const struct pk_reader_stats *st);

#endif
