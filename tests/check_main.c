// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one check runner behind `make check`. Suites are collected from the
 * `Suite *suite_NAME(void)` definitions in tests/ (see GNUmakefile), so a
 * new test file needs no edit here. CK_RUN_SUITE=NAME / CK_RUN_CASE=NAME
 * select a part, as everywhere with check.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "test_util.h"

#define PK_SUITE(name) Suite *suite_##name(void);
#include "tests/suites.h"
#undef PK_SUITE

/*
 * Run after every suite, as its last case (dev_null_after_SUITE): a tool
 * that replaces files, given /dev/null as its output, leaves a regular file
 * there, and the machine's shells and apt fail on it long after the suite
 * that did it. The device is made again, so that the rest of the run and
 * the machine work, and the case fails, naming the suite.
 */
START_TEST(test_dev_null_intact)
{
	struct stat st = { 0 };
	bool ok = stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) &&
		  st.st_rdev == makedev(1, 3) && (st.st_mode & 07777) == 0666;

	if (!ok && geteuid() == 0) {
		unlink("/dev/null");
		if (mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3)) == 0)
			chmod("/dev/null", 0666);
	}
	ck_assert_msg(ok, "/dev/null is no longer the character device 1:3, mode 0666 "
		      "(mode %o, device %u:%u): a case of this suite replaced it",
		      st.st_mode, major(st.st_rdev), minor(st.st_rdev));
}
END_TEST

static Suite *with_dev_null_guard(Suite *s, const char *tcase_name)
{
	TCase *tc = tcase_create(tcase_name);

	tcase_add_test(tc, test_dev_null_intact);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	/*
	 * check's default timeout, 4 s, is a hang guard, not a measure: a
	 * case that takes milliseconds (a stat of /dev/null, a parse) took
	 * over 4 s beside two more make checks and a CPU burner (20 errors
	 * in one such run). 30 s still ends a hang; a case that needs more
	 * sets its own, and CK_DEFAULT_TIMEOUT, when given, wins. Set before
	 * the suites are made: tcase_create() reads it.
	 */
	setenv("CK_DEFAULT_TIMEOUT", "30", 0);
	sr = srunner_create(NULL);

#define PK_SUITE(name) \
	srunner_add_suite(sr, with_dev_null_guard(suite_##name(), "dev_null_after_" #name));
#include "tests/suites.h"
#undef PK_SUITE

	pk_test_cache_begin();
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	pk_test_cache_end();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
