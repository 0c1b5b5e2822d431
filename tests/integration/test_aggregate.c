// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end: probe-load --aggregate (bpf/probekit.h "Aggregation"). The
 * same fixtures with and without it give the same stacks; every sample
 * the kernel took is read once, whether it was sent or counted, across
 * the swaps of --interval; a stack the fixture hits a known number of
 * times has exactly that count; a full counts map sends samples whole,
 * counted; what an aggregated session cannot give is refused.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "integration/profile_session.h"
#include "test_util.h"

/* ev_calls.c's truth: main -> caller -> hot_fn, called this many times. */
#define EV_CALLS	777

/* probe-read's --aggregate line: "N of them counted in the kernel
 * (--aggregate), M sent to define their stacks[; F sent whole ...]". */
struct agg_line {
	unsigned long long counted, defs, full;
};

static bool parse_agg_line(const char *err, struct agg_line *a)
{
	const char *l = strstr(err, " of them counted in the kernel (--aggregate), ");
	const char *full;

	*a = (struct agg_line){ 0 };
	if (!l)
		return false;
	while (l > err && l[-1] != '\n')
		l--;
	if (sscanf(l, "probe-read: %llu of them counted in the kernel (--aggregate), %llu sent",
		   &a->counted, &a->defs) != 2)
		return false;
	full = strstr(l, "; ");
	if (full && full < strchr(l, '\n') && sscanf(full, "; %llu sent whole", &a->full) != 1)
		return false;
	return true;
}

static void parse_or_fail(const char *out, struct pk_folded *f)
{
	const char *bad = NULL;

	ck_assert_msg(pk_folded_parse(out, f, &bad), "not folded format: '%s'", bad);
}

/* The line of F whose stack ends in CHAIN: its count (0: none); *LINE
 * its stack. More than one such line fails. */
static unsigned long chain_count(const struct pk_folded *f, const char *chain, const char **line)
{
	unsigned long n = 0;

	*line = NULL;
	for (size_t i = 0; i < f->n; i++) {
		size_t len = strlen(f->lines[i].stack);

		if (len < strlen(chain) || strcmp(f->lines[i].stack + len - strlen(chain), chain))
			continue;
		ck_assert_msg(!*line, "two stacks with %s: %s and %s", chain, *line,
			      f->lines[i].stack);
		*line = f->lines[i].stack;
		n = f->lines[i].count;
	}
	return n;
}

static unsigned long folded_sum(const struct pk_folded *f)
{
	unsigned long n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += f->lines[i].count;
	return n;
}

/* ev_calls (built without frame pointers: DWARF walks) started waiting,
 * a session of -e uprobe:...:hot_fn on it (and ARGS), released, read. */
static void uprobe_run(const char *extra, char **out, char **err, __u64 cnt[PK_CNT__MAX])
{
	char path[4096], pid[16], event[4200];
	const char *load[] = { "-p", pid, "-e", event, extra, NULL };
	const char *read[] = { NULL };
	struct pk_e2e_waiting w;

	pk_e2e_fixture_nofp("ev_calls-gcc-pie", path, sizeof(path));
	snprintf(event, sizeof(event), "uprobe:%s:hot_fn", path);
	w = pk_e2e_start_waiting(path);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	pk_e2e_release(&w);
	ck_assert_int_eq(pk_e2e_read(read, out, err), 0);
	pk_e2e_counters(cnt);
	ck_assert_int_eq(pk_e2e_unload(), 0);
}

/* A stack hit a known number of times: exactly that count, on the same
 * stack as without --aggregate; its first hit is sent, the others counted. */
