// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, Python with native code between Python frames
 * (python_run.h says how the fixtures run and what the shares are of):
 * callback.py, C that calls Python (json's scanner calling object_hook,
 * re.sub calling repl), with the exact native frames between; threads.py,
 * two threads each with its own chain from clone3 (--per-tid); aio.py, two
 * asyncio tasks, each whole above the event loop. Under python3.11 and the
 * test roots' 3.13 and 3.14 and their -dbg builds.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integration/python_run.h"
#include "test_util.h"

/* A fixture's stack that a test expects, by its tag, and its names. */
struct expect {
	const char *tag;
	const char *const *names;
	const struct oracle_stack *got;
};

/* NAME 1.5 ORACLE under IN, read with READ: on the host from its first
 * instruction; in a root held (PK_FIXTURE_HOLD), attached to once its
 * imports are done: there the start-up, until the tables of the root's
 * files are in place, takes a third of 1.5 s (a walk that cannot reach the
 * interpreter gives no Python frame). The two stacks the fixture wrote of
 * itself, checked against EX's names. */
static void profile_script(const struct interp *in, const char *name, const char *const read[],
			   struct expect ex[2], struct run *r, struct oracle *o)
{
	const char *argv[MAX_ARGS];
	const char *const args[] = { "1.5", r->oracle_arg, NULL };

	pk_pyrun_oracle_path_in(r, name, in);
	pk_pyrun_interp_argv(in, name, args, argv);
	if (in->root)
		pk_pyrun_profile_held_in(in, NULL, argv, read, false, r);
	else
		pk_pyrun_profile_in(in, NULL, argv, read, r);
	pk_pyrun_oracle_read(r->oracle_path, o);
	for (int i = 0; i < 2; i++) {
		ex[i].got = pk_pyrun_oracle_get(o, ex[i].tag);
		pk_pyrun_oracle_names(ex[i].got, ex[i].names);
	}
}

/* --- callback.py: C calls Python ----------------------------------------------- */

/* The native frames between two Python frames: those of the C code that
 * called back, on Debian's python3.11 (3.11.2-6+deb12u9), as gdb's bt shows
 * them with inline frames (checked against `gdb -p PID -ex bt`):
 * the eval loop's call of the scanner object, json's C scanner decoding a
 * list of objects, and the call of object_hook; _sre's sub calling repl.
 * On 3.13 and 3.14 (Debian 13's 3.13.5, sid's 3.14.10), as probe-read
 * names them with the roots' debug files, their frames as eu-stack -i
 * shows them (3.13's json hook: _PyObject_MakeTpCall, scanner_call,
 * scan_once_unicode twice, PyObject_CallOneArg; the rest inline frames):
 * the release builds inline more than the -dbg ones, which have the same
 * frames in 3.13 and 3.14. */
static const char *const json_311[] = { "_PyObject_MakeTpCall", "scanner_call",
	"scan_once_unicode", "_parse_array_unicode", "scan_once_unicode", "_parse_object_unicode",
	"PyObject_CallOneArg", "_PyObject_VectorcallTstate", "_PyFunction_Vectorcall",
	"_PyEval_Vector", "_PyEval_EvalFrame", NULL };
static const char *const json_313[] = { "_PyObject_MakeTpCall", "scanner_call",
	"scan_once_unicode", "_parse_array_unicode", "scan_once_unicode", "_parse_object_unicode",
	"PyObject_CallOneArg", "_PyObject_VectorcallTstate", NULL };
static const char *const json_dbg[] = { "PyObject_Vectorcall", "_PyObject_VectorcallTstate",
	"_PyObject_MakeTpCall", "scanner_call", "scan_once_unicode", "_parse_array_unicode",
	"scan_once_unicode", "_parse_object_unicode", "PyObject_CallOneArg",
	"_PyObject_VectorcallTstate", "_PyFunction_Vectorcall", "_PyEval_Vector",
	"_PyEval_EvalFrame", NULL };
