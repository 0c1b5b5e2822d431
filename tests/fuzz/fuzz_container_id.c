// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pk_container_id() takes a cgroup's path, which whoever made the cgroup
 * named. Whatever the bytes: an id, when found, is 64 lowercase hex digits
 * that occur in the path; none leaves the id empty.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/container_id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *path = malloc(size + 1), id[PK_CONTAINER_ID_LEN + 1];
	bool found;

	if (!path)
		abort();
	memcpy(path, data, size);
	path[size] = '\0';
	found = pk_container_id(path, id);
	if (!found && id[0])
		abort();
	if (found) {
		if (strlen(id) != PK_CONTAINER_ID_LEN || !strstr(path, id))
			abort();
		for (size_t i = 0; i < PK_CONTAINER_ID_LEN; i++)
			if (!strchr("0123456789abcdef", id[i]))
				abort();
	}
	free(path);
	return 0;
}
