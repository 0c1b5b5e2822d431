// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite event_sources (test_event_sources.c), what probe-load refuses and
 * what it lists: each refused event in one line naming it and why, exit 2,
 * nothing pinned and the command never started; the patterns' refusals;
 * --list's tracepoints, kernel functions, events without a colon, and a
 * file's functions and USDT notes, against tracefs, kallsyms and readelf.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "integration/event_run.h"
#include "test_util.h"

/* Each is one line naming the event and why, exit 2, nothing pinned, no
 * perf event left; the session's command never started. */
START_TEST(test_refusals)
{
	char path[4096], loader[4096], marker[] = "/tmp/pk-ev-never-XXXXXX";
	char up_bad[4200], usdt_bad[4200], touch[4200];
	static const struct { const char *event, *msg; } fixed[] = {
		{ "kprobe:vfs_wrte", "probe-load: kprobe:vfs_wrte: no such kernel function (did you mean vfs_write" },
		{ "tracepoint:syscalls:sys_enter_wrte", "probe-load: tracepoint:syscalls:sys_enter_wrte: no such tracepoint in syscalls (did you mean sys_enter_write" },
		{ "tracepoint:sycalls:sys_enter_write", "probe-load: tracepoint:sycalls:sys_enter_write: no tracepoint category sycalls (did you mean syscalls?)" },
		{ "uprobe:/nonexistent/x:main", "probe-load: uprobe:/nonexistent/x:main: /nonexistent/x: No such file or directory" },
		{ "usdt:/bin/true:a:b", "probe-load: usdt:/usr/bin/true:a:b: no USDT note a:b in /usr/bin/true (it has no .note.stapsdt section)" },
		{ "bogus", "probe-load: -e bogus: not an event (" },
		{ "kprobe:", "probe-load: -e kprobe:: not of the form kprobe:FUNC" },
		/* the loop's other -e is off-cpu */
		{ "off-cpu", "probe-load: off-cpu: given twice" },
	};
	int links = pk_e2e_perf_links(), fd = mkstemp(marker);

	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(marker);	/* created only if the command ran */
	pk_ev_fixture("ev_calls", 0, path, sizeof(path));
	pk_test_build_path("probe-load", loader, sizeof(loader));
	snprintf(up_bad, sizeof(up_bad), "uprobe:%s:hot_fm", path);
	snprintf(usdt_bad, sizeof(usdt_bad), "usdt:%s:probekit:tock", path);
	snprintf(touch, sizeof(touch), "touch %s", marker);

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + 3; i++) {
		const char *event, *msg;
		char want[9000];
		char *err = NULL;
		int st;

		if (i < sizeof(fixed) / sizeof(fixed[0])) {
			event = fixed[i].event;
			msg = fixed[i].msg;
		} else if (i == sizeof(fixed) / sizeof(fixed[0])) {
			event = up_bad;
			snprintf(want, sizeof(want), "probe-load: %s: no function hot_fm in %s (did you mean hot_fn",
				 up_bad, path);
			msg = want;
		} else if (i == sizeof(fixed) / sizeof(fixed[0]) + 1) {
			event = usdt_bad;
			snprintf(want, sizeof(want), "probe-load: %s: no USDT note probekit:tock in %s (did you mean probekit:tick?)",
				 usdt_bad, path);
			msg = want;
		} else {
			/* a good event beside a bad one: still nothing */
			event = "tracepoint:nope:nope";
			msg = "probe-load: tracepoint:nope:nope: no tracepoint category nope";
		}
		{
			char *argv[] = { loader, "--pin-dir", (char *)pk_e2e_pin_dir(), "-e", "off-cpu",
					 "-e", (char *)event, "--", "sh", "-c", touch, NULL };

			st = pk_test_run(argv, NULL, &err);
		}
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "-e %s: exit %d", event,
			      WEXITSTATUS(st));
		ck_assert_msg(pk_e2e_one_line(err), "-e %s: not one line: %s", event, err);
		ck_assert_msg(!strncmp(err, msg, strlen(msg)), "-e %s:\n got: %s want: %s...", event,
			      err, msg);
		pk_ev_assert_unpinned();
		ck_assert_int_eq(pk_e2e_perf_links(), links);
		ck_assert_msg(access(marker, F_OK) != 0, "-e %s: the command ran", event);
		free(err);
	}

	/* one uprobe through two spellings of its file's path is one event */
	{
		char once[4200], twice[4200], want[9000], real[4096];
		char *argv[] = { loader, "--pin-dir", (char *)pk_e2e_pin_dir(), "-e", once,
				 "-e", twice, NULL };
		char *err = NULL;
		int st;

		ck_assert_ptr_nonnull(realpath(path, real));
		snprintf(once, sizeof(once), "uprobe:%s:hot_fn", path);
		snprintf(twice, sizeof(twice), "uprobe:/.%s:hot_fn", path);
		snprintf(want, sizeof(want), "probe-load: uprobe:%s:hot_fn: given twice\n", real);
		st = pk_test_run(argv, NULL, &err);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "exit %d", WEXITSTATUS(st));
		ck_assert_str_eq(err, want);
		pk_ev_assert_unpinned();
		free(err);
	}

	/* no PMU: cycles is refused with the reason (where there is one, it loads) */
	{
		char *argv[] = { loader, "--pin-dir", (char *)pk_e2e_pin_dir(), "-e", "cycles", NULL };
		char *err = NULL;
		int st = pk_test_run(argv, NULL, &err);

		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			ck_assert_int_eq(pk_e2e_unload(), 0);
		} else {
			ck_assert_int_eq(WEXITSTATUS(st), 2);
			ck_assert_msg(pk_e2e_one_line(err) &&
				      !strncmp(err, "probe-load: cycles: no hardware PMU on this machine", 51),
				      "cycles: %s", err);
			pk_ev_assert_unpinned();
		}
		free(err);
	}
}
END_TEST
/* What a pattern refuses, in one line each, nothing pinned. */
START_TEST(test_pattern_refusals)
{
	char loader[4096];
	static const char *const cases[][2] = {
		{ "tracepoint:nosuch*:x", "probe-load: tracepoint:nosuch*:x: no tracepoint matches\n" },
		{ "kprobe:pk_no_such_function_*", NULL },
	};
	int ntp = 0;
	glob_t g;

	pk_test_build_path("probe-load", loader, sizeof(loader));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { loader, "--pin-dir", (char *)pk_e2e_pin_dir(), "-e",
				 (char *)cases[i][0], "--", "true", NULL };
		const char *want = cases[i][1] ? cases[i][1] : pk_ev_kernel_has_kprobes() ?
			"probe-load: kprobe:pk_no_such_function_*: no kernel function matches\n" :
			"probe-load: kprobe:pk_no_such_function_*: a pattern attaches kprobes, and this kernel has no kprobes (CONFIG_KPROBES)\n";
		char *err = NULL;
		int st = pk_test_run(argv, NULL, &err);

		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "exit %d", WEXITSTATUS(st));
		ck_assert_str_eq(err, want);
		pk_ev_assert_unpinned();
		free(err);
	}
	/* more than one event attaches: how many, in the line */
	ck_assert_int_eq(glob("/sys/kernel/tracing/events/*/*/id", 0, NULL, &g), 0);
	ntp = g.gl_pathc;
	globfree(&g);
	ck_assert_int_gt(ntp, 1024);
	{
		char *argv[] = { loader, "--pin-dir", (char *)pk_e2e_pin_dir(), "-e",
				 "tracepoint:*:*", "--", "true", NULL };
		char *err = NULL, want[256];
		int st = pk_test_run(argv, NULL, &err);

		snprintf(want, sizeof(want), "probe-load: tracepoint:*:*: %d tracepoints match, more than the 1024 one event attaches (a narrower pattern, or several -e)\n",
			 ntp);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
		ck_assert_str_eq(err, want);
		pk_ev_assert_unpinned();
		free(err);
	}
}
END_TEST

