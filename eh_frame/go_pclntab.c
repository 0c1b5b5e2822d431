// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The core of a Go .gopclntab (go_pclntab.h): the header, the function
 * table, the pc-value tables, and where a file keeps them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/go_pclntab.h"

#define MAGIC_GO12	0xfffffffbu
#define MAGIC_GO116	0xfffffffau
#define MAGIC_GO118	0xfffffff0u
#define MAGIC_GO120	0xfffffff1u

const char *pk_gopclntab_layout(const struct pk_gopclntab *t)
{
	return t->magic == MAGIC_GO118 ? "1.18-1.19" : "1.20+";
}

/* --- the header ------------------------------------------------------------ */

static int refuse(__u32 magic, char err[PK_ERR_LEN])
{
	if (magic == MAGIC_GO12 || magic == MAGIC_GO116)
		return pk_err(err, -ENOTSUP, "Go .gopclntab of Go %s (magic 0x%08x) is not read "
			      "(Go 1.18 and later are): its functions stay named by address",
			      magic == MAGIC_GO12 ? "1.2-1.15" : "1.16-1.17", magic);
	return pk_err(err, -ENOTSUP, "Go .gopclntab of an unknown layout (magic 0x%08x; "
		      "Go 1.18 to 1.27's are read): its functions stay named by address", magic);
}

int pk_gopclntab_open(const struct pk_gopclntab_src *src, struct pk_gopclntab **out,
		      char err[PK_ERR_LEN])
{
	const __u8 *h = src->tab;
	struct pk_gopclntab *t;
	__u64 off[5], text, nfunc;
	unsigned ps;
	__u32 magic;

	*out = NULL;
	if (src->len < 8)
		return -ENOENT;
	magic = pk_go_rd32(h);
	if ((magic & 0xfffffff0u) != 0xfffffff0u || h[4] || h[5])
		return -ENOENT;
	if (magic != MAGIC_GO118 && magic != MAGIC_GO120)
		return refuse(magic, err);
	ps = h[7];
	if ((ps != 4 && ps != 8) || !h[6] || src->len < 8 + 8 * (size_t)ps)
		return pk_err(err, -EINVAL, "Go .gopclntab: bad header (pointer size %u, "
			      "quantum %u, %zu bytes)", ps, h[6], src->len);
	/* nfunc, nfiles, textStart, then the offsets of funcnametab, cutab,
	 * filetab, pctab and the function table, each from the header */
	for (int i = 0; i < 5; i++) {
		off[i] = pk_go_rdptr(h + 8 + (3 + i) * ps, ps);
		if (off[i] > src->len || (i && off[i] < off[i - 1]))
			return pk_err(err, -EINVAL, "Go .gopclntab: its parts are out of order "
				      "or past its %zu bytes", src->len);
	}
	text = src->text ? src->text : pk_go_rdptr(h + 8 + 2 * ps, ps);
	if (!text)
		return pk_err(err, -EINVAL, "Go .gopclntab: no text address");
	/* the function table: nfunc + 1 (entry offset, _func offset), the
	 * last one's entry the end of the text */
	nfunc = pk_go_rdptr(h + 8, ps);
	if (nfunc >= (src->len - off[4]) / 8)
		return pk_err(err, -EINVAL, "Go .gopclntab: %llu functions do not fit its table",
			      (unsigned long long)nfunc);
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->magic = magic;
	t->quantum = h[6];
	t->nfunc = nfunc;
	t->text = text;
	t->funcname = (struct pk_gopart){ h + off[0], off[1] - off[0] };
	t->cutab = (struct pk_gopart){ h + off[1], off[2] - off[1] };
	t->filetab = (struct pk_gopart){ h + off[2], off[3] - off[2] };
	t->pctab = (struct pk_gopart){ h + off[3], off[4] - off[3] };
	t->pcln = (struct pk_gopart){ h + off[4], src->len - off[4] };
	if (src->gofunc)
		t->gofunc = (struct pk_gopart){ src->gofunc, src->gofunc_len };
	/* Go 1.20 added _func.startLine and made inlinedCall
	 * {funcID, _ [3]byte, nameOff, parentPc, startLine}; before, it was
	 * {parent int16, funcID, _, file, line, func_ (the name), parentPc} */
	if (magic == MAGIC_GO118) {
		t->func_size = 40;
		t->inl_size = 20;
		t->inl_name = 12;
		t->inl_parent_pc = 16;
	} else {
		t->func_size = 44;
		t->inl_size = 16;
		t->inl_name = 4;
		t->inl_parent_pc = 8;
	}
	*out = t;
	return 0;
}

void pk_gopclntab_free(struct pk_gopclntab *t)
{
	free(t);
}

/* --- functions ------------------------------------------------------------ */

