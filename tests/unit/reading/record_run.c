// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The harness of suite record (record_run.h): records written byte by
 * byte as each layout has them, and every cut of one refused.
 */
#include <linux/types.h>
#include <stddef.h>
#include <string.h>

#include "reading/record.h"
#include "test_util.h"
#include "unit/reading/record_run.h"

/* A sample record with K kernel and U user frames at FRAMES_OFF (layout 1:
 * V1_FRAMES_OFF, only the fields before ustack_end written), frames
 * numbered 1.. */
size_t pk_rc_make_sample_at(unsigned char *buf, __u16 k, __u16 u, __u16 frames_off,
			    __u32 flags)
{
	struct pk_sample s = {
		.hdr = { .type = PK_EVENT_SAMPLE, .flags = flags },
		.time_ns = 123, .pid = 42, .tid = 43, .cpu = 1,
		.kstack_len = k, .ustack_len = u, .frames_off = frames_off,
	};
	size_t size = frames_off + 8 * (size_t)(k + u);

	s.hdr.size = size;
	memcpy(s.comm, "worker", 7);
	memset(buf, 0, frames_off);
	memcpy(buf, &s, frames_off < sizeof(s) ? frames_off : sizeof(s));
	for (__u64 i = 0; i < (__u64)k + u; i++) {
		__u64 v = i + 1;

		memcpy(buf + frames_off + 8 * i, &v, 8);
	}
	return size;
}

/* Every cut short of the whole record is rejected. */
void pk_rc_check_cuts(const unsigned char *buf, size_t size)
{
	struct pk_record rec;

	ck_assert_int_ne(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	for (size_t cut = 0; cut < size; cut++)
		ck_assert_msg(pk_record_parse(buf, cut, &rec) == PK_RECORD_BAD, "cut at %zu of %zu",
			      cut, size);
}

