/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The whole-stack measure of the end-to-end suites (test_dwarf.c first):
 * a fixture with a known call chain is profiled with the real tools, and
 * the share of its samples whose stack is whole, the exact frames from the
 * outermost one (_start, or clone3 for a thread) down to the leaf, is
 * asserted.
 *
 * Stack patterns: ';'-separated tokens matched against the frames after the
 * comm. A token is one or more alternatives separated by '|', each an
 * fnmatch(3) pattern, or "K" for a kernel frame (suffix _[k]), or "[]" for a
 * frame without a symbol ([FILE+0xOFF], [unknown]...). A token's prefix
 * says how many frames it takes: none exactly one, '%' zero or one, '+'
 * one or more, '~' zero or more.
 */
#ifndef PK_WHOLE_STACKS_H
#define PK_WHOLE_STACKS_H

#include "integration/profile_session.h"

/* The sampling rate of pk_profile_command(). */
#define PK_WHOLE_FREQ		"99"
/* Shares are of at least this many samples, or the run says nothing. */
#define PK_WHOLE_MIN_SAMPLES	100
/* Whole stacks: the DWARF walk should give all; perf --call-graph dwarf
 * measured 99-100% on every fixture. */
#define PK_WHOLE_MIN		0.90

/* The outermost frames of a program's main thread, down to main. */
#define PK_START_NOMAIN "_start;__libc_start_main*;__libc_start_call_main"
#define PK_START PK_START_NOMAIN ";main"

/* A folded stack split at its ';'. */
struct pk_frames {
	char *copy;
	const char **v;
	size_t n;
};

void pk_frames_split(const char *stack, struct pk_frames *f);
void pk_frames_free(struct pk_frames *f);

/* The comm of a program: its file name, cut to 15 bytes. */
void pk_e2e_comm_of(const char *path, char comm[16]);
/* probe-read until the session's targets exit, into *OUT and *ERR. */
void pk_e2e_read_until_exit(char **out, char **err);
/* The same with probe-read's EXTRA arguments too (NULL-ended, or NULL). */
void pk_e2e_read_until_exit_with(const char *const extra[], char **out, char **err);
/* OUT as folded stacks, or the test fails. */
void pk_e2e_parse_folded(const char *out, struct pk_folded *f);

/* Samples of COMM matching any of IN (all of them when IN is NULL), and of
 * those the ones matching any of PATS (both NULL-ended). */
struct pk_tally {
	unsigned long total, whole;
};

struct pk_tally pk_count_whole_in(const struct pk_folded *f, const char *comm,
				  const char *const in[], const char *const pats[]);
struct pk_tally pk_count_whole(const struct pk_folded *f, const char *comm,
			       const char *const pats[]);
/* whole / total, 0 without samples. */
double pk_tally_share(struct pk_tally t);

/*
 * The measured code of a fixture: the samples with a user frame matching
 * HOT ('|'-separated fnmatch patterns), as the pattern IN[0] (IN holds 2).
 */
void pk_measured_code(const char *hot, char *buf, size_t len, const char *in[2]);

/* The heaviest stacks of COMM (matching IN, when not NULL) that match none
 * of PATS, MAX of them, for a failure message (malloc'ed). */
char *pk_not_whole_text(const struct pk_folded *f, const char *comm,
			const char *const in[], const char *const pats[], int max);
/* The same, each stack by its last 250 bytes: where stacks that start
 * alike (a runtime's own frames) differ. */
char *pk_not_whole_ends(const struct pk_folded *f, const char *comm,
			const char *const in[], const char *const pats[], int max);

/* probe-read's "user stacks:" line in ERR, on stderr, after WHAT. */
void pk_print_user_stacks_line(const char *what, const char *err);

/* One profile of a fixture under probe-load -- CMD, read until it exits. */
struct pk_run {
	char comm[16];
	char *out, *err;
	struct pk_folded f;
	struct pk_e2e_summary sum;
};

void pk_run_free(struct pk_run *r);

/* probe-load -F 99 [EXTRA...] -- ARGV... (a -F in EXTRA wins), probe-read
 * until exit, unload, into *R. */
void pk_profile_command(const char *const extra[], const char *const argv[],
			struct pk_run *r);
/* The same with probe-read's READ_EXTRA arguments too (more outputs, each
 * to a file), of which FOLDED (NULL: standard output) is the folded one,
 * R's stacks (the file is removed). */
void pk_profile_command_read(const char *const extra[], const char *const argv[],
			     const char *const read_extra[], const char *folded,
			     struct pk_run *r);

/* A runtime the walk cannot read: probe-load ARGS (-- a command),
 * probe-read until it exits, unload; R's stacks and output as
 * pk_profile_command()'s (R->comm from COMM). Exactly one line of
 * probe-load's or probe-read's stderr says "the walk cannot read", and it
 * is WANT, or the test fails. */
void pk_profile_unreadable(const char *const args[], const char *comm, const char *want,
			   struct pk_run *r);

/* Of the samples of R in the measured code (HOT, see pk_measured_code()),
 * at least PK_WHOLE_MIN_SAMPLES, and a quarter of the run's at least, at
 * least PK_WHOLE_MIN match one of PATS; else the test fails, showing the
 * stacks that do not. WHAT names the run in the messages. */
void pk_assert_whole(const char *what, const struct pk_run *r, const char *hot,
		     const char *const pats[]);

#endif
