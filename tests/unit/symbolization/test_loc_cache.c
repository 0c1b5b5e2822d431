// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The location cache (symbolization/loc_cache.h): its file read back as
 * written, and nothing of a file that is another source's, damaged or
 * cut; then the symbolizer through it, whose answers from a cache an
 * earlier symbolizer saved must be exactly those of a symbolizer without
 * one (the oracle: the symbol table and DWARF read afresh), for a program
 * compiled here; and the same answers where the cache cannot be written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "harness/elf_fixture.h"
#include "lib/util/strbuf.h"
#include "symbolization/loc_cache.h"
#include "symbolization/symbolizer.h"
#include "test_util.h"

#define SIG	0x1234abcdULL

static char *cache_file(void)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/ab/cdef.locs", pk_fx_dir());
	return path;
}

static const struct pk_srcline_frame frames[] = {
	{ "inlined_one", "/src/a.c", 12 }, { NULL, NULL, 0 }, { "outer", "/src/b.c", 7 },
};

/* Three entries: a symbol with DWARF frames, one without a symbol, one
 * without DWARF (--no-inline). */
static void put_three(struct pk_loc_cache *c)
{
	ck_assert_int_eq(pk_loc_cache_put(c, 0x1010, &(struct pk_loc_entry){
		.name = "outer", .start = 0x1000, .dwarf = true, .nframes = 3,
		.frames = frames }), 0);
	ck_assert_int_eq(pk_loc_cache_put(c, 0x2000, &(struct pk_loc_entry){ .dwarf = true }), 0);
	ck_assert_int_eq(pk_loc_cache_put(c, 0xffffffffc0010010ULL, &(struct pk_loc_entry){
		.name = "nft_do_chain", .start = 0xffffffffc0010000ULL }), 0);
}

static void check_three(const struct pk_loc_cache *c, bool saved)
{
	const struct pk_loc_entry *e = pk_loc_cache_get(c, 0x1010);

	ck_assert_uint_eq(pk_loc_cache_count(c), 3);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->name, "outer");
	ck_assert_uint_eq(e->start, 0x1000);
	ck_assert(e->dwarf && e->saved == saved);
	ck_assert_int_eq(e->nframes, 3);
	ck_assert_str_eq(e->frames[0].name, "inlined_one");
	ck_assert_str_eq(e->frames[0].file, "/src/a.c");
	ck_assert_uint_eq(e->frames[0].line, 12);
	ck_assert_ptr_null(e->frames[1].name);
	ck_assert_ptr_null(e->frames[1].file);
	ck_assert_str_eq(e->frames[2].file, "/src/b.c");
	e = pk_loc_cache_get(c, 0x2000);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_null(e->name);
	ck_assert(e->dwarf);
	ck_assert_int_eq(e->nframes, 0);
	e = pk_loc_cache_get(c, 0xffffffffc0010010ULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->name, "nft_do_chain");
	ck_assert(!e->dwarf);
	ck_assert_ptr_null(pk_loc_cache_get(c, 0x1011));
}

static void save_three(void)
{
	struct pk_loc_cache *c = pk_loc_cache_open(cache_file(), SIG);

	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(pk_loc_cache_count(c), 0);
	put_three(c);
	check_three(c, false);
	ck_assert_int_eq(pk_loc_cache_save(c), 0);	/* makes ab/ */
	pk_loc_cache_free(c);
}

START_TEST(test_read_back)
{
	struct pk_loc_cache *c;

	save_three();
	c = pk_loc_cache_open(cache_file(), SIG);
	ck_assert_ptr_nonnull(c);
	check_three(c, true);
	/* nothing new: not written again */
	ck_assert_int_eq(unlink(cache_file()), 0);
	ck_assert_int_eq(pk_loc_cache_save(c), 0);
	ck_assert_int_ne(access(cache_file(), F_OK), 0);
	/* a new answer in place of an old one is written */
	ck_assert_int_eq(pk_loc_cache_put(c, 0x2000, &(struct pk_loc_entry){
		.name = "later", .start = 0x1ff0, .dwarf = true }), 0);
	ck_assert_int_eq(pk_loc_cache_save(c), 0);
	pk_loc_cache_free(c);
	c = pk_loc_cache_open(cache_file(), SIG);
	ck_assert_uint_eq(pk_loc_cache_count(c), 3);
	ck_assert_str_eq(pk_loc_cache_get(c, 0x2000)->name, "later");
	pk_loc_cache_free(c);
}
END_TEST

/* Another source's file reads as empty, and the save replaces it. */
START_TEST(test_other_source)
{
	struct pk_loc_cache *c;

	save_three();
	c = pk_loc_cache_open(cache_file(), SIG + 1);
	ck_assert_uint_eq(pk_loc_cache_count(c), 0);
	ck_assert_int_eq(pk_loc_cache_put(c, 0x3000, &(struct pk_loc_entry){ .name = "x" }), 0);
	ck_assert_int_eq(pk_loc_cache_save(c), 0);
	pk_loc_cache_free(c);
	c = pk_loc_cache_open(cache_file(), SIG);
	ck_assert_uint_eq(pk_loc_cache_count(c), 0);
	pk_loc_cache_free(c);
	c = pk_loc_cache_open(cache_file(), SIG + 1);
	ck_assert_uint_eq(pk_loc_cache_count(c), 1);
	pk_loc_cache_free(c);
}
END_TEST

