// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * From interpreter state to table rule: which of the classes the BPF
 * unwinder can evaluate (unwind_table.h) a row's CFA, frame-pointer,
 * return-address and callee-saved register rules fall in. DWARF expressions are recognised by shape,
 * never evaluated; whatever does not match a known shape is UNSUPPORTED,
 * so the unwinder stops there instead of guessing.
 */
#include <string.h>

#include "eh_frame/dwarf_read.h"
#include "eh_frame/eh_internal.h"

enum {
	DW_OP_deref = 0x06,
	DW_OP_and = 0x1a,
	DW_OP_plus = 0x22,
	DW_OP_plus_uconst = 0x23,
	DW_OP_shl = 0x24,
	DW_OP_ge = 0x2a,
	DW_OP_lit0 = 0x30,
	DW_OP_lit31 = 0x4f,
	DW_OP_breg0 = 0x70,
	DW_OP_breg31 = 0x8f,
	DW_OP_bregx = 0x92,
};

#define MAX_OPS 12

struct op {
	__u8 code;	/* DW_OP_breg0 stands for every bregN and bregx */
	__u64 reg;
	__s64 num;	/* breg offset, litN value, plus_uconst operand */
};

/* Decode EXPR into OPS; -1 if it holds an operation we do not match on or
 * more than MAX_OPS. */
static int decode_ops(const __u8 *expr, size_t len, struct op *ops)
{
	struct dw_cursor c = { .p = expr, .end = expr + len };
	int n = 0;

	while (c.p < c.end) {
		__u8 code = dw_u8(&c);
		struct op *o = &ops[n];

		if (n == MAX_OPS)
			return -1;
		memset(o, 0, sizeof(*o));
		o->code = code;
		if (code >= DW_OP_breg0 && code <= DW_OP_breg31) {
			o->code = DW_OP_breg0;
			o->reg = code - DW_OP_breg0;
			o->num = dw_sleb(&c);
		} else if (code == DW_OP_bregx) {
			o->code = DW_OP_breg0;
			o->reg = dw_uleb(&c);
			o->num = dw_sleb(&c);
		} else if (code >= DW_OP_lit0 && code <= DW_OP_lit31) {
			o->code = DW_OP_lit0;
			o->num = code - DW_OP_lit0;
		} else if (code == DW_OP_plus_uconst) {
			__u64 u = dw_uleb(&c);

			if (u > INT32_MAX)
				return -1;
			o->num = (__s64)u;
		} else if (code != DW_OP_deref && code != DW_OP_and &&
			   code != DW_OP_plus && code != DW_OP_shl &&
			   code != DW_OP_ge) {
			return -1;
		}
		if (c.bad)
			return -1;
		n++;
	}
	return n;
}

static bool is_op(const struct op *o, __u8 code, __s64 num)
{
	return o->code == code && o->num == num;
}

