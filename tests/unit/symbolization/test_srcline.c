// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pk_srcline against eu-addr2line -f -i -C, frame by frame (function name,
 * file, line), at every instruction objdump lists in the fixtures of
 * tests/dbg.mk (inlined helpers 2-3 deep; C and C++; gcc DWARF 5 and 4;
 * clang without .debug_aranges, checked against its twin built with them)
 * and in a few libc functions whose DWARF is libc6-dbg's. What eu cannot
 * tell (.gnu_debuglink, corrupt debug info, the API's edges) is the suite's
 * other file's (srcline_run.h).
 */
#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/addr2line_oracle.h"
#include "harness/elf_fixture.h"
#include "symbolization/debuginfo.h"
#include "symbolization/demangle.h"
#include "symbolization/srcline.h"
#include "test_util.h"
#include "unit/symbolization/srcline_run.h"

/* --- eu-addr2line (addr2line_oracle.h) ----------------------------------- */

/* pk_a2l_frames_fn of pk_srcline: our frames at the row's address. */
static int srcline_at(void *ctx, __u64 addr, struct pk_srcline_frame *out, int max)
{
	return pk_srcline_lookup(ctx, addr, out, max);
}

/*
 * Look every address of A up in OURS (pk_srcline) and in ORACLE (the same
 * file, or a twin with the same code) with eu-addr2line, and compare, its
 * -i frames with ours at the row's address, which is the address eu used
 * for them (addr2line_oracle.h: two inlined instances of one source line
 * share a row -- begin() and end() of a vector, each inlining an iterator
 * constructor, in inline.cpp -- so the chain it prints can belong to the
 * wrong one).
 */
static void compare_with_eu(const char *ours_path, const char *oracle_path, const struct addrs *a,
			    struct pk_a2l_stats *st)
{
	struct mod ours = pk_sl_mod_open(ours_path);
	struct pk_srcline *sl;
	struct pk_a2l *eu;

	ck_assert_msg(ours.dm, "%s: libdwfl cannot read it", ours_path);
	sl = pk_srcline_new(ours.dm);
	ck_assert_ptr_nonnull(sl);
	eu = pk_a2l_run(oracle_path, a->v, a->n);
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < a->n; i++) {
		struct pk_srcline_frame f[MAX_FRAMES];
		int n = pk_sl_lookup(sl, a->v[i], f);

		pk_a2l_compare(eu, a->v[i], f, n, srcline_at, sl, 0, ours_path, st);
	}
	pk_a2l_print_stats(ours_path, st);
	pk_a2l_free(eu);
	pk_srcline_free(sl);
	pk_sl_mod_close(&ours);
	ck_assert_msg(st->bad == 0, "%s: %zu of %zu addresses differ from eu-addr2line", ours_path,
		      st->bad, st->addrs);
}

/* --- llvm-symbolizer ---------------------------------------------------- */

/* llvm-symbolizer prints FILE:LINE:COLUMN, ??:0:0 when the file is unknown. */
static bool llvm_loc_eq(const char *llvm, const char *file, __u32 line)
{
	return file ? pk_a2l_loc_eq(llvm, file, line) : !strcmp(llvm, "??:0:0");
}

/* SYM without a symbol version ("name@@GLIBC_2.34"), in BUF. */
static const char *unversioned(const char *sym, char *buf, size_t len)
{
	snprintf(buf, len, "%s", sym ? sym : "");
	if (strchr(buf, '@'))
		*strchr(buf, '@') = '\0';
	return buf;
}

/*
 * The second oracle, at the address itself (it has neither eu's row quirk
 * nor its blindness to functions in namespaces, and needs no
 * .debug_aranges): llvm-symbolizer --inlining --functions=linkage, per
 * address a group of (NAME, LOC) lines, innermost first, then a blank line.
 * Where it differs by design, narrowly:
 *  - it names the concrete function (the last frame) by the symbol table
 *    (main.cold for main's cold part), where a symbol covers the address;
 *  - where DWARF has no function, its innermost name is the symbol table's
 *    (ours is NULL), like eu's;
 *  - its demangler (LLVM 14) leaves some names mangled that libiberty reads;
 *  - it finds line rows in units without addresses (crtstuff.c's, line 0)
 *    where libdw finds no unit at all.
 */
