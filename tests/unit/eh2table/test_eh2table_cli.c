// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eh2table as a user runs it ($PROBEKIT_BUILD/eh2table, a temporary cache
 * directory each test): the output line, cache hits, --force, corrupt cache
 * files, failing files among good ones, -j, --dump, --pid, every kind of bad
 * input file, usage errors. Build-ids come from readelf, not from our code.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eh2table/eh2table_options.h"
#include "lib/version.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

#define FIXTURE		"oracle/cfi_c-gcc-O2"
#define FIXTURE2	"oracle/cfi_cxx-clang-O2"
#define LIBC		"/usr/lib/x86_64-linux-gnu/libc.so.6"

static char tmp[64];		/* per test: input files and cache/ */
static char cache[128];

static void setup(void)
{
	eh_tmpdir(tmp, sizeof(tmp));
	/* Traversable by the unprivileged user of the unreadable-file case. */
	chmod(tmp, 0755);
	snprintf(cache, sizeof(cache), "%s/cache", tmp);
}

static void teardown(void)
{
	eh_rmtree(tmp);
}

static const char *fixture(const char *rel)
{
	static char buf[2][4096];
	static int k;

	k ^= 1;
	return pk_test_build_path(rel, buf[k], sizeof(buf[k]));
}

/* Run eh2table with the NULL-terminated arguments; exit status, or -1 when
 * it did not exit normally. */
static int eh2table(char **out, char **err, ...)
{
	char bin[4096], *argv[32];
	int argc = 0, status;
	va_list ap;

	argv[argc++] = (char *)pk_test_build_path("eh2table", bin, sizeof(bin));
	va_start(ap, err);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	status = pk_test_run(argv, out, err);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

struct line {
	char key[160], status[16], path[4096];
	unsigned int rows;
	size_t bytes;
	double ms;
};

/* Parse "KEY ROWS BYTES MS STATUS PATH". */
static void parse_line(const char *s, struct line *l)
{
	int n = 0;

	ck_assert_msg(sscanf(s, "%159s %u %zu %lf %15s %n", l->key, &l->rows, &l->bytes,
			     &l->ms, l->status, &n) == 5 && n > 0, "bad line '%s'", s);
	snprintf(l->path, sizeof(l->path), "%.*s", (int)strcspn(s + n, "\n"), s + n);
	/* KEY..STATUS and one space each: n is where PATH starts */
	ck_assert_msg(memmem(s, n, "  ", 2) == NULL && s[n - 1] == ' ' && s[n] != ' ',
		      "fields separated by one space: '%s'", s);
}

static void cache_file_of(const char *key, char *buf, size_t len)
{
	ck_assert_int_lt(snprintf(buf, len, "%s/%.2s/%s.unwind", cache, key, key + 2), (int)len);
}

static void patch(const char *path, off_t off, const void *bytes, size_t n)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, bytes, n, off), (ssize_t)n);
	close(fd);
}

/* File offset of section NAME of the ELF PATH, read with libelf. */
static off_t section_offset(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	off_t off = -1;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		gelf_getshdr(scn, &sh);
		if (!strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name))
			off = sh.sh_offset;
	}
	elf_end(elf);
	close(fd);
	ck_assert_int_gt(off, 0);
	return off;
}

static unsigned int u32_at(const char *path, off_t off)
{
	unsigned int v;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ck_assert_int_eq(pread(fd, &v, 4, off), 4);
	close(fd);
	return v;
}

/* --- output and cache ---------------------------------------------------- */

START_TEST(test_line_format)
{
	const char *f = fixture(FIXTURE);
	char *out, *err, id[129], file[4096];
	struct line l;
	struct stat st;

	ck_assert_int_eq(eh2table(&out, &err, "--cache-dir", cache, f, NULL), 0);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(count_lines(out), 1);
	parse_line(out, &l);
	pk_test_readelf_build_id(f, id, sizeof(id));
	ck_assert_str_eq(l.key, id);
	ck_assert_uint_gt(l.rows, 10);
	ck_assert_str_eq(l.status, "built");
	ck_assert_str_eq(l.path, f);
	ck_assert(l.ms >= 0);
	cache_file_of(id, file, sizeof(file));
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_uint_eq(l.bytes, st.st_size);
	ck_assert_int_eq(eh_count_files(cache), 1);	/* no temporary left */
	free(out);
	free(err);
}
END_TEST

