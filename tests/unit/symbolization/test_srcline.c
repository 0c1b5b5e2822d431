// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pk_srcline against eu-addr2line -f -i -C, frame by frame (function name,
 * file, line), at every instruction objdump lists in the fixtures of
 * tests/dbg.mk (inlined helpers 2-3 deep; C and C++; gcc DWARF 5 and 4;
 * clang without .debug_aranges, checked against its twin built with them)
 * and in a few libc functions whose DWARF is libc6-dbg's. Then what eu
 * cannot tell: .gnu_debuglink, corrupt debug info, the API's edges.
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

#define MAX_FRAMES PK_A2L_MAX_FRAMES

/* --- modules, as the symbolizer reports them ----------------------------- */

struct mod {
	Dwfl *dwfl;
	Dwfl_Module *dm;
};

/* PATH as the only module of a Dwfl, at bias 0; dm NULL when libdwfl
 * cannot read it. */
static struct mod mod_open(const char *path)
{
	struct mod m = { dwfl_begin(&pk_dwfl_callbacks), NULL };

	ck_assert_ptr_nonnull(m.dwfl);
	dwfl_report_begin(m.dwfl);
	m.dm = dwfl_report_elf(m.dwfl, "test", path, -1, 0, true);
	dwfl_report_end(m.dwfl, NULL, NULL);
	return m;
}

static void mod_close(struct mod *m)
{
	dwfl_end(m->dwfl);
}

static int lookup(struct pk_srcline *sl, __u64 addr, struct pk_srcline_frame *f)
{
	int n = pk_srcline_lookup(sl, addr, f, MAX_FRAMES);

	ck_assert_msg(n >= 0 && n <= MAX_FRAMES, "lookup 0x%llx: %d", (unsigned long long)addr,
		      n);
	return n;
}

/* --- the instructions of a file ------------------------------------------ */

struct addrs {
	__u64 *v;
	size_t n;
};

static void addrs_add(struct addrs *a, __u64 addr)
{
	a->v = pk_test_grow(a->v, a->n, sizeof(*a->v));
	ck_assert_ptr_nonnull(a->v);
	a->v[a->n++] = addr;
}

/* Every instruction objdump -d lists in PATH (between START and STOP when
 * STOP is not 0): lines "  ADDR:\tINSN". */
static void insn_addrs(const char *path, __u64 start, __u64 stop, struct addrs *a)
{
	char from[64], to[64], *out = NULL, *p, *line;
	char *argv[] = { "objdump", "-d", "--no-show-raw-insn", from, to, (char *)path, NULL };

	snprintf(from, sizeof(from), "--start-address=0x%llx", (unsigned long long)start);
	snprintf(to, sizeof(to), "--stop-address=0x%llx", (unsigned long long)stop);
	if (!stop) {
		argv[3] = (char *)path;
		argv[4] = NULL;
	}
	pk_fx_run_ok(argv, &out);
	for (p = out; (line = strsep(&p, "\n"));) {
		char *end;
		unsigned long long v;

		while (*line == ' ')
			line++;
		v = strtoull(line, &end, 16);
		if (end != line && end[0] == ':' && end[1] == '\t')
			addrs_add(a, v);
	}
	free(out);
}

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
	struct mod ours = mod_open(ours_path);
	struct pk_srcline *sl;
	struct pk_a2l *eu;

	ck_assert_msg(ours.dm, "%s: libdwfl cannot read it", ours_path);
	sl = pk_srcline_new(ours.dm);
	ck_assert_ptr_nonnull(sl);
	eu = pk_a2l_run(oracle_path, a->v, a->n);
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < a->n; i++) {
		struct pk_srcline_frame f[MAX_FRAMES];
		int n = lookup(sl, a->v[i], f);

		pk_a2l_compare(eu, a->v[i], f, n, srcline_at, sl, 0, ours_path, st);
	}
	pk_a2l_print_stats(ours_path, st);
	pk_a2l_free(eu);
	pk_srcline_free(sl);
	mod_close(&ours);
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
	struct mod m = mod_open(path);
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
		int n = lookup(sl, addr, f), k = 0;
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
	mod_close(&m);
	ck_assert_msg(bad == 0, "%s: %zu of %zu addresses differ from llvm-symbolizer", path, bad,
		      a->n);
}