static const char *const *const json_between[NPY] = {
	[PY311] = json_311, [PY313] = json_313, [PY314] = json_311,
	[PY313D] = json_dbg, [PY314D] = json_dbg,
};
static const char *const re_311[] = { "PyObject_Vectorcall", "_PyObject_VectorcallTstate",
	"method_vectorcall_FASTCALL_KEYWORDS_METHOD", "_sre_SRE_Pattern_sub",
	"_sre_SRE_Pattern_sub_impl", "pattern_subx", "PyObject_CallOneArg",
	"_PyObject_VectorcallTstate", "_PyFunction_Vectorcall", "_PyEval_Vector",
	"_PyEval_EvalFrame", NULL };
static const char *const re_313[] = { "PyObject_Vectorcall", "_PyObject_VectorcallTstate",
	"method_vectorcall_FASTCALL_KEYWORDS_METHOD", "pattern_subx", "PyObject_CallOneArg",
	"_PyObject_VectorcallTstate", NULL };
static const char *const re_314[] = { "pattern_subx", "PyObject_CallOneArg",
	"_PyObject_VectorcallTstate", "_PyFunction_Vectorcall", "_PyEval_Vector",
	"_PyEval_EvalFrame", NULL };
/* the -dbg builds' are 3.11's */
static const char *const *const re_between[NPY] = {
	[PY311] = re_311, [PY313] = re_313, [PY314] = re_314,
	[PY313D] = re_311, [PY314D] = re_311,
};

/* The interpreters of the tests of native frames between Python frames */
static const int mixed_interps[] = { PY311, PY313, PY313D, PY314, PY314D };
#define NMIXED	(int)(sizeof(mixed_interps) / sizeof(mixed_interps[0]))

/* The Python frames are the oracle's, and between Python frames there are
 * native frames exactly once: BETWEEN, right below the frame named CALLED
 * (the Python function the C code calls). */
static bool callback_ok(const struct stack *s, const struct oracle_stack *o, const char *called,
			const char *const between[])
{
	size_t nb = 0;

	if (!pk_pyrun_equals(s, o, false) || s->eval_left)
		return false;
	while (between[nb])
		nb++;
	for (size_t i = 1; i < s->npy; i++) {
		size_t gap = s->py_at[i] - s->py_at[i - 1] - 1;

		if (strcmp(s->py[i].name, called)) {
			if (gap)
				return false;
			continue;
		}
		if (gap != nb)
			return false;
		for (size_t k = 0; k < nb; k++)
			if (strcmp(s->v[s->py_at[i - 1] + 1 + k], between[k]))
				return false;
	}
	return true;
}

