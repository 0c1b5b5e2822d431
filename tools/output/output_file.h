/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where a profile is written: stdout, or -o FILE written as a temporary
 * file beside FILE and renamed over it only when complete, so that a failed
 * or interrupted run leaves no partial file.
 */
#ifndef PK_OUTPUT_FILE_H
#define PK_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "eh_frame/errmsg.h"

struct pk_output_file {
	FILE *f;		/* NULL: closed */
	char *tmp;		/* NULL: stdout */
	const char *path;	/* as given; NULL: stdout */
};

/* Open OUTS[0..n) for PATHS[0..n) (NULL: stdout), all or none: before any
 * sample is read, so that what cannot be created fails while the samples
 * are still in the ring buffer for the next reader. 0 or -errno. */
int pk_output_files_open(struct pk_output_file *outs, size_t n, const char *const *paths,
			 char err[PK_ERR_LEN]);

/* Finish OUT (f NULL after): with COMMIT the file takes its name, else it
 * is removed. 0 or -errno (the file is removed then too). */
int pk_output_file_close(struct pk_output_file *out, bool commit, char err[PK_ERR_LEN]);

/* Remove every one of OUTS[0..n) still open. */
void pk_output_files_discard(struct pk_output_file *outs, size_t n);

#endif
