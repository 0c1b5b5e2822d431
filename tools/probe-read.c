// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-read: drain the ring buffer of the session probe-load pinned,
 * symbolize, and print the profile in one of the formats (tools/output/),
 * once at the end or once per --interval.
 */
#include <bpf/bpf.h>
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
#include "lib/session_lock.h"
#include "lib/unwind_store.h"
#include "lib/util/clock.h"
#include "lib/version.h"
#include "output/formats.h"
#include "output/output_file.h"
#include "output/terminal.h"
#include "output/top.h"
#include "reading/agg_maps.h"
#include "reading/bpf_cost.h"
#include "reading/read_options.h"
#include "reading/read_plan.h"
#include "reading/read_wait.h"
#include "reading/reader.h"
#include "reading/summary.h"
#include "reading/table_loader.h"

/* Poll timeout: how soon the exit of the last target is noticed where its
 * processes cannot all be watched (watch_targets), and --top's keys. */
#define POLL_MS 100
/* Otherwise: signals, -d, --interval, the unload of the session and the
 * exit of the last target end the wait at once (read_wait.h), and the ring
 * buffer wakes the reader when a
 * quarter full and when code with no table is met (report_missing in
 * bpf/mapping_report.bpf.h), whose table then comes at once. The timer
 * only reads what came without a wakeup, now and then. At 100 ms it was
 * most of a machine-wide reader's CPU: 1.2 ms a second, 0.18 without. */
#define IDLE_POLL_MS 5000

static volatile sig_atomic_t stop;
/* The drain's sleep, which a signal ends. */
static struct pk_read_wait sleeper = { .epoll_fd = -1, .inotify_fd = -1, .wake_fd = -1 };
/* probe-load --unload removed the session while we read it. */
static bool unloaded;
/* --aggregate's counts maps; slot -1: a session without them. */
static struct pk_agg_maps agg = { .slot = -1, .counts = { -1, -1 } };

static void on_signal(int sig)
{
	stop = 1;
	pk_read_wait_wake(&sleeper);
}

