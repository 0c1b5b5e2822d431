// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/probekit.h"
#include "lib/cli.h"
#include "lib/util/size.h"
#include "loader/options.h"

const char pk_load_usage[] =
"Usage: probe-load [OPTION...] [-- COMMAND [ARG...]]\n"
"  or:  probe-load --unload [--pin-dir DIR]\n"
"  or:  probe-load --list [PATTERN]\n"
"\n"
"Load probekit's sampling CPU profiler into the kernel, pin it under a bpffs\n"
"directory and exit (with -- COMMAND, once the command exits, with its status):\n"
"sampling goes on until `probe-load --unload`, or until the -p processes or the\n"
"command, and what they forked, have all exited. probe-read reads the samples.\n"
"\n"
"  -p, --pid PID          profile this process and the processes it forks from\n"
"                         now on (repeatable; default: every process)\n"
"      --cgroup PATH      sample only the tasks of this cgroup v2 directory\n"
"                         and of those below it (repeatable, up to 16; a\n"
"                         container's, absolute or under the cgroup2 mount:\n"
"                         system.slice/docker-ID.scope), with any event\n"
"  -C, --cpu CPU          sample this CPU only (default: all)\n"
"  -F, --freq HZ          samples per second on each CPU (default 99)\n"
"  -e, --event EVENT      sample stacks at EVENT (repeatable; default: CPU\n"
"                         time at -F): cpu-clock, cycles, instructions,\n"
"                         cache-misses, page-faults, major-faults, off-cpu\n"
"                         (time blocked, from sched_switch), kprobe:FUNC,\n"
"                         kretprobe:FUNC, tracepoint:CATEGORY:NAME,\n"
"                         uprobe:PATH:SYMBOL, uretprobe:PATH:SYMBOL,\n"
"                         usdt:PATH:PROVIDER:NAME; a return probe's stack is\n"
"                         the one the function returns to. FUNC, CATEGORY and\n"
"                         NAME may be globs: every match is attached (up to\n"
"                         1024; FUNC by kprobes). A PATH without '/' is looked\n"
"                         for in $PATH\n"
"  -c N                   sample one hit in N of probes and tracepoints; the\n"
"                         period of page-faults and hardware events\n"
"      --min-block US     off-cpu: count blocks shorter than US microseconds\n"
"                         without sampling them (default 1)\n"
"      --no-fentry        attach kprobe: and kretprobe: as kprobes even where\n"
"                         fentry and fexit work (default: those, 8 at most):\n"
"                         any number of them, no BPF trampoline on FUNC\n"
"      --skip-idle        do not sample the idle task\n"
"      --pin-dir DIR      pin under DIR (default " PK_PIN_DIR_DEFAULT ")\n"
"      --ringbuf-size N   ring buffer bytes: a power of two, at least the page\n"
"                         size; K, M, G suffixes (default 8M)\n"
"      --unwind MODE      walk user stacks with unwind tables from .eh_frame\n"
"                         (dwarf, the default: code built without frame\n"
"                         pointers too) or frame pointers only (fp)\n"
"      --table-memory N   kernel bytes the unwind tables may take, about 6 a\n"
"                         row; K, M, G suffixes (default 256M); tables of files\n"
"                         no process maps any more are given back when room is\n"
"                         needed; a file whose table does not fit is unwound\n"
"                         with frame pointers\n"
"      --table-rows N     also at most N rows; K, M suffixes (default: no limit\n"
"                         but --table-memory)\n"
"      --stack-copy N     where a file has no table yet, copy up to N bytes of\n"
"                         user stack (K suffix; default 32K, at most 60K, 0:\n"
"                         none) for probe-read to finish the walk with\n"
"      --no-python        do not walk Python frames (default: with --unwind\n"
"                         dwarf, the frames of CPython 3.11 interpreters are\n"
"                         added to their samples)\n"
"      --aggregate        count the samples of a stack already sampled in a\n"
"                         kernel map instead of sending each one: what\n"
"                         probe-read reads then has no time, thread or CPU\n"
"                         per sample (-f folded, pprof and svg; no -f perf,\n"
"                         speedscope, --per-tid or --per-cpu)\n"
"      --aggregate-entries N\n"
"                         distinct stacks the map holds between two reads\n"
"                         (K, M suffixes; default 16K); samples of more are\n"
"                         sent one by one\n"
"  -j, --jobs N           build up to N unwind tables at once (default: one\n"
"                         per online CPU)\n"
"      --unload           stop: detach and remove every pin under DIR\n"
"      --list [PATTERN]   list the events -e takes here: perf and off-cpu\n"
"                         events, tracepoints, kernel functions (kprobe:);\n"
"                         with uprobe:FILE[:PATTERN], FILE's functions and\n"
"                         USDT notes. PATTERN: a glob, or a part of the name\n"
"  -v, --verbose          show libbpf's informational output\n"
"  -h, --help             show this help\n"
"  -V, --version          show the version\n"
"\n"
"  -- COMMAND [ARG...]    start COMMAND and profile it (and the processes it\n"
"                         forks) from its first instruction, in the foreground\n"
"                         as perf record runs it: it keeps the terminal, and\n"
"                         probe-load waits for it and exits with its status\n"
"                         (128+N when signal N ended it); the session stays\n"
"                         loaded. Its pid is reported on stderr as\n"
"                         \"probekit: profiling pid PID\". What is sampled while\n"
"                         no probe-read runs waits in the ring buffer, up to\n"
"                         --ringbuf-size (then it is lost, and counted), so\n"
"                         `probe-load -- CMD; probe-read` reads it all after.\n"
"                         When the command and every process it forked (or\n"
"                         the -p targets) have exited, sampling stops: the\n"
"                         session costs nothing until --unload.\n"
"\n"
"A BPF program the kernel refuses is named in one line: the events it runs,\n"
"the kernel and the verifier's reason (-v shows its whole log). Those events\n"
"are left out and the others load; when none is left, or the program is one\n"
"every session needs, nothing is loaded.\n"
"\n"
"Needs root (CAP_BPF and CAP_PERFMON), kernel BTF and Linux >= 6.1, tested on\n"
"6.1, 6.12 and 6.18 (--unwind fp is built for 5.15, not tested there).\n"
"Exit status: 0 loaded (or unloaded, or nothing to unload), 1 error, 2 bad\n"
"usage; with -- COMMAND, once loaded, the command's.\n"
"\n"
"Examples:\n"
"  probe-load -p PID && probe-read -d 5 -f svg -o cpu.svg\n"
"                         process PID for 5 s, as a flame graph to open in a\n"
"                         browser\n"
"  probe-load -F 999 -- ./myprogram args\n"
"                         ./myprogram from its first instruction, at 999 Hz\n"
"  probe-load --skip-idle\n"
"                         the whole machine, all CPUs\n"
"  probe-load -e off-cpu -- ./server\n"
"                         where ./server waits, and for how long\n"
"  probe-load -p PID -e cpu-clock -e off-cpu\n"
"                         both, in one session\n"
"  probe-load -p PID -e kprobe:vfs_write -e tracepoint:block:block_rq_issue\n"
"                         the stacks that write files and issue block I/O\n"
"  probe-load -e uprobe:/usr/bin/python3.11:PyObject_Malloc -c 100\n"
"                         one call in 100 of PyObject_Malloc, in every process\n"
"  probe-load -e usdt:/usr/bin/python3.11:python:gc__start\n"
"                         each start of Python's garbage collector\n"
"  probe-load --unload\n"
"                         stop: nothing samples any more\n";

