// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, DWARF unwinding (probe-load --unwind dwarf, the default): the
 * fixtures of tests/fixtures_nofp/, built without frame pointers by gcc and
 * clang, PIE and not, plus Rust, C++ and Debian's python3.11, profiled with
 * the real tools. Each fixture has a known call chain, and the test asserts
 * the share of samples whose stack is whole: the exact frames from the
 * outermost one (_start, or clone3 for a thread) down to the leaf.
 *
 * The chains were checked with `perf record --call-graph dwarf` and gdb
 * (the perf dwarf oracle in test_perf_oracle.c compares the shares).
 *
 * The stack patterns and the measure are in whole_stacks.h.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "integration/dwarf_fixtures.h"
#include "integration/profile_session.h"
#include "integration/whole_stacks.h"
#include "lib/session.h"
#include "lib/util/clock.h"
#include "test_util.h"

/*
 * The compiled fixtures, run 54 times: the same 400 samples at 999 Hz in
 * a tenth of the CPU time (the interpreters' loops keep PK_DWARF_RUN_STR:
 * their start-up threads share the budget). Saves ~190 s of make check. Not on
 * a slow machine (pk_test_slowdown(): a TCG guest), where the start-up
 * takes a share of 0.4 s that left fewer than PK_WHOLE_MIN_SAMPLES in
 * the measured code (93 of 236, 6.1 under TCG): 4 s at 99 Hz there.
 */
static const char *fast_secs(void)
{
	return pk_test_slowdown() > 1 ? PK_DWARF_RUN_STR : "0.4";
}

static const char *const *fast_opts(void)
{
	static const char *const fast[] = { "-F", "999", NULL };

	return pk_test_slowdown() > 1 ? NULL : fast;
}

/* --- the fixtures, each in gcc/clang x pie/nopie ----------------------------- */

/*
 * The first PK_DWARF_NCORE_VARIANTS hold both compilers and both kinds of
 * executable: what depends on the kernel (the BPF walk over its VMAs, the
 * maps, the verifier) shows in them. The others only add compiler and
 * linker shapes, the same on every kernel, and are tagged MORE_VARIANTS,
 * which the kernel matrix's guests leave to the host (CK_EXCLUDE_TAGS,
 * tests/kernels/matrix.sh): half the suite's time under TCG.
 */
const char *const pk_dwarf_variants[PK_DWARF_NVARIANTS] = {
	"gcc-pie", "clang-nopie", "gcc-nopie", "clang-pie" };
#define MORE_VARIANTS	"more_variants"

struct fixture {
	const char *name;
	const char *hot;		/* its measured code, see pk_measured_code() */
	const char *const *pats;	/* whole stacks, NULL-ended */
};

const char *const pk_dwarf_chain5_pats[] = { PK_START ";f1;f2;f3;f4;f5;~K", NULL };
/* glibc 2.36's qsort tail-calls qsort_r, which runs msort_with_tmp
 * recursively; the leaf is the comparator, or msort's own merging (with
 * memcpy) */
static const char *const qsort_pats[] = {
	PK_START ";sort_step;+*qsort*|msort*;%compare|*mem*;~K", NULL };
/* the kernel's frames on top of libc's read; or the user loop */
static const char *const read_pats[] = {
	PK_START ";reader;read_chunk;*read*;~K",
	PK_START ";reader;%read_chunk;~K", NULL };
static const char *const shlib_pats[] = { PK_START ";lib_a;lib_b;app_callback;~K", NULL };
/* the spinning loop, or the SIGPROF handler above the signal frame (glibc's
 * __restore_rt; a symbolizer that looks up return address - 1 finds no
 * symbol before it: "[]") */
static const char *const signal_pats[] = {
	PK_START ";sig_a;sig_work;~K",
	PK_START ";sig_a;sig_work;__restore_rt|[];on_prof;%handler_spin;~K", NULL };
static const char *const handler_pats[] = {
	PK_START ";sig_a;sig_work;__restore_rt|[];on_prof;%handler_spin;~K", NULL };
/* clone3 may be named by a local alias (__GI___clone3) */
static const char *const threads_pats[] = { "*clone3;start_thread;worker;work_a;spin;~K", NULL };
/* gcc puts the throw into level3.cold; the rest is the C++ runtime's
 * unwinder (libstdc++, libgcc_s) under the chain */
