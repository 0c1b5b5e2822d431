// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CIE/FDE container walk of .eh_frame and .debug_frame: entry lengths
 * (32- and 64-bit DWARF), CIE augmentations, FDE address ranges with their
 * pointer encodings. Every length is checked against the section, so a
 * truncated or hostile section fails with a reason instead of being read
 * out of bounds. The instructions themselves are left to cfi_interp.c.
 *
 * Our own walk rather than libdw's dwarf_next_cfi: the FDE ranges need our
 * pointer decoding anyway, and owning the bounds checks keeps the fuzz
 * target's surface in one place.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/dwarf_read.h"
#include "eh_frame/eh_internal.h"
#include "lib/util/array.h"

/* DW_EH_PE_* */
#define PE_ABSPTR	0x00
#define PE_ULEB128	0x01
#define PE_UDATA2	0x02
#define PE_UDATA4	0x03
#define PE_UDATA8	0x04
#define PE_SLEB128	0x09
#define PE_SDATA2	0x0a
#define PE_SDATA4	0x0b
#define PE_SDATA8	0x0c
#define PE_PCREL	0x10
#define PE_INDIRECT	0x80
#define PE_OMIT		0xff

/* Only the value format of ENC (low nibble): used for address ranges and to
 * skip personality pointers. -EINVAL for an unknown format, -ENODATA when
 * the data runs out. */
static int read_encoded_value(struct dw_cursor *c, __u8 enc, __u8 addr_size,
			      __u64 *out)
{
	switch (enc & 0x0f) {
	case PE_ABSPTR:
		*out = addr_size == 4 ? dw_u32(c) : dw_u64(c);
		break;
	case PE_ULEB128:
		*out = dw_uleb(c);
		break;
	case PE_UDATA2:
		*out = dw_u16(c);
		break;
	case PE_UDATA4:
		*out = dw_u32(c);
		break;
	case PE_UDATA8:
	case PE_SDATA8:
		*out = dw_u64(c);
		break;
	case PE_SLEB128:
		*out = (__u64)dw_sleb(c);
		break;
	case PE_SDATA2:
		*out = (__u64)(__s64)(__s16)dw_u16(c);
		break;
	case PE_SDATA4:
		*out = (__u64)(__s64)(__s32)dw_u32(c);
		break;
	default:
		return -EINVAL;
	}
	return c->bad ? -ENODATA : 0;
}

int dw_read_pointer(struct dw_cursor *c, __u8 enc, __u64 field_vaddr,
		    __u8 addr_size, __u64 *out)
{
	int ret;

	/* Indirect pointers would need the loaded image; textrel, datarel,
	 * funcrel and aligned are not used for x86_64 code addresses. */
	if (enc == PE_OMIT || (enc & PE_INDIRECT) || (enc & 0x70) > PE_PCREL)
		return -EINVAL;
	ret = read_encoded_value(c, enc, addr_size, out);
	if (ret)
		return ret;
	if ((enc & 0x70) == PE_PCREL)
		*out += field_vaddr;
	return 0;
}

static __u64 vaddr_of(const struct cfi_section *s, const __u8 *p)
{
	return s->vaddr + (__u64)(p - s->data);
}

/* A byte of the input as a message quotes it: a control character there
 * must not split or garble the one error line. */
static char quotable(char ch)
{
	return (unsigned char)ch < 0x20 || ch == 0x7f ? '?' : ch;
}

/* An augmentation string as a message quotes it, in BUF. */
static const char *quotable_str(const char *s, char buf[PK_ERR_LEN])
{
	size_t i;

	for (i = 0; s[i] && i < PK_ERR_LEN - 1; i++)
		buf[i] = quotable(s[i]);
	buf[i] = '\0';
	return buf;
}

/* Augmentation string and data of a CIE, C positioned after the string. */
static int parse_augmentation(struct cfi_section *s, struct cfi_cie *cie,
			      const char *aug, struct dw_cursor *c,
			      char err[PK_ERR_LEN])
{
	struct dw_cursor data;
	char quoted[PK_ERR_LEN];
	const char *a;
	__u64 len, ignored;

	if (!*aug)
		return 0;
	if (!strcmp(aug, "eh")) {	/* ancient GCC: an address follows */
		dw_skip(c, cie->addr_size);
		return 0;
	}
	if (aug[0] != 'z') {
		/* No 'z': no augmentation data, so only letters that carry
		 * none can be understood. gas writes "S" into the .debug_frame
		 * CIE of a .cfi_signal_frame function. */
		for (a = aug; *a == 'S'; a++)
			cie->signal = true;
		if (*a)
			return pk_err(err, -EINVAL, "%s: CIE at 0x%llx: unknown augmentation \"%s\"",
				       s->name, (unsigned long long)cie->offset,
				       quotable_str(aug, quoted));
		return 0;
	}
	cie->has_z = true;
	len = dw_uleb(c);
	if (c->bad || len > dw_left(c))
		return pk_err(err, -EINVAL, "%s: CIE at 0x%llx: augmentation data runs past the entry",
			       s->name, (unsigned long long)cie->offset);
	data = (struct dw_cursor){ .p = c->p, .end = c->p + len };
	c->p += len;

	for (a = aug + 1; *a; a++) {
		int ret = 0;
		__u8 enc;

		switch (*a) {
		case 'R':
			cie->fde_enc = dw_u8(&data);
			break;
		case 'L':
			dw_u8(&data);	/* LSDA encoding: FDE data we skip */
			break;
		case 'P':
			enc = dw_u8(&data);
			if ((enc & 0x70) > PE_PCREL)
				ret = -EINVAL;
			else
				ret = read_encoded_value(&data, enc, cie->addr_size,
							 &ignored);
			break;
		case 'S':
			cie->signal = true;
			break;
		case 'B':	/* arm64 BTI-protected frames: nothing to read */
		case 'G':	/* arm64 MTE-tagged frames */
			break;
		default:
			return pk_err(err, -EINVAL, "%s: CIE at 0x%llx: unknown augmentation '%c' in \"%s\"",
				       s->name, (unsigned long long)cie->offset,
				       quotable(*a), quotable_str(aug, quoted));
		}
		if (ret || data.bad)
			return pk_err(err, -EINVAL, "%s: CIE at 0x%llx: bad augmentation data for '%c'",
				       s->name, (unsigned long long)cie->offset, *a);
	}
	return 0;
}

