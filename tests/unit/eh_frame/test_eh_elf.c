// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * elf_file.c and eh_unwind_table_from_elf: every kind of bad file fails with
 * its own errno and reason; a real libc builds a plausible table (no
 * hard-coded counts: properties any glibc has); .debug_frame is read from a
 * program compiled without .eh_frame for its own functions.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eh_frame/eh_internal.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

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
static const struct eh_unwind_build_opts *no_debug_root(void)
{
	static struct eh_unwind_build_opts o;

	o.sz = sizeof(o);
	o.debug_root = dir;
	return &o;
}

static void expect_error(const char *path, int errno_val, const char *msg)
{
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN] = "";

	ck_assert_int_eq(eh_unwind_table_from_elf(path, no_debug_root(), &t, err), -errno_val);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(err, msg);
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
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN] = "";
	pid_t pid;
	int status, ret;

	write_file(file, "x", 1);
	ck_assert_int_eq(chmod(file, 0), 0);
	if (geteuid() != 0) {
		expect_error(file, EACCES, "cannot open: Permission denied");
		return;
	}
	/* root reads a mode-000 file: try it as nobody, in a child (check's
	 * assertions do not work there, so it reports through its status) */
	ck_assert_int_eq(chmod(dir, 0755), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		ret = eh_unwind_table_from_elf(file, no_debug_root(), &t, err);
		_exit(ret == -EACCES && !t &&
		      !strcmp(err, "cannot open: Permission denied") ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "as nobody: status %#x (1: wrong error, 2: could not drop root)", status);
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
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN];
	struct eh_elf_file *ef;
	struct elf_section sec;
	const char *bytes;
	size_t size;
	off_t off;
	__u32 huge = 0x7ffffff0;
	int fd;

	eh_copy_file(EH_TEST_LIBC, file, (size_t)-1);
	ck_assert_int_eq(eh_elf_file_open(file, &ef, err), 0);
	ck_assert_int_eq(eh_elf_file_section(ef, ".eh_frame", &sec, err), 0);
	bytes = eh_elf_file_bytes(ef, &size);
	off = (const char *)sec.data - bytes;	/* not compressed: a file offset */
	eh_elf_file_close(ef);
	/* the first CIE's length now runs past the section */
	fd = open(file, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, &huge, 4, off), 4);
	close(fd);
	ck_assert_int_eq(eh_unwind_table_from_elf(file, no_debug_root(), &t, err), -EINVAL);
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(err, ".eh_frame: entry at 0x0: length 0x7ffffff0 runs past the end of the section"),
		      "%s", err);
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
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN];
	unsigned int count[PK_CFA_UNSUPPORTED + 1] = { 0 };
	__u64 lo, hi;
	__u32 i;

	ck_assert_int_eq(eh_unwind_table_from_elf(EH_TEST_LIBC, NULL, &t, err), 0);
	h = eh_unwind_table_header(t);
	exec_range(EH_TEST_LIBC, &lo, &hi);
	ck_assert_uint_gt(h->nrows, 1000);
	ck_assert_uint_ge(h->pc_base, lo);
	ck_assert_uint_le(h->pc_end, hi);
	ck_assert_uint_ge(h->build_id_len, 8);
	ck_assert(h->flags & PK_UNWIND_HAS_EH_FRAME);
	ck_assert_int_eq(eh_table_validate(h, eh_unwind_table_size(t), err), 0);
	/* compact: at most 8 bytes per row, header and dictionary included */
	ck_assert_uint_le(eh_unwind_table_size(t), 8ull * h->nrows);

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
	eh_unwind_table_free(t);
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

/* Run ARGV, which must exit 0. */
static void run_ok(char *const argv[])
{
	int status = pk_test_run(argv, NULL, NULL);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed", argv[0]);
}

/* Compile, into BIN, a program whose own functions have only .debug_frame
 * (the C runtime's start files still bring .eh_frame). Returns the address
 * of main, read from the symbol table with libelf. */
static __u64 build_debug_frame_program(const char *bin)
{
	char src[200];
	__u64 main_pc = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;
	int fd;

	snprintf(src, sizeof(src), "%s/df.c", dir);
	write_file(src, "int main(void) { return 0; }\n", 29);
	run_ok((char *const[]){ "gcc", "-O2", "-g", "-fno-asynchronous-unwind-tables",
				"-fno-unwind-tables", src, "-o", (char *)bin, NULL });

	fd = open(bin, O_RDONLY);
	ck_assert_int_ge(fd, 0);
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
	return main_pc;
}

