/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every part of the sampler writes to: the ring buffer, the per-CPU
 * scratch a sample is assembled in, and the loss counters (bpf/probekit.h
 * says what user space reads of them).
 */
#ifndef PK_SAMPLE_BPF_H
#define PK_SAMPLE_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf/probekit.h"
#include "bpf/profile_sizes.h"

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

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PK_MAX_EVENTS * PK_ECNT_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} event_counts SEC(".maps");

/*
 * The sample under assembly, per CPU: kernel frames, user frames, then
 * Python frames (bpf/python_walk.bpf.h). It
 * is copied to the ring buffer at its real size: reserving
 * PK_SAMPLE_MAX_SIZE per sample would waste most of the buffer on short
 * stacks.
 */
struct pk_sample_buf {
	struct pk_sample s;
	__u64 frames[PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH + PK_MAX_PY_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_sample_buf);
} scratch SEC(".maps");

/* Written by probe-load after load and by each reader as it starts and
 * stops (reader_gen); only read here. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_session);
} session SEC(".maps");

/* The session's reader generation (struct pk_session reader_gen). The
 * seen maps of the once-per-object reports keep the generation a report
 * went out in, and an entry of an older one counts as not sent: the
 * reader it went to may be gone, and the one reading now never got it.
 * One inlined ARRAY lookup per check. */
static __always_inline __u32 pk_report_gen(void)
{
	__u32 zero = 0;
	struct pk_session *s = bpf_map_lookup_elem(&session, &zero);

	return s ? s->reader_gen : 0;
}

static __always_inline struct pk_sample_buf *sample_buf_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

static __always_inline void count_add(__u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	/* Atomic although per CPU: since programs other than perf_event's run
	 * here, one of ours can interrupt another on its CPU (a cpu-clock
	 * sample inside a uprobe's program), and both count. */
	if (c)
		__sync_fetch_and_add(c, n);
}

static __always_inline void count(__u32 idx)
{
	count_add(idx, 1);
}

static __always_inline void event_count(__u32 event, __u32 idx)
{
	__u32 key = event * PK_ECNT_SLOTS + idx;
	__u64 *c;

	if (event >= PK_MAX_EVENTS)
		return;
	c = bpf_map_lookup_elem(&event_counts, &key);
	/* atomic although per CPU: a uprobe's program can be preempted by
	 * another of ours on its CPU, and hit counts are meant to be exact */
	if (c)
		__sync_fetch_and_add(c, 1);
}

/* What a sample delivered to the reader counts, however it went (sent
 * through the ring buffer, or counted in --aggregate's map), but the
 * counter of how it went, which its caller counts. */
static __always_inline void count_delivered(const struct pk_sample_buf *b)
{
	event_count(b->s.event, PK_ECNT_SAMPLES);
	if (b->s.ustack_end != PK_END_NONE)
		count(pk_end_counter(b->s.ustack_end));
	if ((b->s.hdr.flags & PK_SAMPLE_PY) && b->s.py_end >= PK_PY_END_COMPLETE &&
	    b->s.py_end < PK_PY_END__MAX)
		count(PK_CNT_PY_COMPLETE + b->s.py_end - PK_PY_END_COMPLETE);
	if (b->s.hdr.flags & PK_SAMPLE_KSTACK_ERR)
		count(PK_CNT_KSTACK_ERR);
	if (b->s.hdr.flags & PK_SAMPLE_USTACK_ERR)
		count(PK_CNT_USTACK_ERR);
}

#endif /* PK_SAMPLE_BPF_H */
