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

#include "harness/elf_fixture.h"
#include "harness/hs_u5.h"
#include "symbolization/symbolizer.h"
#include "test_util.h"

/* KERNEL_ROOT: where kallsyms is (NULL: /proc). */
static struct pk_symbolizer *new_symbolizer(const char *kernel_root)
{
	struct pk_symbolizer_opts o = { .proc_root = pk_fx_proc_root(),
					.kernel_root = kernel_root };

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

	bias = pk_fx_fake_maps(path, base, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	pk_fx_run_ok(nm_argv, &nm_out);
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
	pk_fx_run_ok(a2l_argv, &a2l_out);

	sym = new_symbolizer(NULL);
	line = strtok_r(a2l_out, "\n", &save);
	for (int i = 0; i < n; i++) {
		const char *got = pk_symbolizer_user(sym, PK_FX_PID, bias + addrs[i]);

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

START_TEST(test_oracle_c_pie)
{
	ck_assert_int_ge(compare_with_addr2line(pk_fx_build("c_pie", pk_fx_c_src, false, "-pie"), PK_FX_PIE_BASE, false), 10);
}
END_TEST

START_TEST(test_oracle_c_exec)
{
	ck_assert_int_ge(compare_with_addr2line(pk_fx_build("c_exec", pk_fx_c_src, false, "-no-pie"), 0, false), 10);
}
END_TEST

START_TEST(test_oracle_cxx)
{
	ck_assert_int_ge(compare_with_addr2line(pk_fx_build("cxx", pk_fx_cxx_src, true, "-pie"), PK_FX_PIE_BASE, false), 6);
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
	/* g++ (a build dependency) brings it: missing is a broken setup, not
	 * a pass. */
	ck_abort_msg("no libstdc++.so.6 at %s or %s", libs[0], libs[1]);
}
END_TEST

/* The size of this process's vDSO mapping. */
static __u64 own_vdso_size(void)
{
	char *maps = pk_test_read_file("/proc/self/maps", NULL), *line;
	unsigned long long lo = 0, hi = 0;

	ck_assert_ptr_nonnull(maps);
	line = strstr(maps, "[vdso]");
	ck_assert_ptr_nonnull(line);
	while (line > maps && line[-1] != '\n')
		line--;
	ck_assert_int_eq(sscanf(line, "%llx-%llx", &lo, &hi), 2);
	free(maps);
	return hi - lo;
}

START_TEST(test_unsymbolized_formats)
{
	const char *path = pk_fx_build("c_pie", pk_fx_c_src, false, "-pie");
	char maps[4096] = "", deleted[256], stripped[256], line[512];
	char *strip_argv[] = { "strip", "-o", stripped, (char *)path, NULL };
	struct pk_symbolizer *sym;
	struct stat st;
	__u64 bias, vdso_size;

	/* Stripped: no symbol for main; named by file and ELF address. */
	snprintf(stripped, sizeof(stripped), "%s/stripped prog", pk_fx_dir());
	pk_fx_run_ok(strip_argv, NULL);
	bias = pk_fx_fake_maps(stripped, PK_FX_PIE_BASE, maps, sizeof(maps));
	/* A deleted file that cannot be opened any more: file offset. */
	snprintf(deleted, sizeof(deleted), "%s/gone.so", pk_fx_dir());
	ck_assert_int_eq(stat(path, &st), 0);
	snprintf(line, sizeof(line),
		 "7f0000000000-7f0000002000 r-xp 00003000 %02x:%02x %llu %s (deleted)\n"
		 "7f0000010000-7f0000011000 rwxp 00000000 00:00 0\n"
		 "7f0000020000-7f0000021000 rwxp 00000000 00:00 0 [heap]\n",
		 major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino, deleted);
	strcat(maps, line);
	/* The vDSO, read from our own: its ELF header is nobody's function. */
	vdso_size = own_vdso_size();
	snprintf(line, sizeof(line), "7f0000030000-%llx r-xp 00000000 00:00 0 [vdso]\n",
		 0x7f0000030000ULL + vdso_size);
	strcat(maps, line);
	pk_fx_set_maps(PK_FX_PID, maps);

	sym = new_symbolizer(NULL);
	snprintf(line, sizeof(line), "[stripped prog+0x%llx]", 0x1000ULL + 0x10);
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, bias + 0x1010), line);
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, 0x7f0000000123), "[gone.so+0x3123]");
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, 0x7f0000010040), "[anon]");
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, 0x7f0000020040), "[heap]");
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, 0x7f0000030010), "[vdso+0x10]");
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, 0x1000), "[unknown]");
	/* A process that exited before its maps were read. */
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID + 1, bias + 0x1010), "[unknown]");
	pk_symbolizer_free(sym);
}
END_TEST

