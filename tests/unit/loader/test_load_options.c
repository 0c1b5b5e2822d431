// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* probe-load's option parsing and the system checks it runs before loading:
 * every accepted form and every refusal, with its exact message. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "lib/version.h"
#include "loader/options.h"
#include "loader/system.h"
#include "test_util.h"

static struct pk_load_opts o;
static char err[PK_ERR_LEN];

/* Parse the NULL-terminated words after "probe-load". */
#define PARSE(...) parse((char *[]){ "probe-load", __VA_ARGS__, NULL })

static int parse(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	pk_load_opts_free(&o);
	return pk_load_opts_parse(&o, argc, argv, err);
}

static void teardown(void)
{
	pk_load_opts_free(&o);
}

#define ck_refused(ret, msg) do {				\
	ck_assert_int_eq((ret), -EINVAL);			\
	ck_assert_str_eq(err, (msg));				\
} while (0)

START_TEST(test_defaults)
{
	char *argv[] = { "probe-load", NULL };

	ck_assert_int_eq(pk_load_opts_parse(&o, 1, argv, err), 0);
	ck_assert_int_eq(o.npids, 0);
	ck_assert_int_eq(o.cpu, -1);
	ck_assert_uint_eq(o.freq, 99);
	ck_assert(!o.skip_idle && !o.unload && !o.verbose && !o.help && !o.version);
	ck_assert_str_eq(o.pin_dir, "/sys/fs/bpf/probekit");
	ck_assert_uint_eq(o.ringbuf_bytes, 8 << 20);
	ck_assert_ptr_null(o.cmd);
	ck_assert(o.dwarf);
	ck_assert_uint_eq(o.table_rows, 0);	/* no limit but the memory's */
	ck_assert_uint_eq(o.table_memory, 256ull << 20);
	ck_assert_uint_eq(o.jobs, 0);
	ck_assert(!o.aggregate);
}
END_TEST

START_TEST(test_aggregate)
{
	ck_assert_int_eq(PARSE("--aggregate"), 0);
	ck_assert(o.aggregate);
	ck_assert_uint_eq(o.agg_entries, PK_AGG_ENTRIES_DEFAULT);
	ck_assert_int_eq(PARSE("--aggregate", "--aggregate-entries", "2K"), 0);
	ck_assert_uint_eq(o.agg_entries, 2048);
	ck_assert_int_eq(PARSE("--aggregate-entries", "1", "--aggregate", "--unwind", "fp"), 0);
	ck_assert_uint_eq(o.agg_entries, 1);
	ck_assert(o.aggregate && !o.dwarf);
	ck_assert_int_eq(PARSE("--aggregate", "--aggregate-entries", "4M"), 0);
	ck_assert_uint_eq(o.agg_entries, 4u << 20);
	ck_refused(PARSE("--aggregate", "--aggregate-entries", "0"),
		   "--aggregate-entries 0: not a number of stacks from 1 to 4M");
	ck_refused(PARSE("--aggregate", "--aggregate-entries", "4097K"),
		   "--aggregate-entries 4097K: not a number of stacks from 1 to 4M");
	ck_refused(PARSE("--aggregate-entries", "64"), "--aggregate-entries is for --aggregate");
	ck_assert_int_eq(PARSE("--unload", "--aggregate"), -EINVAL);
}
END_TEST

