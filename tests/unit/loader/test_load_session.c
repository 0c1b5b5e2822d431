// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load against the real kernel (root only): what it pins, what it
 * refuses, that --unload and failed loads leave nothing behind, how the
 * targets map follows forks and exits, and what the sampler delivers.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "eh_frame/errmsg.h"
#include "lib/pins.h"
#include "lib/root_records.h"
#include "lib/session.h"
#include "lib/unwind_store.h"
#include "lib/util/clock.h"
#include "loader/system.h"
#include "test_util.h"

#define PIN_PREFIX "/sys/fs/bpf/probekit-test-load-"

static pid_t runner;		/* set when the suite is built, before check forks */
static char dir[128];		/* this test's pin directory */

static void setup(void)
{
	snprintf(dir, sizeof(dir), PIN_PREFIX "%d-%d", (int)runner, (int)getpid());
}

/* Unchecked teardown: runs in the runner even when a test died half-way. */
static void cleanup_all(void)
{
	char pattern[128], err[PK_ERR_LEN];
	glob_t g;

	snprintf(pattern, sizeof(pattern), PIN_PREFIX "%d-*", (int)runner);
	if (glob(pattern, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		pk_pins_unload(g.gl_pathv[i], err);
		rmdir(g.gl_pathv[i]);
	}
	globfree(&g);
}

/* Run probe-load --pin-dir DIR ARGS...; returns its exit code. */
#define LOAD(out, err, ...) \
	load_run((const char *[]){ "--pin-dir", dir, __VA_ARGS__, NULL }, out, err)

static int load_run(const char **args, char **out, char **err)
{
	char path[4096];
	const char *argv[32] = { pk_test_build_path("probe-load", path, sizeof(path)) };
	int n = 1, status;

	while (*args && n < 31)
		argv[n++] = *args++;
	status = pk_test_run((char *const *)argv, out, err);
	ck_assert_msg(WIFEXITED(status), "probe-load did not exit normally");
	return WEXITSTATUS(status);
}

#define UNWIND_SUMMARY	"probe-load: unwind tables: "

/* ERR past what a load with --unwind dwarf prints: a line per file whose
 * table was refused, then the one summary line (checked by
 * test_unwind_tables_and_fp). */
static const char *past_unwind_lines(const char *err)
{
	const char *line = err;

	while (*line) {
		const char *end = strchrnul(line, '\n');
		bool refused = memmem(line, end - line, ": unwind table refused: ", 24) != NULL;
		bool summary = !strncmp(line, UNWIND_SUMMARY, strlen(UNWIND_SUMMARY));

		if (!refused && !summary)
			break;
		line = *end ? end + 1 : end;
		if (summary)
			break;
	}
	return line;
}

/* Run with ARGS and insist it worked, silently but for the unwind lines. */
#define LOAD_OK(...) do {						\
	char *out_, *err_;						\
	int rc_ = LOAD(&out_, &err_, __VA_ARGS__);			\
	ck_assert_msg(rc_ == 0, "probe-load exited %d: %s", rc_, err_);	\
	ck_assert_str_eq(out_, "");					\
	ck_assert_str_eq(past_unwind_lines(err_), "");			\
	free(out_);							\
	free(err_);							\
} while (0)

/* Run and expect exit STATUS (1 an error, 2 bad usage) with exactly MSG on
 * stderr, nothing on stdout. */
#define LOAD_FAILS(status, msg, ...) do {				\
	char *out_, *err_;						\
	int rc_ = LOAD(&out_, &err_, __VA_ARGS__);			\
	ck_assert_int_eq(rc_, (status));				\
	ck_assert_str_eq(err_, (msg));					\
	ck_assert_str_eq(out_, "");					\
	free(out_);							\
	free(err_);							\
} while (0)
#define LOAD_REFUSED(msg, ...) LOAD_FAILS(1, msg, __VA_ARGS__)

static bool pinned(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static bool dir_exists(void)
{
	struct stat st;

	return stat(dir, &st) == 0;
}

static int online_cpus(bool *mask, char *list, size_t len)
{
	int n = pk_online_cpus(mask, PK_MAX_CPUS, list, len);

	ck_assert_int_gt(n, 0);
	return n;
}

/* The ids of the links pinned under DIR/links, to check they are gone. */
static int pinned_link_ids(__u32 *ids, int max)
{
	char path[512];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/links", dir);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) && n < max) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/links/%s", dir, de->d_name);
		fd = bpf_obj_get(path);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
		ids[n++] = info.id;
		close(fd);
	}
	closedir(d);
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

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void read_counters(__u64 c[PK_CNT__MAX])
{
	struct pk_session_fds fds;
	struct pk_session info;

	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	ck_assert_int_eq(pk_counters_read(fds.counters, c), 0);
	pk_session_close(&fds);
}

/* Poll the counters until COUNTER is non-zero (at most 3 s). */
/* Until COUNTER moves: as long as it takes on a slow machine (a TCG guest
 * of the kernel matrix), the case's timeout ends a counter that never does. */
static void wait_counter(int counter, __u64 c[PK_CNT__MAX])
{
	for (;;) {
		read_counters(c);
		if (c[counter])
			return;
		sleep_ms(10);
	}
}

/* A child of this test that spins until killed (or the test dies). */
static pid_t spin_child(void)
{
	pid_t parent = getpid(), pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pk_test_die_with_parent(parent);
		for (volatile unsigned long x = 0;; x++)
			;
	}
	return pid;
}

static int targets_count(void)
{
	struct pk_session_fds fds;
	struct pk_session info;
	int n;

	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	n = pk_targets_count(fds.targets);
	/* what probe-read asks to know when to stop */
	ck_assert_int_eq(pk_targets_empty(fds.targets), n == 0);
	pk_session_close(&fds);
	return n;
}

/* PID's enum pk_target_state, 0: not a target. */
static int target_state(pid_t pid)
{
	struct pk_session_fds fds;
	struct pk_session info;
	__u32 key = pid;
	__u8 v;
	bool found;

	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	found = bpf_map_lookup_elem(fds.targets, &key, &v) == 0;
	pk_session_close(&fds);
	return found ? v : 0;
}

