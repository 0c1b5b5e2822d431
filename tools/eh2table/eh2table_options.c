// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "eh2table/eh2table_options.h"
#include "lib/cli.h"

const char eh2table_usage[] =
"Usage: eh2table [--cache-dir DIR] [--force] [-j N] FILE...\n"
"  or:  eh2table [--cache-dir DIR] [--force] [-j N] --pid PID\n"
"  or:  eh2table [--cache-dir DIR] [--force] --dump FILE\n"
"  or:  eh2table [--cache-dir DIR] --cache-stats\n"
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
"  --cache-stats    what the cache holds: files and bytes (as du counts them)\n"
"                   of each kind, against its bound\n"
"  -h, --help       print this help\n"
"  -V, --version    print the version\n"
"\n"
"Output: one line per file on stdout, in argument order, fields separated by\n"
"one space:\n"
"  KEY ROWS BYTES MS STATUS PATH\n"
"\n"
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
"  cfa:  rsp+N rbp+N plt1 plt2 *(rsp+N)+M <reg>+N signal unsupported end\n"
"  rbp:  u (not saved) c-N/c+N (saved at CFA-N/CFA+N) unsupported\n"
"  ra:   c-8 u (undefined: outermost frame) unsupported\n"
"\n"
"The cache holds every file of probekit's tools (tables, probe-read's\n"
"location caches, debug copies, the kernel's files) within one bound:\n"
"$PROBEKIT_CACHE_MAX bytes (K, M, G; 0: none), by default 1G. Each tool that\n"
"wrote to it removes the least recently used files beyond it.\n"
"\n"
"Exit status: 0 all files done, 1 error (some file failed), 2 bad usage.\n"
"\n"
"Examples:\n"
"  eh2table /usr/lib/x86_64-linux-gnu/libc.so.6\n"
"                   libc's table into the cache (probe-load takes it from there)\n"
"  eh2table --pid PID\n"
"                   the tables of every file process PID runs\n"
"  eh2table --dump /usr/lib/x86_64-linux-gnu/libc.so.6 | less\n"
"                   libc's table as text, comparable with readelf\n"
"                   --debug-dump=frames-interp\n";

enum {
	OPT_CACHE_DIR = 0x100,
	OPT_FORCE,
	OPT_PID,
	OPT_DUMP,
	OPT_CACHE_STATS,
};

static const struct option long_opts[] = {
	{ "cache-dir",	required_argument, NULL, OPT_CACHE_DIR },
	{ "force",	no_argument,	   NULL, OPT_FORCE },
	{ "jobs",	required_argument, NULL, 'j' },
	{ "pid",	required_argument, NULL, OPT_PID },
	/* Optional: in "--dump FILE" FILE is the one FILE argument, so that
	 * "--dump --force FILE" keeps --force an option. */
	{ "dump",	optional_argument, NULL, OPT_DUMP },
	{ "cache-stats", no_argument,	   NULL, OPT_CACHE_STATS },
	{ "help",	no_argument,	   NULL, 'h' },
	{ "version",	no_argument,	   NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Which of FILE..., --pid, --dump and --cache-stats: exactly one. */
static int pick_mode(struct pk_eh2table_args *args, bool dump, bool stats, char err[PK_ERR_LEN])
{
	if (stats) {
		if (args->pid || dump || args->nfiles)
			return pk_err(err, -EINVAL, "--cache-stats takes no FILE, --pid or --dump");
		args->mode = EH2TABLE_CACHE_STATS;
		return 0;
	}
	if (args->pid && dump)
		return pk_err(err, -EINVAL, "--pid and --dump cannot be combined");
	if (args->pid) {
		if (args->nfiles)
			return pk_err(err, -EINVAL, "--pid takes no FILE arguments");
		args->mode = EH2TABLE_PID;
	} else if (dump) {
		if (args->nfiles != 1)
			return pk_err(err, -EINVAL, "--dump takes exactly one FILE");
		args->mode = EH2TABLE_DUMP;
	} else if (!args->nfiles) {
		return pk_err(err, -EINVAL, "no FILE given");
	}
	return 0;
}

int pk_eh2table_parse_args(int argc, char *const argv[], struct pk_eh2table_args *args,
			char err[PK_ERR_LEN])
{
	bool dump = false, stats = false;
	long v;
	int c;

	memset(args, 0, sizeof(*args));
	args->jobs = 1;
	err[0] = '\0';
	args->files = calloc(argc > 0 ? argc : 1, sizeof(*args->files));
	if (!args->files)
		return pk_err(err, -ENOMEM, "out of memory");

	optind = 0;	/* glibc: full reset, for repeated calls */
	opterr = 0;	/* errors are reported in one line of ours */
	/* '-': each FILE comes back in its place as option 1, so argv is read
	 * left to right and never reordered. */
	while ((c = getopt_long(argc, argv, "-:j:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 1:
			args->files[args->nfiles++] = optarg;
			break;
		case 'h':
			/* Wins over what follows it, not over what came before. */
			args->mode = EH2TABLE_HELP;
			return 0;
		case 'V':
			args->mode = EH2TABLE_VERSION;
			return 0;
		case OPT_FORCE:
			args->force = true;
			break;
		case OPT_CACHE_DIR:
			if (!optarg[0])
				return pk_err(err, -EINVAL, "--cache-dir: empty directory name");
			args->cache_dir = optarg;
			break;
		case 'j':
			if (!pk_cli_parse_long(optarg, 1, EH2TABLE_MAX_JOBS, &v))
				return pk_err(err, -EINVAL, "-j %s: not a number of jobs from 1 to %d",
					      optarg, EH2TABLE_MAX_JOBS);
			args->jobs = v;
			break;
		case OPT_PID:
			if (!pk_cli_parse_long(optarg, 1, INT_MAX, &v))
				return pk_err(err, -EINVAL, "--pid %s: not a process id (a positive number)",
					      optarg);
			args->pid = v;
			break;
		case OPT_CACHE_STATS:
			stats = true;
			break;
		case OPT_DUMP:
			dump = true;
			if (optarg)
				args->files[args->nfiles++] = optarg;
			break;
		default:
			return pk_cli_bad_option(c, argv, long_opts, "eh2table", err);
		}
	}
	while (optind < argc)	/* after "--": FILEs only */
		args->files[args->nfiles++] = argv[optind++];
	return pick_mode(args, dump, stats, err);
}

void pk_eh2table_args_free(struct pk_eh2table_args *args)
{
	free(args->files);
	args->files = NULL;
	args->nfiles = 0;
}
