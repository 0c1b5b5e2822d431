/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Names of JIT code from /tmp/perf-PID.map, the file perf reads them from:
 * one "START SIZE NAME" line per piece of code a JIT emitted (V8 with
 * --perf-basic-prof, the JVM through perf-map-agent, CPython's perf
 * trampolines, .NET, LuaJIT...). START and SIZE are hex, with or without
 * 0x; NAME is the rest of the line, spaces included.
 *
 * The file is written by the process being profiled, in a directory anyone
 * can write to, while it runs:
 *  - it is read only when it is a regular file (not a symlink: O_NOFOLLOW),
 *    with one link, owned by the process's user or root (perf's rule for
 *    these files was the same, against its own user). Anything else is
 *    refused with EPERM (owner, links), ELOOP (a symlink) or EINVAL (not a
 *    regular file);
 *  - a line is at most PK_PERF_MAP_LINE_MAX bytes; a longer one is skipped
 *    without being held in memory, and so is any line that is not an entry
 *    (counted, never fatal);
 *  - an unterminated last line is a JIT's write in progress: it is left for
 *    pk_perf_map_refresh, which reads what was appended since.
 *
 * JITs emit new code where freed code was and write a new line for it; no
 * line says when the old one ended. As perf has no rule for overlapping
 * entries (its tree search finds either), the later line wins here: an
 * address is named by the last line covering it. A SIZE of 0 covers START
 * alone, as perf's lookup does.
 *
 * Where perf's parser differs: it takes any one character between the
 * fields and needs a NAME of 3 bytes or more, an artifact of its bounds
 * check; here fields are separated by blanks (spaces or tabs, one before
 * NAME, which keeps any more), NAME needs one byte, and a line with a NUL
 * byte or a number past 64 bits is not an entry.
 */
#ifndef PK_PERF_MAP_H
#define PK_PERF_MAP_H

#include <linux/types.h>
#include <stddef.h>
#include <sys/types.h>

/* Fuzzing builds lower it, to reach it with small inputs. */
#ifndef PK_PERF_MAP_LINE_MAX
#define PK_PERF_MAP_LINE_MAX 65536
#endif

struct pk_perf_map;

struct pk_perf_map_stats {
	size_t entries;		/* lines read as entries */
	size_t ranges;		/* named address ranges they make (later lines
				 * cut into earlier ones) */
	size_t garbage;		/* lines skipped: not START SIZE NAME */
	size_t too_long;	/* lines skipped: past PK_PERF_MAP_LINE_MAX */
	size_t pending;		/* bytes of an unterminated last line */
	__u64 bytes;		/* bytes of the file read */
};

/* The map of process PID as perf finds it: /tmp/perf-NSPID.map in the
 * process's own root (a container's /tmp, the pid in its own namespace),
 * which must be owned by the process's effective user or root. NULL with
 * errno set (ENOENT: the process has none, ESRCH: no such process). */
struct pk_perf_map *pk_perf_map_load_pid(pid_t pid);

/* The map a process of tgid NSTGID in its own pid namespace wrote in its
 * root ROOT (a directory of ours: /proc/PID/root, or the root kept of a
 * process that exited), which must be owned by OWNER or root. NULL with
 * errno set (ENOENT: there is none). */
struct pk_perf_map *pk_perf_map_load_in(const char *root, pid_t nstgid, uid_t owner);

/* The map at PATH, which must be owned by OWNER or root. NULL with errno
 * set. */
struct pk_perf_map *pk_perf_map_load(const char *path, uid_t owner);

/* Read what was appended to the file since it was last read (all of it,
 * the old entries dropped, if it was replaced or truncated). Returns the
 * number of new entries, or a negative errno: the file could not be opened
 * or was refused (the map is kept as it was), or reading it failed (what
 * was read before the error is in the map, the rest comes with the next
 * refresh). Names handed out before stay valid. */
int pk_perf_map_refresh(struct pk_perf_map *map);

/* The name of the code holding ADDR (owned by MAP, valid until
 * pk_perf_map_free), or NULL. START (may be NULL) gets the START of the
 * line that named it. */
const char *pk_perf_map_lookup(const struct pk_perf_map *map, __u64 addr, __u64 *start);

const struct pk_perf_map_stats *pk_perf_map_stats(const struct pk_perf_map *map);

void pk_perf_map_free(struct pk_perf_map *map);

/* The parser alone (for tests and fuzzing): a map of no file, fed bytes in
 * pieces of any size, then finished (before lookups; again after more). */
struct pk_perf_map *pk_perf_map_new(void);
int pk_perf_map_feed(struct pk_perf_map *map, const char *buf, size_t len);
int pk_perf_map_finish(struct pk_perf_map *map);

#endif
