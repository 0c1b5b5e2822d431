// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load --cgroup: the cgroup v2 directories the test makes, a nested
 * one among them, under the machine's cgroup2 mount. lib/cgroup.c's
 * resolution (absolute, relative, the level from a mount of a sub-tree, no
 * cgroup2 at all), and end to end: a fixture inside, its twin outside, a
 * third moved in and out while sampled; every sample from inside, none
 * from outside. probe-read --per-cgroup: the stacks rooted at each task's
 * cgroup, a task moved from one to another under both, pprof's cgroup
 * label as go tool pprof reads it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/pprof_raw.h"
#include "integration/cgroup_dirs.h"
#include "integration/profile_session.h"
#include "lib/cgroup.h"
#include "lib/mountinfo.h"
#include "lib/proc_maps.h"
#include "test_util.h"

static char mnt[4096];		/* the cgroup2 mount */
static char outer[4200], inner[4300], other[4300];

/* The machine's cgroup2 mount into mnt (unchecked setup, in the runner:
 * its teardown sweeps there). */
static void find_mount(void)
{
	pk_test_cgroup_mount(mnt, sizeof(mnt));
}

/* OUTER/INNER and OUTER/OTHER made below the cgroup2 mount. */
static void cgroups_make(void)
{
	pk_test_cgroup_make(mnt, NULL, outer, sizeof(outer));
	pk_test_cgroup_make(mnt, "inner", inner, sizeof(inner));
	pk_test_cgroup_make(mnt, "other", other, sizeof(other));
}

static void cgroups_remove(void)
{
	pk_test_cgroup_remove(outer);
}

/* Where a test writes probe-read's output: a name of its pid's, so that
 * the runner's sweep finds what a test that died left. */
static void out_path(char *buf, size_t len, const char *ext)
{
	snprintf(buf, len, "/tmp/pk-cgroup-test-%d.%s", (int)getpid(), ext);
}

/* Unchecked teardown, in the runner: the cgroups and output files of a
 * test that died half-way (its pid gone, its fixtures killed with it). */
static void cgroups_sweep(void)
{
	DIR *d;
	struct dirent *e;

	if ((d = opendir("/tmp"))) {
		while ((e = readdir(d))) {
			char path[300];
			int pid;

			if (sscanf(e->d_name, "pk-cgroup-test-%d.", &pid) != 1 || kill(pid, 0) == 0)
				continue;
			snprintf(path, sizeof(path), "/tmp/%s", e->d_name);
			unlink(path);
		}
		closedir(d);
	}

	pk_test_cgroup_sweep(mnt);
}

START_TEST(test_resolve)
{
	char err[PK_ERR_LEN], rel[4400], fake[9000];
	struct pk_cgroup a, b, c;
	struct stat st;

	cgroups_make();
	ck_assert_int_eq(pk_cgroup_resolve(inner, NULL, &a, err), 0);
	ck_assert_int_eq(stat(inner, &st), 0);
	ck_assert_uint_eq(a.id, st.st_ino);
	/* relative to the mount, and absolute from it, name the same */
	snprintf(rel, sizeof(rel), "pk-test-%d/inner", (int)getpid());
	ck_assert_int_eq(pk_cgroup_resolve(rel, NULL, &b, err), 0);
	ck_assert_uint_eq(b.id, a.id);
	ck_assert_uint_eq(b.level, a.level);
	snprintf(rel, sizeof(rel), "/pk-test-%d/inner", (int)getpid());
	ck_assert_int_eq(pk_cgroup_resolve(rel, NULL, &b, err), 0);
	ck_assert_uint_eq(b.id, a.id);
	/* a mount of the hierarchy's /x/y (a cgroup namespace's): two deeper */
	snprintf(fake, sizeof(fake), "30 20 0:26 /x/y %s rw - cgroup2 cgroup2 rw\n", mnt);
	ck_assert_int_eq(pk_cgroup_resolve(inner, fake, &c, err), 0);
	ck_assert_uint_eq(c.level, a.level + 2);
	/* the mount's root level: the test's folders are 1 and 2 below it */
	ck_assert_uint_eq(a.level, 2);
	snprintf(rel, sizeof(rel), "%s/cgroup.procs", outer);	/* a file of it */
	ck_assert_int_eq(pk_cgroup_resolve(rel, NULL, &c, err), -ENOTDIR);
	ck_assert_int_eq(pk_cgroup_resolve("pk-no-such-cgroup", NULL, &c, err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "pk-no-such-cgroup"));
	ck_assert_int_eq(pk_cgroup_resolve(inner, "25 1 0:22 / /sys/fs/cgroup/cpu rw - "
					   "cgroup cgroup rw,cpu\n", &c, err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "cgroup v1 only host"));
	cgroups_remove();
}
END_TEST

