// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The symbolizer against programs this test compiles: names must agree with
 * eu-addr2line (an independent reader of the same ELF), through a crafted
 * /proc/PID/maps that maps the program the way the kernel would.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbolizer.h"
#include "test_util.h"

#define FAKE_PID 4242
#define PIE_BASE 0x7f1234560000ULL

static const char C_SRC[] =
	"#include <stdlib.h>\n"
	"__attribute__((noinline, noreturn)) void die(int x) { exit(x); }\n"
	"__attribute__((noinline)) void tail_caller(int x) { die(x + 1); }\n"
	"__attribute__((noinline)) int after_tail(int x) { return x * 3 + 1; }\n"
	"static __attribute__((noinline)) int local_fn(int x) { return x ^ 0x55; }\n"
	"__attribute__((noinline)) int uses_local(int x) { return local_fn(x) + 2; }\n"
	"int main(int argc, char **argv) { if (argc > 5) tail_caller(argc);\n"
	"  return after_tail(argc) + uses_local(argc); }\n";

static const char CXX_SRC[] =
	"namespace ns { template<typename T> __attribute__((noinline)) T twice(T x) { return x + x; }\n"
	"struct K { __attribute__((noinline)) int m(int v) const; };\n"
	"int K::m(int v) const { return v * 7; } }\n"
	"int main(int c, char **) { ns::K k; return ns::twice(c) + (int)ns::twice(1.5) + k.m(c); }\n";

static char tmpdir[64];

static void run_ok(char *const argv[], char **out)
{
	char *err = NULL;
	int status = pk_test_run(argv, out, &err);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed: %s", argv[0],
		      err ? err : "");
	free(err);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* Compile SRC (C or C++) with FLAG (-pie / -no-pie) into tmpdir/NAME. */
static const char *build(const char *name, const char *src, bool cxx, const char *flag)
{
	static char path[256];
	char src_path[256];
	char *argv[] = { cxx ? "g++" : "gcc", "-O2", "-g", "-falign-functions=1", "-fno-inline",
			 (char *)flag, "-x", cxx ? "c++" : "c", src_path, "-o", path, NULL };

	snprintf(src_path, sizeof(src_path), "%s/%s.src", tmpdir, name);
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	write_file(src_path, src);
	run_ok(argv, NULL);
	return path;
}

/* The maps lines the kernel would list for PATH loaded at BASE (ET_DYN;
 * ET_EXEC ignores it): one r-xp mapping per executable PT_LOAD. Returns the
 * load bias (what to add to an ELF address). */
static __u64 fake_maps(const char *path, __u64 base, char *maps, size_t len)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	GElf_Ehdr eh;
	size_t phnum, used = strlen(maps);
	struct stat st;
	__u64 bias;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_ptr_nonnull(gelf_getehdr(elf, &eh));
	bias = eh.e_type == ET_DYN ? base : 0;
	ck_assert_int_eq(elf_getphdrnum(elf, &phnum), 0);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		ck_assert_ptr_nonnull(gelf_getphdr(elf, i, &ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		used += snprintf(maps + used, len - used, "%llx-%llx r-xp %08llx %02x:%02x %llu %s\n",
				 (unsigned long long)(bias + (ph.p_vaddr & ~0xfffULL)),
				 (unsigned long long)(bias + ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL)),
				 (unsigned long long)(ph.p_offset & ~0xfffULL),
				 major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino, path);
	}
	elf_end(elf);
	close(fd);
	return bias;
}

static void set_maps(__u32 pid, const char *maps)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/proc/%u", tmpdir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/%u/maps", tmpdir, pid);
	write_file(path, maps);
}

static struct pk_symbolizer *new_symbolizer(const char *kallsyms)
{
	char root[128];
	struct pk_symbolizer_opts o = { .sz = sizeof(o), .proc_root = root,
					.kallsyms_path = kallsyms };

	snprintf(root, sizeof(root), "%s/proc", tmpdir);
	return pk_symbolizer_new(&o);
}

/* For every sized function symbol of PATH (nm's list), at its start and its
 * middle (DYNAMIC: of its .dynsym): our name equals eu-addr2line -f -C's. Returns how many compared. */
