// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cfi_interp.c: every call-frame instruction, hand-assembled into one FDE
 * for [0x1000, 0x1020), and the exact rows it must produce. The CIE is the
 * usual x86_64 one (CFA = rsp+8, return address at CFA-8) unless a test
 * says otherwise.
 */
#include <stdlib.h>

#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

/* ---- advance ------------------------------------------------------------ */

START_TEST(test_advance_loc)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+16 u c-8")
		  ROW("1005", "rsp+8 u c-8") END("1020"),
		  ADV(1), DEF_CFA_OFS, 16, ADV(4), DEF_CFA_OFS, 8);
}
END_TEST

START_TEST(test_advance_loc1_2_4)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1010", "rsp+16 u c-8")
		  ROW("1012", "rsp+24 u c-8") ROW("1015", "rsp+32 u c-8") END("1020"),
		  ADV1, 0x10, DEF_CFA_OFS, 16,
		  ADV2, 0x02, 0x00, DEF_CFA_OFS, 24,
		  ADV4, 0x03, 0x00, 0x00, 0x00, DEF_CFA_OFS, 32);
}
END_TEST

START_TEST(test_advance_code_alignment)
{
	struct cfi_blob *b = malloc(sizeof(*b));
	size_t cie;

	blob_init(b, 0x200000);
	cie = eh_cie(b, "zR", 4, -8, INSNS(CIE_X86_64));
	eh_fde(b, cie, "zR", 0x1000, 0x20, INSNS(ADV(2), DEF_CFA_OFS, 16,
						  ADV1, 3, DEF_CFA_OFS, 8));
	eh_expect_rows(b, true, ROW("1000", "rsp+8 u c-8") ROW("1008", "rsp+16 u c-8")
		       ROW("1014", "rsp+8 u c-8") END("1020"));
	free(b);
}
END_TEST

START_TEST(test_advance_zero_is_no_row)
{
	/* Two changes at the same location make one row, the last state. */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1002", "rsp+24 u c-8") END("1020"),
		  ADV(2), DEF_CFA_OFS, 16, ADV(0), DEF_CFA_OFS, 24);
}
END_TEST

START_TEST(test_set_loc)
{
	struct cfi_blob *b = malloc(sizeof(*b));
	size_t cie;

	blob_init(b, 0);
	cie = dbg_cie(b, 3, INSNS(CIE_X86_64));
	dbg_fde(b, cie, 0x1000, 0x20, INSNS(SET_LOC, 0x10, 0x10, 0, 0, 0, 0, 0, 0,
					    DEF_CFA_OFS, 16));
	eh_expect_rows(b, false, ROW("1000", "rsp+8 u c-8") ROW("1010", "rsp+16 u c-8")
		       END("1020"));
	free(b);
}
END_TEST

/* ---- CFA ---------------------------------------------------------------- */

START_TEST(test_def_cfa)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rbp+16 u c-8") END("1020"),
		  ADV(1), DEF_CFA, RBP, 16);
}
END_TEST

START_TEST(test_def_cfa_sf)
{
	/* factored: -3 * data_align(-8) = 24 */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+24 u c-8") END("1020"),
		  ADV(1), DEF_CFA_SF, RSP, 0x7d);
}
END_TEST

START_TEST(test_def_cfa_register)
{
	/* keeps the offset */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+16 u c-8")
		  ROW("1004", "rbp+16 u c-8") END("1020"),
		  ADV(1), DEF_CFA_OFS, 16, ADV(3), DEF_CFA_REG, RBP);
}
END_TEST

START_TEST(test_def_cfa_register_after_expression)
{
	/* libgcrypt's assembly: CFA on rax+8, then an expression, then
	 * def_cfa_register rsp: the offset from before the expression (8)
	 * comes back, as libgcc's unwinder and readelf compute it. */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rax+8 u c-8")
		  ROW("1002", "*(rsp+152)+8 u c-8") ROW("1003", "rsp+8 u c-8") END("1020"),
		  ADV(1), DEF_CFA_REG, 0,
		  ADV(1), DEF_CFA_EXPR, 6, 0x77, 0x98, 0x01, 0x06, 0x23, 0x08,
		  ADV(1), DEF_CFA_REG, RSP);
}
END_TEST

