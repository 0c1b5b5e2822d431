/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cgroup v2 directories as BPF tells them apart (probe-load --cgroup): a
 * task is in a cgroup or below it when its ancestor at the cgroup's level
 * (bpf_get_current_ancestor_cgroup_id) has the cgroup's id. The id is the
 * directory's inode number in the cgroup2 file system (kernfs numbers its
 * nodes by their cgroup ids), the level its depth in the hierarchy, the
 * root's 0.
 */
#ifndef PK_CGROUP_H
#define PK_CGROUP_H

#include <linux/types.h>

#include "eh_frame/errmsg.h"

struct pk_cgroup {
	__u64 id;
	__u32 level;
};

/*
 * PATH, a cgroup v2 directory, absolute or relative to the cgroup2 mount
 * ("system.slice/docker-ID.scope"), into *CG. The mount is the first
 * cgroup2 one of MOUNTINFO's text (NULL: /proc/self/mountinfo), the level
 * counted from the hierarchy's root (a mount of a sub-tree, in a cgroup
 * namespace, starts below it). 0, or -errno with one line in ERR: -ENOENT
 * where no cgroup2 is mounted (a cgroup v1 only host) or PATH is none,
 * -ENOTDIR where it is no cgroup v2 directory.
 */
int pk_cgroup_resolve(const char *path, const char *mountinfo, struct pk_cgroup *cg,
		      char err[PK_ERR_LEN]);

#endif
