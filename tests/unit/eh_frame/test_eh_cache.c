// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cache.c: where the cache lives, how files are keyed (build-id, or a
 * content hash without one), and get-or-build: hit, build, rebuild of a
 * corrupt, truncated or foreign file, --force, nothing left behind on
 * failure; a table built where the cache cannot be written is used all the
 * same, and the failure counted.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/eh_internal.h"
#include "eh_frame/hex.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

#define LDSO "/lib64/ld-linux-x86-64.so.2"

static char dir[64], cache[160], elf[160];

static void setup(void)
{
	eh_tmpdir(dir, sizeof(dir));
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(elf, sizeof(elf), "%s/elf", dir);
	unsetenv(EH_CACHE_ENV);
}

static void teardown(void)
{
	eh_rmtree(dir);
	unsetenv(EH_CACHE_ENV);
}

static int get(const char *path, bool force, struct eh_unwind_table **t, char *file)
{
	struct eh_cache_opts o = { .sz = sizeof(o), .cache_dir = cache, .force = force };
	char err[PK_ERR_LEN] = "";
	int ret = eh_cache_get(path, &o, t, file, 512, err);

	ck_assert_msg(ret > 0, "eh_cache_get: %d %s", ret, err);
	return ret;
}

/* ---- root, key, path ------------------------------------------------------ */