/* A function symbol without a size: clang's for a function whose body is
 * unreachable, whose address is the next function's, that next function
 * often a static one whose symbol was stripped. The fixture: unsized_fn
 * (no .size) followed by a static function whose symbol objcopy strips,
 * and unsized_twin at the address of sized_twin, also followed by one.
 * Before, the unsized symbols stretched to the end of .text and named both
 * static functions (and every gap up to the end of .text); eu-addr2line and
 * perf stretch them to the next symbol. Now an unsized function names its
 * own address only, and the code after it is [unsized+0xADDR]. */
static const char unsized_src[] =
	"__asm__(\".text\\n\"\n"
	"\".globl unsized_fn\\n.type unsized_fn,@function\\nunsized_fn:\\n\"\n"
	"\".cfi_startproc\\nnop\\nnop\\nret\\n.cfi_endproc\\n\"\n"
	"\".type hidden_fn,@function\\nhidden_fn:\\n.cfi_startproc\\n\"\n"
	"\"nop\\nnop\\nnop\\nnop\\nnop\\nnop\\nnop\\nnop\\nret\\n.cfi_endproc\\n\"\n"
	"\".size hidden_fn,.-hidden_fn\\n\"\n"
	"\".globl unsized_twin\\n.type unsized_twin,@function\\nunsized_twin:\\n\"\n"
	"\".globl sized_twin\\n.type sized_twin,@function\\nsized_twin:\\n\"\n"
	"\".cfi_startproc\\nnop\\nret\\n.cfi_endproc\\n.size sized_twin,.-sized_twin\\n\"\n"
	"\".type hidden_too,@function\\nhidden_too:\\n.cfi_startproc\\n\"\n"
	"\"nop\\nnop\\nnop\\nnop\\nret\\n.cfi_endproc\\n.size hidden_too,.-hidden_too\\n\");\n"
	"void unsized_fn(void);\n"
	"void sized_twin(void);\n"
	"int main(int c, char **v)\n"
	"{ (void)v; if (c > 5) { unsized_fn(); sized_twin(); } return 0; }\n";

START_TEST(test_unsized_symbol_names_its_address)
{
	const char *built = pk_fx_build("unsized", unsized_src, false, "-pie");
	char path[256], maps[4096] = "", want[64];
	char *strip[] = { "objcopy", "--strip-symbol=hidden_fn", "--strip-symbol=hidden_too",
			  path, NULL };
	__u64 fn, fn_size, twin, twin_size, other, bias;
	struct pk_symbolizer *sym;
	/* offsets from unsized_fn, from sized_twin: unnamed */
	static const unsigned fn_gap[] = { 1, 2, 3, 5, 11 }, twin_gap[] = { 2, 4, 6 };

	snprintf(path, sizeof(path), "%s", built);
	pk_fx_run_ok(strip, NULL);
	pk_fx_symbol(path, "unsized_fn", &fn, &fn_size);
	pk_fx_symbol(path, "sized_twin", &twin, &twin_size);
	pk_fx_symbol(path, "unsized_twin", &other, &fn_size);
	ck_assert_uint_eq(other, twin);
	ck_assert_uint_eq(fn_size, 0);
	ck_assert_uint_eq(twin_size, 2);
	ck_assert_uint_eq(twin, fn + 12);	/* the layout the offsets assume */
	bias = pk_fx_fake_maps(path, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	sym = new_symbolizer(NULL);
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, bias + fn), "unsized_fn");
	for (size_t i = 0; i < sizeof(fn_gap) / sizeof(fn_gap[0]); i++) {
		snprintf(want, sizeof(want), "[unsized+0x%llx]", (unsigned long long)fn + fn_gap[i]);
		ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, bias + fn + fn_gap[i]), want);
	}
	/* the sized symbol at the unsized one's address names it, its size
	 * long, and no further */
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, bias + twin), "sized_twin");
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, bias + twin + 1), "sized_twin");
	for (size_t i = 0; i < sizeof(twin_gap) / sizeof(twin_gap[0]); i++) {
		snprintf(want, sizeof(want), "[unsized+0x%llx]",
			 (unsigned long long)twin + twin_gap[i]);
		ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, bias + twin + twin_gap[i]), want);
	}
	pk_symbolizer_free(sym);
}
END_TEST

/* An unsized symbol (_init) ends with its section: the PLT that follows
 * .init is not _init's, and its resolver's entry is nobody's. */
START_TEST(test_unsized_symbol_ends_with_section)
{
	const char *path = pk_fx_build("c_pie", pk_fx_c_src, false, "-pie");
	char maps[4096] = "", want[64], *out = NULL, *line, *save;
	char *argv[] = { "objdump", "-h", (char *)path, NULL };
	const char *stub;
	unsigned long long plt = 0, init = 0;
	struct pk_symbolizer *sym;
	__u64 bias;

	pk_fx_run_ok(argv, &out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		unsigned long long size, vma;

		if (sscanf(line, "%*d %63s %llx %llx", name, &size, &vma) != 3)
			continue;
		if (strcmp(name, ".plt") == 0)
			plt = vma;
		if (strcmp(name, ".init") == 0)
			init = vma;
	}
	free(out);
	ck_assert(init && plt > init);
	bias = pk_fx_fake_maps(path, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	sym = new_symbolizer(NULL);
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, bias + init), "_init");
	snprintf(want, sizeof(want), "[c_pie+0x%llx]", plt);
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, bias + plt), want);
	/* the stubs after the resolver's entry are named (test_plt.c) */
	stub = pk_symbolizer_user(sym, PK_FX_PID, bias + plt + 16);
	ck_assert_msg(strlen(stub) > 4 && !strcmp(stub + strlen(stub) - 4, "@plt"),
		      "the first PLT stub is called %s", stub);
	pk_symbolizer_free(sym);
}
END_TEST

