// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, Python (issue 18): the scripts of tests/fixtures/python/ under
 * Debian's python3.11, its Py_DEBUG build python3.11d and an embedder of
 * libpython3.11.so, profiled with the real tools; and (issue 32) under
 * python3.13 and python3.14 and their -dbg builds, each in its Debian root
 * (tests/roots/: Debian 13, sid) as a container runs it, read with no
 * option: probe-read finds the root's debug files itself, while it runs
 * and after it exited (every address of the interpreter named by its
 * -dbg package's debug file), its libc without symbols. A Python frame in folded
 * output is "QUALNAME (FILE_BASENAME:LINE)", in place of the native
 * _PyEval_EvalFrameDefault frame that ran it, between the interpreter's
 * native frames.
 *
 * The oracles: each fixture prints its own stacks (traceback.extract_stack,
 * tests/fixtures/python/pkstack.py: file, line and name of every frame), and
 * gdb's py-bt (python3.11-dbg's helpers) reads a stopped fixture's stack.
 *
 * Shares. A sample "runs Python" when it has a Python frame or a native
 * _PyEval_EvalFrameDefault frame (a walk that gave nothing); shares are of
 * those, so that a sample whose walk failed counts against them. chain.py
 * and trunc.py are attached to (-p) once their start-up is over, stopped
 * by themselves at the start of hot (PK_FIXTURE_HOLD): every sample of
 * such a session that runs Python is of the hot phase (but for the few of
 * its return and exit), and 99% of all of them must carry the whole chain
 * (trunc.py's: b;c;hot, its chain broken by then). The other fixtures run
 * under probe-load -- CMD from their first instruction; their shares are of
 * the samples in the code they measure, found by their Python frames, and
 * of every sample whose walk failed (no Python frame where the eval loop
 * ran, or a code object never named), which counts against each share;
 * only the fixtures' reports of their own stacks (pkstack.dump) are left
 * out.
 */
#include <ctype.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/pprof_decode.h"
#include "integration/profile_session.h"
#include "test_util.h"

#define PYTHON		"/usr/bin/python3.11"
#define PYTHON_D	"/usr/bin/python3.11d"
#define FREQ_STR	"299"
/* CPU seconds of the hot phase: about 900 samples at 299 Hz */
#define HOT_SECS	"3"
#define MIN_SAMPLES	200
/* Shares the Python walk must reach: of the samples that run Python */
#define PY_MIN		0.99
#define EVAL_FN		"_PyEval_EvalFrameDefault"

/* An interpreter the tests run the fixtures under: the host's, or a test
 * root's (run by tests/roots/in_root.sh: the source tree at /mnt/probekit). */
struct interp {
	const char *comm;	/* its program's name: the stacks' root */
	const char *root;	/* the test root's name, or NULL: the host */
	const char *prog;	/* its path (in the root) */
};

enum { PY311, PY311D, PY313, PY313D, PY314, PY314D, NPY };

static const struct interp interps[NPY] = {
	[PY311] = { "python3.11", NULL, PYTHON },
	[PY311D] = { "python3.11d", NULL, PYTHON_D },
	[PY313] = { "python3.13", "trixie", "/usr/bin/python3.13" },
	[PY313D] = { "python3.13d", "trixie", "/usr/bin/python3.13d" },
	[PY314] = { "python3.14", "sid", "/usr/bin/python3.14" },
	[PY314D] = { "python3.14d", "sid", "/usr/bin/python3.14d" },
};

/* The releases, one of each version (the -dbg builds run the chains) */
static const int releases[] = { PY311, PY313, PY314 };
#define NRELEASES	(int)(sizeof(releases) / sizeof(releases[0]))

/* IN's root as the host sees it (REL under it), in one of 8 buffers used
 * in turn. */
static const char *root_path(const struct interp *in, const char *rel)
{
	static char path[8][4096];
	static int i;
	char r[4096];

	i = (i + 1) % 8;
	snprintf(r, sizeof(r), "%s%s", in->root, rel);
	return pk_test_roots_path(r, path[i], sizeof(path[i]));
}

/* --- stacks ----------------------------------------------------------------- */

struct pyframe {
	char name[256], file[256];
	long line;		/* -1: none printed */
};

/* "QUALNAME (FILE:LINE)": a Python frame, or "[py:0xADDR]" for one whose
 * code was never named; native frames never end in a parenthesized
 * "FILE:LINE" (folded output without --lines). */
static bool py_frame(const char *f, struct pyframe *p)
{
	size_t len = strlen(f);
	const char *open, *colon;
	char *end;

	/* a code object no report named: "[py:0xADDR]" */
	if (!strncmp(f, "[py:0x", 6) && f[len - 1] == ']') {
		snprintf(p->name, sizeof(p->name), "%s", f);
		p->file[0] = '\0';
		p->line = -1;
		return true;
	}
	if (len < 5 || f[len - 1] != ')')
		return false;
	open = NULL;
	for (const char *q = f; (q = strstr(q, " (")); q++)
		open = q;
	if (!open || open == f || strchr(open + 2, '(') || strchr(open + 2, ';'))
		return false;
	colon = memrchr(open + 2, ':', (size_t)(f + len - 1 - (open + 2)));
	if (!colon || colon == open + 2)
		return false;
	p->line = strtol(colon + 1, &end, 10);
	if (end != f + len - 1 || !isdigit((unsigned char)colon[1]))
		return false;
	snprintf(p->name, sizeof(p->name), "%.*s", (int)(open - f), f);
	snprintf(p->file, sizeof(p->file), "%.*s", (int)(colon - open - 2), open + 2);
	return true;
}

/* One folded line cut into its frames (v[0] the root: comm, or comm-PID/TID
 * with --per-tid), with its Python frames picked out. */
struct stack {
	char *copy;
	const char **v;
	size_t n;
	struct pyframe *py;	/* root first */
	size_t *py_at;		/* their indexes in v */
	size_t npy;
	bool eval_left;		/* a native _PyEval_EvalFrameDefault frame */
	unsigned long count;
};

static void stack_split(const struct pk_folded_line *l, struct stack *s)
{
	char *save = NULL, *p;
	struct pyframe pf;

	memset(s, 0, sizeof(*s));
	s->count = l->count;
	s->copy = strdup(l->stack);
	ck_assert_ptr_nonnull(s->copy);
	for (p = strtok_r(s->copy, ";", &save); p; p = strtok_r(NULL, ";", &save)) {
		s->v = pk_test_grow(s->v, s->n, sizeof(*s->v));
		ck_assert_ptr_nonnull(s->v);
		if (s->n && py_frame(p, &pf)) {
			s->py = pk_test_grow(s->py, s->npy, sizeof(*s->py));
			s->py_at = pk_test_grow(s->py_at, s->npy, sizeof(*s->py_at));
			ck_assert(s->py && s->py_at);
			s->py[s->npy] = pf;
			s->py_at[s->npy++] = s->n;
		} else if (!strcmp(p, EVAL_FN)) {
			s->eval_left = true;
		}
		s->v[s->n++] = p;
	}
}

static void stack_free(struct stack *s)
{
	free(s->copy);
	free(s->v);
	free(s->py);
	free(s->py_at);
}

static const char *py_leaf(const struct stack *s)
{
	return s->npy ? s->py[s->npy - 1].name : "";
}

static bool runs_python(const struct stack *s)
{
	return s->npy || s->eval_left;
}

/* In the fixture's own report of its stack (pkstack.dump), not in the
 * code measured: left out of the shares. A walk that fails there gives no
 * such frame, and counts. */
static bool in_oracle(const struct stack *s)
{
	for (size_t i = 0; i < s->npy; i++)
		if (!strcmp(s->py[i].name, "dump") && !strcmp(s->py[i].file, "pkstack.py"))
			return true;
	return false;
}

/* A walk that gave nothing where the eval loop ran, or a code object that
 * no report named. */
static bool walk_failed(const struct stack *s)
{
	if (s->eval_left)
		return true;
	for (size_t i = 0; i < s->npy; i++)
		if (!s->py[i].file[0])
			return true;
	return false;
}

/* The root frame is COMM, or COMM-PID[/TID] for PID (0: any). */
static bool root_is(const struct stack *s, const char *comm, pid_t pid)
{
	size_t len = strlen(comm);
	char want[64];

	if (!s->n || strncmp(s->v[0], comm, len))
		return false;
	if (!s->v[0][len])
		return pid == 0;
	if (s->v[0][len] != '-')
		return false;
	if (!pid)
		return true;
	snprintf(want, sizeof(want), "%d", pid);
	return !strncmp(s->v[0] + len + 1, want, strlen(want)) &&
	       (!s->v[0][len + 1 + strlen(want)] || s->v[0][len + 1 + strlen(want)] == '/');
}

static bool has_py(const struct stack *s, const char *name)
{
	for (size_t i = 0; i < s->npy; i++)
		if (!strcmp(s->py[i].name, name))
			return true;
	return false;
}

/* The Python frames are one run of frames, no native frame among them. */
static bool py_contiguous(const struct stack *s)
{
	return s->npy && s->py_at[s->npy - 1] - s->py_at[0] == s->npy - 1;
}

/* The frame of libc's __libc_start_call_main in S: named on the host
 * (libc6-dbg), a root's libc has .dynsym only (as perf shows it). */
static const char *libc_call_main(const struct stack *s)
{
	for (int i = 0; i < NPY; i++)
		if (interps[i].root && root_is(s, interps[i].comm, 0))
			return "\\[libc.so.6+0x*\\]";
	return "__libc_start_call_main";
}

/* The native frames below the first Python frame: the process's start
 * (_start, libc's) and MARK among them, where the interpreter runs
 * the script: Py_RunMain, or "main;embed_run" right after libc's. */
static bool native_root_ok(const struct stack *s, const char *mark)
{
	size_t end = s->npy ? s->py_at[0] : s->n;

	if (end < 5 || strcmp(s->v[1], "_start") || fnmatch("__libc_start_main*", s->v[2], 0) ||
	    fnmatch(libc_call_main(s), s->v[3], 0))
		return false;
	if (!strcmp(mark, "embed_run"))
		return end > 6 && !strcmp(s->v[4], "main") && !strcmp(s->v[5], "embed_run");
	for (size_t i = 4; i < end; i++)
		if (!strcmp(s->v[i], mark))
			return true;
	return false;
}

/* --- the fixtures' own stacks (pkstack.py) ---------------------------------- */

struct oracle_stack {
	char tag[64];
	struct pyframe *f;	/* root first; name: co_name */
	size_t n;
};

struct oracle {
	struct oracle_stack *s;
	size_t n;
};

static void oracle_read(const char *path, struct oracle *o)
{
	char *text = pk_test_read_file(path, NULL), *save = NULL;
	struct oracle_stack *cur = NULL;

	memset(o, 0, sizeof(*o));
	ck_assert_msg(text, "%s: the fixture wrote no stack", path);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *c1, *c2;

		if (l[0] == '#' && l[1] == ' ') {
			o->s = pk_test_grow(o->s, o->n, sizeof(*o->s));
			ck_assert_ptr_nonnull(o->s);
			cur = &o->s[o->n++];
			memset(cur, 0, sizeof(*cur));
			snprintf(cur->tag, sizeof(cur->tag), "%s", l + 2);
			continue;
		}
		c1 = strchr(l, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		ck_assert_msg(cur && c2, "%s: bad line '%s'", path, l);
		cur->f = pk_test_grow(cur->f, cur->n, sizeof(*cur->f));
		ck_assert_ptr_nonnull(cur->f);
		snprintf(cur->f[cur->n].file, sizeof(cur->f->file), "%.*s", (int)(c1 - l), l);
		cur->f[cur->n].line = atol(c1 + 1);
		snprintf(cur->f[cur->n].name, sizeof(cur->f->name), "%s", c2 + 1);
		cur->n++;
	}
	free(text);
}

static const struct oracle_stack *oracle_get(const struct oracle *o, const char *tag)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->s[i].tag, tag))
			return &o->s[i];
	ck_abort_msg("the fixture wrote no stack '%s'", tag);
	return NULL;
}