/* Every byte changed, and every length cut short: nothing is taken (the
 * checksum, or the parse, refuses it) and nothing crashes. */
START_TEST(test_damaged)
{
	struct pk_loc_cache *c;
	size_t len;
	__u8 *buf;

	save_three();
	buf = (__u8 *)pk_test_read_file(cache_file(), &len);
	ck_assert_ptr_nonnull(buf);
	c = pk_loc_cache_open(NULL, 0);
	ck_assert_int_eq(pk_loc_cache_parse(c, buf, len, SIG), 0);
	check_three(c, true);
	pk_loc_cache_free(c);
	for (size_t i = 0; i < len; i++) {
		c = pk_loc_cache_open(NULL, 0);
		ck_assert_int_eq(pk_loc_cache_parse(c, buf, i, SIG), -EINVAL);
		buf[i] ^= 0x41;
		ck_assert_int_eq(pk_loc_cache_parse(c, buf, len, SIG), -EINVAL);
		buf[i] ^= 0x41;
		ck_assert_uint_eq(pk_loc_cache_count(c), 0);
		pk_loc_cache_free(c);
	}
	free(buf);
}
END_TEST

/* What a record cannot hold is not kept (looked up again next time). */
START_TEST(test_limits)
{
	struct pk_srcline_frame many[PK_LOC_CACHE_MAX_FRAMES + 1] = { 0 };
	struct pk_loc_cache *c = pk_loc_cache_open(NULL, 0);
	char *long_name = malloc(70000);

	memset(long_name, 'a', 69999);
	long_name[69999] = '\0';
	ck_assert_int_eq(pk_loc_cache_put(c, 1, &(struct pk_loc_entry){
		.dwarf = true, .nframes = PK_LOC_CACHE_MAX_FRAMES + 1, .frames = many }), 0);
	ck_assert_int_eq(pk_loc_cache_put(c, 2, &(struct pk_loc_entry){ .name = long_name }), 0);
	ck_assert_uint_eq(pk_loc_cache_count(c), 0);
	ck_assert_int_eq(pk_loc_cache_put(c, 3, &(struct pk_loc_entry){
		.dwarf = true, .nframes = PK_LOC_CACHE_MAX_FRAMES, .frames = many }), 0);
	ck_assert_uint_eq(pk_loc_cache_count(c), 1);
	/* a cache without a file saves nothing, and says it is fine */
	ck_assert_int_eq(pk_loc_cache_save(c), 0);
	pk_loc_cache_free(c);
	free(long_name);
}
END_TEST

/* --- through the symbolizer ------------------------------------------------- */

static void put_loc(struct pk_strbuf *b, const struct pk_loc *loc)
{
	char line[64];

	ck_assert_ptr_nonnull(loc);
	snprintf(line, sizeof(line), "%llx %llx %llx:", (unsigned long long)loc->addr,
		 (unsigned long long)loc->module_addr, (unsigned long long)loc->sym_off);
	pk_strbuf_puts(b, line);
	for (int i = 0; i < loc->nframes; i++) {
		snprintf(line, sizeof(line), " %u ", loc->frames[i].line);
		pk_strbuf_puts(b, loc->frames[i].name);
		pk_strbuf_puts(b, "@");
		pk_strbuf_puts(b, loc->frames[i].file ? loc->frames[i].file : "-");
		pk_strbuf_puts(b, line);
	}
	if (loc->map)
		pk_strbuf_puts(b, loc->map->module->path);
	pk_strbuf_puts(b, "\n");
}

/* Every 3rd byte of PATH's text (mapped for PK_FX_PID at PK_FX_PIE_BASE),
 * as return addresses and not, symbolized by a new symbolizer: the text of
 * every location; into *FROM_CACHE its stats' cached, into *IN_FILE how
 * many locations are in PATH. */
