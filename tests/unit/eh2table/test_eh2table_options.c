// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* eh2table's command-line parsing: modes, values, and each usage error. */
#include <errno.h>

#include "eh2table/eh2table_options.h"
#include "test_util.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int parse(int argc, char *const argv[], struct pk_eh2table_args *a, char *err)
{
	return pk_eh2table_parse_args(argc, argv, a, err);
}

START_TEST(test_files_and_options)
{
	char *argv[] = { "eh2table", "a.so", "--force", "-j", "4", "--cache-dir", "/c",
			 "b.so" };
	struct pk_eh2table_args a;
	char err[PK_ERR_LEN] = "";

	ck_assert_int_eq(parse(ARGC(argv), argv, &a, err), 0);
	ck_assert_int_eq(a.mode, EH2TABLE_FILES);
	ck_assert(a.force);
	ck_assert_uint_eq(a.jobs, 4);
	ck_assert_str_eq(a.cache_dir, "/c");
	ck_assert_int_eq(a.nfiles, 2);
	ck_assert_str_eq(a.files[0], "a.so");
	ck_assert_str_eq(a.files[1], "b.so");
	/* argv is left as it was: getopt did not move the FILEs to the end */
	ck_assert_str_eq(argv[1], "a.so");
	ck_assert_str_eq(argv[2], "--force");
	ck_assert_str_eq(argv[7], "b.so");
	pk_eh2table_args_free(&a);
}
END_TEST

START_TEST(test_defaults_and_joined_values)
{
	char *argv[] = { "eh2table", "-j8", "--jobs=2", "--cache-dir=/x", "--", "--force" };
	struct pk_eh2table_args a;
	char err[PK_ERR_LEN] = "";

	ck_assert_int_eq(parse(ARGC(argv), argv, &a, err), 0);
	ck_assert_uint_eq(a.jobs, 2);
	ck_assert_str_eq(a.cache_dir, "/x");
	ck_assert(!a.force);			/* after "--": a file name */
	ck_assert_int_eq(a.nfiles, 1);
	ck_assert_str_eq(a.files[0], "--force");
	pk_eh2table_args_free(&a);

	char *plain[] = { "eh2table", "f" };

	ck_assert_int_eq(parse(ARGC(plain), plain, &a, err), 0);
	ck_assert_uint_eq(a.jobs, 1);
	ck_assert_ptr_null(a.cache_dir);
	pk_eh2table_args_free(&a);
}
END_TEST

START_TEST(test_pid_dump_help)
{
	char *pid[] = { "eh2table", "--pid", "1234", "-j", "2" };
	char *dump[] = { "eh2table", "--dump", "/bin/true", "--force" };
	char *dump_eq[] = { "eh2table", "--dump=/bin/true" };
	char *help[] = { "eh2table", "--pid", "x", "--help" };
	struct pk_eh2table_args a;
	char err[PK_ERR_LEN] = "";

	ck_assert_int_eq(parse(ARGC(pid), pid, &a, err), 0);
	ck_assert_int_eq(a.mode, EH2TABLE_PID);
	ck_assert_int_eq(a.pid, 1234);
	pk_eh2table_args_free(&a);
	ck_assert_int_eq(parse(ARGC(dump), dump, &a, err), 0);
	ck_assert_int_eq(a.mode, EH2TABLE_DUMP);
	ck_assert_str_eq(a.files[0], "/bin/true");
	ck_assert(a.force);
	pk_eh2table_args_free(&a);
	ck_assert_int_eq(parse(ARGC(dump_eq), dump_eq, &a, err), 0);
	ck_assert_int_eq(a.mode, EH2TABLE_DUMP);
	ck_assert_str_eq(a.files[0], "/bin/true");
	pk_eh2table_args_free(&a);
	char *stats[] = { "eh2table", "--cache-dir", "/c", "--cache-stats" };

	ck_assert_int_eq(parse(ARGC(stats), stats, &a, err), 0);
	ck_assert_int_eq(a.mode, EH2TABLE_CACHE_STATS);
	ck_assert_str_eq(a.cache_dir, "/c");
	pk_eh2table_args_free(&a);
	/* Arguments are read left to right: a bad value before --help is
	 * still an error, --help before it wins. */
	ck_assert_int_eq(parse(ARGC(help), help, &a, err), -EINVAL);
	ck_assert_str_eq(err, "--pid x: not a process id (a positive number)");
	pk_eh2table_args_free(&a);
	char *help_first[] = { "eh2table", "-h", "--pid", "x" };

	ck_assert_int_eq(parse(ARGC(help_first), help_first, &a, err), 0);
	ck_assert_int_eq(a.mode, EH2TABLE_HELP);
	pk_eh2table_args_free(&a);
	char *version_first[] = { "eh2table", "--version", "--pid", "x" };

	ck_assert_int_eq(parse(ARGC(version_first), version_first, &a, err), 0);
	ck_assert_int_eq(a.mode, EH2TABLE_VERSION);
	pk_eh2table_args_free(&a);
	/* -h stops the parse inside "-hj4"; the next parse starts afresh
	 * rather than going on with "j4". */
	char *help_group[] = { "eh2table", "-hj4" };
	char *again[] = { "eh2table", "-j", "3", "f" };

	ck_assert_int_eq(parse(ARGC(help_group), help_group, &a, err), 0);
	ck_assert_int_eq(a.mode, EH2TABLE_HELP);
	pk_eh2table_args_free(&a);
	ck_assert_int_eq(parse(ARGC(again), again, &a, err), 0);
	ck_assert_int_eq(a.mode, EH2TABLE_FILES);
	ck_assert_uint_eq(a.jobs, 3);
	ck_assert_int_eq(a.nfiles, 1);
	ck_assert_str_eq(a.files[0], "f");
	pk_eh2table_args_free(&a);
}
END_TEST

