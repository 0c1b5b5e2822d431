// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "lib/util/strbuf.h"
#include "test_util.h"

START_TEST(test_append)
{
	struct pk_strbuf b = { 0 };
	char *s;

	pk_strbuf_puts(&b, "ab");
	pk_strbuf_putn(&b, "cdef", 2);
	pk_strbuf_putn(&b, NULL, 0);
	for (int i = 0; i < 1000; i++)
		pk_strbuf_puts(&b, "x");
	s = pk_strbuf_finish(&b);
	ck_assert_uint_eq(strlen(s), 1004);
	ck_assert_int_eq(strncmp(s, "abcdxx", 6), 0);
	free(s);
	ck_assert_ptr_eq(b.s, NULL);
	/* Nothing added: an empty string, not NULL (NULL means failure). */
	s = pk_strbuf_finish(&b);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

START_TEST(test_failure_sticks)
{
	struct pk_strbuf b = { 0 };

	pk_strbuf_puts(&b, "ok");
	b.failed = true;
	pk_strbuf_puts(&b, "more");
	ck_assert_ptr_eq(pk_strbuf_finish(&b), NULL);
}
END_TEST

/* The buffer (64 bytes first, doubled, its NUL included) at the edges of
 * its growth: strings of 0, 1, 62, 63 (exactly full with the NUL), 64,
 * 127, 128 and 129 bytes, put at once and byte by byte, after 0 or 1 byte
 * already there. */
START_TEST(test_growth_edges)
{
	static const size_t lens[] = { 0, 1, 62, 63, 64, 127, 128, 129 };
	char want[200];

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (size_t before = 0; before < 2; before++)
			for (int bytewise = 0; bytewise < 2; bytewise++) {
				struct pk_strbuf b = { 0 };
				size_t n = lens[i];
				char *s;

				memset(want, 'a', before);
				for (size_t k = 0; k < n; k++)
					want[before + k] = (char)('b' + k % 20);
				want[before + n] = '\0';
				pk_strbuf_putn(&b, want, before);
				if (bytewise)
					for (size_t k = 0; k < n; k++)
						pk_strbuf_putn(&b, want + before + k, 1);
				else
					pk_strbuf_putn(&b, want + before, n);
				ck_assert(!b.failed);
				ck_assert_uint_eq(b.len, before + n);
				ck_assert_uint_gt(b.cap, b.len);	/* room for the NUL */
				s = pk_strbuf_finish(&b);
				ck_assert_ptr_nonnull(s);
				ck_assert_str_eq(s, want);
				free(s);
			}
}
END_TEST

Suite *suite_strbuf(void)
{
	Suite *s = suite_create("strbuf");
	TCase *tc = tcase_create("buf");

	tcase_add_test(tc, test_append);
	tcase_add_test(tc, test_failure_sticks);
	tcase_add_test(tc, test_growth_edges);
	suite_add_tcase(s, tc);
	return s;
}