START_TEST(test_unwind_options)
{
	ck_assert_int_eq(PARSE("--unwind", "fp"), 0);
	ck_assert(!o.dwarf);
	ck_assert_int_eq(PARSE("--unwind=fp", "--unwind", "dwarf"), 0);	/* the last wins */
	ck_assert(o.dwarf);
	ck_assert_int_eq(PARSE("--table-rows", "4M", "-j", "3"), 0);
	ck_assert_uint_eq(o.table_rows, 4u << 20);
	ck_assert_uint_eq(o.jobs, 3);
	ck_assert_int_eq(PARSE("--table-rows=1024", "--jobs=4096", "--unwind=dwarf"), 0);
	ck_assert_uint_eq(o.table_rows, 1024);
	ck_assert_uint_eq(o.jobs, 4096);
	ck_assert_int_eq(PARSE("--table-rows", "256M", "-j1"), 0);
	ck_assert_uint_eq(o.table_rows, 1u << 28);
	ck_assert_uint_eq(o.jobs, 1);
	ck_assert_int_eq(PARSE("--table-memory", "1G"), 0);
	ck_assert_uint_eq(o.table_memory, 1ull << 30);
	ck_assert_int_eq(PARSE("--table-memory=1M", "--table-rows", "2K"), 0);
	ck_assert_uint_eq(o.table_memory, 1ull << 20);
	ck_assert_uint_eq(o.table_rows, 2048);
	ck_assert_int_eq(PARSE("--table-memory", "64G"), 0);
	ck_assert_uint_eq(o.table_memory, 64ull << 30);

	ck_refused(PARSE("--unwind", "frame"), "--unwind frame: not dwarf or fp");
	ck_refused(PARSE("--unwind", ""), "--unwind : not dwarf or fp");
	ck_refused(PARSE("--unwind", "DWARF"), "--unwind DWARF: not dwarf or fp");
	static const char *const bad_rows[] = { "1023", "257M", "1G", "x", "", "-1", "2M5" };
	char msg[PK_ERR_LEN];

	for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		snprintf(msg, sizeof(msg), "--table-rows %s: not a number of rows from 1K to 256M",
			 bad_rows[i]);
		ck_refused(PARSE("--table-rows", (char *)bad_rows[i]), msg);
	}
	static const char *const bad_bytes[] = { "1023K", "65G", "x", "", "-1", "1T" };

	for (size_t i = 0; i < sizeof(bad_bytes) / sizeof(bad_bytes[0]); i++) {
		snprintf(msg, sizeof(msg), "--table-memory %s: not a number of bytes from 1M to 64G",
			 bad_bytes[i]);
		ck_refused(PARSE("--table-memory", (char *)bad_bytes[i]), msg);
	}
	ck_refused(PARSE("-j", "0"), "-j 0: not a number of jobs (1 to 4096)");
	ck_refused(PARSE("-j", "4097"), "-j 4097: not a number of jobs (1 to 4096)");
	ck_refused(PARSE("--jobs", "two"), "-j two: not a number of jobs (1 to 4096)");
	ck_refused(PARSE("-j"), "option -j needs an argument");
	ck_refused(PARSE("--unwind", "fp", "--table-rows", "4M"),
		   "--table-memory, --table-rows, --stack-copy and -j are for --unwind dwarf");
	ck_refused(PARSE("--unwind", "fp", "--table-memory", "4M"),
		   "--table-memory, --table-rows, --stack-copy and -j are for --unwind dwarf");
	ck_refused(PARSE("-j", "2", "--unwind", "fp"),
		   "--table-memory, --table-rows, --stack-copy and -j are for --unwind dwarf");
	ck_refused(PARSE("--stack-copy", "8K", "--unwind", "fp"),
		   "--table-memory, --table-rows, --stack-copy and -j are for --unwind dwarf");
	/* the stack copy: 32 KiB unless told, 0 (none) to 60 KiB */
	ck_assert_int_eq(PARSE("-j", "1"), 0);
	ck_assert_uint_eq(o.stack_copy, 32768);
	ck_assert_int_eq(PARSE("--stack-copy", "0"), 0);
	ck_assert_uint_eq(o.stack_copy, 0);
	ck_assert_int_eq(PARSE("--stack-copy", "60K"), 0);
	ck_assert_uint_eq(o.stack_copy, 61440);
	ck_refused(PARSE("--stack-copy", "61441"),
		   "--stack-copy 61441: not a number of bytes from 0 to 60K");
	ck_refused(PARSE("--stack-copy", "x"), "--stack-copy x: not a number of bytes from 0 to 60K");
	ck_refused(PARSE("--unload", "--unwind", "fp"),
		   "--unload takes no other option than --pin-dir and -v");
	ck_refused(PARSE("--unload", "-j", "2"),
		   "--unload takes no other option than --pin-dir and -v");
}
END_TEST

