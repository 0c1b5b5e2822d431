// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pk_demangle: vectors from c++filt and rustc-demangle's own tests, then
 * oracles: c++filt -i over every symbol libstdc++ exports, and rustc itself
 * (#[rustc_symbol_name] makes it print the symbol it mangles and its own
 * demangling of it) for Rust legacy and v0 names, with identifiers in other
 * scripts (Punycode in v0, $u..$ escapes in legacy).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/elf_fixture.h"
#include "symbolization/demangle.h"
#include "test_util.h"

struct vec {
	const char *mangled, *want;
};

static void check(const struct vec *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *got = pk_demangle(v[i].mangled);

		if (!v[i].want) {
			ck_assert_msg(got == NULL, "%s: want no result, got %s", v[i].mangled, got);
			continue;
		}
		ck_assert_msg(got && strcmp(got, v[i].want) == 0, "%s:\n want %s\n got  %s",
			      v[i].mangled, v[i].want, got ? got : "(null)");
		free(got);
	}
}

#define CHECK(v) check(v, sizeof(v) / sizeof(v[0]))

/* Itanium C++ ABI. */
START_TEST(test_cxx)
{
	static const struct vec v[] = {
		{ "_Z1fv", "f()" },
		{ "_ZN2ns3fooEi", "ns::foo(int)" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		{ "_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv",
		  "__gnu_cxx::new_allocator<char>::allocate(unsigned long, void const*)" },
		{ "_ZNK3FooclEv", "Foo::operator()() const" },
		{ "_ZN3FooD2Ev", "Foo::~Foo()" },
		{ "_ZZ4mainE1x", "main::x" },
		/* "Ss" stays std::string (no DMGL_VERBOSE) */
		{ "_Z1fSs", "f(std::string)" },
		/* GCC's clones keep their suffix */
		{ "_Z3fooi.isra.0", "foo(int) [clone .isra.0]" },
		{ "main", NULL },
		{ "_Z", NULL },
		{ "_Zgarbage", NULL },
		{ "", NULL },
		/* libiberty names these; perf and we leave them as they are */
		{ "_GLOBAL__sub_I_main", NULL },
	};

	CHECK(v);
}
END_TEST

/* Rust legacy (rustc-demangle's cases): hash dropped, $-escapes and ".."
 * decoded. */
START_TEST(test_rust_legacy)
{
	static const struct vec v[] = {
		{ "_ZN3std2io5stdio6_print17h8f0c7b2bd3a9d5a0E", "std::io::stdio::_print" },
		{ "_ZN4test7test_rs17h2bd2f6d82ba25f2bE", "test::test_rs" },
		{ "_ZN71_$LT$Test$u20$$u2b$$u20$$u27$static$u20$as$u20$foo..Bar$LT$Test$GT$$GT$3bar17h930b740aa94f1d3aE",
		  "<Test + 'static as foo::Bar<Test>>::bar" },
		{ "_ZN54_$LT$I$u20$as$u20$core..iter..traits..IntoIterator$GT$9into_iter17h8581507801fb8615E",
		  "<I as core::iter::traits::IntoIterator>::into_iter" },
		{ "_ZN4core3ptr13drop_in_place17h1a2b3c4d5e6f7a8bE.llvm.123456", "core::ptr::drop_in_place" },
		{ "_ZN3foo23$SP$$BP$$RF$$LP$$RP$$C$17h0123456789abcdefE", "foo::@*&()," },
		/* rustc-demangle: "$u{e9}" and friends are code points */
		{ "_ZN8caf$ue9$17h0123456789abcdefE", "café" },
		{ "_ZN9_$u1f600$17h0123456789abcdefE", "\xf0\x9f\x98\x80" },
		/* no hash: C++ */
		{ "_ZN3fooE", "foo" },
		{ "_ZN3foo3barE", "foo::bar" },
		/* malformed */
		{ "_ZN3foo", NULL },
		{ "_ZN99fooE", NULL },
		{ "_ZNE", NULL },
		{ "_ZN3fooEjunk", NULL },
	};
	/* An escape rustc never writes is left as libiberty prints it. */
	char *s = pk_demangle("_ZN10f$u110000$17h0123456789abcdefE");

	CHECK(v);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, "f$u110000$");
	free(s);
}
END_TEST

/* Rust v0 (RFC 2603 and rustc-demangle's cases), printed as rustc-demangle's
 * alternate form: no crate disambiguators. */
