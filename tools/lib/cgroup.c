// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "lib/cgroup.h"
#include "lib/mountinfo.h"
#include "lib/proc_maps.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

/* The '/'-separated names of PATH, "/" and "" none. */
static __u32 depth(const char *path)
{
	__u32 n = 0;

	for (const char *p = path; *p; p++)
		if (*p != '/' && (p == path || p[-1] == '/'))
			n++;
	return n;
}

int pk_cgroup2_mount(const char *mountinfo, char *point, size_t plen, char *root, size_t rlen)
{
	const char *line = mountinfo;

	while (*line) {
		size_t len = strcspn(line, "\n");
		char *copy = strndup(line, len);
		struct pk_mount m;
		bool found;

		if (!copy)
			return -ENOMEM;
		found = pk_mount_parse(copy, &m) && !strcmp(m.fstype, "cgroup2");
		if (found) {
			snprintf(point, plen, "%s", m.point);
			snprintf(root, rlen, "%s", m.root);
		}
		free(copy);
		if (found)
			return 0;
		line += len + (line[len] == '\n');
	}
	return -ENOENT;
}

int pk_cgroup2_point(char *point, size_t plen)
{
	char root[PATH_MAX], *mountinfo;
	size_t n;
	int ret = pk_proc_text_read("/proc/self/mountinfo", &mountinfo, &n);

	if (ret)
		return ret;
	ret = pk_cgroup2_mount(mountinfo, point, plen, root, sizeof(root));
	free(mountinfo);
	return ret;
}

int pk_cgroup_resolve(const char *path, const char *mountinfo, struct pk_cgroup *cg,
		      char err[PK_ERR_LEN])
{
	char point[PATH_MAX], root[PATH_MAX], full[2 * PATH_MAX], real[PATH_MAX];
	char *own = NULL;
	struct statfs sf;
	struct stat st;
	size_t n;
	int ret;

	if (!mountinfo) {
		ret = pk_proc_text_read("/proc/self/mountinfo", &own, &n);
		if (ret)
			return pk_err(err, ret, "--cgroup %s: cannot read /proc/self/mountinfo: %s",
				      path, strerror(-ret));
		mountinfo = own;
	}
	ret = pk_cgroup2_mount(mountinfo, point, sizeof(point), root, sizeof(root));
	free(own);
	if (ret == -ENOENT)
		return pk_err(err, ret, "--cgroup %s: " PK_CGROUP_V1_ONLY, path, "--cgroup");
	if (ret)
		return pk_err(err, ret, "out of memory");
	/* absolute and below the mount, or relative to it */
	n = strlen(point);
	if (path[0] == '/' && (!strncmp(path, point, n) && (path[n] == '/' || !path[n])))
		snprintf(full, sizeof(full), "%s", path);
	else
		snprintf(full, sizeof(full), "%s/%s", point, path + (path[0] == '/'));
	if (!realpath(full, real) || stat(real, &st))
		return pk_err(err, -ENOENT, "--cgroup %s: %s: %s", path, full, strerror(errno));
	if (!S_ISDIR(st.st_mode) || statfs(real, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC ||
	    strncmp(real, point, n) || (real[n] && real[n] != '/'))
		return pk_err(err, -ENOTDIR, "--cgroup %s: %s is no cgroup v2 directory under %s",
			      path, real, point);
	cg->id = st.st_ino;
	cg->level = depth(root) + depth(real + n);
	return 0;
}
