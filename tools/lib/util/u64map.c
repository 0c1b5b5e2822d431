// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>

#include "lib/util/u64map.h"

static size_t slot_of(const struct pk_u64map *m, __u64 key)
{
	size_t i = pk_hash64(key) & (m->cap - 1);

	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *pk_u64map_get(const struct pk_u64map *m, __u64 key)
{
	return m->cap ? m->vals[slot_of(m, key)] : NULL;
}

static int resize(struct pk_u64map *m, size_t cap)
{
	struct pk_u64map to = { .cap = cap };

	to.keys = malloc(to.cap * sizeof(*to.keys));
	to.vals = calloc(to.cap, sizeof(*to.vals));
	if (!to.keys || !to.vals) {
		pk_u64map_free(&to);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->vals[i]) {
			size_t j = slot_of(&to, m->keys[i]);

			to.keys[j] = m->keys[i];
			to.vals[j] = m->vals[i];
		}
	}
	to.n = m->n;
	pk_u64map_free(m);
	*m = to;
	return 0;
}

static int grow(struct pk_u64map *m)
{
	return resize(m, m->cap ? 2 * m->cap : 64);
}

int pk_u64map_put(struct pk_u64map *m, __u64 key, void *val)
{
	size_t i;

	/* a key there already: its value replaced, no room needed */
	if (m->cap && m->vals[i = slot_of(m, key)]) {
		m->vals[i] = val;
		return 0;
	}
	/* Load factor at most 1/2 keeps probe sequences short. */
	if (2 * (m->n + 1) > m->cap) {
		int err = grow(m);

		if (err)
			return err;
	}
	i = slot_of(m, key);
	if (!m->vals[i]) {
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
	return 0;
}

/* Backward-shift deletion rather than tombstones: the entries after the
 * hole that may move into it do, so that no probe sequence is broken and
 * the map holds only live keys. Lookups stay as short as before the key
 * came, the load limit counts only live keys, and a map whose keys come
 * and go (the pids of a long profile) never fills with tombstones that
 * only a rehash would clear. */
void *pk_u64map_del(struct pk_u64map *m, __u64 key)
{
	size_t mask = m->cap - 1, hole, i;
	void *val;

	if (!m->cap)
		return NULL;
	hole = slot_of(m, key);
	val = m->vals[hole];
	if (!val)
		return NULL;
	for (i = (hole + 1) & mask; m->vals[i]; i = (i + 1) & mask) {
		size_t home = pk_hash64(m->keys[i]) & mask;

		/* It may move back to the hole unless its home lies after the
		 * hole, in (hole, i]: it would no longer be found there. */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			m->keys[hole] = m->keys[i];
			m->vals[hole] = m->vals[i];
			hole = i;
		}
	}
	m->vals[hole] = NULL;
	m->n--;
	return val;
}

/* The walk starts after an empty slot (one always is: the load is at most
 * 1/2) and goes once round. No run of full slots then spans its start, and
 * a deletion moves entries only back within their run, towards the hole:
 * deleting the entry just given moves later entries into its slot or past
 * it, never before, so looking at that slot again sees each key once. */
bool pk_u64map_next(const struct pk_u64map *m, struct pk_u64map_iter *it)
{
	size_t mask = m->cap - 1;

	if (!m->cap)
		return false;
	if (!it->started) {
		it->started = true;
		for (it->slot = 0; m->vals[it->slot]; it->slot++)
			;
		it->left = m->cap - 1;	/* the slots after it->slot */
	} else if (!m->vals[it->slot] || m->keys[it->slot] != it->key) {
		/* the entry given last was deleted: its slot again */
		it->slot = (it->slot - 1) & mask;
		it->left++;
	}
	while (it->left) {
		it->slot = (it->slot + 1) & mask;
		it->left--;
		if (m->vals[it->slot]) {
			it->key = m->keys[it->slot];
			it->val = m->vals[it->slot];
			return true;
		}
	}
	return false;
}

int pk_u64map_shrink(struct pk_u64map *m)
{
	size_t cap = 64;

	if (!m->n) {
		pk_u64map_free(m);
		return 0;
	}
	while (2 * m->n > cap)
		cap *= 2;
	return cap < m->cap ? resize(m, cap) : 0;
}

void pk_u64map_free(struct pk_u64map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}
