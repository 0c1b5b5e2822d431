// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-read: drain the ring buffer of the session probe-load pinned,
 * symbolize, and print the profile in one of the formats (tools/output/),
 * once at the end or once per --interval.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cli.h"
#include "lib/session.h"
#include "output/formats.h"
#include "reading/bpf_cost.h"
#include "reading/read_options.h"
#include "reading/reader.h"
#include "reading/summary.h"
#include "reading/table_loader.h"

/* Poll timeout: how soon a signal, the end of -d or the exit of the last
 * target is noticed. */
#define POLL_MS 100

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* The ring buffer's errors are reported by us, in one line. */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The samples' clock (bpf_ktime_get_boot_ns). */
static __u64 boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* What one read writes: every -f/-o, those with {event} once per event. */
#define MAX_SINKS	(PK_READ_MAX_OUTPUTS * PK_MAX_EVENTS)

/* The session's events, and which outputs they make. */
struct plan {
	struct pk_event_desc events[PK_MAX_EVENTS];
	unsigned int nevents;
	int keep;			/* --event's index; -1: every event */
	struct sink {
		enum pk_format format;
		const char *pattern;	/* -o as given; NULL: stdout */
		int event;		/* this event's samples only; -1: all */
	} sinks[MAX_SINKS];
	size_t nsinks;
	char names[MAX_SINKS][4096];	/* each sink's file name this time */
};

/* -o FILE: written as a temporary file next to FILE and renamed over it
 * only when complete, so that a failed run leaves no partial file. */
struct output {
	FILE *f;
	char *tmp;		/* NULL: stdout */
	const char *path;
};