START_TEST(test_def_cfa_offset_sf)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+16 u c-8") END("1020"),
		  ADV(1), DEF_CFA_OFS_SF, 0x7e);
}
END_TEST

START_TEST(test_cfa_other_registers)
{
	/* hand-written assembly: CFA on rdi, r11; beyond rip: unsupported */
	CHECK_FDE(ROW("1000", "rdi+0 u c-8") ROW("1001", "r11+8 u c-8")
		  ROW("1002", "rax-16 u c-8") ROW("1003", "unsupported u c-8") END("1020"),
		  DEF_CFA, 5, 0, ADV(1), DEF_CFA, 11, 8, ADV(1), DEF_CFA_SF, 0, 2,
		  ADV(1), DEF_CFA, 17, 8);
}
END_TEST

/* ---- frame pointer and return address ----------------------------------- */

START_TEST(test_offset)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+16 c-16 c-8") END("1020"),
		  ADV(1), DEF_CFA_OFS, 16, OFS(RBP), 2);
}
END_TEST

START_TEST(test_offset_extended)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+8 c-24 c-8") END("1020"),
		  ADV(1), OFS_EXT, RBP, 3);
}
END_TEST

START_TEST(test_offset_extended_sf)
{
	/* 2 * -8 = -16, then -4 * -8 = +32 (above the CFA) */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+8 c-16 c-8")
		  ROW("1002", "rsp+8 c+32 c-8") END("1020"),
		  ADV(1), OFS_EXT_SF, RBP, 2, ADV(1), OFS_EXT_SF, RBP, 0x7c);
}
END_TEST

START_TEST(test_gnu_negative_offset_extended)
{
	/* -(2) * -8 = +16 */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+8 c+16 c-8") END("1020"),
		  ADV(1), NEG_OFS_EXT, RBP, 2);
}
END_TEST

START_TEST(test_fp_offset_out_of_range)
{
	/* 8192 * -8 does not fit the table's 16-bit offset */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+8 unsupported c-8")
		  END("1020"),
		  ADV(1), OFS_EXT, RBP, 0x80, 0x40);
}
END_TEST

START_TEST(test_restore_to_cie_rule)
{
	/* The CIE saves rbp at CFA-16: restore goes back to that, not 'u'. */
	CHECK_CIE_FDE(ROW("1000", "rsp+8 c-16 c-8") ROW("1001", "rsp+8 c-24 c-8")
		      ROW("1002", "rsp+8 c-16 c-8") ROW("1003", "rsp+8 u c-8")
		      ROW("1004", "rsp+8 c-16 c-8") END("1020"),
		      INSNS(CIE_X86_64, OFS(RBP), 2),
		      ADV(1), OFS(RBP), 3, ADV(1), RESTORE(RBP), ADV(1), SAME, RBP,
		      ADV(1), RESTORE_EXT, RBP);
}
END_TEST

START_TEST(test_restore_unmentioned)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+8 c-16 c-8")
		  ROW("1002", "rsp+8 u c-8") END("1020"),
		  ADV(1), OFS(RBP), 2, ADV(1), RESTORE(RBP));
}
END_TEST

START_TEST(test_same_value_and_undefined_fp)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+8 c-16 c-8")
		  ROW("1002", "rsp+8 u c-8") ROW("1003", "rsp+8 c-16 c-8")
		  ROW("1004", "rsp+8 u c-8") END("1020"),
		  ADV(1), OFS(RBP), 2, ADV(1), SAME, RBP, ADV(1), OFS(RBP), 2,
		  ADV(1), UNDEF, RBP);
}
END_TEST

START_TEST(test_undefined_ra)
{
	/* _start and thread entry: the outermost frame */
	CHECK_FDE(ROW("1000", "rsp+8 u u") END("1020"), UNDEF, RA);
}
END_TEST

