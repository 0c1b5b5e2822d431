// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/output_file.h"

static int output_file_open(struct pk_output_file *out, const char *path, char err[PK_ERR_LEN])
{
	struct stat st;
	mode_t mask;
	int fd;

	out->path = path;
	out->tmp = NULL;
	if (!path) {
		out->f = stdout;
		return 0;
	}
	/* What would make the final rename fail: refused before reading. */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return pk_err(err, -EISDIR, "cannot write %s: %s", path, strerror(EISDIR));
	if (asprintf(&out->tmp, "%s.XXXXXX", path) < 0) {
		out->tmp = NULL;
		return pk_err(err, -ENOMEM, "out of memory");
	}
	fd = mkstemp(out->tmp);
	if (fd < 0) {
		int ret = -errno;

		free(out->tmp);
		out->tmp = NULL;
		return pk_err(err, ret, "cannot write %s: %s", path, strerror(-ret));
	}
	/* mkstemp creates 0600; give the file the mode a plain create would. */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	out->f = fdopen(fd, "w");
	if (!out->f) {
		close(fd);
		unlink(out->tmp);
		free(out->tmp);
		out->tmp = NULL;
		return pk_err(err, -ENOMEM, "out of memory");
	}
	return 0;
}

int pk_output_file_close(struct pk_output_file *out, bool commit, char err[PK_ERR_LEN])
{
	int ret = 0;

	if (!out->tmp) {
		out->f = NULL;
		return fflush(stdout) == 0 ? 0 : pk_err(err, -EIO, "cannot write the output: %s",
							 strerror(errno));
	}
	if (fclose(out->f) != 0 && commit)
		ret = pk_err(err, -errno, "cannot write %s: %s", out->path, strerror(errno));
	if (!ret && commit && rename(out->tmp, out->path) != 0)
		ret = pk_err(err, -errno, "cannot write %s: %s", out->path, strerror(errno));
	if (ret || !commit)
		unlink(out->tmp);
	free(out->tmp);
	out->tmp = NULL;
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
