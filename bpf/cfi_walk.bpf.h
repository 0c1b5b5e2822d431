/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The user-stack unwinder (--unwind dwarf): walks a user stack with the
 * unwind tables that probe-load and probe-read put in the unwind maps
 * (bpf/probekit.h), up to PK_MAX_USTACK_DEPTH frames, from any BPF program
 * type that may call bpf_loop() (perf_event, kprobe, tracepoint, fentry).
 * Needs Linux 6.1+ (the maple tree of VMAs, bpf/vma.bpf.h) and bpf_loop
 * (5.17).
 *
 * Addresses to tables: at each frame outside the mappings the walk has
 * found, a VMA lookup gives the VMA that holds the PC as the kernel sees it
 * now, its file's inode and vm_pgoff. The inode (dev, ino) keys
 * unwind_files. Nothing follows exec, mmap, dlclose or exit: the VMA tree
 * is always current, a range that another library reuses has another
 * inode, and a process that starts while no probekit process runs needs
 * nothing but tables for its files.
 *
 * Cost: one VMA lookup per frame outside the mappings of the frames before
 * it (a memo hit for a VMA an earlier sample found, which keeps its table
 * and report too: no unwind_files or mappings_seen lookup), and a binary
 * search only for PCs that miss two levels of per-CPU caches of recent
 * (table, row) -> rule lookups.
 */
#ifndef PK_CFI_WALK_BPF_H
#define PK_CFI_WALK_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "bpf/probekit.h"
#include "eh_frame/unwind_table.h"
#include "bpf/kernel_fields.bpf.h"
#include "bpf/sample.bpf.h"
#include "bpf/vma.bpf.h"
#include "bpf/mapping_report.bpf.h"
#include "bpf/walk_end.h"
#include "bpf/cfi_state.bpf.h"
#include "bpf/cfi_lookup.bpf.h"

/* x86_64 DWARF register numbers -> pt_regs. */
static __always_inline void uw_regs_from(struct pk_unwind_regs *f, const struct pt_regs *r)
{
	f->regs[0] = r->ax;	f->regs[1] = r->dx;	f->regs[2] = r->cx;
	f->regs[3] = r->bx;	f->regs[4] = r->si;	f->regs[5] = r->di;
	f->regs[PK_DWARF_RBP] = r->bp;	f->regs[PK_DWARF_RSP] = r->sp;
	f->regs[8] = r->r8;
	f->regs[9] = r->r9;	f->regs[10] = r->r10;	f->regs[11] = r->r11;
	f->regs[12] = r->r12;	f->regs[13] = r->r13;	f->regs[14] = r->r14;
	f->regs[15] = r->r15;	f->regs[PK_DWARF_RIP] = r->ip;
	f->pc = r->ip;
	f->sp = r->sp;
	f->valid = PK_UNWIND_ALL_REGS;
	f->exact_pc = 1;
}

/* SYSCALL (0f 05), as the two bytes before a PC read little-endian. */
#define UW_SYSCALL_INSN		0x050f

/*
 * Whether R are a thread's registers at a syscall: its PC the instruction
 * after the SYSCALL. A syscall last in a function that does not return
 * (__restore_rt's rt_sigreturn, _exit's exit_group) leaves that PC past
 * the function's FDE, where the walk found no CFI; the CFI at PC - 1 is
 * the same everywhere else, a syscall moving no register it tracks. So
 * such a frame is looked up as a return address is. orig_ax is the
 * syscall's number, negative at an interrupt (~vector) or an exception
 * without an error code; one with a code (a page fault on the instruction
 * after a SYSCALL) has the same CFI at PC - 1 too.
 */
static __always_inline bool uw_after_syscall(const struct pt_regs *r)
{
	__u16 insn = 0;

	if ((long)r->orig_ax < 0)
		return false;
	return !bpf_probe_read_user(&insn, sizeof(insn), (const void *)(r->ip - 2)) &&
	       insn == UW_SYSCALL_INSN;
}

/* The JavaScript walk's look at the frame at st->f, which a frame-pointer
 * step is about to leave (bpf/v8_walk.bpf.h): 1 and st->v8_frame when it
 * is a JavaScript function's frame of a V8 the walk knows (KIND: enum
 * pk_v8_frame_kind, by where its PC is), else 0. */
__noinline int pk_v8_step(struct uw_state *st, int kind);

