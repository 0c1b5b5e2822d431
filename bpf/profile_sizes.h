/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Between profile.bpf.c and probe-load only (what readers need is in
 * probekit.h): sizes probe-load may change before loading. */
#ifndef PK_PROFILE_SIZES_H
#define PK_PROFILE_SIZES_H

/* Entries of the targets map: processes profiled at once. */
#define PK_MAX_TARGETS		8192
/* Ring buffer bytes unless --ringbuf-size says otherwise. */
#define PK_RINGBUF_DEFAULT	(8u << 20)

/* Unwind tables (--unwind dwarf). Each table has an array of its own
 * (bpf/probekit.h): what limits them is the kernel memory they take, at most
 * --table-memory bytes (about 7 bytes a row: 6 per row, 16 per distinct
 * rule). The default holds clang's libclang-cpp (1.0 M rows) and libLLVM
 * (0.95 M), a browser's library (Firefox's libxul, about 5 M), and the rest
 * of a desktop's files several times over; the kernel charges it to the
 * memory cgroup, not RLIMIT_MEMLOCK. --table-rows N limits the rows too. */
#define PK_TABLE_MEMORY_DEFAULT	(256ull << 20)
#define PK_TABLE_MEMORY_MIN	(1ull << 20)
#define PK_TABLE_MEMORY_MAX	(64ull << 30)
#define PK_TABLE_ROWS_MIN	1024u
#define PK_TABLE_ROWS_MAX	(1u << 28)
#define PK_UNWIND_TABLES_MAX	4096	/* distinct build-ids */
#define PK_UNWIND_FILES_MAX	16384	/* distinct inodes */
#define PK_UNWIND_SEEN_MAX	4096	/* no-table reports remembered */
#define PK_MAPPINGS_SEEN_MAX	16384	/* (process, mapping) reports remembered */
/* kprobe:FUNC events attached by fentry: one program each. */
#define PK_FENTRY_PROGS		8

#endif
