// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The call-frame instruction interpreter: runs a CIE's initial instructions
 * and an FDE's program into rows (start pc + the CFA, frame-pointer and
 * return-address rules). Only those three are tracked; instructions on
 * other registers are decoded (to stay in step) and ignored.
 *
 * The work is linear in the program's bytes: there are no jumps in CFI,
 * every row needs an advance of at least one byte, advances may not leave
 * the FDE, and remember_state nesting is capped. An opcode we do not know
 * cannot be skipped (its length is unknown), so it marks the rest of the
 * FDE unsupported rather than failing the whole file; malformed operands
 * and impossible advances are errors.
 */
#include <errno.h>
#include <string.h>

#include "eh_frame/dwarf_read.h"
#include "eh_frame/eh_internal.h"

enum {
	DW_CFA_nop = 0x00,
	DW_CFA_set_loc = 0x01,
	DW_CFA_advance_loc1 = 0x02,
	DW_CFA_advance_loc2 = 0x03,
	DW_CFA_advance_loc4 = 0x04,
	DW_CFA_offset_extended = 0x05,
	DW_CFA_restore_extended = 0x06,
	DW_CFA_undefined = 0x07,
	DW_CFA_same_value = 0x08,
	DW_CFA_register = 0x09,
	DW_CFA_remember_state = 0x0a,
	DW_CFA_restore_state = 0x0b,
	DW_CFA_def_cfa = 0x0c,
	DW_CFA_def_cfa_register = 0x0d,
	DW_CFA_def_cfa_offset = 0x0e,
	DW_CFA_def_cfa_expression = 0x0f,
	DW_CFA_expression = 0x10,
	DW_CFA_offset_extended_sf = 0x11,
	DW_CFA_def_cfa_sf = 0x12,
	DW_CFA_def_cfa_offset_sf = 0x13,
	DW_CFA_val_offset = 0x14,
	DW_CFA_val_offset_sf = 0x15,
	DW_CFA_val_expression = 0x16,
	DW_CFA_MIPS_advance_loc8 = 0x1d,
	DW_CFA_GNU_args_size = 0x2e,
	DW_CFA_GNU_negative_offset_extended = 0x2f,
	DW_CFA_advance_loc = 0x40,
	DW_CFA_offset = 0x80,
	DW_CFA_restore = 0xc0,
};

struct interp {
	const struct cfi_section *s;
	const struct cfi_cie *cie;
	const struct cfi_state *init;	/* NULL while running the CIE */
	__u64 entry_off;		/* for messages */
	__u64 loc, end;
	struct cfi_state st;
	struct cfi_state stack[EH_MAX_STATE_DEPTH];
	unsigned int depth;
	cfi_row_fn fn;
	void *arg;
	char *err;
};

static const char *entry_kind(const struct interp *in)
{
	return in->init ? "FDE" : "CIE";
}

static int bad(struct interp *in, int errno_val, const char *what)
{
	return pk_err(in->err, -errno_val, "%s: %s at 0x%llx: %s", in->s->name,
		       entry_kind(in), (unsigned long long)in->entry_off, what);
}

static void set_rule(struct interp *in, __u64 reg, __u8 kind, __s64 value,
		     const __u8 *expr, __u64 expr_len)
{
	struct cfi_rule r = {
		.kind = kind, .value = value, .expr = expr,
		.expr_len = (__u32)expr_len,
	};

	if (reg == PK_DWARF_RBP)
		in->st.fp = r;
	if (reg == in->cie->ra_reg)
		in->st.ra = r;
	for (int i = 0; i < PK_UNWIND_NSAVED; i++)
		if (reg == PK_UNWIND_SAVED_REG(i))
			in->st.saved[i] = r;
}

static void restore_rule(struct interp *in, __u64 reg)
{
	static const struct cfi_rule unmentioned;

	if (reg == PK_DWARF_RBP)
		in->st.fp = in->init ? in->init->fp : unmentioned;
	if (reg == in->cie->ra_reg)
		in->st.ra = in->init ? in->init->ra : unmentioned;
	for (int i = 0; i < PK_UNWIND_NSAVED; i++)
		if (reg == PK_UNWIND_SAVED_REG(i))
			in->st.saved[i] = in->init ? in->init->saved[i] : unmentioned;
}

/* Move the location DELTA bytes on, closing the current row. */
static int advance_bytes(struct interp *in, __u64 delta)
{
	int ret;

	if (!in->init)
		return bad(in, EINVAL, "advance in CIE initial instructions");
	if (delta > in->end - in->loc)
		return bad(in, EINVAL, "advance past the end of the FDE");
	if (!delta)
		return 0;
	ret = in->fn(in->arg, in->loc, &in->st);
	in->loc += delta;
	return ret;
}

