// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eh2table: build the unwind tables of ELF files (or of every executable
 * mapping of a process) into the build-id cache, or dump one as text.
 * Usage and output format: eh2table_options.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eh2table/eh2table_jobs.h"
#include "eh2table/eh2table_options.h"
#include "eh2table/exec_mappings.h"
#include "eh_frame/eh_table.h"
#include "lib/cli.h"
#include "lib/version.h"

static int dump(const char *path, const struct eh_cache_opts *opts)
{
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN] = "";
	int ret;

	ret = eh_cache_get(path, opts, &t, NULL, 0, err);
	if (ret < 0) {
		fprintf(stderr, "eh2table: %s: %s\n", path,
			err[0] ? err : strerror(-ret));
		return PK_EXIT_ERROR;
	}
	ret = eh_unwind_table_dump(t, stdout);
	eh_unwind_table_free(t);
	if (ret < 0 || fflush(stdout) == EOF) {
		fprintf(stderr, "eh2table: %s: writing the dump: %s\n", path,
			strerror(ret < 0 ? -ret : errno));
		return PK_EXIT_ERROR;
	}
	return PK_EXIT_OK;
}

static int run_files(const char *const *files, int n,
		     const struct pk_eh2table_args *args,
		     const struct eh_cache_opts *opts)
{
	int failed = pk_eh2table_run(files, n, args->jobs, opts, stdout, stderr);

	if (failed < 0) {
		fprintf(stderr, "eh2table: cannot start workers: %s\n", strerror(-failed));
		return PK_EXIT_ERROR;
	}
	return failed ? PK_EXIT_ERROR : PK_EXIT_OK;
}

static int run_pid(const struct pk_eh2table_args *args,
		   const struct eh_cache_opts *opts)
{
	struct pk_exec_mappings maps;
	int ret;

	ret = pk_exec_mappings_read(args->pid, &maps);
	if (ret < 0) {
		fprintf(stderr, "eh2table: --pid %d: cannot read /proc/%d/maps: %s\n",
			(int)args->pid, (int)args->pid,
			ret == -ENOENT ? "no such process" : strerror(-ret));
		return PK_EXIT_ERROR;
	}
	if (!maps.n) {
		fprintf(stderr, "eh2table: --pid %d: no executable file mappings\n",
			(int)args->pid);
		pk_exec_mappings_free(&maps);
		return PK_EXIT_ERROR;
	}
	ret = run_files((const char *const *)maps.paths, maps.n, args, opts);
	pk_exec_mappings_free(&maps);
	return ret;
}

/* --cache-stats: a line per kind of file, then the total and the bound. */
static int cache_stats(const char *dir)
{
	static const char *const kinds[EH_CACHE__KINDS] = {
		[EH_CACHE_TABLES] = "tables", [EH_CACHE_LOCS] = "locations",
		[EH_CACHE_DEBUG] = "debug-copies", [EH_CACHE_KERNEL] = "kernel",
		[EH_CACHE_TEMP] = "temporary", [EH_CACHE_OTHER] = "other",
	};
	struct eh_cache_usage u;
	unsigned long long max;
	char root[4096], err[PK_ERR_LEN];
	int ret;

	ret = eh_cache_root(dir, root, sizeof(root));
	if (ret) {
		fprintf(stderr, "eh2table: no cache directory: set HOME or " EH_CACHE_ENV "\n");
		return PK_EXIT_ERROR;
	}
	eh_cache_max(&max);	/* checked at start */
	ret = eh_cache_trim(root, 0, &u, err);
	if (ret) {
		fprintf(stderr, "eh2table: %s\n", err);
		return PK_EXIT_ERROR;
	}
	printf("# %s, at most %llu bytes (" EH_CACHE_MAX_ENV "%s)\n# KIND FILES BYTES\n", root,
	       max, max ? "" : ": no bound");
	for (int k = 0; k < EH_CACHE__KINDS; k++)
		printf("%s %llu %llu\n", kinds[k], u.files[k], u.bytes[k]);
	printf("total %llu %llu\n", u.total_files, u.total_bytes);
	return PK_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct pk_eh2table_args args;
	struct eh_cache_opts opts = { .sz = sizeof(opts) };
	char err[PK_ERR_LEN];
	int ret;

	ret = pk_eh2table_parse_args(argc, argv, &args, err);
	if (ret) {
		ret = pk_cli_parse_failed("eh2table", ret, err);
		goto cleanup;
	}
	opts.cache_dir = args.cache_dir;
	opts.force = args.force;
	ret = pk_cli_cache_check("eh2table");
	if (ret)
		goto cleanup;

	switch (args.mode) {
	case EH2TABLE_HELP:
		fputs(eh2table_usage, stdout);
		ret = PK_EXIT_OK;
		break;
	case EH2TABLE_VERSION:
		printf("eh2table (probekit) %s\n", PK_VERSION);
		ret = PK_EXIT_OK;
		break;
	case EH2TABLE_DUMP:
		/* the dump is the product there: a cache not written is said */
		ret = dump(args.files[0], &opts);
		pk_cli_cache_done("eh2table", opts.cache_dir, stderr);
		break;
	case EH2TABLE_CACHE_STATS:
		ret = cache_stats(args.cache_dir);
		break;
	case EH2TABLE_PID:
		ret = run_pid(&args, &opts);
		pk_cli_cache_done("eh2table", opts.cache_dir, NULL);
		break;
	case EH2TABLE_FILES:
		ret = run_files(args.files, args.nfiles, &args, &opts);
		pk_cli_cache_done("eh2table", opts.cache_dir, NULL);
		break;
	}
cleanup:
	pk_eh2table_args_free(&args);
	return ret;
}
