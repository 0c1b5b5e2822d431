/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Small pieces of text handling the parsers and writers share. */
#ifndef PK_TEXT_H
#define PK_TEXT_H

#include <linux/types.h>
#include <stddef.h>
#include <string.h>

/* The value of the lower-case hex digit C, or -1: for the text we write
 * ourselves or that is only ever lower case (cache keys, Rust's escapes),
 * where an upper-case digit marks the text as not ours. */
static inline int pk_hexval_lower(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The value of the hex digit C of either case, or -1. */
static inline int pk_hexval(char c)
{
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return pk_hexval_lower(c);
}

/* What follows PATH's last '/': all of PATH when it has none. */
static inline const char *pk_base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

#endif
