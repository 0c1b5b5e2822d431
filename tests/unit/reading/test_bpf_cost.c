// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reading/bpf_cost.h"
#include "test_util.h"

static struct pk_event_desc event(const char *name, __u32 kind, __u32 prog0, __u32 prog1)
{
	struct pk_event_desc e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", name);
	e.kind = kind;
	e.sample_every = 1;
	e.prog_ids[0] = prog0;
	e.prog_ids[1] = prog1;
	return e;
}

/* What pk_bpf_cost_report prints, in a malloc'ed string. */
static char *report(const struct pk_event_desc *ev, unsigned int n,
		    const __u64 (*counts)[PK_ECNT_SLOTS], const struct pk_prog_run *before,
		    const struct pk_prog_run *after, unsigned int nprogs, __u64 interval_ns)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	pk_bpf_cost_report(f, ev, n, counts, before, after, nprogs, interval_ns);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

START_TEST(test_prog_ids)
{
	struct pk_event_desc ev[4] = {
		event("tracepoint:a:b", PK_EVK_TRACEPOINT, 30, 0),
		event("off-cpu", PK_EVK_OFFCPU, 12, 40),
		event("tracepoint:c:d", PK_EVK_TRACEPOINT, 30, 0),
		event("cpu-clock", PK_EVK_PERF, 0, 12),
	};
	__u32 ids[8];

	ck_assert_uint_eq(pk_bpf_cost_prog_ids(ev, 4, ids), 3);
	ck_assert_uint_eq(ids[0], 12);
	ck_assert_uint_eq(ids[1], 30);
	ck_assert_uint_eq(ids[2], 40);
	ck_assert_uint_eq(pk_bpf_cost_prog_ids(ev, 0, ids), 0);
}
END_TEST

/* Figures worked out by hand from the readings: per run = run time delta /
 * run count delta; off-cpu's first program per context switch, its second
 * per block sampled; a program run by two events is said to be shared. */
START_TEST(test_report_figures)
{
	struct pk_event_desc ev[4] = {
		event("cpu-clock", PK_EVK_PERF, 5, 0),
		event("off-cpu", PK_EVK_OFFCPU, 9, 11),
		event("tracepoint:syscalls:sys_enter_write", PK_EVK_TRACEPOINT, 7, 0),
		event("tracepoint:block:block_rq_issue", PK_EVK_TRACEPOINT, 7, 0),
	};
	const __u64 counts[4][PK_ECNT_SLOTS] = {
		[0] = { [PK_ECNT_HITS] = 4000, [PK_ECNT_SAMPLES] = 3990, [PK_ECNT_LOST] = 10 },
		[1] = { [PK_ECNT_HITS] = 700, [PK_ECNT_SAMPLES] = 200, [PK_ECNT_SHORT] = 500 },
		[2] = { [PK_ECNT_HITS] = 1000, [PK_ECNT_SAMPLES] = 100, [PK_ECNT_SKIPPED] = 900 },
		[3] = { [PK_ECNT_HITS] = 3, [PK_ECNT_SAMPLES] = 3 },
	};
	const struct pk_prog_run before[4] = {
		{ .id = 5, .run_time_ns = 1000000, .run_cnt = 1000 },
		{ .id = 7, .run_time_ns = 0, .run_cnt = 0 },
		{ .id = 9, .run_time_ns = 5000, .run_cnt = 100 },
		{ .id = 11, .run_time_ns = 0, .run_cnt = 0 },
	};
	const struct pk_prog_run after[4] = {
		/* 3000 runs in 2.4 ms: 800 ns each */
		{ .id = 5, .run_time_ns = 3400000, .run_cnt = 4000 },
		/* 1003 runs in 651950 ns: 650 ns each */
		{ .id = 7, .run_time_ns = 651950, .run_cnt = 1003 },
		/* 48000 switches in 1.92 ms: 40 ns each */
		{ .id = 9, .run_time_ns = 1925000, .run_cnt = 48100 },
		/* 200 blocks sampled in 301 us: 1505 ns each */
		{ .id = 11, .run_time_ns = 301000, .run_cnt = 200 },
	};
	char *out;

	ev[1].min_block_ns = 1500;
	ev[2].sample_every = 10;
	out = report(ev, 4, counts, before, after, 4, 2000000000ull);
	ck_assert_str_eq(out,
		"events (counters since the session began; BPF run time over the last 2.0 s, kernel.bpf_stats):\n"
		"  cpu-clock: 4000 hits, 3990 samples, 10 lost; BPF 800 ns per run (3000 runs, program 5)\n"
		"  off-cpu: 700 hits, 200 samples, 500 short blocks (< 1.5 us), 0 lost;"
		" BPF 40 ns added per context switch (48000 switches, program 9);"
		" 1505 ns per block sampled (200 runs, program 11)\n"
		"  tracepoint:syscalls:sys_enter_write: 1000 hits, 100 samples,"
		" 900 skipped (one in 10 sampled), 0 lost;"
		" BPF 650 ns per run (1003 runs, program 7, shared with tracepoint:block:block_rq_issue)\n"
		"  tracepoint:block:block_rq_issue: 3 hits, 3 samples, 0 lost;"
		" BPF 650 ns per run (1003 runs, program 7, shared with tracepoint:syscalls:sys_enter_write)\n"
		/* 2.4 + 0.65195 + 1.92 + 0.301 ms over 2 s */
		"  BPF in all: 5.273 ms of CPU, 0.264% of one CPU\n");
	free(out);
}
END_TEST