START_TEST(test_second_run_hits)
{
	const char *f = fixture(FIXTURE);
	char *out1, *out2, *err, file[4096];
	struct line a, b;
	struct stat st1, st2;

	ck_assert_int_eq(eh2table(&out1, NULL, "--cache-dir", cache, f, NULL), 0);
	parse_line(out1, &a);
	cache_file_of(a.key, file, sizeof(file));
	ck_assert_int_eq(stat(file, &st1), 0);
	ck_assert_int_eq(eh2table(&out2, &err, "--cache-dir", cache, f, NULL), 0);
	parse_line(out2, &b);
	ck_assert_str_eq(b.status, "hit");
	ck_assert_str_eq(b.key, a.key);
	ck_assert_uint_eq(b.rows, a.rows);
	ck_assert_uint_eq(b.bytes, a.bytes);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(stat(file, &st2), 0);
	ck_assert_uint_eq(st2.st_ino, st1.st_ino);	/* not rewritten */
	ck_assert_int_eq(st2.st_mtim.tv_nsec, st1.st_mtim.tv_nsec);
	free(out1);
	free(out2);
	free(err);
}
END_TEST

START_TEST(test_force_rebuilds)
{
	const char *f = fixture(FIXTURE);
	char *out, file[4096];
	struct line a, b;
	struct stat st1, st2;

	ck_assert_int_eq(eh2table(&out, NULL, "--cache-dir", cache, f, NULL), 0);
	parse_line(out, &a);
	free(out);
	cache_file_of(a.key, file, sizeof(file));
	ck_assert_int_eq(stat(file, &st1), 0);
	ck_assert_int_eq(eh2table(&out, NULL, "--cache-dir", cache, "--force", f, NULL), 0);
	parse_line(out, &b);
	free(out);
	ck_assert_str_eq(b.status, "built");
	ck_assert_uint_eq(b.rows, a.rows);
	ck_assert_uint_eq(b.bytes, a.bytes);
	ck_assert_int_eq(stat(file, &st2), 0);
	ck_assert_uint_ne(st2.st_ino, st1.st_ino);	/* a new file renamed in */
	ck_assert_int_eq(eh_count_files(cache), 1);
}
END_TEST

/* Ways a cache file goes bad; each must be detected and rebuilt. */
enum corruption { FLIP_PAYLOAD, FLIP_HEADER, TRUNCATE_HALF, TRUNCATE_HEADER, EMPTY,
		  APPEND, NCORRUPTIONS };

START_TEST(test_corrupt_cache_rebuilt)
{
	const char *f = fixture(FIXTURE);
	char *out, *dump1, *dump2, file[4096];
	struct line a, b;
	struct stat st;
	int fd;

	ck_assert_int_eq(eh2table(&out, NULL, "--cache-dir", cache, f, NULL), 0);
	parse_line(out, &a);
	free(out);
	ck_assert_int_eq(eh2table(&dump1, NULL, "--cache-dir", cache, "--dump", f, NULL), 0);
	cache_file_of(a.key, file, sizeof(file));
	ck_assert_int_eq(stat(file, &st), 0);

	switch (_i) {
	case FLIP_PAYLOAD:
		patch(file, st.st_size - 1, "\x5a", 1);
		break;
	case FLIP_HEADER:	/* the row count */
		patch(file, 8 + 4 + 2 + 2 + 64 + 4, "\xff", 1);
		break;
	case TRUNCATE_HALF:
		ck_assert_int_eq(truncate(file, st.st_size / 2), 0);
		break;
	case TRUNCATE_HEADER:
		ck_assert_int_eq(truncate(file, 10), 0);
		break;
	case EMPTY:
		ck_assert_int_eq(truncate(file, 0), 0);
		break;
	case APPEND:
		fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC);
		ck_assert_int_eq(write(fd, "junk", 4), 4);
		close(fd);
		break;
	}
	ck_assert_int_eq(eh2table(&out, NULL, "--cache-dir", cache, f, NULL), 0);
	parse_line(out, &b);
	free(out);
	ck_assert_str_eq(b.status, "rebuilt");
	ck_assert_uint_eq(b.rows, a.rows);
	ck_assert_uint_eq(b.bytes, a.bytes);
	/* Valid again: the next run hits, and the table is the original. */
	ck_assert_int_eq(eh2table(&out, NULL, "--cache-dir", cache, f, NULL), 0);
	parse_line(out, &b);
	free(out);
	ck_assert_str_eq(b.status, "hit");
	ck_assert_int_eq(eh2table(&dump2, NULL, "--cache-dir", cache, "--dump", f, NULL), 0);
	ck_assert_str_eq(dump2, dump1);
	free(dump1);
	free(dump2);
}
END_TEST

