// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The stack oracle: probekit and `perf record` profile the same fixture over
 * the same window, and their stacks must agree as distributions.
 *
 * Like for like: probekit's frame-pointer walk (--unwind fp) with perf's
 * frame-pointer call graph (--call-graph fp) on the fixtures built with frame
 * pointers: both tools should see the same chains, including the ones libc
 * breaks (a libc function without a frame of its own hides its caller from
 * both). And probekit's DWARF walk (--unwind dwarf) with perf's
 * --call-graph dwarf on the fixtures built without frame pointers
 * (tests/fixtures_nofp/): both should find every chain whole.
 *
 * Both tools sample on their own cpu-clock timers at 99 Hz, so they never
 * see the same samples: the comparison is of shares, with a tolerance from
 * binomial sampling statistics (tests/harness/share_compare.h).
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/perf_script.h"
#include "harness/share_compare.h"
#include "harness/sym_aliases.h"
#include "integration/profile_session.h"
#include "test_util.h"

#define FREQ_STR	"99"
/* Seconds of CPU time the fixture runs (tests/cpu_budget.h): about 400
 * samples per side however busy the machine is. It holds itself stopped
 * once its files are mapped (PK_FIXTURE_HOLD) until both tools sample it,
 * so the whole budget is sampled by both. */
#define BUDGET_STR	"4"
#define HELD		"PK_FIXTURE_HOLD=1 exec \"$0\" " BUDGET_STR
/* Or, let go, it starts a second later (probe-read is reading by then, and
 * its ring buffer empty) and runs for 3 s of CPU time. */
#define HELD_LATE	"kill -STOP $$; sleep 1; exec \"$0\" 3"
/* Both tools stop when the fixture exits: -d and this only bound a broken
 * run. */
#define UNTIL_EXIT_STR	"60"
#define PERF_READY_S	60

/* A stack holding at least this share on either side must agree. */
#define SIGNIFICANT	0.05
/*
 * Shares of one stack may differ by SIGMAS standard errors. A normal
 * deviate exceeds 4 with probability 6.3e-5: with the 9 significant stacks
 * of the 4 runs below, a false alarm about once in 1800 runs. At 400
 * samples a side, 4 sigma is 14.1 points for a stack at 50%, 8.5 at 10%
 * and 6.2 at 5%: a frame lost or added in a tenth of the samples fails.
 * The standard error is binomial's only while where a sample falls in the
 * fixture's work is independent of where the last one fell: a fixture
 * that repeats one sequence of stacks lets each 99 Hz timer, at its own
 * phase, see the same few points of it sample after sample. The fixtures
 * with several stacks draw their work at random (demo's jobs, qsort's
 * sizes) for that.
 */
#define SIGMAS		4.0
/* Under 200 samples a side 4 sigma exceeds 20 points at 50%: too blunt for
 * the comparison to mean anything, so the run is invalid, not a pass. */
#define MIN_SAMPLES	200
/*
 * Samples in stacks the other side never saw. With 400 samples a side only
 * a stack under about 1.5% of the time can go unseen by chance ((1 - q)^400
 * is 1.8% at q = 1%, 0.03% at 2%), so the one-sided mass is the tail of
 * rare stacks -- a kernel path the fixture's system call takes now and
 * then, a PLT stub; interrupts are cut off (normalize_stack()). The bound is
 * the size of one significant stack: a systematic difference that large
 * fails even when it spreads over many rare stacks.
 */
#define ONE_SIDED_MAX	0.05

/*
 * How both sides unwind. perf --call-graph dwarf copies STACK_DUMP bytes of
 * the user stack per sample and unwinds them afterwards (libdw): 8 KiB by
 * default, which holds about 128 frames of the recursion fixture, not 250.
 * For that one the dump is perf's maximum, 65528 bytes, and perf script's
 * --max-stack (127 by default, from kernel.perf_event_max_stack) is raised
 * over probekit's 256 frames: both sides then see the whole recursion, and
 * the comparison is of whole stacks, not of leaf-most parts.
 */
struct mode {
	const char *unwind;	/* probe-load --unwind */
	const char *call_graph;	/* perf record --call-graph */
	const char *max_stack;	/* perf script --max-stack */
};

static const struct mode fp_mode = { "fp", "fp", "127" };
static const struct mode dwarf_mode = { "dwarf", "dwarf", "127" };
static const struct mode dwarf_deep_mode = { "dwarf", "dwarf,65528", "300" };

