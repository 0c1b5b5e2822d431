// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind maps from user space. A table's rows and rules are memcpy'd
 * into a new array through mmap; then, one map update each, the array goes
 * into unwind_rows, its unwind_tables entry, the allocation counters and
 * last the unwind_files entry: the BPF side finds a table only through
 * unwind_files, so it never sees one that is half-written. A table is
 * freed in the other order: unwind_files entries first.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "lib/exec_segs.h"
#include "lib/hotspot.h"
#include "lib/proc_maps.h"
#include "lib/python.h"
#include "lib/v8.h"
#include "lib/unwind_store_internal.h"
#include "lib/util/array.h"
#include "lib/util/jobs.h"
#include "lib/util/u64map.h"
#include "lib/vdso_image.h"

static void work_table(struct pk_unwind_batch *b, struct pk_unwind_item *it, const char *path);

/* Parallel part: segments, identity and (unless known) the table. */
static void work(void *arg, int i)
{
	struct pk_unwind_batch *b = arg;
	struct pk_unwind_item *it = &b->items[i];
	char key[2 * PK_UNWIND_BUILD_ID_MAX + 8], held[32];
	int fd;

	if (it->skip || it->status < 0)	/* the vDSO could not be copied */
		return;
	/* each step opens the file again: through a path that stays, so that
	 * a process exiting half-way (the map_files link gone) does not cost
	 * the file its table */
	fd = pk_path_hold(it->path, held, sizeof(held));
	if (fd < 0) {
		it->status = fd;
		pk_err(it->msg, fd, "%s", strerror(-fd));
		return;
	}
	it->status = eh_cache_key(held, key, sizeof(key), it->msg);
	if (!it->status && (it->status = pk_unwind_id_from_key(key, &it->id)))
		pk_err(it->msg, it->status, "bad cache key %s", key);
	if (!it->status)
		it->status = pk_exec_segs(held, it->segs, &it->nsegs, it->msg);
	if (!it->status)
		work_table(b, it, held);
	close(fd);
}

/* work() past the file's identity and segments: PATH holds it open. */
static void work_table(struct pk_unwind_batch *b, struct pk_unwind_item *it, const char *path)
{
	it->py_status = pk_python_file(path, &it->py, &it->py_build);
	it->hs_status = pk_hotspot_process(path, it->pid, it->vm_start, &it->hs, it->hs_msg);
	it->v8_status = pk_v8_bpf_path(path, &it->v8, it->v8_msg);
	if (it->key.dev == PK_VDSO_DEV && it->key.ino == PK_VDSO_INO) {
		/* mapped whole: the file offset is pc - vm_start */
		it->segs[0].off = 0;
		it->segs[0].end = b->s->vdso_size;
		it->nsegs = 1;
	}
	if (pk_unwind_ids_find(b->known, &it->id, b->nknown) >= 0)
		return;		/* status 0: loaded already */
	it->status = eh_cache_get(path, &b->copts, &it->t, NULL, 0, it->msg);
	if (it->status < 0 && !it->msg[0])
		pk_err(it->msg, it->status, "%s", strerror(-it->status));
}

/* IT's entry VALUE in a runtime's map FD (named MAP), and FLAG into FI. A
 * full map leaves the file without the runtime's frames, one line said:
 * not an error. */
static int put_runtime(struct pk_unwind_batch *b, const struct pk_unwind_item *it, int fd,
		       const char *map, const void *value, __u32 flag, struct pk_file_info *fi)
{
	struct pk_unwind_store *s = b->s;

	if (bpf_map_update_elem(fd, &it->key, value, BPF_ANY)) {
		if (errno != E2BIG)
			return -errno;
		fprintf(s->log ? s->log : stderr, "%s: %s: %s is full: native frames only\n",
			s->prog, it->name, map);
		return 0;
	}
	fi->flags |= flag;
	return 0;
}

