/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Source lines and inlined frames of a code address, from the DWARF of one
 * libdwfl module: what `eu-addr2line -f -i -C -e FILE ADDR` prints, without
 * its cost. eu-addr2line walks the whole compilation unit's DIE tree twice
 * per address (dwarf_getscopes, dwarf_getscopes_die); here a unit is walked
 * once, the first time an address falls in it, into a sorted table of
 * address spans, each naming its innermost scope, and every lookup is a few
 * binary searches (unit, span, line-table row) and a walk up a parent chain.
 *
 * Debug information is where libdwfl's dwfl_standard_find_debuginfo finds
 * it: the file itself, /usr/lib/debug/.build-id/xx/yyyy.debug, or
 * .gnu_debuglink.
 *
 * Where eu-addr2line (elfutils 0.188) is wrong or blind, this is not (the
 * tests check those cases against llvm-symbolizer):
 *  - its inlined frames (-i) are those of the first address of ADDR's
 *    line-table row (dwfl_lineinfo overwrites its address), which can be
 *    another inlined instance of the same line; here they are ADDR's;
 *  - it finds no unit that .debug_aranges leaves out (clang emits none
 *    unless -gdwarf-aranges); here those are found by their DW_AT_ranges;
 *  - it sees no function whose DIE is inside a namespace, class or
 *    structure DIE (clang's C++): libdw's dwarf_getscopes prunes those
 *    address-less DIEs; here they are looked through.
 * Names are demangled by pk_demangle (as the symbol table's are), so Rust
 * names read as rustc prints them, where eu-addr2line leaves them mangled
 * or keeps the hash.
 *
 * Cost: the first address in a unit reads its line table (libdw) and walks
 * its DIEs (tens of microseconds for a libc unit); later lookups take under
 * a microsecond. Kept per unit read: 72 bytes per DIE with addresses
 * (functions, inlined calls, lexical blocks) and 24 per span, about 2 MB
 * for all of libc, besides what libdw caches (line tables, abbreviations).
 */
#ifndef PK_SRCLINE_H
#define PK_SRCLINE_H

#include <elfutils/libdwfl.h>
#include <linux/types.h>

struct pk_srcline_frame {
	/* The function, from DWARF: its linkage name demangled (pk_demangle),
	 * else its DW_AT_name. NULL when DWARF names none (eu-addr2line
	 * prints "??" there, or, in the last frame, the symbol table's name:
	 * the caller's symbol-table name is the one to show). */
	const char *name;
	const char *file;	/* full path as libdw composes it; NULL unknown */
	__u32 line;		/* 0: unknown */
};

/* The source-line state of one Dwfl_Module: its units' span tables,
 * demangled names. */
struct pk_srcline;

/* State for DM, which must outlive it. Cheap: nothing is read until the
 * first lookup. NULL when out of memory. */
struct pk_srcline *pk_srcline_new(Dwfl_Module *dm);
void pk_srcline_free(struct pk_srcline *sl);

/*
 * The frames at ADDR, an address of the module (with the module reported at
 * bias 0: the ELF virtual address), innermost first -- the inlined code at
 * ADDR, with the line-table row of ADDR -- then each caller it is inlined
 * into, with the DW_AT_call_file/DW_AT_call_line of the call, the concrete
 * function (DW_TAG_subprogram) last. Up to MAX frames: a deeper chain keeps
 * its innermost MAX-1 frames and the function (MAX 1: the function alone).
 *
 * Returns the number of frames; 0 when no DWARF line or scope covers ADDR
 * (the caller keeps its symbol-table name); -EINVAL (MAX < 1) or -ENOMEM.
 * The strings live as long as SL (and DM's Dwfl): they point into libdw's
 * data or SL's own pool, so the caller may keep them without copying.
 */
int pk_srcline_lookup(struct pk_srcline *sl, __u64 addr, struct pk_srcline_frame *out,
		      int max);

#endif
