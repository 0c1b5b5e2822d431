// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util/array.h"
#include "output/retention.h"

/* What -o holds to be one file per event (reading/read_options.h's
 * PK_READ_EVENT_FIELD: output/ may not include reading/). */
#define EVENT_FIELD	"{event}"

int pk_retention_glob(const char *pattern, char *buf, size_t len)
{
	size_t n = 0;

	for (const char *p = pattern; *p; p++) {
		char add[2] = { *p, 0 }, esc[3] = { '\\', *p, 0 };
		const char *s = add;

		if (*p == '%') {
			/* %E and %O modify the conversion after them */
			p += p[1] == 'E' || p[1] == 'O';
			if (!p[1])
				return -EINVAL;
			s = *++p == '%' ? "%" : "*";
		} else if (!strncmp(p, EVENT_FIELD, strlen(EVENT_FIELD))) {
			p += strlen(EVENT_FIELD) - 1;
			s = "*";
		} else if (strchr("*?[]\\", *p)) {
			s = esc;	/* glob's own: matched as itself */
		}
		/* two '*' in a row match what one does */
		if (!strcmp(s, "*") && n && buf[n - 1] == '*' && (n < 2 || buf[n - 2] != '\\'))
			continue;
		if (n + strlen(s) >= len)
			return -EINVAL;
		memcpy(buf + n, s, strlen(s));
		n += strlen(s);
	}
	if (!n)
		return -EINVAL;
	buf[n] = '\0';
	return 0;
}

struct kept_file {
	char *path;		/* glob's */
	size_t pattern;
	struct timespec mtime;
	unsigned long long bytes;
	bool written;		/* one of this interval's: kept */
};

static bool is_written(const struct stat *st, const char *const *written, size_t n)
{
	struct stat w;

	for (size_t i = 0; i < n; i++)
		if (written[i] && !stat(written[i], &w) && w.st_dev == st->st_dev &&
		    w.st_ino == st->st_ino)
			return true;
	return false;
}

/* Oldest first; the same time by name, which the patterns order by time. */
static int by_age(const void *a, const void *b)
{
	const struct kept_file *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->path, y->path);
}

int pk_retention_apply(const char *const *patterns, size_t n, const char *const *written,
		       size_t nwritten, const struct pk_retention *r, char err[PK_ERR_LEN])
{
	struct kept_file *files = NULL;
	size_t nfiles = 0, cap = 0, *count = calloc(n ? n : 1, sizeof(*count));
	unsigned long long total = 0;
	glob_t *globs = calloc(n ? n : 1, sizeof(*globs));
	char pat[4096];
	int ret = 0, removed = 0;

	if (!count || !globs) {
		ret = pk_err(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		int g;

		if (pk_retention_glob(patterns[i], pat, sizeof(pat))) {
			ret = pk_err(err, -EINVAL, "-o '%s': no glob for its files", patterns[i]);
			break;
		}
		g = glob(pat, GLOB_NOSORT, NULL, &globs[i]);
		if (g == GLOB_NOMATCH)
			continue;
		if (g) {
			ret = pk_err(err, g == GLOB_NOSPACE ? -ENOMEM : -EIO,
				     "cannot list the files of -o '%s'", patterns[i]);
			break;
		}
		for (size_t j = 0; j < globs[i].gl_pathc; j++) {
			struct stat st;

			if (lstat(globs[i].gl_pathv[j], &st) || !S_ISREG(st.st_mode))
				continue;
			if (pk_array_reserve((void **)&files, &cap, sizeof(*files), nfiles + 1, 64)) {
				ret = pk_err(err, -ENOMEM, "out of memory");
				break;
			}
			files[nfiles++] = (struct kept_file){
				globs[i].gl_pathv[j], i, st.st_mtim, (unsigned long long)st.st_size,
				is_written(&st, written, nwritten) };
			count[i]++;
			total += st.st_size;
		}
	}
	if (ret)
		goto out;
	if (nfiles)
		qsort(files, nfiles, sizeof(*files), by_age);
	for (size_t k = 0; k < nfiles; k++) {
		struct kept_file *f = &files[k];
		bool over = (r->files && count[f->pattern] > r->files) ||
			    (r->bytes && total > r->bytes);

		if (!over || f->written)
			continue;
		if (unlink(f->path) && errno != ENOENT) {
			if (!ret)
				ret = pk_err(err, -errno, "cannot remove %s: %s", f->path,
					     strerror(errno));
			continue;
		}
		count[f->pattern]--;
		total -= f->bytes;
		removed++;
	}
out:
	for (size_t i = 0; globs && i < n; i++)
		globfree(&globs[i]);
	free(globs);
	free(count);
	free(files);
	return ret ? ret : removed;
}
