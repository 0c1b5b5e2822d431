// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cfi_parse.c and the interpreter's limits: every kind of bad call-frame
 * information must fail with its own reason, never crash, hang or read out
 * of bounds (the runner is built with ASan/UBSan).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/eh_internal.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

static struct cfi_blob *new_blob(void)
{
	struct cfi_blob *b = malloc(sizeof(*b));

	ck_assert_ptr_nonnull(b);
	blob_init(b, 0x200000);
	return b;
}

/* Building B must fail with -ERRNO and exactly MSG. */
static void expect_error(const struct cfi_blob *b, bool eh_frame, int errno_val,
			 const char *msg)
{
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN] = "";
	int ret;

	ret = eh_unwind_table_from_section(b->buf, b->n, b->vaddr, eh_frame, &t, err);
	ck_assert_int_eq(ret, -errno_val);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(err, msg);
}

static void expect_fde_error(const uint8_t *insns, size_t n, uint64_t range,
			     int errno_val, const char *msg)
{
	struct cfi_blob *b = new_blob();
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));

	eh_fde(b, cie, "zR", 0x1000, range, insns, n);
	expect_error(b, true, errno_val, msg);
	free(b);
}

/* A zR-style CIE with augmentation AUG and raw augmentation DATA. */
static size_t raw_cie(struct cfi_blob *b, uint8_t version, const char *aug,
		      const uint8_t *data, size_t n)
{
	size_t off = b->n;

	blob_begin(b);
	blob_u32(b, 0);
	blob_u8(b, version);
	blob_bytes(b, aug, strlen(aug) + 1);
	blob_uleb(b, 1);
	blob_sleb(b, -8);
	blob_u8(b, RA);
	if (aug[0] == 'z') {
		blob_uleb(b, n);
		blob_bytes(b, data, n);
	}
	blob_bytes(b, INSNS(CIE_X86_64));
	blob_end(b);
	return off;
}

/* ---- entry lengths ------------------------------------------------------ */

START_TEST(test_truncated_length)
{
	struct cfi_blob *b = new_blob();

	blob_u8(b, 0x10);
	blob_u8(b, 0);
	expect_error(b, true, EINVAL, ".eh_frame: truncated entry length at 0x0");
	free(b);
}
END_TEST

START_TEST(test_length_past_end)
{
	struct cfi_blob *b = new_blob();

	eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));
	blob_u32(b, 0x100);
	blob_u32(b, 0);
	expect_error(b, true, EINVAL, ".eh_frame: entry at 0x16: length 0x100 runs past the end of the section (0x1e bytes)");
	free(b);
}
END_TEST

START_TEST(test_length_64bit_past_end)
{
	struct cfi_blob *b = new_blob();

	blob_u32(b, 0xffffffffu);
	blob_u64(b, 1ull << 40);
	blob_u64(b, 0);
	expect_error(b, false, EINVAL, ".debug_frame: entry at 0x0: length 0x10000000000 runs past the end of the section (0x14 bytes)");
	free(b);
}
END_TEST

START_TEST(test_reserved_length)
{
	struct cfi_blob *b = new_blob();

	blob_u32(b, 0xfffffff5u);
	blob_u32(b, 0);
	expect_error(b, true, EINVAL, ".eh_frame: entry at 0x0: reserved length 0xfffffff5");
	free(b);
}
END_TEST

START_TEST(test_length_shorter_than_id)
{
	struct cfi_blob *b = new_blob();

	blob_u32(b, 2);
	blob_u32(b, 0);
	expect_error(b, true, EINVAL, ".eh_frame: entry at 0x0: length 0x2 runs past the end of the section (0x8 bytes)");
	free(b);
}
END_TEST

/* ---- CIEs --------------------------------------------------------------- */

START_TEST(test_cie_pointer_not_a_cie)
{
	struct cfi_blob *b = new_blob();
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));

	/* points 4 bytes into the CIE */
	eh_fde(b, cie + 4, "zR", 0x1000, 0x10, NULL, 0);
	expect_error(b, true, EINVAL, ".eh_frame: FDE at 0x16: CIE pointer 0x4 is not a CIE");
	free(b);
}
END_TEST

START_TEST(test_cie_bad_version)
{
	struct cfi_blob *b = new_blob();

	raw_cie(b, 2, "zR", INSNS(0x1b));
	expect_error(b, true, EINVAL, ".eh_frame: CIE at 0x0: unsupported version 2");
	free(b);
}
END_TEST

START_TEST(test_cie_unknown_augmentation)
{
	struct cfi_blob *b = new_blob();

	raw_cie(b, 1, "zRX", INSNS(0x1b));
	expect_error(b, true, EINVAL, ".eh_frame: CIE at 0x0: unknown augmentation 'X' in \"zRX\"");
	blob_init(b, 0);
	raw_cie(b, 1, "xy", NULL, 0);
	expect_error(b, true, EINVAL, ".eh_frame: CIE at 0x0: unknown augmentation \"xy\"");
	free(b);
}
END_TEST

