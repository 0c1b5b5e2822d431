// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The perf text writer, read back by an independent reader of perf script
 * text (speedscope's, see tests/harness/oracles.h): the stacks it rebuilds must be
 * the ones the profile holds, folded here from the model itself. The exact
 * layout of a sample is checked against perf 6.1's format, written out by
 * hand from `perf script` output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/oracles.h"
#include "harness/synth_profile.h"
#include "output/perf_text.h"
#include "test_util.h"

static char *write_text(const struct pk_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pk_perf_text_write(f, p), 0);
	fclose(f);
	return buf;
}

static void write_file(const char *text, char path[64])
{
	int fd;

	strcpy(path, "/tmp/pk-perf-text-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* --- the stacks, folded from the model ------------------------------------- */

/* S as the text carries it: control characters as spaces. */
static void put_clean(FILE *f, const char *s)
{
	for (; *s; s++)
		putc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

/* One location root first: the function, then what was inlined into it.
 * The function is "[unknown]" where no symbol holds the address; a Python
 * frame is named as CPython's perf trampoline names it, py::NAME:FILE. */
static void fold_loc(FILE *f, const struct pk_loc *loc)
{
	if (loc->python) {
		putc(';', f);
		if (loc->frames[0].file)
			fputs("py::", f);
		put_clean(f, loc->frames[0].name);
		if (loc->frames[0].file) {
			putc(':', f);
			put_clean(f, loc->frames[0].file);
		}
		return;
	}
	for (int i = loc->nframes - 1; i >= 0; i--) {
		putc(';', f);
		if (i == loc->nframes - 1 && loc->sym_off == PK_LOC_NO_SYM)
			fputs("[unknown]", f);
		else
			put_clean(f, loc->frames[i].name);
		if (loc->kernel)
			fputs("_[k]", f);
	}
}

/* "comm;user root..leaf;kernel root..leaf_[k]", with WITH_TID the root
 * "comm-PID/TID". */
static char *sample_key(const struct pk_sample_view *s, bool with_tid)
{
	const struct pk_stack_view *st = s->stack;
	char *key = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&key, &len);

	ck_assert_ptr_nonnull(f);
	put_clean(f, st->comm);
	if (with_tid)
		fprintf(f, "-%u/%u", st->pid, s->tid);
	for (size_t j = st->nuser; j-- > 0;)
		fold_loc(f, st->locs[st->nkernel + j]);
	for (size_t j = st->nkernel; j-- > 0;)
		fold_loc(f, st->locs[j]);
	fclose(f);
	return key;
}

struct item {
	char *key;
	__u64 count;
};

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->key, ((const struct item *)b)->key);
}

/* The folded lines, sorted by bytes, a sample of count C counted C times
 * (the text prints it C times). */
static char *expected_fold(const struct pk_profile *p, bool with_tid)
{
	struct item *v = calloc(p->nsamples + 1, sizeof(*v));
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert(v && out);
	for (size_t i = 0; i < p->nsamples; i++)
		v[i] = (struct item){ sample_key(&p->samples[i], with_tid), p->samples[i].count };
	qsort(v, p->nsamples, sizeof(*v), cmp_item);
	for (size_t i = 0, j; i < p->nsamples; i = j) {
		__u64 count = 0;

		for (j = i; j < p->nsamples && !strcmp(v[j].key, v[i].key); j++)
			count += v[j].count;
		fprintf(out, "%s %llu\n", v[i].key, (unsigned long long)count);
	}
	fclose(out);
	for (size_t i = 0; i < p->nsamples; i++)
		free(v[i].key);
	free(v);
	return buf;
}

/* The writer's text for P, read back by the oracle, against the model. */
static void check_oracle(const struct pk_profile *p, bool with_tid)
{
	char path[64], *text = write_text(p), *got, *want = expected_fold(p, with_tid);
	int err;

	write_file(text, path);
	err = with_tid ? pk_test_stackcollapse_perf_tid(path, &got)
		       : pk_test_stackcollapse_perf(path, &got);
	unlink(path);
	free(text);
	if (pk_test_oracle_missing(err, "speedscope's perf script reader (node, npm speedscope)")) {
		free(want);
		return;
	}
	ck_assert_int_eq(err, 0);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
}

/* --- tests ----------------------------------------------------------------- */

/* The oracle reads perf's own text: samples as perf 6.1 prints them here
 * (perf script -F +pid; the first taken from its output, its module path
 * without the space it had). */
