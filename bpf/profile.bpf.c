// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sampler: a perf_event program run on every CPU at the sampling rate
 * that sends one struct pk_sample per sample to the ring buffer, two
 * scheduler tracepoints that keep the set of target processes up to date as
 * they fork and exit, and (--unwind dwarf) two that report code as exec and
 * mmap map it. probe-load sets the `const volatile` knobs and map sizes
 * before loading; see bpf/probekit.h for what user space reads.
 */
#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpf/probekit.h"
#include "bpf/profile_sizes.h"
#include "bpf/kernel_fields.bpf.h"
#include "bpf/sample.bpf.h"
#include "bpf/mapping_report.bpf.h"
#include "bpf/cfi_walk.bpf.h"
#include "bpf/ustack_copy.bpf.h"
#include "bpf/python_walk.bpf.h"
#include "bpf/hotspot_walk.bpf.h"
#include "bpf/v8_walk.bpf.h"
#include "bpf/aggregate.bpf.h"

const volatile bool filter_pids = false;
const volatile bool skip_idle = false;
const volatile __s32 target_cpu = -1;
/* --cgroup: only tasks in these cgroups or below them (lib/cgroup.h): the
 * ancestor at a cgroup's level has its id. */
const volatile __u32 ncgroups = 0;
const volatile __u64 cgroup_ids[PK_MAX_CGROUPS] = {};
const volatile __u32 cgroup_levels[PK_MAX_CGROUPS] = {};
/* min(PK_MAX_STACK_DEPTH, kernel.perf_event_max_stack): bpf_get_stack()
 * stops there, so a stack that fills it was probably cut short. */
const volatile __u32 stack_depth = PK_MAX_STACK_DEPTH;
/* Wake the reader only once this many bytes wait in the ring buffer (0:
 * after every sample). A wakeup per sample costs the reader two context
 * switches per sample; it polls on a timer anyway. */
const volatile __u64 wakeup_bytes = 0;
/* Events (bpf/probekit.h "Events"): one hit in sample_every[EVENT] is
 * sampled; the off-cpu event's index and threshold; the event of each fentry
 * program. */
const volatile __u64 sample_every[PK_MAX_EVENTS] = {};
const volatile __u32 offcpu_event = 0;
const volatile __u64 min_block_ns = 0;
const volatile __u32 fentry_event[PK_FENTRY_PROGS] = {};
/* The kernel frames above the probed function's in each fentry program's
 * stacks: the program and its BPF trampoline; at fexit, the function too,
 * which has returned (probe-load sets them). */
const volatile __u32 fentry_kskip[PK_FENTRY_PROGS] = {};
/* __traceiter_sched_switch: between sched_switch and this program when more
 * than one probe is attached to it; not where a thread sleeps. */
const volatile __u64 traceiter_lo = 0, traceiter_hi = 0;

/* Hits so far per event, for one in N: shared by all CPUs so that N is exact. */
__u64 hit_seq[PK_MAX_EVENTS];

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PK_MAX_TARGETS);
	__type(key, __u32);	/* tgid */
	__type(value, __u8);
} targets SEC(".maps");

/* Written by probe-load after load; never touched here. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PK_MAX_EVENTS);
	__type(key, __u32);
	__type(value, struct pk_event_desc);
} event_list SEC(".maps");

/* 1 while this CPU builds a sample (sample_begin). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} busy_cpu SEC(".maps");

/* TASK_RUNNING, include/linux/sched.h (a #define: not in BTF): the state
 * of a thread switched out runnable. */
#define PK_TASK_RUNNING		0

/* A blocked thread's sample, from the switch that took it off the CPU. */
struct offcpu_slot {
	__u64 start_ns;		/* 0: not blocked (or not sampled) */
	__u32 size;
	__u32 __pad;
	struct pk_sample_buf b;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_slot);
} offcpu_slots SEC(".maps");

static __always_inline bool in_cgroups(void)
{
	if (!ncgroups)
		return true;
	for (__u32 i = 0; i < PK_MAX_CGROUPS && i < ncgroups; i++)
		if (bpf_get_current_ancestor_cgroup_id(cgroup_levels[i]) == cgroup_ids[i])
			return true;
	return false;
}

/* A call of its own: inlined, its lookups grew the programs' frames past
 * 6.1's 512 bytes for the deepest chain of calls. A target held before
 * its exec (PK_TARGET_HELD) is not sampled. */
