// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The speedscope writer: its files validated against the schema speedscope
 * ships (by Debian's python3-jsonschema, see tests/harness/oracles.h), then read
 * back by Python's json and compared with what the profile holds, computed
 * here from the model: every sample in its profile, in time order, its
 * frames root first, its weight; the frames deduplicated; names escaped so
 * that they decode to their own bytes, or to U+FFFD where they are not
 * UTF-8.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/oracles.h"
#include "harness/synth_profile.h"
#include "lib/version.h"
#include "output/speedscope.h"
#include "test_util.h"

#define ORACLE "speedscope's schema (npm speedscope, python3-jsonschema)"

static char *write_json(const struct pk_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pk_speedscope_write(f, p), 0);
	fclose(f);
	return buf;
}

static void write_file(const char *text, char path[64])
{
	int fd;

	strcpy(path, "/tmp/pk-speedscope-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/*
 * P written, validated, and dumped as WHAT (see pk_test_speedscope_dump).
 * NULL when the oracle is missing (the test then stops).
 */
static char *write_check_dump(const struct pk_profile *p, const char *what)
{
	char path[64], err[PK_ORACLE_ERR_LEN], *json = write_json(p), *out = NULL;
	int ret;

	write_file(json, path);
	free(json);
	ret = pk_test_speedscope_validate(path, err);
	if (pk_test_oracle_missing(ret, ORACLE)) {
		unlink(path);
		return NULL;
	}
	ck_assert_msg(ret == 0, "not a valid speedscope file (%d): %s", ret, err);
	ret = pk_test_speedscope_dump(path, what, &out);
	unlink(path);
	ck_assert_int_eq(ret, 0);
	return out;
}

/* --- what the file must hold, from the model ------------------------------- */

static __u64 key_of(const struct pk_profile *p, const struct pk_sample_view *s)
{
	switch (p->group) {
	case PK_GROUP_TID:
		return (__u64)s->stack->pid << 32 | s->tid;
	case PK_GROUP_CPU:
		return s->cpu;
	default:
		return s->stack->pid;
	}
}

/* The distinct keys of P's samples, ascending: its profiles' order. */
static size_t profile_keys(const struct pk_profile *p, __u64 *keys)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		__u64 k = key_of(p, &p->samples[i]);
		size_t at = 0;

		while (at < n && keys[at] < k)
			at++;
		if (at < n && keys[at] == k)
			continue;
		memmove(keys + at + 1, keys + at, (n - at) * sizeof(*keys));
		keys[at] = k;
		n++;
	}
	return n;
}

/* "comm (pid N)" after the main thread, else the first thread sampled;
 * "comm (tid N)"; "cpu N". */
static void put_profile_name(FILE *f, const struct pk_profile *p, __u64 key)
{
	const struct pk_sample_view *first = NULL, *main_thread = NULL;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_sample_view *s = &p->samples[i];

		if (key_of(p, s) != key)
			continue;
		if (!first)
			first = s;
		if (!main_thread && s->tid == s->stack->pid)
			main_thread = s;
	}
	switch (p->group) {
	case PK_GROUP_CPU:
		fprintf(f, "cpu %u", first->cpu);
		break;
	case PK_GROUP_TID:
		fprintf(f, "%s (tid %u)", first->stack->comm, first->tid);
		break;
	default:
		first = main_thread ? main_thread : first;
		fprintf(f, "%s (pid %u)", first->stack->comm, first->stack->pid);
	}
}

static void put_loc(FILE *f, const struct pk_loc *loc)
{
	for (int i = loc->nframes - 1; i >= 0; i--)
		fprintf(f, ";%s%s", loc->frames[i].name, loc->kernel ? "_[k]" : "");
}

/* The "stacks" dump: per profile, per sample in time order, "PROFILE;root
 * ..;leaf WEIGHT". */
