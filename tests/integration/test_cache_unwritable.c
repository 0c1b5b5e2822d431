// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, a cache that cannot be written: a full filesystem (a 64 KiB
 * tmpfs, filled) and a read-only one (a tmpfs mounted ro), as
 * PROBEKIT_CACHE_DIR. The cache only saves the next session's work: the
 * tables probe-load and probe-read build are used from memory, so a
 * program built without frame pointers has its stacks as whole as with a
 * writable cache (pk_assert_whole, as the dwarf suite judges them), each
 * tool says so in one line, and no part of a file is left in the cache.
 *
 * The fixture is dlopen (tests/fixtures_nofp/): probe-load gives the
 * program, ld.so and libc their tables; the plugin it opens a second later
 * gets its table from probe-read, from a reader running during (the table
 * loaded into the kernel) or from one that reads after the exit (the walks
 * the kernel left, finished in user space).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "integration/profile_session.h"
#include "integration/whole_stacks.h"
#include "test_util.h"

/* The tmpfs's size: a few pages, filled before the session. */
#define FS_SIZE		"size=64k"
#define FS_PREFIX	"/tmp/pk-cache-fs-"
#define FILLER		"fill"
/* CPU seconds the fixture spins in the plugin, after a second's sleep. */
#define DELAY_STR	"1"
#define RUN_STR		"4"

/* The run's own cache root again (the runner's, in the unchecked
 * teardown), or none where the run has none. */
static void restore_cache_dir(void)
{
	if (pk_test_cache_dir())
		setenv("PROBEKIT_CACHE_DIR", pk_test_cache_dir(), 1);
	else
		unsetenv("PROBEKIT_CACHE_DIR");
}

/* Set in the runner before check forks the test: every test's mount is
 * named after it, so that the runner unmounts what a test that died left. */
static pid_t runner_pid;

static void fs_setup(void)
{
	runner_pid = getpid();
}

/* Unmount and remove every cache filesystem of this runner's tests
 * (unchecked teardown: in the runner, after a test that died too). */
static void fs_cleanup_all(void)
{
	char prefix[64], *line = NULL, dev[256], dir[4096];
	size_t cap = 0;
	FILE *m = fopen("/proc/self/mounts", "r");

	snprintf(prefix, sizeof(prefix), FS_PREFIX "%d-", (int)runner_pid);
	while (m && getline(&line, &cap, m) > 0)
		if (sscanf(line, "%255s %4095s", dev, dir) == 2 &&
		    !strncmp(dir, prefix, strlen(prefix)) && umount2(dir, MNT_DETACH) == 0)
			rmdir(dir);
	free(line);
	if (m)
		fclose(m);
	restore_cache_dir();
}

enum cache_fs { FS_FULL, FS_READ_ONLY };

/* A tmpfs at a directory of this test's own in DIR, full or read-only,
 * made the cache (PROBEKIT_CACHE_DIR) of the tools the test runs. */
static void cache_fs_make(enum cache_fs kind, char *dir, size_t len)
{
	static char chunk[4096];

	snprintf(dir, len, FS_PREFIX "%d-%d", (int)runner_pid, (int)getpid());
	ck_assert_msg(mkdir(dir, 0755) == 0, "%s: %s", dir, strerror(errno));
	ck_assert_msg(mount("tmpfs", dir, "tmpfs", 0, FS_SIZE) == 0, "mount %s: %s", dir,
		      strerror(errno));
	if (kind == FS_FULL) {
		char path[4200];
		int fd;
		ssize_t w;

		snprintf(path, sizeof(path), "%s/" FILLER, dir);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		ck_assert_int_ge(fd, 0);
		while ((w = write(fd, chunk, sizeof(chunk))) > 0)
			;
		ck_assert_msg(w < 0 && errno == ENOSPC, "filling %s: %s", dir, strerror(errno));
		ck_assert_int_eq(close(fd), 0);
	} else {
		ck_assert_msg(mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0,
			      "remount %s read-only: %s", dir, strerror(errno));
	}
	ck_assert_int_eq(setenv("PROBEKIT_CACHE_DIR", dir, 1), 0);
}

static void cache_fs_remove(const char *dir)
{
	ck_assert_msg(umount2(dir, 0) == 0, "umount %s: %s", dir, strerror(errno));
	ck_assert_int_eq(rmdir(dir), 0);
	restore_cache_dir();
}

/* What a failed write could leave in the cache: files other than the
 * filler, and any temporary file. */
static int leftovers;
static char leftover[4096];

static int count_leftover(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *base = path + ftw->base;

	if ((flag == FTW_F && strcmp(base, FILLER)) || strstr(base, ".tmp.")) {
		if (!leftovers++)
			snprintf(leftover, sizeof(leftover), "%s", path);
	}
	return 0;
}