static __noinline bool wanted(__u32 tgid, __u32 tid, __u32 cpu)
{
	__u8 *target;

	if (skip_idle && tid == 0)
		return false;
	if (target_cpu >= 0 && cpu != (__u32)target_cpu)
		return false;
	if (filter_pids) {
		target = bpf_map_lookup_elem(&targets, &tgid);
		if (!target || *target == PK_TARGET_HELD)
			return false;
	}
	return in_cgroups();
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

/*
 * The current task's name into COMM, as bpf_get_current_comm() gives it,
 * by two loads rather than a helper call: each line of code a sample runs
 * is a cold miss, and the helper's are lines of its own (0.2 µs of a
 * sample here). A task's comm is NUL-terminated and padded
 * (__set_task_comm), a longer one cut as the helper cuts it.
 */
static __always_inline void current_comm(char comm[PK_TASK_COMM_LEN])
{
	struct task_struct *task = bpf_get_current_task_btf();

	_Static_assert(PK_TASK_COMM_LEN == 2 * sizeof(__u64), "two loads");
	if (bpf_core_field_size(task->comm) < PK_TASK_COMM_LEN) {
		bpf_get_current_comm(comm, PK_TASK_COMM_LEN);
		return;
	}
	*(__u64 *)&comm[0] = *(__u64 *)&task->comm[0];
	*(__u64 *)&comm[8] = *(__u64 *)&task->comm[8];
	comm[PK_TASK_COMM_LEN - 1] = 0;
}

/*
 * The current task's stacks as a sample of EVENT weighing WEIGHT, in the
 * per-CPU scratch: kernel frames from CTX (any program type's context),
 * user frames from CTX_REGS when they are the user's (perf events, uprobes),
 * else from the registers saved at kernel entry. Returns the record's size.
 */
static __always_inline __u32 build_sample(void *ctx, struct pk_sample_buf *b,
					  const struct pt_regs *ctx_regs, __u32 kskip,
					  __u32 event, __u64 weight)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 flags = 0, kn, un = 0, pn = 0, size;
	bool in_user = ctx_regs && pk_regs_user_mode(ctx_regs);
	const struct pt_regs *uregs;
	long ret = 0;

	/* A sample that interrupted user mode has no kernel frames, and
	 * bpf_get_stack() would find none (get_perf_callchain() walks the
	 * kernel only from kernel-mode registers): not calling it saves the
	 * callchain buffer's cold cache lines, a tenth of a cold sample. */
	if (!in_user)
		ret = bpf_get_stack(ctx, b->frames, PK_MAX_STACK_DEPTH * sizeof(__u64),
				    kskip & BPF_F_SKIP_FIELD_MASK);
	if (kskip && ret > 0 && b->frames[0] >= traceiter_lo && b->frames[0] < traceiter_hi)
		ret = bpf_get_stack(ctx, b->frames, PK_MAX_STACK_DEPTH * sizeof(__u64),
				    (kskip + 1) & BPF_F_SKIP_FIELD_MASK);
	kn = stack_frames(ret, PK_SAMPLE_KSTACK_ERR, PK_SAMPLE_KSTACK_TRUNC, &flags);
	b->s.hdr.flags = 0;
	b->s.ustack_end = PK_END_NONE;
	b->s.fp_frames = 0;
	b->s.copy_off = 0;
	b->s.py_len = 0;
	b->s.py_end = PK_PY_END_NONE;
	if (!dwarf) {
		ret = bpf_get_stack(ctx, &b->frames[kn], PK_MAX_STACK_DEPTH * sizeof(__u64),
				    BPF_F_USER_STACK);
		un = stack_frames(ret, PK_SAMPLE_USTACK_ERR, PK_SAMPLE_USTACK_TRUNC, &flags);
		if (fp_mappings && un)
			pk_note_mappings(kn, un);
	} else {
		uregs = pk_user_regs(in_user ? ctx_regs : NULL);
		if (uregs) {
			un = pk_unwind_user(b, kn, uregs);
			pk_hotspot_sample(kn, un);
			pk_v8_sample(kn, un);
			pn = pk_python_sample(b, kn + un);
		}
	}

	size = sizeof(b->s) + (kn + un + pn) * sizeof(__u64);
	b->s.hdr.type = PK_EVENT_SAMPLE;
	b->s.hdr.size = size;
	b->s.hdr.flags |= flags;
	b->s.time_ns = bpf_ktime_get_boot_ns();
	b->s.pid = pid_tgid >> 32;
	b->s.tid = (__u32)pid_tgid;
	b->s.cpu = bpf_get_smp_processor_id();
	b->s.kstack_len = kn;
	b->s.ustack_len = un;
	b->s.frames_off = sizeof(b->s);
	b->s.weight = weight;
	b->s.event = event;
	b->s.cgroup_id = bpf_get_current_cgroup_id();
	current_comm(b->s.comm);
	return size;
}

