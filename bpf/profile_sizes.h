/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Between profile.bpf.c and probe-load only (what readers need is in
 * probekit.h): sizes probe-load may change before loading. */
#ifndef PK_PROFILE_SIZES_H
#define PK_PROFILE_SIZES_H

/* The ring of no-table reports probe-load drains while it waits for
 * -- CMD (bpf/mapping_report.bpf.h): 56-byte records, a thousand between
 * two of its reads. One page without a command. */
#define PK_MISSING_RING_BYTES	(64u << 10)

/* Entries of the targets map: processes profiled at once. */
#define PK_MAX_TARGETS		8192
/* Ring buffer bytes unless --ringbuf-size says otherwise. */
#define PK_RINGBUF_DEFAULT	(8u << 20)

/* Unwind tables (--unwind dwarf). Each table has an array of its own
 * (bpf/probekit.h): what limits them is the kernel memory they take, at most
 * --table-memory bytes (about 6 bytes a row: 6 per row, 24 per distinct
 * rule, a page more per table). The default, about 40 M rows, holds what
 * `clang -O2 -c` maps (2.5 M rows, 15 MB: libclang-cpp 1.0 M, libLLVM
 * 0.95 M) many times over, and so LLVM, a browser-sized library and the rest
 * of a desktop at once, on any machine with a few GiB; the kernel charges it
 * to the memory cgroup, not RLIMIT_MEMLOCK. --table-rows N limits the rows
 * too. */
#define PK_TABLE_MEMORY_DEFAULT	(256ull << 20)
#define PK_TABLE_MEMORY_MIN	(1ull << 20)
#define PK_TABLE_MEMORY_MAX	(64ull << 30)
#define PK_TABLE_ROWS_MIN	1024u
#define PK_TABLE_ROWS_MAX	(1u << 28)
#define PK_UNWIND_TABLES_MAX	4096	/* distinct build-ids */
#define PK_UNWIND_FILES_MAX	16384	/* distinct inodes */
#define PK_UNWIND_SEEN_MAX	4096	/* no-table reports remembered */
#define PK_MAPPINGS_SEEN_MAX	16384	/* (process, mapping) reports remembered */
/* Python (bpf/python_records.h): interpreter files, processes, threads
 * and code objects remembered. */
#define PK_PY_FILES_MAX		256
#define PK_PY_PROCS_MAX		4096
#define PK_PY_THREADS_MAX	16384
#define PK_PY_CODE_SEEN_MAX	65536
/* HotSpot (bpf/hotspot_records.h): libjvm files, JVM processes. */
#define PK_HS_FILES_MAX		64
#define PK_HS_PROCS_MAX		4096
#define PK_HS_METHOD_SEEN_MAX	65536
#define PK_HS_NMETHOD_SEEN_MAX	65536
/* V8 (bpf/v8_records.h): node/libnode files, node processes, functions. */
#define PK_V8_FILES_MAX		64
#define PK_V8_PROCS_MAX		4096
#define PK_V8_SFI_SEEN_MAX	65536
/* Bytes of user stack a walk that stops for want of a table copies unless
 * --stack-copy says otherwise (at most PK_USTACK_COPY_MAX, bpf/probekit.h). */
#define PK_STACK_COPY_DEFAULT	32768u
/* --aggregate: distinct stacks each counts map holds between two reads
 * (bpf/probekit.h "Aggregation") unless --aggregate-entries says
 * otherwise; a stack past them is sent whole, as without --aggregate.
 * About 100 kernel bytes each, twice (two maps). */
#define PK_AGG_ENTRIES_DEFAULT	16384u
#define PK_AGG_ENTRIES_MIN	1u
#define PK_AGG_ENTRIES_MAX	(1u << 22)
/* kprobe:FUNC events attached by fentry: one program each. */
#define PK_FENTRY_PROGS		8

#endif
