// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/synth_profile.h"
#include "output/top.h"
#include "test_util.h"

static char *draw(const struct pk_top *t, const struct pk_top_screen *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pk_top_draw(t, s, f), 0);
	fclose(f);
	return buf;
}

/* The weight of P's samples whose stack has a location of function NAME
 * (its symbol's, the last frame) anywhere (TOTAL) or at the leaf. */
static __u64 weight_of(const struct pk_profile *p, const char *name, bool leaf_only)
{
	__u64 w = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_stack_view *st = p->samples[i].stack;
		size_t n = leaf_only && st->nkernel + st->nuser ? 1 : st->nkernel + st->nuser;

		for (size_t k = 0; k < n; k++) {
			const struct pk_loc *loc = st->locs[k];

			if (!strcmp(loc->frames[loc->nframes - 1].name, name)) {
				w += pk_sample_weight(p, &p->samples[i]);
				break;
			}
		}
	}
	return w;
}

static __u64 weight_all(const struct pk_profile *p)
{
	__u64 w = 0;

	for (size_t i = 0; i < p->nsamples; i++)
		w += pk_sample_weight(p, &p->samples[i]);
	return w;
}

/* The row of function NAME: its self and total shares. */
static void row_of(const char *view, const char *name, double *self, double *total)
{
	char want[128];
	const char *p, *line;

	snprintf(want, sizeof(want), "] %s\n", name);
	p = strstr(view, want);
	ck_assert_msg(p, "no row for %s in:\n%s", name, view);
	for (line = p; line > view && line[-1] != '\n'; line--)
		;
	ck_assert_int_eq(sscanf(line, "%lf%% %lf%%", self, total), 2);
}

/* Every function's shares are its samples' weights over all samples',
 * self at the leaf, total anywhere in the stack once per sample; the
 * heaviest by self first, by total after 't'. */
START_TEST(test_shares)
{
	static const char *const names[] = { "do_syscall_64", "do work(int, char const*)",
					     "main", "nf_conntrack_in", "compute", "kfunc" };
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	struct pk_top *t = pk_top_new();
	struct pk_top_screen s = { 0 };
	double all = weight_all(&p), self, total;
	char *view;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(pk_top_add(t, &p), 0);
	view = draw(t, &s);
	ck_assert_msg(!strncmp(view, "cpu-clock: 12 samples in 0 s, by self share", 43), "%s", view);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		row_of(view, names[i], &self, &total);
		ck_assert_double_eq_tol(self, 100 * weight_of(&p, names[i], true) / all, 0.005);
		ck_assert_double_eq_tol(total, 100 * weight_of(&p, names[i], false) / all, 0.005);
	}
	/* the heaviest by self share: the first row */
	ck_assert_ptr_nonnull(strstr(view, "Symbol\n 25.00%  25.00%         3  [kernel.kallsyms]    [k] do_syscall_64\n"));
	/* names print without what a terminal would obey */
	ck_assert_ptr_nonnull(strstr(view, "[.] bad?name?1\n"));
	free(view);

	pk_top_toggle_order(t);
	view = draw(t, &s);
	ck_assert_ptr_nonnull(strstr(view, "Symbol\n  0.00%  41.67%         0  app                  [.] main\n"));
	free(view);

	/* cumulative: the same samples again, the same shares, twice the
	 * samples; zeroed, nothing */
	ck_assert_int_eq(pk_top_add(t, &p), 0);
	view = draw(t, &s);
	ck_assert(!strncmp(view, "cpu-clock: 24 samples", 21));
	row_of(view, "main", &self, &total);
	ck_assert_double_eq_tol(total, 100 * weight_of(&p, "main", false) / all, 0.005);
	free(view);
	pk_top_zero(t);
	view = draw(t, &s);
	ck_assert(!strncmp(view, "cpu-clock: 0 samples", 20));
	ck_assert_ptr_null(strstr(view, "] main"));
	free(view);
	pk_top_free(t);
}
END_TEST

/* Python functions by name and source file: two "<module>" are two rows,
 * each in its file's place of a module. */