/* Send the sample built in B (SIZE bytes) and count it. COPY: B was just
 * built on the current thread, whose stack can still be copied when its
 * walk stopped for want of a table (not so an off-cpu sample sent later). */
static __always_inline void send_sample(const struct pk_sample_buf *b, __u32 size, bool copy)
{
	__u32 event = b->s.event;
	const void *data = b;
	__u64 len;

	if (pk_aggregate(b))
		return;	/* counted in the counts map (--aggregate) */
	if (size > sizeof(*b))
		return;	/* cannot happen; tells the verifier the bound */
	if (copy)
		data = pk_ustack_copy_attach(b, &size);
	/* Cannot happen; tells the verifier the bound, on the very register
	 * the helper gets: 64 bits wide, after a barrier, because clang
	 * drops a check it can prove and 6.1's verifier does not carry a
	 * bound from a 32-bit copy of a value to the value. */
	len = size;
	barrier_var(len);
	if (len > sizeof(struct uw_copy_buf))
		return;
	if (bpf_ringbuf_output(&events, (void *)data, len,
			       bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
			       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP)) {
		count(PK_CNT_RINGBUF_FULL);
		event_count(event, PK_ECNT_LOST);
		return;
	}
	count(PK_CNT_SAMPLES);
	count_delivered(b);
	if (data != (const void *)b) {
		count(PK_CNT_USTACK_COPIES);
		count_add(PK_CNT_USTACK_COPY_BYTES, size);
	}
}

/*
 * One sample per CPU at a time: the scratch and the unwinder's state are
 * per CPU, and a program can be preempted (uprobes run preemptible) or
 * interrupted (an NMI's perf event) by another of ours on the same CPU.
 * The later one drops its sample, counted; it never corrupts the first.
 */
static __always_inline struct pk_sample_buf *sample_begin(__u32 event)
{
	__u32 zero = 0;
	__u32 *busy = bpf_map_lookup_elem(&busy_cpu, &zero);
	struct pk_sample_buf *b = sample_buf_get();

	if (!busy || !b)
		return NULL;	/* cannot happen: index 0 of 1-entry arrays */
	if (*busy) {
		count(PK_CNT_NESTED);
		event_count(event, PK_ECNT_LOST);
		return NULL;
	}
	*busy = 1;
	return b;
}

static __always_inline void sample_end(void)
{
	__u32 zero = 0;
	__u32 *busy = bpf_map_lookup_elem(&busy_cpu, &zero);

	if (busy)
		*busy = 0;
}

/* A hit of EVENT: filtered, then one in sample_every[EVENT] is sampled. */
static __always_inline bool hit(__u32 event, __u32 tgid, __u32 tid, __u32 cpu)
{
	__u32 slot = event & (PK_MAX_EVENTS - 1);	/* the verifier's bound */
	__u64 n, seq;

	if (event >= PK_MAX_EVENTS)
		return false;	/* cannot happen: probe-load's cookies */
	if (!wanted(tgid, tid, cpu)) {
		count(PK_CNT_FILTERED);
		return false;
	}
	event_count(event, PK_ECNT_HITS);
	n = sample_every[slot];
	if (n > 1) {
		seq = __sync_fetch_and_add(&hit_seq[slot], 1);
		if (seq % n) {
			event_count(event, PK_ECNT_SKIPPED);
			return false;
		}
	}
	return true;
}

/* Sample the current task for EVENT (a hit that passed), now, without its
 * KSKIP first kernel frames. */
static __always_inline int sample_now(void *ctx, const struct pt_regs *ctx_regs, __u32 kskip,
				      __u32 event, __u64 weight)
{
	struct pk_sample_buf *b = sample_begin(event);

	if (b) {
		send_sample(b, build_sample(ctx, b, ctx_regs, kskip, event, weight), true);
		sample_end();
	}
	return 0;
}