/* The JavaScript walk's look at a leaf whose PC is in a V8 file's code
 * without CFI (its builtins) and whose frame pointer holds a JavaScript
 * function's frame: 1 when the code at the PC has not built a frame of
 * its own, the return address at SP (or above a pushed RBP) following a
 * call, and st->f is then its caller's, else 0 (bpf/v8_walk.bpf.h). */
__noinline int pk_v8_frameless(struct uw_state *st);

/* The Java walk's step over the frame at st->f, a PC in anonymous memory
 * (bpf/hotspot_walk.bpf.h): -1 when it is no frame of a JVM's code cache
 * the walk knows (a frame-pointer step then, as before), else 0 or how the
 * walk ends. */
__noinline int pk_hs_step(struct uw_state *st);

/* A frame-pointer step from st->f's frame, for code without a rule (JIT,
 * anonymous code, a file refused a table, or no FDE at the PC; never a
 * file whose table is not loaded yet, where uw_step stops): 0, or STOP,
 * how the walk ends in this frame. Counted whether it succeeds or not. */
static __always_inline int uw_fp_step(struct uw_state *st, int stop)
{
	int end;

	if (pk_walk_entry_frame(st->f.sp, st->start_stack))
		return PK_END_COMPLETE;
	st->fp_frames++;
	end = pk_walk_fp_end(pk_unwind_fp_step(&st->f, &st->win), stop);
	if (!end)
		st->fp_stop = stop;
	return end;
}

/* Frame IDX of B, whose PC is in code a frame-pointer step leaves (KIND:
 * in a file's text or JIT code), as the JavaScript frame it is, if it is
 * one: true then. */
static __always_inline bool uw_v8_frame(struct uw_state *st, struct pk_sample_buf *b, __u32 idx,
					int kind)
{
	if (pk_v8_step(st, kind) == 1 && idx < PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH) {
		b->frames[idx] = st->v8_frame;
		st->rt_framed |= UW_RT_V8;
		return true;
	}
	return false;
}

/*
 * The step from frame IDX of B, in code of a file without CFI: a
 * frame-pointer step, but for a leaf in one of V8's builtins that runs
 * without a frame of its own (a small stub, an inline cache, a builtin in
 * its prologue or epilogue) under a JavaScript function's frame: that
 * frame is its caller's, so the leaf keeps its PC (the builtin, named as
 * itself) and its caller is found by the return address at SP, as CFI
 * finds a leaf's without a frame; the frame pointer stays. Else the leaf
 * would be named the function at the frame pointer, and that function's
 * own frame (the caller's return address) skipped. 0, or how the walk
 * ends.
 */
static __always_inline int uw_no_cfi_step(struct uw_state *st, struct pk_sample_buf *b, __u32 idx)
{
	__u64 pc = st->f.pc;

	if (uw_v8_frame(st, b, idx, PK_V8_INTERPRETED) && st->n == 1 && st->f.exact_pc &&
	    pk_v8_frameless(st) == 1) {
		if (idx < PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH)
			b->frames[idx] = pc;
		/* counted and checked as a frame-pointer step's caller: one
		 * that is no code ends the walk here */
		st->fp_frames++;
		st->fp_stop = PK_END_NO_CFI;
		return 0;
	}
	return uw_fp_step(st, PK_END_NO_CFI);
}

/* An unsupported end, counted by what was not supported. */
static __always_inline int uw_unsupported(__u32 why)
{
	count(why);
	return PK_END_UNSUPPORTED;
}

/* One step with a rule. 0, or how the walk ends. */
static __always_inline int uw_rule_step(struct uw_state *st, __u32 rule_idx)
{
	struct pk_unwind_rule *r = uw_rule_get(rule_idx);
	int step, end;

	if (!r)
		return uw_unsupported(PK_CNT_UNSUP_NO_RULE);
	step = pk_unwind_rule_step(&st->f, r, &st->win);
	end = pk_walk_rule_end(step);
	if (end == PK_END_UNSUPPORTED)
		return uw_unsupported(pk_walk_unsupported_counter(step));
	return end;
}

