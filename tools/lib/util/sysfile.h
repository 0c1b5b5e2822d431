/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one-line files of /proc and /sys (boot id, online CPUs). */
#ifndef PK_SYSFILE_H
#define PK_SYSFILE_H

#include <stddef.h>

/* PATH's first line, without its newline, into BUF (LEN bytes): 0, or a
 * negative errno (-EIO when the file is empty). */
int pk_read_line(const char *path, char *buf, size_t len);

#endif
