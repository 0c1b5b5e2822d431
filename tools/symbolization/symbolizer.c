// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "demangle.h"
#include "kallsyms.h"
#include "proc_maps.h"
#include "strpool.h"
#include "symbolizer.h"
#include "symtab.h"
#include "u64map.h"
#include "vdso_image.h"

/* An address outside every known mapping triggers a new read of the maps,
 * but no more often than this per process: frame-pointer stacks through
 * code built without frame pointers end in garbage addresses. */
#define MAPS_REREAD_NS (100 * 1000000ULL)

static const char UNKNOWN[] = "[unknown]";
static const char VDSO[] = "[vdso]";

struct load_seg {
	__u64 offset, vaddr, filesz;
};

/* One mapped file (or the vdso), shared by every process mapping it. */
struct module {
	struct module *next;	/* same hash bucket */
	__u64 dev, inode;
	const char *basename;
	bool loaded;		/* symbols and segments below are valid */
	Dwfl *dwfl;
	struct pk_symtab *syms;
	const char **names;	/* per symbol, demangled on first use */
	struct load_seg *segs;
	size_t nsegs;
};

struct proc {
	__u32 pid;
	bool gone;		/* maps can no longer be read */
	bool read_once;
	__u64 last_read_ns;
	struct pk_maps maps;
	struct module **mods;	/* per mapping, resolved on first use */
	struct pk_u64map names;	/* address -> name */
};

struct pk_symbolizer {
	char proc_root[256];
	char *kallsyms_path;
	struct pk_u64map procs;		/* pid -> struct proc */
	struct pk_u64map modules;	/* hash(dev, inode) -> struct module list */
	struct pk_u64map knames;	/* kernel address -> name */
	struct pk_symtab *kallsyms;
	bool kallsyms_tried;
	struct pk_strpool strings;
	__u64 vdso_size;		/* of our own vdso; 0: none */
	struct pk_symbolizer_stats stats;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* --- modules --------------------------------------------------------------- */

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int load_segments(struct module *mod, Dwfl_Module *dm)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(dm, &bias);
	size_t phnum;

	if (!elf || elf_getphdrnum(elf, &phnum) != 0)
		return -EINVAL;
	mod->segs = calloc(phnum ? phnum : 1, sizeof(*mod->segs));
	if (!mod->segs)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, i, &mem);

		if (ph && ph->p_type == PT_LOAD)
			mod->segs[mod->nsegs++] = (struct load_seg){
				ph->p_offset, ph->p_vaddr, ph->p_filesz };
	}
	return 0;
}

static enum pk_sym_rank rank_of(unsigned char bind)
{
	if (bind == STB_GLOBAL)
		return PK_SYM_GLOBAL;
	if (bind == STB_WEAK || bind == STB_GNU_UNIQUE)
		return PK_SYM_WEAK;
	return PK_SYM_LOCAL;
}

/* A symbol without a size (_init, hand-written assembly) covers at most
 * the rest of its section: the PLT after .init is not _init's. 0: up to
 * the next symbol, when the section is unknown. */
static __u64 unsized_extent(Elf *elf, GElf_Word shndx, GElf_Addr value)
{
	GElf_Shdr mem, *sh;
	Elf_Scn *scn;

	if (!elf || shndx >= SHN_LORESERVE || !(scn = elf_getscn(elf, shndx)) ||
	    !(sh = gelf_getshdr(scn, &mem)) || value < sh->sh_addr ||
	    value >= sh->sh_addr + sh->sh_size)
		return 0;
	return sh->sh_addr + sh->sh_size - value;
}

/* The function symbols of the module, once, into a sorted table: libdwfl
 * picks the best table (.symtab, a separate debug file's, .dynsym plus
 * MiniDebugInfo), and dwfl_module_addrsym would scan it per address. */
