// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cache's bound (eh_frame/cache_bound.c): what the cache holds by kind,
 * and the least recently used files removed beyond the bound, a crashed
 * writer's temporary files first, never one being written nor the most
 * recently used; a table hit counts as a use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "test_eh_util.h"
#include "test_util.h"

#define KIB	1024ULL
#define LDSO	"/lib64/ld-linux-x86-64.so.2"

static char root[64];

/*
 * NAME with KIB_N KiB of data (written, not sparse: the bound counts what
 * the disk holds), modified MAGE and accessed AAGE seconds ago; its
 * folder made.
 */
static void put(const char *name, int kib_n, int mage, int aage)
{
	static char block[1024];
	struct timespec now, t[2];
	char dir[160], *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", pk_test_path_in(root, name));
	slash = strrchr(dir, '/');
	*slash = '\0';
	mkdir(dir, 0755);
	fd = open(pk_test_path_in(root, name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < kib_n; i++)
		ck_assert_int_eq(write(fd, block, sizeof(block)), sizeof(block));
	clock_gettime(CLOCK_REALTIME, &now);
	t[0] = t[1] = now;
	t[0].tv_sec -= aage;
	t[1].tv_sec -= mage;
	ck_assert_int_eq(futimens(fd, t), 0);
	close(fd);
}

static bool kept(const char *name)
{
	return access(pk_test_path_in(root, name), F_OK) == 0;
}

START_TEST(test_usage_by_kind)
{
	struct eh_cache_usage u;
	char err[PK_ERR_LEN];

	eh_tmpdir(root, sizeof(root));
	put("ab/cdef.unwind", 8, 10, 10);
	put("ab/cdef.locs", 4, 10, 10);
	put("12/3456.debug", 16, 10, 10);
	put("kernel/boot-1234.syms", 8, 10, 10);
	put("kernel/boot-1234-99.btf", 4, 10, 10);
	put("ab/cdef.unwind.tmp.abc123", 4, 10, 10);
	put("README", 4, 10, 10);
	ck_assert_int_eq(eh_cache_trim(root, 0, &u, err), 0);
	ck_assert_uint_eq(u.files[EH_CACHE_TABLES], 1);
	ck_assert_uint_eq(u.bytes[EH_CACHE_TABLES], 8 * KIB);
	ck_assert_uint_eq(u.files[EH_CACHE_LOCS], 1);
	ck_assert_uint_eq(u.files[EH_CACHE_DEBUG], 1);
	ck_assert_uint_eq(u.bytes[EH_CACHE_DEBUG], 16 * KIB);
	ck_assert_uint_eq(u.files[EH_CACHE_KERNEL], 2);
	ck_assert_uint_eq(u.bytes[EH_CACHE_KERNEL], 12 * KIB);
	ck_assert_uint_eq(u.files[EH_CACHE_TEMP], 1);
	ck_assert_uint_eq(u.files[EH_CACHE_OTHER], 1);
	ck_assert_uint_eq(u.total_files, 7);
	ck_assert_uint_eq(u.total_bytes, 48 * KIB);
	ck_assert_uint_eq(u.removed_files, 0);	/* no bound: nothing goes */
	eh_rmtree(root);
}
END_TEST

/* Five tables and a .locs, 8 KiB each, the bound 20 KiB: the least
 * recently used go, the later of access and modification being the use. */
START_TEST(test_least_recently_used_go)
{
	struct eh_cache_usage u;
	char err[PK_ERR_LEN];

	eh_tmpdir(root, sizeof(root));
	put("01/a.unwind", 8, 500, 500);
	put("02/b.unwind", 8, 400, 10);		/* read a moment ago: kept */
	put("03/c.unwind", 8, 300, 300);
	put("04/d.locs", 8, 200, 200);
	put("05/e.unwind", 8, 100, 100);
	put("06/f.unwind", 8, 50, 50);
	ck_assert_int_eq(eh_cache_trim(root, 20 * KIB, &u, err), 0);
	ck_assert_uint_eq(u.removed_files, 4);
	ck_assert_uint_eq(u.removed_bytes, 32 * KIB);
	ck_assert_uint_eq(u.total_bytes, 16 * KIB);
	ck_assert(!kept("01/a.unwind") && !kept("03/c.unwind") && !kept("04/d.locs") &&
		  !kept("05/e.unwind"));
	ck_assert(kept("02/b.unwind") && kept("06/f.unwind"));
	/* within the bound now: nothing more */
	ck_assert_int_eq(eh_cache_trim(root, 20 * KIB, &u, err), 0);
	ck_assert_uint_eq(u.removed_files, 0);
	eh_rmtree(root);
}
END_TEST

/* A temporary file an hour old or more is a crashed writer's: it goes
 * first. A younger one is being written: it stays, as does the most
 * recently used file, though the two alone are above the bound. */
START_TEST(test_temporary_and_newest)
{
	struct eh_cache_usage u;
	char err[PK_ERR_LEN];

	eh_tmpdir(root, sizeof(root));
	put("01/a.unwind.tmp.old123", 4, 7200, 1);
	put("02/b.locs.tmp.new123", 4, 5, 5);
	put("03/c.unwind", 8, 100, 100);
	put("04/d.unwind", 16, 10, 10);
	ck_assert_int_eq(eh_cache_trim(root, 4 * KIB, &u, err), 0);
	ck_assert(!kept("01/a.unwind.tmp.old123") && !kept("03/c.unwind"));
	ck_assert(kept("02/b.locs.tmp.new123") && kept("04/d.unwind"));
	ck_assert_uint_eq(u.removed_files, 2);
	ck_assert_uint_eq(u.total_bytes, 20 * KIB);
	eh_rmtree(root);
}
END_TEST

/* A table taken from the cache is used: its access time moves, so that
 * the bound keeps it over a table built later but not used since. */
START_TEST(test_hit_is_a_use)
{
	struct eh_cache_opts opts = { .sz = sizeof(opts) };
	char file[4096], err[PK_ERR_LEN];
	struct stat before, after;

	eh_tmpdir(root, sizeof(root));
	opts.cache_dir = root;
	ck_assert_int_eq(eh_cache_get(LDSO, &opts, NULL, file, sizeof(file), err),
			 EH_CACHE_BUILT);
	/* as if built a day ago and not read since */
	ck_assert_int_eq(utimensat(AT_FDCWD, file, (struct timespec[]){
			{ .tv_sec = time(NULL) - 86400 }, { .tv_sec = time(NULL) - 86400 } }, 0), 0);
	ck_assert_int_eq(stat(file, &before), 0);
	ck_assert_int_eq(eh_cache_get(LDSO, &opts, NULL, NULL, 0, err),
			 EH_CACHE_HIT);
	ck_assert_int_eq(stat(file, &after), 0);
	ck_assert_int_ge(after.st_atim.tv_sec, time(NULL) - 60);
	ck_assert_int_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
	eh_rmtree(root);
}
END_TEST

Suite *suite_cache_bound(void)
{
	Suite *s = suite_create("cache_bound");
	TCase *tc = tcase_create("trim");

	tcase_add_test(tc, test_usage_by_kind);
	tcase_add_test(tc, test_least_recently_used_go);
	tcase_add_test(tc, test_temporary_and_newest);
	tcase_add_test(tc, test_hit_is_a_use);
	suite_add_tcase(s, tc);
	return s;
}
