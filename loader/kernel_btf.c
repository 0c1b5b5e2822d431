// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eh_frame/checksum.h"
#include "eh_frame/eh_table.h"
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
	char boot[64], name[128], obj_path[4096], out_tmp[4096], err[PK_ERR_LEN];
	__u64 h = eh_hash_final(eh_hash_update(EH_HASH_INIT, obj, obj_len), obj_len);
	int ret, pid = (int)getpid();

	ret = pk_boot_id(boot, sizeof(boot));
	if (ret)
		return ret;
	snprintf(name, sizeof(name), "%s-%016llx", boot, (unsigned long long)h);
	/* the object and bpftool's output under names of this process's own,
	 * which no other probe-load writes or prunes */
	if (snprintf(path, len, "%s/kernel/%s.btf", cache_root, name) >= (int)len ||
	    snprintf(obj_path, sizeof(obj_path), "%s.%d.bpf.o", path, pid) >=
		    (int)sizeof(obj_path) ||
	    snprintf(out_tmp, sizeof(out_tmp), "%s.%d.tmp", path, pid) >= (int)sizeof(out_tmp))
		return -ENAMETOOLONG;
	if (btf_readable(path))
		return 0;
	ret = eh_cache_mkdirs(path, err);
	if (!ret)
		ret = eh_cache_write(obj_path, obj, obj_len, err);
	if (ret)
		return ret;
	ret = min_core_btf(obj_path, out_tmp);
	if (!ret && !btf_readable(out_tmp))
		ret = -EBADMSG;
	if (!ret && rename(out_tmp, path))
		ret = -errno;
	if (ret)
		unlink(out_tmp);
	unlink(obj_path);
	if (!ret) {
		*strrchr(obj_path, '/') = '\0';	/* the kernel/ directory */
		pk_boot_prune(obj_path, ".btf", boot);
	}
	return ret;
}
