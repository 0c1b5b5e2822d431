// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>

#include "lib/symtab.h"
#include "test_util.h"

static const char *name_at(const struct pk_symtab *tab, __u64 addr)
{
	const struct pk_sym *s = pk_symtab_sym(tab, pk_symtab_lookup(tab, addr));

	return s ? s->name : "(none)";
}

/* Sized symbols: f [0x1000, 0x1010), g [0x1020, 0x1030), and big
 * [0x2000, 0x2100) with nested [0x2010, 0x2020). */
static struct pk_symtab *sized(void)
{
	struct pk_symtab *tab = pk_symtab_new();

	/* Added out of order: the table sorts. */
	ck_assert_int_eq(pk_symtab_add(tab, 0x1020, 0x10, "g", PK_SYM_GLOBAL), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x2010, 0x10, "nested", PK_SYM_LOCAL), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x1000, 0x10, "f", PK_SYM_GLOBAL), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x2000, 0x100, "big", PK_SYM_GLOBAL), 0);
	ck_assert_int_eq(pk_symtab_finish(tab), 0);
	return tab;
}

START_TEST(test_exact_inside_end)
{
	struct pk_symtab *tab = sized();

	ck_assert_str_eq(name_at(tab, 0x1000), "f");	/* exact start */
	ck_assert_str_eq(name_at(tab, 0x1008), "f");	/* inside */
	ck_assert_str_eq(name_at(tab, 0x100f), "f");	/* last byte */
	ck_assert_str_eq(name_at(tab, 0x1010), "(none)");	/* past the end */
	ck_assert_str_eq(name_at(tab, 0x101f), "(none)");	/* between */
	ck_assert_str_eq(name_at(tab, 0x1020), "g");
	ck_assert_str_eq(name_at(tab, 0xfff), "(none)");	/* before all */
	ck_assert_str_eq(name_at(tab, 0), "(none)");
	ck_assert_str_eq(name_at(tab, ~0ULL), "(none)");	/* after all */
	pk_symtab_free(tab);
}
END_TEST

START_TEST(test_nested)
{
	struct pk_symtab *tab = sized();

	ck_assert_str_eq(name_at(tab, 0x2008), "big");
	ck_assert_str_eq(name_at(tab, 0x2010), "nested");
	ck_assert_str_eq(name_at(tab, 0x2020), "big");	/* past nested: back to big */
	ck_assert_str_eq(name_at(tab, 0x20ff), "big");
	ck_assert_str_eq(name_at(tab, 0x2100), "(none)");
	pk_symtab_free(tab);
}
END_TEST

START_TEST(test_unsized)
{
	struct pk_symtab *tab = pk_symtab_new();

	pk_symtab_add(tab, 0x100, 0, "a", PK_SYM_LOCAL);
	pk_symtab_add(tab, 0x200, 0, "b", PK_SYM_LOCAL);
	pk_symtab_add(tab, 0x300, 0, "", PK_SYM_MARKER);
	pk_symtab_finish(tab);
	ck_assert_str_eq(name_at(tab, 0x1ff), "a");	/* up to the next start */
	ck_assert_str_eq(name_at(tab, 0x200), "b");
	ck_assert_str_eq(name_at(tab, 0x2ff), "b");
	ck_assert_str_eq(name_at(tab, 0x300), "");	/* the marker */
	ck_assert_str_eq(name_at(tab, 0x12345678), "");	/* no limit set */
	pk_symtab_set_limit(tab, 0x400);
	ck_assert_str_eq(name_at(tab, 0x3ff), "");
	ck_assert_str_eq(name_at(tab, 0x400), "(none)");
	pk_symtab_free(tab);
}
END_TEST

