// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/profile.skel.h"
#include "bpf/profile_sizes.h"
#include "loader/events/events.h"

/* "EVENT: why", as -EINVAL: every event refused is the user's input refused. */
static int refuse(char err[PK_ERR_LEN], const struct pk_event *ev, const char *why)
{
	char copy[PK_ERR_LEN];

	snprintf(copy, sizeof(copy), "%s", why);
	return pk_err(err, -EINVAL, "%s: %s", ev->desc.name, copy);
}

static bool no_pmu(int ret)
{
	return ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ENODEV;
}

static int resolve_perf(struct pk_event *ev, const struct pk_events_params *o,
			const bool *online, int ncpus, char err[PK_ERR_LEN])
{
	const struct pk_event_spec *sp = ev->spec;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char why[PK_ERR_LEN];
	bool cpu_time = !sp || (sp->perf_type == PERF_TYPE_SOFTWARE &&
				sp->perf_config == PERF_COUNT_SW_CPU_CLOCK);
	int ret;

	/* The default: cycles where there is a PMU, else cpu-clock. */
	attr.type = sp ? sp->perf_type : PERF_TYPE_HARDWARE;
	attr.config = sp ? sp->perf_config : PERF_COUNT_HW_CPU_CYCLES;
	if (cpu_time || (sp->hardware && !o->sample_every)) {
		attr.freq = 1;
		attr.sample_freq = o->freq;
		ev->desc.flags |= PK_EVF_FREQ;
		ev->desc.freq_hz = o->freq;
	} else {
		/* page faults: every one unless -c says otherwise */
		attr.sample_period = o->sample_every ? o->sample_every : 1;
		ev->desc.sample_every = attr.sample_period;
	}
	ret = pk_perf_events_open(&ev->pe, online, ncpus, &attr, why);
	if (ret && !sp && no_pmu(ret)) {
		pk_perf_events_close(&ev->pe);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		ret = pk_perf_events_open(&ev->pe, online, ncpus, &attr, why);
	}
	if (!sp)
		snprintf(ev->desc.name, sizeof(ev->desc.name), "%s",
			 attr.type == PERF_TYPE_HARDWARE ? "cycles" : "cpu-clock");
	ev->desc.unit = attr.type == PERF_TYPE_SOFTWARE && attr.config == PERF_COUNT_SW_CPU_CLOCK ?
			PK_UNIT_NS : PK_UNIT_COUNT;
	if (ret && sp && sp->hardware && no_pmu(ret))
		return pk_err(err, -EINVAL, "%s: no hardware PMU on this machine (perf_event_open: %s); cpu-clock samples CPU time without one",
			      ev->desc.name, strerror(-ret));
	if (ret)
		return refuse(err, ev, why);
	return 0;
}

static int resolve_file(struct pk_event *ev, const char *path, char err[PK_ERR_LEN])
{
	char why[PK_ERR_LEN];
	int ret = pk_probe_file(path, &ev->path, why);

	if (ret == -ENOMEM)
		return pk_err(err, ret, "%s", why);
	return ret ? refuse(err, ev, why) : 0;
}

/* A glob (kprobe:vfs_*, tracepoint:syscalls:sys_enter_*): each match is
 * attached, as bpftrace and perf do. */
