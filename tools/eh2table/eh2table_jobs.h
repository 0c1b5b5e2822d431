/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* eh2table's work on a list of files: one table each, in parallel, one
 * output line each in argument order. */
#ifndef EH2TABLE_JOBS_H
#define EH2TABLE_JOBS_H

#include <stdio.h>

#include "eh_frame/eh_table.h"

struct pk_eh2table_result {
	int status;		/* enum eh_cache_result (> 0) or -errno */
	char key[2 * PK_UNWIND_BUILD_ID_MAX + 4];
	__u32 rows;
	size_t bytes;
	double ms;
	char err[PK_ERR_LEN];	/* status < 0 */
};

/* Get PATH's table through the cache (eh_cache_get) and describe it. */
void pk_eh2table_do_file(const char *path, const struct eh_cache_opts *opts,
		      struct pk_eh2table_result *r);

/* The cache key back from a cache file path, the inverse of eh_cache_path():
 * <root>/ab/cdef.unwind -> "abcdef", <root>/nb/<hash>.unwind -> "nb-<hash>".
 * Cheaper than eh_cache_key(), which hashes a whole file without build-id. */
void pk_eh2table_key_from_cache_path(const char *file, char *buf, size_t len);

/* PATH's line: "KEY ROWS BYTES MS STATUS PATH\n" for OUT, or, when it
 * failed, "eh2table: PATH: reason\n" for ERR. */
void pk_eh2table_print_result(const char *path, const struct pk_eh2table_result *r,
			   FILE *out, FILE *err);

/* Do FILES with JOBS worker threads and print each file's line in argument
 * order as soon as it and every file before it are done. Returns how many
 * files failed, or -errno when the workers could not be started. */
int pk_eh2table_run(const char *const *files, int nfiles, unsigned int jobs,
		 const struct eh_cache_opts *opts, FILE *out, FILE *err);

#endif
