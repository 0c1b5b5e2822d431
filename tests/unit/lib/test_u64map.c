// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdint.h>
#include <stdlib.h>

#include "lib/util/u64map.h"
#include "test_util.h"

START_TEST(test_put_get_replace)
{
	struct pk_u64map m = { 0 };
	int a, b;

	ck_assert_ptr_eq(pk_u64map_get(&m, 1), NULL);	/* empty */
	ck_assert_int_eq(pk_u64map_put(&m, 0, &a), 0);	/* key 0 is a key */
	ck_assert_int_eq(pk_u64map_put(&m, ~0ULL, &b), 0);
	ck_assert_ptr_eq(pk_u64map_get(&m, 0), &a);
	ck_assert_ptr_eq(pk_u64map_get(&m, ~0ULL), &b);
	ck_assert_int_eq(pk_u64map_put(&m, 0, &b), 0);
	ck_assert_ptr_eq(pk_u64map_get(&m, 0), &b);
	ck_assert_uint_eq(m.n, 2);
	pk_u64map_free(&m);
}
END_TEST

/* A key there already is given its new value in place, even with the
 * map at the size where one more key would make it grow. */
START_TEST(test_replace_allocates_nothing)
{
	struct pk_u64map m = { 0 };
	size_t cap;

	for (uintptr_t i = 1; 2 * (m.n + 1) <= m.cap || !m.cap; i++)
		ck_assert_int_eq(pk_u64map_put(&m, i, (void *)i), 0);
	cap = m.cap;
	ck_assert_uint_gt(2 * (m.n + 1), cap);		/* one more key grows it */
	for (uintptr_t i = 1; i <= m.n; i++)
		ck_assert_int_eq(pk_u64map_put(&m, i, (void *)(i + 7)), 0);
	ck_assert_uint_eq(m.cap, cap);
	for (uintptr_t i = 1; i <= m.n; i++)
		ck_assert_ptr_eq(pk_u64map_get(&m, i), (void *)(i + 7));
	pk_u64map_free(&m);
}
END_TEST

START_TEST(test_growth)
{
	struct pk_u64map m = { 0 };

	/* Keys with the same low bits and sequential ones. */
	for (uintptr_t i = 1; i <= 20000; i++) {
		ck_assert_int_eq(pk_u64map_put(&m, i << 32, (void *)i), 0);
		ck_assert_int_eq(pk_u64map_put(&m, i, (void *)(i + 1)), 0);
	}
	ck_assert_uint_eq(m.n, 40000);
	for (uintptr_t i = 1; i <= 20000; i++) {
		ck_assert_ptr_eq(pk_u64map_get(&m, i << 32), (void *)i);
		ck_assert_ptr_eq(pk_u64map_get(&m, i), (void *)(i + 1));
	}
	ck_assert_ptr_eq(pk_u64map_get(&m, 20001), NULL);
	pk_u64map_free(&m);
}
END_TEST

/* The I-th key (from 1) whose home slot in a map of 64 slots is HOME. */
static __u64 homed_at(size_t home, int i)
{
	for (__u64 k = 1;; k++)
		if ((pk_hash64(k) & 63) == home && !--i)
			return k;
}

/* Every key of KEYS (N) with value KEYS[i] + 1, and nothing else. */
static void assert_holds(const struct pk_u64map *m, const __u64 *keys, size_t n)
{
	size_t seen = 0;

	for (size_t i = 0; i < n; i++)
		ck_assert_ptr_eq(pk_u64map_get(m, keys[i]), (void *)(uintptr_t)(keys[i] + 1));
	pk_u64map_for_each(m, it) {
		ck_assert_ptr_eq(it.val, (void *)(uintptr_t)(it.key + 1));
		seen++;
	}
	ck_assert_uint_eq(seen, n);
	ck_assert_uint_eq(m->n, n);
}

