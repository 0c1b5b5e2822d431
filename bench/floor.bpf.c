// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The references of bench/overhead.sh's BPF time per sample: perf_event
 * programs that do the least a sample can, measured in the same runs as
 * probekit's, so that its figure is read against what this machine charges
 * for the same work rather than against a number from elsewhere.
 *
 *  - floor_empty: nothing. Any program's cost before its first instruction
 *    of work (its call, its code's first line, the statistics themselves).
 *  - floor_copy_ring: what any walk of a 15-frame user stack must touch at
 *    the least: one copy of the KiB of stack at the user SP (probekit's
 *    window, bpf/cfi_state.bpf.h) and one ring-buffer record of 15 words.
 *  - floor_fp_walk: the kernel's own frame-pointer walk of the user stack
 *    (bpf_get_stack, what `--unwind fp`, bpftrace's ustack and perf -g
 *    use), on a workload built with frame pointers.
 */
#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#define FLOOR_WORDS	128	/* the stack copy: 1 KiB, as probekit's window */
#define FLOOR_RECORD	15	/* words in a record: a 15-frame stack */

struct floor_buf {
	__u64 word[FLOOR_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct floor_buf);
} floor_bufs SEC(".maps");

/* Nobody reads it: 8 MiB holds the records of a run at 99 Hz on a few
 * CPUs, and a full ring would make the output cheaper, not dearer. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} floor_ring SEC(".maps");

static __always_inline struct floor_buf *floor_buf(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&floor_bufs, &zero);
}

SEC("perf_event")
int floor_empty(void *ctx)
{
	(void)ctx;
	return 0;
}

SEC("perf_event")
int floor_copy_ring(void *ctx)
{
	struct floor_buf *b = floor_buf();
	struct pt_regs *regs;
	__u64 sp;

	(void)ctx;
	if (!b)
		return 0;
	/* the user registers whether the sample hit user or kernel code */
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	sp = BPF_CORE_READ(regs, sp);
	if (bpf_probe_read_user(b->word, sizeof(b->word), (const void *)(sp & ~(__u64)1023)))
		return 0;
	bpf_ringbuf_output(&floor_ring, b->word, FLOOR_RECORD * sizeof(__u64), 0);
	return 0;
}

SEC("perf_event")
int floor_fp_walk(void *ctx)
{
	struct floor_buf *b = floor_buf();

	if (b)
		bpf_get_stack(ctx, b->word, sizeof(b->word), BPF_F_USER_STACK);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