START_TEST(test_rust_v0_paths)
{
	static const struct vec v[] = {
		{ "_RNvC6_123foo3bar", "123foo::bar" },
		{ "_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar" },
		/* Punycode */
		{ "_RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y",
		  "utf8_idents::საჭმელად_გემრიელი_სადილი" },
		{ "_RNvMsr_NtCs3ssYzQotkvD_3std4pathNtB5_7PathBuf3newCs15kBYyAo9fc_7mycrate",
		  "<std::path::PathBuf>::new" },
		{ "_RNCNCNgCs6DXkGYLi8lr_2cc5spawn00B5_", "cc::spawn::{closure#0}::{closure#0}" },
		{ "_RNvCskK7mfDs1mzF_1m4main", "m::main" },
		{ "_RNCNvCskK7mfDs1mzF_1m4mains_0B3_", "m::main::{closure#1}" },
		{ "_RNSNvYNCNvCskK7mfDs1mzF_1m4mains_0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_once6vtableB8_",
		  "<m::main::{closure#1} as core::ops::function::FnOnce<()>>::call_once::{shim:vtable#0}" },
		{ "_RNvXs_Cs7r5DjjP3gMo_7mycrateNtB4_5MyStrNtNtCsaoyRoF6gy76_4core3fmt7Display3fmt",
		  "<mycrate::MyStr as core::fmt::Display>::fmt" },
		{ "_RNvNtNtCsfEOYDRpO4Ta_11miniz_oxide7inflate4core10decompress.llvm.42",
		  "miniz_oxide::inflate::core::decompress" },
	};

	CHECK(v);
}
END_TEST

START_TEST(test_rust_v0_generics)
{
	static const struct vec v[] = {
		{ "_RINbNbCskIICzLVDPPb_5alloc5alloc8box_freeDINbNiB4_5boxed5FnBoxuEp6OutputuEL_ECs1iopQbuBiw2_3std",
		  "alloc::alloc::box_free::<dyn alloc::boxed::FnBox<(), Output = ()>>" },
		{ "_RINvCskK7mfDs1mzF_1m7genericINtNtCslNYArtu3iFV_5alloc3vec3VecyEKj3_EB2_",
		  "m::generic::<alloc::vec::Vec<u64>, 3>" },
		{ "_RINvMNtCsgEmfK2I1SDS_4core5sliceSh11copy_withinINtNtNtB5_3ops5range14RangeInclusivejEECsfEOYDRpO4Ta_11miniz_oxide",
		  "<[u8]>::copy_within::<core::ops::range::RangeInclusive<usize>>" },
		{ "_RINvNtNtCsjrHSEGnQ3l9_3std3sys9backtrace28___rust_begin_short_backtraceFEuuECskK7mfDs1mzF_1m",
		  "std::sys::backtrace::__rust_begin_short_backtrace::<fn(), ()>" },
		{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDG0_INtNtNtB4_3ops8function2FnTRL1_INtNtCsjrHSEGnQ3l9_3std5panic13PanicHookInfoL0_EEEp6OutputuNtNtB4_6marker4SyncNtB2N_4SendEL_EEB1T_",
		  "core::ptr::drop_in_place::<alloc::boxed::Box<dyn for<'a, 'b> core::ops::function::Fn<(&'a std::panic::PanicHookInfo<'b>,), Output = ()> + core::marker::Sync + core::marker::Send>>" },
		/* types: references, pointers, arrays, tuples, fn pointers */
		{ "_RINvC1a1fRQPOAhj4_STlmEFUKCcEaE",
		  "a::f::<&&mut *const *mut [u8; 4], [(i32, u32)], unsafe extern \"C\" fn(char) -> i8>" },
		/* const generics: bool, char, negative integer, one wider than
		 * 64 bits (i128::MIN; rustc-demangle prints those in hex) */
		{ "_RINvC1a1fKb1_Kc41_Kanf_E", "a::f::<true, 'A', -15>" },
		{ "_RINvC1a1fKnn80000000000000000000000000000000_E",
		  "a::f::<-0x80000000000000000000000000000000>" },
	};

	CHECK(v);
}
END_TEST

