// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "read_options.h"
#include "test_util.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof(a[0])) - 1)

static int parse(char **argv, int argc, struct pk_read_opts *o, char *err)
{
	return pk_read_opts_parse(o, argc, argv, err);
}

START_TEST(test_defaults)
{
	char *argv[] = { "probe-read", NULL };
	struct pk_read_opts o;
	char err[PK_ERR_LEN];

	ck_assert_int_eq(parse(argv, ARGC(argv), &o, err), 0);
	ck_assert(o.duration == 0);
	ck_assert_ptr_eq(o.output, NULL);
	ck_assert_str_eq(o.pin_dir, "/sys/fs/bpf/probekit");
	ck_assert(!o.help && !o.version);
}
END_TEST

START_TEST(test_all_options)
{
	char *argv[] = { "probe-read", "-d", "2.5", "-o", "out.folded", "--pin-dir", "/sys/fs/bpf/x", NULL };
	char *argv2[] = { "probe-read", "--duration=0.25", "--output", "-", "-h", "-V", NULL };
	struct pk_read_opts o;
	char err[PK_ERR_LEN];

	ck_assert_int_eq(parse(argv, ARGC(argv), &o, err), 0);
	ck_assert(o.duration == 2.5);
	ck_assert_str_eq(o.output, "out.folded");
	ck_assert_str_eq(o.pin_dir, "/sys/fs/bpf/x");
	ck_assert_int_eq(parse(argv2, ARGC(argv2), &o, err), 0);
	ck_assert(o.duration == 0.25);
	ck_assert_ptr_eq(o.output, NULL);	/* "-": stdout */
	ck_assert(o.help && o.version);
}
END_TEST

START_TEST(test_durations)
{
	static const struct {
		const char *text;
		double seconds;
	} good[] = {
		{ "1", 1 }, { "0.5", 0.5 }, { "3.", 3 }, { ".25", 0.25 }, { "007", 7 },
		{ "31536000", 31536000 },
	};
	static const char *const bad[] = {
		"0", "0.0", "-1", "-0.5", "", "abc", "1s", " 1", "1 ", "inf", "nan",
		"1e3", "0x10", "+1", ".", "1..2", "31536001",
	};
	struct pk_read_opts o;
	char err[PK_ERR_LEN], want[PK_ERR_LEN];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char *argv[] = { "probe-read", "-d", (char *)good[i].text, NULL };

		ck_assert_msg(parse(argv, ARGC(argv), &o, err) == 0, "-d %s: %s", good[i].text, err);
		ck_assert_msg(o.duration == good[i].seconds, "-d %s: %g s", good[i].text, o.duration);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "probe-read", "-d", (char *)bad[i], NULL };

		ck_assert_msg(parse(argv, ARGC(argv), &o, err) == -EINVAL, "accepted -d '%s'", bad[i]);
		snprintf(want, sizeof(want),
			 "-d %s: not a duration (a positive number of seconds, at most a year)", bad[i]);
		ck_assert_str_eq(err, want);
	}
}
END_TEST

START_TEST(test_errors)
{
	static const struct {
		const char *args[4];
		const char *msg;
	} cases[] = {
		{ { "-x" }, "unknown option -x (probe-read --help lists them)" },
		{ { "--bogus" }, "unknown option --bogus (probe-read --help lists them)" },
		{ { "--bogus=1" }, "unknown option --bogus (probe-read --help lists them)" },
		{ { "--help=1" }, "option --help takes no argument" },
		{ { "--vers=1" }, "option --vers takes no argument" },
		{ { "--output=o", "-xd1" }, "unknown option -x (probe-read --help lists them)" },
		{ { "-d" }, "option -d needs an argument" },
		{ { "--duration" }, "option --duration needs an argument" },
		{ { "-o" }, "option -o needs an argument" },
		{ { "-o", "" }, "-o: empty file name" },
		{ { "--pin-dir", "relative/dir" }, "--pin-dir 'relative/dir': not an absolute path" },
		{ { "-d", "1", "extra" }, "unexpected argument 'extra'" },
	};
	struct pk_read_opts o;
	char err[PK_ERR_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[6] = { "probe-read" };
		int argc = 1;

		for (int j = 0; j < 4 && cases[i].args[j]; j++)
			argv[argc++] = (char *)cases[i].args[j];
		ck_assert_int_eq(parse(argv, argc, &o, err), -EINVAL);
		ck_assert_str_eq(err, cases[i].msg);
	}
}
END_TEST

/* The program itself: one line on stderr, exit STATUS (2 bad usage, 1 an
 * error while running), nothing on stdout. */
static void run_fails(char *const argv[], int want_status, const char *want_err)
{
	char *out = NULL, *err = NULL;
	int status = pk_test_run(argv, &out, &err);

	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), want_status);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, want_err);
	free(out);
	free(err);
}

START_TEST(test_program_errors)
{
	char prog[4096];
	char dir[] = "/tmp/pk-read-test-XXXXXX", out_path[4200], want[4300];

	pk_test_build_path("probe-read", prog, sizeof(prog));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	{
		char *argv[] = { prog, "-d", "-1", NULL };

		run_fails(argv, 2, "probe-read: -d -1: not a duration (a positive number of seconds, at most a year)\n");
	}
	{
		char *argv[] = { prog, "--frobnicate", NULL };

		run_fails(argv, 2, "probe-read: unknown option --frobnicate (probe-read --help lists them)\n");
	}
	{
		char *argv[] = { prog, "-o", NULL };

		run_fails(argv, 2, "probe-read: option -o needs an argument\n");
	}
	{
		char *argv[] = { prog, "-d", "1", "extra", NULL };

		run_fails(argv, 2, "probe-read: unexpected argument 'extra'\n");
	}
	{
		/* Nothing loaded there; no output file is left behind. */
		snprintf(out_path, sizeof(out_path), "%s/out.folded", dir);
		char *argv[] = { prog, "--pin-dir", dir, "-d", "1", "-o", out_path, NULL };

		snprintf(want, sizeof(want),
			 "probe-read: no probekit session at %s (run probe-load first)\n", dir);
		run_fails(argv, 1, want);
		ck_assert_int_eq(access(out_path, F_OK), -1);
	}
	ck_assert_int_eq(rmdir(dir), 0);	/* empty: no temporary file either */
}
END_TEST

START_TEST(test_program_help)
{
	char prog[4096];
	char *argv[] = { prog, "--help", NULL }, *out = NULL, *err = NULL;
	int status;

	pk_test_build_path("probe-read", prog, sizeof(prog));
	status = pk_test_run(argv, &out, &err);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_str_eq(out, pk_read_usage);
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
}
END_TEST

Suite *suite_read_options(void)
{
	Suite *s = suite_create("read_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_all_options);
	tcase_add_test(tc, test_durations);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("program");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_program_errors);
	tcase_add_test(tc, test_program_help);
	suite_add_tcase(s, tc);
	return s;
}
