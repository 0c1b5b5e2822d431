// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel's symbols kept for later readers: lib/kallsyms.h's saved table
 * read back exactly as parsed (every lookup the same), refused when damaged
 * or another's; and symbolization/kernel_syms.h through the symbolizer,
 * whose names for the running kernel from a table an earlier symbolizer
 * saved must be those of a symbolizer that reads /proc/kallsyms (the
 * oracle).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/elf_fixture.h"
#include "lib/kallsyms.h"
#include "symbolization/symbolizer.h"
#include "test_util.h"

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T do_syscall_64\n"
	"ffffffff81000100 t __do_syscall_64_alias\n"
	"ffffffff81000200 t helper\n"
	"ffffffff81000400 T _etext\n"
	"ffffffff82000000 D data\n"
	"ffffffffc0010000 t nft_do_chain\t[nf_tables]\n"
	"ffffffffc0020000 t bpf_prog_59f4a931744dcdc6_on_cpu\t[bpf]\n"
	"ffffffffc0020100 t helper\t[nf_tables]\n";

static struct pk_symtab *parse_text(void)
{
	FILE *f = fmemopen((void *)kallsyms_text, sizeof(kallsyms_text) - 1, "r");
	struct pk_symtab *tab;

	ck_assert_ptr_nonnull(f);
	tab = pk_kallsyms_parse(f);
	fclose(f);
	ck_assert_ptr_nonnull(tab);
	return tab;
}

/* Every address from below the first symbol to past the last, in steps of
 * 0x10: the same name and module in both. */
static void same_lookups(const struct pk_symtab *a, const struct pk_symtab *b)
{
	ck_assert_uint_eq(pk_symtab_count(a), pk_symtab_count(b));
	static const __u64 spans[][2] = {
		{ 0xffffffff80ffff00ULL, 0xffffffff81000600ULL },
		{ 0xffffffff81fff000ULL, 0xffffffff82001000ULL },
		{ 0xffffffffc000ff00ULL, 0xffffffffc0020300ULL },
	};

	for (size_t i = 0; i < 3; i++)
		for (__u64 addr = spans[i][0]; addr < spans[i][1]; addr += 0x10) {
		const char *ma, *mb, *na = pk_kallsyms_lookup(a, addr, &ma),
			   *nb = pk_kallsyms_lookup(b, addr, &mb);

		ck_assert_msg(!na == !nb && (!na || !strcmp(na, nb)), "at %llx: %s and %s",
			      (unsigned long long)addr, na, nb);
		ck_assert(!ma == !mb && (!ma || !strcmp(ma, mb)));
		}
}

START_TEST(test_saved_read_back)
{
	char path[512];
	struct pk_symtab *tab = parse_text(), *back;

	snprintf(path, sizeof(path), "%s/kernel/boot.syms", pk_fx_dir());
	ck_assert_int_eq(pk_kallsyms_save(tab, path, 42), 0);
	back = pk_kallsyms_load_saved(path, 42);
	ck_assert_ptr_nonnull(back);
	same_lookups(tab, back);
	pk_symtab_free(back);
	/* another boot's or build's */
	errno = 0;
	ck_assert_ptr_null(pk_kallsyms_load_saved(path, 43));
	ck_assert_int_eq(errno, ESTALE);
	snprintf(path, sizeof(path), "%s/kernel/none.syms", pk_fx_dir());
	ck_assert_ptr_null(pk_kallsyms_load_saved(path, 42));
	ck_assert_int_eq(errno, ENOENT);
	pk_symtab_free(tab);
}
END_TEST

