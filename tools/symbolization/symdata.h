/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What one ELF file's symbols are, read once and shared by every inode
 * with its build-id: symfile.c's private data, which it caches, looks up
 * and sweeps. Its loading is apart from those: the symbol table (sized
 * functions, unsized ones and code labels cut where the next begins, PLT
 * stubs, IFUNC resolvers) and the file's loadable segments.
 */
#ifndef PK_SYMDATA_H
#define PK_SYMDATA_H

#include <elfutils/libdwfl.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "lib/symtab.h"
#include "symbolization/symfile.h"

struct pk_symfiles;
struct pk_srcline;
struct pk_gopclntab;
struct pk_loc_cache;

struct pk_load_seg {
	__u64 offset, vaddr, filesz;
};

/* A name of a function that another name of its address names, as
 * NAME: glibc's __GI___clock_nanosleep (DWARF's linkage name) of
 * clock_nanosleep's code. */
struct pk_sym_alias {
	const char *name;	/* the function's name (pk_sym_name_len) */
	long idx;		/* the symbol that names its address */
	bool owned;		/* NAME was allocated */
};

/* What one build-id's file holds, shared by every inode with that id. */
struct pk_symdata {
	struct pk_symdata *next;	/* same build-id hash bucket */
	__u8 build_id[PK_BUILD_ID_MAX];
	size_t build_id_len;	/* 0: the file has none (never shared) */
	Dwfl *dwfl;
	Dwfl_Module *dm;
	struct pk_symtab *syms;
	const char **names;	/* per symbol, demangled on first use */
	struct pk_sym_alias *aliases;	/* by name */
	size_t naliases;
	struct pk_load_seg *segs;
	size_t nsegs;
	__u64 image_size;
	struct pk_srcline *srcline;	/* NULL until the first lookup */
	struct pk_gopclntab *go;	/* a Go binary's table; NULL: none */
	bool go_tried;
	struct pk_symfiles *files;	/* its owner */
	char *opened;		/* the path it was read from */
	struct stat opened_st;
	bool syms_tried;	/* symbols loaded (pk_symdata_load_symbols), once */
	struct pk_loc_cache *locs;	/* NULL until the first lookup */
	bool locs_tried;
	size_t users;		/* files that name it */
	size_t leaving;		/* of those, freed by the sweep under way */
};

/* PATH reported as the only module of a new Dwfl at bias 0 (so that its
 * addresses are the ELF's own), its debug files looked for through CB.
 * NULL when it is no ELF file. */
struct pk_symdata *pk_symdata_open(const Dwfl_Callbacks *cb, const char *path);

/* D's loadable segments (what turns a file offset into an address). */
int pk_symdata_load_segments(struct pk_symdata *d);

/* D's function symbols, once, into a sorted table (d->syms, d->names,
 * d->aliases). 0 or a negative errno. */
int pk_symdata_load_symbols(struct pk_symdata *d);

/* The symbol that names the function DWARF calls NAME, when a symbol of
 * another name holds its address (pk_symdata_load_symbols()), or -1. */
long pk_symdata_alias(const struct pk_symdata *d, const char *name);

void pk_symdata_free(struct pk_symdata *d);

#endif
