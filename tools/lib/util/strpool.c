// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/strpool.h"

#define CHUNK_SIZE (64 * 1024)

struct pk_strpool_chunk {
	struct pk_strpool_chunk *next;
	size_t used, cap;
	char data[];
};

static char *reserve(struct pk_strpool *pool, size_t len)
{
	struct pk_strpool_chunk *c = pool->head;

	if (!c || c->cap - c->used < len) {
		size_t cap = len > CHUNK_SIZE ? len : CHUNK_SIZE;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = pool->head;
		pool->head = c;
	}
	c->used += len;
	return c->data + c->used - len;
}

const char *pk_strpool_addn(struct pk_strpool *pool, const char *s, size_t len)
{
	char *p = reserve(pool, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

const char *pk_strpool_add(struct pk_strpool *pool, const char *s)
{
	return pk_strpool_addn(pool, s, strlen(s));
}

const char *pk_strpool_printf(struct pk_strpool *pool, const char *fmt, ...)
{
	va_list ap;
	char buf[512], *p;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0)
		return NULL;
	if ((size_t)len < sizeof(buf))
		return pk_strpool_addn(pool, buf, len);
	p = reserve(pool, len + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, len + 1, fmt, ap);
	va_end(ap);
	return p;
}

void *pk_strpool_zalloc(struct pk_strpool *pool, size_t size)
{
	char *p = reserve(pool, size + 15);

	if (!p)
		return NULL;
	p += (16 - (uintptr_t)p % 16) % 16;
	memset(p, 0, size);
	return p;
}

void pk_strpool_free(struct pk_strpool *pool)
{
	struct pk_strpool_chunk *c, *next;

	for (c = pool->head; c; c = next) {
		next = c->next;
		free(c);
	}
	pool->head = NULL;
}
