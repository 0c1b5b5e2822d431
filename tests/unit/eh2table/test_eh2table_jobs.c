// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* eh2table's work on lists of files, in process: keys, order, failures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eh2table/eh2table_jobs.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

START_TEST(test_key_from_cache_path)
{
	char key[160];

	pk_eh2table_key_from_cache_path("/var/cache/probekit/93/ac61ec5a8e.unwind", key, sizeof(key));
	ck_assert_str_eq(key, "93ac61ec5a8e");
	pk_eh2table_key_from_cache_path("/c/nb/0123456789abcdef.unwind", key, sizeof(key));
	ck_assert_str_eq(key, "nb-0123456789abcdef");
	pk_eh2table_key_from_cache_path("relative/ab/cd.unwind", key, sizeof(key));
	ck_assert_str_eq(key, "abcd");
}
END_TEST

/* Lines in argument order whatever the number of workers; the failing
 * file's line goes to ERR only; the count of failures is returned. */
START_TEST(test_run_order_and_failures)
{
	char dir[] = "/tmp/pk-jobs-XXXXXX", f[3][4096], *out_buf = NULL, *err_buf = NULL;
	const char *files[5];
	struct eh_cache_opts opts = { .sz = sizeof(opts) };
	size_t out_len, err_len;
	FILE *out, *err;
	char *line;
	int k = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	opts.cache_dir = dir;
	pk_test_build_path("oracle/cfi_c-gcc-O0", f[0], sizeof(f[0]));
	pk_test_build_path("oracle/cfi_cxx-clang-O2", f[1], sizeof(f[1]));
	pk_test_build_path("oracle/cfi_asm-gcc", f[2], sizeof(f[2]));
	files[0] = f[0];
	files[1] = "/nonexistent/a.so";
	files[2] = f[1];
	files[3] = f[2];
	files[4] = f[0];
	out = open_memstream(&out_buf, &out_len);
	err = open_memstream(&err_buf, &err_len);
	ck_assert_int_eq(pk_eh2table_run(files, 5, (unsigned int)_i, &opts, out, err), 1);
	fclose(out);
	fclose(err);
	ck_assert_str_eq(err_buf, "eh2table: /nonexistent/a.so: cannot open: No such file or directory\n");
	/* the good files, in order: 0, 2, 3, 4 */
	for (line = out_buf; *line; line = strchr(line, '\n') + 1, k++) {
		char buf[8192];

		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(line, "\n"), line);
		ck_assert_str_eq(strrchr(buf, ' ') + 1, files[k < 1 ? 0 : k + 1]);
	}
	ck_assert_int_eq(k, 4);
	free(out_buf);
	free(err_buf);
	eh_rmtree(dir);
}
END_TEST

Suite *suite_eh2table_jobs(void)
{
	Suite *s = suite_create("eh2table_jobs");
	TCase *tc = tcase_create("jobs");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_key_from_cache_path);
	/* 1 (no threads), 2, 4 and more workers than files */
	tcase_add_loop_test(tc, test_run_order_and_failures, 1, 3);
	tcase_add_loop_test(tc, test_run_order_and_failures, 4, 5);
	tcase_add_loop_test(tc, test_run_order_and_failures, 8, 9);
	suite_add_tcase(s, tc);
	return s;
}