START_TEST(test_all_options)
{
	ck_assert_int_eq(PARSE("-p", "12", "--pid", "34", "-p56", "-C", "1", "-F", "999",
			       "--skip-idle", "--pin-dir", "/sys/fs/bpf/x",
			       "--ringbuf-size", "65536", "-v"), 0);
	ck_assert_int_eq(o.npids, 3);
	ck_assert_int_eq(o.pids[0], 12);
	ck_assert_int_eq(o.pids[1], 34);
	ck_assert_int_eq(o.pids[2], 56);
	ck_assert_int_eq(o.cpu, 1);
	ck_assert_uint_eq(o.freq, 999);
	ck_assert(o.skip_idle && o.verbose);
	ck_assert_str_eq(o.pin_dir, "/sys/fs/bpf/x");
	ck_assert_uint_eq(o.ringbuf_bytes, 65536);

	ck_assert_int_eq(PARSE("--cpu=0", "--freq=49", "--pin-dir=/sys/fs/bpf/y"), 0);
	ck_assert_int_eq(o.cpu, 0);
	ck_assert_uint_eq(o.freq, 49);
	ck_assert_str_eq(o.pin_dir, "/sys/fs/bpf/y");
}
END_TEST

START_TEST(test_ringbuf_suffixes)
{
	ck_assert_int_eq(PARSE("--ringbuf-size", "4k"), 0);
	ck_assert_uint_eq(o.ringbuf_bytes, 4096);
	ck_assert_int_eq(PARSE("--ringbuf-size", "16M"), 0);
	ck_assert_uint_eq(o.ringbuf_bytes, 16 << 20);
	ck_assert_int_eq(PARSE("--ringbuf-size", "1G"), 0);
	ck_assert_uint_eq(o.ringbuf_bytes, 1u << 30);
	static const char *const bad[] = {
		"2G", "12T", "-4096", "0x1000", "4 k", "", "99999999999999999999",
		"17179869184G",
	};
	char msg[PK_ERR_LEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(msg, sizeof(msg), "--ringbuf-size %s: not a size of at most 1G "
			 "(bytes, or with a K, M or G suffix)", bad[i]);
		ck_refused(PARSE("--ringbuf-size", (char *)bad[i]), msg);
	}
}
END_TEST

START_TEST(test_command)
{
	/* o.cmd points into argv: keep it in scope */
	char *argv[] = { "probe-load", "-F", "499", "--", "ls", "-l", "--", "/", NULL };

	ck_assert_int_eq(parse(argv), 0);
	ck_assert_ptr_nonnull(o.cmd);
	ck_assert_str_eq(o.cmd[0], "ls");
	ck_assert_str_eq(o.cmd[1], "-l");	/* the command's options stay its own */
	ck_assert_str_eq(o.cmd[2], "--");
	ck_assert_str_eq(o.cmd[3], "/");
	ck_assert_ptr_null(o.cmd[4]);
	ck_assert_uint_eq(o.freq, 499);

	ck_refused(PARSE("-F", "99", "--"), "-- must be followed by a command to run");
	ck_refused(PARSE("ls", "-l"),
		   "unexpected argument 'ls' (a command to profile goes after --)");
	ck_refused(PARSE("-p", "1", "ls"),
		   "unexpected argument 'ls' (a command to profile goes after --)");
}
END_TEST

START_TEST(test_bad_pids)
{
	static const char *const bad[] = {
		"abc", "0", "-5", "12x", "", " 12", "\t12", "\n12", "+12", "4294967296",
	};
	char msg[PK_ERR_LEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(msg, sizeof(msg), "-p %s: not a process id (a positive number)", bad[i]);
		ck_refused(PARSE("-p", (char *)bad[i]), msg);
	}
}
END_TEST

