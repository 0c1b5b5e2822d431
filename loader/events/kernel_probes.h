/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the kernel offers to probe, asked before anything is loaded so that a
 * session is refused with the reason rather than half attached: its
 * functions (kallsyms), whether fentry and kprobes work here, and its
 * tracepoints (tracefs, mounted when it is not).
 */
#ifndef PK_KERNEL_PROBES_H
#define PK_KERNEL_PROBES_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "eh_frame/errmsg.h"

/* How kprobe:FUNC (kretprobe:FUNC) can be attached here. */
struct pk_kfunc {
	bool fentry;		/* by fentry (fexit): btf_id is FUNC's */
	__u32 btf_id;
	char ksym[128];		/* else a kprobe on this kallsyms name (FUNC, or
				 * a compiler's clone of it: FUNC.isra.0) */
};

/* Resolve FUNC: at its entry, or RET at its return; by fentry (fexit) where
 * the kernel allows it on FUNC, unless NO_FENTRY, else by a kprobe
 * (kretprobe). -ENOENT: no such function (close names in ERR); -EOPNOTSUPP:
 * this kernel can attach neither (why, in ERR). */
int pk_kfunc_resolve(const char *func, bool ret, bool no_fentry, struct pk_kfunc *kf,
		     char err[PK_ERR_LEN]);

/* Call FN with the name (LEN bytes, not NUL-terminated) of every kernel
 * function: available_filter_functions (what ftrace, hence fentry and
 * kprobes, can attach to) where it can be read, else kallsyms' text
 * symbols. A name may come more than once. 0 or -errno. */
int pk_kfunc_names(void (*fn)(const char *name, size_t len, void *arg), void *arg);

/* Call FN with the category and name of every tracepoint in tracefs (a
 * directory with an id, what perf_event_open takes). */
int pk_tracepoint_names(void (*fn)(const char *category, const char *name, void *arg),
			void *arg, char err[PK_ERR_LEN]);

/* A pattern (kprobe:vfs_*, tracepoint:syscalls:sys_enter_*) attaches each
 * match, up to this many: each is a link and a perf event (two fds). */
#define PK_GLOB_MATCHES_MAX	1024

/* The kernel functions glob PATTERN matches (kprobes only, one a match),
 * into *V (N names, malloc'ed; pk_glob_free()). -ENOENT none, -E2BIG more
 * than PK_GLOB_MATCHES_MAX, -EOPNOTSUPP no kprobes: why in ERR. */
int pk_kfunc_glob(const char *pattern, char ***v, size_t *n, char err[PK_ERR_LEN]);
/* The tracepoints globs CATEGORY and NAME match, as "CATEGORY:NAME";
 * refused as pk_kfunc_glob's. */
int pk_tracepoint_glob(const char *category, const char *name, char ***v, size_t *n,
		       char err[PK_ERR_LEN]);
void pk_glob_free(char **v, size_t n);

/* The address range [*lo, *hi) of kernel function NAME (its kallsyms
 * address to the next symbol's). -ENOENT when there is none. */
int pk_ksym_range(const char *name, __u64 *lo, __u64 *hi);

/* The tracefs events directory ("/sys/kernel/tracing/events"), mounting
 * tracefs there when nothing is. */
int pk_tracefs_events(const char **dir, char err[PK_ERR_LEN]);

/* 0 when CATEGORY:NAME is a tracepoint; -ENOENT (close names in ERR). */
int pk_tracepoint_check(const char *category, const char *name, char err[PK_ERR_LEN]);

#endif
