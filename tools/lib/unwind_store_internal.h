/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The unwind store's own data, shared by its two files: unwind_maps.c (the
 * maps made, checked and opened, the pin directory's lock, the allocation
 * counters and the tables' ids as unwind_tables holds them) and
 * unwind_store.c (tables built, placed, given back). Nothing else includes
 * it.
 */
#ifndef PK_UNWIND_STORE_INTERNAL_H
#define PK_UNWIND_STORE_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/unwind_store.h"

/* Which table a file needs: its build-id, or (PK_UNWIND_NO_BUILD_ID) the
 * content hash of its cache key; as in pk_table_info. */
struct pk_unwind_id {
	__u32 no_build_id;
	__u32 len;		/* 0: a free index */
	__u8 id[PK_UNWIND_BUILD_ID_MAX];
};

struct pk_unwind_store {
	struct pk_unwind_fds fds;
	bool own_fds;			/* opened from pins: closed on free */
	int dir_fd;			/* the pin directory: flock(2) */
	struct pk_unwind_alloc caps;	/* max_* only */
	/* unwind_tables[0, nids) as read so far, at epoch; room for
	 * max_tables, so a snapshot of the first entries stays valid while
	 * more are added */
	struct pk_unwind_id *ids;
	__u32 nids, epoch;
	int vdso_fd;			/* -1 until the vDSO is first needed */
	size_t vdso_size;
	char *cache_dir;
	unsigned int jobs;
	FILE *log;
	const char *prog;
};

/* The pin directory's lock (flock), which every writer of the maps
 * takes, whichever program it is in. */
int pk_unwind_store_lock(struct pk_unwind_store *s);
void pk_unwind_store_unlock(struct pk_unwind_store *s);

/* unwind_alloc's one entry. */
int pk_unwind_alloc_read(const struct pk_unwind_store *s, struct pk_unwind_alloc *a);
int pk_unwind_alloc_write(const struct pk_unwind_store *s, const struct pk_unwind_alloc *a);

/* Read unwind_tables[nids, A->tables): tables someone else (probe-load,
 * probe-read) added since we last looked; all of them again when tables
 * were given back since (A->epoch). Under the lock. */
int pk_unwind_store_refresh_ids(struct pk_unwind_store *s, const struct pk_unwind_alloc *a);

/* The table of ID among IDS[0, N), or -1. */
int pk_unwind_ids_find(const struct pk_unwind_id *ids, const struct pk_unwind_id *id, __u32 n);

/* An eh_cache_key() ("<hex>" or "nb-<hex>") as an id: 0 or -EINVAL. */
int pk_unwind_id_from_key(const char *key, struct pk_unwind_id *id);

#endif
