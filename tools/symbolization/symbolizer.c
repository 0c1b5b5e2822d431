// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The symbolizer: the processes it knows, with their maps as /proc and
 * the kernel's reports give them, the numbering of the locations it hands
 * out, the forgetting of processes gone, its lifetime. Native user frames
 * are named in symbolizer_user.c, the runtimes' and the kernel's in
 * symbolizer_python.c, _hotspot.c, _v8.c and _kernel.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "lib/proc_maps.h"
#include "lib/util/array.h"
#include "lib/util/clock.h"
#include "lib/util/strpool.h"
#include "lib/util/u64map.h"
#include "symbolization/kernel_syms.h"
#include "symbolization/perf_map.h"
#include "symbolization/proc_roots.h"
#include "symbolization/symbolizer.h"
#include "symbolization/symbolizer_internal.h"
#include "symbolization/symfile.h"

/* --- locations ------------------------------------------------------------- */

struct pk_map *pk_symbolizer_map_new(struct pk_symbolizer *sym, struct pk_strpool *pool,
				     __u64 start, __u64 end, __u64 pgoff,
				     const struct pk_module *module)
{
	struct pk_sym_map_rec *rec = pk_strpool_zalloc(pool, sizeof(*rec));
	struct pk_map *m = rec ? &rec->pub : NULL;

	if (!m)
		return NULL;
	rec->round = sym->round - 1;	/* its id comes with its first location's */
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->module = module;
	return m;
}

struct pk_loc *pk_symbolizer_loc_new(struct pk_symbolizer *sym, struct pk_strpool *pool,
				     __u64 addr, bool kernel, size_t nframes)
{
	struct pk_sym_loc_rec *rec = pk_strpool_zalloc(pool, sizeof(*rec));
	struct pk_frame *frames = pk_strpool_zalloc(pool, nframes * sizeof(*frames));
	struct pk_loc *loc = rec ? &rec->pub : NULL;

	if (!loc || !frames)
		return NULL;
	rec->round = sym->round - 1;	/* its id comes when it is handed out */
	loc->kernel = kernel;
	loc->addr = addr;
	loc->sym_off = PK_LOC_NO_SYM;
	loc->nframes = nframes;
	loc->frames = frames;
	return loc;
}

struct pk_loc *pk_symbolizer_named_loc(struct pk_symbolizer *sym, struct pk_strpool *pool,
				       __u64 addr, bool kernel, const char *name)
{
	struct pk_loc *loc = name ? pk_symbolizer_loc_new(sym, pool, addr, kernel, 1) : NULL;

	if (loc)
		((struct pk_frame *)loc->frames)[0].name = name;
	return loc;
}

/* --- processes ------------------------------------------------------------- */

static void free_proc(struct pk_sym_proc *p)
{
	pk_maps_free(&p->maps);
	free(p->files);
	free(p->pmaps);
	free(p->kmaps);
	pk_perf_map_free(p->jit);
	pk_u64map_free(&p->locs);
	pk_u64map_free(&p->py_instrs);
	pk_u64map_free(&p->py_lines);
	pk_u64map_free(&p->py_unknown);
	pk_u64map_free(&p->hs_methods);
	pk_u64map_free(&p->v8_sfis);
	pk_u64map_free(&p->hs_lines);
	pk_u64map_free(&p->hs_nmethods);
	pk_u64map_free(&p->hs_compiled);
	pk_u64map_free(&p->used);
	pk_strpool_free(&p->pool);
	free(p);
}

static void forget_locs(struct pk_sym_proc *p)
{
	pk_u64map_free(&p->locs);
	memset(&p->locs, 0, sizeof(p->locs));
}

int pk_symbolizer_read_maps(struct pk_symbolizer *sym, struct pk_sym_proc *p)
{
	struct pk_symfile **files;
	struct pk_map **pmaps;
	struct pk_maps maps;
	int err;

	p->last_read_ns = pk_now_ns();
	p->read_once = true;
	sym->stats.maps_reads++;
	err = pk_maps_read(sym->proc_root, p->pid, true, &maps);
	if (err) {
		/* Keep what was read before: samples of the process may still
		 * be in the buffer. */
		if (err == -ENOENT || err == -ESRCH)
			p->gone = true;
		return err;
	}
	files = calloc(maps.n ? maps.n : 1, sizeof(*files));
	pmaps = calloc(maps.n ? maps.n : 1, sizeof(*pmaps));
	if (!files || !pmaps) {
		free(files);
		free(pmaps);
		pk_maps_free(&maps);
		return -ENOMEM;
	}
	pk_maps_free(&p->maps);
	free(p->files);
	free(p->pmaps);
	p->maps = maps;
	p->files = files;
	p->pmaps = pmaps;
	/* A zombie's maps are empty: it is gone just the same. */
	if (maps.n == 0)
		p->gone = true;
	return 0;
}

