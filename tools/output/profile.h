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
 */
#ifndef PK_PROFILE_H
#define PK_PROFILE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

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
};

#define PK_LOC_NO_SYM	(~0ULL)

/* One distinct stack of one process and thread name. */
struct pk_stack_view {
	__u32 id;		/* dense, from 0 */
	__u32 pid;
	const char *comm;	/* the thread's name when sampled */
	__u16 nkernel, nuser;
	/* nkernel kernel locations, then nuser user locations, each part
	 * leaf first (as sampled) */
	const struct pk_loc *const *locs;
};

struct pk_sample_view {
	__u64 time_ns;		/* CLOCK_BOOTTIME nanoseconds */
	__u32 tid, cpu;
	__u64 count;		/* samples this entry stands for (>= 1) */
	const struct pk_stack_view *stack;
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
	bool lines;		/* --lines: file:line in folded and perf text */
	size_t nsamples;
	const struct pk_sample_view *samples;	/* in time order */
	size_t nstacks, nlocs, nmaps, nmodules;	/* ids are below these */
};

/* What the samples of a profile reach, by id: every stack, location and
 * mapping once, and how many of each (and of the locations' frames). */
struct pk_profile_reach {
	const struct pk_stack_view **stacks;	/* [nstacks]; NULL: not reached */
	const struct pk_loc **locs;		/* [nlocs] */
	const struct pk_map **maps;		/* [nmaps] */
	size_t nstacks, nlocs, nmaps, nframes;	/* reached */
};

/* Fill *R, checking that P holds together: every id below its count and
 * naming one object, every location with a frame. 0; -EINVAL when it
 * does not; -ENOMEM. Free *R with pk_profile_reach_free in every case. */
int pk_profile_reach(const struct pk_profile *p, struct pk_profile_reach *r);
void pk_profile_reach_free(struct pk_profile_reach *r);

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
