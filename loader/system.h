/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What probe-load needs to know about the running system before it loads
 * anything: kernel version, BTF, capabilities, CPUs, processes. The checks
 * take their inputs as arguments where they can, so tests can feed them.
 */
#ifndef PK_LOAD_SYSTEM_H
#define PK_LOAD_SYSTEM_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "loader/options.h"

#define PK_MAX_CPUS		4096
#define PK_BTF_VMLINUX		"/sys/kernel/btf/vmlinux"

/* 0 when RELEASE (uname -r) is Linux 5.15 or newer, and 6.1 or newer for
 * the DWARF walk (DWARF), else -EOPNOTSUPP. */
int pk_check_kernel_release(const char *release, bool dwarf, char err[PK_ERR_LEN]);
/* 0 when the kernel BTF file PATH exists, else -ENOENT. */
int pk_check_btf(const char *path, char err[PK_ERR_LEN]);
/* Whether the running kernel's BTF has struct NAME ("maple_tree": 6.1+):
 * read from the BTF file BTF_PATH when not NULL, a part of the kernel's
 * as loader/kernel_btf.c keeps it, which has NAME where the kernel does as
 * long as the BPF object relocates against it. */
bool pk_kernel_has_struct(const char *btf_path, const char *name);
/* 0 when the effective capability set EFF (bit n = capability n) can load
 * and attach the programs, else -EPERM. */
int pk_check_caps(__u64 eff, char err[PK_ERR_LEN]);
/* This process's effective capabilities. */
__u64 pk_effective_caps(void);

/* Parse a kernel CPU list ("0-3,8") into MASK[0..n). Number of CPUs set,
 * or -EINVAL. */
int pk_parse_cpulist(const char *list, bool *mask, int n);
/* Online CPUs from sysfs into MASK[0..n) and their list (as the kernel
 * writes it, without the newline) into LIST. Count, or negative errno. */
int pk_online_cpus(bool *mask, int n, char *list, size_t len);

/* Read one unsigned decimal number from a file (a /proc/sys value). */
int pk_read_uint(const char *path, unsigned int *out);

/* The process (tgid) that PID belongs to: PID itself for a process, its
 * process for a thread id. -ESRCH with a message when there is none. */
int pk_resolve_tgid(pid_t pid, pid_t *tgid, char err[PK_ERR_LEN]);
/* Whether process TGID exists and has not exited (a zombie has). */
bool pk_process_alive(pid_t tgid);

#endif
