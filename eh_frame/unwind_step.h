/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One step of a user-stack walk: from a frame's registers and its rule
 * (unwind_table.h), or its frame pointer, to its caller's registers. The
 * one evaluation of a rule, shared by the BPF walk (bpf/cfi_walk.bpf.h) and
 * user space (a stack copied at sample time, finished by probe-read), so
 * that both walk a stack the same way.
 *
 * Fixed-width kernel types only, no libc, and no include but
 * unwind_table.h: BPF code includes it after vmlinux.h, user space after
 * <linux/types.h>.
 *
 * Memory is the includer's: every function takes a CTX that it only hands
 * to PK_UNWIND_READ(ctx, dst, addr), an expression that stores the user
 * word at ADDR in *DST and is nonzero when it could. BPF code defines it
 * before the include (it has no function pointers); user space may leave
 * it undefined, and then CTX is a struct pk_unwind_mem, a callback and its
 * argument.
 */
#ifndef PK_UNWIND_STEP_H
#define PK_UNWIND_STEP_H

#include "eh_frame/unwind_table.h"

#ifdef __bpf__
#define PK_UNWIND_INLINE static __always_inline
#ifndef PK_UNWIND_READ
#error "BPF code defines PK_UNWIND_READ before including eh_frame/unwind_step.h"
#endif
#else
#define PK_UNWIND_INLINE static inline
#endif

#ifndef PK_UNWIND_READ
struct pk_unwind_mem {
	int (*read)(void *arg, __u64 *dst, __u64 addr);	/* nonzero: read */
	void *arg;
};
#define PK_UNWIND_READ(ctx, dst, addr) \
	(((struct pk_unwind_mem *)(ctx))->read(((struct pk_unwind_mem *)(ctx))->arg, \
					      (dst), (addr)))
#endif

/* The registers a frame has: DWARF numbers 0..PK_DWARF_RIP. */
#define PK_UNWIND_NREGS		(PK_DWARF_RIP + 1)
#define PK_UNWIND_REG(r)	(1u << (r))
/* Every register: the leaf frame, where they are the interrupted ones. */
#define PK_UNWIND_ALL_REGS	((1u << PK_UNWIND_NREGS) - 1)

/*
 * A frame's registers. pc and sp are always known; regs[] holds the
 * others in DWARF numbering, regs[PK_DWARF_RBP] being the frame pointer,
 * and `valid` says which of them this frame knows (bit r: regs[r]).
 */
struct pk_unwind_regs {
	__u64 pc, sp;
	__u64 regs[PK_UNWIND_NREGS];
	__u32 valid;		/* PK_UNWIND_REG(r): regs[r] is known */
	__u8 exact_pc;		/* pc is where execution stopped, not a return
				 * address: look it up as it is, not pc - 1 */
	__u8 __pad[3];
};

/* How a step went. Nonzero: the walk stops in this frame. */
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
};

/* rt_sigframe: a signal handler returns into __restore_rt with RSP at the
 * ucontext, and the interrupted registers are in its uc_mcontext: offsets
 * of the x86-64 user ABI (arch/x86/include/uapi/asm/ucontext.h: uc_mcontext
 * at 40; uapi/asm/sigcontext.h, struct sigcontext_64). */
#define PK_SIGFRAME_MCONTEXT	40
#define PK_SIGFRAME_RBP		(PK_SIGFRAME_MCONTEXT + 80)
#define PK_SIGFRAME_RSP		(PK_SIGFRAME_MCONTEXT + 120)
#define PK_SIGFRAME_RIP		(PK_SIGFRAME_MCONTEXT + 128)

PK_UNWIND_INLINE void pk_unwind_regs_caller(struct pk_unwind_regs *f, __u64 pc, __u64 sp,
					    __u64 bp, int bp_known)
{
	f->pc = pc;
	f->sp = sp;
	f->regs[PK_DWARF_RBP] = bp;
	f->valid = bp_known ? PK_UNWIND_REG(PK_DWARF_RBP) : 0;
	f->exact_pc = 0;
}

/* The value of register REG in frame F into *V; 0 when F does not know it. */
PK_UNWIND_INLINE int pk_unwind_reg(const struct pk_unwind_regs *f, __u8 reg, __u64 *v)
{
	if (reg == PK_DWARF_RSP) {
		*v = f->sp;
		return 1;
	}
	if (reg >= PK_UNWIND_NREGS || !(f->valid & PK_UNWIND_REG(reg)))
		return 0;
	*v = f->regs[reg];
	return 1;
}

/*
 * One step by rule R from frame F to its caller: F becomes the caller's
 * registers (its pc the return address). enum pk_unwind_step_result.
 */