static void oracle_free(struct oracle *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->s[i].f);
	free(o->s);
}

/* A qualname names the code object the oracle names by its co_name. */
static bool same_code(const char *qualname, const char *co_name)
{
	size_t q = strlen(qualname), c = strlen(co_name);

	return !strcmp(qualname, co_name) ||
	       (q > c + 1 && qualname[q - c - 1] == '.' && !strcmp(qualname + q - c, co_name));
}

/* The sample's Python frames are the oracle's: names, files, and the lines
 * of every frame but the leaf (the caller's line is its call's; the leaf's
 * moves while it runs, so it is compared only when LEAF_LINE), where the
 * oracle has one (>= 0). */
static bool py_equals(const struct stack *s, const struct oracle_stack *o, bool leaf_line)
{
	if (s->npy != o->n)
		return false;
	for (size_t i = 0; i < o->n; i++) {
		if (!same_code(s->py[i].name, o->f[i].name) || strcmp(s->py[i].file, o->f[i].file))
			return false;
		if ((i + 1 < o->n || leaf_line) && o->f[i].line >= 0 &&
		    s->py[i].line != o->f[i].line)
			return false;
	}
	return true;
}

static void oracle_names(const struct oracle_stack *o, const char *const want[])
{
	size_t n = 0;

	while (want[n])
		n++;
	ck_assert_msg(o->n == n, "the fixture's stack '%s' has %zu frames, not %zu", o->tag,
		      o->n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(!strcmp(o->f[i].name, want[i]), "the fixture's stack '%s': frame %zu "
			      "is %s, not %s", o->tag, i, o->f[i].name, want[i]);
}

/* --- runs ---------------------------------------------------------------------- */

struct run {
	char *out, *err, *load_err;
	struct pk_folded f;
	struct stack *s;
	size_t n;
	char oracle_path[4096];	/* as the host sees it */
	char oracle_arg[4096];	/* as the fixture does */
	pid_t pid;		/* the process attached to (held) */
};

static void run_parse(struct run *r)
{
	const char *bad = NULL;

	ck_assert_msg(pk_folded_parse(r->out, &r->f, &bad), "not folded format: '%s'", bad);
	r->s = calloc(r->f.n + 1, sizeof(*r->s));
	ck_assert_ptr_nonnull(r->s);
	for (size_t i = 0; i < r->f.n; i++)
		stack_split(&r->f.lines[i], &r->s[i]);
	r->n = r->f.n;
}

static void run_stacks_free(struct run *r)
{
	for (size_t i = 0; i < r->n; i++)
		stack_free(&r->s[i]);
	free(r->s);
	r->s = NULL;
	r->n = 0;
	pk_folded_free(&r->f);
}

static void run_free(struct run *r)
{
	run_stacks_free(r);
	free(r->out);
	free(r->err);
	free(r->load_err);
	if (r->oracle_path[0])
		unlink(r->oracle_path);
}

/* The oracle file of a fixture NAME under IN (NULL: the host's): in the
 * build directory, or in a root's /tmp. */
static void oracle_path_in(struct run *r, const char *name, const struct interp *in)
{
	char rel[128];
	static int n;

	snprintf(rel, sizeof(rel), "python-%s-%d-%d.stacks", name, (int)getpid(), n++);
	if (in && in->root) {
		snprintf(r->oracle_arg, sizeof(r->oracle_arg), "/tmp/%s", rel);
		snprintf(r->oracle_path, sizeof(r->oracle_path), "%s",
			 root_path(in, r->oracle_arg));
	} else {
		pk_test_build_path(rel, r->oracle_path, sizeof(r->oracle_path));
		snprintf(r->oracle_arg, sizeof(r->oracle_arg), "%s", r->oracle_path);
	}
	unlink(r->oracle_path);
}

static void oracle_path(struct run *r, const char *name)
{
	oracle_path_in(r, name, NULL);
}

/* A script of tests/fixtures/python/ (SRC), or a program built from there
 * (tests/python.mk): its path, in one of 8 buffers used in turn. */
static const char *fixture_path(bool src, const char *name)
{
	static char path[8][4096];
	static int i;
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/%s", src ? "tests/fixtures/python" : "fixtures_python",
		 name);
	i = (i + 1) % 8;
	return src ? pk_test_src_path(rel, path[i], sizeof(path[i])) :
		     pk_test_build_path(rel, path[i], sizeof(path[i]));
}

