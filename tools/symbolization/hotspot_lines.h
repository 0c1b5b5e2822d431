/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A Java method's line number table as HotSpot keeps it in its ConstMethod,
 * after the bytecodes (bpf/hotspot_records.h, struct pk_hs_method_event): a
 * stream of (bytecode index, line) pairs, each a delta from the one before
 * (both from 0): a byte (bci delta << 3 | line delta) when the deltas fit
 * (0..31, 0..7), else 0xff then the two deltas as signed ints (zigzag) in
 * HotSpot's compressed int coding (UNSIGNED5: base-64 digits above a
 * low-byte limit); a 0 byte ends it. The ints' coding lost its zero byte in
 * JDK 21 (one excluded byte, so that a 0 in the stream is only its end):
 * PK_HS_LINES_NO_ZERO says a report's stream has that coding.
 *
 * The bytes are the traced process's: nothing is read past LEN, and any
 * sequence gives a line or an error.
 */
#ifndef PK_HOTSPOT_LINES_H
#define PK_HOTSPOT_LINES_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The line of bytecode index BCI in TABLE (LEN bytes), as HotSpot's
 * Method::line_number_from_bci() gives it: the line of a pair at BCI, else
 * of the pair nearest below it. NO_ZERO: JDK 21's coding of the ints.
 * 0 and *LINE (> 0); -ENOENT: no pair at or below BCI, or its line is not
 * above 0; -ENODATA: the table is cut (no end within LEN, a report's bound)
 * before a pair past BCI was read, so a pair further on might be nearer
 * (the pairs are taken to be in code order, as javac writes them).
 */
/* HotSpot's compressed int (UNSIGNED5) at TABLE[*POS] into *V, *POS
 * past it: 1; 0 at an excluded byte (where a stream without zero bytes
 * ends); -1 past LEN. X: the excluded bytes, 0 (JDK 17) or 1 (21 on). */
int pk_hs_read_u5(const __u8 *table, size_t len, size_t *pos, unsigned int x, __u32 *v);

int pk_hs_line_at(const __u8 *table, size_t len, bool no_zero, __u32 bci, __u32 *line);

#endif