static char *expected_stacks(const struct pk_profile *p)
{
	__u64 *keys = calloc(p->nsamples + 1, sizeof(*keys));
	size_t nkeys = profile_keys(p, keys), len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	for (size_t k = 0; k < nkeys; k++)
		for (size_t i = 0; i < p->nsamples; i++) {
			const struct pk_sample_view *s = &p->samples[i];
			const struct pk_stack_view *st = s->stack;

			if (key_of(p, s) != keys[k])
				continue;
			put_profile_name(f, p, keys[k]);
			if (p->per_cgroup)
				fprintf(f, ";%s", pk_stack_cgroup(st));
			if (p->group == PK_GROUP_CPU)
				fprintf(f, ";%s", st->comm);
			for (size_t j = st->nuser; j-- > 0;)
				put_loc(f, st->locs[st->nkernel + j]);
			for (size_t j = st->nkernel; j-- > 0;)
				put_loc(f, st->locs[j]);
			fprintf(f, " %llu\n", (unsigned long long)(s->count * p->period_ns));
		}
	fclose(f);
	free(keys);
	return buf;
}

/* --- tests ----------------------------------------------------------------- */

static void check_profile_stacks(const struct pk_profile *p)
{
	char *got = write_check_dump(p, "stacks"), *want;

	if (!got)
		return;
	want = expected_stacks(p);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
}

static void check_stacks(enum pk_group group, bool lines)
{
	struct pk_profile p = pk_synth_profile(group, lines);

	check_profile_stacks(&p);
}

START_TEST(test_stacks_per_process)
{
	check_stacks(PK_GROUP_NONE, false);
	check_stacks(PK_GROUP_PID, true);
}
END_TEST

/* --per-cgroup: each stack starts with its cgroup, above the thread's
 * name of a profile per CPU. */
START_TEST(test_stacks_per_cgroup)
{
	struct pk_profile p = pk_synth_cgroup_profile(PK_GROUP_NONE, true);
	char *json;

	check_profile_stacks(&p);
	p.group = PK_GROUP_CPU;
	check_profile_stacks(&p);
	p.group = PK_GROUP_TID;
	check_profile_stacks(&p);
	/* the oracle's dump joins frames with ';': the names themselves */
	json = write_json(&p);
	ck_assert_ptr_nonnull(strstr(json, "\"/system.slice/docker-" PK_SYNTH_CONTAINER_ID ".scope\""));
	ck_assert_ptr_nonnull(strstr(json, "\"[unknown cgroup]\""));
	free(json);
}
END_TEST

START_TEST(test_stacks_per_thread)
{
	check_stacks(PK_GROUP_TID, false);
}
END_TEST

START_TEST(test_stacks_per_cpu)
{
	check_stacks(PK_GROUP_CPU, true);
}
END_TEST

/* Profile names, their sample counts and weights, the active profile (the
 * heaviest), and the totals that integration tests compare. */
START_TEST(test_summary)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	const __u64 P = p.period_ns;
	char path[64], *json, *got, *want = NULL;
	__u64 samples = 0, weight = 0;
	size_t len = 0;
	FILE *f = open_memstream(&want, &len);
	int err;

	/* 100: five samples; 200: three, one of count 4; 300: one. */
	fprintf(f, "my app (pid 100)\t5\t%llu\n", 5 * P);
	fprintf(f, "gr\xc3\xbc\xc3\x9f" "e (pid 200)\t3\t%llu\n", 6 * P);
	fprintf(f, "kworker/0:1 (pid 300)\t1\t%llu\n", 1 * P);
	fprintf(f, "active\tgr\xc3\xbc\xc3\x9f" "e (pid 200)\n");
	fprintf(f, "total\t9\t%llu\n", 12 * P);
	fclose(f);
	got = write_check_dump(&p, "summary");
	if (!got) {
		free(want);
		return;
	}
	ck_assert_str_eq(got, want);
	free(got);
	free(want);

	json = write_json(&p);
	write_file(json, path);
	err = pk_test_speedscope_count(path, &samples, &weight);
	unlink(path);
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(samples, 9);
	ck_assert_uint_eq(weight, 12 * P);
	free(json);
}
END_TEST

/* One profile per event and process, named with the event, weighted in
 * the event's unit: nanoseconds of CPU and blocked, counts of hits. */