/* A hit of EVENT by the current task, sampled if it passes, weighing
 * WEIGHT (0: the hits the sample stands for, N of one in N). */
static __always_inline int on_hit(void *ctx, const struct pt_regs *ctx_regs, __u32 kskip,
				  __u32 event, __u64 weight)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!hit(event, pid_tgid >> 32, (__u32)pid_tgid, bpf_get_smp_processor_id()))
		return 0;
	return sample_now(ctx, ctx_regs, kskip, event,
			  weight ?: sample_every[event & (PK_MAX_EVENTS - 1)]);
}

/* Perf events: cpu-clock, cycles, page faults... The attach cookie is the
 * event; the period is the sample's weight. */
SEC("perf_event")
int pk_perf_event(struct bpf_perf_event_data *ctx)
{
	return on_hit(ctx, pk_perf_event_regs(ctx), 0, bpf_get_attach_cookie(ctx),
		      ctx->sample_period ?: 1);
}

/* tracepoint:CATEGORY:NAME, one program for all of them (cookie: event). */
SEC("tracepoint")
int pk_tracepoint(void *ctx)
{
	return on_hit(ctx, NULL, 0, bpf_get_attach_cookie(ctx), 0);
}

/* uprobe:PATH:SYMBOL and usdt:PATH:PROVIDER:NAME (a uprobe at the note's
 * address): the context is the user's registers. */
SEC("uprobe")
int pk_uprobe(struct pt_regs *ctx)
{
	return on_hit(ctx, ctx, 0, bpf_get_attach_cookie(ctx), 0);
}

/* kprobe:FUNC where fentry cannot be used (or --no-fentry); attached as a
 * kretprobe for kretprobe:FUNC, whose registers are those at the return
 * address, so the stack is the one FUNC returns to. */
SEC("kprobe")
int pk_kprobe(struct pt_regs *ctx)
{
	return on_hit(ctx, ctx, 0, bpf_get_attach_cookie(ctx), 0);
}

/* kprobe:FUNC by fentry, kretprobe:FUNC by fexit (probe-load sets the
 * attach type: the body reads no argument): the target is fixed at load
 * time, so one program per function, each knowing its event by a constant. */
#define PK_FENTRY_PROG(i)						\
SEC("fentry")								\
int pk_fentry##i(void *ctx)						\
{									\
	return on_hit(ctx, NULL, fentry_kskip[i], fentry_event[i], 0);	\
}
PK_FENTRY_PROG(0)
PK_FENTRY_PROG(1)
PK_FENTRY_PROG(2)
PK_FENTRY_PROG(3)
PK_FENTRY_PROG(4)
PK_FENTRY_PROG(5)
PK_FENTRY_PROG(6)
PK_FENTRY_PROG(7)

/*
 * off-cpu. A thread that blocks is unwound at the sched_switch that takes it
 * off the CPU, while it is still current (its user memory readable, its
 * kernel stack the one it sleeps in), into its task storage; the sample is
 * sent at the sched_switch that puts it back, weighted by the time between,
 * if that is at least min_block_ns. Preemption is not blocking: a thread
 * switched out runnable is not sampled.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(pk_offcpu, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct offcpu_slot *slot;
	struct pk_sample_buf *b;
	__u32 size, event = offcpu_event;
	__u64 now = bpf_ktime_get_boot_ns();

	slot = bpf_task_storage_get(&offcpu_slots, next, NULL, 0);
	if (slot && slot->start_ns) {
		__u64 blocked = now - slot->start_ns;

		slot->start_ns = 0;
		if (blocked < min_block_ns) {
			event_count(event, PK_ECNT_SHORT);
		} else {
			slot->b.s.weight = blocked;
			send_sample(&slot->b, slot->size, false);
		}
	}

	if (preempt || prev_state == PK_TASK_RUNNING ||
	    !hit(event, prev->tgid, prev->pid, bpf_get_smp_processor_id()))
		return 0;
	slot = bpf_task_storage_get(&offcpu_slots, prev, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!slot) {
		event_count(event, PK_ECNT_LOST);
		return 0;
	}
	b = sample_begin(event);
	if (!b)
		return 0;
	/* From a raw tracepoint the stack starts in this program and the
	 * tracepoint's caller (bpf_trace_run4), maybe __traceiter_sched_switch:
	 * not where the thread sleeps. */
	size = build_sample(ctx, b, NULL, 2, event, 0);
	b->s.time_ns = now;
	if (size <= sizeof(*b) && !bpf_probe_read_kernel(&slot->b, size, b)) {
		slot->size = size;
		slot->start_ns = now;
	}
	sample_end();
	return 0;
}

