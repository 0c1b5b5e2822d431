/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The definitions of aggregated stacks (bpf/probekit.h "Aggregation") a
 * reader has read, by key, and the counts read for keys whose definition
 * has not come (yet): a definition the ring buffer had no room for, or one
 * read after its counts. Counts are read after the definitions of their
 * map's keys (the reader drains the ring buffer between the swap and the
 * read of the map), so pending counts wait for a later map's definition of
 * the same stack, and are lost when none comes.
 */
#ifndef PK_AGG_DEFS_H
#define PK_AGG_DEFS_H

#include <linux/types.h>

#include "bpf/probekit.h"
#include "reading/record.h"

struct pk_agg_defs;

/* Counts of one key without a definition. */
struct pk_agg_pending {
	__u64 count, weight;	/* as pk_agg_value's, summed */
	__u64 time_ns;		/* when the last of them was read */
};

struct pk_agg_defs *pk_agg_defs_new(void);
void pk_agg_defs_free(struct pk_agg_defs *d);

/*
 * Keep a copy of REC (a sample with PK_SAMPLE_AGG_DEF, the frames copied
 * too) as the definition of REC->agg_hash, replacing any, stamped GEN. The
 * key's pending counts, if any, are taken out into *PENDING (count 0:
 * none). 0 or -ENOMEM.
 */
int pk_agg_defs_put(struct pk_agg_defs *d, const struct pk_record_sample *rec, __u64 gen,
		    struct pk_agg_pending *pending);

/* The definition of KEY, stamped GEN (its frames are the copy's, valid
 * until the key is put again or expires), or NULL when there is none. */
const struct pk_record_sample *pk_agg_defs_get(struct pk_agg_defs *d, __u64 key, __u64 gen);

/* COUNT samples weighing WEIGHT, read at TIME_NS, of KEY without a
 * definition: added to its pending counts. 0 or -ENOMEM. */
int pk_agg_defs_pend(struct pk_agg_defs *d, __u64 key, __u64 count, __u64 weight,
		     __u64 time_ns);

/* Forget the definitions last put or got before GEN (pending counts stay). */
void pk_agg_defs_expire(struct pk_agg_defs *d, __u64 gen);

/* Definitions kept; samples pending and their keys. */
struct pk_agg_defs_stats {
	__u64 defs, pending, pending_keys;
};
void pk_agg_defs_stats(const struct pk_agg_defs *d, struct pk_agg_defs_stats *st);

#endif
