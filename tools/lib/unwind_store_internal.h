/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The unwind store's own data, shared by its three files: unwind_maps.c
 * (the maps made, checked and opened, the pin directory's lock, the
 * allocation counters and the tables' ids as unwind_tables holds them),
 * unwind_store.c (tables built and placed) and unwind_reclaim.c (tables
 * given back). Nothing else includes it.
 */
#ifndef PK_UNWIND_STORE_INTERNAL_H
#define PK_UNWIND_STORE_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "eh_frame/eh_table.h"
#include "lib/python.h"
#include "lib/unwind_store.h"
#include "lib/util/u64map.h"

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

/* One file of an add() (unwind_store.c): what the worker found, for the
 * serial part. */
struct pk_unwind_item {
	const char *path;		/* what to read */
	const char *name;		/* for messages */
	pid_t pid;			/* a process that maps it, at vm_start */
	__u64 vm_start;
	struct pk_file_key key;
	bool skip;			/* already had an entry */
	int status;			/* < 0: refused (msg), 0: table known, > 0:
					 * enum eh_cache_result, table in t */
	struct pk_unwind_id id;
	struct pk_file_seg segs[PK_FILE_MAX_SEGS];
	__u32 nsegs;
	struct eh_unwind_table *t;
	int py_status;			/* pk_python_file(): 0 a Python, py is its
					 * py_files value */
	struct pk_python_build py_build;
	struct pk_py_file py;
	int hs_status;			/* pk_hotspot_process(): 0 a HotSpot, hs is
					 * its hs_files value, hs_msg why not */
	struct pk_hs_file hs;
	char hs_msg[PK_ERR_LEN];
	int v8_status;			/* pk_v8_bpf_path(): 0 a V8, v8 is its
					 * v8_files value, v8_msg why not */
	struct pk_v8_file v8;
	char v8_msg[PK_ERR_LEN];
	bool file_due;			/* its unwind_files entry, for table
					 * file_table, waits for commit() */
	__u32 file_table;
	char msg[PK_ERR_LEN];
};

/* A table placed by a batch, whose array goes into unwind_rows and whose
 * entry into unwind_tables at commit(). */
struct pk_unwind_pending {
	__u32 idx;
	int fd;				/* the array */
	struct pk_table_info ti;
};

struct pk_unwind_batch {
	struct pk_unwind_store *s;
	struct pk_unwind_item *items;
	int n;
	/* the tables known when the batch began, for the workers: a copy,
	 * since giving tables back changes s->ids under them */
	struct pk_unwind_id *known;
	__u32 nknown;
	struct eh_cache_opts copts;
	struct pk_unwind_stats st;
	struct pk_unwind_pending *pend;		/* n of them at most */
	int npend;
	int ntables;			/* of those, in unwind_tables */
	struct pk_u64map due;		/* pk_unwind_file_hash() -> the item
					 * whose file's entry is due */
	bool reclaimed;			/* room was sought once: not again */
	int ret;			/* first map failure */
	char *err;
};

/* The key of (DEV, INO) in a set of files: two files may share one, which
 * only keeps a table that could have gone. */
__u64 pk_unwind_file_hash(__u64 dev, __u64 ino);

/* TI's table no longer counted in A. */
void pk_unwind_alloc_sub(struct pk_unwind_alloc *a, const struct pk_table_info *ti);

/* ADD's counts added to ST's. */
void pk_unwind_stats_add(struct pk_unwind_stats *st, const struct pk_unwind_stats *add);

/*
 * Give back what no process maps (pk_unwind_store_reclaim), but the files of
 * batch B (NULL: none), which are loaded for processes that may not have
 * mapped them yet (probe-load -- CMD). Under the lock, with A just read and
 * the ids refreshed; A is updated and written.
 */
int pk_unwind_reclaim_locked(struct pk_unwind_store *s, struct pk_unwind_batch *b,
			     struct pk_unwind_alloc *a);

#endif
