// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * unwind_step.h from user space: the one rule evaluation the BPF walk
 * uses, stepping a synthetic stack laid out word by word as the x86-64
 * ABI lays out real frames (call pushes the return address, a prologue
 * pushes RBP), with memory served by a callback.
 */
#include <linux/types.h>
#include <string.h>

#include "eh_frame/unwind_step.h"
#include "test_util.h"

#define STACK_BASE	0x7ffd0000ull
#define STACK_WORDS	64

struct fake_stack {
	__u64 w[STACK_WORDS];	/* w[i] is at STACK_BASE + 8 * i */
	int reads;
};

static int fake_read(void *arg, __u64 *dst, __u64 addr)
{
	struct fake_stack *s = arg;

	s->reads++;
	if (addr < STACK_BASE || addr + 8 > STACK_BASE + 8 * STACK_WORDS || (addr & 7))
		return 0;
	*dst = s->w[(addr - STACK_BASE) / 8];
	return 1;
}

static __u64 at(int i)
{
	return STACK_BASE + 8 * (__u64)i;
}

static struct pk_unwind_rule rsp_rule(__s32 off)
{
	return (struct pk_unwind_rule){ .cfa_type = PK_CFA_RSP, .cfa_reg = PK_DWARF_RSP,
					 .cfa_offset = off, .ra_offset = -8 };
}

static struct pk_unwind_rule rbp_rule(void)
{
	return (struct pk_unwind_rule){ .cfa_type = PK_CFA_RBP, .cfa_reg = PK_DWARF_RBP,
					 .cfa_offset = 16, .fp_type = PK_FP_CFA_OFFSET,
					 .fp_offset = -16, .ra_offset = -8 };
}

/* The leaf's registers: every one known, as the interrupted ones are. */
static void leaf_at(struct pk_unwind_regs *f, __u64 pc, __u64 sp, __u64 bp)
{
	memset(f, 0, sizeof(*f));
	for (int r = 0; r < PK_UNWIND_NREGS; r++)
		f->regs[r] = 0x1000 + r;
	f->regs[PK_DWARF_RBP] = bp;
	f->regs[PK_DWARF_RSP] = sp;
	f->regs[PK_DWARF_RIP] = pc;
	f->pc = pc;
	f->sp = sp;
	f->valid = PK_UNWIND_ALL_REGS;
	f->exact_pc = 1;
}

/*
 * leaf (frameless, 16 bytes of locals) <- mid (RBP frame) <- top (frameless)
 * <- _start (RA undefined):
 *   w[0..1] leaf's locals, w[2] RA into mid,
 *   w[3..4] mid's locals, w[5] top's RBP saved by mid, w[6] RA into top,
 *   w[7] RA into _start, w[8..] _start's frame.
 */
