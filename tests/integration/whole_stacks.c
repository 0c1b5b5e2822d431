// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The whole-stack measure of the end-to-end suites (whole_stacks.h). */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "integration/whole_stacks.h"

/* --- stack patterns -------------------------------------------------------- */

void pk_frames_split(const char *stack, struct pk_frames *f)
{
	char *save = NULL, *p;

	f->copy = strdup(stack);
	f->v = NULL;
	f->n = 0;
	ck_assert_ptr_nonnull(f->copy);
	for (p = strtok_r(f->copy, ";", &save); p; p = strtok_r(NULL, ";", &save)) {
		f->v = realloc(f->v, (f->n + 1) * sizeof(*f->v));
		ck_assert_ptr_nonnull(f->v);
		f->v[f->n++] = p;
	}
}

void pk_frames_free(struct pk_frames *f)
{
	free(f->copy);
	free(f->v);
}

static bool is_kernel(const char *frame)
{
	size_t len = strlen(frame);

	return len > 4 && !strcmp(frame + len - 4, "_[k]");
}

/* One alternative list (no quantifier) against one frame. */
static bool token_matches(const char *tok, size_t len, const char *frame)
{
	char alt[256];
	const char *a = tok, *end = tok + len;

	while (a < end) {
		const char *bar = memchr(a, '|', (size_t)(end - a));
		size_t alen = (size_t)((bar ? bar : end) - a);

		snprintf(alt, sizeof(alt), "%.*s", (int)alen, a);
		if (!strcmp(alt, "K")) {
			if (is_kernel(frame))
				return true;
		} else if (!strcmp(alt, "[]")) {
			if (frame[0] == '[' && frame[strlen(frame) - 1] == ']')
				return true;
		} else if (!is_kernel(frame) && fnmatch(alt, frame, 0) == 0) {
			return true;
		}
		a = bar ? bar + 1 : end;
	}
	return false;
}

/* Does PAT (from its token at *PAT) match frames V[I..N)? Backtracking. */
static bool match_from(const char *pat, const char *const *v, size_t i, size_t n)
{
	const char *end, *tok;
	size_t len, min = 1, max = 1, k;

	if (!*pat)
		return i == n;
	end = strchrnul(pat, ';');
	tok = pat;
	switch (*tok) {
	case '%': min = 0; max = 1; tok++; break;
	case '+': min = 1; max = (size_t)-1; tok++; break;
	case '~': min = 0; max = (size_t)-1; tok++; break;
	}
	len = (size_t)(end - tok);
	if (*end)
		end++;
	/* take as many as allowed, then give back */
	for (k = 0; k < max && i + k < n && token_matches(tok, len, v[i + k]); k++)
		;
	for (;; k--) {
		if (k >= min && match_from(end, v, i + k, n))
			return true;
		if (k == 0 || k <= min)
			return false;
	}
}

/* STACK is COMM;<frames matching PAT>. */
static bool stack_matches(const char *stack, const char *comm, const char *pat)
{
	struct pk_frames f;
	bool ok;

	pk_frames_split(stack, &f);
	ok = f.n >= 1 && !strcmp(f.v[0], comm) && match_from(pat, f.v + 1, 0, f.n - 1);
	pk_frames_free(&f);
	return ok;
}

/* --- running a fixture ------------------------------------------------------- */

/* The comm of a program: its file name, cut to 15 bytes. */
void pk_e2e_comm_of(const char *path, char comm[16])
{
	const char *slash = strrchr(path, '/');

	snprintf(comm, 16, "%.15s", slash ? slash + 1 : path);
}

/* probe-read until the targets exit (-d 300 bounds a broken run, which the
 * case's timeout ends first): it stopped because they did, not for its -d,
 * if none of them runs any more (a check of state, not of wall time, which
 * a slow guest stretches: 46 s of vfork's in a TCG 6.1). */
void pk_e2e_read_until_exit(char **out, char **err)
{
	pk_e2e_read_until_exit_with(NULL, out, err);
}

void pk_e2e_read_until_exit_with(const char *const extra[], char **out, char **err)
{
	const char *args[16] = { "-d", "300" };
	size_t n = 2;
	int rc;

	for (size_t i = 0; extra && extra[i]; i++) {
		ck_assert(n < sizeof(args) / sizeof(args[0]) - 1);
		args[n++] = extra[i];
	}
	args[n] = NULL;
	rc = pk_e2e_read(args, out, err);

	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, *err);
	ck_assert_msg(pk_e2e_wait_targets_exit(5) == 0, "probe-read stopped while its "
		      "targets still ran");
}

