// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "eh_frame/hex.h"
#include "bpf/walk_end.h"
#include "eh_frame/unwind_step.h"
#include "lib/exec_segs.h"
#include "lib/overlay.h"
#include "lib/proc_maps.h"
#include "lib/unwind_store.h"
#include "lib/util/array.h"
#include "lib/util/u64map.h"
#include "lib/vdso_image.h"
#include "reading/ustack_finish.h"
#include "symbolization/symfile.h"

/* The pages pk_ustack_copy.holes counts: x86-64's. */
#define PK_COPY_PAGE	4096

struct fin_map {
	__u64 start, end, pgoff;
	__u64 dev, ino;		/* kernel dev_t */
	bool vdso, anon;
	char *path;		/* may be NULL */
	__u8 build_id_len;
	__u8 build_id[PK_MAPPING_BUILD_ID_MAX];
};

/* A process's mappings, sorted by start, not overlapping. */
struct fin_proc {
	struct fin_map *v;
	size_t n, cap;
	bool maps_read;		/* /proc/PID/maps read once already */
	bool used;		/* since the last sweep */
};

/* A file's table, looked for once. */
struct fin_file {
	__u64 dev, ino;
	int status;		/* 0: t; -EAGAIN: not readable (yet); else no table */
	struct eh_unwind_table *t;
	struct pk_file_seg segs[PK_FILE_MAX_SEGS];
	__u32 nsegs;
};

struct pk_ustack_finisher {
	char *proc_root;
	char *cache_dir;
	char **debug_dirs;		/* NULL: /usr/lib/debug */
	size_t ndebug_dirs;
	struct pk_u64map procs;		/* pid -> struct fin_proc */
	struct fin_file *files;		/* few: the files mapped after load */
	size_t nfiles, files_cap;
	int vdso_fd;			/* -1: not made yet */
	size_t vdso_size;
};

struct pk_ustack_finisher *pk_ustack_finisher_new(const struct pk_ustack_finisher_opts *opts)
{
	struct pk_ustack_finisher *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->vdso_fd = -1;
	f->proc_root = strdup(opts && opts->proc_root ? opts->proc_root : "/proc");
	if (opts && opts->cache_dir)
		f->cache_dir = strdup(opts->cache_dir);
	if (!f->proc_root || (opts && opts->cache_dir && !f->cache_dir)) {
		pk_ustack_finisher_free(f);
		return NULL;
	}
	if (opts && opts->debug_dirs && opts->ndebug_dirs) {
		f->debug_dirs = calloc(opts->ndebug_dirs, sizeof(*f->debug_dirs));
		if (!f->debug_dirs) {
			pk_ustack_finisher_free(f);
			return NULL;
		}
		for (size_t i = 0; i < opts->ndebug_dirs; i++, f->ndebug_dirs++)
			if (!(f->debug_dirs[i] = strdup(opts->debug_dirs[i]))) {
				pk_ustack_finisher_free(f);
				return NULL;
			}
	}
	return f;
}

static void proc_free(struct fin_proc *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p->v);
	free(p);
}

void pk_ustack_finisher_free(struct pk_ustack_finisher *f)
{
	if (!f)
		return;
	pk_u64map_for_each(&f->procs, it)
		proc_free(it.val);
	pk_u64map_free(&f->procs);
	for (size_t i = 0; i < f->nfiles; i++)
		eh_unwind_table_free(f->files[i].t);
	free(f->files);
	if (f->vdso_fd >= 0)
		close(f->vdso_fd);
	for (size_t i = 0; i < f->ndebug_dirs; i++)
		free(f->debug_dirs[i]);
	free(f->debug_dirs);
	free(f->proc_root);
	free(f->cache_dir);
	free(f);
}

static struct fin_proc *get_proc(struct pk_ustack_finisher *f, __u32 pid)
{
	struct fin_proc *p = pk_u64map_get(&f->procs, pid);

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || pk_u64map_put(&f->procs, pid, p)) {
			free(p);
			return NULL;
		}
	}
	p->used = true;
	return p;
}

size_t pk_ustack_finisher_sweep(struct pk_ustack_finisher *f)
{
	char path[PATH_MAX];
	size_t n = 0;

	pk_u64map_for_each(&f->procs, it) {
		struct fin_proc *p = it.val;

		snprintf(path, sizeof(path), "%s/%llu", f->proc_root, (unsigned long long)it.key);
		if (!p->used && access(path, F_OK)) {
			proc_free(pk_u64map_del(&f->procs, it.key));
			n++;
		} else {
			p->used = false;
		}
	}
	pk_u64map_shrink(&f->procs);
	return n;
}

