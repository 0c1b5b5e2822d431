// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolization/gopclntab.h"

/* internal/abi: the pcdata table of inline tree indexes, the funcdata of
 * the inline tree */
#define PCDATA_INL_TREE_INDEX	2
#define FUNCDATA_INL_TREE	3

/* Inline steps followed per lookup: a tree whose parents loop (a bad
 * table) ends there. Go's deepest real chains are tens. */
#define MAX_INL_STEPS	256

/* Table I of FN's pcdata (offsets into pctab): 0 for none. */
static __u32 pcdata_off(const struct pk_gopclntab *t, const struct pk_gofunc *fn, __u32 i)
{
	return i < fn->npcdata ? pk_go_rd32(fn->f + t->func_size + 4 * i) : 0;
}

static const char *func_name(const struct pk_gopclntab *t, __u32 name_off)
{
	return pk_go_part_str(&t->funcname, name_off);
}

/* The file and line FN's tables give PC. */
static void file_line(const struct pk_gopclntab *t, const struct pk_gofunc *fn, __u64 pc,
		      struct pk_srcline_frame *fr)
{
	__u32 cu = pk_go_rd32(fn->f + PK_GOFUNC_CU_OFFSET), file_off;
	__s32 fileno, line;

	fr->file = NULL;
	fr->line = 0;
	if (pk_gopclntab_pc_value(t, pk_go_rd32(fn->f + PK_GOFUNC_PCFILE), fn->entry, pc,
				  &fileno) && fileno >= 0 &&
	    pk_go_part32(&t->cutab, 4 * ((__u64)cu + (__u32)fileno), &file_off) && file_off != ~0u)
		fr->file = pk_go_part_str(&t->filetab, file_off);
	if (pk_gopclntab_pc_value(t, pk_go_rd32(fn->f + PK_GOFUNC_PCLN), fn->entry, pc, &line) &&
	    line > 0)
		fr->line = (__u32)line;
}

int pk_gopclntab_lookup(const struct pk_gopclntab *t, __u64 pc, struct pk_srcline_frame *out,
			int max, __u64 *entry)
{
	__u32 inl_index = 0, tree_off = ~0u;
	struct pk_gofunc fn;
	bool line_ok = true;
	int n = 0;

	__s32 line;

	if (max < 1)
		return -EINVAL;
	if (!pk_gopclntab_find_func(t, pc, &fn))
		return 0;
	/* The function table gives a function the padding after it too;
	 * its line table ends with its code. Past that, no function holds
	 * PC, as no sized symbol does (a signal frame's return address, the
	 * restorer's entry, minus one). */
	if (pk_go_rd32(fn.f + PK_GOFUNC_PCLN) &&
	    !pk_gopclntab_pc_value(t, pk_go_rd32(fn.f + PK_GOFUNC_PCLN), fn.entry, pc, &line))
		return 0;
	if (FUNCDATA_INL_TREE < fn.nfuncdata)
		tree_off = pk_go_rd32(fn.f + t->func_size + 4 * (fn.npcdata + FUNCDATA_INL_TREE));
	if (tree_off != ~0u)
		inl_index = pcdata_off(t, &fn, PCDATA_INL_TREE_INDEX);
	/* Each inlined call at PC, innermost first: its name, PC's line in
	 * it, then on to the call site (parentPc) in its caller. */
	for (int step = 0; inl_index && step < MAX_INL_STEPS; step++) {
		__s32 ix, parent_pc;
		__u64 at;
		__u32 name_off, pc_off;

		if (!pk_gopclntab_pc_value(t, inl_index, fn.entry, pc, &ix) || ix < 0)
			break;
		at = tree_off + (__u64)(__u32)ix * t->inl_size;
		if (!t->gofunc.p || !pk_go_part32(&t->gofunc, at + t->inl_name, &name_off) ||
		    !pk_go_part32(&t->gofunc, at + t->inl_parent_pc, &pc_off)) {
			line_ok = false;	/* PC's line is an inlined call's */
			break;
		}
		parent_pc = (__s32)pc_off;
		if (n < max - 1) {
			out[n].name = func_name(t, name_off);
			file_line(t, &fn, pc, &out[n]);
			n++;
		}
		if (parent_pc < 0) {
			line_ok = false;
			break;
		}
		pc = fn.entry + (__u32)parent_pc;
	}
	out[n].name = func_name(t, pk_go_rd32(fn.f + PK_GOFUNC_NAME_OFF));
	if (line_ok) {
		file_line(t, &fn, pc, &out[n]);
	} else {
		out[n].file = NULL;
		out[n].line = 0;
	}
	*entry = fn.entry;
	return n + 1;
}