START_TEST(test_ra_other_offset_unsupported)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+8 u unsupported")
		  END("1020"),
		  ADV(1), OFS(RA), 2);
}
END_TEST

START_TEST(test_register_rule)
{
	/* rbx or rbp in another register: unsupported; the return address
	 * in another register (glibc's __vfork: rdi) is a rule of its own */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8")
		  ROWS("1001", "rsp+8 u c-8 unsupported u u u u")
		  ROWS("1002", "rsp+8 unsupported c-8 unsupported u u u u")
		  ROWS("1003", "rsp+8 unsupported rdx unsupported u u u u") END("1020"),
		  ADV(1), REGISTER, 3, 9, ADV(1), REGISTER, RBP, 9,
		  ADV(1), REGISTER, RA, 1);
}
END_TEST

/* rbx and r12-r15 saved at CFA-N: where the walk restores them from; an
 * offset the rule cannot hold (not a multiple of 8) is unsupported, and
 * restore goes back to the CIE's rule. */
START_TEST(test_callee_saved_rules)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8")
		  ROWS("1001", "rsp+16 u c-8 c-16 u u u u")
		  ROWS("1002", "rsp+24 u c-8 c-16 u u u c-24")
		  ROWS("1003", "rsp+24 u c-8 c-16 unsupported u u c-24")
		  ROWS("1004", "rsp+24 u c-8 u unsupported u u c-24") END("1020"),
		  ADV(1), DEF_CFA_OFS, 16, OFS(3), 2,
		  ADV(1), DEF_CFA_OFS, 24, OFS(15), 3,
		  ADV(1), VAL_OFS, 12, 2,
		  ADV(1), 0xc0 | 3);			/* DW_CFA_restore rbx */
}
END_TEST

START_TEST(test_expression_rules)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+8 unsupported c-8")
		  ROWS("1005", "rsp+8 u unsupported unsupported u u u u") END("1020"),
		  ADV(1), EXPR, RBP, 2, 0x77, 0x10,	/* breg7 16 */
		  ADV(1), VAL_EXPR, RBP, 2, 0x77, 0x10,
		  ADV(1), VAL_OFS, RBP, 2,
		  ADV(1), VAL_OFS_SF, RBP, 0x7e,
		  ADV(1), SAME, RBP, EXPR, RA, 2, 0x77, 0x08,
		  EXPR, 3, 2, 0x77, 0x20);		/* rbx: unsupported */
}
END_TEST

START_TEST(test_args_size_and_nop)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+16 u c-8") END("1020"),
		  NOP, ARGS_SIZE, 0x20, ADV(1), DEF_CFA_OFS, 16, NOP, ARGS_SIZE, 0,
		  ADV(1), NOP, NOP);
}
END_TEST

/* ---- remember / restore state ------------------------------------------- */

START_TEST(test_restore_state_restores_cfa)
{
	/* The epilogue in the middle of a function: the CFA comes back too. */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+16 c-16 c-8")
		  ROW("1002", "rsp+8 u c-8") ROW("1003", "rsp+16 c-16 c-8") END("1020"),
		  ADV(1), DEF_CFA_OFS, 16, OFS(RBP), 2,
		  ADV(1), REMEMBER, DEF_CFA_OFS, 8, RESTORE(RBP),
		  ADV(1), RESTORE_STATE);
}
END_TEST

START_TEST(test_restore_state_nested)
{
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rbp+16 c-16 c-8")
		  ROW("1002", "rsp+32 u c-8") ROW("1003", "rsp+24 u c-8")
		  ROW("1004", "rsp+32 u c-8") ROW("1005", "rbp+16 c-16 c-8") END("1020"),
		  ADV(1), DEF_CFA, RBP, 16, OFS(RBP), 2, REMEMBER,
		  ADV(1), DEF_CFA, RSP, 32, SAME, RBP, REMEMBER,
		  ADV(1), DEF_CFA_OFS, 24,
		  ADV(1), RESTORE_STATE,
		  ADV(1), RESTORE_STATE);
}
END_TEST

