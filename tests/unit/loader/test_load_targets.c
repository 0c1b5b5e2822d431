// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite load_session (test_load_session.c), the targets: how the targets
 * map follows forks, exits and a leader that exits first, a command and
 * the roots of a container; the unwind tables loaded for them and their
 * memory's limit; and a session that stops once its targets are gone.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
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
#include "unit/loader/load_run.h"

static int targets_count(void)
{
	struct pk_session_fds fds;
	struct pk_session info;
	int n;

	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	n = pk_targets_count(fds.targets);
	/* what probe-read asks to know when to stop */
	ck_assert_int_eq(pk_targets_empty(fds.targets), n == 0);
	pk_session_close(&fds);
	return n;
}

static bool is_target(pid_t pid)
{
	return pk_ld_target_state(pid) != 0;
}

static void wait_not_target(pid_t pid)
{
	for (int i = 0; i < 300 && is_target(pid); i++)
		pk_ld_sleep_ms(10);
	ck_assert_msg(!is_target(pid), "%d is still a target", (int)pid);
}

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
	ck_assert(pk_ld_pinned("links/fork") && pk_ld_pinned("links/exit"));
	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
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
		pk_ld_sleep_ms(10);
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
	ck_assert_int_eq(sscanf(pk_ld_past_unwind_lines(err), "probekit: profiling pid %d\n",
				&pid), 1);
	snprintf(expect, sizeof(expect), "probekit: profiling pid %d\n", pid);
	ck_assert_str_eq(pk_ld_past_unwind_lines(err), expect);
	snprintf(expect, sizeof(expect), "from-cmd %d\n", pid);
	ck_assert_str_eq(out, expect);
	free(out);
	free(err);

	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	pk_session_close(&fds);
	ck_assert_uint_eq(info.flags, PK_SESSION_FILTER_PIDS | PK_SESSION_COMMAND |
			  PK_SESSION_DWARF | PK_SESSION_PYTHON);
	ck_assert_uint_eq(info.ntargets, 1);
	wait_not_target(pid);
	ck_assert_int_eq(targets_count(), 0);
	LOAD_OK("--unload");
}
END_TEST

/* --- a session stops once its targets are gone ---------------------------- */

/* The programs of the session's links, held open (so their counts can be
 * read after the links are gone). */
static int session_progs(int *fds, int max)
{
	__u32 ids[PK_MAX_CPUS + 16];
	int n = pk_ld_pinned_link_ids(ids, PK_MAX_CPUS + 16), k = 0;

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
		pk_ld_sleep_ms(10);
	ck_assert_int_gt(pk_ld_pinned_link_ids(ids, PK_MAX_CPUS + 16), 0);

	kill_and_wait(target);
	/* the bound promised, on a slow machine (a TCG guest of the kernel
	 * matrix) as many times longer as check's timeouts are */
	slow = getenv("CK_TIMEOUT_MULTIPLIER");
	pk_ld_sleep_ms(1000 * (slow ? atoi(slow) : 1));
	ck_assert_int_eq(pk_ld_pinned_link_ids(ids, PK_MAX_CPUS + 16), 0);
	ck_assert(pk_ld_pinned(PK_PIN_SESSION) && pk_ld_pinned(PK_PIN_EVENTS));
	before = run_count(fds, n);
	stir();
	ck_assert_uint_eq(run_count(fds, n), before);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	close(stats);
	LOAD_OK("--unload");
	ck_assert(!pk_ld_dir_exists());
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
		pk_ld_sleep_ms(1);
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
	home = pk_ld_spin_child();
	snprintf(in_root, sizeof(in_root), "%d", (int)rooted);
	snprintf(at_home, sizeof(at_home), "%d", (int)home);
	LOAD_OK("-p", in_root, "-p", at_home, "--unwind", "fp");
	fd = pk_pin_open(pk_ld_dir, PK_PIN_ROOTS);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pk_root_records_get(fd, rooted, &rec), 0);
	ck_assert_str_eq(rec.path, root);
	ck_assert_int_eq(pk_root_records_get(fd, home, &rec), -ENOENT);
	close(fd);
	kill_and_wait(rooted);
	kill_and_wait(home);
	LOAD_OK("--unload");
	ck_assert(!pk_ld_dir_exists());
	ck_assert_int_eq(rmdir(root), 0);
}
END_TEST

START_TEST(test_stops_when_pid_exits)
{
	pid_t target = pk_ld_spin_child();
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
	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	ck_assert_int_eq(bpf_map_get_next_key(fds.targets, NULL, &child), 0);
	pk_session_close(&fds);
	check_stops(child);
}
END_TEST

/* The watcher of a session unloaded while its targets live goes with it. */
START_TEST(test_watcher_ends_with_unload)
{
	pid_t target = pk_ld_spin_child(), watcher = 0;
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
		    memmem(cmdline, len, pk_ld_dir, strlen(pk_ld_dir)))
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
	ck_assert_int_eq(pk_unwind_fds_open(pk_ld_dir, &ufds), 0);
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
	ck_assert(!pk_ld_dir_exists());
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
	ck_assert_str_eq(pk_ld_past_unwind_lines(err), "");
	free(out);
	free(err);

	ck_assert_int_eq(pk_unwind_fds_open(pk_ld_dir, &ufds), 0);
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
	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	pk_session_close(&fds);
	ck_assert(info.flags & PK_SESSION_DWARF);
	LOAD_OK("--unload");
	ck_assert(!pk_ld_dir_exists());

	/* fp: silent, no unwind pins */
	ck_assert_int_eq(LOAD(&out, &err, "-p", pid, "--unwind", "fp"), 0);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	for (int i = 0; i < PK_UNWIND_NMAPS; i++)
		ck_assert_msg(!pk_ld_pinned(pk_unwind_pins[i]), "%s pinned", pk_unwind_pins[i]);
	/* nor the code reports, which serve the tables */
	ck_assert(!pk_ld_pinned("links/exec") && !pk_ld_pinned("links/mmap"));
	ck_assert_int_eq(pk_unwind_fds_open(pk_ld_dir, &ufds), -ENOENT);
	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	pk_session_close(&fds);
	ck_assert(!(info.flags & (PK_SESSION_DWARF | PK_SESSION_PYTHON)));
	LOAD_OK("--unload");
	ck_assert(!pk_ld_dir_exists());
}
END_TEST

void pk_ld_targets_tcase(Suite *s)
{
	TCase *tc = pk_ld_root_case(s, "targets");

	tcase_add_test(tc, test_targets_follow_fork_and_exit);
	tcase_add_test(tc, test_target_outlives_its_leader);
	tcase_add_test(tc, test_command_is_a_target);
	tcase_add_test(tc, test_targets_roots_kept);
	tcase_add_test(tc, test_unwind_tables_and_fp);
	tcase_add_test(tc, test_table_memory_limit);
}

void pk_ld_stops_tcase(Suite *s)
{
	TCase *tc = pk_ld_root_case(s, "stops");

	tcase_add_test(tc, test_stops_when_pid_exits);
	tcase_add_test(tc, test_stops_when_command_exits);
	tcase_add_test(tc, test_watcher_ends_with_unload);
}