/* A program gone, one not run over the interval, one whose counters went
 * backwards (not the same program), an event without a program, and no
 * counters at all: each said as it is, none turned into a figure. */
START_TEST(test_report_unknowns)
{
	struct pk_event_desc ev[4] = {
		event("uprobe:/bin/x:f", PK_EVK_UPROBE, 3, 0),
		event("usdt:/bin/x:p:n", PK_EVK_USDT, 4, 0),
		event("kprobe:vfs_write", PK_EVK_KPROBE, 6, 0),
		event("page-faults", PK_EVK_PERF, 0, 0),
	};
	const struct pk_prog_run before[3] = {
		{ .id = 3, .run_time_ns = 10, .run_cnt = 1 },
		{ .id = 4, .run_time_ns = 10, .run_cnt = 1 },
		{ .id = 6, .run_time_ns = 500, .run_cnt = 5 },
	};
	const struct pk_prog_run after[3] = {
		{ .id = 3, .err = -ENOENT },
		{ .id = 4, .run_time_ns = 10, .run_cnt = 1 },
		{ .id = 6, .run_time_ns = 400, .run_cnt = 4 },
	};
	char *out = report(ev, 4, NULL, before, after, 3, 500000000ull);

	ck_assert_str_eq(out,
		"events (BPF run time over the last 0.5 s, kernel.bpf_stats):\n"
		"  uprobe:/bin/x:f: BPF program 3 gone\n"
		"  usdt:/bin/x:p:n: BPF program 4 not run\n"
		"  kprobe:vfs_write: BPF program 6 unreadable\n"
		"  page-faults: BPF program not known\n"
		"  BPF in all: 0.000 ms of CPU, 0.000% of one CPU\n");
	free(out);
	/* no events: nothing at all */
	out = report(ev, 0, NULL, before, after, 3, 1);
	ck_assert_str_eq(out, "");
	free(out);
}
END_TEST

/* --- against the kernel -------------------------------------------------- */

static int load_ret0(void)
{
	static const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "pk_cost_test", "GPL", ret0, 2, NULL);

	ck_assert_msg(fd >= 0, "bpf_prog_load: %s", strerror(errno));
	return fd;
}

static __u32 prog_id(int fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	ck_assert_int_eq(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	return info.id;
}

/* Run the program N times in the kernel (BPF_PROG_TEST_RUN, repeat N):
 * each run counts once in its statistics. */
static void run_prog(int fd, unsigned int n)
{
	char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt),
		    .repeat = n);

	ck_assert_msg(bpf_prog_test_run_opts(fd, &opts) == 0, "test run: %s", strerror(errno));
}

/* run_time_ns and run_cnt of program ID as bpftool reads them (it leaves
 * out a counter that is 0). */
static void bpftool_runs(__u32 id, __u64 *run_time_ns, __u64 *run_cnt)
{
	char ids[16], *out = NULL, *p;
	char *argv[] = { "bpftool", "prog", "show", "id", ids, "-j", NULL };
	int st;

	snprintf(ids, sizeof(ids), "%u", id);
	st = pk_test_run(argv, &out, NULL);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "bpftool: %s",
		      out ? out : "");
	p = strstr(out, "\"run_time_ns\":");
	*run_time_ns = p ? strtoull(p + strlen("\"run_time_ns\":"), NULL, 10) : 0;
	p = strstr(out, "\"run_cnt\":");
	*run_cnt = p ? strtoull(p + strlen("\"run_cnt\":"), NULL, 10) : 0;
	free(out);
}

