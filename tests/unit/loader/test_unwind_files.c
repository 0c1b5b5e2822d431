// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The files probe-load gives unwind tables to, and their kernel keys, checked
 * against /proc/PID/maps and stat(2) read here. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader/needed_libs.h"
#include "loader/unwind_files.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

static struct pk_file_key key_of(const char *path)
{
	struct stat st;

	ck_assert_msg(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
	return (struct pk_file_key){ ((__u64)major(st.st_dev) << 20) | minor(st.st_dev),
				     st.st_ino };
}

static int find(const struct pk_unwind_files *f, struct pk_file_key k)
{
	for (int i = 0; i < f->n; i++)
		if (f->v[i].key.dev == k.dev && f->v[i].key.ino == k.ino)
			return i;
	return -1;
}

/* Every key once, the vDSO (path NULL) last and only there. */
static void expect_distinct(const struct pk_unwind_files *f, bool vdso)
{
	for (int i = 0; i < f->n; i++) {
		bool last_vdso = vdso && i == f->n - 1;

		ck_assert_msg(!f->v[i].path == last_vdso, "entry %d: path %s", i, f->v[i].path);
		for (int j = 0; j < i; j++)
			ck_assert(f->v[j].key.dev != f->v[i].key.dev ||
				  f->v[j].key.ino != f->v[i].key.ino);
	}
	if (vdso) {
		ck_assert_uint_eq(f->v[f->n - 1].key.dev, PK_VDSO_DEV);
		ck_assert_uint_eq(f->v[f->n - 1].key.ino, PK_VDSO_INO);
	}
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *fp = fopen(path, "w");

	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
	ck_assert_int_eq(chmod(path, mode), 0);
}

START_TEST(test_exec_path)
{
	char dir[64], a[128], b[128], path_env[300], buf[PATH_MAX];

	eh_tmpdir(dir, sizeof(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	ck_assert_int_eq(mkdir(a, 0755), 0);
	ck_assert_int_eq(mkdir(b, 0755), 0);
	snprintf(buf, sizeof(buf), "%s/tool", a);
	write_file(buf, "x", 0644);		/* not executable: skipped */
	snprintf(buf, sizeof(buf), "%s/tool", b);
	write_file(buf, "x", 0755);
	snprintf(buf, sizeof(buf), "%s/sub", a);
	ck_assert_int_eq(mkdir(buf, 0755), 0);	/* a directory: skipped */
	snprintf(path_env, sizeof(path_env), "/nonexistent:%s:%s", a, b);

	ck_assert_int_eq(pk_exec_path("tool", path_env, buf, sizeof(buf)), 0);
	snprintf(a, sizeof(a), "%s/b/tool", dir);
	ck_assert_str_eq(buf, a);
	ck_assert_int_eq(pk_exec_path("sub", path_env, buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(pk_exec_path("nope", path_env, buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(pk_exec_path("", path_env, buf, sizeof(buf)), -ENOENT);
	/* a name with a '/' is not searched */
	ck_assert_int_eq(pk_exec_path("./x/y", path_env, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "./x/y");
	/* glibc's default PATH */
	ck_assert_int_eq(pk_exec_path("sh", NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/bin/sh");
	ck_assert_int_eq(pk_exec_path("tool", path_env, buf, 8), -ENAMETOOLONG);
	eh_rmtree(dir);
}
END_TEST

/* The interpreter readelf names ("Requesting program interpreter: X"). */
static void readelf_interp(const char *path, char *buf, size_t len)
{
	char *argv[] = { "readelf", "-lW", (char *)path, NULL }, *out, *p;

	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	p = strstr(out, "program interpreter: ");
	ck_assert_ptr_nonnull(p);
	p += strlen("program interpreter: ");
	snprintf(buf, len, "%.*s", (int)strcspn(p, "]"), p);
	free(out);
}

/* The DT_NEEDED libraries readelf names, each looked for in Debian's
 * multiarch directory (where the fixtures' and /bin/sh's all are): checks
 * that every one is in F, and returns how many there are. */
static int expect_needed(const struct pk_unwind_files *f, const char *path)
{
	char *argv[] = { "readelf", "-dW", (char *)path, NULL }, *out, *p, lib[PATH_MAX];
	int n = 0;

	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	for (p = out; (p = strstr(p, "(NEEDED)")); p++) {
		const char *name = strstr(p, "Shared library: [");

		ck_assert_ptr_nonnull(name);
		name += strlen("Shared library: [");
		snprintf(lib, sizeof(lib), "/lib/x86_64-linux-gnu/%.*s", (int)strcspn(name, "]"),
			 name);
		ck_assert_msg(find(f, key_of(lib)) >= 0, "%s: %s is not in the list", path, lib);
		n++;
	}
	free(out);
	ck_assert_int_gt(n, 0);
	return n;
}

START_TEST(test_needed_line)
{
	char buf[64];

	ck_assert(pk_needed_libs_parse_line("\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 "
					    "(0x00007f9b51368000)\n", buf, sizeof(buf)));
	ck_assert_str_eq(buf, "/lib/x86_64-linux-gnu/libc.so.6");
	ck_assert(pk_needed_libs_parse_line("\tlibx.so => /a b/libx.so (0x1)\n", buf, sizeof(buf)));
	ck_assert_str_eq(buf, "/a b/libx.so");
	/* no file: the vDSO, the loader, a library not found, a cut line */
	ck_assert(!pk_needed_libs_parse_line("\tlinux-vdso.so.1 (0x00007f6828c6e000)\n", buf,
					     sizeof(buf)));
	ck_assert(!pk_needed_libs_parse_line("\t/lib64/ld-linux-x86-64.so.2 (0x00007f6828c70000)\n",
					     buf, sizeof(buf)));
	ck_assert(!pk_needed_libs_parse_line("\tlibq.so => not found\n", buf, sizeof(buf)));
	ck_assert(!pk_needed_libs_parse_line("\tlibq.so => /usr/lib/libq.so", buf, sizeof(buf)));
	/* a path longer than the buffer */
	ck_assert(!pk_needed_libs_parse_line("\tl => /0123456789 (0x1)\n", buf, 8));
}
END_TEST

START_TEST(test_command)
{
	char demo[4096], interp[PATH_MAX], dir[64], script[128], err[PK_ERR_LEN];
	struct pk_unwind_files f;

	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	readelf_interp(demo, interp, sizeof(interp));
	ck_assert_int_eq(pk_unwind_files_command(&f, demo, err), 0);
	/* the program, its interpreter, its libraries, the vDSO */
	ck_assert_int_eq(f.n, 3 + expect_needed(&f, demo));
	expect_distinct(&f, true);
	ck_assert_int_ge(find(&f, key_of(demo)), 0);
	ck_assert_int_ge(find(&f, key_of(interp)), 0);
	pk_unwind_files_free(&f);

	/* a script: its interpreter and that one's */
	eh_tmpdir(dir, sizeof(dir));
	snprintf(script, sizeof(script), "%s/run.sh", dir);
	write_file(script, "#! /bin/sh -e\nexit 0\n", 0755);
	readelf_interp("/bin/sh", interp, sizeof(interp));
	ck_assert_int_eq(pk_unwind_files_command(&f, script, err), 0);
	ck_assert_int_eq(f.n, 3 + expect_needed(&f, "/bin/sh"));
	ck_assert_int_ge(find(&f, key_of("/bin/sh")), 0);
	ck_assert_int_ge(find(&f, key_of(interp)), 0);
	ck_assert_int_lt(find(&f, key_of(script)), 0);
	pk_unwind_files_free(&f);
	eh_rmtree(dir);

	ck_assert_int_eq(pk_unwind_files_command(&f, "no-such-command-pk", err), -ENOENT);
	ck_assert_str_eq(err, "no-such-command-pk: command not found");
	ck_assert_int_eq(f.n, 0);
}
END_TEST

/* PID's executable file mappings as /proc/PID/maps lists them, read here
 * with sscanf: each must be in F with a map_files path to that inode. */
static int expect_maps_of(const struct pk_unwind_files *f, pid_t pid, bool *vdso)
{
	char path[64], line[4096];
	int n = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fp);
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8], name[4096] = "";
		struct pk_file_key k;
		struct stat st;
		int i;

		ck_assert_int_ge(sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095s", &start, &end,
					perms, &off, &maj, &min, &ino, name), 7);
		if (!strcmp(name, "[vdso]"))
			*vdso = true;
		if (perms[2] != 'x' || name[0] != '/')
			continue;
		k = (struct pk_file_key){ ((__u64)maj << 20) | min, ino };
		i = find(f, k);
		ck_assert_msg(i >= 0, "%s not listed", name);
		ck_assert_ptr_nonnull(strstr(f->v[i].path, "/map_files/"));
		ck_assert_int_eq(stat(f->v[i].path, &st), 0);
		ck_assert_uint_eq(st.st_ino, ino);
		n++;
	}
	fclose(fp);
	return n;
}

START_TEST(test_pids)
{
	char *argv[] = { "sleep", "30", NULL }, err[PK_ERR_LEN], exe[64], buf[PATH_MAX];
	pid_t pids[3] = { getpid(), 0, 999999999 };	/* the last: no such process */
	struct pk_unwind_files f;
	bool vdso = false;
	ssize_t n;

	pids[1] = pk_test_spawn(argv, NULL);
	ck_assert_int_gt(pids[1], 0);
	/* Wait until sleep sleeps: /proc/PID/exe names sleep as soon as the
	 * exec begins, before its mappings (and then ld.so's libraries) are
	 * there; in clock_nanosleep (230) or nanosleep (35) they all are. */
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pids[1]);
	for (int i = 0; i < 500; i++) {
		char sys[64], *call;

		snprintf(sys, sizeof(sys), "/proc/%d/syscall", (int)pids[1]);
		call = pk_test_read_file(sys, NULL);
		n = readlink(exe, buf, sizeof(buf) - 1);
		if (n > 0)
			buf[n] = '\0';
		if (n > 0 && strstr(buf, "sleep") && call &&
		    (!strncmp(call, "230 ", 4) || !strncmp(call, "35 ", 3))) {
			free(call);
			break;
		}
		free(call);
		usleep(10000);
	}
	ck_assert_int_eq(pk_unwind_files_pids(&f, NULL, pids, 3, err), 0);
	ck_assert_int_gt(expect_maps_of(&f, pids[0], &vdso), 0);
	ck_assert_int_gt(expect_maps_of(&f, pids[1], &vdso), 0);
	ck_assert(vdso && f.vdso);
	expect_distinct(&f, true);
	ck_assert_int_ge(find(&f, key_of(buf)), 0);	/* sleep itself */
	pk_unwind_files_free(&f);
	kill(pids[1], SIGKILL);
	pk_test_wait(pids[1]);
}
END_TEST

START_TEST(test_system)
{
	struct pk_unwind_files f;
	char err[PK_ERR_LEN];
	bool vdso = false;

	ck_assert_int_eq(pk_unwind_files_system(&f, NULL, err), 0);
	ck_assert_int_gt(expect_maps_of(&f, getpid(), &vdso), 0);
	ck_assert_int_gt(expect_maps_of(&f, getppid(), &vdso), 0);	/* check's runner */
	expect_distinct(&f, true);
	pk_unwind_files_free(&f);
}
END_TEST

Suite *suite_unwind_files(void)
{
	Suite *s = suite_create("unwind_files");
	TCase *tc = tcase_create("files");

	tcase_add_test(tc, test_exec_path);
	tcase_add_test(tc, test_needed_line);
	tcase_add_test(tc, test_command);
	/* map_files and other processes' maps need root */
	if (pk_test_need_root(s, "map_files of other processes need CAP_SYS_ADMIN")) {
		tcase_add_test(tc, test_pids);
		tcase_add_test(tc, test_system);
	}
	suite_add_tcase(s, tc);
	return s;
}
