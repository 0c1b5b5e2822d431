// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "integration/ftrace_count.h"
#include "integration/profile_session.h"
#include "lib/session.h"
#include "lib/session_lock.h"
#include "lib/util/clock.h"
#include "test_util.h"

#define PIN_PREFIX "/sys/fs/bpf/probekit-test-"

/* Set in the runner before check forks the test, so every test process of a
 * run shares one prefix and the runner can clean up after all of them. */
static pid_t runner_pid;
static char pin_dir[128];

const char *pk_e2e_pin_dir(void)
{
	if (!runner_pid)
		runner_pid = getpid();
	if (!pin_dir[0])
		snprintf(pin_dir, sizeof(pin_dir), PIN_PREFIX "%d-%d",
			 (int)runner_pid, (int)getpid());
	return pin_dir;
}

void pk_e2e_cleanup_all(void)
{
	char cmd[256];

	if (!runner_pid)
		runner_pid = getpid();
	/* Unpinning a link detaches it: removing the directories is the unload. */
	snprintf(cmd, sizeof(cmd), "rm -rf " PIN_PREFIX "%d-*", (int)runner_pid);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup failed: %s\n", cmd);
	pk_ftrace_count_cleanup(runner_pid);
}

/* In the runner, before check forks: the prefix only. Each test process
 * names its own directory (its pid), so that a test failing before its
 * unload leaves its session to pk_e2e_cleanup_all, not to the next test. */
static void e2e_setup(void)
{
	if (!runner_pid)
		runner_pid = getpid();
}

TCase *pk_e2e_tcase(Suite *s, const char *name, double timeout)
{
	TCase *tc = tcase_create(name);

	tcase_add_unchecked_fixture(tc, e2e_setup, pk_e2e_cleanup_all);
	tcase_set_timeout(tc, timeout);
	suite_add_tcase(s, tc);
	return tc;
}

bool pk_e2e_one_line(const char *text)
{
	const char *nl = strchr(text, '\n');

	return nl && nl[1] == '\0';
}

const char *pk_e2e_fixture(const char *name)
{
	static char path[4096];
	char rel[256];

	snprintf(rel, sizeof(rel), "fixtures/%s", name);
	return pk_test_build_path(rel, path, sizeof(path));
}

const char *pk_e2e_fixture_nofp(const char *name, char *buf, size_t len)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "fixtures_nofp/%s", name);
	return pk_test_build_path(rel, buf, len);
}

bool pk_e2e_parse_user_stacks(const char *err, double *complete, double *no_table)
{
	const char *line = err ? strstr(err, "user stacks: ") : NULL;

	*complete = *no_table = -1;
	if (!line)
		return false;
	if (sscanf(line, "user stacks: %lf%% complete, %lf%% no table yet", complete,
		   no_table) < 1)
		return false;
	return true;
}

/* argv = PROGRAM --pin-dir DIR ARGS... NULL */
static char **tool_argv(const char *tool, const char *const args[], char *path,
			size_t len)
{
	size_t n = 0, i;
	char **argv;

	while (args && args[n])
		n++;
	argv = calloc(n + 4, sizeof(*argv));
	argv[0] = (char *)pk_test_build_path(tool, path, len);
	argv[1] = "--pin-dir";
	argv[2] = (char *)pk_e2e_pin_dir();
	for (i = 0; i < n; i++)
		argv[3 + i] = (char *)args[i];
	return argv;
}

