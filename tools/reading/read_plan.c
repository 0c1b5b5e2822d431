// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/cgroup.h"
#include "profile/profile.h"
#include "reading/read_plan.h"

/* "cpu-clock, off-cpu": the session's events, for a message. */
static void event_names(const struct pk_read_plan *plan, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int e = 0; e < plan->nevents && n < len; e++)
		n += snprintf(buf + n, len - n, "%s%s", e ? ", " : "", plan->events[e].name);
}

int pk_read_plan_make(struct pk_read_plan *plan, const struct pk_read_opts *o,
		      const struct pk_session *info, char err[PK_ERR_LEN])
{
	char names[1024], point[4096];
	int ret = pk_event_list_read(o->pin_dir, info, plan->events, &plan->nevents);

	if (ret == -EBADMSG) {
		char why[PK_ERR_LEN];

		pk_event_list_check(plan->events, plan->nevents, why);
		return pk_err(err, -EBADMSG, "the session at %s lists events no probe-load writes: %s",
			      o->pin_dir, why);
	}
	if (ret)
		return pk_err(err, ret, "cannot read the events of the session at %s: %s",
			      o->pin_dir, strerror(-ret));
	event_names(plan, names, sizeof(names));
	plan->keep = -1;
	if (o->event) {
		plan->keep = pk_event_find(plan->events, plan->nevents, o->event);
		if (plan->keep < 0)
			return pk_err(err, -EINVAL, "--event %s: the session at %s has no such event (its events: %s)",
				      o->event, o->pin_dir, names);
	}
	plan->nsinks = 0;
	if (o->per_cgroup && pk_cgroup2_point(point, sizeof(point)) == -ENOENT)
		return pk_err(err, -ENOTSUP, "--per-cgroup: " PK_CGROUP_V1_ONLY, "--per-cgroup");
	/* what the kernel did not keep of samples it counted (--aggregate) */
	if (info->flags & PK_SESSION_AGGREGATE) {
		if (o->group == PK_GROUP_TID || o->group == PK_GROUP_CPU)
			return pk_err(err, -EINVAL, "%s: the session at %s counts samples in the kernel (probe-load --aggregate), which keeps no thread or CPU per sample: load it without --aggregate",
				      o->group == PK_GROUP_TID ? "--per-tid" : "--per-cpu", o->pin_dir);
		for (size_t i = 0; i < o->noutputs; i++)
			if (pk_format_timed(o->outputs[i].format))
				return pk_err(err, -EINVAL, "-f %s: the session at %s counts samples in the kernel (probe-load --aggregate), which keeps no time, thread or CPU per sample: load it without --aggregate, or write folded, pprof or svg",
					      pk_format_name(o->outputs[i].format), o->pin_dir);
	}
	if (o->top && plan->keep < 0 && plan->nevents > 1)
		return pk_err(err, -EINVAL, "--top: the session has %u events (%s), whose shares do not add up: choose one with --event NAME",
			      plan->nevents, names);
	for (size_t i = 0; i < o->noutputs && !o->top; i++) {
		const struct pk_read_output *out = &o->outputs[i];

		if (pk_format_one_event(out->format) && !out->per_event && plan->keep < 0 &&
		    plan->nevents > 1)
			return pk_err(err, -EINVAL, "-f %s: the session has %u events (%s), whose counts do not add up: choose one with --event NAME, or write one file per event with {event} in -o",
				      pk_format_name(out->format), plan->nevents, names);
		for (unsigned int e = 0; e < plan->nevents; e++) {
			int ev = !out->per_event ? -1 : plan->keep >= 0 ? plan->keep : (int)e;

			plan->sinks[plan->nsinks++] = (struct pk_read_sink){ out->format, out->path, ev };
			if (!out->per_event || plan->keep >= 0)
				break;
		}
	}
	return 0;
}

int pk_read_plan_names(struct pk_read_plan *plan, double t, const char **paths,
		       char err[PK_ERR_LEN])
{
	for (size_t i = 0; i < plan->nsinks; i++) {
		const struct pk_read_sink *sk = &plan->sinks[i];
		char *name = plan->names[i];
		size_t len = sizeof(plan->names[i]);
		char tmp[sizeof(plan->names[i])];
		int ret = 0;

		paths[i] = NULL;
		if (!sk->pattern)
			continue;
		snprintf(tmp, sizeof(tmp), "%s", sk->pattern);
		if (t >= 0)
			ret = pk_read_interval_name(sk->pattern, t, tmp, sizeof(tmp));
		if (!ret)
			ret = sk->event < 0 ? (snprintf(name, len, "%s", tmp) >= (int)len ? -EINVAL : 0) :
			      pk_read_event_name(tmp, plan->events[sk->event].name, name, len);
		if (ret)
			return pk_err(err, ret, "-o '%s': the file name does not fit", sk->pattern);
		paths[i] = name;
	}
	return 0;
}
