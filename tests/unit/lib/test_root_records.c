// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The session's record of its processes' roots (lib/root_records.c), on a
 * fake /proc whose PID/root links name directories the test makes: another
 * root recorded as its path, ours and one the path does not reach left
 * out, a gone process said so; the map as probe-load makes it, up to its
 * bound; a recorded root found by a file it holds.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/root_records.h"
#include "test_util.h"

static char tmp[64], proc[96];

static void mkdir_in_tmp(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	ck_assert_msg(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s", path);
}

/* tmp/proc/PID/status: effective uid EUID, NSTGID its pid in its own pid
 * namespace (the kernel's NStgid line: the pid in each namespace, ours
 * first) */
static void status_file(int pid, int nstgid, unsigned int euid)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%d/status", tmp, pid);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "Name:\tx\nUid:\t%u\t%u\t%u\t%u\n", euid, euid, euid, euid);
	if (nstgid == pid)
		fprintf(f, "NStgid:\t%d\n", pid);
	else
		fprintf(f, "NStgid:\t%d\t%d\n", pid, nstgid);
	fclose(f);
}

/* tmp/proc/PID/root -> TO, as given, and a status of our pid namespace */
static void root_link(int pid, const char *to)
{
	char rel[64], link[4096];

	snprintf(rel, sizeof(rel), "proc/%d", pid);
	mkdir_in_tmp(rel);
	snprintf(link, sizeof(link), "%s/proc/%d/root", tmp, pid);
	ck_assert_int_eq(symlink(to, link), 0);
	status_file(pid, pid, 0);
}

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/pk-root-records-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(proc, sizeof(proc), "%s/proc", tmp);
	mkdir_in_tmp("proc");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

/* Which roots are another's and reachable: a directory of ours (its path
 * as the link gives it), not "/", not a path that is no absolute one (the
 * kernel gives a root ours does not reach relative to its own mounts). */
START_TEST(test_find)
{
	struct pk_root_record rec;
	char a[96];

	mkdir_in_tmp("a");
	mkdir_in_tmp("proc/12");
	mkdir_in_tmp("proc/12/rel");
	snprintf(a, sizeof(a), "%s/a", tmp);
	root_link(10, a);
	root_link(11, "/");
	root_link(12, "rel");		/* opens, but names no directory of ours */
	memset(&rec, 0, sizeof(rec));
	ck_assert_int_eq(pk_proc_root_find(proc, 10, &rec), 1);
	ck_assert_str_eq(rec.path, a);
	ck_assert_int_eq(pk_proc_root_find(proc, 11, &rec), 0);
	ck_assert_int_eq(pk_proc_root_find(proc, 12, &rec), 0);
	ck_assert_int_eq(pk_proc_root_find(proc, 13, &rec), -ESRCH);
}
END_TEST

/* Kept with the root, for the perf map a JIT writes there: the pid in the
 * process's own namespace and its effective uid. Ours, in another pid
 * namespace, is kept as "/" for them; with no status (gone since its
 * root was looked at) nothing is. */
START_TEST(test_find_ids)
{
	struct pk_root_record rec;
	char a[96], path[4096];

	mkdir_in_tmp("a");
	snprintf(a, sizeof(a), "%s/a", tmp);
	root_link(10, a);
	status_file(10, 1, 1000);
	root_link(11, "/");
	status_file(11, 7, 0);
	root_link(12, "/");	/* ours, our namespace */
	memset(&rec, 0, sizeof(rec));
	ck_assert_int_eq(pk_proc_root_find(proc, 10, &rec), 1);
	ck_assert_str_eq(rec.path, a);
	ck_assert_uint_eq(rec.nstgid, 1);
	ck_assert_uint_eq(rec.euid, 1000);
	memset(&rec, 0, sizeof(rec));
	ck_assert_int_eq(pk_proc_root_find(proc, 11, &rec), 1);
	ck_assert_str_eq(rec.path, "/");
	ck_assert_uint_eq(rec.nstgid, 7);
	ck_assert_int_eq(pk_proc_root_find(proc, 12, &rec), 0);
	snprintf(path, sizeof(path), "%s/proc/10/status", tmp);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(pk_proc_root_find(proc, 10, &rec), -ESRCH);
}
END_TEST

