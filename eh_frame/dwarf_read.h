/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Bounds-checked reading of DWARF data. A read past the end returns 0 and
 * marks the cursor bad instead of touching memory: callers check ->bad once
 * after a group of reads, which keeps the parsers short and safe on
 * truncated or hostile input.
 */
#ifndef EH_DWARF_READ_H
#define EH_DWARF_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

struct dw_cursor {
	const __u8 *p, *end;
	bool bad;
};

static inline size_t dw_left(const struct dw_cursor *c)
{
	return c->bad ? 0 : (size_t)(c->end - c->p);
}

static inline bool dw_take(struct dw_cursor *c, void *dst, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		memset(dst, 0, n);
		return false;
	}
	memcpy(dst, c->p, n);	/* unaligned, little-endian host */
	c->p += n;
	return true;
}

static inline __u8 dw_u8(struct dw_cursor *c)
{
	__u8 v;

	dw_take(c, &v, 1);
	return v;
}

static inline __u16 dw_u16(struct dw_cursor *c)
{
	__u16 v;

	dw_take(c, &v, 2);
	return v;
}

static inline __u32 dw_u32(struct dw_cursor *c)
{
	__u32 v;

	dw_take(c, &v, 4);
	return v;
}

static inline __u64 dw_u64(struct dw_cursor *c)
{
	__u64 v;

	dw_take(c, &v, 8);
	return v;
}

static inline __u64 dw_uleb(struct dw_cursor *c)
{
	__u64 v = 0;
	unsigned int shift = 0;

	while (!c->bad) {
		__u8 b;

		if (c->p >= c->end) {
			c->bad = true;
			break;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (__u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	return 0;
}

static inline __s64 dw_sleb(struct dw_cursor *c)
{
	__u64 v = 0;
	unsigned int shift = 0;

	while (!c->bad) {
		__u8 b;

		if (c->p >= c->end) {
			c->bad = true;
			break;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (__u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~0ull << shift;
			return (__s64)v;
		}
	}
	return 0;
}

static inline void dw_skip(struct dw_cursor *c, __u64 n)
{
	if (c->bad || (__u64)(c->end - c->p) < n)
		c->bad = true;
	else
		c->p += n;
}

#endif /* EH_DWARF_READ_H */
