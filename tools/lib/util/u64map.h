/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* An open-addressing hash map from 64-bit keys to pointers: the caches of
 * the symbolizer (pid -> process, address -> name). */
#ifndef PK_U64MAP_H
#define PK_U64MAP_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

struct pk_u64map {
	__u64 *keys;
	void **vals;		/* NULL: empty slot (values are never NULL) */
	size_t cap, n;		/* cap: 0 or a power of two */
};

/* The value stored under KEY, or NULL. */
void *pk_u64map_get(const struct pk_u64map *m, __u64 key);
/* Store VAL (not NULL) under KEY, replacing any value. 0 or -ENOMEM;
 * replacing the value of a key there already allocates nothing, and so
 * cannot fail. */
int pk_u64map_put(struct pk_u64map *m, __u64 key, void *val);
/* Remove KEY: its value, or NULL when it was not there. Frees and
 * allocates nothing, and so cannot fail. */
void *pk_u64map_del(struct pk_u64map *m, __u64 key);
/* After deletions, the table made as small as its keys allow, as if they
 * had been put anew (none: freed); not during an iteration. 0 or -ENOMEM,
 * the map then as it was. */
int pk_u64map_shrink(struct pk_u64map *m);
/* Free the map's memory (not the values). */
void pk_u64map_free(struct pk_u64map *m);

/* Where an iteration is: KEY and VAL are the entry pk_u64map_next() gave
 * last; the rest is its own. Start from { 0 }. */
struct pk_u64map_iter {
	__u64 key;
	void *val;
	size_t slot, left;
	bool started;
};

/* The next entry into IT->key and IT->val: true, or false at the end. Each
 * key comes once, in no particular order. Between two calls, the entry
 * just given may be deleted and values of keys there replaced; keys must
 * not be added. */
bool pk_u64map_next(const struct pk_u64map *m, struct pk_u64map_iter *it);

/* for each entry of M, as IT.key and IT.val (IT declared here):
 *	pk_u64map_for_each(&m, it)
 *		if (gone(it.val))
 *			free(pk_u64map_del(&m, it.key));
 */
#define pk_u64map_for_each(m, it) \
	for (struct pk_u64map_iter it = { 0 }; pk_u64map_next((m), &it);)

/* A 64-bit mix (the finalizer of splitmix64), also for other hash tables. */
static inline __u64 pk_hash64(__u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

#endif