START_TEST(test_callback)
{
	static const char *const json_names[] = { "<module>", "main", "use_json", "loads",
		"decode", "raw_decode", "hook", "inner", "spin", NULL };
	static const char *const re_names[] = { "<module>", "main", "use_re", "sub", "repl",
		"spin_re", NULL };
	struct expect ex[2] = { { "spin", json_names, NULL }, { "spin_re", re_names, NULL } };
	unsigned long json_all = 0, json_ok = 0, re_all = 0, re_ok = 0;
	struct run r = { 0 };
	struct oracle o;
	const struct interp *in;

	_i = mixed_interps[_i];
	in = &pk_pyrun_interps[_i];
	ck_assert_ptr_nonnull(json_between[_i]);	/* not python3.11d */
	profile_script(in, "callback.py", NULL, ex, &r, &o);
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];

		if (!pk_pyrun_root_is(s, in->comm, 0) || pk_pyrun_in_oracle(s))
			continue;
		/* in the hook's call, below and above it */
		if (pk_pyrun_has_py(s, "use_json.<locals>.hook") || !strcmp(pk_pyrun_leaf(s), "inner") ||
		    !strcmp(pk_pyrun_leaf(s), "spin") || pk_pyrun_walk_failed(s)) {
			json_all += s->count;
			if (callback_ok(s, ex[0].got, "use_json.<locals>.hook", json_between[_i]))
				json_ok += s->count;
			else
				pk_pyrun_note_bad("json", s);
		}
		if (!strcmp(pk_pyrun_leaf(s), "spin_re") || pk_pyrun_walk_failed(s)) {
			re_all += s->count;
			if (callback_ok(s, ex[1].got, "use_re.<locals>.repl", re_between[_i]))
				re_ok += s->count;
			else
				pk_pyrun_note_bad("re", s);
		}
	}
	fprintf(stderr, "python callback %s: json hook %lu of %lu samples interleaved exactly "
		"(%.2f%%), re repl %lu of %lu (%.2f%%)\n", in->comm, json_ok, json_all,
		json_all ? 100.0 * json_ok / json_all : 0, re_ok, re_all,
		re_all ? 100.0 * re_ok / re_all : 0);
	if (json_ok < PY_MIN * json_all || re_ok < PY_MIN * re_all)
		pk_pyrun_print_stacks(&r, in->comm, 12);
	ck_assert_msg(json_all >= MIN_SAMPLES && re_all >= MIN_SAMPLES / 2,
		      "only %lu samples in the json hook, %lu in spin_re", json_all, re_all);
	ck_assert_msg(json_ok >= PY_MIN * json_all, "json: %lu of %lu interleaved exactly",
		      json_ok, json_all);
	ck_assert_msg(re_ok >= PY_MIN * re_all, "re: %lu of %lu interleaved exactly", re_ok,
		      re_all);
	pk_pyrun_oracle_free(&o);
	pk_pyrun_run_free(&r);
}
END_TEST

/* --- threads.py and aio.py: each its own stack ---------------------------- */

/* "COMM-PID/TID": TID, or 0. */
static pid_t tid_of(const struct stack *s)
{
	const char *slash = s->n ? strrchr(s->v[0], '/') : NULL;

	return slash ? (pid_t)atoi(slash + 1) : 0;
}

/* "COMM-PID[/TID]": PID, or 0 (COMM may have '-' of its own). */
static pid_t pid_of(const struct stack *s)
{
	char v[256], *slash, *dash;

	if (!s->n)
		return 0;
	snprintf(v, sizeof(v), "%s", s->v[0]);
	slash = strrchr(v, '/');
	if (slash)
		*slash = '\0';
	dash = strrchr(v, '-');
	return dash ? (pid_t)atoi(dash + 1) : 0;
}

/* Where a thread's Python frames have C between them: before CALLED (NULL:
 * the worker itself), BETWEEN. Thread.run calls its target
 * (CALL_FUNCTION_EX) through C on Debian's python3.11; from 3.13 the eval
 * loop calls a Python function there without C between (none in
 * probe-read's stacks or eu-stack's); 3.14's Thread._bootstrap_inner runs
 * Thread.run in the thread's context (Context.run, C): in the -dbg build
 * through PyObject_Vectorcall until the eval loop has specialized that
 * call (the first thread's), straight to context_run after (ALT). */
static const char *const no_frames[] = { NULL };
static const char *const thread_311[] = { "_PyFunction_Vectorcall", "_PyEval_Vector",
	"_PyEval_EvalFrame", NULL };
static const char *const thread_314[] = { "context_run", "_PyObject_VectorcallTstate",
	"method_vectorcall", "_PyObject_VectorcallPrepend", "_PyObject_VectorcallTstate",
	"_PyFunction_Vectorcall", "_PyEval_Vector", "_PyEval_EvalFrame", NULL };
static const char *const thread_314d[] = { "PyObject_Vectorcall", "_PyObject_VectorcallTstate",
	"method_vectorcall_FASTCALL_KEYWORDS", "context_run", "_PyObject_VectorcallTstate",
	"method_vectorcall", "_PyObject_VectorcallPrepend", "_PyObject_VectorcallTstate",
	"_PyFunction_Vectorcall", "_PyEval_Vector", "_PyEval_EvalFrame", NULL };
