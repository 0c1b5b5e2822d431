/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the runtimes' walks (python_walk, hotspot_walk, v8_walk) share to
 * report the objects their frames name (a code object, a method, an
 * nmethod, a function) once per process and reader generation: the stamp
 * a report is kept with in its seen map, the check of that map, the send
 * of a report assembled in per-CPU map memory, and the bpf_loop over a
 * sample's user frames that reports a runtime's frames. A new runtime
 * calls these rather than writing them again.
 */
#ifndef PK_RUNTIME_REPORT_BPF_H
#define PK_RUNTIME_REPORT_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf/probekit.h"
#include "bpf/profile_sizes.h"
#include "bpf/sample.bpf.h"

/* A report's stamp STAMP (a hash of what it said) as kept in its seen
 * map: made to differ with each reader generation, so that the same
 * object's report is due again when a new reader starts. Never 0. */
static __always_inline __u64 pk_report_stamp(__u64 stamp)
{
	return (stamp ^ (__u64)pk_report_gen() * 0xc2b2ae3d27d4eb4full) | 1;
}

/* Whether the report of KEY went out with STAMP: SEEN maps a runtime's
 * key to the __u64 stamp its report was sent with. */
static __always_inline bool pk_report_seen(void *seen, const void *key, __u64 stamp)
{
	__u64 *s = bpf_map_lookup_elem(seen, key);

	return s && *s == stamp;
}

/*
 * Whether the report of KEY with STAMP is due, for a runtime that sends a
 * report again when it lacked a part memory did not give at that moment
 * (V8's line: a source the GC was moving as the sample came): such a
 * report is kept in SEEN as STAMP + 2 * the tries so far (stamps are odd,
 * so are these), and is due again until MAX tries. *TRIES: the tries
 * before this one. A report kept as STAMP is complete, never due.
 */
static __always_inline bool pk_report_due(void *seen, const void *key, __u64 stamp, __u32 max,
					  __u32 *tries)
{
	__u64 *s = bpf_map_lookup_elem(seen, key), d;

	*tries = 0;
	if (!s)
		return true;
	d = *s - stamp;
	if (!d || d == 2ull * max)
		return false;
	if (!(d & 1) && d < 2ull * max)
		*tries = d / 2;
	return true;
}

/* Close the report at BUF (a record: struct pk_event_hdr first) of *SIZE
 * bytes: its header's TYPE, size and FLAGS. false when *SIZE is past
 * MAX, its buffer's size: a bound for the verifier, tested on the very
 * value the helper gets after a barrier (the caller sends *SIZE). */
static __always_inline bool pk_report_close(void *buf, __u32 *size, __u32 max, __u16 type,
					    __u32 flags)
{
	struct pk_event_hdr *hdr = buf;

	hdr->type = type;
	hdr->size = *size;
	hdr->flags = flags;
	barrier_var(*size);
	return *size <= max;
}

/* Send the closed report at BUF of SIZE bytes, then keep *KEY in SEEN
 * with *STAMP, so that it is not sent again in this reader generation;
 * when the ring buffer had no room, it is not kept, and a later sample
 * tries again. No wakeup: a sample follows, whose send wakes the reader
 * as it should. */
static __always_inline bool pk_report_out(void *buf, __u32 size, void *seen, const void *key,
					  const __u64 *stamp)
{
	if (bpf_ringbuf_output(&events, buf, size, BPF_RB_NO_WAKEUP))
		return false;
	bpf_map_update_elem(seen, key, stamp, BPF_ANY);
	return true;
}

/* How pk_report_send() went. */
enum pk_report_sent {
	PK_REPORT_SENT,
	PK_REPORT_LOST,		/* the ring buffer had no room */
	PK_REPORT_TOO_LONG,	/* past its buffer (pk_report_close()) */
};

/* pk_report_close() and pk_report_out(): the report at BUF, SIZE bytes of
 * its buffer's MAX, sent with TYPE and FLAGS and kept in SEEN. */
static __always_inline enum pk_report_sent pk_report_send(void *buf, __u32 size, __u32 max,
							  __u16 type, __u32 flags, void *seen,
							  const void *key, const __u64 *stamp)
{
	if (!pk_report_close(buf, &size, max, type, flags))
		return PK_REPORT_TOO_LONG;
	return pk_report_out(buf, size, seen, key, stamp) ? PK_REPORT_SENT : PK_REPORT_LOST;
}

/* The state of the bpf_loop over a sample's user frames that reports a
 * runtime's frames (rt_note_frames()): the first user frame's index, the
 * count, the tgid. */
struct rt_note {
	__u32 base, n, tgid;
};

/* In a bpf_loop body of rt_note_frames(): user frame I of the sample
 * into *FRAME; false when there is none, and the loop ends. */
static __always_inline bool rt_note_frame(__u32 i, const struct rt_note *nt, __u64 *frame)
{
	struct pk_sample_buf *b = sample_buf_get();
	__u32 idx = nt->base + i;

	if (!b || i >= nt->n || idx >= PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH)
		return false;
	*frame = b->frames[idx];
	return true;
}

/* Run STEP (a bpf_loop body taking struct rt_note, which reads its frames
 * through rt_note_frame()) over the N user frames from BASE of the sample
 * of process TGID. */
static __always_inline void rt_note_frames(__u32 base, __u32 n, __u32 tgid,
					   long (*step)(__u32 i, void *ctx))
{
	struct rt_note nt = { .base = base, .n = n, .tgid = tgid };

	bpf_loop(PK_MAX_USTACK_DEPTH, step, &nt, 0);
}

#endif /* PK_RUNTIME_REPORT_BPF_H */