START_TEST(test_root_precedence)
{
	char buf[256];

	ck_assert_int_eq(eh_cache_root("/given", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/given");
	setenv(EH_CACHE_ENV, "/from-env", 1);
	ck_assert_int_eq(eh_cache_root("/given", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/given");
	ck_assert_int_eq(eh_cache_root(NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/from-env");
	unsetenv(EH_CACHE_ENV);
	ck_assert_int_eq(eh_cache_root(NULL, buf, sizeof(buf)), 0);
	if (geteuid() == 0) {
		ck_assert_str_eq(buf, "/var/cache/probekit");
	} else {
		const char *xdg = getenv("XDG_CACHE_HOME");
		char want[256];

		if (xdg && *xdg == '/')
			snprintf(want, sizeof(want), "%s/probekit", xdg);
		else
			snprintf(want, sizeof(want), "%s/.cache/probekit", getenv("HOME"));
		ck_assert_str_eq(buf, want);
	}
	ck_assert_int_eq(eh_cache_root("/a/long/directory", buf, 8), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_path_layout)
{
	char buf[256];

	ck_assert_int_eq(eh_cache_path("/c", "93ac61ec5a8eb139", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/c/93/ac61ec5a8eb139.unwind");
	ck_assert_int_eq(eh_cache_path("/c", "nb-0123456789abcdef", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/c/nb/0123456789abcdef.unwind");
	ck_assert_int_eq(eh_cache_path("/c", "ab", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(eh_cache_path("/c", "ab/../../x", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(eh_cache_path("/c", "93ac61ec5a8eb139", buf, 10), -ENAMETOOLONG);
}
END_TEST

/* The one hex writer: build-ids in cache keys and debug-file paths. */
START_TEST(test_hex)
{
	const __u8 id[] = { 0x00, 0x1f, 0xa0, 0xff };
	char out[2 * sizeof(id) + 1];

	memset(out, 'x', sizeof(out));
	ck_assert_int_eq(eh_hex(id, sizeof(id), out, sizeof(out)), 0);
	ck_assert_str_eq(out, "001fa0ff");
	ck_assert_int_eq(eh_hex(id, 0, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "");
	/* no room for the NUL: refused, nothing written past the buffer */
	memset(out, 'x', sizeof(out));
	ck_assert_int_eq(eh_hex(id, sizeof(id), out, sizeof(out) - 1), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_key_is_build_id)
{
	char key[160], want[160];
	char err[PK_ERR_LEN];

	pk_test_readelf_build_id(EH_TEST_LIBC, want, sizeof(want));
	ck_assert_int_eq(eh_cache_key(EH_TEST_LIBC, key, sizeof(key), err), 0);
	ck_assert_str_eq(key, want);
}
END_TEST

/* Copy of ld.so with its build-id note's type changed: no build-id. */
static void copy_without_build_id(const char *dst)
{
	/* Elf64_Nhdr { namesz 4, descsz 20, type NT_GNU_BUILD_ID } "GNU" */
	static const unsigned char note[] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0,
					      'G', 'N', 'U', 0 };
	unsigned char patched[sizeof(note)];

	memcpy(patched, note, sizeof(note));
	patched[8] = 0x99;
	eh_copy_file(LDSO, dst, (size_t)-1);
	eh_patch_file(dst, note, patched, sizeof(note));
}

START_TEST(test_key_without_build_id)
{
	char key1[64], key2[64], key3[64], other[200];
	char err[PK_ERR_LEN];
	size_t i;

	copy_without_build_id(elf);
	ck_assert_int_eq(eh_cache_key(elf, key1, sizeof(key1), err), 0);
	ck_assert_uint_eq(strlen(key1), 3 + 16);
	ck_assert(!strncmp(key1, "nb-", 3));
	for (i = 3; i < strlen(key1); i++)
		ck_assert(strchr("0123456789abcdef", key1[i]));

	/* the same bytes elsewhere: the same key */
	snprintf(other, sizeof(other), "%s/elsewhere", dir);
	copy_without_build_id(other);
	ck_assert_int_eq(eh_cache_key(other, key2, sizeof(key2), err), 0);
	ck_assert_str_eq(key1, key2);

	/* one byte changed (a section name): another key */
	eh_patch_file(other, ".gnu_debuglink", ".gnu_debuglinx", 14);
	ck_assert_int_eq(eh_cache_key(other, key3, sizeof(key3), err), 0);
	ck_assert_str_ne(key1, key3);
}
END_TEST

START_TEST(test_key_bad_file)
{
	char key[64];
	char err[PK_ERR_LEN];

	ck_assert_int_eq(eh_cache_key(dir, key, sizeof(key), err), -EISDIR);
	ck_assert_str_eq(err, "is a directory");
}
END_TEST

/* ---- get ------------------------------------------------------------------ */

START_TEST(test_build_then_hit)
{
	struct eh_unwind_table *t = NULL, *fresh = NULL;
	char file[512], file2[512], key[160], want[512];
	char err[PK_ERR_LEN];
	struct stat st;

	ck_assert_int_eq(get(LDSO, false, &t, file), EH_CACHE_BUILT);
	ck_assert_int_eq(eh_cache_key(LDSO, key, sizeof(key), err), 0);
	ck_assert_int_eq(eh_cache_path(cache, key, want, sizeof(want)), 0);
	ck_assert_str_eq(file, want);
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_uint_eq((size_t)st.st_size, eh_unwind_table_size(t));
	eh_unwind_table_free(t);

	ck_assert_int_eq(get(LDSO, false, &t, file2), EH_CACHE_HIT);
	ck_assert_str_eq(file, file2);
	ck_assert_int_eq(eh_unwind_table_from_elf(LDSO, NULL, &fresh, err), 0);
	ck_assert_uint_eq(eh_unwind_table_size(t), eh_unwind_table_size(fresh));
	ck_assert_int_eq(memcmp(eh_unwind_table_header(t), eh_unwind_table_header(fresh),
				eh_unwind_table_size(t)), 0);
	eh_unwind_table_free(t);
	eh_unwind_table_free(fresh);
	ck_assert_int_eq(eh_count_files(cache), 1);
}
END_TEST

START_TEST(test_corrupt_and_truncated_rebuilt)
{
	char file[512];
	unsigned char byte;
	struct stat st;
	FILE *f;

	ck_assert_int_eq(get(LDSO, false, NULL, file), EH_CACHE_BUILT);
	ck_assert_int_eq(stat(file, &st), 0);

	f = fopen(file, "r+");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, st.st_size - 20, SEEK_SET), 0);
	byte = (unsigned char)fgetc(f);
	ck_assert_int_eq(fseek(f, st.st_size - 20, SEEK_SET), 0);
	ck_assert_int_eq(fputc(byte ^ 0xff, f), byte ^ 0xff);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(get(LDSO, false, NULL, file), EH_CACHE_REBUILT);
	ck_assert_int_eq(get(LDSO, false, NULL, file), EH_CACHE_HIT);

	ck_assert_int_eq(truncate(file, st.st_size / 2), 0);
	ck_assert_int_eq(get(LDSO, false, NULL, file), EH_CACHE_REBUILT);
	ck_assert_int_eq(get(LDSO, false, NULL, file), EH_CACHE_HIT);
	ck_assert_int_eq(eh_count_files(cache), 1);
}
END_TEST

START_TEST(test_foreign_table_rebuilt)
{
	char file[512], libc_file[512];

	/* a valid table of another ELF sitting under this ELF's key */
	ck_assert_int_eq(get(EH_TEST_LIBC, false, NULL, libc_file), EH_CACHE_BUILT);
	ck_assert_int_eq(get(LDSO, false, NULL, file), EH_CACHE_BUILT);
	ck_assert_int_eq(rename(libc_file, file), 0);
	ck_assert_int_eq(get(LDSO, false, NULL, file), EH_CACHE_REBUILT);
	ck_assert_int_eq(get(LDSO, false, NULL, file), EH_CACHE_HIT);
}
END_TEST

START_TEST(test_force)
{
	char file[512];

	ck_assert_int_eq(get(LDSO, false, NULL, file), EH_CACHE_BUILT);
	ck_assert_int_eq(get(LDSO, true, NULL, file), EH_CACHE_BUILT);
	ck_assert_int_eq(get(LDSO, false, NULL, file), EH_CACHE_HIT);
	ck_assert_int_eq(eh_count_files(cache), 1);
}
END_TEST

START_TEST(test_without_build_id)
{
	char file[512], key[64], want[512];
	char err[PK_ERR_LEN];
	struct eh_unwind_table *t = NULL;

	copy_without_build_id(elf);
	ck_assert_int_eq(get(elf, false, &t, file), EH_CACHE_BUILT);
	ck_assert(eh_unwind_table_header(t)->flags & PK_UNWIND_NO_BUILD_ID);
	ck_assert_uint_eq(eh_unwind_table_header(t)->build_id_len, 0);
	eh_unwind_table_free(t);
	ck_assert_int_eq(eh_cache_key(elf, key, sizeof(key), err), 0);
	ck_assert_int_eq(eh_cache_path(cache, key, want, sizeof(want)), 0);
	ck_assert_str_eq(file, want);
	ck_assert_int_eq(get(elf, false, NULL, file), EH_CACHE_HIT);
}
END_TEST

START_TEST(test_env_root)
{
	struct eh_cache_opts o = { .sz = sizeof(o) };
	char err[PK_ERR_LEN];
	char file[512];

	setenv(EH_CACHE_ENV, cache, 1);
	ck_assert_int_eq(eh_cache_get(LDSO, &o, NULL, file, sizeof(file), err),
			 EH_CACHE_BUILT);
	ck_assert(!strncmp(file, cache, strlen(cache)));
	ck_assert_int_eq(eh_count_files(cache), 1);
}
END_TEST

START_TEST(test_bad_elf_leaves_nothing)
{
	struct eh_cache_opts o = { .sz = sizeof(o), .cache_dir = cache };
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN];
	char bad[200];

	snprintf(bad, sizeof(bad), "%s/no-unwind", dir);
	eh_copy_file(LDSO, bad, (size_t)-1);
	eh_patch_file(bad, "\0.eh_frame\0", "\0.xh_frame\0", 11);
	ck_assert_int_eq(eh_cache_get(bad, &o, &t, NULL, 0, err), -ENODATA);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(eh_cache_get(dir, &o, &t, NULL, 0, err), -EISDIR);
	ck_assert_int_eq(access(cache, F_OK), -1);	/* not even the root */
}
END_TEST

/* ---- a cache that cannot be written ---------------------------------------- */

/* A and B hold the same table, byte for byte. */
static void assert_same_table(const struct eh_unwind_table *a, const struct eh_unwind_table *b)
{
	ck_assert_uint_eq(eh_unwind_table_size(a), eh_unwind_table_size(b));
	ck_assert(!memcmp(eh_unwind_table_header(a), eh_unwind_table_header(b),
			  eh_unwind_table_size(a)));
}

/* The table of PATH from a cache that can be written, for comparison. */
static struct eh_unwind_table *written_table(const char *path)
{
	struct eh_unwind_table *t = NULL;
	char file[512];

	ck_assert_int_eq(get(path, true, &t, file), EH_CACHE_BUILT);
	return t;
}

/* A root that cannot be made (a file is where its parent would be): the
 * table is built and returned, ERR says why it was not kept, and the
 * failure is counted once, with its errno and directory. */
START_TEST(test_unwritable_root_table_used)
{
	char root[256], file[512], err[PK_ERR_LEN] = "", want_dir[300];
	struct eh_cache_opts o = { .sz = sizeof(o), .cache_dir = root };
	struct eh_unwind_table *t = NULL, *ref;
	struct eh_cache_unsaved before, after;

	snprintf(root, sizeof(root), "%s/cache", elf);
	eh_copy_file(LDSO, elf, 64);		/* a file, not a directory */
	eh_cache_unsaved(&before);
	ck_assert_int_eq(eh_cache_get(LDSO, &o, &t, file, sizeof(file), err),
			 EH_CACHE_UNSAVED);
	eh_cache_unsaved(&after);
	ck_assert_ptr_nonnull(t);
	ck_assert_msg(strstr(err, "cannot create") && strstr(err, strerror(ENOTDIR)), "%s",
		      err);
	ck_assert_uint_eq(after.writes, before.writes + 1);
	if (!before.writes) {
		snprintf(want_dir, sizeof(want_dir), "%.*s", (int)(strrchr(file, '/') - file),
			 file);
		ck_assert_int_eq(after.error, -ENOTDIR);
		ck_assert_str_eq(after.dir, want_dir);
	}
	ref = written_table(LDSO);
	assert_same_table(t, ref);
	eh_unwind_table_free(ref);
	eh_unwind_table_free(t);
}
END_TEST

/* A write cut short (here by RLIMIT_FSIZE, as a full disk would): the
 * table is used all the same and no part of its file stays behind. */
START_TEST(test_write_cut_short_leaves_nothing)
{
	struct rlimit small, saved;
	struct eh_cache_opts o = { .sz = sizeof(o), .cache_dir = cache };
	struct eh_unwind_table *t = NULL, *ref;
	struct eh_cache_unsaved before, after;
	char err[PK_ERR_LEN] = "";
	int ret;

	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
	/* the soft limit only: raising a hard one back needs CAP_SYS_RESOURCE */
	small = (struct rlimit){ 4096, saved.rlim_max };
	signal(SIGXFSZ, SIG_IGN);	/* EFBIG, not a signal */
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	eh_cache_unsaved(&before);
	ret = eh_cache_get(EH_TEST_LIBC, &o, &t, NULL, 0, err);
	eh_cache_unsaved(&after);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, SIG_DFL);
	ck_assert_msg(ret == EH_CACHE_UNSAVED, "%d %s", ret, err);
	ck_assert_msg(strstr(err, "cannot write") && strstr(err, strerror(EFBIG)), "%s", err);
	ck_assert_uint_eq(after.writes, before.writes + 1);
	ck_assert_int_eq(eh_count_files(cache), 0);
	ck_assert_uint_gt(eh_unwind_table_size(t), small.rlim_cur);
	ref = written_table(EH_TEST_LIBC);
	assert_same_table(t, ref);
	eh_unwind_table_free(ref);
	eh_unwind_table_free(t);
}
END_TEST

/* Every writer's failure is counted, eh_cache_write()'s too. */
START_TEST(test_write_failure_counted)
{
	struct eh_cache_unsaved before, after;
	char path[300], err[PK_ERR_LEN] = "";

	snprintf(path, sizeof(path), "%s/absent/file", dir);
	eh_cache_unsaved(&before);
	ck_assert_int_eq(eh_cache_write(path, "x", 1, err), -ENOENT);
	ck_assert_int_eq(eh_cache_write(path, "x", 1, err), -ENOENT);
	eh_cache_unsaved(&after);
	ck_assert_uint_eq(after.writes, before.writes + 2);
	if (!before.writes) {
		ck_assert_int_eq(after.error, -ENOENT);
		snprintf(path, sizeof(path), "%s/absent", dir);
		ck_assert_str_eq(after.dir, path);
	}
	ck_assert_int_eq(eh_count_files(dir), 0);
}
END_TEST

Suite *suite_eh_cache(void)
{
	Suite *s = suite_create("eh_cache");
	TCase *tc;

	tc = tcase_create("naming");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_root_precedence);
	tcase_add_test(tc, test_path_layout);
	tcase_add_test(tc, test_key_is_build_id);
	tcase_add_test(tc, test_hex);
	tcase_add_test(tc, test_key_without_build_id);
	tcase_add_test(tc, test_key_bad_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("get");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_build_then_hit);
	tcase_add_test(tc, test_corrupt_and_truncated_rebuilt);
	tcase_add_test(tc, test_foreign_table_rebuilt);
	tcase_add_test(tc, test_force);
	tcase_add_test(tc, test_without_build_id);
	tcase_add_test(tc, test_env_root);
	tcase_add_test(tc, test_bad_elf_leaves_nothing);
	suite_add_tcase(s, tc);

	tc = tcase_create("unwritable");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_unwritable_root_table_used);
	tcase_add_test(tc, test_write_cut_short_leaves_nothing);
	tcase_add_test(tc, test_write_failure_counted);
	suite_add_tcase(s, tc);
	return s;
}
