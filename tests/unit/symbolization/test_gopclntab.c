// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Go's .gopclntab (gopclntab.h), on the Go fixture as each toolchain the
 * tests have builds it (tests/go.mk: 1.19, 1.24, 1.27), unstripped and
 * -s -w: every instruction of package main named and lined as the
 * toolchain's own `go tool objdump` says; the stripped build read through
 * the file cache as the unstripped one's symbol table and DWARF read (a
 * PIE's too);
 * main.step as an inlined frame under main.leaf; old and unknown layouts
 * and bad headers refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util/text.h"
#include "symbolization/gopclntab.h"
#include "symbolization/symfile.h"
#include "test_util.h"

/* The last, a PIE (its table among the RELRO data), only where the
 * oracle needs no lines: Go 1.19's objdump gives a PIE's none. */
static const char *const versions[] = { "go1.19", "go1.24", "go1.27", "go1.19-pie" };
#define NVERSIONS (sizeof(versions) / sizeof(versions[0]) - 1)

/* One instruction as `go tool objdump` prints it: its function and the
 * file and line of its innermost position. */
struct insn {
	__u64 addr;
	char func[64];
	char file[32];
	unsigned line;
};

static const char *fixture(const char *version, const char *kind, char *buf, size_t len)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "fixtures_go/gochain-%s%s", version, kind);
	return pk_test_build_path(rel, buf, len);
}

/* The objdump of VERSION's fixture, parsed: "TEXT main.leaf(SB) FILE"
 * then "  main.go:43\t\t0x47bb40\t\t..." lines. */
static struct insn *objdump_of(const char *version, size_t *n)
{
	char path[512], *text, *save = NULL, func[64] = "";
	struct insn *v = NULL;
	size_t len;

	*n = 0;
	text = pk_test_read_file(fixture(version, ".objdump", path, sizeof(path)), &len);
	ck_assert_msg(text, "%s: make test-programs builds it", path);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct insn in = { 0 };

		if (sscanf(l, "TEXT %63[^(]", func) == 1)
			continue;
		/* a PIE's lines are " :0 0x..." (no file) */
		if (sscanf(l, " %31[^:]:%u %llx", in.file, &in.line,
			   (unsigned long long *)&in.addr) != 3 &&
		    sscanf(l, " :%u %llx", &in.line, (unsigned long long *)&in.addr) != 2)
			continue;
		snprintf(in.func, sizeof(in.func), "%s", func);
		v = pk_test_grow(v, *n + 1, sizeof(*v));
		v[(*n)++] = in;
	}
	free(text);
	return v;
}

struct elf_file {
	int fd;
	Elf *elf;
};

static struct pk_gopclntab *open_table(const char *path, struct elf_file *ef)
{
	char err[PK_ERR_LEN] = "";
	struct pk_gopclntab *t;

	elf_version(EV_CURRENT);
	ef->fd = open(path, O_RDONLY);
	ck_assert_msg(ef->fd >= 0, "%s: make test-programs builds it", path);
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	ck_assert_ptr_nonnull(ef->elf);
	ck_assert_msg(pk_gopclntab_from_elf(ef->elf, &t, err) == 0, "%s: %s", path, err);
	return t;
}

static void close_table(struct pk_gopclntab *t, struct elf_file *ef)
{
	pk_gopclntab_free(t);
	elf_end(ef->elf);
	close(ef->fd);
}

/* The line of the fixture's source that holds TEXT. */
static unsigned source_line(const char *text)
{
	char path[512], *src, *at;
	unsigned line = 1;
	size_t len;

	src = pk_test_read_file(pk_test_src_path("tests/fixtures_go/main.go", path,
						 sizeof(path)), &len);
	ck_assert_ptr_nonnull(src);
	at = strstr(src, text);
	ck_assert_ptr_nonnull(at);
	for (char *p = src; p < at; p++)
		line += *p == '\n';
	free(src);
	return line;
}

