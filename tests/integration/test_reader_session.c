// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end: a session and its reader. One reader at a time: a second is
 * refused with the first one's pid, and the first loses and repeats
 * nothing; a reader killed with SIGKILL frees the session at once. The
 * time each format says it holds, with the backlog and with --from-now,
 * against the samples' own timestamps (perf text). A reader ends, its
 * samples written, when its session is unloaded from another shell.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "harness/oracles.h"
#include "harness/pprof_decode.h"
#include "harness/pprof_raw.h"
#include "integration/profile_session.h"
#include "lib/boot_id.h"
#include "lib/kallsyms.h"
#include "lib/session.h"
#include "lib/session_lock.h"
#include "lib/util/clock.h"
#include "test_util.h"

#define FREQ_STR	"99"

static const char *const *fixture_load(void)
{
	static const char *load[] = { "-F", FREQ_STR, "--", NULL, "3", NULL };

	load[3] = pk_e2e_fixture("fp_chain");
	return load;
}

/* The samples of perf text: how many, the first and last timestamp (in
 * microseconds, as printed), and whether one (thread, time) came twice. */
struct perf_times {
	size_t n;
	unsigned long long min_us, max_us;
	bool dup;
};

static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

static void perf_times(const char *text, struct perf_times *t)
{
	unsigned long long *keys = NULL;

	memset(t, 0, sizeof(*t));
	for (const char *line = text; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
		unsigned long long s, us, key;
		const char *br = NULL, *slash;
		unsigned int tid;

		if (*line == '\t' || *line == '\n')
			continue;
		/* "COMM PID/TID [CPU] S.US: PERIOD EVENT:" (COMM may hold
		 * anything; the last " [" on the line is the CPU's) */
		for (const char *p = line; *p && *p != '\n'; p++)
			if (p[0] == ' ' && p[1] == '[')
				br = p;
		ck_assert_msg(br, "not a perf sample header: %.80s", line);
		for (slash = br; slash > line && *slash != '/'; slash--)
			;
		ck_assert_int_eq(sscanf(slash, "/%u", &tid), 1);
		ck_assert_int_eq(sscanf(strchr(br, ']') + 1, " %llu.%6llu:", &s, &us), 2);
		us += s * 1000000;
		key = (unsigned long long)tid << 44 ^ us;	/* us < 2^44: 200 days */
		keys = pk_test_grow(keys, t->n + 1, sizeof(*keys));
		keys[t->n++] = key;
		if (t->n == 1 || us < t->min_us)
			t->min_us = us;
		if (us > t->max_us)
			t->max_us = us;
	}
	qsort(keys, t->n, sizeof(*keys), cmp_u64);
	for (size_t i = 1; i < t->n; i++)
		t->dup |= keys[i] == keys[i - 1];
	free(keys);
}

static void expect_exit_0(pid_t pid)
{
	int status = pk_test_wait(pid);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "probe-read ended with status %#x", status);
}

/*
 * The recipe: a reader runs, a second one starts. The second is
 * refused in one line naming the first's pid, exit 2, without a file; the
 * first reads every sample the kernel took, each once.
 */
