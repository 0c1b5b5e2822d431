// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <getopt.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "probekit.h"
#include "read_options.h"

const char pk_read_usage[] =
"Usage: probe-read [-d SECONDS] [-o FILE] [--pin-dir DIR]\n"
"\n"
"Read the samples of the session probe-load started and print them as folded\n"
"stacks (comm;root;...;leaf COUNT, kernel frames suffixed _[k]), the input of\n"
"flamegraph.pl. Stops after -d SECONDS, on SIGINT, SIGTERM or SIGHUP, or, when\n"
"the session profiles given processes, once all of them have exited. A later\n"
"probe-read continues where this one stopped.\n"
"\n"
"  -d, --duration SECONDS  read for SECONDS (fractions allowed)\n"
"  -o, --output FILE       write to FILE (replaced only once complete)\n"
"                          instead of standard output\n"
"      --pin-dir DIR       the session pinned under DIR\n"
"                          (default " PK_PIN_DIR_DEFAULT ")\n"
"  -h, --help              show this help\n"
"  -V, --version           show the version\n"
"\n"
"A summary goes to standard error: samples read, samples lost because the\n"
"ring buffer was full and stacks that could not be read, since the session\n"
"started.\n"
"Exit status: 0 done, 1 error, 2 bad usage.\n";

enum {
	OPT_PIN_DIR = 0x100,
};

static const struct option long_opts[] = {
	{ "duration",	required_argument, NULL, 'd' },
	{ "output",	required_argument, NULL, 'o' },
	{ "pin-dir",	required_argument, NULL, OPT_PIN_DIR },
	{ "help",	no_argument,	   NULL, 'h' },
	{ "version",	no_argument,	   NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Digits with at most one '.', nothing else: strtod alone would also take
 * "inf", "nan", hex floats, exponents and leading spaces. */
static bool parse_seconds(const char *s, double *out)
{
	size_t digits = strspn(s, "0123456789"), dot = 0;
	double v;

	if (s[digits] == '.')
		dot = 1 + strspn(s + digits + 1, "0123456789");
	if (s[digits + dot] != '\0' || digits + dot == 0 || (digits == 0 && dot == 1))
		return false;
	v = strtod(s, NULL);
	if (!(v > 0) || v > PK_READ_MAX_SECONDS)
		return false;
	*out = v;
	return true;
}

int pk_read_opts_parse(struct pk_read_opts *o, int argc, char **argv,
		       char err[PK_ERR_LEN])
{
	int c;

	memset(o, 0, sizeof(*o));
	o->pin_dir = PK_PIN_DIR_DEFAULT;
	err[0] = '\0';

	optind = 0;	/* glibc: full reset, for repeated calls */
	opterr = 0;	/* errors are reported in one line of ours */
	while ((c = getopt_long(argc, argv, ":d:o:hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!parse_seconds(optarg, &o->duration))
				return pk_err(err, -EINVAL, "-d %s: not a duration (a positive number of seconds, at most a year)",
					      optarg);
			break;
		case 'o':
			if (!optarg[0])
				return pk_err(err, -EINVAL, "-o: empty file name");
			o->output = strcmp(optarg, "-") == 0 ? NULL : optarg;
			break;
		case OPT_PIN_DIR:
			if (optarg[0] != '/')
				return pk_err(err, -EINVAL, "--pin-dir '%s': not an absolute path", optarg);
			o->pin_dir = optarg;
			break;
		case 'h':
			o->help = true;
			break;
		case 'V':
			o->version = true;
			break;
		default:
			return pk_cli_bad_option(c, argv, long_opts, "probe-read", err);
		}
	}
	if (optind < argc)
		return pk_err(err, -EINVAL, "unexpected argument '%s'", argv[optind]);
	return 0;
}