/* IT's py_files entry when it is a Python interpreter, before its
 * unwind_files entry (with PK_FILE_PYTHON into FI), so that a walk that
 * sees the flag finds the offsets; one line for a Python we have no
 * offsets for, which gets native frames only. A full py_files leaves the
 * file without Python frames: not an error. */
static int put_python(struct pk_unwind_batch *b, const struct pk_unwind_item *it,
		       struct pk_file_info *fi)
{
	struct pk_unwind_store *s = b->s;
	char ver[32];

	if (it->py_status == -ENOTSUP) {
		pk_python_version_str(it->py_build.version, ver, sizeof(ver));
		fprintf(s->log ? s->log : stderr,
			"%s: %s: Python %s%s (0x%08x) is not supported: native frames only\n",
			s->prog, it->name, ver, it->py_build.debug ? " (debug build)" : "",
			it->py_build.version);
		return 0;
	}
	if (it->py_status || s->fds.py < 0)
		return 0;
	return put_runtime(b, it, s->fds.py, PK_PIN_PY_FILES, &it->py, PK_FILE_PYTHON, fi);
}

/* IT's hs_files entry when it is a HotSpot libjvm, before its unwind_files
 * entry (with PK_FILE_HOTSPOT into FI), as put_python(); one line for a
 * HotSpot the walk cannot read, which gets native frames only. */
static int put_hotspot(struct pk_unwind_batch *b, const struct pk_unwind_item *it,
		        struct pk_file_info *fi)
{
	struct pk_unwind_store *s = b->s;

	if (it->hs_status == -ENOENT || s->fds.hs < 0)
		return 0;
	if (it->hs_status) {
		fprintf(s->log ? s->log : stderr,
			"%s: %s: a HotSpot JVM the walk cannot read (%s): native frames only\n",
			s->prog, it->name, it->hs_msg[0] ? it->hs_msg : strerror(-it->hs_status));
		return 0;
	}
	return put_runtime(b, it, s->fds.hs, PK_PIN_HS_FILES, &it->hs, PK_FILE_HOTSPOT, fi);
}

/* IT's v8_files entry when it is a V8 (node, libnode), before its
 * unwind_files entry (with PK_FILE_V8 into FI), as put_hotspot(). */
static int put_v8(struct pk_unwind_batch *b, const struct pk_unwind_item *it,
		   struct pk_file_info *fi)
{
	struct pk_unwind_store *s = b->s;

	if (it->v8_status == -ENOENT || s->fds.v8 < 0)
		return 0;
	if (it->v8_status) {
		fprintf(s->log ? s->log : stderr,
			"%s: %s: a V8 the walk cannot read (%s): native frames only\n",
			s->prog, it->name, it->v8_msg[0] ? it->v8_msg : strerror(-it->v8_status));
		return 0;
	}
	return put_runtime(b, it, s->fds.v8, PK_PIN_V8_FILES, &it->v8, PK_FILE_V8, fi);
}

/* IT's unwind_files entry; when the map is full, after giving back what no
 * process maps (once a batch). Under the lock. */
static int put_file(struct pk_unwind_batch *b, const struct pk_unwind_item *it, __u32 table,
		    __u32 flags)
{
	struct pk_file_info fi = { .table = table, .flags = flags, .nsegs = it->nsegs };
	struct pk_unwind_alloc a;
	int ret;

	memcpy(fi.segs, it->segs, sizeof(fi.segs));
	ret = put_python(b, it, &fi);
	if (!ret)
		ret = put_hotspot(b, it, &fi);
	if (!ret)
		ret = put_v8(b, it, &fi);
	if (ret)
		return ret;
	ret = bpf_map_update_elem(b->s->fds.files, &it->key, &fi, BPF_ANY) ? -errno : 0;
	if (ret == -E2BIG && !b->reclaimed) {
		b->reclaimed = true;
		ret = pk_unwind_alloc_read(b->s, &a);
		if (!ret)
			ret = pk_unwind_store_refresh_ids(b->s, &a);
		if (!ret)
			ret = pk_unwind_reclaim_locked(b->s, b, &a);
		if (!ret)
			ret = bpf_map_update_elem(b->s->fds.files, &it->key, &fi, BPF_ANY) ? -errno : 0;
	}
	if (ret)
		return ret;
	b->st.files++;
	return 0;
}

