/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Bytes as lower-case hex: build-ids in cache paths, debug-file paths and
 * names, for the library and everything above it. */
#ifndef EH_HEX_H
#define EH_HEX_H

#include <linux/types.h>
#include <stddef.h>

/* The N bytes at BYTES in lower-case hex into BUF (2 * N + 1 chars with its
 * NUL): 0, or -ENAMETOOLONG when LEN is less. */
int eh_hex(const __u8 *bytes, size_t n, char *buf, size_t len);

#endif
