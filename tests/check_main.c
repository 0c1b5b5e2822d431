// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one check runner behind `make check`. Suites are collected from the
 * `Suite *suite_NAME(void)` definitions in tests/ (see GNUmakefile), so a
 * new test file needs no edit here. CK_RUN_SUITE=NAME / CK_RUN_CASE=NAME
 * select a part, as everywhere with check.
 */
#include <check.h>
#include <stdlib.h>

#define PK_SUITE(name) Suite *suite_##name(void);
#include "tests/suites.h"
#undef PK_SUITE

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

#define PK_SUITE(name) srunner_add_suite(sr, suite_##name());
#include "tests/suites.h"
#undef PK_SUITE

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
