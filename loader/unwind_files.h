/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which files probe-load gives unwind tables to before it attaches, each
 * with the key the BPF unwinder will look it up by (the mapped inode as the
 * kernel sees it): the executable mappings of -p processes, the executable,
 * ELF interpreter and libraries of -- CMD, or of every process (system-wide); the
 * vDSO once. Files mapped later are reported by the BPF side (no-table
 * events) and loaded by probe-read.
 */
#ifndef PK_UNWIND_FILES_H
#define PK_UNWIND_FILES_H

#include <sys/types.h>

#include "eh_frame/errmsg.h"
#include "lib/unwind_store.h"

struct pk_unwind_files {
	struct pk_unwind_file *v;	/* each (dev, ino) once; the vDSO (path NULL) last */
	int n, cap;
	bool vdso;			/* a process maps one */
};

/* The executable file-backed mappings of each of PIDS (read through
 * PROC_ROOT/PID/map_files/START-END, which works across mount namespaces
 * and for deleted files; PROC_ROOT NULL: /proc), and the vDSO if one of
 * them maps it. A process that is gone is skipped. 0 or -ENOMEM. */
int pk_unwind_files_pids(struct pk_unwind_files *f, const char *proc_root,
			 const pid_t *pids, int npids, char err[PK_ERR_LEN]);

/* Every process under PROC_ROOT (NULL: /proc). 0 or a negative errno. */
int pk_unwind_files_system(struct pk_unwind_files *f, const char *proc_root,
			   char err[PK_ERR_LEN]);

/* -- CMD: the file ARGV0 names (found as execvp(3) finds it, through
 * #! to the script's interpreter), its ELF interpreter, the libraries that
 * interpreter loads for it (needed_libs.h), and the vDSO.
 * Keys from stat(2). -ENOENT with a message when it cannot be found. */
int pk_unwind_files_command(struct pk_unwind_files *f, const char *argv0,
			    char err[PK_ERR_LEN]);

/* execvp(3)'s search: FILE if it has a '/', else the first executable
 * regular file PATH_ENV/FILE (PATH_ENV NULL: glibc's default). Into BUF. */
int pk_exec_path(const char *file, const char *path_env, char *buf, size_t len);

void pk_unwind_files_free(struct pk_unwind_files *f);

#endif
