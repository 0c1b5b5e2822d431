/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Cgroup v2 directories a test makes under the machine's cgroup2 mount,
 * named after the test's pid (so that the runner's teardown can remove
 * what a test that died half-way left), and processes moved into them.
 */
#ifndef PK_CGROUP_DIRS_H
#define PK_CGROUP_DIRS_H

#include <stddef.h>
#include <sys/types.h>

/* The cgroup2 mount's path into BUF (/proc/self/mountinfo); "" when
 * there is none. */
void pk_test_cgroup_mount(char *buf, size_t len);

/* MOUNT/pk-test-<pid>[/SUB] into BUF, made (the parent first);
 * SUB NULL: the test's top directory. Checked. */
void pk_test_cgroup_make(const char *mount, const char *sub, char *buf, size_t len);

/* Move PID into the cgroup DIR. Checked. */
void pk_test_cgroup_move(pid_t pid, const char *dir);

/* Remove DIR (a cgroup pk_test_cgroup_make() made, its processes gone)
 * and its sub-directories, the deepest first. Unchecked. */
void pk_test_cgroup_remove(const char *dir);

/* Unchecked teardown, in the runner: the cgroups under MOUNT of tests
 * that have exited. */
void pk_test_cgroup_sweep(const char *mount);

#endif