START_TEST(test_events)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_NONE, false);
	const __u64 P = 1000000000ULL / 99;
	char *got, *want = NULL, *json;
	size_t len = 0;
	FILE *f = open_memstream(&want, &len);

	/* cpu-clock: 100 two samples (one weight not known), 200 one of
	 * count 2; off-cpu: 100 five; the tracepoint: 100 three of 10, 10, 30 */
	fprintf(f, "my app (pid 100) [cpu-clock]\t2\t%llu\n", 2 * P);
	fprintf(f, "gr\xc3\xbc\xc3\x9f" "e (pid 200) [cpu-clock]\t2\t%llu\n", 3 * P);
	fprintf(f, "kworker/0:1 (pid 300) [cpu-clock]\t1\t%llu\n", P);
	fprintf(f, "my app (pid 100) [off-cpu]\t5\t%llu\n", 700 + 700 + 1499 + 2500 + 100000000ULL);
	fprintf(f, "my app (pid 100) [tracepoint:syscalls:sys_enter_write]\t3\t50\n");
	/* the heaviest of the first event: 100 ms off-CPU is not CPU time */
	fprintf(f, "active\tgr\xc3\xbc\xc3\x9f" "e (pid 200) [cpu-clock]\n");
	fprintf(f, "total\t13\t%llu\n", 6 * P + 100005399 + 50);
	fclose(f);
	got = write_check_dump(&p, "summary");
	if (!got) {
		free(want);
		return;
	}
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	json = write_json(&p);
	ck_assert_ptr_nonnull(strstr(json, "\"name\":\"probekit profile (cpu-clock, off-cpu, "
					   "tracepoint:syscalls:sys_enter_write)\""));
	ck_assert_ptr_nonnull(strstr(json, "[tracepoint:syscalls:sys_enter_write]\",\"unit\":\"none\""));
	ck_assert_ptr_nonnull(strstr(json, "[off-cpu]\",\"unit\":\"nanoseconds\""));
	free(json);

	/* one event that is not cpu-clock: named too */
	{
		struct pk_sample_view *v;
		struct pk_profile one;

		ck_assert_int_eq(pk_profile_select_event(&p, PK_SYNTH_TP, &one, &v), 0);
		one.events += PK_SYNTH_TP;
		one.nevents = 1;
		for (size_t i = 0; i < one.nsamples; i++)
			v[i].event = 0;
		got = write_check_dump(&one, "summary");
		ck_assert_str_eq(got, "my app (pid 100) [tracepoint:syscalls:sys_enter_write]\t3\t50\n"
				      "active\tmy app (pid 100) [tracepoint:syscalls:sys_enter_write]\n"
				      "total\t3\t50\n");
		free(got);
		free(v);
	}
	/* an event past the table: refused */
	p.nevents = 2;
	{
		char *buf = NULL;
		FILE *mf = open_memstream(&buf, &len);

		ck_assert_int_eq(pk_speedscope_write(mf, &p), -EINVAL);
		fclose(mf);
		ck_assert_uint_eq(len, 0);
		free(buf);
	}
}
END_TEST

/* Each profile in nanoseconds spans the profile's time, exactly (so
 * through 2^53, where a double would round); one in counts 0 to its
 * total, as speedscope draws it. */
START_TEST(test_span)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_NONE, false);
	char *got, *want = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&want, &len);

	p.start_ns = (1ULL << 53) + 1;
	p.end_ns = (1ULL << 53) + 12345;
	fprintf(f, "my app (pid 100) [cpu-clock]\tnanoseconds\t%llu\t%llu\n", p.start_ns, p.end_ns);
	fprintf(f, "gr\xc3\xbc\xc3\x9f" "e (pid 200) [cpu-clock]\tnanoseconds\t%llu\t%llu\n",
		p.start_ns, p.end_ns);
	fprintf(f, "kworker/0:1 (pid 300) [cpu-clock]\tnanoseconds\t%llu\t%llu\n", p.start_ns,
		p.end_ns);
	fprintf(f, "my app (pid 100) [off-cpu]\tnanoseconds\t%llu\t%llu\n", p.start_ns, p.end_ns);
	fprintf(f, "my app (pid 100) [tracepoint:syscalls:sys_enter_write]\tnone\t0\t50\n");
	fclose(f);
	got = write_check_dump(&p, "span");
	if (got)
		ck_assert_str_eq(got, want);
	free(got);
	free(want);
}
END_TEST

