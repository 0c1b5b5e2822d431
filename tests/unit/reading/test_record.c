// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <linux/types.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "reading/record.h"
#include "test_util.h"

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
static size_t make_sample_at(unsigned char *buf, __u16 k, __u16 u, __u16 frames_off,
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

static void set16(unsigned char *buf, size_t off, __u16 v)
{
	memcpy(buf + off, &v, sizeof(v));
}

static void set64(unsigned char *buf, size_t off, __u64 v)
{
	memcpy(buf + off, &v, sizeof(v));
}

/* Layout 3, no DWARF walk (--unwind fp), event 0 with weight 1. */
static size_t make_sample(unsigned char *buf, __u16 k, __u16 u)
{
	size_t size = make_sample_at(buf, k, u, V3_FRAMES_OFF, PK_SAMPLE_USTACK_TRUNC);

	set64(buf, offsetof(struct pk_sample, weight), 1);
	return size;
}

/* A DWARF walk that ended with END, in a sample at FRAMES_OFF (layout 2 or 3). */
static size_t make_dwarf_at(unsigned char *buf, __u16 k, __u16 u, __u8 end, __u16 frames_off)
{
	size_t size = make_sample_at(buf, k, u, frames_off, PK_SAMPLE_USTACK_DWARF);

	buf[offsetof(struct pk_sample, ustack_end)] = end;
	return size;
}

/* Layout 3 with a DWARF walk that ended with END. */
static size_t make_dwarf(unsigned char *buf, __u16 k, __u16 u, __u8 end)
{
	return make_dwarf_at(buf, k, u, end, V3_FRAMES_OFF);
}

/* Mark user frame I as found by a frame-pointer step. */
static void set_fp_bit(unsigned char *buf, unsigned int i)
{
	size_t off = offsetof(struct pk_sample, fp_mask) + 8 * (i / 64);
	__u64 w;

	memcpy(&w, buf + off, 8);
	w |= 1ULL << (i % 64);
	memcpy(buf + off, &w, 8);
}

static size_t make_no_table(unsigned char *buf, __u64 start, __u64 end)
{
	struct pk_no_table e = {
		.hdr = { .type = PK_EVENT_NO_TABLE, .size = sizeof(e) },
		.dev = 0x800003, .ino = 77, .vm_start = start, .vm_end = end, .vm_pgoff = 5,
		.pid = 42,
	};

	memcpy(buf, &e, sizeof(e));
	return sizeof(e);
}

/* Layout 4: a DWARF walk of K kernel and U user frames that stopped for
 * want of a table, with LEN bytes of stack 0xa0, 0xa1... after the frames;
 * the copy's regs[RIP] the last user frame (K + U). */
static size_t make_copy(unsigned char *buf, __u16 k, __u16 u, __u32 len)
{
	size_t off = make_sample_at(buf, k, u, V4_FRAMES_OFF,
				    PK_SAMPLE_USTACK_DWARF | PK_SAMPLE_USTACK_COPY);
	struct pk_ustack_copy c = { .regs_valid = 0x1ffff, .flags = PK_COPY_EXACT_PC, .len = len };

	buf[offsetof(struct pk_sample, ustack_end)] = PK_END_NO_TABLE;
	for (int r = 0; r < 17; r++)
		c.regs[r] = 1000 + r;
	c.regs[16] = (__u64)k + u;
	c.start = c.regs[7] - PK_USTACK_COPY_BELOW;
	set16(buf, offsetof(struct pk_sample, copy_off), off);
	memcpy(buf + off, &c, sizeof(c));
	for (__u32 i = 0; i < len; i++)
		buf[off + sizeof(c) + i] = 0xa0 + i;
	set16(buf, offsetof(struct pk_event_hdr, size), off + sizeof(c) + len);
	return off + sizeof(c) + len;
}

/* Layout 6: a definition of an aggregated stack carries its key; older
 * layouts have no such flag, and a stack copy is never aggregated. */
START_TEST(test_agg_def)
{
	static unsigned char buf[PK_SAMPLE_COPY_MAX_SIZE];
	struct pk_record rec;
	struct pk_record_sample *r = &rec.sample;
	size_t size = make_sample_at(buf, 2, 3, V6_FRAMES_OFF, PK_SAMPLE_AGG_DEF);

	set64(buf, offsetof(struct pk_sample, agg_hash), 0x0123456789abcdefULL);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(r->flags & PK_SAMPLE_AGG_DEF);
	ck_assert_uint_eq(r->agg_hash, 0x0123456789abcdefULL);
	ck_assert_uint_eq(r->kstack_len, 2);
	ck_assert_uint_eq(r->ustack_len, 3);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(pk_record_frame(r, i), i + 1);
	/* the largest sample of this layout fits */
	size = make_sample_at(buf, PK_MAX_STACK_DEPTH, PK_MAX_STACK_DEPTH, V6_FRAMES_OFF,
			      PK_SAMPLE_AGG_DEF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	/* without the flag the key says nothing */
	size = make_sample_at(buf, 2, 3, V6_FRAMES_OFF, 0);
	set64(buf, offsetof(struct pk_sample, agg_hash), 7);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->agg_hash, 0);
	/* layout 5 had no such flag: an ordinary sample, whatever the bit says */
	size = make_sample_at(buf, 2, 3, V5_FRAMES_OFF, PK_SAMPLE_AGG_DEF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(!(r->flags & PK_SAMPLE_AGG_DEF));
	ck_assert_uint_eq(r->agg_hash, 0);
	ck_assert_uint_eq(pk_record_frame(r, 0), 1);
	/* a definition with a stack copy contradicts itself */
	size = make_sample_at(buf, 2, 3, V6_FRAMES_OFF,
			      PK_SAMPLE_AGG_DEF | PK_SAMPLE_USTACK_DWARF | PK_SAMPLE_USTACK_COPY);
	buf[offsetof(struct pk_sample, ustack_end)] = PK_END_NO_TABLE;
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

/* Layout 7: every sample carries its task's cgroup id; older layouts
 * none, whatever bytes follow their last field. */
START_TEST(test_cgroup_id)
{
	static unsigned char buf[PK_SAMPLE_COPY_MAX_SIZE];
	struct pk_record rec;
	struct pk_record_sample *r = &rec.sample;
	size_t size = make_sample_at(buf, 2, 3, V7_FRAMES_OFF, 0);

	set64(buf, offsetof(struct pk_sample, cgroup_id), 0x1122334455667788ULL);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->cgroup_id, 0x1122334455667788ULL);
	ck_assert_uint_eq(r->kstack_len, 2);
	ck_assert_uint_eq(r->ustack_len, 3);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(pk_record_frame(r, i), i + 1);
	/* with a definition's key beside it */
	size = make_sample_at(buf, 1, 1, V7_FRAMES_OFF, PK_SAMPLE_AGG_DEF);
	set64(buf, offsetof(struct pk_sample, agg_hash), 99);
	set64(buf, offsetof(struct pk_sample, cgroup_id), 4242);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->agg_hash, 99);
	ck_assert_uint_eq(r->cgroup_id, 4242);
	/* layout 6: the bytes where the id would be are its first frame */
	size = make_sample_at(buf, 2, 3, V6_FRAMES_OFF, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->cgroup_id, 0);
	ck_assert_uint_eq(pk_record_frame(r, 0), 1);
	/* a record cut inside the id is refused */
	size = make_sample_at(buf, 0, 0, V7_FRAMES_OFF, 0);
	ck_assert_int_eq(pk_record_parse(buf, size - 4, &rec), PK_RECORD_BAD);
}
END_TEST

START_TEST(test_copy)
{
	static unsigned char buf[PK_SAMPLE_COPY_MAX_SIZE];
	struct pk_record rec;
	size_t size = make_copy(buf, 2, 3, 40);

	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(rec.sample.flags & PK_SAMPLE_USTACK_COPY);
	ck_assert_uint_eq(rec.sample.ustack_end, PK_END_NO_TABLE);
	ck_assert_uint_eq(rec.sample.copy.len, 40);
	ck_assert_uint_eq(rec.sample.copy.regs[7], 1007);
	ck_assert_uint_eq(rec.sample.copy.start, 1007 - 128);
	ck_assert_uint_eq(rec.sample.copy.regs[16], 5);
	ck_assert_uint_eq(rec.sample.copy.flags, PK_COPY_EXACT_PC);
	ck_assert_ptr_eq(rec.sample.stack, buf + V4_FRAMES_OFF + 5 * 8 + sizeof(struct pk_ustack_copy));
	ck_assert_uint_eq(((const unsigned char *)rec.sample.stack)[39], 0xa0 + 39);
	ck_assert_uint_eq(pk_record_frame(&rec.sample, 4), 5);

	/* the biggest copy a record holds */
	size = make_copy(buf, PK_MAX_STACK_DEPTH, PK_MAX_USTACK_DEPTH, PK_USTACK_COPY_MAX);
	ck_assert_uint_le(size, 65535);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(rec.sample.copy.len, PK_USTACK_COPY_MAX);

	/* a layout 4 sample without the flag has no copy */
	size = make_sample_at(buf, 1, 1, V4_FRAMES_OFF, PK_SAMPLE_USTACK_DWARF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(!(rec.sample.flags & PK_SAMPLE_USTACK_COPY));
	ck_assert_ptr_null(rec.sample.stack);

	/* layout 3 had no such flag: whatever the bit says, no copy */
	size = make_dwarf(buf, 1, 1, PK_END_NO_TABLE);
	set16(buf, offsetof(struct pk_event_hdr, flags),
	      PK_SAMPLE_USTACK_DWARF | PK_SAMPLE_USTACK_COPY);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(!(rec.sample.flags & PK_SAMPLE_USTACK_COPY));
	ck_assert_ptr_null(rec.sample.stack);
}
END_TEST

/* A copy that contradicts the record is never read past or trusted. */
START_TEST(test_copy_bad)
{
	static unsigned char buf[PK_SAMPLE_COPY_MAX_SIZE];
	size_t frames_end = V4_FRAMES_OFF + 5 * 8, size;
	struct pk_record rec;

	/* the copy's length past the record */
	size = make_copy(buf, 2, 3, 40);
	ck_assert_int_eq(pk_record_parse(buf, size - 1, &rec), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_event_hdr, size), size - 1);
	ck_assert_int_eq(pk_record_parse(buf, size - 1, &rec), PK_RECORD_BAD);
	/* the copy over the frames, or its header past the end */
	size = make_copy(buf, 2, 3, 40);
	set16(buf, offsetof(struct pk_sample, copy_off), frames_end - 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_sample, copy_off), size - 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* registers of another frame than the last */
	size = make_copy(buf, 2, 3, 40);
	set64(buf, frames_end + offsetof(struct pk_ustack_copy, regs[16]), 4);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a copy that starts above the frame's RSP */
	size = make_copy(buf, 2, 3, 40);
	set64(buf, frames_end + offsetof(struct pk_ustack_copy, start), 1008);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a walk that did not stop for want of a table, or no walk */
	size = make_copy(buf, 2, 3, 40);
	buf[offsetof(struct pk_sample, ustack_end)] = PK_END_COMPLETE;
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_copy(buf, 2, 3, 40);
	set16(buf, offsetof(struct pk_event_hdr, flags), PK_SAMPLE_USTACK_COPY);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* no user frame to go on from */
	size = make_copy(buf, 2, 0, 40);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

START_TEST(test_valid)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record rec;
	struct pk_record_sample *r = &rec.sample;
	size_t size = make_sample(buf, 2, 3);

	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->pid, 42);
	ck_assert_uint_eq(r->tid, 43);
	ck_assert_uint_eq(r->cpu, 1);
	ck_assert_uint_eq(r->time_ns, 123);
	ck_assert_uint_eq(r->flags, PK_SAMPLE_USTACK_TRUNC);
	ck_assert_uint_eq(r->kstack_len, 2);
	ck_assert_uint_eq(r->ustack_len, 3);
	ck_assert_uint_eq(r->ustack_end, PK_END_NONE);
	ck_assert_str_eq(r->comm, "worker");
	ck_assert_uint_eq(pk_record_frame(r, 0), 1);
	ck_assert_uint_eq(pk_record_frame(r, 4), 5);
	/* The ring buffer may deliver more bytes than hdr.size. */
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &rec), PK_RECORD_SAMPLE);
	/* Both stacks empty (e.g. both unreadable). */
	size = make_sample(buf, 0, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	/* Full depth. */
	size = make_sample(buf, PK_MAX_STACK_DEPTH, PK_MAX_STACK_DEPTH);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
}
END_TEST

