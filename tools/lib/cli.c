// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/eh_table.h"
#include "lib/cli.h"

/* Is WORD ("--name=value") an option of LONG_OPTS with value VAL that
 * takes no argument? glibc's getopt_long reports that case as '?' with
 * optopt = VAL, like an unknown short option. NAME may be abbreviated. */
static bool given_needless_value(const char *word, const struct option *long_opts,
				 int val)
{
	size_t n = strcspn(word + 2, "=");

	if (strncmp(word, "--", 2) != 0 || word[2 + n] != '=')
		return false;
	for (const struct option *o = long_opts; o->name; o++)
		if (o->val == val && o->has_arg == no_argument &&
		    strncmp(o->name, word + 2, n) == 0)
			return true;
	return false;
}

int pk_cli_bad_option(int c, char *const argv[], const struct option *long_opts,
		      const char *prog, char err[PK_ERR_LEN])
{
	const char *word = argv[optind - 1];
	bool needless = c == '?' && optopt && given_needless_value(word, long_opts, optopt);
	char name[64];

	/* An unknown long option has optopt 0; a missing argument can only be
	 * at the end of argv, so WORD is the option then. In a group of short
	 * options (-xv) optind has not moved yet: use optopt. */
	if (needless || (c == '?' ? optopt == 0 : strncmp(word, "--", 2) == 0))
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(word, "="), word);
	else
		snprintf(name, sizeof(name), "-%c", optopt);
	if (c == ':')
		return pk_err(err, -EINVAL, "option %s needs an argument", name);
	if (needless)
		return pk_err(err, -EINVAL, "option %s takes no argument", name);
	return pk_err(err, -EINVAL, "unknown option %s (%s --help lists them)", name, prog);
}

bool pk_cli_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	/* strtol alone would also skip leading white space and take a '+'. */
	if (!(*s >= '0' && *s <= '9') && !(min < 0 && *s == '-'))
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int pk_cli_parse_failed(const char *prog, int ret, const char err[PK_ERR_LEN])
{
	fprintf(stderr, "%s: %s\n", prog, err);
	return ret == -EINVAL ? PK_EXIT_USAGE : PK_EXIT_ERROR;
}

int pk_cli_cache_check(const char *prog)
{
	unsigned long long max;

	if (!eh_cache_max(&max))
		return 0;
	fprintf(stderr, "%s: " EH_CACHE_MAX_ENV "=%s: not a size (bytes, or K, M, G; 0: no bound)\n",
		prog, getenv(EH_CACHE_MAX_ENV));
	return PK_EXIT_USAGE;
}

void pk_cli_cache_done(const char *prog, const char *cache_dir, FILE *out)
{
	struct eh_cache_unsaved u;
	char err[PK_ERR_LEN];

	if (eh_cache_keep_bound(cache_dir, NULL, err) && out)
		fprintf(out, "%s: %s\n", prog, err);
	eh_cache_unsaved(&u);
	if (!out)
		return;
	if (u.writes)
		fprintf(out, "%s: cache not written: %s: %s (%u failed write%s): used from "
			"memory, made again by the next session\n", prog, u.dir,
			strerror(-u.error), u.writes, u.writes == 1 ? "" : "s");
}