static void refuse(struct pk_unwind_batch *b, const struct pk_unwind_item *it, const char *why)
{
	struct pk_unwind_store *s = b->s;
	int ret;

	fprintf(s->log ? s->log : stderr, "%s: %s: unwind table refused: %s\n", s->prog,
		it->name, why);
	ret = put_file(b, it, PK_TABLE_NONE, PK_FILE_REFUSED);
	if (ret == -E2BIG)	/* unwind_files full: it stays "no table" */
		fprintf(s->log ? s->log : stderr, "%s: %s: unwind_files is full\n", s->prog,
			it->name);
	else if (ret && !b->ret)
		b->ret = pk_err(b->err, ret, "cannot add to unwind_files: %s", strerror(-ret));
	b->st.refused++;
}

/* The page of rules[0] in a table of NROWS rows: after the PCs (4 bytes a
 * row) and the rule ids (2). */
static __u32 rules_page(__u32 nrows)
{
	return ((__u64)nrows * 6 + PK_TABLE_PAGE - 1) / PK_TABLE_PAGE;
}

/* The pages of a table's array. */
static __u32 table_pages(__u32 nrows, __u32 nrules)
{
	return rules_page(nrows) + (nrules + PK_RULES_PER_PAGE - 1) / PK_RULES_PER_PAGE;
}

__u64 pk_unwind_table_bytes(__u32 nrows, __u32 nrules)
{
	/* + the page of struct bpf_array before an mmapable array's values
	 * (array_map_alloc, kernel/bpf/arraymap.c) */
	return ((__u64)table_pages(nrows, nrules) + 1) * PK_TABLE_PAGE;
}

void pk_unwind_alloc_describe(const struct pk_unwind_alloc *a, char *buf, size_t len)
{
	snprintf(buf, len, "%u tables, %u rows, %u rules, %llu KiB of %llu KiB kernel memory, "
		 "%u given back (%llu KiB)", a->live, a->rows, a->rules,
		 (unsigned long long)(a->bytes >> 10), (unsigned long long)(a->max_bytes >> 10),
		 a->freed, (unsigned long long)(a->freed_bytes >> 10));
}

/* A free index in unwind_tables: a new one while there are (an index is
 * handed out again as late as can be), else the lowest given back, or -1. */
static int free_index(const struct pk_unwind_store *s, const struct pk_unwind_alloc *a)
{
	if (a->tables < s->caps.max_tables)
		return a->tables;
	for (__u32 i = 0; i < a->tables && i < s->caps.max_tables; i++)
		if (!s->ids[i].len)
			return i;
	return -1;
}

/* Why H's table does not fit in what is left after A, or "" when it does. */
static void room(const struct pk_unwind_store *s, const struct pk_unwind_alloc *a,
		 const struct pk_unwind_header *h, char why[PK_ERR_LEN])
{
	__u64 bytes = pk_unwind_table_bytes(h->nrows, h->nrules);
	__u64 left = a->max_bytes > a->bytes ? a->max_bytes - a->bytes : 0;

	why[0] = '\0';
	if (bytes > left)
		snprintf(why, PK_ERR_LEN, "%u rows need %llu KiB of kernel memory, %llu KiB free of %llu KiB (probe-load --table-memory)",
			 h->nrows, (unsigned long long)(bytes >> 10), (unsigned long long)(left >> 10),
			 (unsigned long long)(a->max_bytes >> 10));
	else if (a->max_rows && h->nrows > a->max_rows - a->rows)
		snprintf(why, PK_ERR_LEN, "%u rows, %u free of %u (probe-load --table-rows)",
			 h->nrows, a->max_rows - a->rows, a->max_rows);
	else if (free_index(s, a) < 0)
		snprintf(why, PK_ERR_LEN, "%u tables loaded, the most there is room for",
			 a->live);
}

