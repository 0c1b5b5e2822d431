// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/exec_segs.h"
#include "lib/overlay.h"
#include "lib/proc_maps.h"
#include "lib/util/array.h"
#include "loader/needed_libs.h"
#include "loader/unwind_files.h"

/* glibc's execvp() when PATH is unset */
#define DEFAULT_PATH	"/bin:/usr/bin"

/* Take PATH and NAME (malloc'ed) for KEY, mapped by PID at VM_START (0:
 * no process). */
static int push(struct pk_unwind_files *f, char *path, char *name, struct pk_file_key key,
		pid_t pid, __u64 vm_start)
{
	/* n and cap are int in the header: the capacity goes through a size_t */
	size_t cap = f->cap;

	if (pk_array_reserve((void **)&f->v, &cap, sizeof(*f->v), (size_t)f->n + 1, 64)) {
		free(path);
		free(name);
		return -ENOMEM;
	}
	f->cap = cap;
	f->v[f->n++] = (struct pk_unwind_file){ .path = path, .name = name, .key = key,
						.pid = pid, .vm_start = vm_start };
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	const struct pk_unwind_file *x = a, *y = b;

	if (x->key.dev != y->key.dev)
		return x->key.dev < y->key.dev ? -1 : 1;
	return x->key.ino < y->key.ino ? -1 : x->key.ino > y->key.ino;
}

/* Each key once (the first seen of a process wins, qsort is not stable but
 * any open path of one inode is as good as another), then the vDSO. */
static int finish(struct pk_unwind_files *f)
{
	int n = 0;

	if (f->n)
		qsort(f->v, f->n, sizeof(*f->v), cmp_key);
	for (int i = 0; i < f->n; i++) {
		if (n && !cmp_key(&f->v[n - 1], &f->v[i])) {
			free((char *)f->v[i].path);
			free((char *)f->v[i].name);
			continue;
		}
		f->v[n++] = f->v[i];
	}
	f->n = n;
	if (f->vdso)
		return push(f, NULL, NULL, (struct pk_file_key){ PK_VDSO_DEV, PK_VDSO_INO }, 0, 0);
	return 0;
}

static int add_process(struct pk_unwind_files *f, const char *proc_root, pid_t pid)
{
	const char *root = proc_root ? proc_root : "/proc";
	struct pk_maps maps;
	int ret;

	ret = pk_maps_read(proc_root, pid, true, &maps);
	if (ret == -ENOENT || ret == -ESRCH)
		return 0;	/* gone: nothing of it to unwind */
	if (ret)
		return ret;
	for (size_t i = 0; i < maps.n && !ret; i++) {
		const struct pk_mapping *m = &maps.v[i];
		char buf[PATH_MAX], *path, *name;

		if (m->kind == PK_MAP_SPECIAL && !strcmp(m->name, "[vdso]"))
			f->vdso = true;
		if (m->kind != PK_MAP_FILE || !(m->perms & PK_MAP_X))
			continue;
		ret = pk_map_files_path(buf, sizeof(buf), root, pid, m->start, m->end);
		if (ret)
			break;
		path = strdup(buf);
		if (!path) {
			ret = -ENOMEM;
			break;
		}
		if (asprintf(&name, "%s%s", m->name, m->deleted ? " (deleted)" : "") < 0) {
			free(path);
			ret = -ENOMEM;
			break;
		}
		ret = push(f, path, name, (struct pk_file_key){
			pk_kernel_dev(m->dev_major, m->dev_minor), m->inode }, pid, m->start);
	}
	pk_maps_free(&maps);
	return ret;
}

int pk_unwind_files_pids(struct pk_unwind_files *f, const char *proc_root,
			 const pid_t *pids, int npids, char err[PK_ERR_LEN])
{
	int ret = 0;

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < npids && !ret; i++) {
		ret = add_process(f, proc_root, pids[i]);
		if (ret && ret != -ENOMEM) {
			pk_err(err, ret, "cannot read the mappings of process %d: %s",
			       (int)pids[i], strerror(-ret));
			goto fail;
		}
	}
	if (!ret)
		ret = finish(f);
	if (!ret)
		return 0;
	pk_err(err, ret, "out of memory");
fail:
	pk_unwind_files_free(f);
	return ret;
}

struct system_walk {
	struct pk_unwind_files *f;
	const char *proc_root;
};

static int add_any_process(void *ctx, pid_t pid)
{
	struct system_walk *w = ctx;
	int ret = add_process(w->f, w->proc_root, pid);

	/* a process that cannot be read (exiting) is not worth failing for */
	return ret == -ENOMEM ? ret : 0;
}