static const char *script(const char *name)
{
	return fixture_path(true, name);
}

static const char *built(const char *name)
{
	return fixture_path(false, name);
}

#define MAX_ARGS	32

/* An argument vector of up to MAX_ARGS - 1 words: the NULL-ended lists in
 * LISTS, NULL-ended itself, one after the other (a NULL list is empty). */
static void args_cat(const char *v[MAX_ARGS], const char *const *const lists[])
{
	size_t n = 0;

	for (size_t l = 0; lists[l]; l++)
		for (size_t i = 0; lists[l][i] != NULL; i++) {
			ck_assert(n + 1 < MAX_ARGS);
			v[n++] = lists[l][i];
		}
	v[n] = NULL;
}

static const char *const no_args[] = { NULL };

/* The fixture NAME with ARGS (NULL-ended) under IN, as the host starts it:
 * IN's program on the script in the source tree, or in IN's root,
 * in_root.sh ROOT PROGRAM /mnt/probekit/tests/fixtures/python/NAME ARGS;
 * into V. */
static void interp_argv(const struct interp *in, const char *name, const char *const args[],
			const char *v[MAX_ARGS])
{
	static char in_root[4096], root[4096], scr[8][300];
	static int k;

	if (!in->root) {
		const char *const head[] = { in->prog, script(name), NULL };

		args_cat(v, (const char *const *const[]){ head, args, NULL });
		return;
	}
	k = (k + 1) % 8;
	snprintf(scr[k], sizeof(scr[k]), "/mnt/probekit/tests/fixtures/python/%s", name);
	pk_test_src_path("tests/roots/in_root.sh", in_root, sizeof(in_root));
	pk_test_roots_path(in->root, root, sizeof(root));
	{
		const char *const head[] = { in_root, root, in->prog, scr[k], NULL };

		args_cat(v, (const char *const *const[]){ head, args, NULL });
	}
}

/* probe-load [EXTRA...] -F FREQ -- ARGV..., from the command's first
 * instruction, probe-read [READ...] until it exits, unload. IN: the
 * interpreter ARGV runs (NULL: the host's). */
static void profile_in(const struct interp *in, const char *const extra[],
		       const char *const argv[], const char *const read[], struct run *r)
{
	static const char *const freq[] = { "-F", FREQ_STR, "--", NULL };
	static const char *const dur[] = { "-d", "300", NULL };
	const char *load[MAX_ARGS], *rd[MAX_ARGS];
	int rc;

	ck_assert_msg(access(argv[0], X_OK) == 0, "%s missing (make test-deps test-programs)",
		      argv[0]);
	args_cat(load, (const char *const *const[]){ extra ? extra : no_args, freq, argv, NULL });
	args_cat(rd, (const char *const *const[]){ dur, read ? read : no_args, NULL });
	ck_assert_int_eq(pk_e2e_load_err(load, &r->load_err), 0);
	rc = pk_e2e_read(rd, &r->out, &r->err);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, r->err);
	ck_assert_msg(pk_e2e_wait_targets_exit(5) == 0, "probe-read stopped while its "
		      "targets still ran");
	/* what probe-load said while the command ran too: it loads the
	 * tables of what the command maps while no reader holds the session */
	free(r->load_err);
	r->load_err = pk_e2e_load_log();
	ck_assert_int_eq(pk_e2e_unload(), 0);
	run_parse(r);
}

static void profile(const char *const extra[], const char *const argv[],
		    const char *const read[], struct run *r)
{
	profile_in(NULL, extra, argv, read, r);
}

/* A process started held: PID, what the test waits for, and TARGET, the
 * interpreter stopped at the start of hot (PID itself, or in a root the
 * child in_root.sh's unshare forked, PID 1 of its namespace). */
struct held {
	pid_t pid, target;
};

/* /proc/PID/stat's state of PID, or 0 when it is gone. */
static char proc_state(pid_t pid)
{
	char path[64], *t, *p, st = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	t = pk_test_read_file(path, NULL);
	p = t ? strrchr(t, ')') : NULL;
	if (p && p[1] == ' ')
		st = p[2];
	free(t);
	return st;
}

/* The descendant of PID (up to 3 levels down) that has stopped itself,
 * once it has; 0 when PID exits first or none does within 60 s. */
static pid_t stopped_descendant(pid_t pid)
{
	for (int i = 0; i < 6000 * (int)pk_test_slowdown(); i++) {
		pid_t level[16] = { pid }, next[16];
		size_t n = 1;

		for (int depth = 0; depth < 3 && n; depth++) {
			size_t m = 0;

			for (size_t k = 0; k < n; k++) {
				char path[64], *t, *p, *end;

				snprintf(path, sizeof(path), "/proc/%d/task/%d/children", level[k],
					 level[k]);
				t = pk_test_read_file(path, NULL);
				for (p = t; p && *p; p = end) {
					pid_t c = (pid_t)strtol(p, &end, 10);

					if (end == p)
						break;
					if (proc_state(c) == 'T') {
						free(t);
						return c;
					}
					if (m < 16)
						next[m++] = c;
				}
				free(t);
			}
			memcpy(level, next, m * sizeof(*next));
			n = m;
		}
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return 0;
		usleep(10000);
	}
	return 0;
}

/* Start chain.py's ARGV held (PK_FIXTURE_HOLD) under IN (NULL: the host):
 * once hot has stopped it, its start-up over and none of its hot phase
 * spent. In a root, the fixture runs under a shell, the namespace's PID 1:
 * a PID 1 cannot stop itself (the kernel drops the signals a namespace's
 * init sends itself). */
static struct held spawn_held_in(const struct interp *in, const char *const argv[])
{
	static const char *const hold[] = { "/usr/bin/env", "PK_FIXTURE_HOLD=1", NULL };
	static const char *const shell[] = { "/bin/sh", "-c", "\"$@\"; exit $?", "sh", NULL };
	const char *av[MAX_ARGS];
	struct held h;
	int status;

	ck_assert_msg(access(argv[0], X_OK) == 0, "%s missing (make test-deps test-programs)",
		      argv[0]);
	if (in && in->root) {
		const char *const root_args[] = { argv[0], argv[1], NULL };

		args_cat(av, (const char *const *const[]){ hold, root_args, shell, argv + 2,
							    NULL });
	} else {
		args_cat(av, (const char *const *const[]){ hold, argv, NULL });
	}
	h.pid = h.target = pk_test_spawn((char *const *)av, NULL);
	ck_assert_int_gt(h.pid, 0);
	if (in && in->root) {
		h.target = stopped_descendant(h.pid);
		ck_assert_msg(h.target > 0, "%s in %s did not stop itself", in->prog, in->root);
		return h;
	}
	ck_assert_msg(waitpid(h.pid, &status, WUNTRACED) == h.pid && WIFSTOPPED(status),
		      "%s did not stop itself", argv[0]);
	return h;
}