/* M into P in place of what it overlaps. */
static int proc_add(struct fin_proc *p, const struct fin_map *m)
{
	size_t i = 0, j;

	while (i < p->n && p->v[i].end <= m->start)
		i++;
	for (j = i; j < p->n && p->v[j].start < m->end; j++)
		free(p->v[j].path);
	if (j == i && pk_array_reserve((void **)&p->v, &p->cap, sizeof(*p->v), p->n + 1, 16))
		return -ENOMEM;
	/* [i, j) overlapped: M takes slot i, the rest close up */
	if (j == i)
		memmove(&p->v[i + 1], &p->v[i], (p->n - i) * sizeof(*p->v));
	else if (j > i + 1)
		memmove(&p->v[i + 1], &p->v[j], (p->n - j) * sizeof(*p->v));
	p->n = p->n + 1 - (j - i);
	p->v[i] = *m;
	return 0;
}

int pk_ustack_finisher_add_mapping(struct pk_ustack_finisher *f,
				   const struct pk_finish_mapping *m)
{
	struct fin_proc *p = get_proc(f, m->pid);
	struct fin_map fm = {
		.start = m->start, .end = m->end, .pgoff = m->pgoff, .dev = m->dev,
		.ino = m->ino, .vdso = m->vdso,
	};

	if (!p)
		return -ENOMEM;
	if (m->build_id && m->build_id_len && m->build_id_len <= sizeof(fm.build_id)) {
		memcpy(fm.build_id, m->build_id, m->build_id_len);
		fm.build_id_len = m->build_id_len;
	}
	if (m->path && !(fm.path = strdup(m->path)))
		return -ENOMEM;
	if (proc_add(p, &fm)) {
		free(fm.path);
		return -ENOMEM;
	}
	return 0;
}

/* The executable mappings of PID's /proc/PID/maps that no report gave. */
static void read_maps(struct pk_ustack_finisher *f, __u32 pid, struct fin_proc *p)
{
	struct pk_maps maps;

	p->maps_read = true;
	if (pk_maps_read(f->proc_root, pid, true, &maps))
		return;
	for (size_t i = 0; i < maps.n; i++) {
		const struct pk_mapping *m = &maps.v[i];
		struct fin_map fm = {
			.start = m->start, .end = m->end, .pgoff = m->offset,
			.dev = pk_kernel_dev(m->dev_major, m->dev_minor), .ino = m->inode,
			.vdso = !strcmp(m->name, "[vdso]"), .anon = m->kind != PK_MAP_FILE,
		};
		bool known = false;

		for (size_t k = 0; k < p->n && !known; k++)
			known = p->v[k].start < m->end && m->start < p->v[k].end;
		if (known)
			continue;
		if (m->kind == PK_MAP_FILE && !(fm.path = strdup(m->name)))
			break;
		if (proc_add(p, &fm)) {
			free(fm.path);
			break;
		}
	}
	pk_maps_free(&maps);
}

static const struct fin_map *find_map(struct pk_ustack_finisher *f, __u32 pid, __u64 addr)
{
	struct fin_proc *p = get_proc(f, pid);

	if (!p)
		return NULL;
	for (int pass = 0; pass < 2; pass++) {
		size_t lo = 0, hi = p->n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (p->v[mid].end <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < p->n && p->v[lo].start <= addr)
			return &p->v[lo];
		if (pass || p->maps_read)
			break;
		read_maps(f, pid, p);
	}
	return NULL;
}

/* Where to read M's file now: through map_files while PID lives, else at
 * its reported path if that still holds the inode. */
static int file_path(struct pk_ustack_finisher *f, __u32 pid, const struct fin_map *m,
		     char *buf, size_t len)
{
	char err[PK_ERR_LEN], key[2 * PK_MAPPING_BUILD_ID_MAX + 8], want[sizeof(key)];
	dev_t dev = pk_user_dev(m->dev);

	if (m->vdso)
		return pk_vdso_path(&f->vdso_fd, &f->vdso_size, buf, len, err) ? -ENOENT : 0;
	if (!pk_map_files_path(buf, len, f->proc_root, pid, m->start, m->end) &&
	    pk_path_is_inode(buf, dev, m->ino))
		return 0;
	if (m->path && pk_path_is_inode(m->path, dev, m->ino)) {
		snprintf(buf, len, "%s", m->path);
		return 0;
	}
	/* gone: a copy with its build-id, checked (the cache keys a table by
	 * the build-id of the file read) */
	if (!m->build_id_len || eh_hex(m->build_id, m->build_id_len, want, sizeof(want)))
		return -EAGAIN;
	for (size_t i = 0; i < (f->debug_dirs ? f->ndebug_dirs : 1); i++)
		for (int name = 0; name < PK_BUILD_ID_NAMES; name++)
			if (!pk_build_id_debug_path(f->debug_dirs ? f->debug_dirs[i] :
						    "/usr/lib/debug", m->build_id, m->build_id_len,
						    name, buf, len) &&
			    !eh_cache_key(buf, key, sizeof(key), err) && !strcmp(key, want))
				return 0;
	return -EAGAIN;
}