/* A new array holding H's table as bpf/probekit.h lays it out: its fd, or
 * a negative errno. */
static int table_array(const struct pk_unwind_header *h, __u32 pages)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	const char *base = (const char *)h;
	const char *rules = base + h->rules_off;
	size_t len = (size_t)pages * PK_TABLE_PAGE, rules_at = rules_page(h->nrows);
	union pk_table_page *p;
	int fd, ret = 0;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "pk_table", sizeof(__u32),
			    sizeof(union pk_table_page), pages, &o);
	if (fd < 0)
		return -errno;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return ret;
	}
	/* the cache file's arrays as they are: rule ids stay table-local */
	memcpy((char *)p, base + h->pcs_off, (size_t)h->nrows * sizeof(__u32));
	memcpy((char *)p + (size_t)h->nrows * sizeof(__u32), base + h->rule_ids_off,
	       (size_t)h->nrows * sizeof(__u16));
	for (__u32 r = 0; r < h->nrules; r += PK_RULES_PER_PAGE) {
		__u32 n = h->nrules - r < PK_RULES_PER_PAGE ? h->nrules - r : PK_RULES_PER_PAGE;

		memcpy(p[rules_at + r / PK_RULES_PER_PAGE].rules,
		       rules + (size_t)r * sizeof(struct pk_unwind_rule),
		       n * sizeof(struct pk_unwind_rule));
	}
	munmap(p, len);
	return fd;
}

/* IT's entry for TABLE, written by commit() once the table is in. 0 or
 * -ENOMEM. */
static int defer_file(struct pk_unwind_batch *b, struct pk_unwind_item *it, __u32 table)
{
	it->file_due = true;
	it->file_table = table;
	return pk_u64map_put(&b->due, pk_unwind_file_hash(it->key.dev, it->key.ino), it);
}

/* Whether an item of B has IT's file's entry due already (a batch may
 * name a file twice). */
static bool file_entry_due(const struct pk_unwind_batch *b,
			   const struct pk_unwind_item *it)
{
	const struct pk_unwind_item *o =
		pk_u64map_get(&b->due, pk_unwind_file_hash(it->key.dev, it->key.ino));

	return o && o->key.dev == it->key.dev && o->key.ino == it->key.ino;
}

/* IT's table into an array of its own, placed for commit(); under the
 * lock, with A just read. */
static int load_table(struct pk_unwind_batch *b, struct pk_unwind_item *it,
		      struct pk_unwind_alloc *a)
{
	struct pk_unwind_store *s = b->s;
	const struct pk_unwind_header *h = eh_unwind_table_header(it->t);
	struct pk_table_info ti = {
		.nrows = h->nrows, .nrules = h->nrules,
		.rule_ids_at = 2 * h->nrows, .rules_page = rules_page(h->nrows),
		.pc_base = h->pc_base, .pc_end = h->pc_end,
		.build_id_len = it->id.len, .flags = h->flags,
		.pages = table_pages(h->nrows, h->nrules),
		.bytes = pk_unwind_table_bytes(h->nrows, h->nrules),
	};
	char why[PK_ERR_LEN];
	int idx, fd, ret;