static const char *const cxx_pats[] = {
	PK_START ";cx_run;level1;level2;level3|level3.cold;~*|K", NULL };

/* the libc wrapper, then the vDSO's own code; or the loop itself. Some
 * kernels' vDSO calls a local function of its own (6.18.44's clock read at
 * 0x780), which no exported symbol names: [vdso+0x79d] */
static const char *const vdso_pats[] = {
	PK_START ";timer_loop;%*clock_gettime*;%__vdso_clock_gettime|\\[vdso+0x*];%\\[vdso+0x*];~K",
	NULL };

/* in the kernel at a SYSCALL last in its FDE (the leaf's PC past it); or
 * the user loop */
static const char *const syscall_end_pats[] = {
	PK_START ";zr_reader;zr_chunk;sys_read_end;~K",
	PK_START ";zr_reader;%zr_chunk;~K", NULL };

/* mid has no CFI (a gap between FDEs) but a frame pointer: a frame-pointer
 * step crosses it (the fixture says why perf is no oracle here); a sample
 * in mid's own two-instruction prologue or its leave finds no frame
 * pointer */
static const char *const nocfi_pats[] = {
	PK_START ";nocfi_top;mid;leaf;~K",
	PK_START ";nocfi_top;mid;~K", NULL };

/*
 * The first NKERNEL_FIXTURES meet the kernel where it differs between
 * kernels: its vDSO, its frames over a system call, its signal frame, a
 * thread's registers (chain5 is the plain case beside them). The others,
 * like the nocfi, recursion, lazy binding, Rust, Python and node cases,
 * differ only in user code's rules, the same on every kernel: tagged
 * USER_SHAPES, they run on the host only, as MORE_VARIANTS do.
 */
static const struct fixture fixtures[] = {
	{ "chain5", PK_DWARF_CHAIN5_HOT, pk_dwarf_chain5_pats },
	{ "vdso", "timer_loop|*clock_gettime*|\\[vdso+0x*]", vdso_pats },
	{ "read", "reader|read_chunk|read|*libc_read", read_pats },
	{ "syscall_end", "zr_reader|zr_chunk|sys_read_end", syscall_end_pats },
	{ "signal", "sig_a|sig_work|on_prof|handler_spin", signal_pats },
	{ "threads", "worker|work_a|spin", threads_pats },
	{ "nocfi", "nocfi_top|mid|leaf", nocfi_pats },
	{ "qsort", "sort_step|*qsort*|msort*|compare", qsort_pats },
	{ "shlib", "lib_a|lib_b|app_callback", shlib_pats },
	/* the chain, and the C++ runtime's unwinder under it ("[]": its
	 * local functions have no symbol) */
	{ "cxx", "cx_run|level*|_Unwind_*|__cxa_*|uw_*|__gxx_personality*|[]", cxx_pats },
};
#define NFIXTURES (int)(sizeof(fixtures) / sizeof(fixtures[0]))
#define NKERNEL_FIXTURES 6
#define USER_SHAPES	"user_shapes"

void pk_dwarf_nofp_path(const char *name, const char *variant, char *buf, size_t len)
{
	char file[128];

	snprintf(file, sizeof(file), "%s-%s", name, variant);
	pk_e2e_fixture_nofp(file, buf, len);
}

