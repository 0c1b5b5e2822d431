/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* HotSpot's compressed ints as its CompressedWriteStream writes them (its
 * rules restated, for the tests of their readers): X excluded bytes (0:
 * JDK 17, 1: JDK 21 on), 64 high bytes, 5 bytes at most. */
#ifndef PK_TEST_HS_U5_H
#define PK_TEST_HS_U5_H

#include <linux/types.h>
#include <stddef.h>

static inline size_t put_u5(__u8 *out, __u32 v, unsigned int x)
{
	const unsigned int low = 256 - 64 - x;
	size_t n = 0;

	for (int i = 0; i < 5; i++) {
		if (v < low || i == 4) {
			out[n++] = x + v;
			return n;
		}
		v -= low;
		out[n++] = x + low + v % 64;
		v >>= 6;
	}
	return n;
}

#endif
