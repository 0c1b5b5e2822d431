// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int pk_cli_bad_option(int c, char **argv, const char *prog, char err[PK_ERR_LEN])
{
	const char *word = argv[optind - 1];
	char name[64];

	/* An unknown long option has optopt 0; a missing argument can only be
	 * at the end of argv, so WORD is the option then. In a group of short
	 * options (-vx) optind has not moved yet: use optopt. */
	if (c == '?' ? optopt == 0 : strncmp(word, "--", 2) == 0)
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(word, "="), word);
	else
		snprintf(name, sizeof(name), "-%c", optopt);
	if (c == ':')
		return pk_err(err, -EINVAL, "option %s needs an argument", name);
	return pk_err(err, -EINVAL, "unknown option %s (%s --help lists them)", name, prog);
}

bool pk_cli_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s || (min >= 0 && *s == '-') || *s == ' ' || *s == '+')
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}
