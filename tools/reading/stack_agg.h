/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Identical raw stacks (same process, thread name, cgroup and addresses) counted
 * once: samples are aggregated before anything is symbolized, so each
 * distinct stack costs one symbolization however often it was sampled.
 */
#ifndef PK_STACK_AGG_H
#define PK_STACK_AGG_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "bpf/probekit.h"

struct pk_stack {
	__u64 hash;
	__u64 count;
	void *user;		/* the caller's (e.g. the folded line) */
	__u32 pid;
	__u64 cgroup_id;	/* the task's cgroup v2 id; 0: not known */
	__u16 klen, ulen, plen;
	bool sealed;		/* counts no more samples (pk_stack_agg_seal_pid) */
	char comm[PK_TASK_COMM_LEN];
	__u64 frames[];		/* klen kernel then ulen user addresses, then
				 * plen Python frames (pk_py_frame), each part
				 * leaf first */
};

struct pk_stack_agg;

struct pk_stack_agg *pk_stack_agg_new(void);
void pk_stack_agg_free(struct pk_stack_agg *agg);

/*
 * Count COUNT samples of a stack: FRAMES holds klen kernel then ulen user
 * addresses, then plen Python frames (each part leaf first), possibly
 * unaligned (copied). The Python frames are part of the stack's identity:
 * one native stack of the eval loop runs many Python stacks. Returns the stack's
 * entry, with *is_new when this is its first sample; NULL when out of
 * memory.
 */
struct pk_stack *pk_stack_agg_add(struct pk_stack_agg *agg, __u32 pid, const char *comm,
				  __u64 cgroup_id, const void *frames, __u16 klen, __u16 ulen, __u16 plen,
				  __u64 count, bool *is_new);

/* PID's addresses may mean other code from now on (its mappings changed):
 * its stacks so far count no more samples, so that a stack with the same
 * addresses starts a new entry and is symbolized anew. */
void pk_stack_agg_seal_pid(struct pk_stack_agg *agg, __u32 pid);

/* Keep the entries KEEP says to, in their order, and hand every other to
 * DROP (which frees what it holds) before freeing it: for a reader that
 * writes one profile after another, what the next one may still count. 0,
 * or -ENOMEM with every entry kept. */
int pk_stack_agg_retain(struct pk_stack_agg *agg, bool (*keep)(void *ctx, struct pk_stack *s),
			void (*drop)(void *ctx, struct pk_stack *s), void *ctx);

/* Entries in the order they were first seen; valid until the next add. */
struct pk_stack *const *pk_stack_agg_entries(const struct pk_stack_agg *agg, size_t *n);

#endif