/* Loop index: variant * NFIXTURES + fixture. */
START_TEST(test_fixture_whole_stacks)
{
	const struct fixture *fx = &fixtures[_i % NFIXTURES];
	const char *variant = pk_dwarf_variants[_i / NFIXTURES];
	char path[4096], what[128];
	const char *argv[] = { path, fast_secs(), NULL };
	struct pk_run r;

	pk_dwarf_nofp_path(fx->name, variant, path, sizeof(path));
	snprintf(what, sizeof(what), "%s-%s", fx->name, variant);
	pk_profile_command(fast_opts(), argv, &r);
	pk_assert_whole(what, &r, fx->hot, fx->pats);

	if (!strcmp(fx->name, "read")) {
		/* most of the time in the kernel, clearing the user buffer */
		const char *const kpats[] = { PK_START ";reader;read_chunk;*read*;+K", NULL };
		struct pk_tally k = pk_count_whole(&r.f, r.comm, kpats);

		fprintf(stderr, "  %s: %lu of %lu samples whole with kernel frames on top\n",
			what, k.whole, k.total);
		ck_assert_msg(k.whole * 2 >= k.total, "%s: %lu of %lu whole with kernel frames",
			      what, k.whole, k.total);
	}
	if (!strcmp(fx->name, "syscall_end")) {
		/* the samples in the syscall: whole through the frame whose PC
		 * has no CFI, the one at PC - 1 (the SYSCALL) being its own */
		const char *const kpats[] = {
			PK_START ";zr_reader;zr_chunk;sys_read_end;+K", NULL };
		const char *const in_kernel[] = { "~*;sys_read_end;+K", NULL };
		struct pk_tally n = pk_count_whole(&r.f, r.comm, in_kernel);
		struct pk_tally k = pk_count_whole_in(&r.f, r.comm, in_kernel, kpats);

		fprintf(stderr, "  %s: %lu samples in the syscall, %lu of them whole\n", what,
			k.total, k.whole);
		ck_assert_msg(n.whole * 2 >= n.total, "%s: only %lu of %lu samples in the syscall",
			      what, n.whole, n.total);
		ck_assert_msg(k.whole >= PK_WHOLE_MIN * k.total, "%s: %lu of %lu samples in the "
			      "syscall whole", what, k.whole, k.total);
	}
	if (!strcmp(fx->name, "vdso")) {
		/* the vDSO, which has no file, has a table: the samples in it
		 * are whole too, and named from its image */
		const char *const in_vdso[] = {
			PK_START ";timer_loop;%*clock_gettime*;__vdso_clock_gettime;%\\[vdso+0x*];~K",
			NULL };
		const char *const leaf_vdso[] = { "~*;__vdso_clock_gettime|\\[vdso+0x*];~K", NULL };
		struct pk_tally w = pk_count_whole(&r.f, r.comm, in_vdso);
		struct pk_tally v = pk_count_whole(&r.f, r.comm, leaf_vdso);

		fprintf(stderr, "  %s: %lu samples in the vDSO, %lu of them whole\n", what,
			v.whole, w.whole);
		ck_assert_msg(v.whole * 4 >= v.total, "%s: only %lu of %lu samples in the vDSO",
			      what, v.whole, v.total);
		ck_assert_msg(w.whole >= PK_WHOLE_MIN * v.whole, "%s: %lu of %lu vDSO samples whole",
			      what, w.whole, v.whole);
	}
	if (!strcmp(fx->name, "signal")) {
		/* the handler's samples alone: whole across the signal frame */
		const char *const leaf_handler[] = { "~*;on_prof|handler_spin;~K", NULL };
		struct pk_tally h = pk_count_whole(&r.f, r.comm, leaf_handler);
		struct pk_tally hw = pk_count_whole(&r.f, r.comm, handler_pats);

		fprintf(stderr, "  %s: %lu samples in the handler, %lu of them whole\n", what,
			h.whole, hw.whole);
		ck_assert_msg(h.whole * 20 >= h.total, "%s: only %lu of %lu samples in the "
			      "handler", what, h.whole, h.total);
		ck_assert_msg(hw.whole >= PK_WHOLE_MIN * h.whole, "%s: %lu of %lu handler samples "
			      "whole across the signal frame", what, hw.whole, h.whole);
	}
	pk_run_free(&r);
}
END_TEST

/* The share of the walks "user stacks:" in ERR says ended as NAME. */
static double end_share(const char *err, const char *name)
{
	const char *line = strstr(err, "user stacks:"), *p, *eol;
	double share;

	if (!line)
		return 0;
	eol = strchrnul(line, '\n');
	p = strstr(line, name);
	if (!p || p > eol)
		return 0;
	while (p > line && p[-1] != ',' && p[-1] != ':')
		p--;
	return sscanf(p, " %lf%%", &share) == 1 ? share / 100 : 0;
}

/*
 * nocfi nofp: mid_nofp has no CFI and no frame pointer (%rbp is
 * nocfi_top's junk). The walk cannot cross it and must say so: the stacks
 * are cut at mid_nofp, and end "no CFI at PC", never "complete".
 */
