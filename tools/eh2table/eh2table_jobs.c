// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eh2table/eh2table_jobs.h"
#include "lib/util/clock.h"
#include "lib/util/jobs.h"

static double now_ms(void)
{
	return pk_now_ns() / 1e6;
}

void pk_eh2table_key_from_cache_path(const char *file, char *buf, size_t len)
{
	const char *base = strrchr(file, '/'), *dir = base;
	size_t n;

	buf[0] = '\0';
	if (!base || base == file)
		return;
	while (dir > file && dir[-1] != '/')
		dir--;
	n = strlen(base + 1);
	if (n > 7 && !strcmp(base + 1 + n - 7, ".unwind"))
		n -= 7;
	if ((size_t)(base - dir) == 2 && !strncmp(dir, "nb", 2))
		snprintf(buf, len, "nb-%.*s", (int)n, base + 1);
	else
		snprintf(buf, len, "%.*s%.*s", (int)(base - dir), dir, (int)n, base + 1);
}

void pk_eh2table_do_file(const char *path, const struct eh_cache_opts *opts,
		      struct pk_eh2table_result *r)
{
	struct eh_unwind_table *t = NULL;
	char file[4096];
	double start = now_ms();

	memset(r, 0, sizeof(*r));
	r->status = eh_cache_get(path, opts, &t, file, sizeof(file), r->err);
	r->ms = now_ms() - start;
	if (r->status < 0) {
		if (!r->err[0])
			pk_err(r->err, r->status, "%s", strerror(-r->status));
		return;
	}
	if (r->status == EH_CACHE_UNSAVED) {
		/* filling the cache is what eh2table is for */
		eh_unwind_table_free(t);
		r->status = -EIO;
		return;
	}
	pk_eh2table_key_from_cache_path(file, r->key, sizeof(r->key));
	r->rows = eh_unwind_table_header(t)->nrows;
	r->bytes = eh_unwind_table_size(t);
	eh_unwind_table_free(t);
}

static const char *status_name(int status)
{
	switch (status) {
	case EH_CACHE_HIT:	return "hit";
	case EH_CACHE_BUILT:	return "built";
	case EH_CACHE_REBUILT:	return "rebuilt";
	default:		return "?";
	}
}

void pk_eh2table_print_result(const char *path, const struct pk_eh2table_result *r,
			   FILE *out, FILE *err)
{
	if (r->status < 0) {
		fprintf(err, "eh2table: %s: %s\n", path, r->err);
		fflush(err);
		return;
	}
	fprintf(out, "%s %u %zu %.3f %s %s\n", r->key, r->rows, r->bytes, r->ms,
		status_name(r->status), path);
	fflush(out);
}

/* What the files' callbacks share. */
struct run {
	const char *const *files;
	const struct eh_cache_opts *opts;
	struct pk_eh2table_result *results;
	FILE *out, *err;
	int failed;
};

static void do_one(void *arg, int i)
{
	struct run *run = arg;

	pk_eh2table_do_file(run->files[i], run->opts, &run->results[i]);
}

/* In argument order, on one thread: the output does not depend on timing,
 * and each line is written whole. */
static void print_one(void *arg, int i)
{
	struct run *run = arg;

	pk_eh2table_print_result(run->files[i], &run->results[i], run->out, run->err);
	run->failed += run->results[i].status < 0;
}

int pk_eh2table_run(const char *const *files, int nfiles, unsigned int jobs,
		 const struct eh_cache_opts *opts, FILE *out, FILE *err)
{
	struct run run = { .files = files, .opts = opts, .out = out, .err = err };
	int ret;

	run.results = calloc(nfiles > 0 ? nfiles : 1, sizeof(*run.results));
	if (!run.results)
		return -ENOMEM;
	ret = pk_jobs_run(nfiles, jobs, do_one, print_one, &run);
	free(run.results);
	return ret ? ret : run.failed;
}
