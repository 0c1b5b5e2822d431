// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/overlay.h"
#include "lib/proc_maps.h"

/* mountinfo's fields escape space, tab, newline, backslash (and, in
 * overlay's options, ',' and '=') as \NNN octal: undone in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

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
 * mounted of equal ones. Its fields in LINE (a copy the caller frees). */
struct mount {
	char *line;
	const char *root, *point, *fstype, *options;
	size_t depth;
};

static bool parse_mount(char *line, struct mount *m)
{
	char *f[6], *save = NULL, *p;
	int n = 0;

	for (p = strtok_r(line, " ", &save); p && n < 6; p = strtok_r(NULL, " ", &save))
		f[n++] = p;
	if (n < 6)
		return false;
	/* optional fields, then "-", then type, source, super options */
	while (p && strcmp(p, "-"))
		p = strtok_r(NULL, " ", &save);
	if (!p || !(m->fstype = strtok_r(NULL, " ", &save)) || !strtok_r(NULL, " ", &save) ||
	    !(m->options = strtok_r(NULL, " \n", &save)))
		return false;
	m->root = f[3];
	m->point = f[4];
	unescape(f[3]);
	unescape(f[4]);
	return true;
}

static int holding_mount(const char *mountinfo, const char *path, struct mount *best)
{
	const char *line = mountinfo, *rel;

	memset(best, 0, sizeof(*best));
	while (*line) {
		size_t len = strcspn(line, "\n");
		struct mount m = { .line = strndup(line, len) };

		if (!m.line) {
			free(best->line);
			return -ENOMEM;
		}
		if (parse_mount(m.line, &m) && below(path, m.point, &rel) &&
		    (m.depth = strlen(m.point)) >= best->depth) {
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
		unescape(opt);
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
	struct mount m;
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