START_TEST(test_oracle_reads_perf)
{
	static const char perf_text[] =
		"inl prog  6982/6982  [000]  7368.281400:    2004008 cpu-clock: \n"
		"\t            1174 outer+0x14 (/tmp/inl_prog)\n"
		"\t           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		"\n"
		"swapper     0/0     [001]  7368.281500:    2004008 cpu-clock: \n"
		"\tffffffff81e3a6d1 pv_native_safe_halt+0x11 ([kernel.kallsyms])\n"
		"\tffffffff81e3a9e5 default_idle+0x5 ([kernel.kallsyms])\n"
		"\n"
		"inl prog  6982/6982  [000]  7368.283403:    2004008 cpu-clock: \n"
		"\t            1174 outer+0x14 (/tmp/inl_prog)\n"
		"\t           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		"\n";
	char path[64], *got;
	int err;

	write_file(perf_text, path);
	err = pk_test_stackcollapse_perf(path, &got);
	unlink(path);
	if (pk_test_oracle_missing(err, "speedscope's perf script reader (node, npm speedscope)"))
		return;
	ck_assert_int_eq(err, 0);
	ck_assert_str_eq(got, "inl prog;__libc_start_call_main;outer 2\n"
			      "swapper;default_idle_[k];pv_native_safe_halt_[k] 1\n");
	free(got);
}
END_TEST

START_TEST(test_stacks)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);

	check_oracle(&p, false);
	check_oracle(&p, true);
}
END_TEST

/* Source lines sit between frame lines: the stacks read back the same. */
START_TEST(test_stacks_with_lines)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, true);

	check_oracle(&p, false);
}
END_TEST

/* The per-pid/tid/cpu groups change nothing: the header has all three. */
START_TEST(test_groups_add_nothing)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	char *none = write_text(&p);

	for (enum pk_group g = PK_GROUP_PID; g <= PK_GROUP_CPU; g++) {
		char *text;

		p.group = g;
		text = write_text(&p);
		ck_assert_str_eq(text, none);
		free(text);
	}
	free(none);
}
END_TEST

/* Python frames read back as perf's own reader reads those of CPython's
 * perf trampoline, with and without lines. */
START_TEST(test_python_stacks)
{
	struct pk_profile p = pk_synth_python_profile(PK_GROUP_NONE, false);

	check_oracle(&p, false);
	check_oracle(&p, true);
	p.lines = true;
	check_oracle(&p, false);
}
END_TEST

/* A Python frame: "py::QUALNAME:FILE ([python])", no offset, its line
 * below it with --lines ("FILE:0" where not known, as perf prints a
 * srcline it has no line of). */
START_TEST(test_python_layout)
{
	static const char second[] =
		"python3   400/401   [001]  1000.000002:   10101010 cpu-clock: \n"
		"\tffffffff81e00065 do_syscall_64+0x65 ([kernel.kallsyms])\n"
		"\t    7f1200003000 py::caf\xc3\xa9.\xc3\xbc" "ber:/srv/app/util.py ([python])\n"
		"\t    7f1200001000 py::Job.run:/srv/app/job.py ([python])\n"
		"\t    7f1200002000 py::<module>:/srv/app/main.py ([python])\n"
		"\t    555555620030 Py_RunMain+0x50 (/usr/bin/python3.11)\n"
		"\n";
	static const char third_lines[] =
		"python3   400/400   [001]  1000.000003:   10101010 cpu-clock: \n"
		"\t    7f1200004000 [py:0x7f1200004000] ([python])\n"
		"  [unknown]\n"
		"\t    555555610020 _PyEval_EvalFrameDefault+0x1234 (/usr/bin/python3.11)\n"
		"  ceval.c:4760\n"
		"\t    7f1200005000 py::<module>:/srv/app/other.py ([python])\n"
		"  other.py:1\n"
		"\t    555555620030 Py_RunMain+0x50 (/usr/bin/python3.11)\n"
		"  main.c:680\n"
		"\n";
	struct pk_profile p = pk_synth_python_profile(PK_GROUP_NONE, false);
	char *text = write_text(&p);

	ck_assert_msg(strstr(text, second), "%s", text);
	free(text);
	p.lines = true;
	text = write_text(&p);
	ck_assert_msg(strstr(text, third_lines), "%s", text);
	ck_assert_msg(strstr(text, "\t    7f1200003000 py::caf\xc3\xa9.\xc3\xbc" "ber:/srv/app/util.py ([python])\n"
				   "  util.py:0\n"), "%s", text);
	free(text);
}
END_TEST

/*
 * Two samples laid out as perf 6.1 prints them ("%s %5d/%-5d [%03d] %12s:
 * %10lu %s: " then "\t%16lx SYM+0xOFF (DSO)" per frame), written out by
 * hand: the first sample of the profile (kernel module, kernel location
 * without a map, no symbol, no map, control characters), without lines;
 * its third (a kernel part, an inlined frame), with lines.
 */
