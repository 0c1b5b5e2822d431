// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The harness of the Python end-to-end suites (python_run.h says what they
 * share): the interpreters, a folded line cut into its native and Python
 * frames, the fixtures' reports of their own stacks (pkstack.py), and a
 * fixture run under probe-load, from its first instruction or held and
 * attached to.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "integration/python_run.h"
#include "test_util.h"

const struct interp pk_pyrun_interps[NPY] = {
	[PY311] = { "python3.11", NULL, PYTHON },
	[PY311D] = { "python3.11d", NULL, PYTHON_D },
	[PY313] = { "python3.13", "trixie", "/usr/bin/python3.13" },
	[PY313D] = { "python3.13d", "trixie", "/usr/bin/python3.13d" },
	[PY314] = { "python3.14", "sid", "/usr/bin/python3.14" },
	[PY314D] = { "python3.14d", "sid", "/usr/bin/python3.14d" },
};

/* IN's root as the host sees it (REL under it), in one of 8 buffers used
 * in turn. */
const char *pk_pyrun_root_path(const struct interp *in, const char *rel)
{
	static char path[8][4096];
	static int i;
	char r[4096];

	i = (i + 1) % 8;
	snprintf(r, sizeof(r), "%s%s", in->root, rel);
	return pk_test_roots_path(r, path[i], sizeof(path[i]));
}

/* --- stacks ----------------------------------------------------------------- */

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

const char *pk_pyrun_leaf(const struct stack *s)
{
	return s->npy ? s->py[s->npy - 1].name : "";
}

bool pk_pyrun_runs_python(const struct stack *s)
{
	return s->npy || s->eval_left;
}

/* In the fixture's own report of its stack (pkstack.dump), not in the
 * code measured: left out of the shares. A walk that fails there gives no
 * such frame, and counts. */
bool pk_pyrun_in_oracle(const struct stack *s)
{
	for (size_t i = 0; i < s->npy; i++)
		if (!strcmp(s->py[i].name, "dump") && !strcmp(s->py[i].file, "pkstack.py"))
			return true;
	return false;
}

/* A walk that gave nothing where the eval loop ran, or a code object that
 * no report named. */
bool pk_pyrun_walk_failed(const struct stack *s)
{
	if (s->eval_left)
		return true;
	for (size_t i = 0; i < s->npy; i++)
		if (!s->py[i].file[0])
			return true;
	return false;
}

/* The root frame is COMM, or COMM-PID[/TID] for PID (0: any). */
bool pk_pyrun_root_is(const struct stack *s, const char *comm, pid_t pid)
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

bool pk_pyrun_has_py(const struct stack *s, const char *name)
{
	for (size_t i = 0; i < s->npy; i++)
		if (!strcmp(s->py[i].name, name))
			return true;
	return false;
}

/* The Python frames are one run of frames, no native frame among them. */
bool pk_pyrun_contiguous(const struct stack *s)
{
	return s->npy && s->py_at[s->npy - 1] - s->py_at[0] == s->npy - 1;
}

/* The frame of libc's __libc_start_call_main in S: named on the host
 * (libc6-dbg), a root's libc has .dynsym only (as perf shows it). */
static const char *libc_call_main(const struct stack *s)
{
	for (int i = 0; i < NPY; i++)
		if (pk_pyrun_interps[i].root && pk_pyrun_root_is(s, pk_pyrun_interps[i].comm, 0))
			return "\\[libc.so.6+0x*\\]";
	return "__libc_start_call_main";
}

/* The native frames below the first Python frame: the process's start
 * (_start, libc's) and MARK among them, where the interpreter runs
 * the script: Py_RunMain, or "main;embed_run" right after libc's. */
bool pk_pyrun_native_root_ok(const struct stack *s, const char *mark)
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

void pk_pyrun_oracle_read(const char *path, struct oracle *o)
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

const struct oracle_stack *pk_pyrun_oracle_get(const struct oracle *o, const char *tag)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->s[i].tag, tag))
			return &o->s[i];
	ck_abort_msg("the fixture wrote no stack '%s'", tag);
	return NULL;
}

void pk_pyrun_oracle_free(struct oracle *o)
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
bool pk_pyrun_equals(const struct stack *s, const struct oracle_stack *o, bool leaf_line)
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

void pk_pyrun_oracle_names(const struct oracle_stack *o, const char *const want[])
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

void pk_pyrun_run_parse(struct run *r)
{
	const char *bad = NULL;

	ck_assert_msg(pk_folded_parse(r->out, &r->f, &bad), "not folded format: '%s'", bad);
	r->s = calloc(r->f.n + 1, sizeof(*r->s));
	ck_assert_ptr_nonnull(r->s);
	for (size_t i = 0; i < r->f.n; i++)
		stack_split(&r->f.lines[i], &r->s[i]);
	r->n = r->f.n;
}

void pk_pyrun_run_stacks_free(struct run *r)
{
	for (size_t i = 0; i < r->n; i++)
		stack_free(&r->s[i]);
	free(r->s);
	r->s = NULL;
	r->n = 0;
	pk_folded_free(&r->f);
}

void pk_pyrun_run_free(struct run *r)
{
	pk_pyrun_run_stacks_free(r);
	free(r->out);
	free(r->err);
	free(r->load_err);
	if (r->oracle_path[0])
		unlink(r->oracle_path);
}

