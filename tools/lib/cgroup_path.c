// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cgroup.h"
#include "lib/cgroup_path.h"

int pk_cgroup_paths_init(struct pk_cgroup_paths *c, const char *root)
{
	char point[PATH_MAX];
	int ret;

	*c = (struct pk_cgroup_paths){ 0 };
	if (!root) {
		ret = pk_cgroup2_point(point, sizeof(point));
		/* unreadable mountinfo or no cgroup2: no names */
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			return 0;
		root = point;
	}
	c->root = strdup(root);
	return c->root ? 0 : -ENOMEM;
}

void pk_cgroup_paths_free(struct pk_cgroup_paths *c)
{
	free(c->root);
	pk_u64map_free(&c->ids);
	pk_strpool_free(&c->strs);
	*c = (struct pk_cgroup_paths){ 0 };
}

/* Remember the directory REL (relative to the root, "" the root itself) as
 * the id ST_INO, unless it is known. */
static int note(struct pk_cgroup_paths *c, __u64 id, const char *rel)
{
	const char *s;

	if (pk_u64map_get(&c->ids, id))
		return 0;
	s = pk_strpool_add(&c->strs, rel[0] ? rel : "/");
	return s ? pk_u64map_put(&c->ids, id, (void *)s) : -ENOMEM;
}

/*
 * Every directory below FD_DIR (REL, LEN bytes, relative to the
 * root) noted by its inode number. A directory removed or unreadable
 * meanwhile is skipped: cgroups come and go while the tree is walked.
 */
static int walk(struct pk_cgroup_paths *c, int fd_dir, char *rel, size_t len)
{
	DIR *d = fdopendir(fd_dir);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		close(fd_dir);
		return 0;
	}
	while (!ret && (e = readdir(d))) {
		struct stat st;
		size_t nlen = strlen(e->d_name);
		int fd;

		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (len + 1 + nlen >= PATH_MAX)
			continue;	/* deeper than a path can name */
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st)) {
			close(fd);
			continue;
		}
		rel[len] = '/';
		memcpy(rel + len + 1, e->d_name, nlen + 1);
		ret = note(c, st.st_ino, rel);
		if (!ret)
			ret = walk(c, fd, rel, len + 1 + nlen);
		else
			close(fd);
		rel[len] = '\0';
	}
	closedir(d);
	return ret;
}

static int walk_root(struct pk_cgroup_paths *c)
{
	char rel[PATH_MAX] = "";
	struct stat st;
	int fd;

	c->walks++;
	fd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st)) {
		close(fd);
		return 0;
	}
	if (note(c, st.st_ino, "")) {
		close(fd);
		return -ENOMEM;
	}
	return walk(c, fd, rel, 0);
}

const char *pk_cgroup_path(struct pk_cgroup_paths *c, __u64 id)
{
	const char *s = pk_u64map_get(&c->ids, id);

	if (s)
		return s;
	/* a cgroup made since the last walk, or one gone for good: the
	 * latter is remembered by its number, not walked for again */
	if (c->root && walk_root(c))
		return NULL;
	s = pk_u64map_get(&c->ids, id);
	if (s)
		return s;
	s = pk_strpool_printf(&c->strs, "cgroup:%llu", (unsigned long long)id);
	if (!s || pk_u64map_put(&c->ids, id, (void *)s))
		return NULL;
	return s;
}