struct pk_sym_proc *pk_symbolizer_proc_get(struct pk_symbolizer *sym, __u32 pid)
{
	struct pk_sym_proc *p = pk_u64map_get(&sym->procs, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (pk_u64map_put(&sym->procs, pid, p)) {
		free(p);
		return NULL;
	}
	return p;
}

int pk_symbolizer_add_pid(struct pk_symbolizer *sym, __u32 pid)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, pid);

	if (!p)
		return -ENOMEM;
	if (p->read_once)
		return p->maps.n ? 0 : -ENOENT;
	return pk_symbolizer_read_maps(sym, p);
}

int pk_symbolizer_maps_changed(struct pk_symbolizer *sym, __u32 pid)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, pid);

	if (!p)
		return -ENOMEM;
	forget_locs(p);
	return pk_symbolizer_read_maps(sym, p);
}

struct pk_sym_kmap *pk_symbolizer_kmap_find(struct pk_sym_proc *p, __u64 addr)
{
	size_t lo = 0, hi = p->nk;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->kmaps[mid].start)
			hi = mid;
		else if (addr >= p->kmaps[mid].end)
			lo = mid + 1;
		else
			return &p->kmaps[mid];
	}
	return NULL;
}

int pk_symbolizer_add_mapping(struct pk_symbolizer *sym, const struct pk_kernel_mapping *m)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, m->pid);
	struct pk_sym_kmap km = {
		.start = m->start, .end = m->end, .pgoff = m->pgoff, .vdso = m->vdso,
		.dev = m->vdso ? 0 : m->dev, .ino = m->vdso ? 0 : m->ino,
	};
	size_t lo = 0, hi, at;
	bool changed = false;

	if (!p || m->start >= m->end)
		return p ? 0 : -ENOMEM;
	sym->stats.kernel_mappings++;
	if (m->path && m->path[0] && !m->vdso && !(km.path = pk_strpool_add(&p->pool, m->path)))
		return -ENOMEM;
	if (m->build_id && m->build_id_len && m->build_id_len <= PK_BUILD_ID_MAX) {
		memcpy(km.build_id, m->build_id, m->build_id_len);
		km.build_id_len = m->build_id_len;
	}
	/* The mappings it overlaps, [lo, hi), give way: the kernel saw this
	 * one last. The same mapping again changes nothing. */
	while (lo < p->nk && p->kmaps[lo].end <= m->start)
		lo++;
	for (hi = lo; hi < p->nk && p->kmaps[hi].start < m->end; hi++) {
		const struct pk_sym_kmap *o = &p->kmaps[hi];

		if (o->start == km.start && o->end == km.end && o->pgoff == km.pgoff &&
		    o->dev == km.dev && o->ino == km.ino && o->vdso == km.vdso) {
			/* reported again with the build-id it lacked */
			if (!o->build_id_len && km.build_id_len) {
				memcpy(p->kmaps[hi].build_id, km.build_id, km.build_id_len);
				p->kmaps[hi].build_id_len = km.build_id_len;
			}
			return 0;
		}
		if (o->dev != km.dev || o->ino != km.ino || o->vdso != km.vdso ||
		    o->start - o->pgoff != km.start - km.pgoff)
			changed = true;
	}
	if (hi == lo &&
	    pk_array_reserve((void **)&p->kmaps, &p->capk, sizeof(*p->kmaps), p->nk + 1, 16))
		return -ENOMEM;
	/* Keep one slot at lo for the new mapping. */
	at = lo;
	if (hi > lo) {
		memmove(&p->kmaps[lo + 1], &p->kmaps[hi], (p->nk - hi) * sizeof(*p->kmaps));
		p->nk -= hi - lo - 1;
	} else {
		memmove(&p->kmaps[lo + 1], &p->kmaps[lo], (p->nk - lo) * sizeof(*p->kmaps));
		p->nk++;
	}
	p->kmaps[at] = km;
	if (changed)
		forget_locs(p);
	return changed;
}

/* --- numbering and forgetting -------------------------------------------- */

const struct pk_loc *pk_symbolizer_number(struct pk_symbolizer *sym, const struct pk_loc *loc)
{
	struct pk_sym_loc_rec *rec = (struct pk_sym_loc_rec *)loc;	/* every pk_loc is one */

	/* a location numbered in this round had its mapping numbered with it */
	if (rec->round == sym->round)
		return loc;
	rec->round = sym->round;
	rec->pub.id = sym->nlocs++;
	if (loc->map) {
		struct pk_sym_map_rec *m = (struct pk_sym_map_rec *)loc->map;

		if (m->round != sym->round) {
			m->round = sym->round;
			m->pub.id = sym->nmaps++;
		}
	}
	return loc;
}

