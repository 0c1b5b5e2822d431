// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "output/output_file.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

/* As the kernel's path walk, so that a loop fails here as open() would. */
#define MAX_LINKS 40

/* Whether the directory holding PATH is in procfs: a link there
 * (/proc/self/fd/N, and so /dev/stdout) names an open file, whatever path
 * its text shows ("pipe:[123]", a deleted file's, a terminal's). */
static bool in_procfs(const char *path)
{
	char *copy = strdup(path);
	struct statfs sf;
	bool ret;

	if (!copy)
		return false;
	ret = statfs(dirname(copy), &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
	free(copy);
	return ret;
}

/* The text of the link LINK, as a path from the current directory: a
 * relative target is taken from the link's own directory. NULL: -errno in
 * *RET. */
static char *link_target(const char *link, int *ret)
{
	char text[PATH_MAX], *dir, *path = NULL;
	ssize_t n = readlink(link, text, sizeof(text) - 1);

	if (n < 0) {
		*ret = -errno;
		return NULL;
	}
	text[n] = '\0';
	if (text[0] == '/') {
		path = strdup(text);
	} else if ((dir = strdup(link))) {
		if (asprintf(&path, "%s/%s", dirname(dir), text) < 0)
			path = NULL;
		free(dir);
	}
	*ret = path ? 0 : -ENOMEM;
	return path;
}

/*
 * What -o PATH writes. Only a regular file, or a name with nothing behind
 * it yet, is written beside and renamed over once complete; the rename
 * replaces the name's last link, so PATH's symbolic links are followed to
 * it first (*TARGET: that path). Anything else (a device, a FIFO, a socket,
 * an open file named through /proc) is written in place (*TARGET NULL):
 * renaming over it would replace the device or pipe a reader waits on.
 * 0 or -errno.
 */
static int output_target(const char *path, char **target)
{
	char *cur = strdup(path), *next;
	int ret = -ENOMEM, links = 0;
	struct stat st;

	*target = NULL;
	while (cur) {
		if (lstat(cur, &st) != 0) {
			ret = -errno;
			if (ret == -ENOENT) {	/* the rename creates it */
				*target = cur;
				return 0;
			}
			break;
		}
		ret = 0;
		if (!S_ISLNK(st.st_mode) || in_procfs(cur))
			break;
		if (++links > MAX_LINKS) {
			ret = -ELOOP;
			break;
		}
		next = link_target(cur, &ret);
		free(cur);
		cur = next;
	}
	if (!ret && S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (!ret && S_ISREG(st.st_mode))
		*target = cur;
	if (!*target)
		free(cur);
	return ret;
}

static int output_file_open(struct pk_output_file *out, const char *path, char err[PK_ERR_LEN])
{
	mode_t mask;
	int fd, ret;

	out->path = path;
	out->tmp = NULL;
	out->target = NULL;
	if (!path) {
		out->f = stdout;
		return 0;
	}
	ret = output_target(path, &out->target);
	if (ret)
		return pk_err(err, ret, "cannot write %s: %s", path, strerror(-ret));
	if (!out->target) {
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	} else if (asprintf(&out->tmp, "%s.XXXXXX", out->target) < 0) {
		out->tmp = NULL;
		fd = -1;
		errno = ENOMEM;
	} else if ((fd = mkstemp(out->tmp)) >= 0) {
		/* mkstemp creates 0600; give the file the mode a plain create
		 * would. */
		mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	if (fd >= 0 && !(out->f = fdopen(fd, "w"))) {
		close(fd);
		fd = -1;
		errno = ENOMEM;
		if (out->tmp)
			unlink(out->tmp);
	}
	if (fd < 0) {
		ret = -errno;
		free(out->tmp);
		free(out->target);
		out->tmp = out->target = NULL;
		return pk_err(err, ret, "cannot write %s: %s", path, strerror(-ret));
	}
	return 0;
}

int pk_output_file_close(struct pk_output_file *out, bool commit, char err[PK_ERR_LEN])
{
	int ret = 0;

	if (!out->path) {
		out->f = NULL;
		return fflush(stdout) == 0 ? 0 : pk_err(err, -EIO, "cannot write the output: %s",
							 strerror(errno));
	}
	if (fclose(out->f) != 0 && commit)
		ret = pk_err(err, -errno, "cannot write %s: %s", out->path, strerror(errno));
	if (out->tmp) {
		if (!ret && commit && rename(out->tmp, out->target) != 0)
			ret = pk_err(err, -errno, "cannot write %s: %s", out->path,
				     strerror(errno));
		if (ret || !commit)
			unlink(out->tmp);
	}
	free(out->tmp);
	free(out->target);
	out->tmp = out->target = NULL;
	out->f = NULL;
	return ret;
}

int pk_output_files_open(struct pk_output_file *outs, size_t n, const char *const *paths,
			 char err[PK_ERR_LEN])
{
	int ret;

	for (size_t i = 0; i < n; i++) {
		ret = output_file_open(&outs[i], paths[i], err);
		if (ret) {
			while (i-- > 0)
				pk_output_file_close(&outs[i], false, err);
			return ret;
		}
	}
	return 0;
}

void pk_output_files_discard(struct pk_output_file *outs, size_t n)
{
	char ignored[PK_ERR_LEN];

	for (size_t i = 0; i < n; i++)
		if (outs[i].f)
			pk_output_file_close(&outs[i], false, ignored);
}