enum {
	OPT_SKIP_IDLE = 0x100,
	OPT_PIN_DIR,
	OPT_RINGBUF_SIZE,
	OPT_UNLOAD,
	OPT_UNWIND,
	OPT_TABLE_ROWS,
	OPT_TABLE_MEMORY,
	OPT_MIN_BLOCK,
	OPT_STACK_COPY,
	OPT_NO_FENTRY,
	OPT_NO_PYTHON,
	OPT_LIST,
	OPT_AGGREGATE,
	OPT_AGG_ENTRIES,
	OPT_CGROUP,
};

static const struct option long_opts[] = {
	{ "pid",		required_argument, NULL, 'p' },
	{ "cgroup",		required_argument, NULL, OPT_CGROUP },
	{ "cpu",		required_argument, NULL, 'C' },
	{ "freq",		required_argument, NULL, 'F' },
	{ "skip-idle",		no_argument,	   NULL, OPT_SKIP_IDLE },
	{ "pin-dir",		required_argument, NULL, OPT_PIN_DIR },
	{ "ringbuf-size",	required_argument, NULL, OPT_RINGBUF_SIZE },
	{ "unload",		no_argument,	   NULL, OPT_UNLOAD },
	{ "unwind",		required_argument, NULL, OPT_UNWIND },
	{ "table-rows",		required_argument, NULL, OPT_TABLE_ROWS },
	{ "table-memory",	required_argument, NULL, OPT_TABLE_MEMORY },
	{ "stack-copy",		required_argument, NULL, OPT_STACK_COPY },
	{ "jobs",		required_argument, NULL, 'j' },
	{ "event",		required_argument, NULL, 'e' },
	{ "min-block",		required_argument, NULL, OPT_MIN_BLOCK },
	{ "no-fentry",		no_argument,	   NULL, OPT_NO_FENTRY },
	{ "no-python",		no_argument,	   NULL, OPT_NO_PYTHON },
	{ "list",		no_argument,	   NULL, OPT_LIST },
	{ "aggregate",		no_argument,	   NULL, OPT_AGGREGATE },
	{ "aggregate-entries",	required_argument, NULL, OPT_AGG_ENTRIES },
	{ "verbose",		no_argument,	   NULL, 'v' },
	{ "help",		no_argument,	   NULL, 'h' },
	{ "version",		no_argument,	   NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int add_pid(struct pk_load_opts *o, const char *arg, char err[PK_ERR_LEN])
{
	pid_t *p;
	long v;

	if (!pk_cli_parse_long(arg, 1, INT_MAX, &v))
		return pk_err(err, -EINVAL, "-p %s: not a process id (a positive number)", arg);
	p = realloc(o->pids, (o->npids + 1) * sizeof(*p));
	if (!p)
		return pk_err(err, -ENOMEM, "out of memory");
	o->pids = p;
	o->pids[o->npids++] = v;
	return 0;
}

static int add_event(struct pk_load_opts *o, const char *arg, char err[PK_ERR_LEN])
{
	struct pk_event_spec *e;
	int ret;

	if (o->nevents == PK_MAX_EVENTS)
		return pk_err(err, -EINVAL, "-e %s: at most %d events", arg, PK_MAX_EVENTS);
	e = realloc(o->events, (o->nevents + 1) * sizeof(*e));
	if (!e)
		return pk_err(err, -ENOMEM, "out of memory");
	o->events = e;
	/* an event given twice is pk_events_resolve's to refuse: only it knows
	 * when two spellings (two paths to one file) name one event */
	ret = pk_event_spec_parse(arg, &o->events[o->nevents], err);
	if (ret)
		return ret;
	o->nevents++;
	return 0;
}

static int parse_one(struct pk_load_opts *o, int c, const char *arg,
		     char err[PK_ERR_LEN])
{
	unsigned long long size;
	long v;

	switch (c) {
	case 'p':
		return add_pid(o, arg, err);
	case OPT_CGROUP:
		if (!arg[0])
			return pk_err(err, -EINVAL, "--cgroup: empty path");
		if (o->ncgroups == PK_MAX_CGROUPS)
			return pk_err(err, -EINVAL, "--cgroup %s: at most %d cgroups", arg,
				      PK_MAX_CGROUPS);
		o->cgroups[o->ncgroups++] = arg;
		return 0;
	case 'C':
		if (!pk_cli_parse_long(arg, 0, INT_MAX, &v))
			return pk_err(err, -EINVAL, "-C %s: not a CPU number", arg);
		o->cpu = v;
		return 0;
	case 'F':
		if (!pk_cli_parse_long(arg, 1, INT_MAX, &v))
			return pk_err(err, -EINVAL, "-F %s: not a sampling rate (a positive number of Hz)", arg);
		o->freq = v;
		return 0;
	case OPT_SKIP_IDLE:
		o->skip_idle = true;
		return 0;
	case OPT_PIN_DIR:
		if (arg[0] != '/')
			return pk_err(err, -EINVAL, "--pin-dir '%s': not an absolute path", arg);
		o->pin_dir = arg;
		return 0;
	case OPT_RINGBUF_SIZE:
		if (!pk_parse_size(arg, &size) || size > PK_RINGBUF_MAX)
			return pk_err(err, -EINVAL, "--ringbuf-size %s: not a size of at most 1G (bytes, or with a K, M or G suffix)", arg);
		o->ringbuf_bytes = size;
		return 0;
	case OPT_UNLOAD:
		o->unload = true;
		return 0;
	case OPT_UNWIND:
		if (strcmp(arg, "dwarf") && strcmp(arg, "fp"))
			return pk_err(err, -EINVAL, "--unwind %s: not dwarf or fp", arg);
		o->dwarf = !strcmp(arg, "dwarf");
		return 0;
	case OPT_TABLE_ROWS:
		if (!pk_parse_size(arg, &size) || size < PK_TABLE_ROWS_MIN || size > PK_TABLE_ROWS_MAX)
			return pk_err(err, -EINVAL, "--table-rows %s: not a number of rows from 1K to 256M", arg);
		o->table_rows = size;
		return 0;
	case OPT_TABLE_MEMORY:
		if (!pk_parse_size(arg, &size) || size < PK_TABLE_MEMORY_MIN || size > PK_TABLE_MEMORY_MAX)
			return pk_err(err, -EINVAL, "--table-memory %s: not a number of bytes from 1M to 64G", arg);
		o->table_memory = size;
		return 0;
	case OPT_STACK_COPY:
		if (!pk_parse_size(arg, &size) || size > PK_USTACK_COPY_MAX)
			return pk_err(err, -EINVAL, "--stack-copy %s: not a number of bytes from 0 to 60K", arg);
		o->stack_copy = size;
		return 0;
	case 'j':
		if (!pk_cli_parse_long(arg, 1, 4096, &v))
			return pk_err(err, -EINVAL, "-j %s: not a number of jobs (1 to 4096)", arg);
		o->jobs = v;
		return 0;
	case 'e':
		return add_event(o, arg, err);
	case 'c':
		if (!pk_cli_parse_long(arg, 1, INT_MAX, &v))
			return pk_err(err, -EINVAL, "-c %s: not a count (one hit in N sampled: a positive number)", arg);
		o->sample_every = v;
		return 0;
	case OPT_MIN_BLOCK:
		if (!pk_cli_parse_long(arg, 0, 3600L * 1000000, &v))
			return pk_err(err, -EINVAL, "--min-block %s: not a number of microseconds (0 to 3600000000)", arg);
		o->min_block_us = v;
		o->min_block_given = true;
		return 0;
	case OPT_NO_FENTRY:
		o->no_fentry = true;
		return 0;
	case OPT_NO_PYTHON:
		o->no_python = true;
		return 0;
	case OPT_LIST:
		o->list = true;
		return 0;
	case OPT_AGGREGATE:
		o->aggregate = true;
		return 0;
	case OPT_AGG_ENTRIES:
		if (!pk_parse_size(arg, &size) || size < PK_AGG_ENTRIES_MIN || size > PK_AGG_ENTRIES_MAX)
			return pk_err(err, -EINVAL, "--aggregate-entries %s: not a number of stacks from 1 to 4M", arg);
		o->agg_entries = size;
		o->agg_entries_given = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case 'h':
		o->help = true;
		return 0;
	case 'V':
		o->version = true;
		return 0;
	}
	return pk_err(err, -EINVAL, "internal error: option %d", c);
}

/* Options that only some events use, given without them. */
static int check_event_options(const struct pk_load_opts *o, char err[PK_ERR_LEN])
{
	bool offcpu = false, counted = false, kprobe = false;

	for (size_t i = 0; i < o->nevents; i++) {
		const struct pk_event_spec *e = &o->events[i];

		offcpu |= e->kind == PK_EVK_OFFCPU;
		kprobe |= e->kind == PK_EVK_KPROBE;
		counted |= e->kind != PK_EVK_OFFCPU &&
			   !(e->kind == PK_EVK_PERF && !strcmp(e->arg, "cpu-clock"));
	}
	if (o->min_block_given && !offcpu)
		return pk_err(err, -EINVAL, "--min-block is for -e off-cpu");
	if (o->no_fentry && !kprobe)
		return pk_err(err, -EINVAL, "--no-fentry is for -e kprobe:FUNC and kretprobe:FUNC");
	if (o->sample_every && !counted)
		return pk_err(err, -EINVAL, "-c is for probes, tracepoints, page faults and hardware events (cpu-clock samples at -F)");
	return 0;
}

int pk_load_opts_parse(struct pk_load_opts *o, int argc, char **argv,
		       char err[PK_ERR_LEN])
{
	bool load_option = false;	/* one that --unload has no use for */
	bool table_option = false;	/* one that --unwind fp has no use for */
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->cpu = -1;
	o->freq = PK_FREQ_DEFAULT;
	o->pin_dir = PK_PIN_DIR_DEFAULT;
	o->ringbuf_bytes = PK_RINGBUF_DEFAULT;
	o->dwarf = true;
	o->table_memory = PK_TABLE_MEMORY_DEFAULT;
	o->stack_copy = PK_STACK_COPY_DEFAULT;
	o->min_block_us = PK_MIN_BLOCK_US_DEFAULT;
	o->agg_entries = PK_AGG_ENTRIES_DEFAULT;
	err[0] = '\0';

	optind = 0;	/* glibc: full reset, for repeated calls */
	opterr = 0;
	/* '+': stop at the first non-option, so COMMAND's own options stay its. */
	while ((c = getopt_long(argc, argv, "+:p:C:F:j:e:c:vhV", long_opts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return pk_cli_bad_option(c, argv, long_opts, "probe-load", err);
		load_option |= c == 'p' || c == 'C' || c == 'F' || c == OPT_CGROUP ||
			       c == OPT_SKIP_IDLE || c == OPT_RINGBUF_SIZE || c == OPT_UNWIND ||
			       c == OPT_TABLE_ROWS || c == OPT_TABLE_MEMORY || c == 'j' ||
			       c == 'e' || c == 'c' || c == OPT_MIN_BLOCK || c == OPT_STACK_COPY ||
			       c == OPT_NO_FENTRY || c == OPT_NO_PYTHON || c == OPT_AGGREGATE ||
			       c == OPT_AGG_ENTRIES;
		table_option |= c == OPT_TABLE_ROWS || c == OPT_TABLE_MEMORY || c == 'j' ||
				c == OPT_STACK_COPY;
		ret = parse_one(o, c, optarg, err);
		if (ret)
			return ret;
	}
	if (o->list && optind < argc && strcmp(argv[optind - 1], "--")) {
		if (optind + 1 < argc)
			return pk_err(err, -EINVAL, "--list takes one PATTERN ('%s' is a second)",
				      argv[optind + 1]);
		o->list_pattern = argv[optind++];
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return pk_err(err, -EINVAL, "unexpected argument '%s' (a command to profile goes after --)",
				    argv[optind]);
		o->cmd = &argv[optind];
	} else if (optind > 1 && strcmp(argv[optind - 1], "--") == 0) {
		return pk_err(err, -EINVAL, "-- must be followed by a command to run");
	}
	if (o->help || o->version)
		return 0;
	if (o->list && (load_option || o->cmd || o->unload))
		return pk_err(err, -EINVAL, "--list takes a PATTERN and no other option");
	if (o->unload && (load_option || o->cmd))
		return pk_err(err, -EINVAL, "--unload takes no other option than --pin-dir and -v");
	if (!o->dwarf && table_option)
		return pk_err(err, -EINVAL, "--table-memory, --table-rows, --stack-copy and -j are for --unwind dwarf");
	if (o->agg_entries_given && !o->aggregate)
		return pk_err(err, -EINVAL, "--aggregate-entries is for --aggregate");
	return check_event_options(o, err);
}

int pk_load_opts_check(const struct pk_load_opts *o,
		       const struct pk_load_limits *lim, char err[PK_ERR_LEN])
{
	__u32 sz = o->ringbuf_bytes;

	if (o->freq > lim->max_sample_rate)
		return pk_err(err, -EINVAL, "-F %u: above the kernel's limit of %u Hz (/proc/sys/kernel/perf_event_max_sample_rate)",
			    o->freq, lim->max_sample_rate);
	if (sz < lim->page_size || (sz & (sz - 1)))
		return pk_err(err, -EINVAL, "--ringbuf-size %u: must be a power of two of at least the page size (%ld)",
			    sz, lim->page_size);
	return 0;
}

void pk_load_opts_free(struct pk_load_opts *o)
{
	for (size_t i = 0; i < o->nevents; i++)
		pk_event_spec_free(&o->events[i]);
	free(o->events);
	o->events = NULL;
	o->nevents = 0;
	free(o->pids);
	o->pids = NULL;
	o->npids = 0;
}
