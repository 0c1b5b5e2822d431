// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Uncompressed copies of debug files (symbolization/debug_plain.h): a
 * copy holds every section of the original, byte for byte as libelf
 * inflates it, and no compressed one; an uncompressed file, or no cache
 * root, is left as it is; a copy of another build-id is not used. Then
 * libc through the symbolizer: its names and lines from libc6-dbg's
 * (compressed) file read through a copy must be those read from the file
 * itself. Where the cache cannot be written, or a copy is cut short, the
 * file is read as it is and nothing of a copy is left.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "eh_frame/elf_file.h"
#include "harness/elf_fixture.h"
#include "lib/util/strbuf.h"
#include "symbolization/debug_plain.h"
#include "symbolization/symbolizer.h"
#include "test_util.h"

struct debug_file {
	char path[512], hex[129];
	unsigned char id[64];
	int len;
};

/* The fixture program's debug file (objcopy --only-keep-debug), its
 * sections compressed with zlib or not. */
static void make_debug(bool compress, struct debug_file *d)
{
	const char *prog = pk_fx_build("prog", pk_fx_c_src, false, "-pie");
	char *argv[] = { "objcopy", "--only-keep-debug",
			 compress ? "--compress-debug-sections=zlib" : "--decompress-debug-sections",
			 (char *)prog, d->path, NULL };

	snprintf(d->path, sizeof(d->path), "%s/prog.debug", pk_fx_dir());
	pk_fx_run_ok(argv, NULL);
	pk_test_readelf_build_id(prog, d->hex, sizeof(d->hex));
	d->len = strlen(d->hex) / 2;
	for (int i = 0; i < d->len; i++)
		ck_assert_int_eq(sscanf(d->hex + 2 * i, "%2hhx", &d->id[i]), 1);
}

static void set_root(void)
{
	char root[512];

	snprintf(root, sizeof(root), "%s/cache", pk_fx_dir());
	ck_assert_int_eq(pk_debug_plain_set_root(root), 0);
}

static int count_compressed(Elf *elf)
{
	Elf_Scn *scn = NULL;
	int n = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		ck_assert_ptr_nonnull(gelf_getshdr(scn, &sh));
		n += !!(sh.sh_flags & SHF_COMPRESSED);
	}
	return n;
}