START_TEST(test_layout)
{
	static const char first[] =
		"gr\xc3\xbc\xc3\x9f" "e   200/201   [001]  1000.000001:   10101010 cpu-clock: \n"
		"\tffffffffc0a01020 nf_conntrack_in+0x120 ([nf_conntrack])\n"
		"\tffffffff81100005 kfunc+0x5 ([kernel.kallsyms])\n"
		"\t    7ffff7a00010 [unknown] (/opt/my;lib/libweird.so)\n"
		"\t    7f0000001234 [unknown] ([unknown])\n"
		"\t    555555555700 bad name 1+0x8 (/usr/bin/app)\n"
		"\n";
	static const char third[] =
		"\n"
		"my app   100/100   [000]  1000.010000:   10101010 cpu-clock: \n"
		"\tffffffff81e00065 do_syscall_64+0x65 ([kernel.kallsyms])\n"
		"  common.c:80\n"
		"\tffffffff82000130 entry_SYSCALL_64_after_hwframe+0x30 ([kernel.kallsyms])\n"
		"  [kernel.kallsyms][ffffffff82000130]\n"
		"\t    555555555444 helper+0x44 (inlined)\n"
		"  helper.h:12\n"
		"\t    555555555444 compute+0x44 (/usr/bin/app)\n"
		"  work.c:30\n"
		"\t    555555555310 do work(int, char const*)+0x10 (/usr/bin/app)\n"
		"  work.c:7\n"
		"\t    555555555200 main+0x20 (/usr/bin/app)\n"
		"  main.c:42\n"
		"\t    7ffff7829d90 __libc_start_call_main+0x80 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		"  libc.so.6[29d90]\n"
		"\n";
	static const char first_lines_tail[] =
		"\t    7ffff7a00010 [unknown] (/opt/my;lib/libweird.so)\n"
		"  libweird.so[10]\n"
		"\t    7f0000001234 [unknown] ([unknown])\n"
		"\t    555555555700 bad name 1+0x8 (/usr/bin/app)\n"
		"  main.c:50\n"
		"\n";
	static const char last_header[] =
		"\nmy app   100/102   [000]  2234.567890:   10101010 cpu-clock: \n";
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	char *text = write_text(&p);

	ck_assert_int_eq(strncmp(text, first, strlen(first)), 0);
	ck_assert_ptr_nonnull(strstr(text, last_header));
	free(text);
	p.lines = true;
	text = write_text(&p);
	ck_assert_ptr_nonnull(strstr(text, third));
	ck_assert_ptr_nonnull(strstr(text, first_lines_tail));
	free(text);
}
END_TEST

/* A sample of count 4 is printed 4 times; every sample ends in a blank line. */
START_TEST(test_count_and_blank_lines)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	char *text = write_text(&p), *at = text;
	size_t headers = 0, blanks = 0, want = 0;

	for (size_t i = 0; i < p.nsamples; i++)
		want += p.samples[i].count;
	while ((at = strstr(at, " cpu-clock: \n"))) {
		headers++;
		at++;
	}
	for (at = text; (at = strstr(at, "\n\n")); at += 2)
		blanks++;
	ck_assert_uint_eq(headers, want);
	ck_assert_uint_eq(blanks, want);
	ck_assert_ptr_nonnull(strstr(text, "   200/201   [001]  1000.020000:   10101010 cpu-clock: \n\n"
					   "gr\xc3\xbc\xc3\x9f" "e   200/201   [001]  1000.020000:"));
	free(text);
}
END_TEST

/* P's samples of EVENT (freed by the caller through *V). */
static struct pk_profile select_event(const struct pk_profile *p, unsigned int event,
				      struct pk_sample_view **v)
{
	struct pk_profile one;

	ck_assert_int_eq(pk_profile_select_event(p, event, &one, v), 0);
	ck_assert_uint_gt(one.nsamples, 0);
	return one;
}

