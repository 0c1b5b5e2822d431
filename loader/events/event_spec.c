// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "loader/events/event_spec.h"

static const struct {
	const char *name;
	__u32 type;
	__u64 config;
} perf_names[] = {
	{ "cpu-clock",	  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "cycles",	  PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "page-faults",  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
};

static const struct {
	const char *prefix;
	enum pk_event_kind kind;
	bool ret;
	int nparts;
	const char *form;
} probe_kinds[] = {
	{ "kprobe",	PK_EVK_KPROBE,	   false, 1, "kprobe:FUNC" },
	{ "kretprobe",	PK_EVK_KPROBE,	   true,  1, "kretprobe:FUNC" },
	{ "tracepoint", PK_EVK_TRACEPOINT, false, 2, "tracepoint:CATEGORY:NAME" },
	{ "uprobe",	PK_EVK_UPROBE,	   false, 2, "uprobe:PATH:SYMBOL" },
	{ "uretprobe",	PK_EVK_UPROBE,	   true,  2, "uretprobe:PATH:SYMBOL" },
	{ "usdt",	PK_EVK_USDT,	   false, 3, "usdt:PATH:PROVIDER:NAME" },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Split S into NPARTS at its last NPARTS - 1 colons: a path (the first part
 * of uprobe and usdt) may hold colons, symbols and names may not. */
static bool split(char *s, char *part[3], int nparts)
{
	char *colon;

	for (int i = nparts - 1; i > 0; i--) {
		colon = strrchr(s, ':');
		if (!colon)
			return false;
		*colon = '\0';
		part[i] = colon + 1;
	}
	part[0] = s;
	for (int i = 0; i < nparts; i++)
		if (!*part[i])
			return false;
	return true;
}

int pk_event_spec_parse(const char *arg, struct pk_event_spec *spec, char err[PK_ERR_LEN])
{
	const char *colon = strchr(arg, ':');
	size_t plen = colon ? (size_t)(colon - arg) : strlen(arg);

	memset(spec, 0, sizeof(*spec));
	if (strlen(arg) >= PK_EVENT_NAME_MAX)
		return pk_err(err, -EINVAL, "-e %.40s...: longer than %d bytes", arg,
			      PK_EVENT_NAME_MAX - 1);
	if (!colon) {
		if (!strcmp(arg, "off-cpu")) {
			spec->kind = PK_EVK_OFFCPU;
		} else {
			size_t i;

			for (i = 0; i < ARRAY_LEN(perf_names) && strcmp(arg, perf_names[i].name); i++)
				;
			if (i == ARRAY_LEN(perf_names))
				return pk_err(err, -EINVAL, "-e %s: not an event (cpu-clock, cycles, instructions, cache-misses, page-faults, major-faults, off-cpu, kprobe:FUNC, kretprobe:FUNC, tracepoint:CATEGORY:NAME, uprobe:PATH:SYMBOL, uretprobe:PATH:SYMBOL, usdt:PATH:PROVIDER:NAME)",
					      arg);
			spec->kind = PK_EVK_PERF;
			spec->perf_type = perf_names[i].type;
			spec->perf_config = perf_names[i].config;
			spec->hardware = perf_names[i].type == PERF_TYPE_HARDWARE;
		}
		spec->arg = strdup(arg);
		return spec->arg ? 0 : pk_err(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < ARRAY_LEN(probe_kinds); i++) {
		if (strlen(probe_kinds[i].prefix) != plen || strncmp(arg, probe_kinds[i].prefix, plen))
			continue;
		spec->kind = probe_kinds[i].kind;
		spec->ret = probe_kinds[i].ret;
		spec->prefix = probe_kinds[i].prefix;
		spec->arg = strdup(colon + 1);
		if (!spec->arg)
			return pk_err(err, -ENOMEM, "out of memory");
		if (!split(spec->arg, spec->part, probe_kinds[i].nparts) ||
		    ((spec->kind == PK_EVK_KPROBE || spec->kind == PK_EVK_TRACEPOINT) &&
		     strchr(spec->part[0], ':'))) {
			pk_event_spec_free(spec);
			return pk_err(err, -EINVAL, "-e %s: not of the form %s", arg,
				      probe_kinds[i].form);
		}
		return 0;
	}
	return pk_err(err, -EINVAL, "-e %s: unknown kind '%.*s' (kprobe, kretprobe, tracepoint, uprobe, uretprobe or usdt)",
		      arg, (int)plen, arg);
}

const char *pk_event_spec_name(size_t i)
{
	if (i < ARRAY_LEN(perf_names))
		return perf_names[i].name;
	return i == ARRAY_LEN(perf_names) ? "off-cpu" : NULL;
}

void pk_event_spec_free(struct pk_event_spec *spec)
{
	free(spec->arg);
	memset(spec, 0, sizeof(*spec));
}
