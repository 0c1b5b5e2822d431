/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Public API of the eh_frame library: build an unwind table from an ELF's
 * call-frame information, keep it in the build-id cache, read it back.
 * Used by eh2table, and by probe-load and probe-read through
 * tools/lib/unwind_store.c; no BPF dependency.
 *
 * Conventions (the project's, CONTRIBUTING.md): functions return 0 or a
 * negative errno; objects are opaque with eh_object_verb() names; options
 * structs carry their size so they can grow. Every failure also fills ERR, a char[PK_ERR_LEN] (pk_err(),
 * eh_frame/errmsg.h), with one line naming the reason (the caller prefixes
 * the file name).
 */
#ifndef EH_TABLE_H
#define EH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "eh_frame/errmsg.h"
#include "eh_frame/unwind_table.h"

/* A table: built from an ELF, or mapped read-only from a cache file. */
struct eh_unwind_table;

struct eh_unwind_build_opts {
	size_t sz;			/* sizeof(struct eh_unwind_build_opts) */
	bool no_debug_frame;		/* ignore .debug_frame (and debug files) */
	const char *debug_root;		/* default "/usr/lib/debug" */
};

/* Parse FILE's .eh_frame/.debug_frame (and its separate debug file) into a
 * sorted, merged table. */
int eh_unwind_table_from_elf(const char *path, const struct eh_unwind_build_opts *opts,
			   struct eh_unwind_table **out, char err[PK_ERR_LEN]);

/* Parse a raw CFI section, for tests and the fuzz target: DATA is the
 * section's bytes, VADDR its address in the ELF, EH_FRAME selects .eh_frame
 * (true) or .debug_frame (false) syntax. */
int eh_unwind_table_from_section(const void *data, size_t size, __u64 vaddr,
			       bool eh_frame, struct eh_unwind_table **out,
			       char err[PK_ERR_LEN]);

/* Map a cache file; checks magic, version, sizes and checksum. -EBADMSG when
 * the file is corrupt or truncated, -ENOENT when absent. */
int eh_unwind_table_open(const char *path, struct eh_unwind_table **out,
		       char err[PK_ERR_LEN]);

/* Write the table to PATH whole or not at all (eh_cache_write()). */
int eh_unwind_table_write(const struct eh_unwind_table *t, const char *path,
			char err[PK_ERR_LEN]);

/* Text dump, one row per line, lined up with readelf --debug-dump=frames-interp:
 *   <pc hex> <cfa> <rbp> <ra>
 * cfa: rsp+N rbp+N plt1 plt2 *(rsp+N)+M <reg>+N signal unsupported end
 * rbp: u | c-N | c+N | unsupported       ra: c-8 | u | unsupported
 * Lines starting with '#' are comments. */
int eh_unwind_table_dump(const struct eh_unwind_table *t, FILE *out);

const struct pk_unwind_header *eh_unwind_table_header(const struct eh_unwind_table *t);
/* Bytes of the serialized table (header + arrays), as written to the cache. */
size_t eh_unwind_table_size(const struct eh_unwind_table *t);
void eh_unwind_table_free(struct eh_unwind_table *t);

/* Cache ------------------------------------------------------------------ */

#define EH_CACHE_ENV	"PROBEKIT_CACHE_DIR"

/* The cache root: DIR if given, else $PROBEKIT_CACHE_DIR, else
 * /var/cache/probekit for root, else $XDG_CACHE_HOME/probekit (or
 * ~/.cache/probekit). Writes into BUF; -ENAMETOOLONG if it does not fit. */
int eh_cache_root(const char *dir, char *buf, size_t len);

/* The key of FILE: its GNU build-id in hex, or, without one, "nb-" followed by
 * a content hash (documented in eh_frame/README.md). */
int eh_cache_key(const char *path, char *buf, size_t len, char err[PK_ERR_LEN]);

/* <root>/<first 2 hex>/<rest>.unwind */
int eh_cache_path(const char *root, const char *key, char *buf, size_t len);

/* mkdir -p of the directory that is to hold cache file FILE. */
int eh_cache_mkdirs(const char *file, char err[PK_ERR_LEN]);

/*
 * A cache file written whole or not at all, so that a reader never sees a
 * part (no fsync: a file torn by a crash fails its reader's checks and is
 * written again). eh_cache_file_begin() opens a temporary file beside FILE
 * (f->fd, mode 0644: a shared cache is readable by all), in a directory
 * that must exist (eh_cache_mkdirs()); eh_cache_file_commit() closes it and renames it to FILE, or,
 * when the writer FAILED (its negative errno) or anything else does,
 * removes it and returns the error. Both return 0 or a negative errno.
 */
struct eh_cache_file {
	int fd;
	const char *path;
	char tmp[4096];
};

int eh_cache_file_begin(struct eh_cache_file *f, const char *file, char err[PK_ERR_LEN]);
int eh_cache_file_commit(struct eh_cache_file *f, int failed, char err[PK_ERR_LEN]);
/* Write N bytes from BUF to F->fd, across short writes and EINTR. */
int eh_cache_file_put(struct eh_cache_file *f, const void *buf, size_t n);
/* FILE with the N bytes of BUF, through the three calls above. */
int eh_cache_write(const char *file, const void *buf, size_t n, char err[PK_ERR_LEN]);

/* The cache writes of this process that failed: every failure of
 * eh_cache_mkdirs(), eh_cache_file_begin() and eh_cache_file_commit()
 * (so of eh_cache_write() and eh_cache_get()) is counted, whatever the
 * writer did next. A write that failed leaves no file behind. For the one
 * line a program says at its end (lib/cli.h: pk_cli_cache_unsaved()). */
struct eh_cache_unsaved {
	unsigned int writes;		/* writes that failed (a file whose
					 * write is tried again counts again) */
	int error;			/* the first one's negative errno ... */
	char dir[4096];			/* ... and its directory */
};

void eh_cache_unsaved(struct eh_cache_unsaved *out);

/* Whether this process wrote a file into the cache (a commit that took). */
bool eh_cache_written(void);

/* The cache's bound, over every file under the root (eh_frame/cache_bound.c):
 * $PROBEKIT_CACHE_MAX (bytes, or K, M, G; 0: none), else 1 GiB. */
#define EH_CACHE_MAX_ENV	"PROBEKIT_CACHE_MAX"
#define EH_CACHE_MAX_DEFAULT	(1ULL << 30)

/* *MAX, the bound. 0, or -EINVAL when the variable is not a size. */
int eh_cache_max(unsigned long long *max);

enum eh_cache_kind {
	EH_CACHE_TABLES,		/* xx/yyyy.unwind */
	EH_CACHE_LOCS,			/* xx/yyyy.locs: probe-read's locations */
	EH_CACHE_DEBUG,			/* xx/yyyy.debug: uncompressed debug files */
	EH_CACHE_KERNEL,		/* kernel/: this boot's symbols and types */
	EH_CACHE_TEMP,			/* *.tmp.*: being written, or left by a crash */
	EH_CACHE_OTHER,
	EH_CACHE__KINDS,
};

/* What the cache holds, by kind (bytes as allocated on disk, as du counts
 * them), and what a trim removed. */
struct eh_cache_usage {
	unsigned long long files[EH_CACHE__KINDS], bytes[EH_CACHE__KINDS];
	unsigned long long total_files, total_bytes;
	unsigned long long removed_files, removed_bytes;
};

/* Remove the least recently used files under ROOT until they take at most
 * MAX bytes (0: none removed, USAGE only): a crashed writer's temporary
 * files first, never one being written (younger than an hour) nor the most
 * recently used file. USAGE (NULL: not wanted): what is left. 0 or -errno
 * (ERR); a file that cannot be removed is left and counted. */
int eh_cache_trim(const char *root, unsigned long long max, struct eh_cache_usage *usage,
		  char err[PK_ERR_LEN]);

/* For a program at the end of a step that may have written the cache:
 * eh_cache_trim() of the root (DIR, or eh_cache_root()'s) to
 * eh_cache_max(), when this process wrote to it. 0 or -errno (ERR). */
int eh_cache_keep_bound(const char *dir, struct eh_cache_usage *usage, char err[PK_ERR_LEN]);

struct eh_cache_opts {
	size_t sz;			/* sizeof(struct eh_cache_opts) */
	const char *cache_dir;		/* NULL: eh_cache_root() default */
	bool force;			/* rebuild even if a valid file exists */
	const struct eh_unwind_build_opts *build;
};

enum eh_cache_result {
	EH_CACHE_HIT = 1,		/* valid cache file reused */
	EH_CACHE_BUILT,			/* built and written */
	EH_CACHE_REBUILT,		/* existing file was corrupt: rebuilt */
	EH_CACHE_UNSAVED,		/* built, but the cache file could not be
					 * written (ERR says why): the table is
					 * whole, only the next build is not saved */
};

/* Get FILE's table from the cache, building and writing it when absent,
 * corrupt or forced; a table built but not written is returned all the
 * same (EH_CACHE_UNSAVED). Returns enum eh_cache_result (> 0) or a
 * negative errno;
 * *out (if not NULL) receives the table, CACHE_PATH (if not NULL) its file. */
int eh_cache_get(const char *path, const struct eh_cache_opts *opts,
		 struct eh_unwind_table **out, char *cache_path, size_t cache_path_len,
		 char err[PK_ERR_LEN]);

#endif /* EH_TABLE_H */
