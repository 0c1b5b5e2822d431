// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load against the real kernel (root only): what it pins, what it
 * refuses, that --unload and failed loads leave nothing behind, how the
 * targets map follows forks and exits, and what the sampler delivers.
 *
 * This file holds the pins, the failed loads and the programs the kernel
 * refuses, and the suite; test_load_targets.c the targets, the command in
 * the foreground and when a session stops, test_load_samples.c what the
 * sampler delivers (their cases are added here, in the suite's order);
 * load_run.h what they share.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eh_frame/errmsg.h"
#include "lib/pins.h"
#include "lib/root_records.h"
#include "lib/session.h"
#include "lib/unwind_store.h"
#include "lib/util/clock.h"
#include "loader/system.h"
#include "test_util.h"
#include "unit/loader/load_run.h"

static int online_cpus(bool *mask, char *list, size_t len)
{
	int n = pk_online_cpus(mask, PK_MAX_CPUS, list, len);

	ck_assert_int_gt(n, 0);
	return n;
}

static bool link_exists(__u32 id)
{
	int fd = bpf_link_get_fd_by_id(id);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* --- pins, settings, unload ---------------------------------------------- */

START_TEST(test_load_pins_settings_unload)
{
	bool online[PK_MAX_CPUS];
	char list[256], name[32];
	struct pk_session_fds fds;
	struct pk_session info;
	__u64 before = pk_clock_ns(CLOCK_BOOTTIME), real = pk_clock_ns(CLOCK_REALTIME);
	__u64 c[PK_CNT__MAX];
	__u32 ids[PK_MAX_CPUS + 2];
	int ncpus = online_cpus(online, list, sizeof(list)), nlinks;

	LOAD_OK("-F", "199", "--ringbuf-size", "64K");
	ck_assert(pk_ld_pinned("events") && pk_ld_pinned("counters") && pk_ld_pinned("session") &&
		  pk_ld_pinned("targets") && pk_ld_pinned("event_list") &&
		  pk_ld_pinned("event_counts") && pk_ld_pinned("roots"));
	for (int i = 0; i < PK_UNWIND_NMAPS; i++)
		ck_assert_msg(pk_ld_pinned(pk_unwind_pins[i]), "%s not pinned", pk_unwind_pins[i]);
	for (int cpu = 0; cpu < PK_MAX_CPUS; cpu++) {
		snprintf(name, sizeof(name), "links/e0-cpu%d", cpu);
		ck_assert_int_eq(pk_ld_pinned(name), online[cpu]);
	}
	/* No targets: nothing to follow, no fork/exit programs. The DWARF
	 * walk's code reports (exec, mmap) are there. */
	ck_assert(!pk_ld_pinned("links/fork") && !pk_ld_pinned("links/exit"));
	ck_assert(pk_ld_pinned("links/exec") && pk_ld_pinned("links/mmap"));

	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	ck_assert_int_ge(fds.events, 0);
	ck_assert_int_ge(fds.counters, 0);
	ck_assert_int_ge(fds.session, 0);
	ck_assert_int_ge(fds.targets, 0);
	ck_assert_uint_eq(info.layout_version, PK_PIN_LAYOUT_VERSION);
	ck_assert_uint_eq(info.flags, PK_SESSION_DWARF | PK_SESSION_PYTHON);
	ck_assert_uint_eq(info.freq_hz, 199);
	ck_assert_int_eq(info.cpu, -1);
	ck_assert_uint_eq(info.ncpus, ncpus);
	ck_assert_uint_eq(info.ntargets, 0);
	ck_assert_uint_eq(info.ringbuf_bytes, 65536);
	ck_assert_uint_eq(info.nevents, 1);
	ck_assert_uint_ge(info.start_time_ns, before);
	ck_assert_uint_le(info.start_time_ns, pk_clock_ns(CLOCK_BOOTTIME));
	ck_assert_uint_ge(info.start_realtime_ns, real);
	ck_assert_uint_le(info.start_realtime_ns, pk_clock_ns(CLOCK_REALTIME));
	ck_assert_int_eq(pk_targets_count(fds.targets), 0);
	pk_session_close(&fds);
	ck_assert_int_eq(fds.events, -1);
	ck_assert_int_eq(fds.session, -1);

	/* Sampling goes on after probe-load exited. */
	pk_ld_wait_counter(PK_CNT_SAMPLES, c);
	ck_assert_uint_eq(c[PK_CNT_FILTERED], 0);

	nlinks = pk_ld_pinned_link_ids(ids, PK_MAX_CPUS + 2);
	ck_assert_int_eq(nlinks, ncpus + 2);
	for (int i = 0; i < nlinks; i++)
		ck_assert(link_exists(ids[i]));

	LOAD_OK("--unload");
	ck_assert(!pk_ld_dir_exists());
	for (int i = 0; i < nlinks; i++)
		ck_assert_msg(!link_exists(ids[i]), "link %u survived --unload", ids[i]);
	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), -ENOENT);
	ck_assert_int_eq(fds.events, -1);
	ck_assert_int_eq(fds.session, -1);
}
END_TEST

