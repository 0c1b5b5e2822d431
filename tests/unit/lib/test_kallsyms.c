// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/kallsyms.h"
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
	const char *mod;

	ck_assert_ptr_nonnull(tab);
	/* Two globals at one address: fewer leading underscores, as perf
	 * picks, whatever the order of the lines. */
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000000, NULL), "startup_64");
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff810000ff, NULL), "startup_64");
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000100, NULL), "local_helper");
	/* Global wins over a local alias at the same address. */
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000234, NULL), "do_syscall_64");
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000300, NULL), "weak_fn");
	/* _etext is a text symbol too; what follows it up to data is its. */
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000400, NULL), "_etext");
	/* Data symbols end the text before them and name nothing. */
	ck_assert_ptr_eq(pk_kallsyms_lookup(tab, 0xffffffff82000000, NULL), NULL);
	ck_assert_ptr_eq(pk_kallsyms_lookup(tab, 0xffffffff82000180, NULL), NULL);
	ck_assert_ptr_eq(pk_kallsyms_lookup(tab, 0xffffffff80ffffff, NULL), NULL);
	/* Module symbols: the name without the module, which comes apart. */
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffffc0a01010, &mod), "nf_hook_fn");
	ck_assert_str_eq(mod, "nf_tables");
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffffc0a01fff, &mod), "other_mod_fn");
	ck_assert_str_eq(mod, "xfs");
	ck_assert_ptr_eq(pk_kallsyms_lookup(tab, 0xffffffffc0a02000, &mod), NULL);
	ck_assert_ptr_null(mod);
	ck_assert_str_eq(pk_kallsyms_lookup(tab, 0xffffffff81000100, &mod), "local_helper");
	ck_assert_ptr_null(mod);
	pk_symtab_free(tab);
}
END_TEST

/* A function's range runs to the next symbol at a higher address: an alias
 * at its own address does not end it, a data symbol does. */
START_TEST(test_range)
{
	struct pk_symtab *tab = parse(KALLSYMS);
	__u64 lo = 0, hi = 0;

	ck_assert_ptr_nonnull(tab);
	ck_assert_int_eq(pk_kallsyms_range(tab, "local_helper", &lo, &hi), 0);
	ck_assert_uint_eq(lo, 0xffffffff81000100);
	ck_assert_uint_eq(hi, 0xffffffff81000200);
	ck_assert_int_eq(pk_kallsyms_range(tab, "startup_64", &lo, &hi), 0);
	ck_assert_uint_eq(lo, 0xffffffff81000000);
	ck_assert_uint_eq(hi, 0xffffffff81000100);
	ck_assert_int_eq(pk_kallsyms_range(tab, "_etext", &lo, &hi), 0);
	ck_assert_uint_eq(hi, 0xffffffff82000000);
	ck_assert_int_eq(pk_kallsyms_range(tab, "other_mod_fn", &lo, &hi), 0);
	ck_assert_uint_eq(lo, 0xffffffffc0a01080);
	ck_assert_uint_eq(hi, 0xffffffffc0a02000);
	ck_assert_int_eq(pk_kallsyms_range(tab, "no_such_fn", &lo, &hi), -ENOENT);
	/* data symbols are markers without their names: not functions */
	ck_assert_int_eq(pk_kallsyms_range(tab, "some_data", &lo, &hi), -ENOENT);
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
	ck_assert_ptr_eq(pk_kallsyms_lookup(tab, 0xffffffff81000000, NULL), NULL);
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
		"ffffffff81000000 t fn\t[]\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ck_assert_msg(parse(bad[i]) == NULL, "accepted: %s", bad[i]);
		ck_assert_int_eq(errno, EBADMSG);
	}
}
END_TEST

/* kallsyms as it is with modules and BPF programs loaded: modules after
 * vmlinux, BPF programs, trampolines and dispatchers at the end (not in
 * address order), ftrace's trampolines as a module of their own. */
