// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rule_classify.c: CFA expressions to rule classes. The PLT shapes are the
 * bytes glibc's .plt carries (readelf --debug-dump=frames on libc.so.6);
 * anything that is not exactly a known shape must be unsupported.
 */
#include <stdlib.h>
#include <string.h>

#include "eh_frame/eh_internal.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

#define PLT_EXPR(lit) 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, (lit), 0x2a, 0x33, 0x24, 0x22

static struct pk_unwind_rule classify(const uint8_t *expr, size_t len)
{
	struct pk_unwind_rule r;

	memset(&r, 0xff, sizeof(r));
	eh_classify_cfa_expr(expr, len, &r);
	return r;
}

START_TEST(test_plt1)
{
	struct pk_unwind_rule r = classify(INSNS(PLT_EXPR(0x3b)));

	ck_assert_uint_eq(r.cfa_type, PK_CFA_PLT1);
	ck_assert_int_eq(r.cfa_offset, 0);
}
END_TEST

START_TEST(test_plt2)
{
	struct pk_unwind_rule r = classify(INSNS(PLT_EXPR(0x3a)));

	ck_assert_uint_eq(r.cfa_type, PK_CFA_PLT2);
}
END_TEST

START_TEST(test_plt_other_shapes_unsupported)
{
	/* lit12 instead of lit11/lit10 */
	ck_assert_uint_eq(classify(INSNS(PLT_EXPR(0x3c))).cfa_type, PK_CFA_UNSUPPORTED);
	/* rsp+16 instead of rsp+8 */
	ck_assert_uint_eq(classify(INSNS(0x77, 0x10, 0x80, 0x00, 0x3f, 0x1a, 0x3b,
					 0x2a, 0x33, 0x24, 0x22)).cfa_type,
			  PK_CFA_UNSUPPORTED);
	/* one operation short */
	ck_assert_uint_eq(classify(INSNS(0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b,
					 0x2a, 0x33, 0x24)).cfa_type,
			  PK_CFA_UNSUPPORTED);
}
END_TEST

START_TEST(test_deref)
{
	/* gcc's DRAP realignment: DW_OP_breg6 (rbp): -8; DW_OP_deref */
	struct pk_unwind_rule r = classify(INSNS(0x76, 0x78, 0x06));

	ck_assert_uint_eq(r.cfa_type, PK_CFA_DEREF);
	ck_assert_uint_eq(r.cfa_reg, RBP);
	ck_assert_int_eq(r.cfa_offset, -8);
	ck_assert_int_eq(r.cfa_deref_offset, 0);
}
END_TEST

START_TEST(test_deref_plus)
{
	/* DW_OP_bregx r7 160; DW_OP_deref; DW_OP_plus_uconst 16 */
	struct pk_unwind_rule r = classify(INSNS(0x92, 0x07, 0xa0, 0x01, 0x06, 0x23, 0x10));

	ck_assert_uint_eq(r.cfa_type, PK_CFA_DEREF);
	ck_assert_uint_eq(r.cfa_reg, RSP);
	ck_assert_int_eq(r.cfa_offset, 160);
	ck_assert_int_eq(r.cfa_deref_offset, 16);
}
END_TEST

START_TEST(test_other_expressions_unsupported)
{
	/* breg7 8 without deref: evaluable, but not a shape we encode */
	ck_assert_uint_eq(classify(INSNS(0x77, 0x08)).cfa_type, PK_CFA_UNSUPPORTED);
	/* deref then an unknown operation (DW_OP_dup) */
	ck_assert_uint_eq(classify(INSNS(0x77, 0x08, 0x06, 0x12)).cfa_type,
			  PK_CFA_UNSUPPORTED);
	/* truncated sleb128 operand */
	ck_assert_uint_eq(classify(INSNS(0x77, 0x88)).cfa_type, PK_CFA_UNSUPPORTED);
	/* empty */
	ck_assert_uint_eq(classify(NULL, 0).cfa_type, PK_CFA_UNSUPPORTED);
	/* deref of a register beyond rip */
	ck_assert_uint_eq(classify(INSNS(0x92, 0x11, 0x08, 0x06)).cfa_type,
			  PK_CFA_UNSUPPORTED);
}
END_TEST

START_TEST(test_expression_rows_in_dump)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "plt1 u c-8")
		  ROW("1002", "plt2 u c-8") ROW("1003", "*(rbp-8)+0 u c-8")
		  ROW("1004", "*(rsp+16)+8 u c-8")
		  ROW("1005", "unsupported u c-8") ROW("1006", "rsp+8 u c-8")
		  END("1020"),
		  ADV(1), DEF_CFA_EXPR, 11, PLT_EXPR(0x3b),
		  ADV(1), DEF_CFA_EXPR, 11, PLT_EXPR(0x3a),
		  ADV(1), DEF_CFA_EXPR, 3, 0x76, 0x78, 0x06,
		  ADV(1), DEF_CFA_EXPR, 5, 0x77, 0x10, 0x06, 0x23, 0x08,
		  ADV(1), DEF_CFA_EXPR, 2, 0x77, 0x08,
		  ADV(1), DEF_CFA, RSP, 8);
}
END_TEST

START_TEST(test_unsupported_not_merged_into_previous)
{
	/* An unsupported row between two identical supported ones stays:
	 * merging would unwind its range with the neighbour's rule. */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1004", "unsupported u c-8")
		  ROW("1006", "rsp+8 u c-8") END("1020"),
		  ADV(4), DEF_CFA_EXPR, 2, 0x77, 0x08,
		  ADV(2), DEF_CFA, RSP, 8);
}
END_TEST

START_TEST(test_signal_overrides_cfa)
{
	struct cfi_state st;
	struct pk_unwind_rule r;

	memset(&st, 0, sizeof(st));
	st.cfa.reg = RSP;
	st.cfa.offset = 8;
	st.ra.kind = CFI_RULE_OFFSET;
	st.ra.value = -8;
	eh_classify(&st, true, &r);
	ck_assert_uint_eq(r.cfa_type, PK_CFA_SIGNAL);
	ck_assert_int_eq(r.cfa_offset, 0);
	ck_assert_uint_eq(r.ra_type, PK_RA_CFA_OFFSET);
	eh_classify(&st, false, &r);
	ck_assert_uint_eq(r.cfa_type, PK_CFA_RSP);
	ck_assert_int_eq(r.cfa_offset, 8);
}
END_TEST

Suite *suite_eh_classify(void)
{
	Suite *s = suite_create("eh_classify");
	TCase *tc;

	tc = tcase_create("plt");
	tcase_add_test(tc, test_plt1);
	tcase_add_test(tc, test_plt2);
	tcase_add_test(tc, test_plt_other_shapes_unsupported);
	suite_add_tcase(s, tc);

	tc = tcase_create("deref");
	tcase_add_test(tc, test_deref);
	tcase_add_test(tc, test_deref_plus);
	suite_add_tcase(s, tc);

	tc = tcase_create("unsupported");
	tcase_add_test(tc, test_other_expressions_unsupported);
	tcase_add_test(tc, test_unsupported_not_merged_into_previous);
	suite_add_tcase(s, tc);

	tc = tcase_create("rows");
	tcase_add_test(tc, test_expression_rows_in_dump);
	tcase_add_test(tc, test_signal_overrides_cfa);
	suite_add_tcase(s, tc);
	return s;
}
