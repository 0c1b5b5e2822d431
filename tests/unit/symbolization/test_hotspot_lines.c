// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * HotSpot's compressed line number tables (symbolization/hotspot_lines.h),
 * at their edges: both codings of the ints (JDK 17's, where a 0 byte is a
 * number inside a pair, and JDK 21's, where it is the end), one- to
 * five-byte ints, negative deltas, tables cut at every length (each copy of
 * its exact size, so that ASan sees a read past it), and lines not above 0.
 * Tables are made as HotSpot's writer makes them (its rules restated here).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/hs_u5.h"
#include "symbolization/hotspot_lines.h"
#include "test_util.h"

static size_t put_signed(__u8 *out, __s32 v, unsigned int x)
{
	return put_u5(out, ((__u32)v << 1) ^ (__u32)(v >> 31), x);
}

/* A pair's deltas as CompressedLineNumberWriteStream writes them. */
static size_t put_pair(__u8 *out, __s32 dbci, __s32 dline, unsigned int x)
{
	size_t n = 0;

	if (dbci >= 0 && dbci < 32 && dline >= 0 && dline < 8 && (dbci << 3 | dline) != 0xff) {
		out[0] = dbci << 3 | dline;
		return 1;
	}
	out[n++] = 0xff;
	n += put_signed(out + n, dbci, x);
	n += put_signed(out + n, dline, x);
	return n;
}

/* The line at BCI of TABLE's first LEN bytes, copied to a buffer of that
 * size: the return value, *LINE. */
static int line_at(const __u8 *table, size_t len, bool no_zero, __u32 bci, __u32 *line)
{
	__u8 *copy = malloc(len ? len : 1);
	int ret;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, table, len);
	*line = 0;
	ret = pk_hs_line_at(copy, len, no_zero, bci, line);
	free(copy);
	return ret;
}

/* leaf's pairs in Hot.class: bci -> line, a line going back at bci 39 */
static const struct { __s32 bci, line; } leaf[] = {
	{ 0, 30 }, { 4, 31 }, { 10, 32 }, { 13, 33 }, { 21, 34 }, { 31, 35 }, { 39, 33 },
	{ 45, 37 }, { 49, 38 },
};
#define NLEAF (sizeof(leaf) / sizeof(leaf[0]))

static size_t make_leaf(__u8 *t, unsigned int x)
{
	size_t n = 0;

	for (size_t i = 0; i < NLEAF; i++)
		n += put_pair(t + n, leaf[i].bci - (i ? leaf[i - 1].bci : 0),
			      leaf[i].line - (i ? leaf[i - 1].line : 0), x);
	t[n++] = 0;
	return n;
}

/* The line HotSpot gives BCI of leaf: its pair's, else the nearest below. */
static __u32 leaf_line(__u32 bci)
{
	__s32 best = -1, best_bci = 0;

	for (size_t i = 0; i < NLEAF; i++) {
		if ((__u32)leaf[i].bci == bci)
			return leaf[i].line;
		if ((__u32)leaf[i].bci < bci && leaf[i].bci >= best_bci) {
			best_bci = leaf[i].bci;
			best = leaf[i].line;
		}
	}
	return best;
}

START_TEST(test_codings)
{
	/* _i: 0 JDK 17's ints, 1 JDK 21's */
	__u8 t[64];
	size_t n = make_leaf(t, _i);
	__u32 line;

	/* the first pair (bci 0, line 30) does not fit a byte: 0xff, then a
	 * 0 that JDK 17 writes as the byte 0 */
	ck_assert_uint_eq(t[0], 0xff);
	ck_assert_uint_eq(t[1], _i ? 1 : 0);
	for (__u32 bci = 0; bci < 60; bci++) {
		ck_assert_int_eq(line_at(t, n, _i, bci, &line), 0);
		ck_assert_uint_eq(line, leaf_line(bci));
	}
	/* the other coding reads other numbers (or ends at JDK 17's 0) */
	ck_assert(line_at(t, n, !_i, 0, &line) != 0 || line != 30);
}
END_TEST

