// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mountinfo.h"
#include "lib/overlay.h"
#include "lib/proc_maps.h"

/* PATH is MP or below it: the rest of it in *REL ("" or "/..."). */
static bool below(const char *path, const char *mp, const char **rel)
{
	size_t n = strlen(mp);

	if (!strcmp(mp, "/")) {
		*rel = path;
		return true;
	}
	if (strncmp(path, mp, n) || (path[n] && path[n] != '/'))
		return false;
	*rel = path + n;
	return true;
}

/* The mount that holds PATH: the longest mount point above it, the last
 * mounted of equal ones, into *BEST (its line the caller frees). */
static int holding_mount(const char *mountinfo, const char *path, struct pk_mount *best)
{
	const char *line = mountinfo, *rel;

	memset(best, 0, sizeof(*best));
	while (*line) {
		size_t len = strcspn(line, "\n");
		struct pk_mount m = { .line = strndup(line, len) };

		if (!m.line) {
			free(best->line);
			return -ENOMEM;
		}
		if (pk_mount_parse(m.line, &m) && below(path, m.point, &rel) &&
		    strlen(m.point) >= (best->point ? strlen(best->point) : 0)) {
			free(best->line);
			*best = m;
		} else {
			free(m.line);
		}
		line += len + (line[len] == '\n');
	}
	return best->line ? 0 : -ENOENT;
}

/* LAYER/ROOT-relative REL exists: its path in BUF and its stat in *ST. */
static int try_layer(const char *layer, const char *rel, char *buf, size_t len,
		     struct stat *st)
{
	int n = snprintf(buf, len, "%s%s", layer, rel);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return stat(buf, st) ? -ENOENT : 0;
}

/* The next folder of a lowerdir= list at *P (':'-separated, "\:" a colon
 * of a name), ended in place; NULL at the end of the list or at "::",
 * after which come data-only layers, which no path shows. */
static char *next_lower(char **p)
{
	char *dir = *p, *w = dir, *r;

	if (!dir || !*dir)
		return NULL;
	for (r = dir; *r && *r != ':'; r++) {
		if (r[0] == '\\' && r[1])
			r++;
		*w++ = *r;
	}
	*p = *r == ':' && r[1] != ':' ? r + 1 : NULL;
	*w = '\0';
	return dir;
}

/* Each layer of OPTIONS, top first: upperdir, then the lower layers in
 * order, from lowerdir's list or the lowerdir+ options of the new mount
 * API (one folder each). */
static int find_in_layers(char *options, const char *rel, char *buf, size_t len,
			  struct stat *st)
{
	char *save = NULL, *opt, *upper = NULL, *list = NULL, **lowers = NULL, *dir;
	size_t nlow = 0;
	int ret = -ENOENT;

	for (opt = strtok_r(options, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		pk_mount_unescape(opt);
		if (!strncmp(opt, "upperdir=", 9)) {
			upper = opt + 9;
		} else if (!strncmp(opt, "lowerdir=", 9)) {
			list = opt + 9;
		} else if (!strncmp(opt, "lowerdir+=", 10)) {
			char **v = realloc(lowers, (nlow + 1) * sizeof(*v));

			if (!v) {
				free(lowers);
				return -ENOMEM;
			}
			lowers = v;
			lowers[nlow++] = opt + 10;
		}
	}
	if (upper)
		ret = try_layer(upper, rel, buf, len, st);
	while (ret == -ENOENT && (dir = next_lower(&list)))
		ret = try_layer(dir, rel, buf, len, st);
	for (size_t i = 0; ret == -ENOENT && i < nlow; i++)
		ret = try_layer(lowers[i], rel, buf, len, st);
	free(lowers);
	return ret;
}

int pk_overlay_layer_file_in(const char *mountinfo, const char *path, char *buf, size_t len,
			     struct stat *st)
{
	struct pk_mount m;
	const char *rel;
	char *relpath;
	int ret = holding_mount(mountinfo, path, &m);

	if (ret)
		return ret;
	if (strcmp(m.fstype, "overlay") || !below(path, m.point, &rel)) {
		free(m.line);
		return -ENOENT;
	}
	/* a bind mount of a folder of the overlay: ROOT is that folder */
	if (asprintf(&relpath, "%s%s", strcmp(m.root, "/") ? m.root : "", rel) < 0) {
		free(m.line);
		return -ENOMEM;
	}
	ret = find_in_layers((char *)m.options, relpath, buf, len, st);
	free(relpath);
	free(m.line);
	return ret;
}

int pk_overlay_layer_file(const char *path, char *buf, size_t len, struct stat *st)
{
	char *text;
	size_t n;
	int ret = pk_proc_text_read("/proc/self/mountinfo", &text, &n);

	if (ret)
		return ret;
	ret = pk_overlay_layer_file_in(text, path, buf, len, st);
	free(text);
	return ret;
}

bool pk_path_is_inode(const char *path, dev_t dev, ino_t ino)
{
	char layer[4096];
	struct stat st;

	if (stat(path, &st))
		return false;
	if (st.st_dev == dev && st.st_ino == ino)
		return true;
	return !pk_overlay_layer_file(path, layer, sizeof(layer), &st) && st.st_dev == dev &&
	       st.st_ino == ino;
}