/* --- fixtures ---------------------------------------------------------- */

static const char *fixture(const char *name, char *buf, size_t len)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "fixtures_dbg/%s", name);
	pk_test_build_path(rel, buf, len);
	ck_assert_msg(access(buf, R_OK) == 0, "%s: %s (make test-programs builds it)", buf,
		      strerror(errno));
	return buf;
}

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

	fixture(name, path, sizeof(path));
	fixture(oracle, opath, sizeof(opath));
	insn_addrs(path, 0, 0, &a);
	addrs_add(&a, 0);	/* the ELF header: no code */
	if (strcmp(name, oracle)) {
		insn_addrs(opath, 0, 0, &b);
		addrs_add(&b, 0);
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
		struct mod m = mod_open(path);
		struct pk_srcline *sl = pk_srcline_new(m.dm);

		for (size_t i = 0; i < a.n && !seen; i++) {
			struct pk_srcline_frame f[MAX_FRAMES];
			int n = lookup(sl, a.v[i], f);

			for (int k = 0; k < n; k++)
				seen |= f[k].name && !strcmp(f[k].name, expect_name);
		}
		pk_srcline_free(sl);
		mod_close(&m);
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

static bool has_section(const char *path, const char *want)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) :
							   NULL;

		found = name && !strcmp(name, want);
	}
	elf_end(elf);
	close(fd);
	return found;
}

/*
 * libc.so.6 has no .debug_info: its DWARF is libc6-dbg's file under
 * /usr/lib/debug/.build-id/, found by build-id. qsort's merge sort, malloc
 * (much inlined), and two assembly functions (line rows, no subprogram).
 */
START_TEST(test_libc)
{
	static const char *const fns[] = { "__qsort_r", "msort_with_tmp.part.0", "_int_malloc",
					   "__memmove_avx_unaligned_erms", "__strlen_avx2" };
	struct mod m = mod_open(LIBC);
	const char *debugfile = NULL, *ci = getenv("CI");
	struct addrs a = {};
	struct pk_a2l_stats st;
	Dwarf_Addr bias;
	int nsyms;

	ck_assert_ptr_nonnull(m.dm);
	ck_assert(!has_section(LIBC, ".debug_info"));
	if (!dwfl_module_getdwarf(m.dm, &bias)) {
		mod_close(&m);
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
				insn_addrs(LIBC, value, value + sym.st_size, &a);
				found = true;
			}
		}
		ck_assert_msg(found, "%s: no symbol %s", LIBC, fns[k]);
	}
	mod_close(&m);
	compare_with_eu(LIBC, LIBC, &a, &st);
	ck_assert_uint_ge(st.addrs, 1000);
	ck_assert_uint_eq(st.files, st.addrs);	/* every one has a line row */
	ck_assert_uint_ge(st.inlined, 100);
	free(a.v);
}
END_TEST

/* --- where debug info is ----------------------------------------------- */

static void frames_eq(const struct pk_srcline_frame *a, int na, const struct pk_srcline_frame *b,
		      int nb, __u64 addr)
{
	ck_assert_msg(na == nb, "0x%llx: %d frames, then %d", (unsigned long long)addr, na, nb);
	for (int i = 0; i < na; i++) {
		ck_assert_msg((!a[i].name && !b[i].name) ||
				      (a[i].name && b[i].name && !strcmp(a[i].name, b[i].name)),
			      "0x%llx frame %d: name", (unsigned long long)addr, i);
		ck_assert_msg((!a[i].file && !b[i].file) ||
				      (a[i].file && b[i].file && !strcmp(a[i].file, b[i].file)),
			      "0x%llx frame %d: file", (unsigned long long)addr, i);
		ck_assert_uint_eq(a[i].line, b[i].line);
	}
}

/* Frames STRIPPED, a copy of PATH without its DWARF, finds at the
 * instructions A of PATH, compared with PATH's own: at every one when
 * WHOLE (its debug file found, the same frames everywhere), else where it
 * finds any. Returns at how many it found frames. */
