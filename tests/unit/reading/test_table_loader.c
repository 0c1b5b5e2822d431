// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* probe-read's table sink without BPF: the paths where no store opens. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reading/table_loader.h"
#include "test_util.h"

/* A session without unwind pins (--unwind fp, or gone): every file fails
 * with the reason, nothing is opened, and freeing is clean. */
START_TEST(test_no_pins)
{
	char dir[] = "/tmp/pk-loader-XXXXXX", err[PK_ERR_LEN] = "";
	struct pk_unwind_file file = { .path = "/proc/self/exe", .key = { 1, 2 } };
	struct pk_table_loader *l;
	struct pk_table_sink sink;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	l = pk_table_loader_new(dir);
	ck_assert_ptr_nonnull(l);
	sink = pk_table_loader_sink(l);
	ck_assert_ptr_eq(sink.ctx, l);
	ck_assert_int_eq(sink.add(sink.ctx, &file, err), -ENOENT);
	ck_assert_msg(strstr(err, dir), "%s", err);
	/* The next file: still an error, with a reason. */
	err[0] = '\0';
	ck_assert_int_eq(sink.add(sink.ctx, &file, err), -ENOENT);
	ck_assert_str_ne(err, "");
	pk_table_loader_free(l);
	pk_table_loader_free(NULL);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Giving tables back: not before PK_TABLE_RECLAIM_S seconds from the first
 * tick, then once each; a store that cannot open fails once, with the
 * reason, and is not tried again. */
START_TEST(test_tick)
{
	char dir[] = "/tmp/pk-loader-XXXXXX", err[PK_ERR_LEN] = "";
	struct pk_table_loader *l;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	l = pk_table_loader_new(dir);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(pk_table_loader_tick(l, 1000.0, err), 0);
	ck_assert_int_eq(pk_table_loader_tick(l, 1000.0 + PK_TABLE_RECLAIM_S - 0.5, err), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(pk_table_loader_tick(l, 1000.0 + PK_TABLE_RECLAIM_S, err), -ENOENT);
	ck_assert_msg(strstr(err, dir), "%s", err);
	err[0] = '\0';
	ck_assert_int_eq(pk_table_loader_tick(l, 1000.0 + 3 * PK_TABLE_RECLAIM_S, err), 0);
	ck_assert_str_eq(err, "");
	pk_table_loader_free(l);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

Suite *suite_table_loader(void)
{
	Suite *s = suite_create("table_loader");
	TCase *tc = tcase_create("no_store");

	tcase_add_test(tc, test_no_pins);
	tcase_add_test(tc, test_tick);
	suite_add_tcase(s, tc);
	return s;
}
