/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Validation of ring-buffer records (struct pk_event_hdr + body) before any
 * field is used: a record whose declared sizes do not fit the bytes received
 * is rejected, never read past. Takes arbitrary bytes (fuzzable).
 */
#ifndef PK_RECORD_H
#define PK_RECORD_H

#include <linux/types.h>
#include <stddef.h>

#include "probekit.h"

enum pk_record_kind {
	PK_RECORD_SAMPLE,	/* *sample filled */
	PK_RECORD_SKIP,		/* well-formed record of a type this reader does not know */
	PK_RECORD_BAD,		/* malformed: sizes do not fit */
};

/* A validated sample: fields copied out (the input may be unaligned). */
struct pk_record_sample {
	__u32 flags;		/* enum pk_sample_flags */
	__u32 pid, tid, cpu;
	__u64 time_ns;
	__u16 kstack_len, ustack_len;
	char comm[PK_TASK_COMM_LEN];	/* always NUL-terminated */
	const void *frames;	/* kstack_len then ustack_len __u64, maybe unaligned */
};

enum pk_record_kind pk_record_parse(const void *data, size_t size,
				    struct pk_record_sample *sample);

/* Frame I of a validated sample (0 <= i < kstack_len + ustack_len). */
__u64 pk_record_frame(const struct pk_record_sample *sample, size_t i);

#endif
