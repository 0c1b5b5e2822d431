// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, Python that the walk must not misread (python_run.h says how
 * the fixtures run): a python3 that is none (CPython's names, no
 * _PyRuntime), trunc.py's chain broken under b (unmapped, or junk), and an
 * interpreter whose _Py_DebugOffsets the walk cannot read. Native frames
 * stay, no Python frame is invented, and at most one line speaks of Python.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "integration/python_run.h"
#include "test_util.h"

/* Lines of TEXT that speak of Python (case-insensitively). */
static int python_lines(const char *text)
{
	int n = 0;

	for (const char *l = text; l && *l;) {
		const char *nl = strchrnul(l, '\n');
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)(nl - l), l);
		for (char *c = line; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		n += strstr(line, "python") != NULL;
		l = *nl ? nl + 1 : nl;
	}
	return n;
}

/* --- damaged interpreters ------------------------------------------------------ */

/* A python3 that is none: its frames as they are, nothing Python. */
START_TEST(test_fake_python)
{
	const char *argv[] = { pk_pyrun_built("python3"), "1.5", NULL };
	unsigned long all = 0, whole = 0, py = 0;
	struct run r = { 0 };

	pk_pyrun_profile(NULL, argv, NULL, &r);
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];
		static const char *const want[] = { "python3", "_start", "__libc_start_main",
			"__libc_start_call_main", "main", "Py_BytesMain", "Py_RunMain", EVAL_FN,
			"fake_spin" };
		size_t n = sizeof(want) / sizeof(want[0]), k;

		if (!pk_pyrun_root_is(s, "python3", 0))
			continue;
		all += s->count;
		py += s->npy ? s->count : 0;
		for (k = 0; k < n && k < s->n && !strcmp(s->v[k], want[k]); k++)
			;
		if (k < n)
			continue;
		/* kernel frames above the leaf only */
		while (k < s->n && strstr(s->v[k], "_[k]"))
			k++;
		whole += k == s->n ? s->count : 0;
	}
	fprintf(stderr, "python fake python3: %lu samples, %lu whole native, %lu with Python "
		"frames; stderr: %d and %d lines of Python\n", all, whole, py,
		python_lines(r.load_err), python_lines(r.err));
	ck_assert_msg(all >= MIN_SAMPLES, "only %lu samples", all);
	ck_assert_msg(py == 0, "%lu samples with Python frames invented", py);
	ck_assert_msg(whole >= PY_MIN * all, "%lu of %lu samples whole", whole, all);
	ck_assert_msg(python_lines(r.load_err) + python_lines(r.err) <= 1,
		      "more than a line about Python:\n%s\n%s", r.load_err, r.err);
	pk_pyrun_run_free(&r);
}
END_TEST

/*
 * An interpreter whose structures the walk cannot read: a copy of the Debian
 * 13 root's python3.13 whose _Py_DebugOffsets says 3.15 (its own Py_Version
 * still 3.13.5; CPython itself never reads the structure). One line names
 * the file and its version, and its samples are native: the eval loop's
 * frames, no Python frame. Read while it runs, from its first instruction
 * (the user's case of issue 32), and attached to, read after its exit.
 */
START_TEST(test_unreadable_interpreter)
{
	const struct interp *base = &pk_pyrun_interps[PY313];
	char dir[64], copy[4096], want[256], *line = NULL;
	const struct interp in = { "python3.13", base->root, dir };
	const char *argv[MAX_ARGS];
	const char *const args[] = { _i ? "1.5" : "2", NULL };
	unsigned long all = 0, eval = 0, py = 0;
	struct run r = { 0 };
	size_t len;
	char *data, *cookie;
	__u64 v315 = 0x030f00f0;
	int fd;

	/* the copy in the root's /tmp, as the fixture's oracle files are */
	snprintf(dir, sizeof(dir), "/tmp/pk-unreadable-%d", (int)getpid());
	snprintf(copy, sizeof(copy), "%s", pk_pyrun_root_path(base, dir));
	ck_assert_int_eq(mkdir(copy, 0755), 0);
	snprintf(copy + strlen(copy), sizeof(copy) - strlen(copy), "/python3.13");
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/python3.13");
	data = pk_test_read_file(pk_pyrun_root_path(base, base->prog), &len);
	ck_assert_ptr_nonnull(data);
	/* the structure: the cookie and the version (the cookie's string is
	 * in .rodata too) */
	cookie = NULL;
	for (char *c = data; (c = memmem(c, len - (c - data), "xdebugpy", 8)); c += 8) {
		__u64 v;

		if (c + 16 > data + len)
			break;
		memcpy(&v, c + 8, sizeof(v));
		if (v == 0x030d05f0) {
			ck_assert_ptr_null(cookie);
			cookie = c;
		}
	}
	ck_assert_ptr_nonnull(cookie);
	memcpy(cookie + 8, &v315, sizeof(v315));
	fd = open(copy, O_WRONLY | O_CREAT | O_EXCL, 0755);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	free(data);

	if (_i) {
		const char *const held_args[] = { "1.5", "", NULL };

		pk_pyrun_interp_argv(&in, "chain.py", held_args, argv);
		pk_pyrun_profile_held_in(&in, NULL, argv, NULL, true, &r);
	} else {
		pk_pyrun_interp_argv(&in, "chain.py", args, argv);
		pk_pyrun_profile_in(&in, NULL, argv, NULL, &r);
	}
	for (size_t i = 0; i < r.n; i++) {
		if (!pk_pyrun_root_is(&r.s[i], "python3.13", 0))
			continue;
		all += r.s[i].count;
		eval += r.s[i].eval_left ? r.s[i].count : 0;
		py += r.s[i].npy ? r.s[i].count : 0;
	}
	/* the one line, from whichever tool loaded the file's table */
	snprintf(want, sizeof(want), "%s: Python 3.13.5 (0x030d05f0) is not supported: "
		 "native frames only", dir);
	line = strstr(r.load_err ? r.load_err : "", want) ? r.load_err : r.err;
	fprintf(stderr, "python unreadable interpreter (%s): %lu samples, %lu in %s, %lu with "
		"Python frames; stderr: %d and %d lines of Python\n", _i ? "read after" :
		"read during", all, eval, EVAL_FN, py, python_lines(r.load_err),
		python_lines(r.err));
	ck_assert_msg(python_lines(r.load_err) + python_lines(r.err) == 1,
		      "not one line about Python:\n%s\n%s", r.load_err, r.err);
	ck_assert_msg(line && strstr(line, want), "no '%s' in:\n%s\n%s", want, r.load_err,
		      r.err);
	ck_assert_msg(all >= MIN_SAMPLES / 2, "only %lu samples", all);
	ck_assert_msg(py == 0, "%lu samples with Python frames", py);
	ck_assert_msg(eval >= 0.9 * all, "only %lu of %lu samples in %s", eval, all, EVAL_FN);
	unlink(copy);
	*strrchr(copy, '/') = '\0';
	rmdir(copy);
	pk_pyrun_run_free(&r);
}
END_TEST

