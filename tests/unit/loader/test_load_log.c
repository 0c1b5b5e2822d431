// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libbpf's account of a refused load, read back: the program and the
 * verifier's reason, from real logs (tests/libbpf_logs/: what probe-load -v
 * printed on Debian 12's Linux 6.1 in QEMU and on the host's 6.18) and from
 * the forms libbpf prints without a verifier log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/load_log.h"
#include "test_util.h"

static const struct {
	const char *file, *prog, *why;
} logs[] = {
	/* the verifier's instruction limit */
	{ "linux-6.1-pk_offcpu.log", "pk_offcpu",
	  "BPF program is too large. Processed 1000001 insn" },
	/* a helper's size argument */
	{ "linux-6.1-pk_perf_event.log", "pk_perf_event",
	  "R3 unbounded memory access, use 'var &= const' or 'if (var < const)'" },
	/* an error and its summary, after a warning before the first line */
	{ "linux-6.1-pk_fentry0.log", "pk_fentry0",
	  "invalid access to map value, value_size=68888 off=64799 size=4096; "
	  "R1 max value is outside of the allowed memory range" },
	/* tests/preload/refuse_prog.so's one instruction */
	{ "linux-6.18-pk_offcpu-refuse_prog.log", "pk_offcpu", "R0 !read_ok" },
};

static char *read_log(const char *name)
{
	char rel[256], path[4096], *text;

	snprintf(rel, sizeof(rel), "tests/libbpf_logs/%s", name);
	text = pk_test_read_file(pk_test_src_path(rel, path, sizeof(path)), NULL);
	ck_assert_msg(text, "%s: cannot read", path);
	return text;
}

static void assert_refused(const struct pk_load_log *log, const char *prog, const char *why,
			   bool has_log)
{
	ck_assert(log->refused);
	ck_assert_str_eq(log->prog, prog);
	ck_assert_str_eq(log->why, why);
	ck_assert_int_eq(log->has_log, has_log);
}

/* Fed whole, as one print. */
START_TEST(test_real_logs_whole)
{
	struct pk_load_log log = {};
	char *text = read_log(logs[_i].file);

	ck_assert(pk_load_log_feed(&log, text));
	assert_refused(&log, logs[_i].prog, logs[_i].why, true);
	free(text);
}
END_TEST

/* Fed as libbpf prints it: a message per "libbpf: " line, the verifier's
 * log with its BEGIN line. Every message from the refusal on is about it. */
START_TEST(test_real_logs_by_message)
{
	struct pk_load_log log = {};
	char *text = read_log(logs[_i].file), *p = text;
	bool failed = false;

	while (*p) {
		char *next = p, save;

		do {
			next = strchrnul(next, '\n');
			if (*next)
				next++;
		} while (*next && strncmp(next, "libbpf: ", 8));
		save = *next;
		*next = '\0';
		failed |= strstr(p, "BPF program load failed") != NULL;
		ck_assert_msg(pk_load_log_feed(&log, p) || !failed, "not taken: %s", p);
		*next = save;
		p = next;
	}
	ck_assert(failed);
	assert_refused(&log, logs[_i].prog, logs[_i].why, true);
	free(text);
}
END_TEST

/* Refused before the verifier (no log block): libbpf's first word on it. */
START_TEST(test_refused_without_log)
{
	struct pk_load_log log = {};

	ck_assert(pk_load_log_feed(&log, "libbpf: prog 'pk_fentry0': failed to find kernel BTF type ID of 'nosuch': -3\n"));
	ck_assert(pk_load_log_feed(&log, "libbpf: prog 'pk_fentry0': failed to prepare load attributes: -3\n"));
	ck_assert(!log.refused);
	ck_assert(pk_load_log_feed(&log, "libbpf: prog 'pk_fentry0': failed to load: -ESRCH\n"));
	assert_refused(&log, "pk_fentry0", "failed to find kernel BTF type ID of 'nosuch': -3", false);
	ck_assert(pk_load_log_feed(&log, "libbpf: failed to load object 'profile_bpf'\n"));
}
END_TEST

/* The statistics are never the reason; a log without a last newline runs
 * into the END line; only the messages since the last line of code count,
 * and without any, the last line. */
static const struct {
	const char *text, *why;
} verdicts[] = {
	{ "libbpf: prog 'p': BPF program load failed: Permission denied\n"
	  "libbpf: prog 'p': -- BEGIN PROG LOAD LOG --\n"
	  "combined stack size of 4 calls is 544. Too large\n"
	  "verification time 1344153 usec\n"
	  "stack depth 24+440+0+32\n"
	  "processed 51008 insns (limit 1000000) max_states_per_insn 19 total_states 1467 peak_states 303 mark_read 146\n"
	  "-- END PROG LOAD LOG --\n"
	  "libbpf: prog 'p': failed to load: -13\n",
	  "combined stack size of 4 calls is 544. Too large" },
	{ "libbpf: prog 'p': -- BEGIN PROG LOAD LOG --\n"
	  "reg type unsupported for arg#0 function p#75\n"
	  "0: R1=ctx(off=0,imm=0) R10=fp0\n"
	  "; return bpf_get_current_pid_tgid();\n"
	  "24: (85) call bpf_probe_read#4\n"
	  "unknown func bpf_probe_read#4-- END PROG LOAD LOG --\n"
	  "libbpf: prog 'p': failed to load: -22\n",
	  "unknown func bpf_probe_read#4" },
	{ "libbpf: prog 'p': -- BEGIN PROG LOAD LOG --\n"
	  "0: (95) exit\n"
	  "processed 1 insns (limit 1000000)\n"
	  "-- END PROG LOAD LOG --\n"
	  "libbpf: prog 'p': failed to load: -13\n",
	  "0: (95) exit" },
};

START_TEST(test_verifier_lines)
{
	struct pk_load_log log = {};

	ck_assert(pk_load_log_feed(&log, verdicts[_i].text));
	assert_refused(&log, "p", verdicts[_i].why, true);
}
END_TEST

/* What is not about a refusal is left to be shown. */
START_TEST(test_other_messages)
{
	struct pk_load_log log = {};

	ck_assert(!pk_load_log_feed(&log, "libbpf: map 'events': failed to create: -12\n"));
	ck_assert(!pk_load_log_feed(&log, "libbpf: failed to load object 'profile_bpf'\n"));
	ck_assert(!pk_load_log_feed(&log, "libbpf: prog 'unterminated\n"));
	ck_assert(!log.refused);
}
END_TEST

Suite *suite_load_log(void)
{
	Suite *s = suite_create("load_log");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, test_real_logs_whole, 0, sizeof(logs) / sizeof(logs[0]));
	tcase_add_loop_test(tc, test_real_logs_by_message, 0, sizeof(logs) / sizeof(logs[0]));
	tcase_add_test(tc, test_refused_without_log);
	tcase_add_loop_test(tc, test_verifier_lines, 0, sizeof(verdicts) / sizeof(verdicts[0]));
	tcase_add_test(tc, test_other_messages);
	suite_add_tcase(s, tc);
	return s;
}
