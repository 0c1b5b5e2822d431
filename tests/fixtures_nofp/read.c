// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers, time in the kernel: main -> reader -> read_chunk ->
 * read(2) of /dev/zero in 1 MiB chunks (the kernel clears the user buffer).
 * Usage: read SECONDS
 */
#include <fcntl.h>
#include <unistd.h>

#include "nofp.h"

static char buf[1 << 20];

NOFP_FN void read_chunk(int fd)
{
	if (read(fd, buf, sizeof(buf)) < 0)
		exit(1);
	NOFP_AFTER_CALL();
}

NOFP_FN void reader(int fd)
{
	volatile char pad[56];

	pad[0] = 1;
	while (!nofp_stop)
		read_chunk(fd);
	nofp_sink += pad[0];
}

int main(int argc, char **argv)
{
	int fd = open("/dev/zero", O_RDONLY);

	nofp_arm(argc, argv, 1, "read SECONDS");
	if (fd < 0)
		return 1;
	reader(fd);
	NOFP_AFTER_CALL();
	return 0;
}
