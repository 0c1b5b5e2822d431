/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The unwind tables of a session, from user space: the pinned maps of
 * bpf/probekit.h ("Unwind tables in the kernel") that the BPF unwinder
 * reads. probe-load fills them before it attaches; probe-read adds the
 * tables of files the kernel reported as missing (PK_EVENT_NO_TABLE).
 *
 * Tables come from the eh2table cache (eh_cache_get: built when missing or
 * corrupt, in parallel; used all the same when the cache cannot keep them,
 * which eh_cache_unsaved() counts for the program's one line); each is
 * copied into a BPF_F_MMAPABLE array made to its size, with memcpy through
 * mmap: no syscall per row. A table is loaded once per build-id; each
 * further file with that build-id costs one unwind_files entry. When the
 * tables would pass the session's limit in kernel bytes, the tables of
 * files no process maps any more are given back first. Tables are added
 * and freed under an flock(2) of the pin directory.
 */
#ifndef PK_UNWIND_STORE_H
#define PK_UNWIND_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#include "bpf/probekit.h"
#include "eh_frame/errmsg.h"
#include "lib/session.h"	/* struct pk_unwind_fds: the maps, loaded or pinned */

/* The kernel's dev_t (as in inode->i_sb->s_dev, /proc/PID/maps) from a
 * user-space st_dev, or from the major:minor of a maps line. */
__u64 pk_kernel_dev(unsigned int major, unsigned int minor);
/* The other way: a user-space dev_t (stat()'s st_dev, makedev) from the
 * kernel's, as BPF reads it from a super block. */
__u64 pk_user_dev(__u64 kernel_dev);

/* A file to give a table to. */
struct pk_unwind_file {
	const char *path;	/* where to read it: a path, /proc/PID/map_files/START-END,
				 * or NULL for the vDSO (read from this process) */
	struct pk_file_key key;	/* the kernel's identity of the mapped inode */
	const char *name;	/* for messages (the path the process mapped);
				 * NULL: path, or "[vdso]" */
	pid_t pid;		/* a process that maps it (0: none known): a
				 * HotSpot's tables are read from it */
	__u64 vm_start;		/* where PID maps it */
};

struct pk_unwind_stats {
	__u32 files;		/* unwind_files entries added */
	__u32 tables;		/* tables added (distinct build-ids) */
	__u32 rows, rules;	/* of the tables added */
	__u64 kernel_bytes;	/* the bytes those rows and rules take in the maps */
	__u32 built;		/* of the tables added, built now (cache miss or
				 * corrupt file) ... */
	__u32 hit;		/* ... or taken from the cache as they were */
	__u32 shared;		/* files whose build-id was loaded already */
	__u32 refused;		/* files left to frame-pointer steps (no room, no CFI) */
	__u32 gone;		/* files no longer there (ENOENT, ESRCH: their process
				 * exited): no entry, no line */
	__u32 freed;		/* tables given back (their files mapped no more) */
	__u32 forgotten;	/* unwind_files entries of those files taken out */
	__u64 freed_bytes;	/* the kernel bytes the freed tables took */
};

struct pk_unwind_store_opts {
	const char *cache_dir;	/* NULL: eh_cache_root() default */
	unsigned int jobs;	/* tables built at once; 0: one per online CPU */
	FILE *log;		/* one line per refused file; NULL: stderr */
	const char *prog;	/* the log lines' prefix; NULL: "probekit" */
};

struct pk_unwind_store;

/* probe-load, just after loading: record the limits (CAPS: max_tables,
 * max_bytes, max_rows; the counts must be 0) and get a store. PIN_DIR is the
 * session's (claimed) pin directory, locked while tables are added or
 * freed. FDS stay the caller's (the store does not close them); the maps'
 * layouts and sizes are checked against CAPS (-EINVAL). */
int pk_unwind_store_create(const struct pk_unwind_fds *fds, const struct pk_unwind_alloc *caps,
			    const char *pin_dir, const struct pk_unwind_store_opts *opts,
			    struct pk_unwind_store **out, char err[PK_ERR_LEN]);

/* The unwind maps as probe-load sizes them for CAPS->max_tables tables and
 * NFILES files, without a program (tests, bench/table_room): into *FDS, the
 * caller's to close. 0 or a negative errno. */
int pk_unwind_maps_create(const struct pk_unwind_alloc *caps, __u32 nfiles,
			   struct pk_unwind_fds *fds);

/* probe-read: the unwind maps pinned at PIN_DIR (NULL: the default).
 * -ENOENT when the session has none (--unwind fp). */
int pk_unwind_store_open(const char *pin_dir, const struct pk_unwind_store_opts *opts,
			  struct pk_unwind_store **out, char err[PK_ERR_LEN]);

/* Give each of FILES a table. A file that cannot have one (no CFI, not an
 * ELF, unreadable, no room left within the limit once the tables of files
 * no process maps were given back) is marked PK_FILE_REFUSED, with one line
 * on the log naming the file and why; that is not an error. A file already
 * in unwind_files is skipped; one that does not exist (any more) is left
 * out. The new tables go into the kernel together (one RCU grace period
 * for all of them, where the kernel updates arrays of maps in batches):
 * add the files known at once in one call. Adds to *ST (may be NULL).
 * Returns 0, or a negative errno when the maps themselves failed. */
int pk_unwind_store_add(struct pk_unwind_store *s, const struct pk_unwind_file *files, int n,
			 struct pk_unwind_stats *st, char err[PK_ERR_LEN]);

/* KEY's file could not be read (its process exited): take it out of
 * unwind_seen, so that the kernel reports it again when a process maps it
 * (it reports each file once). 0 or a negative errno. */
int pk_unwind_store_forget(struct pk_unwind_store *s, const struct pk_file_key *key);

/* Give back the tables of files that no process maps now (every process
 * under /proc, any mapping of the file) and take those files out of
 * unwind_files and unwind_seen, so that a process that maps one later has it
 * reported and loaded again. The vDSO stays. Adds to *ST (may be NULL) what
 * was freed. 0 or a negative errno, with ERR. */
int pk_unwind_store_reclaim(struct pk_unwind_store *s, struct pk_unwind_stats *st,
			     char err[PK_ERR_LEN]);

/* What is loaded in all: the allocation counters. */
int pk_unwind_store_alloc(struct pk_unwind_store *s, struct pk_unwind_alloc *out);

/* The kernel bytes a table of NROWS rows and NRULES rules takes: its array
 * (bpf/probekit.h) and the page the kernel puts before an mmapable array. */
__u64 pk_unwind_table_bytes(__u32 nrows, __u32 nrules);

/* "N tables, R rows, U rules, B KiB of L KiB kernel memory, F freed (G KiB)"
 * of A into BUF: what probe-load and probe-read --stats say. */
void pk_unwind_alloc_describe(const struct pk_unwind_alloc *a, char *buf, size_t len);

void pk_unwind_store_free(struct pk_unwind_store *s);

#endif
