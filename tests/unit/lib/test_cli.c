// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lib/cli.c: the one line a program says at its end when the cache could
 * not be written (pk_cli_cache_done), from the failures the cache
 * counted in this process: each test runs in a process of its own (check
 * forks), which starts with none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/eh_table.h"
#include "lib/cli.h"
#include "test_util.h"

/* pk_cli_cache_done("prog", ...) prints WANT now. */
static void expect_line(const char *want)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	pk_cli_cache_done("prog", NULL, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(text, want);
	free(text);
}

START_TEST(test_cache_unsaved_line)
{
	char err[PK_ERR_LEN];
	struct eh_cache_unsaved u;

	eh_cache_unsaved(&u);
	ck_assert_msg(u.writes == 0, "the test needs a process of its own (CK_FORK=yes)");
	expect_line("");		/* nothing failed: nothing said */
	ck_assert_int_eq(eh_cache_write("/nonexistent-pk/a/file", "x", 1, err), -ENOENT);
	expect_line("prog: cache not written: /nonexistent-pk/a: No such file or directory "
		    "(1 failed write): used from memory, made again by the next session\n");
	/* the first failure names the place; the others are counted */
	ck_assert_int_eq(eh_cache_mkdirs("/proc/self/status/b/file", err), -ENOTDIR);
	ck_assert_int_eq(eh_cache_write("/nonexistent-pk/c/file", "x", 1, err), -ENOENT);
	expect_line("prog: cache not written: /nonexistent-pk/a: No such file or directory "
		    "(3 failed writes): used from memory, made again by the next session\n");
}
END_TEST

/* PROBEKIT_CACHE_MAX that is no size: a usage error before any work. */
START_TEST(test_cache_max_check)
{
	unsigned long long max;

	unsetenv(EH_CACHE_MAX_ENV);
	ck_assert_int_eq(pk_cli_cache_check("prog"), 0);
	ck_assert_int_eq(eh_cache_max(&max), 0);
	ck_assert_uint_eq(max, 1ULL << 30);
	setenv(EH_CACHE_MAX_ENV, "3M", 1);
	ck_assert_int_eq(pk_cli_cache_check("prog"), 0);
	ck_assert_int_eq(eh_cache_max(&max), 0);
	ck_assert_uint_eq(max, 3 << 20);
	setenv(EH_CACHE_MAX_ENV, "3 MB", 1);
	ck_assert_int_eq(pk_cli_cache_check("prog"), PK_EXIT_USAGE);
	ck_assert_int_eq(eh_cache_max(&max), -EINVAL);
	unsetenv(EH_CACHE_MAX_ENV);
}
END_TEST

Suite *suite_cli(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cache_unsaved");

	tcase_add_test(tc, test_cache_unsaved_line);
	tcase_add_test(tc, test_cache_max_check);
	suite_add_tcase(s, tc);
	return s;
}
