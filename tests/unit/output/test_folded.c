// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/synth_profile.h"
#include "output/folded.h"
#include "test_util.h"

static void check_stack(const char *comm, const char *const *user, size_t nuser,
			const char *const *kernel, size_t nkernel, const char *want)
{
	char *got = pk_fold_stack(comm, user, nuser, kernel, nkernel);

	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_order_and_suffix)
{
	const char *user[] = { "main", "a", "b" };
	const char *kernel[] = { "entry_SYSCALL_64", "do_syscall_64", "schedule" };

	check_stack("app", user, 3, kernel, 3,
		    "app;main;a;b;entry_SYSCALL_64_[k];do_syscall_64_[k];schedule_[k]");
	check_stack("app", user, 3, NULL, 0, "app;main;a;b");
	check_stack("kworker/0:1", NULL, 0, kernel, 1, "kworker/0:1;entry_SYSCALL_64_[k]");
	check_stack("idle", NULL, 0, NULL, 0, "idle");
}
END_TEST

START_TEST(test_sanitize)
{
	const char *user[] = { "operator new(unsigned long)", "", NULL, "a;b;;c", "x\ny\tz\r" };
	const char *kernel[] = { "" };

	/* Spaces stay; ';' and control characters go; empty is [unknown]. */
	check_stack("my app", user, 5, kernel, 1,
		    "my app;operator new(unsigned long);[unknown];[unknown];a:b::c;x y z ;[unknown]_[k]");
	check_stack("", NULL, 0, NULL, 0, "[unknown]");
	check_stack("a;b", NULL, 0, NULL, 0, "a:b");
}
END_TEST

static char *write_items(struct pk_fold_item *items, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pk_fold_write(f, items, n), 0);
	fclose(f);
	return buf;
}

START_TEST(test_write_sorted_merged)
{
	struct pk_fold_item items[] = {
		{ "b;main;x", 3 },
		{ "a;main;y", 1 },
		{ "b;main;x", 4 },	/* same line from another raw stack */
		{ "a;main", 10 },
		{ "B;main", 2 },
	};
	char *out = write_items(items, 5);

	/* Byte order: 'B' < 'a' < 'b'; "a;main" before "a;main;y". */
	ck_assert_str_eq(out, "B;main 2\na;main 10\na;main;y 1\nb;main;x 7\n");
	free(out);
	out = write_items(NULL, 0);
	ck_assert_str_eq(out, "");
	free(out);
}
END_TEST

/* Every line must split back as flamegraph.pl does:
 * /^(.*)\s+?(\d+(?:\.\d*)?)$/ with frames split on ';'. */
START_TEST(test_flamegraph_parse)
{
	const char *user[] = { "f(int, char)", "g;h", "" };
	char *stack = pk_fold_stack("a b", user, 3, NULL, 0);
	struct pk_fold_item item = { stack, 12345678901ULL };
	char *out = write_items(&item, 1), *sp, *end;
	int frames = 1;

	sp = strrchr(out, ' ');
	ck_assert_ptr_nonnull(sp);
	ck_assert_uint_eq(strtoull(sp + 1, &end, 10), 12345678901ULL);
	ck_assert_str_eq(end, "\n");
	for (char *p = out; p < sp; p++) {
		ck_assert(*p != '\n');
		frames += *p == ';';
	}
	ck_assert_int_eq(frames, 4);
	free(out);
	free(stack);
}
END_TEST

START_TEST(test_write_error)
{
	struct pk_fold_item item = { "a;b", 1 };
	FILE *f = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pk_fold_write(f, &item, 1), -EIO);
	fclose(f);
}
END_TEST

static char *write_profile(const struct pk_profile *p, int *ret)
{
	return pk_synth_write(pk_folded_write, p, ret);
}

/* P's samples of EVENT, folded. */
static char *write_event(const struct pk_profile *p, unsigned int event)
{
	struct pk_sample_view *v;
	struct pk_profile one;
	char *out;
	int ret;

	ck_assert_int_eq(pk_profile_select_event(p, event, &one, &v), 0);
	for (size_t i = 0; i < one.nsamples; i++)
		ck_assert_uint_eq(one.samples[i].event, event);
	out = write_profile(&one, &ret);
	ck_assert_int_eq(ret, 0);
	free(v);
	return out;
}

#define PLAIN	"__libc_start_call_main;main;do work(int, char const*)"
#define SYSCALL	"__libc_start_call_main;main;do work(int, char const*);compute;helper;" \
		"entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k]"

/* Lines count samples, but off-CPU's count microseconds: each line's
 * nanoseconds / 1000, rounded once per line (700 + 700 ns: 1 us, where
 * rounding each sample would give 2). A line cannot mix events. */