/* Each usage error, with its exact message. */
static const struct {
	const char *args[5];
	const char *msg;
} bad[] = {
	{ { NULL }, "no FILE given" },
	{ { "--frobnicate", "f" }, "unknown option --frobnicate (eh2table --help lists them)" },
	{ { "--frobnicate=1", "f" }, "unknown option --frobnicate (eh2table --help lists them)" },
	{ { "-x", "f" }, "unknown option -x (eh2table --help lists them)" },
	{ { "f", "-jx" }, "-j x: not a number of jobs from 1 to 256" },
	{ { "--forced", "f" }, "unknown option --forced (eh2table --help lists them)" },
	{ { "--force=1", "f" }, "option --force takes no argument" },
	{ { "--help=1" }, "option --help takes no argument" },
	{ { "-j", "0", "f" }, "-j 0: not a number of jobs from 1 to 256" },
	{ { "-j", "257", "f" }, "-j 257: not a number of jobs from 1 to 256" },
	{ { "-j", "2x", "f" }, "-j 2x: not a number of jobs from 1 to 256" },
	{ { "-j", "+2", "f" }, "-j +2: not a number of jobs from 1 to 256" },
	{ { "-j", " 2", "f" }, "-j  2: not a number of jobs from 1 to 256" },
	{ { "-j", "\t2", "f" }, "-j \t2: not a number of jobs from 1 to 256" },
	{ { "-j", "", "f" }, "-j : not a number of jobs from 1 to 256" },
	{ { "--jobs=-1", "f" }, "-j -1: not a number of jobs from 1 to 256" },
	{ { "f", "-j" }, "option -j needs an argument" },
	{ { "f", "--jobs" }, "option --jobs needs an argument" },
	{ { "--pid", "abc" }, "--pid abc: not a process id (a positive number)" },
	{ { "--pid", "0" }, "--pid 0: not a process id (a positive number)" },
	{ { "--pid", "-1" }, "--pid -1: not a process id (a positive number)" },
	{ { "--pid", "\t1" }, "--pid \t1: not a process id (a positive number)" },
	{ { "--pid", "99999999999" }, "--pid 99999999999: not a process id (a positive number)" },
	{ { "--pid" }, "option --pid needs an argument" },
	{ { "--pid", "1", "f" }, "--pid takes no FILE arguments" },
	{ { "--pid", "1", "--", "f" }, "--pid takes no FILE arguments" },
	{ { "--pid", "1", "--dump", "f" }, "--pid and --dump cannot be combined" },
	{ { "--dump" }, "--dump takes exactly one FILE" },
	{ { "--dump", "a", "b" }, "--dump takes exactly one FILE" },
	{ { "--dump=a", "b" }, "--dump takes exactly one FILE" },
	{ { "--cache-stats", "f" }, "--cache-stats takes no FILE, --pid or --dump" },
	{ { "--pid", "1", "--cache-stats" }, "--cache-stats takes no FILE, --pid or --dump" },
	{ { "--cache-stats=1" }, "option --cache-stats takes no argument" },
	{ { "--cache-dir" }, "option --cache-dir needs an argument" },
	{ { "--cache-dir=", "f" }, "--cache-dir: empty directory name" },
	{ { "--cache-dir", "", "f" }, "--cache-dir: empty directory name" },
};

START_TEST(test_usage_errors)
{
	char *argv[8] = { "eh2table" };
	struct pk_eh2table_args a;
	char err[PK_ERR_LEN] = "";
	int argc = 1;

	for (int i = 0; bad[_i].args[i]; i++)
		argv[argc++] = (char *)bad[_i].args[i];
	ck_assert_int_eq(parse(argc, argv, &a, err), -EINVAL);
	ck_assert_str_eq(err, bad[_i].msg);
	pk_eh2table_args_free(&a);
}
END_TEST

Suite *suite_eh2table_options(void)
{
	Suite *s = suite_create("eh2table_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_files_and_options);
	tcase_add_test(tc, test_defaults_and_joined_values);
	tcase_add_test(tc, test_pid_dump_help);
	tcase_add_loop_test(tc, test_usage_errors, 0, sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}
