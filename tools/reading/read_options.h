/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* probe-read's command line, parsed into a struct so it can be unit-tested. */
#ifndef PK_READ_OPTIONS_H
#define PK_READ_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "eh_frame/errmsg.h"
#include "output/formats.h"
#include "output/retention.h"
#include "profile/profile.h"

/* -f/-o pairs at most. */
#define PK_READ_MAX_OUTPUTS	4
/* --debug-dir given at most this often. */
#define PK_READ_MAX_DEBUG_DIRS	8

/* Longest -d: a year. */
#define PK_READ_MAX_SECONDS	(365.0 * 24 * 3600)

struct pk_read_opts {
	double duration;	/* -d seconds; 0: until interrupted (or targets exit) */
	bool from_now;		/* --from-now: the samples taken before the
				 * reader started are dropped */
	/* -f FORMAT -o FILE, repeatable: the i-th -f is written to the i-th
	 * -o (a strftime pattern with --interval); path NULL: stdout. */
	struct pk_read_output {
		enum pk_format format;
		const char *path;
		bool per_event;	/* path holds PK_READ_EVENT_FIELD: one file
				 * per event (pk_read_event_name) */
	} outputs[PK_READ_MAX_OUTPUTS];
	size_t noutputs;	/* >= 1 after parsing */
	enum pk_group group;	/* --per-pid, --per-tid, --per-cpu */
	bool per_cgroup;	/* --per-cgroup */
	bool lines;		/* --lines */
	bool no_inline;		/* --no-inline: names only, no DWARF read */
	double interval;	/* --interval seconds; 0: one output at the end */
	struct pk_retention keep; /* --keep N, --keep-bytes SIZE (with --interval) */
	const char *debug_dirs[PK_READ_MAX_DEBUG_DIRS]; /* --debug-dir */
	size_t ndebug_dirs;
	const char *event;	/* --event NAME: that event's samples only; NULL: all */
	bool stats;		/* --stats: per event counters and BPF cost */
	const char *title;	/* --title: the flame graph's; NULL: its default */
	bool top;		/* --top: the live view instead of outputs */
	const char *pin_dir;	/* points into argv or a constant */
	bool help;
	bool version;
};

/* Parse ARGV into *O (defaults first). 0, or -EINVAL with a message in ERR.
 * Resets getopt's state, so it may be called more than once. */
int pk_read_opts_parse(struct pk_read_opts *o, int argc, char **argv,
		       char err[PK_ERR_LEN]);

/* The name of the interval file that starts at wall-clock time T (seconds
 * since the epoch, local time) for -o PATTERN, into BUF. 0, or -EINVAL
 * when it does not fit. */
int pk_read_interval_name(const char *pattern, double t, char *buf, size_t len);

/* What -o PATTERN holds to be one file per event. */
#define PK_READ_EVENT_FIELD	"{event}"

/* PATH with each PK_READ_EVENT_FIELD replaced by the event's NAME, its
 * '/' as '_' (so that "uprobe:/usr/bin/app:f" names one file, not a
 * directory), into BUF. 0, or -EINVAL when it does not fit. */
int pk_read_event_name(const char *path, const char *name, char *buf, size_t len);

/* The --help text. */
extern const char pk_read_usage[];

#endif
