// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The file cache of the symbolizer: one symbol table per build-id, files
 * found by inode, path or build-id, bad files refused without harm. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/elf_fixture.h"
#include "symbolization/symfile.h"
#include "test_util.h"

static void copy(const char *from, const char *to)
{
	size_t len;
	char *data = pk_test_read_file(from, &len);
	int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_ptr_nonnull(data);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	free(data);
}

static void inode_of(const char *path, __u64 *dev, __u64 *ino)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	*dev = st.st_dev;
	*ino = st.st_ino;
}

/* The build-id of PATH, read through the cache itself (its module's hex),
 * into bytes. */
static size_t build_id_of(const struct pk_symfile *f, __u8 *id)
{
	const char *hex = pk_symfile_module(f)->build_id;
	size_t n = strlen(hex) / 2;

	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(sscanf(hex + 2 * i, "%2hhx", &id[i]), 1);
	return n;
}

/* Two inodes, one build-id (a copy, as a container's libc is of the
 * host's): loaded once, both named alike. */
START_TEST(test_shared_by_build_id)
{
	char prog[256], copy_path[300];
	struct pk_symfile_source src[2] = { { prog, true }, { NULL } };
	struct pk_symfiles *files = pk_symfiles_new();
	struct pk_symfiles_stats st;
	struct pk_symfile *a, *b;
	__u64 dev, ino, dev2, ino2, die, size, start = 0;

	snprintf(prog, sizeof(prog), "%s", pk_fx_build("prog", pk_fx_c_src, false, "-pie"));
	snprintf(copy_path, sizeof(copy_path), "%s.copy", prog);
	copy(prog, copy_path);
	pk_fx_symbol(prog, "die", &die, &size);
	inode_of(prog, &dev, &ino);
	inode_of(copy_path, &dev2, &ino2);
	ck_assert(ino != ino2);

	a = pk_symfiles_add(files, dev, ino, prog, src, NULL, 0);
	src[0].path = copy_path;
	b = pk_symfiles_add(files, dev2, ino2, copy_path, src, NULL, 0);
	ck_assert(pk_symfile_loaded(a) && pk_symfile_loaded(b));
	ck_assert_ptr_eq(pk_symfiles_get(files, dev, ino), a);
	ck_assert_ptr_eq(pk_symfiles_get(files, dev2, ino2), b);
	ck_assert_str_eq(pk_symfile_symbol(a, die + 1, &start), "die");
	ck_assert_uint_eq(start, die);
	ck_assert_str_eq(pk_symfile_symbol(b, die + 1, &start), "die");
	ck_assert_str_eq(pk_symfile_module(a)->build_id, pk_symfile_module(b)->build_id);
	ck_assert_uint_ne(pk_symfile_module(a)->id, pk_symfile_module(b)->id);
	pk_symfiles_stats(files, &st);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.loaded, 2);
	ck_assert_uint_eq(st.symtabs, 1);
	pk_symfiles_free(files);
	unlink(copy_path);
}
END_TEST

/*
 * Sweeps let go of the files held at neither them nor the sweep before,
 * and of a build-id's symbols with its last file: a copy sharing them
 * keeps them. A file let go of is added anew, named alike; a named
 * module (no file) is never let go of.
 */