/* A real program run exactly N times between start and print: print says N
 * runs, and the run time per run is bpftool's run time delta over N. The
 * kernel counts runs only while statistics are on, so bpftool's count rising
 * by N is what shows the object turned them on. (The sysctl cannot show it:
 * it reads back only what was written to it, not BPF_ENABLE_STATS.) */
START_TEST(test_real_program)
{
	enum { N = 1000 };
	int fd = load_ret0();
	__u32 id = prog_id(fd);
	struct pk_event_desc ev[2] = {
		event("tracepoint:syscalls:sys_enter_write", PK_EVK_TRACEPOINT, id, 0),
		event("off-cpu", PK_EVK_OFFCPU, id, 0),
	};
	__u64 t0, c0, t1, c1;
	char err[PK_ERR_LEN], want[512], *out = NULL;
	struct pk_bpf_cost *cost;
	size_t len = 0;
	FILE *f;

	bpftool_runs(id, &t0, &c0);
	ck_assert_int_eq(pk_bpf_cost_start(ev, 2, &cost, err), 0);
	run_prog(fd, N);
	f = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(f);
	pk_bpf_cost_print(cost, ev, 2, NULL, f);
	fclose(f);
	bpftool_runs(id, &t1, &c1);
	ck_assert_uint_eq(c1 - c0, N);
	ck_assert_uint_gt(t1, t0);
	snprintf(want, sizeof(want),
		 "  tracepoint:syscalls:sys_enter_write: BPF %.0f ns per run (%d runs, program %u,"
		 " shared with off-cpu)\n"
		 "  off-cpu: BPF %.0f ns added per context switch (%d switches, program %u,"
		 " shared with tracepoint:syscalls:sys_enter_write)\n"
		 "  BPF in all: %.3f ms of CPU,",
		 (double)(t1 - t0) / N, N, id, (double)(t1 - t0) / N, N, id, (t1 - t0) / 1e6);
	ck_assert_msg(strstr(out, want), "got:\n%s\nwant:\n%s", out, want);
	free(out);
	pk_bpf_cost_free(cost);
	close(fd);
}
END_TEST

/* A program that is gone by the time the reader starts (ids are not
 * reused soon: the kernel hands them out cyclically): reported gone, no
 * error. Counters of an event with no program do not stop the others. */
START_TEST(test_real_gone)
{
	int fd = load_ret0(), live = load_ret0();
	__u32 id = prog_id(fd), live_id = prog_id(live);
	struct pk_event_desc ev[2] = {
		event("uprobe:/bin/true:main", PK_EVK_UPROBE, id, 0),
		event("usdt:/bin/true:p:n", PK_EVK_USDT, live_id, 0),
	};
	const __u64 counts[2][PK_ECNT_SLOTS] = { { [PK_ECNT_HITS] = 2 }, { 0 } };
	char err[PK_ERR_LEN], want[256], *out = NULL;
	struct pk_bpf_cost *cost;
	size_t len = 0;
	FILE *f;

	close(fd);
	/* the program is freed after an RCU grace period */
	for (int i = 0; i < 200; i++) {
		int again = bpf_prog_get_fd_by_id(id);

		if (again < 0)
			break;
		close(again);
		usleep(10000);
	}
	ck_assert_int_eq(pk_bpf_cost_start(ev, 2, &cost, err), 0);
	run_prog(live, 3);
	f = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(f);
	pk_bpf_cost_print(cost, ev, 2, counts, f);
	fclose(f);
	snprintf(want, sizeof(want), "  uprobe:/bin/true:main: 2 hits, 0 samples, 0 lost;"
		 " BPF program %u gone\n", id);
	ck_assert_msg(strstr(out, want), "got:\n%s", out);
	snprintf(want, sizeof(want), "(3 runs, program %u)\n", live_id);
	ck_assert_msg(strstr(out, want), "got:\n%s", out);
	free(out);
	pk_bpf_cost_free(cost);
	close(live);
}
END_TEST

Suite *suite_bpf_cost(void)
{
	Suite *s = suite_create("bpf_cost");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, test_prog_ids);
	tcase_add_test(tc, test_report_figures);
	tcase_add_test(tc, test_report_unknowns);
	suite_add_tcase(s, tc);
	if (pk_test_need_root(s, "BPF statistics and test runs need root")) {
		tc = tcase_create("real");
		tcase_set_timeout(tc, 30);
		tcase_add_test(tc, test_real_program);
		tcase_add_test(tc, test_real_gone);
		suite_add_tcase(s, tc);
	}
	return s;
}