/* An address outside every known mapping makes the symbolizer read the
 * maps again (after a short delay): dlopen between two samples. */
START_TEST(test_maps_reread)
{
	const char *path = pk_fx_build("c_pie", pk_fx_c_src, false, "-pie");
	char maps[4096] = "";
	struct pk_symbolizer_stats st;
	struct pk_symbolizer *sym;
	__u64 bias;

	pk_fx_set_maps(PK_FX_PID, "00400000-00401000 r-xp 00000000 00:00 0 [x]\n");
	sym = new_symbolizer(NULL);
	ck_assert_int_eq(pk_symbolizer_add_pid(sym, PK_FX_PID), 0);
	bias = pk_fx_fake_maps(path, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	ck_assert_str_eq(pk_symbolizer_user(sym, PK_FX_PID, bias + 0x1010), "[unknown]");
	usleep(150 * 1000);
	ck_assert_str_ne(pk_symbolizer_user(sym, PK_FX_PID, bias + 0x1010), "[unknown]");
	pk_symbolizer_stats(sym, &st);
	ck_assert_uint_eq(st.maps_reads, 2);
	ck_assert_uint_eq(st.modules, 1);
	/* The process is gone: what was learned stays. */
	pk_fx_set_maps(PK_FX_PID, "");
	ck_assert_str_ne(pk_symbolizer_user(sym, PK_FX_PID, bias + 0x1011), "[unknown]");
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

	snprintf(path, sizeof(path), "%s/kallsyms", pk_fx_dir());
	pk_fx_write_file(path, "ffffffff81000000 T _stext\n"
			 "ffffffff81000100 T do_syscall_64\n"
			 "ffffffff81000200 t helper\n"
			 "ffffffff82000000 D data\n"
			 "ffffffffc0010000 t nft_do_chain\t[nf_tables]\n"
			 "ffffffffc0020000 t bpf_prog_59f4a931744dcdc6_on_cpu\t[bpf]\n"
			 "ffffffffc0020100 t helper\t[nf_tables]\n");
	sym = new_symbolizer(pk_fx_dir());
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffff81000150), "do_syscall_64");
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffff81000200), "helper");
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffff82000010), "[unknown]");
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0x1000), "[unknown]");
	/* a module's symbols name their module, BPF programs "[bpf]"; the
	 * location's map is the module's */
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffffc0010010), "nft_do_chain [nf_tables]");
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffffc0020010),
			 "bpf_prog_59f4a931744dcdc6_on_cpu [bpf]");
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffffc0020110), "helper [nf_tables]");
	{
		const struct pk_loc *a = pk_symbolizer_kernel_loc(sym, 0xffffffffc0010010, false);
		const struct pk_loc *b = pk_symbolizer_kernel_loc(sym, 0xffffffffc0020110, true);
		const struct pk_loc *k = pk_symbolizer_kernel_loc(sym, 0xffffffff81000150, true);

		ck_assert(a->kernel && b->kernel && k->kernel);
		ck_assert_str_eq(a->map->module->path, "[nf_tables]");
		ck_assert_ptr_eq(a->map, b->map);
		ck_assert_str_eq(k->map->module->path, "[kernel.kallsyms]");
		ck_assert_uint_eq(a->sym_off, 0x10);
		ck_assert_uint_eq(b->sym_off, 0x10);	/* of the address, not minus one */
		ck_assert_uint_eq(b->module_addr, 0xffffffffc002010f);
	}
	pk_symbolizer_free(sym);
	/* No kallsyms at all. */
	snprintf(path, sizeof(path), "%s/missing", pk_fx_dir());
	sym = new_symbolizer(path);
	ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffff81000150), "[unknown]");
	pk_symbolizer_free(sym);
}
END_TEST

/* Python frames: one location per (code, line), whatever the instruction;
 * "[py:0xCODE]" until a report names the code, the report then saying it
 * named frames anew; numbered as every location is. */
