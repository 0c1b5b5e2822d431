// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdint.h>

#include "lib/util/u64map.h"
#include "test_util.h"

START_TEST(test_put_get_replace)
{
	struct pk_u64map m = { 0 };
	int a, b;

	ck_assert_ptr_eq(pk_u64map_get(&m, 1), NULL);	/* empty */
	ck_assert_int_eq(pk_u64map_put(&m, 0, &a), 0);	/* key 0 is a key */
	ck_assert_int_eq(pk_u64map_put(&m, ~0ULL, &b), 0);
	ck_assert_ptr_eq(pk_u64map_get(&m, 0), &a);
	ck_assert_ptr_eq(pk_u64map_get(&m, ~0ULL), &b);
	ck_assert_int_eq(pk_u64map_put(&m, 0, &b), 0);
	ck_assert_ptr_eq(pk_u64map_get(&m, 0), &b);
	ck_assert_uint_eq(m.n, 2);
	pk_u64map_free(&m);
}
END_TEST

/* A key there already is given its new value in place, even with the
 * map at the size where one more key would make it grow. */
START_TEST(test_replace_allocates_nothing)
{
	struct pk_u64map m = { 0 };
	size_t cap;

	for (uintptr_t i = 1; 2 * (m.n + 1) <= m.cap || !m.cap; i++)
		ck_assert_int_eq(pk_u64map_put(&m, i, (void *)i), 0);
	cap = m.cap;
	ck_assert_uint_gt(2 * (m.n + 1), cap);		/* one more key grows it */
	for (uintptr_t i = 1; i <= m.n; i++)
		ck_assert_int_eq(pk_u64map_put(&m, i, (void *)(i + 7)), 0);
	ck_assert_uint_eq(m.cap, cap);
	for (uintptr_t i = 1; i <= m.n; i++)
		ck_assert_ptr_eq(pk_u64map_get(&m, i), (void *)(i + 7));
	pk_u64map_free(&m);
}
END_TEST

START_TEST(test_growth)
{
	struct pk_u64map m = { 0 };

	/* Keys with the same low bits and sequential ones. */
	for (uintptr_t i = 1; i <= 20000; i++) {
		ck_assert_int_eq(pk_u64map_put(&m, i << 32, (void *)i), 0);
		ck_assert_int_eq(pk_u64map_put(&m, i, (void *)(i + 1)), 0);
	}
	ck_assert_uint_eq(m.n, 40000);
	for (uintptr_t i = 1; i <= 20000; i++) {
		ck_assert_ptr_eq(pk_u64map_get(&m, i << 32), (void *)i);
		ck_assert_ptr_eq(pk_u64map_get(&m, i), (void *)(i + 1));
	}
	ck_assert_ptr_eq(pk_u64map_get(&m, 20001), NULL);
	pk_u64map_free(&m);
}
END_TEST

Suite *suite_u64map(void)
{
	Suite *s = suite_create("u64map");
	TCase *tc = tcase_create("map");

	tcase_add_test(tc, test_put_get_replace);
	tcase_add_test(tc, test_replace_allocates_nothing);
	tcase_add_test(tc, test_growth);
	suite_add_tcase(s, tc);
	return s;
}