static size_t frames_through(const char *path, const char *stripped, const struct addrs *a,
			     bool whole)
{
	struct mod m = mod_open(path), s = mod_open(stripped);
	struct pk_srcline *sm, *ss;
	size_t found = 0;

	ck_assert(m.dm && s.dm);
	sm = pk_srcline_new(m.dm);
	ss = pk_srcline_new(s.dm);
	for (size_t i = 0; i < a->n; i++) {
		struct pk_srcline_frame f[MAX_FRAMES], g[MAX_FRAMES];
		int k = lookup(ss, a->v[i], g);

		if (k || whole)
			frames_eq(f, lookup(sm, a->v[i], f), g, k, a->v[i]);
		found += k > 0;
	}
	pk_srcline_free(sm);
	pk_srcline_free(ss);
	mod_close(&m);
	mod_close(&s);
	return found;
}

/* The DWARF of a stripped copy, through its .gnu_debuglink to a debug file
 * beside it: the same frames as the unstripped file. Without the link
 * (and no build-id file under /usr/lib/debug), none. */
START_TEST(test_debuglink)
{
	char path[4096], dbg[512], stripped[512], bare[512], link[600];
	struct addrs a = {};

	fixture("inline-gcc", path, sizeof(path));
	snprintf(dbg, sizeof(dbg), "%s/inline.debug", pk_fx_dir());
	snprintf(stripped, sizeof(stripped), "%s/inline-stripped", pk_fx_dir());
	snprintf(bare, sizeof(bare), "%s/inline-bare", pk_fx_dir());
	snprintf(link, sizeof(link), "--add-gnu-debuglink=%s", dbg);
	pk_fx_run_ok((char *[]){ "objcopy", "--only-keep-debug", path, dbg, NULL }, NULL);
	pk_fx_run_ok((char *[]){ "objcopy", "--strip-debug", link, path, stripped, NULL }, NULL);
	pk_fx_run_ok((char *[]){ "objcopy", "--strip-debug", path, bare, NULL }, NULL);
	ck_assert(!has_section(stripped, ".debug_info"));
	ck_assert(has_section(stripped, ".gnu_debuglink"));

	insn_addrs(path, 0, 0, &a);
	ck_assert_uint_ge(frames_through(path, stripped, &a, true), a.n / 2);
	ck_assert_uint_eq(frames_through(path, bare, &a, false), 0);
	free(a.v);
}
END_TEST

/*
 * Where a .gnu_debuglink is followed (debuginfo.h): beside the file, in its
 * .debug/ directory, and beside the target of a link the file was opened
 * through (as /proc/PID/map_files/...); a file of that name from another
 * build (another build-id) is not taken.
 */
