// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/util/array.h"
#include "test_util.h"

START_TEST(test_first_allocation)
{
	int *v = NULL, *before;
	size_t cap = 0;

	ck_assert_int_eq(pk_array_reserve((void **)&v, &cap, sizeof(*v), 1, 16), 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(cap, 16);
	v[15] = 1;
	/* room enough: nothing moves */
	before = v;
	ck_assert_int_eq(pk_array_reserve((void **)&v, &cap, sizeof(*v), 16, 16), 0);
	ck_assert_ptr_eq(v, before);
	ck_assert_uint_eq(cap, 16);
	free(v);
}
END_TEST

START_TEST(test_doubling)
{
	int *v = NULL;
	size_t cap = 0, n;

	for (n = 0; n < 1000; n++) {
		ck_assert_int_eq(pk_array_reserve((void **)&v, &cap, sizeof(*v), n + 1, 256), 0);
		v[n] = (int)n;
	}
	/* 256, 512, 1024: one more than full doubles, never more */
	ck_assert_uint_eq(cap, 1024);
	for (n = 0; n < 1000; n++)
		ck_assert_int_eq(v[n], (int)n);
	free(v);

	/* a capacity that is not a power of two doubles from itself */
	v = malloc(3 * sizeof(*v));
	ck_assert_ptr_nonnull(v);
	cap = 3;
	ck_assert_int_eq(pk_array_reserve((void **)&v, &cap, sizeof(*v), 4, 256), 0);
	ck_assert_uint_eq(cap, 6);
	free(v);
}
END_TEST

START_TEST(test_need_beyond_double)
{
	char *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(pk_array_reserve((void **)&v, &cap, 1, 1000, 64), 0);
	ck_assert_uint_eq(cap, 1024);
	v[999] = 'x';
	ck_assert_int_eq(pk_array_reserve((void **)&v, &cap, 1, 5000, 64), 0);
	ck_assert_uint_eq(cap, 8192);
	ck_assert_int_eq(v[999], 'x');
	free(v);
}
END_TEST

START_TEST(test_overflow_refused)
{
	int *v = NULL;
	size_t cap = 0;
	void *before;

	/* NEED * ELEM_SIZE past SIZE_MAX */
	ck_assert_int_eq(pk_array_reserve((void **)&v, &cap, sizeof(*v), SIZE_MAX / 2, 16),
			 -ENOMEM);
	ck_assert_ptr_null(v);
	ck_assert_uint_eq(cap, 0);

	ck_assert_int_eq(pk_array_reserve((void **)&v, &cap, sizeof(*v), 4, 16), 0);
	before = v;
	/* the doubling itself past SIZE_MAX */
	ck_assert_int_eq(pk_array_reserve((void **)&v, &cap, 1, SIZE_MAX, 16), -ENOMEM);
	ck_assert_ptr_eq(v, before);
	ck_assert_uint_eq(cap, 16);
	ck_assert_int_eq(pk_array_reserve((void **)&v, &cap, sizeof(*v), SIZE_MAX / 4 + 1, 16),
			 -ENOMEM);
	ck_assert_ptr_eq(v, before);
	ck_assert_uint_eq(cap, 16);
	free(v);
}
END_TEST

Suite *suite_array(void)
{
	Suite *s = suite_create("array");
	TCase *tc = tcase_create("reserve");

	tcase_add_test(tc, test_first_allocation);
	tcase_add_test(tc, test_doubling);
	tcase_add_test(tc, test_need_beyond_double);
	tcase_add_test(tc, test_overflow_refused);
	suite_add_tcase(s, tc);
	return s;
}
