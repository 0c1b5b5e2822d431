// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The location of an address of a native user frame: the file of the
 * mapping that holds it (a mapping the kernel reported, else one of
 * /proc/PID/maps, read through the process's root), its function and the
 * functions inlined there; in anonymous memory, JIT code the process's
 * perf map names.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "lib/overlay.h"
#include "lib/proc_maps.h"
#include "lib/root_records.h"
#include "lib/util/clock.h"
#include "lib/util/strpool.h"
#include "lib/util/text.h"
#include "lib/util/u64map.h"
#include "lib/vdso_image.h"
#include "symbolization/perf_map.h"
#include "symbolization/proc_roots.h"
#include "symbolization/symbolizer.h"
#include "symbolization/symbolizer_internal.h"
#include "symbolization/symfile.h"

/* An address outside every known mapping triggers a new read of the maps,
 * but no more often than this per process: frame-pointer stacks through
 * code built without frame pointers end in garbage addresses. */
#define MAPS_REREAD_NS (100 * 1000000ULL)

/* Inline levels kept per address: deeper chains keep their innermost. */
#define MAX_INLINE 32

static const char VDSO[] = "[vdso]";

/* What an unnamed address's file is called: its base name, a pseudo-file
 * ("[vdso]") without its brackets, so that it reads [vdso+0x79d]. */
static const char *file_label(const char *path, int *len)
{
	const char *base = pk_base_name(path);
	size_t n = strlen(base);

	if (n > 2 && base[0] == '[' && base[n - 1] == ']') {
		*len = (int)n - 2;
		return base + 1;
	}
	*len = (int)n;
	return base;
}

/* --- locations ------------------------------------------------------------- */

/*
 * The location of ADDR (looked up at LOOKUP) in file FILE mapped by MAP:
 * the function holding it and, where DWARF says so, the functions inlined
 * into it there with their source lines.
 */
static struct pk_loc *file_loc(struct pk_symbolizer *sym, struct pk_strpool *pool,
			       struct pk_symfile *file, const struct pk_map *map, __u64 addr,
			       __u64 lookup, bool check_size)
{
	struct pk_srcline_frame inl[MAX_INLINE];
	const char *name = NULL;
	__u64 off = lookup - map->start + map->pgoff, vaddr = ~0ULL, start = 0;
	struct pk_frame *frames;
	struct pk_loc *loc;
	int n = 0;

	if (pk_symfile_loaded(file) &&
	    (!check_size || map->end - map->start == pk_symfile_image_size(file)))
		vaddr = pk_symfile_vaddr(file, off);
	if (vaddr != ~0ULL) {
		n = pk_symfile_locate(file, vaddr, !sym->no_dwarf, &name, &start, inl,
				      MAX_INLINE);
		if (n < 0)
			return NULL;
	}
	/* Unnamed: the ELF address when the file could be read, else the
	 * file offset. */
	if (!name) {
		int len;
		const char *label = file_label(map->module->path, &len);

		name = pk_strpool_printf(pool, "[%.*s+0x%llx]", len, label,
					 (unsigned long long)(vaddr != ~0ULL ? vaddr : off));
	}
	/* DWARF's last frame is the function itself: its name comes from the
	 * symbol table (the linkage name, as perf shows it, less the clone
	 * suffix: the name its inlined copies have), its line from DWARF.
	 * Without a symbol, DWARF's name is better than none. */
	loc = name ? pk_symbolizer_loc_new(sym, pool, addr, false, n ? n : 1) : NULL;
	if (!loc)
		return NULL;
	frames = (struct pk_frame *)loc->frames;
	for (int i = 0; i < n; i++)
		frames[i] = (struct pk_frame){ inl[i].name ? inl[i].name : PK_SYM_UNKNOWN,
					       inl[i].file, inl[i].line };
	if (!n || start || !inl[n - 1].name)
		frames[loc->nframes - 1].name = name;
	loc->map = map;
	loc->module_addr = vaddr != ~0ULL ? vaddr : off;
	if (start)
		loc->sym_off = vaddr + (addr - lookup) - start;
	return loc;
}

/* --- files ----------------------------------------------------------------- */

/* Our own vDSO is the one every 64-bit process on this kernel maps; it is
 * only in memory, so libdwfl reads a copy in a memfd. */
static struct pk_symfile *vdso_file(struct pk_symbolizer *sym)
{
	char err[PK_ERR_LEN], path[64];
	struct pk_symfile_source src[2] = { { path, false }, { NULL } };
	size_t size;

	if (sym->vdso)
		return sym->vdso;
	sym->vdso_fd = pk_vdso_memfd(&size, err);
	if (sym->vdso_fd >= 0)
		snprintf(path, sizeof(path), "/proc/self/fd/%d", sym->vdso_fd);
	else
		src[0].path = NULL;
	/* dev 0, ino 0: no file has that inode */
	sym->vdso = pk_symfiles_add(sym->files, 0, 0, VDSO, src, NULL, 0);
	if (sym->vdso && pk_symfile_loaded(sym->vdso))
		sym->stats.modules++;
	return sym->vdso;
}

/* The debug directories of every root seen so far looked in, after a
 * root was added. */
static void use_roots_debug_dirs(struct pk_symbolizer *sym)
{
	const char *const *dirs;
	size_t n;

	dirs = pk_proc_roots_dirs(sym->roots, &n);
	pk_symfiles_set_debug_dirs(sym->files, dirs, n);
}

/* P's root, once, before its first address is resolved: another root's
 * debug files are looked for by build-id too. While P lives, its root is
 * kept in the session for a reader after it exits; once it is gone, the
 * root kept while it lived (lib/root_records.h) is the one looked in. Out
 * of memory, its debug files are not: names are missing, nothing else. */
static void see_root(struct pk_symbolizer *sym, struct pk_sym_proc *p)
{
	struct pk_root_record rec;
	bool added = false;

	if (p->root_seen)
		return;
	p->root_seen = true;
	if (!p->gone) {
		added = pk_proc_roots_see(sym->roots, p->pid) > 0;
		if (sym->roots_fd > 0)
			pk_root_records_put(sym->roots_fd, sym->proc_root, p->pid);
	}
	if (sym->roots_fd > 0 && !pk_root_records_get(sym->roots_fd, p->pid, &rec)) {
		p->root = pk_strpool_add(&p->pool, rec.path);
		p->nstgid = rec.nstgid;
		p->euid = rec.euid;
		added = pk_proc_roots_see_dir(sym->roots, rec.path) > 0 || added;
	}
	if (added)
		use_roots_debug_dirs(sym);
}

/* The file of a /proc mapping M of P: at its path when that is still the
 * same file, else through the process's root (another mount namespace),
 * else through map_files (deleted or replaced). */
static struct pk_symfile *maps_file(struct pk_symbolizer *sym, struct pk_sym_proc *p,
				    const struct pk_mapping *m)
{
	__u64 dev = makedev(m->dev_major, m->dev_minor);
	struct pk_symfile *f = pk_symfiles_get(sym->files, dev, m->inode);
	char rooted[4096 + 300], mapfile[300];
	struct pk_symfile_source src[5];
	int n = 0;

	if (f)
		return f;
	if (!m->deleted)
		src[n++] = (struct pk_symfile_source){ m->name, true };
	if (!p->gone) {
		snprintf(rooted, sizeof(rooted), "%s/%u/root%s", sym->proc_root, p->pid, m->name);
		pk_map_files_path(mapfile, sizeof(mapfile), sym->proc_root, p->pid, m->start,
				  m->end);
		if (!m->deleted)
			src[n++] = (struct pk_symfile_source){ rooted, false };
		src[n++] = (struct pk_symfile_source){ mapfile, false };
	}
	/* A file at the path, even if it is not (provably) the mapped one:
	 * better than no names for a process that is gone. */
	if (!m->deleted)
		src[n++] = (struct pk_symfile_source){ m->name, false };
	src[n] = (struct pk_symfile_source){ NULL };
	f = pk_symfiles_add(sym->files, dev, m->inode, m->name, src, NULL, 0);
	if (f && pk_symfile_loaded(f))
		sym->stats.modules++;
	return f;
}

/* P, with no root kept, had the root of another process of the session
 * where KM's path is KM's file (lib/root_records.h): its root from now
 * on, and that root's debug files looked in. */
static void holding_root(struct pk_symbolizer *sym, struct pk_sym_proc *p,
			 const struct pk_sym_kmap *km)
{
	struct pk_root_record rec;

	if (pk_root_records_holding(sym->roots_fd, km->path, km->dev, km->ino, &rec))
		return;
	/* its pid and uid were not kept (nstgid 0): the other's are not its */
	p->root = pk_strpool_add(&p->pool, rec.path);
	if (pk_proc_roots_see_dir(sym->roots, rec.path) > 0)
		use_roots_debug_dirs(sym);
}

/* The file of a mapping the kernel reported: through map_files while the
 * process lives, else at the path the kernel gave when that is still the
 * same inode (in the process's root, then ours), else by build-id. */
static struct pk_symfile *kmap_file(struct pk_symbolizer *sym, struct pk_sym_proc *p,
				    const struct pk_sym_kmap *km)
{
	struct pk_symfile *f = pk_symfiles_get(sym->files, km->dev, km->ino);
	char rooted[PK_MAPPING_PATH_MAX + 300], mapfile[300];
	char kept[PK_ROOT_PATH_MAX + PK_MAPPING_PATH_MAX];
	struct pk_symfile_source src[5];
	int n = 0;

	if (f)
		return f;
	pk_map_files_path(mapfile, sizeof(mapfile), sym->proc_root, p->pid, km->start, km->end);
	src[n++] = (struct pk_symfile_source){ mapfile, true };
	if (km->path) {
		snprintf(rooted, sizeof(rooted), "%s/%u/root%s", sym->proc_root, p->pid, km->path);
		src[n++] = (struct pk_symfile_source){ rooted, true };
		/* gone: in the root kept while it lived, a path of its own
		 * mount namespace being one of that root's; gone before its
		 * root was kept (p->gone is not known yet: the kernel's maps
		 * need no read of /proc), in another's that holds this very
		 * file */
		if (!p->root && sym->roots_fd > 0 &&
		    !pk_path_is_inode(km->path, km->dev, km->ino))
			holding_root(sym, p, km);
		if (p->root) {
			snprintf(kept, sizeof(kept), "%s%s", p->root, km->path);
			src[n++] = (struct pk_symfile_source){ kept, true };
		}
		src[n++] = (struct pk_symfile_source){ km->path, true };
	}
	src[n] = (struct pk_symfile_source){ NULL };
	f = pk_symfiles_add(sym->files, km->dev, km->ino, km->path ? km->path : PK_SYM_UNKNOWN, src,
			    km->build_id_len ? km->build_id : NULL, km->build_id_len);
	if (f && pk_symfile_loaded(f))
		sym->stats.modules++;
	return f;
}

/* --- native frames --------------------------------------------------------- */

/* F, named by P's locations from now on; NULL when F is, or no memory. */
static struct pk_symfile *proc_uses(struct pk_sym_proc *p, struct pk_symfile *f)
{
	if (f && pk_u64map_put(&p->used, (uintptr_t)f, f))
		return NULL;
	return f;
}

static struct pk_loc *resolve_kmap(struct pk_symbolizer *sym, struct pk_sym_proc *p,
				   struct pk_sym_kmap *km, __u64 addr, __u64 lookup)
{
	if (!km->file) {
		km->file = proc_uses(p, km->vdso ? vdso_file(sym) : kmap_file(sym, p, km));
		if (!km->file)
			return NULL;
	}
	if (!km->map) {
		km->map = pk_symbolizer_map_new(sym, &p->pool, km->start, km->end, km->pgoff,
				  pk_symfile_module(km->file));
		if (!km->map)
			return NULL;
	}
	return file_loc(sym, &p->pool, km->file, km->map, addr, lookup, km->vdso);
}

/*
 * JIT code, named by the map the JIT writes for perf (/tmp/perf-PID.map, in
 * the process's own root): read on the first address in anonymous memory,
 * then again (what was appended) when an address is not in it, no more
 * often than the maps. Once the process is gone, read once more where
 * perf reads it after an exit: in the root the session kept for it, under
 * its pid there and owned by its user; with none kept, in ours, under its
 * pid and owned by us or root (perf's rule for such files). NULL when it
 * names nothing there.
 */
static const char *jit_name(struct pk_sym_proc *p, __u64 addr, __u64 *start, bool *final)
{
	__u64 now = pk_now_ns();
	const char *name;
	bool gone = p->gone;

	*final = p->gone;
	if (!p->jit && !p->gone && (!p->jit_read_ns || now - p->jit_read_ns >= MAPS_REREAD_NS)) {
		p->jit_read_ns = now;
		p->jit = pk_perf_map_load_pid(p->pid);
		gone = !p->jit && errno == ESRCH;
	}
	if (!p->jit && gone && !p->jit_kept_tried) {
		p->jit_kept_tried = true;
		p->jit = p->root && p->nstgid ?
				 pk_perf_map_load_in(p->root, (pid_t)p->nstgid, p->euid) :
				 pk_perf_map_load_in("/", (pid_t)p->pid, geteuid());
		*final = true;
	}
	if (!p->jit)
		return NULL;
	name = pk_perf_map_lookup(p->jit, addr, start);
	if (!name && !p->gone && now - p->jit_read_ns >= MAPS_REREAD_NS) {
		p->jit_read_ns = now;
		if (pk_perf_map_refresh(p->jit) > 0)
			name = pk_perf_map_lookup(p->jit, addr, start);
	}
	if (name)
		*final = true;
	return name;
}

/* An address in anonymous memory or in no mapping: JIT code if the JIT
 * says so, else FALLBACK. */
static struct pk_loc *anon_loc(struct pk_symbolizer *sym, struct pk_sym_proc *p, __u64 addr,
			       __u64 lookup, const char *fallback, bool *final)
{
	__u64 start;
	const char *name = jit_name(p, lookup, &start, final);
	struct pk_loc *loc = pk_symbolizer_named_loc(sym, &p->pool, addr, false, name ? name : fallback);

	if (loc && name)
		loc->sym_off = addr - start;
	return loc;
}

static struct pk_loc *resolve_user(struct pk_symbolizer *sym, struct pk_sym_proc *p, __u64 addr,
				   __u64 lookup, bool *final)
{
	struct pk_sym_kmap *km = pk_symbolizer_kmap_find(p, lookup);
	const struct pk_mapping *m;
	size_t i;

	*final = true;
	/* each process's, before any of its files is read: a file shared
	 * with another process is read once, and this one's root is kept
	 * for a reader after it exits all the same */
	see_root(sym, p);
	if (km)
		return resolve_kmap(sym, p, km, addr, lookup);
	if (!p->read_once)
		pk_symbolizer_read_maps(sym, p);
	m = pk_maps_find(&p->maps, lookup);
	if (!m && !p->gone && pk_now_ns() - p->last_read_ns >= MAPS_REREAD_NS) {
		pk_symbolizer_read_maps(sym, p);
		m = pk_maps_find(&p->maps, lookup);
	}
	if (!m) {
		/* Not final: a later read of the maps may still find it. */
		struct pk_loc *loc = anon_loc(sym, p, addr, lookup, PK_SYM_UNKNOWN, final);

		*final = *final && p->gone;
		return loc;
	}
	if (m->kind == PK_MAP_ANON) {
		struct pk_loc *loc = anon_loc(sym, p, addr, lookup, "[anon]", final);

		/* a name the JIT may still write is looked for again */
		*final = *final || p->gone;
		return loc;
	}
	if (m->kind == PK_MAP_SPECIAL && strcmp(m->name, VDSO) != 0)
		return pk_symbolizer_named_loc(sym, &p->pool, addr, false, pk_strpool_add(&p->pool, m->name));
	i = m - p->maps.v;
	if (!p->files[i]) {
		p->files[i] = proc_uses(p, m->kind == PK_MAP_SPECIAL ? vdso_file(sym) :
						       maps_file(sym, p, m));
		if (!p->files[i])
			return NULL;
	}
	if (!p->pmaps[i]) {
		p->pmaps[i] = pk_symbolizer_map_new(sym, &p->pool, m->start, m->end, m->offset,
				      pk_symfile_module(p->files[i]));
		if (!p->pmaps[i])
			return NULL;
	}
	return file_loc(sym, &p->pool, p->files[i], p->pmaps[i], addr, lookup,
			m->kind == PK_MAP_SPECIAL);
}

const struct pk_loc *pk_symbolizer_user_loc(struct pk_symbolizer *sym, __u32 pid, __u64 addr,
					    bool ret)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, pid);
	__u64 key = addr << 1 | ret;
	struct pk_loc *loc;
	bool final;

	if (!p)
		return NULL;
	if (addr & PK_HS_FRAME)		/* a Java frame: no address */
		return pk_symbolizer_hs_loc(sym, pid, addr);
	if (pk_v8_is_frame(addr))	/* a JavaScript frame: no address */
		return pk_symbolizer_v8_loc(sym, pid, addr);
	ret = ret && addr > 0;
	loc = pk_u64map_get(&p->locs, key);
	if (loc)
		return pk_symbolizer_number(sym, loc);
	sym->stats.lookups++;
	loc = resolve_user(sym, p, addr, addr - ret, &final);
	if (loc && final && pk_u64map_put(&p->locs, key, loc))
		return NULL;
	/* its mapping may be of an earlier numbering */
	return loc ? pk_symbolizer_number(sym, loc) : NULL;
}

const char *pk_symbolizer_user(struct pk_symbolizer *sym, __u32 pid, __u64 addr)
{
	const struct pk_loc *loc = pk_symbolizer_user_loc(sym, pid, addr, false);

	return loc ? loc->frames[loc->nframes - 1].name : NULL;
}
