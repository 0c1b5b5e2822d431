/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A session's events (probe-load -e): resolved before the BPF object is
 * loaded, so that a function, tracepoint, symbol, USDT note or PMU that is
 * not there refuses the session before anything is built or pinned; then
 * configured into the object, attached, described in event_list and pinned,
 * one link per attachment.
 *
 * Errors say "EVENT: why" and return -EINVAL: each is the user's input
 * refused (probe-load exits 2).
 */
#ifndef PK_EVENTS_H
#define PK_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "bpf/probekit.h"
#include "eh_frame/errmsg.h"
#include "lib/pins.h"
#include "loader/events/elf_probe_sites.h"
#include "loader/events/event_spec.h"
#include "loader/events/kernel_probes.h"
#include "loader/events/perf_events.h"

struct bpf_program;
struct profile_bpf;

struct pk_event {
	struct pk_event_desc desc;
	const struct pk_event_spec *spec;	/* NULL: the default CPU sampling */
	struct pk_perf_events pe;	/* PK_EVK_PERF: one per CPU */
	struct pk_kfunc kf;		/* PK_EVK_KPROBE */
	int fentry_slot;		/* PK_EVK_KPROBE by fentry or fexit: its program */
	char *path;			/* uprobe, usdt: the file, absolute */
	struct pk_probe_site *sites;	/* uprobe: 1; usdt: every note */
	size_t nsites;
	char **matches;			/* a pattern's kernel functions, or
					 * tracepoints as "CATEGORY:NAME" */
	size_t nmatches;		/* 0: no pattern */
	struct bpf_link **links;
	size_t nlinks;
};

struct pk_events {
	struct pk_event v[PK_MAX_EVENTS];
	unsigned int n;
};

/* What of probe-load's command line the events are made from (filled from
 * struct pk_load_opts by probe-load, so that events/ needs nothing above it). */
struct pk_events_params {
	const struct pk_event_spec *events;	/* -e, in order given; none: CPU sampling */
	size_t nevents;
	unsigned int freq;	/* -F */
	__u64 sample_every;	/* -c; 0: not given */
	__u64 min_block_us;	/* --min-block */
	bool no_fentry;		/* --no-fentry: kprobes and kretprobes only */
};

/* Resolve O's events (or the default one) on the CPUs set in ONLINE[0..n). */
int pk_events_resolve(struct pk_events *evs, const struct pk_events_params *o,
		      const bool *online, int ncpus, char err[PK_ERR_LEN]);
/* Before load: the knobs and programs the events need. */
int pk_events_configure(struct pk_events *evs, struct profile_bpf *skel,
			char err[PK_ERR_LEN]);
/* The program that runs EV (what pk_events_configure autoloads for it). */
struct bpf_program *pk_events_prog(struct profile_bpf *skel, const struct pk_event *ev);
/* Forget event I, before the object is loaded again without its program:
 * the events after it move down one. */
void pk_events_drop(struct pk_events *evs, unsigned int i);
/* After load: attach every event, and write event_list. */
int pk_events_attach(struct pk_events *evs, struct profile_bpf *skel, char err[PK_ERR_LEN]);
/* Pin every link under links/. */
int pk_events_pin(const struct pk_events *evs, struct pk_pins *pins, char err[PK_ERR_LEN]);
/* Keep the links attached after this process exits (they are pinned). */
void pk_events_disconnect(struct pk_events *evs);
/* Close (and, unless disconnected, detach) everything. */
void pk_events_free(struct pk_events *evs);
/* The number of CPUs the first perf event samples (for the session map). */
int pk_events_ncpus(const struct pk_events *evs);

#endif