static int run_tool(const char *tool, const char *const args[], char **out,
		    char **err)
{
	char path[4096];
	char **argv = tool_argv(tool, args, path, sizeof(path));
	int status = pk_test_run(argv, out, err);

	free(argv);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

#define LOADED_LINE	"probekit: profiling pid "

/*
 * Until probe-load exited (its status) or, with -- CMD, released the
 * command (0: it waits for the command in the foreground, as the caller's
 * child, while the test reads). The log is a file, not a pipe: the command
 * writes to it as long as it runs.
 */
static int wait_loaded(pid_t pid, const char *log)
{
	int status;

	for (;;) {
		char *text;
		bool loaded;

		if (pid < 0)
			return -1;
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		text = pk_test_read_file(log, NULL);
		loaded = text && strstr(text, LOADED_LINE);
		free(text);
		if (loaded)
			return 0;
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
}

/*
 * probe-load -- CMD hands its stdout and stderr to the command and waits for
 * it: capture into a file, not a pipe, and return once the command is
 * released, so that the test reads while it runs.
 */
/* The log of the last probe-load started, kept until pk_e2e_unload():
 * with -- CMD it goes on writing there while the command runs. */
static char load_log[32];
static bool atexit_set;

static void load_log_remove(void)
{
	if (load_log[0])
		unlink(load_log);
	load_log[0] = '\0';
}

char *pk_e2e_load_log(void)
{
	return load_log[0] ? pk_test_read_file(load_log, NULL) : NULL;
}

int pk_e2e_load_err(const char *const args[], char **err)
{
	char path[4096];
	char **argv = tool_argv("probe-load", args, path, sizeof(path));
	int fd, rc;
	char *text;

	*err = NULL;
	load_log_remove();
	if (!atexit_set)	/* a test that ends without pk_e2e_unload() */
		atexit_set = !atexit(load_log_remove);
	snprintf(load_log, sizeof(load_log), "/tmp/pk-load-XXXXXX");
	fd = mkstemp(load_log);
	if (fd < 0) {
		load_log[0] = '\0';
		free(argv);
		return -1;
	}
	close(fd);
	rc = wait_loaded(pk_test_spawn(argv, load_log), load_log);
	text = pk_test_read_file(load_log, NULL);
	if (rc) {
		fprintf(stderr, "probe-load exited %d: %s", rc, text ? text : "");
		load_log_remove();	/* it has exited: all of it is in TEXT */
	}
	free(argv);
	*err = text;
	return rc;
}

int pk_e2e_load(const char *const args[])
{
	char *err;
	int rc = pk_e2e_load_err(args, &err);

	free(err);
	return rc;
}

int pk_e2e_load_wait(const char *const args[])
{
	char path[4096];
	char **argv = tool_argv("probe-load", args, path, sizeof(path));
	int status = pk_test_wait(pk_test_spawn(argv, NULL));

	free(argv);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int pk_e2e_read(const char *const args[], char **out, char **err)
{
	return run_tool("probe-read", args, out, err);
}

struct pk_e2e_waiting pk_e2e_start_waiting(const char *path)
{
	return pk_e2e_start_waiting_with(path, NULL);
}

struct pk_e2e_waiting pk_e2e_start_waiting_with(const char *path, const char *const extra[])
{
	struct pk_e2e_waiting w;
	pid_t parent = getpid();
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	w.pid = fork();
	ck_assert_int_ge(w.pid, 0);
	if (w.pid == 0) {
		pk_test_die_with_parent(parent);
		dup2(p[0], 0);
		close(p[0]);
		close(p[1]);
		const char *argv[16] = { path, "--wait" };
		size_t n = 2;

		for (size_t i = 0; extra && extra[i] && n < 15; i++)
			argv[n++] = extra[i];
		argv[n] = NULL;
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(p[0]);
	w.release_fd = p[1];
	return w;
}

void pk_e2e_release(struct pk_e2e_waiting *w)
{
	ck_assert_int_eq(write(w->release_fd, "g", 1), 1);
	close(w->release_fd);
	ck_assert_int_eq(pk_test_wait(w->pid), 0);
}

pid_t pk_e2e_spawn_read(const char *const args[], const char *log)
{
	char path[4096];
	char **argv = tool_argv("probe-read", args, path, sizeof(path));
	pid_t pid = pk_test_spawn(argv, log);

	free(argv);
	return pid;
}

void pk_e2e_counters(__u64 cnt[PK_CNT__MAX])
{
	struct pk_session_fds fds;
	struct pk_session info;

	ck_assert_int_eq(pk_session_open(pk_e2e_pin_dir(), &fds, &info), 0);
	ck_assert_int_eq(pk_counters_read(fds.counters, cnt), 0);
	pk_session_close(&fds);
}

int pk_e2e_unload(void)
{
	const char *args[] = { "--unload", NULL };

	load_log_remove();
	return run_tool("probe-load", args, NULL, NULL);
}

bool pk_e2e_parse_summary(const char *err, struct pk_e2e_summary *sum)
{
	const char *line = err ? strstr(err, "samples read") : NULL;

	if (!line)
		return false;
	/* back to the start of the line */
	while (line > err && line[-1] != '\n')
		line--;
	return sscanf(line, "probe-read: %llu samples read, %llu lost (ring buffer full), %llu failed stacks",
		      &sum->read, &sum->lost, &sum->failed) == 3;
}

#define MAX_HELD	4096

static __u32 held[MAX_HELD];	/* link ids pinned outside our pin directory */
static int nheld;

static int note_held(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(pk_e2e_pin_dir());
	char fdpath[64], target[64];
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	ssize_t tn;
	int fd;

	if (type == FTW_D && !strncmp(path, pk_e2e_pin_dir(), n) && (!path[n] || path[n] == '/'))
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F || nheld == MAX_HELD)
		return FTW_CONTINUE;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return FTW_CONTINUE;	/* went away meanwhile, or not ours to open */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	tn = readlink(fdpath, target, sizeof(target) - 1);
	target[tn > 0 ? tn : 0] = '\0';
	memset(&info, 0, sizeof(info));
	if (!strcmp(target, "anon_inode:bpf-link") && bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
		held[nheld++] = info.id;
	close(fd);
	return FTW_CONTINUE;
}

/* PID still runs: it has a /proc entry and is no zombie (a command
 * probe-load started is reaped by whoever inherited it). */
static bool still_runs(__u32 pid)
{
	char path[64], *text, *p;
	bool runs;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	text = pk_test_read_file(path, NULL);
	if (!text)
		return false;
	p = strrchr(text, ')');	/* comm may hold spaces */
	runs = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	free(text);
	return runs;
}

double pk_e2e_cpu_s(pid_t pid)
{
	struct timespec ts;
	clockid_t clock;

	if (clock_getcpuclockid(pid, &clock) || clock_gettime(clock, &ts))
		return -1;
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The session's targets that still run, and the CPU time they used. */
struct targets_now {
	unsigned int running;
	double cpu_s;
};

static int targets_scan(int fd, struct targets_now *t)
{
	__u32 key, next;
	bool first = true;

	memset(t, 0, sizeof(*t));
	while (bpf_map_get_next_key(fd, first ? NULL : &key, &next) == 0) {
		double cpu = still_runs(next) ? pk_e2e_cpu_s((pid_t)next) : -1;

		if (cpu >= 0) {
			t->running++;
			t->cpu_s += cpu;
		}
		key = next;
		first = false;
	}
	return 0;
}

/* Poll the session's targets every 50 ms until DONE says so, for at most
 * TIMEOUT seconds: 0, or -ETIMEDOUT (or another negative errno). */
static int wait_targets(bool (*done)(const struct targets_now *, double), double arg,
			double timeout)
{
	char path[256];
	double end = pk_now_s() + timeout;
	int fd, ret = -ETIMEDOUT;

	snprintf(path, sizeof(path), "%s/%s", pk_e2e_pin_dir(), PK_PIN_TARGETS);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	while (pk_now_s() < end) {
		struct targets_now t;

		targets_scan(fd, &t);
		if (done(&t, arg)) {
			ret = 0;
			break;
		}
		usleep(50 * 1000);
	}
	close(fd);
	return ret;
}

static bool all_exited(const struct targets_now *t, double unused)
{
	(void)unused;
	return t->running == 0;
}

int pk_e2e_wait_targets_exit(double timeout)
{
	return wait_targets(all_exited, 0, timeout);
}

static bool used_cpu(const struct targets_now *t, double secs)
{
	return t->running == 0 || t->cpu_s >= secs;
}

int pk_e2e_wait_targets_cpu(double secs, double timeout)
{
	return wait_targets(used_cpu, secs, timeout);
}

int pk_e2e_signal_targets(int sig)
{
	char path[256];
	__u32 key, next;
	bool first = true;
	int fd, n = 0;

	snprintf(path, sizeof(path), "%s/%s", pk_e2e_pin_dir(), PK_PIN_TARGETS);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	while (bpf_map_get_next_key(fd, first ? NULL : &key, &next) == 0) {
		if (still_runs(next) && kill((pid_t)next, sig) == 0)
			n++;
		key = next;
		first = false;
	}
	close(fd);
	return n;
}

int pk_e2e_wait_cpu(pid_t pid, double secs, double timeout)
{
	double end = pk_now_s() + timeout, cpu;

	while ((cpu = pk_e2e_cpu_s(pid)) >= 0 && cpu < secs) {
		if (pk_now_s() >= end)
			return -ETIMEDOUT;
		usleep(50 * 1000);
	}
	return cpu < 0 ? -ESRCH : 0;
}

int pk_e2e_wait_more_cpu(pid_t pid, double secs, double timeout)
{
	double cpu = pk_e2e_cpu_s(pid);

	return cpu < 0 ? -ESRCH : pk_e2e_wait_cpu(pid, cpu + secs, timeout);
}

int pk_e2e_perf_links(void)
{
	__u32 id = 0;
	int n = 0;

	nheld = 0;
	nftw("/sys/fs/bpf", note_held, 16, FTW_PHYS | FTW_ACTIONRETVAL);
	while (bpf_link_get_next_id(id, &id) == 0) {
		struct bpf_link_info info;
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);
		bool other = false;

		if (fd < 0)
			continue;	/* went away meanwhile */
		for (int i = 0; i < nheld && !other; i++)
			other = held[i] == id;
		memset(&info, 0, sizeof(info));
		if (!other && bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    info.type == BPF_LINK_TYPE_PERF_EVENT)
			n++;
		close(fd);
	}
	return n;
}

/*
 * flamegraph.pl reads a line as /^(.*)\s+?(\d+(?:\.\d*)?)$/ and splits the
 * stack on ';'. probekit promises more: integer counts, a single space before
 * the count, no empty frame and no control characters.
 */
static bool parse_line(char *line, struct pk_folded_line *fl)
{
	char *sp = strrchr(line, ' '), *end, *frame, *p;
	unsigned long count;

	if (!sp || sp == line || sp[1] == '\0')
		return false;
	errno = 0;
	count = strtoul(sp + 1, &end, 10);
	if (errno || *end || count == 0 || sp[1] < '0' || sp[1] > '9')
		return false;
	*sp = '\0';
	for (p = line; *p; p++)
		if ((unsigned char)*p < 0x20)
			return false;
	for (frame = line;; frame = p + 1) {
		p = strchrnul(frame, ';');
		if (p == frame)
			return false;	/* empty frame */
		if (!*p)
			break;
	}
	fl->stack = strdup(line);
	fl->count = count;
	return true;
}

bool pk_folded_parse(const char *text, struct pk_folded *f, const char **bad_line)
{
	char *copy = strdup(text ? text : ""), *save = NULL, *line;
	bool ok = true;

	memset(f, 0, sizeof(*f));
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct pk_folded_line fl;

		if (!parse_line(line, &fl)) {
			static char bad[512];

			snprintf(bad, sizeof(bad), "%s", line);
			if (bad_line)
				*bad_line = bad;
			ok = false;
			break;
		}
		f->lines = realloc(f->lines, (f->n + 1) * sizeof(*f->lines));
		f->lines[f->n++] = fl;
	}
	free(copy);
	return ok;
}

void pk_folded_free(struct pk_folded *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->lines[i].stack);
	free(f->lines);
	memset(f, 0, sizeof(*f));
}

unsigned long pk_folded_total(const struct pk_folded *f, const char *comm)
{
	size_t len = strlen(comm);
	unsigned long total = 0;

	for (size_t i = 0; i < f->n; i++)
		if (!strncmp(f->lines[i].stack, comm, len) &&
		    (f->lines[i].stack[len] == ';' || !f->lines[i].stack[len]))
			total += f->lines[i].count;
	return total;
}

/* The pid holding the session's reader lock, 0 when none does. */
pid_t pk_e2e_lock_holder(void)
{
	char path[4096];
	pid_t pid;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pk_e2e_pin_dir(), PK_PIN_LINKS_DIR);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	pid = pk_flock_holder(fd);
	close(fd);
	return pid > 0 ? pid : 0;
}

/* Until READER holds the session (it opens it after starting up). */
void pk_e2e_wait_holder(pid_t reader)
{
	double t0 = pk_now_s();
	int status;

	while (pk_e2e_lock_holder() != reader) {
		ck_assert_msg(waitpid(reader, &status, WNOHANG) == 0,
			      "the reader exited before it held the session");
		ck_assert_msg(pk_now_s() - t0 < 60, "the reader never held the session");
		usleep(10000);
	}
}