static bool is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int resolve_one(struct pk_event *ev, const struct pk_events_params *o, const bool *online,
		       int ncpus, int *fentry_slots, char err[PK_ERR_LEN])
{
	const struct pk_event_spec *sp = ev->spec;
	char why[PK_ERR_LEN];
	int ret = 0;

	ev->fentry_slot = -1;
	ev->desc.kind = sp ? sp->kind : PK_EVK_PERF;
	ev->desc.unit = PK_UNIT_COUNT;
	ev->desc.sample_every = o->sample_every ? o->sample_every : 1;
	if (sp && sp->kind == PK_EVK_PERF)
		snprintf(ev->desc.name, sizeof(ev->desc.name), "%s", sp->arg);
	else if (sp && sp->kind == PK_EVK_OFFCPU)
		snprintf(ev->desc.name, sizeof(ev->desc.name), "off-cpu");
	else if (sp && sp->kind == PK_EVK_KPROBE)
		snprintf(ev->desc.name, sizeof(ev->desc.name), "%s:%s", sp->prefix, sp->part[0]);
	else if (sp && sp->kind == PK_EVK_TRACEPOINT)
		snprintf(ev->desc.name, sizeof(ev->desc.name), "tracepoint:%s:%s", sp->part[0],
			 sp->part[1]);

	if (sp && sp->ret)
		ev->desc.flags |= PK_EVF_RETURN;
	switch (ev->desc.kind) {
	case PK_EVK_PERF:
		ev->desc.sample_every = 0;
		return resolve_perf(ev, o, online, ncpus, err);
	case PK_EVK_OFFCPU:
		ev->desc.unit = PK_UNIT_NS;
		ev->desc.sample_every = 1;
		ev->desc.min_block_ns = o->min_block_us * 1000;
		return 0;
	case PK_EVK_KPROBE:
		if (is_pattern(sp->part[0])) {
			ret = pk_kfunc_glob(sp->part[0], &ev->matches, &ev->nmatches, why);
			return ret == -ENOMEM ? pk_err(err, ret, "%s", why) :
			       ret ? refuse(err, ev, why) : 0;
		}
		ret = pk_kfunc_resolve(sp->part[0], sp->ret, o->no_fentry, &ev->kf, why);
		if (ret)
			return refuse(err, ev, why);
		if (ev->kf.fentry) {
			if (*fentry_slots == PK_FENTRY_PROGS) {
				snprintf(why, sizeof(why), "more kprobe and kretprobe events than the %d fentry and fexit programs (--no-fentry attaches any number)",
					 PK_FENTRY_PROGS);
				return refuse(err, ev, why);
			}
			ev->fentry_slot = (*fentry_slots)++;
			ev->desc.flags |= PK_EVF_FENTRY;
		}
		return 0;
	case PK_EVK_TRACEPOINT:
		if (is_pattern(sp->part[0]) || is_pattern(sp->part[1]))
			ret = pk_tracepoint_glob(sp->part[0], sp->part[1], &ev->matches,
						 &ev->nmatches, why);
		else
			ret = pk_tracepoint_check(sp->part[0], sp->part[1], why);
		return ret == -ENOMEM ? pk_err(err, ret, "%s", why) :
		       ret ? refuse(err, ev, why) : 0;
	case PK_EVK_UPROBE:
	case PK_EVK_USDT:
		/* as given until the file is found, then by its absolute path */
		snprintf(ev->desc.name, sizeof(ev->desc.name), "%s:%s:%s%s%s", sp->prefix, sp->part[0],
			 sp->part[1], sp->part[2] ? ":" : "", sp->part[2] ? sp->part[2] : "");
		ret = resolve_file(ev, sp->part[0], err);
		if (ret)
			return ret;
		if ((size_t)snprintf(ev->desc.name, sizeof(ev->desc.name), "%s:%s:%s%s%s", sp->prefix,
				     ev->path, sp->part[1], sp->part[2] ? ":" : "",
				     sp->part[2] ? sp->part[2] : "") >= sizeof(ev->desc.name))
			return refuse(err, ev, "the file's path is too long");
		if (ev->desc.kind == PK_EVK_UPROBE) {
			ev->sites = calloc(1, sizeof(*ev->sites));
			if (!ev->sites)
				return pk_err(err, -ENOMEM, "out of memory");
			ev->nsites = 1;
			ret = pk_elf_func_site(ev->path, sp->part[1], ev->sites, why);
		} else {
			ret = pk_elf_usdt_sites(ev->path, sp->part[1], sp->part[2], &ev->sites,
						&ev->nsites, why);
		}
		return ret ? refuse(err, ev, why) : 0;
	}
	return pk_err(err, -EINVAL, "internal error: event kind %u", ev->desc.kind);
}

int pk_events_resolve(struct pk_events *evs, const struct pk_events_params *o,
		      const bool *online, int ncpus, char err[PK_ERR_LEN])
{
	int fentry_slots = 0, ret;

	memset(evs, 0, sizeof(*evs));
	evs->n = o->nevents ? o->nevents : 1;
	for (unsigned int i = 0; i < evs->n; i++) {
		struct pk_event *ev = &evs->v[i];

		ev->spec = o->nevents ? &o->events[i] : NULL;
		ret = resolve_one(ev, o, online, ncpus, &fentry_slots, err);
		if (ret)
			return ret;
		for (unsigned int j = 0; j < i; j++)
			if (!strcmp(evs->v[j].desc.name, ev->desc.name))
				return refuse(err, ev, "given twice");
	}
	return 0;
}

static struct bpf_program *fentry_prog(struct profile_bpf *skel, int slot)
{
	char name[32];

	snprintf(name, sizeof(name), "pk_fentry%d", slot);
	return bpf_object__find_program_by_name(skel->obj, name);
}