START_TEST(test_second_reader_refused)
{
	char dir[] = "/tmp/pk-readers-XXXXXX", p1[256], p2[256], log[256], expect[512];
	const char *first[] = { "-f", "perf", "-o", p1, NULL };
	const char *second[] = { "-d", "1", "-f", "perf", "-o", p2, NULL };
	char *out = NULL, *err = NULL, *text, *log_text;
	struct pk_e2e_summary sum;
	struct perf_times t;
	__u64 cnt[PK_CNT__MAX];
	pid_t reader;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p1, sizeof(p1), "%s/first.txt", dir);
	snprintf(p2, sizeof(p2), "%s/second.txt", dir);
	snprintf(log, sizeof(log), "%s/first.log", dir);
	ck_assert_int_eq(pk_e2e_load(fixture_load()), 0);
	reader = pk_e2e_spawn_read(first, log);
	ck_assert_int_gt(reader, 0);
	pk_e2e_wait_holder(reader);
	/* the second comes while the first reads a sampled target */
	ck_assert_int_eq(pk_e2e_wait_targets_cpu(1.0, 60), 0);
	ck_assert_int_eq(pk_e2e_read(second, &out, &err), 2);
	snprintf(expect, sizeof(expect),
		 "probe-read: the session at %s already has a reader, pid %d: one reader per session\n",
		 pk_e2e_pin_dir(), (int)reader);
	ck_assert_str_eq(err, expect);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(access(p2, F_OK), -1);
	/* the first stops when the fixture has exited, all read */
	ck_assert_int_eq(pk_e2e_wait_targets_exit(60), 0);
	expect_exit_0(reader);
	pk_e2e_counters(cnt);
	ck_assert_int_eq(pk_e2e_unload(), 0);

	text = pk_test_read_file(p1, NULL);
	log_text = pk_test_read_file(log, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(pk_e2e_parse_summary(log_text, &sum), "no summary in: %s", log_text);
	perf_times(text, &t);
	fprintf(stderr, "two readers: the first read %llu samples, the kernel took %llu\n",
		sum.read, (unsigned long long)cnt[PK_CNT_SAMPLES]);
	ck_assert_uint_gt(sum.read, 150);	/* 3 s of CPU time at 99 Hz */
	ck_assert_uint_eq(sum.read, cnt[PK_CNT_SAMPLES]);
	ck_assert_uint_eq(cnt[PK_CNT_RINGBUF_FULL], 0);
	ck_assert_uint_eq(t.n, sum.read);
	ck_assert_msg(!t.dup, "a sample written twice");
	unlink(p1);
	unlink(log);
	rmdir(dir);
	free(text);
	free(log_text);
	free(out);
	free(err);
}
END_TEST

/* A process that sleeps until the test kills it: a target that never
 * exits on its own, and takes no CPU time. */
static pid_t sleeper(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		pk_test_die_with_parent(parent);
		pause();
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	return pid;
}

/* A reader killed with SIGKILL runs no cleanup: the kernel's lock goes
 * with it, and the next reader reads at once. */
START_TEST(test_killed_reader_frees_session)
{
	const char *args[] = { "-d", "0.1", NULL };
	pid_t target = sleeper(), reader;
	char pid[16], *out = NULL, *err = NULL;
	const char *load[] = { "-p", pid, NULL };
	int status;

	snprintf(pid, sizeof(pid), "%d", (int)target);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	reader = pk_e2e_spawn_read((const char *const[]){ NULL }, NULL);
	ck_assert_int_gt(reader, 0);
	pk_e2e_wait_holder(reader);
	kill(reader, SIGKILL);
	status = pk_test_wait(reader);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_int_eq(pk_e2e_lock_holder(), 0);
	ck_assert_msg(pk_e2e_read(args, &out, &err) == 0, "the next reader failed: %s", err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	kill(target, SIGKILL);
	pk_test_wait(target);
	free(out);
	free(err);
}
END_TEST

/* A child that enters the kernel without end (getppid(2)): sampled at its
 * syscall's tracepoint, every stack is the kernel's too. */
static pid_t syscaller(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		pk_test_die_with_parent(parent);
		for (;;)
			syscall(SYS_getppid);
	}
	ck_assert_int_gt(pid, 0);
	return pid;
}

/* probe-read -d 1 -o OUT with the cache CACHE; with PART, under
 * tests/preload/crash_write.so: dies of SIG halfway through the first
 * write to a file whose path holds PART. Its wait status. */
static int crash_read(const char *cache, const char *out, const char *part, int sig)
{
	char path[4096], preload[4200], env_cache[4200], env_part[128], env_sig[32], asan[512],
	     read[4096];
	const char *prev = getenv("ASAN_OPTIONS");
	char *argv[16] = { "env" };
	int n = 1;

	snprintf(env_cache, sizeof(env_cache), "PROBEKIT_CACHE_DIR=%s", cache);
	argv[n++] = env_cache;
	if (part) {
		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s",
			 pk_test_build_path("preload/crash_write.so", path, sizeof(path)));
		ck_assert_msg(access(path, R_OK) == 0, "%s: not built", path);
		snprintf(env_part, sizeof(env_part), "PK_CRASH_FILE=%s", part);
		snprintf(env_sig, sizeof(env_sig), "PK_CRASH_SIGNAL=%d", sig);
		/* the sanitizers' runtime no longer comes first */
		snprintf(asan, sizeof(asan), "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
			 prev ? prev : "", prev && *prev ? ":" : "");
		argv[n++] = preload;
		argv[n++] = env_part;
		argv[n++] = env_sig;
		argv[n++] = asan;
	}
	argv[n++] = (char *)pk_test_build_path("probe-read", read, sizeof(read));
	argv[n++] = "--pin-dir";
	argv[n++] = (char *)pk_e2e_pin_dir();
	argv[n++] = "-d";
	argv[n++] = "1";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n] = NULL;
	return pk_test_run(argv, NULL, NULL);
}

