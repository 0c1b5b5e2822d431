// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reading/read_options.h"
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
	ck_assert_uint_eq(o.noutputs, 1);
	ck_assert_int_eq(o.outputs[0].format, PK_FORMAT_FOLDED);
	ck_assert_ptr_eq(o.outputs[0].path, NULL);
	ck_assert_int_eq(o.group, PK_GROUP_NONE);
	ck_assert(!o.lines && o.interval == 0 && o.ndebug_dirs == 0);
	ck_assert_str_eq(o.pin_dir, "/sys/fs/bpf/probekit");
	ck_assert(!o.help && !o.version);
	ck_assert(!o.from_now);
	ck_assert(!o.per_cgroup);
}
END_TEST

/* --per-cgroup goes with any grouping: the cgroup is the root above it. */
START_TEST(test_per_cgroup)
{
	char *argv[] = { "probe-read", "--per-cgroup", "--per-pid", "-f", "svg", NULL };
	char *top[] = { "probe-read", "--top", "--per-cgroup", NULL };
	struct pk_read_opts o;
	char err[PK_ERR_LEN];

	ck_assert_int_eq(parse(argv, ARGC(argv), &o, err), 0);
	ck_assert(o.per_cgroup);
	ck_assert_int_eq(o.group, PK_GROUP_PID);
	ck_assert_int_eq(o.outputs[0].format, PK_FORMAT_SVG);
	ck_assert_int_eq(parse(top, ARGC(top), &o, err), -EINVAL);
	ck_assert_str_eq(err, "--top is a view in the terminal: it takes none of -f, -o, --interval, --per-pid, --per-tid, --per-cpu, --per-cgroup");
}
END_TEST

START_TEST(test_all_options)
{
	char *argv[] = { "probe-read", "-d", "2.5", "-o", "out.folded", "--pin-dir", "/sys/fs/bpf/x", NULL };
	char *argv2[] = { "probe-read", "--duration=0.25", "--output", "-", "-h", "-V",
			  "--from-now", NULL };
	struct pk_read_opts o;
	char err[PK_ERR_LEN];

	ck_assert_int_eq(parse(argv, ARGC(argv), &o, err), 0);
	ck_assert(o.duration == 2.5);
	ck_assert_str_eq(o.outputs[0].path, "out.folded");
	ck_assert_str_eq(o.pin_dir, "/sys/fs/bpf/x");
	ck_assert_int_eq(parse(argv2, ARGC(argv2), &o, err), 0);
	ck_assert(o.duration == 0.25);
	ck_assert_ptr_eq(o.outputs[0].path, NULL);	/* "-": stdout */
	ck_assert(o.help && o.version && o.from_now);
}
END_TEST

START_TEST(test_keep)
{
	char *argv[] = { "probe-read", "--interval", "60", "-o", "cpu-%s.pb.gz", "--keep", "24",
			 "--keep-bytes", "10M", NULL };
	char *argv2[] = { "probe-read", "--interval", "60", "-o", "cpu-%s", "--keep-bytes=4096",
			  NULL };
	struct pk_read_opts o;
	char err[PK_ERR_LEN];

	ck_assert_int_eq(parse(argv, ARGC(argv), &o, err), 0);
	ck_assert_uint_eq(o.keep.files, 24);
	ck_assert_uint_eq(o.keep.bytes, 10 << 20);
	ck_assert_int_eq(parse(argv2, ARGC(argv2), &o, err), 0);
	ck_assert_uint_eq(o.keep.files, 0);
	ck_assert_uint_eq(o.keep.bytes, 4096);
}
END_TEST

