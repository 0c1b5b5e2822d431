/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * How a walk of a user stack ends, from the result of a step
 * (eh_frame/unwind_step.h): the one decision of the BPF walk
 * (bpf/cfi_walk.bpf.h) and of probe-read's finisher of copied stacks
 * (tools/reading/ustack_finish.c), so that a stack ends alike whichever of
 * the two walked it.
 *
 * Included by BPF code (after vmlinux.h) and by user space.
 */
#ifndef PK_WALK_END_H
#define PK_WALK_END_H

#include "bpf/probekit.h"
#include "eh_frame/unwind_table.h"

/* After a step by a rule: 0 to go on, PK_END_NO_CFI where no FDE covers
 * the PC (the walk then takes a frame-pointer step, pk_walk_fp_end), or
 * how the walk ends (enum pk_ustack_end). */
static inline int pk_walk_rule_end(int step)
{
	switch (step) {
	case PK_STEP_OK:
		return 0;
	case PK_STEP_NO_CFI:
		return PK_END_NO_CFI;
	case PK_STEP_OUTERMOST:
		return PK_END_COMPLETE;
	case PK_STEP_READ_FAULT:
		return PK_END_READ_FAULT;
	case PK_STEP_LOOP:
		return PK_END_LOOP;
	default:
		return PK_END_UNSUPPORTED;
	}
}

/* The counter of a step by a rule that ended PK_END_UNSUPPORTED: what was
 * not supported (enum pk_counter). */
static inline int pk_walk_unsupported_counter(int step)
{
	switch (step) {
	case PK_STEP_UNSUP_CFA_REG:
		return PK_CNT_UNSUP_CFA_REG;
	case PK_STEP_UNSUP_RA:
		return PK_CNT_UNSUP_RA;
	case PK_STEP_UNSUP_RA_REG:
		return PK_CNT_UNSUP_RA_REG;
	default:
		return PK_CNT_UNSUP_CFA;
	}
}

/* Whether a frame no rule unwinds is the process's entry frame (ld.so's
 * _start has no FDE): its SP is the initial stack pointer START_STACK,
 * where the kernel left argc, and it has no caller. Only the main thread's
 * first frame can have that SP. */
static inline int pk_walk_entry_frame(__u64 sp, __u64 start_stack)
{
	return start_stack && sp == start_stack;
}

/* After a frame-pointer step taken where the walk would otherwise end
 * STOP (PK_END_NO_CFI in a gap of a file's CFI, PK_END_FP_FALLBACK in code
 * with no table): 0 to go on, or how the walk ends. A zero return address
 * ends some runtimes' (JITs') frame-pointer chains, but in code of a file
 * without CFI at that PC it proves nothing. */
static inline int pk_walk_fp_end(int step, int stop)
{
	if (step == PK_STEP_OK)
		return 0;
	if (step == PK_STEP_OUTERMOST && stop != PK_END_NO_CFI)
		return PK_END_COMPLETE;
	return stop;
}

#endif /* PK_WALK_END_H */