/* The oracle file of a fixture NAME under IN (NULL: the host's): in the
 * build directory, or in a root's /tmp. */
void pk_pyrun_oracle_path_in(struct run *r, const char *name, const struct interp *in)
{
	char rel[128];
	static int n;

	snprintf(rel, sizeof(rel), "python-%s-%d-%d.stacks", name, (int)getpid(), n++);
	if (in && in->root) {
		snprintf(r->oracle_arg, sizeof(r->oracle_arg), "/tmp/%s", rel);
		snprintf(r->oracle_path, sizeof(r->oracle_path), "%s",
			 pk_pyrun_root_path(in, r->oracle_arg));
	} else {
		pk_test_build_path(rel, r->oracle_path, sizeof(r->oracle_path));
		snprintf(r->oracle_arg, sizeof(r->oracle_arg), "%s", r->oracle_path);
	}
	unlink(r->oracle_path);
}

void pk_pyrun_oracle_path(struct run *r, const char *name)
{
	pk_pyrun_oracle_path_in(r, name, NULL);
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

const char *pk_pyrun_script(const char *name)
{
	return fixture_path(true, name);
}

const char *pk_pyrun_built(const char *name)
{
	return fixture_path(false, name);
}

/* An argument vector of up to MAX_ARGS - 1 words: the NULL-ended lists in
 * LISTS, NULL-ended itself, one after the other (a NULL list is empty). */
void pk_pyrun_args_cat(const char *v[MAX_ARGS], const char *const *const lists[])
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
void pk_pyrun_interp_argv(const struct interp *in, const char *name, const char *const args[],
		       const char *v[MAX_ARGS])
{
	static char in_root[4096], root[4096], scr[8][300];
	static int k;

	if (!in->root) {
		const char *const head[] = { in->prog, pk_pyrun_script(name), NULL };

		pk_pyrun_args_cat(v, (const char *const *const[]){ head, args, NULL });
		return;
	}
	k = (k + 1) % 8;
	snprintf(scr[k], sizeof(scr[k]), "/mnt/probekit/tests/fixtures/python/%s", name);
	pk_test_src_path("tests/roots/in_root.sh", in_root, sizeof(in_root));
	pk_test_roots_path(in->root, root, sizeof(root));
	{
		const char *const head[] = { in_root, root, in->prog, scr[k], NULL };

		pk_pyrun_args_cat(v, (const char *const *const[]){ head, args, NULL });
	}
}

/* probe-load [EXTRA...] -F FREQ -- ARGV..., from the command's first
 * instruction, probe-read [READ...] until it exits, unload. IN: the
 * interpreter ARGV runs (NULL: the host's). */
void pk_pyrun_profile_in(const struct interp *in, const char *const extra[],
		      const char *const argv[], const char *const read[], struct run *r)
{
	static const char *const freq[] = { "-F", FREQ_STR, "--", NULL };
	static const char *const dur[] = { "-d", "300", NULL };
	const char *load[MAX_ARGS], *rd[MAX_ARGS];
	int rc;

	ck_assert_msg(access(argv[0], X_OK) == 0, "%s missing (make test-deps test-programs)",
		      argv[0]);
	pk_pyrun_args_cat(load, (const char *const *const[]){ extra ? extra : no_args, freq, argv,
							    NULL });
	pk_pyrun_args_cat(rd, (const char *const *const[]){ dur, read ? read : no_args, NULL });
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
	pk_pyrun_run_parse(r);
}

void pk_pyrun_profile(const char *const extra[], const char *const argv[],
		   const char *const read[], struct run *r)
{
	pk_pyrun_profile_in(NULL, extra, argv, read, r);
}

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
struct held pk_pyrun_spawn_held_in(const struct interp *in, const char *const argv[])
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

		pk_pyrun_args_cat(av, (const char *const *const[]){ hold, root_args, shell, argv + 2,
							    NULL });
	} else {
		pk_pyrun_args_cat(av, (const char *const *const[]){ hold, argv, NULL });
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
void pk_pyrun_profile_held_in(const struct interp *in, const char *const extra[],
			   const char *const argv[], const char *const read[], bool after_exit,
			   struct run *r)
{
	char pidstr[16];
	const char *const target[] = { "-F", FREQ_STR, "-p", pidstr, NULL };
	const char *const dur[] = { "-d", after_exit ? "1" : "300", NULL };
	const char *load[MAX_ARGS], *rd[MAX_ARGS];
	struct held h = pk_pyrun_spawn_held_in(in, argv);
	int rc, status;

	snprintf(pidstr, sizeof(pidstr), "%d", h.target);
	r->pid = h.target;
	pk_pyrun_args_cat(load, (const char *const *const[]){ extra ? extra : no_args, target, NULL });
	pk_pyrun_args_cat(rd, (const char *const *const[]){ dur, read ? read : no_args, NULL });
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
	pk_pyrun_run_parse(r);
}

void pk_pyrun_print_stacks(const struct run *r, const char *comm, size_t max)
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
void pk_pyrun_note_bad(const char *what, const struct stack *s)
{
	static unsigned int shown;

	if (shown++ >= 3)
		return;
	fprintf(stderr, "  %s, not whole (%lu):", what, s->count);
	for (size_t i = 0; i < s->n; i++)
		fprintf(stderr, "%s%s", i ? ";" : " ", s->v[i]);
	fputc('\n', stderr);
}

