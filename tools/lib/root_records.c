// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/root_records.h"

int pk_root_records_create(void)
{
	/* not preallocated: most sessions record no root at all */
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "pk_roots", sizeof(__u32),
				sizeof(struct pk_root_record), PK_ROOT_RECORDS_MAX, &o);

	return fd < 0 ? -errno : fd;
}

int pk_proc_root_find(const char *proc, pid_t pid, struct pk_root_record *out)
{
	char link[4096 + 32];
	struct stat root, own, at;
	ssize_t n;
	int fd;

	snprintf(link, sizeof(link), "%s/%d/root", proc ? proc : "/proc", (int)pid);
	/* held while looked at: what is compared is what was read */
	fd = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = readlink(link, out->path, sizeof(out->path) - 1);
	if (n < 0 || fstat(fd, &root) || stat("/", &own)) {
		close(fd);
		return errno == ENOENT ? -ESRCH : -errno;
	}
	close(fd);
	out->path[n] = '\0';
	if (root.st_dev == own.st_dev && root.st_ino == own.st_ino)
		return 0;	/* ours */
	/* the kernel gives a root ours does not reach relative to its own
	 * mounts: then the path is another directory, or none */
	if (out->path[0] != '/' || stat(out->path, &at) || at.st_dev != root.st_dev ||
	    at.st_ino != root.st_ino)
		return 0;
	return 1;
}

int pk_root_records_put(int fd, const char *proc, pid_t pid)
{
	struct pk_root_record rec = {};
	__u32 key = (__u32)pid;
	int ret = pk_proc_root_find(proc, pid, &rec);

	if (ret <= 0)
		return ret;
	if (bpf_map_update_elem(fd, &key, &rec, BPF_ANY))
		return -errno;
	return 1;
}

int pk_root_records_get(int fd, pid_t pid, struct pk_root_record *out)
{
	__u32 key = (__u32)pid;

	if (bpf_map_lookup_elem(fd, &key, out))
		return -errno;
	out->path[sizeof(out->path) - 1] = '\0';
	return out->path[0] == '/' ? 0 : -ENOENT;
}