static void assert_nothing_left(const char *dir)
{
	leftovers = 0;
	ck_assert_int_eq(nftw(dir, count_leftover, 16, FTW_PHYS), 0);
	ck_assert_msg(leftovers == 0, "%d files left in the cache, first %s", leftovers,
		      leftover);
}

/* Lines of TEXT that contain WHAT. */
static int lines_with(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; p && (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* TOOL's stderr ERR says once that the cache was not written, and refuses
 * no table. */
static void assert_said_once(const char *tool, const char *err, const char *dir)
{
	char want[256];

	snprintf(want, sizeof(want), "%s: cache not written: %s/", tool, dir);
	ck_assert_msg(lines_with(err, "cache not written") == 1 && strstr(err, want),
		      "%s: not one \"%s...\" line:\n%s", tool, want, err);
	ck_assert_msg(!strstr(err, "unwind table refused"), "%s refused a table:\n%s", tool,
		      err);
}

static const char *const pats[] = { PK_START ";use_plugin;plugin_fn;plugin_spin;~K", NULL };
#define HOT "use_plugin|plugin_fn|plugin_spin"

/* _i: bit 0 the filesystem (enum cache_fs), bit 1 a reader during the run
 * (else after the exit). */
START_TEST(test_whole_stacks)
{
	enum cache_fs kind = _i & 1 ? FS_READ_ONLY : FS_FULL;
	bool during = _i & 2;
	char dir[64], path[4096], out_path[4200], log[4200], what[128], *load_err = NULL;
	const char *load[] = { "-F", PK_WHOLE_FREQ, "--", path, DELAY_STR, RUN_STR, NULL };
	const char *read_args[] = { "-d", "300", "-o", out_path, NULL };
	struct pk_run r = { 0 };
	unsigned long long reported, added;
	const char *line;
	pid_t reader = -1;
	int status;

	pk_e2e_fixture_nofp("dlopen-gcc-pie", path, sizeof(path));
	snprintf(what, sizeof(what), "dlopen-gcc-pie, %s cache, reader %s",
		 kind == FS_FULL ? "full" : "read-only", during ? "during" : "after the exit");
	pk_e2e_comm_of(path, r.comm);
	cache_fs_make(kind, dir, sizeof(dir));
	snprintf(out_path, sizeof(out_path), "/tmp/pk-cache-fs-out-%d.txt", (int)getpid());
	snprintf(log, sizeof(log), "/tmp/pk-cache-fs-log-%d.txt", (int)getpid());

	ck_assert_int_eq(pk_e2e_load_err(load, &load_err), 0);
	if (during) {
		reader = pk_e2e_spawn_read(read_args, log);
		ck_assert_int_gt(reader, 0);
		ck_assert_int_eq(pk_e2e_wait_targets_exit(120), 0);
		status = pk_test_wait(reader);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "probe-read ended with status %#x", status);
		r.out = pk_test_read_file(out_path, NULL);
		r.err = pk_test_read_file(log, NULL);
		ck_assert_ptr_nonnull(r.out);
		ck_assert_ptr_nonnull(r.err);
	} else {
		ck_assert_int_eq(pk_e2e_wait_targets_exit(120), 0);
		pk_e2e_read_until_exit(&r.out, &r.err);
	}
	ck_assert_int_eq(pk_e2e_unload(), 0);
	unlink(out_path);
	unlink(log);
	pk_e2e_parse_folded(r.out, &r.f);
	ck_assert_msg(pk_e2e_parse_summary(r.err, &r.sum), "no summary line in: %s", r.err);

	pk_assert_whole(what, &r, HOT, pats);
	assert_said_once("probe-load", load_err, dir);
	assert_said_once("probe-read", r.err, dir);
	if (during) {
		/* the plugin's table, built by the reader, went into the kernel */
		line = strstr(r.err, "unwind tables: ");
		ck_assert_msg(line && sscanf(line, "unwind tables: %llu files reported without "
					     "one, %llu added", &reported, &added) == 2 &&
			      added >= 1 && added == reported, "%s: tables not added:\n%s", what,
			      r.err);
	}
	assert_nothing_left(dir);
	cache_fs_remove(dir);
	free(load_err);
	pk_run_free(&r);
}
END_TEST

Suite *suite_cache_unwritable(void)
{
	Suite *s = suite_create("cache_unwritable");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF programs; the caches are mounts"))
		return s;
	tc = pk_e2e_tcase(s, "whole_stacks", 90);
	tcase_add_unchecked_fixture(tc, fs_setup, fs_cleanup_all);
	tcase_add_loop_test(tc, test_whole_stacks, 0, 4);
	return s;
}