START_TEST(test_nocfi_without_frame_pointer)
{
	const char *const cut[] = { "mid_nofp;leaf;~K", NULL };
	const char *variant = pk_dwarf_variants[_i];
	char path[4096], what[64];
	const char *argv[] = { path, fast_secs(), "nofp", NULL };
	const char *in[2];
	char hot[64];
	struct pk_tally t, all;
	struct pk_run r;

	pk_dwarf_nofp_path("nocfi", variant, path, sizeof(path));
	snprintf(what, sizeof(what), "nocfi-%s nofp", variant);
	pk_profile_command(fast_opts(), argv, &r);
	/* judged in the measured code (its leaf): the start-up's and exit's
	 * stacks are whole, and their share grows with a slow machine's */
	pk_measured_code("leaf", hot, sizeof(hot), in);
	t = pk_count_whole_in(&r.f, r.comm, in, cut);
	all = pk_count_whole(&r.f, r.comm, cut);
	fprintf(stderr, "dwarf %s: %lu of %lu samples in the measured code cut at mid_nofp "
		"(%lu of all), %.1f%% no CFI at PC\n", what, t.whole, t.total, all.total,
		100 * end_share(r.err, "no CFI at PC"));
	pk_print_user_stacks_line(what, r.err);
	ck_assert_msg(t.total >= PK_WHOLE_MIN_SAMPLES, "%s: only %lu samples", what, t.total);
	ck_assert_msg(t.whole >= PK_WHOLE_MIN * t.total, "%s: %lu of %lu samples cut at "
		      "mid_nofp:\n%s", what, t.whole, t.total,
		      pk_not_whole_text(&r.f, r.comm, in, cut, 12));
	/* every cut walk counted as such: the share is of all user stacks */
	ck_assert_msg(end_share(r.err, "no CFI at PC") * all.total >= PK_WHOLE_MIN * t.whole,
		      "%s: walks not counted as no CFI at PC:\n%s", what, r.err);
	ck_assert_msg(end_share(r.err, "complete") <= 1 - PK_WHOLE_MIN, "%s: cut walks counted "
		      "complete:\n%s", what, r.err);
	pk_run_free(&r);
}
END_TEST

/*
 * glibc's __vfork keeps the return address in %rdi while the parent waits
 * for its child to exec (DW_CFA_register rip, rdi). Off-CPU samples of the
 * parent there, where the interrupted registers are known, walk through it
 * to _start; before, every one ended at __vfork ("loop": its CFA is RSP
 * itself once the return address is popped).
 * Weights are microseconds blocked.
 */
START_TEST(test_vfork_ra_in_register)
{
	static const char *const in_vfork[] = { "~*;*vfork;~K", NULL };
	static const char *const whole[] = { PK_START ";spawn_one;*vfork;~K", NULL };
	const char *const extra[] = { "-e", "off-cpu", NULL };
	const char *variant = pk_dwarf_variants[_i];
	char path[4096], what[64];
	const char *argv[] = { path, "300", NULL };
	struct pk_tally v, w;
	struct pk_run r;

	pk_dwarf_nofp_path("vfork", variant, path, sizeof(path));
	snprintf(what, sizeof(what), "vfork-%s", variant);
	pk_profile_command(extra, argv, &r);
	v = pk_count_whole(&r.f, r.comm, in_vfork);
	w = pk_count_whole(&r.f, r.comm, whole);
	fprintf(stderr, "dwarf %s off-cpu: %lu us blocked in vfork, %lu us of it whole (%.1f%%)\n",
		what, v.whole, w.whole, v.whole ? 100.0 * w.whole / v.whole : 0.0);
	pk_print_user_stacks_line(what, r.err);
	ck_assert_msg(v.whole > 0, "%s: no off-CPU time in vfork:\n%s", what, r.out);
	ck_assert_msg(w.whole >= PK_WHOLE_MIN * v.whole, "%s: %lu of %lu us in vfork whole:\n%s",
		      what, w.whole, v.whole, pk_not_whole_text(&r.f, r.comm, NULL, whole, 12));
	pk_run_free(&r);
}
END_TEST