static bool is_target(pid_t pid)
{
	return target_state(pid) != 0;
}

static void wait_not_target(pid_t pid)
{
	for (int i = 0; i < 300 && is_target(pid); i++)
		sleep_ms(10);
	ck_assert_msg(!is_target(pid), "%d is still a target", (int)pid);
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
	ck_assert(pinned("events") && pinned("counters") && pinned("session") &&
		  pinned("targets") && pinned("event_list") && pinned("event_counts") &&
		  pinned("roots"));
	for (int i = 0; i < PK_UNWIND_NMAPS; i++)
		ck_assert_msg(pinned(pk_unwind_pins[i]), "%s not pinned", pk_unwind_pins[i]);
	for (int cpu = 0; cpu < PK_MAX_CPUS; cpu++) {
		snprintf(name, sizeof(name), "links/e0-cpu%d", cpu);
		ck_assert_int_eq(pinned(name), online[cpu]);
	}
	/* No targets: nothing to follow, no fork/exit programs. The DWARF
	 * walk's code reports (exec, mmap) are there. */
	ck_assert(!pinned("links/fork") && !pinned("links/exit"));
	ck_assert(pinned("links/exec") && pinned("links/mmap"));

	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
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
	wait_counter(PK_CNT_SAMPLES, c);
	ck_assert_uint_eq(c[PK_CNT_FILTERED], 0);

	nlinks = pinned_link_ids(ids, PK_MAX_CPUS + 2);
	ck_assert_int_eq(nlinks, ncpus + 2);
	for (int i = 0; i < nlinks; i++)
		ck_assert(link_exists(ids[i]));

	LOAD_OK("--unload");
	ck_assert(!dir_exists());
	for (int i = 0; i < nlinks; i++)
		ck_assert_msg(!link_exists(ids[i]), "link %u survived --unload", ids[i]);
	ck_assert_int_eq(pk_session_open(dir, &fds, &info), -ENOENT);
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
	ck_assert_int_eq(pk_session_open(dir, &fds, &first), 0);
	pk_session_close(&fds);
	n = pinned_link_ids(ids, PK_MAX_CPUS + 2);

	snprintf(msg, sizeof(msg),
		 "probe-load: a session is already loaded at %s (probe-load --unload --pin-dir %s to stop it)\n",
		 dir, dir);
	LOAD_REFUSED(msg, "-F", "99");
	LOAD_REFUSED(msg, "-p", "1");

	/* The first session is untouched. */
	ck_assert_int_eq(pk_session_open(dir, &fds, &again), 0);
	pk_session_close(&fds);
	ck_assert_mem_eq(&first, &again, sizeof(first));
	ck_assert_int_eq(pinned_link_ids(ids2, PK_MAX_CPUS + 2), n);
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
	snprintf(msg, sizeof(msg), "probe-load: nothing loaded at %s\n", dir);
	LOAD_FAILS(0, msg, "--unload");
	/* A directory that is not a session is not ours to remove. */
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	LOAD_FAILS(0, msg, "--unload");
	ck_assert(dir_exists());
	ck_assert_int_eq(rmdir(dir), 0);
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
	ck_assert(!dir_exists());

	online_cpus(online, list, sizeof(list));
	snprintf(msg, sizeof(msg), "probe-load: -C 4095: no such CPU (online: %s)\n", list);
	LOAD_FAILS(2, msg, "-C", "4095");	/* a bad value: bad usage */
	ck_assert(!dir_exists());

	ck_assert_int_eq(pk_read_uint("/proc/sys/kernel/perf_event_max_sample_rate", &max_rate), 0);
	snprintf(list, sizeof(list), "%u", max_rate + 1);
	snprintf(msg, sizeof(msg),
		 "probe-load: -F %u: above the kernel's limit of %u Hz (/proc/sys/kernel/perf_event_max_sample_rate)\n",
		 max_rate + 1, max_rate);
	LOAD_FAILS(2, msg, "-F", list);	/* bad usage on this system */
	ck_assert(!dir_exists());
}
END_TEST

START_TEST(test_pin_dir_not_bpffs)
{
	char *out, *err;
	const char *args[] = { "--pin-dir", "/tmp/probekit-test-not-bpffs", NULL };

	ck_assert_int_eq(load_run(args, &out, &err), 1);
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
	ck_assert(!dir_exists());
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
		execl(path, path, "--pin-dir", dir, "--", "true", (char *)NULL);
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
	ck_assert(!dir_exists());
}
END_TEST

START_TEST(test_not_root)
{
	char path[4096], *out, *err;
	char *argv[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
			 (char *)pk_test_build_path("probe-load", path, sizeof(path)),
			 "--pin-dir", dir, NULL };
	int status = pk_test_run(argv, &out, &err);

	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	ck_assert_str_eq(err, "probe-load: needs root: CAP_BPF and CAP_PERFMON "
			 "(or CAP_SYS_ADMIN) are not in effect\n");
	ck_assert(!dir_exists());
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
		 pk_test_build_path("probe-load", path, sizeof(path)), dir, dir,
		 path, dir, dir);
	status = pk_test_run(argv, &out, &err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
	ck_assert_str_eq(out, "ok\n");
	ck_assert_str_eq(past_unwind_lines(err), "");
	free(out);
	free(err);
}
END_TEST

/* --- targets ---------------------------------------------------------------- */

/* A target process that does what the test tells it, one byte at a time:
 * 'f' fork a child that lives until HOLD closes (reports the child's pid),
 * 't' run a thread to completion (reports 0), 'x' exit. */
struct puppet {
	pid_t pid;
	int cmd, report, hold;
};

static void *nothing(void *arg)
{
	return arg;
}

