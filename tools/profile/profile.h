/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A symbolized profile, as every output format reads it (folded, perf
 * script text, pprof, speedscope): the samples in time order, each pointing
 * at its stack, each stack at its symbolized locations. The reader builds
 * it; the formats only read it. Everything is shared and interned: two
 * samples of one stack point at the same pk_stack_view, two stacks through
 * one address of one process at the same pk_loc, every process mapping one
 * file at the same pk_module. Dense ids let a writer index arrays instead
 * of hashing pointers.
 *
 * A profile may hold samples of several events (probe-load -e): each
 * sample names its event, an index into the profile's event table, and
 * carries its weight in that event's unit (nanoseconds of CPU or blocked
 * time, occurrences). A profile without a table has one implicit event,
 * cpu-clock at freq_hz, as every session had before events.
 */
#ifndef PK_PROFILE_H
#define PK_PROFILE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "bpf/probekit.h"

/* A mapped file (or the kernel, a kernel module, the vDSO). */
struct pk_module {
	__u32 id;		/* dense, from 0 */
	const char *path;	/* as mapped: "/usr/lib/x86_64-linux-gnu/libc.so.6",
				 * "[vdso]", "[kernel.kallsyms]", "[MODNAME]" */
	const char *build_id;	/* lowercase hex; NULL when unknown */
};

/* Where a module is mapped in one process (or in the kernel). */
struct pk_map {
	__u32 id;		/* dense, from 0 */
	__u64 start, end;	/* runtime addresses [start, end) */
	__u64 pgoff;		/* file offset of start, in bytes */
	const struct pk_module *module;
};

/* One function at an address. An address in code that the compiler
 * inlined into its caller has a frame per inlining level. */
struct pk_frame {
	const char *name;	/* demangled; never NULL or empty */
	const char *file;	/* source file as the debug info names it; NULL: unknown */
	__u32 line;		/* 0: unknown */
};

/* One sampled address, symbolized. */
struct pk_loc {
	__u32 id;		/* dense, from 0 */
	bool kernel;
	__u16 nframes;		/* >= 1 */
	__u64 addr;		/* the runtime address as sampled (a return
				 * address itself, not minus one) */
	const struct pk_map *map; /* NULL: in no known file (anonymous
				   * memory, JIT code, unknown) */
	__u64 module_addr;	/* with map: the ELF address in map->module
				 * (what eu-addr2line -e FILE takes) */
	__u64 sym_off;		/* addr - start of the symbol holding it;
				 * PK_LOC_NO_SYM when none does */
	const struct pk_frame *frames; /* innermost first: [0] is the inlined
					* code at addr, [nframes-1] the function
					* whose symbol holds addr */
	bool python;		/* a Python frame (bpf/python_records.h):
				 * frames[0] is {co_qualname, co_filename,
				 * line}, one frame; addr the code object's
				 * address, map NULL */
	bool java;		/* a Java frame (bpf/hotspot_records.h):
				 * frames[0] is {package.Class.method, its
				 * source file or NULL, line or 0}, one
				 * frame; addr the Method*, map NULL; a
				 * compiled one's addr is its PC, its frames
				 * the methods inlined there (innermost
				 * first) */
	bool js;		/* a JavaScript frame (bpf/v8_records.h):
				 * frames[0] is {its function, its script or
				 * NULL, its start line or 0}, one frame; addr
				 * the SharedFunctionInfo, map NULL */
};

#define PK_LOC_NO_SYM	(~0ULL)

/* One distinct stack of one process, thread name and cgroup. */
struct pk_stack_view {
	__u32 id;		/* dense, from 0 */
	__u32 pid;
	const char *comm;	/* the thread's name when sampled */
	__u16 nkernel, nuser;
	/* nkernel kernel locations, then nuser user locations, each part
	 * leaf first (as sampled) */
	const struct pk_loc *const *locs;
	__u64 cgroup_id;	/* the task's cgroup v2 id; 0: not known */
	const char *cgroup;	/* its path under the cgroup2 mount ("/a/b",
				 * "cgroup:ID" when gone before it was looked
				 * up); NULL: not known or not looked up */
};

struct pk_sample_view {
	__u64 time_ns;		/* CLOCK_BOOTTIME nanoseconds */
	__u32 tid, cpu;
	__u64 count;		/* samples this entry stands for (>= 1) */
	const struct pk_stack_view *stack;
	__u64 weight;		/* the sum of their weights, in their event's
				 * unit; 0: not known (samples from before
				 * events), see pk_sample_weight */
	__u16 event;		/* index into the profile's events */
};

/* What --per-pid, --per-tid and --per-cpu ask for: the process, thread or
 * CPU as the root frame (folded, perf), a label or a profile of its own. */
enum pk_group {
	PK_GROUP_NONE = 0,
	PK_GROUP_PID,
	PK_GROUP_TID,
	PK_GROUP_CPU,
};

