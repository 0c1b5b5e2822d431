// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-read: drain the ring buffer of the session probe-load pinned and
 * print folded stacks.
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

#include "cli.h"
#include "read_options.h"
#include "reader.h"
#include "session.h"
#include "summary.h"
#include "table_loader.h"

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
	/* What would make the final rename fail must be refused before reading:
	 * samples consumed from the ring buffer are gone for the next reader. */
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

/* Drain until -d is over, a signal, or the last target exits. */
static int drain(struct ring_buffer *rb, const struct pk_read_opts *o,
		 const struct pk_session_fds *fds, const struct pk_session *info,
		 char err[PK_ERR_LEN])
{
	double deadline = now_s() + o->duration;
	bool targets = info->flags & PK_SESSION_FILTER_PIDS;
	int ret;

	while (!stop) {
		int timeout = POLL_MS;

		if (o->duration) {
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
		if (targets && pk_targets_empty(fds->targets) == 1)
			break;
	}
	ret = ring_buffer__consume(rb);
	if (ret < 0)
		return pk_err(err, ret, "cannot read the ring buffer: %s", strerror(-ret));
	return 0;
}

static void print_summary(const struct pk_reader *reader, int counters_fd)
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
	pk_summary_ustack_ends(stderr, &st);
	pk_summary_no_table(stderr, &st);
}

static int run(const struct pk_read_opts *o)
{
	struct pk_session_fds fds = { -1, -1, -1, -1 };
	struct pk_reader_opts ropts = { .sz = sizeof(ropts) };
	struct output out = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct pk_reader *reader = NULL;
	struct pk_table_loader *loader = NULL;
	struct pk_table_sink sink;
	struct ring_buffer *rb = NULL;
	struct pk_session info;
	char err[PK_ERR_LEN];
	bool opened = false;
	int ret;

	/* No SA_RESTART: a signal ends the poll at once. Installed before the
	 * temporary -o file exists, so that a signal never leaves it behind. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);	/* the terminal went away: still finish */
	ret = pk_session_open(o->pin_dir, &fds, &info);
	if (ret) {
		session_error(ret, o->pin_dir, err);
		goto cleanup;
	}
	ret = output_open(&out, o->output, err);
	if (ret)
		goto cleanup;
	opened = true;
	/* --unwind dwarf: files the kernel finds without a table get one. */
	if (info.flags & PK_SESSION_DWARF) {
		loader = pk_table_loader_new(o->pin_dir);
		if (!loader) {
			ret = pk_err(err, -ENOMEM, "out of memory");
			goto cleanup;
		}
		sink = pk_table_loader_sink(loader);
		ropts.tables = &sink;
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
	ret = drain(rb, o, &fds, &info, err);
	if (ret)
		goto cleanup;
	ret = pk_reader_write(reader, out.f);
	if (ret) {
		pk_err(err, ret, "cannot write %s: %s", o->output ? o->output : "the output",
		       strerror(-ret));
		goto cleanup;
	}
	ret = output_close(&out, true, err);
	opened = false;
	if (ret)
		goto cleanup;
	print_summary(reader, fds.counters);

cleanup:
	if (opened)
		output_close(&out, false, err);
	if (ret)
		fprintf(stderr, "probe-read: %s\n", err);
	ring_buffer__free(rb);
	pk_reader_free(reader);
	pk_table_loader_free(loader);
	pk_session_close(&fds);
	return ret ? 1 : 0;
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
