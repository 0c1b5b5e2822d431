/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A process's memory mappings as /proc/PID/maps lists them, sorted by
 * address for binary search, so that a sampled address can be mapped back to
 * the file (and file offset) it came from.
 */
#ifndef PK_PROC_MAPS_H
#define PK_PROC_MAPS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum pk_mapping_kind {
	PK_MAP_FILE,		/* path starting with '/' */
	PK_MAP_ANON,		/* no name */
	PK_MAP_SPECIAL,		/* [vdso], [stack], [heap], [anon:x], ... */
};

enum pk_mapping_perm {
	PK_MAP_R = 1u << 0,
	PK_MAP_W = 1u << 1,
	PK_MAP_X = 1u << 2,
	PK_MAP_P = 1u << 3,	/* private (copy on write) */
};

struct pk_mapping {
	__u64 start, end;	/* [start, end) */
	__u64 offset;		/* file offset of start */
	__u64 inode;
	__u32 dev_major, dev_minor;
	__u32 perms;		/* enum pk_mapping_perm */
	enum pk_mapping_kind kind;
	bool deleted;		/* " (deleted)" was stripped from the name */
	char *name;		/* path or [special]; "" when anonymous */
};

struct pk_maps {
	struct pk_mapping *v;	/* sorted by start, non-overlapping */
	size_t n;
};

/* Parse one line (without or with its '\n') into *m; m->name is malloc'ed.
 * 0, -EBADMSG on a malformed line, -ENOMEM. */
int pk_maps_parse_line(const char *line, size_t len, struct pk_mapping *m);

/* Parse the text of a whole maps file. Only executable mappings are kept
 * when EXEC_ONLY (stack samples only ever point into those). 0 or -errno;
 * *out is empty on error. */
int pk_maps_parse(const char *text, size_t len, bool exec_only, struct pk_maps *out);

/* The whole of a text file of /proc (which report size 0) into *TEXT,
 * malloc()ed and NUL-ended, *LEN bytes: 0 or -errno. */
int pk_proc_text_read(const char *path, char **text, size_t *len);

/* Read /proc/PID/maps (PROC_ROOT: NULL for "/proc"). -ENOENT (or -ESRCH)
 * when the process is gone. */
int pk_maps_read(const char *proc_root, pid_t pid, bool exec_only, struct pk_maps *out);

/* Call FN(CTX, pid) for each process under PROC_ROOT (NULL: "/proc") until
 * it returns non-zero: that value, 0 when every process was seen, or a
 * negative errno when the directory cannot be listed. */
int pk_proc_for_each_pid(const char *proc_root, int (*fn)(void *ctx, pid_t pid), void *ctx);

/* The mapping holding ADDR, or NULL. */
const struct pk_mapping *pk_maps_find(const struct pk_maps *maps, __u64 addr);

void pk_maps_free(struct pk_maps *maps);

/* PROC_ROOT/PID/map_files/START-END into BUF, the link through which the
 * file a mapping holds is read while the process lives (deleted or
 * replaced since, or in another mount namespace): named as the kernel
 * names it, lowercase hex without 0x. 0, or -ENAMETOOLONG. */
int pk_map_files_path(char *buf, size_t len, const char *proc_root, pid_t pid, __u64 start,
		      __u64 end);

/* pk_map_files_path() into PATH, and what the link names into NAME (the
 * path the process mapped; "" when it cannot be read): the file a no-table
 * report names, to read its table from. 0; -ESRCH when the process has
 * exited or unmapped it (nothing left to read); -ENAMETOOLONG. */
int pk_map_files_named(char *path, char *name, size_t len, const char *proc_root, pid_t pid,
		       __u64 start, __u64 end);

/* Open PATH (a map_files link, say) and name the open file in BUF as
 * /proc/self/fd/N: a path that still reads the same file once PATH is gone
 * (its process exited), for readers that open a file more than once. The
 * descriptor, the caller's to close, or a negative errno. */
int pk_path_hold(const char *path, char *buf, size_t len);

#endif