/* ---- what we cannot interpret ------------------------------------------- */

START_TEST(test_unknown_opcode_rest_unsupported)
{
	/* 0x20 is no call-frame instruction: its length is unknown, so the
	 * rest of the FDE cannot be trusted, but what came before stands. */
	CHECK_FDE(ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+16 u c-8")
		  ROWS("1002", "unsupported unsupported unsupported unsupported "
			   "unsupported unsupported unsupported unsupported") END("1020"),
		  ADV(1), DEF_CFA_OFS, 16, ADV(1), 0x20, ADV(1), DEF_CFA_OFS, 8);
}
END_TEST

START_TEST(test_signal_frame)
{
	struct cfi_blob *b = malloc(sizeof(*b));
	size_t cie;

	/* __restore_rt: the FDE starts one byte early (the unwinder looks up
	 * pc-1) and every row is a signal row, whatever its CFA rule. */
	blob_init(b, 0x200000);
	cie = eh_cie(b, "zRS", 1, -8, NULL, 0);
	eh_fde(b, cie, "zRS", 0x1000, 0x10,
	       INSNS(DEF_CFA_EXPR, 4, 0x77, 0xa0, 0x01, 0x06,	/* *(rsp+160) */
		     EXPR, RBP, 3, 0x77, 0xf8, 0x00,		/* breg7 120 */
		     EXPR, RA, 3, 0x77, 0xa8, 0x01,		/* breg7 168 */
		     ADV(1), NOP));
	eh_expect_rows(b, true, ROW("1000", "signal unsupported unsupported") END("1010"));
	free(b);
}
END_TEST

Suite *suite_eh_interp(void)
{
	Suite *s = suite_create("eh_interp");
	TCase *tc;

	tc = tcase_create("advance");
	tcase_add_test(tc, test_advance_loc);
	tcase_add_test(tc, test_advance_loc1_2_4);
	tcase_add_test(tc, test_advance_code_alignment);
	tcase_add_test(tc, test_advance_zero_is_no_row);
	tcase_add_test(tc, test_set_loc);
	suite_add_tcase(s, tc);

	tc = tcase_create("cfa");
	tcase_add_test(tc, test_def_cfa);
	tcase_add_test(tc, test_def_cfa_sf);
	tcase_add_test(tc, test_def_cfa_register);
	tcase_add_test(tc, test_def_cfa_register_after_expression);
	tcase_add_test(tc, test_def_cfa_offset_sf);
	tcase_add_test(tc, test_cfa_other_registers);
	suite_add_tcase(s, tc);

	tc = tcase_create("registers");
	tcase_add_test(tc, test_offset);
	tcase_add_test(tc, test_offset_extended);
	tcase_add_test(tc, test_offset_extended_sf);
	tcase_add_test(tc, test_gnu_negative_offset_extended);
	tcase_add_test(tc, test_fp_offset_out_of_range);
	tcase_add_test(tc, test_restore_to_cie_rule);
	tcase_add_test(tc, test_restore_unmentioned);
	tcase_add_test(tc, test_same_value_and_undefined_fp);
	tcase_add_test(tc, test_undefined_ra);
	tcase_add_test(tc, test_ra_other_offset_unsupported);
	tcase_add_test(tc, test_register_rule);
	tcase_add_test(tc, test_callee_saved_rules);
	tcase_add_test(tc, test_expression_rules);
	tcase_add_test(tc, test_args_size_and_nop);
	suite_add_tcase(s, tc);

	tc = tcase_create("state");
	tcase_add_test(tc, test_restore_state_restores_cfa);
	tcase_add_test(tc, test_restore_state_nested);
	suite_add_tcase(s, tc);

	tc = tcase_create("uninterpretable");
	tcase_add_test(tc, test_unknown_opcode_rest_unsupported);
	tcase_add_test(tc, test_signal_frame);
	suite_add_tcase(s, tc);
	return s;
}
