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

static int grow(struct pk_u64map *m)
{
	struct pk_u64map bigger = { .cap = m->cap ? 2 * m->cap : 64 };

	bigger.keys = malloc(bigger.cap * sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		pk_u64map_free(&bigger);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->vals[i]) {
			size_t j = slot_of(&bigger, m->keys[i]);

			bigger.keys[j] = m->keys[i];
			bigger.vals[j] = m->vals[i];
		}
	}
	bigger.n = m->n;
	pk_u64map_free(m);
	*m = bigger;
	return 0;
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

void pk_u64map_free(struct pk_u64map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}