/* Each header names its sample's event, with the weight as period. */
START_TEST(test_events_layout)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_NONE, false);
	char *text = write_text(&p);
	size_t headers[PK_SYNTH_NEVENTS] = { 0 }, want[PK_SYNTH_NEVENTS] = { 0 };
	const char *names[PK_SYNTH_NEVENTS] = {
		" cpu-clock: \n", " off-cpu: \n", " tracepoint:syscalls:sys_enter_write: \n" };

	/* the first sample: off-cpu, 700 ns */
	ck_assert_int_eq(strncmp(text, "my app   100/100   [000]  1000.000000:        700 off-cpu: \n"
				       "\t    555555555310 do work(int, char const*)+0x10 (/usr/bin/app)\n",
				 strlen("my app   100/100   [000]  1000.000000:        700 off-cpu: \n"
					"\t    555555555310 do work(int, char const*)+0x10 (/usr/bin/app)\n")), 0);
	/* three tracepoint samples of weight 30: 10 each */
	ck_assert_ptr_nonnull(strstr(text, "my app   100/100   [000]  1000.000005:         10 "
					   "tracepoint:syscalls:sys_enter_write: \n"));
	ck_assert_ptr_null(strstr(text, "        30 tracepoint"));
	/* a cpu-clock sample whose weight is not known: the period at 99 Hz */
	ck_assert_ptr_nonnull(strstr(text, "   100/102   [001]  1000.000004:   10101010 cpu-clock: \n"));
	/* 100 ms off-CPU */
	ck_assert_ptr_nonnull(strstr(text, "   100/100   [000]  1000.000007:  100000000 off-cpu: \n"));
	for (size_t i = 0; i < p.nsamples; i++)
		want[p.samples[i].event] += p.samples[i].count;
	for (int e = 0; e < PK_SYNTH_NEVENTS; e++)
		for (const char *at = text; (at = strstr(at, names[e])); at++)
			headers[e]++;
	for (int e = 0; e < PK_SYNTH_NEVENTS; e++)
		ck_assert_uint_eq(headers[e], want[e]);
	free(text);

	/* an event past the table: refused, nothing written */
	p.nevents = 2;
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		ck_assert_int_eq(pk_perf_text_write(f, &p), -EINVAL);
		fclose(f);
		ck_assert_uint_eq(len, 0);
		free(buf);
	}
}
END_TEST

/* The periods of a sample printed COUNT times add up to its weight. */
START_TEST(test_events_periods)
{
	const struct pk_profile base = pk_synth_profile_events(PK_GROUP_NONE, false);
	struct pk_sample_view s = base.samples[0];
	struct pk_profile p = base;
	unsigned long long sum = 0, v;
	char *text, *at;
	size_t lines = 0;

	s.count = 3;
	s.weight = 1000;		/* 334 + 333 + 333 */
	p.samples = &s;
	p.nsamples = 1;
	text = write_text(&p);
	for (at = text; (at = strstr(at, "1000.000000:")); at++) {
		ck_assert_int_eq(sscanf(at, "1000.000000: %llu off-cpu:", &v), 1);
		sum += v;
		lines++;
	}
	ck_assert_uint_eq(lines, 3);
	ck_assert_uint_eq(sum, 1000);
	ck_assert_ptr_nonnull(strstr(text, "        334 off-cpu"));
	free(text);
}
END_TEST

/* speedscope's reader takes the first event it meets (off-cpu here) and
 * leaves the others out: what it folds of the whole text is the off-cpu
 * samples alone; and each event's text alone folds to that event's. */
START_TEST(test_events_oracle)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_NONE, false);
	char path[64], *text = write_text(&p), *got, *want;
	struct pk_sample_view *v;
	struct pk_profile one = select_event(&p, PK_SYNTH_OFFCPU, &v);
	int err;

	ck_assert_uint_eq(p.samples[0].event, PK_SYNTH_OFFCPU);
	write_file(text, path);
	err = pk_test_stackcollapse_perf(path, &got);
	unlink(path);
	free(text);
	if (pk_test_oracle_missing(err, "speedscope's perf script reader (node, npm speedscope)")) {
		free(v);
		return;
	}
	ck_assert_int_eq(err, 0);
	want = expected_fold(&one, false);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	free(v);
	for (unsigned int e = 0; e < PK_SYNTH_NEVENTS; e++) {
		one = select_event(&p, e, &v);
		check_oracle(&one, e == PK_SYNTH_TP);
		free(v);
	}
}
END_TEST

START_TEST(test_empty)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, true);
	char *text;

	p.nsamples = 0;
	text = write_text(&p);
	ck_assert_str_eq(text, "");
	free(text);
}
END_TEST

START_TEST(test_write_error)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, true);
	FILE *f = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pk_perf_text_write(f, &p), -EIO);
	fclose(f);
}
END_TEST

Suite *suite_perf_text(void)
{
	Suite *s = suite_create("perf_text");
	TCase *tc = tcase_create("oracle");

	/* node reads speedscope's 0.5 MB bundle per call */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_oracle_reads_perf);
	tcase_add_test(tc, test_stacks);
	tcase_add_test(tc, test_stacks_with_lines);
	tcase_add_test(tc, test_python_stacks);
	tcase_add_test(tc, test_python_layout);
	tcase_add_test(tc, test_events_oracle);
	suite_add_tcase(s, tc);
	tc = tcase_create("layout");
	tcase_add_test(tc, test_groups_add_nothing);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_count_and_blank_lines);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_write_error);
	tcase_add_test(tc, test_events_layout);
	tcase_add_test(tc, test_events_periods);
	suite_add_tcase(s, tc);
	return s;
}