/* Every byte changed, every length cut: refused, never a table. */
START_TEST(test_saved_damaged)
{
	char path[512];
	struct pk_symtab *tab = parse_text(), *back;
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/k.syms", pk_fx_dir());
	ck_assert_int_eq(pk_kallsyms_save(tab, path, 7), 0);
	buf = pk_test_read_file(path, &len);
	ck_assert_ptr_nonnull(buf);
	back = pk_kallsyms_parse_saved(buf, len, 7);
	ck_assert_ptr_nonnull(back);
	pk_symtab_free(back);
	for (size_t i = 0; i < len; i++) {
		ck_assert_ptr_null(pk_kallsyms_parse_saved(buf, i, 7));
		buf[i] ^= 0x20;
		back = pk_kallsyms_parse_saved(buf, len, 7);
		/* the signature is not in the checksum: a changed one is
		 * another's, refused all the same */
		ck_assert_msg(!back, "byte %zu changed, yet taken", i);
		buf[i] ^= 0x20;
	}
	free(buf);
	pk_symtab_free(tab);
}
END_TEST

/* The running kernel's text symbols, from the saved table as kallsyms
 * names them; BPF programs' and what lies outside vmlinux's text (first
 * function to a page past its last) and the modules, from kallsyms
 * itself. */
START_TEST(test_kernel_answers)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], mod[256], path[1200];
	unsigned long long addrs[80], lo = ~0ULL, hi = 0;
	int n = 0, outside = 0;
	const char *fresh[80];
	struct pk_symbolizer_stats st;
	struct pk_symbolizer *sym[3];
	bool in_mod[80];

	ck_assert_ptr_nonnull(f);
	/* every 1500th text symbol, vmlinux and modules alike */
	for (int i = 0; n < 80 && fgets(line, sizeof(line), f); i++) {
		char type;
		unsigned long long a;
		int k = sscanf(line, "%llx %c %255s [%255[^]]]", &a, &type, name, mod);

		/* vmlinux's text: from its first function to its last */
		if (k == 3 && strchr("tTwW", type) && a) {
			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
		}
		if (k >= 3 && (type == 't' || type == 'T') && a && i % 1500 == 0) {
			in_mod[n] = k == 4 && strcmp(mod, "bpf") && strncmp(mod, "__builtin", 9);
			addrs[n++] = a;
		}
	}
	fclose(f);
	ck_assert_int_ge(n, 20);
	ck_assert(hi > lo);
	sym[0] = pk_fx_symbolizer(false);
	sym[1] = pk_fx_symbolizer(true);
	for (int i = 0; i < n; i++) {
		fresh[i] = pk_symbolizer_kernel(sym[0], addrs[i] + 1);
		ck_assert_str_ne(fresh[i], "[unknown]");
		ck_assert_str_eq(pk_symbolizer_kernel(sym[1], addrs[i] + 1), fresh[i]);
		outside += !in_mod[i] && (addrs[i] + 1 < lo || addrs[i] + 1 >= hi + 4096);
	}
	pk_symbolizer_stats(sym[1], &st);
	ck_assert_uint_eq(st.cached, 0);
	pk_symbolizer_free(sym[1]);
	/* kept by the first */
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	snprintf(path, sizeof(path), "%s/cache/kernel/%s.syms", pk_fx_dir(), line);
	ck_assert_int_eq(access(path, R_OK), 0);
	sym[2] = pk_fx_symbolizer(true);
	for (int i = 0; i < n; i++)
		ck_assert_str_eq(pk_symbolizer_kernel(sym[2], addrs[i] + 1), fresh[i]);
	pk_symbolizer_stats(sym[2], &st);
	ck_assert_uint_eq(st.lookups, n);
	ck_assert_uint_eq(st.cached, n - outside);
	pk_symbolizer_free(sym[2]);
	pk_symbolizer_free(sym[0]);
}
END_TEST

Suite *suite_kernel_syms(void)
{
	Suite *s = suite_create("kernel_syms");
	TCase *tc = tcase_create("saved");

	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_add_test(tc, test_saved_read_back);
	tcase_add_test(tc, test_saved_damaged);
	suite_add_tcase(s, tc);
	/* kallsyms gives addresses to root only */
	if (pk_test_need_root(s, "kallsyms addresses")) {
		tc = tcase_create("symbolizer");
		tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
		tcase_set_timeout(tc, 60);
		tcase_add_test(tc, test_kernel_answers);
		suite_add_tcase(s, tc);
	}
	return s;
}
