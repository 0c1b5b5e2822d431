// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * elf_file.c and unwind_table__from_elf: every kind of bad file fails with
 * its own errno and reason; a real libc builds a plausible table (no
 * hard-coded counts: properties any glibc has); .debug_frame is read from a
 * program compiled without .eh_frame for its own functions.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"
#include "test_eh_util.h"
#include "eh_internal.h"

static char dir[64], file[160];

static void setup(void)
{
	eh_tmpdir(dir, sizeof(dir));
	snprintf(file, sizeof(file), "%s/f", dir);
}

static void teardown(void)
{
	eh_rmtree(dir);
}

/* Build options that ignore the machine's /usr/lib/debug. */
static const struct unwind_build_opts *no_debug_root(void)
{
	static struct unwind_build_opts o;

	o.sz = sizeof(o);
	o.debug_root = dir;
	return &o;
}

static void expect_error(const char *path, int errno_val, const char *msg)
{
	struct unwind_table *t = NULL;
	struct eh_error err = { "" };

	ck_assert_int_eq(unwind_table__from_elf(path, no_debug_root(), &t, &err), -errno_val);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(err.msg, msg);
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

START_TEST(test_missing)
{
	expect_error(file, ENOENT, "cannot open: No such file or directory");
}
END_TEST

START_TEST(test_directory)
{
	expect_error(dir, EISDIR, "is a directory");
}
END_TEST

START_TEST(test_not_regular)
{
	char fifo[200];

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	expect_error(fifo, EINVAL, "not a regular file");	/* and no hang */
}
END_TEST

START_TEST(test_unreadable)
{
	if (geteuid() == 0)
		return;		/* root reads anything: nothing to test */
	write_file(file, "x", 1);
	chmod(file, 0);
	expect_error(file, EACCES, "cannot open: Permission denied");
}
END_TEST

START_TEST(test_empty)
{
	write_file(file, "", 0);
	expect_error(file, ENOEXEC, "empty file");
}
END_TEST

START_TEST(test_not_elf)
{
	write_file(file, "#!/bin/sh\necho hello\n", 21);
	expect_error(file, ENOEXEC, "not an ELF file");
}
END_TEST

START_TEST(test_truncated_header)
{
	eh_copy_file(EH_TEST_LIBC, file, 40);
	expect_error(file, ENOEXEC, "truncated ELF header (40 bytes)");
}
END_TEST

START_TEST(test_truncated_body)
{
	/* libc's section headers are at its end */
	eh_copy_file(EH_TEST_LIBC, file, 100000);
	expect_error(file, EINVAL, "truncated ELF: section headers end past the end of the file");
}
END_TEST

START_TEST(test_32bit)
{
	unsigned char ehdr[52] = { 0x7f, 'E', 'L', 'F', ELFCLASS32, ELFDATA2LSB, EV_CURRENT };

	ehdr[16] = ET_EXEC;
	ehdr[18] = EM_386;
	ehdr[20] = EV_CURRENT;
	ehdr[40] = 52;		/* e_ehsize */
	write_file(file, ehdr, sizeof(ehdr));
	expect_error(file, ENOTSUP, "32-bit ELF: only 64-bit x86_64 is supported");
}
END_TEST

START_TEST(test_foreign_arch)
{
	const unsigned char arm64[] = { EM_AARCH64, 0 };
	int fd;

	eh_copy_file(EH_TEST_LIBC, file, (size_t)-1);
	fd = open(file, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, arm64, 2, 18), 2);	/* e_machine */
	close(fd);
	expect_error(file, ENOTSUP, "foreign architecture (e_machine 183): only x86_64 is supported");
}
END_TEST

START_TEST(test_no_unwind_sections)
{
	eh_copy_file(EH_TEST_LIBC, file, (size_t)-1);
	/* rename .eh_frame in the section name table */
	eh_patch_file(file, "\0.eh_frame\0", "\0.xh_frame\0", 11);
	expect_error(file, ENODATA, "no .eh_frame or .debug_frame section");
}
END_TEST

