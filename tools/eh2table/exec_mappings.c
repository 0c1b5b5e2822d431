// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eh2table/exec_mappings.h"

/* A process maps few distinct files (tens, rarely thousands), so a linear
 * duplicate check is cheaper than keeping a hash set. */
static bool contains(const struct pk_exec_mappings *m, const char *path)
{
	for (int i = 0; i < m->n; i++)
		if (strcmp(m->paths[i], path) == 0)
			return true;
	return false;
}

int pk_exec_mappings_from(const struct pk_maps *maps, struct pk_exec_mappings *out)
{
	memset(out, 0, sizeof(*out));
	/* at most one path per mapping: one allocation, not one per path */
	out->paths = calloc(maps->n ? maps->n : 1, sizeof(*out->paths));
	if (!out->paths)
		return -ENOMEM;
	for (size_t i = 0; i < maps->n; i++) {
		const struct pk_mapping *m = &maps->v[i];
		char *path;

		if (m->kind != PK_MAP_FILE || !(m->perms & PK_MAP_X))
			continue;
		if (asprintf(&path, "%s%s", m->name, m->deleted ? " (deleted)" : "") < 0)
			goto nomem;
		if (contains(out, path))
			free(path);
		else
			out->paths[out->n++] = path;
	}
	return 0;
nomem:
	pk_exec_mappings_free(out);
	return -ENOMEM;
}

int pk_exec_mappings_read(pid_t pid, struct pk_exec_mappings *out)
{
	struct pk_maps maps;
	int err;

	memset(out, 0, sizeof(*out));
	err = pk_maps_read(NULL, pid, true, &maps);
	if (err)
		return err;
	err = pk_exec_mappings_from(&maps, out);
	pk_maps_free(&maps);
	return err;
}

void pk_exec_mappings_free(struct pk_exec_mappings *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->paths[i]);
	free(m->paths);
	m->paths = NULL;
	m->n = 0;
}