/* Whether a file under DIR whose name holds PART is not empty: the crash
 * came halfway through writing it (the temporary file is left behind). */
static bool half_written_in(const char *dir, const char *part)
{
	char cmd[512], *list = NULL;
	char *const sh[] = { "sh", "-c", cmd, NULL };
	bool found;

	snprintf(cmd, sizeof(cmd), "find '%s' -name '*%s*' -size +0c", dir, part);
	ck_assert_int_eq(pk_test_run(sh, &list, NULL), 0);
	found = list && *list;
	free(list);
	return found;
}

/*
 * A reader that dies of a fatal signal (SIGSEGV, or SIGABRT as glibc's
 * heap checks raise it) halfway through writing a file runs no cleanup,
 * as one killed by SIGKILL: its status says so (never 0: a pipeline under
 * pipefail sees it), the kernel frees its session at once, and what it
 * was writing, the kernel's symbol table kept for the next readers or its
 * -o file, is not under that file's name, half-written: the next reader
 * reads at once and keeps a whole table the one after it reads back.
 */
static const struct {
	const char *part;	/* the file the reader dies writing */
	int sig;
} crashes[] = {
	{ ".syms.tmp.", SIGSEGV },
	{ ".syms.tmp.", SIGABRT },
	{ "out.folded.", SIGSEGV },
	{ "out.folded.", SIGABRT },
};

START_TEST(test_crashed_reader_frees_session)
{
	const char *part = crashes[_i].part;
	int sig = crashes[_i].sig, status;
	char dir[] = "/tmp/pk-crash-XXXXXX", cache[64], out[64], syms[160], boot[64], pid[16];
	char *const rm[] = { "rm", "-rf", dir, NULL };
	const char *load[] = { "-p", pid, "-e", "tracepoint:syscalls:sys_enter_getppid", NULL };
	pid_t target = syscaller();
	char *folded;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(out, sizeof(out), "%s/out.folded", dir);
	ck_assert_int_eq(pk_boot_id(boot, sizeof(boot)), 0);
	snprintf(syms, sizeof(syms), "%s/kernel/%s.syms", cache, boot);
	snprintf(pid, sizeof(pid), "%d", (int)target);
	ck_assert_int_eq(pk_e2e_load(load), 0);

	status = crash_read(cache, out, part, sig);
	/* ASan reports a SIGSEGV and exits 1; otherwise the signal kills */
	ck_assert_msg((WIFSIGNALED(status) && WTERMSIG(status) == sig) ||
		      (sig == SIGSEGV && WIFEXITED(status) && WEXITSTATUS(status) == 1),
		      "%s, signal %d: wait status %#x", part, sig, status);
	ck_assert_msg(half_written_in(dir, part),
		      "the reader did not die writing %s", part);
	ck_assert_int_eq(pk_e2e_lock_holder(), 0);
	ck_assert_int_eq(access(out, F_OK), -1);
	/* the table, when the reader kept it before it died, whole */
	if (!strcmp(part, ".syms.tmp.")) {
		ck_assert_int_eq(access(syms, F_OK), -1);
	} else {
		errno = 0;
		ck_assert_ptr_null(pk_kallsyms_load_saved(syms, 0));
		ck_assert_int_eq(errno, ESTALE);	/* another's, not damaged */
	}

	/* the next readers: at once, the table kept, then read back */
	for (int r = 0; r < 2; r++) {
		status = crash_read(cache, out, NULL, 0);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "reader %d after the crash: wait status %#x", r, status);
		folded = pk_test_read_file(out, NULL);
		ck_assert_ptr_nonnull(folded);
		ck_assert_msg(strstr(folded, "_[k]"), "no kernel frame in %s", folded);
		free(folded);
		errno = 0;
		ck_assert_ptr_null(pk_kallsyms_load_saved(syms, 0));
		ck_assert_int_eq(errno, ESTALE);
	}
	ck_assert_int_eq(pk_e2e_unload(), 0);
	kill(target, SIGKILL);
	pk_test_wait(target);
	pk_test_run(rm, NULL, NULL);
}
END_TEST