START_TEST(test_sweep)
{
	char prog[256], copy_path[300], other[256];
	struct pk_symfile_source src[2] = { { prog, true }, { NULL } };
	struct pk_symfiles *files = pk_symfiles_new();
	const struct pk_module *kernel = pk_symfiles_named(files, "[kernel.kallsyms]");
	struct pk_symfiles_stats st;
	struct pk_symfile *a, *b, *c;
	__u64 dev, ino, dev2, ino2, dev3, ino3, die, size, start = 0;

	snprintf(prog, sizeof(prog), "%s", pk_fx_build("prog", pk_fx_c_src, false, "-pie"));
	snprintf(other, sizeof(other), "%s", pk_fx_build("other", pk_fx_cxx_src, true, "-pie"));
	snprintf(copy_path, sizeof(copy_path), "%s.copy", prog);
	copy(prog, copy_path);
	pk_fx_symbol(prog, "die", &die, &size);
	inode_of(prog, &dev, &ino);
	inode_of(copy_path, &dev2, &ino2);
	inode_of(other, &dev3, &ino3);
	ck_assert_ptr_nonnull(kernel);

	a = pk_symfiles_add(files, dev, ino, prog, src, NULL, 0);
	src[0].path = copy_path;
	b = pk_symfiles_add(files, dev2, ino2, copy_path, src, NULL, 0);
	src[0].path = other;
	c = pk_symfiles_add(files, dev3, ino3, other, src, NULL, 0);
	ck_assert(pk_symfile_loaded(a) && pk_symfile_loaded(b) && pk_symfile_loaded(c));
	/* added: held at the first sweep; unheld at the second: its grace */
	ck_assert_uint_eq(pk_symfiles_sweep(files), 0);
	pk_symfiles_hold(files, b);
	ck_assert_uint_eq(pk_symfiles_sweep(files), 0);
	pk_symfiles_hold(files, b);
	ck_assert_uint_eq(pk_symfiles_sweep(files), 2);	/* a, c */
	ck_assert_ptr_null(pk_symfiles_get(files, dev, ino));
	ck_assert_ptr_null(pk_symfiles_get(files, dev3, ino3));
	ck_assert_ptr_eq(pk_symfiles_get(files, dev2, ino2), b);
	/* b's symbols are the ones a shared */
	ck_assert_str_eq(pk_symfile_symbol(b, die + 1, &start), "die");
	pk_symfiles_stats(files, &st);
	ck_assert_uint_eq(st.freed, 2);
	/* a table is read when an address needs it: c's never was */
	ck_assert_uint_eq(st.symtabs, 1);

	/* a again: its build-id's symbols still there through b */
	src[0].path = prog;
	a = pk_symfiles_add(files, dev, ino, prog, src, NULL, 0);
	ck_assert_str_eq(pk_symfile_symbol(a, die + 1, &start), "die");
	pk_symfiles_stats(files, &st);
	ck_assert_uint_eq(st.symtabs, 1);
	/* nothing held from now on: b, held last at the third sweep, goes at
	 * the fifth; a, added since (held at the fourth), at the sixth; the
	 * named module stays */
	ck_assert_uint_eq(pk_symfiles_sweep(files), 0);
	ck_assert_uint_eq(pk_symfiles_sweep(files), 1);
	ck_assert_ptr_null(pk_symfiles_get(files, dev2, ino2));
	ck_assert_ptr_eq(pk_symfiles_get(files, dev, ino), a);
	ck_assert_uint_eq(pk_symfiles_sweep(files), 1);
	ck_assert_ptr_null(pk_symfiles_get(files, dev, ino));
	ck_assert_ptr_null(pk_symfiles_get(files, dev2, ino2));
	ck_assert_ptr_eq(pk_symfiles_named(files, "[kernel.kallsyms]"), kernel);
	/* and read anew from the file */
	a = pk_symfiles_add(files, dev, ino, prog, src, NULL, 0);
	ck_assert_str_eq(pk_symfile_symbol(a, die + 1, &start), "die");
	pk_symfiles_stats(files, &st);
	ck_assert_uint_eq(st.symtabs, 2);
	ck_assert_uint_eq(st.freed, 4);
	pk_symfiles_free(files);
	unlink(copy_path);
}
END_TEST

/*
 * A file that is no longer where it was: sources that are not the right
 * inode are skipped; with the build-id the kernel reported, a copy in a
 * debug directory's .build-id tree names it; a source with another build-id
 * is refused.
 */