static void puppet_main(int cmd, int report, int hold)
{
	char c;

	while (read(cmd, &c, 1) == 1) {
		pid_t pid = 0;

		if (c == 'f') {
			pid = fork();
			if (pid == 0) {
				while (read(hold, &c, 1) > 0)
					;
				_exit(0);
			}
		} else if (c == 't') {
			pthread_t t;

			pthread_create(&t, NULL, nothing, NULL);
			pthread_join(t, NULL);
		} else {
			break;
		}
		if (write(report, &pid, sizeof(pid)) != sizeof(pid))
			break;
	}
	_exit(0);
}

static void puppet_start(struct puppet *p)
{
	int cmd[2], report[2], hold[2];

	ck_assert_int_eq(pipe(cmd), 0);
	ck_assert_int_eq(pipe(report), 0);
	ck_assert_int_eq(pipe(hold), 0);
	p->pid = fork();
	ck_assert_int_ge(p->pid, 0);
	if (p->pid == 0) {
		close(cmd[1]);
		close(report[0]);
		close(hold[1]);
		puppet_main(cmd[0], report[1], hold[0]);
	}
	close(cmd[0]);
	close(report[1]);
	close(hold[0]);
	p->cmd = cmd[1];
	p->report = report[0];
	p->hold = hold[1];
}

static pid_t puppet_do(struct puppet *p, char c)
{
	pid_t pid = -1;

	ck_assert_int_eq(write(p->cmd, &c, 1), 1);
	ck_assert_int_eq(read(p->report, &pid, sizeof(pid)), sizeof(pid));
	return pid;
}

START_TEST(test_targets_follow_fork_and_exit)
{
	struct pk_session_fds fds;
	struct pk_session info;
	struct puppet p;
	char pid[16];
	pid_t child;
	int status;

	puppet_start(&p);
	snprintf(pid, sizeof(pid), "%d", (int)p.pid);
	LOAD_OK("-p", pid);
	ck_assert(pinned("links/fork") && pinned("links/exit"));
	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	pk_session_close(&fds);
	ck_assert_uint_eq(info.flags,
			  PK_SESSION_FILTER_PIDS | PK_SESSION_DWARF | PK_SESSION_PYTHON);
	ck_assert_uint_eq(info.ntargets, 1);
	ck_assert_int_eq(targets_count(), 1);
	ck_assert(is_target(p.pid));

	/* The fork tracepoint runs before fork() returns in the parent. */
	child = puppet_do(&p, 'f');
	ck_assert_int_gt(child, 0);
	ck_assert(is_target(child));
	ck_assert_int_eq(targets_count(), 2);

	/* A thread that comes and goes is not a process. */
	ck_assert_int_eq(puppet_do(&p, 't'), 0);
	ck_assert_int_eq(targets_count(), 2);
	ck_assert(is_target(p.pid));

	close(p.hold);		/* the child exits */
	wait_not_target(child);
	ck_assert(is_target(p.pid));

	close(p.cmd);		/* the target exits */
	ck_assert_int_eq(waitpid(p.pid, &status, 0), p.pid);
	ck_assert_int_eq(targets_count(), 0);
	close(p.report);
	LOAD_OK("--unload");
}
END_TEST

static int worker_hold[2];

static void *worker(void *arg)
{
	char c;

	while (read(worker_hold[0], &c, 1) > 0)
		;
	_exit(0);	/* the forked test's heap is not ours to leak-check */
	return arg;
}

/* The group leader exits first (pthread_exit from main): the process lives
 * on in its other thread and stays a target until that one exits. */
START_TEST(test_target_outlives_its_leader)
{
	char pid[16], path[64], *status_text;
	pid_t target;
	int status;

	ck_assert_int_eq(pipe(worker_hold), 0);
	target = fork();
	ck_assert_int_ge(target, 0);
	if (target == 0) {
		pthread_t t;

		close(worker_hold[1]);
		pthread_create(&t, NULL, worker, NULL);
		sleep(1);	/* loaded by then; the leader exits under watch */
		pthread_exit(NULL);
	}
	close(worker_hold[0]);
	snprintf(pid, sizeof(pid), "%d", (int)target);
	LOAD_OK("-p", pid);
	ck_assert(is_target(target));

	/* Wait for the leader to be a zombie while its thread runs. */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)target);
	for (;;) {
		status_text = pk_test_read_file(path, NULL);
		ck_assert_ptr_nonnull(status_text);
		bool zombie = strstr(status_text, "State:\tZ") != NULL;

		free(status_text);
		if (zombie)
			break;
		sleep_ms(10);
	}
	ck_assert(is_target(target));

	close(worker_hold[1]);	/* the last thread exits */
	ck_assert_int_eq(waitpid(target, &status, 0), target);
	ck_assert_int_eq(targets_count(), 0);
	LOAD_OK("--unload");
}
END_TEST

START_TEST(test_command_is_a_target)
{
	struct pk_session_fds fds;
	struct pk_session info;
	char *out, *err, expect[64];
	int pid = 0;

	/* pk_test_run returns when the command closed stdout: it has exited. */
	ck_assert_int_eq(LOAD(&out, &err, "--", "sh", "-c", "echo from-cmd $$"), 0);
	ck_assert_int_eq(sscanf(past_unwind_lines(err), "probekit: profiling pid %d\n", &pid), 1);
	snprintf(expect, sizeof(expect), "probekit: profiling pid %d\n", pid);
	ck_assert_str_eq(past_unwind_lines(err), expect);
	snprintf(expect, sizeof(expect), "from-cmd %d\n", pid);
	ck_assert_str_eq(out, expect);
	free(out);
	free(err);

	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	pk_session_close(&fds);
	ck_assert_uint_eq(info.flags, PK_SESSION_FILTER_PIDS | PK_SESSION_COMMAND |
			  PK_SESSION_DWARF | PK_SESSION_PYTHON);
	ck_assert_uint_eq(info.ntargets, 1);
	wait_not_target(pid);
	ck_assert_int_eq(targets_count(), 0);
	LOAD_OK("--unload");
}
END_TEST

/* --- the command in the foreground --------------------------------------- */