static int load_symbols(struct module *mod, Dwfl_Module *dm)
{
	int n = dwfl_module_getsymtab(dm);

	mod->syms = pk_symtab_new();
	if (!mod->syms)
		return -ENOMEM;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr, bias;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(dm, i, &sym, &addr, &shndx,
							   &elf, &bias);
		unsigned char type = GELF_ST_TYPE(sym.st_info);
		__u64 size = sym.st_size;
		int err;

		if (!name || !name[0] || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		if (size == 0)
			size = unsized_extent(elf, shndx, sym.st_value);
		err = pk_symtab_add(mod->syms, addr, size, name,
				    rank_of(GELF_ST_BIND(sym.st_info)));
		if (err)
			return err;
	}
	mod->names = calloc(pk_symtab_count(mod->syms) + 1, sizeof(*mod->names));
	if (!mod->names)
		return -ENOMEM;
	return pk_symtab_finish(mod->syms);
}

/* Report PATH (or the open FD, which libdwfl then owns) as the only module
 * of a new Dwfl at bias 0, so symbol values are the ELF's own addresses. */
static bool load_module(struct module *mod, const char *path, int fd)
{
	Dwfl_Module *dm;

	mod->dwfl = dwfl_begin(&offline_callbacks);
	if (!mod->dwfl) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	dwfl_report_begin(mod->dwfl);
	dm = dwfl_report_elf(mod->dwfl, mod->basename, path, fd, 0, true);
	dwfl_report_end(mod->dwfl, NULL, NULL);
	if (!dm) {
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	if (load_segments(mod, dm) || load_symbols(mod, dm))
		goto fail;
	mod->loaded = true;
	return true;
fail:
	dwfl_end(mod->dwfl);
	mod->dwfl = NULL;
	pk_symtab_free(mod->syms);
	mod->syms = NULL;
	free(mod->names);
	mod->names = NULL;
	free(mod->segs);
	mod->segs = NULL;
	mod->nsegs = 0;
	return false;
}

/* Our own vdso is the one every 64-bit process on this kernel maps; it is
 * only in memory, so libdwfl gets a copy in a memfd. */
static bool load_vdso(struct pk_symbolizer *sym, struct module *mod)
{
	char err[PK_ERR_LEN];
	size_t size;
	int fd = pk_vdso_memfd(&size, err);

	if (fd < 0)
		return false;
	sym->vdso_size = size;
	return load_module(mod, VDSO, fd);
}

static void open_module(struct pk_symbolizer *sym, struct proc *p,
			const struct pk_mapping *m, struct module *mod)
{
	char path[4096 + 300];
	struct stat st;

	if (m->kind == PK_MAP_SPECIAL) {
		load_vdso(sym, mod);
		return;
	}
	/* The file the process mapped: at its path when that is still the
	 * same file, else through the process's root (another mount
	 * namespace), else through map_files (deleted or replaced). */
	if (!m->deleted && stat(m->name, &st) == 0 && st.st_ino == m->inode &&
	    load_module(mod, m->name, -1))
		return;
	if (p->gone)
		goto last_resort;
	snprintf(path, sizeof(path), "%s/%u/root%s", sym->proc_root, p->pid, m->name);
	if (!m->deleted && load_module(mod, path, -1))
		return;
	snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", sym->proc_root, p->pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	if (load_module(mod, path, -1))
		return;
last_resort:
	/* A file at the path, even if it is not (provably) the mapped one:
	 * better than no names for a process that is gone. */
	if (!m->deleted)
		load_module(mod, m->name, -1);
}

static struct module *get_module(struct pk_symbolizer *sym, struct proc *p,
				 const struct pk_mapping *m)
{
	bool vdso = m->kind == PK_MAP_SPECIAL;
	__u64 dev = vdso ? 0 : makedev(m->dev_major, m->dev_minor);
	__u64 inode = vdso ? 0 : m->inode;
	__u64 key = pk_hash64(dev ^ pk_hash64(inode));
	struct module *head = pk_u64map_get(&sym->modules, key), *mod;

	for (mod = head; mod; mod = mod->next)
		if (mod->dev == dev && mod->inode == inode)
			return mod;
	mod = calloc(1, sizeof(*mod));
	if (!mod)
		return NULL;
	mod->dev = dev;
	mod->inode = inode;
	mod->basename = pk_strpool_add(&sym->strings, vdso ? "vdso" : base_name(m->name));
	if (!mod->basename || pk_u64map_put(&sym->modules, key, mod)) {
		free(mod);
		return NULL;
	}
	mod->next = head;
	open_module(sym, p, m, mod);
	if (mod->loaded)
		sym->stats.modules++;
	return mod;
}

static void free_module(struct module *mod)
{
	size_t n = mod->syms ? pk_symtab_count(mod->syms) : 0;

	for (size_t i = 0; i < n; i++)
		if (mod->names[i] != pk_symtab_sym(mod->syms, i)->name)
			free((char *)mod->names[i]);
	free(mod->names);
	pk_symtab_free(mod->syms);
	free(mod->segs);
	if (mod->dwfl)
		dwfl_end(mod->dwfl);
	free(mod);
}

/* The ELF virtual address of file offset OFF, through the PT_LOAD segment
 * that holds it; -1 when none does. */
static __u64 offset_to_vaddr(const struct module *mod, __u64 off)
{
	for (size_t i = 0; i < mod->nsegs; i++) {
		const struct load_seg *s = &mod->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz)
			return s->vaddr + (off - s->offset);
	}
	return ~0ULL;
}

