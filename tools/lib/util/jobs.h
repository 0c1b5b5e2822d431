/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A parallel for-loop with ordered completion: the one thread pool of the
 * project (eh2table's files, the unwind store's tables).
 */
#ifndef PK_JOBS_H
#define PK_JOBS_H

typedef void (*pk_job_fn)(void *arg, int i);

/* Run WORK(ARG, i) for every i in [0, N) on up to JOBS worker threads, and
 * DONE(ARG, i) (may be NULL) on the calling thread in index order, each as
 * soon as item i and every item before it are done: results come out in a
 * fixed order whatever the timing, and the serial part overlaps with the
 * parallel one. JOBS <= 1 starts no thread (WORK and DONE alternate).
 * Returns 0, or a negative errno when not one worker could be started
 * (then nothing was run). */
int pk_jobs_run(int n, unsigned int jobs, pk_job_fn work, pk_job_fn done, void *arg);

#endif
