/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * This boot of the kernel, for the caches of what cannot change before
 * the next one: the kernel's symbols (probe-read) and the kernel types
 * the BPF object relocates against (probe-load).
 */
#ifndef PK_LIB_BOOT_ID_H
#define PK_LIB_BOOT_ID_H

#include <stddef.h>

/* The kernel's random boot id (/proc/sys/kernel/random/boot_id, a UUID)
 * into BUF (LEN bytes): 0, or a negative errno when it cannot be read or
 * is not one (then nothing should be kept under it). */
int pk_boot_id(char *buf, size_t len);
/* The same, of PROC_ROOT/sys/kernel/random/boot_id (NULL: /proc; a fake
 * /proc of the tests). */
int pk_boot_id_in(const char *proc_root, char *buf, size_t len);

/* Delete the files of directory DIR whose names end in SUFFIX but do not
 * start with BOOT (a boot id): other boots', which no one can use. Best
 * effort: a file left costs its bytes only. */
void pk_boot_prune(const char *dir, const char *suffix, const char *boot);

#endif