/* --cgroup: kept in order, 16 at most, none empty; no word with --unload. */
START_TEST(test_cgroups)
{
	char *argv[2 + 2 * (PK_MAX_CGROUPS + 1)] = { "probe-load" };
	int argc = 1;

	ck_assert_int_eq(PARSE("--cgroup", "a/b", "--cgroup=/sys/fs/cgroup/c"), 0);
	ck_assert_uint_eq(o.ncgroups, 2);
	ck_assert_str_eq(o.cgroups[0], "a/b");
	ck_assert_str_eq(o.cgroups[1], "/sys/fs/cgroup/c");
	ck_refused(PARSE("--cgroup", ""), "--cgroup: empty path");
	ck_refused(PARSE("--unload", "--cgroup", "a"),
		   "--unload takes no other option than --pin-dir and -v");
	for (int i = 0; i <= PK_MAX_CGROUPS; i++) {
		argv[argc++] = "--cgroup";
		argv[argc++] = "g";
	}
	argv[argc] = NULL;
	ck_refused(parse(argv), "--cgroup g: at most 16 cgroups");
}
END_TEST

START_TEST(test_bad_cpu_and_freq)
{
	ck_refused(PARSE("-C", "x"), "-C x: not a CPU number");
	ck_refused(PARSE("-C", "-1"), "-C -1: not a CPU number");
	ck_refused(PARSE("-F", "0"), "-F 0: not a sampling rate (a positive number of Hz)");
	ck_refused(PARSE("-F", "-99"), "-F -99: not a sampling rate (a positive number of Hz)");
	ck_refused(PARSE("-F", "fast"), "-F fast: not a sampling rate (a positive number of Hz)");
	ck_refused(PARSE("-F", "99.5"), "-F 99.5: not a sampling rate (a positive number of Hz)");
	ck_refused(PARSE("-F", "99999999999"),
		   "-F 99999999999: not a sampling rate (a positive number of Hz)");
}
END_TEST

START_TEST(test_bad_words)
{
	ck_refused(PARSE("--bogus"), "unknown option --bogus (probe-load --help lists them)");
	ck_refused(PARSE("--bogus=1"), "unknown option --bogus (probe-load --help lists them)");
	ck_refused(PARSE("-x"), "unknown option -x (probe-load --help lists them)");
	ck_refused(PARSE("--skip-idle", "-vx"), "unknown option -x (probe-load --help lists them)");
	ck_refused(PARSE("--skip-idle=1"), "option --skip-idle takes no argument");
	ck_refused(PARSE("--unload=yes"), "option --unload takes no argument");
	ck_refused(PARSE("--help=x"), "option --help takes no argument");
	ck_refused(PARSE("--skip=1"), "option --skip takes no argument");	/* abbreviated */
	/* -x is not --pin-dir's fault, though it is the word before */
	ck_refused(PARSE("--pin-dir=/sys/fs/bpf/x", "-xv"),
		   "unknown option -x (probe-load --help lists them)");
	ck_refused(PARSE("-p"), "option -p needs an argument");
	ck_refused(PARSE("-vF"), "option -F needs an argument");
	ck_refused(PARSE("--pin-dir"), "option --pin-dir needs an argument");
	ck_refused(PARSE("--pin-dir", "relative/dir"),
		   "--pin-dir 'relative/dir': not an absolute path");
	ck_refused(PARSE("--pin-dir", ""), "--pin-dir '': not an absolute path");
}
END_TEST

START_TEST(test_unload)
{
	ck_assert_int_eq(PARSE("--unload"), 0);
	ck_assert(o.unload);
	ck_assert_int_eq(PARSE("--unload", "--pin-dir", "/sys/fs/bpf/t", "-v"), 0);
	ck_assert(o.unload && o.verbose);
	ck_assert_str_eq(o.pin_dir, "/sys/fs/bpf/t");
	ck_refused(PARSE("--unload", "-p", "1"),
		   "--unload takes no other option than --pin-dir and -v");
	ck_refused(PARSE("--unload", "-F", "99"),
		   "--unload takes no other option than --pin-dir and -v");
	ck_refused(PARSE("--skip-idle", "--unload"),
		   "--unload takes no other option than --pin-dir and -v");
	ck_refused(PARSE("--unload", "--ringbuf-size", "8M"),
		   "--unload takes no other option than --pin-dir and -v");
	ck_refused(PARSE("--unload", "--", "true"),
		   "--unload takes no other option than --pin-dir and -v");
}
END_TEST