START_TEST(test_found_by_build_id)
{
	char prog[256], other[256], dir[300], path[600], hex[129];
	struct pk_symfile_source src[3] = { { NULL } };
	const char *dirs[1] = { dir };
	struct pk_symfiles *files = pk_symfiles_new(), *probe = pk_symfiles_new();
	struct pk_symfiles_stats st;
	struct pk_symfile *f;
	__u64 dev, ino, die, size, start;
	__u8 id[64];
	size_t len;

	snprintf(prog, sizeof(prog), "%s", pk_fx_build("prog", pk_fx_c_src, false, "-pie"));
	snprintf(other, sizeof(other), "%s", pk_fx_build("other", pk_fx_cxx_src, true, "-pie"));
	pk_fx_symbol(prog, "die", &die, &size);
	inode_of(prog, &dev, &ino);
	/* the build-id, as the kernel's table would have it */
	src[0] = (struct pk_symfile_source){ prog, false };
	f = pk_symfiles_add(probe, dev, ino, prog, src, NULL, 0);
	len = build_id_of(f, id);
	snprintf(hex, sizeof(hex), "%s", pk_symfile_module(f)->build_id);
	ck_assert_uint_ge(len, 8);

	snprintf(dir, sizeof(dir), "%s/debug", pk_fx_dir());
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	pk_test_build_id_path(dir, hex, path, sizeof(path));
	copy(prog, path);
	ck_assert_int_eq(pk_symfiles_set_debug_dirs(files, dirs, 1), 0);

	/* other's path claims to be the file (wrong inode: skipped) and, as
	 * an unchecked source, has another build-id: refused */
	src[0] = (struct pk_symfile_source){ other, true };
	src[1] = (struct pk_symfile_source){ other, false };
	f = pk_symfiles_add(files, dev, ino + 1000000, "/gone/prog", src, id, len);
	ck_assert(pk_symfile_loaded(f));
	ck_assert_str_eq(pk_symfile_symbol(f, die, &start), "die");
	ck_assert_str_eq(pk_symfile_module(f)->path, "/gone/prog");
	ck_assert_str_eq(pk_symfile_module(f)->build_id, hex);
	pk_symfiles_stats(files, &st);
	ck_assert_uint_eq(st.by_build_id, 1);

	/* no copy anywhere: not loaded, but known (not tried again) and
	 * still carrying the build-id the kernel gave */
	id[0] ^= 0xff;
	f = pk_symfiles_add(files, dev, ino + 2000000, "/gone/else", NULL, id, len);
	ck_assert(!pk_symfile_loaded(f));
	ck_assert_ptr_eq(pk_symfiles_get(files, dev, ino + 2000000), f);
	ck_assert_ptr_null(pk_symfile_symbol(f, die, &start));
	ck_assert_uint_eq(pk_symfile_vaddr(f, 0), ~0ULL);
	ck_assert_ptr_nonnull(pk_symfile_module(f)->build_id);
	pk_symfiles_free(files);
	pk_symfiles_free(probe);
}
END_TEST

/*
 * A stripped file that is where it was (a container's python3.14, its
 * -dbg package's debug files in the container's /usr/lib/debug): its debug
 * file is looked for by build-id in the debug directories too, and names
 * what its symbol tables no longer do.
 */
