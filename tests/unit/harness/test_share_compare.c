// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The distribution comparison of the stack oracle, on counts whose standard
 * errors are worked out by hand in the comments. */
#include <errno.h>
#include <string.h>

#include "harness/share_compare.h"
#include "test_util.h"

#define EPS 1e-12

static const struct sc_row *row_of(const struct sc_result *r, const char *stack)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].stack, stack))
			return &r->rows[i];
	ck_abort_msg("no row for %s", stack);
	return NULL;
}

/* Equal halves of 200 samples each: p = 0.5, SE = sqrt(0.25 * 2/200) = 0.05. */
START_TEST(test_equal_distributions)
{
	const struct sc_count a[] = { { "c;x", 100 }, { "c;y", 100 } };
	const struct sc_count b[] = { { "c;y", 60 }, { "c;x", 100 }, { "c;y", 40 } };
	struct sc_result r;
	const struct sc_row *x;

	ck_assert_int_eq(sc_compare(a, 2, b, 3, 0.05, 4, &r), 0);
	ck_assert_uint_eq(r.nrows, 2);
	ck_assert_uint_eq(r.total_a, 200);
	ck_assert_uint_eq(r.total_b, 200);
	x = row_of(&r, "c;y");
	ck_assert_uint_eq(x->a, 100);
	ck_assert_uint_eq(x->b, 100);	/* listed twice: summed */
	ck_assert_double_eq_tol(x->share_b, 0.5, EPS);
	ck_assert_double_eq_tol(x->tolerance, 0.2, EPS);
	ck_assert(x->significant && x->agree);
	ck_assert_uint_eq(r.disagree, 0);
	ck_assert_double_eq_tol(r.only_a, 0, EPS);
	ck_assert_double_eq_tol(r.only_b, 0, EPS);
	sc_result_free(&r);
}
END_TEST

/* 75/25 against 50/50 of 400 each: p = 0.625,
 * 4 SE = 4 sqrt(0.625 * 0.375 * 2/400) = 0.136931; 0.25 apart. */
START_TEST(test_shifted_distribution_disagrees)
{
	const struct sc_count a[] = { { "c;x", 300 }, { "c;y", 100 } };
	const struct sc_count b[] = { { "c;x", 200 }, { "c;y", 200 } };
	struct sc_result r;

	ck_assert_int_eq(sc_compare(a, 2, b, 2, 0.05, 4, &r), 0);
	ck_assert_double_eq_tol(row_of(&r, "c;x")->tolerance, 0.1369306393762915, EPS);
	ck_assert(!row_of(&r, "c;x")->agree);
	ck_assert(!row_of(&r, "c;y")->agree);
	ck_assert_uint_eq(r.disagree, 2);
	/* largest share first */
	ck_assert_str_eq(r.rows[0].stack, "c;x");
	sc_result_free(&r);
}
END_TEST

/* A stack at 6% on one side and 3% on the other is significant and judged by
 * its tolerance (p = 0.045: 4 SE = 0.117); one at 2% and 0% is minor. A
 * stack one side never saw counts towards that side's one-sided share. */
START_TEST(test_threshold_and_one_sided)
{
	const struct sc_count a[] = { { "c;x", 92 }, { "c;z", 6 }, { "c;rare", 2 } };
	const struct sc_count b[] = { { "c;x", 94 }, { "c;z", 3 }, { "c;other", 3 } };
	struct sc_result r;
	const struct sc_row *z, *rare;

	ck_assert_int_eq(sc_compare(a, 3, b, 3, 0.05, 4, &r), 0);
	z = row_of(&r, "c;z");
	ck_assert(z->significant && z->agree);
	ck_assert_double_eq_tol(z->tolerance, 0.1172689217141524, EPS);
	rare = row_of(&r, "c;rare");
	ck_assert(!rare->significant);
	ck_assert_double_eq_tol(r.only_a, 0.02, EPS);
	ck_assert_double_eq_tol(r.only_b, 0.03, EPS);
	ck_assert_uint_eq(r.disagree, 0);
	sc_result_free(&r);
}
END_TEST

START_TEST(test_empty_side)
{
	const struct sc_count a[] = { { "c;x", 5 } };
	struct sc_result r;

	ck_assert_int_eq(sc_compare(a, 1, NULL, 0, 0.05, 4, &r), -EINVAL);
	sc_result_free(&r);
}
END_TEST

Suite *suite_share_compare(void)
{
	Suite *s = suite_create("share_compare");
	TCase *tc = tcase_create("shares");

	tcase_add_test(tc, test_equal_distributions);
	tcase_add_test(tc, test_shifted_distribution_disagrees);
	tcase_add_test(tc, test_threshold_and_one_sided);
	tcase_add_test(tc, test_empty_side);
	suite_add_tcase(s, tc);
	return s;
}
