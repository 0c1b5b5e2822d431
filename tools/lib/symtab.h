/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A symbol table sorted once and binary-searched for every address: the one
 * lookup structure behind user (ELF) and kernel (kallsyms) symbols.
 */
#ifndef PK_SYMTAB_H
#define PK_SYMTAB_H

#include <linux/types.h>
#include <stddef.h>

/* At equal addresses a sized symbol, then the higher rank names the
 * address (a global alias is the name a user knows; a local one is often
 * glibc's internal alias), see pk_sym_cmp. */
enum pk_sym_rank {
	PK_SYM_MARKER = 0,	/* names nothing, only ends the symbol before it */
	PK_SYM_LOCAL,
	PK_SYM_WEAK,
	PK_SYM_GLOBAL,
};

struct pk_sym {
	__u64 addr;
	__u64 size;		/* 0: unknown, the symbol ends where the next begins
				 * (kallsyms; ELF files decide their own, see
				 * symbolization/symfile.c) */
	const char *name;	/* owned by the table */
	__u16 rank;		/* enum pk_sym_rank */
	__u16 module;		/* what holds it (pk_symtab_module); 0: none */
	__s32 parent;		/* enclosing symbol, for addresses past the end of
				 * a nested one; -1: none */
};

struct pk_symtab;

struct pk_symtab *pk_symtab_new(void);
void pk_symtab_free(struct pk_symtab *tab);

/* Add a symbol (NAME is copied). 0 or -ENOMEM. */
int pk_symtab_add(struct pk_symtab *tab, __u64 addr, __u64 size, const char *name,
		  enum pk_sym_rank rank);

/* pk_symtab_add of a symbol that MODULE holds (kallsyms: a kernel module,
 * "bpf" for BPF programs; NULL: none), the name copied once per table.
 * 0, -ENOMEM, or -E2BIG past 65535 modules. */
int pk_symtab_add_in(struct pk_symtab *tab, __u64 addr, __u64 size, const char *name,
		     enum pk_sym_rank rank, const char *module);

/* The module S was added in, owned by the table; NULL: none. */
const char *pk_symtab_module(const struct pk_symtab *tab, const struct pk_sym *s);

/* qsort order of two struct pk_sym: by address, then the name that
 * address goes by first (the one pk_symtab_finish keeps). */
int pk_sym_cmp(const void *a, const void *b);

/* Sort and resolve aliases; call once after the last add, before lookups.
 * 0 or -ENOMEM. */
int pk_symtab_finish(struct pk_symtab *tab);

/* Index of the symbol covering ADDR, or -1: the last symbol starting at or
 * before ADDR whose extent holds it (sized symbols end at addr+size, unsized
 * ones at the next symbol's start; the last unsized symbol covers nothing
 * after itself beyond LIMIT, see pk_symtab_set_limit). */
long pk_symtab_lookup(const struct pk_symtab *tab, __u64 addr);

/* End of the range unsized symbols may extend to (default: no limit). */
void pk_symtab_set_limit(struct pk_symtab *tab, __u64 end);

const struct pk_sym *pk_symtab_sym(const struct pk_symtab *tab, long idx);
size_t pk_symtab_count(const struct pk_symtab *tab);

#endif
