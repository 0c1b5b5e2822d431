// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/array.h"
#include "symbolization/plt.h"

/* A GOT slot a stub may jump through, and whose address it receives. */
struct slot {
	__u64 addr;
	const char *sym;	/* NULL: IRELATIVE */
	__u64 ifunc;
};

struct slots {
	struct slot *v;
	size_t n, cap;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int slots_add(struct slots *s, struct slot v)
{
	if (pk_array_reserve((void **)&s->v, &s->cap, sizeof(*s->v), s->n + 1, 64))
		return -ENOMEM;
	s->v[s->n++] = v;
	return 0;
}

static const struct slot *slots_find(const struct slots *s, __u64 addr)
{
	struct slot key = { .addr = addr };

	return s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_slot) : NULL;
}

/* The slots of one dynamic relocation section (its symbols in .dynsym). */
static int read_relocs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct slots *out)
{
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh_mem, *symsh = symscn ? gelf_getshdr(symscn, &symsh_mem) : NULL;
	Elf_Data *rel = elf_getdata(scn, NULL);
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	if (!symsh || symsh->sh_type != SHT_DYNSYM || !rel || !rel->d_buf || !syms)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		struct slot s;
		const char *name;

		if (!gelf_getrela(rel, (int)i, &r))
			break;
		switch (GELF_R_TYPE(r.r_info)) {
		case R_X86_64_JUMP_SLOT:
		case R_X86_64_GLOB_DAT:
			if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			name = elf_strptr(elf, symsh->sh_link, sym.st_name);
			/* GLOB_DAT slots of data are no stub's */
			if (!name || !name[0] || GELF_ST_TYPE(sym.st_info) == STT_OBJECT)
				continue;
			s = (struct slot){ r.r_offset, name, 0 };
			break;
		case R_X86_64_IRELATIVE:
			s = (struct slot){ r.r_offset, NULL, (__u64)r.r_addend };
			break;
		default:
			continue;
		}
		if (slots_add(out, s))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The GOT slot the stub at P (LEN bytes, at ADDR) jumps through: its first
 * instruction, after an endbr64 and a bnd prefix, is jmp *disp32(%rip).
 * 0: it is no such stub (the resolver's entry, an IBT .plt's lazy half).
 */
static __u64 stub_slot(const unsigned char *p, size_t len, __u64 addr)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t i = 0;
	__s32 disp;

	if (len >= sizeof(endbr64) && !memcmp(p, endbr64, sizeof(endbr64)))
		i += sizeof(endbr64);
	if (i < len && p[i] == 0xf2)	/* bnd */
		i++;
	if (i + 6 > len || p[i] != 0xff || p[i + 1] != 0x25)
		return 0;
	memcpy(&disp, p + i + 2, sizeof(disp));	/* x86 is little-endian */
	return addr + i + 6 + (__s64)disp;
}

static bool is_plt_section(const char *name)
{
	return name && (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") ||
			!strcmp(name, ".plt.got"));
}

static int walk_stubs(Elf *elf, size_t shstrndx, const struct slots *slots, pk_plt_fn fn,
		      void *ctx)
{
	Elf_Scn *scn = NULL;
	int ret = 0;

	while (!ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		Elf_Data *d;
		__u64 ent;

		if (!sh || sh->sh_type != SHT_PROGBITS || !(sh->sh_flags & SHF_EXECINSTR) ||
		    !is_plt_section(elf_strptr(elf, shstrndx, sh->sh_name)))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh->sh_size)
			continue;
		ent = sh->sh_entsize ? sh->sh_entsize : 16;
		for (__u64 off = 0; !ret && off + ent <= sh->sh_size; off += ent) {
			__u64 at = stub_slot((const unsigned char *)d->d_buf + off, ent,
					     sh->sh_addr + off);
			const struct slot *s = at ? slots_find(slots, at) : NULL;

			if (s)
				ret = fn(ctx, sh->sh_addr + off, ent, s->sym, s->ifunc);
		}
	}
	return ret;
}

int pk_plt_for_each(Elf *elf, pk_plt_fn fn, void *ctx)
{
	struct slots slots = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	int ret = 0;

	if (!elf || !gelf_getehdr(elf, &ehdr) || ehdr.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);

		if (sh && sh->sh_type == SHT_RELA && (sh->sh_flags & SHF_ALLOC))
			ret = read_relocs(elf, scn, sh, &slots);
	}
	if (!ret && slots.n) {
		qsort(slots.v, slots.n, sizeof(*slots.v), cmp_slot);
		ret = walk_stubs(elf, shstrndx, &slots, fn, ctx);
	}
	free(slots.v);
	return ret;
}