START_TEST(test_corrupt_eh_frame_in_elf)
{
	struct unwind_table *t = NULL;
	struct eh_error err;
	struct elf_file *ef;
	struct elf_section sec;
	size_t len;
	char *data;
	__u32 huge = 0x7ffffff0;
	int fd;

	eh_copy_file(EH_TEST_LIBC, file, (size_t)-1);
	ck_assert_int_eq(elf_file__open(file, &ef, &err), 0);
	ck_assert_int_eq(elf_file__section(ef, ".eh_frame", &sec, &err), 0);
	data = (char *)sec.data;
	len = (size_t)(data - (const char *)elf_file__bytes(ef, &len));
	elf_file__close(ef);
	/* the first CIE's length now runs past the section */
	fd = open(file, O_WRONLY);
	ck_assert_int_eq(pwrite(fd, &huge, 4, (off_t)len), 4);
	close(fd);
	ck_assert_int_eq(unwind_table__from_elf(file, no_debug_root(), &t, &err), -EINVAL);
	ck_assert_msg(strstr(err.msg, ".eh_frame: entry at 0x0: length 0x7ffffff0 runs past the end of the section"),
		      "%s", err.msg);
}
END_TEST

/* Lowest start and highest end of the executable sections of PATH. */
static void exec_range(const char *path, __u64 *lo, __u64 *hi)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	*lo = ~0ull;
	*hi = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		gelf_getshdr(scn, &sh);
		if (!(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (sh.sh_addr < *lo)
			*lo = sh.sh_addr;
		if (sh.sh_addr + sh.sh_size > *hi)
			*hi = sh.sh_addr + sh.sh_size;
	}
	elf_end(elf);
	close(fd);
}

START_TEST(test_libc_smoke)
{
	const struct pk_unwind_header *h;
	const struct pk_unwind_rule *rules;
	const __u16 *ids;
	struct unwind_table *t = NULL;
	struct eh_error err;
	unsigned int count[PK_CFA_UNSUPPORTED + 1] = { 0 };
	__u64 lo, hi;
	__u32 i;

	ck_assert_int_eq(unwind_table__from_elf(EH_TEST_LIBC, NULL, &t, &err), 0);
	h = unwind_table__header(t);
	exec_range(EH_TEST_LIBC, &lo, &hi);
	ck_assert_uint_gt(h->nrows, 1000);
	ck_assert_uint_ge(h->pc_base, lo);
	ck_assert_uint_le(h->pc_end, hi);
	ck_assert_uint_ge(h->build_id_len, 8);
	ck_assert(h->flags & PK_UNWIND_HAS_EH_FRAME);
	ck_assert_int_eq(eh_table_validate(h, unwind_table__size(t), &err), 0);
	/* compact: at most 8 bytes per row, header and dictionary included */
	ck_assert_uint_le(unwind_table__size(t), 8ull * h->nrows);

	ids = (const __u16 *)((const char *)h + h->rule_ids_off);
	rules = (const struct pk_unwind_rule *)((const char *)h + h->rules_off);
	for (i = 0; i < h->nrows; i++)
		count[rules[ids[i]].cfa_type]++;
	/* what every x86_64 glibc has: the lazy-binding .plt, __restore_rt,
	 * frame-pointer functions, gaps, and mostly rsp-based rows */
	ck_assert_uint_ge(count[PK_CFA_PLT1], 1);
	ck_assert_uint_ge(count[PK_CFA_SIGNAL], 1);
	ck_assert_uint_ge(count[PK_CFA_RBP], 1);
	ck_assert_uint_ge(count[PK_CFA_END], 1);
	ck_assert_uint_gt(count[PK_CFA_RSP], h->nrows / 2);
	ck_assert_uint_eq(rules[ids[h->nrows - 1]].cfa_type, PK_CFA_END);
	unwind_table__free(t);
}
END_TEST

