// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, the events beyond CPU sampling (probe-load -e), with the real
 * tools on fixtures built without frame pointers whose truth is known by
 * construction (tests/fixtures_nofp/ev_block.c, ev_calls.c): time blocked
 * (off-cpu: asleep, on a pipe, a futex, the disk), tracepoint, uprobe and
 * USDT hits counted exactly, page faults (minor and major), block requests,
 * kprobes where the kernel has them, several events in one pprof read back
 * by go tool pprof, and every refusal.
 *
 * Every fixture runs as gcc and clang builds, PIE and not: each event must
 * give whole stacks (from _start through main) where no frame pointer
 * helps.
 *
 * This file holds off-CPU time and several events in one pprof, and the
 * suite; test_event_probes.c the probes, page faults and block requests,
 * test_event_refusals.c the refusals and --list (their cases are added
 * here, in the suite's order); event_run.h what they share.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/pprof_raw.h"
#include "integration/event_run.h"
#include "test_util.h"

/* --- off-cpu ------------------------------------------------------------ */

/* A file for ev_block's truth (the microseconds it measured itself blocked),
 * in PATH (at least 32 bytes). */
static void truth_file(char *path)
{
	int fd;

	strcpy(path, "/tmp/pk-ev-truth-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

/* What ev_block wrote to PATH, which is removed. */
static unsigned long long truth_read(const char *path)
{
	char *text = pk_test_read_file(path, NULL);
	unsigned long long us;

	ck_assert_msg(text && sscanf(text, "%llu", &us) == 1, "ev_block wrote no truth to %s",
		      path);
	free(text);
	unlink(path);
	return us;
}

/*
 * Twenty sleeps of 100 ms in main;wait_here: 2.0 s blocked there, and on a
 * busy machine the time each wakeup waits for a CPU, which off-CPU time
 * counts too. The fixture measures the truth, the wall time around each
 * sleep; the profile must give it +-5% (timer slack and scheduling add
 * some microseconds to each). The stacks are the ones the thread slept in:
 * nanosleep's kernel frames down to __schedule.
 */
START_TEST(test_offcpu_sleep)
{
	char path[4096], truth_path[32];
	const char *load[] = { "-e", "off-cpu", "--",
			       pk_ev_fixture("ev_block", _i, path, sizeof(path)), "sleep",
			       truth_path, NULL };
	const char *read[] = { NULL };
	const char *const kframes[] = { "do_nanosleep_[k]", "__schedule_[k]", NULL };
	struct pk_folded f = { 0 };
	unsigned long long truth;
	struct sum s;
	char *err = NULL;

	truth_file(truth_path);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	pk_ev_read_folded(read, &f, &err);
	truth = truth_read(truth_path);
	s = pk_ev_sum_chain(&f, ";main;wait_here;", kframes);
	if (s.chain < truth * 0.95 || s.chain > truth * 1.05 || s.broken)
		pk_ev_show(&f, NULL);
	fprintf(stderr, "off-cpu sleep %s: %.3f s blocked in main;wait_here (want %.3f +-5%%, "
		"as the fixture measured)\n", pk_ev_variants[_i], s.chain / 1e6, truth / 1e6);
	ck_assert_msg(truth >= 2000000, "%s: the fixture slept %llu us, not 20 x 100 ms",
		      pk_ev_variants[_i], truth);
	ck_assert_msg(s.chain >= truth * 0.95 && s.chain <= truth * 1.05,
		      "%s: %llu us blocked in main;wait_here, want %llu (measured) +-5%%",
		      pk_ev_variants[_i], s.chain, truth);
	ck_assert_uint_eq(s.broken, 0);
	ck_assert_msg(strstr(err, "off-cpu:") && strstr(err, "microseconds off-CPU"),
		      "no off-cpu summary line: %s", err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_folded_free(&f);
	free(err);
}
END_TEST

/* Blocked in a pipe read (300 ms until the child writes) and on a mutex
 * another thread holds (300 ms): the kernel frames say where. How long is
 * what the fixture measured around the blocking call (on a busy machine
 * the child or the holder runs late, and the woken thread waits for a
 * CPU), with the tolerance of 300 ms: -50 ms, +700 ms. */
START_TEST(test_offcpu_pipe_futex)
{
	static const struct {
		const char *mode, *chain, *kframe;
	} cases[] = {
		{ "pipe", ";main;pipe_reader;", "pipe_read_[k]" },
		{ "futex", ";main;lock_waiter;", "futex_wait" },
	};
	char path[4096], truth_path[32];

	for (size_t c = 0; c < 2; c++) {
		const char *load[] = { "-e", "off-cpu", "--",
				       pk_ev_fixture("ev_block", _i, path, sizeof(path)),
				       cases[c].mode, truth_path, NULL };
		const char *read[] = { NULL };
		const char *const kframes[] = { cases[c].kframe, "__schedule_[k]", NULL };
		struct pk_folded f = { 0 };
		unsigned long long truth;
		struct sum s;
		char *err = NULL;

		truth_file(truth_path);
		ck_assert_int_eq(pk_e2e_load(load), 0);
		pk_ev_read_folded(read, &f, &err);
		truth = truth_read(truth_path);
		s = pk_ev_sum_chain(&f, cases[c].chain, kframes);
		if (s.chain + 50000 < truth || s.broken)
			pk_ev_show(&f, NULL);
		fprintf(stderr, "off-cpu %s %s: %.3f s blocked in %s under %s (want %.3f, "
			"as the fixture measured)\n", cases[c].mode, pk_ev_variants[_i],
			s.chain / 1e6, cases[c].chain, cases[c].kframe, truth / 1e6);
		ck_assert_msg(s.chain + 50000 >= truth && s.chain <= truth + 700000,
			      "%s %s: %llu us blocked in %s, want %llu (measured) -50 ms +700 ms",
			      pk_ev_variants[_i], cases[c].mode, s.chain, cases[c].chain, truth);
		ck_assert_uint_eq(s.broken, 0);
		ck_assert_int_eq(pk_e2e_unload(), 0);
		pk_folded_free(&f);
		free(err);
	}
}
END_TEST

/* Waiting on the disk: the O_DIRECT writes block until their requests
 * complete, in io_schedule under the write's own kernel frames. */
START_TEST(test_offcpu_io)
{
	char path[4096], dir[4096];
	const char *load[] = { "-e", "off-cpu", "--",
			       pk_ev_fixture("ev_calls", _i, path, sizeof(path)), "--odirect",
			       pk_test_disk_path("", dir, sizeof(dir)), NULL };
	const char *read[] = { NULL };
	const char *const kframes[] = { "iomap_dio_rw_[k]", "io_schedule", "__schedule_[k]", NULL };
	struct pk_folded f = { 0 };
	struct sum s;
	char *err = NULL;

	ck_assert_int_eq(pk_e2e_load(load), 0);
	pk_ev_read_folded(read, &f, &err);
	/* the pwrite()s: libc's name for it varies, the kernel's does not */
	s = pk_ev_sum_chain(&f, "_[k];iomap_dio_rw_[k];", kframes);
	if (!s.chain || s.broken)
		pk_ev_show(&f, "direct_writer");
	fprintf(stderr, "off-cpu O_DIRECT %s: %.3f ms blocked under iomap_dio_rw\n",
		pk_ev_variants[_i], s.chain / 1e3);
	ck_assert_msg(s.chain > 0, "%s: no block in iomap_dio_rw", pk_ev_variants[_i]);
	ck_assert_uint_eq(s.broken, 0);
	for (size_t i = 0; i < f.n; i++)
		if (strstr(f.lines[i].stack, "_[k];iomap_dio_rw_[k];"))
			ck_assert_msg(strstr(f.lines[i].stack, ";main;direct_writer;"),
				      "not in main;direct_writer: %s", f.lines[i].stack);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_folded_free(&f);
	free(err);
}
END_TEST

/* --- several events, pprof ---------------------------------------------- */

static long long traces_sum(const char *file, const char *index, const char *frame,
			    char **type)
{
	struct ppr_traces t = { 0 };
	char *text = NULL, err[512];
	long long sum = 0;

	ck_assert_msg(ppr_run_traces(file, index, &text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ppr_parse_traces(text, &t, err, sizeof(err)) == 0, "%s", err);
	for (size_t i = 0; i < t.ntraces; i++)
		for (size_t j = 0; j < t.traces[i].nframes; j++)
			if (!strcmp(t.traces[i].frames[j], frame)) {
				sum += t.traces[i].value;
				break;
			}
	*type = strdup(t.type ? t.type : "");
	ppr_traces_free(&t);
	free(text);
	return sum;
}

/*
 * -e cpu-clock -e off-cpu on the sleeping fixture, one pprof file: go tool
 * pprof reads each sample type. off-cpu: 2.0 s and what a busy machine
 * adds, as the fixture measured it (+-5%), in wait_here, none in
 * spin (it never blocks); cpu-clock: samples in spin (400 ms of it), hardly
 * any in wait_here.
 */
START_TEST(test_two_events_pprof)
{
	char path[4096], dir[] = "/tmp/pk-ev-XXXXXX", file[64], truth_path[32];
	const char *load[] = { "-F", "199", "-e", "cpu-clock", "-e", "off-cpu", "--",
			       pk_ev_fixture("ev_block", 0, path, sizeof(path)), "sleep",
			       truth_path, NULL };
	long long truth;
	const char *read[] = { "-f", "pprof", "-o", file, NULL };
	long long blocked, blocked_spin, cpu, cpu_wait;
	char *out = NULL, *err = NULL, *type = NULL;

	if (!ppr_go_available()) {
		ck_assert_msg(!pk_ev_ci(), "go tool pprof is missing (CI=true)");
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/p.pb.gz", dir);
	truth_file(truth_path);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	truth = (long long)truth_read(truth_path) * 1000;

	blocked = traces_sum(file, "off-cpu", "wait_here", &type);
	ck_assert_msg(strstr(type, "off-cpu"), "-sample_index=off-cpu shows %s", type);
	free(type);
	blocked_spin = traces_sum(file, "off-cpu", "spin", &type);
	free(type);
	cpu = traces_sum(file, "samples", "spin", &type);
	ck_assert_msg(strstr(type, "samples"), "-sample_index=samples shows %s", type);
	free(type);
	cpu_wait = traces_sum(file, "samples", "wait_here", &type);
	free(type);
	fprintf(stderr, "-e cpu-clock -e off-cpu, go tool pprof: off-cpu %.3f s in wait_here "
		"(fixture measured %.3f), %lld in spin; samples %lld in spin, %lld in wait_here\n",
		blocked / 1e9, truth / 1e9, blocked_spin, cpu, cpu_wait);
	ck_assert_msg(blocked >= truth * 0.95 && blocked <= truth * 1.05,
		      "off-cpu: %lld ns in wait_here, want %lld (measured) +-5%%", blocked, truth);
	ck_assert_int_eq(blocked_spin, 0);
	/* 400 ms of spinning at 199 Hz: about 80 samples; the machine may be
	 * busy, so only that there are some. wait_here is on the CPU only to
	 * enter and leave its sleeps (some microseconds each): a stray sample
	 * there is possible, a tenth of spin's is not. */
	ck_assert_msg(cpu > 0, "cpu-clock: no sample in spin");
	ck_assert_msg(cpu_wait * 10 <= cpu, "cpu-clock: %lld samples in wait_here, %lld in spin",
		      cpu_wait, cpu);
	unlink(file);
	rmdir(dir);
	free(out);
	free(err);
}
END_TEST

Suite *suite_event_sources(void)
{
	Suite *s = suite_create("event_sources");
	TCase *tc;

	if (!pk_test_need_root(s, "events need BPF and perf events"))
		return s;
	tc = pk_e2e_tcase(s, "off_cpu", 120);
	tcase_add_loop_test(tc, test_offcpu_sleep, 0, NVARIANTS);
	tcase_add_loop_test(tc, test_offcpu_pipe_futex, 0, NVARIANTS);
	tcase_add_loop_test(tc, test_offcpu_io, 0, NVARIANTS);
	pk_ev_probes_tcases(s);
	tc = pk_e2e_tcase(s, "several", 120);
	tcase_add_test(tc, test_two_events_pprof);
	pk_ev_refusals_tcases(s);
	return s;
}