/* One fixture profiled by both tools, everything they printed. */
struct both {
	bool held, perf_ready;
	int load_rc, read_rc, unload_rc, record_status, script_status;
	char *pk_out, *pk_err, *record_log, *script, *script_err;
};

static void both_free(struct both *r)
{
	free(r->pk_out);
	free(r->pk_err);
	free(r->record_log);
	free(r->script);
	free(r->script_err);
}

/*
 * Tell perf record (--control fifo:CTL,ACK) to enable its events and wait
 * for its ack: perf reads its control fifo only in its main loop, once its
 * events are enabled, so after the ack it samples the target. False when
 * perf exited or did not answer within PERF_READY_S.
 */
static bool perf_enabled(int ctl_fd, int ack_fd, pid_t perf)
{
	char ack[8] = "";
	int status;

	if (write(ctl_fd, "enable\n", 7) != 7)
		return false;
	for (int i = 0; i < PERF_READY_S * 10; i++) {
		struct pollfd p = { ack_fd, POLLIN, 0 };

		if (poll(&p, 1, 100) == 1)
			return read(ack_fd, ack, sizeof(ack) - 1) > 0 && !strncmp(ack, "ack", 3);
		if (waitpid(perf, &status, WNOHANG) == perf)
			return false;
	}
	return false;
}

/*
 * Start FIXTURE held stopped (or LATE: held, then a second more), then
 * probekit (probe-load -p) and perf record -p on it; let it go once both
 * sample, and read until it exits, its CPU budget used. Nothing is
 * asserted until every process is gone and perf's files are removed: a
 * failure leaves nothing behind.
 */
static void profile_with_both(const char *path, bool late, const struct mode *m,
			      struct both *r)
{
	char dir[] = "/tmp/pk-perf-XXXXXX", data[64], log[64], ctl[64], ack[64];
	char control[160], pid_str[16];
	char *fx_argv[] = { "sh", "-c", late ? HELD_LATE : HELD, (char *)path, NULL };
	const char *load[] = { "-p", pid_str, "-F", FREQ_STR, "--unwind", m->unwind, NULL };
	/* perf script runs with --no-inline: the same functions on both sides */
	const char *read[] = { "-d", UNTIL_EXIT_STR, "--no-inline", NULL };
	/* without a command, perf record -p stops when the target exits */
	char *record[] = { "perf", "record", "-F", FREQ_STR, "--call-graph", (char *)m->call_graph,
			   "--no-buildid-cache", "-p", pid_str, "-o", data,
			   "--control", control, NULL };
	char *script[] = { "perf", "script", "-i", data, "--no-inline",
			   "--max-stack", (char *)m->max_stack,
			   "-F", "comm,pid,tid,ip,sym,dso", NULL };
	int ctl_fd, ack_fd, status;
	pid_t fx, perf = -1;

	memset(r, 0, sizeof(*r));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(log, sizeof(log), "%s/record.log", dir);
	snprintf(ctl, sizeof(ctl), "%s/ctl", dir);
	snprintf(ack, sizeof(ack), "%s/ack", dir);
	snprintf(control, sizeof(control), "fifo:%s,%s", ctl, ack);
	ck_assert_int_eq(mkfifo(ctl, 0600), 0);
	ck_assert_int_eq(mkfifo(ack, 0600), 0);
	/* read-write: neither open waits for the other end */
	ctl_fd = open(ctl, O_RDWR | O_CLOEXEC);
	ack_fd = open(ack, O_RDWR | O_CLOEXEC);
	ck_assert(ctl_fd >= 0 && ack_fd >= 0);
	fx = pk_test_spawn(fx_argv, NULL);
	ck_assert_int_gt(fx, 0);
	snprintf(pid_str, sizeof(pid_str), "%d", (int)fx);
	r->held = waitpid(fx, &status, WUNTRACED) == fx && WIFSTOPPED(status);

	r->load_rc = r->held ? pk_e2e_load(load) : -1;
	if (r->load_rc == 0) {
		perf = pk_test_spawn(record, log);
		r->perf_ready = perf > 0 && perf_enabled(ctl_fd, ack_fd, perf);
		if (r->perf_ready) {
			kill(fx, SIGCONT);
			r->read_rc = pk_e2e_read(read, &r->pk_out, &r->pk_err);
		}
		r->unload_rc = pk_e2e_unload();
	}
	kill(fx, SIGKILL);
	pk_test_wait(fx);
	r->record_status = perf > 0 ? pk_test_wait(perf) : -1;
	r->record_log = pk_test_read_file(log, NULL);
	if (perf > 0)
		r->script_status = pk_test_run(script, &r->script, &r->script_err);
	close(ctl_fd);
	close(ack_fd);
	unlink(ctl);
	unlink(ack);
	unlink(data);
	unlink(log);
	rmdir(dir);
}