START_TEST(test_del)
{
	struct pk_u64map m = { 0 };
	__u64 keys[] = { 0, 1, ~1ULL, 1ULL << 32, 12345 };	/* values key + 1 */
	int a;

	ck_assert_ptr_eq(pk_u64map_del(&m, 1), NULL);	/* empty, never allocated */
	for (size_t i = 0; i < 5; i++)
		ck_assert_int_eq(pk_u64map_put(&m, keys[i], (void *)(uintptr_t)(keys[i] + 1)), 0);
	ck_assert_ptr_eq(pk_u64map_del(&m, 2), NULL);	/* not there */
	ck_assert_ptr_eq(pk_u64map_del(&m, 1), (void *)2);
	ck_assert_ptr_eq(pk_u64map_get(&m, 1), NULL);
	ck_assert_ptr_eq(pk_u64map_del(&m, 1), NULL);	/* twice */
	keys[1] = keys[4];
	assert_holds(&m, keys, 4);
	/* deleted, then put again */
	ck_assert_int_eq(pk_u64map_put(&m, 1, &a), 0);
	ck_assert_ptr_eq(pk_u64map_get(&m, 1), &a);
	ck_assert_uint_eq(m.n, 5);
	for (size_t i = 0; i < 4; i++)
		ck_assert_ptr_ne(pk_u64map_del(&m, keys[i]), NULL);
	ck_assert_ptr_eq(pk_u64map_del(&m, 1), &a);
	assert_holds(&m, keys, 0);
	pk_u64map_free(&m);
}
END_TEST

/* Keys of one home slot, and keys of the next slots that their probe
 * sequence pushed along, around the end of the table: deleting any one
 * leaves each of the others found, whatever its place in the run. */
START_TEST(test_del_in_probe_chain)
{
	for (int at = 0; at < 7; at++) {
		struct pk_u64map m = { 0 };
		/* homes 62, 62, 63, 62, 0, 63, 1: one run over slots 62..4 */
		__u64 keys[7] = { homed_at(62, 1), homed_at(62, 2), homed_at(63, 1),
				  homed_at(62, 3), homed_at(0, 1), homed_at(63, 2),
				  homed_at(1, 1) };
		__u64 gone = keys[at];

		for (size_t i = 0; i < 7; i++)
			ck_assert_int_eq(pk_u64map_put(&m, keys[i],
						       (void *)(uintptr_t)(keys[i] + 1)), 0);
		ck_assert_uint_eq(m.cap, 64);
		ck_assert_ptr_eq(pk_u64map_del(&m, gone), (void *)(uintptr_t)(gone + 1));
		ck_assert_ptr_eq(pk_u64map_get(&m, gone), NULL);
		keys[at] = keys[6];
		assert_holds(&m, keys, 6);
		/* and back at the end of its chain */
		ck_assert_int_eq(pk_u64map_put(&m, gone, (void *)(uintptr_t)(gone + 1)), 0);
		keys[6] = gone;
		assert_holds(&m, keys, 7);
		ck_assert_uint_eq(m.cap, 64);
		pk_u64map_free(&m);
	}
}
END_TEST