/* Every folded line's count, summed, of every file in DIR. */
static unsigned long folded_total_in(const char *dir, int *nfiles)
{
	char cmd[512], *list = NULL;
	char *const ls[] = { "ls", (char *)dir, NULL };
	unsigned long total = 0;

	*nfiles = 0;
	ck_assert_int_eq(pk_test_run(ls, &list, NULL), 0);
	for (char *name = strtok(list, "\n"); name; name = strtok(NULL, "\n")) {
		struct pk_folded f;
		const char *bad = NULL;
		char *text;

		snprintf(cmd, sizeof(cmd), "%s/%s", dir, name);
		text = pk_test_read_file(cmd, NULL);
		ck_assert_ptr_nonnull(text);
		ck_assert_msg(pk_folded_parse(text, &f, &bad), "%s: not folded: %s", name, bad);
		for (size_t i = 0; i < f.n; i++)
			total += f.lines[i].count;
		pk_folded_free(&f);
		free(text);
		(*nfiles)++;
	}
	free(list);
	return total;
}

/*
 * probe-load --unload from another shell ends a reader that would read on
 * (no -d, a -d far off, --interval): it writes what it read, says why in
 * one line and exits 0. Every sample the session took is in its output.
 */
START_TEST(test_unload_ends_reader)
{
	char dir[] = "/tmp/pk-unload-XXXXXX", outdir[64], out[128], pattern[128], log[128];
	char expect[512];
	const char *modes[][5] = {
		{ "-o", out, NULL },
		{ "-d", "600", "-o", out, NULL },
		{ "--interval", "1", "-o", pattern, NULL },
	};
	struct pk_session_fds fds;
	struct pk_session info;
	struct pk_e2e_summary sum;
	__u64 cnt[PK_CNT__MAX];
	char *log_text;
	unsigned long total;
	int nfiles;
	pid_t reader;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(outdir, sizeof(outdir), "%s/out", dir);
	ck_assert_int_eq(mkdir(outdir, 0700), 0);
	snprintf(out, sizeof(out), "%s/cpu.folded", outdir);
	snprintf(pattern, sizeof(pattern), "%s/cpu-%%Y%%m%%dT%%H%%M%%S.folded", outdir);
	snprintf(log, sizeof(log), "%s/reader.log", dir);
	ck_assert_int_eq(pk_e2e_load(fixture_load()), 0);
	/* held past the unload: the counters of what the session took */
	ck_assert_int_eq(pk_session_open(pk_e2e_pin_dir(), &fds, &info), 0);
	reader = pk_e2e_spawn_read(modes[_i], log);
	ck_assert_int_gt(reader, 0);
	pk_e2e_wait_holder(reader);
	ck_assert_int_eq(pk_e2e_wait_targets_cpu(1.0, 60), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	expect_exit_0(reader);
	ck_assert_int_eq(pk_counters_read(fds.counters, cnt), 0);
	pk_session_close(&fds);

	log_text = pk_test_read_file(log, NULL);
	snprintf(expect, sizeof(expect),
		 "probe-read: the session at %s was unloaded: stopped reading, all it sampled is written\n",
		 pk_e2e_pin_dir());
	ck_assert_msg(strstr(log_text, expect), "no line saying why in: %s", log_text);
	ck_assert_ptr_eq(strstr(strstr(log_text, expect) + 1, expect), NULL);
	ck_assert_msg(pk_e2e_parse_summary(log_text, &sum), "no summary in: %s", log_text);
	total = folded_total_in(outdir, &nfiles);
	fprintf(stderr, "unload, %s: %llu samples read of %llu taken, %lu in %d files\n",
		modes[_i][0], sum.read, (unsigned long long)cnt[PK_CNT_SAMPLES], total, nfiles);
	ck_assert_uint_gt(sum.read, 50);	/* >= 1 s of CPU time at 99 Hz */
	ck_assert_uint_eq(sum.read, cnt[PK_CNT_SAMPLES]);
	ck_assert_uint_eq(total, sum.read);
	if (_i < 2)
		ck_assert_int_eq(nfiles, 1);
	/* the fixture runs on, unsampled, to the end of its CPU time */
	free(log_text);
	ck_assert_int_eq(pk_test_run((char *const[]){ "rm", "-rf", dir, NULL }, NULL, NULL), 0);
}
END_TEST

/* The speedscope file's one span (every profile has the one the read
 * covered), exact. */
static void speedscope_span(const char *path, unsigned long long *start, unsigned long long *end)
{
	char err[PK_ORACLE_ERR_LEN], *text = NULL;
	int ret = pk_test_speedscope_validate(path, err), n = 0;

	if (pk_test_oracle_missing(ret, "speedscope's schema"))
		return;
	ck_assert_msg(ret == 0, "speedscope file not valid: %s", err);
	ck_assert_int_eq(pk_test_speedscope_dump(path, "span", &text), 0);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), n++) {
		unsigned long long s, e;
		const char *tab = strchr(line, '\t');

		ck_assert_ptr_nonnull(tab);
		ck_assert_int_eq(sscanf(tab, "\tnanoseconds\t%llu\t%llu", &s, &e), 2);
		if (n) {
			ck_assert_uint_eq(s, *start);
			ck_assert_uint_eq(e, *end);
		}
		*start = s;
		*end = e;
	}
	ck_assert_int_gt(n, 0);
	free(text);
}