START_TEST(test_python)
{
	/* units 0-1 at line 7, 2-3 at 9, 4 without a line */
	static const __u8 lt[] = { 0x81, 0x00, 0x80 | 12 << 3 | 1, 1, 2, 0x80 | 15 << 3 };
	struct pk_py_code_desc d = {
		.pid = PK_FX_PID, .version = 0x030b02f0, .code = 0x7f0000001000, .firstlineno = 7,
		.name = "f", .name_len = 1, .file = "/x/m.py", .file_len = 7, .linetable = lt,
		.linetable_len = sizeof(lt),
	};
	struct pk_symbolizer *sym = new_symbolizer(NULL);
	const struct pk_loc *u, *a, *b, *c, *e;
	struct pk_symbolizer_stats st;

	ck_assert_ptr_nonnull(sym);
	pk_symbolizer_renumber(sym);
	u = pk_symbolizer_py_loc(sym, PK_FX_PID, pk_py_frame(d.code, 1, 1));
	ck_assert_ptr_nonnull(u);
	ck_assert(u->python);
	ck_assert_str_eq(u->frames[0].name, "[py:0x7f0000001000]");
	ck_assert_ptr_null(u->frames[0].file);
	ck_assert_ptr_null(u->map);
	ck_assert_uint_eq(u->addr, d.code);
	ck_assert_ptr_eq(pk_symbolizer_py_loc(sym, PK_FX_PID, pk_py_frame(d.code, 2, 0)), u);
	ck_assert_int_eq(pk_symbolizer_add_py_code(sym, &d), 1);
	a = pk_symbolizer_py_loc(sym, PK_FX_PID, pk_py_frame(d.code, 1, 1));
	b = pk_symbolizer_py_loc(sym, PK_FX_PID, pk_py_frame(d.code, 2, 0));	/* the entry bit: the same */
	c = pk_symbolizer_py_loc(sym, PK_FX_PID, pk_py_frame(d.code, 3, 0));
	e = pk_symbolizer_py_loc(sym, PK_FX_PID, pk_py_frame(d.code, 5, 0));
	ck_assert(a && b && c && e);
	ck_assert_ptr_eq(a, b);
	ck_assert_ptr_ne(a, c);
	ck_assert_str_eq(a->frames[0].name, "f");
	ck_assert_str_eq(a->frames[0].file, "/x/m.py");
	ck_assert_uint_eq(a->frames[0].line, 7);
	ck_assert_uint_eq(c->frames[0].line, 9);
	ck_assert_uint_eq(e->frames[0].line, 0);
	/* an instruction past what a frame carries: no line, as unit 4 */
	ck_assert_ptr_eq(pk_symbolizer_py_loc(sym, PK_FX_PID,
					      pk_py_frame(d.code, PK_PY_INSTR_UNKNOWN, 0)), e);
	/* the same report again: nothing to name anew */
	ck_assert_int_eq(pk_symbolizer_add_py_code(sym, &d), 0);
	ck_assert_ptr_eq(pk_symbolizer_py_loc(sym, PK_FX_PID, pk_py_frame(d.code, 1, 1)), a);
	/* numbered as they were handed out: u, a, c, e */
	ck_assert_uint_eq(u->id, 0);
	ck_assert_uint_eq(a->id, 1);
	ck_assert_uint_eq(c->id, 2);
	ck_assert_uint_eq(e->id, 3);
	pk_symbolizer_stats(sym, &st);
	ck_assert_uint_eq(st.py_codes, 1);
	pk_symbolizer_free(sym);
}
END_TEST

/* Java frames, as user frames: one location per method, whatever the
 * interpreted frame's bytecode index; "[java:0xMETHOD]" until a report names
 * it "package.Class.method", a report of another name (a method freed and
 * another made at its address) naming it anew, an unreadable one not. */
START_TEST(test_java)
{
	struct pk_hs_method_desc d = {
		.pid = PK_FX_PID, .method = 0x7f0000002000, .klass = "java/util/Arrays",
		.klass_len = 16, .name = "sort", .name_len = 4,
	};
	__u64 interp = pk_hs_frame(d.method, 5, PK_HS_INTERPRETED);
	__u64 other = pk_hs_frame(d.method, 9, PK_HS_INTERPRETED);
	struct pk_symbolizer *sym = new_symbolizer(NULL);
	const struct pk_loc *u, *a;

	ck_assert_ptr_nonnull(sym);
	pk_symbolizer_renumber(sym);
	u = pk_symbolizer_user_loc(sym, PK_FX_PID, interp, true);
	ck_assert_ptr_nonnull(u);
	ck_assert_str_eq(u->frames[0].name, "[java:0x7f0000002000]");
	ck_assert_ptr_null(u->map);
	ck_assert(!u->python);
	ck_assert_ptr_eq(pk_symbolizer_user_loc(sym, PK_FX_PID, other, false), u);
	ck_assert_int_eq(pk_symbolizer_add_hs_method(sym, &d), 1);
	a = pk_symbolizer_user_loc(sym, PK_FX_PID, interp, true);
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->frames[0].name, "java.util.Arrays.sort");
	ck_assert_uint_eq(a->nframes, 1);
	ck_assert_uint_eq(a->addr, d.method);
	ck_assert_ptr_eq(pk_symbolizer_hs_loc(sym, PK_FX_PID, other), a);
	ck_assert_int_eq(pk_symbolizer_add_hs_method(sym, &d), 0);
	ck_assert_ptr_eq(pk_symbolizer_hs_loc(sym, PK_FX_PID, interp), a);
	/* another method at its address */
	d.klass = "Hot";
	d.klass_len = 3;
	d.name = "leaf";
	ck_assert_int_eq(pk_symbolizer_add_hs_method(sym, &d), 1);
	ck_assert_str_eq(pk_symbolizer_hs_loc(sym, PK_FX_PID, interp)->frames[0].name, "Hot.leaf");
	d.flags = PK_HS_UNREADABLE;
	d.klass_len = d.name_len = 0;
	ck_assert_int_eq(pk_symbolizer_add_hs_method(sym, &d), 0);
	ck_assert_str_eq(pk_symbolizer_hs_loc(sym, PK_FX_PID, interp)->frames[0].name, "Hot.leaf");
	/* numbered as they were handed out */
	ck_assert_uint_eq(u->id, 0);
	ck_assert_uint_eq(a->id, 1);
	pk_symbolizer_free(sym);
}
END_TEST