bool pk_gopclntab_func_at(const struct pk_gopclntab *t, __u64 i, struct pk_gofunc *fn)
{
	const __u8 *ftab = t->pcln.p;
	__u32 funcoff;

	if (i >= t->nfunc)
		return false;
	funcoff = pk_go_rd32(ftab + 8 * i + 4);
	if (funcoff > t->pcln.len || t->pcln.len - funcoff < t->func_size)
		return false;
	fn->f = t->pcln.p + funcoff;
	fn->entry = t->text + pk_go_rd32(fn->f);
	fn->end = t->text + pk_go_rd32(ftab + 8 * (i + 1));
	fn->npcdata = pk_go_rd32(fn->f + PK_GOFUNC_NPCDATA);
	fn->nfuncdata = fn->f[t->func_size - 1];
	/* its pcdata and funcdata offsets follow it */
	return t->pcln.len - funcoff - t->func_size >= 4 * ((__u64)fn->npcdata + fn->nfuncdata);
}

bool pk_gopclntab_find_func(const struct pk_gopclntab *t, __u64 pc, struct pk_gofunc *fn)
{
	const __u8 *ftab = t->pcln.p;
	__u64 lo = 0, hi = t->nfunc, off;

	if (pc < t->text || !t->nfunc)
		return false;
	off = pc - t->text;
	if (off < pk_go_rd32(ftab) || off >= pk_go_rd32(ftab + 8 * t->nfunc))
		return false;
	/* the last entry at or before OFF (the table is sorted; a bad one
	 * still ends the search, and the check below refuses its answer) */
	while (hi - lo > 1) {
		__u64 mid = lo + (hi - lo) / 2;

		if (pk_go_rd32(ftab + 8 * mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (pk_go_rd32(ftab + 8 * lo) > off || pk_go_rd32(ftab + 8 * (lo + 1)) <= off)
		return false;
	return pk_gopclntab_func_at(t, lo, fn) && fn->entry <= pc;
}

/* --- pc-value tables ------------------------------------------------------- */

/* An unsigned varint of the pc-value tables (7-bit groups, least
 * significant first) from *P, before END. */
static bool read_uvarint(const __u8 **p, const __u8 *end, __u32 *v)
{
	__u32 val = 0;

	for (unsigned shift = 0; shift < 35 && *p < end; shift += 7) {
		__u8 b = *(*p)++;

		val |= (__u32)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = val;
			return true;
		}
	}
	return false;
}

bool pk_gopcv_begin(const struct pk_gopclntab *t, __u32 off, __u64 entry, struct pk_gopcv *it)
{
	if (!off || off >= t->pctab.len)
		return false;
	it->p = t->pctab.p + off;
	it->end = t->pctab.p + t->pctab.len;
	it->value = (__u32)-1;
	it->pc = it->next = entry;
	it->first = true;
	return true;
}

/* Pairs (value delta, zig-zag; pc delta, in quanta), from value -1 at the
 * entry; a value delta of 0 after the first pair ends the table. */
bool pk_gopcv_next(const struct pk_gopclntab *t, struct pk_gopcv *it)
{
	__u32 uv, pcd;

	if (!read_uvarint(&it->p, it->end, &uv) || (!uv && !it->first))
		return false;
	it->first = false;
	it->value += -(uv & 1) ^ (uv >> 1);
	if (!read_uvarint(&it->p, it->end, &pcd))
		return false;
	it->pc = it->next;
	it->next += (__u64)pcd * t->quantum;
	return true;
}

bool pk_gopclntab_pc_value(const struct pk_gopclntab *t, __u32 off, __u64 entry, __u64 pc,
			   __s32 *val)
{
	struct pk_gopcv it;

	if (!pk_gopcv_begin(t, off, entry, &it))
		return false;
	while (pk_gopcv_next(t, &it)) {
		if (pc < it.next) {
			*val = (__s32)it.value;
			return true;
		}
	}
	return false;
}

/* --- the ELF front end ----------------------------------------------------- */

/* Section NAME of ELF (its header into *SH), or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* The bytes of SCN (a section with contents in the file), or false. */
static bool section_bytes(Elf_Scn *scn, const GElf_Shdr *sh, struct pk_gopart *part)
{
	Elf_Data *data = sh->sh_type == SHT_NOBITS ? NULL : elf_rawdata(scn, NULL);

	if (!data || !data->d_buf || data->d_size != sh->sh_size)
		return false;
	part->p = data->d_buf;
	part->len = data->d_size;
	return true;
}

/* The bytes of ELF from address ADDR to the end of the section holding
 * it, among the sections whose flags masked by MASK are WANT. */
static bool bytes_at(Elf *elf, __u64 addr, GElf_Xword mask, GElf_Xword want, struct pk_gopart *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		struct pk_gopart part;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_flags & mask) != want ||
		    addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size ||
		    !section_bytes(scn, &sh, &part))
			continue;
		out->p = part.p + (addr - sh.sh_addr);
		out->len = part.len - (addr - sh.sh_addr);
		return true;
	}
	return false;
}