/* bpf_loop body: record st->f.pc as user frame n, then find its caller. */
static long uw_step(__u32 i, void *ctx)
{
	struct pk_sample_buf *b = sample_buf_get();
	struct uw_state *st = uw_state_get();
	__u32 idx;
	__u64 lookup;
	bool by_fp = false;
	long rule;
	int end;

	(void)i;
	(void)ctx;
	if (!st || !b)
		return 1;
	if (st->n >= PK_MAX_USTACK_DEPTH) {
		st->end = PK_END_DEPTH;
		return 1;
	}
	idx = st->kbase + st->n;
	if (idx >= PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH)
		return 1;
	b->frames[idx] = st->f.pc;
	st->n++;

	/* A return address points after the call, maybe past the end of the
	 * caller's FDE (a noreturn call last in a function): look up PC - 1. */
	lookup = st->f.exact_pc ? st->f.pc : st->f.pc - 1;
	if (!uw_find_mapping(st, lookup)) {
		/* A frame-pointer step read something that is no code: the
		 * frame it found is not a frame, and the walk ends where the
		 * step was taken. */
		if (st->fp_stop) {
			st->n--;
			st->fp_mask[(st->n / 64) & 3] &= ~(1ull << (st->n % 64));
			st->end = st->fp_stop;
			return 1;
		}
		st->end = PK_END_READ_FAULT;
		return 1;
	}
	st->fp_stop = 0;
	if (st->vma.kind == VMA_MISSING) {
		/* A file whose table is not in the kernel yet: its code may
		 * have no frame pointers, and a step through RBP would invent
		 * callers. Stop, and leave the registers and the stack to
		 * user space (pk_ustack_copy_attach), which finishes the walk once it
		 * has the table. */
		st->fp_frames++;
		st->missing_frames++;
		st->end = PK_END_NO_TABLE;
		return 1;
	}
	if (st->vma.kind == VMA_TABLE) {
		rule = uw_rule_for(st, lookup + st->vma.delta);
		if (rule < 0) {
			st->end = uw_unsupported(PK_CNT_UNSUP_NO_RULE);
			return 1;
		}
		/* Outside every FDE (a gap between FDEs is an END row, and
		 * before pc_base or after pc_end there is none): code built
		 * without CFI in a file that has some. */
		end = rule == PK_TABLE_NONE ? PK_END_NO_CFI : uw_rule_step(st, rule);
		if (end == PK_END_NO_CFI) {
			end = uw_no_cfi_step(st, b, idx);
			by_fp = true;
		}
	} else {
		/* JIT code: a JVM's own numbers step over its frames */
		end = st->vma.kind == VMA_ANON ? pk_hs_step(st) : -1;
		if (end < 0) {
			uw_v8_frame(st, b, idx, PK_V8_COMPILED);
			end = uw_fp_step(st, PK_END_FP_FALLBACK);
			by_fp = true;
		} else if (st->hs_frame && idx < PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH) {
			b->frames[idx] = st->hs_frame;
			st->rt_framed |= UW_RT_HOTSPOT;
		}
	}
	if (end) {
		st->end = end;
		return 1;
	}
	if (!st->f.pc) {	/* a zeroed return address ends some runtimes' stacks */
		st->end = PK_END_COMPLETE;
		return 1;
	}
	/* the caller, frame n, was found by a frame-pointer step; marked only
	 * now that it will be recorded (not when the walk ends here) */
	if (by_fp && st->n < PK_MAX_USTACK_DEPTH)
		st->fp_mask[(st->n / 64) & 3] |= 1ull << (st->n % 64);
	return 0;
}

/*
 * The walk from the leaf frame in uw_states (f, kbase) into the sample
 * scratch's frames[kbase...]; its result in uw_states. A global function:
 * the verifier checks it once per program, on its own, rather than once
 * for every state in which each program reaches it. Linux 6.1 verifies a
 * bpf_loop callback anew at each such state, and off-cpu's (a raw
 * tracepoint's stack, skipped twice) went past its million instructions.
 * One unwinder for every program type. Always 0.
 *
 * Linux 6.1 verifies a global function even where no call reaches it:
 * `dwarf`, a constant once loaded, makes its body dead code under
 * --unwind fp.
 */
