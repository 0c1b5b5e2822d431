// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "eh_frame/checksum.h"
#include "eh_frame/hex.h"
#include "lib/overlay.h"
#include "lib/symtab.h"
#include "lib/util/array.h"
#include "lib/util/text.h"
#include "lib/util/u64map.h"
#include "symbolization/debug_plain.h"
#include "symbolization/debuginfo.h"
#include "symbolization/demangle.h"
#include "symbolization/gopclntab.h"
#include "symbolization/loc_cache.h"
#include "symbolization/plt.h"
#include "symbolization/symdata.h"
#include "symbolization/symfile.h"

struct pk_symfile {
	struct pk_symfile *next;	/* same inode hash bucket */
	__u64 dev, ino;
	__u64 held;			/* the last sweep it was held for */
	bool named;			/* no file (pk_symfiles_named): kept */
	struct pk_module pub;		/* path and build_id: its own */
	struct pk_symdata *data;		/* NULL: could not be loaded */
};

struct pk_symfiles {
	struct pk_u64map by_inode;	/* hash(dev, ino) -> pk_symfile list */
	struct pk_u64map by_build_id;	/* hash(build-id) -> symdata list */
	struct pk_symdata *unshared;	/* files without a build-id */
	char **debug_dirs;
	size_t ndebug_dirs;
	/* with debug_dirs: pk_dwfl_callbacks looking for debug files by
	 * build-id there (libdwfl's path: the directories, ':' between) */
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	char *cache_root;	/* the location cache's; NULL: none */
	__u64 sweeps;
	struct pk_symfiles_stats stats;
};

static __u64 inode_key(__u64 dev, __u64 ino)
{
	return pk_hash64(dev ^ pk_hash64(ino));
}

static __u64 build_id_key(const __u8 *id, size_t len)
{
	__u64 h = len;

	for (size_t i = 0; i < len; i++)
		h = pk_hash64(h ^ id[i]);
	return h;
}

/* --- the cache ------------------------------------------------------------- */

static struct pk_symdata *find_build_id(struct pk_symfiles *files, const __u8 *id, size_t len)
{
	struct pk_symdata *d;

	if (!len)
		return NULL;
	for (d = pk_u64map_get(&files->by_build_id, build_id_key(id, len)); d; d = d->next)
		if (d->build_id_len == len && !memcmp(d->build_id, id, len))
			return d;
	return NULL;
}

/* A freshly opened D, or the data already loaded under its build-id (D is
 * then freed). NULL when its symbols cannot be read. */
static struct pk_symdata *adopt(struct pk_symfiles *files, struct pk_symdata *d)
{
	struct pk_symdata *old = find_build_id(files, d->build_id, d->build_id_len);
	__u64 key;

	if (old) {
		pk_symdata_free(d);
		return old;
	}
	/* the symbols wait for an address the location cache lacks */
	if (pk_symdata_load_segments(d)) {
		pk_symdata_free(d);
		return NULL;
	}
	d->files = files;
	if (!d->build_id_len) {
		d->next = files->unshared;
		files->unshared = d;
		return d;
	}
	key = build_id_key(d->build_id, d->build_id_len);
	d->next = pk_u64map_get(&files->by_build_id, key);
	if (pk_u64map_put(&files->by_build_id, key, d)) {
		pk_symdata_free(d);
		return NULL;
	}
	return d;
}

static struct pk_symdata *try_source(struct pk_symfiles *files, const char *path,
				  const __u8 *id, size_t len)
{
	struct pk_symdata *d = find_build_id(files, id, len);

	if (d)		/* loaded already: no need to open anything */
		return d;
	d = pk_symdata_open(files->debuginfo_path ? &files->callbacks :
			     &pk_dwfl_callbacks, path);
	if (!d)
		return NULL;
	if (len && (d->build_id_len != len || memcmp(d->build_id, id, len))) {
		pk_symdata_free(d);
		return NULL;
	}
	return adopt(files, d);
}