START_TEST(test_step_whole_stack)
{
	struct fake_stack s = { 0 };
	struct pk_unwind_mem mem = { fake_read, &s };
	struct pk_unwind_regs f;
	struct pk_unwind_rule leaf = rsp_rule(24), mid = rbp_rule(), top = rsp_rule(8);
	struct pk_unwind_rule start = { .cfa_type = PK_CFA_RSP, .cfa_reg = PK_DWARF_RSP,
					.cfa_offset = 8, .ra_type = PK_RA_UNDEFINED };

	s.w[2] = 0x401100;
	s.w[5] = 0xabcdef;
	s.w[6] = 0x401200;
	s.w[7] = 0x401300;
	leaf_at(&f, 0x401000, at(0), at(5));

	ck_assert_int_eq(pk_unwind_rule_step(&f, &leaf, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401100);
	ck_assert_uint_eq(f.sp, at(3));
	ck_assert_uint_eq(f.regs[PK_DWARF_RBP], at(5));	/* unchanged: callee kept it */
	/* the callee-saved registers keep the leaf's values, the others are
	 * the callee's to clobber */
	ck_assert_uint_eq(f.valid, PK_UNWIND_CALLEE_SAVED);
	ck_assert_uint_eq(f.regs[PK_DWARF_RBX], 0x1000 + PK_DWARF_RBX);
	ck_assert_uint_eq(f.exact_pc, 0);

	ck_assert_int_eq(pk_unwind_rule_step(&f, &mid, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401200);
	ck_assert_uint_eq(f.sp, at(7));
	ck_assert_uint_eq(f.regs[PK_DWARF_RBP], 0xabcdef);

	ck_assert_int_eq(pk_unwind_rule_step(&f, &top, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401300);
	ck_assert_uint_eq(f.sp, at(8));

	ck_assert_int_eq(pk_unwind_rule_step(&f, &start, &mem), PK_STEP_OUTERMOST);
	ck_assert_uint_eq(f.pc, 0x401300);	/* a stopped step leaves the frame */
}
END_TEST

/* The same stack by frame pointers: mid's saved RBP chain. */
START_TEST(test_step_frame_pointer)
{
	struct fake_stack s = { 0 };
	struct pk_unwind_mem mem = { fake_read, &s };
	struct pk_unwind_regs f;

	s.w[5] = at(10);
	s.w[6] = 0x401200;
	s.w[10] = 0;
	s.w[11] = 0x401300;
	leaf_at(&f, 0x401100, at(3), at(5));
	ck_assert_int_eq(pk_unwind_fp_step(&f, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401200);
	ck_assert_uint_eq(f.sp, at(7));
	ck_assert_uint_eq(f.regs[PK_DWARF_RBP], at(10));
	ck_assert_uint_eq(f.exact_pc, 0);
	ck_assert_int_eq(pk_unwind_fp_step(&f, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401300);
	/* RBP 0: the end of the chain */
	ck_assert_int_eq(pk_unwind_fp_step(&f, &mem), PK_STEP_NO_FP);

	/* RBP below RSP is no frame pointer */
	leaf_at(&f, 0x401100, at(8), at(5));
	ck_assert_int_eq(pk_unwind_fp_step(&f, &mem), PK_STEP_NO_FP);
	/* RBP just below RSP, or not 8-aligned: no frame pointer either */
	leaf_at(&f, 0x401100, at(6), at(6) - 8);
	ck_assert_int_eq(pk_unwind_fp_step(&f, &mem), PK_STEP_NO_FP);
	leaf_at(&f, 0x401100, at(3), at(5) + 4);
	ck_assert_int_eq(pk_unwind_fp_step(&f, &mem), PK_STEP_NO_FP);
	/* RBP not known in this frame (a frame found by a rule that did
	 * not restore it) */
	leaf_at(&f, 0x401100, at(3), at(5));
	f.valid = 0;
	ck_assert_int_eq(pk_unwind_fp_step(&f, &mem), PK_STEP_NO_FP);
	/* a zero return address is no caller: the end of a chain */
	s.w[6] = 0;
	leaf_at(&f, 0x401100, at(3), at(5));
	ck_assert_int_eq(pk_unwind_fp_step(&f, &mem), PK_STEP_OUTERMOST);
	ck_assert_uint_eq(f.pc, 0x401100);
	/* an RBP the stack does not hold */
	leaf_at(&f, 0x401100, at(6), at(STACK_WORDS + 4));
	ck_assert_int_eq(pk_unwind_fp_step(&f, &mem), PK_STEP_READ_FAULT);
}
END_TEST

/*
 * Callee-saved registers through frames: mid saved the caller's rbx at
 * CFA-24 and r12 at CFA-16 (push r12; push rbx), top saved nothing, and
 * top's caller has its CFA in rbx (glibc's _dl_runtime_resolve_xsavec
 * realigns the stack so: mov rsp, rbx). Stack:
 *   w[0] mid's saved rbx (CFA-24), w[1] mid's saved r12 (CFA-16),
 *   w[2] RA into top, w[3] RA into resolve's caller (top: CFA rsp+8),
 *   w[9] RA of the frame whose CFA is rbx + 8 (rbx: at(9)).
 */
START_TEST(test_step_callee_saved)
{
	struct fake_stack s = { 0 };
	struct pk_unwind_mem mem = { fake_read, &s };
	struct pk_unwind_regs f;
	struct pk_unwind_rule mid = rsp_rule(24), top = rsp_rule(8);
	struct pk_unwind_rule by_rbx = { .cfa_type = PK_CFA_REG, .cfa_reg = PK_DWARF_RBX,
					 .cfa_offset = 8, .ra_offset = -8 };

	mid.saved[0] = -3;	/* rbx at CFA - 24 */
	mid.saved[1] = -2;	/* r12 at CFA - 16 */
	s.w[0] = at(9);		/* the caller's rbx: its frame base */
	s.w[1] = 0x1212;
	s.w[2] = 0x401100;
	s.w[3] = 0x401200;
	s.w[9] = 0x401300;
	leaf_at(&f, 0x401000, at(0), 0);
	ck_assert_int_eq(pk_unwind_rule_step(&f, &mid, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.regs[PK_DWARF_RBX], at(9));
	ck_assert_uint_eq(f.regs[12], 0x1212);
	ck_assert_uint_eq(f.regs[13], 0x1000 + 13);	/* not saved: the leaf's */
	ck_assert(f.valid & PK_UNWIND_REG(PK_DWARF_RBX));
	ck_assert(!(f.valid & PK_UNWIND_REG(5)));	/* rdi: caller-saved */

	ck_assert_int_eq(pk_unwind_rule_step(&f, &top, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401200);
	ck_assert_uint_eq(f.regs[PK_DWARF_RBX], at(9));	/* kept through top */

	/* a non-leaf frame whose CFA is rbx-based: rbx is known here */
	ck_assert_int_eq(pk_unwind_rule_step(&f, &by_rbx, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401300);
	ck_assert_uint_eq(f.sp, at(10));

	/* a saved slot that cannot be read: that register is unknown, the
	 * step still goes on */
	leaf_at(&f, 0x401000, at(0), 0);
	mid.saved[0] = 100;	/* CFA + 800: off the fake stack */
	ck_assert_int_eq(pk_unwind_rule_step(&f, &mid, &mem), PK_STEP_OK);
	ck_assert(!(f.valid & PK_UNWIND_REG(PK_DWARF_RBX)));
	ck_assert_int_eq(pk_unwind_rule_step(&f, &by_rbx, &mem), PK_STEP_UNSUP_CFA_REG);
	/* an unknown rule makes it unknown too */
	leaf_at(&f, 0x401000, at(0), 0);
	mid.saved[0] = PK_SAVED_UNKNOWN;
	ck_assert_int_eq(pk_unwind_rule_step(&f, &mid, &mem), PK_STEP_OK);
	ck_assert(!(f.valid & PK_UNWIND_REG(PK_DWARF_RBX)));
}
END_TEST

/* glibc's __vfork: pop %rdi; syscall; push %rdi; ret. After the pop, CFA =
 * rsp + 0 (nothing of the call left on the stack) and the RA is in rdi:
 * known in the leaf, unknown above it. */
START_TEST(test_step_ra_in_register)
{
	struct fake_stack s = { 0 };
	struct pk_unwind_mem mem = { fake_read, &s };
	struct pk_unwind_regs f;
	struct pk_unwind_rule vfork = { .cfa_type = PK_CFA_RSP, .cfa_reg = PK_DWARF_RSP,
					.cfa_offset = 0, .ra_type = PK_RA_REGISTER,
					.ra_reg = 5 };

	leaf_at(&f, 0x7f0000001000, at(4), 0);
	f.regs[5] = 0x401700;
	ck_assert_int_eq(pk_unwind_rule_step(&f, &vfork, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401700);
	ck_assert_uint_eq(f.sp, at(4));
	ck_assert_uint_eq(f.exact_pc, 0);
	/* the caller does not know rdi */
	ck_assert_int_eq(pk_unwind_rule_step(&f, &vfork, &mem), PK_STEP_UNSUP_RA_REG);
	ck_assert_uint_eq(f.pc, 0x401700);
	/* a CFA below RSP is still a loop */
	leaf_at(&f, 0x7f0000001000, at(4), 0);
	vfork.cfa_offset = -8;
	ck_assert_int_eq(pk_unwind_rule_step(&f, &vfork, &mem), PK_STEP_LOOP);
}
END_TEST

/* A register other than RSP/RBP is known in the leaf only. */
START_TEST(test_step_register_cfa_leaf_only)
{
	struct fake_stack s = { 0 };
	struct pk_unwind_mem mem = { fake_read, &s };
	struct pk_unwind_regs f;
	struct pk_unwind_rule by_rdi = { .cfa_type = PK_CFA_REG, .cfa_reg = 5,
					 .cfa_offset = 8, .ra_offset = -8 };

	s.w[4] = 0x401400;
	leaf_at(&f, 0x401000, at(0), 0);
	f.regs[5] = at(4);
	ck_assert_int_eq(pk_unwind_rule_step(&f, &by_rdi, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401400);
	ck_assert_uint_eq(f.sp, at(5));
	/* the caller does not know rdi */
	ck_assert_int_eq(pk_unwind_rule_step(&f, &by_rdi, &mem), PK_STEP_UNSUP_CFA_REG);
}
END_TEST

/* gcc's stack realignment: CFA = *(rbp - 8) + 0 */
START_TEST(test_step_deref)
{
	struct fake_stack s = { 0 };
	struct pk_unwind_mem mem = { fake_read, &s };
	struct pk_unwind_regs f;
	struct pk_unwind_rule drap = { .cfa_type = PK_CFA_DEREF, .cfa_reg = PK_DWARF_RBP,
				       .cfa_offset = -8, .cfa_deref_offset = 0,
				       .ra_offset = -8 };

	s.w[2] = at(12);	/* at rbp - 8 */
	s.w[11] = 0x401500;
	leaf_at(&f, 0x401000, at(0), at(3));
	ck_assert_int_eq(pk_unwind_rule_step(&f, &drap, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401500);
	ck_assert_uint_eq(f.sp, at(12));
}
END_TEST

/* __restore_rt: the interrupted registers from the ucontext at RSP. */
START_TEST(test_step_signal)
{
	struct fake_stack s = { 0 };
	struct pk_unwind_mem mem = { fake_read, &s };
	struct pk_unwind_regs f;
	struct pk_unwind_rule sig = { .cfa_type = PK_CFA_SIGNAL };

	/* every general register of the interrupted frame, at the user
	 * ABI's offsets: struct sigcontext_64 from r8 on */
	for (int i = 0; i < 16; i++)
		s.w[PK_SIGFRAME_MCONTEXT / 8 + i] = 0x5c00 + i;
	s.w[PK_SIGFRAME_RBP / 8] = at(50);
	s.w[PK_SIGFRAME_RSP / 8] = at(40);
	s.w[PK_SIGFRAME_RIP / 8] = 0x401600;
	leaf_at(&f, 0x7f0000001000, at(0), 0);
	f.valid = PK_UNWIND_REG(PK_DWARF_RBP);
	f.exact_pc = 0;
	ck_assert_int_eq(pk_unwind_rule_step(&f, &sig, &mem), PK_STEP_OK);
	ck_assert_uint_eq(f.pc, 0x401600);
	ck_assert_uint_eq(f.sp, at(40));
	ck_assert_uint_eq(f.regs[PK_DWARF_RBP], at(50));
	ck_assert_uint_eq(f.exact_pc, 1);	/* an interrupted PC, not a return address */
	ck_assert_uint_eq(f.valid, PK_UNWIND_GPRS);
	ck_assert_uint_eq(f.regs[8], 0x5c00);		/* r8, first */
	ck_assert_uint_eq(f.regs[15], 0x5c07);		/* r15 */
	ck_assert_uint_eq(f.regs[5], 0x5c08);		/* rdi */
	ck_assert_uint_eq(f.regs[4], 0x5c09);		/* rsi */
	ck_assert_uint_eq(f.regs[PK_DWARF_RBX], 0x5c0b);
	ck_assert_uint_eq(f.regs[1], 0x5c0c);		/* rdx */
	ck_assert_uint_eq(f.regs[0], 0x5c0d);		/* rax */
	ck_assert_uint_eq(f.regs[2], 0x5c0e);		/* rcx */
}
END_TEST

START_TEST(test_step_stops)
{
	struct fake_stack s = { 0 };
	struct pk_unwind_mem mem = { fake_read, &s };
	struct pk_unwind_regs f;
	struct pk_unwind_rule end = { .cfa_type = PK_CFA_END };
	struct pk_unwind_rule down = rsp_rule(0);
	struct pk_unwind_rule unsup = { .cfa_type = PK_CFA_UNSUPPORTED };
	struct pk_unwind_rule ra_unsup = rsp_rule(8);
	struct pk_unwind_rule off_stack = rsp_rule(8 * STACK_WORDS + 64);
	struct pk_unwind_rule rbp = rbp_rule();

	ra_unsup.ra_type = PK_RA_UNSUPPORTED;
	leaf_at(&f, 0x401000, at(0), at(4));
	ck_assert_int_eq(pk_unwind_rule_step(&f, &end, &mem), PK_STEP_NO_CFI);
	ck_assert_int_eq(pk_unwind_rule_step(&f, &down, &mem), PK_STEP_LOOP);
	ck_assert_int_eq(pk_unwind_rule_step(&f, &unsup, &mem), PK_STEP_UNSUP_CFA);
	ck_assert_int_eq(pk_unwind_rule_step(&f, &ra_unsup, &mem), PK_STEP_UNSUP_RA);
	ck_assert_int_eq(pk_unwind_rule_step(&f, &off_stack, &mem), PK_STEP_READ_FAULT);
	/* RBP-based CFA in a frame whose RBP is not known */
	f.valid = 0;
	ck_assert_int_eq(pk_unwind_rule_step(&f, &rbp, &mem), PK_STEP_UNSUP_CFA_REG);
	ck_assert_uint_eq(f.pc, 0x401000);
	ck_assert_uint_eq(f.sp, at(0));
}
END_TEST

Suite *suite_eh_step(void)
{
	Suite *s = suite_create("eh_step");
	TCase *tc;

	tc = tcase_create("steps");
	tcase_add_test(tc, test_step_whole_stack);
	tcase_add_test(tc, test_step_frame_pointer);
	tcase_add_test(tc, test_step_register_cfa_leaf_only);
	tcase_add_test(tc, test_step_callee_saved);
	tcase_add_test(tc, test_step_ra_in_register);
	tcase_add_test(tc, test_step_deref);
	tcase_add_test(tc, test_step_signal);
	tcase_add_test(tc, test_step_stops);
	suite_add_tcase(s, tc);
	return s;
}