/* JavaScript frames, as user frames: one location per SharedFunctionInfo,
 * whatever the frame's kind and position; "[js:0xSFI]" until a report
 * names it, with its script as the file; "(anonymous)" for a function
 * without a name; Latin-1 made UTF-8; the line a report lacked given to
 * the frames named so far; a report of another name or line naming it
 * anew, an unreadable one or one without its line not. */
START_TEST(test_javascript)
{
	struct pk_v8_sfi_desc d = {
		.pid = PK_FX_PID, .sfi = 0x3f0000002001, .name = "leaf", .name_len = 4,
		.file = "/mnt/hot.js", .file_len = 11,
	};
	__u64 interp = pk_v8_frame(d.sfi, 60, PK_V8_INTERPRETED);
	__u64 compiled = pk_v8_frame(d.sfi, 0, PK_V8_COMPILED);
	struct pk_symbolizer *sym = new_symbolizer(NULL);
	const struct pk_loc *u, *a, *l21, *l;

	ck_assert(pk_v8_is_frame(interp) && pk_v8_is_frame(compiled));
	ck_assert(!pk_v8_is_frame(pk_hs_frame(d.sfi, 1, PK_HS_COMPILED)));
	ck_assert(!pk_v8_is_frame(0x7fffffffffffull));
	ck_assert_ptr_nonnull(sym);
	pk_symbolizer_renumber(sym);
	u = pk_symbolizer_user_loc(sym, PK_FX_PID, interp, true);
	ck_assert_ptr_nonnull(u);
	ck_assert_str_eq(u->frames[0].name, "[js:0x3f0000002001]");
	ck_assert_ptr_null(u->frames[0].file);
	ck_assert_ptr_null(u->map);
	ck_assert_ptr_eq(pk_symbolizer_user_loc(sym, PK_FX_PID, compiled, false), u);
	ck_assert_int_eq(pk_symbolizer_add_v8_sfi(sym, &d), 1);
	a = pk_symbolizer_user_loc(sym, PK_FX_PID, interp, true);
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->frames[0].name, "leaf");
	ck_assert_str_eq(a->frames[0].file, "/mnt/hot.js");
	ck_assert_uint_eq(a->frames[0].line, 0);
	ck_assert(a->js && !a->java && !a->python);
	ck_assert_uint_eq(a->nframes, 1);
	ck_assert_uint_eq(a->addr, d.sfi);
	ck_assert_ptr_eq(pk_symbolizer_v8_loc(sym, PK_FX_PID, compiled), a);
	ck_assert_int_eq(pk_symbolizer_add_v8_sfi(sym, &d), 0);
	/* the line it starts at, reported (an earlier report lacked it):
	 * the location it had, which frames named so far hold, has it */
	d.line = 19;
	ck_assert_int_eq(pk_symbolizer_add_v8_sfi(sym, &d), 0);
	ck_assert_ptr_eq(pk_symbolizer_v8_loc(sym, PK_FX_PID, interp), a);
	ck_assert_str_eq(a->frames[0].name, "leaf");
	ck_assert_uint_eq(a->frames[0].line, 19);
	ck_assert_int_eq(pk_symbolizer_add_v8_sfi(sym, &d), 0);
	/* another line: named anew */
	d.line = 21;
	ck_assert_int_eq(pk_symbolizer_add_v8_sfi(sym, &d), 1);
	l21 = pk_symbolizer_v8_loc(sym, PK_FX_PID, interp);
	ck_assert_uint_eq(l21->frames[0].line, 21);
	ck_assert_uint_eq(a->frames[0].line, 19);
	d.line = 19;
	ck_assert_int_eq(pk_symbolizer_add_v8_sfi(sym, &d), 1);
	l = pk_symbolizer_v8_loc(sym, PK_FX_PID, interp);
	/* the same again without its line (a report sent again when the
	 * line was not there to read): named as it was, at its line */
	d.line = 0;
	ck_assert_int_eq(pk_symbolizer_add_v8_sfi(sym, &d), 0);
	ck_assert_uint_eq(pk_symbolizer_v8_loc(sym, PK_FX_PID, interp)->frames[0].line, 19);
	d.line = 19;
	/* unreadable: named as it was */
	d.flags = PK_V8_NAME_UNREADABLE;
	d.name_len = 0;
	ck_assert_int_eq(pk_symbolizer_add_v8_sfi(sym, &d), 0);
	ck_assert_str_eq(pk_symbolizer_v8_loc(sym, PK_FX_PID, interp)->frames[0].name, "leaf");
	/* another function at its address: anonymous, in a Latin-1 file */
	d.flags = 0;
	d.file = "/caf\xe9.js";
	d.file_len = 8;
	ck_assert_int_eq(pk_symbolizer_add_v8_sfi(sym, &d), 1);
	ck_assert_str_eq(pk_symbolizer_v8_loc(sym, PK_FX_PID, interp)->frames[0].name,
			 "(anonymous)");
	ck_assert_str_eq(pk_symbolizer_v8_loc(sym, PK_FX_PID, interp)->frames[0].file,
			 "/caf\xc3\xa9.js");
	ck_assert_uint_eq(pk_symbolizer_v8_loc(sym, PK_FX_PID, interp)->frames[0].line, 19);
	/* numbered as they were handed out */
	ck_assert_uint_eq(u->id, 0);
	ck_assert_uint_eq(a->id, 1);
	ck_assert_uint_eq(l21->id, 2);
	ck_assert_uint_eq(l->id, 3);
	pk_symbolizer_free(sym);
}
END_TEST