int pk_build_id_debug_path(const char *dir, const __u8 *id, size_t len, int i, char *buf,
			   size_t buflen)
{
	char hex[2 * PK_BUILD_ID_MAX + 1];
	int n;

	if (len < 2 || len > PK_BUILD_ID_MAX || eh_hex(id, len, hex, sizeof(hex)) ||
	    i < 0 || i >= PK_BUILD_ID_NAMES)
		return -EINVAL;
	n = snprintf(buf, buflen, "%s/.build-id/%.2s/%s%s", dir, hex, hex + 2,
		     i == 0 ? ".debug" : "");
	return n < 0 || (size_t)n >= buflen ? -EINVAL : 0;
}

/* DIR/.build-id/xx/yyyy.debug, as gdb, perf and debuginfod lay them out,
 * then DIR/.build-id/xx/yyyy, a copy of the binary itself. */
static struct pk_symdata *try_build_id_dirs(struct pk_symfiles *files, const __u8 *id, size_t len)
{
	static const char *const def[] = { "/usr/lib/debug" };
	const char *const *dirs = files->debug_dirs ? (const char *const *)files->debug_dirs : def;
	size_t n = files->debug_dirs ? files->ndebug_dirs : 1;
	char path[4096];
	struct pk_symdata *d;

	for (size_t i = 0; i < n; i++) {
		for (int name = 0; name < PK_BUILD_ID_NAMES; name++) {
			if (pk_build_id_debug_path(dirs[i], id, len, name, path, sizeof(path)))
				return NULL;
			d = try_source(files, path, id, len);
			if (d) {
				files->stats.by_build_id++;
				return d;
			}
		}
	}
	return NULL;
}

struct pk_symfile *pk_symfiles_get(struct pk_symfiles *files, __u64 dev, __u64 ino)
{
	struct pk_symfile *f;

	for (f = pk_u64map_get(&files->by_inode, inode_key(dev, ino)); f; f = f->next)
		if (f->dev == dev && f->ino == ino)
			return f;
	return NULL;
}

/* ID in hex, allocated; NULL for none. *FAILED when out of memory. */
static char *hex_id(const __u8 *id, size_t len, bool *failed)
{
	char hex[2 * PK_BUILD_ID_MAX + 1], *s;

	if (!len)
		return NULL;
	*failed = eh_hex(id, len, hex, sizeof(hex)) != 0;
	if (*failed)
		return NULL;
	s = strdup(hex);
	*failed = !s;
	return s;
}

static void symfile_free(struct pk_symfile *f)
{
	free((char *)f->pub.path);
	free((char *)f->pub.build_id);
	free(f);
}

struct pk_symfile *pk_symfiles_add(struct pk_symfiles *files, __u64 dev, __u64 ino,
				   const char *name, const struct pk_symfile_source *sources,
				   const __u8 *build_id, size_t len)
{
	struct pk_symfile *f = calloc(1, sizeof(*f));
	__u64 key = inode_key(dev, ino);
	bool failed = false;

	if (!f)
		return NULL;
	if (len > PK_BUILD_ID_MAX)
		len = 0;
	f->dev = dev;
	f->ino = ino;
	f->held = files->sweeps + 1;	/* added for a process: held now */
	f->pub.id = files->stats.files;
	f->pub.path = strdup(name);
	f->next = pk_u64map_get(&files->by_inode, key);
	if (!f->pub.path || pk_u64map_put(&files->by_inode, key, f)) {
		symfile_free(f);
		return NULL;
	}
	files->stats.files++;
	for (size_t i = 0; sources && sources[i].path && !f->data; i++) {
		if (sources[i].check_inode && !pk_path_is_inode(sources[i].path, dev, ino))
			continue;
		f->data = try_source(files, sources[i].path, build_id, len);
	}
	if (!f->data && build_id)
		f->data = try_build_id_dirs(files, build_id, len);
	if (f->data) {
		files->stats.loaded++;
		f->data->users++;
		f->pub.build_id = hex_id(f->data->build_id, f->data->build_id_len, &failed);
	} else {
		f->pub.build_id = hex_id(build_id, len, &failed);
	}
	/* in the cache already: a file without its build-id is still named */
	return failed ? NULL : f;
}

