// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * table_build.c: FDEs to one sorted table: END rows in gaps and after the
 * last FDE, merging of identical neighbours, FDE order, .debug_frame
 * variants (CIE versions, 64-bit DWARF), pointer encodings, .eh_frame laid
 * over .debug_frame, the rule dictionary.
 */
#include <stdlib.h>
#include <string.h>

#include "eh_frame/eh_internal.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

static struct cfi_blob *new_blob(uint64_t vaddr)
{
	struct cfi_blob *b = malloc(sizeof(*b));

	ck_assert_ptr_nonnull(b);
	blob_init(b, vaddr);
	return b;
}

START_TEST(test_gap_gets_end_row)
{
	struct cfi_blob *b = new_blob(0x200000);
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));

	eh_fde(b, cie, "zR", 0x1000, 0x10, NULL, 0);
	eh_fde(b, cie, "zR", 0x1020, 0x10, INSNS(ADV(1), DEF_CFA_OFS, 16));
	eh_expect_rows(b, true, ROW("1000", "rsp+8 u c-8") END("1010")
		    ROW("1020", "rsp+8 u c-8") ROW("1021", "rsp+16 u c-8") END("1030"));
	free(b);
}
END_TEST

START_TEST(test_adjacent_identical_fdes_merge)
{
	struct cfi_blob *b = new_blob(0x200000);
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));

	eh_fde(b, cie, "zR", 0x1000, 0x10, NULL, 0);
	eh_fde(b, cie, "zR", 0x1010, 0x10, NULL, 0);
	eh_fde(b, cie, "zR", 0x1020, 0x10, INSNS(DEF_CFA_OFS, 16));
	eh_expect_rows(b, true, ROW("1000", "rsp+8 u c-8") ROW("1020", "rsp+16 u c-8")
		    END("1030"));
	free(b);
}
END_TEST

START_TEST(test_fdes_sorted_by_pc)
{
	struct cfi_blob *b = new_blob(0x200000);
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));

	eh_fde(b, cie, "zR", 0x3000, 0x10, INSNS(DEF_CFA_OFS, 24));
	eh_fde(b, cie, "zR", 0x1000, 0x10, NULL, 0);
	eh_fde(b, cie, "zR", 0x2000, 0x10, INSNS(DEF_CFA_OFS, 16));
	eh_expect_rows(b, true, ROW("1000", "rsp+8 u c-8") END("1010")
		    ROW("2000", "rsp+16 u c-8") END("2010")
		    ROW("3000", "rsp+24 u c-8") END("3010"));
	free(b);
}
END_TEST

START_TEST(test_overlapping_fde_later_start_wins)
{
	struct cfi_blob *b = new_blob(0x200000);
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));

	eh_fde(b, cie, "zR", 0x1000, 0x20, INSNS(ADV(8), DEF_CFA_OFS, 16));
	eh_fde(b, cie, "zR", 0x1010, 0x08, NULL, 0);
	eh_expect_rows(b, true, ROW("1000", "rsp+8 u c-8") ROW("1008", "rsp+16 u c-8")
		    ROW("1010", "rsp+8 u c-8") END("1018"));
	free(b);
}
END_TEST

START_TEST(test_empty_fde_and_terminator)
{
	struct cfi_blob *b = new_blob(0x200000);
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));

	eh_fde(b, cie, "zR", 0x1000, 0, INSNS(DEF_CFA_OFS, 16));	/* covers nothing */
	blob_u32(b, 0);						/* zero terminator */
	eh_fde(b, cie, "zR", 0x1000, 0x10, NULL, 0);
	eh_expect_rows(b, true, ROW("1000", "rsp+8 u c-8") END("1010"));
	free(b);
}
END_TEST

START_TEST(test_debug_frame_versions)
{
	static const uint8_t versions[] = { 1, 3, 4 };
	size_t i;

	for (i = 0; i < sizeof(versions); i++) {
		struct cfi_blob *b = new_blob(0);
		size_t cie = dbg_cie(b, versions[i], INSNS(CIE_X86_64));

		dbg_fde(b, cie, 0x1000, 0x10, INSNS(ADV(1), DEF_CFA_OFS, 16, OFS(RBP), 2));
		/* address 0: a discarded function's FDE, skipped */
		dbg_fde(b, cie, 0, 0x10, INSNS(DEF_CFA_OFS, 32));
		eh_expect_rows(b, false, ROW("1000", "rsp+8 u c-8")
			    ROW("1001", "rsp+16 c-16 c-8") END("1010"));
		free(b);
	}
}
END_TEST

