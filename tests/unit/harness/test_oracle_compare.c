// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The oracle's own judgement, on synthetic inputs: expression classes,
 * the expected rule of a readelf row, dump parsing, and a comparison that
 * must catch each way a table can be wrong (a changed rule, an extra change
 * inside an FDE, a gap inheriting a rule, .debug_frame shadowing .eh_frame).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/oracle_compare.h"
#include "test_util.h"

static const char plt1[] =
	"DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; DW_OP_lit15; DW_OP_and; "
	"DW_OP_lit11; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus";
static const char plt2[] =
	"DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; DW_OP_lit15; DW_OP_and; "
	"DW_OP_lit10; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus";

static const char *classify(const char *expr)
{
	static char buf[64];

	oc_classify_expr(expr, buf, sizeof(buf));
	return buf;
}

START_TEST(test_classify_expressions)
{
	ck_assert_str_eq(classify(plt1), "plt1");
	ck_assert_str_eq(classify(plt2), "plt2");
	ck_assert_str_eq(classify("DW_OP_breg7 (rsp): 160; DW_OP_deref"), "*(rsp+160)+0");
	ck_assert_str_eq(classify("DW_OP_breg7 (rsp): 16; DW_OP_deref; DW_OP_plus_uconst: 8"),
			 "*(rsp+16)+8");
	ck_assert_str_eq(classify("DW_OP_breg6 (rbp): -8; DW_OP_deref"), "*(rbp-8)+0");
	ck_assert_str_eq(classify("DW_OP_breg7 (rsp): 32; DW_OP_lit1; DW_OP_minus"),
			 "unsupported");
	ck_assert_str_eq(classify("DW_OP_breg7 (rsp): 8; DW_OP_deref; DW_OP_deref"),
			 "unsupported");
	ck_assert_str_eq(classify("DW_OP_breg7 (rsp): 8; DW_OP_deref; DW_OP_plus_uconst: 8; "
				  "DW_OP_deref"), "unsupported");
	ck_assert_str_eq(classify(""), "unsupported");
}
END_TEST

static struct oc_rule expect(bool signal, const char *cfa, const char *expr,
			     const char *rbp, const char *ra)
{
	struct rf_fde fde = { .signal = signal };
	struct rf_row row = { .cfa_expr = (char *)expr };
	struct oc_rule r;

	snprintf(row.cfa, sizeof(row.cfa), "%s", cfa);
	snprintf(row.rbp, sizeof(row.rbp), "%s", rbp);
	snprintf(row.ra, sizeof(row.ra), "%s", ra);
	oc_expect(&fde, &row, &r);
	return r;
}

START_TEST(test_expected_rules)
{
	struct oc_rule r;

	r = expect(false, "rsp+16", NULL, "c-16", "c-8");
	ck_assert_str_eq(r.cfa, "rsp+16");
	ck_assert_str_eq(r.rbp, "c-16");
	ck_assert_str_eq(r.ra, "c-8");
	r = expect(false, "r11-8", NULL, "", "u");
	ck_assert_str_eq(r.cfa, "r11-8");
	ck_assert_str_eq(r.rbp, "u");
	ck_assert_str_eq(r.ra, "u");
	r = expect(false, "exp", plt2, "s", "c-16");
	ck_assert_str_eq(r.cfa, "plt2");
	ck_assert_str_eq(r.rbp, "u");
	ck_assert_str_eq(r.ra, "unsupported");
	/* A signal frame's CFA is "signal" whatever readelf shows. */
	r = expect(true, "exp", "DW_OP_breg7 (rsp): 160; DW_OP_deref", "exp", "exp");
	ck_assert_str_eq(r.cfa, "signal");
	ck_assert_str_eq(r.rbp, "unsupported");
	ck_assert_str_eq(r.ra, "unsupported");
	r = expect(true, "rsp+8", NULL, "u", "c-8");
	ck_assert_str_eq(r.cfa, "signal");
	ck_assert_str_eq(expect(false, "rsp+8", NULL, "c+8", "c-8").rbp, "c+8");
	ck_assert_str_eq(expect(false, "rsp+8", NULL, "r10 (r10)", "c-8").rbp, "unsupported");
	ck_assert_str_eq(expect(false, "rsp+8", NULL, "v-16", "c-8").rbp, "unsupported");
	ck_assert_str_eq(expect(false, "rsp+8", NULL, "c-", "c-8").rbp, "unsupported");
	ck_assert_str_eq(expect(false, "exp", NULL, "u", "c-8").cfa, "unsupported");
	/* the return address in a general register other than rsp */
	ck_assert_str_eq(expect(false, "rsp+0", NULL, "", "r5 (rdi)").ra, "rdi");
	ck_assert_str_eq(expect(false, "rsp+0", NULL, "", "r7 (rsp)").ra, "unsupported");
	ck_assert_str_eq(expect(false, "rsp+0", NULL, "", "r16 (rip)").ra, "unsupported");
}
END_TEST

/* The callee-saved columns (rbx, r12-r15): as RBP's, but an offset must be
 * a nonzero multiple of 8 within a signed byte of words. */