START_TEST(test_env_cache_dir)
{
	const char *f = fixture(FIXTURE);
	char env_dir[256], *out;
	struct line l;

	snprintf(env_dir, sizeof(env_dir), "%s/env", tmp);
	setenv("PROBEKIT_CACHE_DIR", env_dir, 1);
	ck_assert_int_eq(eh2table(&out, NULL, f, NULL), 0);
	parse_line(out, &l);
	free(out);
	ck_assert_str_eq(l.status, "built");
	ck_assert_int_eq(eh_count_files(env_dir), 1);
	/* --cache-dir wins over the environment */
	ck_assert_int_eq(eh2table(&out, NULL, "--cache-dir", cache, f, NULL), 0);
	parse_line(out, &l);
	free(out);
	ck_assert_str_eq(l.status, "built");
	ck_assert_int_eq(eh_count_files(cache), 1);
	unsetenv("PROBEKIT_CACHE_DIR");
}
END_TEST

/* Without a build-id the key is nb-<content hash>, under <cache>/nb/. */
START_TEST(test_no_build_id)
{
	char in[256], file[4608], *out;
	struct line l;
	struct stat st;
	int status;

	snprintf(in, sizeof(in), "%s/no-build-id", tmp);
	status = pk_test_run((char *const[]){ "objcopy", "--remove-section",
					      ".note.gnu.build-id", (char *)fixture(FIXTURE),
					      in, NULL }, NULL, NULL);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(eh2table(&out, NULL, "--cache-dir", cache, in, NULL), 0);
	parse_line(out, &l);
	free(out);
	ck_assert_int_eq(strncmp(l.key, "nb-", 3), 0);
	ck_assert_uint_eq(strlen(l.key), 3 + 16);
	ck_assert_uint_eq(strspn(l.key + 3, "0123456789abcdef"), 16);
	snprintf(file, sizeof(file), "%s/nb/%s.unwind", cache, l.key + 3);
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_uint_eq(l.bytes, st.st_size);
	ck_assert_int_eq(eh2table(&out, NULL, "--cache-dir", cache, in, NULL), 0);
	parse_line(out, &l);
	free(out);
	ck_assert_str_eq(l.status, "hit");
}
END_TEST

/* --- several files ------------------------------------------------------- */

START_TEST(test_one_bad_among_good)
{
	char missing[256], *out, *err, *nl;
	struct line l;

	snprintf(missing, sizeof(missing), "%s/missing.so", tmp);
	ck_assert_int_eq(eh2table(&out, &err, "--cache-dir", cache, fixture(FIXTURE),
				  missing, fixture(FIXTURE2), NULL), 1);
	ck_assert_int_eq(count_lines(out), 2);
	parse_line(out, &l);
	ck_assert_str_eq(l.path, fixture(FIXTURE));
	nl = strchr(out, '\n');
	parse_line(nl + 1, &l);
	ck_assert_str_eq(l.path, fixture(FIXTURE2));
	ck_assert_int_eq(count_lines(err), 1);
	ck_assert_int_eq(strncmp(err, "eh2table: ", 10), 0);
	ck_assert_ptr_nonnull(strstr(err, missing));
	ck_assert_ptr_nonnull(strstr(err, ": cannot open: No such file or directory\n"));
	ck_assert_int_eq(eh_count_files(cache), 2);
	free(out);
	free(err);
}
END_TEST

