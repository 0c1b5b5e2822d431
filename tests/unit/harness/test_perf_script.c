// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The perf script parser of the stack oracle, on text in perf 6.1's layout. */
#include <errno.h>
#include <string.h>

#include "harness/perf_script.h"
#include "test_util.h"

/* As `perf script -F comm,pid,tid,ip,sym,dso --no-inline` printed a
 * --call-graph fp recording of tests/fixtures/syscall_chain: the header's
 * trailing blank, a 16-column address, leaf first, a blank line after each
 * sample. */
static const char syscall_chain[] =
"syscall_chain 11656/11656 \n"
"\tffffffff81d33df7 read_zero ([kernel.kallsyms])\n"
"\tffffffff816b8aab vfs_read ([kernel.kallsyms])\n"
"\tffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])\n"
"\t           f82ad read (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
"\t            1299 c (/work/build/fixtures/syscall_chain)\n"
"\t            1107 main (/work/build/fixtures/syscall_chain)\n"
"\t           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
"\n"
"syscall_chain 11656/11656 \n"
"\t           f82a0 read (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
"\t            1299 c (/work/build/fixtures/syscall_chain)\n"
"\t            1107 main (/work/build/fixtures/syscall_chain)\n"
"\t           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
"\n"
"syscall_chain 11656/11656 \n"
"\tffffffff81d33df2 read_zero ([kernel.kallsyms])\n"
"\tffffffff816b8aab vfs_read ([kernel.kallsyms])\n"
"\tffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])\n"
"\t           f82ad read (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
"\t            1299 c (/work/build/fixtures/syscall_chain)\n"
"\t            1107 main (/work/build/fixtures/syscall_chain)\n"
"\t           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
"\n";

static void parse_ok(const char *text, struct ps_stacks *s)
{
	char err[256] = "";

	ck_assert_msg(ps_stacks_parse(text, s, err, sizeof(err)) == 0, "%s", err);
}

START_TEST(test_kernel_frames_last_identical_merged)
{
	struct ps_stacks s;

	parse_ok(syscall_chain, &s);
	ck_assert_str_eq(s.folded,
		"syscall_chain;__libc_start_call_main;main;c;read 1\n"
		"syscall_chain;__libc_start_call_main;main;c;read;"
		"entry_SYSCALL_64_after_hwframe_[k];vfs_read_[k];read_zero_[k] 2\n");
	ck_assert_uint_eq(s.samples, 3);
	ck_assert_uint_eq(s.ndsos, 2);
	ck_assert_str_eq(s.dsos[0], "/usr/lib/x86_64-linux-gnu/libc.so.6");
	ck_assert_str_eq(s.dsos[1], "/work/build/fixtures/syscall_chain");
	ps_stacks_free(&s);
}
END_TEST

/* A comm with spaces, a short padded PID, demangled C++ names with spaces
 * and parentheses, unknown symbols and files, ';' in a name. */
START_TEST(test_names_with_spaces_and_unknowns)
{
	static const char text[] =
	"Web Content  4242/4243 \n"
	"\t            1a2b std::vector<int, std::allocator<int> >::push_back(int const&) (/opt/a b/libx.so)\n"
	"\t            1c00 [unknown] (/opt/a b/libx.so)\n"
	"\t    7f0000001000 [unknown] ([unknown])\n"
	"\t            1d00 weird;name ([vdso])\n"
	"\n";
	struct ps_stacks s;

	parse_ok(text, &s);
	ck_assert_str_eq(s.folded,
		"Web Content;weird:name;[unknown];[unknown];"
		"std::vector<int, std::allocator<int> >::push_back(int const&) 1\n");
	ck_assert_uint_eq(s.ndsos, 1);
	ck_assert_str_eq(s.dsos[0], "/opt/a b/libx.so");
	ps_stacks_free(&s);
}
END_TEST

