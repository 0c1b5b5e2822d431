/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * eu-addr2line -a -f -i -C as the oracle of inlined frames and source lines:
 * one run over every address of a file, then "our frames at address A"
 * (function name, file, line, innermost first, as struct pk_srcline_frame)
 * compared with its record for A. Shared by the pk_srcline tests
 * (tests/unit/symbolization/test_srcline.c) and the end-to-end test of what probe-read
 * writes (tests/integration/test_inline_e2e.c).
 *
 * Where eu-addr2line 0.188 is itself wrong or blind, narrowly, each case
 * counted in the statistics:
 *  - row: its -i frames are looked up at the first address of the address's
 *    line-table row, not at the address (handle_address passes &addr to
 *    dwfl_lineinfo, which overwrites it). Two inlined instances of one
 *    source line can share a row, so those frames can be another
 *    instance's. Its first line ("NAME inlined at LOC in FUNC") and the row
 *    itself are compared with our frames at the address, the -i frames with
 *    our frames at the row's address (pk_a2l_frames_fn) -- or, when the
 *    caller only knows its frames at the address, with those where libdw
 *    (dwarf_getscopes, what eu itself walks) finds the same inlined calls
 *    and function at the address and at the row, and not at all where it
 *    does not (row_unchecked);
 *  - blind: a function whose DIE is inside a namespace, class or structure
 *    DIE (clang's C++) is no function to it (dwarf_getscopes prunes those
 *    address-less DIEs): it prints the symbol table's name and no inlined
 *    call where we name the function. The caller checks those with another
 *    oracle (llvm-symbolizer);
 *  - it finds no unit that .debug_aranges leaves out (clang's default): run
 *    it on a twin built with -gdwarf-aranges (tests/dbg.mk).
 * And where the code under test names the concrete function (the last
 * frame) by the symbol table, as the symbolizer does (the linkage name,
 * msort_with_tmp for msort_with_tmp.part.0), PK_A2L_LAST_SYMNAME accepts the
 * symbol table's name there for eu's (without version or clone suffix,
 * pk_sym_name_len): libdwfl's at the address, or an alias at the same
 * address (where DWARF names no function, eu prints libdwfl's
 * choice among one code's names, __memmove_avx512_unaligned_erms, where the
 * symbolizer may show __memcpy_avx512_unaligned_erms), and at any frame a
 * name of the code eu's name is a symbol of (DWARF's linkage name of a
 * glibc function, __GI___clock_nanosleep, where the symbolizer shows
 * clock_nanosleep).
 */
#ifndef PK_ADDR2LINE_ORACLE_H
#define PK_ADDR2LINE_ORACLE_H

#include <elfutils/libdwfl.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "symbolization/srcline.h"

#define PK_A2L_MAX_FRAMES 64

/* eu-addr2line's records of one file, at the addresses it was run on, and
 * the file open in libdwfl (line-table rows, scopes, symbol names). */
struct pk_a2l;

/*
 * Run eu-addr2line -a -f -i -C -e PATH over the N addresses ADDRS (ELF
 * addresses: the file at bias 0; in any order, repeats allowed). Every
 * failure (eu missing, a malformed record, a file libdwfl cannot read) fails
 * the test that calls it.
 */
struct pk_a2l *pk_a2l_run(const char *path, const __u64 *addrs, size_t n);
void pk_a2l_free(struct pk_a2l *o);

/* Our frames at ADDR, into OUT (up to MAX), innermost first: their number. */
typedef int (*pk_a2l_frames_fn)(void *ctx, __u64 addr, struct pk_srcline_frame *out, int max);

enum {
	/* The last frame may carry a name the symbol table gives its
	 * address, any frame the name of the symbol eu's is an alias of
	 * (see above). */
	PK_A2L_LAST_SYMNAME = 1 << 0,
};

struct pk_a2l_stats {
	size_t addrs;		/* compared */
	size_t named;		/* our innermost frame has a name */
	size_t files;		/* ... a file */
	size_t inlined;		/* more than one frame */
	size_t depth;		/* the most frames at one address */
	size_t row_quirk;	/* eu's -i frames are its row's, not the address's */
	size_t row_unchecked;	/* ... and differ from the address's: not compared */
	size_t eu_blind;	/* in a function eu does not see */
	size_t symname;		/* last frame named by the symbol table */
	size_t bad;		/* differ */
};

/*
 * Compare F (N frames at ADDR, innermost first; N 0: none) with O's record
 * for ADDR, counting in ST. AT_ROW gives our frames at another address (the
 * row's; NULL: only F is known, see "row" above); FLAGS: PK_A2L_*. WHAT
 * names the file in the report: the first 10 differences are printed to
 * stderr, frames side by side. True when they agree. Fails the test when O
 * holds no record for ADDR.
 */
bool pk_a2l_compare(struct pk_a2l *o, __u64 addr, const struct pk_srcline_frame *f, int n,
		    pk_a2l_frames_fn at_row, void *ctx, unsigned flags, const char *what,
		    struct pk_a2l_stats *st);

/* One line of ST on stderr, after WHAT. */
void pk_a2l_print_stats(const char *what, const struct pk_a2l_stats *st);

/* --- pieces of the comparison, for other oracles' comparators ---------- */

/* Whether eu's (or llvm-symbolizer's) location text EU, FILE:LINE or
 * FILE:LINE:COLUMN, or ??:0 when FILE is NULL, is FILE and LINE. */
bool pk_a2l_loc_eq(const char *eu, const char *file, __u32 line);

/* The symbol table's name at ADDR in DM (libdwfl's choice among aliases),
 * demangled; malloc'ed, NULL when no symbol covers it. */
char *pk_a2l_symname(Dwfl_Module *dm, __u64 addr);

/* "    ours: NAME | FILE:LINE" per frame. */
void pk_a2l_report_frames(FILE *f, const struct pk_srcline_frame *fr, int n);

#endif
