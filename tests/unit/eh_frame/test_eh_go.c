// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unwind tables of a Go binary without CFI, from its .gopclntab's SP
 * deltas (eh_frame/go_table.c), on the Go fixture as each toolchain the
 * tests have builds it (tests/go.mk). The oracle is the unstripped
 * build's own .debug_frame, which Go's linker writes from the same pcsp
 * tables: -s -w leaves the code where it was, so at every row PC of
 * either table, where the .debug_frame covers it, the two must give the
 * same CFA and return address; and the stripped table must cover every
 * PC the .debug_frame does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/eh_internal.h"
#include "eh_frame/go_pclntab.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

static const char *const versions[] = { "go1.19", "go1.24", "go1.27", "go1.19-pie" };

static const char *fixture(const char *version, const char *kind, char *buf, size_t len)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "fixtures_go/gochain-%s-%s", version, kind);
	return pk_test_build_path(rel, buf, len);
}

/* A table's arrays. */
struct view {
	const struct pk_unwind_header *h;
	const __u32 *pcs;
	const __u16 *ids;
	const struct pk_unwind_rule *rules;
};

static struct view view_of(const struct eh_unwind_table *t)
{
	const struct pk_unwind_header *h = eh_unwind_table_header(t);
	const char *b = (const char *)h;

	return (struct view){ h, (const __u32 *)(b + h->pcs_off),
			      (const __u16 *)(b + h->rule_ids_off),
			      (const struct pk_unwind_rule *)(b + h->rules_off) };
}