/* DELTA in code alignment units. */
static int advance(struct interp *in, __u64 delta)
{
	if (delta && in->cie->code_align > ~0ull / delta)
		return bad(in, EINVAL, "advance past the end of the FDE");
	return advance_bytes(in, delta * in->cie->code_align);
}

static void def_cfa(struct interp *in, __u64 reg, __s64 offset)
{
	in->st.cfa = (struct cfi_cfa){ .kind = CFI_CFA_REG_OFFSET, .reg = reg,
				       .offset = offset };
}

/*
 * An offset operand times the data alignment factor. Both come from the
 * input, so the product may not fit: that is undefined behaviour in C, and
 * the fuzzer found it. An unrepresentable product becomes INT64_MIN, which
 * no rule class accepts (the row is unsupported, never wrong).
 */
static __s64 scaled(__s64 v, __s64 daf)
{
	__s64 r;

	return __builtin_mul_overflow(v, daf, &r) ? INT64_MIN : r;
}

/* One instruction at C. >0: stop (unknown opcode), <0: error. */
static int step(struct interp *in, struct dw_cursor *c)
{
	__u8 op = dw_u8(c);
	__s64 daf = in->cie->data_align;
	__u64 reg, len, u;
	const __u8 *expr;

	switch (op & 0xc0) {
	case DW_CFA_advance_loc:
		return advance(in, op & 0x3f);
	case DW_CFA_offset:
		u = dw_uleb(c);
		set_rule(in, op & 0x3f, CFI_RULE_OFFSET, scaled((__s64)u, daf), NULL, 0);
		return 0;
	case DW_CFA_restore:
		restore_rule(in, op & 0x3f);
		return 0;
	}

	switch (op) {
	case DW_CFA_nop:
		return 0;
	case DW_CFA_GNU_args_size:
		dw_uleb(c);
		return 0;
	case DW_CFA_set_loc: {
		__u64 loc;
		int ret;

		if (!in->init)
			return bad(in, EINVAL, "set_loc in CIE initial instructions");
		if (in->s->eh_frame)
			ret = dw_read_pointer(c, in->cie->fde_enc,
					      in->s->vaddr + (__u64)(c->p - in->s->data),
					      in->cie->addr_size, &loc);
		else
			ret = dw_read_pointer(c, 0, 0, in->cie->addr_size, &loc);
		if (ret)
			return bad(in, EINVAL, "bad DW_CFA_set_loc operand");
		if (loc < in->loc)
			return bad(in, EINVAL, "DW_CFA_set_loc moves backwards");
		return advance_bytes(in, loc - in->loc);
	}
	case DW_CFA_advance_loc1:
		return advance(in, dw_u8(c));
	case DW_CFA_advance_loc2:
		return advance(in, dw_u16(c));
	case DW_CFA_advance_loc4:
		return advance(in, dw_u32(c));
	case DW_CFA_MIPS_advance_loc8:
		return advance(in, dw_u64(c));
	case DW_CFA_offset_extended:
		reg = dw_uleb(c);
		u = dw_uleb(c);
		set_rule(in, reg, CFI_RULE_OFFSET, scaled((__s64)u, daf), NULL, 0);
		return 0;
	case DW_CFA_offset_extended_sf:
		reg = dw_uleb(c);
		set_rule(in, reg, CFI_RULE_OFFSET, scaled(dw_sleb(c), daf), NULL, 0);
		return 0;
	case DW_CFA_GNU_negative_offset_extended:
		reg = dw_uleb(c);
		u = dw_uleb(c);
		set_rule(in, reg, CFI_RULE_OFFSET, scaled(scaled((__s64)u, daf), -1), NULL, 0);
		return 0;
	case DW_CFA_val_offset:
		reg = dw_uleb(c);
		u = dw_uleb(c);
		set_rule(in, reg, CFI_RULE_VAL_OFFSET, scaled((__s64)u, daf), NULL, 0);
		return 0;
	case DW_CFA_val_offset_sf:
		reg = dw_uleb(c);
		set_rule(in, reg, CFI_RULE_VAL_OFFSET, scaled(dw_sleb(c), daf), NULL, 0);
		return 0;
	case DW_CFA_restore_extended:
		restore_rule(in, dw_uleb(c));
		return 0;
	case DW_CFA_undefined:
		set_rule(in, dw_uleb(c), CFI_RULE_UNDEFINED, 0, NULL, 0);
		return 0;
	case DW_CFA_same_value:
		set_rule(in, dw_uleb(c), CFI_RULE_SAME, 0, NULL, 0);
		return 0;
	case DW_CFA_register:
		reg = dw_uleb(c);
		set_rule(in, reg, CFI_RULE_REGISTER, (__s64)dw_uleb(c), NULL, 0);
		return 0;
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		reg = dw_uleb(c);
		len = dw_uleb(c);
		expr = c->p;
		dw_skip(c, len);
		if (!c->bad)
			set_rule(in, reg, op == DW_CFA_expression ? CFI_RULE_EXPR :
				 CFI_RULE_VAL_EXPR, 0, expr, len);
		return 0;
	case DW_CFA_remember_state:
		if (in->depth == EH_MAX_STATE_DEPTH)
			return bad(in, E2BIG, "DW_CFA_remember_state nested too deep");
		in->stack[in->depth++] = in->st;
		return 0;
	case DW_CFA_restore_state:
		/* The whole state, CFA included, as GCC and glibc expect. */
		if (!in->depth)
			return bad(in, EINVAL, "DW_CFA_restore_state without remember_state");
		in->st = in->stack[--in->depth];
		return 0;
	case DW_CFA_def_cfa:
		reg = dw_uleb(c);
		def_cfa(in, reg, (__s64)dw_uleb(c));
		return 0;
	case DW_CFA_def_cfa_sf:
		reg = dw_uleb(c);
		def_cfa(in, reg, scaled(dw_sleb(c), daf));
		return 0;
	case DW_CFA_def_cfa_register:
		/* Keeps the offset; after an expression CFA this is the
		 * offset from before the expression, as in libgcc and
		 * readelf (hand-written assembly in libgcrypt relies on it). */
		in->st.cfa.reg = dw_uleb(c);
		in->st.cfa.kind = CFI_CFA_REG_OFFSET;
		in->st.cfa.expr = NULL;
		in->st.cfa.expr_len = 0;
		return 0;
	case DW_CFA_def_cfa_offset:
		in->st.cfa.offset = (__s64)dw_uleb(c);
		return 0;
	case DW_CFA_def_cfa_offset_sf:
		in->st.cfa.offset = scaled(dw_sleb(c), daf);
		return 0;
	case DW_CFA_def_cfa_expression:
		len = dw_uleb(c);
		expr = c->p;
		dw_skip(c, len);
		/* Register and offset stay: a later def_cfa_register
		 * goes back to them (libgcc and readelf agree). */
		if (!c->bad) {
			in->st.cfa.kind = CFI_CFA_EXPR;
			in->st.cfa.expr = expr;
			in->st.cfa.expr_len = (__u32)len;
		}
		return 0;
	default:
		return 1;
	}
}