__noinline int pk_walk_user(void)
{
	struct uw_state *st = uw_state_get();

	if (!dwarf || !st)
		return 0;
	st->n = 0;
	st->end = PK_END_NONE;
	st->fp_stop = 0;
	st->start_stack = BPF_CORE_READ(bpf_get_current_task_btf(), mm, start_stack);
	st->py_seen = 0;
	st->hs_seen = 0;
	st->v8_seen = 0;
	st->rt_none = st->rt_framed = 0;
	vma_cursor_reset(&st->vma);
	st->fp_frames = 0;
	st->missing_frames = 0;
	st->fp_mask[0] = st->fp_mask[1] = st->fp_mask[2] = st->fp_mask[3] = 0;
	st->win.base = 1;
	st->rule_table = PK_TABLE_NONE;
	bpf_loop(PK_MAX_USTACK_DEPTH + 1, uw_step, NULL, 0);
	if (st->end == PK_END_NONE)	/* the loop ran out: cannot happen */
		st->end = PK_END_DEPTH;
	return 0;
}

/*
 * Walk the user stack whose registers are REGS (the user's, never a kernel
 * pt_regs) into b->frames[kbase...], B being the scratch sample; fills
 * b->s's user fields and flags. Returns the number of user frames.
 */
static __always_inline __u32 pk_unwind_user(struct pk_sample_buf *b, __u32 kbase,
					    const struct pt_regs *regs)
{
	struct uw_state *st = uw_state_get();

	if (!st)
		return 0;
	uw_regs_from(&st->f, regs);
	st->f.exact_pc = !uw_after_syscall(regs);
	st->kbase = kbase;
	pk_walk_user();

	b->s.ustack_end = st->end;
	b->s.fp_frames = st->fp_frames;
	b->s.fp_mask[0] = st->fp_mask[0];
	b->s.fp_mask[1] = st->fp_mask[1];
	b->s.fp_mask[2] = st->fp_mask[2];
	b->s.fp_mask[3] = st->fp_mask[3];
	b->s.hdr.flags |= PK_SAMPLE_USTACK_DWARF;
	if (st->end == PK_END_DEPTH)
		b->s.hdr.flags |= PK_SAMPLE_USTACK_TRUNC;
	if (st->fp_frames) {
		count_add(PK_CNT_FP_FRAMES, st->fp_frames);
		count_add(PK_CNT_NO_TABLE_FRAMES, st->missing_frames);
	}
	return st->n < PK_MAX_USTACK_DEPTH ? st->n : PK_MAX_USTACK_DEPTH;
}

/*
 * The current process has just mapped code at ADDR (exec, mmap): report the
 * mapping, and its file when it has no table yet, now rather than at the
 * first sample that goes through it, so that probe-read loads the table
 * within milliseconds and the walks that stop for want of it (each with a
 * copy of the stack) last no longer. Not while this CPU builds a sample
 * (the walk's state is in use): the caller holds busy_cpu.
 */
static __always_inline void pk_report_code(__u64 addr)
{
	struct uw_state *st = uw_state_get();
	struct pk_file_info *fi;
	struct pk_file_key key;
	struct file *f;

	if (!dwarf || !st)
		return;
	/* code only: vma_at() refuses memory that is not executable */
	if (vma_at(&st->vma, addr, &key, &f) <= 0 || !f)
		return;
	fi = bpf_map_lookup_elem(&unwind_files, &key);
	report_mapping(&st->vma, (__u64)f, &key, fi ? fi->table : PK_TABLE_NONE);
	if (!fi)
		report_missing(&st->vma, &key);
}

/* PF_KTHREAD, include/linux/sched.h (a #define: not in BTF). */
#define UW_PF_KTHREAD		0x00200000
/*
 * The user registers of the current task, copied into the walk's state
 * until pk_unwind_user() starts the walk (uw_state.uregs): USER_REGS when
 * the sample interrupted user mode (the caller tested pk_regs_user_mode():
 * NULL otherwise), else the ones saved at kernel entry. NULL for kernel
 * threads, which have no user stack. Not on the BPF stack: 168 bytes
 * there put the calls down to report_mapping() past the 512 bytes Linux
 * 6.1 and 6.12 allow a chain of calls.
 */
static __always_inline const struct pt_regs *pk_user_regs(const struct pt_regs *user_regs)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct uw_state *st = uw_state_get();

	if (!st || (task->flags & UW_PF_KTHREAD))
		return NULL;
	if (!user_regs)
		user_regs = (const struct pt_regs *)bpf_task_pt_regs(task);
	if (bpf_probe_read_kernel(&st->uregs, sizeof(st->uregs), user_regs))
		return NULL;
	return &st->uregs;
}

#endif /* PK_CFI_WALK_BPF_H */