/* A Java method's file, and an interpreted frame's line from its table
 * at the frame's bytecode index (+ 1 in the frame; 0: unknown): one
 * location per line; one with no index the method's (its file, no
 * line); the same report again changes nothing, another
 * table names the lines anew. */
START_TEST(test_java_lines)
{
	/* JDK 17's coding: (bci 0, line 30), (4, 31), (10, 32) */
	static const __u8 lines[] = { 0xff, 0x00, 0x3c, 0x21, 0x31, 0x00 };
	static const __u8 lines21[] = { 0xff, 0x01, 0x3d, 0x21, 0x31, 0x00 };
	struct pk_hs_method_desc d = {
		.pid = PK_FX_PID, .method = 0x7f0000003000, .klass = "Hot", .klass_len = 3,
		.name = "leaf", .name_len = 4, .file = "Hot.java", .file_len = 8,
		.lines = lines, .lines_len = sizeof(lines),
	};
	struct pk_symbolizer *sym = new_symbolizer(NULL);
	const struct pk_loc *at5, *at6, *at12, *none;

	ck_assert_ptr_nonnull(sym);
	pk_symbolizer_renumber(sym);
	ck_assert_int_eq(pk_symbolizer_add_hs_method(sym, &d), 0);
	at5 = pk_symbolizer_hs_loc(sym, PK_FX_PID, pk_hs_frame(d.method, 5 + 1, PK_HS_INTERPRETED));
	at6 = pk_symbolizer_hs_loc(sym, PK_FX_PID, pk_hs_frame(d.method, 6 + 1, PK_HS_INTERPRETED));
	at12 = pk_symbolizer_hs_loc(sym, PK_FX_PID,
				    pk_hs_frame(d.method, 12 + 1, PK_HS_INTERPRETED));
	none = pk_symbolizer_hs_loc(sym, PK_FX_PID, pk_hs_frame(d.method, 0, PK_HS_INTERPRETED));
	ck_assert_ptr_nonnull(at5);
	ck_assert_ptr_nonnull(at12);
	ck_assert_str_eq(at5->frames[0].name, "Hot.leaf");
	ck_assert_str_eq(at5->frames[0].file, "Hot.java");
	ck_assert_uint_eq(at5->frames[0].line, 31);
	ck_assert_ptr_eq(at6, at5);
	ck_assert_uint_eq(at12->frames[0].line, 32);
	ck_assert_ptr_ne(none, at5);
	ck_assert_str_eq(none->frames[0].file, "Hot.java");
	ck_assert_uint_eq(none->frames[0].line, 0);
	ck_assert_int_eq(pk_symbolizer_add_hs_method(sym, &d), 0);
	/* JDK 21's coding of the same table */
	d.lines = lines21;
	ck_assert_int_eq(pk_symbolizer_add_hs_method(sym, &d), 1);
	ck_assert_uint_ne(pk_symbolizer_hs_loc(sym, PK_FX_PID, pk_hs_frame(d.method, 6,
									 PK_HS_INTERPRETED))
			  ->frames[0].line, 31);
	d.flags = PK_HS_LINES_NO_ZERO;
	ck_assert_int_eq(pk_symbolizer_add_hs_method(sym, &d), 1);
	ck_assert_uint_eq(pk_symbolizer_hs_loc(sym, PK_FX_PID, pk_hs_frame(d.method, 6,
									 PK_HS_INTERPRETED))
			  ->frames[0].line, 31);
	pk_symbolizer_free(sym);
}
END_TEST

