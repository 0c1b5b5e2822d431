/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* probe-read's command line, parsed into a struct so it can be unit-tested. */
#ifndef PK_READ_OPTIONS_H
#define PK_READ_OPTIONS_H

#include <stdbool.h>

#include "errmsg.h"

/* Longest -d: a year. */
#define PK_READ_MAX_SECONDS	(365.0 * 24 * 3600)

struct pk_read_opts {
	double duration;	/* -d seconds; 0: until interrupted (or targets exit) */
	const char *output;	/* -o FILE; NULL: stdout */
	const char *pin_dir;	/* points into argv or a constant */
	bool help;
	bool version;
};

/* Parse ARGV into *O (defaults first). 0, or -EINVAL with a message in ERR.
 * Resets getopt's state, so it may be called more than once. */
int pk_read_opts_parse(struct pk_read_opts *o, int argc, char **argv,
		       char err[PK_ERR_LEN]);

/* The --help text. */
extern const char pk_read_usage[];

#endif