/* trunc.py: the chain broken under b (unmapped, or junk): the walk gives
 * b;c;hot and no more, the native frames stay. Attached once the chain is
 * broken (held at the start of hot): every sample that runs Python is of
 * a walk from hot, none of the start-up, whose walks (<module> importing)
 * may leave an eval frame unexplained and did hold <module>, as a frame
 * invented below the cut would. */
START_TEST(test_truncated_chain)
{
	static const char *const cut[] = { "b", "c", "hot", NULL };
	const char *mode = _i ? "junk" : "unmapped";
	const char *argv[] = { PYTHON, pk_pyrun_script("trunc.py"), "1.5", mode, NULL, NULL };
	unsigned long runs = 0, ok = 0, invented = 0;
	struct oracle_stack want = { .tag = "cut" };
	struct run r = { 0 };
	struct oracle o;

	pk_pyrun_oracle_path(&r, "trunc");
	argv[4] = r.oracle_path;
	pk_pyrun_profile_held_in(NULL, NULL, argv, NULL, false, &r);
	pk_pyrun_oracle_read(r.oracle_path, &o);
	/* the fixture's stack before the cut; after it, b's line is its call of c */
	ck_assert_int_eq(pk_pyrun_oracle_get(&o, "b")->n, 4);
	want.f = calloc(3, sizeof(*want.f));
	ck_assert_ptr_nonnull(want.f);
	for (want.n = 0; cut[want.n]; want.n++) {
		snprintf(want.f[want.n].name, sizeof(want.f->name), "%s", cut[want.n]);
		snprintf(want.f[want.n].file, sizeof(want.f->file), "trunc.py");
		want.f[want.n].line = -1;
	}
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];

		if (!pk_pyrun_root_is(s, "python3.11", 0) || !pk_pyrun_runs_python(s))
			continue;
		runs += s->count;
		if (pk_pyrun_has_py(s, "<module>") || pk_pyrun_has_py(s, "main") || pk_pyrun_has_py(s, "a"))
			invented += s->count;
		if (pk_pyrun_equals(s, &want, false) && pk_pyrun_contiguous(s) && !s->eval_left &&
		    pk_pyrun_native_root_ok(s, "Py_RunMain"))
			ok += s->count;
		else
			pk_pyrun_note_bad(mode, s);
	}
	fprintf(stderr, "python truncated chain (%s): %lu samples after the cut, %lu with "
		"b;c;hot under the native frames (%.2f%%), %lu with frames below the cut; stderr: "
		"%d and %d lines of Python\n", mode, runs, ok, runs ? 100.0 * ok / runs : 0,
		invented, python_lines(r.load_err), python_lines(r.err));
	if (ok < PY_MIN * runs)
		pk_pyrun_print_stacks(&r, "python3.11", 12);
	ck_assert_msg(runs >= MIN_SAMPLES / 2, "only %lu samples", runs);
	ck_assert_msg(invented == 0, "%lu samples with frames below the cut", invented);
	ck_assert_msg(ok >= PY_MIN * runs, "%lu of %lu samples with b;c;hot", ok, runs);
	ck_assert_msg(python_lines(r.load_err) + python_lines(r.err) <= 1,
		      "more than a line about Python:\n%s\n%s", r.load_err, r.err);
	free(want.f);
	pk_pyrun_oracle_free(&o);
	pk_pyrun_run_free(&r);
}
END_TEST

Suite *suite_python_damaged(void)
{
	Suite *s = suite_create("python_damaged");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "damaged", 120);
	tcase_add_test(tc, test_fake_python);
	tcase_add_loop_test(tc, test_truncated_chain, 0, 2);
	tcase_add_loop_test(tc, test_unreadable_interpreter, 0, 2);
	return s;
}
