// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <linux/types.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "test_util.h"

/* A sample record with K kernel and U user frames, frames numbered 1.. */
static size_t make_sample(unsigned char *buf, __u16 k, __u16 u)
{
	struct pk_sample s = {
		.hdr = { .type = PK_EVENT_SAMPLE, .flags = PK_SAMPLE_USTACK_TRUNC },
		.time_ns = 123, .pid = 42, .tid = 43, .cpu = 1,
		.kstack_len = k, .ustack_len = u, .frames_off = sizeof(s),
	};
	size_t size = sizeof(s) + 8 * (size_t)(k + u);

	s.hdr.size = size;
	memcpy(s.comm, "worker", 7);
	memcpy(buf, &s, sizeof(s));
	for (__u64 i = 0; i < (__u64)k + u; i++) {
		__u64 v = i + 1;

		memcpy(buf + sizeof(s) + 8 * i, &v, 8);
	}
	return size;
}

static void set16(unsigned char *buf, size_t off, __u16 v)
{
	memcpy(buf + off, &v, sizeof(v));
}

START_TEST(test_valid)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record_sample r;
	size_t size = make_sample(buf, 2, 3);

	ck_assert_int_eq(pk_record_parse(buf, size, &r), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r.pid, 42);
	ck_assert_uint_eq(r.tid, 43);
	ck_assert_uint_eq(r.cpu, 1);
	ck_assert_uint_eq(r.time_ns, 123);
	ck_assert_uint_eq(r.flags, PK_SAMPLE_USTACK_TRUNC);
	ck_assert_uint_eq(r.kstack_len, 2);
	ck_assert_uint_eq(r.ustack_len, 3);
	ck_assert_str_eq(r.comm, "worker");
	ck_assert_uint_eq(pk_record_frame(&r, 0), 1);
	ck_assert_uint_eq(pk_record_frame(&r, 4), 5);
	/* The ring buffer may deliver more bytes than hdr.size. */
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &r), PK_RECORD_SAMPLE);
	/* Both stacks empty (e.g. both unreadable). */
	size = make_sample(buf, 0, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &r), PK_RECORD_SAMPLE);
	/* Full depth. */
	size = make_sample(buf, PK_MAX_STACK_DEPTH, PK_MAX_STACK_DEPTH);
	ck_assert_int_eq(pk_record_parse(buf, size, &r), PK_RECORD_SAMPLE);
}
END_TEST

START_TEST(test_comm_terminated)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record_sample r;
	size_t size = make_sample(buf, 0, 1);

	memset(buf + offsetof(struct pk_sample, comm), 'x', PK_TASK_COMM_LEN);
	ck_assert_int_eq(pk_record_parse(buf, size, &r), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(strlen(r.comm), PK_TASK_COMM_LEN - 1);
}
END_TEST

/* A newer writer appends fields before the frames: still readable. */
START_TEST(test_grown_record)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE + 64] = { 0 };
	struct pk_record_sample r;
	size_t size = make_sample(buf, 1, 1);
	size_t off = sizeof(struct pk_sample) + 16;

	memmove(buf + off, buf + sizeof(struct pk_sample), 16);
	set16(buf, offsetof(struct pk_sample, frames_off), off);
	set16(buf, offsetof(struct pk_event_hdr, size), size + 16);
	ck_assert_int_eq(pk_record_parse(buf, size + 16, &r), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(pk_record_frame(&r, 0), 1);
	ck_assert_uint_eq(pk_record_frame(&r, 1), 2);
}
END_TEST

START_TEST(test_unknown_type)
{
	struct pk_event_hdr h = { .type = 99, .size = sizeof(h) + 4 };
	unsigned char buf[sizeof(h) + 4] = { 0 };
	struct pk_record_sample r;

	memcpy(buf, &h, sizeof(h));
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &r), PK_RECORD_SKIP);
	/* Even an unknown type must not claim more than was delivered. */
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf) - 1, &r), PK_RECORD_BAD);
}
END_TEST

START_TEST(test_truncated)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record_sample r;
	size_t size = make_sample(buf, 3, 4);

	/* Every cut short of the whole record is rejected. */
	for (size_t cut = 0; cut < size; cut++)
		ck_assert_msg(pk_record_parse(buf, cut, &r) == PK_RECORD_BAD, "cut at %zu", cut);
	ck_assert_int_eq(pk_record_parse(NULL, 0, &r), PK_RECORD_BAD);
}
END_TEST

START_TEST(test_lying_sizes)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record_sample r;
	size_t size;

	/* Frames that do not fit in hdr.size. */
	size = make_sample(buf, 2, 2);
	set16(buf, offsetof(struct pk_sample, ustack_len), 3);
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &r), PK_RECORD_BAD);
	/* Deeper than any writer produces. */
	size = make_sample(buf, 0, 0);
	set16(buf, offsetof(struct pk_sample, kstack_len), PK_MAX_STACK_DEPTH + 1);
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &r), PK_RECORD_BAD);
	/* hdr.size smaller than the header, or than a sample. */
	size = make_sample(buf, 1, 1);
	set16(buf, offsetof(struct pk_event_hdr, size), 4);
	ck_assert_int_eq(pk_record_parse(buf, size, &r), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_event_hdr, size), sizeof(struct pk_sample) - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &r), PK_RECORD_BAD);
	/* hdr.size larger than delivered. */
	set16(buf, offsetof(struct pk_event_hdr, size), size + 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &r), PK_RECORD_BAD);
	/* frames_off inside the fixed fields, or past the end. */
	size = make_sample(buf, 1, 1);
	set16(buf, offsetof(struct pk_sample, frames_off), 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &r), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_sample, frames_off), size + 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &r), PK_RECORD_BAD);
	/* frames_off pushing the frames past the end. */
	set16(buf, offsetof(struct pk_sample, frames_off), sizeof(struct pk_sample) + 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &r), PK_RECORD_BAD);
}
END_TEST

/* Arbitrary bytes never crash (run under ASan by make check). */
START_TEST(test_random_bytes)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_record_sample r;
	unsigned int seed = 1;

	for (int round = 0; round < 20000; round++) {
		size_t size = rand_r(&seed) % sizeof(buf);

		for (size_t i = 0; i < size; i++)
			buf[i] = rand_r(&seed);
		/* Mostly samples with nearly right sizes: the interesting
		 * part of the space. */
		if (size >= sizeof(struct pk_sample) && round % 4) {
			set16(buf, offsetof(struct pk_event_hdr, type), PK_EVENT_SAMPLE);
			set16(buf, offsetof(struct pk_event_hdr, size), size - rand_r(&seed) % 16);
			set16(buf, offsetof(struct pk_sample, frames_off),
			      sizeof(struct pk_sample) + rand_r(&seed) % 16);
			set16(buf, offsetof(struct pk_sample, kstack_len), rand_r(&seed) % 130);
			set16(buf, offsetof(struct pk_sample, ustack_len), rand_r(&seed) % 130);
		}
		if (pk_record_parse(buf, size, &r) == PK_RECORD_SAMPLE)
			for (size_t i = 0; i < (size_t)r.kstack_len + r.ustack_len; i++)
				(void)pk_record_frame(&r, i);
	}
}
END_TEST

Suite *suite_record(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("valid");

	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_comm_terminated);
	tcase_add_test(tc, test_grown_record);
	tcase_add_test(tc, test_unknown_type);
	suite_add_tcase(s, tc);
	tc = tcase_create("invalid");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_lying_sizes);
	tcase_add_test(tc, test_random_bytes);
	suite_add_tcase(s, tc);
	return s;
}