/* Objects built before layout 2 put the frames right after comm. */
START_TEST(test_layout1)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record rec;
	struct pk_record_sample *r = &rec.sample;
	size_t size = make_sample_at(buf, 2, 3, V1_FRAMES_OFF, PK_SAMPLE_KSTACK_TRUNC);

	ck_assert_uint_eq(size, V1_FRAMES_OFF + 5 * 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->pid, 42);
	ck_assert_uint_eq(r->flags, PK_SAMPLE_KSTACK_TRUNC);
	ck_assert_uint_eq(r->kstack_len, 2);
	ck_assert_uint_eq(r->ustack_len, 3);
	ck_assert_str_eq(r->comm, "worker");
	ck_assert_uint_eq(pk_record_frame(r, 0), 1);
	ck_assert_uint_eq(pk_record_frame(r, 4), 5);
	ck_assert_uint_eq(r->ustack_end, PK_END_NONE);
	ck_assert_uint_eq(r->fp_frames, 0);
	/* No frames at all: the record is just the 56 bytes. */
	size = make_sample_at(buf, 0, 0, V1_FRAMES_OFF, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	/* Full depth. */
	size = make_sample_at(buf, PK_MAX_STACK_DEPTH, PK_MAX_STACK_DEPTH, V1_FRAMES_OFF, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(pk_record_frame(r, 2 * PK_MAX_STACK_DEPTH - 1), 2 * PK_MAX_STACK_DEPTH);
	/* The DWARF bit means nothing where its fields are missing: the
	 * frames (here the first user frame, 0x1...) are not read as them. */
	size = make_sample_at(buf, 0, 1, V1_FRAMES_OFF, PK_SAMPLE_USTACK_DWARF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->flags, 0);
	ck_assert_uint_eq(r->ustack_end, PK_END_NONE);
	/* ... nor does it allow a DWARF walk's depth. */
	size = make_sample_at(buf, 0, PK_MAX_STACK_DEPTH + 1, V1_FRAMES_OFF,
			      PK_SAMPLE_USTACK_DWARF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* Between the layouts: layout 1's fields, frames where layout 2's
	 * would be; the DWARF fields are not read. */
	size = make_sample_at(buf, 0, 1, V1_FRAMES_OFF + 8, PK_SAMPLE_USTACK_DWARF);
	buf[offsetof(struct pk_sample, ustack_end)] = PK_END_LOOP;
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->ustack_end, PK_END_NONE);
	ck_assert_uint_eq(pk_record_frame(r, 0), 1);
}
END_TEST

/* Objects built before events: frames at 96, no weight nor event. They
 * read as event 0 with the weight not known, walk fields and all. */
START_TEST(test_layout2)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record rec;
	struct pk_record_sample *r = &rec.sample;
	size_t size = make_dwarf_at(buf, 1, 2, PK_END_COMPLETE, V2_FRAMES_OFF);
	unsigned char *exact;

	set16(buf, offsetof(struct pk_sample, fp_frames), 1);
	set_fp_bit(buf, 1);
	ck_assert_uint_eq(size, V2_FRAMES_OFF + 3 * 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->flags, PK_SAMPLE_USTACK_DWARF);
	ck_assert_uint_eq(r->ustack_end, PK_END_COMPLETE);
	ck_assert_uint_eq(r->fp_frames, 1);
	ck_assert_uint_eq(r->fp_mask[0], 2);
	ck_assert_uint_eq(r->weight, 0);
	ck_assert_uint_eq(r->event, 0);
	/* the frames, not read as weight and event */
	ck_assert_uint_eq(pk_record_frame(r, 0), 1);
	ck_assert_uint_eq(pk_record_frame(r, 2), 3);
	ck_assert_uint_eq(r->kstack_len, 1);
	ck_assert_uint_eq(r->ustack_len, 2);
	/* A DWARF walk too deep for bpf_get_stack() is still allowed. */
	size = make_dwarf_at(buf, 0, PK_MAX_USTACK_DEPTH, PK_END_DEPTH, V2_FRAMES_OFF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->ustack_len, PK_MAX_USTACK_DEPTH);
	/* A layout 2 sample without frames is 96 bytes and nothing is read
	 * past them (ASan: a buffer of exactly that size). */
	size = make_dwarf_at(buf, 0, 0, PK_END_READ_FAULT, V2_FRAMES_OFF);
	ck_assert_uint_eq(size, V2_FRAMES_OFF);
	ck_assert_ptr_nonnull(exact = malloc(size));
	memcpy(exact, buf, size);
	ck_assert_int_eq(pk_record_parse(exact, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->ustack_end, PK_END_READ_FAULT);
	ck_assert_uint_eq(r->weight, 0);
	free(exact);
	/* Between layouts 2 and 3: frames at 104; weight and event not read. */
	size = make_sample_at(buf, 0, 1, V2_FRAMES_OFF + 8, 0);
	set64(buf, offsetof(struct pk_sample, weight), 77);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->weight, 0);
	ck_assert_uint_eq(r->event, 0);
}
END_TEST

