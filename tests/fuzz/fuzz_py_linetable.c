// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Python code reports (PK_EVENT_PY_CODE) carry a line table and names as
 * bytes the traced process wrote. The input is a first line (4 bytes,
 * little-endian) then a location table: no read past it (the copy is of
 * its exact size, under ASan), every line of a unit > 0 or 0, and a table
 * cut short gives each unit its line or 0, never another (what a
 * PK_PY_LINES_TRUNC report is). The same bytes as a Latin-1 name come out
 * as UTF-8 of one line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolization/python_code.h"

/* Units probed: each entry covers 1 to 8, so a table of N bytes covers at
 * most 8 N; past a few hundred the same loop is tested again (the cuts,
 * past 64). */
#define MAX_UNITS	300

/* S is UTF-8 without control characters. */
static void check_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		if (*p < 0x20 || *p == 0x7f)
			abort();
		if (*p < 0x80) {
			p++;
			continue;
		}
		/* Latin-1 gives U+00A0..U+00FF only: two bytes */
		if (p[0] < 0xc2 || p[0] > 0xc3 || (p[1] & 0xc0) != 0x80)
			abort();
		p += 2;
	}
}

static void check_names(const uint8_t *data, size_t size)
{
	struct pk_py_codes *codes = pk_py_codes_new();
	char *name = malloc(size + 1);
	const struct pk_py_code *c;
	struct pk_py_code_desc d = {
		.flags = PK_PY_NAME_LATIN1 | PK_PY_FILE_TRUNC, .pid = 1, .version = 0x030b00f0,
		.code = 0x1000, .name = name, .file = name, .linetable = data,
	};

	if (!codes || !name)
		abort();
	/* a report's strings have no NUL (reading/record.c) */
	for (size_t i = 0; i < size; i++)
		name[i] = data[i] ? (char)data[i] : 'x';
	d.name_len = d.file_len = d.linetable_len = size > 128 ? 128 : (__u16)size;
	if (pk_py_codes_add(codes, &d) < 0)
		abort();
	c = pk_py_codes_find(codes, 1, 0x1000);
	if (!c || (size && !c->qualname) || (c->qualname && strlen(c->qualname) > 2 * size))
		abort();
	if (c->qualname)
		check_utf8(c->qualname);
	if (c->file)
		check_utf8(c->file);
	pk_py_codes_free(codes);
	free(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *table;
	size_t len, cuts[3];
	__s32 first;

	if (size < 4)
		return 0;
	memcpy(&first, data, 4);
	len = size - 4;
	/* a copy of exactly LEN bytes, so ASan sees any read past the end */
	table = malloc(len ? len : 1);
	if (!table)
		return 0;
	memcpy(table, data + 4, len);
	cuts[0] = len / 2;
	cuts[1] = len ? len - 1 : 0;
	cuts[2] = len > 3 ? len - 3 : 0;
	for (__u32 i = 0; i < MAX_UNITS && i <= 8 * len + 1; i++) {
		__u32 line = pk_py_linetable_line(table, len, first, i);

		if (line > INT32_MAX)
			abort();
		for (size_t k = 0; k < 3 && i < 64; k++) {
			__u32 cut = pk_py_linetable_line(table, cuts[k], first, i);

			if (cut && cut != line)
				abort();
		}
	}
	/* past every unit: none */
	if (pk_py_linetable_line(table, len, first, (__u32)(8 * len + 1)))
		abort();
	free(table);
	check_names(data, size);
	return 0;
}
