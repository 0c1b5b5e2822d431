// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The records probe-read takes from the ring buffer, parsed: samples of
 * every layout, copies, --aggregate's definitions, cgroups, the no-table
 * and mapping records, and every kind of broken one. record_run.h names
 * the suite's other file.
 */
#include <errno.h>
#include <linux/types.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "reading/record.h"
#include "test_util.h"
#include "unit/reading/record_run.h"

/* Layout 3, no DWARF walk (--unwind fp), event 0 with weight 1. */
static size_t make_sample(unsigned char *buf, __u16 k, __u16 u)
{
	size_t size = pk_rc_make_sample_at(buf, k, u, V3_FRAMES_OFF, PK_SAMPLE_USTACK_TRUNC);

	set64(buf, offsetof(struct pk_sample, weight), 1);
	return size;
}

/* A DWARF walk that ended with END, in a sample at FRAMES_OFF (layout 2 or 3). */
static size_t make_dwarf_at(unsigned char *buf, __u16 k, __u16 u, __u8 end, __u16 frames_off)
{
	size_t size = pk_rc_make_sample_at(buf, k, u, frames_off, PK_SAMPLE_USTACK_DWARF);

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
	size_t off = pk_rc_make_sample_at(buf, k, u, V4_FRAMES_OFF,
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
	size_t size = pk_rc_make_sample_at(buf, 2, 3, V6_FRAMES_OFF, PK_SAMPLE_AGG_DEF);

	set64(buf, offsetof(struct pk_sample, agg_hash), 0x0123456789abcdefULL);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(r->flags & PK_SAMPLE_AGG_DEF);
	ck_assert_uint_eq(r->agg_hash, 0x0123456789abcdefULL);
	ck_assert_uint_eq(r->kstack_len, 2);
	ck_assert_uint_eq(r->ustack_len, 3);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(pk_record_frame(r, i), i + 1);
	/* the largest sample of this layout fits */
	size = pk_rc_make_sample_at(buf, PK_MAX_STACK_DEPTH, PK_MAX_STACK_DEPTH, V6_FRAMES_OFF,
				    PK_SAMPLE_AGG_DEF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	/* without the flag the key says nothing */
	size = pk_rc_make_sample_at(buf, 2, 3, V6_FRAMES_OFF, 0);
	set64(buf, offsetof(struct pk_sample, agg_hash), 7);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->agg_hash, 0);
	/* layout 5 had no such flag: an ordinary sample, whatever the bit says */
	size = pk_rc_make_sample_at(buf, 2, 3, V5_FRAMES_OFF, PK_SAMPLE_AGG_DEF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(!(r->flags & PK_SAMPLE_AGG_DEF));
	ck_assert_uint_eq(r->agg_hash, 0);
	ck_assert_uint_eq(pk_record_frame(r, 0), 1);
	/* a definition with a stack copy contradicts itself */
	size = pk_rc_make_sample_at(buf, 2, 3, V6_FRAMES_OFF,
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
	size_t size = pk_rc_make_sample_at(buf, 2, 3, V7_FRAMES_OFF, 0);

	set64(buf, offsetof(struct pk_sample, cgroup_id), 0x1122334455667788ULL);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->cgroup_id, 0x1122334455667788ULL);
	ck_assert_uint_eq(r->kstack_len, 2);
	ck_assert_uint_eq(r->ustack_len, 3);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(pk_record_frame(r, i), i + 1);
	/* with a definition's key beside it */
	size = pk_rc_make_sample_at(buf, 1, 1, V7_FRAMES_OFF, PK_SAMPLE_AGG_DEF);
	set64(buf, offsetof(struct pk_sample, agg_hash), 99);
	set64(buf, offsetof(struct pk_sample, cgroup_id), 4242);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->agg_hash, 99);
	ck_assert_uint_eq(r->cgroup_id, 4242);
	/* layout 6: the bytes where the id would be are its first frame */
	size = pk_rc_make_sample_at(buf, 2, 3, V6_FRAMES_OFF, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->cgroup_id, 0);
	ck_assert_uint_eq(pk_record_frame(r, 0), 1);
	/* a record cut inside the id is refused */
	size = pk_rc_make_sample_at(buf, 0, 0, V7_FRAMES_OFF, 0);
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
	size = pk_rc_make_sample_at(buf, 1, 1, V4_FRAMES_OFF, PK_SAMPLE_USTACK_DWARF);
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
	size_t size = pk_rc_make_sample_at(buf, 2, 3, V1_FRAMES_OFF, PK_SAMPLE_KSTACK_TRUNC);

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
	size = pk_rc_make_sample_at(buf, 0, 0, V1_FRAMES_OFF, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	/* Full depth. */
	size = pk_rc_make_sample_at(buf, PK_MAX_STACK_DEPTH, PK_MAX_STACK_DEPTH, V1_FRAMES_OFF, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(pk_record_frame(r, 2 * PK_MAX_STACK_DEPTH - 1), 2 * PK_MAX_STACK_DEPTH);
	/* The DWARF bit means nothing where its fields are missing: the
	 * frames (here the first user frame, 0x1...) are not read as them. */
	size = pk_rc_make_sample_at(buf, 0, 1, V1_FRAMES_OFF, PK_SAMPLE_USTACK_DWARF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->flags, 0);
	ck_assert_uint_eq(r->ustack_end, PK_END_NONE);
	/* ... nor does it allow a DWARF walk's depth. */
	size = pk_rc_make_sample_at(buf, 0, PK_MAX_STACK_DEPTH + 1, V1_FRAMES_OFF,
				    PK_SAMPLE_USTACK_DWARF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* Between the layouts: layout 1's fields, frames where layout 2's
	 * would be; the DWARF fields are not read. */
	size = pk_rc_make_sample_at(buf, 0, 1, V1_FRAMES_OFF + 8, PK_SAMPLE_USTACK_DWARF);
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
	size = pk_rc_make_sample_at(buf, 0, 1, V2_FRAMES_OFF + 8, 0);
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
	pk_rc_check_cuts(buf, size);

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

START_TEST(test_truncated)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record rec;

	pk_rc_check_cuts(buf, make_sample(buf, 3, 4));
	pk_rc_check_cuts(buf, pk_rc_make_sample_at(buf, 3, 4, V1_FRAMES_OFF, 0));
	pk_rc_check_cuts(buf, make_dwarf_at(buf, 3, 4, PK_END_COMPLETE, V2_FRAMES_OFF));
	pk_rc_check_cuts(buf, make_dwarf(buf, 3, PK_MAX_USTACK_DEPTH, PK_END_DEPTH));
	pk_rc_check_cuts(buf, make_no_table(buf, 0x1000, 0x2000));
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
	pk_rc_runtime_valid_tests(tc);
	suite_add_tcase(s, tc);
	tc = tcase_create("invalid");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_dwarf_bad);
	tcase_add_test(tc, test_copy_bad);
	pk_rc_runtime_invalid_tests(tc);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_lying_sizes);
	tcase_add_test(tc, test_random_bytes);
	suite_add_tcase(s, tc);
	return s;
}