/*
 * LD_BIND_NOT=1: every PLT call goes through _dl_runtime_resolve_xsavec,
 * whose CFA is in %rbx, a non-leaf frame under _dl_fixup and the symbol
 * lookup. The walk carries rbx up from the leaf through the frames that
 * save it. Measured: before, 83% of the samples under the resolver were
 * whole (the rest "unsupported rule" there), 100% after (4 builds, about
 * 380 samples each): RESOLVE_WHOLE_MIN lies between.
 */
#define RESOLVE_WHOLE_MIN	0.97

START_TEST(test_lazy_binding_rbx_cfa)
{
	static const char *const pats[] = { PK_START ";call_many;~*|K", NULL };
	static const char *const in_resolve[] = { "~*;_dl_runtime_resolve*;~*|K", NULL };
	static const char *const resolve_whole[] = {
		PK_START ";call_many;_dl_runtime_resolve*;~*|K", NULL };
	const char *variant = pk_dwarf_variants[_i];
	char path[4096], what[64];
	const char *argv[] = { path, fast_secs(), NULL };
	struct pk_tally t, w;
	struct pk_run r;

	pk_dwarf_nofp_path("lazy", variant, path, sizeof(path));
	snprintf(what, sizeof(what), "lazy-%s", variant);
	/* the fixture inherits it from probe-load (this test's own process:
	 * check forks one per test), and is the command itself, so that its
	 * table is loaded before it starts, not reported later */
	ck_assert_int_eq(setenv("LD_BIND_NOT", "1", 1), 0);
	pk_profile_command(fast_opts(), argv, &r);
	unsetenv("LD_BIND_NOT");
	pk_assert_whole(what, &r, "call_many", pats);
	t = pk_count_whole(&r.f, r.comm, in_resolve);
	w = pk_count_whole(&r.f, r.comm, resolve_whole);
	fprintf(stderr, "  %s: %lu samples in _dl_runtime_resolve, %lu of them whole\n", what,
		t.whole, w.whole);
	ck_assert_msg(t.whole * 2 >= t.total, "%s: only %lu of %lu samples under "
		      "_dl_runtime_resolve: is binding lazy?", what, t.whole, t.total);
	ck_assert_msg(w.whole >= RESOLVE_WHOLE_MIN * t.whole, "%s: %lu of %lu samples under "
		      "_dl_runtime_resolve whole:\n%s", what, w.whole, t.whole,
		      pk_not_whole_text(&r.f, r.comm, NULL, resolve_whole, 12));
	pk_run_free(&r);
}
END_TEST

/* 250 frames of recursion, 254 user frames with _start..main: within the
 * unwinder's 256, so whole. */
START_TEST(test_recurse_whole)
{
	const char *variant = pk_dwarf_variants[_i];
	char path[4096], what[64], *pat, *p;
	const char *argv[] = { path, fast_secs(), NULL };
	const char *pats[2];
	struct pk_run r;

	pk_dwarf_nofp_path("recurse", variant, path, sizeof(path));
	snprintf(what, sizeof(what), "recurse-%s", variant);
	pat = malloc(sizeof(PK_START) + 250 * 4 + 8);
	ck_assert_ptr_nonnull(pat);
	p = stpcpy(pat, PK_START);
	for (int i = 0; i < 250; i++)
		p = stpcpy(p, ";rec");
	stpcpy(p, ";~K");
	pats[0] = pat;
	pats[1] = NULL;
	pk_profile_command(fast_opts(), argv, &r);
	pk_assert_whole(what, &r, "rec", pats);
	free(pat);
	pk_run_free(&r);
}
END_TEST

/* Rust: Debian's rustc, -C force-frame-pointers=no, under std's runtime
 * start (std::rt::lang_start_internal ... rust::main). The core:: helpers
 * chain_c calls are inlined into it: its inline frames, after it. */
START_TEST(test_rust_whole)
{
	const char *variant = _i ? "rustc-nopie" : "rustc-pie";
	static const char *const pats[] = {
		PK_START ";std::rt::lang_start_internal*;+*;rust::main*;chain_a;chain_b;chain_c;~core::*;~K",
		NULL };
	char path[4096], what[64];
	const char *argv[] = { path, fast_secs(), NULL };
	struct pk_run r;

	pk_dwarf_nofp_path("rust", variant, path, sizeof(path));
	snprintf(what, sizeof(what), "rust-%s", variant);
	pk_profile_command(fast_opts(), argv, &r);
	/* the chain: rust::main's closure is the thread that watches the CPU
	 * time, sleeping, whole from clone3 (10% of a TCG guest's samples) */
	pk_assert_whole(what, &r, "chain_a|chain_b|chain_c", pats);
	pk_run_free(&r);
}
END_TEST

