// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eh_frame/checksum.h"
#include "lib/boot_id.h"
#include "loader/kernel_btf.h"
#include "loader/system.h"

#define BPFTOOL_SBIN	"/usr/sbin/bpftool"

extern char **environ;

/* Whether PATH holds BTF that libbpf can read. */
static bool btf_readable(const char *path)
{
	struct btf *btf = btf__parse_raw(path);

	btf__free(btf);
	return btf != NULL;
}

/* Write LEN bytes of DATA to a new file made from TEMPLATE (mkstemp). */
static int write_temp(char *template, const void *data, size_t len)
{
	const char *p = data;
	int fd = mkstemp(template), ret = 0;

	if (fd < 0)
		return -errno;
	while (len && !ret) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno != EINTR)
			ret = -errno;
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		unlink(template);
	return ret;
}

/* Run ARGV (argv[0] looked for in $PATH when SEARCH) quietly, with no
 * signal held or caught (probe-load holds its stop signals while it
 * loads): 0 when it exits 0, a negative errno otherwise. */
static int run_quietly(const char *file, char *const argv[], bool search)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all;
	int ret, status;
	pid_t pid;

	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	ret = search ? posix_spawnp(&pid, file, &fa, &attr, argv, environ) :
		       posix_spawn(&pid, file, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (ret)
		return -ret;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

/* bpftool gen min_core_btf: the kernel's types OBJ_PATH relocates against,
 * into OUT. */
static int min_core_btf(const char *obj_path, const char *out)
{
	const char *tool = getenv(PK_BPFTOOL_ENV);
	char *argv[] = { "bpftool", "gen", "min_core_btf", PK_BTF_VMLINUX, (char *)out,
			 (char *)obj_path, NULL };
	int ret;

	if (tool && *tool)
		return run_quietly(tool, argv, strchr(tool, '/') == NULL);
	ret = run_quietly("bpftool", argv, true);
	if (ret == -ENOENT)	/* root's tool, where a user's $PATH lacks sbin */
		ret = run_quietly(BPFTOOL_SBIN, argv, false);
	return ret;
}

int pk_kernel_btf_for(const void *obj, size_t obj_len, const char *cache_root, char *path,
		      size_t len)
{
	char boot[64], dir[4096], name[128], obj_tmp[4096], out_tmp[4096];
	__u64 h = eh_hash_final(eh_hash_update(EH_HASH_INIT, obj, obj_len), obj_len);
	int ret;

	ret = pk_boot_id(boot, sizeof(boot));
	if (ret)
		return ret;
	snprintf(name, sizeof(name), "%s-%016llx.btf", boot, (unsigned long long)h);
	if (snprintf(dir, sizeof(dir), "%s/kernel", cache_root) >= (int)sizeof(dir) ||
	    snprintf(path, len, "%s/%s", dir, name) >= (int)len ||
	    snprintf(obj_tmp, sizeof(obj_tmp), "%s/.obj-XXXXXX", dir) >= (int)sizeof(obj_tmp) ||
	    snprintf(out_tmp, sizeof(out_tmp), "%s/.btf-XXXXXX", dir) >= (int)sizeof(out_tmp))
		return -ENAMETOOLONG;
	if (btf_readable(path))
		return 0;
	/* the cache root as eh2table makes it (its tables are beside) */
	if ((mkdir(cache_root, 0755) && errno != EEXIST) || (mkdir(dir, 0755) && errno != EEXIST))
		return -errno;
	ret = write_temp(obj_tmp, obj, obj_len);
	if (ret)
		return ret;
	ret = write_temp(out_tmp, "", 0);
	if (!ret) {
		ret = min_core_btf(obj_tmp, out_tmp);
		if (!ret && !btf_readable(out_tmp))
			ret = -EBADMSG;
		if (!ret && rename(out_tmp, path))
			ret = -errno;
		if (ret)
			unlink(out_tmp);
	}
	unlink(obj_tmp);
	if (!ret)
		pk_boot_prune(dir, ".btf", boot);
	return ret;
}
