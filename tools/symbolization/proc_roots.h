/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The root directories of the processes a reader symbolizes, where they
 * are not its own (a container's, a chroot's): each is held open, so that
 * it stays readable when its process exits, and its /usr/lib/debug is
 * searched by build-id as the --debug-dir directories are. A root's -dbg
 * package names what its binaries' .symtab does not (python3.14's eval
 * loop's .cold part, its static functions); the build-id keeps a root's
 * debug file from ever being taken for a host file of the same path.
 */
#ifndef PK_PROC_ROOTS_H
#define PK_PROC_ROOTS_H

#include <stddef.h>
#include <sys/types.h>

/* Roots beyond this many are not looked into: each is one more directory
 * a file's debug file is looked for in. */
#define PK_PROC_ROOTS_MAX	128

struct pk_proc_roots;

/* PROC_ROOT: where /proc is (NULL: "/proc"); DIRS (N of them; NULL: the
 * default /usr/lib/debug): the debug directories the roots' come after.
 * NULL when out of memory. */
struct pk_proc_roots *pk_proc_roots_new(const char *proc_root, const char *const *dirs,
					size_t n);

/* PID's root, looked at once per root: 1 when it is a root not seen
 * before with a /usr/lib/debug, added to the directories
 * (pk_proc_roots_dirs); 0 when nothing changed (our own root, one seen
 * already, one without debug files, the process gone, PK_PROC_ROOTS_MAX
 * reached); a negative errno when out of memory. */
int pk_proc_roots_see(struct pk_proc_roots *r, pid_t pid);

/* The same for the root at DIR, a directory of ours (a root recorded in
 * the session while its process lived, lib/root_records.h): a process
 * gone has no /proc/PID/root. */
int pk_proc_roots_see_dir(struct pk_proc_roots *r, const char *dir);

/* The debug directories: the caller's (or /usr/lib/debug), then each
 * root's, as /proc/self/fd/N/usr/lib/debug. */
const char *const *pk_proc_roots_dirs(const struct pk_proc_roots *r, size_t *n);

void pk_proc_roots_free(struct pk_proc_roots *r);

#endif
