/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A sample's cgroup id (bpf/probekit.h pk_sample.cgroup_id) back to the
 * cgroup's path relative to the cgroup2 mount ("/system.slice/foo.service",
 * "/" the mount's root), for probe-read --per-cgroup and pprof's labels.
 * The id is the directory's inode number (lib/cgroup.h): the tree under the
 * mount is walked once for every id not seen yet, every directory found
 * remembered. An id no directory has (the cgroup was removed before it was
 * looked up) is named "cgroup:ID". Where no cgroup2 is mounted (a cgroup
 * v1 only host) root is NULL: the ids there name no directory (every task
 * is in the v2 hierarchy's root) and the reader names none.
 */
#ifndef PK_CGROUP_PATH_H
#define PK_CGROUP_PATH_H

#include <linux/types.h>

#include "lib/util/strpool.h"
#include "lib/util/u64map.h"

struct pk_cgroup_paths {
	char *root;		/* the tree walked; NULL: none (cgroup v1 only) */
	struct pk_u64map ids;	/* id -> const char * in strs */
	struct pk_strpool strs;
	unsigned int walks;	/* times the tree was walked (tests) */
};

/* *C over the tree at ROOT (a cgroup2 mount point, or any directory tree
 * in tests); NULL: the cgroup2 mount of /proc/self/mountinfo, C->root
 * NULL when there is none. 0 or -ENOMEM. */
int pk_cgroup_paths_init(struct pk_cgroup_paths *c, const char *root);
void pk_cgroup_paths_free(struct pk_cgroup_paths *c);

/* The path of the cgroup ID ("/", "/a/b"), or "cgroup:ID" when no
 * directory under the root has it; valid until pk_cgroup_paths_free. NULL
 * only out of memory. */
const char *pk_cgroup_path(struct pk_cgroup_paths *c, __u64 id);

#endif