void pk_symbolizer_renumber(struct pk_symbolizer *sym)
{
	sym->round++;
	sym->nlocs = 0;
	sym->nmaps = 0;
}

/* Whether PID's process still exists: a gone process's mappings will name
 * no new sample. */
static bool proc_exists(const struct pk_symbolizer *sym, __u32 pid)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%u", sym->proc_root, pid);
	return access(path, F_OK) == 0;
}

size_t pk_symbolizer_forget_gone(struct pk_symbolizer *sym,
				 bool (*in_use)(void *ctx, __u32 pid), void *ctx)
{
	size_t forgotten = 0;

	/* decided once per process */
	pk_u64map_for_each(&sym->procs, it) {
		struct pk_sym_proc *p = it.val;

		if (in_use(ctx, p->pid) || proc_exists(sym, p->pid))
			continue;
		pk_u64map_del(&sym->procs, it.key);
		pk_py_codes_forget_pid(sym->py, p->pid);
		free_proc(p);
		forgotten++;
	}
	pk_u64map_shrink(&sym->procs);	/* out of memory: as large as it was */
	sym->stats.procs_forgotten += forgotten;
	/* the files are let go of with the last process that named them */
	pk_u64map_for_each(&sym->procs, it) {
		struct pk_sym_proc *p = it.val;

		pk_u64map_for_each(&p->used, used)
			pk_symfiles_hold(sym->files, used.val);
	}
	if (sym->vdso)
		pk_symfiles_hold(sym->files, sym->vdso);
	sym->stats.files_freed += pk_symfiles_sweep(sym->files);
	return forgotten;
}

/* --- lifetime -------------------------------------------------------------- */

struct pk_symbolizer *pk_symbolizer_new(const struct pk_symbolizer_opts *opts)
{
	struct pk_symbolizer *sym = calloc(1, sizeof(*sym));
	const char *root = opts && opts->proc_root ? opts->proc_root : "/proc";

	if (!sym)
		return NULL;
	sym->vdso_fd = -1;
	sym->no_dwarf = opts && opts->no_dwarf;
	sym->roots_fd = opts ? opts->roots_fd : -1;
	snprintf(sym->proc_root, sizeof(sym->proc_root), "%s", root);
	sym->files = pk_symfiles_new();
	sym->py = pk_py_codes_new();
	sym->roots = pk_proc_roots_new(root, opts ? opts->debug_dirs : NULL,
				       opts ? opts->ndebug_dirs : 0);
	if (!sym->files || !sym->py || !sym->roots)
		goto fail;
	if (opts && opts->debug_dirs &&
	    pk_symfiles_set_debug_dirs(sym->files, opts->debug_dirs, opts->ndebug_dirs))
		goto fail;
	sym->ksyms = pk_kernel_syms_new(opts ? opts->kernel_root : NULL,
					opts ? opts->cache_dir : NULL);
	if (!sym->ksyms ||
	    (opts && opts->cache_dir && pk_symfiles_set_cache_dir(sym->files, opts->cache_dir)))
		goto fail;
	return sym;
fail:
	pk_symbolizer_free(sym);
	errno = ENOMEM;
	return NULL;
}

void pk_symbolizer_free(struct pk_symbolizer *sym)
{
	if (!sym)
		return;
	pk_u64map_for_each(&sym->procs, it)
		free_proc(it.val);
	pk_u64map_free(&sym->procs);
	pk_u64map_free(&sym->klocs);
	pk_u64map_free(&sym->kmaps);
	pk_kernel_syms_free(sym->ksyms);
	pk_symfiles_free(sym->files);
	pk_py_codes_free(sym->py);
	pk_proc_roots_free(sym->roots);
	pk_strpool_free(&sym->pool);
	if (sym->vdso_fd >= 0)
		close(sym->vdso_fd);
	free(sym);
}

void pk_symbolizer_counts(const struct pk_symbolizer *sym, size_t *nlocs, size_t *nmaps,
			  size_t *nmodules)
{
	struct pk_symfiles_stats st;

	pk_symfiles_stats(sym->files, &st);
	*nlocs = sym->nlocs;
	*nmaps = sym->nmaps;
	*nmodules = st.files;
}

void pk_symbolizer_stats(const struct pk_symbolizer *sym, struct pk_symbolizer_stats *st)
{
	struct pk_symfiles_stats fs;

	pk_symfiles_stats(sym->files, &fs);
	*st = sym->stats;
	st->cached += fs.cached;
	st->py_codes = pk_py_codes_count(sym->py);
	st->go_refused = fs.go_refused;
	memcpy(st->go_err, fs.go_err, sizeof(st->go_err));
}
