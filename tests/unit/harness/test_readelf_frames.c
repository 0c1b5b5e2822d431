// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The readelf dump parser of the oracle test, on excerpts of real output. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/readelf_frames.h"
#include "test_util.h"

/* Excerpts of readelf 2.40 on libc.so.6 and on the cfi_asm fixture. */
static const char interp[] =
"Contents of the .eh_frame section (loaded from libc.so.6):\n"
"\n"
"\n"
"00000000 0000000000000014 00000000 CIE \"zR\" cf=1 df=-8 ra=16\n"
"   LOC           CFA      ra    \n"
"0000000000000000 rsp+8    c-8   \n"
"\n"
"00000018 0000000000000024 0000001c FDE cie=00000000 pc=0000000000026000..0000000000026360\n"
"   LOC           CFA      ra    \n"
"0000000000026000 rsp+16   c-8   \n"
"0000000000026006 rsp+24   c-8   \n"
"0000000000026010 exp      c-8   \n"
"\n"
"00000040 0000000000000014 00000044 FDE cie=00000000 pc=0000000000026360..0000000000026370\n"
"\n"
"0000006c 0000000000000020 00000070 FDE cie=00000000 pc=00000000000270e0..0000000000027143\n"
"   LOC           CFA      rbx   rbp   ra    \n"
"00000000000270e0 rsp+8    u     u     c-8   \n"
"00000000000270e1 exp      c-16  c-24  c-8   \n"
"0000000000027124 rsp+16   c-16  r10 (r10) c-8   \n"
"000000000002712a exp      c-16  s     c-8   \n"
"\n"
"00000160 0000000000000010 00000000 CIE \"zRS\" cf=1 df=-8 ra=16\n"
"\n"
"00000174 0000000000000020 00000018 FDE cie=00000160 pc=000000000000118f..0000000000001198\n"
"   LOC           CFA      rbp   ra    \n"
"000000000000118f exp      exp   exp   \n"
"\n"
"000001cc ZERO terminator\n"
"\n"
"Contents of the .debug_frame section:\n"
"\n"
"00000000 0000000000000014 ffffffff CIE \"\" cf=1 df=-8 ra=16\n"
"   LOC           CFA      ra    \n"
"0000000000000000 rsp+8    c-8   \n"
"\n"
"00000018 0000000000000034 00000000 FDE cie=00000000 pc=0000000000001129..0000000000001140\n"
"   LOC           CFA      rbp   ra    \n"
"0000000000001129 rsp+8    u     c-8   \n"
"000000000000112a rsp+16   c-16  c-8   \n"
"\n";

static const char raw[] =
"Contents of the .eh_frame section (loaded from libc.so.6):\n"
"\n"
"\n"
"00000000 0000000000000014 00000000 CIE\n"
"  Version:               1\n"
"  Augmentation:          \"zR\"\n"
"  Code alignment factor: 1\n"
"  Data alignment factor: -8\n"
"  Return address column: 16\n"
"  Augmentation data:     1b\n"
"  DW_CFA_def_cfa: r7 (rsp) ofs 8\n"
"  DW_CFA_offset: r16 (rip) at cfa-8\n"
"  DW_CFA_nop\n"
"\n"
"00000018 0000000000000024 0000001c FDE cie=00000000 pc=0000000000026000..0000000000026360\n"
"  DW_CFA_def_cfa_offset: 16\n"
"  DW_CFA_advance_loc: 6 to 0000000000026006\n"
"  DW_CFA_def_cfa_offset: 24\n"
"  DW_CFA_advance_loc: 10 to 0000000000026010\n"
"  DW_CFA_def_cfa_expression (DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; DW_OP_lit15)\n"
"  DW_CFA_nop\n"
"\n"
"00000040 0000000000000014 00000044 FDE cie=00000000 pc=0000000000026360..0000000000026370\n"
"  DW_CFA_nop\n"
"  DW_CFA_nop\n"
"\n"
"0000006c 0000000000000020 00000070 FDE cie=00000000 pc=00000000000270e0..0000000000027143\n"
"  DW_CFA_advance_loc: 1 to 00000000000270e1\n"
"  DW_CFA_def_cfa_expression (DW_OP_breg7 (rsp): 8; DW_OP_deref)\n"
"  DW_CFA_offset: r3 (rbx) at cfa-16\n"
"  DW_CFA_offset: r6 (rbp) at cfa-24\n"
"  DW_CFA_remember_state\n"
"  DW_CFA_advance_loc1: 67 to 0000000000027124\n"
"  DW_CFA_def_cfa: r7 (rsp) ofs 16\n"
"  DW_CFA_register: r6 (rbp) in r10 (r10)\n"
"  DW_CFA_advance_loc: 6 to 000000000002712a\n"
"  DW_CFA_restore_state\n"
"  DW_CFA_same_value: r6 (rbp)\n"
"\n"
"00000160 0000000000000010 00000000 CIE\n"
"  Version:               1\n"
"  Augmentation:          \"zRS\"\n"
"  DW_CFA_nop\n"
"\n"
"00000174 0000000000000020 00000018 FDE cie=00000160 pc=000000000000118f..0000000000001198\n"
"  DW_CFA_def_cfa_expression (DW_OP_breg7 (rsp): 160; DW_OP_deref)\n"
"  DW_CFA_expression: r6 (rbp) (DW_OP_breg7 (rsp): -8)\n"
"  DW_CFA_expression: r16 (rip) (DW_OP_breg7 (rsp): 168)\n"
"\n"
"000001cc ZERO terminator\n"
"\n"
"Contents of the .debug_frame section:\n"
"\n"
"00000000 0000000000000014 ffffffff CIE\n"
"  Version:               1\n"
"  Augmentation:          \"\"\n"
"  DW_CFA_def_cfa: r7 (rsp) ofs 8\n"
"  DW_CFA_offset: r16 (rip) at cfa-8\n"
"\n"
"00000018 0000000000000034 00000000 FDE cie=00000000 pc=0000000000001129..0000000000001140\n"
"  DW_CFA_advance_loc: 1 to 000000000000112a\n"
"  DW_CFA_def_cfa_offset: 16\n"
"  DW_CFA_offset: r6 (rbp) at cfa-16\n"
"\n";