/*
 * Debian's node (V8): its Builtins_* are code in the node binary that no
 * FDE covers. Before frame-pointer steps at such PCs 1.5% of the stacks
 * were whole (yet counted complete); --unwind fp reaches
 * __libc_start_call_main in 99% (libc's frameless _start hides the rest).
 * Whole: from _start, or a thread's clone3, and the samples in V8's
 * builtins are whole too.
 */
START_TEST(test_node_whole)
{
	static const char *const pats[] = {
		PK_START_NOMAIN ";node::Start*;~*|K",
		"*clone3;start_thread;~*|K", NULL };
	static const char *const in_builtins[] = { "~*;Builtins_*;~*|K", NULL };
	static const char *const builtins_whole[] = {
		PK_START_NOMAIN ";node::Start*;~*;Builtins_*;~*|K", NULL };
	char script[4096];
	const char *argv[] = { "/usr/bin/node",
			       pk_test_src_path("tests/fixtures_nofp/loop.js", script,
						sizeof(script)), PK_DWARF_RUN_STR, NULL };
	struct pk_tally b, bw;
	struct pk_run r;

	ck_assert_msg(access(argv[0], X_OK) == 0, "%s missing (apt-get install nodejs)",
		      argv[0]);
	pk_profile_command(NULL, argv, &r);
	pk_assert_whole("node", &r, "node::*|v8::*|Builtins_*|uv_*|start_thread", pats);
	b = pk_count_whole(&r.f, r.comm, in_builtins);
	bw = pk_count_whole(&r.f, r.comm, builtins_whole);
	fprintf(stderr, "  node: %lu samples in V8 builtins, %lu of them whole\n", b.whole,
		bw.whole);
	/* enough to judge a share: V8's start-up (a third of a TCG guest's
	 * samples) is in the run too */
	ck_assert_msg(b.whole >= PK_WHOLE_MIN_SAMPLES / 2, "node: only %lu of %lu samples in V8's "
		      "builtins", b.whole, b.total);
	ck_assert_msg(bw.whole >= PK_WHOLE_MIN * b.whole, "node: %lu of %lu samples in V8's "
		      "builtins whole", bw.whole, b.whole);
	pk_run_free(&r);
}
END_TEST

/* Debian's python3.11, built without frame pointers: from _start through
 * main (a tail call to Py_BytesMain: no frame of its own), Py_RunMain, to
 * the bytecode interpreter; or through pymain_init, whose imports run
 * bytecode too (10% of the samples in a TCG guest, where reading the
 * modules is slow). The interpreter's frame is the Python frames it runs
 * (`spin (loop.py:22)`, `_find_and_load (<frozen importlib._bootstrap>:1178)`:
 * python_e2e judges those), or stays native where a call of it has none
 * yet. */
START_TEST(test_python_whole)
{
	static const char *const pats[] = {
		"_start;__libc_start_main*;__libc_start_call_main;%main;Py_BytesMain;"
		"%pymain_main;Py_RunMain|pymain_init;+*;"
		"_PyEval_EvalFrameDefault|* (*.py:*)|* (<frozen *>:*);~*|K", NULL };
	char script[4096];
	const char *argv[] = { "/usr/bin/python3.11",
			       pk_test_src_path("tests/fixtures_nofp/loop.py", script,
						sizeof(script)), PK_DWARF_RUN_STR, NULL };
	struct pk_run r;

	ck_assert_msg(access(argv[0], X_OK) == 0, "%s missing (make test-deps)", argv[0]);
	pk_profile_command(NULL, argv, &r);
	pk_assert_whole("python3.11", &r, "_PyEval_*|PyEval_*", pats);
	pk_run_free(&r);
}
END_TEST

/*
 * The control: --unwind fp on the same fixture. chain5 has no frame
 * pointers, and f3 leaves junk (0x7) in %rbp for f4 and f5: a frame-pointer
 * walk from f5 cannot find f5's caller. That is certain; what else the walk
 * shows is not asserted.
 */