/* Module frames: the module's name as DSO, an address in the kernel half. */
START_TEST(test_module_frames_are_kernel_frames)
{
	static const char text[] =
	"nft 7/7 \n"
	"\tffffffffc0a01234 nft_do_chain ([nf_tables])\n"
	"\tffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])\n"
	"\t            1107 main (/bin/nft)\n"
	"\n";
	struct ps_stacks s;

	parse_ok(text, &s);
	ck_assert_str_eq(s.folded,
		"nft;main;entry_SYSCALL_64_after_hwframe_[k];nft_do_chain_[k] 1\n");
	ps_stacks_free(&s);
}
END_TEST

/* perf prints the sample's own frame on the header line when the call
 * chain could not be resolved, and no blank line after it; an empty chain
 * leaves the comm alone. */
START_TEST(test_samples_without_chain)
{
	static const char text[] =
	"demo 10/10             1103 main (/bin/demo)\n"
	"demo 10/11 ffffffff81d33df7 read_zero ([kernel.kallsyms])\n"
	"demo 10/10 \n"
	"\n"
	"demo 10/10             1103 main (/bin/demo)\n";
	struct ps_stacks s;

	parse_ok(text, &s);
	ck_assert_str_eq(s.folded, "demo 1\ndemo;main 2\ndemo;read_zero_[k] 1\n");
	ck_assert_uint_eq(s.samples, 4);
	ps_stacks_free(&s);
}
END_TEST

START_TEST(test_empty_input)
{
	struct ps_stacks s;

	parse_ok("", &s);
	ck_assert_str_eq(s.folded, "");
	ck_assert_uint_eq(s.samples, 0);
	ck_assert_uint_eq(s.ndsos, 0);
	ps_stacks_free(&s);
}
END_TEST

static const struct {
	const char *text, *err;
} bad_inputs[] = {
	{ "\t1103 main (/bin/demo)\n",
	  "perf script line 1: frame line outside a sample" },
	{ "demo\n",
	  "perf script line 1: sample header without PID/TID" },
	{ "demo 10/10\n\tmain (/bin/demo)\n",
	  "perf script line 2: frame does not start with a hexadecimal address" },
	{ "demo 10/10\n\t1103\n",
	  "perf script line 2: frame address is not followed by a symbol" },
	{ "demo 10/10\n\t1103 main /bin/demo\n",
	  "perf script line 2: frame does not end with \"(DSO)\"" },
	{ "demo 10/10\n\t1103 (/bin/demo)\n",
	  "perf script line 2: frame has no symbol before \"(DSO)\"" },
	{ "demo 10/10\n\t1103 inner (inlined)\n\t1103 main (/bin/demo)\n",
	  "perf script line 2: inlined frame: run perf script with --no-inline" },
	{ "demo 10/10\n\t1103 main (/bin/demo)\n"
	  "\tffffffff81000130 entry_SYSCALL_64 ([kernel.kallsyms])\n",
	  "perf script line 3: kernel frame below a user frame" },
};

START_TEST(test_bad_input)
{
	struct ps_stacks s;
	char err[256] = "";

	ck_assert_int_eq(ps_stacks_parse(bad_inputs[_i].text, &s, err, sizeof(err)),
			 -EBADMSG);
	ck_assert_str_eq(err, bad_inputs[_i].err);
	ps_stacks_free(&s);
}
END_TEST

Suite *suite_perf_script(void)
{
	Suite *s = suite_create("perf_script");
	TCase *tc;

	tc = tcase_create("stacks");
	tcase_add_test(tc, test_kernel_frames_last_identical_merged);
	tcase_add_test(tc, test_names_with_spaces_and_unknowns);
	tcase_add_test(tc, test_module_frames_are_kernel_frames);
	tcase_add_test(tc, test_samples_without_chain);
	tcase_add_test(tc, test_empty_input);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad_input");
	tcase_add_loop_test(tc, test_bad_input, 0, sizeof(bad_inputs) / sizeof(bad_inputs[0]));
	suite_add_tcase(s, tc);
	return s;
}
