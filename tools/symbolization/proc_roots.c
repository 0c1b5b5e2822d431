// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util/array.h"
#include "symbolization/proc_roots.h"

struct root {
	dev_t dev;
	ino_t ino;
	int fd;			/* -1: no debug files there */
};

struct pk_proc_roots {
	char *proc_root;
	struct stat own;	/* our root: never added */
	bool own_known;
	struct root *v;
	size_t n, cap;
	char **dirs;		/* the caller's, then the roots' */
	size_t ndirs, dirs_cap;
};

static int add_dir(struct pk_proc_roots *r, const char *dir)
{
	char *copy;

	if (pk_array_reserve((void **)&r->dirs, &r->dirs_cap, sizeof(*r->dirs), r->ndirs + 1, 8))
		return -ENOMEM;
	copy = strdup(dir);
	if (!copy)
		return -ENOMEM;
	r->dirs[r->ndirs++] = copy;
	return 0;
}

struct pk_proc_roots *pk_proc_roots_new(const char *proc_root, const char *const *dirs,
					size_t n)
{
	static const char *const def[] = { "/usr/lib/debug" };
	struct pk_proc_roots *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->proc_root = strdup(proc_root ? proc_root : "/proc");
	if (!r->proc_root)
		goto fail;
	if (!dirs) {
		dirs = def;
		n = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (add_dir(r, dirs[i]))
			goto fail;
	r->own_known = stat("/", &r->own) == 0;
	return r;
fail:
	pk_proc_roots_free(r);
	return NULL;
}

/* The root held open as FD, added as see and see_dir say; FD is closed
 * unless kept. */
static int see_fd(struct pk_proc_roots *r, int fd)
{
	char dir[64];
	struct stat st, dst;
	struct root *root;
	int ret;

	if (fstat(fd, &st) ||
	    (r->own_known && st.st_dev == r->own.st_dev && st.st_ino == r->own.st_ino))
		goto none;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].dev == st.st_dev && r->v[i].ino == st.st_ino)
			goto none;
	if (r->n >= PK_PROC_ROOTS_MAX)
		goto none;
	if (pk_array_reserve((void **)&r->v, &r->cap, sizeof(*r->v), r->n + 1, 8)) {
		close(fd);
		return -ENOMEM;
	}
	root = &r->v[r->n++];
	*root = (struct root){ .dev = st.st_dev, .ino = st.st_ino, .fd = -1 };
	snprintf(dir, sizeof(dir), "/proc/self/fd/%d/usr/lib/debug", fd);
	if (stat(dir, &dst) || !S_ISDIR(dst.st_mode))
		goto none;	/* remembered: not looked at again */
	ret = add_dir(r, dir);
	if (ret)
		goto fail;
	root->fd = fd;
	return 1;
none:
	close(fd);
	return 0;
fail:
	close(fd);
	return ret;
}

int pk_proc_roots_see(struct pk_proc_roots *r, pid_t pid)
{
	char path[4096 + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/root", r->proc_root, (int)pid);
	/* held open first, then looked at: what is looked at is what is held
	 * (the process may exit, its pid be another's) */
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? 0 : see_fd(r, fd);
}

int pk_proc_roots_see_dir(struct pk_proc_roots *r, const char *dir)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? 0 : see_fd(r, fd);
}

const char *const *pk_proc_roots_dirs(const struct pk_proc_roots *r, size_t *n)
{
	*n = r->ndirs;
	return (const char *const *)r->dirs;
}

void pk_proc_roots_free(struct pk_proc_roots *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].fd >= 0)
			close(r->v[i].fd);
	for (size_t i = 0; i < r->ndirs; i++)
		free(r->dirs[i]);
	free(r->dirs);
	free(r->v);
	free(r->proc_root);
	free(r);
}
