/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A growing NUL-terminated string; an allocation failure is remembered and
 * reported once, at the end, instead of after every append. */
#ifndef PK_STRBUF_H
#define PK_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct pk_strbuf {
	char *s;		/* NUL-terminated once anything was added */
	size_t len, cap;
	bool failed;
};

void pk_strbuf_putn(struct pk_strbuf *b, const char *s, size_t n);
void pk_strbuf_puts(struct pk_strbuf *b, const char *s);

/* The string (malloc'ed, "" when nothing was added), or NULL when an
 * allocation failed; the buffer is left empty either way. */
char *pk_strbuf_finish(struct pk_strbuf *b);

#endif
