/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Names that one address goes by. One function often has several symbols
 * (read and __read in libc, __memcpy_avx512_unaligned_erms and
 * __memmove_avx512_unaligned_erms, kernel aliases in kallsyms), and two
 * symbolizers may each pick another one: same frame, different text. The
 * stack oracle maps every such name to one canonical name of its address
 * before comparing; a name of another address stays what it is, so a frame
 * symbolized to the wrong function still differs.
 */
#ifndef SYM_ALIASES_H
#define SYM_ALIASES_H

#include <stddef.h>

struct sa_aliases;

struct sa_aliases *sa_aliases_new(void);
void sa_aliases_free(struct sa_aliases *a);

/*
 * Add the function symbols (.symtab and .dynsym) of the ELF file PATH, and
 * those of its separate debug file /usr/lib/debug/.build-id/xx/yyyy.debug
 * when there is one: one address space. A name with a version or a clone
 * suffix is also added without (pk_sym_name_len: perf prints
 * object_dealloc.lto_priv.0 where probekit prints object_dealloc). 0, or
 * -errno with one line in ERR.
 */
int sa_aliases_add_elf(struct sa_aliases *a, const char *path, char *err, size_t errlen);

/* Add the text symbols of kallsyms-format TEXT ("ADDR TYPE NAME [MODULE]"
 * lines): one address space. 0, -EBADMSG (with ERR) or -ENOMEM. */
int sa_aliases_add_kallsyms(struct sa_aliases *a, const char *text, char *err, size_t errlen);

/*
 * The canonical name of NAME: of all names that NAME's address goes by, the
 * shortest, then the first in byte order. NAME itself when it has no alias,
 * or when it names addresses with different aliases in different places (a
 * static function in two files). Valid until sa_aliases_free or the next add.
 */
const char *sa_aliases_canonical(struct sa_aliases *a, const char *name);

#endif
