// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Alias groups of the stack oracle: kallsyms text and a compiled ELF file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/elf_fixture.h"
#include "harness/sym_aliases.h"
#include "test_util.h"

static const char kallsyms[] =
"ffffffff81000000 T _stext\n"
"ffffffff81001000 T foo\n"
"ffffffff81001000 t __foo\n"
"ffffffff81001000 T foo\n"
"ffffffff81002000 t bar\n"
"ffffffff81003000 t bar\n"
"ffffffff81004000 t qux\n"
"ffffffff81004000 t baz\n"
"ffffffff81005000 t qux\n"
"ffffffff81006000 t dup\n"
"ffffffff81006000 t ab\n"
"ffffffff81007000 t dup\n"
"ffffffff81007000 t zz\n"
"ffffffff81008000 D data1\n"
"ffffffff81008000 D data2\n"
"0000000000000000 T hidden1\n"
"0000000000000000 T hidden2\n"
"ffffffffc0001000 t modfn2\t[mod]\n"
"ffffffffc0001000 W modfn\t[mod]\n";

START_TEST(test_kallsyms_groups)
{
	struct sa_aliases *a = sa_aliases_new();
	char err[256] = "";

	ck_assert_ptr_nonnull(a);
	ck_assert_msg(sa_aliases_add_kallsyms(a, kallsyms, err, sizeof(err)) == 0, "%s", err);
	/* one address, two names (and a repeated one): the shorter */
	ck_assert_str_eq(sa_aliases_canonical(a, "foo"), "foo");
	ck_assert_str_eq(sa_aliases_canonical(a, "__foo"), "foo");
	/* one name at two addresses, alone at each: not an alias */
	ck_assert_str_eq(sa_aliases_canonical(a, "bar"), "bar");
	/* an alias at one address, alone at another; equal lengths: byte order */
	ck_assert_str_eq(sa_aliases_canonical(a, "qux"), "baz");
	/* aliases of different names at two addresses: ambiguous, kept */
	ck_assert_str_eq(sa_aliases_canonical(a, "dup"), "dup");
	ck_assert_str_eq(sa_aliases_canonical(a, "ab"), "ab");
	ck_assert_str_eq(sa_aliases_canonical(a, "zz"), "zz");
	/* data, hidden addresses, unknown names */
	ck_assert_str_eq(sa_aliases_canonical(a, "data2"), "data2");
	ck_assert_str_eq(sa_aliases_canonical(a, "hidden2"), "hidden2");
	ck_assert_str_eq(sa_aliases_canonical(a, "nowhere"), "nowhere");
	/* module symbols, weak or not */
	ck_assert_str_eq(sa_aliases_canonical(a, "modfn2"), "modfn");
	sa_aliases_free(a);
}
END_TEST

START_TEST(test_kallsyms_bad_line)
{
	struct sa_aliases *a = sa_aliases_new();
	char err[256] = "";

	ck_assert_int_eq(sa_aliases_add_kallsyms(a, "ffffffff81000000 T _stext\nnonsense\n",
						 err, sizeof(err)), -EBADMSG);
	ck_assert_str_eq(err, "kallsyms line 2: not \"ADDR TYPE NAME\"");
	sa_aliases_free(a);
}
END_TEST

static const char alias_src[] =
"int impl(int x) { return x * 3 + 1; }\n"
"int alias_b(int) __attribute__((weak, alias(\"impl\")));\n"
"int alias_a(int) __attribute__((alias(\"impl\")));\n"
"int other(int x) { return x - 5; }\n"
"static __attribute__((noinline)) int scale(int x, int k) { return x * k + (x >> 3); }\n"
"int use_scale(int x) { return scale(x, 7) + scale(x + 1, 7); }\n"
"int main(int argc, char **argv) { return impl(argc) + other(argc) + use_scale(argc); }\n";

START_TEST(test_elf_groups)
{
	const char *path = pk_fx_build("aliases", alias_src, false, "-pie");
	struct sa_aliases *a = sa_aliases_new();
	char err[256] = "";

	ck_assert_msg(sa_aliases_add_elf(a, path, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(sa_aliases_canonical(a, "impl"), "impl");
	ck_assert_str_eq(sa_aliases_canonical(a, "alias_b"), "impl");
	ck_assert_str_eq(sa_aliases_canonical(a, "alias_a"), "impl");
	ck_assert_str_eq(sa_aliases_canonical(a, "other"), "other");
	ck_assert_str_eq(sa_aliases_canonical(a, "main"), "main");
	/* GCC's clone goes by the function's name too, as probekit names it */
	ck_assert_str_eq(sa_aliases_canonical(a, "scale.constprop.0"), "scale");
	ck_assert_str_eq(sa_aliases_canonical(a, "scale"), "scale");
	sa_aliases_free(a);
}
END_TEST

START_TEST(test_elf_bad_files)
{
	struct sa_aliases *a = sa_aliases_new();
	char path[512], err[256] = "";

	snprintf(path, sizeof(path), "%s/missing", pk_fx_dir());
	ck_assert_int_eq(sa_aliases_add_elf(a, path, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "missing: No such file or directory"));
	snprintf(path, sizeof(path), "%s/text", pk_fx_dir());
	pk_fx_write_file(path, "not an ELF file\n");
	ck_assert_int_eq(sa_aliases_add_elf(a, path, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "text: not an ELF file"));
	sa_aliases_free(a);
}
END_TEST

Suite *suite_sym_aliases(void)
{
	Suite *s = suite_create("sym_aliases");
	TCase *tc;

	tc = tcase_create("kallsyms");
	tcase_add_test(tc, test_kallsyms_groups);
	tcase_add_test(tc, test_kallsyms_bad_line);
	suite_add_tcase(s, tc);

	tc = tcase_create("elf");
	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_elf_groups);
	tcase_add_test(tc, test_elf_bad_files);
	suite_add_tcase(s, tc);
	return s;
}