/* The dump columns of BIN's table at PC, and the table's source flags. */
static void rule_of(const char *bin, const struct eh_unwind_build_opts *opts, __u64 pc,
		    char *rule, size_t len, __u16 *flags)
{
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN];
	char *text;

	ck_assert_msg(eh_unwind_table_from_elf(bin, opts, &t, err) == 0, "%s", err);
	*flags = eh_unwind_table_header(t)->flags &
		 (PK_UNWIND_HAS_EH_FRAME | PK_UNWIND_HAS_DEBUG_FRAME);
	text = eh_rows_text(t);
	rule_at(text, pc, rule, len);
	free(text);
	eh_unwind_table_free(t);
}

/* main is covered by .debug_frame, and is END without it. */
START_TEST(test_debug_frame_from_elf)
{
	struct eh_unwind_build_opts opts = { .sz = sizeof(opts), .debug_root = dir };
	char bin[200], rule[64];
	__u64 main_pc;
	__u16 flags;

	snprintf(bin, sizeof(bin), "%s/df", dir);
	main_pc = build_debug_frame_program(bin);
	rule_of(bin, &opts, main_pc, rule, sizeof(rule), &flags);
	ck_assert_str_eq(rule, "rsp+8 u c-8 u u u u u");
	ck_assert_uint_eq(flags, PK_UNWIND_HAS_EH_FRAME | PK_UNWIND_HAS_DEBUG_FRAME);

	opts.no_debug_frame = true;
	rule_of(bin, &opts, main_pc, rule, sizeof(rule), &flags);
	ck_assert_str_eq(rule, "end u u u u u u u");
	ck_assert_uint_eq(flags, PK_UNWIND_HAS_EH_FRAME);
}
END_TEST

/* The same program stripped, its .debug_frame in a separate debug file:
 * found through .gnu_debuglink next to the program, then (the link's file
 * gone) under DEBUG_ROOT/.build-id/; without either, main is END. */
START_TEST(test_separate_debug_file)
{
	struct eh_unwind_build_opts opts = { .sz = sizeof(opts), .debug_root = dir };
	char bin[200], dbg[200], id_file[512], rule[64], id[129];
	__u64 main_pc;
	__u16 flags;

	snprintf(bin, sizeof(bin), "%s/df", dir);
	snprintf(dbg, sizeof(dbg), "%s/df.debug", dir);
	main_pc = build_debug_frame_program(bin);
	run_ok((char *const[]){ "objcopy", "--only-keep-debug", bin, dbg, NULL });
	run_ok((char *const[]){ "objcopy", "--strip-debug", "--add-gnu-debuglink", dbg,
				bin, NULL });

	rule_of(bin, &opts, main_pc, rule, sizeof(rule), &flags);
	ck_assert_str_eq(rule, "rsp+8 u c-8 u u u u u");
	ck_assert_uint_eq(flags, PK_UNWIND_HAS_EH_FRAME | PK_UNWIND_HAS_DEBUG_FRAME);

	/* readelf, not our code, names the build-id path */
	pk_test_readelf_build_id(bin, id, sizeof(id));
	pk_test_build_id_path(dir, id, id_file, sizeof(id_file));
	ck_assert_int_eq(rename(dbg, id_file), 0);
	rule_of(bin, &opts, main_pc, rule, sizeof(rule), &flags);
	ck_assert_str_eq(rule, "rsp+8 u c-8 u u u u u");
	ck_assert_uint_eq(flags, PK_UNWIND_HAS_EH_FRAME | PK_UNWIND_HAS_DEBUG_FRAME);

	ck_assert_int_eq(unlink(id_file), 0);
	rule_of(bin, &opts, main_pc, rule, sizeof(rule), &flags);
	ck_assert_str_eq(rule, "end u u u u u u u");
	ck_assert_uint_eq(flags, PK_UNWIND_HAS_EH_FRAME);
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
	tcase_add_test(tc, test_separate_debug_file);
	suite_add_tcase(s, tc);
	return s;
}
