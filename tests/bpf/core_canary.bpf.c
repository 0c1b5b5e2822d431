// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel-field readers of bpf/kernel_fields.bpf.h, loaded on their own
 * by tests/unit/bpf/test_core.c, and beside them one read written the way
 * the readers exist to avoid: a field of the newer layout (pt_regs.csx,
 * Linux 6.9) with no bpf_core_field_exists() guard. On a kernel without it
 * libbpf cannot relocate that read and the kernel refuses the program: the
 * matrix sees it fail there, and only there.
 */
#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf/kernel_fields.bpf.h"

const volatile __u32 target_tgid;

__u64 guarded_user, guarded_kernel;
__u64 unguarded_user, unguarded_kernel;

static __always_inline bool is_target(void)
{
	return bpf_get_current_pid_tgid() >> 32 == target_tgid;
}

/* sys_enter's registers are the task's own at the syscall: user mode. */
SEC("tp_btf/sys_enter")
int BPF_PROG(canary_guarded, struct pt_regs *regs)
{
	(void)ctx;	/* BPF_PROG's, the raw arguments: not needed here */
	if (!is_target())
		return 0;
	if (pk_regs_user_mode(regs))
		__sync_fetch_and_add(&guarded_user, 1);
	else
		__sync_fetch_and_add(&guarded_kernel, 1);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(canary_unguarded, struct pt_regs *regs)
{
	(void)ctx;	/* BPF_PROG's, the raw arguments: not needed here */
	if (!is_target())
		return 0;
	if (BPF_CORE_READ(regs, csx) & PK_SEGMENT_RPL_MASK)
		__sync_fetch_and_add(&unguarded_user, 1);
	else
		__sync_fetch_and_add(&unguarded_kernel, 1);
	return 0;
}

/* pk_mm_vma_seq of the target's mm at its syscalls: the last count and
 * how many syscalls had one. */
__u32 mm_seq;
__u64 mm_seq_known, mm_seq_unknown;

SEC("tp_btf/sys_enter")
int BPF_PROG(canary_mm_seq, struct pt_regs *regs)
{
	__u32 seq;

	(void)ctx;	/* BPF_PROG's, the raw arguments: not needed here */
	(void)regs;
	if (!is_target())
		return 0;
	if (pk_mm_vma_seq(bpf_get_current_task_btf()->mm, &seq)) {
		mm_seq = seq;
		__sync_fetch_and_add(&mm_seq_known, 1);
	} else {
		__sync_fetch_and_add(&mm_seq_unknown, 1);
	}
	return 0;
}

/* pk_perf_event_regs of the target's cpu-clock samples: how many were
 * taken in user mode with a PC in [user_lo, user_hi) (the test's own
 * code, where it spins), in user mode elsewhere, and in the kernel. */
const volatile __u64 user_lo, user_hi;
__u64 perf_user_in, perf_user_out, perf_kernel;

SEC("perf_event")
int canary_perf_regs(struct bpf_perf_event_data *ctx)
{
	const struct pt_regs *regs = pk_perf_event_regs(ctx);
	__u64 ip;

	if (!is_target())
		return 0;
	if (!pk_regs_user_mode(regs)) {
		__sync_fetch_and_add(&perf_kernel, 1);
		return 0;
	}
	ip = BPF_CORE_READ(regs, ip);
	if (ip >= user_lo && ip < user_hi)
		__sync_fetch_and_add(&perf_user_in, 1);
	else
		__sync_fetch_and_add(&perf_user_out, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