START_TEST(test_list)
{
	ck_assert_int_eq(PARSE("--list"), 0);
	ck_assert(o.list);
	ck_assert_ptr_null(o.list_pattern);
	ck_assert_int_eq(PARSE("--list", "tracepoint:sched:*"), 0);
	ck_assert_str_eq(o.list_pattern, "tracepoint:sched:*");
	ck_assert_int_eq(PARSE("--list", "uprobe:/bin/ls:ma"), 0);
	ck_assert_str_eq(o.list_pattern, "uprobe:/bin/ls:ma");
	ck_refused(PARSE("--list", "a", "b"), "--list takes one PATTERN ('b' is a second)");
	ck_refused(PARSE("--list", "-p", "1"), "--list takes a PATTERN and no other option");
	ck_refused(PARSE("-e", "off-cpu", "--list"), "--list takes a PATTERN and no other option");
	ck_refused(PARSE("--list", "--unload"), "--list takes a PATTERN and no other option");
	ck_refused(PARSE("--list", "--", "true"), "--list takes a PATTERN and no other option");
}
END_TEST

START_TEST(test_help_version)
{
	ck_assert_int_eq(PARSE("-h"), 0);
	ck_assert(o.help);
	ck_assert_int_eq(PARSE("--version"), 0);
	ck_assert(o.version);
	/* --help wins over what would otherwise be refused */
	ck_assert_int_eq(PARSE("--unload", "-p", "1", "--help"), 0);
	ck_assert(o.help);
}
END_TEST

START_TEST(test_check_limits)
{
	struct pk_load_limits lim = { .max_sample_rate = 25000, .page_size = 4096 };

	ck_assert_int_eq(PARSE("-F", "25000", "--ringbuf-size", "4096"), 0);
	ck_assert_int_eq(pk_load_opts_check(&o, &lim, err), 0);
	ck_assert_int_eq(PARSE("-F", "25001"), 0);
	ck_refused(pk_load_opts_check(&o, &lim, err),
		   "-F 25001: above the kernel's limit of 25000 Hz (/proc/sys/kernel/perf_event_max_sample_rate)");
	ck_assert_int_eq(PARSE("--ringbuf-size", "2048"), 0);
	ck_refused(pk_load_opts_check(&o, &lim, err),
		   "--ringbuf-size 2048: must be a power of two of at least the page size (4096)");
	ck_assert_int_eq(PARSE("--ringbuf-size", "12288"), 0);
	ck_refused(pk_load_opts_check(&o, &lim, err),
		   "--ringbuf-size 12288: must be a power of two of at least the page size (4096)");
	lim.page_size = 65536;	/* arm64 kernels with 64 KiB pages */
	ck_assert_int_eq(PARSE("--ringbuf-size", "32k"), 0);
	ck_refused(pk_load_opts_check(&o, &lim, err),
		   "--ringbuf-size 32768: must be a power of two of at least the page size (65536)");
}
END_TEST