/* utime + stime of PID, in seconds. */
static double cpu_of(pid_t pid)
{
	char path[64], *text, *p;
	unsigned long ut, st;
	double s = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	text = pk_test_read_file(path, NULL);
	if (text && (p = strrchr(text, ')')) &&
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
		s = (double)(ut + st) / sysconf(_SC_CLK_TCK);
	free(text);
	return s;
}

static void wait_cpu(pid_t pid, double secs)
{
	for (int i = 0; i < 60 * 100 && cpu_of(pid) < secs; i++)
		usleep(10 * 1000);
	ck_assert_msg(cpu_of(pid) >= secs, "pid %d did not use %.1f s of CPU", (int)pid, secs);
}

/* The samples of folded --per-pid output whose root is "fp_chain-PID",
 * or, PID 0, all of them. */
static unsigned long samples_of(const struct pk_folded *f, pid_t pid)
{
	char root[64];
	unsigned long n = 0;

	snprintf(root, sizeof(root), "fp_chain-%d;", (int)pid);
	for (size_t i = 0; i < f->n; i++)
		if (!pid || !strncmp(f->lines[i].stack, root, strlen(root)))
			n += f->lines[i].count;
	return n;
}

/*
 * A in OUTER/inner from its start, B beside it outside, C outside, moved
 * into inner after 0.5 s of its CPU time and out again after 1 s more;
 * each spins 2.5 s. `probe-load --cgroup OUTER -p A -p B -p C`: A's
 * samples, about 99 a second of its CPU time from the load on; none of
 * B's; C's of its second inside.
 */
START_TEST(test_samples_inside_only)
{
	char a_script[9000], fixture[4096], pa[16], pb[16], pc[16];
	const char *read[] = { "-d", "60", "--per-pid", NULL };
	char *out = NULL, *err = NULL, *bad = NULL;
	struct pk_folded f;
	pid_t a, b, c;
	unsigned long na, nb, nc;
	double a_before;

	cgroups_make();
	snprintf(fixture, sizeof(fixture), "%s", pk_e2e_fixture("fp_chain"));
	snprintf(a_script, sizeof(a_script), "echo $$ > %s/cgroup.procs && exec %s 2.5", inner,
		 fixture);
	a = pk_test_spawn((char *[]){ "sh", "-c", a_script, NULL }, NULL);
	b = pk_test_spawn((char *[]){ fixture, "2.5", NULL }, NULL);
	c = pk_test_spawn((char *[]){ fixture, "2.5", NULL }, NULL);
	ck_assert(a > 0 && b > 0 && c > 0);
	snprintf(pa, sizeof(pa), "%d", (int)a);
	snprintf(pb, sizeof(pb), "%d", (int)b);
	snprintf(pc, sizeof(pc), "%d", (int)c);
	ck_assert_int_eq(pk_e2e_load((const char *[]){ "-F", "99", "--cgroup", outer, "-p", pa,
						      "-p", pb, "-p", pc, NULL }), 0);
	a_before = cpu_of(a);	/* A's CPU time before the session sampled */
	wait_cpu(c, 0.5);
	pk_test_cgroup_move(c, inner);
	wait_cpu(c, 1.5);
	pk_test_cgroup_move(c, mnt);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_int_eq(pk_test_wait(a), 0);
	ck_assert_int_eq(pk_test_wait(b), 0);
	ck_assert_int_eq(pk_test_wait(c), 0);
	ck_assert_msg(pk_folded_parse(out, &f, (const char **)&bad), "not folded: %s", bad);
	na = samples_of(&f, a);
	nb = samples_of(&f, b);
	nc = samples_of(&f, c);
	fprintf(stderr, "--cgroup: inside %lu samples, outside %lu, moved in for 1 s %lu; "
		"%lu in all\n", na, nb, nc, samples_of(&f, 0));
	/* 99 a second of A's CPU time once loaded (at most that) */
	ck_assert_uint_ge(na, 99 * (2.5 - a_before) / 2);
	ck_assert_uint_eq(nb, 0);
	ck_assert_uint_ge(nc, 99 / 2);		/* 1 s inside */
	ck_assert_uint_le(nc, 99 * 3 / 2);
	ck_assert_uint_eq(na + nc, samples_of(&f, 0));
	pk_folded_free(&f);
	free(out);
	free(err);
	cgroups_remove();
}
END_TEST

/* The cgroup v2 path of PID under the mount, from /proc/PID/cgroup's
 * "0::PATH" line, into BUF. */
static void cgroup_of(pid_t pid, char *buf, size_t len)
{
	char path[64], *text, *p;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	text = pk_test_read_file(path, NULL);
	ck_assert_ptr_nonnull(text);
	p = strstr(text, "0::");
	ck_assert_msg(p && (p == text || p[-1] == '\n'), "no cgroup v2 line: %s", text);
	p += 3;
	p[strcspn(p, "\n")] = '\0';
	snprintf(buf, len, "%s", p);
	free(text);
}

/* The samples of folded --per-cgroup --per-pid output rooted at the
 * cgroup CG (NULL: any) and then "fp_chain-PID". */
static unsigned long samples_in(const struct pk_folded *f, const char *cg, pid_t pid)
{
	char proc[64];
	unsigned long n = 0;

	snprintf(proc, sizeof(proc), "fp_chain-%d;", (int)pid);
	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->lines[i].stack, *semi = strchr(s, ';');

		if (!semi || strncmp(semi + 1, proc, strlen(proc)))
			continue;
		if (!cg || ((size_t)(semi - s) == strlen(cg) && !strncmp(s, cg, semi - s)))
			n += f->lines[i].count;
	}
	return n;
}

