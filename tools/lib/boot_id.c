// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/boot_id.h"
#include "lib/util/sysfile.h"

int pk_boot_id(char *buf, size_t len)
{
	return pk_boot_id_in(NULL, buf, len);
}

int pk_boot_id_in(const char *proc_root, char *buf, size_t len)
{
	char path[4096];
	int ret;

	if (snprintf(path, sizeof(path), "%s/sys/kernel/random/boot_id",
		     proc_root ? proc_root : "/proc") >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = pk_read_line(path, buf, len);
	if (ret)
		return ret;
	/* a file name part: a UUID's 36 characters, never a path */
	if (strlen(buf) < 32 || strchr(buf, '/'))
		return -EINVAL;
	return 0;
}

void pk_boot_prune(const char *dir, const char *suffix, const char *boot)
{
	size_t slen = strlen(suffix), blen = strlen(boot);
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > slen && !strcmp(de->d_name + len - slen, suffix) &&
		    strncmp(de->d_name, boot, blen))
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
}
