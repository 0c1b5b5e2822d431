/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Symbolized addresses kept from one reader to the next: what a file's
 * symbol table and DWARF said of each address resolved in it, saved in the
 * cache beside its unwind table (<root>/<2 hex>/<rest>.locs, keyed by
 * build-id as the table is). A reader that meets an address an earlier
 * one resolved finds it with a hash lookup: it neither loads the file's
 * symbol table nor inflates its debug sections. Only what samples reached
 * is ever resolved, and each such address once per machine rather than
 * once per run. (The kernel's symbols are kept whole: lib/kallsyms.h.)
 *
 * A cache file holds the answers of one source: SIG, the caller's hash of
 * what they came from (the file opened, the debug files found).
 * A file of another SIG, or one that is not whole (its checksum), reads as
 * empty, and the next save replaces it.
 *
 * File layout (host byte order; cache files do not travel):
 *   header: "PKLOCS" 0 1, sig u64, count u32, 0 u32, checksum u64 (of
 *           the records: eh_hash_update/final)
 *   count records: addr u64, start u64, flags u8 (PK_LOC_REC_*),
 *           nframes u8, [name str], nframes x (name str,
 *           file str, line u32)
 *   str: u16 length (0xffff: none), then the bytes
 */
#ifndef PK_LOC_CACHE_H
#define PK_LOC_CACHE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "symbolization/srcline.h"

/* Frames kept per address, as symbolizer.c keeps (MAX_INLINE). */
#define PK_LOC_CACHE_MAX_FRAMES	32
/* Addresses kept per file: a bound on what a bad file can make us read. */
#define PK_LOC_CACHE_MAX	(1u << 20)

/* What a symbolizer found at one address. */
struct pk_loc_entry {
	const char *name;	/* the symbol holding it; NULL: none */
	__u64 start;		/* the symbol's address */
	bool dwarf;		/* FRAMES were looked up (not --no-inline) */
	bool saved;		/* read from the file: an earlier reader's */
	int nframes;
	const struct pk_srcline_frame *frames;	/* innermost first */
};

struct pk_loc_cache;

/* The cache file PATH (NULL: a cache in memory only, never saved), read
 * if it is SIG's. NULL only when out of memory. */
struct pk_loc_cache *pk_loc_cache_open(const char *path, __u64 sig);
void pk_loc_cache_free(struct pk_loc_cache *c);

/* The entry of ADDR, or NULL. Its strings live as long as C. */
const struct pk_loc_entry *pk_loc_cache_get(const struct pk_loc_cache *c, __u64 addr);

/* Keep E (copied) as ADDR's, in place of any before. 0 or -ENOMEM. */
int pk_loc_cache_put(struct pk_loc_cache *c, __u64 addr, const struct pk_loc_entry *e);

/* When entries were put since it was read: write the whole cache to a
 * temporary file renamed over PATH, so that a reader never sees half of
 * one. 0, or -errno (the cache is only an accelerator: callers may go on). */
int pk_loc_cache_save(struct pk_loc_cache *c);

/* The records of a cache file's bytes BUF (LEN), as pk_loc_cache_open reads
 * them: 0 when they are SIG's and whole, else -EINVAL (C then holds none
 * of them) or -ENOMEM. For the fuzz target. */
int pk_loc_cache_parse(struct pk_loc_cache *c, const void *buf, size_t len, __u64 sig);

size_t pk_loc_cache_count(const struct pk_loc_cache *c);

/* A hash of this program's own code (its build-id), for every SIG: a
 * rebuilt reader, whose answers may differ, starts its caches anew. */
__u64 pk_loc_cache_self_sig(void);

#endif