START_TEST(test_uprobe_exact)
{
	char *out[2], *err[2];
	const char *line[2];
	struct pk_folded f[2];
	struct pk_e2e_summary sum;
	struct agg_line a;
	__u64 cnt[2][PK_CNT__MAX];

	uprobe_run(NULL, &out[0], &err[0], cnt[0]);
	uprobe_run("--aggregate", &out[1], &err[1], cnt[1]);
	for (int i = 0; i < 2; i++) {
		parse_or_fail(out[i], &f[i]);
		ck_assert_msg(chain_count(&f[i], ";main;caller;hot_fn", &line[i]) == EV_CALLS,
			      "%s: not %d calls in main;caller;hot_fn:\n%s",
			      i ? "--aggregate" : "ring buffer", EV_CALLS, out[i]);
		ck_assert_uint_eq(folded_sum(&f[i]), EV_CALLS);
		ck_assert_msg(pk_e2e_parse_summary(err[i], &sum), "no summary in: %s", err[i]);
		ck_assert_uint_eq(sum.read, EV_CALLS);
	}
	ck_assert_str_eq(line[0], line[1]);
	fprintf(stderr, "uprobe hot_fn: %s %d; --aggregate: %llu sent, %llu counted\n", line[1],
		EV_CALLS, (unsigned long long)cnt[1][PK_CNT_SAMPLES],
		(unsigned long long)cnt[1][PK_CNT_AGG_COUNTED]);
	ck_assert_uint_eq(cnt[0][PK_CNT_SAMPLES], EV_CALLS);
	ck_assert_uint_eq(cnt[0][PK_CNT_AGG_COUNTED], 0);
	ck_assert_msg(parse_agg_line(err[1], &a), "no --aggregate line in: %s", err[1]);
	ck_assert_uint_eq(a.counted, cnt[1][PK_CNT_AGG_COUNTED]);
	ck_assert_uint_eq(a.defs, cnt[1][PK_CNT_SAMPLES]);
	ck_assert_uint_eq(cnt[1][PK_CNT_SAMPLES] + cnt[1][PK_CNT_AGG_COUNTED], EV_CALLS);
	/* the same raw stack each call: sent once (probe-load loaded the
	 * fixture's tables before it ran: no walk stopped for want of one) */
	ck_assert_uint_eq(cnt[1][PK_CNT_SAMPLES], 1);
	ck_assert_uint_eq(cnt[1][PK_CNT_AGG_FULL], 0);
	ck_assert(!parse_agg_line(err[0], &a));
	for (int i = 0; i < 2; i++) {
		pk_folded_free(&f[i]);
		free(out[i]);
		free(err[i]);
	}
}
END_TEST

/* Folded files under DIR: their counts summed; *NFILES of them. */
static unsigned long folded_files_total(const char *dir, int *nfiles)
{
	char *list = NULL, path[4200];
	unsigned long total = 0;

	*nfiles = 0;
	ck_assert_int_eq(pk_test_run((char *const[]){ "ls", (char *)dir, NULL }, &list, NULL), 0);
	for (char *name = strtok(list, "\n"); name; name = strtok(NULL, "\n")) {
		struct pk_folded f;
		char *text;

		snprintf(path, sizeof(path), "%s/%s", dir, name);
		text = pk_test_read_file(path, NULL);
		ck_assert_ptr_nonnull(text);
		parse_or_fail(text, &f);
		total += folded_sum(&f);
		pk_folded_free(&f);
		free(text);
		(*nfiles)++;
	}
	free(list);
	return total;
}

/* The files in DIR, once it holds N of them, for two minutes at most
 * (in a TCG guest a reader's intervals come slowly). */
static void wait_files(const char *dir, int n)
{
	int have = 0;

	for (int i = 0; i < 2400 && have < n; i++) {
		char *list = NULL;

		ck_assert_int_eq(pk_test_run((char *const[]){ "ls", (char *)dir, NULL }, &list,
					     NULL), 0);
		have = 0;
		for (char *p = list; p && *p; p++)
			have += *p == '\n';
		free(list);
		if (have < n)
			usleep(50 * 1000);
	}
	ck_assert_msg(have >= n, "probe-read began %d intervals in two minutes, not %d", have, n);
}

