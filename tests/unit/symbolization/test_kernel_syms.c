// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel's symbols kept for later readers: lib/kallsyms.h's saved table
 * read back exactly as parsed (every lookup the same), refused when damaged
 * or another's; and symbolization/kernel_syms.h through the symbolizer,
 * whose names for the running kernel from a table an earlier symbolizer
 * saved must be those of a symbolizer that reads /proc/kallsyms (the
 * oracle). The modules, which this host's kernel has none of, on a fake
 * /proc (kernel_syms.h's ROOT): 0 to 128 of them, loaded and unloaded
 * between readers, hidden by kptr_restrict, of another boot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/elf_fixture.h"
#include "lib/kallsyms.h"
#include "symbolization/kernel_syms.h"
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

/* --- modules, on a fake /proc (kernel_syms.h's ROOT) ----------------------- */

/*
 * The kernel of a fake /proc: vmlinux's text, the modules FIRST .. FIRST +
 * N - 1 (module i at MOD_BASE + i * MOD_STRIDE, its functions mod<i>_read
 * and helper) and a BPF program past them all, in kallsyms and in modules
 * as the kernel lists them; HIDDEN: every address 0 (kptr_restrict).
 */
#define MOD_BASE	0xffffffffc0000000ULL
#define MOD_STRIDE	0x10000ULL
#define MOD_SIZE	0x8000ULL
#define BPF_PROG	0xffffffffd0000000ULL
#define BOOT_A		"0f6c1c2e-7f3a-4c36-9a8e-5b1e0c2d3f41"
#define BOOT_B		"9d2a4b71-1c0e-4e8f-8b3a-2f6d5c4e3a10"

static void fake_kernel(unsigned first, unsigned n, bool hidden, const char *boot)
{
	size_t cap = 4096 + 160 * (size_t)n, klen = 0, mlen = 0;
	char *ksyms = malloc(cap), *mods = malloc(cap), path[512];

	ck_assert(ksyms && mods);
#define ADDR(a) (hidden ? 0ULL : (unsigned long long)(a))
	klen += snprintf(ksyms + klen, cap - klen,
			 "%016llx T _stext\n%016llx T do_syscall_64\n%016llx t vfs_read\n"
			 "%016llx T _etext\n",
			 ADDR(0xffffffff81000000ULL), ADDR(0xffffffff81000100ULL),
			 ADDR(0xffffffff81000200ULL), ADDR(0xffffffff81000400ULL));
	mods[0] = '\0';
	for (unsigned i = first; i < first + n; i++) {
		unsigned long long base = MOD_BASE + i * MOD_STRIDE;

		klen += snprintf(ksyms + klen, cap - klen,
				 "%016llx t mod%03u_read\t[mod%03u]\n%016llx t helper\t[mod%03u]\n",
				 ADDR(base), i, i, ADDR(base + 0x100), i);
		/* the newest first, a taint after the address as the kernel's */
		mlen += snprintf(mods + mlen, cap - mlen, "mod%03u %llu 0 - Live 0x%016llx%s\n",
				 i, MOD_SIZE, ADDR(base), i % 2 ? " (OE)" : "");
	}
	klen += snprintf(ksyms + klen, cap - klen,
			 "%016llx t bpf_prog_59f4a931744dcdc6_on_cpu\t[bpf]\n", ADDR(BPF_PROG));
#undef ADDR
	ck_assert_uint_lt(klen, cap);
	snprintf(path, sizeof(path), "%s/kroot/sys/kernel/random", pk_fx_dir());
	if (access(path, F_OK)) {
		char *argv[] = { "mkdir", "-p", path, NULL };

		pk_fx_run_ok(argv, NULL);
	}
	snprintf(path, sizeof(path), "%s/kroot/sys/kernel/random/boot_id", pk_fx_dir());
	pk_fx_write_file(path, boot);
	snprintf(path, sizeof(path), "%s/kroot/kallsyms", pk_fx_dir());
	pk_fx_write_file(path, ksyms);
	snprintf(path, sizeof(path), "%s/kroot/modules", pk_fx_dir());
	pk_fx_write_file(path, mods);
	free(ksyms);
	free(mods);
}

static struct pk_kernel_syms *fake_reader(const char *cache)
{
	char root[512], dir[512];
	struct pk_kernel_syms *k;

	snprintf(root, sizeof(root), "%s/kroot", pk_fx_dir());
	snprintf(dir, sizeof(dir), "%s/%s", pk_fx_dir(), cache);
	k = pk_kernel_syms_new(root, dir);
	ck_assert_ptr_nonnull(k);
	return k;
}

/* ADDR named WANT (NULL: nothing) of MODULE (NULL: vmlinux) starting at
 * START, answered by the saved table when SAVED. */
static void want_sym(struct pk_kernel_syms *k, __u64 addr, const char *want, const char *module,
		     __u64 start, bool saved)
{
	const char *name, *mod;
	bool was_saved;
	__u64 at;

	name = pk_kernel_syms_lookup(k, addr, &at, &mod, &was_saved);
	ck_assert_msg(!name == !want && (!name || !strcmp(name, want)), "%llx: %s, not %s",
		      (unsigned long long)addr, name, want);
	ck_assert_msg(!mod == !module && (!mod || !strcmp(mod, module)), "%llx: [%s], not [%s]",
		      (unsigned long long)addr, mod, module);
	ck_assert_msg(was_saved == saved, "%llx: saved %d, not %d", (unsigned long long)addr,
		      was_saved, saved);
	ck_assert_uint_eq(at, want ? start : 0);
}

/* Every function of the fake kernel of modules FIRST .. FIRST + N - 1,
 * from the saved table when SAVED (the BPF program never). */
static void want_kernel(struct pk_kernel_syms *k, unsigned first, unsigned n, bool saved)
{
	char name[32], module[32];

	want_sym(k, 0xffffffff81000210ULL, "vfs_read", NULL, 0xffffffff81000200ULL, saved);
	for (unsigned i = first; i < first + n; i++) {
		__u64 base = MOD_BASE + i * MOD_STRIDE;

		snprintf(name, sizeof(name), "mod%03u_read", i);
		snprintf(module, sizeof(module), "mod%03u", i);
		want_sym(k, base + 0x10, name, module, base, saved);
		want_sym(k, base + 0x150, "helper", module, base + 0x100, saved);
	}
	want_sym(k, BPF_PROG + 0x10, "bpf_prog_59f4a931744dcdc6_on_cpu", "bpf", BPF_PROG, false);
}

/* A reader of CACHE on the fake kernel (want_kernel). */
static void read_fake(const char *cache, unsigned first, unsigned n, bool saved)
{
	struct pk_kernel_syms *k = fake_reader(cache);

	want_kernel(k, first, n, saved);
	pk_kernel_syms_free(k);
}

static bool kept(const char *cache, const char *boot)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/kernel/%s.syms", pk_fx_dir(), cache, boot);
	return access(path, F_OK) == 0;
}