int pk_unwind_files_system(struct pk_unwind_files *f, const char *proc_root,
			   char err[PK_ERR_LEN])
{
	struct system_walk w = { .f = f, .proc_root = proc_root };
	int ret;

	memset(f, 0, sizeof(*f));
	ret = pk_proc_for_each_pid(proc_root, add_any_process, &w);
	if (ret && ret != -ENOMEM)
		return pk_err(err, ret, "cannot list %s: %s", proc_root ? proc_root : "/proc",
			      strerror(-ret));
	if (!ret)
		ret = finish(f);
	if (ret) {
		pk_unwind_files_free(f);
		return pk_err(err, ret, "out of memory");
	}
	return 0;
}

int pk_exec_path(const char *file, const char *path_env, char *buf, size_t len)
{
	const char *p, *end;
	struct stat st;
	int n, ret = -ENOENT;

	if (!*file)
		return -ENOENT;
	if (strchr(file, '/')) {
		n = snprintf(buf, len, "%s", file);
		return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
	}
	for (p = path_env ? path_env : DEFAULT_PATH; ; p = end + 1) {
		end = strchrnul(p, ':');
		/* an empty element is the current directory, as for execvp */
		n = end == p ? snprintf(buf, len, "%s", file) :
		    snprintf(buf, len, "%.*s/%s", (int)(end - p), p, file);
		if (n >= 0 && (size_t)n < len && stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(buf, X_OK) == 0)
			return 0;
		if (n >= 0 && (size_t)n >= len)
			ret = -ENAMETOOLONG;
		if (!*end)
			return ret;
	}
}

/* A script's interpreter ("#!/bin/sh -e" -> /bin/sh) into BUF, or -ENOEXEC. */
static int shebang(const char *path, char *buf, size_t len)
{
	char line[256];
	ssize_t n;
	size_t k;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return -ENOEXEC;
	line[n] = '\0';
	k = 2 + strspn(line + 2, " \t");
	n = strcspn(line + k, " \t\n");
	if (!n || (size_t)n >= len)
		return -ENOEXEC;
	memcpy(buf, line + k, n);
	buf[n] = '\0';
	return 0;
}

static int push_path(struct pk_unwind_files *f, const char *path, const struct stat *st)
{
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	return push(f, p, NULL, (struct pk_file_key){
		pk_kernel_dev(major(st->st_dev), minor(st->st_dev)), st->st_ino }, 0, 0);
}

/* PATH keyed as stat() has it, and on an overlay also as its layer's file,
 * which is what a kernel before 6.8 maps (lib/overlay.h): either way the
 * walk finds its table. */
static int push_stat(struct pk_unwind_files *f, const char *path)
{
	char layer[4096];
	struct stat st, lst;
	int ret;

	if (stat(path, &st))
		return -errno;
	ret = push_path(f, path, &st);
	if (!ret && !pk_overlay_layer_file(path, layer, sizeof(layer), &lst) &&
	    (lst.st_dev != st.st_dev || lst.st_ino != st.st_ino))
		ret = push_path(f, layer, &lst);
	return ret;
}

static int push_lib(void *ctx, const char *path)
{
	int ret = push_stat(ctx, path);

	/* A library that vanished since the loader listed it: not ours to fail on. */
	return ret == -ENOENT ? 0 : ret;
}

int pk_unwind_files_command(struct pk_unwind_files *f, const char *argv0,
			    char err[PK_ERR_LEN])
{
	char exe[PATH_MAX], interp[PATH_MAX];
	int ret;

	memset(f, 0, sizeof(*f));
	ret = pk_exec_path(argv0, getenv("PATH"), exe, sizeof(exe));
	if (ret)
		return pk_err(err, ret, "%s: %s", argv0,
			      ret == -ENOENT ? "command not found" : strerror(-ret));
	/* A script runs its interpreter: that is the process's code. */
	if (shebang(exe, interp, sizeof(interp)) == 0)
		snprintf(exe, sizeof(exe), "%s", interp);
	ret = push_stat(f, exe);
	if (!ret && pk_elf_interp(exe, interp, sizeof(interp)) == 0) {
		ret = push_stat(f, interp);
		/* Its libraries too, so that the command is whole from its
		 * first instruction even when no reader runs to load them.
		 * Without them (the loader failed) they come by no-table
		 * events, as dlopen'ed ones do. */
		if (!ret && pk_needed_libs(interp, exe, push_lib, f) == -ENOMEM)
			ret = -ENOMEM;
	}
	f->vdso = true;		/* every process maps one */
	if (!ret)
		ret = finish(f);
	if (ret) {
		pk_unwind_files_free(f);
		return pk_err(err, ret, "%s: %s", exe, strerror(-ret));
	}
	return 0;
}

void pk_unwind_files_free(struct pk_unwind_files *f)
{
	for (int i = 0; i < f->n; i++) {
		free((char *)f->v[i].path);
		free((char *)f->v[i].name);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}