static void compare_with_llvm(const char *path, const struct addrs *a)
{
	char obj[4200], **argv = calloc(a->n + 8, sizeof(*argv)), *text = NULL, *err = NULL;
	char *p, *line;
	size_t argc = 0, g = 0, bad = 0;
	struct mod m = pk_sl_mod_open(path);
	struct pk_srcline *sl;
	int status;

	ck_assert_ptr_nonnull(argv);
	ck_assert_ptr_nonnull(m.dm);
	sl = pk_srcline_new(m.dm);
	snprintf(obj, sizeof(obj), "--obj=%s", path);
	argv[argc++] = "llvm-symbolizer";
	argv[argc++] = obj;
	argv[argc++] = "--inlining";
	argv[argc++] = "--functions=linkage";
	argv[argc++] = "--demangle";
	for (size_t i = 0; i < a->n; i++) {
		argv[argc] = malloc(24);
		ck_assert_ptr_nonnull(argv[argc]);
		snprintf(argv[argc++], 24, "0x%llx", (unsigned long long)a->v[i]);
	}
	status = pk_test_run(argv, &text, &err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && text,
		      "llvm-symbolizer %s failed (status %d): %s", path, status, err ? err : "");
	for (size_t i = 5; i < argc; i++)
		free(argv[i]);
	free(argv);
	free(err);
	for (p = text; g < a->n && *p; g++) {
		struct pk_srcline_frame f[MAX_FRAMES];
		const char *names[MAX_FRAMES], *locs[MAX_FRAMES];
		__u64 addr = a->v[g];
		int n = pk_sl_lookup(sl, addr, f), k = 0;
		char *sym = pk_a2l_symname(m.dm, addr), symbuf[4096];
		const char *symbase = unversioned(sym, symbuf, sizeof(symbuf));
		bool ok;

		while ((line = strsep(&p, "\n")) && *line) {
			char *loc = strsep(&p, "\n");

			ck_assert_msg(loc && k < MAX_FRAMES, "llvm-symbolizer: bad group at 0x%llx",
				      (unsigned long long)addr);
			names[k] = line;
			locs[k++] = loc;
		}
		ck_assert_int_gt(k, 0);
		if (n == 0) {
			/* Nothing: or a row of line 0 in a unit libdw cannot place. */
			const char *colon = strrchr(locs[0], ':');

			ok = k == 1 && (!strcmp(locs[0], "??:0:0") ||
					(colon && colon - locs[0] > 2 && !strncmp(colon - 2, ":0", 2)));
		} else {
			ok = k == n;
			for (int i = 0; ok && i < n; i++) {
				const char *want = names[i];
				char *d = !strncmp(want, "_Z", 2) ? pk_demangle(want) : NULL;

				if (!f[i].name)
					ok = i == 0 && (!strcmp(want, "??") || !strcmp(want, symbase));
				else
					ok = !strcmp(want, f[i].name) ||
					     (i == n - 1 && !strcmp(want, symbase)) ||
					     (d && !strcmp(d, f[i].name));
				ok = ok && llvm_loc_eq(locs[i], f[i].file, f[i].line);
				free(d);
			}
		}
		if (!ok && bad++ < 10) {
			fprintf(stderr, "srcline: %s 0x%llx differs from llvm-symbolizer:\n", path,
				(unsigned long long)addr);
			pk_a2l_report_frames(stderr, f, n);
			for (int i = 0; i < k; i++)
				fprintf(stderr, "    llvm: %s | %s\n", names[i], locs[i]);
		}
		free(sym);
	}
	ck_assert_uint_eq(g, a->n);
	fprintf(stderr, "srcline: %s: %zu addresses; %zu differ from llvm-symbolizer\n", path, g,
		bad);
	free(text);
	pk_srcline_free(sl);
	pk_sl_mod_close(&m);
	ck_assert_msg(bad == 0, "%s: %zu of %zu addresses differ from llvm-symbolizer", path, bad,
		      a->n);
}

/* --- fixtures ---------------------------------------------------------- */

/* NAME and its ORACLE twin compared at every instruction, which must be the
 * same in both, with eu-addr2line; NAME with llvm-symbolizer. The fixture
 * must exercise inlining (a test that compares nothing passes whatever the
 * code does). EU_BLIND: whether eu-addr2line misses functions there (clang
 * C++: functions in namespaces). */
static void check_fixture(const char *name, const char *oracle, const char *expect_name,
			  bool eu_blind)
{
	char path[4096], opath[4096];
	struct addrs a = {}, b = {};
	struct pk_a2l_stats st;
	bool seen = false;

	pk_sl_fixture(name, path, sizeof(path));
	pk_sl_fixture(oracle, opath, sizeof(opath));
	pk_sl_insn_addrs(path, 0, 0, &a);
	pk_sl_addrs_add(&a, 0);	/* the ELF header: no code */
	if (strcmp(name, oracle)) {
		pk_sl_insn_addrs(opath, 0, 0, &b);
		pk_sl_addrs_add(&b, 0);
		ck_assert_uint_eq(a.n, b.n);
		ck_assert_msg(!memcmp(a.v, b.v, a.n * sizeof(*a.v)), "%s and %s: other code", path,
			      opath);
	}
	ck_assert_uint_ge(a.n, 200);
	compare_with_eu(path, opath, &a, &st);
	compare_with_llvm(path, &a);
	if (eu_blind)
		ck_assert_uint_gt(st.eu_blind, 0);
	else
		ck_assert_uint_eq(st.eu_blind, 0);
	ck_assert_uint_ge(st.files, a.n / 2);
	ck_assert_uint_ge(st.inlined, 30);
	ck_assert_uint_ge(st.depth, 4);	/* three inlined calls deep */

	/* A demangled C++ name, among the frames. */
	if (expect_name) {
		struct mod m = pk_sl_mod_open(path);
		struct pk_srcline *sl = pk_srcline_new(m.dm);

		for (size_t i = 0; i < a.n && !seen; i++) {
			struct pk_srcline_frame f[MAX_FRAMES];
			int n = pk_sl_lookup(sl, a.v[i], f);

			for (int k = 0; k < n; k++)
				seen |= f[k].name && !strcmp(f[k].name, expect_name);
		}
		pk_srcline_free(sl);
		pk_sl_mod_close(&m);
		ck_assert_msg(seen, "%s: no frame named %s", path, expect_name);
	}
	free(a.v);
	free(b.v);
}