const struct pk_module *pk_symfiles_named(struct pk_symfiles *files, const char *name)
{
	/* dev ~0 is no device: the name's hash is the inode. */
	__u64 ino = pk_hash64(build_id_key((const __u8 *)name, strlen(name)));
	struct pk_symfile *f = pk_symfiles_get(files, ~0ULL, ino);

	if (!f) {
		f = pk_symfiles_add(files, ~0ULL, ino, name, NULL, NULL, 0);
		if (f)
			f->named = true;
	}
	return f ? &f->pub : NULL;
}

/* libdwfl's debuginfo path of the absolute directories of DIRS: ':'
 * between them; NULL when none (*FAILED on no memory). */
static char *debuginfo_path(const char *const *dirs, size_t n, bool *failed)
{
	size_t len = 0;
	char *path, *p;

	*failed = false;
	for (size_t i = 0; i < n; i++)
		len += dirs[i][0] == '/' ? strlen(dirs[i]) + 1 : 0;
	if (!len)
		return NULL;
	path = p = malloc(len);
	if (!path) {
		*failed = true;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (dirs[i][0] == '/')
			p += sprintf(p, "%s%s", p == path ? "" : ":", dirs[i]);
	return path;
}

int pk_symfiles_set_debug_dirs(struct pk_symfiles *files, const char *const *dirs, size_t n)
{
	char **v = calloc(n ? n : 1, sizeof(*v));
	bool failed;
	char *path = debuginfo_path(dirs, n, &failed);

	if (!v || failed) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		v[i] = strdup(dirs[i]);
		if (!v[i]) {
			while (i--)
				free(v[i]);
			free(v);
			free(path);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < files->ndebug_dirs; i++)
		free(files->debug_dirs[i]);
	free(files->debug_dirs);
	free(files->debuginfo_path);
	files->debug_dirs = v;
	files->ndebug_dirs = n;
	/* the separate debug files of the files found are looked for there by
	 * build-id too, as the binaries are (libdwfl takes absolute
	 * directories only; the .gnu_debuglink search stays
	 * pk_find_debuginfo's) */
	files->debuginfo_path = path;
	files->callbacks = pk_dwfl_callbacks;
	files->callbacks.debuginfo_path = &files->debuginfo_path;
	return 0;
}

/* --- lookups --------------------------------------------------------------- */

const struct pk_module *pk_symfile_module(const struct pk_symfile *f)
{
	return &f->pub;
}

bool pk_symfile_loaded(const struct pk_symfile *f)
{
	return f->data != NULL;
}

__u64 pk_symfile_image_size(const struct pk_symfile *f)
{
	return f->data ? f->data->image_size : 0;
}

__u64 pk_symfile_vaddr(const struct pk_symfile *f, __u64 off)
{
	if (!f->data)
		return ~0ULL;
	for (size_t i = 0; i < f->data->nsegs; i++) {
		const struct pk_load_seg *s = &f->data->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz)
			return s->vaddr + (off - s->offset);
	}
	return ~0ULL;
}

/* D's .gopclntab (gopclntab.h), read on first use: NULL when D is no Go
 * binary or its table cannot be read (the reason in the files' stats). */
static struct pk_gopclntab *go_table(struct pk_symdata *d)
{
	char err[PK_ERR_LEN] = "";
	GElf_Addr bias;
	Elf *elf;
	int ret;

	if (d->go_tried)
		return d->go;
	d->go_tried = true;
	elf = dwfl_module_getelf(d->dm, &bias);
	ret = elf ? pk_gopclntab_from_elf(elf, &d->go, err) : -ENOENT;
	if (ret && ret != -ENOENT) {
		d->files->stats.go_refused++;
		snprintf(d->files->stats.go_err, sizeof(d->files->stats.go_err), "%s: %s",
			 d->opened, err);
	}
	return d->go;
}

/* Go's linker names an assembly function's symbol NAME.abi0 (its ABI);
 * Go's tracebacks, and its .gopclntab, call it NAME: so does a profile,
 * with or without the symbol table. */