/* The hot phase alone: ARGV held (under IN, NULL: the host),
 * probe-load [EXTRA...] -F FREQ -p PID, continued; probe-read [READ...]
 * while it runs, or once it has exited (AFTER_EXIT). */
static void profile_held_in(const struct interp *in, const char *const extra[],
			    const char *const argv[], const char *const read[], bool after_exit,
			    struct run *r)
{
	char pidstr[16];
	const char *const target[] = { "-F", FREQ_STR, "-p", pidstr, NULL };
	const char *const dur[] = { "-d", after_exit ? "1" : "300", NULL };
	const char *load[MAX_ARGS], *rd[MAX_ARGS];
	struct held h = spawn_held_in(in, argv);
	int rc, status;

	snprintf(pidstr, sizeof(pidstr), "%d", h.target);
	r->pid = h.target;
	args_cat(load, (const char *const *const[]){ extra ? extra : no_args, target, NULL });
	args_cat(rd, (const char *const *const[]){ dur, read ? read : no_args, NULL });
	rc = pk_e2e_load_err(load, &r->load_err);
	if (rc)
		kill(h.target, SIGKILL);
	kill(h.target, SIGCONT);
	ck_assert_msg(rc == 0, "probe-load failed: %s", r->load_err);
	if (after_exit)
		ck_assert_int_eq(pk_test_wait(h.pid), 0);
	rc = pk_e2e_read(rd, &r->out, &r->err);
	status = after_exit ? 0 : pk_test_wait(h.pid);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, r->err);
	ck_assert_msg(status == 0, "the fixture exited with status %d", status);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	run_parse(r);
}

static void print_stacks(const struct run *r, const char *comm, size_t max)
{
	for (size_t i = 0, k = 0; i < r->f.n && k < max; i++)
		if (!strncmp(r->f.lines[i].stack, comm, strlen(comm))) {
			fprintf(stderr, "    %s %lu\n", r->f.lines[i].stack, r->f.lines[i].count);
			k++;
		}
}

/* Show a sample of a share that is not whole (3 at most a test): what a
 * reader of the log needs when a share is short, and when it passes short
 * of 100%. */
static void note_bad(const char *what, const struct stack *s)
{
	static unsigned int shown;

	if (shown++ >= 3)
		return;
	fprintf(stderr, "  %s, not whole (%lu):", what, s->count);
	for (size_t i = 0; i < s->n; i++)
		fprintf(stderr, "%s%s", i ? ";" : " ", s->v[i]);
	fputc('\n', stderr);
}

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

/* --- chain.py: <module> -> main -> a -> b -> c -> hot ----------------------- */

static const char *const chain_names[] = { "<module>", "main", "a", "b", "c", "hot", NULL };

struct tally {
	unsigned long runs, hot, ok;
};

/* The hot phase's samples (leaf Python frame hot) whose stack is whole and
 * the oracle's: Python frames <module>;main;a;b;c;hot of chain.py in one run,
 * with the lines the fixture printed, under the interpreter's native frames
 * from _start through MARK, and no _PyEval_EvalFrameDefault left. */
static struct tally chain_tally(const struct run *r, const char *comm, pid_t pid,
				const char *mark, const struct oracle_stack *o)
{
	struct tally t = { 0 };

	for (size_t i = 0; i < r->n; i++) {
		const struct stack *s = &r->s[i];

		if (!root_is(s, comm, pid) || !runs_python(s))
			continue;
		t.runs += s->count;
		if (strcmp(py_leaf(s), "hot")) {
			note_bad(comm, s);
			continue;
		}
		t.hot += s->count;
		if (py_equals(s, o, false) && py_contiguous(s) && !s->eval_left &&
		    native_root_ok(s, mark))
			t.ok += s->count;
		else
			note_bad(comm, s);
	}
	return t;
}

/* IN's own frames in R's stacks of COMM, sample-weighted, and of them the
 * ones no symbol named ("[python3.13+0x5a1f3e]"): a root's interpreter has
 * its -dbg package's debug file in the root's /usr/lib/debug, which names
 * every address of it (the eval loop's .cold part, static functions its
 * .dynsym lacks) when probe-read finds it, during and after the process. */
static void assert_interp_named(const char *what, const struct run *r,
				const struct interp *in)
{
	const char *base = strrchr(in->prog, '/') + 1;
	unsigned long frames = 0, unnamed = 0;
	char unnamed_pfx[64];

	snprintf(unnamed_pfx, sizeof(unnamed_pfx), "[%s+0x", base);
	for (size_t i = 0; i < r->n; i++) {
		const struct stack *s = &r->s[i];

		if (!root_is(s, in->comm, 0))
			continue;
		for (size_t k = 1; k < s->n; k++) {
			frames += s->count;
			if (!strncmp(s->v[k], unnamed_pfx, strlen(unnamed_pfx))) {
				unnamed += s->count;
				if (unnamed == s->count)
					fprintf(stderr, "  %s: unnamed: %s\n", what, s->v[k]);
			}
		}
	}
	fprintf(stderr, "python %s: %lu frames, %lu of %s unnamed\n", what, frames, unnamed,
		base);
	ck_assert_msg(frames > 0, "%s: no stack of %s", what, in->comm);
	ck_assert_msg(unnamed == 0, "%s: %lu frames of %s unnamed: its debug file "
		      "(the root's /usr/lib/debug) not found", what, unnamed, base);
}

static void assert_chain(const char *what, const struct run *r, const char *comm, pid_t pid,
			 const char *mark, const struct oracle_stack *o)
{
	struct tally t = chain_tally(r, comm, pid, mark, o);

	fprintf(stderr, "python %s: %lu samples run Python, %lu in hot, %lu of them whole "
		"(%.2f%% of those that run Python)\n", what, t.runs, t.hot, t.ok,
		t.runs ? 100.0 * t.ok / t.runs : 0);
	if (t.runs < MIN_SAMPLES || t.ok < PY_MIN * t.runs) {
		fprintf(stderr, "  %s: stacks of %s:\n", what, comm);
		print_stacks(r, comm, 12);
	}
	ck_assert_msg(t.runs >= MIN_SAMPLES, "%s: only %lu samples run Python", what, t.runs);
	ck_assert_msg(t.ok >= PY_MIN * t.runs, "%s: %lu of %lu samples that run Python have "
		      "<module>;main;a;b;c;hot whole", what, t.ok, t.runs);
}

static const struct {
	const char *what, *mark;
	int py;		/* its interps[], or -1: py_embed */
} chain_variants[] = {
	{ "python3.11", "Py_RunMain", PY311 },
	{ "python3.11d", "Py_RunMain", PY311D },
	{ "py_embed", "embed_run", -1 },
	{ "python3.13 (Debian 13 root)", "Py_RunMain", PY313 },
	{ "python3.13d (Debian 13 root)", "Py_RunMain", PY313D },
	{ "python3.14 (sid root)", "Py_RunMain", PY314 },
	{ "python3.14d (sid root)", "Py_RunMain", PY314D },
};
#define NCHAINS	(int)(sizeof(chain_variants) / sizeof(chain_variants[0]))

/* chain.py SECS ORACLE under variant I (its interpreter, or py_embed),
 * into ARGV; R's oracle path made. */
static const struct interp *chain_argv(int i, const char *secs, struct run *r, const char *name,
				       const char *argv[MAX_ARGS])
{
	int py = chain_variants[i].py;
	const struct interp *in = py >= 0 ? &interps[py] : NULL;
	const char *const args[] = { secs, r->oracle_arg, NULL };

	oracle_path_in(r, name, in);
	if (in) {
		interp_argv(in, "chain.py", args, argv);
	} else {
		const char *const head[] = { built("py_embed"), script("chain.py"), NULL };

		args_cat(argv, (const char *const *const[]){ head, args, NULL });
	}
	return in;
}