/* Drop the MS field, which differs from run to run. */
static void strip_ms(char *out)
{
	for (char *line = out; *line; line = strchr(line, '\n') + 1) {
		char *p = line;

		for (int i = 0; i < 3; i++)
			p = strchr(p, ' ') + 1;
		memmove(p, strchr(p, ' ') + 1, strlen(strchr(p, ' ') + 1) + 1);
	}
}

START_TEST(test_jobs_keep_argument_order)
{
	static const char *const rel[] = { "oracle/cfi_c-gcc-O0", "oracle/cfi_c-clang-O3",
					   "oracle/cfi_cxx-gcc-O0", "oracle/cfi_asm-clang",
					   "oracle/cfi_dbg-gcc-O2" };
	char missing[256], *out1, *err1, *out4, *err4, f[5][4096];

	for (int i = 0; i < 5; i++)
		pk_test_build_path(rel[i], f[i], sizeof(f[i]));
	snprintf(missing, sizeof(missing), "%s/missing.so", tmp);
	ck_assert_int_eq(eh2table(&out1, &err1, "--cache-dir", cache, f[0], f[1], missing,
				  f[2], f[3], f[4], NULL), 1);
	eh_rmtree(cache);
	ck_assert_int_eq(eh2table(&out4, &err4, "--cache-dir", cache, "-j", "4", f[0], f[1],
				  missing, f[2], f[3], f[4], NULL), 1);
	ck_assert_int_eq(count_lines(out4), 5);
	strip_ms(out1);
	strip_ms(out4);
	ck_assert_str_eq(out4, out1);
	ck_assert_str_eq(err4, err1);
	free(out1);
	free(err1);
	free(out4);
	free(err4);
}
END_TEST

/* --- --dump and --pid ---------------------------------------------------- */

START_TEST(test_dump)
{
	const char *f = fixture(FIXTURE);
	char *dump, *again, *out, *err;
	unsigned long long pc, last = 0;
	char cfa[64], rbp[32], ra[32], saved[5][32], extra[2];
	unsigned int rows = 0, comments = 0;
	struct line l;

	ck_assert_int_eq(eh2table(&dump, &err, "--cache-dir", cache, "--dump", f, NULL), 0);
	ck_assert_str_eq(err, "");
	for (char *line = dump; *line; line = strchr(line, '\n') + 1) {
		char buf[256];

		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(line, "\n"), line);
		if (buf[0] == '#') {
			ck_assert_uint_eq(rows, 0);	/* comments first */
			comments++;
			continue;
		}
		ck_assert_msg(sscanf(buf, "%llx %63s %31s %31s %31s %31s %31s %31s %31s %1s", &pc,
				     cfa, rbp, ra, saved[0], saved[1], saved[2], saved[3],
				     saved[4], extra) == 9, "bad dump line '%s'", buf);
		ck_assert_msg(!rows || pc > last, "pc %llx after %llx", pc, last);
		last = pc;
		rows++;
	}
	ck_assert_uint_gt(comments, 0);
	ck_assert_str_eq(cfa, "end");		/* nothing after the last FDE */
	/* the dump went through the cache: the table is there, same rows */
	ck_assert_int_eq(eh2table(&out, NULL, "--cache-dir", cache, f, NULL), 0);
	parse_line(out, &l);
	ck_assert_str_eq(l.status, "hit");
	ck_assert_uint_eq(l.rows, rows);
	ck_assert_int_eq(eh2table(&again, NULL, "--cache-dir", cache, "--dump", f, NULL), 0);
	ck_assert_str_eq(again, dump);
	free(dump);
	free(again);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_dump_bad_file)
{
	char *out, *err;

	ck_assert_int_eq(eh2table(&out, &err, "--cache-dir", cache, "--dump", "/etc/hostname",
				  NULL), 1);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "eh2table: /etc/hostname: not an ELF file\n");
	ck_assert_int_eq(eh_count_files(cache), 0);
	free(out);
	free(err);
}
END_TEST

