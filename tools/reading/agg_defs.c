// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/u64map.h"
#include "profile/profile.h"
#include "reading/agg_defs.h"

struct agg_def {
	struct pk_record_sample rec;	/* frames points to frames[] */
	__u64 gen;			/* the last put or get */
	__u64 frames[];
};

struct pk_agg_defs {
	struct pk_u64map defs;		/* key -> struct agg_def */
	struct pk_u64map pending;	/* key -> struct pk_agg_pending */
	__u64 npending;			/* samples in pending */
};

struct pk_agg_defs *pk_agg_defs_new(void)
{
	return calloc(1, sizeof(struct pk_agg_defs));
}

void pk_agg_defs_free(struct pk_agg_defs *d)
{
	if (!d)
		return;
	pk_u64map_for_each(&d->defs, it)
		free(it.val);
	pk_u64map_for_each(&d->pending, it)
		free(it.val);
	pk_u64map_free(&d->defs);
	pk_u64map_free(&d->pending);
	free(d);
}

int pk_agg_defs_put(struct pk_agg_defs *d, const struct pk_record_sample *rec, __u64 gen,
		    struct pk_agg_pending *pending)
{
	size_t n = (size_t)rec->kstack_len + rec->ustack_len + rec->py_len;
	struct agg_def *def = malloc(sizeof(*def) + n * sizeof(def->frames[0]));
	struct pk_agg_pending *p;

	if (!def)
		return -ENOMEM;
	def->rec = *rec;
	def->gen = gen;
	for (size_t i = 0; i < n; i++)
		def->frames[i] = pk_record_frame(rec, i);
	def->rec.frames = def->frames;
	/* a definition carries no stack copy (the parser refuses one) */
	def->rec.stack = NULL;
	memset(&def->rec.copy, 0, sizeof(def->rec.copy));
	free(pk_u64map_del(&d->defs, rec->agg_hash));
	if (pk_u64map_put(&d->defs, rec->agg_hash, def)) {
		free(def);
		return -ENOMEM;
	}
	*pending = (struct pk_agg_pending){ 0 };
	p = pk_u64map_del(&d->pending, rec->agg_hash);
	if (p) {
		*pending = *p;
		d->npending -= p->count;
		free(p);
	}
	return 0;
}

const struct pk_record_sample *pk_agg_defs_get(struct pk_agg_defs *d, __u64 key, __u64 gen)
{
	struct agg_def *def = pk_u64map_get(&d->defs, key);

	if (!def)
		return NULL;
	def->gen = gen;
	return &def->rec;
}

int pk_agg_defs_pend(struct pk_agg_defs *d, __u64 key, __u64 count, __u64 weight,
		     __u64 time_ns)
{
	struct pk_agg_pending *p = pk_u64map_get(&d->pending, key);

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		if (pk_u64map_put(&d->pending, key, p)) {
			free(p);
			return -ENOMEM;
		}
	}
	p->count += count;
	p->weight = pk_sat_add(p->weight, weight);
	if (time_ns > p->time_ns)
		p->time_ns = time_ns;
	d->npending += count;
	return 0;
}

void pk_agg_defs_expire(struct pk_agg_defs *d, __u64 gen)
{
	pk_u64map_for_each(&d->defs, it)
		if (((struct agg_def *)it.val)->gen < gen)
			free(pk_u64map_del(&d->defs, it.key));
	/* what a burst of stacks grew stays only while it is used */
	pk_u64map_shrink(&d->defs);
}

void pk_agg_defs_stats(const struct pk_agg_defs *d, struct pk_agg_defs_stats *st)
{
	*st = (struct pk_agg_defs_stats){
		.defs = d->defs.n, .pending = d->npending, .pending_keys = d->pending.n,
	};
}
