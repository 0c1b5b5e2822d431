// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

#include "lib/util/text.h"
#include "test_util.h"

START_TEST(test_hexval)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < 16; i++) {
		ck_assert_int_eq(pk_hexval_lower(digits[i]), i);
		ck_assert_int_eq(pk_hexval(digits[i]), i);
	}
	for (int i = 10; i < 16; i++) {
		ck_assert_int_eq(pk_hexval('A' + i - 10), i);
		ck_assert_int_eq(pk_hexval_lower('A' + i - 10), -1);	/* not ours */
	}
	for (const char *c = "gG/:@`x \0"; *c; c++) {
		ck_assert_int_eq(pk_hexval(*c), -1);
		ck_assert_int_eq(pk_hexval_lower(*c), -1);
	}
	ck_assert_int_eq(pk_hexval('\0'), -1);
}
END_TEST

START_TEST(test_base_name)
{
	ck_assert_str_eq(pk_base_name("/usr/lib/libc.so.6"), "libc.so.6");
	ck_assert_str_eq(pk_base_name("libc.so.6"), "libc.so.6");
	ck_assert_str_eq(pk_base_name("dir/"), "");
	ck_assert_str_eq(pk_base_name("[vdso]"), "[vdso]");
}
END_TEST

Suite *suite_text(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, test_hexval);
	tcase_add_test(tc, test_base_name);
	suite_add_tcase(s, tc);
	return s;
}
