/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Command-line helpers shared by the tools' option parsers (getopt_long with
 * opterr = 0 and a leading ':' in the option string). */
#ifndef PK_CLI_H
#define PK_CLI_H

#include <stdbool.h>

#include "errmsg.h"

/* After getopt_long returned '?' or ':' as C: one line in ERR naming the
 * option as the user wrote it, with a hint to `PROG --help`. -EINVAL. */
int pk_cli_bad_option(int c, char **argv, const char *prog, char err[PK_ERR_LEN]);

/* A whole decimal number in [MIN, MAX]: no spaces, no '+', no suffix, and
 * no '-' unless MIN is negative. */
bool pk_cli_parse_long(const char *s, long min, long max, long *out);

#endif