START_TEST(test_fp_walk_loses_chain)
{
	static const char *const any_caller_of_f5[] = { "~*;f4;f5;~K", NULL };
	const char *extra[] = { "--unwind", "fp", NULL };
	char path[4096];
	const char *argv[] = { path, "2", NULL };
	struct pk_tally whole, f4f5;
	struct pk_run r;

	pk_e2e_fixture_nofp("chain5-gcc-pie", path, sizeof(path));
	pk_profile_command(extra, argv, &r);
	whole = pk_count_whole(&r.f, r.comm, pk_dwarf_chain5_pats);
	f4f5 = pk_count_whole(&r.f, r.comm, any_caller_of_f5);
	fprintf(stderr, "fp chain5-gcc-pie: %lu samples, %lu whole (%.1f%%), %lu with f4;f5\n",
		whole.total, whole.whole, 100 * pk_tally_share(whole), f4f5.whole);
	ck_assert_msg(whole.total >= PK_WHOLE_MIN_SAMPLES, "only %lu samples", whole.total);
	ck_assert_msg(f4f5.whole == 0, "a frame-pointer walk found f5's caller in %lu samples:"
		      "\n%s", f4f5.whole, r.out);
	pk_run_free(&r);
}
END_TEST

/*
 * Hostile stacks (tests/fixtures_nofp/hostile.c): RSP unmapped, a fake
 * stack of one return address over and over, RBP below RSP, code without a
 * table whose frame pointer leads to a return address of 0. The walk must
 * end each time, the kernel's counters must say why (read fault, depth
 * limit, loop, complete), and every record must read back whole: a walk
 * that ends is still a sample, never a bad record. Loop index: mode * 2 +
 * variant.
 */
START_TEST(test_hostile_stacks_end)
{
	static const struct {
		const char *mode, *hot;
		enum pk_counter why;
	} modes[] = {
		{ "rsp", "bad_rsp", PK_CNT_END_READ_FAULT },
		{ "fake", "fake_stack|hostile_fake_pc", PK_CNT_END_DEPTH },
		{ "loop", "rbp_below", PK_CNT_END_LOOP },
		/* the anonymous page's code, without a caller: [unknown]
		 * once the process exited (a slow machine's reader comes
		 * later), as no file names it */
		{ "zero", "\\[anon]|\\[unknown]", PK_CNT_END_COMPLETE },
	};
	static const char *const hostile_variants[] = { "gcc-pie", "clang-nopie" };
	const char *mode = modes[_i / 2].mode, *variant = hostile_variants[_i % 2];
	char path[4096], what[64];
	const char *load[] = { "-F", PK_WHOLE_FREQ, "--", path, mode, "2", NULL };
	struct pk_session_fds fds;
	struct pk_session info;
	__u64 cnt[PK_CNT__MAX], ends = 0;
	char *out = NULL, *err = NULL, buf[128], comm[16];
	const char *in[2];
	struct pk_folded f;
	struct pk_tally hot;

	pk_dwarf_nofp_path("hostile", variant, path, sizeof(path));
	snprintf(what, sizeof(what), "hostile-%s %s", variant, mode);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	pk_e2e_read_until_exit(&out, &err);
	ck_assert_int_eq(pk_session_open(pk_e2e_pin_dir(), &fds, &info), 0);
	ck_assert_int_eq(pk_counters_read(fds.counters, cnt), 0);
	pk_session_close(&fds);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	for (int e = PK_END_COMPLETE; e < PK_END__MAX; e++)
		ends += cnt[pk_end_counter(e)];
	/* the walks counted are all the fixture's, start-up and exit too:
	 * judged against its samples in the hostile code */
	pk_e2e_parse_folded(out, &f);
	pk_measured_code(modes[_i / 2].hot, buf, sizeof(buf), in);
	pk_e2e_comm_of(path, comm);
	hot = pk_count_whole_in(&f, comm, in, in);
	pk_folded_free(&f);
	fprintf(stderr, "dwarf %s: %llu of %llu walks ended as expected, %lu samples in %s\n",
		what, (unsigned long long)cnt[modes[_i / 2].why], (unsigned long long)ends,
		hot.total, modes[_i / 2].hot);
	pk_print_user_stacks_line(what, err);
	ck_assert_msg(hot.total >= PK_WHOLE_MIN_SAMPLES / 2 && hot.total * 2 >= ends,
		      "%s: only %lu samples in %s of %llu walks", what, hot.total,
		      modes[_i / 2].hot, (unsigned long long)ends);
	ck_assert_msg(cnt[modes[_i / 2].why] >= PK_WHOLE_MIN * hot.total, "%s: %llu walks ended as "
		      "expected, of %lu samples in %s:\n%s", what,
		      (unsigned long long)cnt[modes[_i / 2].why], hot.total, modes[_i / 2].hot,
		      err);
	ck_assert_msg(!strstr(err, "bad records"), "%s: records probe-read could not read:\n%s",
		      what, err);
	free(out);
	free(err);
}
END_TEST

