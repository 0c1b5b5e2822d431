/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The counts maps of a session loaded with --aggregate (bpf/probekit.h
 * "Aggregation"), read by swapping: the other map goes into the slot,
 * the ring buffer is drained of the definitions of the old one's keys,
 * then the old one is read, emptied, and kept as the next to swap in.
 */
#ifndef PK_AGG_MAPS_H
#define PK_AGG_MAPS_H

#include <bpf/libbpf.h>
#include <linux/types.h>
#include <stdbool.h>

#include "bpf/probekit.h"
#include "eh_frame/errmsg.h"
#include "reading/reader.h"

struct pk_agg_maps {
	int slot;		/* agg_slot; -1: not open */
	int counts[2];		/* agg_counts0, agg_counts1 */
	__u32 ids[2];		/* their map ids: what the slot holds */
	__u32 entries;		/* of each */
	__u64 *keys;		/* room for a batch of entries */
	struct pk_agg_value *vals;
	__u64 swaps;		/* so far */
};

/* Open the maps pinned at PIN_DIR. 0; -ENOENT when the session has none
 * (loaded without --aggregate); -EBADMSG when they are not what
 * bpf/probekit.h says; another negative errno. One line in ERR. */
int pk_agg_maps_open(struct pk_agg_maps *m, const char *pin_dir, char err[PK_ERR_LEN]);
void pk_agg_maps_close(struct pk_agg_maps *m);

/* Put the map not in the slot into it. The index of the map taken out,
 * which no program writes any more when this returns (an update of a map
 * of maps waits for the programs that may still use the old one); or a
 * negative errno. */
int pk_agg_maps_swap(struct pk_agg_maps *m);

/* Read and empty map I (not in the slot), calling FN on each entry. 0, a
 * negative errno, or FN's non-zero return. */
int pk_agg_maps_drain(struct pk_agg_maps *m, int i,
		      int (*fn)(void *ctx, __u64 key, const struct pk_agg_value *v), void *ctx);

/*
 * What was counted since the last swap into READER, as read at TIME_NS:
 * a swap, the ring buffer RB drained (the definitions), then the old map.
 * ONLY_SPARE: the map out of the slot only, without a swap (what a
 * reader that stopped between a swap and its read left). 0 or a negative
 * errno, with one line in ERR.
 */
int pk_agg_maps_read(struct pk_agg_maps *m, struct ring_buffer *rb, struct pk_reader *reader,
		     __u64 time_ns, bool only_spare, char err[PK_ERR_LEN]);

#endif
