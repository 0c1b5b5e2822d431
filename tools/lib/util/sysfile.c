// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/util/sysfile.h"

int pk_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool read;

	if (!f)
		return -errno;
	read = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!read)
		return -EIO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}