/*
 * CPU samples of fp_chain, read while it runs, one profile a second: each
 * swap of the counts maps loses nothing, and every sample the kernel took
 * (sent, or counted) is in the files once. The fixture's one hot chain is
 * the same stack as without --aggregate. It runs until probe-read has
 * begun its third interval (two swaps while it runs, however slow the
 * reader's start: a TCG guest's took longer than 3 s of the fixture's
 * CPU), then its CPU budget is made to expire (SIGALRM) and it exits.
 */
START_TEST(test_intervals_lose_nothing)
{
	char dir[] = "/tmp/pk-agg-XXXXXX", pattern[128], log[128];
	const char *load[] = { "-F", "499", "--aggregate", "--", pk_e2e_fixture("fp_chain"), "120",
			       NULL };
	const char *plain[] = { "-F", "499", "--", pk_e2e_fixture("fp_chain"), "1", NULL };
	const char *plain_agg[] = { "-F", "499", "--aggregate", "--", pk_e2e_fixture("fp_chain"),
				    "1", NULL };
	const char *interval[] = { "--interval", "1", "-o", pattern, NULL };
	const char *read[] = { NULL };
	struct pk_e2e_summary sum;
	struct pk_folded f;
	struct agg_line a;
	__u64 cnt[PK_CNT__MAX];
	char *text, *out, *err;
	const char *chain[2];
	unsigned long total;
	int nfiles, status;
	pid_t reader;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pattern, sizeof(pattern), "%s/cpu-%%Y%%m%%dT%%H%%M%%S.folded", dir);
	snprintf(log, sizeof(log), "%s.log", dir);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	reader = pk_e2e_spawn_read(interval, log);
	ck_assert_int_gt(reader, 0);
	wait_files(dir, 3);
	ck_assert_int_eq(pk_e2e_signal_targets(SIGALRM), 1);
	/* it stops once the fixture has exited, all read */
	status = pk_test_wait(reader);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "probe-read: %#x", status);
	pk_e2e_counters(cnt);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	text = pk_test_read_file(log, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(pk_e2e_parse_summary(text, &sum), "no summary in: %s", text);
	ck_assert_msg(parse_agg_line(text, &a), "no --aggregate line in: %s", text);
	total = folded_files_total(dir, &nfiles);
	fprintf(stderr, "--aggregate --interval 1: %lu samples in %d files; kernel: %llu sent, %llu counted\n",
		total, nfiles, (unsigned long long)cnt[PK_CNT_SAMPLES],
		(unsigned long long)cnt[PK_CNT_AGG_COUNTED]);
	ck_assert_int_ge(nfiles, 2);
	ck_assert_uint_gt(cnt[PK_CNT_AGG_COUNTED], cnt[PK_CNT_SAMPLES]);
	ck_assert_uint_eq(cnt[PK_CNT_RINGBUF_FULL], 0);
	ck_assert_uint_eq(sum.read, cnt[PK_CNT_SAMPLES] + cnt[PK_CNT_AGG_COUNTED]);
	ck_assert_uint_eq(total, sum.read);
	ck_assert_uint_eq(a.counted, cnt[PK_CNT_AGG_COUNTED]);
	ck_assert_uint_eq(a.defs + cnt[PK_CNT_USTACK_COPIES], cnt[PK_CNT_SAMPLES]);
	ck_assert_ptr_null(strstr(text, "definition was lost"));
	free(text);
	ck_assert_int_eq(pk_test_run((char *const[]){ "rm", "-rf", dir, log, NULL }, NULL, NULL), 0);

	/* the hot chain's stack, as the ring buffer gives it, and the same
	 * with --aggregate */
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(pk_e2e_load(i ? plain_agg : plain), 0);
		ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
		ck_assert_int_eq(pk_e2e_unload(), 0);
		parse_or_fail(out, &f);
		ck_assert_msg(chain_count(&f, ";main;a;b;c;hot", &chain[i]) > 0,
			      "no main;a;b;c;hot in:\n%s", out);
		chain[i] = strdup(chain[i]);
		pk_folded_free(&f);
		free(out);
		free(err);
	}
	ck_assert_str_eq(chain[0], chain[1]);
	free((char *)chain[0]);
	free((char *)chain[1]);
}
END_TEST

