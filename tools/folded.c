// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"

static const char UNKNOWN[] = "[unknown]";

struct buf {
	char *s;
	size_t len, cap;
	bool failed;
};

static char *reserve(struct buf *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *s;

		while (b->len + n + 1 > cap)
			cap *= 2;
		s = realloc(b->s, cap);
		if (!s) {
			b->failed = true;
			return NULL;
		}
		b->s = s;
		b->cap = cap;
	}
	return b->s + b->len;
}

/* One frame, made safe for the format, then SUFFIX. */
static void add_frame(struct buf *b, const char *name, const char *suffix)
{
	size_t n, sn = strlen(suffix);
	char *p;

	if (!name || !name[0])
		name = UNKNOWN;
	n = strlen(name);
	p = reserve(b, 1 + n + sn);
	if (!p)
		return;
	if (b->len)
		*p++ = ';', b->len++;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = name[i];

		p[i] = c == ';' ? ':' : (c < 0x20 || c == 0x7f) ? ' ' : c;
	}
	memcpy(p + n, suffix, sn);
	b->len += n + sn;
	b->s[b->len] = '\0';
}

char *pk_fold_stack(const char *comm, const char *const *user, size_t nuser,
		    const char *const *kernel, size_t nkernel)
{
	struct buf b = { 0 };

	add_frame(&b, comm, "");
	for (size_t i = 0; i < nuser; i++)
		add_frame(&b, user[i], "");
	for (size_t i = 0; i < nkernel; i++)
		add_frame(&b, kernel[i], PK_FOLD_KERNEL_SUFFIX);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

static int cmp_item(const void *a, const void *b)
{
	const struct pk_fold_item *x = a, *y = b;

	return strcmp(x->stack, y->stack);
}

int pk_fold_write(FILE *f, struct pk_fold_item *items, size_t n)
{
	if (n)
		qsort(items, n, sizeof(*items), cmp_item);
	for (size_t i = 0; i < n;) {
		__u64 count = 0;
		size_t j;

		for (j = i; j < n && strcmp(items[j].stack, items[i].stack) == 0; j++)
			count += items[j].count;
		if (fprintf(f, "%s %llu\n", items[i].stack, (unsigned long long)count) < 0)
			return -EIO;
		i = j;
	}
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
