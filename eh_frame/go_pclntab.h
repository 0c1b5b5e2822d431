/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The core of a Go binary's .gopclntab, the table the Go runtime itself
 * reads for its tracebacks, which `go build -ldflags="-s -w"` (how Go
 * services ship) keeps when it drops .symtab, DWARF and .debug_frame:
 * its header, its function table and its pc-value tables. Two readers
 * stand on it: the symbolizer (tools/symbolization/gopclntab.h: names,
 * files, lines, inlined frames) and the unwind tables of a Go binary
 * without CFI (go_table.c: the SP delta of each PC, pcsp). Here, in the
 * lowest layer, so that both may include it.
 *
 * Layouts read (the table's magic; src/runtime/symtab.go, runtime2.go's
 * _func, internal/abi/symtab.go of each):
 *   0xfffffff0  Go 1.18, 1.19 (Debian 12): _func without startLine, the
 *               20-byte inlinedCall of Go 1.12-1.19
 *   0xfffffff1  Go 1.20 and later (Debian 13's 1.24, sid's 1.27): _func
 *               with startLine, the 16-byte inlinedCall; from Go 1.27 the
 *               header no longer holds the text address
 * Go 1.2-1.15 (0xfffffffb) and 1.16-1.17 (0xfffffffa) tables, and any
 * magic not known yet, are refused with one line.
 *
 * Where the table lives: .gopclntab (a PIE's: .data.rel.ro.gopclntab).
 * The text address (for Go 1.27's table) and go:func.* (where the inline
 * trees are, as offsets from it) are fields of runtime.firstmoduledata,
 * found by its first word (the table's address) in the writable data.
 *
 * The table is untrusted bytes (any file a process maps): every offset is
 * checked against its part of the table; a bad one ends that lookup,
 * never reads past the section (tests/fuzz/fuzz_gopclntab.c).
 */
#ifndef EH_GO_PCLNTAB_H
#define EH_GO_PCLNTAB_H

#include <gelf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "eh_frame/errmsg.h"

/* _func fields (runtime2.go), at their byte offsets */
#define PK_GOFUNC_NAME_OFF	4
#define PK_GOFUNC_PCSP		16
#define PK_GOFUNC_PCFILE	20
#define PK_GOFUNC_PCLN		24
#define PK_GOFUNC_NPCDATA	28
#define PK_GOFUNC_CU_OFFSET	32

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

/* A part of the table: [p, p + len). */
struct pk_gopart {
	const __u8 *p;
	size_t len;
};

struct pk_gopclntab {
	__u32 magic;
	unsigned quantum;	/* minLC: pc deltas are in its units */
	__u64 nfunc;
	__u64 text;		/* entry offsets are from it */
	struct pk_gopart funcname, cutab, filetab, pctab, pcln, gofunc;
	size_t func_size;	/* fixed part of a _func */
	size_t inl_size;	/* an inlinedCall */
	size_t inl_name, inl_parent_pc;	/* its nameOff and parentPc */
};

/* One function, as far as it is read. */
struct pk_gofunc {
	const __u8 *f;		/* its _func, whose fixed part is in the table */
	__u64 entry;
	__u64 end;		/* the next function's entry */
	__u32 npcdata, nfuncdata;
};

/* A walk over one pc-value table: each step gives VALUE for [PC, NEXT). */
struct pk_gopcv {
	const __u8 *p, *end;
	__u32 value;
	__u64 pc, next;
	bool first;
};

static inline __u32 pk_go_rd32(const __u8 *p)
{
	return (__u32)p[0] | (__u32)p[1] << 8 | (__u32)p[2] << 16 | (__u32)p[3] << 24;
}

static inline __u64 pk_go_rdptr(const __u8 *p, unsigned size)
{
	return size == 8 ? pk_go_rd32(p) | (__u64)pk_go_rd32(p + 4) << 32 : pk_go_rd32(p);
}

/* The u32 at OFF of PART into *V: false when it is not all in PART. */
static inline bool pk_go_part32(const struct pk_gopart *part, __u64 off, __u32 *v)
{
	if (off > part->len || part->len - off < 4)
		return false;
	*v = pk_go_rd32(part->p + off);
	return true;
}

/* The NUL-terminated string at OFF of PART, or NULL when it does not end
 * in PART. */
static inline const char *pk_go_part_str(const struct pk_gopart *part, __u64 off)
{
	if (off >= part->len || !memchr(part->p + off, 0, part->len - off))
		return NULL;
	return (const char *)part->p + off;
}

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

/* Function I (below T->nfunc) of the table into *FN: false when its
 * _func is not all in the table. */
bool pk_gopclntab_func_at(const struct pk_gopclntab *t, __u64 i, struct pk_gofunc *fn);

/* The function holding PC: false when none does or its _func is not all
 * in the table. */
bool pk_gopclntab_find_func(const struct pk_gopclntab *t, __u64 pc, struct pk_gofunc *fn);

/* Start a walk over the pc-value table at OFF of pctab for the function
 * at ENTRY: false when there is none (OFF 0 or past the table). */
bool pk_gopcv_begin(const struct pk_gopclntab *t, __u32 off, __u64 entry,
		    struct pk_gopcv *it);
/* The next run of IT: false at the table's end, or where it runs out of
 * the table. A run may be empty (a pc delta of 0); each step reads at
 * least two bytes of the table. */
bool pk_gopcv_next(const struct pk_gopclntab *t, struct pk_gopcv *it);

/* The value at PC of the pc-value table at OFF for the function at ENTRY:
 * false when the table has none, ends first or runs out of the table. */
bool pk_gopclntab_pc_value(const struct pk_gopclntab *t, __u32 off, __u64 entry, __u64 pc,
			   __s32 *val);

#endif /* EH_GO_PCLNTAB_H */
