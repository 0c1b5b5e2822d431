// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/symtab.h"
#include "lib/util/array.h"
#include "symbolization/demangle.h"
#include "symbolization/gopclntab.h"
#include "symbolization/loc_cache.h"
#include "symbolization/plt.h"
#include "symbolization/srcline.h"
#include "symbolization/symdata.h"

int pk_symdata_load_segments(struct pk_symdata *d)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->dm, &bias);
	size_t phnum;

	if (!elf || elf_getphdrnum(elf, &phnum) != 0)
		return -EINVAL;
	d->segs = calloc(phnum ? phnum : 1, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, i, &mem);

		if (ph && ph->p_type == PT_LOAD)
			d->segs[d->nsegs++] = (struct pk_load_seg){
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

/* NAME as the function is called (pk_sym_name_len: no version, no clone
 * suffix): NAME itself, or a copy in *BUF, grown as needed; NULL when out
 * of memory. */
static const char *function_name(const char *name, char **buf, size_t *cap)
{
	size_t len = pk_sym_name_len(name);

	if (!name[len])
		return name;
	if (pk_array_reserve((void **)buf, cap, 1, len + 1, 256))
		return NULL;
	memcpy(*buf, name, len);
	(*buf)[len] = '\0';
	return *buf;
}

/* The section holding VALUE (its index SHNDX in ELF): its [*START, *END).
 * False when it is not known. */
static bool section_range(Elf *elf, GElf_Word shndx, GElf_Addr value, __u64 *start, __u64 *end)
{
	GElf_Shdr mem, *sh;
	Elf_Scn *scn;

	if (!elf || shndx >= SHN_LORESERVE || !(scn = elf_getscn(elf, shndx)) ||
	    !(sh = gelf_getshdr(scn, &mem)) || value < sh->sh_addr ||
	    value >= sh->sh_addr + sh->sh_size)
		return false;
	*start = sh->sh_addr;
	*end = sh->sh_addr + sh->sh_size;
	return true;
}

/*
 * What a symbol without a size names, so that no name lies:
 *  - a function (STT_FUNC) names its own address only, unless it starts
 *    its section: a section made for it (.init, _init's) says the code is
 *    the function's, up to the next symbol or the section's end. Elsewhere
 *    nothing says the code after it is its own: clang gives a function
 *    whose body is unreachable no size and no code, and the bytes at and
 *    after its address are the next function's, often a static one whose
 *    symbol was stripped (libclang-cpp.so.14 has 77 such .dynsym symbols,
 *    libLLVM-14 62). perf and eu-addr2line stretch it to the next symbol,
 *    which names that static function by the unsized one;
 *  - a code label (STT_NOTYPE outside every sized function: ld.so's _start
 *    and _dl_start_user, hand-written assembly) marks the code after it,
 *    up to the next symbol or the section's end, as perf and eu-addr2line
 *    name it.
 * A sized symbol at the same address wins over both (pk_sym_cmp).
 * Returns the size to add, 1 or 0 ("up to the next symbol"); with 0, *END
 * is the end of the section, where the caller puts a marker.
 */
static __u64 unsized_size(Elf *elf, GElf_Word shndx, GElf_Addr value, bool label, __u64 *end)
{
	__u64 start;

	if (!section_range(elf, shndx, value, &start, end))
		return label ? 0 : 1;	/* *END stays ~0: no marker */
	return label || value == start ? 0 : 1;
}

/* A function's range, to tell labels inside functions from code entries. */
struct range {
	__u64 start, end;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether ADDR is inside one of the N sorted RANGES (which may nest). */
static bool in_ranges(const struct range *r, size_t n, __u64 addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {		/* the first range starting past ADDR */
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* functions are few levels deep: look back a little */
	for (size_t i = lo, k = 0; i-- > 0 && k < 8; k++)
		if (addr < r[i].end)
			return true;
	return false;
}

/* A code label (STT_NOTYPE in an executable section: the _start of ld.so
 * and of hand-written assembly) names code no function symbol covers, as
 * libdwfl does; inside a sized function it is a local label, not a name. */
static bool is_code_label(Elf *elf, GElf_Word shndx, const char *name)
{
	GElf_Shdr mem, *sh;
	Elf_Scn *scn;

	return elf && shndx < SHN_LORESERVE && name[0] != '.' && name[0] != '$' &&
	       (scn = elf_getscn(elf, shndx)) && (sh = gelf_getshdr(scn, &mem)) &&
	       (sh->sh_flags & SHF_EXECINSTR);
}

/* Ifunc symbols (struct pk_sym, the name not owned) by address: an
 * IRELATIVE PLT slot is named by the one at its resolver's address. */
static int cmp_ifunc_addr(const void *a, const void *b)
{
	const struct pk_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct plt_ctx {
	struct pk_symtab *syms;
	char *buf;		/* function_name's */
	size_t cap;
	const struct pk_sym *ifuncs;
	size_t nifuncs;
};

/* FUNC@plt, FUNC demangled (std::ostream::put(char)@plt, as perf shows). */
static int add_plt(void *arg, __u64 addr, __u64 size, const char *sym, __u64 ifunc)
{
	struct plt_ctx *c = arg;
	char buf[64], *name, *demangled = NULL;
	int err;

	if (!sym) {
		const struct pk_sym key = { .addr = ifunc }, *f = c->nifuncs ?
			bsearch(&key, c->ifuncs, c->nifuncs, sizeof(key), cmp_ifunc_addr) : NULL;

		sym = f ? f->name : NULL;
	}
	if (!sym) {
		/* a resolver nobody named: objdump's name for it */
		snprintf(buf, sizeof(buf), "*ABS*+0x%llx", (unsigned long long)ifunc);
		sym = buf;
	} else {
		sym = function_name(sym, &c->buf, &c->cap);
		if (!sym)
			return -ENOMEM;
		demangled = pk_demangle(sym);
	}
	if (asprintf(&name, "%s@plt", demangled ? demangled : sym) < 0)
		name = NULL;
	free(demangled);
	if (!name)
		return -ENOMEM;
	err = pk_symtab_add(c->syms, addr, size, name, PK_SYM_LOCAL);
	free(name);
	return err;
}

static int cmp_alias_name(const void *a, const void *b)
{
	return strcmp(((const struct pk_sym_alias *)a)->name, ((const struct pk_sym_alias *)b)->name);
}

static int cmp_alias(const void *a, const void *b)
{
	const struct pk_sym_alias *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The names of D's N symbols that lost their address to another
 * (pk_symtab_finish keeps one a place), each with the one that won, so
 * that DWARF's name of a function (the linkage name: glibc's
 * __GI___clock_nanosleep, __libc_start_main_impl) names it as its symbol
 * does in a frame of its own: clock_nanosleep inlined or not. A name at
 * two places that go by different names is no one's alias. 0 or -ENOMEM.
 */
static int load_aliases(struct pk_symdata *d, int n)
{
	struct pk_sym_alias *v = calloc(n > 0 ? n : 1, sizeof(*v));
	size_t nv = 0, out = 0, j;
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (int i = 1; i < n && !err; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(d->dm, i, &sym, &addr, NULL, NULL, NULL);
		unsigned char type = GELF_ST_TYPE(sym.st_info);
		const struct pk_sym *s;
		size_t len;
		long idx;

		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || !sym.st_size ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		idx = pk_symtab_lookup(d->syms, addr);
		s = pk_symtab_sym(d->syms, idx);
		if (!s || s->addr != addr)
			continue;
		len = pk_sym_name_len(name);
		v[nv] = (struct pk_sym_alias){ name, idx, name[len] != 0 };
		if (v[nv].owned && !(v[nv].name = strndup(name, len)))
			err = -ENOMEM;
		else
			nv++;
	}
	qsort(v, nv, sizeof(*v), cmp_alias);
	for (size_t i = 0; i < nv; i = j) {
		bool one = true;

		for (j = i + 1; j < nv && !strcmp(v[j].name, v[i].name); j++)
			one &= v[j].idx == v[i].idx;
		for (size_t k = i; k < j; k++) {
			if (k == i && one && !err &&
			    strcmp(pk_symtab_sym(d->syms, v[i].idx)->name, v[i].name))
				v[out++] = v[i];
			else if (v[k].owned)
				free((char *)v[k].name);
		}
	}
	d->aliases = v;
	d->naliases = out;
	return err;
}

/* The function symbols, once, into a sorted table: libdwfl picks the best
 * table (.symtab, a separate debug file's, .dynsym plus MiniDebugInfo),
 * and dwfl_module_addrsym would scan it per address. */
int pk_symdata_load_symbols(struct pk_symdata *d)
{
	int n = dwfl_module_getsymtab(d->dm), err = 0;
	struct range *funcs = calloc(n > 0 ? n : 1, sizeof(*funcs));
	struct pk_sym *ifuncs = calloc(n > 0 ? n : 1, sizeof(*ifuncs));
	size_t nfuncs = 0, nifuncs = 0;
	struct plt_ctx plt = { 0 };
	GElf_Addr main_bias;

	d->syms = pk_symtab_new();
	if (!d->syms || !funcs || !ifuncs) {
		free(funcs);
		free(ifuncs);
		return -ENOMEM;
	}
	/* Two passes: sized functions first, then the unsized functions and
	 * the code labels outside them. */
	for (int pass = 0; pass < 2 && !err; pass++) {
		for (int i = 1; i < n && !err; i++) {
			GElf_Sym sym;
			GElf_Addr addr, bias;
			GElf_Word shndx;
			Elf *elf;
			const char *name = dwfl_module_getsym_info(d->dm, i, &sym, &addr, &shndx,
								   &elf, &bias);
			unsigned char type = GELF_ST_TYPE(sym.st_info);
			bool func = type == STT_FUNC || type == STT_GNU_IFUNC;
			bool label = name && type == STT_NOTYPE && is_code_label(elf, shndx, name);
			enum pk_sym_rank rank = label ? PK_SYM_LOCAL : rank_of(GELF_ST_BIND(sym.st_info));
			__u64 size = sym.st_size, end = ~0ULL;

			if (!name || !name[0] || shndx == SHN_UNDEF)
				continue;
			if (pass == 0 ? !func || !size :
			    (!func && !label) || size || in_ranges(funcs, nfuncs, addr))
				continue;
			if (size == 0)
				size = unsized_size(elf, shndx, sym.st_value, label, &end);
			if (pass == 0)
				funcs[nfuncs++] = (struct range){ addr, addr + sym.st_size };
			if (type == STT_GNU_IFUNC)
				ifuncs[nifuncs++] = (struct pk_sym){
					.addr = addr, .size = sym.st_size, .name = name, .rank = rank };
			name = function_name(name, &plt.buf, &plt.cap);
			err = name ? pk_symtab_add(d->syms, addr, size, name, rank) : -ENOMEM;
			/* the section's end, in the ELF's addresses as ADDR is */
			if (!err && size == 0 && end != ~0ULL)
				err = pk_symtab_add(d->syms, addr + (end - sym.st_value), 0, "",
						    PK_SYM_MARKER);
		}
		if (pass == 0 && nfuncs)
			qsort(funcs, nfuncs, sizeof(*funcs), cmp_range);
	}
	free(funcs);
	/* PLT stubs are in the file itself, not in a separate debug file */
	if (!err) {
		plt.syms = d->syms;
		plt.ifuncs = ifuncs;
		/* one per address, the best-ranked, for bsearch to find */
		qsort(ifuncs, nifuncs, sizeof(*ifuncs), pk_sym_cmp);
		for (size_t i = 0; i < nifuncs; i++)
			if (!plt.nifuncs || ifuncs[i].addr != ifuncs[plt.nifuncs - 1].addr)
				ifuncs[plt.nifuncs++] = ifuncs[i];
		err = pk_plt_for_each(dwfl_module_getelf(d->dm, &main_bias), add_plt, &plt);
	}
	free(plt.buf);
	free(ifuncs);
	if (err)
		return err;
	d->names = calloc(pk_symtab_count(d->syms) + 1, sizeof(*d->names));
	if (!d->names)
		return -ENOMEM;
	err = pk_symtab_finish(d->syms);
	return err ? err : load_aliases(d, n);
}

void pk_symdata_free(struct pk_symdata *d)
{
	size_t n = d->syms ? pk_symtab_count(d->syms) : 0;

	for (size_t i = 0; i < n; i++)
		if (d->names[i] != pk_symtab_sym(d->syms, i)->name)
			free((char *)d->names[i]);
	free(d->names);
	for (size_t i = 0; i < d->naliases; i++)
		if (d->aliases[i].owned)
			free((char *)d->aliases[i].name);
	free(d->aliases);
	pk_symtab_free(d->syms);
	if (d->locs)
		pk_loc_cache_save(d->locs);	/* an accelerator: errors only slow */
	pk_loc_cache_free(d->locs);
	free(d->opened);
	free(d->segs);
	pk_srcline_free(d->srcline);
	pk_gopclntab_free(d->go);
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d);
}

struct pk_symdata *pk_symdata_open(const Dwfl_Callbacks *cb, const char *path)
{
	struct pk_symdata *d = calloc(1, sizeof(*d));
	const unsigned char *bits;
	GElf_Addr vaddr;
	struct stat st;
	int len;

	if (!d)
		return NULL;
	d->dwfl = dwfl_begin(cb);
	if (!d->dwfl)
		goto fail;
	dwfl_report_begin(d->dwfl);
	d->dm = dwfl_report_elf(d->dwfl, path, path, -1, 0, true);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!d->dm)
		goto fail;
	len = dwfl_module_build_id(d->dm, &bits, &vaddr);
	if (len > 0 && len <= PK_BUILD_ID_MAX) {
		memcpy(d->build_id, bits, len);
		d->build_id_len = len;
	}
	if (stat(path, &st) == 0) {
		d->image_size = st.st_size;
		d->opened_st = st;
	}
	d->opened = strdup(path);
	if (!d->opened)
		goto fail;
	return d;
fail:
	pk_symdata_free(d);
	return NULL;
}

long pk_symdata_alias(const struct pk_symdata *d, const char *name)
{
	const struct pk_sym_alias key = { .name = name }, *a =
		bsearch(&key, d->aliases, d->naliases, sizeof(key), cmp_alias_name);

	return a ? a->idx : -1;
}