START_TEST(test_debug_file_in_debug_dir)
{
	char prog[256], stripped[300], dir[300], path[600];
	char *strip[] = { "strip", "--strip-all", prog, "-o", stripped, NULL };
	struct pk_symfile_source src[2] = { { stripped, true }, { NULL } };
	const char *dirs[2] = { "relative/ignored", dir };
	struct pk_symfiles *files = pk_symfiles_new(), *plain = pk_symfiles_new();
	struct pk_symfile *f;
	__u64 dev, ino, die, size, start = 0;

	snprintf(prog, sizeof(prog), "%s", pk_fx_build("prog", pk_fx_c_src, false, "-pie"));
	snprintf(stripped, sizeof(stripped), "%s/stripped", pk_fx_dir());
	ck_assert_int_eq(pk_test_run(strip, NULL, NULL), 0);
	pk_fx_symbol(prog, "die", &die, &size);
	inode_of(stripped, &dev, &ino);
	/* without the directory: die is no symbol of the stripped file */
	f = pk_symfiles_add(plain, dev, ino, stripped, src, NULL, 0);
	ck_assert(pk_symfile_loaded(f));
	ck_assert(!pk_symfile_symbol(f, die, &start) ||
		  strcmp(pk_symfile_symbol(f, die, &start), "die"));
	/* the unstripped file as the debug file, by build-id */
	snprintf(dir, sizeof(dir), "%s/debug", pk_fx_dir());
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	pk_test_build_id_path(dir, pk_symfile_module(f)->build_id, path, sizeof(path));
	copy(prog, path);
	ck_assert_int_eq(pk_symfiles_set_debug_dirs(files, dirs, 2), 0);
	f = pk_symfiles_add(files, dev, ino, stripped, src, NULL, 0);
	ck_assert(pk_symfile_loaded(f));
	ck_assert_str_eq(pk_symfile_symbol(f, die, &start), "die");
	ck_assert_uint_eq(start, die);
	pk_symfiles_free(files);
	pk_symfiles_free(plain);
}
END_TEST

/* Files that are no ELF, or a truncated one, load nothing and break nothing. */
START_TEST(test_bad_files)
{
	char junk[300], cut[300], prog[256];
	struct pk_symfile_source src[2] = { { junk, false }, { NULL } };
	struct pk_symfiles *files = pk_symfiles_new();
	struct pk_symfile *f;
	__u64 start;
	size_t len;
	char *data;
	int fd;

	snprintf(prog, sizeof(prog), "%s", pk_fx_build("prog", pk_fx_c_src, false, "-pie"));
	snprintf(junk, sizeof(junk), "%s/junk", pk_fx_dir());
	pk_fx_write_file(junk, "\x7f" "ELF this is not\n");
	f = pk_symfiles_add(files, 1, 1, junk, src, NULL, 0);
	ck_assert(!pk_symfile_loaded(f));
	ck_assert_ptr_null(pk_symfile_symbol(f, 0x1000, &start));

	snprintf(cut, sizeof(cut), "%s/cut", pk_fx_dir());
	data = pk_test_read_file(prog, &len);
	ck_assert_ptr_nonnull(data);
	fd = open(cut, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_eq(write(fd, data, len / 3), (ssize_t)(len / 3));
	close(fd);
	free(data);
	src[0].path = cut;
	f = pk_symfiles_add(files, 1, 2, cut, src, NULL, 0);
	/* loaded or not, a lookup answers without crashing */
	pk_symfile_symbol(f, 0x1000, &start);
	pk_symfile_vaddr(f, 0x1000);

	/* named modules: ids among the files', one per name */
	ck_assert_ptr_eq(pk_symfiles_named(files, "[kernel.kallsyms]"),
			 pk_symfiles_named(files, "[kernel.kallsyms]"));
	ck_assert_uint_eq(pk_symfiles_named(files, "[nf_tables]")->id, 3);
	pk_symfiles_free(files);
}
END_TEST

/* Code labels (STT_NOTYPE in .text: ld.so's _start, hand-written
 * assembly) name code no function covers, as eu-addr2line names it; a
 * label inside a sized function does not take its name away. */
START_TEST(test_code_labels)
{
	static const char src[] =
		"__asm__(\".text\\n.globl lonely_entry\\nlonely_entry:\\n"
		"nop\\nnop\\nnop\\nnop\\nret\\n\");\n"
		"__attribute__((noinline)) int inner(int x)\n"
		"{ __asm__ volatile(\"nop\\ninner_label:\\nnop\"); return x * 5 + 3; }\n"
		"int main(int c, char **v) { return inner(c); }\n";
	char prog[256];
	struct pk_symfile_source srcs[2] = { { prog, false }, { NULL } };
	struct pk_symfiles *files = pk_symfiles_new();
	struct pk_symfile *f;
	__u64 lonely, lsize, inner, isize, label, start;

	snprintf(prog, sizeof(prog), "%s", pk_fx_build("labels", src, false, "-no-pie"));
	pk_fx_symbol(prog, "inner", &inner, &isize);
	pk_fx_symbol(prog, "lonely_entry", &lonely, &lsize);
	pk_fx_symbol(prog, "inner_label", &label, &lsize);
	ck_assert(label > inner && label < inner + isize);
	f = pk_symfiles_add(files, 7, 7, prog, srcs, NULL, 0);
	ck_assert(pk_symfile_loaded(f));
	ck_assert_str_eq(pk_symfile_symbol(f, lonely + 2, &start), "lonely_entry");
	ck_assert_uint_eq(start, lonely);
	ck_assert_str_eq(pk_symfile_symbol(f, label, &start), "inner");
	ck_assert_uint_eq(start, inner);
	pk_symfiles_free(files);
}
END_TEST

/* eu-addr2line -f's function at ADDR in PATH: DWARF's name for it. */
static void addr2line_function(const char *path, __u64 addr, char *buf, size_t len)
{
	char hex[32], *out = NULL;
	char *argv[] = { "eu-addr2line", "-f", "-e", (char *)path, hex, NULL };

	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addr);
	pk_fx_run_ok(argv, &out);
	snprintf(buf, len, "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
}

/* Our name at each SYMS[i] of F (PATH, or its debug file DBG: where the
 * symbols are) equals DWARF's, as eu-addr2line -f prints it. */
static void check_dwarf_names(struct pk_symfile *f, const char *path, const char *dbg,
			      const char *const *syms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		__u64 addr, size, start;
		char eu[256];
		const char *ours;

		pk_fx_symbol(dbg, syms[i], &addr, &size);
		addr2line_function(path, addr, eu, sizeof(eu));
		ours = pk_symfile_symbol(f, addr, &start);
		ck_assert_msg(ours && !strcmp(ours, eu), "%s: %s is %s to eu-addr2line, %s to us",
			      path, syms[i], eu, ours ? ours : "nothing");
		ck_assert_uint_eq(start, addr);
	}
}