static int parse_cie(struct cfi_section *s, struct cfi_cie *cie,
		     struct dw_cursor *c, char err[PK_ERR_LEN])
{
	const char *aug = (const char *)c->p;
	const __u8 *nul = memchr(c->p, 0, dw_left(c));
	int ret;

	if (!cie->version || cie->version == 2 || cie->version > 4 ||
	    (s->eh_frame && cie->version == 4))
		return pk_err(err, -EINVAL, "%s: CIE at 0x%llx: unsupported version %u",
			       s->name, (unsigned long long)cie->offset, cie->version);
	if (!nul)
		return pk_err(err, -EINVAL, "%s: CIE at 0x%llx: unterminated augmentation string",
			       s->name, (unsigned long long)cie->offset);
	c->p = nul + 1;
	cie->addr_size = 8;
	if (cie->version >= 4) {
		__u8 seg_size;

		cie->addr_size = dw_u8(c);
		seg_size = dw_u8(c);
		if (!c->bad && ((cie->addr_size != 4 && cie->addr_size != 8) || seg_size))
			return pk_err(err, -EINVAL, "%s: CIE at 0x%llx: unsupported address size %u / segment size %u",
				       s->name, (unsigned long long)cie->offset,
				       cie->addr_size, seg_size);
	}
	cie->code_align = dw_uleb(c);
	cie->data_align = dw_sleb(c);
	cie->ra_reg = cie->version == 1 ? dw_u8(c) : dw_uleb(c);
	if (c->bad)
		return pk_err(err, -EINVAL, "%s: CIE at 0x%llx: truncated header",
			       s->name, (unsigned long long)cie->offset);
	cie->fde_enc = PE_ABSPTR;
	ret = parse_augmentation(s, cie, aug, c, err);
	if (ret)
		return ret;
	if (c->bad)
		return pk_err(err, -EINVAL, "%s: CIE at 0x%llx: truncated augmentation",
			       s->name, (unsigned long long)cie->offset);
	cie->insns = c->p;
	cie->insns_end = c->end;
	return 0;
}

/* Pass 1: find the entries. FDEs remember their CIE's offset in ->cie_off
 * until pass 2 resolves it (a CIE may follow its FDEs). */
struct raw_fde {
	__u64 offset, cie_off;
	const __u8 *body, *end;
};

static int walk_entries(struct cfi_section *s, struct raw_fde **raw,
			size_t *nraw, char err[PK_ERR_LEN])
{
	size_t cie_cap = 0, raw_cap = 0;
	__u64 off = 0;

	while (off < s->size) {
		struct dw_cursor c = { .p = s->data + off, .end = s->data + s->size };
		__u64 len, id, id_pos;
		unsigned int offsz = 4;
		const __u8 *entry_end;

		len = dw_u32(&c);
		if (c.bad)
			return pk_err(err, -EINVAL, "%s: truncated entry length at 0x%llx",
				       s->name, (unsigned long long)off);
		if (len == 0) {		/* terminator (or padding): go on */
			off += 4;
			continue;
		}
		if (len == 0xffffffffu) {
			len = dw_u64(&c);
			offsz = 8;
		} else if (len >= 0xfffffff0u) {
			return pk_err(err, -EINVAL, "%s: entry at 0x%llx: reserved length 0x%llx",
				       s->name, (unsigned long long)off,
				       (unsigned long long)len);
		}
		if (c.bad || len > dw_left(&c) || len < offsz)
			return pk_err(err, -EINVAL, "%s: entry at 0x%llx: length 0x%llx runs past the end of the section (0x%zx bytes)",
				       s->name, (unsigned long long)off,
				       (unsigned long long)len, s->size);
		entry_end = c.p + len;
		c.end = entry_end;
		id_pos = (__u64)(c.p - s->data);
		id = offsz == 4 ? dw_u32(&c) : dw_u64(&c);

		if (s->eh_frame ? id == 0 : id == (offsz == 4 ? 0xffffffffull : ~0ull)) {
			struct cfi_cie *cie;
			int ret;

			if (pk_array_reserve((void **)&s->cies, &cie_cap, sizeof(*s->cies),
					     s->ncies + 1, 64))
				return pk_err(err, -ENOMEM, "out of memory");
			cie = &s->cies[s->ncies];
			memset(cie, 0, sizeof(*cie));
			cie->offset = off;
			cie->version = dw_u8(&c);
			ret = parse_cie(s, cie, &c, err);
			if (ret)
				return ret;
			s->ncies++;
		} else {
			struct raw_fde *r;

			if (pk_array_reserve((void **)raw, &raw_cap, sizeof(**raw), *nraw + 1, 64))
				return pk_err(err, -ENOMEM, "out of memory");
			r = &(*raw)[(*nraw)++];
			r->offset = off;
			/* .eh_frame: distance back from the field itself */
			r->cie_off = s->eh_frame ? id_pos - id : id;
			r->body = c.p;
			r->end = entry_end;
		}
		off = (__u64)(entry_end - s->data);
	}
	return 0;
}

