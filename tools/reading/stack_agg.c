// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/array.h"
#include "lib/util/u64map.h"
#include "reading/stack_agg.h"

struct pk_stack_agg {
	struct pk_stack **slots;	/* open addressing, cap a power of two */
	size_t cap;
	struct pk_stack **list;		/* first-seen order */
	size_t n, list_cap;
};

struct pk_stack_agg *pk_stack_agg_new(void)
{
	return calloc(1, sizeof(struct pk_stack_agg));
}

void pk_stack_agg_free(struct pk_stack_agg *agg)
{
	if (!agg)
		return;
	for (size_t i = 0; i < agg->n; i++)
		free(agg->list[i]);
	free(agg->list);
	free(agg->slots);
	free(agg);
}

static __u64 hash_stack(__u32 pid, const char *comm, const void *frames, size_t nframes)
{
	__u64 h = pk_hash64(pid ^ ((__u64)nframes << 32)), w;

	for (size_t i = 0; i < PK_TASK_COMM_LEN; i += 8) {
		memcpy(&w, comm + i, 8);
		h = pk_hash64(h ^ w);
	}
	for (size_t i = 0; i < nframes; i++) {
		memcpy(&w, (const char *)frames + 8 * i, 8);
		h = pk_hash64(h ^ w);
	}
	return h;
}

static bool same(const struct pk_stack *s, __u64 hash, __u32 pid, const char *comm,
		 __u64 cgroup_id, const void *frames, __u16 klen, __u16 ulen, __u16 plen)
{
	return s->hash == hash && !s->sealed && s->pid == pid && s->cgroup_id == cgroup_id &&
	       s->klen == klen && s->ulen == ulen &&
	       s->plen == plen && memcmp(s->comm, comm, PK_TASK_COMM_LEN) == 0 &&
	       memcmp(s->frames, frames, 8 * ((size_t)klen + ulen + plen)) == 0;
}

/* The table's slots anew, CAP of them (a power of two, over twice n). */
static int rehash(struct pk_stack_agg *agg, size_t cap)
{
	struct pk_stack **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < agg->n; i++) {
		size_t j = agg->list[i]->hash & (cap - 1);

		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = agg->list[i];
	}
	free(agg->slots);
	agg->slots = slots;
	agg->cap = cap;
	return 0;
}

static int grow(struct pk_stack_agg *agg)
{
	return rehash(agg, agg->cap ? 2 * agg->cap : 1024);
}

struct pk_stack *pk_stack_agg_add(struct pk_stack_agg *agg, __u32 pid, const char *comm,
				  __u64 cgroup_id, const void *frames, __u16 klen, __u16 ulen, __u16 plen,
				  __u64 count, bool *is_new)
{
	char comm_key[PK_TASK_COMM_LEN] = { 0 };
	size_t nframes = (size_t)klen + ulen + plen, i;
	struct pk_stack *s;
	__u64 hash;

	/* Bytes after the comm's NUL are not part of the name. */
	strncpy(comm_key, comm, PK_TASK_COMM_LEN - 1);
	/* where the parts meet is hashed too: frames moved from one part to
	 * the next are another stack */
	hash = hash_stack(pid ^ ((__u32)ulen << 16), comm_key, frames, nframes) ^
	       pk_hash64(cgroup_id);
	*is_new = false;
	if (agg->cap) {
		for (i = hash & (agg->cap - 1); (s = agg->slots[i]); i = (i + 1) & (agg->cap - 1)) {
			if (same(s, hash, pid, comm_key, cgroup_id, frames, klen, ulen, plen)) {
				s->count += count;
				return s;
			}
		}
	}
	/* Load factor at most 1/2. */
	if (2 * (agg->n + 1) > agg->cap && grow(agg))
		return NULL;
	if (pk_array_reserve((void **)&agg->list, &agg->list_cap, sizeof(*agg->list), agg->n + 1,
			     1024))
		return NULL;
	s = malloc(sizeof(*s) + 8 * nframes);
	if (!s)
		return NULL;
	s->hash = hash;
	s->count = count;
	s->user = NULL;
	s->pid = pid;
	s->cgroup_id = cgroup_id;
	s->klen = klen;
	s->ulen = ulen;
	s->plen = plen;
	s->sealed = false;
	memcpy(s->comm, comm_key, PK_TASK_COMM_LEN);
	memcpy(s->frames, frames, 8 * nframes);
	for (i = hash & (agg->cap - 1); agg->slots[i]; i = (i + 1) & (agg->cap - 1))
		;
	agg->slots[i] = s;
	agg->list[agg->n++] = s;
	*is_new = true;
	return s;
}

struct pk_stack *const *pk_stack_agg_entries(const struct pk_stack_agg *agg, size_t *n)
{
	*n = agg->n;
	return agg->list;
}

void pk_stack_agg_seal_pid(struct pk_stack_agg *agg, __u32 pid)
{
	for (size_t i = 0; i < agg->n; i++)
		if (agg->list[i]->pid == pid)
			agg->list[i]->sealed = true;
}

int pk_stack_agg_retain(struct pk_stack_agg *agg, bool (*keep)(void *ctx, struct pk_stack *s),
			void (*drop)(void *ctx, struct pk_stack *s), void *ctx)
{
	size_t n = 0, cap = 1024, old_n = agg->n;
	struct pk_stack **dropped;

	for (size_t i = 0; i < agg->n; i++)
		n += keep(ctx, agg->list[i]);
	if (n == agg->n)
		return 0;
	/* the table shrinks with what it holds (load at most 1/2) */
	while (2 * n > cap)
		cap *= 2;
	dropped = malloc((agg->n - n) * sizeof(*dropped));
	if (!dropped)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0, d = 0; i < old_n; i++) {
		if (keep(ctx, agg->list[i]))
			agg->list[n++] = agg->list[i];
		else
			dropped[d++] = agg->list[i];
	}
	agg->n = n;
	if (rehash(agg, cap)) {
		/* every entry back, in some order: nothing lost */
		memcpy(agg->list + n, dropped, (old_n - n) * sizeof(*dropped));
		agg->n = old_n;
		free(dropped);
		return -ENOMEM;
	}
	for (size_t d = 0; d < old_n - n; d++) {
		drop(ctx, dropped[d]);
		free(dropped[d]);
	}
	free(dropped);
	return 0;
}
