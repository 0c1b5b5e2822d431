// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "strbuf.h"

static const char UNKNOWN[] = "[unknown]";

/* One frame, made safe for the format, then SUFFIX. */
static void add_frame(struct pk_strbuf *b, const char *name, const char *suffix)
{
	size_t at, n;

	if (!name || !name[0])
		name = UNKNOWN;
	if (b->len)
		pk_strbuf_puts(b, ";");
	at = b->len;
	n = strlen(name);
	pk_strbuf_putn(b, name, n);
	if (b->failed)
		return;
	for (char *p = b->s + at; p < b->s + at + n; p++) {
		unsigned char c = *p;

		if (c == ';')
			*p = ':';
		else if (c < 0x20 || c == 0x7f)
			*p = ' ';
	}
	pk_strbuf_puts(b, suffix);
}

char *pk_fold_stack(const char *comm, const char *const *user, size_t nuser,
		    const char *const *kernel, size_t nkernel)
{
	struct pk_strbuf b = { 0 };

	add_frame(&b, comm, "");
	for (size_t i = 0; i < nuser; i++)
		add_frame(&b, user[i], "");
	for (size_t i = 0; i < nkernel; i++)
		add_frame(&b, kernel[i], PK_FOLD_KERNEL_SUFFIX);
	return pk_strbuf_finish(&b);
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
