// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cgroup_path.h"
#include "test_util.h"

/* The inode number of ROOT/REL: what the resolver takes for its id. */
static __u64 ino(const char *root, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_ino;
}

static void mk(const char *root, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

static void rm(const char *root, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	ck_assert_int_eq(rmdir(path), 0);
}

/* Ids to paths over a tree of directories, as over the cgroup2 mount: the
 * root is "/", nested directories their path from it; a directory made
 * after the first walk is found by walking again; a removed one is
 * "cgroup:ID", and asked for again costs no walk. Files are no cgroups. */
START_TEST(test_tree)
{
	char root[] = "/tmp/pk-cgpath-XXXXXX", file[PATH_MAX];
	struct pk_cgroup_paths c;
	__u64 a, ab, abc, later, gone, fid;
	char want[64];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(root));
	mk(root, "/a");
	mk(root, "/a/b");
	mk(root, "/a/b/c.scope");
	/* beside the tree, not in it: an id no directory under the root has
	 * (kept until the end, so that no directory of the tree reuses its
	 * inode number) */
	mk(root, "-gone");
	snprintf(file, sizeof(file), "%s/a/cgroup.procs", root);
	f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	a = ino(root, "/a");
	ab = ino(root, "/a/b");
	abc = ino(root, "/a/b/c.scope");
	gone = ino(root, "-gone");
	fid = ino(root, "/a/cgroup.procs");

	ck_assert_int_eq(pk_cgroup_paths_init(&c, root), 0);
	ck_assert_str_eq(pk_cgroup_path(&c, abc), "/a/b/c.scope");
	ck_assert_uint_eq(c.walks, 1);
	/* the first walk found them all */
	ck_assert_str_eq(pk_cgroup_path(&c, a), "/a");
	ck_assert_str_eq(pk_cgroup_path(&c, ab), "/a/b");
	ck_assert_str_eq(pk_cgroup_path(&c, ino(root, "")), "/");
	ck_assert_uint_eq(c.walks, 1);
	/* made since: a walk more */
	mk(root, "/a/later");
	later = ino(root, "/a/later");
	ck_assert_str_eq(pk_cgroup_path(&c, later), "/a/later");
	ck_assert_uint_eq(c.walks, 2);
	/* none: by its number, then without walking */
	snprintf(want, sizeof(want), "cgroup:%llu", (unsigned long long)gone);
	ck_assert_str_eq(pk_cgroup_path(&c, gone), want);
	ck_assert_uint_eq(c.walks, 3);
	ck_assert_str_eq(pk_cgroup_path(&c, gone), want);
	ck_assert_uint_eq(c.walks, 3);
	/* a file's inode names no cgroup */
	snprintf(want, sizeof(want), "cgroup:%llu", (unsigned long long)fid);
	ck_assert_str_eq(pk_cgroup_path(&c, fid), want);
	/* a path once named keeps its name after the directory is gone */
	rm(root, "/a/later");
	ck_assert_str_eq(pk_cgroup_path(&c, later), "/a/later");
	pk_cgroup_paths_free(&c);

	unlink(file);
	rm(root, "/a/b/c.scope");
	rm(root, "/a/b");
	rm(root, "/a");
	ck_assert_int_eq(rmdir(root), 0);
	rm(root, "-gone");
}
END_TEST

/* A root that is not there (a tree removed): every id by its number. */
START_TEST(test_no_root)
{
	struct pk_cgroup_paths c;

	ck_assert_int_eq(pk_cgroup_paths_init(&c, "/nonexistent/pk-cgroup-root"), 0);
	ck_assert_str_eq(pk_cgroup_path(&c, 4242), "cgroup:4242");
	ck_assert_str_eq(pk_cgroup_path(&c, 1), "cgroup:1");
	pk_cgroup_paths_free(&c);
}
END_TEST

/* The host's cgroup2 mount, found from mountinfo: this process's own
 * cgroup (/proc/self/cgroup's "0::PATH") resolves to its path. */
START_TEST(test_own_cgroup)
{
	struct pk_cgroup_paths c;
	char line[PATH_MAX], path[2 * PATH_MAX];
	struct stat st;
	FILE *f;
	bool found = false;

	ck_assert_int_eq(pk_cgroup_paths_init(&c, NULL), 0);
	ck_assert_msg(c.root, "no cgroup2 mount found in /proc/self/mountinfo");
	f = fopen("/proc/self/cgroup", "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s%s", c.root, line + 3);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_str_eq(pk_cgroup_path(&c, st.st_ino), line[3] && strcmp(line + 3, "/") ?
				 line + 3 : "/");
		found = true;
	}
	fclose(f);
	ck_assert(found);
	pk_cgroup_paths_free(&c);
}
END_TEST

Suite *suite_cgroup_path(void)
{
	Suite *s = suite_create("cgroup_path");
	TCase *tc = tcase_create("resolve");

	tcase_add_test(tc, test_tree);
	tcase_add_test(tc, test_no_root);
	tcase_add_test(tc, test_own_cgroup);
	suite_add_tcase(s, tc);
	return s;
}