START_TEST(test_second_load_refused)
{
	struct pk_session_fds fds;
	struct pk_session first, again;
	__u32 ids[PK_MAX_CPUS + 2], ids2[PK_MAX_CPUS + 2];
	char msg[512];
	int n;

	LOAD_OK("-F", "49");
	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &first), 0);
	pk_session_close(&fds);
	n = pk_ld_pinned_link_ids(ids, PK_MAX_CPUS + 2);

	snprintf(msg, sizeof(msg),
		 "probe-load: a session is already loaded at %s (probe-load --unload --pin-dir %s to stop it)\n",
		 pk_ld_dir, pk_ld_dir);
	LOAD_REFUSED(msg, "-F", "99");
	LOAD_REFUSED(msg, "-p", "1");

	/* The first session is untouched. */
	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &again), 0);
	pk_session_close(&fds);
	ck_assert_mem_eq(&first, &again, sizeof(first));
	ck_assert_int_eq(pk_ld_pinned_link_ids(ids2, PK_MAX_CPUS + 2), n);
	ck_assert_mem_eq(ids, ids2, n * sizeof(ids[0]));
	for (int i = 0; i < n; i++)
		ck_assert(link_exists(ids[i]));
	LOAD_OK("--unload");
}
END_TEST

START_TEST(test_unload_nothing)
{
	char msg[256];

	/* a no-op, said in one line, as bpftool and perf make it */
	snprintf(msg, sizeof(msg), "probe-load: nothing loaded at %s\n", pk_ld_dir);
	LOAD_FAILS(0, msg, "--unload");
	/* A directory that is not a session is not ours to remove. */
	ck_assert_int_eq(mkdir(pk_ld_dir, 0700), 0);
	LOAD_FAILS(0, msg, "--unload");
	ck_assert(pk_ld_dir_exists());
	ck_assert_int_eq(rmdir(pk_ld_dir), 0);
}
END_TEST

/* --- failed loads leave nothing ------------------------------------------ */

START_TEST(test_refused_before_loading)
{
	unsigned int pid_max, max_rate;
	bool online[PK_MAX_CPUS];
	char list[256], msg[512];

	ck_assert_int_eq(pk_read_uint("/proc/sys/kernel/pid_max", &pid_max), 0);
	/* pids are below pid_max */
	snprintf(list, sizeof(list), "%u", pid_max);
	snprintf(msg, sizeof(msg), "probe-load: -p %u: no such process\n", pid_max);
	LOAD_REFUSED(msg, "-p", "1", "-p", list);
	ck_assert(!pk_ld_dir_exists());

	online_cpus(online, list, sizeof(list));
	snprintf(msg, sizeof(msg), "probe-load: -C 4095: no such CPU (online: %s)\n", list);
	LOAD_FAILS(2, msg, "-C", "4095");	/* a bad value: bad usage */
	ck_assert(!pk_ld_dir_exists());

	ck_assert_int_eq(pk_read_uint("/proc/sys/kernel/perf_event_max_sample_rate", &max_rate), 0);
	snprintf(list, sizeof(list), "%u", max_rate + 1);
	snprintf(msg, sizeof(msg),
		 "probe-load: -F %u: above the kernel's limit of %u Hz (/proc/sys/kernel/perf_event_max_sample_rate)\n",
		 max_rate + 1, max_rate);
	LOAD_FAILS(2, msg, "-F", list);	/* bad usage on this system */
	ck_assert(!pk_ld_dir_exists());
}
END_TEST

