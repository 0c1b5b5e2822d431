// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Java methods' line number tables (symbolization/hotspot_lines.h): the
 * bytes a JVM's ConstMethod held, as a method report copied them. The
 * input is a byte of coding (its low bit: JDK 21's ints), 2 bytes of a
 * bytecode index (little-endian), then the table. No read past the table
 * (each copy of its exact size, under ASan), and every answer, of the
 * table and of each of its first 64 cuts, is a line above 0, no pair, or a
 * table cut.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolization/hotspot_lines.h"

static int line_of(const uint8_t *t, size_t len, bool no_zero, __u32 bci, __u32 *line)
{
	uint8_t *copy = malloc(len ? len : 1);
	int ret;

	if (!copy)
		abort();
	memcpy(copy, t, len);
	*line = 0;
	ret = pk_hs_line_at(copy, len, no_zero, bci, line);
	free(copy);
	if (ret && ret != -ENOENT && ret != -ENODATA)
		abort();
	if (!ret && (!*line || *line > INT32_MAX))
		abort();
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *t = data + 3;
	size_t len = size - 3;
	bool no_zero;
	__u32 bci, line;

	if (size < 3)
		return 0;
	no_zero = data[0] & 1;
	bci = data[1] | (__u32)data[2] << 8;
	line_of(t, len, no_zero, bci, &line);
	for (size_t c = 0; c < len && c < 64; c++)
		line_of(t, c, no_zero, bci, &line);
	return 0;
}
