// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A Java method's compressed line number table (hotspot_lines.h). */
#include <errno.h>

#include "symbolization/hotspot_lines.h"

/* UNSIGNED5: up to 5 bytes, each a base-64 digit (its value minus the
 * excluded bytes) until one below the low-byte limit; 64 high bytes. */
#define U5_MAX_BYTES	5
#define U5_LG_H		6
#define U5_H		64

int pk_hs_read_u5(const __u8 *table, size_t len, size_t *pos, unsigned int x, __u32 *v)
{
	const unsigned int low = 256 - U5_H - x;
	__u32 sum = 0;

	for (unsigned int i = 0; i < U5_MAX_BYTES; i++) {
		__u32 b;

		if (*pos >= len)
			return -1;
		b = table[(*pos)++];
		if (b < x)
			return 0;
		/* the 5th byte's high bits wrap, as HotSpot's int does */
		sum += (b - x) << (U5_LG_H * i);
		if (b < x + low)
			break;
	}
	*v = sum;
	return 1;
}

/* A zigzag int: the sign in its low bit. */
static __s32 read_signed(__u32 v)
{
	return (__s32)((v >> 1) ^ (0u - (v & 1)));
}

int pk_hs_line_at(const __u8 *table, size_t len, bool no_zero, __u32 bci, __u32 *line)
{
	/* deltas add up as HotSpot's jints do, wrapping (in unsigned) */
	__u32 at_bci = 0, at_line = 0, best_bci = 0;
	__s64 best_line = -1;
	bool past = false;
	size_t pos = 0;
	int r = 1;

	for (;;) {
		__u32 next, db = 0, dl = 0;

		if (pos >= len) {
			r = -1;
			break;
		}
		next = table[pos++];
		if (!next)
			break;
		if (next == 0xff) {
			r = pk_hs_read_u5(table, len, &pos, no_zero, &db);
			if (r > 0)
				r = pk_hs_read_u5(table, len, &pos, no_zero, &dl);
			if (r <= 0)
				break;
			at_bci += (__u32)read_signed(db);
			at_line += (__u32)read_signed(dl);
		} else {
			at_bci += next >> 3;
			at_line += next & 7;
		}
		if ((__s32)at_bci == (__s64)bci) {
			best_line = (__s32)at_line;
			break;
		}
		past |= (__s32)at_bci > (__s64)bci;
		if ((__s32)at_bci >= 0 && at_bci < bci && at_bci >= best_bci) {
			best_bci = at_bci;
			best_line = (__s32)at_line;
		}
	}
	/* cut: the rest is not known, and only a pair past BCI already read
	 * says that none further on is nearer */
	if (r < 0 && !past)
		return -ENODATA;
	if (best_line <= 0)
		return -ENOENT;
	*line = best_line;
	return 0;
}
