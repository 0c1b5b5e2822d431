/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The harness of suite record (test_record.c: samples of every layout,
 * the other records, and broken ones; test_record_runtime.c: the records
 * of Python, HotSpot and V8): records written byte by byte.
 */
#ifndef PK_RECORD_RUN_H
#define PK_RECORD_RUN_H

#include <check.h>
#include <linux/types.h>
#include <stddef.h>
#include <string.h>

#include "bpf/probekit.h"

/* Where a layout 1 sample's frames start: its whole size, written out here
 * (not taken from record.h) because old objects fixed it. */
#define V1_FRAMES_OFF	56
/* Layout 2 (ustack_end, fp_frames, fp_mask) and layout 3 (weight, event). */
#define V2_FRAMES_OFF	96
#define V3_FRAMES_OFF	112
/* Layout 4 (copy_off). */
#define V4_FRAMES_OFF	120
/* Layout 5 (py_len, py_end). */
#define V5_FRAMES_OFF	128
#define V5_MAX_SIZE \
	(V5_FRAMES_OFF + 8 * (PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH + PK_MAX_PY_DEPTH))
/* Layout 6 (agg_hash). */
#define V6_FRAMES_OFF	136
#define V7_FRAMES_OFF	144

/* A sample record with K kernel and U user frames at FRAMES_OFF (layout 1:
 * V1_FRAMES_OFF, only the fields before ustack_end written), frames
 * numbered 1.. */
size_t pk_rc_make_sample_at(unsigned char *buf, __u16 k, __u16 u, __u16 frames_off,
			    __u32 flags);
/* V at offset OFF of BUF. */
static inline void set16(unsigned char *buf, size_t off, __u16 v)
{
	memcpy(buf + off, &v, sizeof(v));
}

static inline void set64(unsigned char *buf, size_t off, __u64 v)
{
	memcpy(buf + off, &v, sizeof(v));
}

/* Every cut short of the whole record is rejected. */
void pk_rc_check_cuts(const unsigned char *buf, size_t size);

/* The tests of the suite's other file, added to its tcases in order. */
void pk_rc_runtime_valid_tests(TCase *tc);
void pk_rc_runtime_invalid_tests(TCase *tc);

#endif
