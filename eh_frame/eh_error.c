// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One error line per failure, for the caller to prefix with the file name. */
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>

#include "eh_frame/eh_internal.h"

int eh_fail(struct eh_error *err, int errno_val, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		/* Messages quote bytes of the input (augmentation strings): a
		 * control character there must not split or garble the one
		 * error line. */
		for (char *p = err->msg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}
	return -errno_val;
}

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