static char *go_symbol_name(struct pk_symdata *d, const char *name)
{
	size_t len = strlen(name);

	if (len <= 5 || strcmp(name + len - 5, ".abi0") || !go_table(d))
		return NULL;
	return strndup(name, len - 5);
}

/* Symbol IDX of D's name, demangled on first use. */
static const char *symbol_name(struct pk_symdata *d, long idx)
{
	const char *name = pk_symtab_sym(d->syms, idx)->name;
	char *dm;

	if (!d->names[idx]) {
		dm = pk_demangle(name);
		if (!dm)
			dm = go_symbol_name(d, name);
		d->names[idx] = dm ? dm : name;
	}
	return d->names[idx];
}

/* D's symbols, loaded on first use: false when they cannot be. */
static bool has_symbols(struct pk_symdata *d)
{
	if (!d->syms_tried) {
		d->syms_tried = true;
		if (pk_symdata_load_symbols(d)) {
			/* as a file that has none: named by address */
			for (size_t i = 0; i < d->naliases; i++)
				if (d->aliases[i].owned)
					free((char *)d->aliases[i].name);
			free(d->aliases);
			d->aliases = NULL;
			d->naliases = 0;
			free(d->names);
			d->names = NULL;
			pk_symtab_free(d->syms);
			d->syms = NULL;
		} else {
			d->files->stats.symtabs++;
		}
	}
	return d->syms != NULL;
}

const char *pk_symfile_symbol(struct pk_symfile *f, __u64 vaddr, __u64 *start)
{
	struct pk_symdata *d = f->data;
	const struct pk_sym *s;
	long idx;

	if (!d || !has_symbols(d))
		return NULL;
	idx = pk_symtab_lookup(d->syms, vaddr);
	s = pk_symtab_sym(d->syms, idx);
	if (!s || s->rank == PK_SYM_MARKER)	/* past a section's end */
		return NULL;
	*start = s->addr;
	return symbol_name(d, idx);
}

int pk_symfile_srcline(struct pk_symfile *f, __u64 vaddr, struct pk_srcline_frame *out, int max)
{
	struct pk_symdata *d = f->data;
	int n;

	if (!d)
		return 0;
	/* its aliases rename DWARF's names; without symbols, none do */
	has_symbols(d);
	if (!d->srcline) {
		d->srcline = pk_srcline_new(d->dm);
		if (!d->srcline)
			return -ENOMEM;
	}
	n = pk_srcline_lookup(d->srcline, vaddr, out, max);
	/* DWARF's name of a function that a symbol names otherwise */
	for (int i = 0; i < n && d->naliases; i++) {
		long idx = out[i].name ? pk_symdata_alias(d, out[i].name) : -1;

		if (idx >= 0)
			out[i].name = symbol_name(d, idx);
	}
	return n;
}

/* --- the location cache ---------------------------------------------------- */

static __u64 fold_st(__u64 h, const struct stat *st)
{
	__u64 v[5] = { st->st_dev, st->st_ino, st->st_size, st->st_mtim.tv_sec,
		       st->st_mtim.tv_nsec };

	return eh_hash_update(h, v, sizeof(v));
}

static __u64 fold_stat(__u64 h, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		memset(&st, 0, sizeof(st));
	return fold_st(h, &st);
}

/*
 * What D's answers come from: this reader's own code, the file it was read
 * from, and every debug file pk_find_debuginfo or a debug directory could
 * give it (by build-id, by .gnu_debuglink), present or not. Installing a
 * -dbgsym package, stripping a copy or rebuilding probe-read each makes a
 * new source, whose cache starts empty.
 */