void pk_e2e_parse_folded(const char *out, struct pk_folded *f)
{
	const char *bad = NULL;

	ck_assert_msg(pk_folded_parse(out, f, &bad), "not folded format: '%s'", bad);
}

static bool matches_any(const char *stack, const char *comm, const char *const pats[])
{
	for (size_t p = 0; pats[p]; p++)
		if (stack_matches(stack, comm, pats[p]))
			return true;
	return false;
}

static bool of_comm(const char *stack, const char *comm)
{
	size_t len = strlen(comm);

	return !strncmp(stack, comm, len) && (stack[len] == ';' || !stack[len]);
}

struct pk_tally pk_count_whole_in(const struct pk_folded *f, const char *comm,
				  const char *const in[], const char *const pats[])
{
	struct pk_tally t = { 0, 0 };

	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->lines[i].stack;

		if (!of_comm(s, comm) || (in && !matches_any(s, comm, in)))
			continue;
		t.total += f->lines[i].count;
		if (matches_any(s, comm, pats))
			t.whole += f->lines[i].count;
	}
	return t;
}

struct pk_tally pk_count_whole(const struct pk_folded *f, const char *comm,
			       const char *const pats[])
{
	return pk_count_whole_in(f, comm, NULL, pats);
}

/*
 * The measured code of a fixture: the samples with a user frame matching
 * HOT ('|'-separated fnmatch patterns), as the pattern IN[0] (IN holds 2).
 * The rest are its start-up (the fork and exec, ld.so, malloc's first
 * call) and exit, whose stacks are whole but not the chain, and whose
 * share grows with the machine's slowness: 5-20% of a run in a TCG guest,
 * where exec goes over 9p. A walk cut short keeps its leaf, which is in the
 * measured code, so it still counts against.
 */
void pk_measured_code(const char *hot, char *buf, size_t len, const char *in[2])
{
	ck_assert_int_lt(snprintf(buf, len, "~*;%s;~*|K", hot), (int)len);
	in[0] = buf;
	in[1] = NULL;
}

double pk_tally_share(struct pk_tally t)
{
	return t.total ? (double)t.whole / t.total : 0.0;
}

/* The heaviest stacks of COMM (matching IN, when not NULL) that match none
 * of PATS, for the failure message: each cut to fit check's message size. */
/* pk_not_whole_text(), each stack by its first 300 bytes, or with ENDS by
 * its last 250. */
static char *not_whole(const struct pk_folded *f, const char *comm, const char *const in[],
		       const char *const pats[], int max, bool ends)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int shown = 0;

	for (size_t i = 0; i < f->n && shown < max; i++) {
		const char *s = f->lines[i].stack;
		size_t n = strlen(s);

		if (!of_comm(s, comm) || (in && !matches_any(s, comm, in)) ||
		    matches_any(s, comm, pats))
			continue;
		if (ends)
			fprintf(m, "  %lu %s%s\n", f->lines[i].count, n > 250 ? "..." : "",
				n > 250 ? s + n - 250 : s);
		else
			fprintf(m, "  %lu %.300s%s\n", f->lines[i].count, s, n > 300 ? "..." : "");
		shown++;
	}
	fclose(m);
	return text;
}

char *pk_not_whole_text(const struct pk_folded *f, const char *comm,
			const char *const in[], const char *const pats[], int max)
{
	return not_whole(f, comm, in, pats, max, false);
}

char *pk_not_whole_ends(const struct pk_folded *f, const char *comm,
			const char *const in[], const char *const pats[], int max)
{
	return not_whole(f, comm, in, pats, max, true);
}

void pk_print_user_stacks_line(const char *what, const char *err)
{
	const char *line = err ? strstr(err, "user stacks: ") : NULL;

	fprintf(stderr, "  %s: %.*s\n", what, line ? (int)strcspn(line, "\n") : 22,
		line ? line : "(no \"user stacks:\" line)");
}

void pk_run_free(struct pk_run *r)
{
	pk_folded_free(&r->f);
	free(r->out);
	free(r->err);
}

