/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* eh2table's command line, parsed apart from main() so it can be tested. */
#ifndef EH2TABLE_OPTIONS_H
#define EH2TABLE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "eh_frame/errmsg.h"

#define EH2TABLE_MAX_JOBS	256

enum eh2table_mode {
	EH2TABLE_FILES = 0,	/* build or reuse the table of each FILE */
	EH2TABLE_PID,		/* every executable file mapping of --pid */
	EH2TABLE_DUMP,		/* print the table of one FILE as text */
	EH2TABLE_CACHE_STATS,	/* --cache-stats: what the cache holds */
	EH2TABLE_HELP,		/* --help: usage on stdout, exit 0 */
	EH2TABLE_VERSION,	/* --version: the version on stdout, exit 0 */
};

struct pk_eh2table_args {
	enum eh2table_mode mode;
	const char *cache_dir;	/* NULL: eh_cache_root()'s default */
	bool force;
	unsigned int jobs;	/* 1..EH2TABLE_MAX_JOBS */
	pid_t pid;		/* EH2TABLE_PID */
	const char **files;	/* malloc'ed array of pointers into argv */
	int nfiles;
};

extern const char eh2table_usage[];

/*
 * Parse ARGV into ARGS, left to right and without reordering it: options
 * and FILEs may come in any order, "--" ends the options, --help and
 * --version end the parse. 0 on success; -EINVAL (bad usage) or -ENOMEM with one line (no
 * program prefix, no newline) in ERR. Free with pk_eh2table_args_free() in
 * every case. Resets getopt's state, so it may be called more than once.
 */
int pk_eh2table_parse_args(int argc, char *const argv[], struct pk_eh2table_args *args,
			char err[PK_ERR_LEN]);
void pk_eh2table_args_free(struct pk_eh2table_args *args);

#endif