START_TEST(test_kernel_release)
{
	ck_assert_int_eq(pk_check_kernel_release("6.18.44-fc-v657", true, err), 0);
	ck_assert_int_eq(pk_check_kernel_release("6.1.0-27-amd64", true, err), 0);
	ck_assert_int_eq(pk_check_kernel_release("5.15.0-91-generic", false, err), 0);
	ck_assert_int_eq(pk_check_kernel_release("10.0", true, err), 0);
	/* the DWARF walk needs the maple tree of VMAs: 6.1 */
	ck_assert_int_eq(pk_check_kernel_release("5.15.0-91-generic", true, err), -EOPNOTSUPP);
	ck_assert_str_eq(err, "Linux 5.15 is too old for --unwind dwarf (the default): it needs "
			 "6.1 or newer (the maple tree of VMAs); --unwind fp needs 5.15");
	ck_assert_int_eq(pk_check_kernel_release("6.0.19", true, err), -EOPNOTSUPP);
	ck_assert_int_eq(pk_check_kernel_release("5.14.21-150400", false, err), -EOPNOTSUPP);
	ck_assert_str_eq(err, "Linux 5.14 is too old: probekit needs 5.15 or newer (BPF perf_event links)");
	ck_assert_int_eq(pk_check_kernel_release("4.19.0", true, err), -EOPNOTSUPP);
	ck_assert_str_eq(err, "Linux 4.19 is too old: probekit needs 5.15 or newer (BPF perf_event links)");
	ck_assert_int_eq(pk_check_kernel_release("weird", false, err), -EOPNOTSUPP);
	ck_assert_str_eq(err, "cannot tell the kernel version from 'weird'");
}
END_TEST

START_TEST(test_btf_and_caps)
{
	ck_assert_int_eq(pk_check_btf("/nonexistent/btf/vmlinux", err), -ENOENT);
	ck_assert_str_eq(err, "no kernel BTF (/nonexistent/btf/vmlinux: No such file or directory): "
			 "probekit needs a kernel built with CONFIG_DEBUG_INFO_BTF");

	ck_assert_int_eq(pk_check_caps(1ULL << 38 | 1ULL << 39, err), 0); /* PERFMON+BPF */
	ck_assert_int_eq(pk_check_caps(1ULL << 21, err), 0);		    /* SYS_ADMIN */
	ck_assert_int_eq(pk_check_caps(1ULL << 39, err), -EPERM);	    /* BPF alone */
	ck_assert_str_eq(err, "needs root: CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) are not in effect");
	ck_assert_int_eq(pk_check_caps(0, err), -EPERM);
}
END_TEST

START_TEST(test_cpulist)
{
	bool m[8];

	ck_assert_int_eq(pk_parse_cpulist("0-1\n", m, 8), 2);
	ck_assert(m[0] && m[1] && !m[2]);
	ck_assert_int_eq(pk_parse_cpulist("0,2-4,7", m, 8), 5);
	ck_assert(m[0] && !m[1] && m[2] && m[3] && m[4] && !m[5] && !m[6] && m[7]);
	ck_assert_int_eq(pk_parse_cpulist("3", m, 8), 1);
	ck_assert(m[3] && !m[0]);
	ck_assert_int_eq(pk_parse_cpulist("0-8", m, 8), -EINVAL);	/* beyond n */
	ck_assert_int_eq(pk_parse_cpulist("4-2", m, 8), -EINVAL);
	ck_assert_int_eq(pk_parse_cpulist("1;2", m, 8), -EINVAL);
	ck_assert_int_eq(pk_parse_cpulist("-1", m, 8), -EINVAL);
}
END_TEST

static pid_t thread_tid, thread_tgid;

/* Resolve this thread's own id while it exists. */
static void *resolve_own_tid(void *arg)
{
	char e[PK_ERR_LEN];

	thread_tid = gettid();
	if (pk_resolve_tgid(thread_tid, &thread_tgid, e))
		thread_tgid = -1;
	return arg;
}