START_TEST(test_c_gcc)
{
	check_fixture("inline-gcc", "inline-gcc", NULL, false);
}
END_TEST

START_TEST(test_c_gcc_dwarf4)
{
	check_fixture("inline-gcc-dwarf4", "inline-gcc-dwarf4", NULL, false);
}
END_TEST

/* Without .debug_aranges eu-addr2line 0.188 finds no unit at all; its
 * twin built with them is its oracle (llvm-symbolizer reads it as it is). */
START_TEST(test_c_clang)
{
	check_fixture("inline-clang", "inline-clang-aranges", NULL, false);
}
END_TEST

START_TEST(test_cpp_gcc)
{
	check_fixture("inline-cpp-gcc", "inline-cpp-gcc",
		      "dbg::Ring<unsigned int>::push(unsigned int)", false);
}
END_TEST

START_TEST(test_cpp_gcc_dwarf4)
{
	check_fixture("inline-cpp-gcc-dwarf4", "inline-cpp-gcc-dwarf4",
		      "dbg::Ring<unsigned long>::push(unsigned long)", false);
}
END_TEST

START_TEST(test_cpp_clang)
{
	check_fixture("inline-cpp-clang", "inline-cpp-clang-aranges",
		      "dbg::Ring<unsigned int>::push(unsigned int)", true);
}
END_TEST

/* --- libc, with libc6-dbg ------------------------------------------------ */

static const char LIBC[] = "/lib/x86_64-linux-gnu/libc.so.6";

/*
 * libc.so.6 has no .debug_info: its DWARF is libc6-dbg's file under
 * /usr/lib/debug/.build-id/, found by build-id. qsort's merge sort, malloc
 * (much inlined), and two assembly functions (line rows, no subprogram).
 */
START_TEST(test_libc)
{
	static const char *const fns[] = { "__qsort_r", "msort_with_tmp.part.0", "_int_malloc",
					   "__memmove_avx_unaligned_erms", "__strlen_avx2" };
	struct mod m = pk_sl_mod_open(LIBC);
	const char *debugfile = NULL, *ci = getenv("CI");
	struct addrs a = {};
	struct pk_a2l_stats st;
	Dwarf_Addr bias;
	int nsyms;

	ck_assert_ptr_nonnull(m.dm);
	ck_assert(!pk_sl_has_section(LIBC, ".debug_info"));
	if (!dwfl_module_getdwarf(m.dm, &bias)) {
		pk_sl_mod_close(&m);
		if (ci && !strcmp(ci, "true"))
			ck_abort_msg("%s: no debug info: install libc6-dbg", LIBC);
		fprintf(stderr, "SKIP: %s: no debug info (libc6-dbg not installed)\n", LIBC);
		return;
	}
	dwfl_module_info(m.dm, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	ck_assert_msg(debugfile && strstr(debugfile, "/usr/lib/debug/.build-id/"),
		      "libc's debug file: %s", debugfile ? debugfile : "(none)");
	nsyms = dwfl_module_getsymtab(m.dm);
	for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); k++) {
		bool found = false;

		for (int i = 1; i < nsyms && !found; i++) {
			GElf_Sym sym;
			GElf_Addr value;
			const char *name = dwfl_module_getsym_info(m.dm, i, &sym, &value, NULL, NULL,
								   NULL);

			if (name && !strcmp(name, fns[k]) && sym.st_size) {
				pk_sl_insn_addrs(LIBC, value, value + sym.st_size, &a);
				found = true;
			}
		}
		ck_assert_msg(found, "%s: no symbol %s", LIBC, fns[k]);
	}
	pk_sl_mod_close(&m);
	compare_with_eu(LIBC, LIBC, &a, &st);
	ck_assert_uint_ge(st.addrs, 1000);
	ck_assert_uint_eq(st.files, st.addrs);	/* every one has a line row */
	ck_assert_uint_ge(st.inlined, 100);
	free(a.v);
}
END_TEST

Suite *suite_srcline(void)
{
	Suite *s = suite_create("srcline");
	TCase *tc = tcase_create("eu_addr2line");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_c_gcc);
	tcase_add_test(tc, test_c_gcc_dwarf4);
	tcase_add_test(tc, test_c_clang);
	tcase_add_test(tc, test_cpp_gcc);
	tcase_add_test(tc, test_cpp_gcc_dwarf4);
	tcase_add_test(tc, test_cpp_clang);
	tcase_add_test(tc, test_libc);
	suite_add_tcase(s, tc);

	pk_sl_files_tcase(s);
	return s;
}