START_TEST(test_expected_saved)
{
	static const char *const cols[][2] = {
		{ "", "u" }, { "u", "u" }, { "s", "u" }, { "c-16", "c-16" },
		{ "c+8", "c+8" }, { "c-1024", "c-1024" }, { "c-1032", "unsupported" },
		{ "c+1016", "c+1016" }, { "c+1024", "unsupported" }, { "c-12", "unsupported" },
		{ "c+0", "unsupported" }, { "r9 (r9)", "unsupported" }, { "exp", "unsupported" },
		{ "v-16", "unsupported" },
	};

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		struct rf_fde fde = { 0 };
		struct rf_row row = { .cfa = "rsp+8", .ra = "c-8" };
		struct oc_rule r;

		for (int k = 0; k < 5; k++)
			snprintf(row.saved[k], sizeof(row.saved[k]), "%s", k == 2 ? cols[i][0] : "");
		oc_expect(&fde, &row, &r);
		ck_assert_msg(!strcmp(r.saved[2], cols[i][1]), "'%s': want %s, got %s",
			      cols[i][0], cols[i][1], r.saved[2]);
		ck_assert_str_eq(r.saved[0], "u");
	}
}
END_TEST

START_TEST(test_parse_dump)
{
	struct oc_table t;
	char err[256] = "";

	ck_assert_int_eq(oc_parse_dump("# probekit unwind table\n"
				       "0000000000001020 rsp+16 u c-8 u u u u u\n"
				       "0000000000001030 *(rsp+8) c-16 c-8 u u u u u\n"
				       "0000000000001038 end u u u u u u u\n", &t, err, sizeof(err)), 0);
	ck_assert_int_eq(t.n, 3);
	ck_assert_uint_eq(t.rows[1].pc, 0x1030);
	ck_assert_str_eq(t.rows[1].rule.cfa, "*(rsp+8)+0");
	ck_assert_str_eq(t.rows[1].rule.rbp, "c-16");
	ck_assert_str_eq(t.rows[2].rule.cfa, "end");
	oc_table_free(&t);

	ck_assert_int_eq(oc_parse_dump("1020 rsp+16 u c-8 u u u u u\n1020 rsp+8 u c-8 u u u u u\n", &t, err,
				       sizeof(err)), -EBADMSG);
	ck_assert_str_eq(err, "dump line 2: pc 0x1020 not above 0x1020");
	ck_assert_int_eq(oc_parse_dump("1020 rsp+16 u\n", &t, err, sizeof(err)), -EBADMSG);
	ck_assert_str_eq(err, "dump line 1: '1020 rsp+16 u' is not '<pc> <cfa> <rbp> <ra> "
			 "<rbx> <r12> <r13> <r14> <r15>'");
	ck_assert_int_eq(oc_parse_dump("1020 rsp+16 u c-8 extra\n", &t, err, sizeof(err)),
			 -EBADMSG);
}
END_TEST

/* Two .eh_frame FDEs, [0x100,0x110) and [0x120,0x130), and a .debug_frame
 * one over [0x100,0x140): it only shows in [0x110,0x120) and [0x130,0x140). */
static struct rf_row rows_a[] = {
	{ 0x100, "rsp+8", "", "c-8" },
	{ 0x101, "rsp+16", "c-16", "c-8" },
};
static struct rf_row rows_b[] = {
	{ 0x120, "rsp+8", "", "c-8" },
};
static struct rf_row rows_d[] = {
	{ 0x100, "rsp+8", "", "c-8" },
	{ 0x104, "rsp+32", "", "c-8" },
};
static struct rf_fde fdes[] = {
	{ false, 0x18, 0x100, 0x110, "zR", false, rows_a, 2 },
	{ false, 0x30, 0x120, 0x130, "zR", false, rows_b, 1 },
	{ true, 0x18, 0x100, 0x140, "", false, rows_d, 2 },
};
static const struct rf_frames frames = { fdes, 3 };

static struct oc_stats compare(const char *dump)
{
	struct oc_table t;
	struct oc_stats st;
	char err[256] = "";