/* A cache that cannot be written (a file where its root would be): filling
 * it is what eh2table is for, so a file fails; a dump, whose table is the
 * product, is printed whole, with one line saying the cache was not. */
START_TEST(test_unwritable_cache)
{
	const char *f = fixture(FIXTURE);
	char blocker[128], root[256], want[512], *out, *err, *dump;

	snprintf(blocker, sizeof(blocker), "%s/blocker", tmp);
	snprintf(root, sizeof(root), "%s/cache", blocker);
	eh_copy_file(f, blocker, 16);
	ck_assert_int_eq(eh2table(&dump, NULL, "--cache-dir", cache, "--dump", f, NULL), 0);
	ck_assert_int_eq(eh2table(&out, &err, "--cache-dir", root, f, NULL), 1);
	ck_assert_str_eq(out, "");
	ck_assert_msg(strstr(err, "cannot create") && strstr(err, strerror(ENOTDIR)) &&
		      count_lines(err) == 1, "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(eh2table(&out, &err, "--cache-dir", root, "--dump", f, NULL), 0);
	ck_assert_str_eq(out, dump);
	snprintf(want, sizeof(want), "eh2table: cache not written: %s/", root);
	ck_assert_msg(!strncmp(err, want, strlen(want)) && count_lines(err) == 1 &&
		      strstr(err, ": Not a directory (1 failed write): used from memory, made "
			     "again by the next session\n"), "%s", err);
	free(out);
	free(err);
	free(dump);
}
END_TEST

/* "\n"-separated distinct files of PID's executable mappings, in order of
 * first mapping, read here from /proc/PID/maps (not with exec_mappings,
 * the code eh2table itself uses). */
static char *exec_files_of(pid_t pid)
{
	char path[64], *maps, *want;
	size_t len, n = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = pk_test_read_file(path, &len);
	ck_assert_ptr_nonnull(maps);
	want = calloc(1, len + 2);
	ck_assert_ptr_nonnull(want);
	want[n++] = '\n';
	for (char *line = maps; *line; line = strchr(line, '\n') + 1) {
		char buf[4096 + 256], perms[5], *name;
		int at = 0;

		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(line, "\n"), line);
		/* start-end perms offset dev inode [name] */
		ck_assert_int_eq(sscanf(buf, "%*s %4s %*s %*s %*s %n", perms, &at), 1);
		name = buf + at;
		if (perms[2] != 'x' || name[0] != '/')
			continue;
		strcat(name, "\n");
		name[-1] = '\n';	/* the blank before it: "\nNAME\n" */
		if (memmem(want, n, name - 1, strlen(name) + 1))
			continue;
		memcpy(want + n, name, strlen(name) + 1);
		n += strlen(name);
	}
	free(maps);
	return want;
}

START_TEST(test_pid_self)
{
	char pid[16], exe[4096], needle[4100], *out, *err, *want, *got;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t at = 0;

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	ck_assert_int_eq(eh2table(&out, &err, "--cache-dir", cache, "-j", "2", "--pid", pid,
				  NULL), 0);
	ck_assert_str_eq(err, "");
	want = exec_files_of(getpid());
	got = calloc(1, strlen(out) + 2);
	ck_assert_ptr_nonnull(got);
	got[at++] = '\n';
	for (char *line = out; *line; line = strchr(line, '\n') + 1) {
		struct line l;

		parse_line(line, &l);
		at += sprintf(got + at, "%s\n", l.path);
	}
	ck_assert_str_eq(got, want);
	snprintf(needle, sizeof(needle), "\n%s\n", exe);
	ck_assert_msg(strstr(want, needle) && strstr(want, "\n" LIBC "\n"),
		      "the runner and libc among '%s'", want);
	free(want);
	free(got);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_pid_missing)
{
	char *out, *err;

	ck_assert_int_eq(eh2table(&out, &err, "--cache-dir", cache, "--pid", "2147483646",
				  NULL), 1);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "eh2table: --pid 2147483646: cannot read /proc/2147483646/maps:"
			 " no such process\n");
	free(out);
	free(err);
}
END_TEST

