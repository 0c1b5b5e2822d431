/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Between profile.bpf.c and probe-load only (what readers need is in
 * probekit.h): sizes probe-load may change before loading. */
#ifndef PK_PROFILE_SIZES_H
#define PK_PROFILE_SIZES_H

/* Entries of the targets map: processes profiled at once. */
#define PK_MAX_TARGETS		8192
/* Ring buffer bytes unless --ringbuf-size says otherwise. */
#define PK_RINGBUF_DEFAULT	(8u << 20)

/* Unwind maps (--unwind dwarf), in entries. Rows unless --table-rows says
 * otherwise (6 bytes each: 12 MiB); rule capacity is rows / 16 (libc has
 * about 90 rows per rule, small files fewer). */
#define PK_TABLE_ROWS_DEFAULT	2097152u
#define PK_TABLE_ROWS_MIN	1024u
#define PK_TABLE_ROWS_MAX	(1u << 28)
#define PK_ROWS_PER_RULE	16
#define PK_UNWIND_TABLES_MAX	4096	/* distinct build-ids */
#define PK_UNWIND_FILES_MAX	16384	/* distinct inodes */
#define PK_UNWIND_SEEN_MAX	4096	/* no-table reports remembered */
#define PK_MAPPINGS_SEEN_MAX	16384	/* (process, mapping) reports remembered */
/* kprobe:FUNC events attached by fentry: one program each. */
#define PK_FENTRY_PROGS		8

#endif