Suite *suite_dwarf(void)
{
	Suite *s = suite_create("dwarf");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF programs"))
		return s;
	/* loop index: variant * NFIXTURES + fixture */
	tc = pk_e2e_tcase(s, "fixtures", 60);
	for (int v = 0; v < PK_DWARF_NCORE_VARIANTS; v++)
		tcase_add_loop_test(tc, test_fixture_whole_stacks, v * NFIXTURES,
				    v * NFIXTURES + NKERNEL_FIXTURES);

	/* rules that need registers carried from the leaf */
	tc = pk_e2e_tcase(s, "registers", 60);
	tcase_add_loop_test(tc, test_vfork_ra_in_register, 0, PK_DWARF_NCORE_VARIANTS);

	/* what differs in user code only, on the core variants */
	tc = pk_e2e_tcase(s, "user_shapes", 60);
	tcase_set_tags(tc, USER_SHAPES);
	for (int v = 0; v < PK_DWARF_NCORE_VARIANTS; v++)
		tcase_add_loop_test(tc, test_fixture_whole_stacks, v * NFIXTURES + NKERNEL_FIXTURES,
				    (v + 1) * NFIXTURES);
	tcase_add_loop_test(tc, test_nocfi_without_frame_pointer, 0, PK_DWARF_NCORE_VARIANTS);
	tcase_add_loop_test(tc, test_recurse_whole, 0, PK_DWARF_NCORE_VARIANTS);
	tcase_add_loop_test(tc, test_rust_whole, 0, 2);
	tcase_add_test(tc, test_python_whole);
	tcase_add_test(tc, test_node_whole);
	tcase_add_loop_test(tc, test_lazy_binding_rbx_cfa, 0, PK_DWARF_NCORE_VARIANTS);
	tcase_add_test(tc, test_fp_walk_loses_chain);

	tc = pk_e2e_tcase(s, "tables_at_run_time", 60);
	pk_dwarf_tables_tests(tc);

	/* the same cases on the other variants */
	tc = pk_e2e_tcase(s, "more_variants", 60);
	tcase_set_tags(tc, MORE_VARIANTS);
	tcase_add_loop_test(tc, test_fixture_whole_stacks, NFIXTURES * PK_DWARF_NCORE_VARIANTS,
			    NFIXTURES * PK_DWARF_NVARIANTS);
	tcase_add_loop_test(tc, test_nocfi_without_frame_pointer, PK_DWARF_NCORE_VARIANTS,
			    PK_DWARF_NVARIANTS);
	tcase_add_loop_test(tc, test_recurse_whole, PK_DWARF_NCORE_VARIANTS, PK_DWARF_NVARIANTS);
	tcase_add_loop_test(tc, test_vfork_ra_in_register, PK_DWARF_NCORE_VARIANTS,
			    PK_DWARF_NVARIANTS);
	tcase_add_loop_test(tc, test_lazy_binding_rbx_cfa, PK_DWARF_NCORE_VARIANTS,
			    PK_DWARF_NVARIANTS);
	pk_dwarf_tables_more_variants(tc);

	tc = pk_e2e_tcase(s, "room", 180);
	pk_dwarf_room_tests(tc);

	tc = pk_e2e_tcase(s, "hostile", 60);
	tcase_add_loop_test(tc, test_hostile_stacks_end, 0, 8);

	return s;
}