static int compare_with_addr2line(const char *path, __u64 base, bool dynamic)
{
	char maps[4096] = "", *nm_out = NULL, *a2l_out = NULL, *line, *save;
	char *nm_argv[] = { "nm", "-S", "--defined-only", (char *)path,
			    dynamic ? "--dynamic" : NULL, NULL };
	char *a2l_argv[512] = { "eu-addr2line", "-f", "-C", "-e", (char *)path };
	static char addr_text[256][24];
	__u64 addrs[256], bias;
	int n = 0, argc = 5;
	struct pk_symbolizer *sym;

	bias = fake_maps(path, base, maps, sizeof(maps));
	set_maps(FAKE_PID, maps);
	run_ok(nm_argv, &nm_out);
	for (line = strtok_r(nm_out, "\n", &save); line && n < 254; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, size;
		char type;

		if (sscanf(line, "%llx %llx %c", &a, &size, &type) != 3 || size < 2 ||
		    !strchr("TtWw", type))
			continue;
		addrs[n] = a;
		addrs[n + 1] = a + size / 2;
		for (int k = 0; k < 2; k++) {
			snprintf(addr_text[n + k], sizeof(addr_text[0]), "0x%llx",
				 (unsigned long long)addrs[n + k]);
			a2l_argv[argc++] = addr_text[n + k];
		}
		n += 2;
	}
	a2l_argv[argc] = NULL;
	ck_assert_int_gt(n, 0);
	run_ok(a2l_argv, &a2l_out);

	sym = new_symbolizer(NULL);
	line = strtok_r(a2l_out, "\n", &save);
	for (int i = 0; i < n; i++) {
		const char *got = pk_symbolizer_user(sym, FAKE_PID, bias + addrs[i]);

		ck_assert_ptr_nonnull(line);
		ck_assert_ptr_nonnull(got);
		ck_assert_msg(strcmp(got, line) == 0, "%s at 0x%llx: eu-addr2line says %s, we say %s",
			      path, (unsigned long long)addrs[i], line, got);
		line = strtok_r(NULL, "\n", &save);	/* file:line */
		line = strtok_r(NULL, "\n", &save);
	}
	pk_symbolizer_free(sym);
	free(nm_out);
	free(a2l_out);
	return n;
}

static void setup(void)
{
	char path[128];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pk-sym-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/proc", tmpdir);
	mkdir(path, 0755);
}

static void teardown(void)
{
	char *argv[] = { "rm", "-rf", tmpdir, NULL };

	pk_test_run(argv, NULL, NULL);
}

START_TEST(test_oracle_c_pie)
{
	ck_assert_int_ge(compare_with_addr2line(build("c_pie", C_SRC, false, "-pie"), PIE_BASE, false), 10);
}
END_TEST

START_TEST(test_oracle_c_exec)
{
	ck_assert_int_ge(compare_with_addr2line(build("c_exec", C_SRC, false, "-no-pie"), 0, false), 10);
}
END_TEST

START_TEST(test_oracle_cxx)
{
	ck_assert_int_ge(compare_with_addr2line(build("cxx", CXX_SRC, true, "-pie"), PIE_BASE, false), 6);
}
END_TEST

/* A system library, mapped at a random-looking base. */
START_TEST(test_oracle_libstdcxx)
{
	static const char *const libs[] = { "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
					    "/lib/x86_64-linux-gnu/libstdc++.so.6" };

	for (size_t i = 0; i < 2; i++)
		if (access(libs[i], R_OK) == 0) {
			ck_assert_int_ge(compare_with_addr2line(libs[i], 0x7f00aa000000ULL, true), 200);
			return;
		}
}
END_TEST

START_TEST(test_unsymbolized_formats)
{
	const char *path = build("c_pie", C_SRC, false, "-pie");
	char maps[4096] = "", deleted[256], stripped[256], line[512];
	char *strip_argv[] = { "strip", "-o", stripped, (char *)path, NULL };
	struct pk_symbolizer *sym;
	struct stat st;
	__u64 bias;

	/* Stripped: no symbol for main; named by file and ELF address. */
	snprintf(stripped, sizeof(stripped), "%s/stripped prog", tmpdir);
	run_ok(strip_argv, NULL);
	bias = fake_maps(stripped, PIE_BASE, maps, sizeof(maps));
	/* A deleted file that cannot be opened any more: file offset. */
	snprintf(deleted, sizeof(deleted), "%s/gone.so", tmpdir);
	ck_assert_int_eq(stat(path, &st), 0);
	snprintf(line, sizeof(line),
		 "7f0000000000-7f0000002000 r-xp 00003000 %02x:%02x %llu %s (deleted)\n"
		 "7f0000010000-7f0000011000 rwxp 00000000 00:00 0\n"
		 "7f0000020000-7f0000021000 rwxp 00000000 00:00 0 [heap]\n",
		 major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino, deleted);
	strcat(maps, line);
	set_maps(FAKE_PID, maps);

	sym = new_symbolizer(NULL);
	snprintf(line, sizeof(line), "[stripped prog+0x%llx]", 0x1000ULL + 0x10);
	ck_assert_str_eq(pk_symbolizer_user(sym, FAKE_PID, bias + 0x1010), line);
	ck_assert_str_eq(pk_symbolizer_user(sym, FAKE_PID, 0x7f0000000123), "[gone.so+0x3123]");
	ck_assert_str_eq(pk_symbolizer_user(sym, FAKE_PID, 0x7f0000010040), "[anon]");
	ck_assert_str_eq(pk_symbolizer_user(sym, FAKE_PID, 0x7f0000020040), "[heap]");
	ck_assert_str_eq(pk_symbolizer_user(sym, FAKE_PID, 0x1000), "[unknown]");
	/* A process that exited before its maps were read. */
	ck_assert_str_eq(pk_symbolizer_user(sym, FAKE_PID + 1, bias + 0x1010), "[unknown]");
	pk_symbolizer_free(sym);
}
END_TEST