/* chain.py under each interpreter, attached to once start-up is over: the
 * session holds the hot phase (and the exit), so that every sample that
 * runs Python should be whole. Read while it runs. */
START_TEST(test_chain)
{
	struct run r = { 0 };
	struct oracle o;
	const char *argv[MAX_ARGS];
	const struct interp *in = chain_argv(_i, HOT_SECS, &r, "chain", argv);
	char what[64];

	profile_held_in(in, NULL, argv, NULL, false, &r);
	oracle_read(r.oracle_path, &o);
	oracle_names(oracle_get(&o, "hot"), chain_names);
	snprintf(what, sizeof(what), "chain %s", chain_variants[_i].what);
	assert_chain(what, &r, in ? in->comm : "py_embed", 0, chain_variants[_i].mark,
		     oracle_get(&o, "hot"));
	if (in && in->root)
		assert_interp_named(what, &r, in);
	oracle_free(&o);
	run_free(&r);
}
END_TEST

/* A process that exited before probe-read started is named all the same:
 * from the code reports in the ring buffer, nothing left to read in it. */
START_TEST(test_chain_exited)
{
	struct run r = { 0 };
	struct oracle o;
	const char *argv[MAX_ARGS];
	int v = _i < 2 ? _i : _i + 1;	/* each interpreter, py_embed aside */
	const struct interp *in = chain_argv(v, HOT_SECS, &r, "exited", argv);
	char what[80];

	profile_held_in(in, NULL, argv, NULL, true, &r);
	oracle_read(r.oracle_path, &o);
	snprintf(what, sizeof(what), "chain %s, read after its exit", chain_variants[v].what);
	assert_chain(what, &r, in->comm, 0, "Py_RunMain", oracle_get(&o, "hot"));
	if (in->root)
		assert_interp_named(what, &r, in);
	oracle_free(&o);
	run_free(&r);
}
END_TEST

/* The case of issue 32: probe-load -F 499 -- in_root.sh ROOT python3.X
 * chain.py 4, at default options (the ring buffer's 8 MiB, the 32 KiB stack
 * copy), and probe-read only once it has exited. The root's files had no
 * table when the session started: probe-load loads them as the command
 * maps them, so that no sample needs a copy and none is lost (1074 of 1962
 * were, when every sample carried one until a reader came). */
START_TEST(test_chain_command_after)
{
	const char *const freq[] = { "-F", "499", "--", NULL };
	const char *const dur[] = { "-d", "1", NULL };
	const char *argv[MAX_ARGS], *load[MAX_ARGS], *rd[MAX_ARGS];
	struct pk_e2e_summary sum;
	struct run r = { 0 };
	struct oracle o;
	struct tally t;
	char what[80];
	/* chain_variants' python3.13 and python3.14, in their roots */
	const struct interp *in = chain_argv(_i ? 5 : 3, "4", &r, "cmd", argv);
	int rc;

	args_cat(load, (const char *const *const[]){ freq, argv, NULL });
	args_cat(rd, (const char *const *const[]){ dur, NULL });
	ck_assert_int_eq(pk_e2e_load_err(load, &r.load_err), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(300), 0);
	rc = pk_e2e_read(rd, &r.out, &r.err);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, r.err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	run_parse(&r);
	ck_assert(pk_e2e_parse_summary(r.err, &sum));
	oracle_read(r.oracle_path, &o);
	snprintf(what, sizeof(what), "chain %s, -- CMD read after", in->comm);
	t = chain_tally(&r, in->comm, 0, "Py_RunMain", oracle_get(&o, "hot"));
	fprintf(stderr, "python %s: %llu samples read, %llu lost; %lu in hot, %lu of them "
		"whole (%.2f%%)\n", what, sum.read, sum.lost, t.hot, t.ok,
		t.hot ? 100.0 * t.ok / t.hot : 0);
	ck_assert_msg(sum.lost == 0, "%s: %llu samples lost:\n%s", what, sum.lost, r.err);
	ck_assert_msg(t.hot >= MIN_SAMPLES, "%s: only %lu samples in hot:\n%s", what, t.hot,
		      r.err);
	if (t.ok < PY_MIN * t.hot)
		print_stacks(&r, in->comm, 12);
	ck_assert_msg(t.ok >= PY_MIN * t.hot, "%s: %lu of %lu samples in hot whole:\n%s", what,
		      t.ok, t.hot, r.err);
	assert_interp_named(what, &r, in);
	oracle_free(&o);
	run_free(&r);
}
END_TEST

static void py_push(struct stack *s, const char *name, const char *file, long line)
{
	const char *base = strrchr(file, '/');

	s->py = pk_test_grow(s->py, s->npy, sizeof(*s->py));
	ck_assert_ptr_nonnull(s->py);
	snprintf(s->py[s->npy].name, sizeof(s->py->name), "%s", name);
	snprintf(s->py[s->npy].file, sizeof(s->py->file), "%s", base ? base + 1 : file);
	s->py[s->npy++].line = line;
}

static bool is_py_file(const char *file)
{
	size_t len = strlen(file);

	return len > 3 && !strcmp(file + len - 3, ".py");
}

/* pprof: a Python frame is a function of a .py file, QUALNAME its name, the
 * line the line's. Samples (value[0]) whose Python leaf is hot, and of
 * those the ones whose Python frames are the oracle's. */
