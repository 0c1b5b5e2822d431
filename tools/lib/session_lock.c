// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "lib/session.h"
#include "lib/session_lock.h"

/* A flock names no owner that fcntl(F_GETLK) could report (and a POSIX
 * lock cannot be exclusive on a directory, which opens read-only): the
 * kernel lists every lock with its owner's pid in /proc/locks, as
 * "1: FLOCK  ADVISORY  WRITE 4242 00:29:1211213 0 EOF" (dev in hex). */
pid_t pk_flock_holder(int fd)
{
	char line[256], type[16], mode[16], rw[16];
	unsigned int maj, min;
	unsigned long ino;
	struct stat st;
	pid_t pid = 0;
	int n;
	FILE *f;

	if (fstat(fd, &st))
		return -errno;
	f = fopen("/proc/locks", "re");
	if (!f)
		return -errno;
	while (!pid && fgets(line, sizeof(line), f)) {
		/* "N: -> FLOCK ..." is a waiter, not the holder: %15s takes
		 * "->" as the type and the line does not match */
		if (sscanf(line, "%*d: %15s %15s %15s %d %x:%x:%lu", type, mode, rw, &n, &maj,
			   &min, &ino) != 7)
			continue;
		if (!strcmp(type, "FLOCK") && !strcmp(rw, "WRITE") && maj == major(st.st_dev) &&
		    min == minor(st.st_dev) && ino == st.st_ino)
			pid = n;
	}
	fclose(f);
	return pid;
}

int pk_session_lock_take(const char *pin_dir, pid_t *holder)
{
	char path[PATH_MAX];
	int fd, ret = pk_pin_path(path, sizeof(path), pin_dir, PK_PIN_LINKS_DIR);

	*holder = 0;
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
	if (ret == -EBUSY) {
		pid_t pid = pk_flock_holder(fd);

		*holder = pid > 0 ? pid : 0;
	}
	close(fd);
	return ret;
}

int pk_session_lock_unloaded(int lock_fd)
{
	struct stat st;

	/* --unload removes links/ once every link in it is unpinned: an
	 * rmdir'ed directory has no links left, however it is still held */
	if (fstat(lock_fd, &st))
		return -errno;
	return st.st_nlink == 0;
}