/* Every instruction of package main, in both builds: the function that
 * objdump says holds it last, its file and line first. */
START_TEST(test_objdump_oracle)
{
	static const char *const kinds[] = { "-full", "-strip" };
	const char *v = versions[_i / 2];
	struct pk_srcline_frame fr[8];
	struct elf_file ef;
	struct pk_gopclntab *t;
	char path[512];
	size_t n;
	struct insn *ins = objdump_of(v, &n);

	ck_assert_msg(n > 100, "%s: %zu instructions", v, n);
	t = open_table(fixture(v, kinds[_i % 2], path, sizeof(path)), &ef);
	ck_assert_str_eq(pk_gopclntab_layout(t), strcmp(v, "go1.19") ? "1.20+" : "1.18-1.19");
	for (size_t i = 0; i < n; i++) {
		__u64 entry = 0;
		int k = pk_gopclntab_lookup(t, ins[i].addr, fr, 8, &entry);

		ck_assert_msg(k >= 1, "%s %#llx: %d", v, (unsigned long long)ins[i].addr, k);
		ck_assert_msg(fr[k - 1].name && !strcmp(fr[k - 1].name, ins[i].func),
			      "%s %#llx: %s, objdump %s", v, (unsigned long long)ins[i].addr,
			      fr[k - 1].name, ins[i].func);
		ck_assert_msg(fr[0].file && !strcmp(pk_base_name(fr[0].file), ins[i].file) &&
			      fr[0].line == ins[i].line, "%s %#llx: %s:%u, objdump %s:%u", v,
			      (unsigned long long)ins[i].addr, fr[0].file, fr[0].line,
			      ins[i].file, ins[i].line);
		ck_assert_uint_le(entry, ins[i].addr);
	}
	close_table(t, &ef);
	free(ins);
}
END_TEST

/* main.step is inlined into main.leaf: its instructions are main.step's
 * lines under main.leaf at the line of the call; with room for one frame,
 * main.leaf alone at that line. */
START_TEST(test_inlined)
{
	const char *v = versions[_i];
	unsigned call = source_line("x = step(x)"), body = source_line("x ^= x << 13");
	struct pk_srcline_frame fr[8];
	struct elf_file ef;
	struct pk_gopclntab *t;
	char path[512];
	size_t n, seen = 0;
	struct insn *ins = objdump_of(v, &n);

	t = open_table(fixture(v, "-strip", path, sizeof(path)), &ef);
	for (size_t i = 0; i < n; i++) {
		__u64 entry;
		int k;

		if (strcmp(ins[i].func, "main.leaf") || ins[i].line < body ||
		    ins[i].line > body + 3)
			continue;
		k = pk_gopclntab_lookup(t, ins[i].addr, fr, 8, &entry);
		ck_assert_int_eq(k, 2);
		ck_assert_str_eq(fr[0].name, "main.step");
		ck_assert_uint_eq(fr[0].line, ins[i].line);
		ck_assert_str_eq(fr[1].name, "main.leaf");
		ck_assert_uint_eq(fr[1].line, call);
		ck_assert_int_eq(pk_gopclntab_lookup(t, ins[i].addr, fr, 1, &entry), 1);
		ck_assert_str_eq(fr[0].name, "main.leaf");
		ck_assert_uint_eq(fr[0].line, call);
		seen++;
	}
	ck_assert_msg(seen >= 3, "%s: %zu instructions of main.step in main.leaf", v, seen);
	ck_assert_int_eq(pk_gopclntab_lookup(t, ins[0].addr, fr, 0, &(__u64){ 0 }), -EINVAL);
	close_table(t, &ef);
	free(ins);
}
END_TEST

static struct pk_symfile *add_file(struct pk_symfiles *files, const char *path)
{
	struct pk_symfile_source src[2] = { { path, true }, { NULL } };
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return pk_symfiles_add(files, st.st_dev, st.st_ino, path, src, NULL, 0);
}

