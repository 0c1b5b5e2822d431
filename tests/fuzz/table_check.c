// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/table_check.h"

#define require(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
	abort(); } } while (0)

static FILE *devnull;

static void check_table(const struct eh_unwind_table *t)
{
	const struct pk_unwind_header *h = eh_unwind_table_header(t);
	const char *base = (const char *)h;
	size_t size = eh_unwind_table_size(t);
	const __u32 *pcs;
	const __u16 *ids;
	const struct pk_unwind_rule *rules;

	require(h->file_size == size && h->header_size <= size);
	require(h->nrows > 0 && h->nrules > 0 && h->nrules <= h->nrows);
	require(h->pcs_off + (__u64)h->nrows * 4 <= size);
	require(h->rule_ids_off + (__u64)h->nrows * 2 <= size);
	require(h->rules_off + (__u64)h->nrules * sizeof(*rules) <= size);
	pcs = (const __u32 *)(base + h->pcs_off);
	ids = (const __u16 *)(base + h->rule_ids_off);
	rules = (const struct pk_unwind_rule *)(base + h->rules_off);
	for (__u32 i = 0; i < h->nrows; i++) {
		require(ids[i] < h->nrules);
		require(rules[ids[i]].cfa_type <= PK_CFA_UNSUPPORTED);
		if (i) {
			require(pcs[i] > pcs[i - 1]);
			require(ids[i] != ids[i - 1]);
		}
	}
	require(h->pc_base + pcs[h->nrows - 1] <= h->pc_end);
	/* A table built from CFI ends with an END row at pc_end: nothing
	 * past the last FDE inherits its rule. */
	if (h->flags & (PK_UNWIND_HAS_EH_FRAME | PK_UNWIND_HAS_DEBUG_FRAME))
		require(rules[ids[h->nrows - 1]].cfa_type == PK_CFA_END);

	if (!devnull)
		devnull = fopen("/dev/null", "we");
	require(devnull && eh_unwind_table_dump(t, devnull) == 0);
}

static void check_error(int ret, const char err[PK_ERR_LEN])
{
	require(ret < 0);
	require(err[0] != '\0');
	require(strchr(err, '\n') == NULL);
}

void fuzz_check_result(int ret, struct eh_unwind_table *t, const char err[PK_ERR_LEN])
{
	if (ret == 0) {
		check_table(t);
		eh_unwind_table_free(t);
	} else {
		require(t == NULL);
		check_error(ret, err);
	}
}