START_TEST(test_ties)
{
	struct pk_symtab *tab = pk_symtab_new();

	/* One address, many names: global beats weak beats local. */
	pk_symtab_add(tab, 0x100, 0x10, "local_alias", PK_SYM_LOCAL);
	pk_symtab_add(tab, 0x100, 0x10, "weak_alias", PK_SYM_WEAK);
	pk_symtab_add(tab, 0x100, 0x10, "global_name", PK_SYM_GLOBAL);
	pk_symtab_add(tab, 0x100, 0x10, "other_local", PK_SYM_LOCAL);
	/* The sized one, then by name (independent of order). */
	pk_symtab_add(tab, 0x200, 0, "unsized", PK_SYM_GLOBAL);
	pk_symtab_add(tab, 0x200, 8, "zeta", PK_SYM_GLOBAL);
	pk_symtab_add(tab, 0x200, 8, "alpha", PK_SYM_GLOBAL);
	pk_symtab_add(tab, 0x300, 4, "weak_only", PK_SYM_WEAK);
	pk_symtab_add(tab, 0x300, 4, "local_only", PK_SYM_LOCAL);
	/* A sized symbol before a higher-ranked unsized one: only it says
	 * where the code ends (perf's first rule). */
	pk_symtab_add(tab, 0x400, 0, "unsized_global", PK_SYM_GLOBAL);
	pk_symtab_add(tab, 0x400, 4, "sized_local", PK_SYM_LOCAL);
	/* Same rank: fewer leading underscores (glibc's clone3, __clone3,
	 * __GI___clone3, all local), then the longer name (perf's
	 * __memmove_avx_unaligned_erms over __memcpy_avx_unaligned_erms). */
	pk_symtab_add(tab, 0x500, 4, "__GI___clone3", PK_SYM_LOCAL);
	pk_symtab_add(tab, 0x500, 4, "__clone3", PK_SYM_LOCAL);
	pk_symtab_add(tab, 0x500, 4, "clone3", PK_SYM_LOCAL);
	pk_symtab_add(tab, 0x600, 4, "__memcpy_avx_unaligned_erms", PK_SYM_GLOBAL);
	pk_symtab_add(tab, 0x600, 4, "__memmove_avx_unaligned_erms", PK_SYM_GLOBAL);
	pk_symtab_finish(tab);
	ck_assert_uint_eq(pk_symtab_count(tab), 6);
	ck_assert_str_eq(name_at(tab, 0x403), "sized_local");
	ck_assert_str_eq(name_at(tab, 0x404), "(none)");
	ck_assert_str_eq(name_at(tab, 0x500), "clone3");
	ck_assert_str_eq(name_at(tab, 0x600), "__memmove_avx_unaligned_erms");
	ck_assert_str_eq(name_at(tab, 0x105), "global_name");
	ck_assert_str_eq(name_at(tab, 0x200), "alpha");
	ck_assert_str_eq(name_at(tab, 0x207), "alpha");
	ck_assert_str_eq(name_at(tab, 0x208), "(none)");
	ck_assert_str_eq(name_at(tab, 0x301), "weak_only");
	pk_symtab_free(tab);
}
END_TEST

/* Sorted by address but for a tail, as kallsyms lists them (BPF programs
 * last): the tail merges in, and a name in the tail still wins a tie with
 * the head by rank. */
START_TEST(test_sorted_head_unsorted_tail)
{
	struct pk_symtab *tab = pk_symtab_new();

	ck_assert_int_eq(pk_symtab_add(tab, 0x100, 0, "h1", PK_SYM_LOCAL), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x200, 0, "h2", PK_SYM_LOCAL), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x200, 0, "h2_alias", PK_SYM_LOCAL), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x400, 0, "h4", PK_SYM_LOCAL), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x500, 0, "", PK_SYM_MARKER), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x300, 0, "t3", PK_SYM_LOCAL), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x200, 0, "t2", PK_SYM_GLOBAL), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x50, 0, "t0", PK_SYM_LOCAL), 0);
	ck_assert_int_eq(pk_symtab_add(tab, 0x600, 0, "t6", PK_SYM_LOCAL), 0);
	ck_assert_int_eq(pk_symtab_finish(tab), 0);
	ck_assert_uint_eq(pk_symtab_count(tab), 7);
	ck_assert_str_eq(name_at(tab, 0x4f), "(none)");
	ck_assert_str_eq(name_at(tab, 0x50), "t0");
	ck_assert_str_eq(name_at(tab, 0xff), "t0");
	ck_assert_str_eq(name_at(tab, 0x1ff), "h1");
	ck_assert_str_eq(name_at(tab, 0x200), "t2");
	ck_assert_str_eq(name_at(tab, 0x2ff), "t2");
	ck_assert_str_eq(name_at(tab, 0x300), "t3");
	ck_assert_str_eq(name_at(tab, 0x3ff), "t3");
	ck_assert_str_eq(name_at(tab, 0x4ff), "h4");
	ck_assert_str_eq(name_at(tab, 0x500), "");
	ck_assert_str_eq(name_at(tab, 0x600), "t6");
	for (long i = 1; i < 7; i++)
		ck_assert_uint_lt(pk_symtab_sym(tab, i - 1)->addr, pk_symtab_sym(tab, i)->addr);
	pk_symtab_free(tab);
}
END_TEST