/* probe-load [EXTRA...] -F 99 -- ARGV..., probe-read until exit, unload. */
void pk_profile_command(const char *const extra[], const char *const argv[],
			struct pk_run *r)
{
	pk_profile_command_read(extra, argv, NULL, NULL, r);
}

void pk_profile_command_read(const char *const extra[], const char *const argv[],
			     const char *const read_extra[], const char *folded,
			     struct pk_run *r)
{
	const char *load[32];
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	load[n++] = "-F";
	load[n++] = PK_WHOLE_FREQ;
	for (size_t i = 0; extra && extra[i]; i++)	/* a -F there wins */
		load[n++] = extra[i];
	load[n++] = "--";
	for (size_t i = 0; argv[i]; i++)
		load[n++] = argv[i];
	load[n] = NULL;
	ck_assert(n < sizeof(load) / sizeof(load[0]));
	pk_e2e_comm_of(argv[0], r->comm);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	pk_e2e_read_until_exit_with(read_extra, &r->out, &r->err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	if (folded) {
		free(r->out);
		r->out = pk_test_read_file(folded, NULL);
		ck_assert_msg(r->out, "%s: not written", folded);
		unlink(folded);
	}
	pk_e2e_parse_folded(r->out, &r->f);
	ck_assert_msg(pk_e2e_parse_summary(r->err, &r->sum), "no summary line in: %s", r->err);
}

void pk_profile_unreadable(const char *const args[], const char *comm, const char *want,
			   struct pk_run *r)
{
	const char *rd[] = { "-d", "300", NULL };
	char *load_err = NULL;
	int rc, lines = 0;

	memset(r, 0, sizeof(*r));
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	ck_assert_int_eq(pk_e2e_load_err(args, &load_err), 0);
	rc = pk_e2e_read(rd, &r->out, &r->err);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, r->err);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(5), 0);
	free(load_err);
	load_err = pk_e2e_load_log();
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_e2e_parse_folded(r->out, &r->f);
	for (const char *txt[] = { load_err ? load_err : "", r->err, NULL }, **p = txt; *p; p++)
		for (const char *l = *p; (l = strstr(l, "the walk cannot read")); l++)
			lines++;
	ck_assert_msg(lines == 1, "%d lines of 'the walk cannot read':\n%s\n%s", lines, load_err,
		      r->err);
	ck_assert_msg(strstr(load_err ? load_err : "", want) || strstr(r->err, want),
		      "no '%s' in:\n%s\n%s", want, load_err, r->err);
	free(load_err);
}

/* Of the samples in the measured code (HOT, see pk_measured_code()), at
 * least PK_WHOLE_MIN_SAMPLES, and a good part of the run's (half of it in
 * dlclose_reuse's lib2: a quarter at least, or the frames are misnamed),
 * at least PK_WHOLE_MIN are whole. */
void pk_assert_whole(const char *what, const struct pk_run *r, const char *hot,
		     const char *const pats[])
{
	char buf[512], *bad;
	const char *in[2];
	struct pk_tally all, t;

	pk_measured_code(hot, buf, sizeof(buf), in);
	all = pk_count_whole(&r->f, r->comm, pats);
	t = pk_count_whole_in(&r->f, r->comm, in, pats);
	fprintf(stderr, "dwarf %s: %lu of %lu samples in the measured code whole (%.1f%%), "
		"%lu of all %lu, lost %llu, failed %llu\n", what, t.whole, t.total,
		100 * pk_tally_share(t), all.whole, all.total, r->sum.lost, r->sum.failed);
	pk_print_user_stacks_line(what, r->err);
	ck_assert_msg(t.total >= PK_WHOLE_MIN_SAMPLES, "%s: only %lu samples of %s in %s "
		      "(need %d)", what, t.total, r->comm, hot, PK_WHOLE_MIN_SAMPLES);
	ck_assert_msg(t.total * 4 >= all.total, "%s: only %lu of %lu samples in %s: are the "
		      "fixture's frames named?", what, t.total, all.total, hot);
	if (pk_tally_share(t) < PK_WHOLE_MIN) {
		bad = pk_not_whole_text(&r->f, r->comm, in, pats, 12);
		ck_abort_msg("%s: %.1f%% of %lu samples in the measured code have the whole "
			     "stack (need %.0f%%); first stacks that do not:\n%s", what,
			     100 * pk_tally_share(t), t.total, 100 * PK_WHOLE_MIN, bad);
	}
}
