// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <getopt.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpf/probekit.h"
#include "lib/cli.h"
#include "lib/util/size.h"
#include "reading/read_options.h"

const char pk_read_usage[] =
"Usage: probe-read [OPTION...]\n"
"  or:  probe-read --top [-d SECONDS] [--event NAME] [--pin-dir DIR]\n"
"\n"
"Read the samples of the session probe-load started, symbolize them and print\n"
"them, by default as folded stacks (comm;root;...;leaf COUNT, kernel frames\n"
"suffixed _[k]), the input of flamegraph.pl. Stops after -d SECONDS, on SIGINT,\n"
"SIGTERM or SIGHUP, when the session is unloaded (probe-load --unload), or,\n"
"when the session profiles given processes, once all of them have exited.\n"
"A later probe-read continues where this one stopped: what was sampled while\n"
"no reader ran waits in the ring buffer, and is read first. A session has\n"
"one reader at a time: a second is refused (exit 2).\n"
"\n"
"  -d, --duration SECONDS  read for SECONDS (fractions allowed), after what\n"
"                          waited in the ring buffer\n"
"      --from-now          drop what was sampled before this reader started:\n"
"                          the output holds its reading time only\n"
"  -f, --format FORMAT     folded (default), perf (perf script's text),\n"
"                          pprof (gzipped profile.proto, for go tool pprof,\n"
"                          Pyroscope, Parca), speedscope (JSON) or svg (a\n"
"                          flame graph to open in a browser: click zooms,\n"
"                          Ctrl-F searches; kernel frames orange, inlined\n"
"                          ones aqua; counted as folded stacks are)\n"
"  -o, --output FILE       write to FILE instead of standard output. -f and\n"
"                          -o may be given up to 4 times: one read, the\n"
"                          i-th format to the i-th file. A regular FILE is\n"
"                          replaced only once complete (none is left\n"
"                          partial); a symbolic link's file is, the link\n"
"                          kept; a device (/dev/null), FIFO, socket or\n"
"                          /dev/stdout is written in place, as by a shell's\n"
"                          >, an error only in the exit status\n"
"      --interval SECONDS  write one file per SECONDS, each holding that\n"
"                          interval's samples only; -o is then a strftime(3)\n"
"                          pattern naming each by its start, local time\n"
"                          (-o 'cpu-%Y%m%dT%H%M%S.pb.gz')\n"
"                          With {event} in -o, one file per event of the\n"
"                          session, named by it ('/' as '_'):\n"
"                          -o 'prof-{event}.folded'\n"
"      --keep N            with --interval: remove the oldest files each -o\n"
"                          pattern names (any the pattern matches, with\n"
"                          each conversion as *), so that at most N are left\n"
"      --keep-bytes SIZE   the same, until all -o patterns' files take at\n"
"                          most SIZE bytes (K, M, G); the files just written\n"
"                          are kept\n"
"      --event NAME        only the samples of the session's event NAME\n"
"                          (cpu-clock, off-cpu, kprobe:vfs_write...). Folded\n"
"                          and svg output of a session with several events\n"
"                          need it, or {event} in -o, and so does --top:\n"
"                          lines count samples, except off-cpu's, which\n"
"                          count microseconds blocked\n"
"      --per-pid           the process (comm-PID) as the root frame (folded),\n"
"                          a profile of its own (speedscope); pprof and perf\n"
"                          carry pid, tid and cpu on every sample anyway\n"
"      --per-tid           the same per thread (comm-PID/TID)\n"
"      --per-cpu           the same per CPU (cpu-N)\n"
"      --per-cgroup        the task's cgroup, its path under the cgroup2\n"
"                          mount (/system.slice/docker-ID.scope), as the\n"
"                          root frame above those (folded, svg, speedscope);\n"
"                          cgroup:ID when it was removed before probe-read\n"
"                          named it. pprof carries cgroup and container_id\n"
"                          labels anyway. Needs cgroup v2\n"
"      --lines             source file:line after each frame that has one\n"
"                          (folded, perf; pprof always has them)\n"
"      --no-inline         function names only, from the symbol tables: no\n"
"                          inline frames, no source lines (no DWARF read)\n"
"      --debug-dir DIR     look for debug files and binaries by build-id in\n"
"                          DIR/.build-id/ (xx/yyyy.debug, xx/yyyy; repeatable;\n"
"                          default /usr/lib/debug)\n"
"      --stats             per event: hits, samples, hits not sampled (-c),\n"
"                          blocks too short (--min-block), samples lost, and\n"
"                          what its BPF programs cost per run while reading\n"
"                          (kernel.bpf_stats), on standard error\n"
"      --title TEXT        the flame graph's title (-f svg; default Flame Graph)\n"
"      --top               a live view, as perf top shows one: the heaviest\n"
"                          functions by self and total share of the samples\n"
"                          read since it started, redrawn every second; keys:\n"
"                          q quits (as SIGINT does), t orders by total or self,\n"
"                          z zeroes. The session goes on; a later probe-read\n"
"                          continues where the view stopped\n"
"      --pin-dir DIR       the session pinned under DIR\n"
"                          (default " PK_PIN_DIR_DEFAULT ")\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"Each output says the time it holds: perf text each sample's (seconds since\n"
"boot), pprof time_nanos and duration_nanos, speedscope startValue and\n"
"endValue (nanoseconds since boot, for events in nanoseconds): from its\n"
"first sample to its last, or with --from-now the time it read.\n"
"\n"
"A summary goes to standard error: samples read, samples lost because the\n"
"ring buffer was full and stacks that could not be read, since the session\n"
"started; with events, a line per event with its samples and what folded\n"
"counts are for it (samples, or microseconds off-CPU).\n"
"Exit status: 0 done, 1 error, 2 bad usage.\n"
"\n"
"Examples:\n"
"  probe-read -d 5 -f svg -o cpu.svg\n"
"                          5 s of samples, as a flame graph to open in a browser\n"
"  probe-read --top\n"
"                          the heaviest functions, live, as perf top shows them\n"
"  probe-read -o cpu.folded\n"
"                          until the profiled command exits (probe-load --)\n"
"  probe-read --from-now -d 5 -o cpu.folded\n"
"                          the next 5 s only, not what waited in the buffer\n"
"  probe-read -d 10 -f pprof -o cpu.pb.gz && go tool pprof -top cpu.pb.gz\n"
"                          10 s as a pprof profile, read by go tool pprof\n"
"  probe-read -d 10 -f perf --lines > perf.txt\n"
"                          perf script's text, with source lines\n"
"  probe-read -f speedscope -o cpu.json --per-tid\n"
"                          a speedscope profile per thread\n"
"  probe-read --interval 60 -f pprof -o 'cpu-%Y%m%dT%H%M%S.pb.gz'\n"
"                          continuous: a file a minute\n"
"  probe-read -o 'prof-{event}.folded'\n"
"                          one file per event of the session\n";

