/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * In-kernel aggregation (probe-load --aggregate, bpf/probekit.h
 * "Aggregation"): a sample whose stack was sampled before, since the
 * reader last swapped the counts maps, is counted in the map instead of
 * being copied to the ring buffer; the first one is sent, as the
 * definition the reader names the counts by. send_sample() asks
 * pk_aggregate() first.
 */
#ifndef PK_AGGREGATE_BPF_H
#define PK_AGGREGATE_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf/probekit.h"
#include "bpf/sample.bpf.h"

const volatile bool aggregate = false;

/* EEXIST, include/uapi/asm-generic/errno-base.h (a #define: not in BTF):
 * what a BPF_NOEXIST update of a key already there returns, negated. */
#define PK_EEXIST	17

/* Declared with one entry, so that a session without --aggregate costs
 * nothing; probe-load sizes both with --aggregate-entries. */
struct pk_agg_counts {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct pk_agg_value);
};

struct pk_agg_counts agg_counts0 SEC(".maps"), agg_counts1 SEC(".maps");

/* The counts map samples go to; the reader swaps the other one in. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct pk_agg_counts);
} agg_slot SEC(".maps") = {
	.values = { [0] = &agg_counts0 },
};

/* xxHash64's primes and round: every input bit reaches every output bit
 * after the final mix, so that stacks one frame apart get unrelated keys. */
#define PK_AGG_PRIME1	0x9E3779B185EBCA87ULL
#define PK_AGG_PRIME2	0xC2B2AE3D27D4EB4FULL
#define PK_AGG_PRIME3	0x165667B19E3779F9ULL

static __always_inline __u64 agg_round(__u64 h, __u64 word)
{
	h += word * PK_AGG_PRIME2;
	h = (h << 31) | (h >> 33);
	return h * PK_AGG_PRIME1;
}

struct agg_hash_ctx {
	const struct pk_sample_buf *b;
	__u64 h;
	__u32 n;
};

/* bpf_loop body: frame I into the hash. */
static long agg_hash_frame(__u64 i, void *arg)
{
	struct agg_hash_ctx *c = arg;

	if (i >= c->n || i >= PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH + PK_MAX_PY_DEPTH)
		return 1;
	c->h = agg_round(c->h, c->b->frames[i]);
	return 0;
}

/*
 * The key of B's stack: everything the reader makes of a sample but its
 * time, thread, CPU and weight (which the counts sum). A global function,
 * which the verifier checks once per program rather than once per path to
 * send_sample(); the frames in a bpf_loop (inlined since 5.19), whose body
 * it checks once rather than once per frame (pk_perf_event: 0.9k more
 * instructions verified, where a bounded loop cost 15k more).
 */
__noinline __u64 pk_agg_hash(const struct pk_sample_buf *b)
{
	struct agg_hash_ctx c = { .b = b, .h = PK_AGG_PRIME3 };
	const __u64 *comm;
	__u32 flags;
	__u64 h;

	if (!b)
		return 0;	/* the verifier's: a global function's pointer may be NULL */
	c.n = (__u32)b->s.kstack_len + b->s.ustack_len + b->s.py_len;
	flags = b->s.hdr.flags & ~PK_SAMPLE_AGG_DEF;
	comm = (const __u64 *)b->s.comm;
	h = agg_round(c.h, (__u64)b->s.pid << 32 | (__u64)b->s.event << 16 |
			   (__u64)b->s.ustack_end << 8 | b->s.py_end);
	h = agg_round(h, (__u64)b->s.kstack_len << 48 | (__u64)b->s.ustack_len << 32 |
			 (__u64)b->s.py_len << 16 | b->s.fp_frames);
	h = agg_round(h, flags);
	h = agg_round(h, comm[0]);
	h = agg_round(h, comm[1]);
	/* a task moved to another cgroup makes other stacks (--per-cgroup) */
	h = agg_round(h, b->s.cgroup_id);
	/* the mask means something only after a DWARF walk */
	if (flags & PK_SAMPLE_USTACK_DWARF)
		for (int w = 0; w < PK_MAX_USTACK_DEPTH / 64; w++)
			h = agg_round(h, b->s.fp_mask[w]);
	c.h = h;
	bpf_loop(PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH + PK_MAX_PY_DEPTH, agg_hash_frame, &c, 0);
	h = c.h;
	h ^= h >> 33;
	h *= PK_AGG_PRIME2;
	h ^= h >> 29;
	h *= PK_AGG_PRIME3;
	return h ^ (h >> 32);
}

/*
 * True when B's sample was counted in the counts map: not to be sent.
 * False when it goes to the ring buffer: aggregation off; a walk that
 * stopped for want of a table (its stack copy, or the table that comes
 * later, finishes it in user space, sample by sample); the first sample of
 * its stack in the map, then marked as the stack's definition; or a full
 * map (counted).
 *
 * B is const for send_sample(), which only reads it; the definition's
 * flag and key are written into the very record it sends (the per-CPU
 * scratch, or off-cpu's task storage), both rebuilt for every sample.
 */
static __always_inline bool pk_aggregate(const struct pk_sample_buf *b)
{
	struct pk_agg_value zero_value = {}, *v;
	struct pk_sample_buf *def;
	__u32 zero = 0;
	void *counts;
	__u64 key;
	long ret;

	if (!aggregate || b->s.ustack_end == PK_END_NO_TABLE)
		return false;
	counts = bpf_map_lookup_elem(&agg_slot, &zero);
	if (!counts)
		return false;	/* cannot happen: probe-load fills the slot */
	key = pk_agg_hash(b);
	v = bpf_map_lookup_elem(counts, &key);
	if (!v) {
		/* The definition counts as a sample of its own: the entry
		 * starts at zero and counts the samples after it. */
		ret = bpf_map_update_elem(counts, &key, &zero_value, BPF_NOEXIST);
		if (!ret) {
			def = (struct pk_sample_buf *)b;
			def->s.hdr.flags |= PK_SAMPLE_AGG_DEF;
			def->s.agg_hash = key;
			return false;
		}
		/* another CPU made it since: counted there */
		if (ret == -PK_EEXIST)
			v = bpf_map_lookup_elem(counts, &key);
		if (!v) {
			count(PK_CNT_AGG_FULL);
			return false;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->weight, b->s.weight);
	count(PK_CNT_AGG_COUNTED);
	count_delivered(b);
	return true;
}

#endif /* PK_AGGREGATE_BPF_H */
