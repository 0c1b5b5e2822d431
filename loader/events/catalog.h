/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * probe-load --list [PATTERN]: what -e can name on this system, one event a
 * line, as -e takes it: the perf and off-CPU events, every tracepoint in
 * tracefs, every kernel function (kprobe:, kretprobe: take the same), and,
 * for uprobe:FILE (or usdt:FILE), FILE's functions and USDT notes.
 *
 * PATTERN is a glob (fnmatch) on the whole name, or, without * ? [, a part
 * of it: `--list sched`, `--list 'tracepoint:syscalls:*'`,
 * `--list uprobe:python3.11:PyGC*` (the file found in PATH as -e finds it).
 */
#ifndef PK_CATALOG_H
#define PK_CATALOG_H

#include <stdbool.h>
#include <stdio.h>

#include "eh_frame/errmsg.h"

/* Print the events PATTERN (NULL: all) matches to OUT, sorted, once each.
 * 0 (none matching is no error), or -errno with the reason in ERR. */
int pk_catalog_print(const char *pattern, FILE *out, char err[PK_ERR_LEN]);

/* NAME matches PATTERN: a glob, or a part of NAME when PATTERN has no
 * glob character. */
bool pk_catalog_match(const char *pattern, const char *name);

#endif
