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
 * argument. The words it reads into start at 0: BPF's reader is a global
 * function, and the verifier wants a global function's memory initialized.
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

/* How a step went: enum pk_unwind_step_result, in unwind_table.h. */

/* rt_sigframe: a signal handler returns into __restore_rt with RSP at the
 * ucontext, and the interrupted registers are in its uc_mcontext: offsets
 * of the x86-64 user ABI (arch/x86/include/uapi/asm/ucontext.h: uc_mcontext
 * at 40; uapi/asm/sigcontext.h, struct sigcontext_64). */
#define PK_SIGFRAME_MCONTEXT	40
#define PK_SIGFRAME_RBP		(PK_SIGFRAME_MCONTEXT + 80)
#define PK_SIGFRAME_RSP		(PK_SIGFRAME_MCONTEXT + 120)
#define PK_SIGFRAME_RIP		(PK_SIGFRAME_MCONTEXT + 128)
/* Where general register REG (DWARF 0..15) is in struct sigcontext_64:
 * r8..r15 first, then rdi rsi rbp rbx rdx rax rcx rsp. Slots of DWARF 0..7
 * as nibbles: rax 13, rdx 12, rcx 14, rbx 11, rsi 9, rdi 8, rbp 10, rsp 15. */
#define PK_SIGFRAME_REG(reg)	(PK_SIGFRAME_MCONTEXT + 8 * \
				 ((reg) >= 8 ? (reg) - 8u : (0xfa89becdu >> (4 * (reg))) & 15))
/* The general registers a signal frame restores: all but RSP and RIP,
 * which pc and sp hold. */
#define PK_UNWIND_GPRS		(PK_UNWIND_ALL_REGS & ~PK_UNWIND_REG(PK_DWARF_RSP) & \
				 ~PK_UNWIND_REG(PK_DWARF_RIP))
/* What a frame knows of its caller's registers besides those its rule
 * restores: the callee-saved ones keep their values (the psABI's rbx, rbp,
 * r12-r15); the others are the callee's to clobber. */
#define PK_UNWIND_CALLEE_SAVED	(PK_UNWIND_REG(PK_DWARF_RBX) | PK_UNWIND_REG(PK_DWARF_RBP) | \
				 PK_UNWIND_REG(12) | PK_UNWIND_REG(13) | \
				 PK_UNWIND_REG(14) | PK_UNWIND_REG(15))

/* F becomes its caller at PC, SP: a return address, not an interrupted PC;
 * of the other registers it keeps those of KEEP (their values as in F). */
