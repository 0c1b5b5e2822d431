// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hand-rolled rather than getopt_long: getopt keeps global state and prints
 * its own messages, and the usage errors here must be exactly one line that
 * the tests can match.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eh2table_options.h"

const char eh2table_usage[] =
"Usage: eh2table [--cache-dir DIR] [--force] [-j N] FILE...\n"
"       eh2table [--cache-dir DIR] [--force] [-j N] --pid PID\n"
"       eh2table [--cache-dir DIR] [--force] --dump FILE\n"
"\n"
"Build the unwind table of each x86_64 ELF FILE from its .eh_frame and\n"
".debug_frame (and its separate debug file) and keep it in the build-id cache,\n"
"or reuse the cached table when a valid one is there.\n"
"\n"
"Options:\n"
"  --cache-dir DIR  cache root; default $PROBEKIT_CACHE_DIR, else\n"
"                   /var/cache/probekit for root, else $XDG_CACHE_HOME/probekit\n"
"                   (~/.cache/probekit)\n"
"  --force          rebuild the tables even when valid cache files exist\n"
"  -j, --jobs N     work on N files in parallel (1-256, default 1)\n"
"  --pid PID        the files of every executable file mapping of process PID\n"
"  --dump FILE      print FILE's table as text (taken from the cache, built and\n"
"                   cached first when needed)\n"
"  -h, --help       print this help\n"
"\n"
"Output: one line per file on stdout, in argument order, fields separated by\n"
"one space:\n"
"  KEY ROWS BYTES MS STATUS PATH\n"
"  KEY     cache key: the GNU build-id in hex, or nb-<content hash> without one\n"
"  ROWS    rows in the table\n"
"  BYTES   size of the table (the cache file)\n"
"  MS      wall-clock milliseconds spent on this file, 3 decimals\n"
"  STATUS  hit (valid cache file reused), built (no cache file, or --force),\n"
"          or rebuilt (the cache file was corrupt or truncated: never used)\n"
"  PATH    the file, as given (the rest of the line)\n"
"A file that fails gives one line 'eh2table: FILE: reason' on stderr; the\n"
"other files are still done.\n"
"\n"
"--dump prints one row per line, '<pc hex> <cfa> <rbp> <ra>', PCs as readelf\n"
"prints them; lines starting with '#' are comments.\n"
"  cfa: rsp+N rbp+N plt1 plt2 *(rsp+N)+M <reg>+N signal unsupported end\n"
"  rbp: u (not saved) c-N/c+N (saved at CFA-N/CFA+N) unsupported\n"
"  ra:  c-8 u (undefined: outermost frame) unsupported\n"
"\n"
"Exit status: 0 all files done, 1 some file failed, 2 bad usage.\n";

static int usage_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A decimal in [min, max], nothing else (no sign, no spaces, no suffix). */
static bool parse_uint(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/*
 * Long options take "--opt VALUE" or "--opt=VALUE"; -j also "-jN". Returns
 * the value and advances *i past it, or NULL when the value is missing.
 */
static const char *option_value(int argc, char *const argv[], int *i,
				const char *name)
{
	const char *arg = argv[*i];
	size_t n = strlen(name);

	if (strncmp(arg, name, n) == 0 && arg[n] == '=')
		return arg + n + 1;
	if (strcmp(name, "-j") == 0 && strncmp(arg, "-j", 2) == 0 && arg[2])
		return arg + 2;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

/* Does ARG name option NAME, alone or as NAME=VALUE? */
static bool is_option(const char *arg, const char *name, bool takes_value)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n) != 0)
		return false;
	return arg[n] == '\0' || (takes_value && arg[n] == '=');
}

int eh2table_parse_args(int argc, char *const argv[], struct eh2table_args *args,
			char *err, size_t errlen)
{
	bool only_files = false, dump = false, pid = false;
	const char *val;
	long v;
	int i;

	memset(args, 0, sizeof(*args));
	args->jobs = 1;
	args->files = calloc(argc > 0 ? argc : 1, sizeof(*args->files));
	if (!args->files)
		return -ENOMEM;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (only_files || arg[0] != '-' || strcmp(arg, "-") == 0) {
			args->files[args->nfiles++] = arg;
		} else if (strcmp(arg, "--") == 0) {
			only_files = true;
		} else if (is_option(arg, "-h", false) || is_option(arg, "--help", false)) {
			args->mode = EH2TABLE_HELP;
			return 0;
		} else if (is_option(arg, "--force", false)) {
			args->force = true;
		} else if (is_option(arg, "--cache-dir", true)) {
			val = option_value(argc, argv, &i, "--cache-dir");
			if (!val)
				return usage_error(err, errlen, "option '--cache-dir' needs a directory");
			if (!*val)
				return usage_error(err, errlen, "--cache-dir: empty directory name");
			args->cache_dir = val;
		} else if (strncmp(arg, "-j", 2) == 0 || is_option(arg, "--jobs", true)) {
			const char *name = arg[1] == 'j' ? "-j" : "--jobs";

			val = option_value(argc, argv, &i, name);
			if (!val)
				return usage_error(err, errlen, "option '%s' needs a number", name);
			if (!parse_uint(val, 1, EH2TABLE_MAX_JOBS, &v))
				return usage_error(err, errlen,
						   "%s: '%s' is not a number of jobs from 1 to %d",
						   name, val, EH2TABLE_MAX_JOBS);
			args->jobs = v;
		} else if (is_option(arg, "--pid", true)) {
			val = option_value(argc, argv, &i, "--pid");
			if (!val)
				return usage_error(err, errlen, "option '--pid' needs a process id");
			if (!parse_uint(val, 1, INT_MAX, &v))
				return usage_error(err, errlen, "--pid: '%s' is not a process id", val);
			args->pid = v;
			pid = true;
		} else if (is_option(arg, "--dump", true)) {
			dump = true;
			if (arg[strlen("--dump")] == '=')
				args->files[args->nfiles++] = arg + strlen("--dump=");
		} else {
			return usage_error(err, errlen, "unknown option '%s'", arg);
		}
	}

	if (pid && dump)
		return usage_error(err, errlen, "--pid and --dump cannot be combined");
	if (pid) {
		if (args->nfiles)
			return usage_error(err, errlen, "--pid takes no FILE arguments");
		args->mode = EH2TABLE_PID;
	} else if (dump) {
		if (args->nfiles != 1)
			return usage_error(err, errlen, "--dump takes exactly one FILE");
		args->mode = EH2TABLE_DUMP;
	} else if (!args->nfiles) {
		return usage_error(err, errlen, "no FILE given");
	}
	return 0;
}

void eh2table_args_free(struct eh2table_args *args)
{
	free(args->files);
	args->files = NULL;
	args->nfiles = 0;
}