int pk_events_configure(struct pk_events *evs, struct profile_bpf *skel, char err[PK_ERR_LEN])
{
	bool perf = false, tp = false, uprobe = false, kprobe = false, offcpu = false;
	struct bpf_program *prog;
	int ret;

	for (int s = 0; s < PK_FENTRY_PROGS; s++)
		bpf_program__set_autoload(fentry_prog(skel, s), false);
	for (unsigned int i = 0; i < evs->n; i++) {
		struct pk_event *ev = &evs->v[i];

		/* the kernel's own period does one in N for perf events */
		skel->rodata->sample_every[i] = ev->desc.kind == PK_EVK_PERF ||
						ev->desc.kind == PK_EVK_OFFCPU ? 1 :
						ev->desc.sample_every;
		switch (ev->desc.kind) {
		case PK_EVK_PERF:
			perf = true;
			break;
		case PK_EVK_OFFCPU: {
			__u64 lo, hi;

			offcpu = true;
			skel->rodata->offcpu_event = i;
			skel->rodata->min_block_ns = ev->desc.min_block_ns;
			if (!pk_ksym_range("__traceiter_sched_switch", &lo, &hi)) {
				skel->rodata->traceiter_lo = lo;
				skel->rodata->traceiter_hi = hi;
			}
			break;
		}
		case PK_EVK_KPROBE:
			if (ev->fentry_slot < 0) {
				kprobe = true;
				break;
			}
			/* a slot's program is fentry or fexit: it reads no
			 * argument, so one body does both */
			skel->rodata->fentry_event[ev->fentry_slot] = i;
			/* A trampoline program's kernel stack starts in the
			 * program, then its trampoline, then the return
			 * address into FUNC the trampoline was called with:
			 * FUNC is the leaf at fentry as at a kprobe; at fexit
			 * FUNC has returned, and the leaf is what it returns
			 * to, as at a kretprobe. */
			skel->rodata->fentry_kskip[ev->fentry_slot] = ev->spec->ret ? 3 : 2;
			prog = fentry_prog(skel, ev->fentry_slot);
			bpf_program__set_autoload(prog, true);
			ret = bpf_program__set_expected_attach_type(prog, ev->spec->ret ?
								    BPF_TRACE_FEXIT : BPF_TRACE_FENTRY);
			if (!ret)
				ret = bpf_program__set_attach_target(prog, 0, ev->spec->part[0]);
			if (ret)
				return refuse(err, ev, strerror(-ret));
			break;
		case PK_EVK_TRACEPOINT:
			tp = true;
			break;
		case PK_EVK_UPROBE:
		case PK_EVK_USDT:
			uprobe = true;
			break;
		}
	}
	bpf_program__set_autoload(skel->progs.pk_perf_event, perf);
	bpf_program__set_autoload(skel->progs.pk_tracepoint, tp);
	bpf_program__set_autoload(skel->progs.pk_uprobe, uprobe);
	bpf_program__set_autoload(skel->progs.pk_kprobe, kprobe);
	bpf_program__set_autoload(skel->progs.pk_offcpu, offcpu);
	return 0;
}

struct bpf_program *pk_events_prog(struct profile_bpf *skel, const struct pk_event *ev)
{
	switch (ev->desc.kind) {
	case PK_EVK_PERF:	return skel->progs.pk_perf_event;
	case PK_EVK_OFFCPU:	return skel->progs.pk_offcpu;
	case PK_EVK_KPROBE:	return ev->fentry_slot >= 0 ? fentry_prog(skel, ev->fentry_slot) :
					       skel->progs.pk_kprobe;
	case PK_EVK_TRACEPOINT:	return skel->progs.pk_tracepoint;
	default:		return skel->progs.pk_uprobe;
	}
}

static struct bpf_link *attach_site(struct profile_bpf *skel, struct pk_event *ev,
				    __u64 cookie, size_t i)
{
	struct bpf_program *prog = pk_events_prog(skel, ev);
	struct bpf_link *link;

	switch (ev->desc.kind) {
	case PK_EVK_PERF: {
		LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = cookie);

		link = bpf_program__attach_perf_event_opts(prog, ev->pe.fds[i], &po);
		if (link)
			ev->pe.fds[i] = -1;	/* the link owns it now */
		return link;
	}
	case PK_EVK_OFFCPU:
		return bpf_program__attach(prog);
	case PK_EVK_KPROBE: {
		LIBBPF_OPTS(bpf_kprobe_opts, ko, .bpf_cookie = cookie, .retprobe = ev->spec->ret);

		if (ev->fentry_slot >= 0)
			return bpf_program__attach_trace(prog);
		return bpf_program__attach_kprobe_opts(prog, ev->nmatches ? ev->matches[i] :
						       ev->kf.ksym, &ko);
	}
	case PK_EVK_TRACEPOINT: {
		LIBBPF_OPTS(bpf_tracepoint_opts, to, .bpf_cookie = cookie);
		char tp[512];

		if (!ev->nmatches)
			return bpf_program__attach_tracepoint_opts(prog, ev->spec->part[0],
								   ev->spec->part[1], &to);
		snprintf(tp, sizeof(tp), "%s", ev->matches[i]);
		tp[strcspn(tp, ":")] = '\0';
		return bpf_program__attach_tracepoint_opts(prog, tp, tp + strlen(tp) + 1, &to);
	}
	default: {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = cookie,
			    .ref_ctr_offset = ev->sites[i].ref_ctr_offset, .retprobe = ev->spec->ret);

		return bpf_program__attach_uprobe_opts(prog, -1, ev->path, ev->sites[i].offset, &uo);
	}
	}
}