/* Layout 3: the sample's event and weight, as the kernel wrote them. */
START_TEST(test_layout3)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record rec;
	struct pk_record_sample *r = &rec.sample;
	size_t size = make_dwarf(buf, 2, 1, PK_END_COMPLETE);
	unsigned char *exact;

	set64(buf, offsetof(struct pk_sample, weight), 123456789012ULL);
	set16(buf, offsetof(struct pk_sample, event), 3);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->weight, 123456789012ULL);
	ck_assert_uint_eq(r->event, 3);
	ck_assert_uint_eq(r->ustack_end, PK_END_COMPLETE);
	ck_assert_uint_eq(pk_record_frame(r, 0), 1);
	ck_assert_uint_eq(pk_record_frame(r, 2), 3);
	/* Any event index comes through: the reader checks it against the
	 * session's events; the largest weight too. */
	set16(buf, offsetof(struct pk_sample, event), 0xffff);
	set64(buf, offsetof(struct pk_sample, weight), ~0ULL);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->event, 0xffff);
	ck_assert_uint_eq(r->weight, ~0ULL);
	/* No frames: the record is exactly 112 bytes, read no further. */
	size = make_sample(buf, 0, 0);
	set16(buf, offsetof(struct pk_sample, event), 1);
	ck_assert_uint_eq(size, V3_FRAMES_OFF);
	ck_assert_ptr_nonnull(exact = malloc(size));
	memcpy(exact, buf, size);
	ck_assert_int_eq(pk_record_parse(exact, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->event, 1);
	ck_assert_uint_eq(r->weight, 1);
	free(exact);
	/* The padding after event means nothing. */
	size = make_sample(buf, 1, 0);
	memset(buf + offsetof(struct pk_sample, __pad4), 0xab, sizeof(((struct pk_sample *)0)->__pad4));
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->event, 0);
}
END_TEST

START_TEST(test_dwarf)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record rec;
	struct pk_record_sample *r = &rec.sample;
	size_t size = make_dwarf(buf, 1, PK_MAX_USTACK_DEPTH, PK_END_DEPTH);

	set16(buf, offsetof(struct pk_sample, fp_frames), 3);
	set_fp_bit(buf, 1);
	set_fp_bit(buf, 64);
	set_fp_bit(buf, PK_MAX_USTACK_DEPTH - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->flags, PK_SAMPLE_USTACK_DWARF);
	ck_assert_uint_eq(r->ustack_len, PK_MAX_USTACK_DEPTH);
	ck_assert_uint_eq(r->ustack_end, PK_END_DEPTH);
	ck_assert_uint_eq(r->fp_frames, 3);
	ck_assert_uint_eq(r->fp_mask[0], 1ULL << 1);
	ck_assert_uint_eq(r->fp_mask[1], 1ULL);
	ck_assert_uint_eq(r->fp_mask[2], 0);
	ck_assert_uint_eq(r->fp_mask[3], 1ULL << 63);
	ck_assert_uint_eq(pk_record_frame(r, PK_MAX_USTACK_DEPTH), PK_MAX_USTACK_DEPTH + 1);
	/* Every way a walk ends, and one a newer writer may add, comes through. */
	for (unsigned int end = PK_END_NONE; end <= PK_END__MAX; end++) {
		size = make_dwarf(buf, 0, 2, end);
		ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
		ck_assert_uint_eq(r->ustack_end, end);
	}
	/* Without the DWARF bit the fields are not read. */
	size = make_sample(buf, 0, 2);
	buf[offsetof(struct pk_sample, ustack_end)] = PK_END_LOOP;
	set16(buf, offsetof(struct pk_sample, fp_frames), 1);
	set_fp_bit(buf, 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->ustack_end, PK_END_NONE);
	ck_assert_uint_eq(r->fp_frames, 0);
	ck_assert_uint_eq(r->fp_mask[0], 0);
}
END_TEST

