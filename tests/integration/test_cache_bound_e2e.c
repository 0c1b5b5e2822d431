// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cache's bound end to end (PROBEKIT_CACHE_MAX): eh2table over 40 of
 * the machine's libraries, whose tables take more than 3 MiB unbounded,
 * keeps the cache under 3 MiB with the newest table in it; and a session,
 * probe-load then probe-read, on a program without frame pointers, keeps
 * it too, its stacks read. Each cache is a folder of the test's own.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "integration/profile_session.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

#define LIBDIR		"/usr/lib/x86_64-linux-gnu"
#define NLIBS		40
#define BOUND		"3M"
#define BOUND_BYTES	(3ULL << 20)

static char libs[NLIBS][512];

/* The first NLIBS shared libraries of LIBDIR by name, of 1 to 16 MiB
 * (files, not links): the same list on every run of a machine. */
static void pick_libs(void)
{
	struct dirent **names;
	int n = scandir(LIBDIR, &names, NULL, alphasort), got = 0;

	ck_assert_int_gt(n, 0);
	for (int i = 0; i < n; i++) {
		char path[512];
		struct stat st;

		snprintf(path, sizeof(path), LIBDIR "/%s", names[i]->d_name);
		if (got < NLIBS && strstr(names[i]->d_name, ".so.") &&
		    !lstat(path, &st) && S_ISREG(st.st_mode) &&
		    st.st_size >= 1 << 20 && st.st_size <= 16 << 20)
			snprintf(libs[got++], sizeof(libs[0]), "%s", path);
		free(names[i]);
	}
	free(names);
	ck_assert_int_eq(got, NLIBS);
}

/* eh2table ARGS... with PROBEKIT_CACHE_MAX=MAX; its stdout. */
static char *eh2table(const char *max, char *const *args, size_t nargs)
{
	char tool[4096], env[64], *out = NULL, *err = NULL;
	char *argv[NLIBS + 8] = { "env", env, tool };
	size_t argc = 3;
	int status;

	snprintf(env, sizeof(env), "PROBEKIT_CACHE_MAX=%s", max);
	pk_test_build_path("eh2table", tool, sizeof(tool));
	for (size_t i = 0; i < nargs; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;
	status = pk_test_run(argv, &out, &err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "eh2table: %s", err);
	free(err);
	return out;
}

/* The cache's total bytes, from eh2table --cache-stats. */
static unsigned long long cache_total(const char *dir)
{
	char *args[] = { "--cache-dir", (char *)dir, "--cache-stats" };
	char *out = eh2table("0", args, 3), *total = strstr(out, "\ntotal ");
	unsigned long long files, bytes;

	ck_assert_msg(total && sscanf(total, "\ntotal %llu %llu", &files, &bytes) == 2, "%s", out);
	free(out);
	return bytes;
}

START_TEST(test_tables_within_bound)
{
	char unbounded[64], bounded[64], last_table[4200], key[160];
	char *args[NLIBS + 3], *out, *line;
	unsigned long long all, kept;

	pick_libs();
	eh_tmpdir(unbounded, sizeof(unbounded));
	eh_tmpdir(bounded, sizeof(bounded));
	args[0] = "--cache-dir";
	for (size_t i = 0; i < NLIBS; i++)
		args[2 + i] = libs[i];

	args[1] = unbounded;
	free(eh2table("0", args, NLIBS + 2));
	all = cache_total(unbounded);
	args[1] = bounded;
	out = eh2table(BOUND, args, NLIBS + 2);
	kept = cache_total(bounded);
	/* the last line's table, the newest: "KEY ROWS BYTES MS STATUS PATH" */
	line = strrchr(out, '\n');
	while (line > out && line[-1] != '\n')
		line--;
	ck_assert_int_eq(sscanf(line, "%159s", key), 1);
	snprintf(last_table, sizeof(last_table), "%s/%.2s/%s.unwind", bounded, key, key + 2);
	fprintf(stderr, "cache bound: %d libraries' tables take %llu bytes; with %s, %llu\n",
		NLIBS, all, BOUND, kept);
	ck_assert_uint_gt(all, BOUND_BYTES);
	ck_assert_uint_le(kept, BOUND_BYTES);
	ck_assert_msg(access(last_table, F_OK) == 0, "the newest table is gone: %s", last_table);
	free(out);
	eh_rmtree(unbounded);
	eh_rmtree(bounded);
}
END_TEST

/* A session with the bound: probe-load builds the tables of a program
 * without frame pointers, probe-read names its stacks; both keep the
 * cache, full of tables of earlier sessions, under the bound. */
START_TEST(test_session_within_bound)
{
	char dir[64], fixture[4096], *args[NLIBS + 3], *out = NULL, *err = NULL;
	const char *load[] = { "-F", "99", "--", fixture, "1", NULL };
	struct pk_e2e_summary sum;
	struct pk_folded f;
	const char *bad = NULL;

	pick_libs();
	eh_tmpdir(dir, sizeof(dir));
	args[0] = "--cache-dir";
	args[1] = dir;
	for (size_t i = 0; i < NLIBS; i++)
		args[2 + i] = libs[i];
	free(eh2table("0", args, NLIBS + 2));	/* earlier sessions' */
	ck_assert_uint_gt(cache_total(dir), BOUND_BYTES);
	setenv("PROBEKIT_CACHE_DIR", dir, 1);
	setenv("PROBEKIT_CACHE_MAX", BOUND, 1);
	pk_e2e_fixture_nofp("chain5-gcc-pie", fixture, sizeof(fixture));
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(60), 0);
	ck_assert_int_eq(pk_e2e_read((const char *[]){ "-d", "60", NULL }, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_msg(pk_e2e_parse_summary(err, &sum), "%s", err);
	ck_assert_msg(pk_folded_parse(out, &f, &bad), "not folded: %s", bad);
	ck_assert_uint_gt(pk_folded_total(&f, "chain5-gcc-pie"), 50);
	fprintf(stderr, "cache bound, a session: %llu samples, cache %llu bytes after\n",
		sum.read, cache_total(dir));
	ck_assert_uint_le(cache_total(dir), BOUND_BYTES);
	pk_folded_free(&f);
	free(out);
	free(err);
	eh_rmtree(dir);
}
END_TEST

Suite *suite_cache_bound_e2e(void)
{
	Suite *s = suite_create("cache_bound_e2e");
	TCase *tc = tcase_create("eh2table");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_tables_within_bound);
	suite_add_tcase(s, tc);
	if (!pk_test_need_root(s, "a session loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "session", 240);
	tcase_add_test(tc, test_session_within_bound);
	return s;
}
