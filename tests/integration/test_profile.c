// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end: the real probe-load and probe-read, real BPF on this kernel,
 * fixture programs with known call chains (tests/fixtures/).
 */
#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "integration/profile_session.h"
#include "lib/session.h"
#include "lib/util/clock.h"
#include "reading/summary.h"
#include "test_util.h"

#define FREQ		99
#define FREQ_STR	"99"

static unsigned long folded_sum(const struct pk_folded *f, bool (*match)(const char *))
{
	unsigned long n = 0;

	for (size_t i = 0; i < f->n; i++)
		if (match(f->lines[i].stack))
			n += f->lines[i].count;
	return n;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

/* The whole chain, hot() as the leaf, no kernel frame (pure user loop). */
static bool full_fp_chain(const char *stack)
{
	return !strncmp(stack, "fp_chain;", 9) && ends_with(stack, ";main;a;b;c;hot");
}

/* Read until the target exits; -d bounds a broken run, and the time taken
 * shows it was the exit that ended it. */
static void read_all(char **out, char **err)
{
	const char *args[] = { "-d", "60", NULL };
	double t0 = pk_now_s();

	ck_assert_int_eq(pk_e2e_read(args, out, err), 0);
	ck_assert_msg(pk_now_s() - t0 < 30, "probe-read ran %.1f s: it did not stop when the "
		      "targets exited", pk_now_s() - t0);
}

static void parse_or_fail(const char *out, struct pk_folded *f)
{
	const char *bad = NULL;

	ck_assert_msg(pk_folded_parse(out, f, &bad), "not folded format: '%s'", bad);
}

/* The count against the fixture's own CPU time: exact on a quiet machine;
 * on a busy one the fixture's time is sliced among others and a CPU's
 * clock samples it by chance, so the count varies as a binomial's does
 * (its standard deviation up to the square root of its mean). At 99 Hz
 * (~300 samples) the bound +10% was 1.8 of them (a busy run: 339 of
 * 297); at 999 Hz (~3,000) it is 5.5. */
#define FULL_FREQ	999
#define FULL_FREQ_STR	"999"

/* _i 0: read while the fixture runs (probe-load waits for it in the
 * foreground); 1: `probe-load -- fp_chain; probe-read`, in sequence, as a
 * shell runs them: the ring buffer kept every sample for the reader. */
START_TEST(test_fp_chain_full_stacks)
{
	char stats[] = "/tmp/pk-fp-chain-XXXXXX";
	int fd = mkstemp(stats);
	const char *load[] = { "-F", FULL_FREQ_STR, "--", pk_e2e_fixture("fp_chain"), "3",
			       stats, NULL };
	char *out = NULL, *err = NULL, *cpu_text;
	struct pk_e2e_summary sum;
	struct pk_folded f;
	unsigned long total, full;
	double cpu_s, expected;

	ck_assert_int_ge(fd, 0);
	close(fd);
	if (_i == 0)
		ck_assert_int_eq(pk_e2e_load(load), 0);
	else	/* the fixture's exit status */
		ck_assert_int_eq(pk_e2e_load_wait(load), 0);
	read_all(&out, &err);
	ck_assert_int_eq(pk_e2e_unload(), 0);

	parse_or_fail(out, &f);
	ck_assert_msg(pk_e2e_parse_summary(err, &sum), "no summary line in: %s", err);
	total = pk_folded_total(&f, "fp_chain");
	full = folded_sum(&f, full_fp_chain);
	cpu_text = pk_test_read_file(stats, NULL);
	ck_assert_ptr_nonnull(cpu_text);
	cpu_s = atol(cpu_text) / 1e6;
	expected = FULL_FREQ * cpu_s;
	fprintf(stderr, "fp_chain: %lu samples read, %.0f expected (%d Hz x %.2f s CPU), "
		"%lu full stacks (%.1f%%), lost %llu, failed %llu\n",
		total, expected, FULL_FREQ, cpu_s, full, total ? 100.0 * full / total : 0.0,
		sum.lost, sum.failed);
	ck_assert_uint_eq(sum.lost, 0);
	ck_assert_msg(!strstr(err, pk_summary_lost_hint), "a hint on losses with none:\n%s", err);
	ck_assert_uint_eq(total, sum.read);
	/* the ratios below need enough samples even on a loaded machine */
	ck_assert_msg(total >= 50, "fixture got only %lu samples", total);
	ck_assert_msg(total >= 0.85 * expected && total <= 1.10 * expected,
		      "%lu samples, expected about %.0f", total, expected);
	ck_assert_msg(full * 10 >= total * 9, "only %lu of %lu stacks are main;a;b;c;hot:\n%s",
		      full, total, out);
	unlink(stats);
	free(cpu_text);
	pk_folded_free(&f);
	free(out);
	free(err);
}
END_TEST

/* Sampling of the -d 2 test: dense enough that the fixture's share of a
 * busy machine's CPU over two seconds still makes enough samples. */
#define PID_FREQ	999
#define PID_FREQ_STR	"999"
/* Seconds of wall time the fixture runs after the reader started: less
 * than its two seconds, so that every sample taken is read. */
#define PID_RUN_US	1500000

/*
 * The issue's own recipe: probe-load -p PID, then probe-read -d 2. The
 * number of samples is compared with the CPU time the fixture used while
 * sampled: it holds itself stopped until probe-load has attached
 * (PK_FIXTURE_HOLD), runs from before the reader starts, and is stopped
 * again before the reader's two seconds are over, so that its CPU time is
 * measured when its last sample is taken, not after probe-read's
 * symbolizing and printing, however long a loaded machine makes those.
 */
START_TEST(test_pid_mode_for_two_seconds)
{
	char *fixture[] = { "sh", "-c", "PK_FIXTURE_HOLD=1 exec \"$0\" 60",
			    (char *)pk_e2e_fixture("fp_chain"), NULL };
	char folded[] = "/tmp/pk-pid-XXXXXX", log[] = "/tmp/pk-pid-log-XXXXXX";
	pid_t pid = pk_test_spawn(fixture, NULL), reader;
	char pid_str[16];
	const char *load[] = { "-p", pid_str, "-F", PID_FREQ_STR, NULL };
	const char *read[] = { "-d", "2", "-o", folded, NULL };
	char *out = NULL, *err = NULL;
	double cpu0, cpu1, expected;
	unsigned long total, full;
	struct pk_folded f;
	int status;

	ck_assert_int_gt(pid, 0);
	close(mkstemp(folded));
	close(mkstemp(log));
	snprintf(pid_str, sizeof(pid_str), "%d", (int)pid);
	ck_assert_msg(waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status),
		      "the fixture did not stop itself");
	ck_assert_int_eq(pk_e2e_load(load), 0);
	cpu0 = pk_e2e_cpu_s(pid);
	reader = pk_e2e_spawn_read(read, log);
	ck_assert_int_gt(reader, 0);
	kill(pid, SIGCONT);
	usleep(PID_RUN_US);
	kill(pid, SIGSTOP);
	ck_assert(waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status));
	cpu1 = pk_e2e_cpu_s(pid);
	status = pk_test_wait(reader);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	kill(pid, SIGKILL);
	pk_test_wait(pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "probe-read failed");

	out = pk_test_read_file(folded, NULL);
	err = pk_test_read_file(log, NULL);
	ck_assert_ptr_nonnull(out);
	parse_or_fail(out, &f);
	total = pk_folded_total(&f, "fp_chain");
	full = folded_sum(&f, full_fp_chain);
	expected = PID_FREQ * (cpu1 - cpu0);
	fprintf(stderr, "fp_chain -p, -d 2: %lu samples read, %.0f expected (%d Hz x %.3f s CPU), "
		"%lu full stacks (%.1f%%)\n", total, expected, PID_FREQ, cpu1 - cpu0, full,
		total ? 100.0 * full / total : 0.0);
	ck_assert_msg(total >= 50, "fixture got only %lu samples", total);
	ck_assert_msg(total >= 0.85 * expected && total <= 1.10 * expected,
		      "%lu samples, expected about %.0f", total, expected);
	ck_assert_msg(full * 10 >= total * 9, "only %lu of %lu stacks are main;a;b;c;hot:\n%s",
		      full, total, out);
	pk_folded_free(&f);
	unlink(folded);
	unlink(log);
	free(out);
	free(err);
}
END_TEST