/* The saved table's ranges (one per module, then vmlinux's) at the edges
 * of their array's growth (16, doubled): the second reader of a boot with
 * 16, 32, 64 or 128 modules wrote vmlinux's range past its end. */
START_TEST(test_module_counts)
{
	static const unsigned counts[] = { 0, 1, 15, 16, 17, 31, 32, 33, 64, 128 };

	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		unsigned n = counts[c];
		char cache[32];

		snprintf(cache, sizeof(cache), "cache-%u", n);
		fake_kernel(0, n, false, BOOT_A);
		read_fake(cache, 0, n, false);
		ck_assert(kept(cache, BOOT_A));
		/* the next two readers of the boot: the saved table */
		for (int r = 0; r < 2; r++)
			read_fake(cache, 0, n, true);
	}
}
END_TEST

/* A module loaded, then one unloaded, between two readers: the saved table
 * is another set of modules' (never answers, so never names the gone one),
 * and the reader that saw the change keeps its own for the next. */
START_TEST(test_modules_change)
{
	struct pk_kernel_syms *k;

	fake_kernel(0, 16, false, BOOT_A);
	read_fake("cache", 0, 16, false);
	/* loaded: mod016 */
	fake_kernel(0, 17, false, BOOT_A);
	read_fake("cache", 0, 17, false);
	read_fake("cache", 0, 17, true);
	/* unloaded: mod000, whose range nothing holds now */
	fake_kernel(1, 16, false, BOOT_A);
	for (int saved = 0; saved < 2; saved++) {
		k = fake_reader("cache");
		want_kernel(k, 1, 16, saved);
		want_sym(k, MOD_BASE + 0x10, NULL, NULL, 0, false);
		pk_kernel_syms_free(k);
	}
}
END_TEST

