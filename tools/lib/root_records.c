// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/mountinfo.h"
#include "lib/overlay.h"
#include "lib/proc_status.h"
#include "lib/root_records.h"

int pk_root_records_create(void)
{
	/* not preallocated: most sessions record no root at all */
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "pk_roots", sizeof(__u32),
				sizeof(struct pk_root_record), PK_ROOT_RECORDS_MAX, &o);

	return fd < 0 ? -errno : fd;
}

/* Whether PATH (absolute) is the directory WANT. */
static bool is_dir(const char *path, const struct stat *want)
{
	struct stat at;

	return path[0] == '/' && !stat(path, &at) && at.st_dev == want->st_dev &&
	       at.st_ino == want->st_ino;
}

/* The mount at the root of PID's mount tree (its "/" in PROC/PID/mountinfo):
 * its file system and the directory of it mounted there, into DEV and
 * ROOT. 0 or -ENOENT. */
static int root_mount(const char *proc, pid_t pid, char dev[32], char *root, size_t len)
{
	char path[4096 + 32], *line = NULL;
	struct pk_mount m;
	size_t cap = 0;
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/mountinfo", proc, (int)pid);
	f = fopen(path, "re");
	while (f && ret && getline(&line, &cap, f) > 0)
		if (pk_mount_parse(line, &m) && !strcmp(m.point, "/") &&
		    strlen(m.dev) < 32 && strlen(m.root) < len) {
			strcpy(dev, m.dev);
			strcpy(root, m.root);
			ret = 0;
		}
	free(line);
	if (f)
		fclose(f);
	return ret;
}

/*
 * A root the kernel's path does not reach (a pivot_root into a mount of
 * the process's namespace only: readlink gives "/"): where one of our
 * mounts shows the same directory of the same file system, the root
 * mount's (a bind mount of a directory we have, an overlay the host
 * mounted too, as container runtimes do). Into OUT: 1, or 0.
 */
static int root_by_mounts(const char *proc, pid_t pid, const struct stat *want,
			  struct pk_root_record *out)
{
	char dev[32], root[PK_ROOT_PATH_MAX], *line = NULL;
	struct pk_mount m;
	size_t cap = 0;
	int found = 0;
	FILE *f;

	if (root_mount(proc, pid, dev, root, sizeof(root)))
		return 0;
	f = fopen("/proc/self/mountinfo", "re");
	while (f && !found && getline(&line, &cap, f) > 0) {
		size_t n;
		const char *rest;

		if (!pk_mount_parse(line, &m) || strcmp(m.dev, dev))
			continue;
		/* ROOT at or below the directory this mount shows */
		n = strcmp(m.root, "/") ? strlen(m.root) : 0;
		if (strncmp(root, m.root, n) || (root[n] && root[n] != '/'))
			continue;
		rest = root + n;
		if (snprintf(out->path, sizeof(out->path), "%s%s",
			     strcmp(m.point, "/") || !*rest ? m.point : "", rest) <
		    (int)sizeof(out->path))
			found = is_dir(out->path, want);
	}
	free(line);
	if (f)
		fclose(f);
	return found;
}

/* PID's root as a directory of ours into OUT's path: 1, or 0 when it is
 * ours (*OURS set) or ours does not reach it, or a negative errno. */
static int root_find(const char *proc, pid_t pid, struct pk_root_record *out, bool *ours)
{
	char link[4096 + 32];
	struct stat root, own;
	ssize_t n;
	int fd;

	snprintf(link, sizeof(link), "%s/%d/root", proc, (int)pid);
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
	*ours = root.st_dev == own.st_dev && root.st_ino == own.st_ino;
	if (*ours)
		return 0;
	/* the kernel gives a root ours does not reach relative to its own
	 * mounts: then the path is another directory, or none */
	if (is_dir(out->path, &root))
		return 1;
	return root_by_mounts(proc, pid, &root, out);
}

int pk_proc_root_find(const char *proc, pid_t pid, struct pk_root_record *out)
{
	pid_t nstgid = pid;
	uid_t euid = 0;
	bool ours = false;
	int ret, ids;

	proc = proc ? proc : "/proc";
	ret = root_find(proc, pid, out, &ours);
	/* after the root: gone by now, nothing is kept (a pid taken again
	 * between the two reads is the window perf's own look at /proc
	 * has too) */
	ids = pk_proc_ids(proc, pid, &euid, &nstgid);
	if (ret < 0 || ids == -ESRCH)
		return ret < 0 ? ret : ids;
	out->nstgid = ids ? (__u32)pid : (__u32)nstgid;
	out->euid = ids ? 0 : (__u32)euid;
	if (ours && !ids && nstgid != pid) {
		strcpy(out->path, "/");	/* ours, in another pid namespace */
		return 1;
	}
	return ret;
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

int pk_root_records_holding(int fd, const char *path, dev_t dev, ino_t ino,
			    struct pk_root_record *out)
{
	char file[PK_ROOT_PATH_MAX + 4096];
	__u32 key, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		prev = &key;
		if (pk_root_records_get(fd, key, out) ||
		    snprintf(file, sizeof(file), "%s%s", out->path, path) >= (int)sizeof(file))
			continue;
		if (pk_path_is_inode(file, dev, ino))
			return 0;
	}
	return -ENOENT;
}
