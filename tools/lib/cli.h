/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Command-line helpers shared by the tools' option parsers (getopt_long with
 * opterr = 0 and a leading ':' in the option string) and their main()s. */
#ifndef PK_CLI_H
#define PK_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "eh_frame/errmsg.h"

/* Exit statuses of every program (main() and the helpers that return
 * one): PK_EXIT_OK success, PK_EXIT_ERROR for what went wrong while
 * running, PK_EXIT_USAGE when the command line (or an event it names) is
 * refused. */
#define PK_EXIT_OK	0
#define PK_EXIT_ERROR	1
#define PK_EXIT_USAGE	2

/* After getopt_long returned '?' or ':' as C: one line in ERR naming the
 * option as the user wrote it, with a hint to `PROG --help` for an unknown
 * one. LONG_OPTS: the table given to getopt_long. -EINVAL. */
int pk_cli_bad_option(int c, char *const argv[], const struct option *long_opts,
		      const char *prog, char err[PK_ERR_LEN]);

/* A whole decimal number in [MIN, MAX]: digits only (no spaces, no '+', no
 * suffix), and a leading '-' only when MIN is negative. */
bool pk_cli_parse_long(const char *s, long min, long max, long *out);

/* For main() when its parser failed with RET: prints "PROG: ERR" on stderr
 * and returns the exit status, PK_EXIT_USAGE for -EINVAL (the parsers'
 * "bad usage"), PK_EXIT_ERROR for anything else (out of memory). */
int pk_cli_parse_failed(const char *prog, int ret, const char err[PK_ERR_LEN]);

/* For main(), before any work: PROBEKIT_CACHE_MAX, where set, is a size.
 * 0, or PK_EXIT_USAGE after one line on stderr. */
int pk_cli_cache_check(const char *prog);

/* For main(), at the end of its work (and a continuous reader's after each
 * interval): the cache kept within its bound (PROBEKIT_CACHE_MAX, under
 * CACHE_DIR or the default root) where this process wrote to it, and,
 * when this process could not write the cache, one line on OUT, "PROG:
 * cache not written: DIR: REASON (N failed writes): ...", saying what it
 * costs: what was made was used all the same, and the next session makes
 * it again. Nothing when every write went through; OUT NULL: nothing said
 * (eh2table says it per file). */
void pk_cli_cache_done(const char *prog, const char *cache_dir, FILE *out);

#endif