START_TEST(test_pin_dir_not_bpffs)
{
	char *out, *err;
	const char *args[] = { "--pin-dir", "/tmp/probekit-test-not-bpffs", NULL };

	ck_assert_int_eq(pk_ld_run(args, &out, &err), 1);
	ck_assert_str_eq(err, "probe-load: --pin-dir /tmp/probekit-test-not-bpffs: "
			 "/tmp is not on a bpf filesystem\n");
	ck_assert_int_eq(access("/tmp/probekit-test-not-bpffs", F_OK), -1);
	free(out);
	free(err);
}
END_TEST

/* The command's exec fails after everything was loaded and pinned: the
 * one cleanup path must remove it all. */
START_TEST(test_failed_exec_leaves_nothing)
{
	LOAD_REFUSED("probe-load: /nonexistent/probekit-cmd: No such file or directory\n",
		     "--", "/nonexistent/probekit-cmd", "arg");
	ck_assert(!pk_ld_dir_exists());
}
END_TEST

/* A stop signal that arrives while loading undoes the load. Pending and
 * blocked signals survive exec, so one can be sent before it starts. */
START_TEST(test_interrupted_load_leaves_nothing)
{
	char path[4096], err[512] = "";
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	pk_test_build_path("probe-load", path, sizeof(path));
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		sigset_t term;

		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigprocmask(SIG_BLOCK, &term, NULL);
		kill(getpid(), SIGTERM);
		dup2(fds[1], 2);
		execl(path, path, "--pin-dir", pk_ld_dir, "--", "true", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], err, sizeof(err) - 1);
	ck_assert_int_gt(n, 0);
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	ck_assert_str_eq(err, "probe-load: interrupted: nothing loaded\n");
	ck_assert(!pk_ld_dir_exists());
}
END_TEST

START_TEST(test_not_root)
{
	char path[4096], *out, *err;
	char *argv[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
			 (char *)pk_test_build_path("probe-load", path, sizeof(path)),
			 "--pin-dir", pk_ld_dir, NULL };
	int status = pk_test_run(argv, &out, &err);

	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	ck_assert_str_eq(err, "probe-load: needs root: CAP_BPF and CAP_PERFMON "
			 "(or CAP_SYS_ADMIN) are not in effect\n");
	ck_assert(!pk_ld_dir_exists());
	free(out);
	free(err);
}
END_TEST

/* No bpffs at /sys/fs/bpf (in a mount namespace of its own): probe-load
 * mounts one. The namespace and its bpffs go away with the shell. */