	ck_assert_msg(oc_parse_dump(dump, &t, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(oc_compare(&frames, &t, &st, NULL, 0), 0);
	oc_table_free(&t);
	return st;
}

static const char good_dump[] =
	"100 rsp+8 u c-8 u u u u u\n"
	"101 rsp+16 c-16 c-8 u u u u u\n"
	"110 rsp+32 u c-8 u u u u u\n"	/* .debug_frame in the .eh_frame gap */
	"120 rsp+8 u c-8 u u u u u\n"
	"130 rsp+32 u c-8 u u u u u\n"
	"140 end u u u u u u u\n";

START_TEST(test_compare_agrees)
{
	struct oc_stats st = compare(good_dump);

	ck_assert_int_eq(st.fdes_eh, 2);
	ck_assert_int_eq(st.fdes_debug, 1);
	ck_assert_int_eq(st.overlaps, 0);
	/* 0x100 0x101 0x110 0x120 0x130 in FDEs; 0x0 and 0x140 in gaps */
	ck_assert_int_eq(st.compared, 5);
	ck_assert_int_eq(st.agreed, 5);
	ck_assert_int_eq(st.gap_compared, 2);
	ck_assert_int_eq(st.gap_agreed, 2);
}
END_TEST

START_TEST(test_compare_catches_wrong_rule)
{
	struct oc_stats st = compare("100 rsp+8 u c-8 u u u u u\n101 rsp+16 c-24 c-8 u u u u u\n110 rsp+32 u c-8 u u u u u\n"
				     "120 rsp+8 u c-8 u u u u u\n130 rsp+32 u c-8 u u u u u\n140 end u u u u u u u\n");

	ck_assert_int_eq(st.compared, 5);
	ck_assert_int_eq(st.agreed, 4);
}
END_TEST

/* A change readelf does not have, inside an FDE, is a compared point. */
START_TEST(test_compare_catches_extra_change)
{
	struct oc_stats st = compare("100 rsp+8 u c-8 u u u u u\n101 rsp+16 c-16 c-8 u u u u u\n108 rsp+8 u c-8 u u u u u\n"
				     "110 rsp+32 u c-8 u u u u u\n120 rsp+8 u c-8 u u u u u\n130 rsp+32 u c-8 u u u u u\n"
				     "140 end u u u u u u u\n");

	ck_assert_int_eq(st.compared, 6);
	ck_assert_int_eq(st.agreed, 5);
}
END_TEST

/* No end row after the last FDE: the gap inherits its rule. */
START_TEST(test_compare_catches_inherited_gap)
{
	struct oc_stats st = compare("100 rsp+8 u c-8 u u u u u\n101 rsp+16 c-16 c-8 u u u u u\n110 rsp+32 u c-8 u u u u u\n"
				     "120 rsp+8 u c-8 u u u u u\n130 rsp+32 u c-8 u u u u u\n");

	ck_assert_int_eq(st.compared, 5);
	ck_assert_int_eq(st.agreed, 5);
	ck_assert_int_eq(st.gap_compared, 2);
	ck_assert_int_eq(st.gap_agreed, 1);
}
END_TEST

/* .debug_frame's rule where .eh_frame covers the PC is wrong. */
START_TEST(test_compare_eh_frame_wins)
{
	struct oc_stats st = compare("100 rsp+8 u c-8 u u u u u\n104 rsp+32 u c-8 u u u u u\n110 rsp+32 u c-8 u u u u u\n"
				     "120 rsp+8 u c-8 u u u u u\n130 rsp+32 u c-8 u u u u u\n140 end u u u u u u u\n");

	/* 0x104 is compared against FDE a's second row and disagrees */
	ck_assert_int_eq(st.compared, 6);
	ck_assert_int_eq(st.agreed, 4);
}
END_TEST

/* Overlapping FDEs: the later start covers from its start to its end. */
START_TEST(test_compare_overlap_policy)
{
	struct rf_row outer_rows[] = { { 0x100, "rsp+8", "", "c-8" } };
	struct rf_row inner_rows[] = { { 0x108, "rsp+16", "", "c-8" } };
	struct rf_fde two[] = {
		{ false, 0x18, 0x100, 0x120, "zR", false, outer_rows, 1 },
		{ false, 0x30, 0x108, 0x110, "zR", false, inner_rows, 1 },
	};
	struct rf_frames f = { two, 2 };
	struct oc_table t;
	struct oc_stats st;
	char err[256];

	ck_assert_int_eq(oc_parse_dump("100 rsp+8 u c-8 u u u u u\n108 rsp+16 u c-8 u u u u u\n110 end u u u u u u u\n", &t,
				       err, sizeof(err)), 0);
	ck_assert_int_eq(oc_compare(&f, &t, &st, NULL, 0), 0);
	ck_assert_int_eq(st.overlaps, 1);
	ck_assert_int_eq(st.compared, 2);
	ck_assert_int_eq(st.agreed, 2);
	ck_assert_int_eq(st.gap_compared, 2);
	ck_assert_int_eq(st.gap_agreed, 2);
	oc_table_free(&t);
}
END_TEST

Suite *suite_oracle_compare(void)
{
	Suite *s = suite_create("oracle_compare");
	TCase *tc = tcase_create("classify");

	tcase_add_test(tc, test_classify_expressions);
	tcase_add_test(tc, test_expected_rules);
	tcase_add_test(tc, test_expected_saved);
	tcase_add_test(tc, test_parse_dump);
	suite_add_tcase(s, tc);
	tc = tcase_create("compare");
	tcase_add_test(tc, test_compare_agrees);
	tcase_add_test(tc, test_compare_catches_wrong_rule);
	tcase_add_test(tc, test_compare_catches_extra_change);
	tcase_add_test(tc, test_compare_catches_inherited_gap);
	tcase_add_test(tc, test_compare_eh_frame_wins);
	tcase_add_test(tc, test_compare_overlap_policy);
	suite_add_tcase(s, tc);
	return s;
}