START_TEST(test_copy_is_inflated)
{
	struct debug_file d;
	char want[1024], *path;
	Elf_Scn *a = NULL, *b = NULL;
	Elf *orig, *copy;
	int fd, ofd, sections = 0;

	make_debug(true, &d);
	set_root();
	fd = open(d.path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	path = strdup(d.path);
	ofd = pk_debug_plain_open(fd, d.id, d.len, &path);
	ck_assert_int_ne(ofd, fd);
	snprintf(want, sizeof(want), "%s/cache/%.2s/%s.debug", pk_fx_dir(), d.hex, d.hex + 2);
	ck_assert_str_eq(path, want);
	/* section by section, the original inflated here */
	fd = open(d.path, O_RDONLY | O_CLOEXEC);
	orig = eh_elf_begin(fd);
	copy = eh_elf_begin(ofd);
	ck_assert(orig && copy);
	ck_assert_int_gt(count_compressed(orig), 3);
	ck_assert_int_eq(count_compressed(copy), 0);
	while ((a = elf_nextscn(orig, a))) {
		GElf_Shdr sa, sb;
		Elf_Data *da, *db;

		b = elf_nextscn(copy, b);
		ck_assert_ptr_nonnull(b);
		ck_assert(gelf_getshdr(a, &sa) && gelf_getshdr(b, &sb));
		if (sa.sh_flags & SHF_COMPRESSED) {
			ck_assert_int_eq(elf_compress(a, 0, 0), 1);
			ck_assert(gelf_getshdr(a, &sa));
		}
		ck_assert_uint_eq(sa.sh_name, sb.sh_name);
		ck_assert_uint_eq(sa.sh_type, sb.sh_type);
		ck_assert_uint_eq(sa.sh_flags, sb.sh_flags);
		ck_assert_uint_eq(sa.sh_size, sb.sh_size);
		if (sa.sh_type == SHT_NOBITS)
			continue;
		da = elf_getdata(a, NULL);
		db = elf_getdata(b, NULL);
		ck_assert(da && db);
		ck_assert_uint_eq(da->d_size, db->d_size);
		ck_assert(!da->d_size || !memcmp(da->d_buf, db->d_buf, da->d_size));
		sections++;
	}
	ck_assert_ptr_null(elf_nextscn(copy, b));
	ck_assert_int_gt(sections, 10);
	elf_end(orig);
	elf_end(copy);
	close(fd);
	close(ofd);
	/* found by build-id next time, as it is: a second call takes it */
	fd = open(d.path, O_RDONLY | O_CLOEXEC);
	free(path);
	path = strdup(d.path);
	ofd = pk_debug_plain_open(fd, d.id, d.len, &path);
	ck_assert_str_eq(path, want);
	close(ofd);
	free(path);
}
END_TEST

/* Not compressed, or no root: the file as it was. */
START_TEST(test_left_alone)
{
	struct debug_file d;
	char *path;
	int fd;

	make_debug(true, &d);
	ck_assert_int_eq(pk_debug_plain_set_root(NULL), 0);
	fd = open(d.path, O_RDONLY | O_CLOEXEC);
	path = strdup(d.path);
	ck_assert_int_eq(pk_debug_plain_open(fd, d.id, d.len, &path), fd);
	ck_assert_str_eq(path, d.path);
	close(fd);
	make_debug(false, &d);
	set_root();
	fd = open(d.path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(pk_debug_plain_open(fd, d.id, d.len, &path), fd);
	ck_assert_str_eq(path, d.path);
	close(fd);
	free(path);
}
END_TEST

/* Something else where the copy goes (another build-id's, damaged): not
 * used, replaced. */
START_TEST(test_wrong_copy_replaced)
{
	struct debug_file d;
	char want[1024], *path;
	int fd, ofd;
	Elf *copy;

	make_debug(true, &d);
	set_root();
	snprintf(want, sizeof(want), "%s/cache", pk_fx_dir());
	ck_assert(mkdir(want, 0755) == 0 || errno == EEXIST);
	snprintf(want, sizeof(want), "%s/cache/%.2s", pk_fx_dir(), d.hex);
	ck_assert(mkdir(want, 0755) == 0 || errno == EEXIST);
	snprintf(want, sizeof(want), "%s/cache/%.2s/%s.debug", pk_fx_dir(), d.hex, d.hex + 2);
	pk_test_copy_file(pk_fx_build("other", pk_fx_cxx_src, true, "-pie"), want, 0644);
	fd = open(d.path, O_RDONLY | O_CLOEXEC);
	path = strdup(d.path);
	ofd = pk_debug_plain_open(fd, d.id, d.len, &path);
	ck_assert_str_eq(path, want);
	copy = eh_elf_begin(ofd);
	ck_assert_ptr_nonnull(copy);
	ck_assert_int_eq(count_compressed(copy), 0);
	elf_end(copy);
	close(ofd);
	free(path);
}
END_TEST

/* D's file through pk_debug_plain_open: the file itself, as it was. */
static void expect_left_as_is(const struct debug_file *d)
{
	char *path = strdup(d->path);
	int fd = open(d->path, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pk_debug_plain_open(fd, d->id, d->len, &path), fd);
	ck_assert_str_eq(path, d->path);
	close(fd);
	free(path);
}

static int nfiles;

static int count_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	nfiles += flag == FTW_F;
	return 0;
}

/* A cache that cannot be written (a file where its root would be), then a
 * copy cut short (RLIMIT_FSIZE, as a full disk would): the compressed file
 * is read as it is, each failure is counted for the "cache not written"
 * line, and no part of a copy stays. */
START_TEST(test_unwritable_left_as_is)
{
	struct eh_cache_unsaved before, after;
	struct rlimit small, saved;
	struct debug_file d;
	char root[512];

	make_debug(true, &d);
	set_root();
	snprintf(root, sizeof(root), "%s/cache", pk_fx_dir());
	pk_fx_write_file(root, "not a directory\n");
	eh_cache_unsaved(&before);
	expect_left_as_is(&d);
	eh_cache_unsaved(&after);
	ck_assert_uint_eq(after.writes, before.writes + 1);

	ck_assert_int_eq(unlink(root), 0);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
	small = (struct rlimit){ 4096, saved.rlim_max };	/* the copy is larger */
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	expect_left_as_is(&d);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, SIG_DFL);
	eh_cache_unsaved(&after);
	ck_assert_uint_eq(after.writes, before.writes + 2);
	nfiles = 0;
	ck_assert_int_eq(nftw(root, count_file, 8, FTW_PHYS), 0);
	ck_assert_int_eq(nfiles, 0);
}
END_TEST