START_TEST(test_rust_v0_malformed)
{
	static const struct vec v[] = {
		{ "_R", NULL },
		{ "_R0NvC1a1f", NULL },		/* encoding version */
		{ "_RNvC1a", NULL },		/* truncated */
		{ "_RNvC9a1f", NULL },		/* length past the end */
		{ "_RB_", NULL },		/* back-reference to itself */
		{ "_RNvB9_1f", NULL },		/* forward back-reference */
		{ "_RNvN0C1a1b1c", NULL },	/* namespace not a letter */
		{ "_RINvC1a1fKb2_E", NULL },	/* bool const 2 */
		{ "_RINvC1a1fKanF_E", NULL },	/* uppercase hex */
		{ "_RZ", NULL },
		/* The grammar allows an empty crate name (found by
		 * fuzz_demangle): "" says less than the mangled name. */
		{ "_RC0", NULL },
	};
	/* Deep nesting stops at libiberty's recursion limit, not the stack. */
	char deep[4096];
	size_t n = 0;

	CHECK(v);
	n += snprintf(deep, sizeof(deep), "_RINvC1a1f");
	while (n < sizeof(deep) - 8)
		deep[n++] = 'R';
	strcpy(deep + n, "hE");
	ck_assert_ptr_eq(pk_demangle(deep), NULL);
}
END_TEST

/* --- c++filt -------------------------------------------------------------- */

static char *next_line(char **p)
{
	char *line = *p, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	return line;
}

static const char *libstdcxx(void)
{
	static const char *const libs[] = { "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
					    "/lib/x86_64-linux-gnu/libstdc++.so.6" };

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (access(libs[i], R_OK) == 0)
			return libs[i];
	ck_abort_msg("no libstdc++.so.6 at %s or %s", libs[0], libs[1]);
	return NULL;
}

/* Every symbol libstdc++ exports, as c++filt -i (binutils' demangler, not
 * verbose: no implementation details) prints it. A name c++filt leaves as
 * it is must get no result; one it changes, exactly its result. */
START_TEST(test_cxxfilt_oracle)
{
	char script[512], names_path[128], *names = NULL, *filtered = NULL, *p, *q, *name;
	size_t compared = 0, demangled = 0;

	snprintf(names_path, sizeof(names_path), "%s/names", pk_fx_dir());
	snprintf(script, sizeof(script),
		 "nm -D --defined-only --without-symbol-versions --format=posix '%s' | "
		 "cut -d' ' -f1 | sort -u > '%s' && c++filt -i < '%s'",
		 libstdcxx(), names_path, names_path);
	char *argv[] = { "sh", "-c", script, NULL };

	pk_fx_run_ok(argv, &filtered);
	names = pk_test_read_file(names_path, NULL);
	ck_assert_ptr_nonnull(names);
	p = names;
	q = filtered;
	while ((name = next_line(&p))) {
		char *want = next_line(&q), *got = pk_demangle(name);

		ck_assert_msg(want, "c++filt printed fewer lines than it read");
		compared++;
		if (strcmp(want, name) == 0) {
			ck_assert_msg(!got, "%s: c++filt leaves it, we say %s", name, got);
		} else {
			ck_assert_msg(got && strcmp(got, want) == 0, "%s:\n c++filt %s\n we      %s",
				      name, want, got ? got : "(null)");
			demangled++;
		}
		free(got);
	}
	ck_assert_ptr_null(next_line(&q));
	/* libstdc++ exports ~6000 symbols, nearly all C++. */
	ck_assert_uint_gt(compared, 4000);
	ck_assert_uint_gt(demangled, compared * 9 / 10);
	free(names);
	free(filtered);
}
END_TEST

/* --- rustc ---------------------------------------------------------------- */

/* Compiled with --cfg oracle, every item marked gets an error from rustc
 * naming its symbol and rustc's demangling of it (the alternate form is
 * ours); without, a program whose symbols are real. */
