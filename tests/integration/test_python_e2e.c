// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, Python: chain.py (<module> -> main -> a -> b -> c -> hot)
 * under each interpreter, python3.11, python3.11d, py_embed and the test
 * roots' 3.13 and 3.14 (python_run.h says how they run and what the shares
 * are of): attached to once its start-up is over and read while it runs,
 * after it exited, and as probe-load -- CMD's command read after; one read
 * in three formats; --no-python; system-wide, four interpreters at once;
 * and, off-CPU, against gdb's py-bt of the stopped fixture.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/pprof_decode.h"
#include "integration/python_run.h"
#include "test_util.h"

/* The releases, one of each version (the -dbg builds run the chains) */
static const int releases[] = { PY311, PY313, PY314 };
#define NRELEASES	(int)(sizeof(releases) / sizeof(releases[0]))

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

		if (!pk_pyrun_root_is(s, comm, pid) || !pk_pyrun_runs_python(s))
			continue;
		t.runs += s->count;
		if (strcmp(pk_pyrun_leaf(s), "hot")) {
			pk_pyrun_note_bad(comm, s);
			continue;
		}
		t.hot += s->count;
		if (pk_pyrun_equals(s, o, false) && pk_pyrun_contiguous(s) && !s->eval_left &&
		    pk_pyrun_native_root_ok(s, mark))
			t.ok += s->count;
		else
			pk_pyrun_note_bad(comm, s);
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

		if (!pk_pyrun_root_is(s, in->comm, 0))
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
		pk_pyrun_print_stacks(r, comm, 12);
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
	const struct interp *in = py >= 0 ? &pk_pyrun_interps[py] : NULL;
	const char *const args[] = { secs, r->oracle_arg, NULL };

	pk_pyrun_oracle_path_in(r, name, in);
	if (in) {
		pk_pyrun_interp_argv(in, "chain.py", args, argv);
	} else {
		const char *const head[] = { pk_pyrun_built("py_embed"), pk_pyrun_script("chain.py"),
					     NULL };

		pk_pyrun_args_cat(argv, (const char *const *const[]){ head, args, NULL });
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

	pk_pyrun_profile_held_in(in, NULL, argv, NULL, false, &r);
	pk_pyrun_oracle_read(r.oracle_path, &o);
	pk_pyrun_oracle_names(pk_pyrun_oracle_get(&o, "hot"), chain_names);
	snprintf(what, sizeof(what), "chain %s", chain_variants[_i].what);
	assert_chain(what, &r, in ? in->comm : "py_embed", 0, chain_variants[_i].mark,
		     pk_pyrun_oracle_get(&o, "hot"));
	if (in && in->root)
		assert_interp_named(what, &r, in);
	pk_pyrun_oracle_free(&o);
	pk_pyrun_run_free(&r);
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

	pk_pyrun_profile_held_in(in, NULL, argv, NULL, true, &r);
	pk_pyrun_oracle_read(r.oracle_path, &o);
	snprintf(what, sizeof(what), "chain %s, read after its exit", chain_variants[v].what);
	assert_chain(what, &r, in->comm, 0, "Py_RunMain", pk_pyrun_oracle_get(&o, "hot"));
	if (in->root)
		assert_interp_named(what, &r, in);
	pk_pyrun_oracle_free(&o);
	pk_pyrun_run_free(&r);
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

	pk_pyrun_args_cat(load, (const char *const *const[]){ freq, argv, NULL });
	pk_pyrun_args_cat(rd, (const char *const *const[]){ dur, NULL });
	ck_assert_int_eq(pk_e2e_load_err(load, &r.load_err), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(300), 0);
	rc = pk_e2e_read(rd, &r.out, &r.err);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, r.err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_pyrun_run_parse(&r);
	ck_assert(pk_e2e_parse_summary(r.err, &sum));
	pk_pyrun_oracle_read(r.oracle_path, &o);
	snprintf(what, sizeof(what), "chain %s, -- CMD read after", in->comm);
	t = chain_tally(&r, in->comm, 0, "Py_RunMain", pk_pyrun_oracle_get(&o, "hot"));
	fprintf(stderr, "python %s: %llu samples read, %llu lost; %lu in hot, %lu of them "
		"whole (%.2f%%)\n", what, sum.read, sum.lost, t.hot, t.ok,
		t.hot ? 100.0 * t.ok / t.hot : 0);
	ck_assert_msg(sum.lost == 0, "%s: %llu samples lost:\n%s", what, sum.lost, r.err);
	ck_assert_msg(t.hot >= MIN_SAMPLES, "%s: only %lu samples in hot:\n%s", what, t.hot,
		      r.err);
	if (t.ok < PY_MIN * t.hot)
		pk_pyrun_print_stacks(&r, in->comm, 12);
	ck_assert_msg(t.ok >= PY_MIN * t.hot, "%s: %lu of %lu samples in hot whole:\n%s", what,
		      t.ok, t.hot, r.err);
	assert_interp_named(what, &r, in);
	pk_pyrun_oracle_free(&o);
	pk_pyrun_run_free(&r);
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
		if (!strcmp(pk_pyrun_leaf(&s), "hot")) {
			*hot += smp->n_value ? (unsigned long)smp->value[0] : 0;
			*ok += pk_pyrun_equals(&s, o, false) && smp->n_value ?
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
			if (!strcmp(pk_pyrun_leaf(&s), "hot")) {
				(*hot)++;
				*ok += pk_pyrun_equals(&s, &names, true);
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
	pk_pyrun_profile_held_in(in, NULL, argv, read, false, &r);
	/* the folded stacks went to their file */
	pk_pyrun_run_stacks_free(&r);
	free(r.out);
	r.out = pk_test_read_file(fold, NULL);
	ck_assert_msg(r.out, "%s: no folded stacks", fold);
	pk_pyrun_run_parse(&r);
	pk_pyrun_oracle_read(r.oracle_path, &o);
	pprof_chain(pb, pk_pyrun_oracle_get(&o, "hot"), &pb_hot, &pb_ok);
	perf_chain(perf, pk_pyrun_oracle_get(&o, "hot"), &perf_hot, &perf_ok);
	fprintf(stderr, "python formats: pprof %lu of %lu samples in hot whole, perf text %lu "
		"of %lu\n", pb_ok, pb_hot, perf_ok, perf_hot);
	snprintf(what, sizeof(what), "chain %s, folded beside pprof and perf",
		 chain_variants[v].what);
	assert_chain(what, &r, in->comm, 0, "Py_RunMain", pk_pyrun_oracle_get(&o, "hot"));
	ck_assert_msg(pb_hot >= MIN_SAMPLES / 2 && pb_ok >= PY_MIN * pb_hot,
		      "pprof: %lu of %lu samples in hot whole", pb_ok, pb_hot);
	ck_assert_msg(perf_hot >= MIN_SAMPLES / 2 && perf_ok >= PY_MIN * perf_hot,
		      "perf text: %lu of %lu samples in hot whole", perf_ok, perf_hot);
	unlink(fold);
	unlink(pb);
	unlink(perf);
	pk_pyrun_oracle_free(&o);
	pk_pyrun_run_free(&r);
}
END_TEST

/* --no-python: the stacks are as before issue 18, _PyEval_EvalFrameDefault
 * and no Python frame at all. */
START_TEST(test_no_python)
{
	static const char *const extra[] = { "--no-python", NULL };
	const char *argv[] = { PYTHON, pk_pyrun_script("chain.py"), "1.5", NULL };
	unsigned long all = 0, eval = 0, py = 0;
	struct run r = { 0 };

	pk_pyrun_profile(extra, argv, NULL, &r);
	for (size_t i = 0; i < r.n; i++) {
		if (!pk_pyrun_root_is(&r.s[i], "python3.11", 0))
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
	pk_pyrun_run_free(&r);
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

		pk_pyrun_oracle_path_in(&r[i], "sys", &pk_pyrun_interps[py[i]]);
		pk_pyrun_interp_argv(&pk_pyrun_interps[py[i]], "chain.py", args, argv);
		h[i] = pk_pyrun_spawn_held_in(&pk_pyrun_interps[py[i]], argv);
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
	pk_pyrun_args_cat(rd, (const char *const *const[]){ read, NULL });
	rc = pk_e2e_read(rd, &r[0].out, &r[0].err);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, r[0].err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_pyrun_run_parse(&r[0]);
	for (int i = 0; i < N; i++) {
		pk_pyrun_oracle_read(r[i].oracle_path, &o[i]);
		snprintf(what, sizeof(what), "system-wide %s", pk_pyrun_interps[py[i]].comm);
		assert_chain(what, &r[0], pk_pyrun_interps[py[i]].comm, h[i].target, "Py_RunMain",
			     pk_pyrun_oracle_get(&o[i], "hot"));
		if (pk_pyrun_interps[py[i]].root)
			assert_interp_named(what, &r[0], &pk_pyrun_interps[py[i]]);
	}
	for (int i = 0; i < N; i++) {
		pk_pyrun_oracle_free(&o[i]);
		pk_pyrun_run_free(&r[i]);
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
	char *argv[] = { PYTHON, (char *)pk_pyrun_script("chain.py"), "0.2", NULL, "--nap", NULL };
	char pidstr[16], *gdb_out = NULL, *gdb_err = NULL;
	char *gdb[] = { "gdb", "-nx", "-batch", "-p", pidstr, "-ex", "py-bt", NULL };
	const char *load[] = { "-e", "off-cpu", "-p", pidstr, NULL };
	const char *read[] = { "-d", "300", NULL };
	unsigned long nap = 0, same = 0;
	long switches;
	pid_t pid;
	int rc;

	ck_assert_msg(access("/usr/bin/gdb", X_OK) == 0, "gdb missing (make test-deps)");
	pk_pyrun_oracle_path(&r, "gdb");
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
	pk_pyrun_run_parse(&r);
	gdb_py_bt(gdb_out, &g);
	pk_pyrun_oracle_names(&g, nap_names);
	for (size_t i = 0; i < r.n; i++) {
		const struct stack *s = &r.s[i];

		if (!pk_pyrun_root_is(s, "python3.11", 0) || strcmp(pk_pyrun_leaf(s), "nap"))
			continue;
		/* off-CPU: counts are microseconds blocked */
		nap += s->count;
		same += pk_pyrun_equals(s, &g, true) && pk_pyrun_contiguous(s) && !s->eval_left ?
			s->count : 0;
	}
	fprintf(stderr, "python gdb py-bt: %lu us blocked in nap, %lu us of them with gdb's "
		"stack exactly (%.2f%%)\n", nap, same, nap ? 100.0 * same / nap : 0);
	if (same < PY_MIN * nap || nap < 50000)
		fprintf(stderr, "gdb:\n%s\n", gdb_out), pk_pyrun_print_stacks(&r, "python3.11", 12);
	/* 100 naps of 1 ms at least */
	ck_assert_msg(nap >= 50000, "only %lu us in nap", nap);
	ck_assert_msg(same >= PY_MIN * nap, "%lu of %lu us have gdb's stack", same, nap);
	free(g.f);
	free(gdb_out);
	free(gdb_err);
	pk_pyrun_run_free(&r);
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
	return s;
}
