// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unwind rows of a Go binary that has no CFI (`go build -ldflags="-s -w"`
 * drops .debug_frame, and Go emits no .eh_frame), from its .gopclntab's
 * pcsp tables: each function's SP offset from its entry at every PC, the
 * same numbers Go's linker turns into .debug_frame when it keeps one.
 * Without them the walk would go by frame pointer, which loses the caller
 * of a frameless leaf (it pushes no RBP, so the step from it takes its
 * caller's).
 *
 * Per run of a pcsp table, with D its SP delta: CFA = RSP + D + 8, the
 * return address at CFA-8, and RBP at CFA-16 once the frame holds more
 * than the return address (the prologue's PUSHQ BP, or Go 1.19's
 * SUBQ/MOVQ BP, n-8(SP), both save it there), unchanged before that.
 * A function's padding, past its pcsp table, gets an END row.
 */
#include <errno.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

#include "eh_frame/eh_internal.h"
#include "eh_frame/go_pclntab.h"

/* The SP deltas kept, as Go's linker keeps them in .debug_frame: up to
 * the largest whose CFA offset fits the rule's 32 bits (real frames reach
 * 1 GiB: runtime.call1073741824, reflect's largest), down to -8 (the
 * return address popped: syscall.rawVforkSyscall, around its SYSCALL).
 * Beyond either, the row is unsupported. */
#define GO_MIN_SPDELTA	(-8)
#define GO_MAX_SPDELTA	(INT32_MAX - 8)

static void go_rule(__s32 spdelta, struct pk_unwind_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	if (spdelta < GO_MIN_SPDELTA || spdelta > GO_MAX_SPDELTA) {
		rule->cfa_type = PK_CFA_UNSUPPORTED;
		rule->fp_type = PK_FP_UNSUPPORTED;
		rule->ra_type = PK_RA_UNSUPPORTED;
		return;
	}
	rule->cfa_type = PK_CFA_RSP;
	rule->cfa_reg = PK_DWARF_RSP;
	rule->cfa_offset = spdelta + 8;
	rule->ra_type = PK_RA_CFA_OFFSET;
	rule->ra_offset = -8;
	if (spdelta >= 8) {
		rule->fp_type = PK_FP_CFA_OFFSET;
		rule->fp_offset = -16;
	}
}

int eh_rows_from_gopclntab(struct eh_rows *rows, const struct pk_gopclntab *t,
			   char err[PK_ERR_LEN])
{
	bool covered = false;
	__u64 steps = 0;
	int ret;

	for (__u64 i = 0; i < t->nfunc; i++) {
		struct pk_unwind_rule rule;
		struct pk_gofunc fn;
		struct pk_gopcv it;
		__u64 at;

		/* a function whose _func or pcsp cannot be read stays
		 * uncovered (END), as one without an FDE would */
		if (!pk_gopclntab_func_at(t, i, &fn) || fn.end <= fn.entry)
			continue;
		at = fn.entry;
		if (pk_gopcv_begin(t, pk_go_rd32(fn.f + PK_GOFUNC_PCSP), fn.entry, &it)) {
			while (at < fn.end && pk_gopcv_next(t, &it)) {
				/* every step reads two bytes, but a bad table's
				 * functions may share them */
				if (++steps > EH_MAX_ROWS)
					return pk_err(err, -E2BIG, "more than %u rows", EH_MAX_ROWS);
				if (it.next <= at)
					continue;
				go_rule((__s32)it.value, &rule);
				ret = eh_rows_push_checked(rows, at, &rule, err);
				if (ret)
					return ret;
				covered = true;
				at = it.next < fn.end ? it.next : fn.end;
			}
		}
		ret = eh_rows_push_checked(rows, at, &eh_end_rule, err);
		if (ret)
			return ret;
	}
	if (!covered)
		return pk_err(err, -ENODATA, "Go .gopclntab: no function has an SP table");
	return 0;
}