static const char rust_src[] =
	"#![cfg_attr(oracle, feature(rustc_attrs))]\n"
	"#![allow(dead_code, non_snake_case, uncommon_codepoints)]\n"
	"pub trait Tr { fn f(&self); }\n"
	"pub mod outer {\n"
	"    pub mod 模块 {\n"
	"        #[cfg_attr(oracle, rustc_symbol_name)]\n"
	"        #[inline(never)]\n"
	"        pub fn häll() -> u32 { 7 }\n"
	"    }\n"
	"    #[cfg_attr(oracle, rustc_symbol_name)]\n"
	"    #[inline(never)]\n"
	"    pub fn 東京() -> u32 { 8 }\n"
	"}\n"
	"pub struct S<T>(pub T);\n"
	"pub struct W<const N: i128>;\n"
	"impl<T> S<T> { #[cfg_attr(oracle, rustc_symbol_name)] pub fn m<U>(&self) {} }\n"
	"impl Tr for S<u8> { #[cfg_attr(oracle, rustc_symbol_name)] fn f(&self) {} }\n"
	"impl<const N: usize> Tr for [u32; N] { #[cfg_attr(oracle, rustc_symbol_name)] fn f(&self) {} }\n"
	"impl Tr for W<{ i128::MIN }> { #[cfg_attr(oracle, rustc_symbol_name)] fn f(&self) {} }\n"
	"impl<'a> Tr for &'a mut (u8, i64) { #[cfg_attr(oracle, rustc_symbol_name)] fn f(&self) {} }\n"
	"impl Tr for [char] { #[cfg_attr(oracle, rustc_symbol_name)] fn f(&self) {} }\n"
	"impl Tr for *const bool { #[cfg_attr(oracle, rustc_symbol_name)] fn f(&self) {} }\n"
	"impl Tr for unsafe extern \"C\" fn(u16) -> i8 { #[cfg_attr(oracle, rustc_symbol_name)] fn f(&self) {} }\n"
	"impl Tr for Box<dyn for<'a> Fn(&'a str) -> usize + Send> { #[cfg_attr(oracle, rustc_symbol_name)] fn f(&self) {} }\n"
	"#[cfg_attr(oracle, rustc_symbol_name)] pub fn r#match() {}\n"
	"#[cfg_attr(oracle, rustc_symbol_name)] pub static ÉTAT: u8 = 0;\n"
	"fn main() { println!(\"{}\", outer::模块::häll() + outer::東京()); }\n";
#define RUST_ITEMS 13

/* Debian's rustc, as tests/nofp.mk builds with; RUSTC_BOOTSTRAP lets a
 * stable compiler take the internal attribute. */
#define RUSTC "/usr/bin/rustc"

struct rust_pair {
	char *symbol, *alt;
};

/* rustc's "symbol-name(S)" and "demangling-alt(D)" errors, in order. */
static size_t rustc_oracle(const char *mangling, struct rust_pair *pairs, size_t max)
{
	char src[128], out[128], *err = NULL, *p, *line, *symbol = NULL;
	char *argv[] = { "env", "RUSTC_BOOTSTRAP=1", RUSTC, "--edition", "2021",
			 "--crate-name", "oracle", "--cfg", "oracle", "-Z", "unstable-options",
			 "-C", (char *)mangling, "-o", out, src, NULL };
	size_t n = 0;

	snprintf(src, sizeof(src), "%s/oracle.rs", pk_fx_dir());
	snprintf(out, sizeof(out), "%s/oracle-fail", pk_fx_dir());
	pk_fx_write_file(src, rust_src);
	pk_test_run(argv, NULL, &err);
	ck_assert_ptr_nonnull(err);
	for (p = err; (line = next_line(&p));) {
		size_t len = strlen(line);

		if (len && line[len - 1] == ')')
			line[len - 1] = '\0';
		if (strncmp(line, "error: symbol-name(", 19) == 0) {
			symbol = line + 19;
		} else if (strncmp(line, "error: demangling-alt(", 22) == 0) {
			ck_assert_msg(symbol && n < max, "rustc: demangling without a symbol");
			pairs[n].symbol = strdup(symbol);
			pairs[n].alt = strdup(line + 22);
			n++;
			symbol = NULL;
		}
	}
	free(err);
	return n;
}

static void check_rustc(const char *mangling)
{
	struct rust_pair pairs[RUST_ITEMS + 1];
	size_t n = rustc_oracle(mangling, pairs, RUST_ITEMS + 1);

	ck_assert_msg(n == RUST_ITEMS, "%s: rustc named %zu items, not %d", mangling, n,
		      RUST_ITEMS);
	for (size_t i = 0; i < n; i++) {
		char *got = pk_demangle(pairs[i].symbol);

		ck_assert_msg(got && strcmp(got, pairs[i].alt) == 0, "%s:\n rustc %s\n we    %s",
			      pairs[i].symbol, pairs[i].alt, got ? got : "(null)");
		free(got);
		free(pairs[i].symbol);
		free(pairs[i].alt);
	}
}

START_TEST(test_rustc_oracle_legacy)
{
	check_rustc("symbol-mangling-version=legacy");
}
END_TEST

START_TEST(test_rustc_oracle_v0)
{
	check_rustc("symbol-mangling-version=v0");
}
END_TEST

/* A v0 program whose function has a name in other scripts (Punycode in its
 * symbol): the symbol in its symbol table reads as the source spells it. */