START_TEST(test_dwarf_bad)
{
	static const unsigned int depths[] = { 0, 1, 63, 64, 65, 130, 191, 192,
					       PK_MAX_USTACK_DEPTH - 1 };
	unsigned char buf[PK_SAMPLE_MAX_SIZE + 8];
	struct pk_record rec;
	size_t size;

	/* Deeper than the DWARF walk goes. */
	size = make_dwarf(buf, 0, PK_MAX_USTACK_DEPTH + 1, PK_END_DEPTH);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* Deeper than bpf_get_stack() goes, without a DWARF walk. */
	size = make_sample(buf, 0, PK_MAX_STACK_DEPTH + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* The kernel stack stays within bpf_get_stack()'s depth. */
	size = make_dwarf(buf, PK_MAX_STACK_DEPTH + 1, 0, PK_END_COMPLETE);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* More frame-pointer frames than user frames. */
	size = make_dwarf(buf, 0, 3, PK_END_COMPLETE);
	set16(buf, offsetof(struct pk_sample, fp_frames), 3);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	set16(buf, offsetof(struct pk_sample, fp_frames), 4);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* A frame-pointer bit for a frame that is not there: just past the
	 * last one, or in the last word; N at and around word boundaries. */
	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		unsigned int n = depths[i];

		size = make_dwarf(buf, 0, n, PK_END_COMPLETE);
		if (n)
			set_fp_bit(buf, n - 1);
		ck_assert_msg(pk_record_parse(buf, size, &rec) == PK_RECORD_SAMPLE, "n %u", n);
		set_fp_bit(buf, n);
		ck_assert_msg(pk_record_parse(buf, size, &rec) == PK_RECORD_BAD, "n %u", n);
		size = make_dwarf(buf, 0, n, PK_END_COMPLETE);
		set_fp_bit(buf, PK_MAX_USTACK_DEPTH - 1);
		ck_assert_msg(pk_record_parse(buf, size, &rec) == PK_RECORD_BAD, "n %u", n);
	}
}
END_TEST

START_TEST(test_comm_terminated)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record rec;
	size_t size = make_sample(buf, 0, 1);

	memset(buf + offsetof(struct pk_sample, comm), 'x', PK_TASK_COMM_LEN);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(strlen(rec.sample.comm), PK_TASK_COMM_LEN - 1);
}
END_TEST

/* A newer writer appends fields before the frames: still readable, the
 * fields this reader knows still read. */
START_TEST(test_grown_record)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE + 64] = { 0 };
	struct pk_record rec;
	size_t size = make_dwarf(buf, 1, 1, PK_END_READ_FAULT);
	size_t off = V3_FRAMES_OFF + 16;

	set64(buf, offsetof(struct pk_sample, weight), 5000);
	set16(buf, offsetof(struct pk_sample, event), 2);
	memmove(buf + off, buf + V3_FRAMES_OFF, 16);
	set16(buf, offsetof(struct pk_sample, frames_off), off);
	set16(buf, offsetof(struct pk_event_hdr, size), size + 16);
	ck_assert_int_eq(pk_record_parse(buf, size + 16, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(pk_record_frame(&rec.sample, 0), 1);
	ck_assert_uint_eq(pk_record_frame(&rec.sample, 1), 2);
	ck_assert_uint_eq(rec.sample.ustack_end, PK_END_READ_FAULT);
	ck_assert_uint_eq(rec.sample.weight, 5000);
	ck_assert_uint_eq(rec.sample.event, 2);
	/* A no-table event with fields appended. */
	size = make_no_table(buf, 0x1000, 0x2000);
	set16(buf, offsetof(struct pk_event_hdr, size), size + 16);
	ck_assert_int_eq(pk_record_parse(buf, size + 16, &rec), PK_RECORD_NO_TABLE);
	ck_assert_uint_eq(rec.no_table.vm_end, 0x2000);
}
END_TEST

START_TEST(test_unknown_type)
{
	struct pk_event_hdr h = { .type = 99, .size = sizeof(h) + 4 };
	unsigned char buf[sizeof(h) + 4] = { 0 };
	struct pk_record rec;

	memcpy(buf, &h, sizeof(h));
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &rec), PK_RECORD_SKIP);
	/* Even an unknown type must not claim more than was delivered. */
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf) - 1, &rec), PK_RECORD_BAD);
}
END_TEST

START_TEST(test_no_table)
{
	unsigned char buf[sizeof(struct pk_no_table) + 8];
	struct pk_record rec;
	size_t size = make_no_table(buf, 0x7f0000001000, 0x7f0000005000);

	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_NO_TABLE);
	ck_assert_uint_eq(rec.no_table.dev, 0x800003);
	ck_assert_uint_eq(rec.no_table.ino, 77);
	ck_assert_uint_eq(rec.no_table.vm_start, 0x7f0000001000);
	ck_assert_uint_eq(rec.no_table.vm_end, 0x7f0000005000);
	ck_assert_uint_eq(rec.no_table.vm_pgoff, 5);
	ck_assert_uint_eq(rec.no_table.pid, 42);
	/* Delivered with room to spare. */
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &rec), PK_RECORD_NO_TABLE);
	/* An empty or inverted range names no mapping. */
	size = make_no_table(buf, 0x2000, 0x2000);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_no_table(buf, 0x3000, 0x2000);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* hdr.size short of the event. */
	size = make_no_table(buf, 0x1000, 0x2000);
	set16(buf, offsetof(struct pk_event_hdr, size), size - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

static void check_cuts(const unsigned char *buf, size_t size);

static size_t make_mapping(unsigned char *buf, const char *path, __u16 path_len)
{
	struct pk_mapping_event e = {
		.hdr = { .type = PK_EVENT_MAPPING, .size = sizeof(e), .flags = PK_MAPPING_PATH_TRUNC },
		.pid = 42, .table = 7, .vm_start = 0x7f0000001000, .vm_end = 0x7f0000005000,
		.vm_pgoff = 3, .dev = 0x800003, .ino = 77, .path_len = path_len,
	};

	memcpy(e.path, path, strlen(path));
	memcpy(buf, &e, sizeof(e));
	return sizeof(e);
}

START_TEST(test_mapping)
{
	unsigned char buf[sizeof(struct pk_mapping_event)];
	char long_path[PK_MAPPING_PATH_MAX];
	struct pk_record rec;
	size_t size = make_mapping(buf, "/usr/lib/libx.so", 16);

	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_MAPPING);
	ck_assert_uint_eq(rec.mapping.pid, 42);
	ck_assert_uint_eq(rec.mapping.table, 7);
	ck_assert_uint_eq(rec.mapping.flags, PK_MAPPING_PATH_TRUNC);
	ck_assert_uint_eq(rec.mapping.vm_start, 0x7f0000001000);
	ck_assert_uint_eq(rec.mapping.vm_end, 0x7f0000005000);
	ck_assert_uint_eq(rec.mapping.vm_pgoff, 3);
	ck_assert_uint_eq(rec.mapping.dev, 0x800003);
	ck_assert_uint_eq(rec.mapping.ino, 77);
	ck_assert_str_eq(rec.mapping.path, "/usr/lib/libx.so");
	/* path_len must point at the path's NUL, inside the array */
	size = make_mapping(buf, "/usr/lib/libx.so", 15);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_mapping(buf, "/usr/lib/libx.so", 17);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	memset(long_path, 'a', sizeof(long_path));
	memcpy(buf + offsetof(struct pk_mapping_event, path), long_path, sizeof(long_path));
	set16(buf, offsetof(struct pk_mapping_event, path_len), PK_MAPPING_PATH_MAX);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_mapping_event, path_len), PK_MAPPING_PATH_MAX - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* an empty range */
	size = make_mapping(buf, "", 0);
	set64(buf, offsetof(struct pk_mapping_event, vm_end), 0x7f0000001000);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* every cut short of the whole record */
	size = make_mapping(buf, "/x", 2);
	check_cuts(buf, size);

	/* the build-id the kernel read */
	size = make_mapping(buf, "/x", 2);
	set64(buf, offsetof(struct pk_mapping_event, build_id_len), 20);
	for (int i = 0; i < 20; i++)
		buf[offsetof(struct pk_mapping_event, build_id) + i] = 0xb0 + i;
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_MAPPING);
	ck_assert_uint_eq(rec.mapping.build_id_len, 20);
	ck_assert_uint_eq(rec.mapping.build_id[19], 0xb0 + 19);
	/* no longer than its array */
	set64(buf, offsetof(struct pk_mapping_event, build_id_len), PK_MAPPING_BUILD_ID_MAX + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a writer from before the build-id: its record ends at the path */
	size = offsetof(struct pk_mapping_event, build_id_len);
	set16(buf, offsetof(struct pk_event_hdr, size), size);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_MAPPING);
	ck_assert_uint_eq(rec.mapping.build_id_len, 0);
	ck_assert_str_eq(rec.mapping.path, "/x");
	ck_assert_int_eq(pk_record_parse(buf, size - 1, &rec), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_event_hdr, size), size - 1);
	ck_assert_int_eq(pk_record_parse(buf, size - 1, &rec), PK_RECORD_BAD);
}
END_TEST

