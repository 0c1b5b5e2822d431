// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "test_util.h"

struct vec {
	const char *mangled, *want;
};

static void check(const struct vec *v, size_t n, char *(*fn)(const char *))
{
	for (size_t i = 0; i < n; i++) {
		char *got = fn(v[i].mangled);

		if (!v[i].want) {
			ck_assert_msg(got == NULL, "%s: want no result, got %s", v[i].mangled, got);
			continue;
		}
		ck_assert_msg(got && strcmp(got, v[i].want) == 0, "%s:\n want %s\n got  %s",
			      v[i].mangled, v[i].want, got ? got : "(null)");
		free(got);
	}
}

#define CHECK(v, fn) check(v, sizeof(v) / sizeof(v[0]), fn)

/* Itanium C++ ABI, through libstdc++. */
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
		{ "main", NULL },
		{ "_Z", NULL },
		{ "_Zgarbage", NULL },
		{ "", NULL },
	};

	CHECK(v, pk_demangle);
}
END_TEST

/* Rust legacy (rustc-demangle's test cases): hash dropped, $-escapes and
 * ".." decoded. */
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
		{ "_ZN3fooE", "foo" },
		/* Not Rust: goes to C++. */
		{ "_ZN3foo3barE", "foo::bar" },
	};
	static const struct vec bad[] = {
		{ "_ZN3foo", NULL },		/* no E */
		{ "_ZN99fooE", NULL },		/* length past the end */
		{ "_ZN3f$ZZ$E", NULL },		/* unknown escape */
		{ "_ZN6f$u1f$E", NULL },	/* control character */
		{ "_ZNE", NULL },		/* no element */
		{ "_ZN3fooEjunk", NULL },
	};

	CHECK(v, pk_demangle);
	CHECK(bad, pk_demangle_rust_legacy);
}
END_TEST

/* Rust v0 (RFC 2603 and rustc-demangle's cases), printed as
 * rustc-demangle's alternate form: no crate disambiguators. */
START_TEST(test_rust_v0_paths)
{
	static const struct vec v[] = {
		{ "_RNvC6_123foo3bar", "123foo::bar" },
		{ "_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar" },
		{ "_RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y", NULL },	/* punycode: not decoded, the caller keeps the mangled name */
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

	CHECK(v, pk_demangle);
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
		/* const generics: bool, char, negative integer */
		{ "_RINvC1a1fKb1_Kc41_Kanf_E", "a::f::<true, 'A', -15>" },
	};

	CHECK(v, pk_demangle);
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
	};
	/* Deep nesting stops at the depth limit instead of the stack. */
	char deep[4096];
	size_t n = 0;

	CHECK(v, pk_demangle_rust_v0);
	n += snprintf(deep, sizeof(deep), "_RINvC1a1f");
	while (n < sizeof(deep) - 8)
		deep[n++] = 'R';
	strcpy(deep + n, "hE");
	ck_assert_ptr_eq(pk_demangle_rust_v0(deep), NULL);
}
END_TEST

/* The grammar allows an empty crate name (found by fuzz_demangle); the
 * decoder says "", and pk_demangle leaves the mangled name to the caller. */
START_TEST(test_empty_result_keeps_mangled)
{
	char *s = pk_demangle_rust_v0("_RC0");

	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, "");
	free(s);
	ck_assert_ptr_eq(pk_demangle("_RC0"), NULL);
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
	tcase_add_test(tc, test_empty_result_keeps_mangled);
	suite_add_tcase(s, tc);
	return s;
}
