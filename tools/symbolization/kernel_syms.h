/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's symbols for the symbolizer: /proc/kallsyms, read once per
 * reader, or, after the first reader of a boot, the table it saved
 * (lib/kallsyms.h: pk_kallsyms_save) in <root>/kernel/<boot id>.syms, valid
 * for this boot (KASLR moves every address at the next), these modules
 * (name, size, address in /proc/modules) and this probe-read build. The
 * saved table answers the addresses in what was there when it was saved
 * and is still: vmlinux's text and the modules' ranges. Anything else (BPF
 * programs, trampolines, which come and go) is looked up in kallsyms, read
 * then. Tables of earlier boots are removed as a new one is saved.
 */
#ifndef PK_KERNEL_SYMS_H
#define PK_KERNEL_SYMS_H

#include <linux/types.h>
#include <stdbool.h>

struct pk_kernel_syms;

/* ROOT: where the kernel's files are read, ROOT/kallsyms, ROOT/modules and
 * ROOT/sys/kernel/random/boot_id (NULL: /proc; the tests' fake /proc);
 * without a boot id there, no table is saved or read back. CACHE_ROOT:
 * where (NULL: nowhere). NULL only when out of memory. */
struct pk_kernel_syms *pk_kernel_syms_new(const char *root, const char *cache_root);
void pk_kernel_syms_free(struct pk_kernel_syms *k);

/* The text symbol covering ADDR (NULL: none), its *START and *MODULE (NULL:
 * vmlinux); *SAVED when a saved table answered. */
const char *pk_kernel_syms_lookup(struct pk_kernel_syms *k, __u64 addr, __u64 *start,
				  const char **module, bool *saved);

#endif