START_TEST(test_cie_augmentation_data_short)
{
	struct cfi_blob *b = new_blob();

	/* 'R' and 'P' announced, one byte of data */
	raw_cie(b, 1, "zPR", INSNS(0x1b));
	expect_error(b, true, EINVAL, ".eh_frame: CIE at 0x0: bad augmentation data for 'P'");
	free(b);
}
END_TEST

START_TEST(test_cie_truncated_header)
{
	struct cfi_blob *b = new_blob();

	blob_begin(b);
	blob_u32(b, 0);
	blob_u8(b, 1);
	blob_bytes(b, "zR", 3);
	blob_u8(b, 1);		/* code alignment, then nothing */
	blob_end(b);
	expect_error(b, true, EINVAL, ".eh_frame: CIE at 0x0: truncated header");
	free(b);
}
END_TEST

/* ---- pointer encodings -------------------------------------------------- */

static void expect_bad_encoding(uint8_t enc, const char *msg)
{
	struct cfi_blob *b = new_blob();
	size_t cie = raw_cie(b, 1, "zR", &enc, 1);

	blob_begin(b);
	blob_u32(b, (uint32_t)(b->n - cie));
	blob_u64(b, 0x1000);
	blob_u64(b, 0x10);
	blob_u8(b, 0);
	blob_end(b);
	expect_error(b, true, EINVAL, msg);
	free(b);
}

START_TEST(test_bogus_pointer_encodings)
{
	expect_bad_encoding(0x9b, ".eh_frame: FDE at 0x16: unsupported pointer encoding 0x9b");
	expect_bad_encoding(0x0f, ".eh_frame: FDE at 0x16: unsupported pointer encoding 0x0f");
	expect_bad_encoding(0x53, ".eh_frame: FDE at 0x16: unsupported pointer encoding 0x53");
	expect_bad_encoding(0xff, ".eh_frame: FDE at 0x16: unsupported pointer encoding 0xff");
}
END_TEST

START_TEST(test_truncated_fde_address)
{
	struct cfi_blob *b = new_blob();
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));

	blob_begin(b);
	blob_u32(b, (uint32_t)(b->n - cie));
	blob_u32(b, 0);		/* pc, then no range */
	blob_end(b);
	expect_error(b, true, EINVAL, ".eh_frame: FDE at 0x16: truncated address range");
	free(b);
}
END_TEST

START_TEST(test_address_range_wraps)
{
	struct cfi_blob *b = new_blob();
	size_t cie = eh_cie(b, "", 1, -8, INSNS(CIE_X86_64));

	eh_fde(b, cie, "", 0xffffffffffff0000ull, 0x20000, NULL, 0);
	expect_error(b, true, EINVAL, ".eh_frame: FDE at 0x12: address range wraps around");
	free(b);
}
END_TEST

/* ---- programs ----------------------------------------------------------- */

START_TEST(test_truncated_instruction)
{
	expect_fde_error(INSNS(ADV(1), DEF_CFA_OFS, 0x80), 0x10, EINVAL,
			 ".eh_frame: FDE at 0x16: truncated call-frame instruction");
	expect_fde_error(INSNS(DEF_CFA_EXPR, 5, 0x77), 0x10, EINVAL,
			 ".eh_frame: FDE at 0x16: truncated call-frame instruction");
}
END_TEST

START_TEST(test_advance_past_fde_end)
{
	expect_fde_error(INSNS(ADV(8), DEF_CFA_OFS, 16, ADV4, 0, 1, 0, 0), 0x10, EINVAL,
			 ".eh_frame: FDE at 0x16: advance past the end of the FDE");
}
END_TEST

START_TEST(test_remember_state_explodes)
{
	uint8_t insns[EH_MAX_STATE_DEPTH + 1];

	memset(insns, REMEMBER, sizeof(insns));
	expect_fde_error(insns, sizeof(insns), 0x10, E2BIG,
			 ".eh_frame: FDE at 0x16: DW_CFA_remember_state nested too deep");
}
END_TEST

START_TEST(test_restore_state_without_remember)
{
	expect_fde_error(INSNS(ADV(1), RESTORE_STATE), 0x10, EINVAL,
			 ".eh_frame: FDE at 0x16: DW_CFA_restore_state without remember_state");
}
END_TEST

START_TEST(test_advance_in_cie)
{
	struct cfi_blob *b = new_blob();
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64, ADV(1)));

	eh_fde(b, cie, "zR", 0x1000, 0x10, NULL, 0);
	expect_error(b, true, EINVAL, ".eh_frame: CIE at 0x0: advance in CIE initial instructions");
	free(b);
}
END_TEST

START_TEST(test_set_loc_backwards)
{
	struct cfi_blob *b = new_blob();
	size_t cie = dbg_cie(b, 1, INSNS(CIE_X86_64));

	dbg_fde(b, cie, 0x1000, 0x20, INSNS(ADV(8), SET_LOC, 4, 0x10, 0, 0, 0, 0, 0, 0));
	expect_error(b, false, EINVAL, ".debug_frame: FDE at 0x12: DW_CFA_set_loc moves backwards");
	free(b);
}
END_TEST