/* pprof's time_nanos and duration_nanos, as protobuf-c decodes them; Go's
 * pprof reads the same time. */
static void pprof_span(const char *path, long long *time_nanos, long long *duration_nanos)
{
	Perftools__Profiles__Profile *m;
	struct ppr_profile p;
	char err[256], *raw = NULL;
	size_t len;
	unsigned char *buf = (unsigned char *)pk_test_read_file(path, &len);

	ck_assert_ptr_nonnull(buf);
	m = pk_test_pprof_decode(buf, len);
	*time_nanos = m->time_nanos;
	*duration_nanos = m->duration_nanos;
	perftools__profiles__profile__free_unpacked(m, NULL);
	free(buf);
	if (!ppr_go_available()) {
		ck_assert_msg(!getenv("CI") || strcmp(getenv("CI"), "true"),
			      "go tool pprof is missing (CI=true)");
		fprintf(stderr, "go is not installed: pprof's time not read by Go\n");
		return;
	}
	ck_assert_msg(ppr_run(path, &raw, err, sizeof(err)) == 0, "go tool pprof: %s", err);
	ck_assert_msg(ppr_parse(raw, &p, err, sizeof(err)) == 0, "pprof -raw: %s", err);
	ck_assert_int_eq(p.time_nanos, *time_nanos);
	ppr_free(&p);
	free(raw);
}

/*
 * What each format says it holds. A reader starts after a second of the
 * fixture's CPU time was sampled and reads until it exits: without
 * --from-now its output holds that backlog, and every format's span is
 * its first sample to its last; with --from-now the backlog is dropped
 * (and counted) and the span is the reading time, every sample in it.
 */