static struct pk_symfile *add_file(struct pk_symfiles *files, const char *path, __u64 ino)
{
	struct pk_symfile_source srcs[2] = { { path, false }, { NULL } };
	struct pk_symfile *f = pk_symfiles_add(files, 11, ino, path, srcs, NULL, 0);

	ck_assert_msg(f && pk_symfile_loaded(f), "%s: not loaded", path);
	return f;
}

/* Where the debug file of F is, by its build-id (libc6-dbg, python3.11-dbg). */
static void debug_file(const struct pk_symfile *f, char *buf, size_t len)
{
	const char *id = pk_symfile_module(f)->build_id;

	ck_assert_ptr_nonnull(id);
	snprintf(buf, len, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
	ck_assert_msg(access(buf, R_OK) == 0, "%s: no debug file", buf);
}

/* bsearch inlined into libc's _nl_expand_alias: DWARF (eu-addr2line -i)
 * calls it __GI_bsearch, its linkage name, and the symbols of its own
 * copy are bsearch and __GI_bsearch: bsearch, both. */
static void inlined_glibc(struct pk_symfile *f, const char *dbg)
{
	char *argv[402] = { "eu-addr2line", "-a", "-f", "-i", "-e", (char *)dbg };
	char hex[400][24], *out = NULL, *line, *save;
	struct pk_srcline_frame fr[8];
	__u64 fn, size, at = 0, addr = 0, start;
	int argc = 6, n;

	pk_fx_symbol(dbg, "_nl_expand_alias", &fn, &size);
	for (__u64 a = fn; a < fn + size && argc < 400; a++, argc++) {
		snprintf(hex[argc], sizeof(hex[0]), "0x%llx", (unsigned long long)a);
		argv[argc] = hex[argc];
	}
	argv[argc] = NULL;
	pk_fx_run_ok(argv, &out);
	for (line = strtok_r(out, "\n", &save); line && !at; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "0x", 2))
			addr = strtoull(line, NULL, 16);
		else if (!strncmp(line, "__GI_bsearch inlined at ", 24))
			at = addr;
	}
	free(out);
	ck_assert_msg(at, "eu-addr2line finds no __GI_bsearch inlined in _nl_expand_alias");
	n = pk_symfile_srcline(f, at, fr, 8);
	ck_assert_int_ge(n, 2);
	ck_assert_str_eq(fr[0].name, "bsearch");
	pk_fx_symbol(dbg, "__GI_bsearch", &fn, &size);
	ck_assert_str_eq(pk_symfile_symbol(f, fn, &start), "bsearch");
}