static void pprof_chain(const char *path, const struct oracle_stack *o, unsigned long *hot,
			unsigned long *ok)
{
	Perftools__Profiles__Profile *p = pk_test_pprof_load(path);

	*hot = *ok = 0;
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *smp = p->sample[i];
		struct stack s = { 0 };

		/* root first: locations leaf first, a location's lines callee first */
		for (size_t k = smp->n_location_id; k-- > 0;) {
			const Perftools__Profiles__Location *loc = NULL;

			for (size_t l = 0; l < p->n_location && !loc; l++)
				if (p->location[l]->id == smp->location_id[k])
					loc = p->location[l];
			ck_assert_ptr_nonnull(loc);
			for (size_t l = loc->n_line; l-- > 0;) {
				const Perftools__Profiles__Function *fn = NULL;

				for (size_t f = 0; f < p->n_function && !fn; f++)
					if (p->function[f]->id == loc->line[l]->function_id)
						fn = p->function[f];
				ck_assert_ptr_nonnull(fn);
				ck_assert(fn->name < (int64_t)p->n_string_table &&
					  fn->filename < (int64_t)p->n_string_table);
				if (is_py_file(p->string_table[fn->filename]))
					py_push(&s, p->string_table[fn->name],
						p->string_table[fn->filename], loc->line[l]->line);
			}
		}
		if (!strcmp(py_leaf(&s), "hot")) {
			*hot += smp->n_value ? (unsigned long)smp->value[0] : 0;
			*ok += py_equals(&s, o, false) && smp->n_value ?
			       (unsigned long)smp->value[0] : 0;
		}
		free(s.py);
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* perf text: a Python frame is "py::QUALNAME:FILE", no line. Samples (a
 * header line, frames leaf first, a blank line) whose Python leaf is hot,
 * and of those the ones whose Python frames are the oracle's. */
static void perf_chain(const char *path, const struct oracle_stack *o, unsigned long *hot,
		       unsigned long *ok)
{
	char *text = pk_test_read_file(path, NULL), *line, *save = NULL;
	struct oracle_stack names = *o;
	struct stack s = { 0 };

	ck_assert_msg(text, "%s: no perf text", path);
	/* no lines: compare names and files only */
	names.f = calloc(o->n, sizeof(*o->f));
	ck_assert_ptr_nonnull(names.f);
	for (size_t i = 0; i < o->n; i++) {
		names.f[i] = o->f[i];
		names.f[i].line = -1;
	}
	*hot = *ok = 0;
	for (line = text; line; line = save) {
		char *nl = strchr(line, '\n'), *py;

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		if (!*line || !save) {
			/* end of a sample: its frames were leaf first */
			for (size_t i = 0; i < s.npy / 2; i++) {
				struct pyframe t = s.py[i];

				s.py[i] = s.py[s.npy - 1 - i];
				s.py[s.npy - 1 - i] = t;
			}
			if (!strcmp(py_leaf(&s), "hot")) {
				(*hot)++;
				*ok += py_equals(&s, &names, true);
			}
			s.npy = 0;
			continue;
		}
		py = strstr(line, " py::");
		if (py && line[0] == '\t') {
			char *colon, *end = strchrnul(py + 5, ' ');

			*end = '\0';
			colon = strrchr(py + 5, ':');
			ck_assert_msg(colon, "perf text: no file in '%s'", py);
			*colon = '\0';
			py_push(&s, py + 5, colon + 1, -1);
		}
	}
	free(s.py);
	free(names.f);
	free(text);
}

/* One read of chain.py's hot phase, three formats: the same Python frames
 * in each. */
START_TEST(test_formats)
{
	struct run r = { 0 };
	struct oracle o;
	char fold[4096], pb[4096], perf[4096];
	const char *read[] = { "-f", "folded", "-o", fold, "-f", "pprof", "-o", pb, "-f", "perf",
			       "-o", perf, NULL };
	const char *argv[MAX_ARGS];
	int v = releases[_i] == PY311 ? 0 : releases[_i] == PY313 ? 3 : 5;
	const struct interp *in = chain_argv(v, "2", &r, "formats", argv);
	unsigned long pb_hot, pb_ok, perf_hot, perf_ok;
	char what[96];

	pk_test_build_path("python-formats.folded", fold, sizeof(fold));
	pk_test_build_path("python-formats.pb.gz", pb, sizeof(pb));
	pk_test_build_path("python-formats.perf", perf, sizeof(perf));
	profile_held_in(in, NULL, argv, read, false, &r);
	/* the folded stacks went to their file */
	run_stacks_free(&r);
	free(r.out);
	r.out = pk_test_read_file(fold, NULL);
	ck_assert_msg(r.out, "%s: no folded stacks", fold);
	run_parse(&r);
	oracle_read(r.oracle_path, &o);
	pprof_chain(pb, oracle_get(&o, "hot"), &pb_hot, &pb_ok);
	perf_chain(perf, oracle_get(&o, "hot"), &perf_hot, &perf_ok);
	fprintf(stderr, "python formats: pprof %lu of %lu samples in hot whole, perf text %lu "
		"of %lu\n", pb_ok, pb_hot, perf_ok, perf_hot);
	snprintf(what, sizeof(what), "chain %s, folded beside pprof and perf",
		 chain_variants[v].what);
	assert_chain(what, &r, in->comm, 0, "Py_RunMain", oracle_get(&o, "hot"));
	ck_assert_msg(pb_hot >= MIN_SAMPLES / 2 && pb_ok >= PY_MIN * pb_hot,
		      "pprof: %lu of %lu samples in hot whole", pb_ok, pb_hot);
	ck_assert_msg(perf_hot >= MIN_SAMPLES / 2 && perf_ok >= PY_MIN * perf_hot,
		      "perf text: %lu of %lu samples in hot whole", perf_ok, perf_hot);
	unlink(fold);
	unlink(pb);
	unlink(perf);
	oracle_free(&o);
	run_free(&r);
}
END_TEST

/* --no-python: the stacks are as before issue 18, _PyEval_EvalFrameDefault
 * and no Python frame at all. */
START_TEST(test_no_python)
{
	static const char *const extra[] = { "--no-python", NULL };
	const char *argv[] = { PYTHON, script("chain.py"), "1.5", NULL };
	unsigned long all = 0, eval = 0, py = 0;
	struct run r = { 0 };

	profile(extra, argv, NULL, &r);
	for (size_t i = 0; i < r.n; i++) {
		if (!root_is(&r.s[i], "python3.11", 0))
			continue;
		all += r.s[i].count;
		eval += r.s[i].eval_left ? r.s[i].count : 0;
		py += r.s[i].npy ? r.s[i].count : 0;
	}
	fprintf(stderr, "python --no-python: %lu samples, %lu in %s, %lu with Python frames\n",
		all, eval, EVAL_FN, py);
	ck_assert_msg(all >= MIN_SAMPLES / 2, "only %lu samples", all);
	ck_assert_msg(py == 0, "%lu samples with Python frames under --no-python", py);
	/* the hot loop is bytecode: start-up and the CPU-time checks aside,
	 * every sample is in the eval loop (test_python_whole: 90%) */
	ck_assert_msg(eval >= 0.9 * all, "only %lu of %lu samples in %s", eval, all, EVAL_FN);
	run_free(&r);
}
END_TEST

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

	oracle_path_in(r, name, in);
	interp_argv(in, name, args, argv);
	if (in->root)
		profile_held_in(in, NULL, argv, read, false, r);
	else
		profile_in(in, NULL, argv, read, r);
	oracle_read(r->oracle_path, o);
	for (int i = 0; i < 2; i++) {
		ex[i].got = oracle_get(o, ex[i].tag);
		oracle_names(ex[i].got, ex[i].names);
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

	if (!py_equals(s, o, false) || s->eval_left)
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
	in = &interps[_i];
	ck_assert_ptr_nonnull(json_between[_i]);	/* not python3.11d */
	profile_script(in, "callback.py", NULL, ex, &r, &o);
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];

		if (!root_is(s, in->comm, 0) || in_oracle(s))
			continue;
		/* in the hook's call, below and above it */
		if (has_py(s, "use_json.<locals>.hook") || !strcmp(py_leaf(s), "inner") ||
		    !strcmp(py_leaf(s), "spin") || walk_failed(s)) {
			json_all += s->count;
			if (callback_ok(s, ex[0].got, "use_json.<locals>.hook", json_between[_i]))
				json_ok += s->count;
			else
				note_bad("json", s);
		}
		if (!strcmp(py_leaf(s), "spin_re") || walk_failed(s)) {
			re_all += s->count;
			if (callback_ok(s, ex[1].got, "use_re.<locals>.repl", re_between[_i]))
				re_ok += s->count;
			else
				note_bad("re", s);
		}
	}
	fprintf(stderr, "python callback %s: json hook %lu of %lu samples interleaved exactly "
		"(%.2f%%), re repl %lu of %lu (%.2f%%)\n", in->comm, json_ok, json_all,
		json_all ? 100.0 * json_ok / json_all : 0, re_ok, re_all,
		re_all ? 100.0 * re_ok / re_all : 0);
	if (json_ok < PY_MIN * json_all || re_ok < PY_MIN * re_all)
		print_stacks(&r, in->comm, 12);
	ck_assert_msg(json_all >= MIN_SAMPLES && re_all >= MIN_SAMPLES / 2,
		      "only %lu samples in the json hook, %lu in spin_re", json_all, re_all);
	ck_assert_msg(json_ok >= PY_MIN * json_all, "json: %lu of %lu interleaved exactly",
		      json_ok, json_all);
	ck_assert_msg(re_ok >= PY_MIN * re_all, "re: %lu of %lu interleaved exactly", re_ok,
		      re_all);
	oracle_free(&o);
	run_free(&r);
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
	return in->root ? pid_of(s) == r->pid : root_is(s, in->comm, 0);
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
	in = &interps[_i];
	profile_script(in, "threads.py", read, ex, &r, &o);
	oa = ex[0].got;
	ob = ex[1].got;
	/* which thread runs which chain: the one its spin samples say */
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];
		pid_t tid = tid_of(s);

		if (!of_process(in, &r, s))
			continue;
		if (has_py(s, "spin_a")) {
			mixed |= tid_a && tid_a != tid;
			tid_a = tid;
		}
		if (has_py(s, "spin_b")) {
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
		    !runs_python(s) || in_oracle(s))
			continue;
		runs += s->count;
		if (tid == tid_a && !strcmp(py_leaf(s), "spin_a"))
			in_a += s->count;
		if (tid == tid_b && !strcmp(py_leaf(s), "spin_b"))
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
			note_bad("threads", s);
	}
	fprintf(stderr, "python threads %s: %lu samples of the two threads run Python, %lu in "
		"spin_a (thread %d), %lu in spin_b (thread %d), %lu whole (%.2f%%)\n", in->comm,
		runs, in_a, tid_a, in_b, tid_b, ok, runs ? 100.0 * ok / runs : 0);
	if (ok < PY_MIN * runs)
		print_stacks(&r, in->root ? "" : in->comm, 12);
	ck_assert_msg(in_a >= MIN_SAMPLES && in_b >= MIN_SAMPLES, "only %lu samples in spin_a, "
		      "%lu in spin_b", in_a, in_b);
	ck_assert_msg(ok >= PY_MIN * runs, "%lu of %lu samples of the threads whole", ok, runs);
	oracle_free(&o);
	run_free(&r);
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
	const struct interp *in = &interps[_i];

	profile_script(in, "aio.py", NULL, ex, &r, &o);
	oa = ex[0].got;
	ob = ex[1].got;
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];

		if (!root_is(s, in->comm, 0) || (!has_py(s, "spin") && !walk_failed(s)) ||
		    in_oracle(s))
			continue;
		spin += s->count;
		/* the coroutines' frames right above the event loop's Handle._run,
		 * which the C task step (_asyncio) runs: native frames between */
		if (py_equals(s, oa, false) && !s->eval_left)
			ok_a += s->count;
		if (py_equals(s, ob, false) && !s->eval_left)
			ok_b += s->count;
		if ((!py_equals(s, oa, false) && !py_equals(s, ob, false)) || s->eval_left)
			note_bad("asyncio", s);
	}
	fprintf(stderr, "python asyncio %s: %lu samples in spin, %lu whole as task_a's, %lu as "
		"task_b's (%.2f%%)\n", in->comm, spin, ok_a, ok_b,
		spin ? 100.0 * (ok_a + ok_b) / spin : 0);
	if (ok_a + ok_b < PY_MIN * spin)
		print_stacks(&r, in->comm, 12);
	ck_assert_msg(spin >= MIN_SAMPLES, "only %lu samples in spin", spin);
	/* the two tasks take turns by equal slices of CPU time */
	ck_assert_msg(ok_a * 3 >= spin && ok_b * 3 >= spin, "task_a %lu, task_b %lu of %lu",
		      ok_a, ok_b, spin);
	ck_assert_msg(ok_a + ok_b >= PY_MIN * spin, "%lu of %lu samples in spin whole",
		      ok_a + ok_b, spin);
	oracle_free(&o);
	run_free(&r);
}
END_TEST