/*
 * The file cache: the stripped build (no .symtab, no DWARF) named and
 * lined from its table as the unstripped one is from its symbol table and
 * DWARF, at every instruction of package main and at runtime.goexit (an
 * assembly function: goexit.abi0 in the symbol table).
 */
START_TEST(test_agrees_with_symtab_and_dwarf)
{
	const char *v = versions[_i];
	struct pk_srcline_frame a[32], b[32];
	struct pk_symfiles *files = pk_symfiles_new();
	struct pk_symfile *full, *strip;
	char pf[512], ps[512];
	size_t n, same = 0;
	struct insn *ins = objdump_of(v, &n);

	ck_assert_ptr_nonnull(files);
	ck_assert_msg(n > 100, "%s: %zu instructions", v, n);
	full = add_file(files, fixture(v, "-full", pf, sizeof(pf)));
	strip = add_file(files, fixture(v, "-strip", ps, sizeof(ps)));
	ck_assert(pk_symfile_loaded(full) && pk_symfile_loaded(strip));
	for (size_t i = 0; i < n; i++) {
		const char *na, *nb;
		__u64 sa, sb;
		int ka = pk_symfile_locate(full, ins[i].addr, true, &na, &sa, a, 32);
		int kb = pk_symfile_locate(strip, ins[i].addr, true, &nb, &sb, b, 32);
		bool eq;

		/* the unstripped build's from DWARF, the stripped one's from
		 * the table */
		ck_assert_int_ge(ka, 1);
		ck_assert_msg(na && nb && !strcmp(na, nb), "%s %#llx: %s, stripped %s", v,
			      (unsigned long long)ins[i].addr, na, nb);
		/* names alone (--no-inline): the function's, no frames */
		ck_assert_int_eq(pk_symfile_locate(strip, ins[i].addr, false, &nb, &sb, b, 32), 0);
		ck_assert_msg(nb && !strcmp(na, nb), "%s %#llx: %s, stripped --no-inline %s", v,
			      (unsigned long long)ins[i].addr, na, nb);
		kb = pk_symfile_locate(strip, ins[i].addr, true, &nb, &sb, b, 32);
		eq = ka == kb && !strcmp(na, nb) && sa == sb;
		for (int j = 0; eq && j < ka; j++)
			eq = a[j].line == b[j].line && a[j].file && b[j].file &&
			     !strcmp(pk_base_name(a[j].file), pk_base_name(b[j].file)) &&
			     (j == ka - 1 || !strcmp(a[j].name, b[j].name));
		same += eq;
	}
	/* DWARF and the table come from one compiler's positions: equal */
	ck_assert_msg(same == n, "%s: %zu of %zu instructions alike", v, same, n);
	{
		const char *na, *nb;
		__u64 sa, sb, goexit = 0;
		struct pk_gopclntab *t;
		struct elf_file ef;
		int ka, kb;

		/* goexit's address, from the table */
		t = open_table(pf, &ef);
		for (__u64 pc = ins[0].addr; pc > ins[0].addr - 0x100000 && !goexit; pc -= 16) {
			__u64 entry;

			if (pk_gopclntab_lookup(t, pc, b, 1, &entry) == 1 &&
			    !strcmp(b[0].name, "runtime.goexit"))
				goexit = entry;
		}
		close_table(t, &ef);
		ck_assert_msg(goexit, "%s: no runtime.goexit", v);
		ka = pk_symfile_locate(full, goexit + 1, false, &na, &sa, a, 32);
		kb = pk_symfile_locate(strip, goexit + 1, false, &nb, &sb, b, 32);
		ck_assert_int_eq(ka, 0);
		ck_assert_int_eq(kb, 0);
		ck_assert_str_eq(na, "runtime.goexit");
		ck_assert_str_eq(nb, "runtime.goexit");
		ck_assert_uint_eq(sa, goexit);
		ck_assert_uint_eq(sb, goexit);
	}
	pk_symfiles_free(files);
	free(ins);
}
END_TEST