START_TEST(test_time_span)
{
	bool from_now = _i;
	char dir[] = "/tmp/pk-span-XXXXXX", perf[256], pprof[256], ss[256];
	const char *args[] = { "-f", "perf", "-o", perf, "-f", "pprof", "-o", pprof,
			       "-f", "speedscope", "-o", ss, from_now ? "--from-now" : NULL, NULL };
	unsigned long long start = 0, end = 0, dropped = 0;
	long long time_nanos, duration_nanos, boot_to_real;
	struct pk_session_fds fds;
	struct pk_session info;
	struct pk_e2e_summary sum;
	struct perf_times t;
	__u64 cnt[PK_CNT__MAX], t_before, t_after;
	char *out = NULL, *err = NULL, *text;
	const char *line;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(perf, sizeof(perf), "%s/cpu.txt", dir);
	snprintf(pprof, sizeof(pprof), "%s/cpu.pb.gz", dir);
	snprintf(ss, sizeof(ss), "%s/cpu.json", dir);
	ck_assert_int_eq(pk_e2e_load(fixture_load()), 0);
	ck_assert_int_eq(pk_session_open(pk_e2e_pin_dir(), &fds, &info), 0);
	boot_to_real = (long long)(info.start_realtime_ns - info.start_time_ns);
	ck_assert_int_eq(pk_e2e_wait_targets_cpu(1.0, 60), 0);
	t_before = pk_clock_ns(CLOCK_BOOTTIME);
	ck_assert_msg(pk_e2e_read(args, &out, &err) == 0, "probe-read failed: %s", err);
	t_after = pk_clock_ns(CLOCK_BOOTTIME);
	ck_assert_int_eq(pk_counters_read(fds.counters, cnt), 0);
	pk_session_close(&fds);
	ck_assert_int_eq(pk_e2e_unload(), 0);

	ck_assert_msg(pk_e2e_parse_summary(err, &sum), "no summary in: %s", err);
	line = strstr(err, " of them sampled before this reader started, dropped (--from-now)\n");
	if (line) {
		while (line > err && line[-1] != '\n')
			line--;
		ck_assert_int_eq(sscanf(line, "probe-read: %llu of them", &dropped), 1);
	}
	text = pk_test_read_file(perf, NULL);
	ck_assert_ptr_nonnull(text);
	perf_times(text, &t);
	speedscope_span(ss, &start, &end);
	pprof_span(pprof, &time_nanos, &duration_nanos);
	fprintf(stderr, "span%s: %zu samples written, %llu dropped, perf %llu..%llu us, "
		"speedscope %llu..%llu ns, reader ran %llu..%llu ns\n",
		from_now ? " --from-now" : "", t.n, dropped, t.min_us, t.max_us, start, end,
		(unsigned long long)t_before, (unsigned long long)t_after);

	/* nothing lost or repeated: written + dropped = taken */
	ck_assert_uint_eq(sum.read, cnt[PK_CNT_SAMPLES]);
	ck_assert_uint_eq(cnt[PK_CNT_RINGBUF_FULL], 0);
	ck_assert_uint_eq(t.n + dropped, sum.read);
	ck_assert(!t.dup);
	ck_assert_uint_gt(t.n, 50);	/* >= 2 s of CPU time at 99 Hz */
	/* pprof says what speedscope says, on the wall clock */
	ck_assert_int_eq(time_nanos, (long long)start + boot_to_real);
	ck_assert_int_eq(duration_nanos, (long long)(end - start));
	if (from_now) {
		ck_assert_uint_gt(dropped, 50);		/* >= 1 s of CPU time waited */
		ck_assert_uint_ge(start, t_before);
		ck_assert_uint_le(end, t_after);
		ck_assert_uint_ge(t.min_us, start / 1000);
		ck_assert_uint_le(t.max_us, end / 1000);
	} else {
		ck_assert_uint_eq(dropped, 0);
		ck_assert_uint_eq(start / 1000, t.min_us);
		ck_assert_uint_eq(end / 1000, t.max_us);
		/* the backlog is there: sampled before the reader started */
		ck_assert_uint_lt(t.min_us, t_before / 1000);
	}
	ck_assert_int_eq(pk_test_run((char *const[]){ "rm", "-rf", dir, NULL }, NULL, NULL), 0);
	free(text);
	free(out);
	free(err);
}
END_TEST

Suite *suite_reader_session_e2e(void)
{
	Suite *s = suite_create("reader_session_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "BPF"))
		return s;
	tc = pk_e2e_tcase(s, "one_reader", 120);
	tcase_add_test(tc, test_second_reader_refused);
	tcase_add_test(tc, test_killed_reader_frees_session);
	tcase_add_loop_test(tc, test_crashed_reader_frees_session, 0,
			    sizeof(crashes) / sizeof(crashes[0]));
	tc = pk_e2e_tcase(s, "unload", 120);
	tcase_add_loop_test(tc, test_unload_ends_reader, 0, 3);
	tc = pk_e2e_tcase(s, "time_span", 120);
	tcase_add_loop_test(tc, test_time_span, 0, 2);
	return s;
}
