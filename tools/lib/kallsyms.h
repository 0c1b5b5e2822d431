/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Kernel symbols from /proc/kallsyms, parsed once into a sorted table:
 * vmlinux, its modules and the BPF programs the kernel lists there. */
#ifndef PK_KALLSYMS_H
#define PK_KALLSYMS_H

#include <stdio.h>

#include "lib/symtab.h"

/*
 * Parse kallsyms text ("ADDR TYPE NAME[\t[MODULE]]" lines). Text symbols
 * name code; every other symbol still ends the extent of the text symbol
 * before it. A symbol of a module keeps the module's name (without the
 * brackets): "nf_tables", "bpf" for BPF programs (bpf_prog_<tag>_<name>)
 * and the kernel's BPF trampolines and dispatchers, "__builtin__ftrace" for
 * ftrace trampolines. kallsyms gives no sizes: as perf does, the last
 * symbol before another module's (or vmlinux's) ends at most a page past
 * its start, rounded up to a page, and so does the last one of all, so that
 * code nobody listed (a BPF program loaded after the read) is not charged
 * to its neighbour. Symbols at address 0 (kptr_restrict hides addresses)
 * are left out, so a hidden table is empty and every lookup fails. Returns
 * a finished table or NULL with errno set (EBADMSG on a malformed line).
 */
struct pk_symtab *pk_kallsyms_parse(FILE *f);

/* pk_kallsyms_parse of PATH (NULL: /proc/kallsyms). */
struct pk_symtab *pk_kallsyms_load(const char *path);

/*
 * The table kept for later readers: reading /proc/kallsyms costs the kernel
 * about 40 ms of formatting and the reader as much of parsing, in every
 * run that meets a kernel frame. pk_kallsyms_save writes TAB to PATH (a
 * temporary file renamed over it) for SIG, the caller's hash of what it is
 * valid for (the boot, the modules); pk_kallsyms_load_saved reads it back
 * as it was: NULL with errno ENOENT (none), ESTALE (another SIG's) or
 * EINVAL (damaged, its checksum or layout). The caller decides which
 * addresses a saved table may answer: those in the code that was there
 * when it was saved (vmlinux, the modules), not BPF programs, which come
 * and go.
 *
 * Layout (host byte order): "PKKSYMS" 1, sig u64, count u32, string bytes
 * u32, checksum u64 (eh_hash of what follows); count x (addr u64, name
 * u32, module u32 (0: none, else offset + 1), rank u16, 0 u16, 0 u32),
 * sorted as pk_symtab_finish left them; the NUL-terminated strings.
 */
int pk_kallsyms_save(const struct pk_symtab *tab, const char *path, __u64 sig);
struct pk_symtab *pk_kallsyms_load_saved(const char *path, __u64 sig);
/* pk_kallsyms_load_saved of the bytes BUF (LEN), for the fuzz target. */
struct pk_symtab *pk_kallsyms_parse_saved(const void *buf, size_t len, __u64 sig);

/* The name of the kernel text symbol covering ADDR, or NULL. MODULE (may
 * be NULL) gets its module's name, NULL for vmlinux and when no symbol
 * covers ADDR. Both strings are owned by TAB. */
const char *pk_kallsyms_lookup(const struct pk_symtab *tab, __u64 addr, const char **module);

/* The range [*lo, *hi) of the text symbol NAME: its address to the next
 * symbol's at a higher address. -ENOENT when TAB has no such symbol. A
 * scan of the table: for a few names at start-up, not per address. */
int pk_kallsyms_range(const struct pk_symtab *tab, const char *name, __u64 *lo, __u64 *hi);

#endif