/* DIR (absolute, no symlink in it) as its mount shows it: the mount's
 * "MAJOR:MINOR" into DEV and DIR's path in that file system into ROOT,
 * from our own mountinfo (the mount whose point is DIR's longest prefix). */
static void dir_in_fs(const char *dir, char *dev, char *root)
{
	char line[4096], d[64], r[1024], pt[1024], best[1024] = "";
	FILE *f = fopen("/proc/self/mountinfo", "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		size_t n;

		if (sscanf(line, "%*s %*s %63s %1023s %1023s", d, r, pt) != 3)
			continue;
		n = strcmp(pt, "/") ? strlen(pt) : 0;
		if (strncmp(dir, pt, n) || (dir[n] && dir[n] != '/') ||
		    (best[0] && strlen(pt) < strlen(best)))
			continue;
		snprintf(best, sizeof(best), "%s", pt);
		strcpy(dev, d);
		ck_assert_int_lt(snprintf(root, 1024, "%s%s", strcmp(r, "/") ? r : "", dir + n),
				 1024);
	}
	fclose(f);
	ck_assert_msg(best[0], "no mount holds %s", dir);
}

/* A root the kernel's path does not reach (a pivot_root: readlink gives
 * a path that is not the root) found through the mounts: the root mount
 * of the process's mountinfo shows a directory one of ours shows too. A
 * root mount of a file system we have not mounted is not found. */
START_TEST(test_find_by_mounts)
{
	struct pk_root_record rec;
	char a[96], path[256], dev[64], root[1024];
	FILE *f;

	mkdir_in_tmp("a");
	snprintf(a, sizeof(a), "%s/a", tmp);
	root_link(20, a);
	/* the link now names the same directory: made another with a
	 * relative one, as the kernel names an unreachable root "/" */
	snprintf(path, sizeof(path), "%s/proc/20/root", tmp);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("../../a", path), 0);
	dir_in_fs(a, dev, root);
	snprintf(path, sizeof(path), "%s/proc/20/mountinfo", tmp);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "1 1 %s %s / rw - ext4 /dev/x rw\n", dev, root);
	fclose(f);
	memset(&rec, 0, sizeof(rec));
	ck_assert_int_eq(pk_proc_root_find(proc, 20, &rec), 1);
	ck_assert_str_eq(rec.path, a);
	/* another file system: none of ours shows it */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "1 1 4095:4095 %s / rw - ext4 /dev/x rw\n", root);
	fclose(f);
	ck_assert_int_eq(pk_proc_root_find(proc, 20, &rec), 0);
}
END_TEST

/* Recorded and read back; nothing recorded for ours and the gone. */
START_TEST(test_put_get)
{
	struct pk_root_record rec;
	char a[96];
	int fd = pk_root_records_create();

	ck_assert_int_ge(fd, 0);
	mkdir_in_tmp("a");
	snprintf(a, sizeof(a), "%s/a", tmp);
	root_link(10, a);
	root_link(11, "/");
	ck_assert_int_eq(pk_root_records_put(fd, proc, 10), 1);
	ck_assert_int_eq(pk_root_records_put(fd, proc, 10), 1);	/* again: the same */
	ck_assert_int_eq(pk_root_records_put(fd, proc, 11), 0);
	ck_assert_int_eq(pk_root_records_put(fd, proc, 13), -ESRCH);
	ck_assert_int_eq(pk_root_records_get(fd, 10, &rec), 0);
	ck_assert_str_eq(rec.path, a);
	ck_assert_int_eq(pk_root_records_get(fd, 11, &rec), -ENOENT);
	ck_assert_int_eq(pk_root_records_get(fd, 13, &rec), -ENOENT);
	/* a record that is no absolute path (not one of ours) is none */
	memset(&rec, 'x', sizeof(rec));
	ck_assert_int_eq(bpf_map_update_elem(fd, &(__u32){ 14 }, &rec, BPF_ANY), 0);
	ck_assert_int_eq(pk_root_records_get(fd, 14, &rec), -ENOENT);
	close(fd);
}
END_TEST