/* The rule of V at PC (END outside it). */
static const struct pk_unwind_rule *rule_at(const struct view *v, __u64 pc)
{
	__u32 lo = 0, hi = v->h->nrows;

	if (pc < v->h->pc_base || pc >= v->h->pc_end)
		return &eh_end_rule;
	while (hi - lo > 1) {
		__u32 mid = lo + (hi - lo) / 2;

		if (v->h->pc_base + v->pcs[mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &v->rules[v->ids[lo]];
}

static struct eh_unwind_table *table_of(const char *version, const char *kind, __u16 flags)
{
	char path[512], err[PK_ERR_LEN] = "";
	struct eh_unwind_table *t = NULL;

	fixture(version, kind, path, sizeof(path));
	ck_assert_msg(eh_unwind_table_from_elf(path, NULL, &t, err) == 0, "%s: %s", path, err);
	/* Go writes .debug_frame and no .eh_frame; -s -w drops it */
	ck_assert_int_eq(eh_unwind_table_header(t)->flags & ~PK_UNWIND_NO_BUILD_ID, flags);
	return t;
}

/* Where the .debug_frame (DBG) has a rule, the Go table has the same CFA
 * and return address; RBP is the Go table's own (Go's .debug_frame says
 * nothing of it). Returns the number of rows compared. */
static unsigned long agree(const struct view *dbg, const struct view *go, const struct view *rows,
			   const char *version, unsigned long *rbp_saved)
{
	unsigned long n = 0;

	for (__u32 i = 0; i < rows->h->nrows; i++) {
		__u64 pc = rows->h->pc_base + rows->pcs[i];
		const struct pk_unwind_rule *d = rule_at(dbg, pc), *g = rule_at(go, pc);

		if (d->cfa_type == PK_CFA_END)
			continue;
		ck_assert_msg(d->cfa_type == PK_CFA_RSP && d->ra_type == PK_RA_CFA_OFFSET &&
			      d->ra_offset == -8, "%s: .debug_frame at %#llx", version,
			      (unsigned long long)pc);
		ck_assert_msg(g->cfa_type == PK_CFA_RSP && g->cfa_offset == d->cfa_offset &&
			      g->ra_type == PK_RA_CFA_OFFSET && g->ra_offset == -8,
			      "%s: at %#llx the .gopclntab's CFA is rsp+%d (type %u), "
			      ".debug_frame's rsp+%d", version, (unsigned long long)pc,
			      g->cfa_offset, g->cfa_type, d->cfa_offset);
		/* RBP: saved at CFA-16 exactly where the frame is more than
		 * the return address */
		if (d->cfa_offset > 8) {
			ck_assert_msg(g->fp_type == PK_FP_CFA_OFFSET && g->fp_offset == -16,
				      "%s: rbp at %#llx", version, (unsigned long long)pc);
			++*rbp_saved;
		} else {
			ck_assert_int_eq(g->fp_type, PK_FP_UNCHANGED);
		}
		n++;
	}
	return n;
}

START_TEST(test_cfa_as_debug_frame)
{
	const char *v = versions[_i];
	struct eh_unwind_table *full = table_of(v, "full", PK_UNWIND_HAS_DEBUG_FRAME);
	struct eh_unwind_table *strip = table_of(v, "strip", PK_UNWIND_HAS_GOPCLNTAB);
	struct view d = view_of(full), g = view_of(strip);
	unsigned long from_dbg, from_go, rbp = 0, rbp_go = 0;

	from_dbg = agree(&d, &g, &d, v, &rbp);
	from_go = agree(&d, &g, &g, v, &rbp_go);
	fprintf(stderr, "%s: %u .debug_frame rows, %u .gopclntab rows; CFA alike at %lu and "
		"%lu row PCs, rbp saved at %lu\n", v, d.h->nrows, g.h->nrows, from_dbg, from_go,
		rbp);
	/* row for row: the same PCs, the same range */
	ck_assert_uint_eq(g.h->nrows, d.h->nrows);
	ck_assert_uint_eq(g.h->pc_base, d.h->pc_base);
	ck_assert_uint_eq(g.h->pc_end, d.h->pc_end);
	/* every function's rows, not a few */
	ck_assert_uint_ge(from_dbg, 1000);
	ck_assert_uint_ge(from_go, 1000);
	ck_assert_uint_ge(rbp, from_dbg / 4);
	eh_unwind_table_free(full);
	eh_unwind_table_free(strip);
}
END_TEST

/* The table's END rows: the padding after a function, up to the next
 * one's entry, as the .debug_frame (whose FDEs end with the code). */
START_TEST(test_padding_is_end)
{
	const char *v = versions[_i];
	struct eh_unwind_table *full = table_of(v, "full", PK_UNWIND_HAS_DEBUG_FRAME);
	struct eh_unwind_table *strip = table_of(v, "strip", PK_UNWIND_HAS_GOPCLNTAB);
	struct view d = view_of(full), g = view_of(strip);
	unsigned long ends = 0, alike = 0;

	for (__u32 i = 0; i < g.h->nrows; i++) {
		__u64 pc = g.h->pc_base + g.pcs[i];

		if (g.rules[g.ids[i]].cfa_type != PK_CFA_END)
			continue;
		ends++;
		alike += rule_at(&d, pc)->cfa_type == PK_CFA_END;
	}
	fprintf(stderr, "%s: %lu END rows, %lu END in .debug_frame too\n", v, ends, alike);
	ck_assert_uint_ge(ends, 100);
	ck_assert_uint_eq(alike, ends);
	eh_unwind_table_free(full);
	eh_unwind_table_free(strip);
}
END_TEST

/* A stripped Go binary whose table is of a layout not read (here Go
 * 1.16's magic) has no rows: refused as a file without CFI, the reason
 * added. */
START_TEST(test_old_layout_refused)
{
	static const __u8 go120[] = { 0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8 };
	static const __u8 go116[] = { 0xfa, 0xff, 0xff, 0xff, 0, 0, 1, 8 };
	char dir[256], path[512], copy[600], err[PK_ERR_LEN] = "";
	struct eh_unwind_table *t = NULL;

	eh_tmpdir(dir, sizeof(dir));
	snprintf(copy, sizeof(copy), "%s/strip", dir);
	eh_copy_file(fixture("go1.24", "strip", path, sizeof(path)), copy, 64 << 20);
	eh_patch_file(copy, go120, go116, sizeof(go120));
	ck_assert_int_eq(eh_unwind_table_from_elf(copy, NULL, &t, err), -ENODATA);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(err, "no .eh_frame or .debug_frame section, and Go .gopclntab of "
		"Go 1.16-1.17 (magic 0xfffffffa) is not read (Go 1.18 and later are): its "
		"functions stay named by address");
	eh_rmtree(dir);
}
END_TEST

Suite *suite_eh_go(void)
{
	Suite *s = suite_create("eh_go");
	TCase *tc = tcase_create("pcsp");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_cfa_as_debug_frame, 0,
			    sizeof(versions) / sizeof(versions[0]));
	tcase_add_loop_test(tc, test_padding_is_end, 0, sizeof(versions) / sizeof(versions[0]));
	tcase_add_test(tc, test_old_layout_refused);
	suite_add_tcase(s, tc);
	return s;
}