START_TEST(test_debuglink_places)
{
	char path[4096], other[4096], dir[512], sub[600], stripped[600], dbg[700], link[800];
	char via[600], otherdbg[700];
	struct addrs a = {};

	fixture("inline-gcc", path, sizeof(path));
	fixture("inline-clang", other, sizeof(other));
	snprintf(dir, sizeof(dir), "%s/dl", pk_fx_dir());
	snprintf(sub, sizeof(sub), "%s/.debug", dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	snprintf(stripped, sizeof(stripped), "%s/inline", dir);
	snprintf(dbg, sizeof(dbg), "%s/inline.debug", sub);
	snprintf(link, sizeof(link), "--add-gnu-debuglink=%s", dbg);
	pk_fx_run_ok((char *[]){ "objcopy", "--only-keep-debug", path, dbg, NULL }, NULL);
	pk_fx_run_ok((char *[]){ "objcopy", "--strip-debug", link, path, stripped, NULL }, NULL);
	insn_addrs(path, 0, 0, &a);

	/* in .debug/ */
	ck_assert_uint_ge(frames_through(path, stripped, &a, true), a.n / 2);
	/* through a link from elsewhere to the stripped file */
	snprintf(via, sizeof(via), "%s/via", pk_fx_dir());
	ck_assert_int_eq(symlink(stripped, via), 0);
	ck_assert_uint_ge(frames_through(path, via, &a, true), a.n / 2);
	/* another build's debug file under the name the link holds, beside
	 * the file (searched first) and in .debug/: neither is taken */
	snprintf(otherdbg, sizeof(otherdbg), "%s/inline.debug", dir);
	pk_fx_run_ok((char *[]){ "objcopy", "--only-keep-debug", other, otherdbg, NULL }, NULL);
	ck_assert_int_eq(unlink(dbg), 0);
	ck_assert_int_eq(rename(otherdbg, dbg), 0);
	pk_fx_run_ok((char *[]){ "objcopy", "--only-keep-debug", other, otherdbg, NULL }, NULL);
	ck_assert_uint_eq(frames_through(path, stripped, &a, false), 0);
	free(a.v);
}
END_TEST

/* mkdir -p of DIR's components below pk_fx_dir(). */
static void fx_mkdirs(const char *rel)
{
	char path[4096], *p;
	size_t base = strlen(pk_fx_dir()) + 1;

	snprintf(path, sizeof(path), "%s/%s", pk_fx_dir(), rel);
	for (p = path + base; (p = strchr(p, '/')); p++) {
		*p = '\0';
		ck_assert_msg(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s", path);
		*p = '/';
	}
	ck_assert_msg(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s", path);
}

/*
 * A file named through a process's root (PROC/PID/root/usr/bin/inline, as
 * the symbolizer opens a container's files) has its .gnu_debuglink file
 * under that root's /usr/lib/debug (ROOT/usr/lib/debug/usr/bin/), where a
 * root's -dbg package puts it: found there, with the same frames as the
 * unstripped file. Searched under the host's /usr/lib/debug with the
 * whole rooted path appended, it was not.
 */
START_TEST(test_debuglink_rooted)
{
	char path[4096], root[600], proc_link[600], stripped[700], dbg[700], link[800];
	char via_root[700];
	struct addrs a = {};

	fixture("inline-gcc", path, sizeof(path));
	fx_mkdirs("r/usr/bin");
	fx_mkdirs("r/usr/lib/debug/usr/bin");
	fx_mkdirs("proc/77");
	snprintf(root, sizeof(root), "%s/r", pk_fx_dir());
	snprintf(proc_link, sizeof(proc_link), "%s/proc/77/root", pk_fx_dir());
	ck_assert_int_eq(symlink(root, proc_link), 0);
	snprintf(stripped, sizeof(stripped), "%s/usr/bin/inline", root);
	snprintf(dbg, sizeof(dbg), "%s/usr/lib/debug/usr/bin/inline.debug", root);
	snprintf(link, sizeof(link), "--add-gnu-debuglink=%s", dbg);
	pk_fx_run_ok((char *[]){ "objcopy", "--only-keep-debug", path, dbg, NULL }, NULL);
	pk_fx_run_ok((char *[]){ "objcopy", "--strip-debug", link, path, stripped, NULL }, NULL);
	insn_addrs(path, 0, 0, &a);
	ck_assert_uint_gt(a.n, 0);

	snprintf(via_root, sizeof(via_root), "%s/usr/bin/inline", proc_link);
	ck_assert_uint_ge(frames_through(path, via_root, &a, true), a.n / 2);
	/* the same file at its own path is no process's: the root's
	 * /usr/lib/debug is not where its debug file is looked for */
	ck_assert_uint_eq(frames_through(path, stripped, &a, false), 0);
	free(a.v);
}
END_TEST

/* Open descriptors of this process that are sockets. */
static int socket_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char target[64];
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		ssize_t len = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);

		if (len > 0) {
			target[len] = '\0';
			n += !strncmp(target, "socket:", 7);
		}
	}
	closedir(d);
	return n;
}

/* A file with no debug information anywhere is looked for on this machine
 * only: libdw's standard search would end in a debuginfod client, whose
 * socket pair its Dwfl keeps as long as the file is kept. */
START_TEST(test_no_debuginfod)
{
	char path[4096], bare[512];
	struct pk_srcline_frame f[MAX_FRAMES];
	struct addrs a = {};
	struct mod b;
	struct pk_srcline *sb;
	int before = socket_fds();

	fixture("inline-gcc", path, sizeof(path));
	snprintf(bare, sizeof(bare), "%s/inline-bare", pk_fx_dir());
	pk_fx_run_ok((char *[]){ "objcopy", "--strip-debug", path, bare, NULL }, NULL);
	insn_addrs(path, 0, 0, &a);
	ck_assert_uint_gt(a.n, 0);
	b = mod_open(bare);
	ck_assert_ptr_nonnull(b.dm);
	sb = pk_srcline_new(b.dm);
	ck_assert_int_eq(lookup(sb, a.v[0], f), 0);
	ck_assert_int_eq(socket_fds(), before);
	pk_srcline_free(sb);
	mod_close(&b);
	free(a.v);
}
END_TEST

