// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stddef.h>
#include <string.h>

#include "record.h"

enum pk_record_kind pk_record_parse(const void *data, size_t size,
				    struct pk_record_sample *out)
{
	struct pk_event_hdr hdr;
	struct pk_sample s;
	size_t frames_bytes;

	if (size < sizeof(hdr))
		return PK_RECORD_BAD;
	memcpy(&hdr, data, sizeof(hdr));
	/* hdr.size may be less than what the ring buffer delivered (a
	 * record reserved at its largest size), never more. */
	if (hdr.size < sizeof(hdr) || hdr.size > size)
		return PK_RECORD_BAD;
	if (hdr.type != PK_EVENT_SAMPLE)
		return PK_RECORD_SKIP;
	/* Newer writers only append fields, so a sample is at least what
	 * this reader knows. */
	if (hdr.size < sizeof(s))
		return PK_RECORD_BAD;
	memcpy(&s, data, sizeof(s));
	if (s.kstack_len > PK_MAX_STACK_DEPTH || s.ustack_len > PK_MAX_STACK_DEPTH ||
	    s.frames_off < sizeof(s) || s.frames_off > hdr.size)
		return PK_RECORD_BAD;
	frames_bytes = sizeof(__u64) * ((size_t)s.kstack_len + s.ustack_len);
	if (frames_bytes > (size_t)hdr.size - s.frames_off)
		return PK_RECORD_BAD;

	out->flags = hdr.flags;
	out->pid = s.pid;
	out->tid = s.tid;
	out->cpu = s.cpu;
	out->time_ns = s.time_ns;
	out->kstack_len = s.kstack_len;
	out->ustack_len = s.ustack_len;
	memcpy(out->comm, s.comm, sizeof(out->comm));
	out->comm[sizeof(out->comm) - 1] = '\0';
	out->frames = (const char *)data + s.frames_off;
	return PK_RECORD_SAMPLE;
}

__u64 pk_record_frame(const struct pk_record_sample *sample, size_t i)
{
	__u64 v;

	memcpy(&v, (const char *)sample->frames + i * sizeof(v), sizeof(v));
	return v;
}