/* A Java method of PK_FX_PID in Hot.java, with line table LINES. */
static void add_hot_method(struct pk_symbolizer *sym, __u64 method, const char *name,
			   const __u8 *lines, size_t n)
{
	struct pk_hs_method_desc d = {
		.pid = PK_FX_PID, .method = method, .klass = "Hot", .klass_len = 3,
		.name = name, .name_len = strlen(name), .file = "Hot.java", .file_len = 8,
		.lines = lines, .lines_len = n,
	};

	ck_assert_int_ge(pk_symbolizer_add_hs_method(sym, &d), 0);
}

#define HOT_TOP		0x7f0000001000ull
#define HOT_MID		0x7f0000002000ull
#define HOT_LEAF	0x7f0000003000ull
#define HOT_CODE	0x7f1000000100ull

/* An nmethod of top (compile id CID) whose code inlines mid and leaf, as
 * hotspot_scopes.h reads them (JDK 17's coding): PcDescs at 0x10 (top,
 * bci 300), 0x20 (leaf 58 <- mid 3 <- top 8), 0x30 (mid 3 <- top 8). */
struct hot_nm {
	__u8 pcs[4 * 16], scopes[32], meta[3 * 8];
	struct pk_hs_nmethod_desc d;
};

static __u32 hot_scope(struct hot_nm *nm, size_t *n, __u32 sender, __u32 index, __u32 bci)
{
	__u32 at = *n;

	*n += put_u5(nm->scopes + *n, sender, 0);
	*n += put_u5(nm->scopes + *n, index, 0);
	*n += put_u5(nm->scopes + *n, bci + 1, 0);
	return at;
}

static void hot_nmethod(struct hot_nm *nm, __u32 cid, __u64 method)
{
	const __u64 meta[] = { HOT_TOP, HOT_MID, HOT_LEAF };
	size_t n = 1;
	__u32 top300 = hot_scope(nm, &n, 0, 1, 300), top8 = hot_scope(nm, &n, 0, 1, 8);
	__u32 mid = hot_scope(nm, &n, top8, 2, 3), leaf = hot_scope(nm, &n, mid, 3, 58);
	const __s32 pcs[][4] = { { -1, 0 }, { 0x10, top300 }, { 0x20, leaf }, { 0x30, mid } };

	nm->scopes[0] = 0;
	memcpy(nm->pcs, pcs, sizeof(pcs));
	memcpy(nm->meta, meta, sizeof(meta));
	nm->d = (struct pk_hs_nmethod_desc){
		.pid = PK_FX_PID, .compile_id = cid, .code_size = 0x100, .nmethod = HOT_CODE - 0x100,
		.method = method, .code_begin = HOT_CODE, .pcs = nm->pcs, .pcs_len = sizeof(pcs),
		.scopes = nm->scopes, .scopes_len = n, .metadata = nm->meta,
		.metadata_len = sizeof(meta), .pcdesc_size = 16, .pcdesc_scope_decode_offset = 4,
	};
}

/* Compiled Java frames (a PC and a compile id's bits): "[java:0xPC]" until
 * their nmethod's report; then the methods inlined at the PC, innermost
 * first, each at its scope's line; the nmethod's method alone where its
 * scopes say nothing; never named by an nmethod of other compile id bits
 * or by one that no longer holds the PC; named anew as their methods or
 * nmethod are. */
