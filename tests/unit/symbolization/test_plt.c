// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PLT stub names against objdump's (binutils reads the stubs on its own:
 * its <NAME@plt> labels), on the layouts ld makes: lazy .plt, .plt.got,
 * IBT's .plt.sec, -z now; on programs compiled here and on the system's
 * libc, coreutils and python. An IRELATIVE stub (objdump: *ABS*+0xN@plt)
 * is named by the ifunc symbol readelf lists at N.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/elf_fixture.h"
#include "symbolization/plt.h"
#include "symbolization/symfile.h"
#include "test_util.h"

#define MAX_STUBS 4096

struct stub {
	__u64 addr, size;
	char name[256];		/* objdump's, without "@plt"; ours: the symbol */
	__u64 ifunc;		/* ours, for an IRELATIVE stub */
	bool irelative;
};

struct stubs {
	struct stub v[MAX_STUBS];
	size_t n;
};

/* objdump -d -C of the PLT sections: "ADDR <NAME@plt>:" lines. */
static void objdump_stubs(const char *path, struct stubs *s)
{
	char *argv[] = { "objdump", "-d", "-C", "-j", ".plt", "-j", ".plt.sec", "-j", ".plt.got",
			 (char *)path, NULL };
	char *out = NULL, *line, *save = NULL;

	s->n = 0;
	pk_fx_run_ok(argv, &out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long addr;
		char *lt = strchr(line, '<'), *end = strstr(line, "@plt>:");
		size_t len;

		/* "<puts@plt-0x10>:" is the resolver's entry: not a stub */
		if (!lt || !end || end[6] || sscanf(line, "%llx <", &addr) != 1)
			continue;
		len = (size_t)(end - lt - 1);
		ck_assert_uint_lt(len, sizeof(s->v[0].name));
		ck_assert_uint_lt(s->n, MAX_STUBS);
		s->v[s->n].addr = addr;
		memcpy(s->v[s->n].name, lt + 1, len);
		s->v[s->n].name[len] = '\0';
		s->n++;
	}
	free(out);
}

static int collect(void *ctx, __u64 addr, __u64 size, const char *sym, __u64 ifunc)
{
	struct stubs *s = ctx;

	ck_assert_uint_lt(s->n, MAX_STUBS);
	s->v[s->n] = (struct stub){ .addr = addr, .size = size, .ifunc = ifunc, .irelative = !sym };
	snprintf(s->v[s->n].name, sizeof(s->v[0].name), "%s", sym ? sym : "");
	s->n++;
	return 0;
}

static void our_stubs(const char *path, struct stubs *s)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	s->n = 0;
	ck_assert_int_eq(pk_plt_for_each(elf, collect, s), 0);
	elf_end(elf);
	close(fd);
}

/* Every stub objdump labels, at its address, and no other: named alike,
 * an IRELATIVE one by its resolver's address. Returns how many. */
static size_t compare_with_objdump(const char *path)
{
	static struct stubs theirs, ours;

	objdump_stubs(path, &theirs);
	our_stubs(path, &ours);
	ck_assert_msg(ours.n == theirs.n, "%s: %zu stubs, objdump labels %zu", path, ours.n,
		      theirs.n);
	for (size_t i = 0; i < ours.n; i++) {
		const struct stub *o = &ours.v[i];
		const struct stub *t = NULL;
		char want[256];

		for (size_t j = 0; j < theirs.n && !t; j++)
			if (theirs.v[j].addr == o->addr)
				t = &theirs.v[j];
		ck_assert_msg(t, "%s: a stub at 0x%llx objdump does not label", path,
			      (unsigned long long)o->addr);
		if (o->irelative)
			snprintf(want, sizeof(want), "*ABS*+0x%llx", (unsigned long long)o->ifunc);
		else
			snprintf(want, sizeof(want), "%s", o->name);
		/* objdump demangles (-C); the walk gives the symbol as it is */
		if (strcmp(t->name, want)) {
			char *dm = NULL, *argv[] = { "c++filt", want, NULL };

			pk_fx_run_ok(argv, &dm);
			dm[strcspn(dm, "\n")] = '\0';
			ck_assert_msg(!strcmp(t->name, dm), "%s: at 0x%llx objdump says %s@plt, we %s",
				      path, (unsigned long long)o->addr, t->name, want);
			free(dm);
		}
	}
	return ours.n;
}

static const char plt_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"int (*take)(const char *) = puts;\n"	/* puts's address taken: .plt.got */
	"int main(int argc, char **argv)\n"
	"{\n"
	"	char *p = malloc(strlen(argv[0]) + 1);\n"
	"	strcpy(p, argv[0]);\n"
	"	printf(\"%s %d\\n\", p, argc);\n"
	"	take(p);\n"
	"	free(p);\n"
	"	return 0;\n"
	"}\n";

/* -Wl,-z,ibtplt: the stubs in .plt.sec, endbr64 first. */
static const char *const layouts[] = { "-pie", "-no-pie", "-Wl,-z,now", "-Wl,-z,ibtplt" };