/* Every cut short of the whole record is rejected. */
static void check_cuts(const unsigned char *buf, size_t size)
{
	struct pk_record rec;

	ck_assert_int_ne(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	for (size_t cut = 0; cut < size; cut++)
		ck_assert_msg(pk_record_parse(buf, cut, &rec) == PK_RECORD_BAD, "cut at %zu of %zu",
			      cut, size);
}

START_TEST(test_truncated)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record rec;

	check_cuts(buf, make_sample(buf, 3, 4));
	check_cuts(buf, make_sample_at(buf, 3, 4, V1_FRAMES_OFF, 0));
	check_cuts(buf, make_dwarf_at(buf, 3, 4, PK_END_COMPLETE, V2_FRAMES_OFF));
	check_cuts(buf, make_dwarf(buf, 3, PK_MAX_USTACK_DEPTH, PK_END_DEPTH));
	check_cuts(buf, make_no_table(buf, 0x1000, 0x2000));
	ck_assert_int_eq(pk_record_parse(NULL, 0, &rec), PK_RECORD_BAD);
}
END_TEST

START_TEST(test_lying_sizes)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record rec;
	size_t size;

	/* Frames that do not fit in hdr.size. */
	size = make_sample(buf, 2, 2);
	set16(buf, offsetof(struct pk_sample, ustack_len), 3);
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &rec), PK_RECORD_BAD);
	/* Deeper than any writer produces. */
	size = make_sample(buf, 0, 0);
	set16(buf, offsetof(struct pk_sample, kstack_len), PK_MAX_STACK_DEPTH + 1);
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &rec), PK_RECORD_BAD);
	/* hdr.size smaller than the header, or than a layout 1 sample. */
	size = make_sample(buf, 1, 1);
	set16(buf, offsetof(struct pk_event_hdr, size), 4);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_event_hdr, size), V1_FRAMES_OFF - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* hdr.size larger than delivered. */
	set16(buf, offsetof(struct pk_event_hdr, size), size + 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* frames_off inside the fixed fields, or past the end. */
	size = make_sample(buf, 1, 1);
	set16(buf, offsetof(struct pk_sample, frames_off), 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_sample, frames_off), V1_FRAMES_OFF - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_sample, frames_off), size + 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* frames_off pushing the frames past the end. */
	set16(buf, offsetof(struct pk_sample, frames_off), sizeof(struct pk_sample) + 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* A DWARF sample claiming a full walk in a record that holds less. */
	size = make_dwarf(buf, 0, 10, PK_END_COMPLETE);
	set16(buf, offsetof(struct pk_sample, ustack_len), PK_MAX_USTACK_DEPTH);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

/* Arbitrary bytes never crash (run under ASan by make check). */
START_TEST(test_random_bytes)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record rec;
	unsigned int seed = 1;

	for (int round = 0; round < 20000; round++) {
		size_t size = rand_r(&seed) % sizeof(buf);
		enum pk_record_kind kind;

		for (size_t i = 0; i < size; i++)
			buf[i] = rand_r(&seed);
		/* Mostly samples with nearly right sizes, of either layout and
		 * walk: the interesting part of the space. */
		if (size >= sizeof(struct pk_sample) && round % 4) {
			static const __u16 bases[] = { V1_FRAMES_OFF, V2_FRAMES_OFF, V3_FRAMES_OFF,
						       V4_FRAMES_OFF, V5_FRAMES_OFF };
			__u16 base = bases[(round / 4) % 5];

			set16(buf, offsetof(struct pk_event_hdr, type), PK_EVENT_SAMPLE);
			set16(buf, offsetof(struct pk_event_hdr, size), size - rand_r(&seed) % 16);
			set16(buf, offsetof(struct pk_sample, frames_off), base + rand_r(&seed) % 16);
			set16(buf, offsetof(struct pk_sample, kstack_len), rand_r(&seed) % 130);
			set16(buf, offsetof(struct pk_sample, ustack_len), rand_r(&seed) % 260);
			set16(buf, offsetof(struct pk_sample, py_len), rand_r(&seed) % 130);
		} else if (size >= sizeof(struct pk_py_code_event) && round % 8 == 4) {
			set16(buf, offsetof(struct pk_event_hdr, type), PK_EVENT_PY_CODE);
			set16(buf, offsetof(struct pk_event_hdr, size), size - rand_r(&seed) % 16);
			set16(buf, offsetof(struct pk_py_code_event, name_len), rand_r(&seed) % 140);
			set16(buf, offsetof(struct pk_py_code_event, file_len), rand_r(&seed) % 270);
			set16(buf, offsetof(struct pk_py_code_event, linetable_len),
			      rand_r(&seed) % 4200);
		} else if (size >= sizeof(struct pk_hs_method_event) && round % 16 == 8) {
			set16(buf, offsetof(struct pk_event_hdr, type), PK_EVENT_HS_METHOD);
			set16(buf, offsetof(struct pk_event_hdr, size), size - rand_r(&seed) % 16);
			set16(buf, offsetof(struct pk_hs_method_event, klass_len), rand_r(&seed) % 270);
			set16(buf, offsetof(struct pk_hs_method_event, name_len), rand_r(&seed) % 270);
		} else if (size >= sizeof(struct pk_v8_sfi_event) && round % 16 == 12) {
			set16(buf, offsetof(struct pk_event_hdr, type), PK_EVENT_V8_SFI);
			set16(buf, offsetof(struct pk_event_hdr, size), size - rand_r(&seed) % 16);
			set16(buf, offsetof(struct pk_v8_sfi_event, name_len), rand_r(&seed) % 140);
			set16(buf, offsetof(struct pk_v8_sfi_event, file_len), rand_r(&seed) % 270);
		} else if (size >= sizeof(struct pk_no_table) && round % 8 == 0) {
			set16(buf, offsetof(struct pk_event_hdr, type), PK_EVENT_NO_TABLE);
			set16(buf, offsetof(struct pk_event_hdr, size), size - rand_r(&seed) % 16);
			set64(buf, offsetof(struct pk_no_table, vm_end), ~0ULL);
		}
		kind = pk_record_parse(buf, size, &rec);
		if (kind == PK_RECORD_SAMPLE)
			for (size_t i = 0; i < (size_t)rec.sample.kstack_len + rec.sample.ustack_len +
					    rec.sample.py_len; i++)
				(void)pk_record_frame(&rec.sample, i);
	}
}
END_TEST