START_TEST(test_mounts_bpffs)
{
	char path[4096], script[8192], *out, *err;
	char *argv[] = { "unshare", "-m", "--propagation", "private", "sh", "-ec", script, NULL };
	int status;

	snprintf(script, sizeof(script),
		 "umount /sys/fs/bpf; ! mountpoint -q /sys/fs/bpf; "
		 "%s --pin-dir %s; mountpoint -q /sys/fs/bpf; test -e %s/session; "
		 "%s --unload --pin-dir %s; ! test -e %s; echo ok",
		 pk_test_build_path("probe-load", path, sizeof(path)), pk_ld_dir, pk_ld_dir,
		 path, pk_ld_dir, pk_ld_dir);
	status = pk_test_run(argv, &out, &err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
	ck_assert_str_eq(out, "ok\n");
	ck_assert_str_eq(pk_ld_past_unwind_lines(err), "");
	free(out);
	free(err);
}
END_TEST

/* --- a program the kernel refuses ---------------------------------------- */

/*
 * Every program of the object loads on the kernels probekit supports, so
 * the kernel is made to refuse one: tests/preload/refuse_prog.so sends the
 * programs PK_REFUSE_PROG names to the kernel as one `exit` that leaves R0
 * unset, which every verifier refuses with "R0 !read_ok".
 */
static int load_refusing(const char *prog, const char **args, char **out, char **err)
{
	char path[4096], preload[4200], refuse[128], asan[512], load[4096];
	const char *argv[40] = { "env" };
	const char *prev = getenv("ASAN_OPTIONS");
	int n = 1, status;

	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s",
		 pk_test_build_path("preload/refuse_prog.so", path, sizeof(path)));
	ck_assert_msg(access(path, R_OK) == 0, "%s: not built", path);
	snprintf(refuse, sizeof(refuse), "PK_REFUSE_PROG=%s", prog);
	/* the sanitizers' runtime no longer comes first */
	snprintf(asan, sizeof(asan), "ASAN_OPTIONS=%s%sverify_asan_link_order=0", prev ? prev : "",
		 prev && *prev ? ":" : "");
	argv[n++] = preload;
	argv[n++] = refuse;
	argv[n++] = asan;
	argv[n++] = pk_test_build_path("probe-load", load, sizeof(load));
	argv[n++] = "--pin-dir";
	argv[n++] = pk_ld_dir;
	while (*args && n < 39)
		argv[n++] = *args++;
	status = pk_test_run((char *const *)argv, out, err);
	ck_assert_msg(WIFEXITED(status), "probe-load did not exit normally");
	return WEXITSTATUS(status);
}

#define LOAD_REFUSING(prog, out, err, ...) \
	load_refusing(prog, (const char *[]){ __VA_ARGS__, NULL }, out, err)

static const char *release(void)
{
	static struct utsname uts;

	ck_assert_int_eq(uname(&uts), 0);
	return uts.release;
}

/* Whether TEXT ends with FMT, its %s the kernel release. */
static bool ends_with(const char *text, const char *fmt)
{
	char line[512];
	size_t n = snprintf(line, sizeof(line), fmt, release()), len = strlen(text);

	return len >= n && !strcmp(text + len - n, line);
}

/* Off-CPU refused beside cpu-clock: one line says so, and cpu-clock is
 * sampled alone, its links pinned as event 0. (--unwind fp: the refusal
 * does not depend on the mode, and frame pointers load faster in a TCG
 * guest of the kernel matrix.) */
START_TEST(test_refused_program_left_out)
{
	struct pk_event_desc ev[PK_MAX_EVENTS];
	struct pk_session_fds fds;
	struct pk_session info;
	char *out, *err, line[512], name[32];
	bool online[PK_MAX_CPUS];
	unsigned int nev;
	__u64 c[PK_CNT__MAX];
	size_t len;
	int rc;

	online_cpus(online, line, sizeof(line));
	rc = LOAD_REFUSING("pk_offcpu", &out, &err, "--unwind", "fp", "-e", "cpu-clock", "-e",
			   "off-cpu");
	ck_assert_msg(rc == 0, "probe-load exited %d: %s", rc, err);
	len = snprintf(line, sizeof(line), "probe-load: off-cpu: Linux %s refused pk_offcpu: "
		       "R0 !read_ok (probe-load -v shows the verifier's log); the other events "
		       "go on without it\n", release());
	ck_assert_msg(!strncmp(err, line, len), "stderr: %s", err);
	ck_assert_str_eq(err + len, "");
	ck_assert_str_eq(out, "");
	free(out);
	free(err);

	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	ck_assert_uint_eq(info.nevents, 1);
	ck_assert_int_eq(pk_event_list_read(pk_ld_dir, &info, ev, &nev), 0);
	ck_assert_uint_eq(nev, 1);
	ck_assert_str_eq(ev[0].name, "cpu-clock");
	ck_assert_uint_eq(ev[0].kind, PK_EVK_PERF);
	pk_session_close(&fds);
	for (int cpu = 0; cpu < PK_MAX_CPUS; cpu++) {
		snprintf(name, sizeof(name), "links/e0-cpu%d", cpu);
		ck_assert_int_eq(pk_ld_pinned(name), online[cpu]);
	}
	ck_assert(!pk_ld_pinned("links/e1"));
	pk_ld_wait_counter(PK_CNT_SAMPLES, c);
	LOAD_OK("--unload");
	ck_assert(!pk_ld_dir_exists());
}
END_TEST