START_TEST(test_active_per_cpu_and_thread)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_CPU, false);
	char *got = write_check_dump(&p, "summary");

	if (!got)
		return;
	ck_assert_ptr_nonnull(strstr(got, "\nactive\tcpu 1\n"));
	free(got);
	p = pk_synth_profile(PK_GROUP_TID, false);
	got = write_check_dump(&p, "summary");
	ck_assert_ptr_nonnull(strstr(got, "\nactive\tgr\xc3\xbc\xc3\x9f" "e (tid 201)\n"));
	free(got);
}
END_TEST

/* One frame per distinct (name, file), or (name, file, line) with lines:
 * counted here by comparing every pair. */
static size_t distinct_frames(const struct pk_profile *p)
{
	const struct pk_frame *seen[64];
	bool kernel[64];
	size_t n = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_stack_view *st = p->samples[i].stack;

		for (size_t j = 0; j < (size_t)st->nkernel + st->nuser; j++)
			for (int k = 0; k < st->locs[j]->nframes; k++) {
				const struct pk_frame *fr = &st->locs[j]->frames[k];
				bool dup = false;

				for (size_t m = 0; m < n && !dup; m++)
					dup = kernel[m] == st->locs[j]->kernel &&
					      !strcmp(seen[m]->name, fr->name) &&
					      !seen[m]->file == !fr->file &&
					      (!fr->file || !strcmp(seen[m]->file, fr->file)) &&
					      (!(p->lines || st->locs[j]->python) ||
					       seen[m]->line == fr->line);
				if (!dup) {
					ck_assert_uint_lt(n, 64);
					kernel[n] = st->locs[j]->kernel;
					seen[n++] = fr;
				}
			}
	}
	return n;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

START_TEST(test_frames)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	char *got = write_check_dump(&p, "frames");

	if (!got)
		return;
	ck_assert_uint_eq(count_lines(got), distinct_frames(&p));
	/* main at two lines is one frame without lines, two with them */
	ck_assert_ptr_nonnull(strstr(got, "[\"main\", \"/src/app/main.c\", null]\n"));
	ck_assert_ptr_nonnull(strstr(got, "[\"__libc_start_call_main\", null, null]\n"));
	ck_assert_ptr_nonnull(strstr(got, "[\"do_syscall_64_[k]\", \"arch/x86/entry/common.c\", null]\n"));
	ck_assert_ptr_nonnull(strstr(got, "[\"helper\", \"/src/app/helper.h\", null]\n"));
	ck_assert_ptr_nonnull(strstr(got, "[\"bad\\nname\\t1\", \"/src/app/main.c\", null]\n"));
	ck_assert_ptr_nonnull(strstr(got, "[\"say \\\"hi\\\" \\\\ 'there'\", \"/src/app/q.c\", null]\n"));
	ck_assert_ptr_nonnull(strstr(got, "[\"gr\\u00fc\\u00dfe_\\u03bb_\\ud83d\\ude00\", "
					  "\"/src/app/\\u00fc.c\", null]\n"));
	free(got);

	p.lines = true;
	got = write_check_dump(&p, "frames");
	ck_assert_uint_eq(count_lines(got), distinct_frames(&p));
	ck_assert_ptr_nonnull(strstr(got, "[\"main\", \"/src/app/main.c\", 42]\n"));
	ck_assert_ptr_nonnull(strstr(got, "[\"main\", \"/src/app/main.c\", 44]\n"));
	ck_assert_ptr_nonnull(strstr(got, "[\"__libc_start_call_main\", null, null]\n"));
	free(got);
}
END_TEST

/* Python frames: their name, file, and their line even without --lines
 * (a name alone says little: two "<module>" are two files); the stacks
 * read back as the model holds them. */