/* moduledata's words (runtime/symtab.go, Go 1.18 to 1.27): pcHeader, six
 * slices (ptr, len, cap), findfunctab, minpc, maxpc, text. */
#define MD_FUNCNAMETAB	1
#define MD_TEXT		22
/* rodata then gofunc come after the per-section bounds, at word 37 (Go
 * 1.18-1.19), 39 (1.20-1.26) or 42 (1.27, which added type and itab
 * bounds): looked for in these words */
#define MD_GOFUNC_FIRST	30
#define MD_GOFUNC_LAST	48

/*
 * runtime.firstmoduledata: the words in ELF's writable data whose first is
 * the table's address TAB_ADDR and whose second its funcnametab's (at
 * FUNCNAME_OFF from it), into *TEXT and *GOFUNC (go:func.*, 0: not
 * found). False when no such words are there (a PIE's are relocations).
 */
static bool find_moduledata(Elf *elf, __u64 tab_addr, __u64 funcname_off, unsigned ps,
			    __u64 *text, __u64 *gofunc)
{
	GElf_Shdr rodata_sh, sh;
	Elf_Scn *scn = NULL;
	bool have_rodata = section_named(elf, ".rodata", &rodata_sh) != NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		struct pk_gopart part;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_WRITE)) != (SHF_ALLOC | SHF_WRITE) ||
		    !section_bytes(scn, &sh, &part))
			continue;
		for (size_t at = 0; part.len >= ps * (MD_GOFUNC_LAST + 1) &&
		     at <= part.len - ps * (MD_GOFUNC_LAST + 1); at += ps) {
			const __u8 *w = part.p + at;
			struct pk_gopart go;

			if (pk_go_rdptr(w, ps) != tab_addr ||
			    pk_go_rdptr(w + MD_FUNCNAMETAB * ps, ps) != tab_addr + funcname_off)
				continue;
			*text = pk_go_rdptr(w + MD_TEXT * ps, ps);
			*gofunc = 0;
			/* gofunc follows the last word that is .rodata's
			 * address (types may be it too), and is read-only data */
			for (int i = MD_GOFUNC_LAST - 1; have_rodata && i >= MD_GOFUNC_FIRST; i--) {
				__u64 g = pk_go_rdptr(w + (i + 1) * ps, ps);

				if (pk_go_rdptr(w + i * ps, ps) == rodata_sh.sh_addr &&
				    bytes_at(elf, g, SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR,
					     SHF_ALLOC, &go)) {
					*gofunc = g;
					break;
				}
			}
			return true;
		}
	}
	return false;
}

int pk_gopclntab_from_elf(Elf *elf, struct pk_gopclntab **out, char err[PK_ERR_LEN])
{
	struct pk_gopclntab_src src = { 0 };
	__u64 text = 0, gofunc = 0;
	const char *ident;
	struct pk_gopart tab, go;
	Elf_Scn *scn;
	GElf_Shdr sh, text_sh;
	unsigned ps;

	*out = NULL;
	ident = elf_getident(elf, NULL);
	/* a PIE's (-buildmode=pie) is relocated: among the RELRO data */
	scn = section_named(elf, ".gopclntab", &sh);
	if (!scn)
		scn = section_named(elf, ".data.rel.ro.gopclntab", &sh);
	if (!scn || !ident)
		return -ENOENT;
	if (ident[EI_DATA] != ELFDATA2LSB)
		return pk_err(err, -ENOTSUP, "Go .gopclntab of a big-endian file is not read");
	if (!section_bytes(scn, &sh, &tab) || tab.len < 8 + 8 * 4)
		return pk_err(err, -EINVAL, "Go .gopclntab: not in the file");
	src.tab = tab.p;
	src.len = tab.len;
	ps = tab.p[7];
	if ((ps == 4 || ps == 8) && tab.len >= 8 + 8 * (size_t)ps &&
	    find_moduledata(elf, sh.sh_addr, pk_go_rdptr(tab.p + 8 + 3 * ps, ps), ps, &text, &gofunc)) {
		src.text = text;
		if (gofunc && bytes_at(elf, gofunc, SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR,
				       SHF_ALLOC, &go)) {
			src.gofunc = go.p;
			src.gofunc_len = go.len;
		}
	}
	/* without moduledata (a PIE's words are relocations), runtime.text
	 * is where the linker puts it: at .text's start (the header's
	 * textStart, when there is one, is taken first) */
	if (!src.text && pk_go_rdptr(tab.p + 8 + 2 * ps, ps) == 0 &&
	    section_named(elf, ".text", &text_sh))
		src.text = text_sh.sh_addr;
	return pk_gopclntab_open(&src, out, err);
}
