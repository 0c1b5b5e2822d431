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
#include <stddef.h>

#include "eh_frame/errmsg.h"

struct pk_cgroup {
	__u64 id;
	__u32 level;
};

/* The first cgroup2 mount of MOUNTINFO's text: where it is mounted into
 * POINT and its root in the hierarchy into ROOT. 0, -ENOENT where none is
 * (a cgroup v1 only host), -ENOMEM. */
int pk_cgroup2_mount(const char *mountinfo, char *point, size_t plen, char *root, size_t rlen);
/* Where this process sees the cgroup2 mount (/proc/self/mountinfo) into
 * POINT: 0, -ENOENT where none is, or the -errno of reading mountinfo. */
int pk_cgroup2_point(char *point, size_t plen);

/* What a cgroup v1 only host lacks, for the options that need cgroup v2
 * (WHAT, "--cgroup" or "--per-cgroup") to say so in one line. */
#define PK_CGROUP_V1_ONLY \
	"no cgroup v2 file system is mounted (a cgroup v1 only host): %s needs cgroup v2, " \
	"where the kernel names a task's cgroup by an id (mount one: mount -t cgroup2 none /sys/fs/cgroup/unified)"

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
