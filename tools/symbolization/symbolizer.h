/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Addresses to function names, for user frames (per process: its mappings,
 * then the ELF symbols of the mapped file through libdwfl) and kernel frames
 * (/proc/kallsyms). Every file's symbols are read once into a sorted table
 * shared by all processes that map it; each (pid, address) is resolved once.
 *
 * A process's mappings are read the first time one of its addresses is
 * looked up, and read again when an address falls outside all of them (after
 * exec or dlopen); they are kept after the process exits.
 *
 * Names, as returned (valid until pk_symbolizer_free):
 *   function name, demangled (C++, Rust)
 *   [file+0xADDR]   in a mapped file without a symbol there: ADDR is the
 *                   ELF virtual address (what eu-addr2line -e FILE takes),
 *                   or the file offset when the file could not be read
 *   [vdso+0xADDR], [heap], [stack], [anon:NAME]  special mappings
 *   [anon]          anonymous executable memory (JIT code)
 *   [unknown]       no mapping holds the address (or the process exited
 *                   before its mappings could be read)
 */
#ifndef PK_SYMBOLIZER_H
#define PK_SYMBOLIZER_H

#include <linux/types.h>
#include <stddef.h>

struct pk_symbolizer_opts {
	size_t sz;			/* sizeof(struct pk_symbolizer_opts) */
	const char *proc_root;		/* NULL: "/proc" */
	const char *kallsyms_path;	/* NULL: "/proc/kallsyms" */
};

struct pk_symbolizer_stats {
	__u64 maps_reads;	/* /proc/PID/maps reads */
	__u64 modules;		/* files whose symbols were loaded */
	__u64 lookups;		/* addresses resolved (cache misses) */
};

struct pk_symbolizer;

/* NULL with errno set on failure. */
struct pk_symbolizer *pk_symbolizer_new(const struct pk_symbolizer_opts *opts);
void pk_symbolizer_free(struct pk_symbolizer *sym);

/* Read PID's mappings now if they were never read (call when a process is
 * first seen, while it lives). 0, or -errno when they could not be read. */
int pk_symbolizer_add_pid(struct pk_symbolizer *sym, __u32 pid);

/* PID's mappings changed (a file mapped where another was, after dlclose):
 * read them again now and forget the names resolved so far, which may be
 * the old file's. 0, or -errno when they could not be read. */
int pk_symbolizer_maps_changed(struct pk_symbolizer *sym, __u32 pid);

/* The name of user address ADDR in PID. Pass a return address minus one.
 * NULL only when out of memory. */
const char *pk_symbolizer_user(struct pk_symbolizer *sym, __u32 pid, __u64 addr);

/* The name of kernel address ADDR (a return address minus one), without
 * the _[k] suffix; "[unknown]" when kallsyms has nothing for it. */
const char *pk_symbolizer_kernel(struct pk_symbolizer *sym, __u64 addr);

void pk_symbolizer_stats(const struct pk_symbolizer *sym, struct pk_symbolizer_stats *st);

#endif