START_TEST(test_cut)
{
	__u8 t[64];
	size_t n = make_leaf(t, _i);

	/* every cut: a line is one the whole table gives, or none known */
	for (size_t len = 0; len < n; len++)
		for (__u32 bci = 0; bci < 60; bci++) {
			__u32 line;
			int ret = line_at(t, len, _i, bci, &line);

			ck_assert_msg(ret == -ENODATA || (ret == 0 && line == leaf_line(bci)) ||
				      (ret == -ENOENT && len <= 1),
				      "cut at %zu, bci %u: %d, line %u", len, bci, ret, line);
		}
	/* the pairs past bci 10 read, its line is known: (0,30) (4,31)
	 * (10,32) (13,33) are the first 6 bytes */
	{
		__u32 line;

		ck_assert_int_eq(line_at(t, 6, _i, 11, &line), 0);
		ck_assert_uint_eq(line, 32);
		ck_assert_int_eq(line_at(t, 6, _i, 13, &line), 0);
		ck_assert_uint_eq(line, 33);
		ck_assert_int_eq(line_at(t, 6, _i, 14, &line), -ENODATA);
	}
}
END_TEST

START_TEST(test_long_ints)
{
	/* deltas of every encoded length, 1 to 5 bytes, both signs */
	static const __s32 deltas[] = { 0, 1, 95, 96, 100, 2000, 200000, 30000000, -1,
					-100, 0x7fffffff, -0x7fffffff - 1 };
	const size_t nd = sizeof(deltas) / sizeof(deltas[0]);

	for (size_t i = 0; i < nd; i++) {
		__u8 t[32];
		size_t n = 0;
		__u32 line, bci = 1000 + (__u32)deltas[i];

		n += put_pair(t, 1000, 50, _i);
		n += put_pair(t + n, deltas[i], 7, _i);
		t[n++] = 0;
		/* HotSpot's bcis are ints: the second pair's is asked for where
		 * it is one; at 1000 the first pair answers (the first exact) */
		if ((__s32)bci >= 0) {
			ck_assert_int_eq(line_at(t, n, _i, bci, &line), 0);
			ck_assert_uint_eq(line, deltas[i] ? 57 : 50);
		}
		ck_assert_int_eq(line_at(t, n, _i, 1000, &line), 0);
		ck_assert_uint_eq(line, 50);
		/* cut before the second pair ends: nothing past 1000 known */
		for (size_t len = 0; len + 1 < n; len++)
			ck_assert_int_eq(line_at(t, len, _i, 1001, &line), -ENODATA);
	}
}
END_TEST

START_TEST(test_odd)
{
	/* _i: JDK 21's coding (a 0 inside a pair ends it) or 17's */
	const __u8 empty[] = { 0 }, neg[] = { 0xff, _i ? 1 : 0, _i ? 4 : 3, 0 };
	const __u8 zero_in_pair[] = { 0xff, 0, 0x3c, 0x21, 0 };
	const __u8 five[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0 };
	__u32 line = 0;

	ck_assert_int_eq(line_at(empty, 0, _i, 0, &line), -ENODATA);
	ck_assert_int_eq(line_at(empty, 1, _i, 5, &line), -ENOENT);
	/* a pair at line -2 (zigzag 3) or -1 ... never a line */
	ck_assert_int_eq(line_at(neg, sizeof(neg), _i, 0, &line), -ENOENT);
	/* JDK 17: (0, 30), (4, 31); 21: the 0 ends the table at once */
	if (_i) {
		ck_assert_int_eq(line_at(zero_in_pair, sizeof(zero_in_pair), true, 4, &line),
				 -ENOENT);
	} else {
		ck_assert_int_eq(line_at(zero_in_pair, sizeof(zero_in_pair), false, 4, &line), 0);
		ck_assert_uint_eq(line, 31);
	}
	/* an int of 5 bytes, all high: the 5th ends it whatever it is; the
	 * line's int follows, then the end */
	ck_assert_int_ne(line_at(five, sizeof(five), _i, 0, &line), -ENODATA);
	ck_assert_int_eq(line_at(five, 6, _i, 0, &line), -ENODATA);
}
END_TEST

Suite *suite_hotspot_lines(void)
{
	Suite *s = suite_create("hotspot_lines");
	TCase *tc = tcase_create("lines");

	tcase_add_loop_test(tc, test_codings, 0, 2);
	tcase_add_loop_test(tc, test_cut, 0, 2);
	tcase_add_loop_test(tc, test_long_ints, 0, 2);
	tcase_add_loop_test(tc, test_odd, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