/*
 * One name per function: a copy or part GCC made of a function is named
 * as DWARF names it, as its inlined copies are (object_dealloc, not
 * object_dealloc.lto_priv.0), eu-addr2line the oracle; a debug file's
 * versioned names without their version; and at one address glibc's
 * public name, not its internal alias (clone3, not __GI___clone3), as
 * perf names it (perf script of a thread shows "clone3+0x2b"), inlined or
 * not.
 */
START_TEST(test_one_name_per_function)
{
	static const char src[] =
		"#include <stdlib.h>\n#include <string.h>\n"
		"static __attribute__((noinline)) int scale(int x, int k)\n"
		"{ return x * k + (x >> 3); }\n"
		"int use_scale(int x) { return scale(x, 7) + scale(x + 1, 7); }\n"
		"__attribute__((cold, noinline)) void oops(const char *m) { if (m) abort(); }\n"
		"__attribute__((noinline)) int checked(int x)\n"
		"{ if (__builtin_expect(x == 12345, 0)) { oops(\"bad\"); oops(\"worse\"); return -1; }\n"
		"  return x * 2; }\n"
		"struct big { int a[16]; };\n"
		"static __attribute__((noinline)) int sum_first(struct big *b)\n"
		"{ return b->a[0] + b->a[1]; }\n"
		"int use_sum(int x) { struct big b; memset(&b, 0, sizeof(b));\n"
		"  b.a[0] = x; b.a[1] = x + 1; return sum_first(&b); }\n"
		"int main(int c, char **v) { (void)v; return use_scale(c) + checked(c) + use_sum(c); }\n";
	static const char *const clones[] = { "scale.constprop.0", "checked.cold", "sum_first.isra.0" };
	static const char *const python[] = { "object_dealloc.lto_priv.0",
					      "keyobject_dealloc.lto_priv.0.cold" };
	static const struct {
		const char *sym, *name;
	} libc[] = {
		{ "__GI___clone3", "clone3" },
		{ "__libc_start_main@@GLIBC_2.34", "__libc_start_main" },
		{ "clock_nanosleep@@GLIBC_2.17", "clock_nanosleep" },
	};
	struct pk_symfiles *files = pk_symfiles_new();
	char prog[256], dbg[256];
	struct pk_symfile *f;
	__u64 addr, size, start;

	snprintf(prog, sizeof(prog), "%s", pk_fx_build("clones", src, false, "-pie"));
	f = add_file(files, prog, 1);
	check_dwarf_names(f, prog, prog, clones, 3);
	/* checked and its cold part: one name */
	pk_fx_symbol(prog, "checked", &addr, &size);
	ck_assert_str_eq(pk_symfile_symbol(f, addr, &start), "checked");

	f = add_file(files, "/usr/bin/python3.11", 2);
	debug_file(f, dbg, sizeof(dbg));
	check_dwarf_names(f, "/usr/bin/python3.11", dbg, python, 2);

	f = add_file(files, "/usr/lib/x86_64-linux-gnu/libc.so.6", 3);
	debug_file(f, dbg, sizeof(dbg));
	for (size_t i = 0; i < sizeof(libc) / sizeof(libc[0]); i++) {
		const char *ours;

		pk_fx_symbol(dbg, libc[i].sym, &addr, &size);
		ours = pk_symfile_symbol(f, addr + size / 2, &start);
		ck_assert_msg(ours && !strcmp(ours, libc[i].name), "libc: %s is %s to us, not %s",
			      libc[i].sym, ours ? ours : "nothing", libc[i].name);
	}
	inlined_glibc(f, dbg);
	pk_symfiles_free(files);
}
END_TEST

