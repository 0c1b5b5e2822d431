/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers of inline.c, in a header so that an inlined call's DW_AT_call_file
 * (inline.c) differs from the file of the inlined code (this header): the
 * source-line tests (tests/unit/symbolization/test_srcline.c) check both.
 */
#ifndef DBG_INLINE_HELPERS_H
#define DBG_INLINE_HELPERS_H

#define DBG_ALWAYS static inline __attribute__((always_inline))

DBG_ALWAYS unsigned mix(unsigned x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	return x ^ (x >> 15);
}

DBG_ALWAYS unsigned mix_twice(unsigned x, unsigned k)
{
	unsigned r = mix(x + k);

	if (r & 1)
		r = mix(r ^ k);
	return r;
}

#endif
