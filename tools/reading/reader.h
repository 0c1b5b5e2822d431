/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What probe-read does with ring-buffer records: validate, aggregate raw
 * stacks, symbolize each distinct stack once (when first seen, while its
 * process still runs) and finally print folded stacks.
 */
#ifndef PK_READER_H
#define PK_READER_H

#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>

struct pk_reader_opts {
	size_t sz;			/* sizeof(struct pk_reader_opts) */
	const char *proc_root;		/* NULL: "/proc" */
	const char *kallsyms_path;	/* NULL: "/proc/kallsyms" */
};

struct pk_reader_stats {
	__u64 samples;		/* valid sample records */
	__u64 bad;		/* malformed records, skipped */
	__u64 skipped;		/* records of unknown types, skipped */
	__u64 stacks;		/* distinct raw stacks */
};

struct pk_reader;

struct pk_reader *pk_reader_new(const struct pk_reader_opts *opts);
void pk_reader_free(struct pk_reader *r);

/* One record as the ring buffer delivered it. 0 (malformed records are
 * counted, not errors), or -ENOMEM. */
int pk_reader_handle(struct pk_reader *r, const void *data, size_t size);

/* The folded stacks of everything handled, sorted. 0 or -errno. */
int pk_reader_write(struct pk_reader *r, FILE *f);

void pk_reader_stats(const struct pk_reader *r, struct pk_reader_stats *st);

#endif
