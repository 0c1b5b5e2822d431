/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The harness of the Python end-to-end suites (test_python_e2e.c,
 * test_python_mixed.c, test_python_damaged.c): the interpreters, the
 * folded stacks cut into native and Python frames, the fixtures' reports
 * of their own stacks, and the runs of a fixture under a session.
 *
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
#ifndef PK_PYTHON_RUN_H
#define PK_PYTHON_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "integration/profile_session.h"

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

extern const struct interp pk_pyrun_interps[NPY];

/* --- stacks ----------------------------------------------------------------- */

struct pyframe {
	char name[256], file[256];
	long line;		/* -1: none printed */
};

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

const char *pk_pyrun_leaf(const struct stack *s);
bool pk_pyrun_runs_python(const struct stack *s);
bool pk_pyrun_in_oracle(const struct stack *s);
bool pk_pyrun_walk_failed(const struct stack *s);
bool pk_pyrun_root_is(const struct stack *s, const char *comm, pid_t pid);
bool pk_pyrun_has_py(const struct stack *s, const char *name);
bool pk_pyrun_contiguous(const struct stack *s);
bool pk_pyrun_native_root_ok(const struct stack *s, const char *mark);

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

void pk_pyrun_oracle_read(const char *path, struct oracle *o);
const struct oracle_stack *pk_pyrun_oracle_get(const struct oracle *o, const char *tag);
void pk_pyrun_oracle_free(struct oracle *o);
bool pk_pyrun_equals(const struct stack *s, const struct oracle_stack *o, bool leaf_line);
void pk_pyrun_oracle_names(const struct oracle_stack *o, const char *const want[]);

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

/* A process started held: PID, what the test waits for, and TARGET, the
 * interpreter stopped at the start of hot (PID itself, or in a root the
 * child in_root.sh's unshare forked, PID 1 of its namespace). */
struct held {
	pid_t pid, target;
};

#define MAX_ARGS	32

const char *pk_pyrun_root_path(const struct interp *in, const char *rel);
void pk_pyrun_run_parse(struct run *r);
void pk_pyrun_run_stacks_free(struct run *r);
void pk_pyrun_run_free(struct run *r);
void pk_pyrun_oracle_path_in(struct run *r, const char *name, const struct interp *in);
void pk_pyrun_oracle_path(struct run *r, const char *name);
const char *pk_pyrun_script(const char *name);
const char *pk_pyrun_built(const char *name);
void pk_pyrun_args_cat(const char *v[MAX_ARGS], const char *const *const lists[]);
void pk_pyrun_interp_argv(const struct interp *in, const char *name, const char *const args[],
		       const char *v[MAX_ARGS]);
void pk_pyrun_profile_in(const struct interp *in, const char *const extra[],
			 const char *const argv[], const char *const read[], struct run *r);
void pk_pyrun_profile(const char *const extra[], const char *const argv[], const char *const read[],
		   struct run *r);
struct held pk_pyrun_spawn_held_in(const struct interp *in, const char *const argv[]);
void pk_pyrun_profile_held_in(const struct interp *in, const char *const extra[],
			   const char *const argv[], const char *const read[], bool after_exit,
			   struct run *r);
void pk_pyrun_print_stacks(const struct run *r, const char *comm, size_t max);
void pk_pyrun_note_bad(const char *what, const struct stack *s);

#endif
