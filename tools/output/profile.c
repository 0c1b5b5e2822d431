// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* Record OBJ under ID in BY_ID (N entries): 1 when new (counted), 0 when
 * seen already, -EINVAL for an id out of range or naming another object. */
static int reach_one(const void **by_id, size_t n, __u32 id, const void *obj, size_t *count)
{
	if (id >= n || (by_id[id] && by_id[id] != obj))
		return -EINVAL;
	if (by_id[id])
		return 0;
	by_id[id] = obj;
	++*count;
	return 1;
}

int pk_profile_reach(const struct pk_profile *p, struct pk_profile_reach *r)
{
	memset(r, 0, sizeof(*r));
	r->stacks = calloc(p->nstacks ? p->nstacks : 1, sizeof(*r->stacks));
	r->locs = calloc(p->nlocs ? p->nlocs : 1, sizeof(*r->locs));
	r->maps = calloc(p->nmaps ? p->nmaps : 1, sizeof(*r->maps));
	if (!r->stacks || !r->locs || !r->maps)
		return -ENOMEM;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_stack_view *st = p->samples[i].stack;
		size_t depth;
		int ret;

		if (!st)
			return -EINVAL;
		ret = reach_one((const void **)r->stacks, p->nstacks, st->id, st, &r->nstacks);
		if (ret <= 0) {
			if (ret < 0)
				return ret;
			continue;
		}
		depth = (size_t)st->nkernel + st->nuser;
		if (depth && !st->locs)
			return -EINVAL;
		for (size_t j = 0; j < depth; j++) {
			const struct pk_loc *l = st->locs[j];

			if (!l || !l->nframes || !l->frames)
				return -EINVAL;
			ret = reach_one((const void **)r->locs, p->nlocs, l->id, l, &r->nlocs);
			if (ret < 0)
				return ret;
			if (!ret)
				continue;
			r->nframes += l->nframes;
			if (l->map && (ret = reach_one((const void **)r->maps, p->nmaps, l->map->id,
						       l->map, &r->nmaps)) < 0)
				return ret;
		}
	}
	return 0;
}

void pk_profile_reach_free(struct pk_profile_reach *r)
{
	free(r->stacks);
	free(r->locs);
	free(r->maps);
	memset(r, 0, sizeof(*r));
}
