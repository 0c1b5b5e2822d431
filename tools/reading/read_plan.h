/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What one read writes: the session's events, --event checked against
 * them, and the outputs (sinks) that every -f/-o makes, those with {event}
 * in -o once per event; and each sink's file name for a profile, which
 * --interval names by the interval's start.
 */
#ifndef PK_READ_PLAN_H
#define PK_READ_PLAN_H

#include <stddef.h>

#include "bpf/probekit.h"
#include "eh_frame/errmsg.h"
#include "lib/session.h"
#include "output/formats.h"
#include "reading/read_options.h"

#define PK_READ_MAX_SINKS	(PK_READ_MAX_OUTPUTS * PK_MAX_EVENTS)

struct pk_read_plan {
	struct pk_event_desc events[PK_MAX_EVENTS];
	unsigned int nevents;
	int keep;			/* --event's index; -1: every event */
	struct pk_read_sink {
		enum pk_format format;
		const char *pattern;	/* -o as given; NULL: stdout */
		int event;		/* this event's samples only; -1: all */
	} sinks[PK_READ_MAX_SINKS];
	size_t nsinks;
	char names[PK_READ_MAX_SINKS][4096];	/* each sink's file name this time */
};

/* The plan of O for the session INFO at O->pin_dir. 0; -EINVAL for bad
 * usage (--event or -f folded against the session's events); another
 * -errno when the session's events cannot be read. One line in ERR. */
int pk_read_plan_make(struct pk_read_plan *plan, const struct pk_read_opts *o,
		      const struct pk_session *info, char err[PK_ERR_LEN]);

/* Each sink's file name for an output that starts at wall-clock time T
 * (--interval; < 0: none), into PLAN->names and PATHS[0..nsinks) (NULL:
 * stdout). 0 or -EINVAL when a name does not fit. */
int pk_read_plan_names(struct pk_read_plan *plan, double t, const char **paths,
		       char err[PK_ERR_LEN]);

#endif
