/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* "Did you mean": the names closest to a misspelt one, for error lines. */
#ifndef PK_SUGGEST_H
#define PK_SUGGEST_H

#include <stddef.h>

#define PK_SUGGEST_MAX	3

struct pk_suggest {
	const char *want;
	size_t want_len;
	unsigned int best_dist[PK_SUGGEST_MAX];
	char *best[PK_SUGGEST_MAX];	/* malloc'ed, closest first */
	unsigned int n;
};

void pk_suggest_init(struct pk_suggest *s, const char *want);
/* Offer candidate NAME (LEN bytes, not NUL-terminated): kept if it is among
 * the closest so far and close enough (edit distance at most a third of the
 * name, or the wanted name is a part of it). */
void pk_suggest_offer(struct pk_suggest *s, const char *name, size_t len);
/* " (did you mean a, b?)" into BUF, or "" when nothing was close. */
const char *pk_suggest_str(const struct pk_suggest *s, char *buf, size_t len);
void pk_suggest_free(struct pk_suggest *s);

#endif