/* An address outside every known mapping makes the symbolizer read the
 * maps again (after a short delay): dlopen between two samples. */
START_TEST(test_maps_reread)
{
	const char *path = build("c_pie", C_SRC, false, "-pie");
	char maps[4096] = "";
	struct pk_symbolizer_stats st;
	struct pk_symbolizer *sym;
	__u64 bias;

	set_maps(FAKE_PID, "00400000-00401000 r-xp 00000000 00:00 0 [x]\n");
	sym = new_symbolizer(NULL);
	ck_assert_int_eq(pk_symbolizer_add_pid(sym, FAKE_PID), 0);
	bias = fake_maps(path, PIE_BASE, maps, sizeof(maps));
	set_maps(FAKE_PID, maps);
	ck_assert_str_eq(pk_symbolizer_user(sym, FAKE_PID, bias + 0x1010), "[unknown]");
	usleep(150 * 1000);
	ck_assert_str_ne(pk_symbolizer_user(sym, FAKE_PID, bias + 0x1010), "[unknown]");
	pk_symbolizer_stats(sym, &st);
	ck_assert_uint_eq(st.maps_reads, 2);
	ck_assert_uint_eq(st.modules, 1);
	/* The process is gone: what was learned stays. */
	set_maps(FAKE_PID, "");
	ck_assert_str_ne(pk_symbolizer_user(sym, FAKE_PID, bias + 0x1011), "[unknown]");
	pk_symbolizer_free(sym);
}
END_TEST

static __attribute__((noinline)) int self_marker_function(int x)
{
	return x * 5 + 3;
}

/* The real /proc: our own function and a libc function in our process. */
START_TEST(test_self)
{
	struct pk_symbolizer *sym = pk_symbolizer_new(NULL);
	__u64 addr = (__u64)(uintptr_t)&self_marker_function;

	ck_assert_int_eq(self_marker_function(1), 8);
	ck_assert_str_eq(pk_symbolizer_user(sym, getpid(), addr), "self_marker_function");
	ck_assert_str_eq(pk_symbolizer_user(sym, getpid(), addr + 1), "self_marker_function");
	ck_assert_str_eq(pk_symbolizer_user(sym, getpid(), (__u64)(uintptr_t)&elf_version),
			 "elf_version");
	pk_symbolizer_free(sym);
}
END_TEST

START_TEST(test_kernel)
{
	char path[128];
	struct pk_symbolizer *sym;

	snprintf(path, sizeof(path), "%s/kallsyms", tmpdir);
	write_file(path, "ffffffff81000000 T _stext\n"
			 "ffffffff81000100 T do_syscall_64\n"
			 "ffffffff81000200 t helper\n"
			 "ffffffff82000000 D data\n");
	sym = new_symbolizer(path);
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffff81000150), "do_syscall_64");
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffff81000200), "helper");
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffff82000010), "[unknown]");
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0x1000), "[unknown]");
	pk_symbolizer_free(sym);
	/* No kallsyms at all. */
	snprintf(path, sizeof(path), "%s/missing", tmpdir);
	sym = new_symbolizer(path);
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffff81000150), "[unknown]");
	pk_symbolizer_free(sym);
}
END_TEST

Suite *suite_symbolizer(void)
{
	Suite *s = suite_create("symbolizer");
	TCase *tc = tcase_create("oracle");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_oracle_c_pie);
	tcase_add_test(tc, test_oracle_c_exec);
	tcase_add_test(tc, test_oracle_cxx);
	tcase_add_test(tc, test_oracle_libstdcxx);
	suite_add_tcase(s, tc);
	tc = tcase_create("mappings");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_unsymbolized_formats);
	tcase_add_test(tc, test_maps_reread);
	tcase_add_test(tc, test_self);
	tcase_add_test(tc, test_kernel);
	suite_add_tcase(s, tc);
	return s;
}
