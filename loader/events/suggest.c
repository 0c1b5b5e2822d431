// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/events/suggest.h"

/* Names longer than this are never close to what someone typed. */
#define PK_SUGGEST_LEN	128

void pk_suggest_init(struct pk_suggest *s, const char *want)
{
	memset(s, 0, sizeof(*s));
	s->want = want;
	s->want_len = strlen(want);
}

/* Levenshtein distance, stopping early past LIMIT. */
static unsigned int distance(const char *a, size_t la, const char *b, size_t lb,
			     unsigned int limit)
{
	unsigned int row[PK_SUGGEST_LEN + 1];

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		unsigned int diag = row[0], min;

		row[0] = i;
		min = row[0];
		for (size_t j = 1; j <= lb; j++) {
			unsigned int up = row[j];
			unsigned int v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < min)
				min = v;
		}
		if (min > limit)
			return limit + 1;
	}
	return row[lb];
}

void pk_suggest_offer(struct pk_suggest *s, const char *name, size_t len)
{
	unsigned int limit = s->want_len / 3 > 1 ? s->want_len / 3 : 1;
	unsigned int d;
	size_t i;
	char *copy;

	if (len > PK_SUGGEST_LEN || s->want_len > PK_SUGGEST_LEN || !len || !s->want_len)
		return;
	d = distance(s->want, s->want_len, name, len, limit);
	/* a part: "vfs_write" for "write", ranked after every misspelling */
	if (d > limit && s->want_len >= 4 && memmem(name, len, s->want, s->want_len))
		d = limit + 1 + (unsigned int)(len - s->want_len);
	else if (d > limit)
		return;
	for (i = 0; i < s->n; i++) {
		if (s->best_dist[i] > d)
			break;
		if (strlen(s->best[i]) == len && !memcmp(s->best[i], name, len))
			return;	/* offered twice (kallsyms has duplicates) */
	}
	if (i == PK_SUGGEST_MAX)
		return;
	copy = strndup(name, len);
	if (!copy)
		return;
	if (s->n == PK_SUGGEST_MAX)
		free(s->best[--s->n]);
	memmove(&s->best[i + 1], &s->best[i], (s->n - i) * sizeof(s->best[0]));
	memmove(&s->best_dist[i + 1], &s->best_dist[i], (s->n - i) * sizeof(s->best_dist[0]));
	s->best[i] = copy;
	s->best_dist[i] = d;
	s->n++;
}

const char *pk_suggest_str(const struct pk_suggest *s, char *buf, size_t len)
{
	size_t off;

	if (!s->n || len < 2) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	off = snprintf(buf, len, " (did you mean ");
	for (unsigned int i = 0; i < s->n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "", s->best[i]);
	if (off < len)
		snprintf(buf + off, len - off, "?)");
	return buf;
}

void pk_suggest_free(struct pk_suggest *s)
{
	for (unsigned int i = 0; i < s->n; i++)
		free(s->best[i]);
	s->n = 0;
}
