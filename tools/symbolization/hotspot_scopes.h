/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The methods C1 or C2 inlined at a PC of a compiled Java method, from the
 * nmethod's report (bpf/hotspot_records.h, struct pk_hs_nmethod_event): its
 * PcDescs (pc offset from the code's begin, in increasing order, and the
 * offset of the PC's innermost scope in the scopes data), its scopes data
 * (HotSpot's DebugInfo stream: per scope its sender's offset, its
 * method's index in the metadata table (1: the first entry), its bytecode
 * index + 1, each an UNSIGNED5 int (hotspot_lines.h pk_hs_read_u5()); a
 * sender offset of 0 ends the chain) and its metadata table.
 *
 * The PcDesc of a PC is the first whose offset is at or past it, as
 * HotSpot's approximate lookup (nmethod::pc_desc_near(), what JFR's sampler
 * takes for the leaf frame) has it: exact at a call's return address.
 *
 * The bytes are the traced process's: nothing is read past their lengths,
 * and a chain that does not hold in every part (an offset past the bytes
 * or not below the last, a method index past the table or to 0, more than
 * MAX scopes, its outermost method not the nmethod's own) gives none: the
 * frame is then named by the nmethod's method alone, never by another's.
 */
#ifndef PK_HOTSPOT_SCOPES_H
#define PK_HOTSPOT_SCOPES_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A compiled Java method as the kernel reported it (validated: its parts
 * lie in the record). */
struct pk_hs_nmethod_desc {
	__u32 pid;
	__u32 flags;		/* enum pk_hs_nmethod_flags */
	__u32 compile_id;
	__u32 code_size;
	__u64 nmethod, method, code_begin;
	const __u8 *pcs, *scopes, *metadata;
	size_t pcs_len, scopes_len, metadata_len;
	__u8 pcdesc_size, pcdesc_pc_offset, pcdesc_scope_decode_offset;
};

/* One scope at a PC: its method and bytecode index (-1: HotSpot's
 * InvocationEntryBci, the method's entry, whose line is bytecode 0's as
 * Method::line_number_from_bci() has it; PK_HS_BCI_NONE: not known). */
struct pk_hs_scope {
	__u64 method;
	__s32 bci;
};
#define PK_HS_BCI_NONE	INT32_MIN

/* Scopes of one PC at most (HotSpot's MaxInlineLevel is 15). */
#define PK_HS_MAX_SCOPES	32

/*
 * The scopes at PC of D into OUT (MAX at most), the innermost (the code
 * at PC) first, the nmethod's own method last: their number, or 0 when
 * they cannot be told (see above).
 */
size_t pk_hs_scopes_at(const struct pk_hs_nmethod_desc *d, __u64 pc, struct pk_hs_scope *out,
		       size_t max);

#endif
