// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

#include "lib/util/strpool.h"
#include "test_util.h"

START_TEST(test_strings_stay)
{
	struct pk_strpool pool = { 0 };
	const char *first = pk_strpool_add(&pool, "first");
	const char *part = pk_strpool_addn(&pool, "partial-xyz", 7);
	const char *fmt = pk_strpool_printf(&pool, "[%s+0x%x]", "libc.so.6", 0x1a2b);
	const char *many[5000];
	char big[100000];

	/* Enough to need more chunks; earlier strings do not move. */
	for (int i = 0; i < 5000; i++)
		many[i] = pk_strpool_printf(&pool, "name-%d", i);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_str_eq(pk_strpool_add(&pool, big), big);
	ck_assert_uint_eq(strlen(pk_strpool_printf(&pool, "%s%s", big, "!")), sizeof(big));
	ck_assert_str_eq(first, "first");
	ck_assert_str_eq(part, "partial");
	ck_assert_str_eq(fmt, "[libc.so.6+0x1a2b]");
	ck_assert_str_eq(many[0], "name-0");
	ck_assert_str_eq(many[4999], "name-4999");
	ck_assert_str_eq(pk_strpool_add(&pool, ""), "");
	pk_strpool_free(&pool);
	pk_strpool_free(&pool);	/* twice is harmless */
}
END_TEST

Suite *suite_strpool(void)
{
	Suite *s = suite_create("strpool");
	TCase *tc = tcase_create("pool");

	tcase_add_test(tc, test_strings_stay);
	suite_add_tcase(s, tc);
	return s;
}
