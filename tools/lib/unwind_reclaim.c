// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind store gives tables back: the unwind_files entries of files no
 * process maps go first, so that the BPF side no longer finds their
 * tables, then the tables unwind_files no longer points at, out of
 * unwind_rows and unwind_tables. On demand (pk_unwind_store_reclaim) or
 * when an add runs out of room (unwind_store.c).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/proc_maps.h"
#include "lib/unwind_store_internal.h"
#include "lib/util/array.h"
#include "lib/util/u64map.h"

__u64 pk_unwind_file_hash(__u64 dev, __u64 ino)
{
	return pk_hash64(ino ^ pk_hash64(dev + 1));
}

static int add_live_process(void *ctx, pid_t pid)
{
	struct pk_u64map *live = ctx;
	struct pk_maps maps;
	int ret = pk_maps_read(NULL, pid, false, &maps);

	if (ret)	/* gone, or exiting: nothing of it to keep */
		return ret == -ENOMEM ? ret : 0;
	for (size_t i = 0; i < maps.n && !ret; i++)
		if (maps.v[i].kind == PK_MAP_FILE)
			ret = pk_u64map_put(live,
					    pk_unwind_file_hash(pk_kernel_dev(maps.v[i].dev_major,
									      maps.v[i].dev_minor),
								maps.v[i].inode),
					    (void *)1);
	pk_maps_free(&maps);
	return ret;
}

/* unwind_files' keys that no process maps, into *DEAD (*NDEAD of them). */
static int dead_files(const struct pk_unwind_store *s, const struct pk_u64map *live,
		      struct pk_file_key **dead, size_t *ndead)
{
	struct pk_file_key key, next, *prev = NULL;
	size_t cap = 0;

	*dead = NULL;
	*ndead = 0;
	while (!bpf_map_get_next_key(s->fds.files, prev, &next)) {
		key = next;
		prev = &key;
		if ((key.dev == PK_VDSO_DEV && key.ino == PK_VDSO_INO) ||
		    pk_u64map_get(live, pk_unwind_file_hash(key.dev, key.ino)))
			continue;
		if (pk_array_reserve((void **)dead, &cap, sizeof(**dead), *ndead + 1, 64))
			return -ENOMEM;
		(*dead)[(*ndead)++] = key;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* Which tables unwind_files still uses: USED[i] for table i. */
static int used_tables(const struct pk_unwind_store *s, __u8 *used)
{
	struct pk_file_key key, next, *prev = NULL;
	struct pk_file_info fi;

	while (!bpf_map_get_next_key(s->fds.files, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(s->fds.files, &key, &fi) && fi.table < s->caps.max_tables)
			used[fi.table] = 1;
	}
	return errno == ENOENT ? 0 : -errno;
}

void pk_unwind_alloc_sub(struct pk_unwind_alloc *a, const struct pk_table_info *ti)
{
	a->live--;
	a->rows -= ti->nrows;
	a->rules -= ti->nrules;
	a->bytes -= ti->bytes;
}

/* Free table IDX (TI): unwind_rows first, then its entry, which keeps gen. */
static int free_table(struct pk_unwind_store *s, __u32 idx, const struct pk_table_info *ti,
		      struct pk_unwind_alloc *a, struct pk_unwind_stats *st)
{
	struct pk_table_info empty = { .gen = ti->gen };

	if (bpf_map_delete_elem(s->fds.rows, &idx) && errno != ENOENT)
		return -errno;
	if (bpf_map_update_elem(s->fds.tables, &idx, &empty, BPF_ANY))
		return -errno;
	pk_unwind_alloc_sub(a, ti);
	a->freed++;
	a->freed_bytes += ti->bytes;
	st->freed++;
	st->freed_bytes += ti->bytes;
	s->ids[idx].len = 0;
	return 0;
}

int pk_unwind_reclaim_locked(struct pk_unwind_store *s, struct pk_unwind_batch *b,
			     struct pk_unwind_alloc *a)
{
	struct pk_unwind_stats *st = &b->st;
	const int runtimes[] = { s->fds.py, s->fds.hs, s->fds.v8 };
	struct pk_u64map live = { 0 };
	struct pk_file_key *dead = NULL;
	size_t ndead = 0;
	__u32 freed = a->freed;
	__u8 *used = NULL;
	int ret;

	ret = pk_proc_for_each_pid(NULL, add_live_process, &live);
	for (int i = 0; !ret && i < b->n; i++)
		ret = pk_u64map_put(&live,
				    pk_unwind_file_hash(b->items[i].key.dev, b->items[i].key.ino),
				    (void *)1);
	if (!ret)
		ret = dead_files(s, &live, &dead, &ndead);
	pk_u64map_free(&live);
	if (ret)
		goto out;
	/* the files first: the BPF side no longer finds the tables */
	for (size_t i = 0; i < ndead; i++) {
		if (bpf_map_delete_elem(s->fds.files, &dead[i]) && errno != ENOENT) {
			ret = -errno;
			goto out;
		}
		/* and the runtimes' entries of the file (-1: not loaded) */
		for (size_t r = 0; r < sizeof(runtimes) / sizeof(runtimes[0]); r++) {
			if (runtimes[r] >= 0 && bpf_map_delete_elem(runtimes[r], &dead[i]) &&
			    errno != ENOENT) {
				ret = -errno;
				goto out;
			}
		}
		pk_unwind_store_forget(s, &dead[i]);
		st->forgotten++;
	}
	used = calloc(s->caps.max_tables, 1);
	if (!used) {
		ret = -ENOMEM;
		goto out;
	}
	ret = used_tables(s, used);
	/* the batch's tables, in unwind_tables before their files' entries */
	for (int i = 0; i < b->npend; i++)
		used[b->pend[i].idx] = 1;
	for (__u32 i = 0; !ret && i < a->tables && i < s->caps.max_tables; i++) {
		struct pk_table_info ti;

		if (used[i])
			continue;
		if (bpf_map_lookup_elem(s->fds.tables, &i, &ti))
			ret = -errno;
		else if (ti.nrows)
			ret = free_table(s, i, &ti, a, st);
	}
	if (a->freed != freed) {
		a->epoch++;
		s->epoch = a->epoch;	/* s->ids are current */
	}
	{
		int wret = pk_unwind_alloc_write(s, a);	/* what was freed, even after a failure */

		if (!ret)
			ret = wret;
	}
out:
	if (ret)
		pk_err(b->err, ret, "cannot give unwind tables back: %s", strerror(-ret));
	free(used);
	free(dead);
	return ret;
}

int pk_unwind_store_reclaim(struct pk_unwind_store *s, struct pk_unwind_stats *st,
			     char err[PK_ERR_LEN])
{
	struct pk_unwind_batch b = { .s = s, .err = err };
	struct pk_unwind_alloc a;
	int ret;

	err[0] = '\0';
	ret = pk_unwind_store_lock(s);
	if (ret)
		return pk_err(err, ret, "cannot lock the pin directory: %s", strerror(-ret));
	ret = pk_unwind_alloc_read(s, &a);
	if (!ret)
		ret = pk_unwind_store_refresh_ids(s, &a);
	if (ret)
		pk_err(err, ret, "cannot read the unwind maps: %s", strerror(-ret));
	else
		ret = pk_unwind_reclaim_locked(s, &b, &a);
	pk_unwind_store_unlock(s);
	if (st)
		pk_unwind_stats_add(st, &b.st);
	return ret;
}
