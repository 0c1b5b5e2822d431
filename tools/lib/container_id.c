// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

#include "lib/container_id.h"

/* The runtimes' prefixes of a container's own scope. A prefix that also
 * names a helper's scope ("crio-conmon-ID", "libpod-conmon-ID") fails
 * the id's hex check. */
static const char *const scope_prefixes[] = {
	"docker-", "cri-containerd-", "crio-", "libpod-",
};

/* Whether S[0..LEN) is an id: PK_CONTAINER_ID_LEN lowercase hex digits. */
static bool is_id(const char *s, size_t len)
{
	if (len != PK_CONTAINER_ID_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* Whether the component C (LEN bytes) of PATH, whose parent is P (PLEN
 * bytes; NULL: none), names a container: its id at *ID_AT. */
static bool component_id(const char *path, const char *c, size_t len, const char *p,
			 size_t plen, const char **id_at)
{
	size_t n = len;

	if (n > 6 && !memcmp(c + n - 6, ".scope", 6))
		n -= 6;
	for (size_t i = 0; i < sizeof(scope_prefixes) / sizeof(scope_prefixes[0]); i++) {
		size_t pn = strlen(scope_prefixes[i]);

		if (starts(c, n, scope_prefixes[i]) && is_id(c + pn, n - pn)) {
			*id_at = c + pn;
			return true;
		}
	}
	if (!p || !is_id(c, len))
		return false;
	/* /docker/ID; kubepods/.../podUID/ID */
	if ((plen == 6 && !memcmp(p, "docker", 6)) ||
	    (starts(p, plen, "pod") && memmem(path, (size_t)(p - path), "kubepods", 8))) {
		*id_at = c;
		return true;
	}
	return false;
}

bool pk_container_id(const char *path, char id[PK_CONTAINER_ID_LEN + 1])
{
	size_t end = strlen(path);

	id[0] = '\0';
	/* the innermost first: a container's own sub-cgroups are in it */
	while (end > 0) {
		size_t start = end, pend, pstart;
		const char *id_at;

		while (start > 0 && path[start - 1] != '/')
			start--;
		pend = start;
		while (pend > 0 && path[pend - 1] == '/')
			pend--;
		pstart = pend;
		while (pstart > 0 && path[pstart - 1] != '/')
			pstart--;
		if (end > start && component_id(path, path + start, end - start,
						 pend > pstart ? path + pstart : NULL,
						 pend - pstart, &id_at)) {
			memcpy(id, id_at, PK_CONTAINER_ID_LEN);
			id[PK_CONTAINER_ID_LEN] = '\0';
			return true;
		}
		end = pend;
	}
	return false;
}