/* --- layouts and bad tables ------------------------------------------------ */

/* A copy of VERSION's stripped table, and *TEXT the address of its
 * .text (runtime.text, which Go 1.27's header does not hold). */
static __u8 *table_copy(const char *v, size_t *len, __u64 *text)
{
	struct pk_gopclntab *t;
	struct elf_file ef;
	Elf_Scn *scn = NULL;
	char path[512];
	size_t shstrndx;
	GElf_Shdr sh;
	__u8 *copy = NULL;

	*text = 0;
	t = open_table(fixture(v, "-strip", path, sizeof(path)), &ef);
	ck_assert_int_eq(elf_getshdrstrndx(ef.elf, &shstrndx), 0);
	while ((scn = elf_nextscn(ef.elf, scn))) {
		const char *name;
		Elf_Data *d;

		gelf_getshdr(scn, &sh);
		name = elf_strptr(ef.elf, shstrndx, sh.sh_name);
		if (!strcmp(name, ".text"))
			*text = sh.sh_addr;
		if (strcmp(name, ".gopclntab"))
			continue;
		d = elf_rawdata(scn, NULL);
		copy = malloc(d->d_size);
		ck_assert_ptr_nonnull(copy);
		memcpy(copy, d->d_buf, d->d_size);
		*len = d->d_size;
	}
	ck_assert_ptr_nonnull(copy);
	ck_assert_uint_ne(*text, 0);
	close_table(t, &ef);
	return copy;
}

static void put32(__u8 *p, __u32 v)
{
	memcpy(p, &v, 4);
}

START_TEST(test_layouts_refused)
{
	static const struct {
		__u32 magic;
		int ret;
		const char *msg;
	} cases[] = {
		{ 0xfffffffb, -ENOTSUP, "of Go 1.2-1.15 (magic 0xfffffffb) is not read" },
		{ 0xfffffffa, -ENOTSUP, "of Go 1.16-1.17 (magic 0xfffffffa) is not read" },
		{ 0xfffffff2, -ENOTSUP, "of an unknown layout (magic 0xfffffff2" },
		{ 0x464c457f, -ENOENT, NULL },
	};
	size_t len;
	__u64 text;
	__u8 *tab = table_copy("go1.24", &len, &text);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pk_gopclntab_src src = { .tab = tab, .len = len, .text = text };
		char err[PK_ERR_LEN] = "";
		struct pk_gopclntab *t = NULL;

		put32(tab, cases[i].magic);
		ck_assert_int_eq(pk_gopclntab_open(&src, &t, err), cases[i].ret);
		ck_assert_ptr_null(t);
		if (cases[i].msg) {
			ck_assert_msg(strstr(err, cases[i].msg), "%s", err);
			ck_assert_ptr_null(strchr(err, '\n'));
		}
	}
	free(tab);
}
END_TEST

