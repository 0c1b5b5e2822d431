/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where a profile is written: stdout, or -o FILE. A regular FILE (or one
 * that does not exist yet) is written as a temporary file beside it and
 * renamed over it only when complete, so that a failed or interrupted run
 * leaves no partial file; a symbolic link is followed first, so that the
 * file it points to is replaced and the link kept. Anything else, a device
 * (/dev/null), a FIFO, a socket or an open file named through /proc
 * (/dev/stdout, /proc/self/fd/N), is written in place, as a shell's `>`
 * would: what failed shows in the exit status only.
 */
#ifndef PK_OUTPUT_FILE_H
#define PK_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "eh_frame/errmsg.h"

struct pk_output_file {
	FILE *f;		/* NULL: closed */
	char *tmp;		/* written, then renamed; NULL: written in place */
	char *target;		/* what tmp is renamed over: path, its links followed */
	const char *path;	/* as given; NULL: stdout */
};

/* Open OUTS[0..n) for PATHS[0..n) (NULL: stdout), all or none: before any
 * sample is read, so that what cannot be created fails while the samples
 * are still in the ring buffer for the next reader. 0 or -errno. */
int pk_output_files_open(struct pk_output_file *outs, size_t n, const char *const *paths,
			 char err[PK_ERR_LEN]);

/* Finish OUT (f NULL after): with COMMIT the file takes its name, else it
 * is removed (what was written in place stays). 0 or -errno (the file is
 * removed then too). */
int pk_output_file_close(struct pk_output_file *out, bool commit, char err[PK_ERR_LEN]);

/* Remove every one of OUTS[0..n) still open. */
void pk_output_files_discard(struct pk_output_file *outs, size_t n);

#endif
