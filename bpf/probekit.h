/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The contract between the BPF programs and user space: event layout, loss
 * counters, session settings and the names of pinned objects.
 *
 * Included by BPF code (after vmlinux.h) and by user space (after
 * <linux/types.h>), so it uses only fixed-width kernel types and no includes.
 *
 * Growth rules, so that old readers keep working on new kernels' events:
 *  - every ring-buffer record starts with struct pk_event_hdr; a reader skips
 *    records whose type it does not know, using hdr.size;
 *  - new fields are appended before the variable-length tail and announced by
 *    a larger hdr.size / tail offset; fields are never moved or reused;
 *  - PK_PIN_LAYOUT_VERSION changes only when the pinned maps change in an
 *    incompatible way.
 */
#ifndef PROBEKIT_H
#define PROBEKIT_H

#define PK_TASK_COMM_LEN	16
/* Frames per stack (kernel and user each); bpf_get_stack() fills at most this. */
#define PK_MAX_STACK_DEPTH	127

/* Default pin directory; probe-load --pin-dir overrides it. */
#define PK_PIN_DIR_DEFAULT	"/sys/fs/bpf/probekit"
/* Names below the pin directory. */
#define PK_PIN_EVENTS		"events"	/* BPF_MAP_TYPE_RINGBUF */
#define PK_PIN_COUNTERS		"counters"	/* PERCPU_ARRAY [PK_CNT__MAX] of __u64 */
#define PK_PIN_SESSION		"session"	/* ARRAY [1] of struct pk_session */
#define PK_PIN_TARGETS		"targets"	/* HASH tgid -> __u8 */
#define PK_PIN_LINKS_DIR	"links"		/* one pinned link per attachment */

#define PK_PIN_LAYOUT_VERSION	1

enum pk_event_type {
	PK_EVENT_SAMPLE = 1,	/* struct pk_sample */
};

struct pk_event_hdr {
	__u16 type;		/* enum pk_event_type */
	__u16 size;		/* bytes of the whole record, header included */
	__u32 flags;		/* per-type flags */
};

/* pk_sample.hdr.flags */
enum pk_sample_flags {
	PK_SAMPLE_KSTACK_ERR	= 1u << 0, /* kernel stack could not be read */
	PK_SAMPLE_USTACK_ERR	= 1u << 1, /* user stack could not be read */
	PK_SAMPLE_KSTACK_TRUNC	= 1u << 2, /* kernel stack deeper than PK_MAX_STACK_DEPTH */
	PK_SAMPLE_USTACK_TRUNC	= 1u << 3, /* user stack deeper than PK_MAX_STACK_DEPTH */
};

/*
 * One stack sample. The tail holds kstack_len kernel addresses (leaf first)
 * followed by ustack_len user addresses (leaf first), starting at
 * frames_off bytes from the start of the record. The first user address is
 * the interrupted instruction pointer; the others are return addresses.
 */
struct pk_sample {
	struct pk_event_hdr hdr;
	__u64 time_ns;		/* bpf_ktime_get_boot_ns() */
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 cpu;
	__u16 kstack_len;
	__u16 ustack_len;
	__u16 frames_off;	/* offset of the address tail */
	__u16 __pad[3];
	char comm[PK_TASK_COMM_LEN];
	/* __u64 frames[kstack_len + ustack_len] at frames_off */
};

#define PK_SAMPLE_MAX_SIZE \
	(sizeof(struct pk_sample) + 2 * PK_MAX_STACK_DEPTH * sizeof(__u64))

/* Indices into the per-CPU counters map: every sample that is not delivered
 * is counted under exactly one reason, so nothing is lost silently. */
enum pk_counter {
	PK_CNT_SAMPLES = 0,	/* samples written to the ring buffer */
	PK_CNT_RINGBUF_FULL,	/* dropped: ring buffer had no room */
	PK_CNT_KSTACK_ERR,	/* delivered, kernel stack unreadable */
	PK_CNT_USTACK_ERR,	/* delivered, user stack unreadable */
	PK_CNT_FILTERED,	/* not a target (pid/cpu/idle filter) */
	PK_CNT__MAX,
};

enum pk_session_flags {
	PK_SESSION_FILTER_PIDS	= 1u << 0, /* only tgids in the targets map */
	PK_SESSION_SKIP_IDLE	= 1u << 1,
	PK_SESSION_FILTER_CPU	= 1u << 2,
	PK_SESSION_COMMAND	= 1u << 3, /* started with probe-load -- CMD */
};

/* What probe-load configured, for probe-read and for humans (bpftool map dump). */
struct pk_session {
	__u32 layout_version;	/* PK_PIN_LAYOUT_VERSION */
	__u32 flags;		/* enum pk_session_flags */
	__u64 start_time_ns;	/* same clock as pk_sample.time_ns */
	__u64 start_realtime_ns;/* wall clock at start_time_ns */
	__u32 freq_hz;
	__s32 cpu;		/* -1: all CPUs */
	__u32 ncpus;		/* perf events opened */
	__u32 ntargets;		/* initial targets (0: all processes) */
	__u32 ringbuf_bytes;
	__u32 __pad;
};

#endif /* PROBEKIT_H */
