/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What -e names, parsed (syntax only: whether the function, tracepoint,
 * file or PMU exists is events.c's question).
 *
 *   cpu-clock | cycles | instructions | cache-misses | page-faults |
 *   major-faults | off-cpu | kprobe:FUNC | kretprobe:FUNC |
 *   tracepoint:CATEGORY:NAME | uprobe:PATH:SYMBOL | uretprobe:PATH:SYMBOL |
 *   usdt:PATH:PROVIDER:NAME
 *
 * kretprobe and uretprobe are kprobe and uprobe at the function's return:
 * the same kinds, with RET set.
 */
#ifndef PK_EVENT_SPEC_H
#define PK_EVENT_SPEC_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "bpf/probekit.h"
#include "eh_frame/errmsg.h"

struct pk_event_spec {
	enum pk_event_kind kind;
	/* PK_EVK_PERF: perf_event_attr type and config */
	__u32 perf_type;
	__u64 perf_config;
	bool hardware;		/* needs a PMU */
	/* probes: the kind as spelt ("kprobe", "kretprobe"...), a constant */
	const char *prefix;
	bool ret;		/* kretprobe, uretprobe: at the function's return */
	/* the parts after the kind, pointing into the argument:
	 * k(ret)probe FUNC; tracepoint CATEGORY, NAME; u(ret)probe PATH, SYMBOL;
	 * usdt PATH, PROVIDER, NAME */
	char *part[3];
	char *arg;		/* a copy of the argument, which part[] points into */
};

/* Parse ARG into *SPEC (which owns a copy of it). 0, or -EINVAL with the
 * reason in ERR. */
int pk_event_spec_parse(const char *arg, struct pk_event_spec *spec, char err[PK_ERR_LEN]);
void pk_event_spec_free(struct pk_event_spec *spec);
/* The I-th event -e names without a colon (cpu-clock ... off-cpu); NULL
 * past the last. */
const char *pk_event_spec_name(size_t i);

#endif