/* Each key once, through growth, and none from an empty map. */
START_TEST(test_iterate_each_once)
{
	struct pk_u64map m = { 0 };
	size_t n = 5000, seen = 0;
	unsigned char *count = calloc(n, 1);

	ck_assert_ptr_nonnull(count);
	pk_u64map_for_each(&m, it)
		ck_abort_msg("an entry in an empty map");
	for (uintptr_t i = 0; i < n; i++)
		ck_assert_int_eq(pk_u64map_put(&m, i << 20, (void *)(i + 1)), 0);
	pk_u64map_for_each(&m, it) {
		ck_assert_uint_lt(it.key >> 20, n);
		ck_assert_ptr_eq(it.val, (void *)(uintptr_t)((it.key >> 20) + 1));
		count[it.key >> 20]++;
		seen++;
	}
	ck_assert_uint_eq(seen, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(count[i], 1);
	free(count);
	pk_u64map_free(&m);
}
END_TEST

static __u64 next_rand(__u64 *state)
{
	return pk_hash64(++*state);
}

/* Deleting the entry just given, for some keys or all: each key is still
 * given once, and the map holds the rest. Full maps (at the load limit) of
 * random keys make runs that wrap round the table's end. */
START_TEST(test_del_while_iterating)
{
	__u64 state = 42;

	for (int round = 0; round < 200; round++) {
		struct pk_u64map m = { 0 };
		size_t n = 0, kept = 0, seen = 0, cap;
		__u64 keys[64], left[64];
		int drop = round % 4;	/* 0, 1: all; else every drop-th */

		/* to the load limit of 64 slots: 32 keys */
		while (n < 32) {
			__u64 k = next_rand(&state) % 1000;	/* some repeat */

			if (pk_u64map_get(&m, k))
				continue;
			keys[n++] = k;
			ck_assert_int_eq(pk_u64map_put(&m, k, (void *)(uintptr_t)(k + 1)), 0);
		}
		cap = m.cap;
		ck_assert_uint_eq(cap, 64);
		pk_u64map_for_each(&m, it) {
			ck_assert_ptr_eq(it.val, (void *)(uintptr_t)(it.key + 1));
			seen++;
			for (size_t i = 0; i < n; i++)
				if (keys[i] == it.key)
					keys[i] = ~0ULL;	/* given: never again */
			if (drop && seen % drop)
				left[kept++] = it.key;
			else
				ck_assert_ptr_eq(pk_u64map_del(&m, it.key), it.val);
		}
		ck_assert_uint_eq(seen, 32);
		for (size_t i = 0; i < n; i++)
			ck_assert_uint_eq(keys[i], ~0ULL);
		assert_holds(&m, left, kept);
		ck_assert_uint_eq(m.cap, cap);
		pk_u64map_free(&m);
	}
}
END_TEST

/* At the load limit, a deletion makes room for a new key without growth. */
START_TEST(test_del_at_load_limit)
{
	struct pk_u64map m = { 0 };
	uintptr_t last = 0;
	size_t cap;

	while (2 * (m.n + 1) <= m.cap || !m.cap) {
		last++;
		ck_assert_int_eq(pk_u64map_put(&m, last, (void *)last), 0);
	}
	cap = m.cap;
	ck_assert_ptr_eq(pk_u64map_del(&m, 3), (void *)3);
	ck_assert_int_eq(pk_u64map_put(&m, 1000, (void *)1000), 0);
	ck_assert_uint_eq(m.cap, cap);
	ck_assert_ptr_eq(pk_u64map_get(&m, 3), NULL);
	ck_assert_ptr_eq(pk_u64map_get(&m, 1000), (void *)1000);
	for (uintptr_t i = 1; i <= last; i++)
		if (i != 3)
			ck_assert_ptr_eq(pk_u64map_get(&m, i), (void *)i);
	pk_u64map_free(&m);
}
END_TEST

/* After deletions, the size that putting the keys left would have given. */
START_TEST(test_shrink)
{
	struct pk_u64map m = { 0 }, fresh = { 0 };

	ck_assert_int_eq(pk_u64map_shrink(&m), 0);	/* never allocated */
	for (uintptr_t i = 1; i <= 1000; i++)
		ck_assert_int_eq(pk_u64map_put(&m, i, (void *)i), 0);
	ck_assert_int_eq(pk_u64map_shrink(&m), 0);	/* nothing deleted */
	ck_assert_uint_eq(m.cap, 2048);
	for (uintptr_t i = 1; i <= 1000; i++)
		if (i % 20)
			ck_assert_ptr_eq(pk_u64map_del(&m, i), (void *)i);
	for (uintptr_t i = 20; i <= 1000; i += 20)
		ck_assert_int_eq(pk_u64map_put(&fresh, i, (void *)i), 0);
	ck_assert_int_eq(pk_u64map_shrink(&m), 0);
	ck_assert_uint_eq(m.cap, fresh.cap);
	ck_assert_uint_eq(m.n, 50);
	for (uintptr_t i = 1; i <= 1000; i++)
		ck_assert_ptr_eq(pk_u64map_get(&m, i), i % 20 ? NULL : (void *)i);
	for (uintptr_t i = 20; i <= 1000; i += 20)
		pk_u64map_del(&m, i);
	ck_assert_int_eq(pk_u64map_shrink(&m), 0);	/* empty: freed */
	ck_assert_uint_eq(m.cap, 0);
	ck_assert_ptr_eq(m.vals, NULL);
	ck_assert_int_eq(pk_u64map_put(&m, 5, (void *)5), 0);
	ck_assert_ptr_eq(pk_u64map_get(&m, 5), (void *)5);
	pk_u64map_free(&m);
	pk_u64map_free(&fresh);
}
END_TEST

Suite *suite_u64map(void)
{
	Suite *s = suite_create("u64map");
	TCase *tc = tcase_create("map");

	tcase_add_test(tc, test_put_get_replace);
	tcase_add_test(tc, test_replace_allocates_nothing);
	tcase_add_test(tc, test_growth);
	tcase_add_test(tc, test_del);
	tcase_add_test(tc, test_del_in_probe_chain);
	tcase_add_test(tc, test_iterate_each_once);
	tcase_add_test(tc, test_del_while_iterating);
	tcase_add_test(tc, test_del_at_load_limit);
	tcase_add_test(tc, test_shrink);
	suite_add_tcase(s, tc);
	return s;
}