static int output_open(struct output *out, const char *path, char err[PK_ERR_LEN])
{
	struct stat st;
	mode_t mask;
	int fd;

	out->path = path;
	out->tmp = NULL;
	if (!path) {
		out->f = stdout;
		return 0;
	}
	/* What would make the final rename fail: refused before reading (the
	 * outputs are opened first, outputs_open). */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return pk_err(err, -EISDIR, "cannot write %s: %s", path, strerror(EISDIR));
	if (asprintf(&out->tmp, "%s.XXXXXX", path) < 0) {
		out->tmp = NULL;
		return pk_err(err, -ENOMEM, "out of memory");
	}
	fd = mkstemp(out->tmp);
	if (fd < 0) {
		int ret = -errno;

		free(out->tmp);
		out->tmp = NULL;
		return pk_err(err, ret, "cannot write %s: %s", path, strerror(-ret));
	}
	/* mkstemp creates 0600; give the file the mode a plain create would. */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	out->f = fdopen(fd, "w");
	if (!out->f) {
		close(fd);
		unlink(out->tmp);
		free(out->tmp);
		out->tmp = NULL;
		return pk_err(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Finish (COMMIT) or discard the output. */
static int output_close(struct output *out, bool commit, char err[PK_ERR_LEN])
{
	int ret = 0;

	if (!out->tmp)
		return fflush(stdout) == 0 ? 0 : pk_err(err, -EIO, "cannot write the output: %s",
							 strerror(errno));
	if (fclose(out->f) != 0 && commit)
		ret = pk_err(err, -errno, "cannot write %s: %s", out->path, strerror(errno));
	if (!ret && commit && rename(out->tmp, out->path) != 0)
		ret = pk_err(err, -errno, "cannot write %s: %s", out->path, strerror(errno));
	if (ret || !commit)
		unlink(out->tmp);
	free(out->tmp);
	out->tmp = NULL;
	return ret;
}

static int handle_record(void *ctx, void *data, size_t size)
{
	return pk_reader_handle(ctx, data, size);
}

static int session_error(int ret, const char *pin_dir, char err[PK_ERR_LEN])
{
	if (ret == -ENOENT)
		return pk_err(err, ret, "no probekit session at %s (run probe-load first)", pin_dir);
	if (ret == -EPROTO)
		return pk_err(err, ret, "the session at %s has another pin layout version than this probe-read's (%d): unload it and load it with this probekit",
			      pin_dir, PK_PIN_LAYOUT_VERSION);
	if (ret == -EPERM || ret == -EACCES)
		return pk_err(err, ret, "cannot open the session at %s: %s (probe-read needs root)",
			      pin_dir, strerror(-ret));
	return pk_err(err, ret, "cannot open the session at %s: %s", pin_dir, strerror(-ret));
}

/* Drain until DEADLINE (CLOCK_MONOTONIC seconds; 0: none). *done is set
 * when reading is over for good: a signal, or the last target exited. */
static int drain(struct ring_buffer *rb, double deadline, const struct pk_session_fds *fds,
		 const struct pk_session *info, bool *done, char err[PK_ERR_LEN])
{
	bool targets = info->flags & PK_SESSION_FILTER_PIDS;
	int ret;

	while (!stop) {
		int timeout = POLL_MS;

		if (deadline) {
			double left = deadline - now_s();

			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		ret = ring_buffer__poll(rb, timeout);
		/* Samples come without a wakeup until a quarter of the buffer
		 * is full (bpf/profile.bpf.c), and ring_buffer__poll() reads
		 * only a buffer that woke it: read the rest on the timer, while
		 * the processes they sampled still live to be symbolized. */
		if (ret >= 0)
			ret = ring_buffer__consume(rb);
		if (ret < 0 && ret != -EINTR)
			return pk_err(err, ret, "cannot read the ring buffer: %s", strerror(-ret));
		/* 0 targets is exact: everything they sampled is already in
		 * the buffer, so one more pass below drains it. */
		if (targets && pk_targets_empty(fds->targets) == 1) {
			*done = true;
			break;
		}
	}
	if (stop)
		*done = true;
	ret = ring_buffer__consume(rb);
	if (ret < 0)
		return pk_err(err, ret, "cannot read the ring buffer: %s", strerror(-ret));
	return 0;
}

/* The outputs of one profile, opened before the samples are read: what
 * cannot be created must fail before samples are consumed, which are gone
 * for the next reader. PATHS[i] NULL: stdout. */
static int outputs_open(struct output *outs, size_t n, const char *const *paths,
			char err[PK_ERR_LEN])
{
	int ret;

	for (size_t i = 0; i < n; i++) {
		ret = output_open(&outs[i], paths[i], err);
		if (ret) {
			while (i-- > 0)
				output_close(&outs[i], false, err);
			return ret;
		}
	}
	return 0;
}

static void outputs_discard(struct output *outs, size_t n)
{
	char ignored[PK_ERR_LEN];

	for (size_t i = 0; i < n; i++)
		if (outs[i].f)
			output_close(&outs[i], false, ignored);
}

/* Everything read since the last call, spanning [*SPAN_START, now) (the
 * next span starts there), into the opened OUTS, the i-th in the i-th
 * sink's format (and event), each then committed (or all discarded on an
 * error). */
static int write_profile(struct pk_reader *reader, const struct pk_read_opts *o,
			 const struct pk_session *info, const struct plan *plan,
			 struct output *outs, __u64 *span_start, char err[PK_ERR_LEN])
{
	struct pk_profile p = {
		.freq_hz = info->freq_hz,
		.period_ns = info->freq_hz ? 1000000000ULL / info->freq_hz : 0,
		.boot_to_real_ns = (__s64)(info->start_realtime_ns - info->start_time_ns),
		.group = o->group,
		.lines = o->lines,
		.events = plan->events,
		.nevents = plan->nevents,
	};
	__u64 end = boot_ns();
	int ret;

	pk_reader_take(reader, *span_start, end, &p);
	*span_start = end;
	for (size_t i = 0; i < plan->nsinks; i++) {
		const struct sink *sk = &plan->sinks[i];
		struct pk_sample_view *selected = NULL;
		struct pk_profile one;

		ret = sk->event < 0 ? 0 : pk_profile_select_event(&p, sk->event, &one, &selected);
		if (!ret)
			ret = pk_format_write(sk->format, outs[i].f, sk->event < 0 ? &p : &one);
		free(selected);
		if (ret) {
			pk_err(err, ret, "cannot write %s: %s",
			       outs[i].path ? outs[i].path : "the output", strerror(-ret));
			outputs_discard(outs, plan->nsinks);
			return ret;
		}
	}
	for (size_t i = 0; i < plan->nsinks; i++) {
		ret = output_close(&outs[i], true, err);
		outs[i].f = NULL;
		if (ret) {
			outputs_discard(outs + i + 1, plan->nsinks - i - 1);
			return ret;
		}
	}
	return 0;
}

/* Each sink's file name for an output that starts at wall-clock time T
 * (--interval; < 0: none), into PLAN->names and PATHS (NULL: stdout). */
static int sink_names(struct plan *plan, double t, const char **paths, char err[PK_ERR_LEN])
{
	for (size_t i = 0; i < plan->nsinks; i++) {
		const struct sink *sk = &plan->sinks[i];
		char *name = plan->names[i];
		size_t len = sizeof(plan->names[i]);
		char tmp[sizeof(plan->names[i])];
		int ret = 0;

		paths[i] = NULL;
		if (!sk->pattern)
			continue;
		snprintf(tmp, sizeof(tmp), "%s", sk->pattern);
		if (t >= 0)
			ret = pk_read_interval_name(sk->pattern, t, tmp, sizeof(tmp));
		if (!ret)
			ret = sk->event < 0 ? (snprintf(name, len, "%s", tmp) >= (int)len ? -EINVAL : 0) :
			      pk_read_event_name(tmp, plan->events[sk->event].name, name, len);
		if (ret)
			return pk_err(err, ret, "-o '%s': the file name does not fit", sk->pattern);
		paths[i] = name;
	}
	return 0;
}

/* --interval: one file per interval, named by its start (wall clock),
 * created when the interval starts. */
static int read_intervals(struct ring_buffer *rb, struct pk_reader *reader,
			  const struct pk_read_opts *o, const struct pk_session_fds *fds,
			  const struct pk_session *info, struct plan *plan, char err[PK_ERR_LEN])
{
	double start = now_s(), end = o->duration ? start + o->duration : 0;
	__u64 span = boot_ns();
	bool done = false;
	const char *paths[MAX_SINKS];
	struct output outs[MAX_SINKS] = { 0 };
	int ret;

	while (!done) {
		double next = start + o->interval;
		struct timespec wall;

		clock_gettime(CLOCK_REALTIME, &wall);
		if (end && next >= end - 1e-3) {
			next = end;
			done = true;
		}
		ret = sink_names(plan, wall.tv_sec + wall.tv_nsec / 1e9, paths, err);
		if (ret)
			return ret;
		ret = outputs_open(outs, plan->nsinks, paths, err);
		if (ret)
			return ret;
		ret = drain(rb, next, fds, info, &done, err);
		if (ret) {
			outputs_discard(outs, plan->nsinks);
			return ret;
		}
		ret = write_profile(reader, o, info, plan, outs, &span, err);
		if (ret)
			return ret;
		start = next;
	}
	return 0;
}

static void print_summary(const struct pk_reader *reader, int counters_fd,
			  const struct plan *plan)
{
	__u64 cnt[PK_CNT__MAX];
	struct pk_reader_stats st;
	char bad[64] = "";
	int ret;

	pk_reader_stats(reader, &st);
	if (st.bad)
		snprintf(bad, sizeof(bad), ", %llu bad records", (unsigned long long)st.bad);
	ret = pk_counters_read(counters_fd, cnt);
	if (ret) {
		fprintf(stderr, "probe-read: %llu samples read%s (loss counters unreadable: %s)\n",
			(unsigned long long)st.samples, bad, strerror(-ret));
	} else {
		fprintf(stderr, "probe-read: %llu samples read, %llu lost (ring buffer full), %llu failed stacks%s\n",
			(unsigned long long)st.samples, (unsigned long long)cnt[PK_CNT_RINGBUF_FULL],
			(unsigned long long)(cnt[PK_CNT_KSTACK_ERR] + cnt[PK_CNT_USTACK_ERR]), bad);
	}
	pk_summary_events(stderr, &st, plan->events, plan->nevents, plan->keep);
	pk_summary_ustack_ends(stderr, &st);
	pk_summary_no_table(stderr, &st);
	pk_summary_symbols(stderr, &st);
	if (!ret && cnt[PK_CNT_MAPPING_LOST])
		fprintf(stderr, "probe-read: %llu mapping reports lost (ring buffer full): frames of processes that exited before they were read may be unnamed\n",
			(unsigned long long)cnt[PK_CNT_MAPPING_LOST]);
}

/* "cpu-clock, off-cpu": the session's events, for a message. */
static void event_names(const struct plan *plan, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int e = 0; e < plan->nevents && n < len; e++)
		n += snprintf(buf + n, len - n, "%s%s", e ? ", " : "", plan->events[e].name);
}

/* The session's events, --event checked against them, and the outputs
 * they make. -EINVAL for bad usage (exit 2), with one line in ERR. */
static int make_plan(struct plan *plan, const struct pk_read_opts *o, const struct pk_session *info,
		     char err[PK_ERR_LEN])
{
	char names[1024];
	int ret = pk_event_list_read(o->pin_dir, info, plan->events, &plan->nevents);

	if (ret == -EBADMSG) {
		char why[PK_ERR_LEN];

		pk_event_list_check(plan->events, plan->nevents, why);
		return pk_err(err, -EBADMSG, "the session at %s lists events no probe-load writes: %s",
			      o->pin_dir, why);
	}
	if (ret)
		return pk_err(err, ret, "cannot read the events of the session at %s: %s",
			      o->pin_dir, strerror(-ret));
	event_names(plan, names, sizeof(names));
	plan->keep = -1;
	if (o->event) {
		plan->keep = pk_event_find(plan->events, plan->nevents, o->event);
		if (plan->keep < 0)
			return pk_err(err, -EINVAL, "--event %s: the session at %s has no such event (its events: %s)",
				      o->event, o->pin_dir, names);
	}
	plan->nsinks = 0;
	for (size_t i = 0; i < o->noutputs; i++) {
		const struct pk_read_output *out = &o->outputs[i];

		if (out->format == PK_FORMAT_FOLDED && !out->per_event && plan->keep < 0 &&
		    plan->nevents > 1)
			return pk_err(err, -EINVAL, "-f folded: the session has %u events (%s), whose counts do not add up: choose one with --event NAME, or write one file per event with {event} in -o",
				      plan->nevents, names);
		for (unsigned int e = 0; e < plan->nevents; e++) {
			int ev = !out->per_event ? -1 : plan->keep >= 0 ? plan->keep : (int)e;

			plan->sinks[plan->nsinks++] = (struct sink){ out->format, out->path, ev };
			if (!out->per_event || plan->keep >= 0)
				break;
		}
	}
	return 0;
}

/* --stats: what the session's events did and cost while this read. */
static void print_stats(const struct pk_read_opts *o, const struct plan *plan,
			const struct pk_bpf_cost *cost)
{
	__u64 counts[PK_MAX_EVENTS][PK_ECNT_SLOTS];
	int fd = pk_pin_open(o->pin_dir, PK_PIN_EVENT_COUNTS);
	bool have = fd >= 0 && pk_event_counts_read(fd, counts, plan->nevents) == 0;

	if (fd >= 0)
		close(fd);
	pk_bpf_cost_print(cost, plan->events, plan->nevents,
			   have ? (const __u64 (*)[PK_ECNT_SLOTS])counts : NULL, stderr);
}

static int run(const struct pk_read_opts *o)
{
	struct pk_session_fds fds = { -1, -1, -1, -1 };
	struct pk_reader_opts ropts = {
		.sz = sizeof(ropts),
		.debug_dirs = o->ndebug_dirs ? o->debug_dirs : NULL, .ndebug_dirs = o->ndebug_dirs,
		.no_dwarf = o->no_inline,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct pk_reader *reader = NULL;
	struct pk_table_loader *loader = NULL;
	struct pk_table_sink sink;
	struct ring_buffer *rb = NULL;
	struct pk_session info;
	struct plan *plan = calloc(1, sizeof(*plan));
	struct pk_bpf_cost *cost = NULL;
	const char *paths[MAX_SINKS];
	struct output outs[MAX_SINKS] = { 0 };
	char err[PK_ERR_LEN];
	int tables_fd = -1, status = 1;
	__u64 span;
	bool done = false;
	int ret;

	if (!plan) {
		fputs("probe-read: out of memory\n", stderr);
		return 1;
	}

	/* No SA_RESTART: a signal ends the poll at once. Installed before the
	 * temporary -o file exists, so that a signal never leaves it behind. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);	/* the terminal went away: still finish */
	for (size_t i = 0; i < o->noutputs; i++) {
		const struct pk_read_output *out = &o->outputs[i];

		ropts.timed |= pk_format_timed(out->format);
		if (pk_format_binary(out->format) && !out->path && isatty(STDOUT_FILENO)) {
			ret = pk_err(err, -EINVAL, "-f %s is binary: give -o FILE or redirect the output",
				     pk_format_name(out->format));
			goto cleanup;
		}
	}
	ret = pk_session_open(o->pin_dir, &fds, &info);
	if (ret) {
		session_error(ret, o->pin_dir, err);
		goto cleanup;
	}
	ret = make_plan(plan, o, &info, err);
	if (ret) {
		if (ret == -EINVAL)
			status = 2;
		goto cleanup;
	}
	ropts.nevents = plan->nevents;
	ropts.keep_event = plan->keep + 1;
	/* --unwind dwarf: files the kernel finds without a table get one, and
	 * a mapping's table names its build-id. */
	if (info.flags & PK_SESSION_DWARF) {
		loader = pk_table_loader_new(o->pin_dir);
		if (!loader) {
			ret = pk_err(err, -ENOMEM, "out of memory");
			goto cleanup;
		}
		sink = pk_table_loader_sink(loader);
		ropts.tables = &sink;
		tables_fd = pk_pin_open(o->pin_dir, PK_PIN_UNWIND_TABLES);
		ropts.unwind_tables_fd = tables_fd;
	}
	reader = pk_reader_new(&ropts);
	if (!reader) {
		ret = pk_err(err, -ENOMEM, "out of memory");
		goto cleanup;
	}
	rb = ring_buffer__new(fds.events, handle_record, reader, NULL);
	if (!rb) {
		ret = pk_err(err, -errno, "cannot open the ring buffer: %s", strerror(errno));
		goto cleanup;
	}
	/* after what cannot be written is refused, before any sample is read */
	if (!o->interval) {
		ret = sink_names(plan, -1, paths, err);
		if (!ret)
			ret = outputs_open(outs, plan->nsinks, paths, err);
		if (ret)
			goto cleanup;
	}
	if (o->stats) {
		ret = pk_bpf_cost_start(plan->events, plan->nevents, &cost, err);
		if (ret) {
			outputs_discard(outs, plan->nsinks);
			goto cleanup;
		}
	}
	if (o->interval) {
		ret = read_intervals(rb, reader, o, &fds, &info, plan, err);
	} else {
		span = boot_ns();
		ret = drain(rb, o->duration ? now_s() + o->duration : 0, &fds, &info, &done, err);
		if (ret)
			outputs_discard(outs, plan->nsinks);
		else
			ret = write_profile(reader, o, &info, plan, outs, &span, err);
	}
	if (!ret)
		print_summary(reader, fds.counters, plan);
	if (!ret && cost)
		print_stats(o, plan, cost);

cleanup:
	if (ret)
		fprintf(stderr, "probe-read: %s\n", err);
	pk_bpf_cost_free(cost);
	free(plan);
	ring_buffer__free(rb);
	pk_reader_free(reader);
	pk_table_loader_free(loader);
	if (tables_fd >= 0)
		close(tables_fd);
	pk_session_close(&fds);
	return ret ? status : 0;
}

int main(int argc, char **argv)
{
	struct pk_read_opts opts;
	char err[PK_ERR_LEN];
	int ret;

	ret = pk_read_opts_parse(&opts, argc, argv, err);
	if (ret)
		return pk_cli_parse_failed("probe-read", ret, err);
	if (opts.help)
		return fputs(pk_read_usage, stdout) == EOF;
	if (opts.version)
		return printf("probe-read (probekit) %s\n", PK_VERSION) < 0;
	libbpf_set_print(libbpf_quiet);
	return run(&opts);
}