/* The count go tool pprof -tags gives the value VALUE of the label
 * "cgroup" in TEXT; 0 when it lists none. */
static long tag_count(const char *text, const char *value)
{
	const char *sec = strstr(text, " cgroup: Total ");
	char want[4400];

	if (!sec)
		return 0;
	snprintf(want, sizeof(want), "): %s\n", value);
	for (const char *line = strchr(sec, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		const char *end = strchr(line + 1, '\n');
		long n;

		/* the section ends at the next key's line ("KEY: Total") */
		if (strstr(line + 1, ": Total ") && (!end || strstr(line + 1, ": Total ") < end))
			return 0;
		if (end && !strncmp(end - strlen(want) + 1, want, strlen(want)) &&
		    sscanf(line + 1, " %ld", &n) == 1)
			return n;
	}
	return 0;
}

/*
 * --per-cgroup: A in OUTER/inner from its start, its twin B outside, C
 * put in inner before the load and moved to OUTER/other after 0.8 s of
 * its CPU time from the load on; A and B spin 2.5 s, C 5 s. Folded roots: every sample
 * of A under inner's path, every one of B under its own cgroup (never
 * inner's), C's under both, and nothing else; pprof's cgroup label, as go
 * tool pprof -tags reads it, the same counts per path. Loop 1 the same
 * with the samples counted in the kernel (probe-load --aggregate).
 */
START_TEST(test_per_cgroup)
{
	char a_script[9000], fixture[4096], pa[16], pb[16], pc[16], pprof[64], folded[64];
	char rel_inner[4400], rel_other[4400], b_cg[4096], perr[512];
	const char *read[] = { "-d", "60", "--per-cgroup", "--per-pid", "-f", "folded", "-o", folded,
			       "-f", "pprof", "-o", pprof, NULL };
	char *out = NULL, *err = NULL, *bad = NULL, *tags = NULL;
	unsigned long na, nb, nc_in, nc_out;
	double c_loaded;
	struct pk_folded f;
	pid_t a, b, c;

	cgroups_make();
	out_path(pprof, sizeof(pprof), "pb.gz");
	out_path(folded, sizeof(folded), "folded");
	snprintf(rel_inner, sizeof(rel_inner), "%s", inner + strlen(mnt));
	snprintf(rel_other, sizeof(rel_other), "%s", other + strlen(mnt));
	snprintf(fixture, sizeof(fixture), "%s", pk_e2e_fixture("fp_chain"));
	snprintf(a_script, sizeof(a_script), "echo $$ > %s/cgroup.procs && exec %s 2.5", inner,
		 fixture);
	a = pk_test_spawn((char *[]){ "sh", "-c", a_script, NULL }, NULL);
	b = pk_test_spawn((char *[]){ fixture, "2.5", NULL }, NULL);
	c = pk_test_spawn((char *[]){ fixture, "5", NULL }, NULL);
	ck_assert(a > 0 && b > 0 && c > 0);
	pk_test_cgroup_move(c, inner);
	cgroup_of(b, b_cg, sizeof(b_cg));
	ck_assert_str_ne(b_cg, rel_inner);
	snprintf(pa, sizeof(pa), "%d", (int)a);
	snprintf(pb, sizeof(pb), "%d", (int)b);
	snprintf(pc, sizeof(pc), "%d", (int)c);
	/* loop 1: counted in the kernel (--aggregate), which must keep the
	 * moved task's stacks of two cgroups apart */
	ck_assert_int_eq(pk_e2e_load((const char *[]){ "-F", "99", "-p", pa, "-p", pb, "-p", pc,
						      _i ? "--aggregate" : NULL, NULL }), 0);
	/* 0.8 s of CPU inside from the load on, however long it took */
	c_loaded = cpu_of(c);
	ck_assert_msg(c_loaded < 3.0, "C spent %.1f s of its 5 before the load", c_loaded);
	wait_cpu(c, c_loaded + 0.8);
	pk_test_cgroup_move(c, other);
	ck_assert_msg(pk_e2e_read(read, &out, &err) == 0, "probe-read: %s", err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_int_eq(pk_test_wait(a), 0);
	ck_assert_int_eq(pk_test_wait(b), 0);
	ck_assert_int_eq(pk_test_wait(c), 0);
	free(out);
	out = pk_test_read_file(folded, NULL);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(pk_folded_parse(out, &f, (const char **)&bad), "not folded: %s", bad);
	na = samples_in(&f, rel_inner, a);
	nb = samples_in(&f, b_cg, b);
	nc_in = samples_in(&f, rel_inner, c);
	nc_out = samples_in(&f, rel_other, c);
	fprintf(stderr, "--per-cgroup%s: A %lu samples under %s, B %lu under %s, C %lu under "
		"inner and %lu under other\n", _i ? " --aggregate" : "", na, rel_inner, nb, b_cg,
		nc_in, nc_out);
	ck_assert_uint_eq(na, samples_in(&f, NULL, a));
	ck_assert_uint_ge(na, 99 / 2);
	ck_assert_uint_eq(nb, samples_in(&f, NULL, b));
	ck_assert_uint_ge(nb, 99 / 2);
	ck_assert_uint_eq(nc_in + nc_out, samples_in(&f, NULL, c));
	ck_assert_uint_ge(nc_in, 99 * 0.8 / 2);
	ck_assert_uint_ge(nc_out, 99 * (5 - 3.0 - 0.8) / 2);

	/* pprof's labels, as go tool pprof reads them */
	ck_assert_msg(ppr_run_tags(pprof, &tags, perr, sizeof(perr)) == 0, "%s", perr);
	ck_assert_msg(tag_count(tags, rel_inner) == (long)(na + nc_in), "%s: %lu in folded\n%s",
		      rel_inner, na + nc_in, tags);
	ck_assert_msg(tag_count(tags, rel_other) == (long)nc_out, "%s: %lu in folded\n%s",
		      rel_other, nc_out, tags);
	ck_assert_msg(tag_count(tags, b_cg) == (long)nb, "%s: %lu in folded\n%s", b_cg, nb, tags);
	pk_folded_free(&f);
	free(tags);
	free(out);
	free(err);
	unlink(pprof);
	unlink(folded);
	cgroups_remove();
}
END_TEST

/* --cgroup where no cgroup2 is mounted: one line, nothing loaded. */
START_TEST(test_no_cgroup2)
{
	char *err = NULL;
	struct stat st;

	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	ck_assert_msg(mnt[0], "no cgroup2 mount on this machine");
	ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
	ck_assert_int_eq(pk_e2e_load_err((const char *[]){ "--cgroup", "x", "--", "true", NULL },
					 &err), 1);
	ck_assert_msg(pk_e2e_one_line(err), "not one line: %s", err);
	ck_assert_ptr_nonnull(strstr(err, "cgroup v1 only host"));
	ck_assert_int_eq(stat(pk_e2e_pin_dir(), &st), -1);
	free(err);
}
END_TEST

/* --per-cgroup where no cgroup2 is mounted: one line, exit 1, the
 * session's samples left for another reader. */
START_TEST(test_per_cgroup_no_cgroup2)
{
	const char *read[] = { "-d", "1", "--per-cgroup", NULL };
	char fixture[4096], pid[16], *out = NULL, *err = NULL;
	pid_t p;

	snprintf(fixture, sizeof(fixture), "%s", pk_e2e_fixture("fp_chain"));
	p = pk_test_spawn((char *[]){ fixture, "0.5", NULL }, NULL);
	ck_assert(p > 0);
	snprintf(pid, sizeof(pid), "%d", (int)p);
	ck_assert_int_eq(pk_e2e_load((const char *[]){ "-F", "99", "-p", pid, NULL }), 0);
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	ck_assert_msg(mnt[0], "no cgroup2 mount on this machine");
	ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
	ck_assert_msg(pk_e2e_read(read, &out, &err) == 1, "%s", err);
	ck_assert_msg(pk_e2e_one_line(err), "not one line: %s", err);
	ck_assert_msg(strstr(err, "--per-cgroup: no cgroup v2 file system is mounted (a cgroup v1 "
			     "only host)"), "%s", err);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_int_eq(pk_test_wait(p), 0);
	free(out);
	free(err);
}
END_TEST

Suite *suite_cgroup_e2e(void)
{
	Suite *s = suite_create("cgroup_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "the tests make cgroups and load BPF programs"))
		return s;
	tc = tcase_create("resolve");
	tcase_add_unchecked_fixture(tc, find_mount, cgroups_sweep);
	tcase_add_test(tc, test_resolve);
	suite_add_tcase(s, tc);
	tc = pk_e2e_tcase(s, "session", 120);
	tcase_add_unchecked_fixture(tc, find_mount, cgroups_sweep);
	tcase_add_test(tc, test_samples_inside_only);
	tcase_add_loop_test(tc, test_per_cgroup, 0, 2);
	tcase_add_test(tc, test_no_cgroup2);
	tcase_add_test(tc, test_per_cgroup_no_cgroup2);
	return s;
}