struct pk_profile {
	__u32 freq_hz;		/* sampling frequency */
	__u64 period_ns;	/* 1e9 / freq_hz: CPU time one sample stands for */
	__u64 start_ns, end_ns;	/* CLOCK_BOOTTIME span the profile covers */
	__s64 boot_to_real_ns;	/* add to a CLOCK_BOOTTIME time: wall clock */
	enum pk_group group;
	bool per_cgroup;	/* --per-cgroup: each stack's cgroup as its
				 * root, above the group's (folded, svg,
				 * speedscope) */
	bool lines;		/* --lines: file:line in folded and perf text */
	const char *title;	/* --title: a flame graph's; NULL: the default */
	size_t nsamples;
	const struct pk_sample_view *samples;	/* in time order */
	size_t nstacks, nlocs, nmaps, nmodules;	/* ids are below these */
	/* The session's events, in its order; nevents 0: one implicit
	 * cpu-clock event at freq_hz (pk_profile_event). Samples of an event
	 * at or past the count are refused by every writer (-EINVAL). */
	const struct pk_event_desc *events;
	unsigned int nevents;
};

/* A + B, or the largest value when that overflows: weights are summed
 * (a sum of off-cpu nanoseconds may exceed 64 bits only by being absurd,
 * but must not wrap to something plausible). */
static inline __u64 pk_sat_add(__u64 a, __u64 b)
{
	return a + b < a ? ~0ULL : a + b;
}

/* Events of P: at least 1. */
static inline unsigned int pk_profile_nevents(const struct pk_profile *p)
{
	return p->nevents ? p->nevents : 1;
}

/* Event I of P (the implicit cpu-clock when P has no table), or NULL when
 * I is past the events. */
const struct pk_event_desc *pk_profile_event(const struct pk_profile *p, unsigned int i);

/* What one sample of EV in P stands for when its weight is not known: a
 * cpu-clock sample its period (1e9 / freq_hz ns, P->period_ns for the
 * implicit event), one of a count event its sample_every; 0 where nothing
 * nominal exists (off-cpu). */
__u64 pk_event_period(const struct pk_profile *p, const struct pk_event_desc *ev);

/* The weight of S (a sum over S->count samples) in its event's unit, the
 * nominal period times the count where it is not known. Saturates. */
__u64 pk_sample_weight(const struct pk_profile *p, const struct pk_sample_view *s);

/* Whether folded stacks of EV count time (microseconds) rather than
 * samples: events weighted in nanoseconds that are not CPU sampling (a
 * cpu-clock sample is a share of CPU time already), i.e. off-cpu. */
bool pk_event_folds_time(const struct pk_event_desc *ev);

/* The index of the event called NAME in EV[0..N), or -ENOENT. */
int pk_event_find(const struct pk_event_desc *ev, unsigned int n, const char *name);

/* *OUT: P with only the samples of event EVENT, kept in *SAMPLES
 * (malloc'ed, the caller frees it; NULL when there are none). 0 or
 * -ENOMEM. */
int pk_profile_select_event(const struct pk_profile *p, unsigned int event,
			    struct pk_profile *out, struct pk_sample_view **samples);

/* What the samples of a profile reach, by id: every stack, location and
 * mapping once, and how many of each (and of the locations' frames). */
struct pk_profile_reach {
	const struct pk_stack_view **stacks;	/* [nstacks]; NULL: not reached */
	const struct pk_loc **locs;		/* [nlocs] */
	const struct pk_map **maps;		/* [nmaps] */
	size_t nstacks, nlocs, nmaps, nframes;	/* reached */
};

/* Fill *R, checking that P holds together: every id below its count and
 * naming one object, every location with a frame, every sample's event in
 * the table. 0; -EINVAL when it does not; -ENOMEM. Free *R with pk_profile_reach_free in every case. */
int pk_profile_reach(const struct pk_profile *p, struct pk_profile_reach *r);
void pk_profile_reach_free(struct pk_profile_reach *r);

/* What names S's cgroup where none was looked up (a session from before
 * cgroup ids, or a reader not asked to name them). */
#define PK_CGROUP_UNKNOWN	"[unknown cgroup]"

/* The name of S's cgroup (--per-cgroup's root, pprof's label). */
static inline const char *pk_stack_cgroup(const struct pk_stack_view *s)
{
	return s->cgroup && s->cgroup[0] ? s->cgroup : PK_CGROUP_UNKNOWN;
}

/* The group S belongs to under P->group, as a key that orders groups by
 * process, thread (pid << 32 | tid), or CPU; 0 without grouping. */
static inline __u64 pk_sample_group(const struct pk_profile *p, const struct pk_sample_view *s)
{
	switch (p->group) {
	case PK_GROUP_PID:
		return s->stack->pid;
	case PK_GROUP_TID:
		return (__u64)s->stack->pid << 32 | s->tid;
	case PK_GROUP_CPU:
		return s->cpu;
	default:
		return 0;
	}
}

#endif
