// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sampler: a perf_event program run on every CPU at the sampling rate
 * that sends one struct pk_sample per sample to the ring buffer, and two
 * scheduler tracepoints that keep the set of target processes up to date as
 * they fork and exit. probe-load sets the `const volatile` knobs and map sizes
 * before loading; see bpf/probekit.h for what user space reads.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "probekit.h"
#include "profile_sizes.h"

const volatile bool filter_pids = false;
const volatile bool skip_idle = false;
const volatile __s32 target_cpu = -1;
/* min(PK_MAX_STACK_DEPTH, kernel.perf_event_max_stack): bpf_get_stack()
 * stops there, so a stack that fills it was probably cut short. */
const volatile __u32 stack_depth = PK_MAX_STACK_DEPTH;
/* Wake the reader only once this many bytes wait in the ring buffer (0:
 * after every sample). A wakeup per sample costs the reader two context
 * switches per sample; it polls on a timer anyway. */
const volatile __u64 wakeup_bytes = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PK_MAX_TARGETS);
	__type(key, __u32);	/* tgid */
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PK_RINGBUF_DEFAULT);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PK_CNT__MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* Written by probe-load after load; never touched here. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_session);
} session SEC(".maps");

static __always_inline void count_add(__u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	/* Per-CPU slot, and perf_event programs do not nest on one CPU. */
	if (c)
		*c += n;
}

static __always_inline void count(__u32 idx)
{
	count_add(idx, 1);
}

/* A sample is assembled in the per-CPU scratch of unwind.bpf.h, then
 * copied to the ring buffer at its real size: reserving PK_SAMPLE_MAX_SIZE
 * per sample would waste most of the buffer on short stacks. */
#include "unwind.bpf.h"

static __always_inline bool wanted(__u32 tgid, __u32 tid, __u32 cpu)
{
	if (skip_idle && tid == 0)
		return false;
	if (target_cpu >= 0 && cpu != (__u32)target_cpu)
		return false;
	if (filter_pids && !bpf_map_lookup_elem(&targets, &tgid))
		return false;
	return true;
}

/*
 * bpf_get_stack() returns bytes written or a negative error. An empty
 * kernel stack is normal when the sample interrupted user mode, and an empty
 * user stack is normal for kernel threads: those are not failures.
 */
static __always_inline __u32 stack_frames(long ret, __u32 err_flag,
					  __u32 trunc_flag, __u32 *flags)
{
	__u32 n;

	if (ret < 0) {
		*flags |= err_flag;
		return 0;
	}
	n = ret / sizeof(__u64);
	if (n >= stack_depth)
		*flags |= trunc_flag;
	return n > PK_MAX_STACK_DEPTH ? PK_MAX_STACK_DEPTH : n;
}

SEC("perf_event")
int profile_sample(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 zero = 0, flags = 0, kn, un = 0, size;
	struct pk_sample_buf *b;
	struct pt_regs uregs;
	long ret;

	if (!wanted(tgid, tid, cpu)) {
		count(PK_CNT_FILTERED);
		return 0;
	}
	b = bpf_map_lookup_elem(&scratch, &zero);
	if (!b)
		return 0;	/* cannot happen: index 0 of a 1-entry array */

	ret = bpf_get_stack(ctx, b->frames, PK_MAX_STACK_DEPTH * sizeof(__u64), 0);
	kn = stack_frames(ret, PK_SAMPLE_KSTACK_ERR, PK_SAMPLE_KSTACK_TRUNC, &flags);
	b->s.hdr.flags = 0;
	b->s.ustack_end = PK_END_NONE;
	b->s.fp_frames = 0;
	if (!dwarf) {
		ret = bpf_get_stack(ctx, &b->frames[kn], PK_MAX_STACK_DEPTH * sizeof(__u64),
				    BPF_F_USER_STACK);
		un = stack_frames(ret, PK_SAMPLE_USTACK_ERR, PK_SAMPLE_USTACK_TRUNC, &flags);
		if (fp_mappings && un)
			pk_note_mappings(kn, un);
	} else if (pk_user_regs((struct pt_regs *)&ctx->regs, &uregs)) {
		un = pk_unwind_user(b, kn, &uregs);
	}

	size = sizeof(b->s) + (kn + un) * sizeof(__u64);
	b->s.hdr.type = PK_EVENT_SAMPLE;
	b->s.hdr.size = size;
	b->s.hdr.flags |= flags;
	b->s.time_ns = bpf_ktime_get_boot_ns();
	b->s.pid = tgid;
	b->s.tid = tid;
	b->s.cpu = cpu;
	b->s.kstack_len = kn;
	b->s.ustack_len = un;
	b->s.frames_off = sizeof(b->s);
	bpf_get_current_comm(b->s.comm, sizeof(b->s.comm));

	if (size > sizeof(*b))
		return 0;	/* cannot happen; tells the verifier the bound */
	if (bpf_ringbuf_output(&events, b, size,
			       bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
			       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP)) {
		count(PK_CNT_RINGBUF_FULL);
		return 0;
	}
	count(PK_CNT_SAMPLES);
	if (b->s.ustack_end != PK_END_NONE)
		count(PK_CNT_END_COMPLETE + b->s.ustack_end - PK_END_COMPLETE);
	if (flags & PK_SAMPLE_KSTACK_ERR)
		count(PK_CNT_KSTACK_ERR);
	if (flags & PK_SAMPLE_USTACK_ERR)
		count(PK_CNT_USTACK_ERR);
	return 0;
}

/* A target's new child process becomes a target too (new threads share
 * the tgid and need nothing). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (ptgid == ctgid || !bpf_map_lookup_elem(&targets, &ptgid))
		return 0;
	bpf_map_update_elem(&targets, &ctgid, &one, BPF_ANY);
	return 0;
}

/* Forget a target when its last thread exits, whichever thread that is:
 * do_exit() decrements signal->live before this tracepoint, so 0 means the
 * whole thread group is gone. probe-read stops when targets is empty. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(forget_exit, struct task_struct *task)
{
	__u32 tgid = task->tgid;

	if (BPF_CORE_READ(task, signal, live.counter) == 0)
		bpf_map_delete_elem(&targets, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