/* kptr_restrict: every address 0, in kallsyms and in modules. Nothing is
 * named, no table is kept, and the one a reader that saw the addresses
 * kept is neither used nor replaced. */
START_TEST(test_addresses_hidden)
{
	struct pk_kernel_syms *k;

	fake_kernel(0, 17, true, BOOT_A);
	for (int r = 0; r < 2; r++) {
		k = fake_reader("cache");
		want_sym(k, 0xffffffff81000210ULL, NULL, NULL, 0, false);
		want_sym(k, MOD_BASE + 0x10, NULL, NULL, 0, false);
		want_sym(k, BPF_PROG + 0x10, NULL, NULL, 0, false);
		pk_kernel_syms_free(k);
		ck_assert(!kept("cache", BOOT_A));
	}
	fake_kernel(0, 17, false, BOOT_A);
	read_fake("cache", 0, 17, false);
	fake_kernel(0, 17, true, BOOT_A);
	k = fake_reader("cache");
	want_sym(k, MOD_BASE + 0x10, NULL, NULL, 0, false);
	pk_kernel_syms_free(k);
	fake_kernel(0, 17, false, BOOT_A);
	read_fake("cache", 0, 17, true);
}
END_TEST

/* Another boot: the table of the last is not used, and goes as the new
 * boot's is kept. Without a boot id, nothing is kept. */
START_TEST(test_other_boot)
{
	char path[512];

	fake_kernel(0, 32, false, BOOT_A);
	read_fake("cache", 0, 32, false);
	fake_kernel(0, 32, false, BOOT_B);
	read_fake("cache", 0, 32, false);
	ck_assert(kept("cache", BOOT_B));
	ck_assert(!kept("cache", BOOT_A));
	snprintf(path, sizeof(path), "%s/kroot/sys/kernel/random/boot_id", pk_fx_dir());
	ck_assert_int_eq(unlink(path), 0);
	read_fake("cache-none", 0, 32, false);
	snprintf(path, sizeof(path), "%s/cache-none", pk_fx_dir());
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

/* Through the symbolizer, as probe-read names frames: "name [module]",
 * the second reader's from the saved table (its stats count them), the
 * BPF program's from kallsyms. 16 modules: the saved ranges exactly fill
 * their first array. */
START_TEST(test_symbolizer_module_frames)
{
	char root[512], cache[512], want[64];
	struct pk_symbolizer_opts o = { .proc_root = pk_fx_proc_root(), .kernel_root = root,
					.cache_dir = cache };
	struct pk_symbolizer_stats st;

	snprintf(root, sizeof(root), "%s/kroot", pk_fx_dir());
	snprintf(cache, sizeof(cache), "%s/cache", pk_fx_dir());
	fake_kernel(0, 16, false, BOOT_A);
	for (int r = 0; r < 2; r++) {
		struct pk_symbolizer *sym = pk_symbolizer_new(&o);

		ck_assert_ptr_nonnull(sym);
		ck_assert_str_eq(pk_symbolizer_kernel(sym, 0xffffffff81000210ULL), "vfs_read");
		for (unsigned i = 0; i < 16; i++) {
			snprintf(want, sizeof(want), "mod%03u_read [mod%03u]", i, i);
			ck_assert_str_eq(pk_symbolizer_kernel(sym, MOD_BASE + i * MOD_STRIDE + 0x10),
					 want);
		}
		ck_assert_str_eq(pk_symbolizer_kernel(sym, BPF_PROG + 0x10),
				 "bpf_prog_59f4a931744dcdc6_on_cpu [bpf]");
		pk_symbolizer_stats(sym, &st);
		ck_assert_uint_eq(st.lookups, 18);
		ck_assert_uint_eq(st.cached, r ? 17 : 0);
		pk_symbolizer_free(sym);
	}
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
	tc = tcase_create("modules");
	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_add_test(tc, test_module_counts);
	tcase_add_test(tc, test_modules_change);
	tcase_add_test(tc, test_addresses_hidden);
	tcase_add_test(tc, test_other_boot);
	tcase_add_test(tc, test_symbolizer_module_frames);
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