static __u64 source_sig(struct pk_symdata *d)
{
	static const char *const def[] = { "/usr/lib/debug" };
	static const char *const by_link[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };
	const char *const *dirs = d->files->debug_dirs ?
		(const char *const *)d->files->debug_dirs : def;
	size_t n = d->files->debug_dirs ? d->files->ndebug_dirs : 1;
	__u64 h = fold_st(pk_loc_cache_self_sig(), &d->opened_st);
	char path[4096], dir[4096];
	const char *link, *slash;
	GElf_Addr bias;
	GElf_Word crc;
	Elf *elf;

	for (size_t i = 0; i <= n; i++)
		for (int name = 0; name < PK_BUILD_ID_NAMES; name++)
			if (!pk_build_id_debug_path(i < n ? dirs[i] : def[0], d->build_id,
						    d->build_id_len, name, path, sizeof(path)))
				h = fold_stat(h, path);
	elf = dwfl_module_getelf(d->dm, &bias);
	link = elf ? dwelf_elf_gnu_debuglink(elf, &crc) : NULL;
	slash = strrchr(d->opened, '/');
	if (link && slash && !strchr(link, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - d->opened), d->opened);
		for (size_t i = 0; i < sizeof(by_link) / sizeof(by_link[0]); i++)
			if (snprintf(path, sizeof(path), by_link[i], dir, link) < (int)sizeof(path))
				h = fold_stat(h, path);
	}
	return eh_hash_final(h, n);
}

/* D's location cache, opened on first use: in memory only without a cache
 * directory or a build-id; NULL: no memory. */
static struct pk_loc_cache *locs_of(struct pk_symdata *d)
{
	char key[2 * PK_BUILD_ID_MAX + 1], path[4096];
	int n;

	if (d->locs_tried)
		return d->locs;
	d->locs_tried = true;
	/* without a file to keep them in, they are still kept for the
	 * other processes that map the file */
	if (!d->files->cache_root || !d->build_id_len ||
	    eh_hex(d->build_id, d->build_id_len, key, sizeof(key))) {
		d->locs = pk_loc_cache_open(NULL, 0);
		return d->locs;
	}
	n = snprintf(path, sizeof(path), "%s/%.2s/%s.locs", d->files->cache_root, key, key + 2);
	if (n < 0 || n >= (int)sizeof(path))
		return NULL;
	d->locs = pk_loc_cache_open(path, source_sig(d));
	return d->locs;
}

int pk_symfile_locate(struct pk_symfile *f, __u64 vaddr, bool dwarf, const char **name,
		      __u64 *start, struct pk_srcline_frame *out, int max)
{
	struct pk_symdata *d = f->data;
	struct pk_loc_cache *c = d ? locs_of(d) : NULL;
	const struct pk_loc_entry *e = c ? pk_loc_cache_get(c, vaddr) : NULL;
	int n = 0;

	*name = NULL;
	*start = 0;
	if (!d)
		return 0;
	if (e && (e->dwarf || !dwarf) && e->nframes <= max) {
		*name = e->name;
		*start = e->start;
		n = dwarf ? e->nframes : 0;
		if (n)
			memcpy(out, e->frames, n * sizeof(*out));
		d->files->stats.cached += e->saved;
		return n;
	}
	*name = pk_symfile_symbol(f, vaddr, start);
	if (dwarf) {
		n = pk_symfile_srcline(f, vaddr, out, max);
		if (n == -ENOMEM)
			return n;
		if (n < 0)	/* no DWARF there: that is the answer */
			n = 0;
	}
	/* A Go binary shipped without them (-ldflags="-s -w"): its runtime's
	 * own table names the function and, for the lines and inlined
	 * frames DWARF would give, says them too. DWARF's frames, where
	 * there are any, are kept (and name the function without a symbol). */
	if (!n && (!*name || dwarf) && go_table(d)) {
		__u64 entry;
		int g = pk_gopclntab_lookup(d->go, vaddr, out, max, &entry);

		if (g > 0 && !*name) {
			*name = out[g - 1].name;
			*start = entry;
		}
		n = dwarf && g > 0 ? g : 0;
	}
	if (!*name)
		*start = 0;
	if (c && pk_loc_cache_put(c, vaddr, &(struct pk_loc_entry){
			.name = *name, .start = *start, .dwarf = dwarf,
			.nframes = n, .frames = out }))
		return -ENOMEM;
	return n;
}