START_TEST(test_resolve_tgid)
{
	pthread_t t;

	unsigned int pid_max;
	pid_t tgid = 0;
	char want[64];

	ck_assert_int_eq(pk_resolve_tgid(getpid(), &tgid, err), 0);
	ck_assert_int_eq(tgid, getpid());
	ck_assert(pk_process_alive(getpid()));
	/* a thread id stands for its process */
	ck_assert_int_eq(pthread_create(&t, NULL, resolve_own_tid, NULL), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_ne(thread_tid, getpid());
	ck_assert_int_eq(thread_tgid, getpid());
	/* pid_max is one past the largest pid there can be */
	ck_assert_int_eq(pk_read_uint("/proc/sys/kernel/pid_max", &pid_max), 0);
	ck_assert_int_eq(pk_resolve_tgid(pid_max, &tgid, err), -ESRCH);
	snprintf(want, sizeof(want), "-p %u: no such process", pid_max);
	ck_assert_str_eq(err, want);
	ck_assert(!pk_process_alive(pid_max));
}
END_TEST

/* The program: a usage error is one line on stderr and exit 2, before any
 * check of privileges; --help and --version exit 0. */
static void run_program(char **args, int want_status, const char *want_out,
			const char *want_err)
{
	char path[4096], *argv[8] = { (char *)pk_test_build_path("probe-load", path, sizeof(path)) };
	char *out = NULL, *errs = NULL;
	int status, n = 1;

	while (*args && n < 7)
		argv[n++] = *args++;
	status = pk_test_run(argv, &out, &errs);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), want_status);
	ck_assert_str_eq(out, want_out);
	ck_assert_str_eq(errs, want_err);
	free(out);
	free(errs);
}

#define RUN(status, out, err, ...) run_program((char *[]){ __VA_ARGS__, NULL }, status, out, err)

START_TEST(test_program_usage)
{
	char ringbuf[PK_ERR_LEN];

	/* Checked against this system's limits before the privileges. */
	snprintf(ringbuf, sizeof(ringbuf), "probe-load: --ringbuf-size 12288: must be a power of two"
		 " of at least the page size (%ld)\n", sysconf(_SC_PAGESIZE));
	RUN(2, "", ringbuf, "--ringbuf-size", "12288");
	RUN(2, "", "probe-load: unknown option --frobnicate (probe-load --help lists them)\n",
	    "--frobnicate");
	RUN(2, "", "probe-load: option -F needs an argument\n", "-F");
	RUN(2, "", "probe-load: -F 0: not a sampling rate (a positive number of Hz)\n", "-F", "0");
	RUN(2, "", "probe-load: --unload takes no other option than --pin-dir and -v\n",
	    "--unload", "-p", "1");
	RUN(2, "", "probe-load: -- must be followed by a command to run\n", "--");
	RUN(0, pk_load_usage, "", "--help");
	RUN(0, "probe-load (probekit) " PK_VERSION "\n", "", "-V");
}
END_TEST

/* A CPU that is not online is a bad value, as the parser's are: exit 2,
 * one line naming the online ones, nothing pinned (root: it is checked
 * after the privileges). */
START_TEST(test_program_offline_cpu)
{
	char dir[64], online[256] = "", cpu[16], want[PK_ERR_LEN + 64];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(online, sizeof(online), f));
	fclose(f);
	online[strcspn(online, "\n")] = '\0';
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/probekit-test-cpu-%d", (int)getpid());
	snprintf(cpu, sizeof(cpu), "%ld", ncpus);	/* one past the last */
	snprintf(want, sizeof(want), "probe-load: -C %s: no such CPU (online: %s)\n", cpu, online);
	RUN(2, "", want, "--pin-dir", dir, "-C", cpu);
	ck_assert_int_eq(access(dir, F_OK), -1);
}
END_TEST