/* Layout 5: K kernel, U user (DWARF walk, complete) and P Python frames
 * (PK_SAMPLE_PY, PK_PY_END_DEPTH), numbered 1.. in that order. */
static size_t make_py(unsigned char *buf, __u16 k, __u16 u, __u16 p)
{
	size_t size = make_sample_at(buf, k, (__u16)(u + p), V5_FRAMES_OFF,
				     PK_SAMPLE_USTACK_DWARF | PK_SAMPLE_PY);

	set16(buf, offsetof(struct pk_sample, ustack_len), u);
	set16(buf, offsetof(struct pk_sample, py_len), p);
	buf[offsetof(struct pk_sample, ustack_end)] = PK_END_COMPLETE;
	buf[offsetof(struct pk_sample, py_end)] = PK_PY_END_DEPTH;
	return size;
}

START_TEST(test_py_frames)
{
	static unsigned char buf[PK_SAMPLE_COPY_MAX_SIZE];
	struct pk_record rec;
	struct pk_record_sample *r = &rec.sample;
	size_t size = make_py(buf, 2, 3, 4), off;

	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(r->flags & PK_SAMPLE_PY);
	ck_assert_uint_eq(r->kstack_len, 2);
	ck_assert_uint_eq(r->ustack_len, 3);
	ck_assert_uint_eq(r->py_len, 4);
	ck_assert_uint_eq(r->py_end, PK_PY_END_DEPTH);
	for (size_t i = 0; i < 9; i++)
		ck_assert_uint_eq(pk_record_frame(r, i), i + 1);
	/* the deepest of every part: a layout 5 writer's largest sample */
	size = make_py(buf, PK_MAX_STACK_DEPTH, PK_MAX_USTACK_DEPTH, PK_MAX_PY_DEPTH);
	ck_assert_uint_eq(size, V5_MAX_SIZE);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->py_len, PK_MAX_PY_DEPTH);
	ck_assert_uint_eq(pk_record_frame(r, V5_MAX_SIZE / 8 - V5_FRAMES_OFF / 8 - 1),
			  V5_MAX_SIZE / 8 - V5_FRAMES_OFF / 8);
	/* a Python walk that found nothing (the thread ran no Python) */
	size = make_py(buf, 1, 1, 0);
	buf[offsetof(struct pk_sample, py_end)] = PK_PY_END_COMPLETE;
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->py_len, 0);
	ck_assert_uint_eq(r->py_end, PK_PY_END_COMPLETE);
	/* without the flag the fields say nothing, whatever they hold */
	size = make_py(buf, 1, 3, 2);
	set16(buf, offsetof(struct pk_event_hdr, flags), PK_SAMPLE_USTACK_DWARF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->py_len, 0);
	ck_assert_uint_eq(r->py_end, PK_PY_END_NONE);
	/* layout 4 had no such flag: no Python frames, whatever the bit says */
	size = make_sample_at(buf, 1, 2, V4_FRAMES_OFF, PK_SAMPLE_PY);
	set16(buf, offsetof(struct pk_sample, py_len), 7);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(!(r->flags & PK_SAMPLE_PY));
	ck_assert_uint_eq(r->py_len, 0);
	/* a stack copy comes after the Python frames */
	size = make_py(buf, 2, 3, 4);
	off = size;
	{
		struct pk_ustack_copy c = { .regs_valid = 0x1ffff, .len = 16 };

		c.regs[7] = 1007;
		c.start = 1007 - PK_USTACK_COPY_BELOW;
		c.regs[16] = 5;	/* the last user frame */
		memcpy(buf + off, &c, sizeof(c));
		memset(buf + off + sizeof(c), 0xab, 16);
	}
	set16(buf, offsetof(struct pk_event_hdr, flags),
	      PK_SAMPLE_USTACK_DWARF | PK_SAMPLE_USTACK_COPY | PK_SAMPLE_PY);
	buf[offsetof(struct pk_sample, ustack_end)] = PK_END_NO_TABLE;
	set16(buf, offsetof(struct pk_sample, copy_off), off);
	set16(buf, offsetof(struct pk_event_hdr, size), off + sizeof(struct pk_ustack_copy) + 16);
	size = off + sizeof(struct pk_ustack_copy) + 16;
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->py_len, 4);
	ck_assert_uint_eq(r->copy.len, 16);
	ck_assert_ptr_eq(r->stack, buf + off + sizeof(struct pk_ustack_copy));
	check_cuts(buf, size);
	/* ... never over them */
	set16(buf, offsetof(struct pk_sample, copy_off), off - 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

START_TEST(test_py_frames_bad)
{
	static unsigned char buf[PK_SAMPLE_COPY_MAX_SIZE];
	struct pk_record rec;
	size_t size;

	/* deeper than any writer goes */
	size = make_py(buf, 0, 0, PK_MAX_PY_DEPTH + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* Python frames past the record */
	size = make_py(buf, 2, 3, 4);
	set16(buf, offsetof(struct pk_sample, py_len), 5);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &rec), PK_RECORD_BAD);
	check_cuts(buf, make_py(buf, 2, 3, 4));
}
END_TEST

/* A code event of NAME, FILE and a line table of LT_LEN bytes 0x80.. */
static size_t make_code(unsigned char *buf, __u32 flags, const char *name, const char *file,
			__u16 lt_len)
{
	struct pk_py_code_event e = {
		.hdr = { .type = PK_EVENT_PY_CODE, .flags = flags },
		.pid = 42, .version = 0x030b02f0, .code = 0x7f0012345678, .firstlineno = 10,
		.firsttraceable = 3, .name_len = strlen(name), .file_len = strlen(file),
		.linetable_len = lt_len,
	};
	size_t size = sizeof(e) + e.name_len + e.file_len + lt_len;

	e.hdr.size = size;
	memcpy(buf, &e, sizeof(e));
	memcpy(buf + sizeof(e), name, e.name_len);
	memcpy(buf + sizeof(e) + e.name_len, file, e.file_len);
	for (__u16 i = 0; i < lt_len; i++)
		buf[sizeof(e) + e.name_len + e.file_len + i] = 0x80 + (i & 0x7f);
	return size;
}

