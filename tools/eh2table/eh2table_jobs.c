// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eh2table_jobs.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void eh2table_key_from_cache_path(const char *file, char *buf, size_t len)
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

void eh2table_do_file(const char *path, const struct eh_cache_opts *opts,
		      struct eh2table_result *r)
{
	struct unwind_table *t = NULL;
	char file[4096];
	double start = now_ms();

	memset(r, 0, sizeof(*r));
	r->status = eh_cache_get(path, opts, &t, file, sizeof(file), &r->err);
	r->ms = now_ms() - start;
	if (r->status < 0) {
		if (!r->err.msg[0])
			snprintf(r->err.msg, sizeof(r->err.msg), "%s", strerror(-r->status));
		return;
	}
	eh2table_key_from_cache_path(file, r->key, sizeof(r->key));
	r->rows = unwind_table__header(t)->nrows;
	r->bytes = unwind_table__size(t);
	unwind_table__free(t);
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

void eh2table_print_result(const char *path, const struct eh2table_result *r,
			   FILE *out, FILE *err)
{
	if (r->status < 0) {
		fprintf(err, "eh2table: %s: %s\n", path, r->err.msg);
		fflush(err);
		return;
	}
	fprintf(out, "%s %u %zu %.3f %s %s\n", r->key, r->rows, r->bytes, r->ms,
		status_name(r->status), path);
	fflush(out);
}

/* Shared by the workers and the printing thread. */
struct run {
	const char *const *files;
	int nfiles;
	const struct eh_cache_opts *opts;
	struct eh2table_result *results;
	bool *done;
	int next;			/* next file a worker takes */
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* a file is done */
};

static void *worker(void *arg)
{
	struct run *run = arg;
	int i;

	for (;;) {
		pthread_mutex_lock(&run->lock);
		i = run->next < run->nfiles ? run->next++ : -1;
		pthread_mutex_unlock(&run->lock);
		if (i < 0)
			return NULL;
		eh2table_do_file(run->files[i], run->opts, &run->results[i]);
		pthread_mutex_lock(&run->lock);
		run->done[i] = true;
		pthread_cond_broadcast(&run->cond);
		pthread_mutex_unlock(&run->lock);
	}
}

int eh2table_run(const char *const *files, int nfiles, unsigned int jobs,
		 const struct eh_cache_opts *opts, FILE *out, FILE *err)
{
	struct run run = { .files = files, .nfiles = nfiles, .opts = opts };
	pthread_t *threads = NULL;
	unsigned int started = 0;
	int failed = 0, ret;

	if (jobs > (unsigned int)nfiles)
		jobs = nfiles;
	run.results = calloc(nfiles, sizeof(*run.results));
	run.done = calloc(nfiles, sizeof(*run.done));
	if (!run.results || !run.done) {
		ret = -ENOMEM;
		goto cleanup;
	}
	/* One job: no thread, so a plain run stays as simple to debug as
	 * the code it calls. */
	if (jobs <= 1) {
		for (int i = 0; i < nfiles; i++) {
			eh2table_do_file(files[i], opts, &run.results[i]);
			eh2table_print_result(files[i], &run.results[i], out, err);
			failed += run.results[i].status < 0;
		}
		ret = failed;
		goto cleanup;
	}

	pthread_mutex_init(&run.lock, NULL);
	pthread_cond_init(&run.cond, NULL);
	threads = calloc(jobs, sizeof(*threads));
	if (!threads) {
		ret = -ENOMEM;
		goto cleanup_sync;
	}
	for (; started < jobs; started++) {
		ret = -pthread_create(&threads[started], NULL, worker, &run);
		if (ret) {
			/* Let the workers that did start finish everything. */
			if (!started)
				goto cleanup_sync;
			break;
		}
	}
	/* Print in argument order: the output does not depend on timing, and
	 * each line is written whole by this one thread. */
	for (int i = 0; i < nfiles; i++) {
		pthread_mutex_lock(&run.lock);
		while (!run.done[i])
			pthread_cond_wait(&run.cond, &run.lock);
		pthread_mutex_unlock(&run.lock);
		eh2table_print_result(files[i], &run.results[i], out, err);
		failed += run.results[i].status < 0;
	}
	ret = failed;

cleanup_sync:
	for (unsigned int t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	pthread_cond_destroy(&run.cond);
	pthread_mutex_destroy(&run.lock);
cleanup:
	free(threads);
	free(run.done);
	free(run.results);
	return ret;
}
