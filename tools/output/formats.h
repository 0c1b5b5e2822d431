/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The output formats of probe-read, by name: one table that the command
 * line, the writer dispatch and the help text all read.
 */
#ifndef PK_FORMATS_H
#define PK_FORMATS_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"

enum pk_format {
	PK_FORMAT_FOLDED = 0,	/* flamegraph.pl's input (the default) */
	PK_FORMAT_PERF,		/* perf script's text */
	PK_FORMAT_PPROF,	/* gzipped profile.proto */
	PK_FORMAT_SPEEDSCOPE,	/* speedscope's JSON file format */
	PK_FORMAT_SVG,		/* a flame graph, as flamegraph.pl draws one */
	PK_FORMAT__MAX,
};

/* The format called NAME; -EINVAL when there is none. */
int pk_format_parse(const char *name, enum pk_format *out);
const char *pk_format_name(enum pk_format fmt);
/* The format keeps each sample with its time (perf, speedscope): the
 * reader must not merge them. */
bool pk_format_timed(enum pk_format fmt);
/* Binary output (pprof): never to a terminal. */
bool pk_format_binary(enum pk_format fmt);
/* Lines add up counts (folded, svg): the samples of one event only. */
bool pk_format_one_event(enum pk_format fmt);

/* P in format FMT. 0 or -errno (-EIO: writing failed). */
int pk_format_write(enum pk_format fmt, FILE *f, const struct pk_profile *p);

#endif