static const char KALLSYMS_MODULES[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000f00 T last_vmlinux_fn\n"
	"ffffffffc0a01000 t nf_hook_fn\t[nf_tables]\n"
	"ffffffffc0a01080 T nft_do_chain\t[nf_tables]\n"
	"ffffffffc0a05000 t xfs_fn\t[xfs]\n"
	"ffffffffc0a05100 d xfs_data\t[xfs]\n"
	"ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	"ffffffffc0022114 t bpf_prog_59f4a931744dcdc6_h4_sock\t[bpf]\n"
	"ffffffffc0022200 t bpf_prog_0123456789abcdef_other\t[bpf]\n"
	"ffffffffc0024000 t bpf_trampoline_6442451234\t[bpf]\n"
	"ffffffffc0026000 t bpf_dispatcher_xdp\t[bpf]\n";

static void want(const struct pk_symtab *tab, __u64 addr, const char *name, const char *module)
{
	const char *mod = "unset", *got = pk_kallsyms_lookup(tab, addr, &mod);

	if (!name) {
		ck_assert_msg(!got && !mod, "%llx: want nothing, got %s [%s]",
			      (unsigned long long)addr, got, mod);
		return;
	}
	ck_assert_msg(got && strcmp(got, name) == 0, "%llx: want %s, got %s",
		      (unsigned long long)addr, name, got ? got : "(null)");
	if (module)
		ck_assert_msg(mod && strcmp(mod, module) == 0, "%llx: want [%s], got [%s]",
			      (unsigned long long)addr, module, mod ? mod : "(null)");
	else
		ck_assert_msg(!mod, "%llx: want vmlinux, got [%s]", (unsigned long long)addr, mod);
}

START_TEST(test_modules_and_bpf)
{
	struct pk_symtab *tab = parse(KALLSYMS_MODULES);
	const char *m1 = NULL, *m2 = NULL;

	ck_assert_ptr_nonnull(tab);
	want(tab, 0xffffffff81000010, "_stext", NULL);
	want(tab, 0xffffffffc0a01010, "nf_hook_fn", "nf_tables");
	want(tab, 0xffffffffc0a01080, "nft_do_chain", "nf_tables");
	want(tab, 0xffffffffc0a05010, "xfs_fn", "xfs");
	want(tab, 0xffffffffc0a05100, NULL, NULL);	/* module data */
	want(tab, 0xffffffffc0201010, "ftrace_trampoline", "__builtin__ftrace");
	want(tab, 0xffffffffc0022114, "bpf_prog_59f4a931744dcdc6_h4_sock", "bpf");
	want(tab, 0xffffffffc00221ff, "bpf_prog_59f4a931744dcdc6_h4_sock", "bpf");
	want(tab, 0xffffffffc0022200, "bpf_prog_0123456789abcdef_other", "bpf");
	want(tab, 0xffffffffc0024010, "bpf_trampoline_6442451234", "bpf");
	want(tab, 0xffffffffc0026010, "bpf_dispatcher_xdp", "bpf");
	want(tab, 0xffffffffc0022000, NULL, NULL);	/* before the first */
	/* One copy of each module's name. */
	pk_kallsyms_lookup(tab, 0xffffffffc0a01010, &m1);
	pk_kallsyms_lookup(tab, 0xffffffffc0a01080, &m2);
	ck_assert_ptr_eq(m1, m2);
	pk_symtab_free(tab);
}
END_TEST

/* perf's end for a symbol that the next one of its module does not end:
 * roundup(start + 4096, 4096), or the next symbol if that comes first. */
START_TEST(test_module_ends)
{
	struct pk_symtab *tab = parse(KALLSYMS_MODULES);

	ck_assert_ptr_nonnull(tab);
	/* vmlinux's last, before a module: 0xffffffff81000f00 + 4096, up */
	want(tab, 0xffffffff81001fff, "last_vmlinux_fn", NULL);
	want(tab, 0xffffffff81002000, NULL, NULL);
	/* nf_tables' last, before xfs */
	want(tab, 0xffffffffc0a02fff, "nft_do_chain", "nf_tables");
	want(tab, 0xffffffffc0a03000, NULL, NULL);
	want(tab, 0xffffffffc0a04fff, NULL, NULL);
	/* a module's first one ends at the next of its own, however far */
	want(tab, 0xffffffffc0a0107f, "nf_hook_fn", "nf_tables");
	want(tab, 0xffffffffc0023fff, "bpf_prog_0123456789abcdef_other", "bpf");
	/* the last BPF symbol, page-aligned: one page */
	want(tab, 0xffffffffc0026fff, "bpf_dispatcher_xdp", "bpf");
	want(tab, 0xffffffffc0027000, NULL, NULL);
	/* ftrace's, before nf_tables */
	want(tab, 0xffffffffc0201fff, "ftrace_trampoline", "__builtin__ftrace");
	want(tab, 0xffffffffc0202000, NULL, NULL);
	pk_symtab_free(tab);
}
END_TEST

/* The last symbol of all ends too, and the next one ends it first when it
 * is nearer than the page. */
START_TEST(test_last_symbol_end)
{
	struct pk_symtab *tab = parse("ffffffff81000010 T a\n"
				      "ffffffffc0000010 t b\t[m]\n"
				      "ffffffffc0000020 t c\t[n]\n");

	ck_assert_ptr_nonnull(tab);
	want(tab, 0xffffffff81001fff, "a", NULL);
	want(tab, 0xffffffff81002000, NULL, NULL);
	want(tab, 0xffffffffc000001f, "b", "m");
	want(tab, 0xffffffffc0001fff, "c", "n");
	want(tab, 0xffffffffc0002000, NULL, NULL);
	want(tab, ~0ULL, NULL, NULL);
	pk_symtab_free(tab);
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
		ck_assert_str_eq(pk_kallsyms_lookup(tab, addr, NULL), "schedule");
		ck_assert_str_eq(pk_kallsyms_lookup(tab, addr + 1, NULL), "schedule");
	}
	pk_symtab_free(tab);
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every module symbol in /proc/kallsyms against the table read from it: a
 * symbol at its address, of its module. A BPF program is loaded first so
 * that there is one of "bpf": found by the name the kernel gives it, at
 * the address of its image (another make check beside this one loads a
 * program of the same name and tag). Other programs come and go meanwhile
 * (other tests load theirs): only lines listed both before and after the
 * table was read are checked. */
START_TEST(test_real_modules_and_bpf)
{
	static const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	__u64 image = 0;
	struct bpf_prog_info info = { .nr_jited_ksyms = 1, .jited_ksyms = (__u64)(uintptr_t)&image };
	__u32 info_len = sizeof(info);
	char want_prog[64], *before, *text, *p, *line, **lines = NULL;
	size_t checked = 0, progs = 0, nlines = 0;
	struct pk_symtab *tab;
	int fd, n;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "pk_ksyms_test", "GPL", ret0, 2, NULL);
	ck_assert_msg(fd >= 0, "bpf_prog_load: %s", strerror(errno));
	ck_assert_int_eq(bpf_obj_get_info_by_fd(fd, &info, &info_len), 0);
	n = snprintf(want_prog, sizeof(want_prog), "bpf_prog_");
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		n += snprintf(want_prog + n, sizeof(want_prog) - n, "%02x", info.tag[i]);
	snprintf(want_prog + n, sizeof(want_prog) - n, "_pk_ksyms_test");
	before = pk_test_read_file("/proc/kallsyms", NULL);
	tab = pk_kallsyms_load(NULL);
	text = pk_test_read_file("/proc/kallsyms", NULL);
	ck_assert_ptr_nonnull(before);
	ck_assert_ptr_nonnull(tab);
	ck_assert_ptr_nonnull(text);
	for (p = before; (line = strsep(&p, "\n"));) {
		lines = pk_test_grow(lines, nlines, sizeof(*lines));
		ck_assert_ptr_nonnull(lines);
		lines[nlines++] = line;
	}
	qsort(lines, nlines, sizeof(*lines), cmp_str);
	for (p = text; (line = strsep(&p, "\n"));) {
		unsigned long long addr;
		char type, name[256], mod[128];
		const struct pk_sym *sym;
		const char *got_mod, *got;

		if (sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod) != 4 ||
		    (type != 't' && type != 'T') ||
		    !bsearch(&line, lines, nlines, sizeof(*lines), cmp_str))
			continue;
		got = pk_kallsyms_lookup(tab, addr, &got_mod);
		sym = pk_symtab_sym(tab, pk_symtab_lookup(tab, addr));
		ck_assert_msg(got && sym && sym->addr == addr, "%s [%s] at %llx: got %s", name,
			      mod, addr, got ? got : "(null)");
		ck_assert_msg(got_mod && strcmp(got_mod, mod) == 0, "%s [%s]: got [%s]", name, mod,
			      got_mod ? got_mod : "(null)");
		checked++;
		if (strcmp(name, want_prog) == 0 && addr == image) {
			ck_assert_str_eq(got, want_prog);
			ck_assert_str_eq(got_mod, "bpf");
			ck_assert_str_eq(pk_kallsyms_lookup(tab, addr + 1, NULL), want_prog);
			progs++;
		}
	}
	ck_assert_msg(progs == 1, "%s: %zu times in /proc/kallsyms at %llx", want_prog, progs,
		      (unsigned long long)image);
	ck_assert_uint_ge(checked, 1);
	free(lines);
	free(before);
	free(text);
	pk_symtab_free(tab);
	close(fd);
}
END_TEST

Suite *suite_kallsyms(void)
{
	Suite *s = suite_create("kallsyms");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_lookup);
	tcase_add_test(tc, test_range);
	tcase_add_test(tc, test_hidden_addresses);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_modules_and_bpf);
	tcase_add_test(tc, test_module_ends);
	tcase_add_test(tc, test_last_symbol_end);
	suite_add_tcase(s, tc);
	tc = tcase_create("real");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_real_kallsyms);
	suite_add_tcase(s, tc);
	if (pk_test_need_root(s, "loading a BPF program needs root")) {
		tc = tcase_create("real_bpf");
		tcase_set_timeout(tc, 30);
		tcase_add_test(tc, test_real_modules_and_bpf);
		suite_add_tcase(s, tc);
	}
	return s;
}