/* probe-load -- CMD ends with the command's status, as a shell reports it. */
START_TEST(test_command_exit_status)
{
	static const struct {
		const char *script;
		int status;
	} cases[] = {
		{ "exit 3", 3 },
		{ "exit 0", 0 },
		{ "kill -TERM $$", 128 + SIGTERM },
		{ "kill -KILL $$", 128 + SIGKILL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;

		ck_assert_int_eq(LOAD(&out, &err, "--", "sh", "-c", cases[i].script),
				 cases[i].status);
		ck_assert_str_eq(out, "");
		ck_assert_ptr_nonnull(strstr(err, "probekit: profiling pid "));
		free(out);
		free(err);
		LOAD_OK("--unload");
	}
}
END_TEST

/* One read of the pty's master, appended to BUF; false once the slave side
 * is closed (EIO) or BUF is full. */
static bool pty_read_some(int master, char *buf, size_t len)
{
	size_t n = strlen(buf);
	ssize_t r;

	do
		r = n + 1 < len ? read(master, buf + n, len - 1 - n) : 0;
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return false;
	buf[n + r] = '\0';
	return true;
}

/* Read until NEEDLE is in BUF (NULL: to the end). */
static bool pty_read_until(int master, char *buf, size_t len, const char *needle)
{
	while (!(needle && strstr(buf, needle)))
		if (!pty_read_some(master, buf, len))
			return false;
	return true;
}

/* probe-load -- sh -c SCRIPT on a terminal of its own: returns its status
 * after SEND was typed on the terminal once the command is up, with what
 * the terminal showed in OUT, and whether the command was in the terminal's
 * foreground process group when it was up. */
static int on_terminal(const char *script, const char *send, char *out, size_t len,
		       bool *foreground)
{
	char path[4096];
	int master, status, cmd = 0;
	const char *line;
	pid_t pid;

	pk_test_build_path("probe-load", path, sizeof(path));
	out[0] = '\0';
	pid = forkpty(&master, NULL, NULL, NULL);
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl(path, path, "--pin-dir", dir, "--", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	/* the command may say it first, or probe-load */
	ck_assert_msg(pty_read_until(master, out, len, "ready"), "terminal: %s", out);
	while (!(line = strstr(out, "probekit: profiling pid ")) || !strchr(line, '\n'))
		ck_assert_msg(pty_read_some(master, out, len), "terminal: %s", out);
	ck_assert_int_eq(sscanf(line, "probekit: profiling pid %d", &cmd), 1);
	*foreground = tcgetpgrp(master) == getpgid(cmd);
	/* held (not sampled) until its exec; sh said "ready": sampled */
	ck_assert_int_eq(target_state(cmd), PK_TARGET_LIVE);
	ck_assert_int_eq(write(master, send, strlen(send)), (ssize_t)strlen(send));
	pty_read_until(master, out, len, NULL);	/* to the end */
	close(master);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* An interactive command keeps the terminal: it reads what is typed (in a
 * background process group it would be stopped by SIGTTIN), and the
 * terminal's Ctrl-C ends it, not probe-load, which reports 128 + SIGINT. */
START_TEST(test_command_keeps_terminal)
{
	char out[8192];
	bool fg = false;

	ck_assert_int_eq(on_terminal("echo ready; read line; echo \"got $line\"; exit 7",
				     "hello\n", out, sizeof(out), &fg), 7);
	ck_assert_msg(fg, "the command is not in the terminal's foreground");
	ck_assert_msg(strstr(out, "got hello"), "terminal: %s", out);
	LOAD_OK("--unload");

	fg = false;
	ck_assert_int_eq(on_terminal("echo ready; read line; echo not-interrupted", "\003",
				     out, sizeof(out), &fg), 128 + SIGINT);
	ck_assert(fg);
	ck_assert_msg(!strstr(out, "not-interrupted"), "terminal: %s", out);
	LOAD_OK("--unload");
}
END_TEST

/* --- a session stops once its targets are gone ---------------------------- */

/* The programs of the session's links, held open (so their counts can be
 * read after the links are gone). */
static int session_progs(int *fds, int max)
{
	__u32 ids[PK_MAX_CPUS + 16];
	int n = pinned_link_ids(ids, PK_MAX_CPUS + 16), k = 0;

	for (int i = 0; i < n && k < max; i++) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int link = bpf_link_get_fd_by_id(ids[i]), fd;

		ck_assert_int_ge(link, 0);
		ck_assert_int_eq(bpf_obj_get_info_by_fd(link, &info, &len), 0);
		close(link);
		for (fd = 0; fd < k; fd++) {
			struct bpf_prog_info pi = {};
			__u32 plen = sizeof(pi);

			ck_assert_int_eq(bpf_obj_get_info_by_fd(fds[fd], &pi, &plen), 0);
			if (pi.id == info.prog_id)
				break;
		}
		if (fd == k) {
			fds[k] = bpf_prog_get_fd_by_id(info.prog_id);
			ck_assert_int_ge(fds[k], 0);
			k++;
		}
	}
	return k;
}

/* How many times the programs ran, all together (kernel.bpf_stats). */
static __u64 run_count(const int *fds, int n)
{
	__u64 sum = 0;

	for (int i = 0; i < n; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		ck_assert_int_eq(bpf_obj_get_info_by_fd(fds[i], &info, &len), 0);
		sum += info.run_cnt;
	}
	return sum;
}

/* What would run every program of a session that still sampled: CPU time,
 * forks, execs, mmaps and exits. */
static void stir(void)
{
	__u64 end = pk_clock_ns(CLOCK_THREAD_CPUTIME_ID) + 300000000ULL;

	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(pk_test_run((char *const[]){ "sh", "-c", "true", NULL }, NULL,
					     NULL), 0);
	while (pk_clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

/* Kill PID and wait until it has exited (it need not be our child). */
static void kill_and_wait(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);
	struct pollfd p = { .fd = fd, .events = POLLIN };

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	while (poll(&p, 1, -1) < 0)
		ck_assert_int_eq(errno, EINTR);
	close(fd);
}

/* TARGET, the session's last target, is killed: within a second the links
 * are unpinned and the programs run no more, whatever happens on the
 * machine; the maps stay for probe-read until --unload. Exact, by the
 * kernel's own run counts (kernel.bpf_stats, on while STATS is open). */
static void check_stops(pid_t target)
{
	int fds[32], n, stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	__u32 ids[PK_MAX_CPUS + 16];
	const char *slow;
	__u64 before;

	ck_assert_int_ge(stats, 0);
	n = session_progs(fds, 32);
	ck_assert_int_gt(n, 0);
	/* it samples while the target lives: the timer's program runs on
	 * every CPU, the target running or not */
	before = run_count(fds, n);
	while (run_count(fds, n) == before)
		sleep_ms(10);
	ck_assert_int_gt(pinned_link_ids(ids, PK_MAX_CPUS + 16), 0);

	kill_and_wait(target);
	/* the bound promised, on a slow machine (a TCG guest of the kernel
	 * matrix) as many times longer as check's timeouts are */
	slow = getenv("CK_TIMEOUT_MULTIPLIER");
	sleep_ms(1000 * (slow ? atoi(slow) : 1));
	ck_assert_int_eq(pinned_link_ids(ids, PK_MAX_CPUS + 16), 0);
	ck_assert(pinned(PK_PIN_SESSION) && pinned(PK_PIN_EVENTS));
	before = run_count(fds, n);
	stir();
	ck_assert_uint_eq(run_count(fds, n), before);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	close(stats);
	LOAD_OK("--unload");
	ck_assert(!dir_exists());
}

/* A child of this test in a root of its own (chroot into ROOT), idle
 * until killed; once it is there. */
static pid_t rooted_child(const char *root)
{
	pid_t parent = getpid(), pid = fork();
	char link[64];
	struct stat want, at;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pk_test_die_with_parent(parent);
		if (chroot(root) || chdir("/"))
			_exit(1);
		for (;;)
			pause();
	}
	snprintf(link, sizeof(link), "/proc/%d/root", (int)pid);
	ck_assert_int_eq(stat(root, &want), 0);
	while (stat(link, &at) || at.st_ino != want.st_ino || at.st_dev != want.st_dev)
		sleep_ms(1);
	return pid;
}

/* The -p targets' roots are kept in the session (PK_PIN_ROOTS), for a
 * reader after they exited: a chroot's directory as the host reaches it;
 * a target in our own root has none; --unload takes the map too. */
START_TEST(test_targets_roots_kept)
{
	char root[64], in_root[16], at_home[16];
	struct pk_root_record rec;
	pid_t rooted, home;
	int fd;

	snprintf(root, sizeof(root), "/tmp/pk-load-root-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	rooted = rooted_child(root);
	home = spin_child();
	snprintf(in_root, sizeof(in_root), "%d", (int)rooted);
	snprintf(at_home, sizeof(at_home), "%d", (int)home);
	LOAD_OK("-p", in_root, "-p", at_home, "--unwind", "fp");
	fd = pk_pin_open(dir, PK_PIN_ROOTS);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pk_root_records_get(fd, rooted, &rec), 0);
	ck_assert_str_eq(rec.path, root);
	ck_assert_int_eq(pk_root_records_get(fd, home, &rec), -ENOENT);
	close(fd);
	kill_and_wait(rooted);
	kill_and_wait(home);
	LOAD_OK("--unload");
	ck_assert(!dir_exists());
	ck_assert_int_eq(rmdir(root), 0);
}
END_TEST

START_TEST(test_stops_when_pid_exits)
{
	pid_t target = spin_child();
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)target);
	LOAD_OK("-p", pid, "-e", "cpu-clock", "-e", "tracepoint:sched:sched_switch");
	check_stops(target);
	waitpid(target, NULL, 0);
}
END_TEST