/* A process gone before its root was kept: the recorded root that holds
 * its file (the path in the process's terms, the file's identity) is
 * found; one with a file of the same path but another inode is not, nor
 * is any when no recorded root holds that very file. */
START_TEST(test_holding)
{
	struct pk_root_record rec;
	char a[96], file[160];
	struct stat st;
	int fd = pk_root_records_create(), f;

	ck_assert_int_ge(fd, 0);
	mkdir_in_tmp("a");
	mkdir_in_tmp("a/lib");
	mkdir_in_tmp("b");
	mkdir_in_tmp("b/lib");
	snprintf(file, sizeof(file), "%s/b/lib/libc.so.6", tmp);	/* same path, not it */
	f = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_int_ge(f, 0);
	close(f);
	snprintf(file, sizeof(file), "%s/a/lib/libc.so.6", tmp);
	f = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_int_ge(f, 0);
	close(f);
	ck_assert_int_eq(stat(file, &st), 0);
	snprintf(a, sizeof(a), "%s/b", tmp);
	root_link(30, a);
	ck_assert_int_eq(pk_root_records_put(fd, proc, 30), 1);
	ck_assert_int_eq(pk_root_records_holding(fd, "/lib/libc.so.6", st.st_dev, st.st_ino, &rec),
			 -ENOENT);
	snprintf(a, sizeof(a), "%s/a", tmp);
	root_link(31, a);
	ck_assert_int_eq(pk_root_records_put(fd, proc, 31), 1);
	memset(&rec, 0, sizeof(rec));
	ck_assert_int_eq(pk_root_records_holding(fd, "/lib/libc.so.6", st.st_dev, st.st_ino, &rec),
			 0);
	ck_assert_str_eq(rec.path, a);
	ck_assert_int_eq(pk_root_records_holding(fd, "/lib/libm.so.6", st.st_dev, st.st_ino, &rec),
			 -ENOENT);
	close(fd);
}
END_TEST

/* The map holds PK_ROOT_RECORDS_MAX processes and refuses one more: a
 * session with more records no more (probe-load and the readers go on). */
START_TEST(test_bound)
{
	struct pk_root_record rec = { .path = "/r" };
	int fd = pk_root_records_create();

	ck_assert_int_ge(fd, 0);
	for (__u32 pid = 1; pid <= PK_ROOT_RECORDS_MAX; pid++)
		ck_assert_int_eq(bpf_map_update_elem(fd, &pid, &rec, BPF_ANY), 0);
	ck_assert_int_ne(bpf_map_update_elem(fd, &(__u32){ PK_ROOT_RECORDS_MAX + 1 }, &rec,
					     BPF_ANY), 0);
	ck_assert_int_eq(errno, E2BIG);
	ck_assert_int_eq(pk_root_records_get(fd, PK_ROOT_RECORDS_MAX, &rec), 0);
	ck_assert_str_eq(rec.path, "/r");
	close(fd);
}
END_TEST

Suite *suite_root_records(void)
{
	Suite *s = suite_create("root_records");
	TCase *tc = tcase_create("find");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_find_ids);
	tcase_add_test(tc, test_find_by_mounts);
	suite_add_tcase(s, tc);
	if (pk_test_need_root(s, "the roots map is a BPF map")) {
		tc = tcase_create("map");
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_add_test(tc, test_put_get);
		tcase_add_test(tc, test_holding);
		tcase_add_test(tc, test_bound);
		suite_add_tcase(s, tc);
	}
	return s;
}