/* The ring buffer's errors are reported by us, in one line. */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* The samples' clock (bpf_ktime_get_boot_ns). */
static __u64 boot_ns(void)
{
	return pk_clock_ns(CLOCK_BOOTTIME);
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

/*
 * Watch the exit of each process in the targets map TARGETS_FD: true when
 * every one of them still there is watched (PK_WAIT_MAX_PIDS at most).
 * Then the wait ends when the last of them exits, and only then need the
 * map be read again: their children, targets too, are watched once their
 * parents are gone. A process that exited leaves the map before its
 * pidfd says so (pk_forget_exit runs in do_exit, before exit_notify).
 */
static bool watch_targets(int targets_fd)
{
	__u32 key, *prev = NULL;
	int n = 0;

	pk_read_wait_unwatch(&sleeper);
	while (bpf_map_get_next_key(targets_fd, prev, &key) == 0) {
		int ret = pk_read_wait_watch_exit(&sleeper, key);

		if (ret && ret != -ESRCH) {
			pk_read_wait_unwatch(&sleeper);
			return false;
		}
		n += !ret;
		prev = &key;
	}
	return n > 0;
}

/* The drain's wait: long where the end of the session and of its targets
 * (TARGETS: it has some; WATCHED: each is watched) wakes it, else short,
 * to look at them on the timer. */
static int idle_ms(bool targets, bool watched)
{
	return (targets && !watched) || sleeper.inotify_fd < 0 ? POLL_MS : IDLE_POLL_MS;
}

/* Drain until DEADLINE (CLOCK_MONOTONIC seconds; 0: none). *done is set
 * when reading is over for good: a signal, the last target exited, or the
 * session held through LOCK_FD was unloaded. */
static int drain(struct ring_buffer *rb, double deadline, const struct pk_session_fds *fds,
		 const struct pk_session *info, struct pk_table_loader *loader, int lock_fd,
		 bool *done, char err[PK_ERR_LEN])
{
	bool targets = info->flags & PK_SESSION_FILTER_PIDS;
	bool watched = targets && watch_targets(fds->targets);
	int idle = idle_ms(targets, watched);
	char terr[PK_ERR_LEN];
	int ret;

	while (!stop) {
		int timeout = idle, woke;

		if (deadline) {
			double left = deadline - pk_now_s();

			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		woke = ret = pk_read_wait(&sleeper, timeout);
		/* Samples come without a wakeup until a quarter of the buffer
		 * is full (bpf/profile.bpf.c): read all there is, whatever
		 * ended the wait. */
		if (ret >= 0)
			ret = ring_buffer__consume(rb);
		if (ret < 0 && ret != -EINTR)
			return pk_err(err, ret, "cannot read the ring buffer: %s", strerror(-ret));
		/* the room of files no process maps back to the kernel, now and
		 * then; never fatal (the next table that needs room tries again) */
		if (loader && pk_table_loader_tick(loader, pk_now_s(), terr) < 0)
			fprintf(stderr, "probe-read: %s\n", terr);
		/* 0 targets is exact: everything they sampled is already in
		 * the buffer, so one more pass below drains it. */
		if (targets && (!watched || (woke > 0 && (woke & PK_WAIT_EXITED)))) {
			if (pk_targets_empty(fds->targets) == 1) {
				*done = true;
				break;
			}
			if (watched) {	/* the watched ones left children */
				watched = watch_targets(fds->targets);
				idle = idle_ms(targets, watched);
			}
		}
		/* --unload detaches every link before it removes the
		 * directory, but a detach does not wait for a program
		 * already running: one poll timeout more for what it
		 * commits, then the pass below reads all */
		if (pk_session_lock_unloaded(lock_fd) == 1) {
			unloaded = *done = true;
			ring_buffer__poll(rb, POLL_MS);
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

/* The session while this reader's generation is open (its reports are
 * sent to this reader), -1 once it is over. */
static int gen_fd = -1;

/* This reader read the ring buffer for the last time: a new generation at
 * once, so that the samples taken until the next reader comes have their
 * names, files and mappings reported again ahead of them (the next reader
 * reads them: had they been reported to this one, they would be unnamed
 * there). Only a sample taken between the last read and now is not. */
static void reading_over(void)
{
	int ret;

	if (gen_fd < 0)
		return;
	ret = pk_session_reader_gen_next(gen_fd);
	gen_fd = -1;
	if (ret)
		fprintf(stderr, "probe-read: cannot end this reader's generation: %s\n",
			strerror(-ret));
}

/* --aggregate: the samples counted in the kernel since the last call
 * (and the definitions the ring buffer holds of them) go to READER
 * before a profile is taken. */
static int read_counts(struct ring_buffer *rb, struct pk_reader *reader, char err[PK_ERR_LEN])
{
	if (agg.slot < 0)
		return 0;
	return pk_agg_maps_read(&agg, rb, reader, boot_ns(), false, err);
}

/* Everything read since the last call, spanning [*SPAN_START, now) (the
 * next span starts there), with the session's and the options' settings. */
static void take_profile(struct pk_reader *reader, const struct pk_read_opts *o,
			 const struct pk_session *info, const struct pk_read_plan *plan,
			 __u64 *span_start, struct pk_profile *p)
{
	__u64 end = boot_ns();

	*p = (struct pk_profile){
		.freq_hz = info->freq_hz,
		.period_ns = info->freq_hz ? 1000000000ULL / info->freq_hz : 0,
		.boot_to_real_ns = (__s64)(info->start_realtime_ns - info->start_time_ns),
		.group = o->group,
		.per_cgroup = o->per_cgroup,
		.lines = o->lines,
		.title = o->title,
		.events = plan->events,
		.nevents = plan->nevents,
	};
	pk_reader_take(reader, *span_start, end, p);
	*span_start = end;
}

/* Everything read since the last call (take_profile) into the opened
 * OUTS, the i-th in the i-th sink's format (and event), each then
 * committed (or all discarded on an error). */
static int write_profile(struct pk_reader *reader, const struct pk_read_opts *o,
			 const struct pk_session *info, const struct pk_read_plan *plan,
			 struct pk_output_file *outs, __u64 *span_start, char err[PK_ERR_LEN])
{
	struct pk_profile p;
	int ret;

	take_profile(reader, o, info, plan, span_start, &p);
	for (size_t i = 0; i < plan->nsinks; i++) {
		const struct pk_read_sink *sk = &plan->sinks[i];
		struct pk_sample_view *selected = NULL;
		struct pk_profile one;

		ret = sk->event < 0 ? 0 : pk_profile_select_event(&p, sk->event, &one, &selected);
		if (!ret)
			ret = pk_format_write(sk->format, outs[i].f, sk->event < 0 ? &p : &one);
		free(selected);
		if (ret) {
			pk_err(err, ret, "cannot write %s: %s",
			       outs[i].path ? outs[i].path : "the output", strerror(-ret));
			pk_output_files_discard(outs, plan->nsinks);
			return ret;
		}
	}
	for (size_t i = 0; i < plan->nsinks; i++) {
		ret = pk_output_file_close(&outs[i], true, err);
		if (ret) {
			pk_output_files_discard(outs + i + 1, plan->nsinks - i - 1);
			return ret;
		}
	}
	return 0;
}

/* --keep, --keep-bytes: after each interval, the oldest files go. One
 * that cannot be removed is said, and the reading goes on: a profile not
 * written costs more than a file kept too long. */
static void keep_bound(const struct pk_read_opts *o, const char *const *written, size_t n)
{
	const char *patterns[PK_READ_MAX_OUTPUTS];
	char err[PK_ERR_LEN];

	if (!o->keep.files && !o->keep.bytes)
		return;
	for (size_t i = 0; i < o->noutputs; i++)
		patterns[i] = o->outputs[i].path;
	if (pk_retention_apply(patterns, o->noutputs, written, n, &o->keep, err) < 0)
		fprintf(stderr, "probe-read: %s\n", err);
}

/* --interval: one file per interval, named by its start (wall clock),
 * created when the interval starts. */
static int read_intervals(struct ring_buffer *rb, struct pk_reader *reader,
			  struct pk_table_loader *loader, const struct pk_read_opts *o,
			  const struct pk_session_fds *fds, const struct pk_session *info,
			  struct pk_read_plan *plan, int lock_fd, __u64 span,
			  char err[PK_ERR_LEN])
{
	double start = pk_now_s(), end = o->duration ? start + o->duration : 0;
	double first = start, wall0 = (double)pk_clock_ns(CLOCK_REALTIME) / 1e9;
	bool done = false;
	const char *paths[PK_READ_MAX_SINKS];
	struct pk_output_file outs[PK_READ_MAX_SINKS] = { 0 };
	int ret;

	while (!done) {
		double next = start + o->interval;

		if (end && next >= end - 1e-3) {
			next = end;
			done = true;
		}
		/* Named by when the interval starts on the schedule, not by
		 * when its file is opened: on a busy machine the previous
		 * profile can take longer than a second to write, and two
		 * files opened in one second would have one name. */
		ret = pk_read_plan_names(plan, wall0 + (start - first), paths, err);
		if (ret)
			return ret;
		ret = pk_output_files_open(outs, plan->nsinks, paths, err);
		if (ret)
			return ret;
		ret = drain(rb, next, fds, info, loader, lock_fd, &done, err);
		if (!ret)
			ret = read_counts(rb, reader, err);
		if (done)
			reading_over();
		if (ret) {
			pk_output_files_discard(outs, plan->nsinks);
			return ret;
		}
		ret = write_profile(reader, o, info, plan, outs, &span, err);
		if (ret)
			return ret;
		keep_bound(o, paths, plan->nsinks);
		/* a reader that runs for days keeps the cache's bound too */
		pk_cli_cache_done("probe-read", NULL, NULL);
		start = next;
	}
	return 0;
}

/* --top: the view redrawn every second with what was read since, until q,
 * a signal, -d, or the exit of the last target; keys are looked at as
 * often as the ring buffer is polled. */
static int read_top(struct ring_buffer *rb, struct pk_reader *reader,
		    struct pk_table_loader *loader, const struct pk_read_opts *o,
		    const struct pk_session_fds *fds, const struct pk_session *info,
		    const struct pk_read_plan *plan, int lock_fd, char err[PK_ERR_LEN])
{
	double start = pk_now_s(), end = o->duration ? start + o->duration : 0, next = start;
	struct pk_top_screen screen = { 0 };
	struct pk_top *top = pk_top_new();
	struct pk_profile p;
	struct pk_term term;
	__u64 span = boot_ns();
	bool done = false, quit = false, redraw = false;
	int ret = 0, key;

	if (!top)
		return pk_err(err, -ENOMEM, "out of memory");
	pk_term_open(&term, STDIN_FILENO, stdout);
	while (!ret && !done && !quit) {
		double until = pk_now_s() + POLL_MS / 1000.0;

		ret = drain(rb, end && until > end ? end : until, fds, info, loader, lock_fd, &done,
			    err);
		done |= end && pk_now_s() >= end;
		while ((key = pk_term_key(&term)) >= 0) {
			quit |= key == 'q' || key == 'Q';
			if (key == 'z')
				pk_top_zero(top);
			if (key == 't')
				pk_top_toggle_order(top);
			redraw |= key == 'z' || key == 't';
		}
		if (ret || quit || (!done && !redraw && pk_now_s() < next))
			continue;
		if (done || pk_now_s() >= next) {
			ret = read_counts(rb, reader, err);
			if (ret)
				break;
			take_profile(reader, o, info, plan, &span, &p);
			ret = pk_top_add(top, &p);
			if (ret) {
				pk_err(err, ret, "cannot add the samples to the view: %s", strerror(-ret));
				break;
			}
			next = pk_now_s() + 1;
		}
		pk_term_size(&term, &screen.rows, &screen.cols);
		screen.ansi = term.ansi;
		screen.seconds = pk_now_s() - start;
		ret = pk_top_draw(top, &screen, stdout);
		if (ret)
			pk_err(err, ret, "cannot write the view: %s", strerror(-ret));
		redraw = false;
	}
	reading_over();
	pk_term_close(&term);
	pk_top_free(top);
	return ret;
}

/* --stats, --unwind dwarf: what the unwind tables hold and cost now. */
static void print_unwind_stats(const struct pk_read_opts *o)
{
	struct pk_unwind_alloc a;
	char line[256];
	__u32 zero = 0;
	int fd = pk_pin_open(o->pin_dir, PK_PIN_UNWIND_ALLOC);

	if (fd < 0)
		return;		/* --unwind fp */
	if (!bpf_map_lookup_elem(fd, &zero, &a)) {
		pk_unwind_alloc_describe(&a, line, sizeof(line));
		fprintf(stderr, "unwind tables: %s\n", line);
	}
	close(fd);
}

/* --stats: what the session's events did and cost while this read. */
static void print_stats(const struct pk_read_opts *o, const struct pk_read_plan *plan,
			const struct pk_bpf_cost *cost)
{
	__u64 counts[PK_MAX_EVENTS][PK_ECNT_SLOTS];
	int fd = pk_pin_open(o->pin_dir, PK_PIN_EVENT_COUNTS);
	bool have = fd >= 0 && pk_event_counts_read(fd, counts, plan->nevents) == 0;

	if (fd >= 0)
		close(fd);
	pk_bpf_cost_print(cost, plan->events, plan->nevents,
			   have ? (const __u64 (*)[PK_ECNT_SLOTS])counts : NULL, stderr);
	print_unwind_stats(o);
}

static int run(const struct pk_read_opts *o)
{
	struct pk_session_fds fds = { -1, -1, -1, -1 };
	struct pk_reader_opts ropts = {
		.debug_dirs = o->ndebug_dirs ? o->debug_dirs : NULL, .ndebug_dirs = o->ndebug_dirs,
		.no_dwarf = o->no_inline, .keep_locs = true,
	};
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	struct pk_reader *reader = NULL;
	struct pk_table_loader *loader = NULL;
	struct pk_table_sink sink;
	struct ring_buffer *rb = NULL;
	struct pk_session info;
	struct pk_read_plan *plan = calloc(1, sizeof(*plan));
	struct pk_bpf_cost *cost = NULL;
	const char *paths[PK_READ_MAX_SINKS];
	struct pk_output_file outs[PK_READ_MAX_SINKS] = { 0 };
	char err[PK_ERR_LEN];
	int tables_fd = -1, roots_fd = -1, lock_fd = -1, status = PK_EXIT_ERROR;
	pid_t holder;
	__u64 span;
	bool done = false;
	int ret;

	if (!plan) {
		fputs("probe-read: out of memory\n", stderr);
		return PK_EXIT_ERROR;
	}

	/* SA_RESTART, so that a signal never fails a write half done (a
	 * Ctrl-C in the middle of --top's screen did: EINTR, then "cannot
	 * write the view"); the poll ends at once all the same, as epoll_wait
	 * is never restarted (signal(7)). Installed before the temporary -o
	 * file exists, so that a signal never leaves it behind. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);	/* the terminal went away: still finish */
	for (size_t i = 0; i < o->noutputs; i++) {
		const struct pk_read_output *out = &o->outputs[i];

		ropts.timed |= pk_format_timed(out->format);
		/* pprof's cgroup labels, --per-cgroup's roots */
		ropts.cgroups |= o->per_cgroup || out->format == PK_FORMAT_PPROF;
		if (pk_format_binary(out->format) && !out->path && isatty(STDOUT_FILENO)) {
			ret = pk_err(err, -EINVAL, "-f %s is binary: give -o FILE or redirect the output",
				     pk_format_name(out->format));
			status = PK_EXIT_USAGE;	/* options that do not go together */
			goto cleanup;
		}
	}
	/* before anything is read or any -o file made: a second reader
	 * would take records the first one needs */
	lock_fd = pk_session_lock_take(o->pin_dir, &holder);
	if (lock_fd == -EBUSY) {
		char pid[32] = "";

		if (holder)
			snprintf(pid, sizeof(pid), ", pid %d", (int)holder);
		ret = pk_err(err, lock_fd, "the session at %s already has a reader%s: one reader per session",
			     o->pin_dir, pid);
		status = PK_EXIT_USAGE;
		goto cleanup;
	}
	if (lock_fd < 0) {
		ret = session_error(lock_fd, o->pin_dir, err);
		goto cleanup;
	}
	ret = pk_session_open(o->pin_dir, &fds, &info);
	if (ret) {
		session_error(ret, o->pin_dir, err);
		goto cleanup;
	}
	/* before the ring buffer is read: the names, files and mappings a
	 * reader before this one was told are told again */
	ret = pk_session_reader_gen_next(fds.session);
	if (ret) {
		pk_err(err, ret, "cannot start reading the session at %s: %s", o->pin_dir,
		       strerror(-ret));
		goto cleanup;
	}
	gen_fd = fds.session;
	ret = pk_read_plan_make(plan, o, &info, err);
	if (ret) {
		if (ret == -EINVAL)
			status = PK_EXIT_USAGE;
		goto cleanup;
	}
	ropts.nevents = plan->nevents;
	/* the profile starts here: with --from-now, so do its samples */
	span = boot_ns();
	ropts.from_ns = o->from_now ? span : 0;
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
	/* none from a loader before it: roots of gone processes are unknown */
	roots_fd = pk_pin_open(o->pin_dir, PK_PIN_ROOTS);
	ropts.roots_fd = roots_fd;
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
	ret = pk_read_wait_open(&sleeper, ring_buffer__epoll_fd(rb), lock_fd);
	if (ret) {
		pk_err(err, ret, "cannot wait for the ring buffer: %s", strerror(-ret));
		goto cleanup;
	}
	/* after what cannot be written is refused, before any sample is read */
	if (!o->interval) {
		ret = pk_read_plan_names(plan, -1, paths, err);
		if (!ret)
			ret = pk_output_files_open(outs, plan->nsinks, paths, err);
		if (ret)
			goto cleanup;
	}
	if (o->stats) {
		ret = pk_bpf_cost_start(plan->events, plan->nevents, &cost, err);
		if (ret) {
			pk_output_files_discard(outs, plan->nsinks);
			goto cleanup;
		}
	}
	/* --aggregate: what a reader that stopped between a swap and its
	 * read left; with --from-now, all counted so far, dropped as the
	 * backlog is (counted before the reader's start). */
	if (info.flags & PK_SESSION_AGGREGATE) {
		__u64 at = o->from_now ? ropts.from_ns - 1 : span;

		ret = pk_agg_maps_open(&agg, o->pin_dir, err);
		if (!ret)
			ret = pk_agg_maps_read(&agg, rb, reader, at, true, err);
		if (!ret && o->from_now)
			ret = pk_agg_maps_read(&agg, rb, reader, at, false, err);
		if (ret) {
			pk_output_files_discard(outs, plan->nsinks);
			goto cleanup;
		}
	}
	if (o->interval) {
		ret = read_intervals(rb, reader, loader, o, &fds, &info, plan, lock_fd, span, err);
	} else if (o->top) {
		ret = read_top(rb, reader, loader, o, &fds, &info, plan, lock_fd, err);
	} else {
		ret = drain(rb, o->duration ? pk_now_s() + o->duration : 0, &fds, &info, loader,
			    lock_fd, &done, err);
		if (!ret)
			ret = read_counts(rb, reader, err);
		reading_over();
		if (ret)
			pk_output_files_discard(outs, plan->nsinks);
		else
			ret = write_profile(reader, o, &info, plan, outs, &span, err);
	}
	if (!ret && unloaded)
		fprintf(stderr, "probe-read: the session at %s was unloaded: stopped reading, all it sampled is written\n",
			o->pin_dir);
	if (!ret)
		pk_summary_print(stderr, reader, fds.counters, plan->events, plan->nevents, plan->keep);
	if (!ret && cost)
		print_stats(o, plan, cost);

cleanup:
	if (ret)
		fprintf(stderr, "probe-read: %s\n", err);
	pk_bpf_cost_free(cost);
	free(plan);
	pk_read_wait_close(&sleeper);
	ring_buffer__free(rb);
	pk_agg_maps_close(&agg);
	reading_over();	/* after an error */
	pk_reader_free(reader);
	pk_table_loader_free(loader);
	if (tables_fd >= 0)
		close(tables_fd);
	if (roots_fd >= 0)
		close(roots_fd);
	pk_session_close(&fds);
	if (lock_fd >= 0)
		close(lock_fd);
	/* after the reader is freed: it saves what it learnt as it goes */
	pk_cli_cache_done("probe-read", NULL, stderr);
	return ret ? status : PK_EXIT_OK;
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
		return fputs(pk_read_usage, stdout) == EOF ? PK_EXIT_ERROR : PK_EXIT_OK;
	if (opts.version)
		return printf("probe-read (probekit) %s\n", PK_VERSION) < 0 ?
		       PK_EXIT_ERROR : PK_EXIT_OK;
	libbpf_set_print(libbpf_quiet);
	ret = pk_cli_cache_check("probe-read");
	return ret ? ret : run(&opts);
}
