/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Kernel symbols from /proc/kallsyms, parsed once into a sorted table. */
#ifndef PK_KALLSYMS_H
#define PK_KALLSYMS_H

#include <stdio.h>

#include "symtab.h"

/*
 * Parse kallsyms text ("ADDR TYPE NAME [MODULE]" lines). Text symbols name
 * code; every other symbol still ends the extent of the text symbol before
 * it. Symbols at address 0 (kptr_restrict hides addresses) are left out, so
 * a hidden table is empty and every lookup fails. A module's symbols are
 * named without their "[module]" suffix, as perf names them. Returns a finished table or NULL with errno set
 * (EBADMSG on a malformed line).
 */
struct pk_symtab *pk_kallsyms_parse(FILE *f);

/* pk_kallsyms_parse of PATH (NULL: /proc/kallsyms). */
struct pk_symtab *pk_kallsyms_load(const char *path);

/* The name of the kernel text symbol covering ADDR, or NULL. */
const char *pk_kallsyms_lookup(const struct pk_symtab *tab, __u64 addr);

#endif