enum {
	OPT_PIN_DIR = 0x100,
	OPT_INTERVAL,
	OPT_PER_PID,
	OPT_PER_TID,
	OPT_PER_CPU,
	OPT_PER_CGROUP,
	OPT_LINES,
	OPT_DEBUG_DIR,
	OPT_NO_INLINE,
	OPT_EVENT,
	OPT_STATS,
	OPT_TITLE,
	OPT_TOP,
	OPT_FROM_NOW,
	OPT_KEEP,
	OPT_KEEP_BYTES,
};

static const struct option long_opts[] = {
	{ "duration",	required_argument, NULL, 'd' },
	{ "output",	required_argument, NULL, 'o' },
	{ "format",	required_argument, NULL, 'f' },
	{ "interval",	required_argument, NULL, OPT_INTERVAL },
	{ "per-pid",	no_argument,	   NULL, OPT_PER_PID },
	{ "per-tid",	no_argument,	   NULL, OPT_PER_TID },
	{ "per-cpu",	no_argument,	   NULL, OPT_PER_CPU },
	{ "per-cgroup",	no_argument,	   NULL, OPT_PER_CGROUP },
	{ "lines",	no_argument,	   NULL, OPT_LINES },
	{ "no-inline",	no_argument,	   NULL, OPT_NO_INLINE },
	{ "debug-dir",	required_argument, NULL, OPT_DEBUG_DIR },
	{ "event",	required_argument, NULL, OPT_EVENT },
	{ "stats",	no_argument,	   NULL, OPT_STATS },
	{ "title",	required_argument, NULL, OPT_TITLE },
	{ "top",	no_argument,	   NULL, OPT_TOP },
	{ "from-now",	no_argument,	   NULL, OPT_FROM_NOW },
	{ "keep",	required_argument, NULL, OPT_KEEP },
	{ "keep-bytes",	required_argument, NULL, OPT_KEEP_BYTES },
	{ "pin-dir",	required_argument, NULL, OPT_PIN_DIR },
	{ "help",	no_argument,	   NULL, 'h' },
	{ "version",	no_argument,	   NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Digits with at most one '.', nothing else: strtod alone would also take
 * "inf", "nan", hex floats, exponents and leading spaces. */
static bool parse_seconds(const char *s, double *out)
{
	size_t digits = strspn(s, "0123456789"), dot = 0;
	double v;

	if (s[digits] == '.')
		dot = 1 + strspn(s + digits + 1, "0123456789");
	if (s[digits + dot] != '\0' || digits + dot == 0 || (digits == 0 && dot == 1))
		return false;
	v = strtod(s, NULL);
	if (!(v > 0) || v > PK_READ_MAX_SECONDS)
		return false;
	*out = v;
	return true;
}

int pk_read_interval_name(const char *pattern, double t, char *buf, size_t len)
{
	time_t secs = (time_t)t;
	struct tm tm;

	if (!localtime_r(&secs, &tm) || !pattern[0])
		return -EINVAL;
	/* strftime returns 0 both for "no room" and for an empty result. */
	buf[0] = '\0';
	if (strftime(buf, len, pattern, &tm) == 0)
		return -EINVAL;
	return 0;
}

/* Whether -o PATTERN names consecutive --interval files apart: over a day
 * of interval starts, no two neighbours may share a name (a pattern without
 * a conversion, or with minutes only for 1 s intervals, would overwrite). */
static int check_pattern(const char *pattern, double interval, char err[PK_ERR_LEN])
{
	char a[4096], b[4096];
	double t0 = 1700000000.0;	/* any day will do */
	double step = interval > 3600 ? interval : 3600;

	for (double t = t0; t < t0 + 86400; t += step) {
		if (pk_read_interval_name(pattern, t, a, sizeof(a)) ||
		    pk_read_interval_name(pattern, t + interval, b, sizeof(b)))
			return pk_err(err, -EINVAL, "-o '%s': not a file name pattern strftime(3) can expand",
				      pattern);
		if (strcmp(a, b) == 0)
			return pk_err(err, -EINVAL, "-o '%s' gives two --interval files the same name: add a time conversion down to the interval (e.g. %%Y%%m%%dT%%H%%M%%S)",
				      pattern);
	}
	return 0;
}

int pk_read_event_name(const char *path, const char *name, char *buf, size_t len)
{
	size_t n = 0, flen = strlen(PK_READ_EVENT_FIELD);

	for (const char *p = path; *p;) {
		const char *add = p;
		size_t alen = 1;
		bool event = strncmp(p, PK_READ_EVENT_FIELD, flen) == 0;

		if (event) {
			add = name;
			alen = strlen(name);
		}
		if (n + alen >= len)
			return -EINVAL;
		for (size_t k = 0; k < alen; k++)
			buf[n++] = event && add[k] == '/' ? '_' : add[k];
		p += event ? flen : 1;
	}
	if (!len)
		return -EINVAL;
	buf[n] = '\0';
	return 0;
}

static int set_group(struct pk_read_opts *o, enum pk_group g, char err[PK_ERR_LEN])
{
	static const char *const names[] = { "", "--per-pid", "--per-tid", "--per-cpu" };

	if (o->group != PK_GROUP_NONE && o->group != g)
		return pk_err(err, -EINVAL, "%s and %s do not go together: choose one grouping",
			      names[o->group], names[g]);
	o->group = g;
	return 0;
}

int pk_read_opts_parse(struct pk_read_opts *o, int argc, char **argv,
		       char err[PK_ERR_LEN])
{
	enum pk_format formats[PK_READ_MAX_OUTPUTS];
	const char *paths[PK_READ_MAX_OUTPUTS];
	size_t nformats = 0, npaths = 0;
	int c, ret;
	long n;

	memset(o, 0, sizeof(*o));
	o->pin_dir = PK_PIN_DIR_DEFAULT;
	err[0] = '\0';

	optind = 0;	/* glibc: full reset, for repeated calls */
	opterr = 0;	/* errors are reported in one line of ours */
	while ((c = getopt_long(argc, argv, ":d:f:o:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!parse_seconds(optarg, &o->duration))
				return pk_err(err, -EINVAL, "-d %s: not a duration (a positive number of seconds, at most a year)",
					      optarg);
			break;
		case 'o':
			if (!optarg[0])
				return pk_err(err, -EINVAL, "-o: empty file name");
			if (npaths == PK_READ_MAX_OUTPUTS)
				return pk_err(err, -EINVAL, "-o: at most %d outputs", PK_READ_MAX_OUTPUTS);
			paths[npaths++] = strcmp(optarg, "-") == 0 ? NULL : optarg;
			break;
		case 'f':
			if (nformats == PK_READ_MAX_OUTPUTS)
				return pk_err(err, -EINVAL, "-f: at most %d outputs", PK_READ_MAX_OUTPUTS);
			if (pk_format_parse(optarg, &formats[nformats++]))
				return pk_err(err, -EINVAL, "-f %s: unknown format (folded, perf, pprof, speedscope or svg)",
					      optarg);
			break;
		case OPT_INTERVAL:
			if (!parse_seconds(optarg, &o->interval) || o->interval < 0.1)
				return pk_err(err, -EINVAL, "--interval %s: not an interval (at least 0.1 seconds, at most a year)",
					      optarg);
			break;
		case OPT_KEEP:
			if (!pk_cli_parse_long(optarg, 1, 1000000000, &n))
				return pk_err(err, -EINVAL, "--keep %s: not a number of files (1 or more)",
					      optarg);
			o->keep.files = n;
			break;
		case OPT_KEEP_BYTES:
			if (!pk_parse_size(optarg, &o->keep.bytes) || !o->keep.bytes)
				return pk_err(err, -EINVAL, "--keep-bytes %s: not a size (bytes, or K, M, G)",
					      optarg);
			break;
		case OPT_PER_PID:
		case OPT_PER_TID:
		case OPT_PER_CPU:
			ret = set_group(o, c == OPT_PER_PID ? PK_GROUP_PID :
					   c == OPT_PER_TID ? PK_GROUP_TID : PK_GROUP_CPU, err);
			if (ret)
				return ret;
			break;
		case OPT_PER_CGROUP:
			o->per_cgroup = true;
			break;
		case OPT_LINES:
			o->lines = true;
			break;
		case OPT_NO_INLINE:
			o->no_inline = true;
			break;
		case OPT_DEBUG_DIR:
			if (!optarg[0])
				return pk_err(err, -EINVAL, "--debug-dir: empty directory name");
			if (o->ndebug_dirs == PK_READ_MAX_DEBUG_DIRS)
				return pk_err(err, -EINVAL, "--debug-dir: at most %d directories",
					      PK_READ_MAX_DEBUG_DIRS);
			o->debug_dirs[o->ndebug_dirs++] = optarg;
			break;
		case OPT_EVENT:
			if (!optarg[0])
				return pk_err(err, -EINVAL, "--event: empty event name");
			if (o->event && strcmp(o->event, optarg))
				return pk_err(err, -EINVAL, "--event %s and --event %s: one event at most (or {event} in -o for a file each)",
					      o->event, optarg);
			o->event = optarg;
			break;
		case OPT_STATS:
			o->stats = true;
			break;
		case OPT_TITLE:
			o->title = optarg;
			break;
		case OPT_TOP:
			o->top = true;
			break;
		case OPT_FROM_NOW:
			o->from_now = true;
			break;
		case OPT_PIN_DIR:
			if (optarg[0] != '/')
				return pk_err(err, -EINVAL, "--pin-dir '%s': not an absolute path", optarg);
			o->pin_dir = optarg;
			break;
		case 'h':
			o->help = true;
			break;
		case 'V':
			o->version = true;
			break;
		default:
			return pk_cli_bad_option(c, argv, long_opts, "probe-read", err);
		}
	}
	if (optind < argc)
		return pk_err(err, -EINVAL, "unexpected argument '%s'", argv[optind]);
	if (o->top && (nformats || npaths || o->interval || o->group || o->per_cgroup))
		return pk_err(err, -EINVAL, "--top is a view in the terminal: it takes none of -f, -o, --interval, --per-pid, --per-tid, --per-cpu, --per-cgroup");
	if (nformats > 1 || npaths > 1) {
		if (nformats != npaths)
			return pk_err(err, -EINVAL, "%zu -f and %zu -o: give each -f FORMAT its -o FILE",
				      nformats, npaths);
		for (size_t i = 0; i < npaths; i++)
			if (!paths[i])
				return pk_err(err, -EINVAL, "-o -: with several outputs, each needs a file");
	}
	o->noutputs = nformats > npaths ? nformats : npaths;
	if (!o->noutputs)
		o->noutputs = 1;
	for (size_t i = 0; i < o->noutputs; i++) {
		const char *path = i < npaths ? paths[i] : NULL;

		o->outputs[i] = (struct pk_read_output){ i < nformats ? formats[i] : PK_FORMAT_FOLDED,
							 path, path && strstr(path, PK_READ_EVENT_FIELD) };
	}
	if (o->lines && o->no_inline)
		return pk_err(err, -EINVAL, "--lines and --no-inline do not go together: source lines come from DWARF, which --no-inline does not read");
	if (!o->interval)
		return o->keep.files || o->keep.bytes ?
			pk_err(err, -EINVAL, "--keep and --keep-bytes bound what --interval writes: give --interval") : 0;
	if (o->duration && o->interval > o->duration)
		return pk_err(err, -EINVAL, "--interval %g is longer than -d %g", o->interval,
			      o->duration);
	for (size_t i = 0; i < o->noutputs; i++) {
		if (!o->outputs[i].path)
			return pk_err(err, -EINVAL, "--interval writes one file per interval: give -o a strftime(3) pattern such as 'cpu-%%Y%%m%%dT%%H%%M%%S.pb.gz'");
		ret = check_pattern(o->outputs[i].path, o->interval, err);
		if (ret)
			return ret;
	}
	return 0;
}