START_TEST(test_formats_and_outputs)
{
	char *one[] = { "probe-read", "-f", "pprof", "-o", "x.pb.gz", "--per-tid", "--lines",
			"--debug-dir", "/a", "--debug-dir", "/b", NULL };
	char *pairs[] = { "probe-read", "-f", "folded", "-o", "a", "-f", "speedscope",
			  "-o", "b", "--format=perf", "--output=c", NULL };
	char *iv[] = { "probe-read", "--interval", "1.5", "-o", "cpu-%Y%m%dT%H%M%S.pb.gz",
		       "-f", "pprof", NULL };
	char *svg[] = { "probe-read", "-f", "svg", "--title", "CPU of x", NULL };
	char *top[] = { "probe-read", "--top", "-d", "5", "--event", "off-cpu", NULL };
	struct pk_read_opts o;
	char err[PK_ERR_LEN], name[64];

	ck_assert_int_eq(parse(one, ARGC(one), &o, err), 0);
	ck_assert_uint_eq(o.noutputs, 1);
	ck_assert_int_eq(o.outputs[0].format, PK_FORMAT_PPROF);
	ck_assert_str_eq(o.outputs[0].path, "x.pb.gz");
	ck_assert_int_eq(o.group, PK_GROUP_TID);
	ck_assert(o.lines);
	ck_assert_uint_eq(o.ndebug_dirs, 2);
	ck_assert_str_eq(o.debug_dirs[1], "/b");

	ck_assert_int_eq(parse(pairs, ARGC(pairs), &o, err), 0);
	ck_assert_uint_eq(o.noutputs, 3);
	ck_assert_int_eq(o.outputs[0].format, PK_FORMAT_FOLDED);
	ck_assert_int_eq(o.outputs[1].format, PK_FORMAT_SPEEDSCOPE);
	ck_assert_int_eq(o.outputs[2].format, PK_FORMAT_PERF);
	ck_assert_str_eq(o.outputs[1].path, "b");

	ck_assert_int_eq(parse(svg, ARGC(svg), &o, err), 0);
	ck_assert_int_eq(o.outputs[0].format, PK_FORMAT_SVG);
	ck_assert_ptr_null(o.outputs[0].path);
	ck_assert_str_eq(o.title, "CPU of x");
	ck_assert_ptr_null((parse(pairs, ARGC(pairs), &o, err), o.title));
	ck_assert(!o.top);
	ck_assert_int_eq(parse(top, ARGC(top), &o, err), 0);
	ck_assert(o.top);
	ck_assert(o.duration == 5);
	ck_assert_str_eq(o.event, "off-cpu");

	ck_assert_int_eq(parse(iv, ARGC(iv), &o, err), 0);
	ck_assert(o.interval == 1.5);
	/* the name of the interval that starts at 2023-11-14 22:13:20 UTC */
	setenv("TZ", "UTC", 1);
	tzset();
	ck_assert_int_eq(pk_read_interval_name(o.outputs[0].path, 1700000000.7, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "cpu-20231114T221320.pb.gz");
	ck_assert_int_eq(pk_read_interval_name(o.outputs[0].path, 1700000000, name, 8), -EINVAL);
}
END_TEST

START_TEST(test_events)
{
	char *argv[] = { "probe-read", "--event", "off-cpu", "--stats", "-f", "pprof", "-o",
			 "all.pb.gz", "-f", "folded", "-o", "p-{event}-{event}.folded", NULL };
	char *iv[] = { "probe-read", "--interval", "1", "-o", "%H%M%S-{event}.folded", NULL };
	struct pk_read_opts o;
	char err[PK_ERR_LEN], name[64];

	ck_assert_int_eq(parse(argv, ARGC(argv), &o, err), 0);
	ck_assert_str_eq(o.event, "off-cpu");
	ck_assert(o.stats);
	ck_assert(!o.outputs[0].per_event);
	ck_assert(o.outputs[1].per_event);
	ck_assert_int_eq(pk_read_event_name(o.outputs[1].path, "uprobe:/usr/bin/my app:f",
					    name, sizeof(name)), 0);
	ck_assert_str_eq(name, "p-uprobe:_usr_bin_my app:f-uprobe:_usr_bin_my app:f.folded");
	ck_assert_int_eq(pk_read_event_name("plain", "off-cpu", name, sizeof(name)), 0);
	ck_assert_str_eq(name, "plain");
	ck_assert_int_eq(pk_read_event_name("{event", "off-cpu", name, sizeof(name)), 0);
	ck_assert_str_eq(name, "{event");
	/* does not fit: to the byte */
	ck_assert_int_eq(pk_read_event_name("a{event}", "off-cpu", name, 9), 0);
	ck_assert_str_eq(name, "aoff-cpu");
	ck_assert_int_eq(pk_read_event_name("a{event}", "off-cpu", name, 8), -EINVAL);
	ck_assert_int_eq(pk_read_event_name("", "off-cpu", name, 0), -EINVAL);
	/* with --interval: strftime first, then the event */
	ck_assert_int_eq(parse(iv, ARGC(iv), &o, err), 0);
	ck_assert(o.outputs[0].per_event);
	setenv("TZ", "UTC", 1);
	tzset();
	{
		char t[64];

		ck_assert_int_eq(pk_read_interval_name(o.outputs[0].path, 1700000000, t, sizeof(t)), 0);
		ck_assert_int_eq(pk_read_event_name(t, "cpu-clock", name, sizeof(name)), 0);
		ck_assert_str_eq(name, "221320-cpu-clock.folded");
	}
	/* defaults */
	{
		char *none[] = { "probe-read", NULL };

		ck_assert_int_eq(parse(none, ARGC(none), &o, err), 0);
		ck_assert_ptr_null(o.event);
		ck_assert(!o.stats && !o.outputs[0].per_event);
	}
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
		{ { "-f", "html" }, "-f html: unknown format (folded, perf, pprof, speedscope or svg)" },
		{ { "--per-pid", "--per-cpu" }, "--per-pid and --per-cpu do not go together: choose one grouping" },
		{ { "--top", "-f", "svg" }, "--top is a view in the terminal: it takes none of -f, -o, --interval, --per-pid, --per-tid, --per-cpu, --per-cgroup" },
		{ { "--per-tid", "--top" }, "--top is a view in the terminal: it takes none of -f, -o, --interval, --per-pid, --per-tid, --per-cpu, --per-cgroup" },
		{ { "--interval", "1" },
		  "--interval writes one file per interval: give -o a strftime(3) pattern such as 'cpu-%Y%m%dT%H%M%S.pb.gz'" },
		{ { "--interval", "1", "-o", "cpu.pb.gz" },
		  "-o 'cpu.pb.gz' gives two --interval files the same name: add a time conversion down to the interval (e.g. %Y%m%dT%H%M%S)" },
		{ { "--interval", "1", "-o", "cpu-%H%M" },
		  "-o 'cpu-%H%M' gives two --interval files the same name: add a time conversion down to the interval (e.g. %Y%m%dT%H%M%S)" },
		{ { "--interval", "0.01", "-o", "x%s" },
		  "--interval 0.01: not an interval (at least 0.1 seconds, at most a year)" },
		{ { "-f", "perf", "-f", "pprof" }, "2 -f and 0 -o: give each -f FORMAT its -o FILE" },
		{ { "-o", "a", "-o", "b" }, "0 -f and 2 -o: give each -f FORMAT its -o FILE" },
		{ { "--debug-dir", "" }, "--debug-dir: empty directory name" },
		{ { "--event", "" }, "--event: empty event name" },
		{ { "--event", "a", "--event", "b" },
		  "--event a and --event b: one event at most (or {event} in -o for a file each)" },
		{ { "--lines", "--no-inline" }, "--lines and --no-inline do not go together: source lines come from DWARF, which --no-inline does not read" },
		{ { "--keep", "3", "-o", "x" },
		  "--keep and --keep-bytes bound what --interval writes: give --interval" },
		{ { "--keep", "0" }, "--keep 0: not a number of files (1 or more)" },
		{ { "--keep", "-1" }, "--keep -1: not a number of files (1 or more)" },
		{ { "--keep-bytes", "0" }, "--keep-bytes 0: not a size (bytes, or K, M, G)" },
		{ { "--keep-bytes", "1T" }, "--keep-bytes 1T: not a size (bytes, or K, M, G)" },
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
		char *argv[] = { prog, "--format", "flame", NULL };

		run_fails(argv, 2, "probe-read: -f flame: unknown format (folded, perf, pprof, speedscope or svg)\n");
	}
	{
		char *argv[] = { prog, "--interval", "5", "-o", "cpu.folded", NULL };

		run_fails(argv, 2, "probe-read: -o 'cpu.folded' gives two --interval files the same name: add a time conversion down to the interval (e.g. %Y%m%dT%H%M%S)\n");
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

/* A binary format to a terminal (a pty here) is bad usage, options that
 * do not go together (-f pprof without -o): exit 2, and before the session
 * is looked for (none is at --pin-dir, which would be exit 1). */
START_TEST(test_program_binary_to_terminal)
{
	char prog[4096], errs[512] = "";
	int master, slave, errp[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	pk_test_build_path("probe-read", prog, sizeof(prog));
	ck_assert_int_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
	ck_assert_int_eq(pipe(errp), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pk_test_die_with_parent(getppid());
		dup2(slave, STDOUT_FILENO);
		dup2(errp[1], STDERR_FILENO);
		execl(prog, prog, "-f", "pprof", "--pin-dir", "/nonexistent", (char *)NULL);
		_exit(127);
	}
	close(slave);
	close(errp[1]);
	while (len < sizeof(errs) - 1 && (n = read(errp[0], errs + len, sizeof(errs) - 1 - len)) > 0)
		len += n;
	close(errp[0]);
	status = pk_test_wait(pid);
	close(master);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 2);
	ck_assert_str_eq(errs, "probe-read: -f pprof is binary: give -o FILE or redirect the output\n");
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
	tcase_add_test(tc, test_per_cgroup);
	tcase_add_test(tc, test_all_options);
	tcase_add_test(tc, test_keep);
	tcase_add_test(tc, test_formats_and_outputs);
	tcase_add_test(tc, test_durations);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("program");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_program_errors);
	tcase_add_test(tc, test_program_binary_to_terminal);
	tcase_add_test(tc, test_program_help);
	suite_add_tcase(s, tc);
	return s;
}
