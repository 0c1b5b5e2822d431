// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/util/jobs.h"

/* Shared by the workers and the calling thread. */
struct run {
	int n;
	pk_job_fn work;
	void *arg;
	bool *done;
	int next;			/* next item a worker takes */
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* an item is done */
};

static void *worker(void *p)
{
	struct run *run = p;
	int i;

	for (;;) {
		pthread_mutex_lock(&run->lock);
		i = run->next < run->n ? run->next++ : -1;
		pthread_mutex_unlock(&run->lock);
		if (i < 0)
			return NULL;
		run->work(run->arg, i);
		pthread_mutex_lock(&run->lock);
		run->done[i] = true;
		pthread_cond_broadcast(&run->cond);
		pthread_mutex_unlock(&run->lock);
	}
}

int pk_jobs_run(int n, unsigned int jobs, pk_job_fn work, pk_job_fn done, void *arg)
{
	struct run run = { .n = n, .work = work, .arg = arg };
	pthread_t *threads;
	unsigned int started = 0;
	int ret = 0;

	if (n <= 0)
		return 0;
	if (jobs > (unsigned int)n)
		jobs = n;
	/* One job: no thread, so a plain run stays as simple to debug as the
	 * code it calls. */
	if (jobs <= 1) {
		for (int i = 0; i < n; i++) {
			work(arg, i);
			if (done)
				done(arg, i);
		}
		return 0;
	}
	run.done = calloc(n, sizeof(*run.done));
	threads = calloc(jobs, sizeof(*threads));
	if (!run.done || !threads) {
		ret = -ENOMEM;
		goto out;
	}
	pthread_mutex_init(&run.lock, NULL);
	pthread_cond_init(&run.cond, NULL);
	for (; started < jobs; started++) {
		ret = -pthread_create(&threads[started], NULL, worker, &run);
		if (ret)
			break;
	}
	/* The workers that did start finish everything. */
	if (started)
		ret = 0;
	for (int i = 0; started && i < n; i++) {
		pthread_mutex_lock(&run.lock);
		while (!run.done[i])
			pthread_cond_wait(&run.cond, &run.lock);
		pthread_mutex_unlock(&run.lock);
		if (done)
			done(arg, i);
	}
	for (unsigned int t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	pthread_cond_destroy(&run.cond);
	pthread_mutex_destroy(&run.lock);
out:
	free(threads);
	free(run.done);
	return ret;
}