/* --- --list ---------------------------------------------------------------- */

/* probe-load --list ARG (NULL: none): its exit status, stdout in *OUT and
 * stderr in *ERR. */
static int list_run(const char *arg, char **out, char **err)
{
	char loader[4096];
	char *argv[] = { (char *)pk_test_build_path("probe-load", loader, sizeof(loader)),
			 "--list", (char *)arg, NULL };
	int st = pk_test_run(argv, out, err);

	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* LINES (malloc'ed, "\n"-separated) sorted by strcmp, once each, as one
 * string. */
static char *sorted_unique(char **lines, size_t n)
{
	size_t len = 1;
	char *all, *p;

	qsort(lines, n, sizeof(*lines), pk_ev_cmp_str);
	for (size_t i = 0; i < n; i++)
		len += strlen(lines[i]) + 1;
	all = p = calloc(1, len);
	ck_assert_ptr_nonnull(all);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(lines[i], lines[i - 1]))
			p += sprintf(p, "%s\n", lines[i]);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	return all;
}

/* The tracepoints and kernel functions --list names are tracefs's and
 * kallsyms'; a file's functions and USDT notes are readelf's. */
START_TEST(test_list_events)
{
	static const char *const python = "/usr/bin/python3.11";
	char *out, *err, *want, *lines[4096], *p, *line;
	size_t n = 0;
	glob_t g;

	/* tracepoints: the directories of events/sched with an id */
	ck_assert_int_eq(list_run("tracepoint:sched:*", &out, &err), 0);
	ck_assert_int_eq(glob("/sys/kernel/tracing/events/sched/*/id", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc && n < 4096; i++) {
		char *name = g.gl_pathv[i] + strlen("/sys/kernel/tracing/events/sched/");

		*strrchr(name, '/') = '\0';
		ck_assert_int_gt(asprintf(&lines[n++], "tracepoint:sched:%s", name), 0);
	}
	globfree(&g);
	want = sorted_unique(lines, n);
	ck_assert_int_gt(n, 10);
	ck_assert_str_eq(out, want);
	ck_assert_str_eq(err, "");
	free(want);
	free(out);
	free(err);

	/* the events without a colon; a part of a name without a glob */
	ck_assert_int_eq(list_run("off-cpu", &out, &err), 0);
	ck_assert_str_eq(out, "off-cpu\n");
	free(out);
	free(err);
	ck_assert_int_eq(list_run("cpu-", &out, &err), 0);
	ck_assert_str_eq(out, "cpu-clock\n");
	free(out);
	free(err);
	ck_assert_int_eq(list_run("kprobe:vfs_rea[d]", &out, &err), 0);
	ck_assert_str_eq(out, "kprobe:vfs_read\n");
	free(out);
	free(err);

	/* a file's USDT notes: readelf -n's, PROVIDER:NAME once each */
	ck_assert_int_eq(list_run("usdt:/usr/bin/python3.11", &out, &err), 0);
	{
		char *argv[] = { "readelf", "-nW", (char *)python, NULL }, *notes = NULL;

		ck_assert_int_eq(pk_test_run(argv, &notes, NULL), 0);
		n = 0;
		for (p = strstr(notes, "Provider: "); p && n < 4096; p = strstr(p + 1, "Provider: ")) {
			char prov[64], name[64];

			ck_assert_int_eq(sscanf(p, "Provider: %63s", prov), 1);
			ck_assert_int_eq(sscanf(strstr(p, "Name: "), "Name: %63s", name), 1);
			ck_assert_int_gt(asprintf(&lines[n++], "usdt:%s:%s:%s", python, prov, name), 0);
		}
		free(notes);
	}
	want = sorted_unique(lines, n);
	ck_assert_int_ge(n, 8);
	ck_assert_str_eq(out, want);
	free(want);
	free(out);
	free(err);

	/* its functions: readelf -s's defined FUNCs, by name, once each (a
	 * .dynsym name without its @VERSION) */
	ck_assert_int_eq(list_run("uprobe:/usr/bin/python3.11:PyGC_", &out, &err), 0);
	{
		char *argv[] = { "readelf", "-sW", "--dyn-syms", (char *)python, NULL }, *syms = NULL;

		ck_assert_int_eq(pk_test_run(argv, &syms, NULL), 0);
		n = 0;
		for (line = strtok(syms, "\n"); line && n < 4096; line = strtok(NULL, "\n")) {
			unsigned long long value;
			char type[16], ndx[16], name[256];

			if (sscanf(line, " %*d: %llx %*s %15s %*s %*s %15s %255s", &value, type,
				   ndx, name) != 4 || strcmp(type, "FUNC") || !strcmp(ndx, "UND") ||
			    !value || strncmp(name, "PyGC_", 5))
				continue;
			name[strcspn(name, "@")] = '\0';
			ck_assert_int_gt(asprintf(&lines[n++], "uprobe:%s:%s", python, name), 0);
		}
		free(syms);
	}
	want = sorted_unique(lines, n);
	ck_assert_int_ge(n, 3);
	ck_assert_str_eq(out, want);
	free(want);
	free(out);
	free(err);

	/* a file that is not there: the user's input, exit 2, one line */
	ck_assert_int_eq(list_run("uprobe:/nonexistent/probekit", &out, &err), 2);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "probe-load: --list uprobe:/nonexistent/probekit: /nonexistent/probekit: No such file or directory\n");
	free(out);
	free(err);
}
END_TEST

void pk_ev_refusals_tcases(Suite *s)
{
	TCase *tc;

	tc = pk_e2e_tcase(s, "refused", 120);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_list_events);
	tcase_add_test(tc, test_pattern_refusals);
}