	room(s, a, h, why);
	if (why[0] && !b->reclaimed) {
		/* room held by files no process maps any more: given back */
		b->reclaimed = true;
		ret = pk_unwind_reclaim_locked(s, b, a);
		if (ret)
			return ret;
		room(s, a, h, why);
	}
	if (why[0]) {
		refuse(b, it, why);
		return 0;
	}
	idx = free_index(s, a);
	{
		struct pk_table_info old;
		__u32 k = idx;

		if (bpf_map_lookup_elem(s->fds.tables, &k, &old))
			return pk_err(b->err, -errno, "cannot read unwind_tables: %s", strerror(errno));
		ti.gen = old.gen + 1;
	}
	fd = table_array(h, ti.pages);
	if (fd == -ENOMEM || fd == -E2BIG) {
		snprintf(why, sizeof(why), "the kernel has no room for its %llu KiB: %s",
			 (unsigned long long)(ti.bytes >> 10), strerror(-fd));
		refuse(b, it, why);
		return 0;
	}
	if (fd < 0)
		return pk_err(b->err, fd, "cannot make an unwind table array: %s", strerror(-fd));
	memcpy(ti.build_id, it->id.id, it->id.len);
	if ((__u32)idx == a->tables)
		a->tables++;
	a->live++;
	a->rows += h->nrows;
	a->rules += h->nrules;
	a->bytes += ti.bytes;
	ret = pk_unwind_alloc_write(s, a);
	if (ret) {
		close(fd);
		return pk_err(b->err, ret, "cannot write unwind_alloc: %s", strerror(-ret));
	}
	/* counted in unwind_alloc: unplace() takes it out again on failure */
	b->pend[b->npend++] = (struct pk_unwind_pending){ .idx = idx, .fd = fd, .ti = ti };
	s->ids[idx] = it->id;
	if (s->nids < a->tables)
		s->nids = a->tables;
	b->st.tables++;
	b->st.rows += h->nrows;
	b->st.rules += h->nrules;
	b->st.kernel_bytes += ti.bytes;
	if (it->status == EH_CACHE_HIT)
		b->st.hit++;
	else
		b->st.built++;
	ret = defer_file(b, it, idx);
	return ret ? pk_err(b->err, ret, "out of memory") : 0;
}

/* Serial part, in file order: into the maps under the lock. */
static int place(struct pk_unwind_batch *b, struct pk_unwind_item *it)
{
	struct pk_unwind_store *s = b->s;
	struct pk_file_info fi;
	struct pk_unwind_alloc a;
	int idx, ret;

	if (file_entry_due(b, it) || !bpf_map_lookup_elem(s->fds.files, &it->key, &fi))
		return 0;	/* another file of this batch, or another process */
	if (it->status == -ENOENT || it->status == -ESRCH) {
		/* gone (the process that mapped it exited): no entry, so that
		 * a process that maps it later gets it reported again */
		b->st.gone++;
		pk_unwind_store_forget(s, &it->key);
		return 0;
	}
	if (it->status < 0) {
		refuse(b, it, it->msg);
		return 0;
	}
	ret = pk_unwind_alloc_read(s, &a);
	if (!ret)
		ret = pk_unwind_store_refresh_ids(s, &a);
	if (ret)
		return pk_err(b->err, ret, "cannot read the unwind maps: %s", strerror(-ret));
	idx = pk_unwind_ids_find(s->ids, &it->id, s->nids);
	if (idx >= 0) {
		ret = defer_file(b, it, idx);
		if (ret)
			return pk_err(b->err, ret, "out of memory");
		b->st.shared++;
		return 0;
	}
	if (!it->t) {
		/* known to the workers, given back since: from the cache again */
		it->status = eh_cache_get(it->path, &b->copts, &it->t, NULL, 0, it->msg);
		if (it->status < 0) {
			refuse(b, it, it->msg[0] ? it->msg : strerror(-it->status));
			return 0;
		}
	}
	return load_table(b, it, &a);
}

/* The arrays of the batch's tables into unwind_rows: in one batch update
 * where the kernel has one for arrays of maps. The kernel waits for an RCU
 * grace period after each update of such a map (7 to 21 ms here), after a
 * batch only once. Else, or for what a batch left, one by one. */
static int insert_rows(struct pk_unwind_batch *b)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = BPF_ANY);
	__u32 *keys = calloc(b->npend, sizeof(*keys)), count = b->npend;
	int *fds = calloc(b->npend, sizeof(*fds)), ret = 0;

	if (!keys || !fds) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < b->npend; i++) {
		keys[i] = b->pend[i].idx;
		fds[i] = b->pend[i].fd;
	}
	if (!bpf_map_update_batch(b->s->fds.rows, keys, fds, &count, &o))
		goto out;
	/* refused whole (Linux 6.1 has no batch update for arrays of maps),
	 * count 0; or failed part way, count done */
	if (count > (__u32)b->npend)
		count = 0;
	for (int i = count; !ret && i < b->npend; i++)
		if (bpf_map_update_elem(b->s->fds.rows, &keys[i], &fds[i], BPF_ANY))
			ret = -errno;
