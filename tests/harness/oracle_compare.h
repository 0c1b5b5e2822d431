/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The readelf oracle's judgement: what our table must say for each readelf
 * row (classified from readelf's own output, never from our code), and the
 * comparison of a parsed `eh2table --dump` against readelf's rows at every
 * PC where either side changes rule, gaps between FDEs included.
 */
#ifndef ORACLE_COMPARE_H
#define ORACLE_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "harness/readelf_frames.h"

/* A rule in the dump's text format, e.g. { "rsp+16", "c-16", "c-8",
 * { "c-24", "u", "u", "u", "u" } }: saved[] are rbx, r12-r15. */
struct oc_rule {
	char cfa[64];
	char rbp[32];
	char ra[32];
	char saved[5][32];
};

/* The class of a readelf CFA expression text: "plt1", "plt2",
 * "*(rsp+8)+0" (a dereference, canonical form) or "unsupported". */
void oc_classify_expr(const char *expr, char *buf, size_t len);

/* What our table must say where readelf prints ROW of FDE. */
void oc_expect(const struct rf_fde *fde, const struct rf_row *row, struct oc_rule *out);

/* A parsed `eh2table --dump`. */
struct oc_row {
	uint64_t pc;
	struct oc_rule rule;
};

struct oc_table {
	struct oc_row *rows;	/* ascending PCs */
	int n;
};

/* Parse a dump: '#' lines skipped, every other line
 * "<pc> <cfa> <rbp> <ra> <rbx> <r12> <r13> <r14> <r15>"
 * with strictly ascending PCs; a dereference is put in canonical form.
 * 0 or -EBADMSG with one line in ERR. */
int oc_parse_dump(const char *text, struct oc_table *out, char *err, size_t errlen);
void oc_table_free(struct oc_table *t);

struct oc_stats {
	long fdes_eh, fdes_debug;	/* FDEs with a non-empty range */
	long compared, agreed;		/* points inside FDEs */
	long gap_compared, gap_agreed;	/* points no FDE covers: must be end */
	long overlaps;			/* FDE pairs of one section that overlap */
};

/*
 * Compare OURS with readelf's FRAMES. Coverage: .eh_frame wins over
 * .debug_frame; between two overlapping FDEs of one section, the one with the
 * greatest start at or below a PC covers it, up to its own end (libgcc's
 * lookup); .debug_frame FDEs at address 0 (discarded functions) are ignored. Each disagreement is
 * counted; the first MAX_REPORT are described on REPORT. 0 or -ENOMEM.
 */
int oc_compare(const struct rf_frames *frames, const struct oc_table *ours,
	       struct oc_stats *stats, FILE *report, int max_report);

#endif