/* Headers that do not hold together: refused, not read past. */
START_TEST(test_bad_headers)
{
	size_t len;
	__u64 text;
	__u8 *tab = table_copy("go1.27", &len, &text);
	struct pk_gopclntab_src src = { .tab = tab, .len = len, .text = text };
	char err[PK_ERR_LEN];
	struct pk_gopclntab *t;
	__u8 saved[72];

	memcpy(saved, tab, sizeof(saved));
	/* a pointer size of 3 */
	tab[7] = 3;
	ck_assert_int_eq(pk_gopclntab_open(&src, &t, err), -EINVAL);
	memcpy(tab, saved, sizeof(saved));
	/* the function table's offset past the end */
	put32(tab + 64, (__u32)len + 1);
	ck_assert_int_eq(pk_gopclntab_open(&src, &t, err), -EINVAL);
	memcpy(tab, saved, sizeof(saved));
	/* parts out of order */
	put32(tab + 40, 0xfff);
	put32(tab + 48, 0xff);
	ck_assert_int_eq(pk_gopclntab_open(&src, &t, err), -EINVAL);
	memcpy(tab, saved, sizeof(saved));
	/* more functions than fit */
	put32(tab + 8, (__u32)len);
	ck_assert_int_eq(pk_gopclntab_open(&src, &t, err), -EINVAL);
	ck_assert_msg(strstr(err, "functions do not fit"), "%s", err);
	memcpy(tab, saved, sizeof(saved));
	/* no text address (Go 1.27 keeps none in the header) */
	src.text = 0;
	ck_assert_int_eq(pk_gopclntab_open(&src, &t, err), -EINVAL);
	/* cut at every length up to the header's end: never read past */
	for (size_t cut = 0; cut < sizeof(saved); cut++) {
		__u8 *p = malloc(cut ? cut : 1);
		struct pk_gopclntab_src s = { .tab = p, .len = cut, .text = text };

		memcpy(p, tab, cut);
		ck_assert_int_lt(pk_gopclntab_open(&s, &t, err), 0);
		free(p);
	}
	free(tab);
}
END_TEST

/* A Go binary of a layout not read: its frames stay addresses, and the
 * file cache says why, in one line. */
START_TEST(test_refused_file)
{
	char path[512], copy[] = "/tmp/pk-gopclntab-XXXXXX";
	const __u8 magic[4] = { 0xf2, 0xff, 0xff, 0xff };
	struct pk_symfile_source src[2] = { { copy, true }, { NULL } };
	struct pk_srcline_frame fr[4];
	struct pk_symfiles *files = pk_symfiles_new();
	struct pk_symfiles_stats st;
	struct pk_symfile *f;
	struct stat sb;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;
	__u64 start, pclntab_off = 0;
	int fd = mkstemp(copy);
	Elf *elf;

	ck_assert_int_ge(fd, 0);
	close(fd);
	pk_test_copy_file(fixture("go1.24", "-strip", path, sizeof(path)), copy, 0755);
	fd = open(copy, O_RDWR);
	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    !strcmp(elf_strptr(elf, shstrndx, sh.sh_name), ".gopclntab"))
			pclntab_off = sh.sh_offset;
	elf_end(elf);
	ck_assert_uint_ne(pclntab_off, 0);
	ck_assert_int_eq(pwrite(fd, magic, 4, (off_t)pclntab_off), 4);
	close(fd);

	ck_assert_int_eq(stat(copy, &sb), 0);
	f = pk_symfiles_add(files, sb.st_dev, sb.st_ino, copy, src, NULL, 0);
	ck_assert(f && pk_symfile_loaded(f));
	ck_assert_int_eq(pk_symfile_locate(f, 0x401000 + 0x100, true, &name, &start, fr, 4), 0);
	ck_assert_ptr_null(name);
	pk_symfiles_stats(files, &st);
	ck_assert_uint_eq(st.go_refused, 1);
	ck_assert_msg(strstr(st.go_err, copy) && strstr(st.go_err, "unknown layout (magic "
		      "0xfffffff2") && !strchr(st.go_err, '\n'), "%s", st.go_err);
	pk_symfiles_free(files);
	unlink(copy);
}
END_TEST

Suite *suite_gopclntab(void)
{
	Suite *s = suite_create("gopclntab");
	TCase *tc = tcase_create("toolchains");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_objdump_oracle, 0, 2 * NVERSIONS);
	tcase_add_loop_test(tc, test_inlined, 0, NVERSIONS);
	tcase_add_loop_test(tc, test_agrees_with_symtab_and_dwarf, 0, NVERSIONS + 1);
	suite_add_tcase(s, tc);

	tc = tcase_create("layouts");
	tcase_add_test(tc, test_layouts_refused);
	tcase_add_test(tc, test_bad_headers);
	tcase_add_test(tc, test_refused_file);
	suite_add_tcase(s, tc);
	return s;
}
