#include "test_util.h"
START_TEST(test_smoke) { ck_assert_int_eq(1, 1); }
END_TEST
Suite *suite_smoke(void)
{
	Suite *s = suite_create("smoke");
	TCase *tc = tcase_create("smoke");
	tcase_add_test(tc, test_smoke);
	suite_add_tcase(s, tc);
	return s;
}
