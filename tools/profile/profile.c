// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

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

		if (!st || p->samples[i].event >= pk_profile_nevents(p))
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

/* The event of a profile without a table: probe-load's one event before
 * there were several. Its period is the profile's (pk_event_period). */
static const struct pk_event_desc implicit_cpu_clock = {
	.name = "cpu-clock",
	.kind = PK_EVK_PERF,
	.unit = PK_UNIT_NS,
	.flags = PK_EVF_FREQ,
};

const struct pk_event_desc *pk_profile_event(const struct pk_profile *p, unsigned int i)
{
	if (!p->nevents)
		return i == 0 ? &implicit_cpu_clock : NULL;
	return i < p->nevents && p->events ? &p->events[i] : NULL;
}

__u64 pk_event_period(const struct pk_profile *p, const struct pk_event_desc *ev)
{
	if (ev->unit == PK_UNIT_COUNT)
		return ev->sample_every ? ev->sample_every : 1;
	if (!(ev->flags & PK_EVF_FREQ))
		return 0;
	return ev->freq_hz ? 1000000000ULL / ev->freq_hz : p->period_ns;
}

__u64 pk_sample_weight(const struct pk_profile *p, const struct pk_sample_view *s)
{
	const struct pk_event_desc *ev;
	__u64 w;

	if (s->weight)
		return s->weight;
	ev = pk_profile_event(p, s->event);
	if (!ev || __builtin_mul_overflow(s->count, pk_event_period(p, ev), &w))
		return ev ? UINT64_MAX : 0;
	return w;
}

bool pk_event_folds_time(const struct pk_event_desc *ev)
{
	return ev->unit == PK_UNIT_NS && ev->kind != PK_EVK_PERF;
}

int pk_event_find(const struct pk_event_desc *ev, unsigned int n, const char *name)
{
	for (unsigned int i = 0; i < n; i++)
		if (strncmp(ev[i].name, name, sizeof(ev[i].name)) == 0)
			return i;
	return -ENOENT;
}

int pk_profile_select_event(const struct pk_profile *p, unsigned int event,
			    struct pk_profile *out, struct pk_sample_view **samples)
{
	struct pk_sample_view *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < p->nsamples; i++)
		n += p->samples[i].event == event;
	if (n && !(v = malloc(n * sizeof(*v))))
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].event == event)
			v[n++] = p->samples[i];
	*out = *p;
	out->samples = v;
	out->nsamples = n;
	*samples = v;
	return 0;
}