static const struct cfi_cie *find_cie(const struct cfi_section *s, __u64 off,
				      __u32 *idx)
{
	size_t lo = 0, hi = s->ncies;

	while (lo < hi) {	/* CIEs were found in section order */
		size_t mid = lo + (hi - lo) / 2;

		if (s->cies[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->ncies || s->cies[lo].offset != off)
		return NULL;
	*idx = (__u32)lo;
	return &s->cies[lo];
}

static int resolve_fde(struct cfi_section *s, const struct raw_fde *r,
		       struct cfi_fde *fde, char err[PK_ERR_LEN])
{
	struct dw_cursor c = { .p = r->body, .end = r->end };
	const struct cfi_cie *cie;
	__u64 range;
	int ret;

	cie = find_cie(s, r->cie_off, &fde->cie);
	if (!cie)
		return pk_err(err, -EINVAL, "%s: FDE at 0x%llx: CIE pointer 0x%llx is not a CIE",
			       s->name, (unsigned long long)r->offset,
			       (unsigned long long)r->cie_off);
	fde->offset = r->offset;
	if (s->eh_frame)
		ret = dw_read_pointer(&c, cie->fde_enc, vaddr_of(s, c.p),
				      cie->addr_size, &fde->pc_begin);
	else
		ret = read_encoded_value(&c, PE_ABSPTR, cie->addr_size,
					 &fde->pc_begin);
	if (!ret)
		ret = read_encoded_value(&c, s->eh_frame ? cie->fde_enc : PE_ABSPTR,
					 cie->addr_size, &range);
	if (ret == -EINVAL)
		return pk_err(err, -EINVAL, "%s: FDE at 0x%llx: unsupported pointer encoding 0x%02x",
			       s->name, (unsigned long long)r->offset, cie->fde_enc);
	if (ret)
		return pk_err(err, -EINVAL, "%s: FDE at 0x%llx: truncated address range",
			       s->name, (unsigned long long)r->offset);
	if (cie->addr_size == 4) {
		fde->pc_begin &= 0xffffffffu;
		range &= 0xffffffffu;
	}
	fde->pc_end = fde->pc_begin + range;
	if (fde->pc_end < fde->pc_begin)
		return pk_err(err, -EINVAL, "%s: FDE at 0x%llx: address range wraps around",
			       s->name, (unsigned long long)r->offset);
	if (cie->has_z) {
		__u64 len = dw_uleb(&c);

		dw_skip(&c, len);
		if (c.bad)
			return pk_err(err, -EINVAL, "%s: FDE at 0x%llx: augmentation data runs past the entry",
				       s->name, (unsigned long long)r->offset);
	}
	fde->insns = c.p;
	fde->insns_end = c.end;
	return 0;
}

int eh_cfi_section_parse(struct cfi_section *s, const void *data, size_t size,
		      __u64 vaddr, bool eh_frame, char err[PK_ERR_LEN])
{
	struct raw_fde *raw = NULL;
	size_t nraw = 0, i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->data = data;
	s->size = size;
	s->vaddr = vaddr;
	s->eh_frame = eh_frame;
	s->name = eh_frame ? ".eh_frame" : ".debug_frame";

	ret = walk_entries(s, &raw, &nraw, err);
	if (ret)
		goto out;
	s->fdes = calloc(nraw ? nraw : 1, sizeof(*s->fdes));
	if (!s->fdes) {
		ret = pk_err(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nraw; i++) {
		ret = resolve_fde(s, &raw[i], &s->fdes[i], err);
		if (ret)
			goto out;
	}
	s->nfdes = nraw;
out:
	free(raw);
	if (ret)
		eh_cfi_section_free(s);
	return ret;
}

void eh_cfi_section_free(struct cfi_section *s)
{
	free(s->cies);
	free(s->fdes);
	s->cies = NULL;
	s->fdes = NULL;
	s->ncies = s->nfdes = 0;
}