/* The one event asked for refused: the line alone, exit 1, nothing pinned. */
START_TEST(test_refused_last_event)
{
	char *out, *err, line[512];
	int rc;

	rc = LOAD_REFUSING("pk_offcpu", &out, &err, "--unwind", "fp", "-e", "off-cpu");
	snprintf(line, sizeof(line), "probe-load: off-cpu: Linux %s refused pk_offcpu: "
		 "R0 !read_ok (probe-load -v shows the verifier's log)\n", release());
	ck_assert_int_eq(rc, 1);
	ck_assert_str_eq(err, line);
	ck_assert_str_eq(out, "");
	ck_assert(!pk_ld_dir_exists());
	free(out);
	free(err);
}
END_TEST

/* A program every DWARF session needs refuses it, whatever its events;
 * --unwind fp does without it. */
START_TEST(test_refused_needed_program)
{
	char *out, *err, line[512];
	int rc;

	rc = LOAD_REFUSING("pk_code_report", &out, &err, "-e", "cpu-clock");
	snprintf(line, sizeof(line), "probe-load: dwarf unwinding (code reports): Linux %s "
		 "refused pk_code_report: R0 !read_ok (probe-load -v shows the verifier's log)\n",
		 release());
	ck_assert_int_eq(rc, 1);
	ck_assert_str_eq(err, line);
	ck_assert(!pk_ld_dir_exists());
	free(out);
	free(err);

	rc = LOAD_REFUSING("pk_code_report", &out, &err, "--unwind", "fp");
	ck_assert_msg(rc == 0, "probe-load exited %d: %s", rc, err);
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	LOAD_OK("--unload");
}
END_TEST

/* The default event (cycles where there is a PMU) refused: -v shows the
 * verifier's whole log, then the line. */
START_TEST(test_refused_verbose)
{
	char *out, *err;
	int rc;

	rc = LOAD_REFUSING("pk_perf_event", &out, &err, "-v", "--unwind", "fp");
	ck_assert_int_eq(rc, 1);
	ck_assert_ptr_nonnull(strstr(err, "libbpf: prog 'pk_perf_event': -- BEGIN PROG LOAD LOG --\n"));
	ck_assert_msg(ends_with(err, "\nprobe-load: cpu-clock: Linux %s refused pk_perf_event: R0 !read_ok\n") ||
		      ends_with(err, "\nprobe-load: cycles: Linux %s refused pk_perf_event: R0 !read_ok\n"),
		      "not the last line: %s", err);
	ck_assert(!pk_ld_dir_exists());
	free(out);
	free(err);
}
END_TEST

Suite *suite_load_session(void)
{
	Suite *s = suite_create("load_session");
	TCase *tc;

	pk_ld_runner = getpid();
	if (!pk_test_need_root(s, "probe-load loads BPF programs"))
		return s;

	tc = pk_ld_root_case(s, "pins");
	tcase_add_test(tc, test_load_pins_settings_unload);
	tcase_add_test(tc, test_second_load_refused);
	tcase_add_test(tc, test_unload_nothing);
	tcase_add_test(tc, test_mounts_bpffs);

	tc = pk_ld_root_case(s, "refused");
	tcase_add_test(tc, test_refused_before_loading);
	tcase_add_test(tc, test_pin_dir_not_bpffs);
	tcase_add_test(tc, test_failed_exec_leaves_nothing);
	tcase_add_test(tc, test_interrupted_load_leaves_nothing);
	tcase_add_test(tc, test_not_root);

	tc = pk_ld_root_case(s, "refused_program");
	tcase_add_test(tc, test_refused_program_left_out);
	tcase_add_test(tc, test_refused_last_event);
	tcase_add_test(tc, test_refused_needed_program);
	tcase_add_test(tc, test_refused_verbose);

	pk_ld_targets_tcase(s);
	pk_ld_foreground_tcase(s);
	pk_ld_stops_tcase(s);
	pk_ld_samples_tcase(s);
	return s;
}
