// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The job pool: every item worked once, DONE in index order on the calling
 * thread, whatever the number of workers. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/util/jobs.h"
#include "test_util.h"

#define N 200

struct order {
	atomic_int worked[N];
	int done_seq[N];
	int ndone;
	pthread_t caller;
	bool done_elsewhere;
};

static void work(void *arg, int i)
{
	struct order *o = arg;

	/* later items finish first now and then: DONE must still be ordered */
	if (i % 7 == 0)
		usleep(200);
	atomic_fetch_add(&o->worked[i], 1);
}

static void done(void *arg, int i)
{
	struct order *o = arg;

	if (!pthread_equal(pthread_self(), o->caller))
		o->done_elsewhere = true;
	ck_assert_int_eq(atomic_load(&o->worked[i]), 1);
	o->done_seq[o->ndone++] = i;
}

START_TEST(test_order)
{
	struct order *o = calloc(1, sizeof(*o));

	ck_assert_ptr_nonnull(o);
	o->caller = pthread_self();
	ck_assert_int_eq(pk_jobs_run(N, (unsigned int)_i, work, done, o), 0);
	ck_assert_int_eq(o->ndone, N);
	ck_assert(!o->done_elsewhere);
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(o->done_seq[i], i);
		ck_assert_int_eq(atomic_load(&o->worked[i]), 1);
	}
	free(o);
}
END_TEST

START_TEST(test_empty_and_no_done)
{
	struct order *o = calloc(1, sizeof(*o));

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(pk_jobs_run(0, 4, work, done, o), 0);
	ck_assert_int_eq(o->ndone, 0);
	ck_assert_int_eq(pk_jobs_run(N, 3, work, NULL, o), 0);
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(atomic_load(&o->worked[i]), 1);
	free(o);
}
END_TEST

Suite *suite_jobs(void)
{
	Suite *s = suite_create("jobs");
	TCase *tc = tcase_create("jobs");

	tcase_add_loop_test(tc, test_order, 0, 2);	/* no thread */
	tcase_add_loop_test(tc, test_order, 2, 3);
	tcase_add_loop_test(tc, test_order, 8, 9);
	tcase_add_loop_test(tc, test_order, 500, 501);	/* more workers than items */
	tcase_add_test(tc, test_empty_and_no_done);
	suite_add_tcase(s, tc);
	return s;
}