/* The user chain, then at least one kernel frame, and the kernel frames last. */
static bool syscall_chain_with_kernel(const char *stack)
{
	const char *chain = strstr(stack, ";main;a;b;c;");
	const char *k;

	if (strncmp(stack, "syscall_chain;", 14) || !chain)
		return false;
	k = strstr(chain, "_[k]");
	if (!k)
		return false;
	/* every frame after the first kernel frame is a kernel frame */
	for (const char *p = strchr(k, ';'); p; p = strchr(p + 1, ';')) {
		const char *next = strchr(p + 1, ';');
		size_t len = next ? (size_t)(next - p - 1) : strlen(p + 1);

		if (len < 4 || strncmp(p + 1 + len - 4, "_[k]", 4))
			return false;
	}
	return ends_with(stack, "_[k]");
}

START_TEST(test_syscall_kernel_frames)
{
	const char *load[] = { "-F", FREQ_STR, "--", pk_e2e_fixture("syscall_chain"), "2",
			       NULL };
	char *out = NULL, *err = NULL;
	struct pk_folded f;
	unsigned long total, with_kernel;

	ck_assert_int_eq(pk_e2e_load(load), 0);
	read_all(&out, &err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	parse_or_fail(out, &f);
	total = pk_folded_total(&f, "syscall_chain");
	with_kernel = folded_sum(&f, syscall_chain_with_kernel);
	fprintf(stderr, "syscall_chain: %lu of %lu samples show main;a;b;c then kernel frames\n",
		with_kernel, total);
	ck_assert_uint_ge(total, 50);
	/* The read loop spends most of its time clearing the user buffer. */
	ck_assert_msg(with_kernel * 2 >= total, "%lu of %lu with kernel frames:\n%s",
		      with_kernel, total, out);
	pk_folded_free(&f);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_tiny_ringbuf_counts_losses)
{
	const char *load[] = { "-F", "2000", "--ringbuf-size", "4096", "--",
			       pk_e2e_fixture("fp_chain"), "2", NULL };
	char *out = NULL, *err = NULL;
	struct pk_e2e_summary sum;
	__u64 cnt[PK_CNT__MAX];

	ck_assert_int_eq(pk_e2e_load(load), 0);
	/* Nobody reads for the fixture's whole life: the 4 KiB buffer
	 * overflows. It spins 2 s of CPU time, longer on the wall when the
	 * machine is busy: the counters are read once it has exited. */
	ck_assert_int_eq(pk_e2e_wait_targets_exit(60), 0);
	pk_e2e_counters(cnt);
	read_all(&out, &err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_msg(pk_e2e_parse_summary(err, &sum), "no summary line in: %s", err);
	fprintf(stderr, "tiny ring buffer: %llu read, %llu lost\n", sum.read, sum.lost);
	ck_assert_uint_gt(sum.read, 0);
	ck_assert_uint_gt(sum.lost, 0);
	ck_assert_uint_eq(sum.lost, cnt[PK_CNT_RINGBUF_FULL]);
	ck_assert_uint_eq(sum.read, cnt[PK_CNT_SAMPLES]);
	/* and says what to do, naming probe-load's options */
	ck_assert_msg(strstr(err, pk_summary_lost_hint), "no hint on the losses:\n%s", err);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_restarted_reader_loses_nothing)
{
	const char *load[] = { "-F", FREQ_STR, "--", pk_e2e_fixture("fp_chain"), "3", NULL };
	const char *first[] = { "-d", "0.5", NULL };
	char *out1 = NULL, *err1 = NULL, *out2 = NULL, *err2 = NULL;
	struct pk_e2e_summary s1, s2;
	struct pk_folded f1, f2;
	__u64 cnt[PK_CNT__MAX];

	ck_assert_int_eq(pk_e2e_load(load), 0);
	/* a second of CPU time (99 samples) waits before the first reader,
	 * however long that takes on the wall; about 2 s remain after it */
	ck_assert_int_eq(pk_e2e_wait_targets_cpu(1.0, 60), 0);
	ck_assert_int_eq(pk_e2e_read(first, &out1, &err1), 0);
	sleep(1);
	read_all(&out2, &err2);
	pk_e2e_counters(cnt);
	ck_assert_int_eq(pk_e2e_unload(), 0);

	ck_assert(pk_e2e_parse_summary(err1, &s1));
	ck_assert(pk_e2e_parse_summary(err2, &s2));
	parse_or_fail(out1, &f1);
	parse_or_fail(out2, &f2);
	fprintf(stderr, "restart: first reader %llu, second %llu, kernel counted %llu\n",
		s1.read, s2.read, (unsigned long long)cnt[PK_CNT_SAMPLES]);
	ck_assert_uint_gt(s1.read, 50);	/* >= 1 s of CPU time was waiting */
	ck_assert_uint_gt(s2.read, 50);
	ck_assert_uint_eq(s1.read + s2.read, cnt[PK_CNT_SAMPLES]);
	ck_assert_uint_eq(cnt[PK_CNT_RINGBUF_FULL], 0);
	ck_assert_uint_eq(pk_folded_total(&f1, "fp_chain"), s1.read);
	ck_assert_uint_eq(pk_folded_total(&f2, "fp_chain"), s2.read);
	pk_folded_free(&f1);
	pk_folded_free(&f2);
	free(out1);
	free(err1);
	free(out2);
	free(err2);
}
END_TEST

START_TEST(test_unload_leaves_nothing)
{
	int before = pk_e2e_perf_links(), after_load, after_unload;
	pid_t parent = getpid(), sleeper = fork();
	char pid[16];
	const char *load[] = { "-p", pid, NULL };
	struct stat st;

	if (sleeper == 0) {
		pk_test_die_with_parent(parent);
		pause();
		_exit(0);
	}
	snprintf(pid, sizeof(pid), "%d", (int)sleeper);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	after_load = pk_e2e_perf_links();
	ck_assert_int_eq(stat(pk_e2e_pin_dir(), &st), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	after_unload = pk_e2e_perf_links();
	kill(sleeper, SIGKILL);
	pk_test_wait(sleeper);
	fprintf(stderr, "perf_event links: %d before, %d loaded, %d after unload\n",
		before, after_load, after_unload);
	/* one per CPU, and the code report's two tracepoints, exec and mmap
	 * (--unwind dwarf) */
	ck_assert_int_eq(after_load, before + sysconf(_SC_NPROCESSORS_ONLN) + 2);
	ck_assert_int_eq(after_unload, before);
	ck_assert_int_eq(stat(pk_e2e_pin_dir(), &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	/* and once more: nothing is loaded now, a no-op */
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_int_eq(stat(pk_e2e_pin_dir(), &st), -1);
}
END_TEST

/*
 * A reader of a session with targets sleeps until the last of them exits,
 * a child that outlived its parent included: it does not look at the
 * targets map on a timer (at 100 ms it woke 10 times a second). The
 * target, sh, leaves a child that sleeps 4 s, then leaves a mark: the
 * reader has ended after the mark, and woke a handful of times, where a
 * 10 Hz timer alone would have made 40 voluntary context switches.
 */
START_TEST(test_reader_sleeps_until_targets_exit)
{
	char mark[] = "/tmp/pk-exit-mark-XXXXXX", script[256];
	char folded[] = "/tmp/pk-exit-folded-XXXXXX";
	const char *load[] = { "-F", FREQ_STR, "--", "sh", "-c", script, NULL };
	const char *args[] = { "-o", folded, NULL };
	struct rusage ru;
	struct stat st;
	pid_t reader;
	int status;

	close(mkstemp(mark));
	unlink(mark);
	close(mkstemp(folded));
	snprintf(script, sizeof(script), "(sleep 4; touch %s) & exit 0", mark);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	reader = pk_e2e_spawn_read(args, NULL);
	ck_assert_int_gt(reader, 0);
	ck_assert_int_eq(wait4(reader, &status, 0, &ru), reader);
	ck_assert_msg(stat(mark, &st) == 0, "probe-read ended before the last target");
	fprintf(stderr, "probe-read of a sleeping target's session: %ld voluntary context "
		"switches\n", ru.ru_nvcsw);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_lt(ru.ru_nvcsw, 20);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	unlink(mark);
	unlink(folded);
}
END_TEST

/* Ctrl-C (or a kill, or a closed terminal) ends the reading at once, with
 * the full output and the summary. */
static void stop_reader_with(int sig)
{
	char folded[] = "/tmp/pk-sigint-XXXXXX", log[] = "/tmp/pk-sigint-log-XXXXXX";
	const char *load[] = { "-F", FREQ_STR, "--", pk_e2e_fixture("fp_chain"), "8", NULL };
	const char *args[] = { "-o", folded, NULL };
	char *out, *err;
	struct pk_e2e_summary sum;
	struct pk_folded f;
	double t0;
	pid_t reader;
	int status;

	close(mkstemp(folded));
	close(mkstemp(log));
	ck_assert_int_eq(pk_e2e_load(load), 0);
	reader = pk_e2e_spawn_read(args, log);
	/* 2 s of the fixture's CPU time sampled, however long on the wall */
	ck_assert_int_eq(pk_e2e_wait_targets_cpu(2.0, 60), 0);
	t0 = pk_now_s();
	kill(reader, sig);
	status = pk_test_wait(reader);
	fprintf(stderr, "%s: probe-read stopped %.2f s after the signal\n", strsignal(sig),
		pk_now_s() - t0);
	/* it polls every 100 ms; a signal that did not end the loop would leave
	 * it reading until the fixture ends, 6 s of CPU time later */
	ck_assert_msg(pk_now_s() - t0 < 5.0, "probe-read took %.1f s to stop", pk_now_s() - t0);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	out = pk_test_read_file(folded, NULL);
	err = pk_test_read_file(log, NULL);
	ck_assert_msg(pk_e2e_parse_summary(err, &sum), "no summary line in: %s", err);
	parse_or_fail(out, &f);
	ck_assert_uint_gt(sum.read, 100);	/* ~2 s of CPU time at 99 Hz */
	ck_assert_uint_eq(pk_folded_total(&f, "fp_chain"), sum.read);
	pk_folded_free(&f);
	unlink(folded);
	unlink(log);
	free(out);
	free(err);
}

START_TEST(test_sigint_stops_reader)
{
	stop_reader_with(SIGINT);
}
END_TEST

START_TEST(test_sighup_stops_reader)
{
	stop_reader_with(SIGHUP);
}
END_TEST

/* -o FILE appears whole or not at all: a file that cannot be written is one
 * error line and nothing left behind, and the session is untouched. */
START_TEST(test_output_file_errors)
{
	char dir[] = "/tmp/pk-out-XXXXXX", target[256];
	const char *load[] = { "-F", FREQ_STR, "--", pk_e2e_fixture("fp_chain"), "2", NULL };
	const char *missing[] = { "-d", "0.2", "-o", "/nonexistent-dir/out.folded", NULL };
	const char *to_dir[] = { "-d", "0.2", "-o", target, NULL };
	char *out = NULL, *err = NULL;
	struct pk_e2e_summary sum;
	__u64 cnt[PK_CNT__MAX];
	struct pk_folded f;
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/sub", dir);
	ck_assert_int_eq(mkdir(target, 0755), 0);	/* -o names a directory */
	ck_assert_int_eq(pk_e2e_load(load), 0);

	ck_assert_int_eq(pk_e2e_read(missing, &out, &err), 1);
	ck_assert_str_eq(out, "");
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent-dir/out.folded"));
	ck_assert_msg(pk_e2e_one_line(err), "not one line: %s", err);
	free(out);
	free(err);

	ck_assert_int_eq(pk_e2e_read(to_dir, &out, &err), 1);
	ck_assert_ptr_nonnull(strstr(err, target));
	ck_assert_msg(pk_e2e_one_line(err), "not one line: %s", err);
	/* nothing but the directory that was there: no temporary file left */
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) -eq 1", dir);
		ck_assert_int_eq(system(cmd), 0);
	}
	free(out);
	free(err);

	/* the failed readers consumed nothing: a reader that can write gets
	 * every sample the kernel counted */
	read_all(&out, &err);
	pk_e2e_counters(cnt);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert(pk_e2e_parse_summary(err, &sum));
	parse_or_fail(out, &f);
	ck_assert_uint_gt(sum.read, 50);
	ck_assert_uint_eq(sum.read, cnt[PK_CNT_SAMPLES]);
	ck_assert_uint_eq(pk_folded_total(&f, "fp_chain"), sum.read);
	pk_folded_free(&f);
	rmdir(target);
	rmdir(dir);
	free(out);
	free(err);
}
END_TEST

/*
 * -o names what a shell's > would write: a FIFO a viewer reads, a symbolic
 * link to the profile kept, a device such as /dev/null. One read writes all
 * three (each made in a directory of the test's own): the viewer gets the
 * profile the link's file holds, and the FIFO, the link and the device are
 * still what they were.
 */
START_TEST(test_output_through_fifo_link_and_device)
{
	char dir[] = "/tmp/pk-out-kinds-XXXXXX", fifo[64], link[64], file[64], dev[64],
	     seen[64], cmd[256];
	const char *load[] = { "-F", FREQ_STR, "--", pk_e2e_fixture("fp_chain"), "1", NULL };
	const char *args[] = { "-d", "60", "-f", "folded", "-o", fifo, "-f", "folded",
			       "-o", link, "-f", "perf", "-o", dev, NULL };
	char *out = NULL, *err = NULL, *viewed, *kept;
	struct pk_folded f;
	struct stat st;
	pid_t viewer;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/latest.folded", dir);
	snprintf(file, sizeof(file), "%s/cpu.folded", dir);
	snprintf(dev, sizeof(dev), "%s/null", dir);
	snprintf(seen, sizeof(seen), "%s/seen", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(symlink("cpu.folded", link), 0);
	ck_assert_int_eq(mknod(dev, S_IFCHR | 0666, makedev(1, 3)), 0);
	{	/* the viewer: cat FIFO > seen */
		char *cat[] = { "cat", fifo, NULL };

		viewer = pk_test_spawn(cat, seen);
		ck_assert_int_gt(viewer, 0);
	}
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_read(args, &out, &err), 0);
	ck_assert_int_eq(pk_test_wait(viewer), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);

	viewed = pk_test_read_file(seen, NULL);
	kept = pk_test_read_file(file, NULL);
	ck_assert_ptr_nonnull(viewed);
	ck_assert_ptr_nonnull(kept);
	ck_assert_str_eq(viewed, kept);
	parse_or_fail(kept, &f);
	ck_assert_uint_gt(folded_sum(&f, full_fp_chain), 0);
	pk_folded_free(&f);
	ck_assert_int_eq(lstat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(lstat(dev, &st), 0);
	ck_assert_msg(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3),
		      "the device node was replaced (mode %o)", st.st_mode);
	/* fifo, latest.folded, cpu.folded, null, seen: no temporary file */
	snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) -eq 5 && rm -r %s", dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	free(viewed);
	free(kept);
	free(out);
	free(err);
}
END_TEST

/*
 * A bare machine, where no one mounted tracefs: probe-load finds the
 * tracepoints it attaches to (code reports, the targets' forks and exits)
 * by mounting it, as perf does; where it cannot mount it, one line says
 * what to mount, and nothing is left pinned. In a mount namespace of the
 * test's own, tracefs (and debugfs, whose tracing/ would stand in for it)
 * unmounted; _i 1 without CAP_SYS_ADMIN in what the test runs.
 */
START_TEST(test_tracefs_missing)
{
	const char *load[] = { "--", "true", NULL };
	char *err = NULL;
	struct stat st;
	int rc;

	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	umount2("/sys/kernel/debug", MNT_DETACH);
	umount2("/sys/kernel/tracing", MNT_DETACH);
	ck_assert_int_ne(stat("/sys/kernel/tracing/events", &st), 0);
	ck_assert_int_ne(stat("/sys/kernel/debug/tracing/events", &st), 0);
	if (_i == 1)
		ck_assert_int_eq(prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0), 0);

	rc = pk_e2e_load_err(load, &err);
	if (_i == 0) {
		ck_assert_msg(rc == 0, "probe-load -- true: exit %d: %s", rc, err);
		ck_assert_int_eq(stat("/sys/kernel/tracing/events", &st), 0);
		ck_assert_int_eq(pk_e2e_unload(), 0);
	} else {
		ck_assert_int_eq(rc, 1);
		ck_assert_msg(pk_e2e_one_line(err), "not one line: %s", err);
		ck_assert_msg(strstr(err, "mount -t tracefs tracefs /sys/kernel/tracing"),
			      "no word of what to mount: %s", err);
		ck_assert_int_eq(stat(pk_e2e_pin_dir(), &st), -1);
	}
	free(err);
}
END_TEST

START_TEST(test_read_without_session)
{
	const char *args[] = { "-d", "1", NULL };
	char *out = NULL, *err = NULL;

	ck_assert_int_ne(pk_e2e_read(args, &out, &err), 0);
	ck_assert_str_eq(out, "");
	ck_assert_ptr_nonnull(strstr(err, pk_e2e_pin_dir()));
	ck_assert_msg(pk_e2e_one_line(err), "not one line: %s", err);
	free(out);
	free(err);
}
END_TEST

Suite *suite_profile_e2e(void)
{
	Suite *s = suite_create("profile_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF programs"))
		return s;

	tc = pk_e2e_tcase(s, "stacks", 60);
	tcase_add_loop_test(tc, test_fp_chain_full_stacks, 0, 2);
	tcase_add_test(tc, test_pid_mode_for_two_seconds);
	tcase_add_test(tc, test_syscall_kernel_frames);

	tc = pk_e2e_tcase(s, "ring_buffer", 60);
	tcase_add_test(tc, test_tiny_ringbuf_counts_losses);
	tcase_add_test(tc, test_restarted_reader_loses_nothing);

	tc = pk_e2e_tcase(s, "lifecycle", 60);
	tcase_add_test(tc, test_unload_leaves_nothing);
	tcase_add_test(tc, test_read_without_session);
	tcase_add_test(tc, test_reader_sleeps_until_targets_exit);
	tcase_add_test(tc, test_sigint_stops_reader);
	tcase_add_test(tc, test_sighup_stops_reader);
	tcase_add_test(tc, test_output_file_errors);
	tcase_add_test(tc, test_output_through_fifo_link_and_device);

	tc = pk_e2e_tcase(s, "bare_machine", 60);
	tcase_add_loop_test(tc, test_tracefs_missing, 0, 2);
	return s;
}