START_TEST(test_rustc_v0_binary)
{
	struct rust_pair pairs[RUST_ITEMS + 1];
	size_t n = rustc_oracle("symbol-mangling-version=v0", pairs, RUST_ITEMS + 1);
	char src[128], bin[128], *nm = NULL, *got;
	char *build[] = { RUSTC, "--edition", "2021", "--crate-name", "oracle", "-C",
			  "symbol-mangling-version=v0", "-o", bin, src, NULL };
	char *list[] = { "nm", "--format=just-symbols", bin, NULL };
	const char *hall = NULL;

	snprintf(src, sizeof(src), "%s/oracle.rs", pk_fx_dir());
	snprintf(bin, sizeof(bin), "%s/oracle", pk_fx_dir());
	pk_fx_run_ok(build, NULL);
	pk_fx_run_ok(list, &nm);
	for (size_t i = 0; i < n; i++)
		if (strcmp(pairs[i].alt, "oracle::outer::模块::häll") == 0)
			hall = pairs[i].symbol;
	ck_assert_msg(hall, "rustc did not name oracle::outer::模块::häll");
	/* Punycode: "u" before the identifier's length */
	ck_assert_ptr_nonnull(strstr(hall, "u7hll_qla"));
	ck_assert_msg(strstr(nm, hall), "%s not in the program's symbols", hall);
	got = pk_demangle(hall);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, "oracle::outer::模块::häll");
	free(got);
	free(nm);
	for (size_t i = 0; i < n; i++) {
		free(pairs[i].symbol);
		free(pairs[i].alt);
	}
}
END_TEST

/* The function's name in a symbol's: no version, no clone suffix. */
START_TEST(test_sym_name_len)
{
	static const struct {
		const char *sym, *name;
	} cases[] = {
		{ "__libc_start_main@@GLIBC_2.34", "__libc_start_main" },
		{ "clock_nanosleep@GLIBC_2.2.5", "clock_nanosleep" },
		{ "object_dealloc.lto_priv.0", "object_dealloc" },
		{ "keyobject_dealloc.lto_priv.0.cold", "keyobject_dealloc" },
		{ "msort_with_tmp.part.0", "msort_with_tmp" },
		{ "foo.constprop.12.isra.0", "foo" },
		{ "main.cold", "main" },
		{ "bar.cold.3", "bar" },
		{ "memcpy.localalias", "memcpy" },
		{ "_ZN4llvm3fooEv.llvm.1234567", "_ZN4llvm3fooEv" },
		{ "_Z3fooi.constprop.0@@V1", "_Z3fooi" },
		{ "plain", "plain" },
		/* not a toolchain suffix: the name is the whole */
		{ "runtime.mallocgc", "runtime.mallocgc" },
		{ "main.main.func1", "main.main.func1" },
		{ "pkg.part", "pkg.part" },		/* .part takes a number */
		{ "foo.constprop.x", "foo.constprop.x" },
		{ "foo.cold.bar", "foo.cold.bar" },
		{ ".annobin_init.c", ".annobin_init.c" },
		{ "@@V1", "@@V1" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = pk_sym_name_len(cases[i].sym);

		ck_assert_msg(len == strlen(cases[i].name) &&
			      !strncmp(cases[i].sym, cases[i].name, len),
			      "%s: %.*s, want %s", cases[i].sym, (int)len, cases[i].sym,
			      cases[i].name);
	}
}
END_TEST

Suite *suite_demangle(void)
{
	Suite *s = suite_create("demangle");
	TCase *tc = tcase_create("cxx");

	tcase_add_test(tc, test_cxx);
	suite_add_tcase(s, tc);
	tc = tcase_create("rust_legacy");
	tcase_add_test(tc, test_rust_legacy);
	suite_add_tcase(s, tc);
	tc = tcase_create("rust_v0");
	tcase_add_test(tc, test_rust_v0_paths);
	tcase_add_test(tc, test_rust_v0_generics);
	tcase_add_test(tc, test_rust_v0_malformed);
	tcase_add_test(tc, test_sym_name_len);
	suite_add_tcase(s, tc);
	tc = tcase_create("oracle");
	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cxxfilt_oracle);
	tcase_add_test(tc, test_rustc_oracle_legacy);
	tcase_add_test(tc, test_rustc_oracle_v0);
	tcase_add_test(tc, test_rustc_v0_binary);
	suite_add_tcase(s, tc);
	return s;
}
