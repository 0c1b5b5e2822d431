/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* An open-addressing hash map from 64-bit keys to pointers: the caches of
 * the symbolizer (pid -> process, address -> name). */
#ifndef PK_U64MAP_H
#define PK_U64MAP_H

#include <linux/types.h>
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
/* Free the map's memory (not the values). */
void pk_u64map_free(struct pk_u64map *m);

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