/* The first symbol of V (N, sorted) past ADDR, or N. */
static size_t nm_past(const struct pk_fx_sym *v, size_t n, __u64 addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first symbol at ADDR, or N. */
static size_t nm_first_at(const struct pk_fx_sym *v, size_t n, __u64 addr)
{
	size_t i = addr ? nm_past(v, n, addr - 1) : 0;

	return i < n && v[i].addr == addr ? i : n;
}

/* The sized symbol whose range holds ADDR, NULL when none does. */
static const struct pk_fx_sym *nm_holder(const struct pk_fx_sym *v, size_t n, __u64 addr)
{
	for (size_t i = nm_past(v, n, addr), k = 0; i-- > 0 && k < 64; k++)
		if (v[i].size && addr < v[i].addr + v[i].size)
			return &v[i];
	return NULL;
}

/* Whether NAME is one of the names of the symbols at ADDR; *HOLDS: whether
 * one of them (sized) holds AT, or AT is ADDR itself. */
static bool nm_names(const struct pk_fx_sym *v, size_t n, __u64 addr, const char *name, __u64 at,
		     bool *holds)
{
	bool found = false;

	*holds = at == addr;
	for (size_t i = nm_first_at(v, n, addr); i < n && v[i].addr == addr; i++) {
		found |= !strcmp(v[i].name, name);
		*holds |= v[i].size && at < addr + v[i].size;
	}
	return found;
}

#define ORACLE_SPREAD 3000

/*
 * Every name of PATH's code, at addresses around each unsized function
 * symbol and at ORACLE_SPREAD others spread over its functions: the symbol
 * we name an address by holds it (its size, or its own address when it has
 * none), an address a sized symbol holds is named by it, and eu-addr2line
 * -f -C names the same function wherever a sized symbol holds the address.
 * Where no sized one does, eu-addr2line stretches the unsized symbol before
 * to the next one (perf too): counted, and we name nothing there.
 */
static void check_library(const char *path)
{
	char **argv = NULL, *out = NULL, *line, *save;
	struct pk_symfile_source srcs[2] = { { path, false }, { NULL } };
	struct pk_symfiles *files = pk_symfiles_new();
	size_t n, naddrs = 0, nargs = 0, unsized = 0, named = 0, stretched = 0, lies = 0;
	struct pk_fx_sym *v;
	__u64 *addrs = NULL, lo, hi;
	struct pk_symfile *f;

	n = pk_fx_dynamic_functions(path, &v);
	ck_assert_uint_gt(n, 1000);
	f = pk_symfiles_add(files, 9, 9, path, srcs, NULL, 0);
	ck_assert(pk_symfile_loaded(f));
	for (size_t i = 0; i < n; i++) {
		static const unsigned after[] = { 0, 1, 2, 8 };
		size_t first = nm_first_at(v, n, v[i].addr);

		if (v[i].size)
			continue;
		unsized++;
		for (size_t k = 0; k < 4; k++) {
			addrs = pk_test_grow(addrs, naddrs, sizeof(*addrs));
			addrs[naddrs++] = v[i].addr + after[k];
		}
		/* past the end of a sized symbol at the same address */
		for (size_t j = first; j < n && v[j].addr == v[i].addr; j++)
			if (v[j].size) {
				addrs = pk_test_grow(addrs, naddrs, sizeof(*addrs));
				addrs[naddrs++] = v[j].addr + v[j].size + 2;
			}
	}
	lo = v[0].addr;
	hi = v[n - 1].addr + v[n - 1].size;
	for (size_t k = 0; k < ORACLE_SPREAD; k++) {
		addrs = pk_test_grow(addrs, naddrs, sizeof(*addrs));
		addrs[naddrs++] = lo + (hi - lo) / ORACLE_SPREAD * k + k % 7;
	}
	argv = calloc(naddrs + 6, sizeof(*argv));
	ck_assert_ptr_nonnull(argv);
	argv[nargs++] = "eu-addr2line";
	argv[nargs++] = "-f";
	argv[nargs++] = "-C";
	argv[nargs++] = "-e";
	argv[nargs++] = (char *)path;
	for (size_t k = 0; k < naddrs; k++)
		ck_assert_int_gt(asprintf(&argv[nargs++], "0x%llx", (unsigned long long)addrs[k]), 0);
	pk_fx_run_ok(argv, &out);
	line = strtok_r(out, "\n", &save);
	for (size_t k = 0; k < naddrs; k++) {
		const struct pk_fx_sym *holder = nm_holder(v, n, addrs[k]);
		const char *eu = line, *ours;
		__u64 start = 0;
		bool holds;

		ck_assert_ptr_nonnull(eu);
		line = strtok_r(NULL, "\n", &save);	/* ??:0 */
		line = strtok_r(NULL, "\n", &save);
		ours = pk_symfile_symbol(f, addrs[k], &start);
		named += ours != NULL;
		if (ours && (!nm_names(v, n, start, ours, addrs[k], &holds) || !holds)) {
			if (lies++ < 10)
				fprintf(stderr, "%s: 0x%llx named %s at 0x%llx, which does not hold it\n",
					path, (unsigned long long)addrs[k], ours,
					(unsigned long long)start);
			continue;
		}
		if (holder) {
			ck_assert_msg(ours && start == holder->addr,
				      "%s: 0x%llx: %s holds it, we say %s", path,
				      (unsigned long long)addrs[k], holder->name, ours ? ours : "nothing");
			ck_assert_msg(nm_names(v, n, holder->addr, eu, addrs[k], &holds),
				      "%s: 0x%llx: eu-addr2line says %s, we say %s", path,
				      (unsigned long long)addrs[k], eu, ours);
		} else if (strcmp(eu, "??")) {
			stretched += addrs[k] != start || !ours;
		}
	}
	fprintf(stderr, "%s: %zu unsized function symbols, %zu addresses, %zu named, %zu by "
		"a symbol that does not hold them; eu-addr2line names %zu so\n",
		path, unsized, naddrs, named, lies, stretched);
	ck_assert_uint_eq(lies, 0);
	for (size_t k = 5; k < nargs; k++)
		free(argv[k]);
	free(argv);
	free(out);
	free(addrs);
	pk_fx_syms_free(v, n);
	pk_symfiles_free(files);
}

/* The two libraries issue 16 found the lies in: 77 and 62 unsized .dynsym
 * functions (clang's unreachable bodies), and stripped static functions
 * after them. */
START_TEST(test_unsized_oracle)
{
	static const char *const libs[] = {
		"/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14",
		"/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
	};

	check_library(libs[_i]);
}
END_TEST

Suite *suite_symfile(void)
{
	Suite *s = suite_create("symfile");
	TCase *tc = tcase_create("files");

	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_add_test(tc, test_shared_by_build_id);
	tcase_add_test(tc, test_sweep);
	tcase_add_test(tc, test_found_by_build_id);
	tcase_add_test(tc, test_debug_file_in_debug_dir);
	tcase_add_test(tc, test_bad_files);
	tcase_add_test(tc, test_code_labels);
	suite_add_tcase(s, tc);
	/* python's and libc's debug files, libLLVM's 110 MB, under ASan */
	tc = tcase_create("oracle");
	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_one_name_per_function);
	tcase_add_loop_test(tc, test_unsized_oracle, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