static char *libc_text(const struct pk_fx_sym *syms, size_t n, bool cached, __u64 base)
{
	struct pk_symbolizer *sym = pk_fx_symbolizer(cached);
	struct pk_strbuf b = { 0 };
	char line[128];

	for (size_t i = 0; i < n; i += 7) {
		const struct pk_loc *loc = pk_symbolizer_user_loc(sym, PK_FX_PID,
								  base + syms[i].addr + syms[i].size / 2,
								  false);

		ck_assert_ptr_nonnull(loc);
		for (int k = 0; k < loc->nframes; k++) {
			snprintf(line, sizeof(line), ":%u;", loc->frames[k].line);
			pk_strbuf_puts(&b, loc->frames[k].name);
			pk_strbuf_puts(&b, loc->frames[k].file ? loc->frames[k].file : "-");
			pk_strbuf_puts(&b, line);
		}
		pk_strbuf_puts(&b, "\n");
	}
	pk_symbolizer_free(sym);
	ck_assert(!b.failed);
	return b.s;
}

/* libc with libc6-dbg's file: the same names, files and lines through
 * the copy as from the compressed file. */
START_TEST(test_libc_lines)
{
	static const char libc[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	char maps[4096] = "", hex[129], debug[512], copy[1024];
	struct pk_fx_sym *syms;
	size_t n = pk_fx_dynamic_functions(libc, &syms);
	__u64 bias = pk_fx_fake_maps(libc, 0x7f00aa000000ULL, maps, sizeof(maps));
	char *fresh, *through;

	pk_test_readelf_build_id(libc, hex, sizeof(hex));
	snprintf(debug, sizeof(debug), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	/* libc6-dbg is a test dependency: missing is a broken setup */
	ck_assert_msg(access(debug, R_OK) == 0, "no %s: is libc6-dbg installed?", debug);
	ck_assert_uint_gt(n, 500);
	pk_fx_set_maps(PK_FX_PID, maps);
	fresh = libc_text(syms, n, false, bias);
	through = libc_text(syms, n, true, bias);
	snprintf(copy, sizeof(copy), "%s/cache/%.2s/%s.debug", pk_fx_dir(), hex, hex + 2);
	ck_assert_int_eq(access(copy, R_OK), 0);
	ck_assert_str_eq(through, fresh);
	/* lines there were: the debug file was read */
	ck_assert_ptr_nonnull(strstr(fresh, ".c:"));
	free(through);
	/* and from the copy found by build-id, location cache and all */
	through = libc_text(syms, n, true, bias);
	ck_assert_str_eq(through, fresh);
	free(through);
	free(fresh);
	pk_fx_syms_free(syms, n);
}
END_TEST

Suite *suite_debug_plain(void)
{
	Suite *s = suite_create("debug_plain");
	TCase *tc = tcase_create("copies");

	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_copy_is_inflated);
	tcase_add_test(tc, test_left_alone);
	tcase_add_test(tc, test_wrong_copy_replaced);
	tcase_add_test(tc, test_unwritable_left_as_is);
	tcase_add_test(tc, test_libc_lines);
	suite_add_tcase(s, tc);
	return s;
}