START_TEST(test_java_compiled)
{
	/* top: bci 0 line 50, 8 52; mid: 0 45, 3 46; leaf: 0 30, 58 33 */
	static const __u8 top[] = { 0xff, 0x00, 100, 0x42, 0x00 };
	static const __u8 mid[] = { 0xff, 0x00, 90, 0x19, 0x00 };
	static const __u8 leaf[] = { 0xff, 0x00, 60, 0xff, 116, 6, 0x00 };
	__u64 at20 = pk_hs_frame(HOT_CODE + 0x20, 77, PK_HS_COMPILED);
	struct pk_symbolizer *sym = new_symbolizer(NULL);
	const struct pk_loc *l, *c;
	struct hot_nm nm, other;

	ck_assert_ptr_nonnull(sym);
	pk_symbolizer_renumber(sym);
	l = pk_symbolizer_hs_loc(sym, PK_FX_PID, at20);
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_eq(l->nframes, 1);
	ck_assert_str_eq(l->frames[0].name, "[java:0x7f1000000120]");
	ck_assert(l->java);
	add_hot_method(sym, HOT_TOP, "top", top, sizeof(top));
	add_hot_method(sym, HOT_MID, "mid", mid, sizeof(mid));
	add_hot_method(sym, HOT_LEAF, "leaf", leaf, sizeof(leaf));
	hot_nmethod(&nm, 77, HOT_TOP);
	ck_assert_int_eq(pk_symbolizer_add_hs_nmethod(sym, &nm.d), 0);
	ck_assert_int_eq(pk_symbolizer_add_hs_nmethod(sym, &nm.d), 0);
	c = pk_symbolizer_hs_loc(sym, PK_FX_PID, at20);
	ck_assert_uint_eq(c->nframes, 3);
	ck_assert(c->java);
	ck_assert_uint_eq(c->addr, HOT_CODE + 0x20);
	ck_assert_str_eq(c->frames[0].name, "Hot.leaf");
	ck_assert_uint_eq(c->frames[0].line, 33);
	ck_assert_str_eq(c->frames[1].name, "Hot.mid");
	ck_assert_uint_eq(c->frames[1].line, 46);
	ck_assert_str_eq(c->frames[2].name, "Hot.top");
	ck_assert_str_eq(c->frames[2].file, "Hot.java");
	ck_assert_uint_eq(c->frames[2].line, 52);
	ck_assert_ptr_eq(pk_symbolizer_hs_loc(sym, PK_FX_PID, at20), c);
	/* between two PcDescs: the next one's */
	l = pk_symbolizer_hs_loc(sym, PK_FX_PID, pk_hs_frame(HOT_CODE + 0x19, 77, PK_HS_COMPILED));
	ck_assert_uint_eq(l->nframes, 3);
	ck_assert_str_eq(l->frames[0].name, "Hot.leaf");
	/* top's own code, at bci 300 (its line 52, the nearest below) */
	l = pk_symbolizer_hs_loc(sym, PK_FX_PID, pk_hs_frame(HOT_CODE + 0x10, 77, PK_HS_COMPILED));
	ck_assert_uint_eq(l->nframes, 1);
	ck_assert_str_eq(l->frames[0].name, "Hot.top");
	ck_assert_uint_eq(l->frames[0].line, 52);
	/* a scope at its method's entry (bci -1): bytecode 0's line */
	nm.scopes[nm.d.scopes_len - 1] = 0;	/* leaf's bci + 1 */
	ck_assert_int_eq(pk_symbolizer_add_hs_nmethod(sym, &nm.d), 1);
	l = pk_symbolizer_hs_loc(sym, PK_FX_PID, at20);
	ck_assert_str_eq(l->frames[0].name, "Hot.leaf");
	ck_assert_uint_eq(l->frames[0].line, 30);
	/* past the last PcDesc: the nmethod's method, no line */
	l = pk_symbolizer_hs_loc(sym, PK_FX_PID, pk_hs_frame(HOT_CODE + 0x31, 77, PK_HS_COMPILED));
	ck_assert_uint_eq(l->nframes, 1);
	ck_assert_str_eq(l->frames[0].name, "Hot.top");
	ck_assert_uint_eq(l->frames[0].line, 0);
	/* other compile id bits, or past its code: not this nmethod's */
	l = pk_symbolizer_hs_loc(sym, PK_FX_PID, pk_hs_frame(HOT_CODE + 0x20, 78, PK_HS_COMPILED));
	ck_assert_str_eq(l->frames[0].name, "[java:0x7f1000000120]");
	l = pk_symbolizer_hs_loc(sym, PK_FX_PID, pk_hs_frame(HOT_CODE + 0x100, 77, PK_HS_COMPILED));
	ck_assert_str_eq(l->frames[0].name, "[java:0x7f1000000200]");
	/* leaf reported anew under another name: the frame named anew */
	add_hot_method(sym, HOT_LEAF, "leaf2", leaf, sizeof(leaf));
	l = pk_symbolizer_hs_loc(sym, PK_FX_PID, at20);
	ck_assert_ptr_ne(l, c);
	ck_assert_str_eq(l->frames[0].name, "Hot.leaf2");
	/* mid compiled at top's code, compile id bits the same: it takes
	 * the PC, whose scopes (ending in top) are not mid's: mid alone */
	hot_nmethod(&other, 77 + (PK_HS_INFO_MASK + 1), HOT_MID);
	ck_assert_int_eq(pk_symbolizer_add_hs_nmethod(sym, &other.d), 1);
	l = pk_symbolizer_hs_loc(sym, PK_FX_PID, at20);
	ck_assert_uint_eq(l->nframes, 1);
	ck_assert_str_eq(l->frames[0].name, "Hot.mid");
	pk_symbolizer_free(sym);
}
END_TEST

Suite *suite_symbolizer(void)
{
	Suite *s = suite_create("symbolizer");
	TCase *tc = tcase_create("oracle");

	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_oracle_c_pie);
	tcase_add_test(tc, test_oracle_c_exec);
	tcase_add_test(tc, test_oracle_cxx);
	tcase_add_test(tc, test_oracle_libstdcxx);
	suite_add_tcase(s, tc);
	tc = tcase_create("mappings");
	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_unsymbolized_formats);
	tcase_add_test(tc, test_unsized_symbol_ends_with_section);
	tcase_add_test(tc, test_unsized_symbol_names_its_address);
	tcase_add_test(tc, test_maps_reread);
	tcase_add_test(tc, test_self);
	tcase_add_test(tc, test_kernel);
	tcase_add_test(tc, test_python);
	tcase_add_test(tc, test_java);
	tcase_add_test(tc, test_javascript);
	tcase_add_test(tc, test_java_lines);
	tcase_add_test(tc, test_java_compiled);
	suite_add_tcase(s, tc);
	return s;
}