START_TEST(test_python)
{
	struct pk_profile p = pk_synth_python_profile(PK_GROUP_NONE, false);
	struct pk_top *t = pk_top_new();
	struct pk_top_screen s = { 0 };
	char *view;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(pk_top_add(t, &p), 0);
	view = draw(t, &s);
	ck_assert_msg(strstr(view, " 60.00%  80.00%         3  job.py               [.] Job.run\n"),
		      "%s", view);
	ck_assert_msg(strstr(view, "  0.00%  80.00%         0  main.py              [.] <module>\n"),
		      "%s", view);
	ck_assert_msg(strstr(view, "  0.00%  20.00%         0  other.py             [.] <module>\n"),
		      "%s", view);
	ck_assert_msg(strstr(view, " 20.00%  20.00%         1  [python]             [.] [py:0x7f1200004000]\n"),
		      "%s", view);
	ck_assert_msg(strstr(view, "  0.00% 100.00%         0  python3.11           [.] Py_RunMain\n"),
		      "%s", view);
	free(view);
	pk_top_free(t);
}
END_TEST

/* A function that recurses counts once per sample in total. */
START_TEST(test_recursion)
{
	struct pk_frame f = { "rec", NULL, 0 };
	struct pk_loc a = { .id = 0, .nframes = 1, .addr = 1, .sym_off = PK_LOC_NO_SYM, .frames = &f };
	struct pk_loc b = { .id = 1, .nframes = 1, .addr = 2, .sym_off = PK_LOC_NO_SYM, .frames = &f };
	const struct pk_loc *locs[] = { &a, &b, &a };
	struct pk_stack_view st = { .id = 0, .pid = 1, .comm = "x", .nuser = 3, .locs = locs };
	struct pk_sample_view smp = { .count = 2, .stack = &st };
	struct pk_profile p = { .freq_hz = 100, .period_ns = 10000000, .nsamples = 1,
				.samples = &smp, .nstacks = 1, .nlocs = 2 };
	struct pk_top *t = pk_top_new();
	struct pk_top_screen s = { 0 };
	char *view;

	ck_assert_int_eq(pk_top_add(t, &p), 0);
	view = draw(t, &s);
	ck_assert_ptr_nonnull(strstr(view, "Symbol\n100.00% 100.00%         2  [unknown]            [.] rec\n"));
	free(view);
	pk_top_free(t);
}
END_TEST

/* One screen: the rows and columns of the terminal, redrawn in place. */
START_TEST(test_screen)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	struct pk_top *t = pk_top_new();
	struct pk_top_screen s = { .rows = 6, .cols = 30, .ansi = true, .seconds = 3 };
	char *view, *line, *save = NULL;
	int lines = 0;

	ck_assert_int_eq(pk_top_add(t, &p), 0);
	view = draw(t, &s);
	ck_assert(!strncmp(view, "\x1b[H", 3));
	ck_assert(strstr(view, "\x1b[J") && !strcmp(strstr(view, "\x1b[J"), "\x1b[J"));
	for (line = strtok_r(view + 3, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(line, "\x1b[J"))
			break;
		ck_assert_msg(strlen(line) <= 30 + 3, "'%s'", line);	/* + "\x1b[K" */
		lines++;
	}
	ck_assert_int_lt(lines, 6);	/* the last line stays free: no scrolling */
	free(view);
	pk_top_free(t);
}
END_TEST

/* Samples of two events do not add up: refused. */
START_TEST(test_events)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_NONE, false);
	struct pk_top *t = pk_top_new();

	ck_assert_int_eq(pk_top_add(t, &p), -EINVAL);
	pk_top_free(t);
}
END_TEST

Suite *suite_top(void)
{
	Suite *s = suite_create("top");
	TCase *tc = tcase_create("view");

	tcase_add_test(tc, test_shares);
	tcase_add_test(tc, test_recursion);
	tcase_add_test(tc, test_python);
	tcase_add_test(tc, test_screen);
	tcase_add_test(tc, test_events);
	suite_add_tcase(s, tc);
	return s;
}
