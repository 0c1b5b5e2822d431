/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The roots of a session's processes, kept in the session (PK_PIN_ROOTS,
 * a BPF hash probe-load pins: the pin directory holds nothing else) by
 * whoever sees a process while it lives: probe-load while it waits for
 * -- CMD, and every reader. A reader after the process exited no longer
 * has /proc/PID/root, and without it took the root's files for the
 * host's: no root's /usr/lib/debug, so a chroot's python3.13 lost the
 * names only its -dbg package gives.
 *
 * Kept with it: the process's tgid in its own pid namespace and its
 * effective uid, which name and own the perf map its JIT writes
 * (/tmp/perf-NSTGID.map in its root): read after the exit as perf reads
 * them. A process of our root in another pid namespace is kept for them
 * alone, its root "/".
 *
 * What is kept is the root as a path of ours, checked to be the same
 * directory as /proc/PID/root (its device and inode) when it is recorded:
 * a chroot's directory (readlink of /proc/PID/root), or, for a root the
 * kernel's path does not reach (a pivot_root: readlink gives "/"), where
 * one of our mounts shows the directory the process's root mount shows
 * (its mountinfo's "/" line: a bind mount of a directory we have, an
 * overlay the container runtime mounted on the host too). Not a
 * descriptor (nothing outlives probe-load but pins) and not the mount
 * namespace (keeping one alive takes a bind mount, which a session must
 * not leave behind). A root no mount of ours shows is not recorded: its
 * files are named while it lives only.
 */
#ifndef PK_ROOT_RECORDS_H
#define PK_ROOT_RECORDS_H

#include <stddef.h>
#include <sys/types.h>

#include "bpf/probekit.h"

/* Sessions beyond this many processes in other roots record no more. */
#define PK_ROOT_RECORDS_MAX	4096

/* A new, empty PK_PIN_ROOTS map: its fd, or a negative errno. */
int pk_root_records_create(void);

/* PID's root (PROC: where /proc is; NULL: "/proc"; ours is
 * /proc/self/mountinfo's) into OUT, with its tgid in its pid namespace
 * and its effective uid: 1 when it is another root than ours and a
 * directory of ours, at the path the kernel gives or through the mounts,
 * or ours ("/") in another pid namespace; 0 when it is ours in ours, or
 * ours does not reach it; a negative errno when PID is gone. */
int pk_proc_root_find(const char *proc, pid_t pid, struct pk_root_record *out);

/* PID's root into the map FD when pk_proc_root_find gives one: 1 when
 * recorded, 0 when there is nothing to record, a negative errno. */
int pk_root_records_put(int fd, const char *proc, pid_t pid);

/* PID's recorded root into OUT: 0, or -ENOENT when none was recorded (or
 * the record is no absolute path), another negative errno. */
int pk_root_records_get(int fd, pid_t pid, struct pk_root_record *out);

/* A root recorded in the map FD (for any process) where PATH, a path of a
 * process's own root, is the file (DEV, INO), into OUT: 0, or -ENOENT.
 * For a process that exited before anyone recorded its root (a mount or
 * umount a container's start runs, alive for a millisecond): the file
 * the kernel reported, found where the session's other processes had
 * their roots, is that file by its identity, never one at the same path. */
int pk_root_records_holding(int fd, const char *path, dev_t dev, ino_t ino,
			    struct pk_root_record *out);

#endif