static int run(struct interp *in, const __u8 *p, const __u8 *end)
{
	struct dw_cursor c = { .p = p, .end = end };

	while (c.p < c.end) {
		int ret = step(in, &c);

		if (ret < 0)
			return ret;
		if (c.bad)
			return bad(in, EINVAL, "truncated call-frame instruction");
		if (ret > 0) {
			in->st.broken = true;
			break;
		}
	}
	return 0;
}

/* Everything but the remember_state stack: it is large, and only what
 * remember_state pushed is ever read, so clearing it per FDE is waste. */
static void interp_init(struct interp *in, const struct cfi_section *s,
			const struct cfi_cie *cie, const struct cfi_state *init,
			__u64 entry_off, char err[PK_ERR_LEN])
{
	memset(in, 0, offsetof(struct interp, stack));
	in->depth = 0;
	in->s = s;
	in->cie = cie;
	in->init = init;
	in->entry_off = entry_off;
	in->err = err;
	if (init)
		in->st = *init;
}

int eh_cfi_run_cie(const struct cfi_section *s, const struct cfi_cie *cie,
		struct cfi_state *init, char err[PK_ERR_LEN])
{
	struct interp in;
	int ret;

	interp_init(&in, s, cie, NULL, cie->offset, err);
	ret = run(&in, cie->insns, cie->insns_end);
	if (!ret)
		*init = in.st;
	return ret;
}

int eh_cfi_run_fde(const struct cfi_section *s, const struct cfi_fde *fde,
		const struct cfi_state *init, cfi_row_fn fn, void *arg,
		char err[PK_ERR_LEN])
{
	struct interp in;
	int ret;

	interp_init(&in, s, &s->cies[fde->cie], init, fde->offset, err);
	in.loc = fde->pc_begin;
	in.end = fde->pc_end;
	in.fn = fn;
	in.arg = arg;
	ret = run(&in, fde->insns, fde->insns_end);
	if (ret)
		return ret;
	if (in.loc < in.end)
		ret = fn(arg, in.loc, &in.st);
	return ret;
}