/* --- corrupt debug info ------------------------------------------------ */

struct section {
	__u64 offset, size;
	size_t index;
};

static bool find_section(const char *path, const char *want, struct section *out)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, want))
			continue;
		*out = (struct section){ sh.sh_offset, sh.sh_size, elf_ndxscn(scn) };
		found = true;
	}
	elf_end(elf);
	close(fd);
	return found;
}

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = pk_test_read_file(from, &len);
	int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	ck_assert(data && fd >= 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	free(data);
}

/* Every lookup over A in PATH returns a count or -errno, and its strings
 * can be read (ASan checks that); a file libdwfl refuses has no lookups. */
static size_t lookups_survive(const char *path, const struct addrs *a)
{
	struct mod m = mod_open(path);
	struct pk_srcline *sl;
	size_t frames = 0;

	if (!m.dm) {
		mod_close(&m);
		return 0;
	}
	sl = pk_srcline_new(m.dm);
	ck_assert_ptr_nonnull(sl);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < a->n; i++) {
			struct pk_srcline_frame f[MAX_FRAMES];
			int n = lookup(sl, a->v[i], f);

			for (int k = 0; k < n; k++) {
				frames += strlen(f[k].name ? f[k].name : "") +
					  strlen(f[k].file ? f[k].file : "") > 0;
			}
		}
	}
	pk_srcline_free(sl);
	mod_close(&m);
	return frames;
}

/* A 64-bit LCG: the same garbage on every run. */
static __u64 next_rand(__u64 *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* Write over 1 byte in EVERY of SECTION in PATH, with SEED. */
static void garble(const char *path, const struct section *sec, unsigned every, __u64 seed)
{
	int fd = open(path, O_RDWR);

	ck_assert_int_ge(fd, 0);
	for (__u64 off = next_rand(&seed) % every; off < sec->size; off += every) {
		unsigned char c = next_rand(&seed);

		ck_assert_int_eq(pwrite(fd, &c, 1, sec->offset + off), 1);
	}
	close(fd);
}

/* Set the sh_size of section INDEX (ELF64) in PATH. */
static void set_section_size(const char *path, size_t index, __u64 size)
{
	int fd = open(path, O_RDWR);
	Elf64_Ehdr eh;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &eh, sizeof(eh), 0), sizeof(eh));
	ck_assert_int_eq(pwrite(fd, &size, sizeof(size),
				eh.e_shoff + index * eh.e_shentsize + offsetof(Elf64_Shdr, sh_size)),
			 sizeof(size));
	close(fd);
}

/*
 * Corrupt copies of the fixtures: DWARF sections garbled (a byte in 7, in
 * 61, in 997: headers, forms, offsets and lengths all hit), zeroed, cut short
 * (sh_size halved: units run past the end), the file truncated inside
 * .debug_info. Nothing may crash, hang, or read out of bounds.
 */
START_TEST(test_corrupt)
{
	static const char *const fixtures[] = { "inline-gcc", "inline-cpp-gcc", "inline-clang",
						"inline-gcc-dwarf4" };
	static const char *const sections[] = { ".debug_info", ".debug_abbrev", ".debug_line",
						".debug_rnglists", ".debug_ranges", ".debug_str",
						".debug_aranges", ".debug_addr" };
	static const unsigned every[] = { 7, 61, 997 };
	char path[4096], copy[512];
	size_t runs = 0;

	elf_version(EV_CURRENT);
	snprintf(copy, sizeof(copy), "%s/corrupt", pk_fx_dir());
	for (size_t fx = 0; fx < sizeof(fixtures) / sizeof(fixtures[0]); fx++) {
		struct addrs a = {};

		fixture(fixtures[fx], path, sizeof(path));
		insn_addrs(path, 0, 0, &a);
		ck_assert_uint_gt(lookups_survive(path, &a), 0);	/* the intact file */
		for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
			struct section sec;

			if (!find_section(path, sections[s], &sec) || !sec.size)
				continue;
			for (size_t e = 0; e < sizeof(every) / sizeof(every[0]); e++) {
				for (__u64 seed = 1; seed <= 3; seed++) {
					copy_file(path, copy);
					garble(copy, &sec, every[e], seed * 7919 + e);
					lookups_survive(copy, &a);
					runs++;
				}
			}
			copy_file(path, copy);
			garble(copy, &sec, 1, 0);	/* all of it */
			lookups_survive(copy, &a);
			copy_file(path, copy);
			set_section_size(copy, sec.index, sec.size / 2);
			lookups_survive(copy, &a);
			runs += 2;
		}
		{
			struct section info;

			ck_assert(find_section(path, ".debug_info", &info));
			copy_file(path, copy);
			ck_assert_int_eq(truncate(copy, info.offset + info.size / 2), 0);
			lookups_survive(copy, &a);
			runs++;
		}
		free(a.v);
	}
	fprintf(stderr, "srcline: %zu corrupt copies read\n", runs);
}
END_TEST

