// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "lib/util/array.h"
#include "lib/util/strbuf.h"

void pk_strbuf_putn(struct pk_strbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (pk_array_reserve((void **)&b->s, &b->cap, 1, b->len + n + 1, 64)) {
		b->failed = true;
		return;
	}
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void pk_strbuf_puts(struct pk_strbuf *b, const char *s)
{
	pk_strbuf_putn(b, s, strlen(s));
}

char *pk_strbuf_finish(struct pk_strbuf *b)
{
	char *s = b->s;

	if (!b->failed && !s)
		s = strdup("");
	if (b->failed) {
		free(s);
		s = NULL;
	}
	*b = (struct pk_strbuf){ 0 };
	return s;
}