out:
	free(keys);
	free(fds);
	return ret;
}

/* What place() left for after the tables' arrays are made: unwind_rows,
 * then unwind_tables, then the files' entries, in that order because the
 * BPF side goes from a file to its table to the table's array. */
static int commit(struct pk_unwind_batch *b)
{
	struct pk_unwind_store *s = b->s;
	int ret = b->npend ? insert_rows(b) : 0;

	for (int i = 0; i < b->npend; i++) {
		close(b->pend[i].fd);	/* unwind_rows holds them now */
		b->pend[i].fd = -1;
	}
	if (ret)
		return pk_err(b->err, ret, "cannot add to unwind_rows: %s", strerror(-ret));
	for (; b->ntables < b->npend; b->ntables++)
		if (bpf_map_update_elem(s->fds.tables, &b->pend[b->ntables].idx,
					&b->pend[b->ntables].ti, BPF_ANY))
			return pk_err(b->err, -errno, "cannot add to unwind_tables: %s",
				      strerror(errno));
	for (int i = 0; i < b->n; i++) {
		struct pk_unwind_item *it = &b->items[i];

		if (!it->file_due)
			continue;
		ret = put_file(b, it, it->file_table, 0);
		if (ret == -E2BIG)
			fprintf(s->log ? s->log : stderr, "%s: %s: unwind_files is full\n",
				s->prog, it->name);
		else if (ret)
			return pk_err(b->err, ret, "cannot add to unwind_files: %s",
				      strerror(-ret));
	}
	return 0;
}

/* After a failure, under the lock: the batch's tables that never reached
 * unwind_tables out of unwind_alloc and the known ids, and their arrays out
 * of unwind_rows, as if never placed. Else their room stayed taken for
 * good (reclaim gives back only what unwind_tables holds), and a later add
 * of the same build-id found it here and pointed its file at a table the
 * BPF side never sees. */
static void unplace(struct pk_unwind_batch *b)
{
	struct pk_unwind_store *s = b->s;
	struct pk_unwind_alloc a;

	if (b->ntables == b->npend || pk_unwind_alloc_read(s, &a))
		return;
	for (int i = b->ntables; i < b->npend; i++) {
		const struct pk_unwind_pending *p = &b->pend[i];

		bpf_map_delete_elem(s->fds.rows, &p->idx);	/* ENOENT: never there */
		pk_unwind_alloc_sub(&a, &p->ti);
		s->ids[p->idx].len = 0;
	}
	pk_unwind_alloc_write(s, &a);
}

/* Serial part, in file order: every file of the batch placed under one
 * hold of the lock, then committed. */
static int place_all(struct pk_unwind_batch *b)
{
	int ret = pk_unwind_store_lock(b->s);

	if (ret)
		return pk_err(b->err, ret, "cannot lock the pin directory: %s", strerror(-ret));
	for (int i = 0; !ret && !b->ret && i < b->n; i++) {
		struct pk_unwind_item *it = &b->items[i];

		if (!it->skip)
			ret = place(b, it);
		eh_unwind_table_free(it->t);	/* copied into its array, if anywhere */
		it->t = NULL;
	}
	if (!ret)
		ret = b->ret;
	if (!ret)
		ret = commit(b);
	if (ret)
		unplace(b);
	for (int i = 0; i < b->npend; i++)
		if (b->pend[i].fd >= 0)
			close(b->pend[i].fd);	/* a failure's: never inserted */
	pk_unwind_store_unlock(b->s);
	return ret;
}