/* A counts map of one entry: the first stack is counted there, samples
 * of the others are sent whole, and counted as such; none is lost. */
START_TEST(test_full_map_sends_whole)
{
	const char *load[] = { "-F", "499", "--aggregate", "--aggregate-entries", "1", "--",
			       pk_e2e_fixture("fp_chain"), "1", NULL };
	const char *read[] = { NULL };
	struct pk_e2e_summary sum;
	struct pk_folded f;
	struct agg_line a;
	__u64 cnt[PK_CNT__MAX];
	char *out, *err;

	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(60), 0);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	pk_e2e_counters(cnt);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_msg(pk_e2e_parse_summary(err, &sum), "no summary in: %s", err);
	ck_assert_msg(parse_agg_line(err, &a), "no --aggregate line in: %s", err);
	parse_or_fail(out, &f);
	fprintf(stderr, "--aggregate-entries 1: %llu read, %llu counted, %llu sent whole\n",
		sum.read, a.counted, a.full);
	/* fp_chain's hot loop is several instructions: several stacks */
	ck_assert_uint_gt(cnt[PK_CNT_AGG_FULL], 0);
	ck_assert_uint_eq(a.full, cnt[PK_CNT_AGG_FULL]);
	ck_assert_uint_eq(a.counted, cnt[PK_CNT_AGG_COUNTED]);
	/* one key: its definition, and the full map's samples */
	ck_assert_uint_eq(a.defs, 1);
	ck_assert_uint_eq(cnt[PK_CNT_SAMPLES],
			  1 + cnt[PK_CNT_AGG_FULL] + cnt[PK_CNT_USTACK_COPIES]);
	ck_assert_uint_eq(cnt[PK_CNT_RINGBUF_FULL], 0);
	ck_assert_uint_eq(sum.read, cnt[PK_CNT_SAMPLES] + cnt[PK_CNT_AGG_COUNTED]);
	ck_assert_uint_eq(folded_sum(&f), sum.read);
	pk_folded_free(&f);
	free(out);
	free(err);
}
END_TEST

/* What needs a sample's time, thread or CPU: one line, exit 2, nothing
 * read (the samples are there for a reader that asks for less). */
START_TEST(test_refused_outputs)
{
	char self[16], expect[1024], *out, *err;
	const char *load[] = { "--aggregate", "-p", self, NULL };
	const char *perf[] = { "-f", "perf", NULL };
	const char *tid[] = { "--per-tid", NULL };

	snprintf(self, sizeof(self), "%d", (int)getpid());
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_read(perf, &out, &err), 2);
	snprintf(expect, sizeof(expect),
		 "probe-read: -f perf: the session at %s counts samples in the kernel (probe-load --aggregate), which keeps no time, thread or CPU per sample: load it without --aggregate, or write folded, pprof or svg\n",
		 pk_e2e_pin_dir());
	ck_assert_str_eq(err, expect);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
	ck_assert_int_eq(pk_e2e_read(tid, &out, &err), 2);
	snprintf(expect, sizeof(expect),
		 "probe-read: --per-tid: the session at %s counts samples in the kernel (probe-load --aggregate), which keeps no thread or CPU per sample: load it without --aggregate\n",
		 pk_e2e_pin_dir());
	ck_assert_str_eq(err, expect);
	free(out);
	free(err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
}
END_TEST

Suite *suite_aggregate_e2e(void)
{
	Suite *s = suite_create("aggregate_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "BPF"))
		return s;
	tc = pk_e2e_tcase(s, "aggregate", 180);
	tcase_add_test(tc, test_uprobe_exact);
	tcase_add_test(tc, test_intervals_lose_nothing);
	tcase_add_test(tc, test_full_map_sends_whole);
	tcase_add_test(tc, test_refused_outputs);
	return s;
}
