// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A Go binary's .gopclntab (symbolization/gopclntab.h) is bytes of any file
 * a process maps. The input: a flags byte (bit 0: no go:func.*), the
 * length G of the go:func.* bytes (4 bytes, little-endian, cut to what is
 * there), the text address (8 bytes), then the table and, last, the G
 * bytes of go:func.*. Each part is a copy of its exact size, so that ASan
 * sees any read past it. Looked up: every function's entry (up to 256) and
 * a few addresses within and past it, with room for 1 to 4 frames; every
 * answer's frames are at most the room given, their names and files
 * strings of the table, ending in it, the function's entry at or before
 * the address. Then the unwind table of its SP deltas
 * (eh_frame/go_table.c), as a Go binary without CFI gets one: a
 * well-formed table or one line of reason (table_check.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/eh_internal.h"
#include "symbolization/gopclntab.h"
#include "table_check.h"

#define HDR	13
#define MAX_FUNCS	256

static const __u8 *tab_p, *tab_end;

/* S is NULL or a string in the table (ending in it). */
static void check_str(const char *s)
{
	const __u8 *p = (const __u8 *)s;

	if (!s)
		return;
	if (p < tab_p || p >= tab_end || !memchr(p, 0, tab_end - p))
		abort();
}

static void check_lookup(const struct pk_gopclntab *t, __u64 pc)
{
	struct pk_srcline_frame fr[4];

	for (int max = 1; max <= 4; max++) {
		__u64 entry = ~0ULL;
		int n = pk_gopclntab_lookup(t, pc, fr, max, &entry);

		if (n < 0 || n > max)
			abort();
		if (n && entry > pc)
			abort();
		for (int i = 0; i < n; i++) {
			check_str(fr[i].name);
			check_str(fr[i].file);
		}
	}
}

/* T's unwind table: well-formed, or one line of why not. */
static void check_table(const struct pk_gopclntab *t)
{
	struct eh_unwind_table *table = NULL;
	struct eh_rows rows = { 0 };
	char err[PK_ERR_LEN] = "";
	int ret;

	ret = eh_rows_from_gopclntab(&rows, t, err);
	if (!ret)
		ret = eh_table_from_rows(&rows, PK_UNWIND_HAS_GOPCLNTAB, NULL, 0, &table, err);
	eh_rows_free(&rows);
	fuzz_check_result(ret, table, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_gopclntab_src src = { 0 };
	struct pk_gopclntab *t = NULL;
	char err[PK_ERR_LEN];
	__u8 *tab, *gofunc = NULL;
	size_t glen, tlen;
	__u32 g;

	if (size < HDR)
		return 0;
	memcpy(&g, data + 1, 4);
	memcpy(&src.text, data + 5, 8);
	glen = g < size - HDR ? g : size - HDR;
	tlen = size - HDR - glen;
	tab = malloc(tlen ? tlen : 1);
	if (!tab)
		return 0;
	memcpy(tab, data + HDR, tlen);
	if (!(data[0] & 1)) {
		gofunc = malloc(glen ? glen : 1);
		if (!gofunc) {
			free(tab);
			return 0;
		}
		memcpy(gofunc, data + HDR + tlen, glen);
		src.gofunc = gofunc;
		src.gofunc_len = glen;
	}
	src.tab = tab;
	src.len = tlen;
	tab_p = tab;
	tab_end = tab + tlen;
	if (pk_gopclntab_open(&src, &t, err) == 0) {
		/* the text address the table was opened with */
		__u64 text = src.text;
		__u32 pcln, nfunc;

		if (!text && tlen >= 32)
			memcpy(&text, tab + 24, 8);
		/* every function's entry, from the function table, and around */
		memcpy(&pcln, tab + 8 + 7 * tab[7], 4);
		memcpy(&nfunc, tab + 8, 4);
		for (__u32 i = 0; i <= nfunc && i < MAX_FUNCS; i++) {
			__u32 off;

			if ((__u64)pcln + 8 * (__u64)i + 4 > tlen)
				break;
			memcpy(&off, tab + pcln + 8 * (size_t)i, 4);
			check_lookup(t, text + off);
			check_lookup(t, text + off + 1);
			check_lookup(t, text + off + 17);
			check_lookup(t, text + off - 1);
		}
		check_lookup(t, 0);
		check_lookup(t, ~0ULL);
		check_table(t);
		pk_gopclntab_free(t);
	}
	free(tab);
	free(gofunc);
	return 0;
}