START_TEST(test_py_code)
{
	static unsigned char buf[1 << 16];
	struct pk_record rec;
	struct pk_py_code_desc *c = &rec.py_code;
	size_t size = make_code(buf, PK_PY_NAME_LATIN1, "Caf\xe9.run", "/srv/app.py", 6);

	ck_assert_uint_eq(size, 48 + 8 + 11 + 6);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_PY_CODE);
	ck_assert_uint_eq(c->flags, PK_PY_NAME_LATIN1);
	ck_assert_uint_eq(c->pid, 42);
	ck_assert_uint_eq(c->version, 0x030b02f0);
	ck_assert_uint_eq(c->code, 0x7f0012345678);
	ck_assert_int_eq(c->firstlineno, 10);
	ck_assert_uint_eq(c->firsttraceable, 3);
	ck_assert_uint_eq(c->name_len, 8);
	ck_assert(memcmp(c->name, "Caf\xe9.run", 8) == 0);
	ck_assert_uint_eq(c->file_len, 11);
	ck_assert(memcmp(c->file, "/srv/app.py", 11) == 0);
	ck_assert_uint_eq(c->linetable_len, 6);
	ck_assert_ptr_eq(c->linetable, buf + 48 + 19);
	ck_assert_uint_eq(c->linetable[5], 0x85);
	check_cuts(buf, size);
	/* a record delivered larger, and one with bytes to spare */
	ck_assert_int_eq(pk_record_parse(buf, size + 40, &rec), PK_RECORD_PY_CODE);
	set16(buf, offsetof(struct pk_event_hdr, size), size + 8);
	ck_assert_int_eq(pk_record_parse(buf, size + 8, &rec), PK_RECORD_PY_CODE);
	/* unreadable strings are empty */
	size = make_code(buf, PK_PY_NAME_UNREADABLE | PK_PY_FILE_UNREADABLE, "", "", 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_PY_CODE);
	ck_assert_uint_eq(c->name_len + c->file_len + c->linetable_len, 0);
	/* the longest of each */
	{
		char name[PK_PY_NAME_MAX + 2], file[PK_PY_FILE_MAX + 2];

		memset(name, 'n', sizeof(name));
		memset(file, 'f', sizeof(file));
		name[PK_PY_NAME_MAX] = file[PK_PY_FILE_MAX] = '\0';
		size = make_code(buf, 0, name, file, PK_PY_LINETABLE_MAX);
		ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_PY_CODE);
		name[PK_PY_NAME_MAX] = 'n';
		name[PK_PY_NAME_MAX + 1] = '\0';
		size = make_code(buf, 0, name, "f", 0);
		ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
		file[PK_PY_FILE_MAX] = 'f';
		file[PK_PY_FILE_MAX + 1] = '\0';
		size = make_code(buf, 0, "n", file, 0);
		ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
		size = make_code(buf, 0, "n", "f", PK_PY_LINETABLE_MAX + 1);
		ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	}
}
END_TEST

/* A method event of KLASS and NAME. */
static size_t make_method(unsigned char *buf, __u32 flags, const char *klass, const char *name)
{
	struct pk_hs_method_event e = {
		.hdr = { .type = PK_EVENT_HS_METHOD, .flags = flags },
		.pid = 42, .method = 0x7f0012345678, .klass_len = strlen(klass),
		.name_len = strlen(name),
	};
	size_t size = sizeof(e) + e.klass_len + e.name_len;

	e.hdr.size = size;
	memcpy(buf, &e, sizeof(e));
	memcpy(buf + sizeof(e), klass, e.klass_len);
	memcpy(buf + sizeof(e) + e.klass_len, name, e.name_len);
	return size;
}

/* A method event of Hot.leaf from Hot.java with line table LINES (N
 * bytes, NULs in it allowed). */
static size_t make_method_lines(unsigned char *buf, const __u8 *lines, size_t n)
{
	size_t size = make_method(buf, 0, "Hot", "leaf");

	set16(buf, offsetof(struct pk_hs_method_event, file_len), 8);
	set16(buf, offsetof(struct pk_hs_method_event, lines_len), n);
	memcpy(buf + size, "Hot.java", 8);
	memcpy(buf + size + 8, lines, n);
	size += 8 + n;
	set16(buf, offsetof(struct pk_event_hdr, size), size);
	return size;
}

/* A Java method's source file and line table follow its names: the file
 * without a NUL, the table of PK_HS_LINES_MAX bytes at most, NULs and all;
 * a record cut anywhere is refused. */
