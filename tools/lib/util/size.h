/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Sizes as users write them: options and PROBEKIT_CACHE_MAX. Inline, as
 * array.h: the eh_frame library, linked after the tools', uses it too. */
#ifndef PK_SIZE_H
#define PK_SIZE_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

/* *OUT = S, a count of bytes with an optional K, M or G (binary) suffix:
 * digits only before it, nothing after. False when it is not one. */
static inline bool pk_parse_size(const char *s, unsigned long long *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || v > (~0ULL >> shift))
		return false;
	*out = v << shift;
	return true;
}

#endif