static char *resolve_text(const char *path, bool cached, __u64 *from_cache, __u64 *in_file)
{
	__u64 bias, lo = 0, size = 0;
	struct pk_symbolizer *sym = pk_fx_symbolizer(cached);
	struct pk_symbolizer_stats st;
	struct pk_strbuf b = { 0 };
	char maps[4096] = "";

	ck_assert_ptr_nonnull(sym);
	bias = pk_fx_fake_maps(path, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	pk_fx_symbol(path, "main", &lo, &size);
	ck_assert_uint_gt(size, 0);
	/* from well before main (the other functions) to its end */
	lo = lo > 0x200 ? lo - 0x200 : 0;
	*in_file = 0;
	for (__u64 a = lo; a < lo + 0x200 + size; a += 3)
		for (int ret = 0; ret < 2; ret++) {
			const struct pk_loc *loc = pk_symbolizer_user_loc(sym, PK_FX_PID,
									  bias + a, ret);

			put_loc(&b, loc);
			*in_file += loc->map && !strcmp(loc->map->module->path, path);
		}
	pk_symbolizer_stats(sym, &st);
	*from_cache = st.cached;
	pk_symbolizer_free(sym);	/* saves */
	ck_assert(!b.failed);
	return b.s;
}

START_TEST(test_same_answers)
{
	const char *path = pk_fx_build("c_pie", pk_fx_c_src, false, "-pie");
	char hex[128], locs[1024], *fresh, *cold, *warm, *again;
	__u64 cached, in_file;
	struct timespec times[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };

	fresh = resolve_text(path, false, &cached, &in_file);
	ck_assert_uint_eq(cached, 0);
	cold = resolve_text(path, true, &cached, &in_file);
	ck_assert_uint_eq(cached, 0);
	ck_assert_uint_gt(in_file, 50);
	ck_assert_str_eq(cold, fresh);
	/* saved where the unwind table would be: by build-id */
	pk_test_readelf_build_id(path, hex, sizeof(hex));
	snprintf(locs, sizeof(locs), "%s/cache/%.2s/%s.locs", pk_fx_dir(), hex, hex + 2);
	ck_assert_int_eq(access(locs, R_OK), 0);
	warm = resolve_text(path, true, &cached, &in_file);
	ck_assert_str_eq(warm, fresh);
	/* every address in the file from the cache (the others are in none) */
	ck_assert_uint_eq(cached, in_file);
	/* the file changed (its time): another source, read afresh */
	ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
	again = resolve_text(path, true, &cached, &in_file);
	ck_assert_uint_eq(cached, 0);
	ck_assert_str_eq(again, fresh);
	free(fresh);
	free(cold);
	free(warm);
	free(again);
}
END_TEST

/* A cache that cannot be written (a file where its root would be, as a
 * full or read-only disk refuses it): the same answers, none from a cache,
 * every save counted as not written, and nothing left. */
START_TEST(test_unwritable_same_answers)
{
	const char *path = pk_fx_build("c_pie", pk_fx_c_src, false, "-pie");
	char root[1024], *fresh, *unsaved;
	struct eh_cache_unsaved before, after;
	__u64 cached, in_file;
	struct stat st;

	fresh = resolve_text(path, false, &cached, &in_file);
	snprintf(root, sizeof(root), "%s/cache", pk_fx_dir());
	pk_fx_write_file(root, "not a directory\n");
	eh_cache_unsaved(&before);
	unsaved = resolve_text(path, true, &cached, &in_file);
	eh_cache_unsaved(&after);
	ck_assert_str_eq(unsaved, fresh);
	ck_assert_uint_eq(cached, 0);
	ck_assert_uint_gt(in_file, 50);
	ck_assert_uint_gt(after.writes, before.writes);
	ck_assert_int_eq(stat(root, &st), 0);
	ck_assert_msg(S_ISREG(st.st_mode) && st.st_size == 16, "%s changed", root);
	free(fresh);
	free(unsaved);
}
END_TEST

static bool every_pid_in_use(void *ctx, __u32 pid)
{
	(void)ctx;
	(void)pid;
	return true;
}

/* A reader's sweep after an interval saves what it learnt of the files it
 * keeps: a reader killed after it loses only the next interval's. */
START_TEST(test_saved_at_sweep)
{
	const char *path = pk_fx_build("c_pie", pk_fx_c_src, false, "-pie");
	struct pk_symbolizer *sym = pk_fx_symbolizer(true);
	char hex[128], locs[1024], maps[4096] = "";
	__u64 bias, lo = 0, size = 0;

	ck_assert_ptr_nonnull(sym);
	bias = pk_fx_fake_maps(path, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	pk_fx_symbol(path, "main", &lo, &size);
	ck_assert_ptr_nonnull(pk_symbolizer_user_loc(sym, PK_FX_PID, bias + lo, false));
	pk_test_readelf_build_id(path, hex, sizeof(hex));
	snprintf(locs, sizeof(locs), "%s/cache/%.2s/%s.locs", pk_fx_dir(), hex, hex + 2);
	ck_assert_int_ne(access(locs, F_OK), 0);
	ck_assert_uint_eq(pk_symbolizer_forget_gone(sym, every_pid_in_use, NULL), 0);
	ck_assert_msg(access(locs, R_OK) == 0, "%s not saved by the sweep", locs);
	pk_symbolizer_free(sym);
}
END_TEST

Suite *suite_loc_cache(void)
{
	Suite *s = suite_create("loc_cache");
	TCase *tc = tcase_create("file");

	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_add_test(tc, test_read_back);
	tcase_add_test(tc, test_other_source);
	tcase_add_test(tc, test_damaged);
	tcase_add_test(tc, test_limits);
	suite_add_tcase(s, tc);
	tc = tcase_create("symbolizer");
	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_same_answers);
	tcase_add_test(tc, test_saved_at_sweep);
	tcase_add_test(tc, test_unwritable_same_answers);
	suite_add_tcase(s, tc);
	return s;
}
