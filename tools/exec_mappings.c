// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_mappings.h"

/* A process maps few distinct files (tens, rarely thousands), so a linear
 * duplicate check is cheaper than keeping a hash set. */
static bool contains(const struct exec_mappings *m, const char *path)
{
	for (int i = 0; i < m->n; i++)
		if (strcmp(m->paths[i], path) == 0)
			return true;
	return false;
}

static int add(struct exec_mappings *m, const char *path)
{
	char **p;

	if (contains(m, path))
		return 0;
	p = realloc(m->paths, (m->n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	m->paths = p;
	m->paths[m->n] = strdup(path);
	if (!m->paths[m->n])
		return -ENOMEM;
	m->n++;
	return 0;
}

int exec_mappings_parse(FILE *f, struct exec_mappings *out)
{
	char *line = NULL, perms[5];
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	memset(out, 0, sizeof(*out));
	while ((len = getline(&line, &cap, f)) > 0) {
		uint64_t start, end, off, inode;
		unsigned int major, minor;
		int path_at = 0;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		/* start-end perms offset major:minor inode [path]; the path
		 * is the rest of the line and may contain spaces. */
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
			   &start, &end, perms, &off, &major, &minor, &inode,
			   &path_at) < 7 || strlen(perms) != 4) {
			err = -EBADMSG;
			break;
		}
		if (perms[2] != 'x' || line[path_at] != '/')
			continue;
		err = add(out, line + path_at);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	if (err)
		exec_mappings_free(out);
	return err;
}

int exec_mappings_read(pid_t pid, struct exec_mappings *out)
{
	char path[64];
	FILE *f;
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = exec_mappings_parse(f, out);
	fclose(f);
	return err;
}

void exec_mappings_free(struct exec_mappings *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->paths[i]);
	free(m->paths);
	m->paths = NULL;
	m->n = 0;
}
