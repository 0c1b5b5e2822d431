// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --keep and --keep-bytes (output/retention.c): the files an -o pattern
 * names, as a glob; the oldest of them removed beyond the bounds, never a
 * file just written nor one the pattern does not name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output/retention.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

START_TEST(test_glob)
{
	static const struct {
		const char *pattern, *glob;
	} cases[] = {
		{ "cpu-%Y%m%dT%H%M%S.pb.gz", "cpu-*T*.pb.gz" },
		{ "/var/lib/probekit/%F/%H.folded", "/var/lib/probekit/*/*.folded" },
		{ "prof-{event}-%s.folded", "prof-*-*.folded" },
		{ "100%%-%s", "100%-*" },
		{ "%Ey-%OH", "*-*" },
		{ "a[1]*?\\%s", "a\\[1\\]\\*\\?\\\\*" },
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(pk_retention_glob(cases[i].pattern, buf, sizeof(buf)), 0);
		ck_assert_str_eq(buf, cases[i].glob);
	}
	ck_assert_int_eq(pk_retention_glob("cpu-%", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(pk_retention_glob("", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(pk_retention_glob("cpu-%Y%m%d", buf, 5), -EINVAL);
}
END_TEST

static char dir[64];

/* NAME of SIZE bytes, modified AGE seconds ago. */
static void make_file(const char *name, size_t size, int age)
{
	struct timespec t[2];
	int fd = open(pk_test_path_in(dir, name), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age;
	t[1] = t[0];
	ck_assert_int_eq(futimens(fd, t), 0);
	close(fd);
}

static bool exists(const char *name)
{
	return access(pk_test_path_in(dir, name), F_OK) == 0;
}

/* --keep 2 of five: the three oldest go; what the pattern does not name
 * (another prefix, a directory that matches) stays. */
START_TEST(test_keep_files)
{
	struct pk_retention r = { .files = 2 };
	char pattern[128], err[PK_ERR_LEN];
	const char *patterns[] = { pattern }, *written[1];

	eh_tmpdir(dir, sizeof(dir));
	snprintf(pattern, sizeof(pattern), "%s/cpu-%%Y%%m%%dT%%H%%M%%S.folded", dir);
	for (int i = 0; i < 5; i++) {
		char name[64];

		snprintf(name, sizeof(name), "cpu-2026112%dT000000.folded", i);
		make_file(name, 10, 50 - i * 10);	/* 0 is the oldest */
	}
	make_file("other-20261120T000000.folded", 10, 100);
	ck_assert_int_eq(mkdir(pk_test_path_in(dir, "cpu-dirT.folded"), 0755), 0);
	written[0] = pk_test_path_in(dir, "cpu-20261124T000000.folded");
	ck_assert_int_eq(pk_retention_apply(patterns, 1, written, 1, &r, err), 3);
	ck_assert(!exists("cpu-20261120T000000.folded"));
	ck_assert(!exists("cpu-20261121T000000.folded"));
	ck_assert(!exists("cpu-20261122T000000.folded"));
	ck_assert(exists("cpu-20261123T000000.folded"));
	ck_assert(exists("cpu-20261124T000000.folded"));
	ck_assert(exists("other-20261120T000000.folded"));
	ck_assert(exists("cpu-dirT.folded"));
	/* at the bound: nothing more */
	ck_assert_int_eq(pk_retention_apply(patterns, 1, written, 1, &r, err), 0);
	eh_rmtree(dir);
}
END_TEST

/* --keep-bytes over two patterns together, the oldest first whichever
 * pattern; the files just written stay even above the bound. */
START_TEST(test_keep_bytes)
{
	struct pk_retention r = { .bytes = 250 };
	char p1[128], p2[128], err[PK_ERR_LEN];
	const char *patterns[] = { p1, p2 }, *written[2];

	eh_tmpdir(dir, sizeof(dir));
	snprintf(p1, sizeof(p1), "%s/a-%%s.pb.gz", dir);
	snprintf(p2, sizeof(p2), "%s/b-%%s.folded", dir);
	make_file("a-1.pb.gz", 100, 40);
	make_file("b-1.folded", 100, 35);
	make_file("a-2.pb.gz", 100, 20);
	make_file("b-2.folded", 100, 15);
	make_file("a-3.pb.gz", 100, 0);
	make_file("b-3.folded", 100, 0);
	written[0] = pk_test_path_in(dir, "a-3.pb.gz");
	written[1] = pk_test_path_in(dir, "b-3.folded");
	/* 600 bytes over 250: the four oldest go, 200 are left */
	ck_assert_int_eq(pk_retention_apply(patterns, 2, written, 2, &r, err), 4);
	ck_assert(!exists("a-1.pb.gz") && !exists("b-1.folded"));
	ck_assert(!exists("a-2.pb.gz") && !exists("b-2.folded"));
	ck_assert(exists("a-3.pb.gz") && exists("b-3.folded"));

	r.bytes = 50;	/* below what was just written: it is kept */
	ck_assert_int_eq(pk_retention_apply(patterns, 2, written, 2, &r, err), 0);
	ck_assert(exists("a-3.pb.gz") && exists("b-3.folded"));
	eh_rmtree(dir);
}
END_TEST

/* No file yet: nothing to do, no error. */
START_TEST(test_keep_nothing_yet)
{
	struct pk_retention r = { .files = 1, .bytes = 1 };
	char pattern[128], err[PK_ERR_LEN];
	const char *patterns[] = { pattern };

	eh_tmpdir(dir, sizeof(dir));
	snprintf(pattern, sizeof(pattern), "%s/cpu-%%s", dir);
	ck_assert_int_eq(pk_retention_apply(patterns, 1, NULL, 0, &r, err), 0);
	eh_rmtree(dir);
}
END_TEST

Suite *suite_retention(void)
{
	Suite *s = suite_create("retention");
	TCase *tc = tcase_create("glob");

	tcase_add_test(tc, test_glob);
	suite_add_tcase(s, tc);
	tc = tcase_create("apply");
	tcase_add_test(tc, test_keep_files);
	tcase_add_test(tc, test_keep_bytes);
	tcase_add_test(tc, test_keep_nothing_yet);
	suite_add_tcase(s, tc);
	return s;
}