/* --- the API ----------------------------------------------------------- */

START_TEST(test_api)
{
	char path[4096], *keep_name, *keep_file;
	struct pk_srcline_frame f[MAX_FRAMES], g[MAX_FRAMES];
	struct addrs a = {};
	struct mod m;
	struct pk_srcline *sl;
	const char *name0;
	__u64 deep = 0;
	int n = 0;

	fixture("inline-gcc", path, sizeof(path));
	insn_addrs(path, 0, 0, &a);
	m = mod_open(path);
	sl = pk_srcline_new(m.dm);
	ck_assert_ptr_nonnull(sl);
	ck_assert_ptr_null(pk_srcline_new(NULL));
	ck_assert_int_eq(pk_srcline_lookup(sl, a.v[0], f, 0), -EINVAL);
	ck_assert_int_eq(pk_srcline_lookup(sl, a.v[0], NULL, 4), -EINVAL);
	ck_assert_int_eq(pk_srcline_lookup(NULL, a.v[0], f, 4), -EINVAL);
	/* Nowhere near the file. */
	ck_assert_int_eq(pk_srcline_lookup(sl, ~0ULL, f, MAX_FRAMES), 0);
	ck_assert_int_eq(pk_srcline_lookup(sl, 0x7fff00000000ULL, f, MAX_FRAMES), 0);

	/* The deepest chain, then cut to 1, 2, 3 frames: the innermost ones
	 * and the function. */
	for (size_t i = 0; i < a.n; i++) {
		int k = lookup(sl, a.v[i], g);

		if (k > n) {
			n = k;
			deep = a.v[i];
		}
	}
	ck_assert_int_ge(n, 4);
	ck_assert_int_eq(lookup(sl, deep, f), n);
	for (int max = 1; max <= 3; max++) {
		ck_assert_int_eq(pk_srcline_lookup(sl, deep, g, max), max);
		frames_eq(f, max - 1, g, max - 1, deep);
		frames_eq(&f[n - 1], 1, &g[max - 1], 1, deep);
	}
	ck_assert_int_eq(pk_srcline_lookup(sl, deep, g, n), n);
	frames_eq(f, n, g, n, deep);
	/* Outer frames of an inlined chain name the function each call sits
	 * in; the last is the concrete function, named by the symbol table
	 * too. */
	name0 = dwfl_module_addrname(m.dm, deep);
	ck_assert_ptr_nonnull(name0);
	ck_assert_str_eq(f[n - 1].name, name0);

	/* Strings outlive later lookups. */
	keep_name = strdup(f[0].name);
	keep_file = strdup(f[0].file);
	for (size_t i = 0; i < a.n; i++)
		lookup(sl, a.v[i], g);
	ck_assert_str_eq(f[0].name, keep_name);
	ck_assert_str_eq(f[0].file, keep_file);
	free(keep_name);
	free(keep_file);
	pk_srcline_free(sl);
	pk_srcline_free(NULL);
	mod_close(&m);
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

	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_debuglink);
	tcase_add_test(tc, test_debuglink_places);
	tcase_add_test(tc, test_debuglink_rooted);
	tcase_add_test(tc, test_no_debuginfod);
	tcase_add_test(tc, test_corrupt);
	tcase_add_test(tc, test_api);
	suite_add_tcase(s, tc);
	return s;
}
