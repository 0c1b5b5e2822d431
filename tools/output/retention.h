/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --keep and --keep-bytes: a continuous reader (--interval) removes its
 * oldest files, so that a directory of profiles written all day stays
 * within a bound. The files an -o pattern names are those its glob
 * (pk_retention_glob) matches, written by this reader or an earlier one
 * (a restarted service): the oldest by modification time go first, and
 * never one just written.
 */
#ifndef PK_RETENTION_H
#define PK_RETENTION_H

#include <stddef.h>

#include "eh_frame/errmsg.h"

struct pk_retention {
	size_t files;			/* of each pattern at most; 0: no bound */
	unsigned long long bytes;	/* of all patterns together; 0: no bound */
};

/* The glob(7) of the files -o PATTERN names: each strftime(3) conversion
 * and {event} as '*', "%%" as '%', glob's own special characters escaped,
 * into BUF. 0, or -EINVAL (it does not fit, or a '%' ends it). */
int pk_retention_glob(const char *pattern, char *buf, size_t len);

/* Remove the oldest files of PATTERNS[0..n) (-o patterns) beyond R's
 * bounds, but none of WRITTEN[0..nwritten) (the files of the interval
 * just written). The number removed, or -errno (what could not be listed
 * or removed, in ERR; the rest is still done). */
int pk_retention_apply(const char *const *patterns, size_t n, const char *const *written,
		       size_t nwritten, const struct pk_retention *r, char err[PK_ERR_LEN]);

#endif