START_TEST(test_layouts)
{
	char name[32];
	const char *path;

	snprintf(name, sizeof(name), "plt%d", _i);
	path = pk_fx_build(name, plt_src, false, layouts[_i]);
	ck_assert_uint_ge(compare_with_objdump(path), 4);
}
END_TEST

START_TEST(test_cxx)
{
	const char *path = pk_fx_build("plt_cxx", pk_fx_cxx_src, true, "-pie");

	ck_assert_uint_ge(compare_with_objdump(path), 1);
}
END_TEST

/* The system's own: libc (IRELATIVE stubs first in .plt, their
 * relocations last), coreutils' ls (.plt.got), python (500 stubs). */
START_TEST(test_system_files)
{
	static const char *const files[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/bin/ls",
		"/usr/bin/python3.11",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t n = compare_with_objdump(files[i]);

		fprintf(stderr, "plt: %s: %zu stubs agree with objdump\n", files[i], n);
		ck_assert_uint_ge(n, 10);
	}
}
END_TEST

/* No PLT, and no relocations to read: nothing, and no error. */
START_TEST(test_none)
{
	const char *path = pk_fx_build("noplt", "int main(void) { return 0; }\n", false,
				       "-static");
	static struct stubs s;

	our_stubs(path, &s);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

/* The symbol table a file is read into names each stub FUNC@plt, a C++ one
 * demangled, an IRELATIVE one after the ifunc symbol at its resolver. */
static void check_symfile_names(const char *path, bool want_irelative)
{
	struct pk_symfile_source src[2] = { { path, true }, { NULL } };
	struct pk_symfiles *files = pk_symfiles_new();
	static struct stubs theirs, ours;
	struct pk_symfile *f;
	struct stat st;
	size_t irel = 0;

	ck_assert_int_eq(stat(path, &st), 0);
	f = pk_symfiles_add(files, st.st_dev, st.st_ino, path, src, NULL, 0);
	ck_assert(f && pk_symfile_loaded(f));
	objdump_stubs(path, &theirs);
	our_stubs(path, &ours);
	for (size_t i = 0; i < ours.n; i++) {
		const struct stub *o = &ours.v[i];
		__u64 start = 0;
		const char *got = pk_symfile_symbol(f, o->addr + 1, &start);
		char want[300];

		ck_assert_ptr_nonnull(got);
		ck_assert_uint_eq(start, o->addr);
		if (!o->irelative) {
			want[0] = '\0';
			for (size_t j = 0; j < theirs.n; j++)
				if (theirs.v[j].addr == o->addr)
					snprintf(want, sizeof(want), "%s@plt", theirs.v[j].name);
			ck_assert_msg(want[0], "%s: objdump labels no stub at 0x%llx", path,
				      (unsigned long long)o->addr);
			ck_assert_str_eq(got, want);
			continue;
		}
		irel++;
		/* NAME@plt where readelf lists ifunc NAME at the resolver */
		{
			char *argv[] = { "readelf", "-sW", (char *)path, NULL };
			char *out = NULL, *line, *save = NULL, addr[32];
			bool found = false;

			ck_assert_ptr_nonnull(strstr(got, "@plt"));
			snprintf(want, sizeof(want), "%.*s", (int)(strstr(got, "@plt") - got), got);
			snprintf(addr, sizeof(addr), "%016llx", (unsigned long long)o->ifunc);
			pk_fx_run_ok(argv, &out);
			for (line = strtok_r(out, "\n", &save); line && !found;
			     line = strtok_r(NULL, "\n", &save)) {
				char value[32], type[16], name[256];

				if (sscanf(line, "%*s %31s %*s %15s %*s %*s %*s %255s", value, type,
					   name) == 3 && !strcmp(value, addr) &&
				    !strcmp(type, "IFUNC"))
					found = !strcmp(strtok(name, "@"), want);
			}
			free(out);
			ck_assert_msg(found, "%s: %s at 0x%llx is no ifunc symbol of the resolver", path,
				      got, (unsigned long long)o->addr);
		}
	}
	ck_assert(!want_irelative || irel > 0);
	pk_symfiles_free(files);
}

START_TEST(test_symfile_names)
{
	check_symfile_names(pk_fx_build("plt_cxx", pk_fx_cxx_src, true, "-pie"), false);
	check_symfile_names(pk_fx_build("plt_ibt", plt_src, false, "-Wl,-z,ibtplt"), false);
	check_symfile_names("/usr/lib/x86_64-linux-gnu/libc.so.6", true);
}
END_TEST

Suite *suite_plt(void)
{
	Suite *s = suite_create("plt");
	TCase *tc = tcase_create("objdump");

	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_layouts, 0, (int)(sizeof(layouts) / sizeof(layouts[0])));
	tcase_add_test(tc, test_cxx);
	tcase_add_test(tc, test_system_files);
	tcase_add_test(tc, test_none);
	suite_add_tcase(s, tc);
	tc = tcase_create("names");
	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_symfile_names);
	suite_add_tcase(s, tc);
	return s;
}