static const struct {
	const char *called;
	const char *const *between, *const *alt;
} thread_call[NPY] = {
	[PY311] = { NULL, thread_311, NULL },
	[PY313] = { NULL, no_frames, NULL },
	[PY313D] = { NULL, no_frames, NULL },
	[PY314] = { "Thread.run", thread_314, NULL },
	[PY314D] = { "Thread.run", thread_314d, thread_314 },
};

/* A thread's first frames: clone3 and start_thread, named on the host,
 * a root's libc has .dynsym only. */
static bool thread_start_ok(const struct interp *in, const struct stack *s)
{
	const char *libc = "\\[libc.so.6+0x*\\]";

	return s->n > 3 && !fnmatch(in->root ? libc : "clone3", s->v[1], 0) &&
	       !fnmatch(in->root ? libc : "start_thread", s->v[2], 0);
}

/* A stack of the process of IN that R ran: by its comm (3.14 names its
 * threads as their Thread objects are named: by its pid then, a held one's). */
static bool of_process(const struct interp *in, const struct run *r, const struct stack *s)
{
	return in->root ? pid_of(s) == r->pid : pk_pyrun_root_is(s, in->comm, 0);
}

START_TEST(test_threads)
{
	static const char *const tail_a[] = { "_bootstrap", "_bootstrap_inner", "run", "worker_a",
		"spin_a", NULL };
	static const char *const tail_b[] = { "_bootstrap", "_bootstrap_inner", "run", "worker_b",
		"spin_b", NULL };
	static const char *const read[] = { "--per-tid", NULL };
	struct expect ex[2] = { { "spin_a", tail_a, NULL }, { "spin_b", tail_b, NULL } };
	unsigned long runs = 0, ok = 0, in_a = 0, in_b = 0;
	pid_t tid_a = 0, tid_b = 0;
	const struct oracle_stack *oa, *ob;
	struct run r = { 0 };
	struct oracle o;
	bool mixed = false;
	const struct interp *in;
	const char *called;

	_i = mixed_interps[_i];
	in = &pk_pyrun_interps[_i];
	profile_script(in, "threads.py", read, ex, &r, &o);
	oa = ex[0].got;
	ob = ex[1].got;
	/* which thread runs which chain: the one its spin samples say */
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];
		pid_t tid = tid_of(s);

		if (!of_process(in, &r, s))
			continue;
		if (pk_pyrun_has_py(s, "spin_a")) {
			mixed |= tid_a && tid_a != tid;
			tid_a = tid;
		}
		if (pk_pyrun_has_py(s, "spin_b")) {
			mixed |= tid_b && tid_b != tid;
			tid_b = tid;
		}
	}
	ck_assert_msg(tid_a && tid_b && tid_a != tid_b && !mixed, "spin_a in thread %d, spin_b "
		      "in %d%s", tid_a, tid_b, mixed ? ", and in others" : "");
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];
		pid_t tid = tid_of(s);

		if (!of_process(in, &r, s) || (tid != tid_a && tid != tid_b) ||
		    !pk_pyrun_runs_python(s) || pk_pyrun_in_oracle(s))
			continue;
		runs += s->count;
		if (tid == tid_a && !strcmp(pk_pyrun_leaf(s), "spin_a"))
			in_a += s->count;
		if (tid == tid_b && !strcmp(pk_pyrun_leaf(s), "spin_b"))
			in_b += s->count;
		/* a thread's stack from clone3, its own chain whole */
		called = thread_call[_i].called ? thread_call[_i].called :
			 tid == tid_a ? "worker_a" : "worker_b";
		if ((callback_ok(s, tid == tid_a ? oa : ob, called, thread_call[_i].between) ||
		     (thread_call[_i].alt &&
		      callback_ok(s, tid == tid_a ? oa : ob, called, thread_call[_i].alt))) &&
		    thread_start_ok(in, s))
			ok += s->count;
		else
			pk_pyrun_note_bad("threads", s);
	}
	fprintf(stderr, "python threads %s: %lu samples of the two threads run Python, %lu in "
		"spin_a (thread %d), %lu in spin_b (thread %d), %lu whole (%.2f%%)\n", in->comm,
		runs, in_a, tid_a, in_b, tid_b, ok, runs ? 100.0 * ok / runs : 0);
	if (ok < PY_MIN * runs)
		pk_pyrun_print_stacks(&r, in->root ? "" : in->comm, 12);
	ck_assert_msg(in_a >= MIN_SAMPLES && in_b >= MIN_SAMPLES, "only %lu samples in spin_a, "
		      "%lu in spin_b", in_a, in_b);
	ck_assert_msg(ok >= PY_MIN * runs, "%lu of %lu samples of the threads whole", ok, runs);
	pk_pyrun_oracle_free(&o);
	pk_pyrun_run_free(&r);
}
END_TEST