static const char *symbol_name(struct module *mod, long idx)
{
	const struct pk_sym *s = pk_symtab_sym(mod->syms, idx);
	char *d;

	if (!mod->names[idx]) {
		d = pk_demangle(s->name);
		mod->names[idx] = d ? d : s->name;
	}
	return mod->names[idx];
}

/* --- processes ------------------------------------------------------------- */

static void free_proc(struct proc *p)
{
	pk_maps_free(&p->maps);
	free(p->mods);
	pk_u64map_free(&p->names);
	free(p);
}

static int read_maps(struct pk_symbolizer *sym, struct proc *p)
{
	struct pk_maps maps;
	struct module **mods;
	int err;

	p->last_read_ns = now_ns();
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
	mods = calloc(maps.n ? maps.n : 1, sizeof(*mods));
	if (!mods) {
		pk_maps_free(&maps);
		return -ENOMEM;
	}
	pk_maps_free(&p->maps);
	free(p->mods);
	p->maps = maps;
	p->mods = mods;
	/* A zombie's maps are empty: it is gone just the same. */
	if (maps.n == 0)
		p->gone = true;
	return 0;
}

static struct proc *get_proc(struct pk_symbolizer *sym, __u32 pid)
{
	struct proc *p = pk_u64map_get(&sym->procs, pid);

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
	struct proc *p = get_proc(sym, pid);

	if (!p)
		return -ENOMEM;
	if (p->read_once)
		return p->maps.n ? 0 : -ENOENT;
	return read_maps(sym, p);
}

int pk_symbolizer_maps_changed(struct pk_symbolizer *sym, __u32 pid)
{
	struct proc *p = get_proc(sym, pid);

	if (!p)
		return -ENOMEM;
	pk_u64map_free(&p->names);
	memset(&p->names, 0, sizeof(p->names));
	return read_maps(sym, p);
}

