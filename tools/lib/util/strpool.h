/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Strings that live as long as their owner, kept in a few large chunks
 * instead of one allocation each (symbol tables hold ~10^5 names). */
#ifndef PK_STRPOOL_H
#define PK_STRPOOL_H

#include <stddef.h>

struct pk_strpool {
	struct pk_strpool_chunk *head;
};

/* A copy of the LEN bytes at S, NUL-terminated, or NULL (no memory). */
const char *pk_strpool_addn(struct pk_strpool *pool, const char *s, size_t len);
const char *pk_strpool_add(struct pk_strpool *pool, const char *s);
/* A formatted string, or NULL. */
const char *pk_strpool_printf(struct pk_strpool *pool, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* SIZE zeroed bytes, 16-aligned, for objects that live as long as the
 * strings (symbolized locations). NULL: no memory. */
void *pk_strpool_zalloc(struct pk_strpool *pool, size_t size);
void pk_strpool_free(struct pk_strpool *pool);

#endif