/* The rule columns of the dump row covering PC ("" if none). */
static const char *rule_at(const char *text, __u64 pc, char *buf, size_t len)
{
	const char *line;

	buf[0] = '\0';
	for (line = text; *line; line = strchr(line, '\n') + 1) {
		unsigned long long start = strtoull(line, NULL, 16);
		const char *nl = strchr(line, '\n');

		if (start > pc)
			break;
		snprintf(buf, len, "%.*s", (int)(nl - line - 17), line + 17);
	}
	return buf;
}

/* A program whose own functions have only .debug_frame (the C runtime's
 * start files still bring .eh_frame): main is covered with .debug_frame,
 * and is END without it. */
START_TEST(test_debug_frame_from_elf)
{
	char src[200], bin[200], *argv[16];
	struct unwind_build_opts opts = { .sz = sizeof(opts), .debug_root = dir };
	const struct pk_unwind_header *h;
	struct unwind_table *t = NULL;
	struct eh_error err;
	__u64 main_pc = 0;
	char *text, rule[64];
	int status;
	Elf *elf;
	Elf_Scn *scn = NULL;
	int fd;

	snprintf(src, sizeof(src), "%s/df.c", dir);
	snprintf(bin, sizeof(bin), "%s/df", dir);
	write_file(src, "int main(void) { return 0; }\n", 29);
	argv[0] = "gcc"; argv[1] = "-O2"; argv[2] = "-g";
	argv[3] = "-fno-asynchronous-unwind-tables"; argv[4] = "-fno-unwind-tables";
	argv[5] = src; argv[6] = "-o"; argv[7] = bin; argv[8] = NULL;
	status = pk_test_run(argv, NULL, NULL);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "gcc failed");

	fd = open(bin, O_RDONLY);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while ((scn = elf_nextscn(elf, scn)) && !main_pc) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;

			gelf_getsym(d, (int)i, &sym);
			if (!strcmp(elf_strptr(elf, sh.sh_link, sym.st_name), "main"))
				main_pc = sym.st_value;
		}
	}
	elf_end(elf);
	close(fd);
	ck_assert_uint_ne(main_pc, 0);

	ck_assert_int_eq(unwind_table__from_elf(bin, &opts, &t, &err), 0);
	h = unwind_table__header(t);
	ck_assert_uint_eq(h->flags & (PK_UNWIND_HAS_EH_FRAME | PK_UNWIND_HAS_DEBUG_FRAME),
			  PK_UNWIND_HAS_EH_FRAME | PK_UNWIND_HAS_DEBUG_FRAME);
	text = eh_rows_text(t);
	ck_assert_str_eq(rule_at(text, main_pc, rule, sizeof(rule)), "rsp+8 u c-8");
	free(text);
	unwind_table__free(t);

	opts.no_debug_frame = true;
	ck_assert_int_eq(unwind_table__from_elf(bin, &opts, &t, &err), 0);
	ck_assert_uint_eq(unwind_table__header(t)->flags & PK_UNWIND_HAS_DEBUG_FRAME, 0);
	text = eh_rows_text(t);
	ck_assert_str_eq(rule_at(text, main_pc, rule, sizeof(rule)), "end u u");
	free(text);
	unwind_table__free(t);
}
END_TEST

Suite *suite_eh_elf(void)
{
	Suite *s = suite_create("eh_elf");
	TCase *tc;

	tc = tcase_create("bad_files");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_missing);
	tcase_add_test(tc, test_directory);
	tcase_add_test(tc, test_not_regular);
	tcase_add_test(tc, test_unreadable);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_not_elf);
	tcase_add_test(tc, test_truncated_header);
	tcase_add_test(tc, test_truncated_body);
	tcase_add_test(tc, test_32bit);
	tcase_add_test(tc, test_foreign_arch);
	tcase_add_test(tc, test_no_unwind_sections);
	tcase_add_test(tc, test_corrupt_eh_frame_in_elf);
	suite_add_tcase(s, tc);

	tc = tcase_create("real_files");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_libc_smoke);
	tcase_add_test(tc, test_debug_frame_from_elf);
	suite_add_tcase(s, tc);
	return s;
}