PK_UNWIND_INLINE void pk_unwind_regs_caller(struct pk_unwind_regs *f, __u64 pc, __u64 sp,
					    __u32 keep)
{
	f->pc = pc;
	f->sp = sp;
	f->valid &= keep;
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

/* The caller's callee-saved registers by rule R, in frame F whose CFA is
 * CFA: saved at CFA + 8 * N are read (unknown if they cannot be), not saved
 * keep this frame's value and validity, unknown are unknown. RBP apart. */
PK_UNWIND_INLINE void pk_unwind_restore_saved(struct pk_unwind_regs *f,
					      const struct pk_unwind_rule *r, __u64 cfa,
					      void *ctx)
{
	for (int i = 0; i < PK_UNWIND_NSAVED; i++) {
		__u32 reg = PK_UNWIND_SAVED_REG(i);
		__s8 at = r->saved[i];
		__u64 v = 0;

		if (at == PK_SAVED_SAME)
			continue;
		if (at != PK_SAVED_UNKNOWN &&
		    PK_UNWIND_READ(ctx, &v, cfa + (__s64)at * 8)) {
			f->regs[reg] = v;
			f->valid |= PK_UNWIND_REG(reg);
		} else {
			f->valid &= ~PK_UNWIND_REG(reg);
		}
	}
}

/* __restore_rt: continue in the interrupted frame, at the interrupted PC,
 * with every general register it had. */
PK_UNWIND_INLINE int pk_unwind_signal_step(struct pk_unwind_regs *f, void *ctx)
{
	__u64 sp = f->sp, v = 0, ra = 0, rsp = 0;

	if (!PK_UNWIND_READ(ctx, &rsp, sp + PK_SIGFRAME_RSP) ||
	    !PK_UNWIND_READ(ctx, &ra, sp + PK_SIGFRAME_RIP))
		return PK_STEP_READ_FAULT;
	/* The mask builds up in F, not in a local: the BPF verifier tracks a
	 * local's value, and 15 reads that may each fail would make 2^15
	 * states of it (Linux 6.1 went past its million instructions). */
	f->valid = 0;
	for (__u32 reg = 0; reg < PK_DWARF_RIP; reg++) {
		if (reg == PK_DWARF_RSP)
			continue;
		if (!PK_UNWIND_READ(ctx, &v, sp + PK_SIGFRAME_REG(reg)))
			continue;
		f->regs[reg] = v;
		f->valid |= PK_UNWIND_REG(reg);
	}
	/* A handler may run on another stack (sigaltstack): no "moves up"
	 * check here; the walk's depth bounds a cycle. */
	f->pc = ra;
	f->sp = rsp;
	f->exact_pc = 1;
	return PK_STEP_OK;
}

/*
 * One step by rule R from frame F to its caller: F becomes the caller's
 * registers (its pc the return address). enum pk_unwind_step_result; a
 * step that stops leaves F as it was.
 *
 * The caller knows RBP, rbx and r12-r15 where R restores them or where F
 * knew them and R does not say they were saved (callee-saved: the callee
 * kept their values); every other register is unknown past the frame
 * whose registers were interrupted (the leaf, or a signal frame's).
 */
PK_UNWIND_INLINE int pk_unwind_rule_step(struct pk_unwind_regs *f,
					 const struct pk_unwind_rule *r, void *ctx)
{
	__u64 cfa, base, v = 0, ra = 0, bp = 0;

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
		return pk_unwind_signal_step(f, ctx);
	default:
		return PK_STEP_UNSUP_CFA;
	}
	/* The CFA is the caller's RSP: above this frame's, or equal where the
	 * call pushed nothing that is still there (the RA in a register:
	 * __vfork pops it into rdi). */
	if (cfa < f->sp || (cfa == f->sp && r->ra_type != PK_RA_REGISTER))
		return PK_STEP_LOOP;
	switch (r->ra_type) {
	case PK_RA_CFA_OFFSET:
		if (!PK_UNWIND_READ(ctx, &ra, cfa + r->ra_offset))
			return PK_STEP_READ_FAULT;
		break;
	case PK_RA_REGISTER:
		if (!pk_unwind_reg(f, r->ra_reg, &ra))
			return PK_STEP_UNSUP_RA_REG;
		break;
	case PK_RA_UNDEFINED:
		return PK_STEP_OUTERMOST;
	default:
		return PK_STEP_UNSUP_RA;
	}
	if (r->fp_type == PK_FP_CFA_OFFSET) {
		if (!PK_UNWIND_READ(ctx, &bp, cfa + r->fp_offset))
			return PK_STEP_READ_FAULT;
		f->regs[PK_DWARF_RBP] = bp;
		f->valid |= PK_UNWIND_REG(PK_DWARF_RBP);
	} else if (r->fp_type != PK_FP_UNCHANGED) {
		f->valid &= ~PK_UNWIND_REG(PK_DWARF_RBP);
	}
	pk_unwind_restore_saved(f, r, cfa, ctx);
	pk_unwind_regs_caller(f, ra, cfa, PK_UNWIND_CALLEE_SAVED);
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
	__u64 bp, next_bp = 0, ra = 0;

	if (!pk_unwind_reg(f, PK_DWARF_RBP, &bp) || !bp || (bp & 7) || bp < f->sp ||
	    bp - f->sp >= PK_UNWIND_FP_MAX_FRAME)
		return PK_STEP_NO_FP;
	if (!PK_UNWIND_READ(ctx, &next_bp, bp) || !PK_UNWIND_READ(ctx, &ra, bp + 8))
		return PK_STEP_READ_FAULT;
	/* A frame record of a zero RA ends some runtimes' frame-pointer
	 * chains; whether that makes the stack whole is the caller's call. */
	if (!ra)
		return PK_STEP_OUTERMOST;
	/* Which of the other callee-saved registers the frame saved, and
	 * where, only CFI says. */
	f->regs[PK_DWARF_RBP] = next_bp;
	pk_unwind_regs_caller(f, ra, bp + 16, PK_UNWIND_REG(PK_DWARF_RBP));
	return PK_STEP_OK;
}

#endif /* PK_UNWIND_STEP_H */