/* --- bad input files ----------------------------------------------------- */

enum bad_kind { NOT_ELF, TRUNCATED, EMPTY_FILE, DIRECTORY, MISSING, UNREADABLE, FIFO,
		ELF32, FOREIGN, NO_UNWIND, CIE_LENGTH, FDE_LENGTH, CIE_POINTER, NBAD };

static const char *const bad_reason[NBAD] = {
	[NOT_ELF] = "not an ELF file",
	[TRUNCATED] = "truncated",
	[EMPTY_FILE] = "empty file",
	[DIRECTORY] = "is a directory",
	[MISSING] = "cannot open: No such file or directory",
	[UNREADABLE] = "cannot open: Permission denied",
	[FIFO] = "not a regular file",
	[ELF32] = "32-bit ELF",
	[FOREIGN] = "foreign architecture (e_machine 183)",
	[NO_UNWIND] = "no .eh_frame or .debug_frame section",
	[CIE_LENGTH] = ".eh_frame: entry at 0x0: length 0x7ffffff0 runs past the end",
	[FDE_LENGTH] = "runs past the end of the section",
	[CIE_POINTER] = "is not a CIE",
};

/* An ELF header that says 32-bit x86 (i386), nothing else. */
static void write_elf32(const char *path)
{
	Elf32_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS32, ELFDATA2LSB,
			     EV_CURRENT },
		.e_type = ET_EXEC, .e_machine = EM_386, .e_version = EV_CURRENT,
		.e_ehsize = sizeof(Elf32_Ehdr), .e_phentsize = sizeof(Elf32_Phdr),
		.e_shentsize = sizeof(Elf32_Shdr),
	};
	FILE *f = fopen(path, "we");

	ck_assert_uint_eq(fwrite(&eh, sizeof(eh), 1, f), 1);
	fclose(f);
}

START_TEST(test_bad_input)
{
	const char *f = fixture(FIXTURE);
	char in[256], *out, *err, expect[512];
	unsigned short em = EM_AARCH64;
	unsigned int v = 0x7ffffff0;
	off_t eh;
	int status;
	bool as_nobody = false;

	snprintf(in, sizeof(in), "%s/input", tmp);
	switch (_i) {
	case NOT_ELF:
		eh_copy_file("/etc/passwd", in, 4096);
		break;
	case TRUNCATED:	/* libc cut after 64 KiB: no section headers */
		eh_copy_file(LIBC, in, 65536);
		break;
	case EMPTY_FILE:
		eh_copy_file(f, in, 0);
		break;
	case DIRECTORY:
		ck_assert_int_eq(mkdir(in, 0755), 0);
		break;
	case MISSING:
		break;
	case UNREADABLE:
		eh_copy_file(f, in, SIZE_MAX);
		chmod(in, 0);
		/* root reads a mode-000 file: run as nobody instead */
		as_nobody = geteuid() == 0;
		break;
	case FIFO:
		ck_assert_int_eq(mkfifo(in, 0644), 0);
		break;
	case ELF32:
		write_elf32(in);
		break;
	case FOREIGN:
		eh_copy_file(f, in, SIZE_MAX);
		patch(in, offsetof(Elf64_Ehdr, e_machine), &em, sizeof(em));
		break;
	case NO_UNWIND:
		status = pk_test_run((char *const[]){ "objcopy", "--remove-section", ".eh_frame",
						      "--remove-section", ".eh_frame_hdr",
						      "--remove-section", ".debug_frame",
						      (char *)f, in, NULL }, NULL, NULL);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		break;
	case CIE_LENGTH:	/* the first entry of .eh_frame is a CIE */
		eh_copy_file(f, in, SIZE_MAX);
		patch(in, section_offset(in, ".eh_frame"), &v, 4);
		break;
	case FDE_LENGTH:	/* the entry after it, an FDE */
		eh_copy_file(f, in, SIZE_MAX);
		eh = section_offset(in, ".eh_frame");
		v = 0x0ffffff0;
		patch(in, eh + 4 + u32_at(in, eh), &v, 4);
		break;
	case CIE_POINTER:
		eh_copy_file(f, in, SIZE_MAX);
		eh = section_offset(in, ".eh_frame");
		patch(in, eh + 8 + u32_at(in, eh), &v, 4);
		break;
	}
	if (as_nobody) {
		char bin[4096];

		status = pk_test_run((char *const[]){ "setpriv", "--reuid=65534", "--regid=65534",
						      "--clear-groups",
						      (char *)pk_test_build_path("eh2table", bin,
										 sizeof(bin)),
						      "--cache-dir", cache, in, NULL }, &out, &err);
		status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	} else {
		status = eh2table(&out, &err, "--cache-dir", cache, in, NULL);
	}
	ck_assert_int_eq(status, 1);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(count_lines(err), 1);
	snprintf(expect, sizeof(expect), "eh2table: %s: ", in);
	ck_assert_msg(!strncmp(err, expect, strlen(expect)) && strstr(err, bad_reason[_i]),
		      "case %d: '%s' wanted '%s...%s'", _i, err, expect, bad_reason[_i]);
	ck_assert_int_eq(eh_count_files(cache), 0);
	free(out);
	free(err);
}
END_TEST

