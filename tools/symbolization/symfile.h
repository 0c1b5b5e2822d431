/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The files whose code was sampled, each loaded once: its function symbols
 * (a sorted table, through libdwfl, which also finds separate debug files
 * by build-id and .gnu_debuglink), its PT_LOAD segments and its build-id.
 *
 * A file is known by its inode (dev, ino) as every process maps it; two
 * inodes with the same build-id (a library in a container and on the host,
 * a copy) share one set of symbols: a machine-wide profile loads libc's
 * once. A file that cannot be read by any way offered stays known, unloaded,
 * so that it is not tried again per address.
 */
#ifndef PK_SYMFILE_H
#define PK_SYMFILE_H

#include <elfutils/libdwfl.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "eh_frame/errmsg.h"
#include "profile/profile.h"
#include "symbolization/srcline.h"

#define PK_BUILD_ID_MAX	64

struct pk_symfiles;
struct pk_symfile;

struct pk_symfiles *pk_symfiles_new(void);
void pk_symfiles_free(struct pk_symfiles *files);

/* The file (DEV, INO) (a glibc dev_t) if it was added before, else NULL. */
struct pk_symfile *pk_symfiles_get(struct pk_symfiles *files, __u64 dev, __u64 ino);

/* Where a file may be read, tried in order. */
struct pk_symfile_source {
	const char *path;	/* a path to open; NULL ends the list */
	bool check_inode;	/* only if stat(path) is (dev, ino) */
};

/*
 * Add the file (DEV, INO), named NAME (as mapped: its path, "[vdso]"), and
 * load it from the first of SOURCES that loads. BUILD_ID (LEN bytes; may be
 * NULL), when the kernel gave one: a source whose build-id differs is
 * skipped, and when no source loads, the file is looked for by build-id
 * in the debug directories (/usr/lib/debug/.build-id, or those of
 * pk_symfiles_set_debug_dirs). NULL only when out of memory.
 */
struct pk_symfile *pk_symfiles_add(struct pk_symfiles *files, __u64 dev, __u64 ino,
				   const char *name, const struct pk_symfile_source *sources,
				   const __u8 *build_id, size_t len);

/* A module that is no file this process can read ("[kernel.kallsyms]", a
 * kernel module): named, with an id among the files'. NULL: no memory. */
const struct pk_module *pk_symfiles_named(struct pk_symfiles *files, const char *name);

/* The names a file of build-id ID (LEN bytes) has under a debug directory
 * DIR, the I-th (0 <= I < PK_BUILD_ID_NAMES) into BUF: 0,
 * DIR/.build-id/xx/yyyy.debug, where gdb, perf and debuginfod keep debug
 * files; 1, DIR/.build-id/xx/yyyy, where debuginfod's clients keep
 * executables and Fedora links its binaries (/usr/lib/.build-id). 0, or
 * -EINVAL (no id, or it does not fit). */
#define PK_BUILD_ID_NAMES	2
int pk_build_id_debug_path(const char *dir, const __u8 *id, size_t len, int i, char *buf,
			   size_t buflen);

/* Directories holding .build-id/xx/yyyy.debug trees, searched in order
 * (the list is copied); NULL: "/usr/lib/debug". 0 or -ENOMEM. */
int pk_symfiles_set_debug_dirs(struct pk_symfiles *files, const char *const *dirs, size_t n);

/* What a profile names the file by: path and hex build-id. */
const struct pk_module *pk_symfile_module(const struct pk_symfile *f);
bool pk_symfile_loaded(const struct pk_symfile *f);
/* The ELF address of file offset OFF (through the PT_LOAD that holds it),
 * or ~0 when none does or the file is not loaded. */
__u64 pk_symfile_vaddr(const struct pk_symfile *f, __u64 off);
/* The size of the file's image (the vDSO's is checked against the mapping's). */
__u64 pk_symfile_image_size(const struct pk_symfile *f);

/* The function holding ELF address VADDR: its demangled name and *START;
 * NULL when no symbol holds it. */
const char *pk_symfile_symbol(struct pk_symfile *f, __u64 vaddr, __u64 *start);

/* The inline frames and source lines at ELF address VADDR, innermost
 * first (srcline.h), from the file's DWARF wherever libdwfl finds it:
 * the number of frames, 0 when there is none, or -errno. */
int pk_symfile_srcline(struct pk_symfile *f, __u64 vaddr, struct pk_srcline_frame *out, int max);

/*
 * Everything a profile says of ELF address VADDR in F: the function whose
 * symbol holds it (*NAME, demangled, and its *START; NULL and 0: none) and,
 * with DWARF, its inline frames (as pk_symfile_srcline, at most MAX into
 * OUT). Answered from the file's location cache (loc_cache.h, with
 * pk_symfiles_set_cache_dir) when an earlier reader resolved VADDR from
 * the same source, else from the file, and kept for the next. The
 * strings live as long as F's data. The number of frames, or -ENOMEM.
 */
int pk_symfile_locate(struct pk_symfile *f, __u64 vaddr, bool dwarf, const char **name,
		      __u64 *start, struct pk_srcline_frame *out, int max);

/* Keep the files' locations under ROOT (the cache root, eh_cache_root;
 * NULL: nowhere), saved as each file is let go, and uncompressed copies
 * of their debug files (debug_plain.h). 0 or -ENOMEM. */
int pk_symfiles_set_cache_dir(struct pk_symfiles *files, const char *root);

/*
 * Letting go of the files no process needs any more, so that a reader left
 * running holds the files of the processes it still names, not of all it
 * ever saw (a build server runs new binaries all day), and no stale file
 * whose inode a new one has taken. Before each sweep, the caller holds
 * every file something still names (pk_symfiles_hold); the sweep then frees
 * the files held at neither it nor the sweep before (a program run again
 * soon after its last process ended keeps its file), and each build-id's
 * symbols with its last file. A file freed is added anew when a process
 * maps it again. Files of pk_symfiles_named are kept. Every build-id's
 * new locations are saved then (pk_symfiles_set_cache_dir). Returns how
 * many files were freed.
 */
void pk_symfiles_hold(struct pk_symfiles *files, struct pk_symfile *f);
size_t pk_symfiles_sweep(struct pk_symfiles *files);

struct pk_symfiles_stats {
	__u64 files;		/* inodes added */
	__u64 loaded;		/* of those, loaded */
	__u64 symtabs;		/* symbol tables read (one per build-id) */
	__u64 cached;		/* addresses answered by a location cache */
	__u64 by_build_id;	/* loaded from a debug directory by build-id */
	__u64 freed;		/* files let go by sweeps */
	__u64 go_refused;	/* Go tables not read (gopclntab.h) */
	char go_err[PK_ERR_LEN];	/* why the last was not: one line */
};

void pk_symfiles_stats(const struct pk_symfiles *files, struct pk_symfiles_stats *st);

#endif