/* M's file and its table, read the first time a walk needs it. */
static struct fin_file *get_file(struct pk_ustack_finisher *f, __u32 pid, const struct fin_map *m)
{
	struct eh_cache_opts copts = { .sz = sizeof(copts), .cache_dir = f->cache_dir };
	__u64 dev = m->vdso ? PK_VDSO_DEV : m->dev, ino = m->vdso ? PK_VDSO_INO : m->ino;
	char path[PATH_MAX], held[32], err[PK_ERR_LEN];
	struct fin_file *ff = NULL;
	int fd, ret;

	for (size_t i = 0; i < f->nfiles; i++)
		if (f->files[i].dev == dev && f->files[i].ino == ino)
			ff = &f->files[i];
	if (ff && ff->status != -EAGAIN)
		return ff;
	if (!ff) {
		if (pk_array_reserve((void **)&f->files, &f->files_cap, sizeof(*f->files),
				     f->nfiles + 1, 16))
			return NULL;
		ff = &f->files[f->nfiles++];
		*ff = (struct fin_file){ .dev = dev, .ino = ino, .status = -EAGAIN };
	}
	if (file_path(f, pid, m, path, sizeof(path)))
		return ff;	/* not now: maybe from another process that maps it */
	/* read twice: through a path that stays when the process exits
	 * between the reads (the map_files link gone), which would cost the
	 * file its table for good */
	fd = pk_path_hold(path, held, sizeof(held));
	if (fd < 0)
		return ff;	/* gone since: as above */
	ret = eh_cache_get(held, &copts, &ff->t, NULL, 0, err);
	if (ret >= 0)
		ret = pk_exec_segs(held, ff->segs, &ff->nsegs, err);
	close(fd);
	if (ret >= 0 && m->vdso) {
		/* mapped whole: the file offset is pc - vm_start */
		ff->segs[0] = (struct pk_file_seg){ .off = 0, .end = f->vdso_size,
						    .bias = ff->segs[0].bias };
		ff->nsegs = 1;
	}
	ff->status = ret < 0 ? ret : 0;
	if (ret < 0) {
		eh_unwind_table_free(ff->t);
		ff->t = NULL;
	}
	return ff;
}

/* The rule of ELF vaddr VADDR in T; NULL outside its range (an END). */
static const struct pk_unwind_rule *table_rule(const struct eh_unwind_table *t, __u64 vaddr)
{
	const struct pk_unwind_header *h = eh_unwind_table_header(t);
	const char *base = (const char *)h;
	const __u32 *pcs = (const __u32 *)(base + h->pcs_off);
	const __u16 *ids = (const __u16 *)(base + h->rule_ids_off);
	const struct pk_unwind_rule *rules = (const struct pk_unwind_rule *)(base + h->rules_off);
	__u32 rel, lo = 0, hi = h->nrows;

	if (vaddr < h->pc_base || vaddr >= h->pc_end || !h->nrows)
		return NULL;
	rel = vaddr - h->pc_base;
	/* the last row whose PC is <= rel; pcs[0] == 0 */
	while (hi - lo > 1) {
		__u32 mid = lo + (hi - lo) / 2;

		if (pcs[mid] <= rel)
			lo = mid;
		else
			hi = mid;
	}
	return ids[lo] < h->nrules ? &rules[ids[lo]] : NULL;
}

/* The words of the copied stack. */
struct copy_mem {
	__u64 base;
	const unsigned char *bytes;
	__u32 len;
	__u32 holes;		/* pk_ustack_copy.holes */
};

/* Whether the byte at ADDR (in the copy) was read: its page, counted from
 * the copy's first, is no hole. */
static bool copy_has(const struct copy_mem *c, __u64 addr)
{
	__u64 page = (addr / PK_COPY_PAGE) - (c->base / PK_COPY_PAGE);

	return page >= 32 || !(c->holes & (1u << page));
}

static int copy_read(void *arg, __u64 *dst, __u64 addr)
{
	const struct copy_mem *c = arg;

	if (addr < c->base || addr - c->base > c->len || c->len - (addr - c->base) < sizeof(*dst) ||
	    !copy_has(c, addr) || !copy_has(c, addr + sizeof(*dst) - 1))
		return 0;
	memcpy(dst, c->bytes + (addr - c->base), sizeof(*dst));
	return 1;
}