START_TEST(test_hs_method_lines)
{
	static unsigned char buf[1 << 12];
	static const __u8 lines[] = { 0xff, 0x00, 0x3c, 0x21, 0x00 };
	__u8 big[PK_HS_LINES_MAX + 1] = { 0 };
	struct pk_record rec;
	struct pk_hs_method_desc *m = &rec.hs_method;
	size_t size = make_method_lines(buf, lines, sizeof(lines));

	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_METHOD);
	ck_assert_uint_eq(m->name_len, 4);
	ck_assert(memcmp(m->name, "leaf", 4) == 0);
	ck_assert_uint_eq(m->file_len, 8);
	ck_assert(memcmp(m->file, "Hot.java", 8) == 0);
	ck_assert_uint_eq(m->lines_len, sizeof(lines));
	ck_assert(memcmp(m->lines, lines, sizeof(lines)) == 0);
	check_cuts(buf, size);
	/* a NUL in the file's name */
	buf[32 + 3 + 4 + 2] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* the table at its bound, and past it */
	size = make_method_lines(buf, big, PK_HS_LINES_MAX);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_METHOD);
	ck_assert_uint_eq(m->lines_len, PK_HS_LINES_MAX);
	size = make_method_lines(buf, big, PK_HS_LINES_MAX + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* unreadable: no file, no table, or it is bad */
	size = make_method_lines(buf, lines, 0);
	set16(buf, offsetof(struct pk_event_hdr, flags), PK_HS_UNREADABLE);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

/* A Java method's names lie in the record, within PK_HS_SYM_MAX each,
 * without a NUL; an unreadable one has none; the Method* fits a frame. */
START_TEST(test_hs_method)
{
	static unsigned char buf[1 << 12];
	char klass[PK_HS_SYM_MAX + 2];
	struct pk_record rec;
	struct pk_hs_method_desc *m = &rec.hs_method;
	size_t size = make_method(buf, 0, "java/util/Arrays", "sort");

	ck_assert_uint_eq(size, 32 + 16 + 4);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_METHOD);
	ck_assert_uint_eq(m->pid, 42);
	ck_assert_uint_eq(m->flags, 0);
	ck_assert_uint_eq(m->method, 0x7f0012345678);
	ck_assert_uint_eq(m->klass_len, 16);
	ck_assert(memcmp(m->klass, "java/util/Arrays", 16) == 0);
	ck_assert_uint_eq(m->name_len, 4);
	ck_assert(memcmp(m->name, "sort", 4) == 0);
	check_cuts(buf, size);
	/* lengths past hdr.size */
	set16(buf, offsetof(struct pk_event_hdr, size), size - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a NUL in a name */
	size = make_method(buf, 0, "Hot", "main");
	buf[32 + 3] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* unreadable: no names, or it is bad */
	size = make_method(buf, PK_HS_UNREADABLE, "", "");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_METHOD);
	ck_assert_uint_eq(m->klass_len + m->name_len, 0);
	size = make_method(buf, PK_HS_UNREADABLE, "Hot", "");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a Method* no frame can hold */
	size = make_method(buf, 0, "Hot", "main");
	set64(buf, offsetof(struct pk_hs_method_event, method), 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set64(buf, offsetof(struct pk_hs_method_event, method), PK_HS_METHOD_MASK + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* the longest name, and one past it */
	memset(klass, 'k', sizeof(klass));
	klass[PK_HS_SYM_MAX] = '\0';
	size = make_method(buf, 0, klass, "m");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_METHOD);
	klass[PK_HS_SYM_MAX] = 'k';
	klass[PK_HS_SYM_MAX + 1] = '\0';
	size = make_method(buf, 0, klass, "m");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

START_TEST(test_py_code_bad)
{
	static unsigned char buf[1 << 16];
	struct pk_record rec;
	size_t size;

	/* lengths past hdr.size */
	size = make_code(buf, 0, "f", "a.py", 4);
	set16(buf, offsetof(struct pk_event_hdr, size), size - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_event_hdr, size), size);
	set16(buf, offsetof(struct pk_py_code_event, linetable_len), 5);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a NUL in a string */
	size = make_code(buf, 0, "f", "a.py", 4);
	buf[48] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_code(buf, 0, "f", "a.py", 4);
	buf[48 + 1 + 3] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* (the line table may hold any byte) */
	size = make_code(buf, 0, "f", "a.py", 4);
	buf[48 + 5] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_PY_CODE);
	/* an unreadable string with bytes */
	size = make_code(buf, PK_PY_NAME_UNREADABLE, "f", "a.py", 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_code(buf, PK_PY_FILE_UNREADABLE, "f", "a.py", 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a code no frame can name */
	size = make_code(buf, 0, "f", "a.py", 0);
	set64(buf, offsetof(struct pk_py_code_event, code), 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set64(buf, offsetof(struct pk_py_code_event, code), 1ULL << 48);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

/* A JavaScript function's event: NAME and FILE. */
static size_t make_sfi(unsigned char *buf, __u32 flags, const char *name, const char *file)
{
	struct pk_v8_sfi_event e = {
		.hdr = { .type = PK_EVENT_V8_SFI, .flags = flags },
		.pid = 42, .sfi = 0x3f0012345679, .name_len = strlen(name),
		.file_len = strlen(file), .line = 19,
	};
	size_t size = sizeof(e) + e.name_len + e.file_len;

	e.hdr.size = size;
	memcpy(buf, &e, sizeof(e));
	memcpy(buf + sizeof(e), name, e.name_len);
	memcpy(buf + sizeof(e) + e.name_len, file, e.file_len);
	return size;
}

/* A JavaScript function's names and line lie in the record, within PK_V8_NAME_MAX
 * and PK_V8_FILE_MAX, without a NUL; an unreadable one is empty; the SFI
 * fits a frame. */
START_TEST(test_v8_sfi)
{
	static unsigned char buf[1 << 12];
	char name[PK_V8_NAME_MAX + 2], file[PK_V8_FILE_MAX + 2];
	struct pk_record rec;
	struct pk_v8_sfi_desc *d = &rec.v8_sfi;
	size_t size = make_sfi(buf, 0, "leaf", "/mnt/hot.js");

	ck_assert_uint_eq(size, 32 + 4 + 11);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_V8_SFI);
	ck_assert_uint_eq(d->pid, 42);
	ck_assert_uint_eq(d->flags, 0);
	ck_assert_uint_eq(d->sfi, 0x3f0012345679);
	ck_assert_uint_eq(d->name_len, 4);
	ck_assert(memcmp(d->name, "leaf", 4) == 0);
	ck_assert_uint_eq(d->file_len, 11);
	ck_assert(memcmp(d->file, "/mnt/hot.js", 11) == 0);
	ck_assert_uint_eq(d->line, 19);
	check_cuts(buf, size);
	set16(buf, offsetof(struct pk_event_hdr, size), size - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a NUL in the file */
	size = make_sfi(buf, 0, "top", "hot.js");
	buf[32 + 3 + 2] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* anonymous: an empty name that is no error */
	size = make_sfi(buf, 0, "", "hot.js");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_V8_SFI);
	ck_assert_uint_eq(d->name_len, 0);
	/* unreadable: empty, or it is bad */
	size = make_sfi(buf, PK_V8_NAME_UNREADABLE | PK_V8_FILE_UNREADABLE, "", "");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_V8_SFI);
	size = make_sfi(buf, PK_V8_NAME_UNREADABLE, "top", "");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_sfi(buf, PK_V8_FILE_UNREADABLE, "top", "hot.js");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* an SFI no frame can hold */
	size = make_sfi(buf, 0, "top", "hot.js");
	set64(buf, offsetof(struct pk_v8_sfi_event, sfi), 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set64(buf, offsetof(struct pk_v8_sfi_event, sfi), PK_V8_SFI_MASK + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* the longest names, and one past each */
	memset(name, 'n', sizeof(name));
	memset(file, 'f', sizeof(file));
	name[PK_V8_NAME_MAX] = file[PK_V8_FILE_MAX] = '\0';
	size = make_sfi(buf, 0, name, file);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_V8_SFI);
	ck_assert_uint_eq(d->name_len + d->file_len, PK_V8_NAME_MAX + PK_V8_FILE_MAX);
	name[PK_V8_NAME_MAX] = 'n';
	name[PK_V8_NAME_MAX + 1] = '\0';
	size = make_sfi(buf, 0, name, "f");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	file[PK_V8_FILE_MAX] = 'f';
	file[PK_V8_FILE_MAX + 1] = '\0';
	size = make_sfi(buf, 0, "n", file);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

Suite *suite_record(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("valid");

	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_layout1);
	tcase_add_test(tc, test_layout2);
	tcase_add_test(tc, test_layout3);
	tcase_add_test(tc, test_dwarf);
	tcase_add_test(tc, test_comm_terminated);
	tcase_add_test(tc, test_grown_record);
	tcase_add_test(tc, test_unknown_type);
	tcase_add_test(tc, test_no_table);
	tcase_add_test(tc, test_mapping);
	tcase_add_test(tc, test_copy);
	tcase_add_test(tc, test_agg_def);
	tcase_add_test(tc, test_cgroup_id);
	tcase_add_test(tc, test_py_frames);
	tcase_add_test(tc, test_py_code);
	suite_add_tcase(s, tc);
	tc = tcase_create("invalid");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_dwarf_bad);
	tcase_add_test(tc, test_copy_bad);
	tcase_add_test(tc, test_py_frames_bad);
	tcase_add_test(tc, test_py_code_bad);
	tcase_add_test(tc, test_hs_method);
	tcase_add_test(tc, test_v8_sfi);
	tcase_add_test(tc, test_hs_method_lines);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_lying_sizes);
	tcase_add_test(tc, test_random_bytes);
	suite_add_tcase(s, tc);
	return s;
}