static bool fits_s32(__s64 v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* glibc's lazy-binding .plt: CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0)
 * (PLT1) or with 10 (PLT2): the push of the PLT slot moves the stack. */
static __u8 match_plt(const struct op *ops, int n)
{
	if (n != 9 || !is_op(&ops[0], DW_OP_breg0, 8) || ops[0].reg != PK_DWARF_RSP ||
	    !is_op(&ops[1], DW_OP_breg0, 0) || ops[1].reg != PK_DWARF_RIP ||
	    !is_op(&ops[2], DW_OP_lit0, 15) || ops[3].code != DW_OP_and ||
	    ops[4].code != DW_OP_lit0 || ops[5].code != DW_OP_ge ||
	    !is_op(&ops[6], DW_OP_lit0, 3) || ops[7].code != DW_OP_shl ||
	    ops[8].code != DW_OP_plus)
		return PK_CFA_UNSUPPORTED;
	if (ops[4].num == 11)
		return PK_CFA_PLT1;
	if (ops[4].num == 10)
		return PK_CFA_PLT2;
	return PK_CFA_UNSUPPORTED;
}

void eh_classify_cfa_expr(const __u8 *expr, size_t len, struct pk_unwind_rule *rule)
{
	struct op ops[MAX_OPS];
	int n = decode_ops(expr, len, ops);

	rule->cfa_type = PK_CFA_UNSUPPORTED;
	rule->cfa_reg = 0;
	rule->cfa_offset = 0;
	rule->cfa_deref_offset = 0;
	if (n < 0)
		return;
	rule->cfa_type = match_plt(ops, n);
	if (rule->cfa_type != PK_CFA_UNSUPPORTED)
		return;
	/* *(reg + N) [+ M]: gcc's stack realignment (DRAP) and friends */
	if ((n == 2 || n == 3) && ops[0].code == DW_OP_breg0 &&
	    ops[0].reg <= PK_DWARF_RIP && fits_s32(ops[0].num) &&
	    ops[1].code == DW_OP_deref &&
	    (n == 2 || ops[2].code == DW_OP_plus_uconst)) {
		rule->cfa_type = PK_CFA_DEREF;
		rule->cfa_reg = (__u8)ops[0].reg;
		rule->cfa_offset = (__s32)ops[0].num;
		rule->cfa_deref_offset = n == 3 ? (__s32)ops[2].num : 0;
	}
}

static void classify_cfa(const struct cfi_cfa *cfa, struct pk_unwind_rule *r)
{
	if (cfa->kind == CFI_CFA_EXPR) {
		eh_classify_cfa_expr(cfa->expr, cfa->expr_len, r);
		return;
	}
	if (cfa->reg > PK_DWARF_RIP || !fits_s32(cfa->offset)) {
		r->cfa_type = PK_CFA_UNSUPPORTED;
		return;
	}
	r->cfa_type = cfa->reg == PK_DWARF_RSP ? PK_CFA_RSP :
		      cfa->reg == PK_DWARF_RBP ? PK_CFA_RBP : PK_CFA_REG;
	r->cfa_reg = (__u8)cfa->reg;
	r->cfa_offset = (__s32)cfa->offset;
}

static void classify_fp(const struct cfi_rule *fp, struct pk_unwind_rule *r)
{
	switch (fp->kind) {
	case CFI_RULE_UNMENTIONED:
	case CFI_RULE_SAME:
	case CFI_RULE_UNDEFINED:
		r->fp_type = PK_FP_UNCHANGED;
		return;
	case CFI_RULE_OFFSET:
		if (fp->value >= INT16_MIN && fp->value <= INT16_MAX) {
			r->fp_type = PK_FP_CFA_OFFSET;
			r->fp_offset = (__s16)fp->value;
			return;
		}
		break;
	}
	r->fp_type = PK_FP_UNSUPPORTED;
}

static void classify_ra(const struct cfi_rule *ra, struct pk_unwind_rule *r)
{
	switch (ra->kind) {
	case CFI_RULE_OFFSET:
		if (ra->value == -8) {	/* where x86_64's call put it */
			r->ra_type = PK_RA_CFA_OFFSET;
			r->ra_offset = -8;
			return;
		}
		break;
	case CFI_RULE_REGISTER:	/* glibc's __vfork: DW_CFA_register rip, rdi */
		if (ra->value >= 0 && ra->value < PK_DWARF_RIP &&
		    ra->value != PK_DWARF_RSP) {
			r->ra_type = PK_RA_REGISTER;
			r->ra_reg = (__u8)ra->value;
			return;
		}
		break;
	case CFI_RULE_UNDEFINED:
	case CFI_RULE_UNMENTIONED:	/* readelf shows no column: 'u' */
		r->ra_type = PK_RA_UNDEFINED;
		return;
	}
	r->ra_type = PK_RA_UNSUPPORTED;
}

/* Where the caller's value of a callee-saved register is (PK_SAVED_*, or
 * CFA + 8 * the result). As for RBP, undefined counts as not saved. */
static __s8 classify_saved(const struct cfi_rule *reg)
{
	switch (reg->kind) {
	case CFI_RULE_UNMENTIONED:
	case CFI_RULE_SAME:
	case CFI_RULE_UNDEFINED:
		return PK_SAVED_SAME;
	case CFI_RULE_OFFSET:
		if (reg->value && reg->value % 8 == 0 && reg->value >= -1024 &&
		    reg->value <= 1016)
			return (__s8)(reg->value / 8);
		break;
	}
	return PK_SAVED_UNKNOWN;
}

void eh_classify(const struct cfi_state *state, bool signal,
		 struct pk_unwind_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	if (state->broken) {
		rule->cfa_type = PK_CFA_UNSUPPORTED;
		rule->fp_type = PK_FP_UNSUPPORTED;
		rule->ra_type = PK_RA_UNSUPPORTED;
		for (int i = 0; i < PK_UNWIND_NSAVED; i++)
			rule->saved[i] = PK_SAVED_UNKNOWN;
		return;
	}
	if (signal)	/* registers come from the ucontext, not the CFA */
		rule->cfa_type = PK_CFA_SIGNAL;
	else
		classify_cfa(&state->cfa, rule);
	classify_fp(&state->fp, rule);
	classify_ra(&state->ra, rule);
	for (int i = 0; i < PK_UNWIND_NSAVED; i++)
		rule->saved[i] = classify_saved(&state->saved[i]);
}