/* A frame-pointer step where the walk would otherwise end STOP, as the
 * BPF walk takes it (uw_fp_step): 0 or how the walk ends. START_STACK: the
 * process's initial SP (pk_walk_entry_frame). */
static int fp_step(struct pk_unwind_regs *regs, struct pk_unwind_mem *mem, int stop,
		   __u64 start_stack, int *fp_stop)
{
	int end;

	if (pk_walk_entry_frame(regs->sp, start_stack))
		return PK_END_COMPLETE;
	end = pk_walk_fp_end(pk_unwind_fp_step(regs, mem), stop);
	if (!end)
		*fp_stop = stop;
	return end;
}

/*
 * One frame, as the BPF walk steps it (bpf/cfi_walk.bpf.h uw_step): 0 with
 * REGS the caller's, *FP_STOP nonzero when a frame-pointer step found it;
 * how the walk ends (enum pk_ustack_end); or -1 when the PC's file has no
 * table yet. *DROP: the frame is no frame (a frame-pointer step led out of
 * every mapping) and the walk ends before it.
 */
static int frame_step(struct pk_ustack_finisher *f, __u32 pid, __u64 start_stack,
		      struct pk_unwind_regs *regs, struct pk_unwind_mem *mem, int *fp_stop,
		      bool *drop)
{
	__u64 lookup = regs->exact_pc ? regs->pc : regs->pc - 1, off, vaddr;
	const struct pk_unwind_rule *rule;
	const struct fin_map *m = find_map(f, pid, lookup);
	int prev_stop = *fp_stop, end;
	struct fin_file *ff;

	*fp_stop = 0;
	*drop = false;
	if (!m) {
		*drop = prev_stop != 0;
		return prev_stop ? prev_stop : PK_END_READ_FAULT;
	}
	if (m->anon)
		return fp_step(regs, mem, PK_END_FP_FALLBACK, start_stack, fp_stop);
	ff = get_file(f, pid, m);
	if (!ff || ff->status == -EAGAIN)
		return -1;
	if (ff->status)		/* refused (no CFI, not an ELF): as the kernel does */
		return fp_step(regs, mem, PK_END_FP_FALLBACK, start_stack, fp_stop);
	off = lookup - m->start + (m->vdso ? 0 : m->pgoff);
	for (__u32 i = 0; i < ff->nsegs; i++) {
		if (off < ff->segs[i].off || off >= ff->segs[i].end)
			continue;
		vaddr = off + ff->segs[i].bias;
		rule = table_rule(ff->t, vaddr);
		end = rule ? pk_walk_rule_end(pk_unwind_rule_step(regs, rule, mem)) : PK_END_NO_CFI;
		if (end == PK_END_NO_CFI)
			return fp_step(regs, mem, PK_END_NO_CFI, start_stack, fp_stop);
		return end;
	}
	/* in the file but in no executable segment */
	return fp_step(regs, mem, PK_END_FP_FALLBACK, start_stack, fp_stop);
}

int pk_ustack_finisher_walk(struct pk_ustack_finisher *f, const struct pk_record_sample *s,
			    __u64 *out, size_t max, struct pk_finish_result *res)
{
	const struct pk_ustack_copy *c = &s->copy;
	struct copy_mem cm = { .base = c->start, .bytes = s->stack, .len = c->len,
			       .holes = c->holes };
	struct pk_unwind_mem mem = { .read = copy_read, .arg = &cm };
	struct pk_unwind_regs regs = {
		.pc = c->regs[PK_DWARF_RIP], .sp = c->regs[PK_DWARF_RSP],
		.valid = c->regs_valid & PK_UNWIND_ALL_REGS,
		.exact_pc = !!(c->flags & PK_COPY_EXACT_PC),
	};
	int fp_stop = 0, end;
	bool drop;

	memcpy(regs.regs, c->regs, sizeof(regs.regs));
	*res = (struct pk_finish_result){ .end = PK_END_NO_TABLE };
	for (;;) {
		end = frame_step(f, s->pid, c->start_stack, &regs, &mem, &fp_stop, &drop);
		if (end < 0)
			return 0;	/* PK_END_NO_TABLE: kept as the kernel sent it */
		if (drop && res->n) {
			res->n--;
			res->fp_frames--;
		}
		if (end) {
			res->end = end;
			return 0;
		}
		if (!regs.pc) {		/* a zeroed return address ends the stack */
			res->end = PK_END_COMPLETE;
			return 0;
		}
		if (res->n >= max) {
			res->end = PK_END_DEPTH;
			return 0;
		}
		out[res->n++] = regs.pc;
		res->fp_frames += fp_stop != 0;
	}
}