START_TEST(test_debug_frame_signal_augmentation)
{
	/* gas: .cfi_signal_frame in .debug_frame is augmentation "S", no 'z' */
	struct cfi_blob *b = new_blob(0);
	size_t cie = b->n;

	blob_begin(b);
	blob_u32(b, 0xffffffffu);
	blob_u8(b, 3);
	blob_bytes(b, "S", 2);
	blob_uleb(b, 1);
	blob_sleb(b, -8);
	blob_uleb(b, RA);
	blob_bytes(b, INSNS(CIE_X86_64));
	blob_end(b);
	dbg_fde(b, cie, 0x1000, 0x10, INSNS(ADV(1), DEF_CFA_OFS, 16));
	eh_expect_rows(b, false, ROW("1000", "signal u c-8") END("1010"));
	free(b);
}
END_TEST

START_TEST(test_dwarf64_lengths)
{
	struct cfi_blob *b = new_blob(0);
	size_t cie;

	b->dwarf64 = true;
	cie = dbg_cie(b, 4, INSNS(CIE_X86_64));
	dbg_fde(b, cie, 0x1000, 0x10, INSNS(ADV(2), DEF_CFA_OFS, 16));
	eh_expect_rows(b, false, ROW("1000", "rsp+8 u c-8") ROW("1002", "rsp+16 u c-8")
		    END("1010"));

	blob_init(b, 0x200000);
	b->dwarf64 = true;
	cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));
	eh_fde(b, cie, "zR", 0x1000, 0x10, INSNS(ADV(2), DEF_CFA_OFS, 16));
	eh_expect_rows(b, true, ROW("1000", "rsp+8 u c-8") ROW("1002", "rsp+16 u c-8")
		    END("1010"));
	free(b);
}
END_TEST

/* FDE for [0x1000, 0x1010) with FDE pointer encoding ENC. */
static void check_encoding(uint8_t enc)
{
	struct cfi_blob *b = new_blob(0x200000);
	size_t cie = b->n, fde_pc_pos;
	uint64_t pc = 0x1000, v;

	blob_begin(b);
	blob_u32(b, 0);
	blob_u8(b, 1);
	blob_bytes(b, "zR", 3);
	blob_uleb(b, 1);
	blob_sleb(b, -8);
	blob_u8(b, RA);
	blob_uleb(b, 1);
	blob_u8(b, enc);
	blob_bytes(b, INSNS(CIE_X86_64));
	blob_end(b);

	blob_begin(b);
	blob_u32(b, (uint32_t)(b->n - cie));
	fde_pc_pos = b->n;
	v = (enc & 0x70) == 0x10 ? pc - (b->vaddr + fde_pc_pos) : pc;
	switch (enc & 0x0f) {
	case 0x01: blob_uleb(b, v); blob_uleb(b, 0x10); break;
	case 0x02: blob_bytes(b, &v, 2); blob_bytes(b, INSNS(0x10, 0)); break;
	case 0x03: case 0x0b: blob_u32(b, (uint32_t)v); blob_u32(b, 0x10); break;
	case 0x09: blob_sleb(b, (int64_t)v); blob_sleb(b, 0x10); break;
	default: blob_u64(b, v); blob_u64(b, 0x10); break;
	}
	blob_uleb(b, 0);
	blob_end(b);
	eh_expect_rows(b, true, ROW("1000", "rsp+8 u c-8") END("1010"));
	free(b);
}

START_TEST(test_pointer_encodings)
{
	check_encoding(0x00);	/* absptr */
	check_encoding(0x01);	/* uleb128 */
	check_encoding(0x02);	/* udata2 */
	check_encoding(0x03);	/* udata4 */
	check_encoding(0x04);	/* udata8 */
	check_encoding(0x09);	/* sleb128 */
	check_encoding(0x0c);	/* sdata8 */
	check_encoding(0x1b);	/* pcrel sdata4: what GCC emits */
	check_encoding(0x1c);	/* pcrel sdata8 */
	check_encoding(0x19);	/* pcrel sleb128 */
}
END_TEST

START_TEST(test_eh_frame_over_debug_frame)
{
	struct cfi_blob *e = new_blob(0x200000), *d = new_blob(0);
	struct eh_rows er = { 0 }, dr = { 0 }, both = { 0 };
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN];
	size_t cie;
	char *got;

	cie = eh_cie(e, "zR", 1, -8, INSNS(CIE_X86_64));
	eh_fde(e, cie, "zR", 0x1000, 0x10, INSNS(ADV(4), DEF_CFA_OFS, 16));
	eh_fde(e, cie, "zR", 0x1040, 0x10, NULL, 0);
	cie = dbg_cie(d, 3, INSNS(CIE_X86_64));
	/* covers the first eh FDE and the gap after it, not the second */
	dbg_fde(d, cie, 0x0ff0, 0x40, INSNS(DEF_CFA, RBP, 16, OFS(RBP), 2));
	dbg_fde(d, cie, 0x1040, 0x10, INSNS(DEF_CFA_OFS, 64));

	ck_assert_int_eq(eh_rows_from_section(&er, e->buf, e->n, e->vaddr, true, err), 0);
	ck_assert_int_eq(eh_rows_from_section(&dr, d->buf, d->n, d->vaddr, false, err), 0);
	ck_assert_int_eq(eh_rows_overlay(&both, &er, &dr), 0);
	ck_assert_int_eq(eh_table_from_rows(&both, PK_UNWIND_HAS_EH_FRAME |
					    PK_UNWIND_HAS_DEBUG_FRAME, NULL, 0, &t, err), 0);
	got = eh_rows_text(t);
	ck_assert_str_eq(got, ROW("0ff0", "rbp+16 c-16 c-8") ROW("1000", "rsp+8 u c-8")
			 ROW("1004", "rsp+16 u c-8") ROW("1010", "rbp+16 c-16 c-8")
			 END("1030") ROW("1040", "rsp+8 u c-8") END("1050"));
	free(got);
	eh_unwind_table_free(t);
	eh_rows_free(&er);
	eh_rows_free(&dr);
	eh_rows_free(&both);
	free(e);
	free(d);
}
END_TEST