static const char *resolve_user(struct pk_symbolizer *sym, struct proc *p, __u64 addr,
				bool *final)
{
	const struct pk_mapping *m = pk_maps_find(&p->maps, addr);
	struct module *mod;
	__u64 at, vaddr;
	long idx;

	*final = true;
	if (!m && !p->gone && now_ns() - p->last_read_ns >= MAPS_REREAD_NS) {
		read_maps(sym, p);
		m = pk_maps_find(&p->maps, addr);
	}
	if (!m) {
		/* Not final: a later read of the maps may still find it. */
		*final = p->gone;
		return UNKNOWN;
	}
	if (m->kind == PK_MAP_ANON)
		return "[anon]";
	if (m->kind == PK_MAP_SPECIAL && strcmp(m->name, VDSO) != 0)
		return pk_strpool_add(&sym->strings, m->name);

	mod = p->mods[m - p->maps.v];
	if (!mod) {
		mod = get_module(sym, p, m);
		if (!mod)
			return NULL;
		p->mods[m - p->maps.v] = mod;
	}
	/* Unnamed: the ELF address when the file could be read, else the
	 * file offset. */
	at = addr - m->start + m->offset;
	if (mod->loaded && (m->kind != PK_MAP_SPECIAL || m->end - m->start == sym->vdso_size) &&
	    (vaddr = offset_to_vaddr(mod, at)) != ~0ULL) {
		idx = pk_symtab_lookup(mod->syms, vaddr);
		if (idx >= 0)
			return symbol_name(mod, idx);
		at = vaddr;
	}
	return pk_strpool_printf(&sym->strings, "[%s+0x%llx]", mod->basename,
				 (unsigned long long)at);
}

const char *pk_symbolizer_user(struct pk_symbolizer *sym, __u32 pid, __u64 addr)
{
	struct proc *p = get_proc(sym, pid);
	const char *name;
	bool final;

	if (!p)
		return NULL;
	if (!p->read_once)
		read_maps(sym, p);
	name = pk_u64map_get(&p->names, addr);
	if (name)
		return name;
	sym->stats.lookups++;
	name = resolve_user(sym, p, addr, &final);
	if (name && final && pk_u64map_put(&p->names, addr, (void *)name))
		return NULL;
	return name;
}

/* --- kernel ---------------------------------------------------------------- */

const char *pk_symbolizer_kernel(struct pk_symbolizer *sym, __u64 addr)
{
	const char *name = pk_u64map_get(&sym->knames, addr);

	if (name)
		return name;
	if (!sym->kallsyms_tried) {
		sym->kallsyms_tried = true;
		sym->kallsyms = pk_kallsyms_load(sym->kallsyms_path);
	}
	sym->stats.lookups++;
	name = sym->kallsyms ? pk_kallsyms_lookup(sym->kallsyms, addr) : NULL;
	if (!name)
		name = UNKNOWN;
	if (pk_u64map_put(&sym->knames, addr, (void *)name))
		return NULL;
	return name;
}

/* --- lifetime -------------------------------------------------------------- */

struct pk_symbolizer *pk_symbolizer_new(const struct pk_symbolizer_opts *opts)
{
	struct pk_symbolizer *sym = calloc(1, sizeof(*sym));
	const char *root = opts && opts->proc_root ? opts->proc_root : "/proc";

	if (!sym)
		return NULL;
	snprintf(sym->proc_root, sizeof(sym->proc_root), "%s", root);
	if (opts && opts->kallsyms_path) {
		sym->kallsyms_path = strdup(opts->kallsyms_path);
		if (!sym->kallsyms_path) {
			free(sym);
			return NULL;
		}
	}
	return sym;
}

void pk_symbolizer_free(struct pk_symbolizer *sym)
{
	if (!sym)
		return;
	for (size_t i = 0; i < sym->procs.cap; i++)
		if (sym->procs.vals[i])
			free_proc(sym->procs.vals[i]);
	for (size_t i = 0; i < sym->modules.cap; i++) {
		struct module *mod = sym->modules.vals[i], *next;

		for (; mod; mod = next) {
			next = mod->next;
			free_module(mod);
		}
	}
	pk_u64map_free(&sym->procs);
	pk_u64map_free(&sym->modules);
	pk_u64map_free(&sym->knames);
	pk_symtab_free(sym->kallsyms);
	pk_strpool_free(&sym->strings);
	free(sym->kallsyms_path);
	free(sym);
}

void pk_symbolizer_stats(const struct pk_symbolizer *sym, struct pk_symbolizer_stats *st)
{
	*st = sym->stats;
}