/* -- CMD exits, its child lives on: sampling goes on until the child has
 * exited too. */
START_TEST(test_stops_when_command_exits)
{
	struct pk_session_fds fds;
	struct pk_session info;
	char *out, *err;
	__u32 child;

	ck_assert_int_eq(LOAD(&out, &err, "--", "sh", "-c", "sleep 60 >/dev/null 2>&1 & exit 0"),
			 0);
	free(out);
	free(err);
	ck_assert_int_eq(targets_count(), 1);
	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	ck_assert_int_eq(bpf_map_get_next_key(fds.targets, NULL, &child), 0);
	pk_session_close(&fds);
	check_stops(child);
}
END_TEST

/* The watcher of a session unloaded while its targets live goes with it. */
START_TEST(test_watcher_ends_with_unload)
{
	pid_t target = spin_child(), watcher = 0;
	char pid[16], path[300];
	struct dirent *de;
	DIR *d;

	snprintf(pid, sizeof(pid), "%d", (int)target);
	LOAD_OK("-p", pid);
	/* the watcher of our pin directory: probe-load's command line */
	d = opendir("/proc");
	ck_assert_ptr_nonnull(d);
	while (!watcher && (de = readdir(d))) {
		char *comm, *cmdline;
		size_t len;

		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		comm = pk_test_read_file(path, NULL);
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		cmdline = pk_test_read_file(path, &len);
		if (comm && cmdline && !strcmp(comm, "probekit-watch\n") &&
		    memmem(cmdline, len, dir, strlen(dir)))
			watcher = atoi(de->d_name);
		free(comm);
		free(cmdline);
	}
	closedir(d);
	ck_assert_int_gt(watcher, 0);
	ck_assert_int_ne(getsid(watcher), getsid(0));	/* out of our session */
	/* no signal held off, as probe-load held them while it loaded */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)watcher);
	{
		char *status = pk_test_read_file(path, NULL);

		ck_assert_ptr_nonnull(status);
		ck_assert_ptr_nonnull(strstr(status, "\nSigBlk:\t0000000000000000\n"));
		free(status);
	}
	LOAD_OK("--unload");
	{
		int fd = syscall(SYS_pidfd_open, watcher, 0);
		struct pollfd p = { .fd = fd, .events = POLLIN };

		/* gone, or going: its pidfd says when */
		if (fd >= 0) {
			ck_assert_int_eq(poll(&p, 1, 10000), 1);
			close(fd);
		}
	}
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
}
END_TEST

