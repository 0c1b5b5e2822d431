// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kallsyms.h"
#include "test_util.h"

static struct pk_symtab *parse(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct pk_symtab *tab;

	ck_assert_ptr_nonnull(f);
	tab = pk_kallsyms_parse(f);
	fclose(f);
	return tab;
}

static const char KALLSYMS[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t local_helper\n"
	"ffffffff81000200 T do_syscall_64\n"
	"ffffffff81000200 t do_syscall_64_alias\n"
	"ffffffff81000300 W weak_fn\n"
	"ffffffff81000400 T _etext\n"
	"ffffffff82000000 D some_data\n"
	"ffffffff82000100 b bss_thing\n"
	"ffffffffc0a01000 t nf_hook_fn\t[nf_tables]\n"
	"ffffffffc0a01080 t other_mod_fn\t[xfs]\n"
	"ffffffffc0a02000 d mod_data\t[xfs]\n";

START_TEST(test_lookup)
{
	struct pk_symtab *tab = parse(KALLSYMS);

	ck_assert_ptr_nonnull(tab);
	/* Two globals at one address: the first by name, whatever the order
	 * of the lines. */
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000000), "_stext");
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff810000ff), "_stext");
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000100), "local_helper");
	/* Global wins over a local alias at the same address. */
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000234), "do_syscall_64");
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000300), "weak_fn");
	/* _etext is a text symbol too; what follows it up to data is its. */
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000400), "_etext");
	/* Data symbols end the text before them and name nothing. */
	ck_assert_ptr_eq(pk_kallsyms_lookup(tab, 0xffffffff82000000), NULL);
	ck_assert_ptr_eq(pk_kallsyms_lookup(tab, 0xffffffff82000180), NULL);
	ck_assert_ptr_eq(pk_kallsyms_lookup(tab, 0xffffffff80ffffff), NULL);
	/* Module symbols, named without the module. */
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffffc0a01010), "nf_hook_fn");
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffffc0a01fff), "other_mod_fn");
	ck_assert_ptr_eq(pk_kallsyms_lookup(tab, 0xffffffffc0a02000), NULL);
	pk_symtab_free(tab);
}
END_TEST

/* kptr_restrict: every address reads as 0; nothing can be named. */
START_TEST(test_hidden_addresses)
{
	struct pk_symtab *tab = parse(
		"0000000000000000 T _stext\n"
		"0000000000000000 T do_syscall_64\n"
		"0000000000000000 t fn\t[mod]\n");

	ck_assert_ptr_nonnull(tab);
	ck_assert_uint_eq(pk_symtab_count(tab), 0);
	ck_assert_ptr_eq(pk_kallsyms_lookup(tab, 0xffffffff81000000), NULL);
	pk_symtab_free(tab);
}
END_TEST

START_TEST(test_malformed)
{
	static const char *const bad[] = {
		"ffffffff81000000\n",
		"ffffffff81000000 T\n",
		"ffffffff81000000 TT name\n",
		"zzzz T name\n",
		"ffffffff81000000 T fn\t[unterminated\n",
		"ffffffff81000000  T name\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ck_assert_msg(parse(bad[i]) == NULL, "accepted: %s", bad[i]);
		ck_assert_int_eq(errno, EBADMSG);
	}
}
END_TEST

/* The real file: as root the addresses are visible, and a well-known
 * function is found at the address kallsyms gives. */
START_TEST(test_real_kallsyms)
{
	struct pk_symtab *tab = pk_kallsyms_load(NULL);
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long addr = 0;

	ck_assert_ptr_nonnull(tab);
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    strcmp(name, "schedule") == 0)
			break;
	fclose(f);
	if (addr == 0) {
		/* Not root or kptr_restrict: everything hidden. */
		ck_assert_uint_eq(pk_symtab_count(tab), 0);
	} else {
		ck_assert_str_eq(pk_kallsyms_lookup(tab, addr), "schedule");
		ck_assert_str_eq(pk_kallsyms_lookup(tab, addr + 1), "schedule");
	}
	pk_symtab_free(tab);
}
END_TEST

Suite *suite_kallsyms(void)
{
	Suite *s = suite_create("kallsyms");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_lookup);
	tcase_add_test(tc, test_hidden_addresses);
	tcase_add_test(tc, test_malformed);
	suite_add_tcase(s, tc);
	tc = tcase_create("real");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_real_kallsyms);
	suite_add_tcase(s, tc);
	return s;
}