START_TEST(test_events)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_CPU, false);
	int ret;
	char *out = write_profile(&p, &ret);

	ck_assert_int_eq(ret, -EINVAL);
	free(out);

	out = write_event(&p, PK_SYNTH_OFFCPU);
	ck_assert_str_eq(out,
			 "cpu-0;my app;" PLAIN " 1\n"
			 "cpu-0;my app;" SYSCALL " 100003\n"
			 "cpu-1;my app;" PLAIN " 1\n");
	free(out);
	/* samples, not weights: 1 + 1 + 3 of weight 50 */
	out = write_event(&p, PK_SYNTH_TP);
	ck_assert_str_eq(out, "cpu-0;my app;" SYSCALL " 5\n");
	free(out);
	p.group = PK_GROUP_NONE;
	out = write_event(&p, PK_SYNTH_CPU);
	ck_assert_str_eq(out,
			 "gr\xc3\xbc\xc3\x9f" "e 2\n"
			 "gr\xc3\xbc\xc3\x9f" "e;bad name 1;jit stub;[libweird.so+0x10];"
			 "kfunc_[k];nf_conntrack_in_[k] 1\n"
			 "kworker/0:1;do_syscall_64_[k] 1\n"
			 "my app;" PLAIN " 1\n"
			 "worker:1 \"q\";main;ns::a:b;gr\xc3\xbc\xc3\x9f" "e_\xce\xbb_\xf0\x9f\x98\x80;"
			 "say \"hi\" \\ 'there' 1\n");
	free(out);

	/* one event in the table, or only one event's samples: written */
	p.nevents = 1;
	p.nsamples = 1;		/* the first sample is off-cpu's, index 1 */
	out = write_profile(&p, &ret);
	ck_assert_int_eq(ret, -EINVAL);		/* an event the table has not */
	free(out);
	p.nevents = 2;
	out = write_profile(&p, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(out, "my app;" PLAIN " 1\n");	/* 700 ns: 0.7 us */
	free(out);
}
END_TEST

/* --per-cgroup: the cgroup's path is the root, above the process's;
 * without it one line per stack as ever, the cgroups merged by name. */
START_TEST(test_per_cgroup)
{
	struct pk_profile p = pk_synth_cgroup_profile(PK_GROUP_NONE, true);
	int ret;
	char *out = write_profile(&p, &ret);

	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(out,
			 "/system.slice/docker-" PK_SYNTH_CONTAINER_ID ".scope;svc;" PLAIN " 2\n"
			 "/user.slice;svc;" PLAIN " 1\n"
			 "[unknown cgroup];svc;" PLAIN " 1\n"
			 "cgroup:30;svc;" PLAIN " 1\n");
	free(out);
	p = pk_synth_cgroup_profile(PK_GROUP_PID, true);
	out = write_profile(&p, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(out,
			 "/system.slice/docker-" PK_SYNTH_CONTAINER_ID ".scope;svc-500;" PLAIN " 2\n"
			 "/user.slice;svc-500;" PLAIN " 1\n"
			 "[unknown cgroup];svc-500;" PLAIN " 1\n"
			 "cgroup:30;svc-500;" PLAIN " 1\n");
	free(out);
	p = pk_synth_cgroup_profile(PK_GROUP_NONE, false);
	out = write_profile(&p, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(out, "svc;" PLAIN " 5\n");
	free(out);
}
END_TEST

/* A Python frame is "QUALNAME (FILE:LINE)" whatever --lines says, the
 * line left out where it is not known; native frames as ever. */
START_TEST(test_python)
{
	struct pk_profile p = pk_synth_python_profile(PK_GROUP_NONE, false);
	int ret;
	char *out = write_profile(&p, &ret);

	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(out,
			 "python3;Py_RunMain;<module> (main.py:3);Job.run (job.py:12);"
			 "caf\xc3\xa9.\xc3\xbc" "ber (util.py);do_syscall_64_[k] 1\n"
			 "python3;Py_RunMain;<module> (main.py:3);method_vectorcall_NOARGS;"
			 "Job.run (job.py:12) 3\n"
			 "python3;Py_RunMain;<module> (other.py:1);_PyEval_EvalFrameDefault;"
			 "[py:0x7f1200004000] 1\n");
	free(out);
	p.lines = true;
	p.group = PK_GROUP_PID;
	out = write_profile(&p, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(out,
			 "python3-400;Py_RunMain (main.c:680);<module> (main.py:3);Job.run (job.py:12);"
			 "caf\xc3\xa9.\xc3\xbc" "ber (util.py);do_syscall_64 (common.c:80)_[k] 1\n"
			 "python3-400;Py_RunMain (main.c:680);<module> (main.py:3);"
			 "method_vectorcall_NOARGS (descrobject.c:1187);Job.run (job.py:12) 3\n"
			 "python3-400;Py_RunMain (main.c:680);<module> (other.py:1);"
			 "_PyEval_EvalFrameDefault (ceval.c:4760);[py:0x7f1200004000] 1\n");
	free(out);
}
END_TEST

Suite *suite_folded(void)
{
	Suite *s = suite_create("folded");
	TCase *tc = tcase_create("stack");

	tcase_add_test(tc, test_order_and_suffix);
	tcase_add_test(tc, test_sanitize);
	suite_add_tcase(s, tc);
	tc = tcase_create("write");
	tcase_add_test(tc, test_write_sorted_merged);
	tcase_add_test(tc, test_flamegraph_parse);
	tcase_add_test(tc, test_write_error);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_python);
	tcase_add_test(tc, test_per_cgroup);
	suite_add_tcase(s, tc);
	return s;
}
