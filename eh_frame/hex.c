// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>

#include "eh_frame/hex.h"

int eh_hex(const __u8 *bytes, size_t n, char *buf, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (len < 2 * n + 1)
		return -ENAMETOOLONG;
	for (i = 0; i < n; i++) {
		buf[2 * i] = digits[bytes[i] >> 4];
		buf[2 * i + 1] = digits[bytes[i] & 15];
	}
	buf[2 * n] = '\0';
	return 0;
}
