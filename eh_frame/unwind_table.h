/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The unwind table: the one description shared by eh2table (which writes it),
 * the on-disk cache (which stores it) and the BPF unwinder (which
 * binary-searches it at sample time).
 *
 * Fixed-width kernel types only and no includes: BPF code includes it after
 * vmlinux.h, user space after <linux/types.h>.
 *
 * Layout (a cache file, and the same bytes in memory once mmapped):
 *
 *   struct pk_unwind_header                      at 0
 *   __u32 pcs[nrows]                             at pcs_off      (sorted, ascending)
 *   __u16 rule_ids[nrows]                        at rule_ids_off (rule of row i)
 *   struct pk_unwind_rule rules[nrules]          at rules_off    (distinct rules)
 *
 * Row i covers [pc_base + pcs[i], pc_base + pcs[i+1]) (the last row up to
 * pc_end) and is unwound with rules[rule_ids[i]]. Rows are kept as two
 * parallel arrays so the binary search touches only the 4-byte PCs and a row
 * costs 6 bytes; the rules themselves are few (a few hundred in libc) and
 * stored once. Adjacent rows never share a rule id (they are merged).
 *
 * PCs are the ELF's own virtual addresses (as readelf prints them), relative
 * to pc_base; the unwinder maps a runtime address to them with the load bias
 * of the mapping.
 */
#ifndef PK_UNWIND_TABLE_H
#define PK_UNWIND_TABLE_H

#define PK_UNWIND_MAGIC		"PKUNWIND"	/* 8 bytes, no NUL stored */
#define PK_UNWIND_VERSION	2		/* 2: rules say where rbx, r12-r15
						 * are saved, and an RA in a register */
#define PK_UNWIND_BUILD_ID_MAX	64
#define PK_UNWIND_MAX_RULES	65536		/* rule ids are __u16 */

/* x86_64 DWARF register numbers (the psABI's DWARF register number
 * mapping) that rules name: eh2table classifies by them, the BPF walk
 * evaluates them. 0..PK_DWARF_RIP are the general registers and the PC. */
#define PK_DWARF_RBX		3
#define PK_DWARF_RBP		6
#define PK_DWARF_RSP		7
#define PK_DWARF_R12		12
#define PK_DWARF_RIP		16

/* The callee-saved registers a rule restores besides RBP (the psABI's rbx,
 * r12-r15), in the order of pk_unwind_rule.saved[]: RBX, then R12..R15. */
#define PK_UNWIND_NSAVED	5
#define PK_UNWIND_SAVED_REG(i)	((i) ? PK_DWARF_R12 + (i) - 1u : (unsigned int)PK_DWARF_RBX)
/* pk_unwind_rule.saved[i]: the caller's value is this frame's (not saved
 * here: unmentioned, same_value, or undefined as for RBP); unknown (a rule
 * of no class we evaluate: register, expression, an offset that is not a
 * multiple of 8 in [-1024, 1016]); or saved at CFA + 8 * saved[i]. */
#define PK_SAVED_SAME		0
#define PK_SAVED_UNKNOWN	(-128)

/* How the canonical frame address is computed. */
enum pk_cfa_type {
	PK_CFA_END = 0,		/* no FDE covers this PC: stop unwinding here */
	PK_CFA_RSP,		/* CFA = RSP + cfa_offset  (arm64: SP) */
	PK_CFA_RBP,		/* CFA = RBP + cfa_offset  (arm64: x29) */
	PK_CFA_PLT1,		/* glibc .plt entry expression (DW_OP_lit11 form) */
	PK_CFA_PLT2,		/* glibc .plt.sec/second form (DW_OP_lit10 form) */
	PK_CFA_DEREF,		/* CFA = *(cfa_reg + cfa_offset) + cfa_deref_offset */
	PK_CFA_REG,		/* CFA = cfa_reg + cfa_offset, any other register:
				 * usable only in the leaf frame */
	PK_CFA_SIGNAL,		/* signal trampoline (CIE augmentation "S"):
				 * registers come from the saved ucontext */
	PK_CFA_UNSUPPORTED,	/* a rule we cannot evaluate; never dropped */
};

/* Where the caller's frame pointer (x86_64 RBP, arm64 x29) was saved. */
enum pk_fp_type {
	PK_FP_UNCHANGED = 0,	/* not saved in this frame (same value/undefined) */
	PK_FP_CFA_OFFSET,	/* saved at CFA + fp_offset */
	PK_FP_UNSUPPORTED,
};