START_TEST(test_no_fdes)
{
	struct cfi_blob *b = new_blob();

	eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));
	blob_u32(b, 0);		/* terminator */
	expect_error(b, true, ENODATA, "no FDEs in the unwind sections");
	blob_init(b, 0);
	expect_error(b, true, ENODATA, "no FDEs in the unwind sections");
	free(b);
}
END_TEST

START_TEST(test_too_many_rules)
{
	struct cfi_blob *b = new_blob();
	size_t cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));
	uint32_t i, nrows = PK_UNWIND_MAX_RULES + 1;

	/* one FDE, every row a new CFA offset */
	blob_begin(b);
	blob_u32(b, (uint32_t)(b->n - cie));
	blob_u32(b, (uint32_t)(0x1000 - (b->vaddr + b->n)));
	blob_u32(b, nrows);
	blob_uleb(b, 0);
	for (i = 0; i < nrows - 1; i++) {
		blob_u8(b, ADV(1));
		blob_u8(b, DEF_CFA_OFS);
		blob_uleb(b, 16 + i);
	}
	blob_end(b);
	expect_error(b, true, E2BIG, "more than 65536 distinct unwind rules");
	free(b);
}
END_TEST

START_TEST(test_span_over_4g)
{
	struct cfi_blob *b = new_blob();
	size_t cie = eh_cie(b, "", 1, -8, INSNS(CIE_X86_64));

	eh_fde(b, cie, "", 0x1000, 0x10, NULL, 0);
	eh_fde(b, cie, "", 0x200000000ull, 0x10, NULL, 0);
	expect_error(b, true, E2BIG, "covered addresses span more than 4 GiB");
	free(b);
}
END_TEST

/* Every prefix of a valid section either parses or fails cleanly. */
START_TEST(test_every_truncation_is_clean)
{
	struct cfi_blob *b = new_blob();
	struct eh_unwind_table *t;
	char err[PK_ERR_LEN];
	size_t cie, n, full;

	cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));
	eh_fde(b, cie, "zR", 0x1000, 0x20, INSNS(ADV(1), DEF_CFA_OFS, 16, OFS(RBP), 2,
						 ADV(1), REMEMBER, DEF_CFA, RSP, 8,
						 ADV(1), RESTORE_STATE));
	full = b->n;
	/* the whole section builds: the failures below are the cuts' */
	t = NULL;
	ck_assert_msg(eh_unwind_table_from_section(b->buf, full, b->vaddr, true, &t, err) == 0,
		      "%s", err);
	eh_unwind_table_free(t);
	for (n = 0; n < full; n++) {
		uint8_t *copy = malloc(n ? n : 1);	/* exact size: ASan sees overreads */
		int ret;

		memcpy(copy, b->buf, n);
		t = NULL;
		ret = eh_unwind_table_from_section(copy, n, b->vaddr, true, &t, err);
		ck_assert_msg(ret < 0, "prefix %zu of %zu parsed", n, full);
		ck_assert_ptr_null(t);
		ck_assert_msg(err[0], "prefix %zu failed without a reason", n);
		free(copy);
	}
	free(b);
}
END_TEST

Suite *suite_eh_parse(void)
{
	Suite *s = suite_create("eh_parse");
	TCase *tc;

	tc = tcase_create("lengths");
	tcase_add_test(tc, test_truncated_length);
	tcase_add_test(tc, test_length_past_end);
	tcase_add_test(tc, test_length_64bit_past_end);
	tcase_add_test(tc, test_reserved_length);
	tcase_add_test(tc, test_length_shorter_than_id);
	tcase_add_test(tc, test_every_truncation_is_clean);
	suite_add_tcase(s, tc);

	tc = tcase_create("cie");
	tcase_add_test(tc, test_cie_pointer_not_a_cie);
	tcase_add_test(tc, test_cie_bad_version);
	tcase_add_test(tc, test_cie_unknown_augmentation);
	tcase_add_test(tc, test_cie_augmentation_data_short);
	tcase_add_test(tc, test_cie_truncated_header);
	suite_add_tcase(s, tc);

	tc = tcase_create("pointers");
	tcase_add_test(tc, test_bogus_pointer_encodings);
	tcase_add_test(tc, test_truncated_fde_address);
	tcase_add_test(tc, test_address_range_wraps);
	suite_add_tcase(s, tc);

	tc = tcase_create("programs");
	tcase_add_test(tc, test_truncated_instruction);
	tcase_add_test(tc, test_advance_past_fde_end);
	tcase_add_test(tc, test_remember_state_explodes);
	tcase_add_test(tc, test_restore_state_without_remember);
	tcase_add_test(tc, test_advance_in_cie);
	tcase_add_test(tc, test_set_loc_backwards);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_no_fdes);
	tcase_add_test(tc, test_too_many_rules);
	tcase_add_test(tc, test_span_over_4g);
	suite_add_tcase(s, tc);
	return s;
}