START_TEST(test_asyncio)
{
	static const char *const names_a[] = { "<module>", "run", "run", "run_until_complete",
		"run_forever", "_run_once", "_run", "task_a", "step_a", "spin", NULL };
	static const char *const names_b[] = { "<module>", "run", "run", "run_until_complete",
		"run_forever", "_run_once", "_run", "task_b", "step_b", "spin", NULL };
	struct expect ex[2] = { { "a", names_a, NULL }, { "b", names_b, NULL } };
	unsigned long spin = 0, ok_a = 0, ok_b = 0;
	const struct oracle_stack *oa, *ob;
	struct run r = { 0 };
	struct oracle o;
	const struct interp *in = &pk_pyrun_interps[_i];

	profile_script(in, "aio.py", NULL, ex, &r, &o);
	oa = ex[0].got;
	ob = ex[1].got;
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];

		if (!pk_pyrun_root_is(s, in->comm, 0) ||
		    (!pk_pyrun_has_py(s, "spin") && !pk_pyrun_walk_failed(s)) || pk_pyrun_in_oracle(s))
			continue;
		spin += s->count;
		/* the coroutines' frames right above the event loop's Handle._run,
		 * which the C task step (_asyncio) runs: native frames between */
		if (pk_pyrun_equals(s, oa, false) && !s->eval_left)
			ok_a += s->count;
		if (pk_pyrun_equals(s, ob, false) && !s->eval_left)
			ok_b += s->count;
		if ((!pk_pyrun_equals(s, oa, false) && !pk_pyrun_equals(s, ob, false)) || s->eval_left)
			pk_pyrun_note_bad("asyncio", s);
	}
	fprintf(stderr, "python asyncio %s: %lu samples in spin, %lu whole as task_a's, %lu as "
		"task_b's (%.2f%%)\n", in->comm, spin, ok_a, ok_b,
		spin ? 100.0 * (ok_a + ok_b) / spin : 0);
	if (ok_a + ok_b < PY_MIN * spin)
		pk_pyrun_print_stacks(&r, in->comm, 12);
	ck_assert_msg(spin >= MIN_SAMPLES, "only %lu samples in spin", spin);
	/* the two tasks take turns by equal slices of CPU time */
	ck_assert_msg(ok_a * 3 >= spin && ok_b * 3 >= spin, "task_a %lu, task_b %lu of %lu",
		      ok_a, ok_b, spin);
	ck_assert_msg(ok_a + ok_b >= PY_MIN * spin, "%lu of %lu samples in spin whole",
		      ok_a + ok_b, spin);
	pk_pyrun_oracle_free(&o);
	pk_pyrun_run_free(&r);
}
END_TEST

Suite *suite_python_mixed(void)
{
	Suite *s = suite_create("python_mixed");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "mixed", 180);
	tcase_add_loop_test(tc, test_callback, 0, NMIXED);
	tcase_add_loop_test(tc, test_threads, 0, NMIXED);
	tcase_add_loop_test(tc, test_asyncio, 0, NPY);
	return s;
}
