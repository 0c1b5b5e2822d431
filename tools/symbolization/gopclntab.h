/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Function names, source lines and inlined frames of a Go binary from its
 * .gopclntab: the table the Go runtime itself reads for its tracebacks,
 * which `go build -ldflags="-s -w"` (how Go services ship) keeps when it
 * drops .symtab and DWARF. What `go tool addr2line` prints, plus the
 * functions the compiler inlined at the address (FUNCDATA_InlTree), as
 * the runtime's own traceback shows them.
 *
 * Layouts read (the table's magic; src/runtime/symtab.go, runtime2.go's
 * _func, internal/abi/symtab.go of each):
 *   0xfffffff0  Go 1.18, 1.19 (Debian 12): _func without startLine, the
 *               20-byte inlinedCall of Go 1.12-1.19
 *   0xfffffff1  Go 1.20 and later (Debian 13's 1.24, sid's 1.27): _func
 *               with startLine, the 16-byte inlinedCall; from Go 1.27 the
 *               header no longer holds the text address
 * Go 1.2-1.15 (0xfffffffb) and 1.16-1.17 (0xfffffffa) tables, and any
 * magic not known yet, are refused with one line: their files' frames
 * stay named by address.
 *
 * Where the table lives: .gopclntab. The text address (for Go 1.27's
 * table) and go:func.* (where the inline trees are, as offsets from it)
 * are fields of runtime.firstmoduledata, found by its first word (the
 * table's address) in the writable data; without go:func.*, no inlined
 * frame is given and the lines of a function that inlines others are
 * left out (they would be the inlined code's, under the caller's name).
 *
 * The table is untrusted bytes (any file a process maps): every offset is
 * checked against its part of the table; a bad one ends that lookup
 * (fewer frames, no line), never reads past the section
 * (tests/fuzz/fuzz_gopclntab.c).
 */
#ifndef PK_GOPCLNTAB_H
#define PK_GOPCLNTAB_H

#include <gelf.h>
#include <linux/types.h>
#include <stddef.h>

#include "eh_frame/errmsg.h"
#include "symbolization/srcline.h"

/* The bytes a table is read from: the ELF front end finds them in a
 * file (pk_gopclntab_from_elf), the fuzz target makes them up. They must
 * outlive the table: its names point into them. */
struct pk_gopclntab_src {
	const __u8 *tab;	/* .gopclntab */
	size_t len;
	__u64 text;		/* runtime.text; 0: the header's */
	const __u8 *gofunc;	/* go:func.* to the end of its section; NULL:
				 * not found (no inlined frames) */
	size_t gofunc_len;
};

struct pk_gopclntab;

/* The table of SRC. 0; -ENOENT when it is no Go table, -ENOTSUP for a
 * layout not read here (ERR says which), -EINVAL when its header does not
 * hold together, -ENOMEM. */
int pk_gopclntab_open(const struct pk_gopclntab_src *src, struct pk_gopclntab **out,
		      char err[PK_ERR_LEN]);

/* The table of ELF (which must outlive it), as pk_gopclntab_open;
 * -ENOENT when ELF has no .gopclntab. */
int pk_gopclntab_from_elf(Elf *elf, struct pk_gopclntab **out, char err[PK_ERR_LEN]);

void pk_gopclntab_free(struct pk_gopclntab *t);

/* The Go version range of T's layout ("1.18-1.19", "1.20+"). */
const char *pk_gopclntab_layout(const struct pk_gopclntab *t);

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