/* Where the return address is. */
enum pk_ra_type {
	PK_RA_CFA_OFFSET = 0,	/* at CFA + ra_offset (x86_64: always -8) */
	PK_RA_UNDEFINED,	/* outermost frame (_start, thread entry) */
	PK_RA_UNSUPPORTED,
	PK_RA_REGISTER,		/* in register ra_reg (DW_CFA_register: glibc's
				 * __vfork keeps it in rdi; arm64's x30): known
				 * where the walk knows that register */
};

/* One distinct unwind rule. 24 bytes. */
struct pk_unwind_rule {
	__u8  cfa_type;		/* enum pk_cfa_type */
	__u8  cfa_reg;		/* DWARF register number the CFA is based on */
	__u8  fp_type;		/* enum pk_fp_type */
	__u8  ra_type;		/* enum pk_ra_type */
	__s32 cfa_offset;	/* N in reg+N and *(reg+N)+M */
	__s32 cfa_deref_offset;	/* M in *(reg+N)+M */
	__s16 fp_offset;	/* caller's FP at CFA + fp_offset */
	__s16 ra_offset;	/* return address at CFA + ra_offset */
	__u8  ra_reg;		/* PK_RA_REGISTER: its DWARF number */
	__s8  saved[PK_UNWIND_NSAVED];	/* PK_SAVED_*, or CFA + 8 * saved[i] */
	__u8  __pad[2];		/* zero */
};

/* File header; all offsets are from the start of the file and 8-aligned. */
struct pk_unwind_header {
	char  magic[8];		/* PK_UNWIND_MAGIC */
	__u32 version;		/* PK_UNWIND_VERSION */
	__u16 arch;		/* ELF e_machine: 62 EM_X86_64, 183 EM_AARCH64 */
	__u16 flags;		/* enum pk_unwind_flags */
	__u8  build_id[PK_UNWIND_BUILD_ID_MAX];
	__u32 build_id_len;
	__u32 nrows;
	__u32 nrules;
	__u32 header_size;	/* sizeof(struct pk_unwind_header) when written */
	__u64 pc_base;		/* ELF vaddr of pcs[] == 0 */
	__u64 pc_end;		/* end of the covered range (ELF vaddr, exclusive) */
	__u64 pcs_off;
	__u64 rule_ids_off;
	__u64 rules_off;
	__u64 file_size;	/* total bytes, header included */
	__u64 checksum;		/* of bytes [0, file_size), this field read
				 * as 0: header fields are covered too
				 * (eh_frame/README.md: the hash) */
};

enum pk_unwind_flags {
	PK_UNWIND_HAS_EH_FRAME		= 1u << 0, /* rows from .eh_frame */
	PK_UNWIND_HAS_DEBUG_FRAME	= 1u << 1, /* rows from .debug_frame */
	PK_UNWIND_NO_BUILD_ID		= 1u << 2, /* keyed by content hash */
	PK_UNWIND_HAS_GOPCLNTAB		= 1u << 3, /* rows from a Go .gopclntab's SP
						    * deltas (no CFI in the file) */
};

/* How one step of a walk by a rule or a frame pointer went
 * (eh_frame/unwind_step.h). Nonzero: the walk stops in this frame. Here,
 * with the rules, so that what a walk makes of it (bpf/walk_end.h) needs
 * no more than the format. */
enum pk_unwind_step_result {
	PK_STEP_OK = 0,		/* the registers are the caller's */
	PK_STEP_NO_CFI,		/* an END row: no FDE covers the PC */
	PK_STEP_OUTERMOST,	/* the return address is undefined (_start) */
	PK_STEP_READ_FAULT,	/* a word of the frame could not be read */
	PK_STEP_LOOP,		/* the CFA did not move up the stack */
	PK_STEP_NO_FP,		/* no frame pointer to step by */
	PK_STEP_UNSUP_CFA,	/* a CFA rule of no class we evaluate */
	PK_STEP_UNSUP_CFA_REG,	/* the CFA's register is not known in this frame */
	PK_STEP_UNSUP_RA,	/* a return-address rule of no class we evaluate */
	PK_STEP_UNSUP_RA_REG,	/* the RA's register is not known in this frame */
};

#endif /* PK_UNWIND_TABLE_H */
