// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The text form of a table, lined up with readelf --debug-dump=frames-interp
 * so the two can be compared row by row: readelf's LOC column format, its
 * register names and its "c-16"/"rsp+8" spelling.
 */
#include <errno.h>
#include <stdio.h>

#include "eh_frame/eh_internal.h"
#include "eh_frame/hex.h"

static const char *const x86_64_regs[] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

static const char *reg_name(__u8 reg, char *buf, size_t len)
{
	if (reg < sizeof(x86_64_regs) / sizeof(x86_64_regs[0]))
		return x86_64_regs[reg];
	snprintf(buf, len, "r%u", reg);
	return buf;
}

static const char *cfa_text(const struct pk_unwind_rule *r, char *buf, size_t len)
{
	char rb[16];

	switch (r->cfa_type) {
	case PK_CFA_END:
		return "end";
	case PK_CFA_RSP:
	case PK_CFA_RBP:
	case PK_CFA_REG:
		snprintf(buf, len, "%s%+d", reg_name(r->cfa_reg, rb, sizeof(rb)),
			 r->cfa_offset);
		return buf;
	case PK_CFA_PLT1:
		return "plt1";
	case PK_CFA_PLT2:
		return "plt2";
	case PK_CFA_DEREF:
		snprintf(buf, len, "*(%s%+d)%+d", reg_name(r->cfa_reg, rb, sizeof(rb)),
			 r->cfa_offset, r->cfa_deref_offset);
		return buf;
	case PK_CFA_SIGNAL:
		return "signal";
	default:
		return "unsupported";
	}
}

static const char *fp_text(const struct pk_unwind_rule *r, char *buf, size_t len)
{
	if (r->fp_type == PK_FP_UNCHANGED)
		return "u";
	if (r->fp_type == PK_FP_CFA_OFFSET) {
		snprintf(buf, len, "c%+d", r->fp_offset);
		return buf;
	}
	return "unsupported";
}

static const char *ra_text(const struct pk_unwind_rule *r, char *buf, size_t len)
{
	if (r->ra_type == PK_RA_UNDEFINED)
		return "u";
	if (r->ra_type == PK_RA_CFA_OFFSET) {
		snprintf(buf, len, "c%+d", r->ra_offset);
		return buf;
	}
	if (r->ra_type == PK_RA_REGISTER)	/* readelf: "r5 (rdi)" */
		return reg_name(r->ra_reg, buf, len);
	return "unsupported";
}

/* A callee-saved register's column, spelled as the RBP column. */
static const char *saved_text(__s8 saved, char *buf, size_t len)
{
	if (saved == PK_SAVED_SAME)
		return "u";
	if (saved == PK_SAVED_UNKNOWN)
		return "unsupported";
	snprintf(buf, len, "c%+d", saved * 8);
	return buf;
}

int eh_unwind_table_dump(const struct eh_unwind_table *t, FILE *out)
{
	const struct pk_unwind_header *h = t->buf;
	const __u32 *pcs = (const __u32 *)((const char *)t->buf + h->pcs_off);
	const __u16 *ids = (const __u16 *)((const char *)t->buf + h->rule_ids_off);
	const struct pk_unwind_rule *rules =
		(const struct pk_unwind_rule *)((const char *)t->buf + h->rules_off);
	char hex[2 * PK_UNWIND_BUILD_ID_MAX + 1] = "none";
	__u32 i;

	if (h->build_id_len)
		eh_hex(h->build_id, h->build_id_len, hex, sizeof(hex));
	fprintf(out, "# probekit unwind table v%u arch %u build-id %s\n",
		h->version, h->arch, hex);
	fprintf(out, "# rows %u rules %u bytes %zu range 0x%llx-0x%llx sources%s%s%s\n",
		h->nrows, h->nrules, t->size, (unsigned long long)h->pc_base,
		(unsigned long long)h->pc_end,
		h->flags & PK_UNWIND_HAS_EH_FRAME ? " .eh_frame" : "",
		h->flags & PK_UNWIND_HAS_DEBUG_FRAME ? " .debug_frame" : "",
		h->flags & PK_UNWIND_HAS_GOPCLNTAB ? " .gopclntab" : "");
	fprintf(out, "# pc cfa rbp ra rbx r12 r13 r14 r15\n");
	for (i = 0; i < h->nrows; i++) {
		const struct pk_unwind_rule *r = &rules[ids[i]];
		char cb[48], fb[16], rb[16], sb[PK_UNWIND_NSAVED][16];

		fprintf(out, "%016llx %s %s %s",
			(unsigned long long)(h->pc_base + pcs[i]),
			cfa_text(r, cb, sizeof(cb)), fp_text(r, fb, sizeof(fb)),
			ra_text(r, rb, sizeof(rb)));
		for (int k = 0; k < PK_UNWIND_NSAVED; k++)
			fprintf(out, " %s", saved_text(r->saved[k], sb[k], sizeof(sb[k])));
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}