START_TEST(test_empty_and_unfinished)
{
	struct pk_symtab *tab = pk_symtab_new();

	ck_assert_int_eq(pk_symtab_lookup(tab, 0x100), -1);
	pk_symtab_add(tab, 0x100, 1, "x", PK_SYM_GLOBAL);
	/* Not finished: no lookups on an unsorted table. */
	ck_assert_int_eq(pk_symtab_lookup(tab, 0x100), -1);
	pk_symtab_finish(tab);
	ck_assert_str_eq(name_at(tab, 0x100), "x");
	ck_assert_ptr_eq(pk_symtab_sym(tab, 1), NULL);
	ck_assert_ptr_eq(pk_symtab_sym(tab, -1), NULL);
	pk_symtab_free(tab);
}
END_TEST

START_TEST(test_many)
{
	struct pk_symtab *tab = pk_symtab_new();
	char name[32];

	for (int i = 9999; i >= 0; i--) {
		snprintf(name, sizeof(name), "fn%d", i);
		pk_symtab_add(tab, 0x10000 + 0x40 * (__u64)i, 0x20, name, PK_SYM_GLOBAL);
	}
	pk_symtab_finish(tab);
	for (int i = 0; i < 10000; i += 37) {
		snprintf(name, sizeof(name), "fn%d", i);
		ck_assert_str_eq(name_at(tab, 0x10000 + 0x40 * (__u64)i + 0x1f), name);
		ck_assert_str_eq(name_at(tab, 0x10000 + 0x40 * (__u64)i + 0x20), "(none)");
	}
	pk_symtab_free(tab);
}
END_TEST

/* The arrays of symbols (256 first, doubled) and of module names (1
 * first, doubled) at the edges of their growth: empty, one, exactly full,
 * one more, a power of two. Every symbol found, of its module. */
START_TEST(test_growth_edges)
{
	static const unsigned syms[] = { 0, 1, 255, 256, 257, 512, 513 };
	static const unsigned mods[] = { 0, 1, 2, 3, 4, 5, 8, 9 };
	char name[32], mod[32];

	for (size_t a = 0; a < sizeof(syms) / sizeof(syms[0]); a++)
		for (size_t b = 0; b < sizeof(mods) / sizeof(mods[0]); b++) {
			unsigned n = syms[a], m = mods[b];
			struct pk_symtab *tab = pk_symtab_new();

			ck_assert_ptr_nonnull(tab);
			/* symbol i in module i % m (none when m is 0) */
			for (unsigned i = 0; i < n; i++) {
				snprintf(name, sizeof(name), "fn%u", i);
				snprintf(mod, sizeof(mod), "mod%u", m ? i % m : 0);
				ck_assert_int_eq(pk_symtab_add_in(tab, 0x1000 + 0x10 * (__u64)i, 0x10,
								  name, PK_SYM_GLOBAL,
								  m ? mod : NULL), 0);
			}
			ck_assert_int_eq(pk_symtab_finish(tab), 0);
			ck_assert_uint_eq(pk_symtab_count(tab), n);
			for (unsigned i = 0; i < n; i++) {
				const struct pk_sym *s;

				s = pk_symtab_sym(tab, pk_symtab_lookup(tab, 0x1000 + 0x10 * (__u64)i + 0xf));
				snprintf(name, sizeof(name), "fn%u", i);
				ck_assert_ptr_nonnull(s);
				ck_assert_str_eq(s->name, name);
				if (!m) {
					ck_assert_ptr_null(pk_symtab_module(tab, s));
					continue;
				}
				snprintf(mod, sizeof(mod), "mod%u", i % m);
				ck_assert_str_eq(pk_symtab_module(tab, s), mod);
			}
			ck_assert_str_eq(name_at(tab, 0x1000 + 0x10 * (__u64)n), "(none)");
			pk_symtab_free(tab);
		}
}
END_TEST

Suite *suite_symtab(void)
{
	Suite *s = suite_create("symtab");
	TCase *tc = tcase_create("lookup");

	tcase_add_test(tc, test_exact_inside_end);
	tcase_add_test(tc, test_nested);
	tcase_add_test(tc, test_unsized);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_sorted_head_unsorted_tail);
	tcase_add_test(tc, test_empty_and_unfinished);
	tcase_add_test(tc, test_growth_edges);
	suite_add_tcase(s, tc);
	tc = tcase_create("ties");
	tcase_add_test(tc, test_ties);
	suite_add_tcase(s, tc);
	return s;
}