static bool exited_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* perf's messages, each line prefixed, for the record of the run. */
static void print_perf_messages(const char *what, const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchrnul(p, '\n');

		fprintf(stderr, "  %s: %.*s\n", what, (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

/* --- normalization --------------------------------------------------------- */

/* Where names come from: perf's files for user frames, kallsyms for kernel. */
struct names {
	struct sa_aliases *user, *kernel;
};

static void names_load(struct names *n, const struct ps_stacks *perf)
{
	char err[512] = "";
	char *kallsyms = pk_test_read_file("/proc/kallsyms", NULL);

	n->user = sa_aliases_new();
	n->kernel = sa_aliases_new();
	ck_assert(n->user && n->kernel && kallsyms);
	for (size_t i = 0; i < perf->ndsos; i++)
		ck_assert_msg(sa_aliases_add_elf(n->user, perf->dsos[i], err, sizeof(err)) == 0,
			      "%s", err);
	ck_assert_msg(sa_aliases_add_kallsyms(n->kernel, kallsyms, err, sizeof(err)) == 0,
		      "%s", err);
	free(kallsyms);
}

static void names_free(struct names *n)
{
	sa_aliases_free(n->user);
	sa_aliases_free(n->kernel);
}

/*
 * One frame as the comparison sees it. Only what the two tools name
 * differently for the same code is changed:
 * - "[...]": no symbol. probekit prints [FILE+0xADDR] (or [vdso+0x..],
 *   [anon], [unknown] without a mapping), perf "[unknown]": "[unknown]".
 * - "NAME@plt": both name PLT stubs, but Debian 12's perf (6.1) pairs .plt
 *   stubs with .rela.plt in order, which glibc's are not in (IRELATIVE
 *   relocations last, their stubs first), and names no .plt.got stub:
 *   "[unknown]". test_plt.c holds probekit's names to objdump's.
 * - aliases: one address, several symbols (read/__read, random/__random,
 *   __memcpy_/__memmove_avx512_unaligned_erms); the tools pick by different
 *   rules: the canonical alias (tests/harness/sym_aliases.h).
 * perf's kernel entry frames (entry_SYSCALL_64_after_hwframe) and offsets
 * need nothing: with these fields perf prints no +0x offsets, and both
 * tools name entry code from the same kallsyms.
 */
static const char *normalize_frame(struct names *n, const char *frame, bool kernel)
{
	size_t len = strlen(frame);

	if (frame[0] == '[' && frame[len - 1] == ']')
		return "[unknown]";
	if (len >= 4 && !strcmp(frame + len - 4, "@plt"))
		return "[unknown]";
	return sa_aliases_canonical(kernel ? n->kernel : n->user, frame);
}

/*
 * An asynchronous interrupt's entry: a system vector (the local APIC's
 * timer, reschedule and irq_work IPIs) or a device's IRQ. Exceptions
 * (asm_exc_*: page faults, int3) are the fixture's own code and stay.
 */
static bool interrupt_entry(const char *frame)
{
	return !strncmp(frame, "asm_sysvec_", 11) || !strcmp(frame, "asm_common_interrupt") ||
	       !strcmp(frame, "asm_spurious_interrupt");
}

/*
 * A stack normalized, and cut at an interrupt's entry: what an interrupt
 * was doing at the instant a sample was taken is each tool's own timing,
 * not the fixture's. The sample is of the code the interrupt stopped. Each
 * tool's own interrupts (perf's irq_work) show only on its side, and on a
 * busy machine the return from an interrupt often preempts the fixture:
 * a per-task timer (perf -p) that expired while it was off the CPU fires
 * as it comes back, in finish_task_switch, where the per-CPU timers
 * probekit uses fire only by chance. Those paths are many, each rare, and
 * grow with the machine's load: uncut, they filled half of the one-sided
 * share a busy run allows (ONE_SIDED_MAX), where a stack lost or added by
 * one side's walk must show.
 */
static char *normalize_stack(struct names *n, const char *stack)
{
	static const char ksuffix[] = "_[k]";
	const size_t klen = sizeof(ksuffix) - 1;
	char *copy = strdup(stack), *frame, *save = NULL, *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	bool first = true;

	ck_assert(copy && f);
	for (frame = strtok_r(copy, ";", &save); frame; frame = strtok_r(NULL, ";", &save)) {
		size_t len = strlen(frame);
		bool kernel = !first && len > klen && !strcmp(frame + len - klen, ksuffix);

		if (kernel)
			frame[len - klen] = '\0';
		if (kernel && interrupt_entry(frame))
			break;
		/* the root is the comm, not a symbol */
		fprintf(f, "%s%s%s", first ? "" : ";",
			first ? frame : normalize_frame(n, frame, kernel), kernel ? ksuffix : "");
		first = false;
	}
	ck_assert_int_eq(fclose(f), 0);
	free(copy);
	return out;
}

/* FOLDED (probe-read's format) normalized, as counts for the comparison. */
static struct sc_count *normalized_counts(struct names *n, const char *folded,
					  const char *who, size_t *count)
{
	const char *bad = NULL;
	struct pk_folded f;
	struct sc_count *c;

	ck_assert_msg(pk_folded_parse(folded, &f, &bad), "%s: not folded format: '%s'", who, bad);
	c = calloc(f.n ? f.n : 1, sizeof(*c));
	ck_assert_ptr_nonnull(c);
	for (size_t i = 0; i < f.n; i++)
		c[i] = (struct sc_count){ normalize_stack(n, f.lines[i].stack), f.lines[i].count };
	*count = f.n;
	pk_folded_free(&f);
	return c;
}

static void counts_free(struct sc_count *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)c[i].stack);
	free(c);
}

/* --- the comparison ---------------------------------------------------------- */

/* FIXTURE is the file's path; NAME what the messages call it. */
static void compare_with_perf_mode(const char *name, const char *fixture, bool late,
				   const struct mode *m)
{
	struct both r;
	struct pk_e2e_summary sum;
	struct ps_stacks perf;
	struct names names;
	struct sc_count *pk_counts, *perf_counts;
	size_t npk, nperf;
	struct sc_result res;
	char err[512] = "";

	profile_with_both(fixture, late, m, &r);
	ck_assert_msg(r.held, "the fixture did not stop itself");
	ck_assert_msg(r.load_rc == 0, "probe-load -p failed");
	ck_assert_msg(r.perf_ready, "perf record did not enable its events:\n%s", r.record_log);
	ck_assert_msg(r.read_rc == 0, "probe-read failed: %s", r.pk_err);
	ck_assert_int_eq(r.unload_rc, 0);
	ck_assert_msg(exited_ok(r.record_status), "perf record failed:\n%s", r.record_log);
	ck_assert_msg(exited_ok(r.script_status), "perf script failed:\n%s", r.script_err);
	ck_assert_msg(pk_e2e_parse_summary(r.pk_err, &sum), "no summary line in: %s", r.pk_err);
	ck_assert_msg(ps_stacks_parse(r.script, &perf, err, sizeof(err)) == 0, "%s", err);

	names_load(&names, &perf);
	pk_counts = normalized_counts(&names, r.pk_out, "probe-read", &npk);
	perf_counts = normalized_counts(&names, perf.folded, "perf script", &nperf);
	ck_assert_int_eq(sc_compare(pk_counts, npk, perf_counts, nperf, SIGNIFICANT, SIGMAS,
				    &res), 0);

	fprintf(stderr, "perf oracle, %s, --unwind %s against --call-graph %s, %s at %s Hz: "
		"probekit %llu samples (%llu lost, %llu failed stacks), perf %lu samples; "
		"shares after normalization, tolerance %.0f sigma:\n", name, m->unwind,
		m->call_graph,
		late ? "started late, 3 s CPU" : BUDGET_STR " s CPU", FREQ_STR,
		sum.read, sum.lost, sum.failed, perf.samples, SIGMAS);
	sc_result_print(stderr, &res, "probekit", "perf");
	print_perf_messages("perf record", r.record_log);
	print_perf_messages("perf script", r.script_err);

	ck_assert_msg(res.total_a >= MIN_SAMPLES && res.total_b >= MIN_SAMPLES,
		      "too few samples to compare: probekit %lu, perf %lu (need %d)",
		      res.total_a, res.total_b, MIN_SAMPLES);
	ck_assert_msg(res.disagree == 0, "%zu stacks of %s hold different shares "
		      "in probekit and perf (table above)", res.disagree, name);
	ck_assert_msg(res.only_a <= ONE_SIDED_MAX && res.only_b <= ONE_SIDED_MAX,
		      "%s: %.1f%% of probekit's samples in stacks perf never saw, "
		      "%.1f%% of perf's in stacks probekit never saw (at most %.0f%%)",
		      name, 100 * res.only_a, 100 * res.only_b, 100 * ONE_SIDED_MAX);

	sc_result_free(&res);
	counts_free(pk_counts, npk);
	counts_free(perf_counts, nperf);
	names_free(&names);
	ps_stacks_free(&perf);
	both_free(&r);
}

/* A fixture with frame pointers (tests/fixtures/), both sides walking them. */
static void compare_with_perf(const char *fixture, bool late)
{
	compare_with_perf_mode(fixture, pk_e2e_fixture(fixture), late, &fp_mode);
}

/* main -> a -> b -> c -> hot, all in user space. */
START_TEST(test_fp_chain)
{
	compare_with_perf("fp_chain", false);
}
END_TEST

/* main -> a -> b -> c -> read(2): mostly kernel frames under libc's read. */
START_TEST(test_syscall_chain)
{
	compare_with_perf("syscall_chain", false);
}
END_TEST

/*
 * A target that starts after probe-read and exits before the session ends:
 * probekit must read its stacks while it lives, or its mappings are gone
 * and every user frame is [unknown] (perf keeps its mmap events). Ring
 * buffer records that come without a wakeup were once only read at the
 * end.
 */
START_TEST(test_target_exits)
{
	compare_with_perf("syscall_chain", true);
}
END_TEST

/* Through libc's qsort, whose frameless functions break both tools' chains
 * the same way, plus /dev/urandom reads in the kernel. */
START_TEST(test_demo)
{
	compare_with_perf("demo", false);
}
END_TEST

/* --- DWARF: the fixtures without frame pointers ------------------------------ */

static const char *const nofp_variants[] = { "gcc-pie", "gcc-nopie", "clang-pie",
					     "clang-nopie" };
#define NOFP_NVARIANTS (int)(sizeof(nofp_variants) / sizeof(nofp_variants[0]))

static void compare_nofp(const char *name, int variant, const struct mode *m)
{
	char file[128], path[4096];

	snprintf(file, sizeof(file), "%s-%s", name, nofp_variants[variant]);
	pk_e2e_fixture_nofp(file, path, sizeof(path));
	compare_with_perf_mode(file, path, false, m);
}

/* main -> f1 -> ... -> f5, %rbp junk below f3. */
START_TEST(test_dwarf_chain5)
{
	compare_nofp("chain5", _i, &dwarf_mode);
}
END_TEST

/* Callers of libc's frameless merge sort: main;sort_step;qsort_r;msort...;compare. */
START_TEST(test_dwarf_qsort)
{
	compare_nofp("qsort", _i, &dwarf_mode);
}
END_TEST

/* main -> lib_a -> lib_b (a .so) -> app_callback. */
START_TEST(test_dwarf_shlib)
{
	compare_nofp("shlib", _i, &dwarf_mode);
}
END_TEST

/* 250 frames of recursion: perf with its largest stack copy (see struct mode). */
START_TEST(test_dwarf_recurse)
{
	compare_nofp("recurse", _i, &dwarf_deep_mode);
}
END_TEST

Suite *suite_perf_oracle(void)
{
	Suite *s = suite_create("perf_oracle");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF programs and runs perf record"))
		return s;
	tc = pk_e2e_tcase(s, "fp_call_graphs", 120);
	tcase_add_test(tc, test_fp_chain);
	tcase_add_test(tc, test_syscall_chain);
	tcase_add_test(tc, test_target_exits);
	tcase_add_test(tc, test_demo);

	tc = pk_e2e_tcase(s, "dwarf_call_graphs", 120);
	tcase_add_loop_test(tc, test_dwarf_chain5, 0, NOFP_NVARIANTS);
	tcase_add_loop_test(tc, test_dwarf_qsort, 0, NOFP_NVARIANTS);
	tcase_add_loop_test(tc, test_dwarf_shlib, 0, NOFP_NVARIANTS);
	tcase_add_loop_test(tc, test_dwarf_recurse, 0, NOFP_NVARIANTS);
	return s;
}