START_TEST(test_split_columns)
{
	char line[] = "0000000000027124 rsp+16   c-16  r10 (r10) c-8   ";
	char *cols[8];

	ck_assert_int_eq(rf_split_columns(line, cols, 8), 5);
	ck_assert_str_eq(cols[0], "0000000000027124");
	ck_assert_str_eq(cols[1], "rsp+16");
	ck_assert_str_eq(cols[2], "c-16");
	ck_assert_str_eq(cols[3], "r10 (r10)");
	ck_assert_str_eq(cols[4], "c-8");
}
END_TEST

START_TEST(test_fdes_and_rows)
{
	struct rf_frames f;
	char err[256] = "";
	const struct rf_fde *fde;

	ck_assert_msg(rf_frames_parse(interp, raw, &f, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(f.nfdes, 5);

	fde = &f.fdes[0];
	ck_assert(!fde->debug_frame);
	ck_assert_uint_eq(fde->offset, 0x18);
	ck_assert_uint_eq(fde->pc_begin, 0x26000);
	ck_assert_uint_eq(fde->pc_end, 0x26360);
	ck_assert_str_eq(fde->augmentation, "zR");
	ck_assert(!fde->signal);
	ck_assert_int_eq(fde->nrows, 3);
	ck_assert_uint_eq(fde->rows[1].pc, 0x26006);
	ck_assert_str_eq(fde->rows[1].cfa, "rsp+24");
	ck_assert_str_eq(fde->rows[1].ra, "c-8");
	ck_assert_str_eq(fde->rows[1].rbp, "");
	ck_assert_ptr_null(fde->rows[1].cfa_expr);
	ck_assert_str_eq(fde->rows[2].cfa, "exp");
	ck_assert_str_eq(fde->rows[2].cfa_expr,
			 "DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; DW_OP_lit15");
	rf_frames_free(&f);
}
END_TEST

START_TEST(test_nop_fde_gets_cie_row)
{
	struct rf_frames f;
	char err[256] = "";

	ck_assert_msg(rf_frames_parse(interp, raw, &f, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(f.fdes[1].offset, 0x40);
	ck_assert_int_eq(f.fdes[1].nrows, 1);
	ck_assert_uint_eq(f.fdes[1].rows[0].pc, 0x26360);
	ck_assert_str_eq(f.fdes[1].rows[0].cfa, "rsp+8");
	ck_assert_str_eq(f.fdes[1].rows[0].ra, "c-8");
	rf_frames_free(&f);
}
END_TEST

/* restore_state brings back the expression remembered before def_cfa. */
START_TEST(test_expressions_follow_state)
{
	struct rf_frames f;
	char err[256] = "";
	const struct rf_fde *fde;

	ck_assert_msg(rf_frames_parse(interp, raw, &f, err, sizeof(err)) == 0, "%s", err);
	fde = &f.fdes[2];
	ck_assert_int_eq(fde->nrows, 4);
	ck_assert_ptr_null(fde->rows[0].cfa_expr);
	ck_assert_str_eq(fde->rows[1].cfa_expr, "DW_OP_breg7 (rsp): 8; DW_OP_deref");
	ck_assert_str_eq(fde->rows[1].rbp, "c-24");
	ck_assert_ptr_null(fde->rows[2].cfa_expr);
	ck_assert_str_eq(fde->rows[2].rbp, "r10 (r10)");
	ck_assert_str_eq(fde->rows[3].cfa_expr, "DW_OP_breg7 (rsp): 8; DW_OP_deref");
	ck_assert_str_eq(fde->rows[3].rbp, "s");
	rf_frames_free(&f);
}
END_TEST

START_TEST(test_signal_cie_and_debug_frame)
{
	struct rf_frames f;
	char err[256] = "";

	ck_assert_msg(rf_frames_parse(interp, raw, &f, err, sizeof(err)) == 0, "%s", err);
	ck_assert(f.fdes[3].signal);
	ck_assert_str_eq(f.fdes[3].augmentation, "zRS");
	ck_assert_str_eq(f.fdes[3].rows[0].cfa_expr, "DW_OP_breg7 (rsp): 160; DW_OP_deref");
	ck_assert_str_eq(f.fdes[3].rows[0].rbp, "exp");
	ck_assert(f.fdes[4].debug_frame);
	ck_assert(!f.fdes[4].signal);
	ck_assert_uint_eq(f.fdes[4].pc_begin, 0x1129);
	ck_assert_int_eq(f.fdes[4].nrows, 2);
	ck_assert_str_eq(f.fdes[4].rows[1].rbp, "c-16");
	rf_frames_free(&f);
}
END_TEST

/* The raw dump must explain every interp row: one advance missing. */
START_TEST(test_mismatched_dumps_rejected)
{
	char *bad = strdup(raw), *adv = strstr(bad, "  DW_CFA_advance_loc: 6 to 0000000000026006\n");
	struct rf_frames f;
	char err[256] = "";

	ck_assert_ptr_nonnull(adv);
	memcpy(adv, "  DW_CFA_nop", 12);
	memset(adv + 12, ' ', strlen("  DW_CFA_advance_loc: 6 to 0000000000026006") - 12);
	ck_assert_int_eq(rf_frames_parse(interp, bad, &f, err, sizeof(err)), -EBADMSG);
	ck_assert_str_eq(err, "FDE 0x18: 3 interp rows, 2 in the raw dump");
	rf_frames_free(&f);
	free(bad);
}
END_TEST

START_TEST(test_not_readelf_output)
{
	struct rf_frames f;
	char err[256] = "";

	ck_assert_int_eq(rf_frames_parse("readelf: Error: no such file\n", "", &f, err,
					 sizeof(err)), -EBADMSG);
	ck_assert_str_eq(err, "no .eh_frame or .debug_frame contents in readelf's output");
	rf_frames_free(&f);
}
END_TEST

START_TEST(test_row_with_wrong_columns)
{
	static const char bad_interp[] =
		"Contents of the .eh_frame section:\n"
		"00000000 0000000000000014 00000000 CIE \"zR\" cf=1 df=-8 ra=16\n"
		"   LOC           CFA      ra    \n"
		"0000000000000000 rsp+8\n";
	struct rf_frames f;
	char err[256] = "";

	ck_assert_int_eq(rf_frames_parse(bad_interp, "", &f, err, sizeof(err)), -EBADMSG);
	ck_assert_str_eq(err, "row '0000000000000000...' has 2 columns, header 3");
	rf_frames_free(&f);
}
END_TEST

Suite *suite_readelf_frames(void)
{
	Suite *s = suite_create("readelf_frames");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_split_columns);
	tcase_add_test(tc, test_fdes_and_rows);
	tcase_add_test(tc, test_nop_fde_gets_cie_row);
	tcase_add_test(tc, test_expressions_follow_state);
	tcase_add_test(tc, test_signal_cie_and_debug_frame);
	tcase_add_test(tc, test_mismatched_dumps_rejected);
	tcase_add_test(tc, test_not_readelf_output);
	tcase_add_test(tc, test_row_with_wrong_columns);
	suite_add_tcase(s, tc);
	return s;
}