START_TEST(test_event_options)
{
	ck_assert_int_eq(PARSE("-e", "off-cpu", "--event", "tracepoint:a:b", "-c", "10",
			       "--min-block", "500"), 0);
	ck_assert_uint_eq(o.nevents, 2);
	ck_assert_int_eq(o.events[0].kind, PK_EVK_OFFCPU);
	ck_assert_int_eq(o.events[1].kind, PK_EVK_TRACEPOINT);
	ck_assert_uint_eq(o.sample_every, 10);
	ck_assert_uint_eq(o.min_block_us, 500);
	ck_assert_int_eq(PARSE("-e", "off-cpu"), 0);
	ck_assert_uint_eq(o.min_block_us, PK_MIN_BLOCK_US_DEFAULT);
	ck_assert_uint_eq(o.sample_every, 0);

	ck_assert_int_eq(PARSE("--min-block", "5"), -EINVAL);
	ck_assert_str_eq(err, "--min-block is for -e off-cpu");
	ck_assert_int_eq(PARSE("-e", "cpu-clock", "-c", "3"), -EINVAL);
	ck_assert_str_eq(err, "-c is for probes, tracepoints, page faults and hardware events (cpu-clock samples at -F)");
	ck_assert_int_eq(PARSE("-e", "page-faults", "-c", "0"), -EINVAL);
	ck_assert_str_eq(err, "-c 0: not a count (one hit in N sampled: a positive number)");
	ck_assert_int_eq(PARSE("-e", "off-cpu", "--min-block", "-1"), -EINVAL);
	ck_assert_int_eq(PARSE("--unload", "-e", "off-cpu"), -EINVAL);
	ck_assert_int_eq(PARSE("-e", "kretprobe:vfs_write", "--no-fentry"), 0);
	ck_assert(o.no_fentry && o.events[0].kind == PK_EVK_KPROBE && o.events[0].ret);
	ck_assert_int_eq(PARSE("-e", "kprobe:vfs_write"), 0);
	ck_assert(!o.no_fentry);
	ck_assert_int_eq(PARSE("-e", "tracepoint:a:b", "--no-fentry"), -EINVAL);
	ck_assert_str_eq(err, "--no-fentry is for -e kprobe:FUNC and kretprobe:FUNC");
	ck_assert_int_eq(PARSE("--unload", "--no-fentry"), -EINVAL);
	ck_assert_int_eq(PARSE("-p", "1"), 0);
	ck_assert(!o.no_python);
	ck_assert_int_eq(PARSE("-p", "1", "--no-python"), 0);
	ck_assert(o.no_python);
	ck_assert_int_eq(PARSE("--unload", "--no-python"), -EINVAL);
	{
		/* PK_MAX_EVENTS of them are taken, one more is refused */
		char *argv[2 * PK_MAX_EVENTS + 4] = { "probe-load" };
		int argc = 1;

		for (int i = 0; i < PK_MAX_EVENTS; i++) {
			argv[argc++] = "-e";
			argv[argc++] = "page-faults";
		}
		argv[argc] = NULL;
		ck_assert_int_eq(parse(argv), 0);
		ck_assert_uint_eq(o.nevents, PK_MAX_EVENTS);
		argv[argc++] = "-e";
		argv[argc++] = "page-faults";
		argv[argc] = NULL;
		ck_assert_int_eq(parse(argv), -EINVAL);
		ck_assert_str_eq(err, "-e page-faults: at most 16 events");
	}
}
END_TEST

Suite *suite_load_options(void)
{
	Suite *s = suite_create("load_options");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_all_options);
	tcase_add_test(tc, test_unwind_options);
	tcase_add_test(tc, test_ringbuf_suffixes);
	tcase_add_test(tc, test_command);
	tcase_add_test(tc, test_unload);
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_help_version);
	tcase_add_test(tc, test_event_options);
	tcase_add_test(tc, test_aggregate);
	suite_add_tcase(s, tc);

	tc = tcase_create("refused");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_bad_pids);
	tcase_add_test(tc, test_bad_cpu_and_freq);
	tcase_add_test(tc, test_cgroups);
	tcase_add_test(tc, test_bad_words);
	tcase_add_test(tc, test_check_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("program");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_program_usage);
	if (geteuid() == 0)
		tcase_add_test(tc, test_program_offline_cpu);
	suite_add_tcase(s, tc);
	pk_test_need_root(s, "probe-load checks a CPU after the privileges");

	tc = tcase_create("system");
	tcase_add_test(tc, test_kernel_release);
	tcase_add_test(tc, test_btf_and_caps);
	tcase_add_test(tc, test_cpulist);
	tcase_add_test(tc, test_resolve_tgid);
	suite_add_tcase(s, tc);
	return s;
}