START_TEST(test_dictionary_and_header)
{
	struct cfi_blob *b = new_blob(0x200000);
	const struct pk_unwind_header *h;
	const struct pk_unwind_rule *rules;
	const uint16_t *ids;
	const uint32_t *pcs;
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN];
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));

	/* rsp+8, rsp+16, rsp+8, end, rsp+8, end: 6 rows, 3 rules */
	eh_fde(b, cie, "zR", 0x1000, 0x10, INSNS(ADV(1), DEF_CFA_OFS, 16, ADV(1),
						 DEF_CFA_OFS, 8));
	eh_fde(b, cie, "zR", 0x2000, 0x10, NULL, 0);
	ck_assert_int_eq(eh_unwind_table_from_section(b->buf, b->n, b->vaddr, true, &t, err), 0);
	h = eh_unwind_table_header(t);
	ck_assert_uint_eq(h->nrows, 6);
	ck_assert_uint_eq(h->nrules, 3);
	ck_assert_uint_eq(h->pc_base, 0x1000);
	ck_assert_uint_eq(h->pc_end, 0x2010);
	ck_assert_uint_eq(h->flags, PK_UNWIND_HAS_EH_FRAME);
	ck_assert_uint_eq(h->arch, 62);
	ck_assert_uint_eq(h->build_id_len, 0);
	/* header, 6 x (4 + 2) bytes padded to 8, 3 x 24 */
	ck_assert_uint_eq(eh_unwind_table_size(t), sizeof(*h) + 24 + 16 + 3 * 24);
	ck_assert_uint_eq(h->file_size, eh_unwind_table_size(t));

	pcs = (const uint32_t *)((const char *)h + h->pcs_off);
	ids = (const uint16_t *)((const char *)h + h->rule_ids_off);
	rules = (const struct pk_unwind_rule *)((const char *)h + h->rules_off);
	ck_assert_uint_eq(pcs[0], 0);
	ck_assert_uint_eq(pcs[1], 1);
	ck_assert_uint_eq(pcs[3], 0x10);
	ck_assert_uint_eq(pcs[5], 0x1010);
	ck_assert_uint_eq(ids[0], ids[2]);
	ck_assert_uint_eq(ids[0], ids[4]);
	ck_assert_uint_eq(ids[3], ids[5]);
	ck_assert_uint_ne(ids[0], ids[1]);
	ck_assert_uint_eq(rules[ids[1]].cfa_type, PK_CFA_RSP);
	ck_assert_int_eq(rules[ids[1]].cfa_offset, 16);
	ck_assert_uint_eq(rules[ids[3]].cfa_type, PK_CFA_END);
	eh_unwind_table_free(t);
	free(b);
}
END_TEST

Suite *suite_eh_build(void)
{
	Suite *s = suite_create("eh_build");
	TCase *tc;

	tc = tcase_create("rows");
	tcase_add_test(tc, test_gap_gets_end_row);
	tcase_add_test(tc, test_adjacent_identical_fdes_merge);
	tcase_add_test(tc, test_fdes_sorted_by_pc);
	tcase_add_test(tc, test_overlapping_fde_later_start_wins);
	tcase_add_test(tc, test_empty_fde_and_terminator);
	suite_add_tcase(s, tc);

	tc = tcase_create("formats");
	tcase_add_test(tc, test_debug_frame_versions);
	tcase_add_test(tc, test_debug_frame_signal_augmentation);
	tcase_add_test(tc, test_dwarf64_lengths);
	tcase_add_test(tc, test_pointer_encodings);
	suite_add_tcase(s, tc);

	tc = tcase_create("sources");
	tcase_add_test(tc, test_eh_frame_over_debug_frame);
	suite_add_tcase(s, tc);

	tc = tcase_create("dictionary");
	tcase_add_test(tc, test_dictionary_and_header);
	suite_add_tcase(s, tc);
	return s;
}
