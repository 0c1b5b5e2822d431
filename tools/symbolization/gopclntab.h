/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Function names, source lines and inlined frames of a Go binary from its
 * .gopclntab: the table the Go runtime itself reads for its tracebacks,
 * which `go build -ldflags="-s -w"` (how Go services ship) keeps when it
 * drops .symtab and DWARF. What `go tool addr2line` prints, plus the
 * functions the compiler inlined at the address (FUNCDATA_InlTree), as
 * the runtime's own traceback shows them.
 *
 * The table's core (header, functions, pc-value tables, where the file
 * keeps them) is eh_frame/go_pclntab.h, which the unwind tables of a Go
 * binary without CFI read too.
 *
 * Go 1.18 to 1.27's layouts are read (go_pclntab.h says which); older
 * and unknown ones are refused with one line: their files' frames stay
 * named by address. Without go:func.* (where the inline trees are), no
 * inlined frame is given and the lines of a function that inlines others
 * are left out (they would be the inlined code's, under the caller's
 * name).
 *
 * The table is untrusted bytes (any file a process maps): every offset is
 * checked against its part of the table; a bad one ends that lookup
 * (fewer frames, no line), never reads past the section
 * (tests/fuzz/fuzz_gopclntab.c).
 */
#ifndef PK_GOPCLNTAB_H
#define PK_GOPCLNTAB_H

#include "eh_frame/go_pclntab.h"
#include "symbolization/srcline.h"

/*
 * The frames at PC (an ELF virtual address), as pk_srcline_lookup gives
 * them: innermost first (the function inlined at PC, with PC's file and
 * line), then each caller it is inlined into with the line of the call,
 * the function itself last, *ENTRY its address. Up to MAX frames: a deeper
 * chain keeps its innermost MAX-1 and the function. Names are as Go
 * prints them (main.main.func1); file and line are NULL and 0 where the
 * table has none. Returns the number of frames, 0 when no function of the
 * table holds PC, or -EINVAL (MAX < 1).
 */
int pk_gopclntab_lookup(const struct pk_gopclntab *t, __u64 pc, struct pk_srcline_frame *out,
			int max, __u64 *entry);

#endif