PK_UNWIND_INLINE int pk_unwind_rule_step(struct pk_unwind_regs *f,
					 const struct pk_unwind_rule *r, void *ctx)
{
	__u64 cfa, base, v, ra, bp = 0;	/* bp: stored even when not known */
	int bp_known;

	switch (r->cfa_type) {
	case PK_CFA_END:
		return PK_STEP_NO_CFI;
	case PK_CFA_RSP:
		cfa = f->sp + r->cfa_offset;
		break;
	case PK_CFA_RBP:
	case PK_CFA_REG:
		if (!pk_unwind_reg(f, r->cfa_reg, &base))
			return PK_STEP_UNSUP_CFA_REG;
		cfa = base + r->cfa_offset;
		break;
	case PK_CFA_PLT1:
		cfa = f->sp + 8 + ((f->pc & 15) >= 11 ? 8 : 0);
		break;
	case PK_CFA_PLT2:
		cfa = f->sp + 8 + ((f->pc & 15) >= 10 ? 8 : 0);
		break;
	case PK_CFA_DEREF:
		if (!pk_unwind_reg(f, r->cfa_reg, &base))
			return PK_STEP_UNSUP_CFA_REG;
		if (!PK_UNWIND_READ(ctx, &v, base + r->cfa_offset))
			return PK_STEP_READ_FAULT;
		cfa = v + r->cfa_deref_offset;
		break;
	case PK_CFA_SIGNAL:
		/* Continue in the interrupted frame, at the interrupted PC. */
		if (!PK_UNWIND_READ(ctx, &bp, f->sp + PK_SIGFRAME_RBP) ||
		    !PK_UNWIND_READ(ctx, &v, f->sp + PK_SIGFRAME_RSP) ||
		    !PK_UNWIND_READ(ctx, &ra, f->sp + PK_SIGFRAME_RIP))
			return PK_STEP_READ_FAULT;
		/* A handler may run on another stack (sigaltstack): no
		 * "moves up" check here; the walk's depth bounds a cycle. */
		pk_unwind_regs_caller(f, ra, v, bp, 1);
		f->exact_pc = 1;
		return PK_STEP_OK;
	default:
		return PK_STEP_UNSUP_CFA;
	}
	if (cfa <= f->sp)
		return PK_STEP_LOOP;
	if (r->ra_type == PK_RA_UNDEFINED)
		return PK_STEP_OUTERMOST;
	if (r->ra_type != PK_RA_CFA_OFFSET)
		return PK_STEP_UNSUP_RA;
	if (!PK_UNWIND_READ(ctx, &ra, cfa + r->ra_offset))
		return PK_STEP_READ_FAULT;
	bp_known = pk_unwind_reg(f, PK_DWARF_RBP, &bp);
	if (r->fp_type == PK_FP_CFA_OFFSET) {
		if (!PK_UNWIND_READ(ctx, &bp, cfa + r->fp_offset))
			return PK_STEP_READ_FAULT;
		bp_known = 1;
	} else if (r->fp_type != PK_FP_UNCHANGED) {
		bp_known = 0;
	}
	pk_unwind_regs_caller(f, ra, cfa, bp, bp_known);
	return PK_STEP_OK;
}

/* How far above RSP a frame pointer may point: the default stack limit
 * (ulimit -s, 8 MiB). */
#define PK_UNWIND_FP_MAX_FRAME	(8ull << 20)

/*
 * A frame-pointer step from frame F, for code without a rule: the caller's
 * RBP at [RBP], its PC at [RBP + 8]. enum pk_unwind_step_result.
 *
 * Taken only where RBP can be a frame pointer of this stack: known in this
 * frame, 8-aligned, at or above RSP and within a stack's size of it.
 * Frameless code keeps any value in RBP, and RBP 0 (the ABI's end of a
 * chain at _start) is no proof that the stack is whole in code that may
 * not keep frame pointers at all: both are PK_STEP_NO_FP, never the
 * outermost frame. A zero return address is PK_STEP_OUTERMOST, F left as
 * it was. The caller checks that the return address found is in
 * executable code before it keeps the frame.
 */
PK_UNWIND_INLINE int pk_unwind_fp_step(struct pk_unwind_regs *f, void *ctx)
{
	__u64 bp, next_bp, ra;

	if (!pk_unwind_reg(f, PK_DWARF_RBP, &bp) || !bp || (bp & 7) || bp < f->sp ||
	    bp - f->sp >= PK_UNWIND_FP_MAX_FRAME)
		return PK_STEP_NO_FP;
	if (!PK_UNWIND_READ(ctx, &next_bp, bp) || !PK_UNWIND_READ(ctx, &ra, bp + 8))
		return PK_STEP_READ_FAULT;
	/* A frame record of a zero RA ends some runtimes' frame-pointer
	 * chains; whether that makes the stack whole is the caller's call. */
	if (!ra)
		return PK_STEP_OUTERMOST;
	pk_unwind_regs_caller(f, ra, bp + 16, next_bp, 1);
	return PK_STEP_OK;
}

#endif /* PK_UNWIND_STEP_H */