/* --table-memory: the tables stay within it; a file whose table does not
 * fit is refused in one line naming it and why (what it needs, what is
 * free, which option), and is left to frame pointers. clang-14 --version,
 * whose libclang-cpp and libLLVM need 11 MiB, under 1 MiB; the command's
 * files are kept while it has not mapped them yet. */
START_TEST(test_table_memory_limit)
{
	char *out, *err, path[4096];
	unsigned int refused = 0, rows;
	unsigned long long need, left, limit;
	struct pk_unwind_fds ufds;
	struct pk_unwind_alloc a;
	__u32 zero = 0;

	ck_assert_msg(access("/usr/bin/clang-14", X_OK) == 0, "needs clang-14");
	ck_assert_int_eq(LOAD(&out, &err, "--table-memory", "1M", "--", "/usr/bin/clang-14",
			      "--version"), 0);
	ck_assert_int_eq(pk_unwind_fds_open(dir, &ufds), 0);
	ck_assert_int_eq(bpf_map_lookup_elem(ufds.alloc, &zero, &a), 0);
	ck_assert_uint_eq(a.max_bytes, 1 << 20);
	ck_assert_uint_le(a.bytes, 1 << 20);
	ck_assert_uint_eq(a.freed, 0);
	for (const char *line = err; *line; line = strchrnul(line, '\n') + !!*strchrnul(line, '\n')) {
		struct stat st;
		struct pk_file_info fi;
		struct pk_file_key key;

		if (sscanf(line, "probe-load: %4095[^:]: unwind table refused: %u rows need %llu KiB "
			   "of kernel memory, %llu KiB free of %llu KiB (probe-load --table-memory)\n", path,
			   &rows, &need, &left, &limit) != 5)
			continue;
		refused++;
		ck_assert_uint_gt(need, left);
		ck_assert_uint_eq(limit, 1024);
		ck_assert_uint_ge(need * 1024, rows * 6ull);	/* 6 bytes a row at least */
		/* the file it names, marked refused in unwind_files */
		ck_assert_msg(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
		key = (struct pk_file_key){ pk_kernel_dev(major(st.st_dev), minor(st.st_dev)),
					    st.st_ino };
		ck_assert_int_eq(bpf_map_lookup_elem(ufds.files, &key, &fi), 0);
		ck_assert_uint_eq(fi.table, PK_TABLE_NONE);
		ck_assert_uint_eq(fi.flags, PK_FILE_REFUSED);
	}
	ck_assert_msg(refused > 0, "nothing refused under 1 MiB:\n%s", err);
	pk_unwind_fds_close(&ufds);
	free(out);
	free(err);
	LOAD_OK("--unload");
	ck_assert(!dir_exists());
}
END_TEST

/* --unwind dwarf (the default): one summary line that agrees with the maps,
 * the targets' files have their tables before sampling starts; --unwind fp:
 * no unwind maps pinned, nothing said. */
START_TEST(test_unwind_tables_and_fp)
{
	unsigned int tables, rows, built, hit, refused, all_tables, all_rows, all_rules, freed;
	unsigned long long bytes, all_kib, limit_kib, freed_kib;
	struct pk_unwind_fds ufds;
	struct pk_session_fds fds;
	struct pk_session info;
	struct pk_unwind_alloc a;
	struct pk_file_info fi;
	struct pk_file_key key;
	struct stat st;
	char pid[16], *out, *err, *summary;
	__u32 zero = 0;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	ck_assert_int_eq(LOAD(&out, &err, "-p", pid, "-j", "2"), 0);
	ck_assert_str_eq(out, "");
	summary = strstr(err, UNWIND_SUMMARY);
	ck_assert_ptr_nonnull(summary);
	ck_assert_ptr_null(strstr(summary + 1, UNWIND_SUMMARY));	/* once */
	ck_assert_int_eq(sscanf(summary, UNWIND_SUMMARY "%u tables, %u rows, %llu kernel bytes "
				"(%u built, %u cached, %u refused); in all %u tables, %u rows, "
				"%u rules, %llu KiB of %llu KiB kernel memory, %u given back "
				"(%llu KiB)\n", &tables, &rows, &bytes, &built, &hit, &refused,
				&all_tables, &all_rows, &all_rules, &all_kib, &limit_kib,
				&freed, &freed_kib), 13);
	ck_assert_str_eq(past_unwind_lines(err), "");
	free(out);
	free(err);

	ck_assert_int_eq(pk_unwind_fds_open(dir, &ufds), 0);
	ck_assert_int_eq(bpf_map_lookup_elem(ufds.alloc, &zero, &a), 0);
	ck_assert_uint_eq(a.tables, tables);
	ck_assert_uint_eq(a.live, tables);
	ck_assert_uint_eq(a.rows, rows);
	ck_assert_uint_eq(a.bytes, bytes);
	ck_assert_uint_eq(all_tables, tables);
	ck_assert_uint_eq(all_rows, rows);
	ck_assert_uint_eq(all_rules, a.rules);
	ck_assert_uint_eq(all_kib, bytes >> 10);
	ck_assert_uint_eq(limit_kib, 256 << 10);	/* the default --table-memory */
	ck_assert_uint_eq(freed + freed_kib, 0);
	ck_assert_uint_eq(built + hit, tables);
	ck_assert_uint_gt(tables, 1);	/* this program and libc at least */
	ck_assert_uint_eq(a.max_rows, 0);
	ck_assert_uint_eq(a.max_bytes, 256ull << 20);
	/* this program's file, keyed as the kernel sees it */
	ck_assert_int_eq(stat("/proc/self/exe", &st), 0);
	key = (struct pk_file_key){ pk_kernel_dev(major(st.st_dev), minor(st.st_dev)), st.st_ino };
	ck_assert_int_eq(bpf_map_lookup_elem(ufds.files, &key, &fi), 0);
	ck_assert_uint_lt(fi.table, a.tables);
	key = (struct pk_file_key){ PK_VDSO_DEV, PK_VDSO_INO };
	ck_assert_int_eq(bpf_map_lookup_elem(ufds.files, &key, &fi), 0);
	pk_unwind_fds_close(&ufds);
	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	pk_session_close(&fds);
	ck_assert(info.flags & PK_SESSION_DWARF);
	LOAD_OK("--unload");
	ck_assert(!dir_exists());

	/* fp: silent, no unwind pins */
	ck_assert_int_eq(LOAD(&out, &err, "-p", pid, "--unwind", "fp"), 0);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	for (int i = 0; i < PK_UNWIND_NMAPS; i++)
		ck_assert_msg(!pinned(pk_unwind_pins[i]), "%s pinned", pk_unwind_pins[i]);
	/* nor the code reports, which serve the tables */
	ck_assert(!pinned("links/exec") && !pinned("links/mmap"));
	ck_assert_int_eq(pk_unwind_fds_open(dir, &ufds), -ENOENT);
	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	pk_session_close(&fds);
	ck_assert(!(info.flags & (PK_SESSION_DWARF | PK_SESSION_PYTHON)));
	LOAD_OK("--unload");
	ck_assert(!dir_exists());
}
END_TEST

/* --- what the sampler delivers --------------------------------------------- */

struct delivered {
	__u64 n, bad_cpu, idle, other_pid, bad_size, sizes;
	__u64 bad_event;	/* not event 0 (the default), or no weight */
	__u64 mappings, no_table;	/* the unwinder's reports, beside samples */
	int cpu;
	pid_t pid;
};

/* What a sample's header must say its size is: its frames, and after them,
 * where the walk reached a file whose table was not loaded yet (a slow
 * machine's first samples), the registers and the user stack it copied. */
static size_t sample_size(const struct pk_sample *s)
{
	size_t frames_end = s->frames_off + (s->kstack_len + s->ustack_len) * 8;
	const struct pk_ustack_copy *c;

	if (!(s->hdr.flags & PK_SAMPLE_USTACK_COPY))
		return frames_end;
	if (s->copy_off < frames_end || s->copy_off + sizeof(*c) > s->hdr.size)
		return 0;
	c = (const void *)((const char *)s + s->copy_off);
	return s->copy_off + sizeof(*c) + c->len;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct delivered *d = ctx;
	const struct pk_sample *s = data;
	const struct pk_mapping_event *m = data;

	/* The DWARF walk reports mappings (and files without a table) before
	 * the samples that need them: whole records of their own size. */
	if (s->hdr.type == PK_EVENT_MAPPING || s->hdr.type == PK_EVENT_NO_TABLE) {
		size_t want = s->hdr.type == PK_EVENT_MAPPING ? sizeof(struct pk_mapping_event) :
								 sizeof(struct pk_no_table);

		if (s->hdr.size != want || size < want ||
		    (s->hdr.type == PK_EVENT_MAPPING && (m->vm_start >= m->vm_end ||
							 m->path_len >= sizeof(m->path))))
			d->bad_size++;
		else if (s->hdr.type == PK_EVENT_MAPPING)
			d->mappings++, d->other_pid += d->pid > 0 && m->pid != (__u32)d->pid;
		else
			d->no_table++;
		return 0;
	}
	d->n++;
	d->sizes += size;
	if (s->hdr.type != PK_EVENT_SAMPLE || s->frames_off != sizeof(*s) ||
	    s->hdr.size > size || s->hdr.size != sample_size(s) ||
	    s->kstack_len > PK_MAX_STACK_DEPTH || s->ustack_len > PK_MAX_STACK_DEPTH)
		d->bad_size++;
	/* cpu-clock's weight is its period: a frequency's, some nanoseconds */
	d->bad_event += s->event != 0 || s->weight == 0;
	d->bad_cpu += d->cpu >= 0 && s->cpu != (__u32)d->cpu;
	d->idle += s->tid == 0;
	d->other_pid += d->pid > 0 && s->pid != (__u32)d->pid;
	return 0;
}

static void drain(struct delivered *d)
{
	struct pk_session_fds fds;
	struct pk_session info;
	struct ring_buffer *rb;

	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	rb = ring_buffer__new(fds.events, on_sample, d, NULL);
	ck_assert_ptr_nonnull(rb);
	ck_assert_int_ge(ring_buffer__consume(rb), 0);
	ring_buffer__free(rb);
	pk_session_close(&fds);
}

START_TEST(test_cpu_and_idle_filters)
{
	struct delivered d = { .cpu = 0, .pid = -1 };
	struct pk_session_fds fds;
	struct pk_session info;
	__u64 c[PK_CNT__MAX];

	/* --no-python: the walk's knob and the session's flag off (the Python
	 * walk itself: suite python_bpf) */
	LOAD_OK("-C", "0", "--skip-idle", "-F", "997", "--no-python");
	ck_assert(pinned("links/e0-cpu0") && !pinned("links/e0-cpu1"));
	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	pk_session_close(&fds);
	ck_assert_uint_eq(info.flags, PK_SESSION_SKIP_IDLE | PK_SESSION_FILTER_CPU |
			  PK_SESSION_DWARF);
	ck_assert_int_eq(info.cpu, 0);
	ck_assert_uint_eq(info.ncpus, 1);
	/* Whether CPU 0 is ever idle meanwhile depends on the machine: the
	 * delivered samples must hold no idle one either way. */
	do {
		sleep_ms(10);
		read_counters(c);
	} while (c[PK_CNT_SAMPLES] + c[PK_CNT_FILTERED] < 50);
	drain(&d);
	ck_assert_uint_ge(d.n, c[PK_CNT_SAMPLES]);
	ck_assert_uint_eq(d.bad_size, 0);
	ck_assert_uint_eq(d.bad_event, 0);
	ck_assert_uint_eq(d.bad_cpu, 0);
	ck_assert_uint_eq(d.idle, 0);
	LOAD_OK("--unload");
}
END_TEST

START_TEST(test_pid_filter)
{
	struct delivered d = { .cpu = -1 };
	__u64 c[PK_CNT__MAX];
	char pid[16];

	d.pid = spin_child();
	snprintf(pid, sizeof(pid), "%d", (int)d.pid);
	LOAD_OK("-p", pid, "-F", "997");
	wait_counter(PK_CNT_SAMPLES, c);
	drain(&d);
	kill(d.pid, SIGKILL);
	waitpid(d.pid, NULL, 0);
	ck_assert_uint_gt(d.n, 0);
	ck_assert_uint_eq(d.bad_size, 0);
	ck_assert_uint_eq(d.bad_event, 0);
	ck_assert_uint_eq(d.other_pid, 0);
	/* the child's own mappings, reported for the DWARF walk */
	ck_assert_uint_gt(d.mappings, 0);
	LOAD_OK("--unload");
}
END_TEST

/* A one-page ring buffer nobody reads fills up: the rest is counted as
 * lost, never silently dropped. Each record takes at least its 8-byte
 * header and 56 + 8 bytes (one frame: the interrupted instruction). The
 * target is killed once the ring is full and before the count is read:
 * records differ in size (a stack copy takes kilobytes where no table is
 * loaded yet, as on a slow machine), so a full ring may still take a
 * smaller one. */
START_TEST(test_tiny_ringbuf_counts_losses)
{
	struct delivered d = { .cpu = -1 };
	long page = sysconf(_SC_PAGESIZE);
	char size[32], pid[16];
	__u64 c[PK_CNT__MAX];

	d.pid = spin_child();
	snprintf(size, sizeof(size), "%ld", page);
	snprintf(pid, sizeof(pid), "%d", (int)d.pid);
	LOAD_OK("--ringbuf-size", size, "-F", "4999", "-p", pid);
	wait_counter(PK_CNT_RINGBUF_FULL, c);
	kill(d.pid, SIGKILL);
	waitpid(d.pid, NULL, 0);
	read_counters(c);
	ck_assert_uint_gt(c[PK_CNT_SAMPLES], 0);
	ck_assert_uint_le(c[PK_CNT_SAMPLES], page / (8 + sizeof(struct pk_sample) + 8));
	drain(&d);
	ck_assert_uint_eq(d.other_pid, 0);
	ck_assert_uint_eq(d.n, c[PK_CNT_SAMPLES]);
	ck_assert_uint_eq(d.bad_size, 0);
	ck_assert_uint_eq(d.bad_event, 0);
	LOAD_OK("--unload");
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
	argv[n++] = dir;
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

	ck_assert_int_eq(pk_session_open(dir, &fds, &info), 0);
	ck_assert_uint_eq(info.nevents, 1);
	ck_assert_int_eq(pk_event_list_read(dir, &info, ev, &nev), 0);
	ck_assert_uint_eq(nev, 1);
	ck_assert_str_eq(ev[0].name, "cpu-clock");
	ck_assert_uint_eq(ev[0].kind, PK_EVK_PERF);
	pk_session_close(&fds);
	for (int cpu = 0; cpu < PK_MAX_CPUS; cpu++) {
		snprintf(name, sizeof(name), "links/e0-cpu%d", cpu);
		ck_assert_int_eq(pinned(name), online[cpu]);
	}
	ck_assert(!pinned("links/e1"));
	wait_counter(PK_CNT_SAMPLES, c);
	LOAD_OK("--unload");
	ck_assert(!dir_exists());
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
	ck_assert(!dir_exists());
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
	ck_assert(!dir_exists());
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
	ck_assert(!dir_exists());
	free(out);
	free(err);
}
END_TEST

static TCase *root_case(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_unchecked_fixture(tc, NULL, cleanup_all);
	tcase_set_timeout(tc, 20);	/* a hang's bound: waits wait until done */
	suite_add_tcase(s, tc);
	return tc;
}

Suite *suite_load_session(void)
{
	Suite *s = suite_create("load_session");
	TCase *tc;

	runner = getpid();
	if (!pk_test_need_root(s, "probe-load loads BPF programs"))
		return s;

	tc = root_case(s, "pins");
	tcase_add_test(tc, test_load_pins_settings_unload);
	tcase_add_test(tc, test_second_load_refused);
	tcase_add_test(tc, test_unload_nothing);
	tcase_add_test(tc, test_mounts_bpffs);

	tc = root_case(s, "refused");
	tcase_add_test(tc, test_refused_before_loading);
	tcase_add_test(tc, test_pin_dir_not_bpffs);
	tcase_add_test(tc, test_failed_exec_leaves_nothing);
	tcase_add_test(tc, test_interrupted_load_leaves_nothing);
	tcase_add_test(tc, test_not_root);

	tc = root_case(s, "refused_program");
	tcase_add_test(tc, test_refused_program_left_out);
	tcase_add_test(tc, test_refused_last_event);
	tcase_add_test(tc, test_refused_needed_program);
	tcase_add_test(tc, test_refused_verbose);

	tc = root_case(s, "targets");
	tcase_add_test(tc, test_targets_follow_fork_and_exit);
	tcase_add_test(tc, test_target_outlives_its_leader);
	tcase_add_test(tc, test_command_is_a_target);
	tcase_add_test(tc, test_targets_roots_kept);
	tcase_add_test(tc, test_unwind_tables_and_fp);
	tcase_add_test(tc, test_table_memory_limit);

	tc = root_case(s, "foreground");
	tcase_add_test(tc, test_command_exit_status);
	tcase_add_test(tc, test_command_keeps_terminal);

	tc = root_case(s, "stops");
	tcase_add_test(tc, test_stops_when_pid_exits);
	tcase_add_test(tc, test_stops_when_command_exits);
	tcase_add_test(tc, test_watcher_ends_with_unload);

	tc = root_case(s, "samples");
	tcase_add_test(tc, test_cpu_and_idle_filters);
	tcase_add_test(tc, test_pid_filter);
	tcase_add_test(tc, test_tiny_ringbuf_counts_losses);
	return s;
}