/*
 * The session's bookkeeping programs below are tracepoints, raw or not,
 * never tp_btf: a tp_btf program makes libbpf read and index all of the
 * kernel's BTF to find its hook, and the session's relocations need no
 * more than loader/kernel_btf.c's few KiB (40% of probe-load's CPU).
 * Their arguments are plain words, read through BPF_CORE_READ.
 */

/* A target's new child process becomes a target too (new threads share
 * the tgid and need nothing). */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(pk_follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 live = PK_TARGET_LIVE;

	(void)ctx;	/* BPF_PROG's, the raw arguments: not needed here */
	if (ptgid == ctgid || !bpf_map_lookup_elem(&targets, &ptgid))
		return 0;
	bpf_map_update_elem(&targets, &ctgid, &live, BPF_ANY);
	return 0;
}

/* probe-load -- CMD's child is sampled from its exec on: the tracepoint
 * comes once the new image is in place, its registers set (loaded with a
 * command only). */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(pk_command_exec, struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);
	__u8 *target = bpf_map_lookup_elem(&targets, &tgid);

	(void)ctx;	/* BPF_PROG's, the raw arguments: not needed here */
	if (target && *target == PK_TARGET_HELD)
		*target = PK_TARGET_LIVE;
	return 0;
}

/* Forget a target when its last thread exits, whichever thread that is:
 * do_exit() decrements signal->live before this tracepoint, so 0 means the
 * whole thread group is gone. probe-read stops when targets is empty. */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(pk_forget_exit, struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);

	(void)ctx;	/* BPF_PROG's, the raw arguments: not needed here */
	if (BPF_CORE_READ(task, signal, live.counter) == 0) {
		bpf_map_delete_elem(&targets, &tgid);
		pk_python_forget(tgid);
		pk_hotspot_forget(tgid);
		pk_v8_forget(tgid);
	}
	return 0;
}

/* The code reports (pk_report_code) of a target, unless this CPU is
 * building a sample, whose walk state they would clobber. A global
 * function, as pk_walk_user: pk_code_report calls it twice, and the
 * verifier checks it once rather than at each call, where it was half
 * that program's verification. Always 0. */
__noinline int report_code_at(__u64 addr)
{
	__u32 zero = 0, tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 *busy = bpf_map_lookup_elem(&busy_cpu, &zero);

	if (!busy || *busy || (filter_pids && !bpf_map_lookup_elem(&targets, &tgid)) ||
	    !in_cgroups())
		return 0;
	*busy = 1;
	pk_report_code(addr);
	*busy = 0;
	return 0;
}

/*
 * Code a target maps, reported as it is mapped (--unwind dwarf), so that
 * its table is in the kernel before the first samples that need it: at
 * exec, the new program's text (mm->start_code) and its interpreter's
 * (where it starts: the user PC); at mmap, the mapping, when it is code
 * (ld.so maps a library's text with its own mmap). One program attached to
 * both tracepoints, the cookie saying which: two programs were verified
 * with all of the report's code each (4,100 instructions, a tenth of
 * probe-load's CPU). It reads no field of either record (the kernel
 * refuses a program whose reads pass the end of any record it is attached
 * to): mmap's result is the syscall's return value, in the user
 * registers' ax by the time sys_exit is traced.
 */
SEC("tracepoint")
int pk_code_report(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__s64 mapped;
	__u64 code;

	if (bpf_get_attach_cookie(ctx) == PK_CODE_HOOK_MMAP) {
		mapped = BPF_CORE_READ(regs, ax);
		if (mapped > 0)	/* an address; an error is a negative errno */
			report_code_at(mapped);
		return 0;
	}
	code = BPF_CORE_READ(task, mm, start_code);
	pk_python_forget(task->tgid);
	pk_hotspot_forget(task->tgid);
	pk_v8_forget(task->tgid);
	if (code)
		report_code_at(code);
	report_code_at(BPF_CORE_READ(regs, ip));
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
