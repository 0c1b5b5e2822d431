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

Suite *suite_strbuf(void)
{
	Suite *s = suite_create("strbuf");
	TCase *tc = tcase_create("buf");

	tcase_add_test(tc, test_append);
	tcase_add_test(tc, test_failure_sticks);
	suite_add_tcase(s, tc);
	return s;
}
