// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The processes' roots (symbolization/proc_roots.c), on a fake /proc whose
 * PID/root links name directories the test makes: another root's debug
 * directory added once, held open when the root is moved away; our own
 * root, a root seen already, one without debug files and a process gone
 * add nothing; the caller's directories first; the bound.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolization/proc_roots.h"
#include "test_util.h"

static char tmp[64];

static void make_dirs(const char *rel)
{
	char path[4096], *p;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	for (p = path + strlen(tmp) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		ck_assert_msg(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s", path);
		*p = '/';
	}
	ck_assert_msg(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s", path);
}

/* tmp/proc/PID/root -> TARGET (absolute, or under tmp) */
static void root_link(int pid, const char *target)
{
	char dir[64], link[4096], to[4096];

	snprintf(dir, sizeof(dir), "proc/%d", pid);
	make_dirs(dir);
	snprintf(link, sizeof(link), "%s/proc/%d/root", tmp, pid);
	if (target[0] == '/')
		snprintf(to, sizeof(to), "%s", target);
	else
		snprintf(to, sizeof(to), "%s/%s", tmp, target);
	ck_assert_int_eq(symlink(to, link), 0);
}

static struct pk_proc_roots *fake_roots(const char *const *dirs, size_t n)
{
	char proc[128];
	struct pk_proc_roots *r;

	snprintf(proc, sizeof(proc), "%s/proc", tmp);
	r = pk_proc_roots_new(proc, dirs, n);
	ck_assert_ptr_nonnull(r);
	return r;
}

static void same_dir(const char *a, const char *b_rel)
{
	struct stat x, y;
	char b[4096];

	snprintf(b, sizeof(b), "%s/%s", tmp, b_rel);
	ck_assert_msg(stat(a, &x) == 0, "%s: %m", a);
	ck_assert_msg(stat(b, &y) == 0, "%s: %m", b);
	ck_assert(x.st_dev == y.st_dev && x.st_ino == y.st_ino);
}

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/pk-roots-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_other_root_once)
{
	char from[96], to[96];
	struct pk_proc_roots *r;
	const char *const *dirs;
	size_t n;

	make_dirs("a/usr/lib/debug/.build-id");
	make_dirs("b/usr/bin");
	root_link(100, "a");
	root_link(101, "a");		/* the same root, another process */
	root_link(102, "b");		/* no debug files */
	root_link(103, "/");		/* ours */
	r = fake_roots(NULL, 0);
	dirs = pk_proc_roots_dirs(r, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(dirs[0], "/usr/lib/debug");
	ck_assert_int_eq(pk_proc_roots_see(r, 100), 1);
	ck_assert_int_eq(pk_proc_roots_see(r, 101), 0);
	ck_assert_int_eq(pk_proc_roots_see(r, 100), 0);
	ck_assert_int_eq(pk_proc_roots_see(r, 102), 0);
	ck_assert_int_eq(pk_proc_roots_see(r, 103), 0);
	ck_assert_int_eq(pk_proc_roots_see(r, 104), 0);	/* gone */
	dirs = pk_proc_roots_dirs(r, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(dirs[0], "/usr/lib/debug");
	ck_assert_msg(!strncmp(dirs[1], "/proc/self/fd/", 14), "%s", dirs[1]);
	same_dir(dirs[1], "a/usr/lib/debug");
	/* the process gone and its root moved: still the same directory */
	snprintf(from, sizeof(from), "%s/a", tmp);
	snprintf(to, sizeof(to), "%s/moved", tmp);
	ck_assert_int_eq(rename(from, to), 0);
	same_dir(dirs[1], "moved/usr/lib/debug");
	pk_proc_roots_free(r);
}
END_TEST

/* A root kept in the session while its process lived, seen by its
 * directory once the process is gone (pk_proc_roots_see_dir): added once,
 * whether seen by a process first or by its directory; a directory that
 * is not there, or ours, adds nothing. */
START_TEST(test_root_by_dir)
{
	struct pk_proc_roots *r;
	const char *const *dirs;
	char a[96], b[96], none[96];
	size_t n;

	make_dirs("a/usr/lib/debug");
	make_dirs("b/usr/lib/debug");
	root_link(200, "b");
	snprintf(a, sizeof(a), "%s/a", tmp);
	snprintf(b, sizeof(b), "%s/b", tmp);
	snprintf(none, sizeof(none), "%s/none", tmp);
	r = fake_roots(NULL, 0);
	ck_assert_int_eq(pk_proc_roots_see_dir(r, a), 1);
	ck_assert_int_eq(pk_proc_roots_see_dir(r, a), 0);
	ck_assert_int_eq(pk_proc_roots_see(r, 200), 1);
	ck_assert_int_eq(pk_proc_roots_see_dir(r, b), 0);	/* seen through 200 */
	ck_assert_int_eq(pk_proc_roots_see_dir(r, none), 0);
	ck_assert_int_eq(pk_proc_roots_see_dir(r, "/"), 0);
	dirs = pk_proc_roots_dirs(r, &n);
	ck_assert_uint_eq(n, 3);
	same_dir(dirs[1], "a/usr/lib/debug");
	same_dir(dirs[2], "b/usr/lib/debug");
	pk_proc_roots_free(r);
}
END_TEST

/* --debug-dir's directories stay first, in their order */
START_TEST(test_caller_dirs_first)
{
	static const char *const mine[] = { "/x/debug", "/y/debug" };
	struct pk_proc_roots *r;
	const char *const *dirs;
	size_t n;

	make_dirs("a/usr/lib/debug");
	root_link(7, "a");
	r = fake_roots(mine, 2);
	ck_assert_int_eq(pk_proc_roots_see(r, 7), 1);
	dirs = pk_proc_roots_dirs(r, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(dirs[0], "/x/debug");
	ck_assert_str_eq(dirs[1], "/y/debug");
	same_dir(dirs[2], "a/usr/lib/debug");
	pk_proc_roots_free(r);
}
END_TEST

/* The roots' array and the directories' at the edges of their growth (8
 * first, doubled) up to the bound, and past it: each root added once, in
 * order, the one past the bound not looked into. */
START_TEST(test_growth_and_bound)
{
	struct pk_proc_roots *r;
	const char *const *dirs;
	size_t n;
	char rel[64];

	for (int i = 0; i <= PK_PROC_ROOTS_MAX; i++) {
		snprintf(rel, sizeof(rel), "r%d/usr/lib/debug", i);
		make_dirs(rel);
		snprintf(rel, sizeof(rel), "r%d", i);
		root_link(1000 + i, rel);
	}
	r = fake_roots(NULL, 0);
	for (int i = 0; i <= PK_PROC_ROOTS_MAX; i++) {
		ck_assert_int_eq(pk_proc_roots_see(r, 1000 + i), i < PK_PROC_ROOTS_MAX);
		dirs = pk_proc_roots_dirs(r, &n);
		ck_assert_uint_eq(n, 1 + (size_t)(i < PK_PROC_ROOTS_MAX ? i + 1 : i));
	}
	dirs = pk_proc_roots_dirs(r, &n);
	for (int i = 0; i < PK_PROC_ROOTS_MAX; i++) {
		snprintf(rel, sizeof(rel), "r%d/usr/lib/debug", i);
		same_dir(dirs[1 + i], rel);
	}
	pk_proc_roots_free(r);
}
END_TEST

Suite *suite_proc_roots(void)
{
	Suite *s = suite_create("proc_roots");
	TCase *tc = tcase_create("roots");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_other_root_once);
	tcase_add_test(tc, test_caller_dirs_first);
	tcase_add_test(tc, test_root_by_dir);
	tcase_add_test(tc, test_growth_and_bound);
	suite_add_tcase(s, tc);
	return s;
}