int pk_symfiles_set_cache_dir(struct pk_symfiles *files, const char *root)
{
	char *r = root ? strdup(root) : NULL;

	if ((root && !r) || pk_debug_plain_set_root(root)) {
		free(r);
		return -ENOMEM;
	}
	free(files->cache_root);
	files->cache_root = r;
	return 0;
}


/* --- sweeping -------------------------------------------------------------- */

void pk_symfiles_hold(struct pk_symfiles *files, struct pk_symfile *f)
{
	f->held = files->sweeps + 1;
}

/* Held at neither this sweep nor the one before: let go. */
static bool leaving(const struct pk_symfiles *files, const struct pk_symfile *f)
{
	return !f->named && f->held + 1 < files->sweeps;
}

/* The list head of M under KEY set to HEAD, in place: the key goes with
 * its last entry. Neither allocates. */
static void relink(struct pk_u64map *m, __u64 key, void *old, void *head)
{
	if (!head)
		pk_u64map_del(m, key);
	else if (head != old)
		pk_u64map_put(m, key, head);	/* a key there: cannot fail */
}

/* The list at HEAD less the data no file names any more, freed (which
 * saves their location caches). The data kept save theirs too: a reader
 * killed later loses what one interval learnt, not all it has. */
static struct pk_symdata *drop_unnamed(struct pk_symdata *head)
{
	struct pk_symdata *d, **link = &head;

	while ((d = *link)) {
		d->users -= d->leaving;
		d->leaving = 0;
		if (d->users) {
			if (d->locs)
				pk_loc_cache_save(d->locs);	/* errors only slow */
			link = &d->next;
			continue;
		}
		*link = d->next;
		pk_symdata_free(d);
	}
	return head;
}

size_t pk_symfiles_sweep(struct pk_symfiles *files)
{
	struct pk_symfile *f, **link, *head;
	size_t freed = 0;

	files->sweeps++;
	/* The files let go, each counted on its data: data stays while a
	 * file that stays names it. */
	pk_u64map_for_each(&files->by_inode, it) {
		for (head = it.val, link = &head; (f = *link);) {
			if (!leaving(files, f)) {
				link = &f->next;
				continue;
			}
			if (f->data)
				f->data->leaving++;
			*link = f->next;
			symfile_free(f);
			freed++;
		}
		relink(&files->by_inode, it.key, it.val, head);
	}
	pk_u64map_for_each(&files->by_build_id, it)
		relink(&files->by_build_id, it.key, it.val, drop_unnamed(it.val));
	files->unshared = drop_unnamed(files->unshared);
	/* out of memory: as large as they were */
	pk_u64map_shrink(&files->by_inode);
	pk_u64map_shrink(&files->by_build_id);
	files->stats.freed += freed;
	return freed;
}

/* --- lifetime -------------------------------------------------------------- */

struct pk_symfiles *pk_symfiles_new(void)
{
	return calloc(1, sizeof(struct pk_symfiles));
}

void pk_symfiles_free(struct pk_symfiles *files)
{
	struct pk_symdata *d, *dn;
	struct pk_symfile *f, *fn;

	if (!files)
		return;
	pk_u64map_for_each(&files->by_inode, it)
		for (f = it.val; f; f = fn) {
			fn = f->next;
			symfile_free(f);
		}
	pk_u64map_for_each(&files->by_build_id, it)
		for (d = it.val; d; d = dn) {
			dn = d->next;
			pk_symdata_free(d);
		}
	for (d = files->unshared; d; d = dn) {
		dn = d->next;
		pk_symdata_free(d);
	}
	pk_u64map_free(&files->by_inode);
	pk_u64map_free(&files->by_build_id);
	for (size_t i = 0; i < files->ndebug_dirs; i++)
		free(files->debug_dirs[i]);
	free(files->debug_dirs);
	free(files->debuginfo_path);
	free(files->cache_root);
	free(files);
}

void pk_symfiles_stats(const struct pk_symfiles *files, struct pk_symfiles_stats *st)
{
	*st = files->stats;
}