START_TEST(test_python)
{
	struct pk_profile p = pk_synth_python_profile(PK_GROUP_NONE, false);
	char *got = write_check_dump(&p, "frames"), *want;

	if (!got)
		return;
	ck_assert_uint_eq(count_lines(got), distinct_frames(&p));
	ck_assert_msg(strstr(got, "[\"Job.run\", \"/srv/app/job.py\", 12]\n"), "%s", got);
	ck_assert_msg(strstr(got, "[\"<module>\", \"/srv/app/main.py\", 3]\n"), "%s", got);
	ck_assert_msg(strstr(got, "[\"<module>\", \"/srv/app/other.py\", 1]\n"), "%s", got);
	ck_assert_msg(strstr(got, "[\"caf\\u00e9.\\u00fcber\", \"/srv/app/util.py\", null]\n"),
		      "%s", got);
	ck_assert_msg(strstr(got, "[\"[py:0x7f1200004000]\", null, null]\n"), "%s", got);
	/* native frames as ever: no line without --lines */
	ck_assert_msg(strstr(got, "[\"Py_RunMain\", \"Modules/main.c\", null]\n"), "%s", got);
	free(got);
	got = write_check_dump(&p, "stacks");
	want = expected_stacks(&p);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
}
END_TEST

/*
 * Names that are not UTF-8 become U+FFFD, one per maximal bad part as
 * Unicode (and CPython's decoder) counts them; control characters, quotes,
 * backslashes, U+2028/U+2029 are escaped and decode to themselves. The
 * expected names are Python's json.dumps of what each must decode to.
 */
START_TEST(test_escapes)
{
	static const struct pk_module mod = { 0, "/bin/\xff" "x", NULL };
	static const struct pk_map map = { 0, 0x1000, 0x2000, 0, &mod };
	static const struct pk_frame fr[] = {
		{ "a\xff" "b", NULL, 0 },
		{ "\xc0\x80x", NULL, 0 },		/* overlong NUL */
		{ "\xed\xa0\x80y", NULL, 0 },		/* a surrogate */
		{ "\xf4\x90\x80\x80z", NULL, 0 },	/* above U+10FFFF */
		{ "t\xe2\x82", NULL, 0 },		/* cut short */
		{ "c\x01" "d\x7f", NULL, 0 },
		{ "q\"b\\s/\n\t\r\b\f", NULL, 0 },
		{ "ls\xe2\x80\xa8ps\xe2\x80\xa9", NULL, 0 },
		{ "e\xf0\x9f\x98\x80", "src/\xff.c", 5 },
		{ "k\xffk", NULL, 0 },
	};
	static const char *const want[] = {
		"[\"a\\ufffdb\", null, null]",
		"[\"\\ufffd\\ufffdx\", null, null]",
		"[\"\\ufffd\\ufffd\\ufffdy\", null, null]",
		"[\"\\ufffd\\ufffd\\ufffd\\ufffdz\", null, null]",
		"[\"t\\ufffd\", null, null]",
		"[\"c\\u0001d\\u007f\", null, null]",
		"[\"q\\\"b\\\\s/\\n\\t\\r\\b\\f\", null, null]",
		"[\"ls\\u2028ps\\u2029\", null, null]",
		"[\"e\\ud83d\\ude00\", \"src/\\ufffd.c\", 5]",
		"[\"k\\ufffdk_[k]\", null, null]",
	};
	enum { N = sizeof(fr) / sizeof(fr[0]) };
	struct pk_loc locs[N];
	const struct pk_loc *stack_locs[N];
	struct pk_stack_view st = { 0, 7, "p\xff\n", 1, N - 1, stack_locs };
	struct pk_sample_view s = { 1, 7, 0, 1, &st };
	struct pk_profile p = { .freq_hz = 1, .period_ns = 1000000000, .lines = true,
				.nsamples = 1, .samples = &s, .nstacks = 1, .nlocs = N,
				.nmaps = 1, .nmodules = 1 };
	char *got, *summary;

	for (int i = 0; i < N; i++) {
		/* the last one in the kernel part, leaf first */
		int at = i == N - 1 ? 0 : i + 1;

		locs[i] = (struct pk_loc){ i, i == N - 1, 1, 0x1000 + i, &map, i, 0, &fr[i] };
		stack_locs[at] = &locs[i];
	}
	got = write_check_dump(&p, "frames");
	if (!got)
		return;
	for (int i = 0; i < N; i++)
		ck_assert_msg(strstr(got, want[i]), "%s not in\n%s", want[i], got);
	ck_assert_uint_eq(count_lines(got), N);
	free(got);
	summary = write_check_dump(&p, "summary");
	ck_assert_str_eq(summary, "p\xef\xbf\xbd\n (pid 7)\t1\t1000000000\n"
				  "active\tp\xef\xbf\xbd\n (pid 7)\ntotal\t1\t1000000000\n");
	free(summary);
}
END_TEST