void pk_unwind_stats_add(struct pk_unwind_stats *st, const struct pk_unwind_stats *add)
{
	st->files += add->files;
	st->tables += add->tables;
	st->rows += add->rows;
	st->rules += add->rules;
	st->kernel_bytes += add->kernel_bytes;
	st->built += add->built;
	st->hit += add->hit;
	st->shared += add->shared;
	st->refused += add->refused;
	st->gone += add->gone;
	st->freed += add->freed;
	st->forgotten += add->forgotten;
	st->freed_bytes += add->freed_bytes;
}

int pk_unwind_store_add(struct pk_unwind_store *s, const struct pk_unwind_file *files, int n,
			 struct pk_unwind_stats *st, char err[PK_ERR_LEN])
{
	struct pk_unwind_batch b = { .s = s, .n = n, .err = err };
	struct pk_file_info fi;
	struct pk_unwind_alloc a;
	char vdso[64] = "", vdso_err[PK_ERR_LEN] = "";
	int ret;

	err[0] = '\0';
	if (n <= 0)
		return 0;
	b.items = calloc(n, sizeof(*b.items));
	if (!b.items)
		return pk_err(err, -ENOMEM, "out of memory");
	b.copts = (struct eh_cache_opts){ .sz = sizeof(b.copts), .cache_dir = s->cache_dir };
	for (int i = 0; i < n; i++) {
		struct pk_unwind_item *it = &b.items[i];
		bool is_vdso = !files[i].path;

		it->key = is_vdso ? (struct pk_file_key){ PK_VDSO_DEV, PK_VDSO_INO } : files[i].key;
		it->path = files[i].path;
		it->pid = files[i].pid;
		it->vm_start = files[i].vm_start;
		it->name = files[i].name ? files[i].name : is_vdso ? "[vdso]" : files[i].path;
		it->py_status = -ENOENT;	/* until work() looks */
		it->hs_status = -ENOENT;
		it->v8_status = -ENOENT;
		/* what has an entry costs one lookup, not a table */
		it->skip = !bpf_map_lookup_elem(s->fds.files, &it->key, &fi);
		if (it->skip || !is_vdso)
			continue;
		if (!vdso[0] && !vdso_err[0])
			pk_vdso_path(&s->vdso_fd, &s->vdso_size, vdso, sizeof(vdso), vdso_err);
		it->path = vdso;
		if (!vdso[0]) {
			it->status = -ENOENT;
			snprintf(it->msg, sizeof(it->msg), "%s", vdso_err);
		}
	}
	/* What the workers may compare with: fixed before they start. */
	ret = pk_unwind_store_lock(s);
	if (!ret) {
		ret = pk_unwind_alloc_read(s, &a);
		if (!ret)
			ret = pk_unwind_store_refresh_ids(s, &a);
		pk_unwind_store_unlock(s);
	}
	if (ret) {
		free(b.items);
		return pk_err(err, ret, "cannot read the unwind maps: %s", strerror(-ret));
	}
	b.nknown = s->nids;
	b.known = malloc((b.nknown ? b.nknown : 1) * sizeof(*b.known));
	if (!b.known) {
		free(b.items);
		return pk_err(err, -ENOMEM, "out of memory");
	}
	memcpy(b.known, s->ids, b.nknown * sizeof(*b.known));
	b.pend = calloc(n, sizeof(*b.pend));
	if (!b.pend)
		ret = pk_err(err, -ENOMEM, "out of memory");
	else if ((ret = pk_jobs_run(n, s->jobs, work, NULL, &b)))
		pk_err(err, ret, "cannot start table builders: %s", strerror(-ret));
	else {
		ret = place_all(&b);
		if (st)
			pk_unwind_stats_add(st, &b.st);
	}
	for (int i = 0; i < n; i++)
		eh_unwind_table_free(b.items[i].t);	/* what a failure left */
	pk_u64map_free(&b.due);
	free(b.pend);
	free(b.known);
	free(b.items);
	return ret;
}

int pk_unwind_store_forget(struct pk_unwind_store *s, const struct pk_file_key *key)
{
	if (bpf_map_delete_elem(s->fds.seen, key) && errno != ENOENT)
		return -errno;
	return 0;
}