static size_t nattach(const struct pk_event *ev)
{
	if (ev->nmatches)
		return ev->nmatches;
	switch (ev->desc.kind) {
	case PK_EVK_PERF:	return ev->pe.n;
	case PK_EVK_UPROBE:
	case PK_EVK_USDT:	return ev->nsites;
	default:		return 1;
	}
}

static __u32 prog_id(const struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.id;
}

int pk_events_attach(struct pk_events *evs, struct profile_bpf *skel, char err[PK_ERR_LEN])
{
	int list_fd = bpf_map__fd(skel->maps.event_list);

	for (unsigned int i = 0; i < evs->n; i++) {
		struct pk_event *ev = &evs->v[i];
		size_t n = nattach(ev);

		ev->links = calloc(n, sizeof(*ev->links));
		if (!ev->links)
			return pk_err(err, -ENOMEM, "out of memory");
		for (size_t j = 0; j < n; j++) {
			ev->links[j] = attach_site(skel, ev, i, j);
			if (!ev->links[j]) {
				char why[PK_ERR_LEN];

				if (ev->nmatches)
					snprintf(why, sizeof(why), "cannot attach to %s: %s",
						 ev->matches[j], strerror(errno));
				else
					snprintf(why, sizeof(why), "cannot attach: %s",
						 strerror(errno));
				return refuse(err, ev, why);
			}
			ev->nlinks++;
		}
		ev->desc.prog_ids[0] = prog_id(pk_events_prog(skel, ev));
		if (bpf_map_update_elem(list_fd, &i, &ev->desc, BPF_ANY))
			return pk_err(err, -errno, "cannot write the event list: %s", strerror(errno));
	}
	return 0;
}

int pk_events_pin(const struct pk_events *evs, struct pk_pins *pins, char err[PK_ERR_LEN])
{
	char name[64];
	int ret;

	for (unsigned int i = 0; i < evs->n; i++) {
		const struct pk_event *ev = &evs->v[i];

		for (size_t j = 0; j < ev->nlinks; j++) {
			if (ev->desc.kind == PK_EVK_PERF)
				snprintf(name, sizeof(name), PK_PIN_LINKS_DIR "/e%u-cpu%d", i,
					 ev->pe.cpus[j]);
			else if (ev->nlinks == 1)
				snprintf(name, sizeof(name), PK_PIN_LINKS_DIR "/e%u", i);
			else
				snprintf(name, sizeof(name), PK_PIN_LINKS_DIR "/e%u-%zu", i, j);
			ret = pk_pins_add(pins, bpf_link__fd(ev->links[j]), name, err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

void pk_events_disconnect(struct pk_events *evs)
{
	for (unsigned int i = 0; i < evs->n; i++)
		for (size_t j = 0; j < evs->v[i].nlinks; j++)
			bpf_link__disconnect(evs->v[i].links[j]);
}

static void event_free(struct pk_event *ev)
{
	for (size_t j = 0; j < ev->nlinks; j++)
		bpf_link__destroy(ev->links[j]);
	free(ev->links);
	pk_perf_events_close(&ev->pe);
	free(ev->path);
	free(ev->sites);
	pk_glob_free(ev->matches, ev->nmatches);
}

void pk_events_drop(struct pk_events *evs, unsigned int i)
{
	event_free(&evs->v[i]);
	memmove(&evs->v[i], &evs->v[i + 1], (evs->n - i - 1) * sizeof(evs->v[0]));
	memset(&evs->v[--evs->n], 0, sizeof(evs->v[0]));
}

void pk_events_free(struct pk_events *evs)
{
	for (unsigned int i = 0; i < evs->n; i++)
		event_free(&evs->v[i]);
	memset(evs, 0, sizeof(*evs));
}

int pk_events_ncpus(const struct pk_events *evs)
{
	for (unsigned int i = 0; i < evs->n; i++)
		if (evs->v[i].desc.kind == PK_EVK_PERF)
			return evs->v[i].pe.n;
	return 0;
}
