/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A parser for binutils readelf's call-frame dumps, the independent side of
 * the oracle test: `readelf --debug-dump=frames-interp` gives the rule table
 * of every FDE, `readelf --debug-dump=frames` the raw instructions, from which
 * we take what the table leaves out (the CIE augmentation, with 'S' for signal
 * frames, and the text of each CFA expression shown as "exp").
 */
#ifndef READELF_FRAMES_H
#define READELF_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One interp row, as readelf prints it. */
struct rf_row {
	uint64_t pc;
	char cfa[48];		/* "rsp+8", "rbp+16", "r11-8", "exp" */
	char rbp[32];		/* RBP column: "u", "s", "c-16", "r10 (r10)", "exp"...;
				 * "" when the FDE never mentions RBP */
	char ra[32];		/* return-address column, "" when absent */
	char saved[5][32];	/* the rbx, r12, r13, r14, r15 columns, as rbp */
	char *cfa_expr;		/* the DW_CFA_def_cfa_expression operand text
				 * ("DW_OP_breg7 (rsp): 8; DW_OP_deref") when
				 * cfa is "exp", else NULL; owned */
};

struct rf_fde {
	bool debug_frame;	/* from .debug_frame, else .eh_frame */
	uint64_t offset;	/* of the FDE in its section */
	uint64_t pc_begin, pc_end;
	char augmentation[16];	/* of its CIE */
	bool signal;		/* CIE augmentation contains 'S' */
	/* Rows in order. An FDE of nothing but DW_CFA_nop is printed without
	 * rows; it gets one, its CIE's initial rules at pc_begin. */
	struct rf_row *rows;
	int nrows;
};

struct rf_frames {
	struct rf_fde *fdes;	/* .eh_frame FDEs, then .debug_frame ones */
	int nfdes;
};

/*
 * Parse the two dumps of one file. 0, or -EBADMSG with one line in ERR when
 * they do not look like readelf's output or do not match each other (the
 * raw dump must show one CFA expression snapshot per interp row). Free OUT
 * with rf_frames_free() in every case.
 */
int rf_frames_parse(const char *interp, const char *raw, struct rf_frames *out,
		    char *err, size_t errlen);
void rf_frames_free(struct rf_frames *f);

/* Split a readelf row into columns: whitespace-separated, except that a
 * register rule prints as "r10 (r10)" and stays one column. Returns the
 * number of columns (at most MAX), each NUL-terminated in place. */
int rf_split_columns(char *line, char **cols, int max);

#endif
