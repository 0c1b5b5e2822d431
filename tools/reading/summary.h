/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * probe-read's summary lines on stderr about what the reader saw (beside the
 * loss counters line of probe-read.c): how DWARF walks of user stacks ended,
 * and what became of the files the kernel reported without a table.
 */
#ifndef PK_SUMMARY_H
#define PK_SUMMARY_H

#include <stdio.h>

#include "reader.h"

/* "user stacks: 99.1% complete, 0.6% no table yet, 0.3% read fault": the
 * share of the samples with a DWARF walk that ended each way, for the ways
 * some did, in enum order. Nothing when no sample had a DWARF walk. */
void pk_summary_ustack_ends(FILE *f, const struct pk_reader_stats *st);

/* "unwind tables: 3 files reported without one, 2 added, 1 gone (process
 * exited)": nothing when no file was reported. */
void pk_summary_no_table(FILE *f, const struct pk_reader_stats *st);

/* "symbols: 99.2% of user frames named, 41.0% with a source line, 12.5%
 * inlined; 100.0% of kernel frames named": over every frame of every
 * sample read. Nothing without samples. */
void pk_summary_symbols(FILE *f, const struct pk_reader_stats *st);

#endif