/* The validator rejects what speedscope could not open: the oracle can
 * fail. */
START_TEST(test_validator_rejects)
{
	static const char *const bad[] = {
		/* a frame index past the frames */
		"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		"\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\","
		"\"name\":\"p\",\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":1,"
		"\"samples\":[[1]],\"weights\":[1]}]}",
		/* no unit */
		"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		"\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\","
		"\"name\":\"p\",\"startValue\":0,\"endValue\":1,"
		"\"samples\":[[0]],\"weights\":[1]}]}",
		/* a sample without its weight */
		"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		"\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\","
		"\"name\":\"p\",\"unit\":\"none\",\"startValue\":0,\"endValue\":1,"
		"\"samples\":[[0],[0]],\"weights\":[1]}]}",
		/* not UTF-8 */
		"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		"\"shared\":{\"frames\":[{\"name\":\"\xff\"}]},\"profiles\":[]}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[64], err[PK_ORACLE_ERR_LEN];
		int ret;

		write_file(bad[i], path);
		ret = pk_test_speedscope_validate(path, err);
		unlink(path);
		if (pk_test_oracle_missing(ret, ORACLE))
			return;
		ck_assert_msg(ret == -EBADMSG, "bad file %zu accepted (%d)", i, ret);
		ck_assert(err[0]);
	}
}
END_TEST

START_TEST(test_same_bytes_twice)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_CPU, true);
	char *a = write_json(&p), *b = write_json(&p);

	ck_assert_str_eq(a, b);
	ck_assert_ptr_nonnull(strstr(a, "\"exporter\":\"probekit " PK_VERSION "\""));
	free(a);
	free(b);
}
END_TEST

START_TEST(test_empty)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	char *got;

	p.nsamples = 0;
	got = write_check_dump(&p, "summary");
	if (!got)
		return;
	ck_assert_str_eq(got, "total\t0\t0\n");
	free(got);
}
END_TEST

/* A location id past nlocs: -EINVAL, and nothing written. */
START_TEST(test_inconsistent)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	p.nlocs = 3;
	ck_assert_int_eq(pk_speedscope_write(f, &p), -EINVAL);
	p = pk_synth_profile(PK_GROUP_NONE, false);
	p.nstacks = 1;
	ck_assert_int_eq(pk_speedscope_write(f, &p), -EINVAL);
	fclose(f);
	ck_assert_uint_eq(len, 0);
	free(buf);
}
END_TEST

START_TEST(test_write_error)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, true);
	FILE *f = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pk_speedscope_write(f, &p), -EIO);
	fclose(f);
}
END_TEST

Suite *suite_speedscope(void)
{
	Suite *s = suite_create("speedscope");
	TCase *tc = tcase_create("oracle");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_stacks_per_process);
	tcase_add_test(tc, test_stacks_per_thread);
	tcase_add_test(tc, test_stacks_per_cgroup);
	tcase_add_test(tc, test_stacks_per_cpu);
	tcase_add_test(tc, test_summary);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_span);
	tcase_add_test(tc, test_active_per_cpu_and_thread);
	tcase_add_test(tc, test_frames);
	tcase_add_test(tc, test_python);
	tcase_add_test(tc, test_escapes);
	tcase_add_test(tc, test_validator_rejects);
	tcase_add_test(tc, test_empty);
	suite_add_tcase(s, tc);
	tc = tcase_create("writer");
	tcase_add_test(tc, test_same_bytes_twice);
	tcase_add_test(tc, test_inconsistent);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return s;
}