/* --- system-wide: python3.11, python3.11d, 3.13 and 3.14 at once ----------- */

static bool file_has(const char *path, const char *text)
{
	char *t = pk_test_read_file(path, NULL);
	bool has = t && strstr(t, text);

	free(t);
	return has;
}

START_TEST(test_systemwide)
{
	static const char *const load[] = { "-F", FREQ_STR, "--skip-idle", "--ringbuf-size",
		"64M", NULL };
	static const char *const read[] = { "-d", "1", "--per-pid", NULL };
	static const int py[] = { PY311, PY311D, PY313, PY314 };
	enum { N = sizeof(py) / sizeof(py[0]) };
	const char *argv[MAX_ARGS], *rd[MAX_ARGS];
	struct run r[N] = { { 0 } };
	struct held h[N];
	struct oracle o[N];
	char what[80];
	int rc;

	/* each at the start of its hot phase, then the session over all */
	for (int i = 0; i < N; i++) {
		const char *const args[] = { "2", r[i].oracle_arg, NULL };

		oracle_path_in(&r[i], "sys", &interps[py[i]]);
		interp_argv(&interps[py[i]], "chain.py", args, argv);
		h[i] = spawn_held_in(&interps[py[i]], argv);
	}
	rc = pk_e2e_load(load);
	for (int i = 0; i < N; i++) {
		if (rc)
			kill(h[i].target, SIGKILL);
		kill(h[i].target, SIGCONT);
	}
	/* all run to their end: their CPU time, not a wall time */
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(pk_test_wait(h[i].pid), 0);
	ck_assert_int_eq(rc, 0);
	args_cat(rd, (const char *const *const[]){ read, NULL });
	rc = pk_e2e_read(rd, &r[0].out, &r[0].err);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, r[0].err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	run_parse(&r[0]);
	for (int i = 0; i < N; i++) {
		oracle_read(r[i].oracle_path, &o[i]);
		snprintf(what, sizeof(what), "system-wide %s", interps[py[i]].comm);
		assert_chain(what, &r[0], interps[py[i]].comm, h[i].target, "Py_RunMain",
			     oracle_get(&o[i], "hot"));
		if (interps[py[i]].root)
			assert_interp_named(what, &r[0], &interps[py[i]]);
	}
	for (int i = 0; i < N; i++) {
		oracle_free(&o[i]);
		run_free(&r[i]);
	}
}
END_TEST

/* --- gdb's py-bt of a blocked fixture --------------------------------------- */

/* gdb's "  File "PATH", line N, in NAME" lines, innermost first, into O
 * root first. */
static void gdb_py_bt(const char *text, struct oracle_stack *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->tag, sizeof(o->tag), "gdb");
	for (const char *l = text; (l = strstr(l, "  File \"")); l++) {
		const char *file = l + 8, *q = strchr(file, '"'), *base;
		char name[256];
		long line;

		ck_assert_ptr_nonnull(q);
		if (sscanf(q, "\", line %ld, in %255[^\n]", &line, name) != 2)
			continue;
		for (base = q; base > file && base[-1] != '/'; base--)
			;
		o->f = pk_test_grow(o->f, o->n, sizeof(*o->f));
		ck_assert_ptr_nonnull(o->f);
		memmove(o->f + 1, o->f, o->n * sizeof(*o->f));
		snprintf(o->f[0].file, sizeof(o->f->file), "%.*s", (int)(q - base), base);
		snprintf(o->f[0].name, sizeof(o->f->name), "%s", name);
		o->f[0].line = line;
		o->n++;
	}
}

static long voluntary_switches(pid_t pid)
{
	char path[64], *status, *v;
	long n = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	status = pk_test_read_file(path, NULL);
	v = status ? strstr(status, "voluntary_ctxt_switches:") : NULL;
	if (v && v[-1] == '\n')
		n = atol(v + strlen("voluntary_ctxt_switches:"));
	free(status);
	return n;
}

/* chain.py --nap blocks in nap (time.sleep, 1 ms at a time): gdb -p's
 * py-bt of it is the stack of every off-CPU sample there, line by line. */
