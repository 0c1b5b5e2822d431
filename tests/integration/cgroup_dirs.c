// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "integration/cgroup_dirs.h"
#include "lib/cgroup.h"
#include "test_util.h"

void pk_test_cgroup_mount(char *buf, size_t len)
{
	if (pk_cgroup2_point(buf, len))
		buf[0] = '\0';
}

void pk_test_cgroup_make(const char *mount, const char *sub, char *buf, size_t len)
{
	char top[4200];

	ck_assert_msg(mount[0], "no cgroup2 mount on this machine");
	snprintf(top, sizeof(top), "%s/pk-test-%d", mount, (int)getpid());
	ck_assert_int_lt(snprintf(buf, len, "%s%s%s", top, sub ? "/" : "", sub ? sub : ""),
			 (int)len);
	ck_assert_msg(!mkdir(top, 0755) || errno == EEXIST, "mkdir %s: %m", top);
	if (sub)
		ck_assert_msg(!mkdir(buf, 0755), "mkdir %s: %m", buf);
}

void pk_test_cgroup_move(pid_t pid, const char *dir)
{
	char path[4400], num[32];
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(num, sizeof(num), "%d", (int)pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "open %s: %m", path);
	ck_assert_int_eq(write(fd, num, strlen(num)), (ssize_t)strlen(num));
	close(fd);
}

void pk_test_cgroup_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char sub[4400];

		/* a cgroup's files are the kernel's; its directories are ours */
		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		pk_test_cgroup_remove(sub);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

void pk_test_cgroup_sweep(const char *mount)
{
	DIR *d;
	struct dirent *e;

	if (!mount[0] || !(d = opendir(mount)))
		return;
	while ((e = readdir(d))) {
		char dir[4400];
		int pid;

		if (sscanf(e->d_name, "pk-test-%d", &pid) != 1 || kill(pid, 0) == 0)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", mount, e->d_name);
		pk_test_cgroup_remove(dir);
	}
	closedir(d);
}