/* --- usage --------------------------------------------------------------- */

/* Each kind of usage error the program reports, with its exact line. */
static const struct {
	const char *args[5];
	const char *err;
} usage_errors[] = {
	{ { "--frobnicate", "/bin/true" },
	  "eh2table: unknown option --frobnicate (eh2table --help lists them)\n" },
	{ { "-j", "0", "/bin/true" }, "eh2table: -j 0: not a number of jobs from 1 to 256\n" },
	{ { "--pid" }, "eh2table: option --pid needs an argument\n" },
	{ { "--force=yes", "/bin/true" }, "eh2table: option --force takes no argument\n" },
	{ { "--pid", "1", "--dump", "/bin/true" },
	  "eh2table: --pid and --dump cannot be combined\n" },
	{ { NULL }, "eh2table: no FILE given\n" },
};

START_TEST(test_usage_errors)
{
	char bin[4096], *argv[7] = { (char *)pk_test_build_path("eh2table", bin, sizeof(bin)) };
	char *out, *err;
	int status;

	for (int i = 0; usage_errors[_i].args[i]; i++)
		argv[i + 1] = (char *)usage_errors[_i].args[i];
	status = pk_test_run(argv, &out, &err);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 2);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, usage_errors[_i].err);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_help)
{
	char *out, *err;

	ck_assert_int_eq(eh2table(&out, &err, "--help", NULL), 0);
	ck_assert_str_eq(out, eh2table_usage);
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	/* the version, as the other tools print theirs (help2man reads it) */
	ck_assert_int_eq(eh2table(&out, &err, "-V", NULL), 0);
	ck_assert_str_eq(out, "eh2table (probekit) " PK_VERSION "\n");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
}
END_TEST

Suite *suite_eh2table_cli(void)
{
	Suite *s = suite_create("eh2table_cli");
	TCase *tc = tcase_create("cache");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_line_format);
	tcase_add_test(tc, test_second_run_hits);
	tcase_add_test(tc, test_force_rebuilds);
	tcase_add_loop_test(tc, test_corrupt_cache_rebuilt, 0, NCORRUPTIONS);
	tcase_add_test(tc, test_env_cache_dir);
	tcase_add_test(tc, test_no_build_id);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_one_bad_among_good);
	tcase_add_test(tc, test_jobs_keep_argument_order);
	tcase_add_test(tc, test_dump);
	tcase_add_test(tc, test_dump_bad_file);
	tcase_add_test(tc, test_unwritable_cache);
	tcase_add_test(tc, test_pid_self);
	tcase_add_test(tc, test_pid_missing);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_bad_input, 0, NBAD);
	tcase_add_loop_test(tc, test_usage_errors, 0,
			    sizeof(usage_errors) / sizeof(usage_errors[0]));
	tcase_add_test(tc, test_help);
	suite_add_tcase(s, tc);
	return s;
}
