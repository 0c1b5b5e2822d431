// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>

#include "eh_frame/errmsg.h"

int pk_err(char err[PK_ERR_LEN], int ret, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return ret;
	va_start(ap, fmt);
	vsnprintf(err, PK_ERR_LEN, fmt, ap);
	va_end(ap);
	return ret;
}