START_TEST(test_gdb_py_bt)
{
	static const char *const nap_names[] = { "<module>", "main", "a", "b", "c", "hot", "nap",
		NULL };
	struct run r = { 0 };
	struct oracle_stack g;
	char *argv[] = { PYTHON, (char *)script("chain.py"), "0.2", NULL, "--nap", NULL };
	char pidstr[16], *gdb_out = NULL, *gdb_err = NULL;
	char *gdb[] = { "gdb", "-nx", "-batch", "-p", pidstr, "-ex", "py-bt", NULL };
	const char *load[] = { "-e", "off-cpu", "-p", pidstr, NULL };
	const char *read[] = { "-d", "300", NULL };
	unsigned long nap = 0, same = 0;
	long switches;
	pid_t pid;
	int rc;

	ck_assert_msg(access("/usr/bin/gdb", X_OK) == 0, "gdb missing (make test-deps)");
	oracle_path(&r, "gdb");
	argv[3] = r.oracle_path;
	pid = pk_test_spawn(argv, NULL);
	ck_assert_int_gt(pid, 0);
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	/* in nap: it has written its stack after 20 naps (a state, polled) */
	for (int i = 0; i < 60000 && !file_has(r.oracle_path, "# nap"); i++)
		nanosleep(&(struct timespec){ .tv_nsec = 5000000 }, NULL);
	ck_assert_msg(file_has(r.oracle_path, "# nap"), "chain.py never napped");
	rc = pk_e2e_load(load);
	ck_assert_int_eq(rc, 0);
	rc = pk_test_run(gdb, &gdb_out, &gdb_err);
	/* 100 naps more, each an off-CPU sample of the stack gdb saw */
	switches = voluntary_switches(pid);
	for (long now = switches; now >= 0 && now < switches + 100; now = voluntary_switches(pid))
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	kill(pid, SIGKILL);
	pk_test_wait(pid);
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "gdb failed: %s", gdb_err);
	ck_assert_int_eq(pk_e2e_read(read, &r.out, &r.err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	run_parse(&r);
	gdb_py_bt(gdb_out, &g);
	oracle_names(&g, nap_names);
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];

		if (!root_is(s, "python3.11", 0) || strcmp(py_leaf(s), "nap"))
			continue;
		/* off-CPU: counts are microseconds blocked */
		nap += s->count;
		same += py_equals(s, &g, true) && py_contiguous(s) && !s->eval_left ? s->count : 0;
	}
	fprintf(stderr, "python gdb py-bt: %lu us blocked in nap, %lu us of them with gdb's "
		"stack exactly (%.2f%%)\n", nap, same, nap ? 100.0 * same / nap : 0);
	if (same < PY_MIN * nap || nap < 50000)
		fprintf(stderr, "gdb:\n%s\n", gdb_out), print_stacks(&r, "python3.11", 12);
	/* 100 naps of 1 ms at least */
	ck_assert_msg(nap >= 50000, "only %lu us in nap", nap);
	ck_assert_msg(same >= PY_MIN * nap, "%lu of %lu us have gdb's stack", same, nap);
	free(g.f);
	free(gdb_out);
	free(gdb_err);
	run_free(&r);
}
END_TEST

/* --- damaged interpreters ------------------------------------------------------ */

/* A python3 that is none: its frames as they are, nothing Python. */
START_TEST(test_fake_python)
{
	const char *argv[] = { built("python3"), "1.5", NULL };
	unsigned long all = 0, whole = 0, py = 0;
	struct run r = { 0 };

	profile(NULL, argv, NULL, &r);
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];
		static const char *const want[] = { "python3", "_start", "__libc_start_main",
			"__libc_start_call_main", "main", "Py_BytesMain", "Py_RunMain", EVAL_FN,
			"fake_spin" };
		size_t n = sizeof(want) / sizeof(want[0]), k;

		if (!root_is(s, "python3", 0))
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
	run_free(&r);
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
	const struct interp *base = &interps[PY313];
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
	snprintf(copy, sizeof(copy), "%s", root_path(base, dir));
	ck_assert_int_eq(mkdir(copy, 0755), 0);
	snprintf(copy + strlen(copy), sizeof(copy) - strlen(copy), "/python3.13");
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/python3.13");
	data = pk_test_read_file(root_path(base, base->prog), &len);
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

		interp_argv(&in, "chain.py", held_args, argv);
		profile_held_in(&in, NULL, argv, NULL, true, &r);
	} else {
		interp_argv(&in, "chain.py", args, argv);
		profile_in(&in, NULL, argv, NULL, &r);
	}
	for (size_t i = 0; i < r.n; i++) {
		if (!root_is(&r.s[i], "python3.13", 0))
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
	run_free(&r);
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
	const char *argv[] = { PYTHON, script("trunc.py"), "1.5", mode, NULL, NULL };
	unsigned long runs = 0, ok = 0, invented = 0;
	struct oracle_stack want = { .tag = "cut" };
	struct run r = { 0 };
	struct oracle o;

	oracle_path(&r, "trunc");
	argv[4] = r.oracle_path;
	profile_held_in(NULL, NULL, argv, NULL, false, &r);
	oracle_read(r.oracle_path, &o);
	/* the fixture's stack before the cut; after it, b's line is its call of c */
	ck_assert_int_eq(oracle_get(&o, "b")->n, 4);
	want.f = calloc(3, sizeof(*want.f));
	ck_assert_ptr_nonnull(want.f);
	for (want.n = 0; cut[want.n]; want.n++) {
		snprintf(want.f[want.n].name, sizeof(want.f->name), "%s", cut[want.n]);
		snprintf(want.f[want.n].file, sizeof(want.f->file), "trunc.py");
		want.f[want.n].line = -1;
	}
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];

		if (!root_is(s, "python3.11", 0) || !runs_python(s))
			continue;
		runs += s->count;
		if (has_py(s, "<module>") || has_py(s, "main") || has_py(s, "a"))
			invented += s->count;
		if (py_equals(s, &want, false) && py_contiguous(s) && !s->eval_left &&
		    native_root_ok(s, "Py_RunMain"))
			ok += s->count;
		else
			note_bad(mode, s);
	}
	fprintf(stderr, "python truncated chain (%s): %lu samples after the cut, %lu with "
		"b;c;hot under the native frames (%.2f%%), %lu with frames below the cut; stderr: "
		"%d and %d lines of Python\n", mode, runs, ok, runs ? 100.0 * ok / runs : 0,
		invented, python_lines(r.load_err), python_lines(r.err));
	if (ok < PY_MIN * runs)
		print_stacks(&r, "python3.11", 12);
	ck_assert_msg(runs >= MIN_SAMPLES / 2, "only %lu samples", runs);
	ck_assert_msg(invented == 0, "%lu samples with frames below the cut", invented);
	ck_assert_msg(ok >= PY_MIN * runs, "%lu of %lu samples with b;c;hot", ok, runs);
	ck_assert_msg(python_lines(r.load_err) + python_lines(r.err) <= 1,
		      "more than a line about Python:\n%s\n%s", r.load_err, r.err);
	free(want.f);
	oracle_free(&o);
	run_free(&r);
}
END_TEST

Suite *suite_python_e2e(void)
{
	Suite *s = suite_create("python_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "chain", 240);
	tcase_add_loop_test(tc, test_chain, 0, NCHAINS);
	tcase_add_loop_test(tc, test_chain_exited, 0, NPY);
	tcase_add_loop_test(tc, test_chain_command_after, 0, 2);
	tcase_add_loop_test(tc, test_formats, 0, NRELEASES);
	tcase_add_test(tc, test_no_python);
	tcase_add_test(tc, test_systemwide);

	tc = pk_e2e_tcase(s, "oracles", 120);
	tcase_add_test(tc, test_gdb_py_bt);

	tc = pk_e2e_tcase(s, "mixed", 180);
	tcase_add_loop_test(tc, test_callback, 0, NMIXED);
	tcase_add_loop_test(tc, test_threads, 0, NMIXED);
	tcase_add_loop_test(tc, test_asyncio, 0, NPY);

	tc = pk_e2e_tcase(s, "damaged", 120);
	tcase_add_test(tc, test_fake_python);
	tcase_add_loop_test(tc, test_truncated_chain, 0, 2);
	tcase_add_loop_test(tc, test_unreadable_interpreter, 0, 2);
	return s;
}
