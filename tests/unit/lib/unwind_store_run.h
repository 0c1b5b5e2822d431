/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The harness of suite unwind_store (test_unwind_store.c: tables read
 * back, shared build-ids, batches, refusals, the cache, the vDSO, the
 * kernel's device numbers; test_unwind_store_reclaim.c: tables given back
 * and their room reused): the unwind store against real BPF maps, made
 * with bpf_map_create, no program; root only.
 */
#ifndef PK_UNWIND_STORE_RUN_H
#define PK_UNWIND_STORE_RUN_H

#include <check.h>
#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/unwind_store.h"

struct env {
	struct pk_unwind_fds fds;
	struct pk_unwind_alloc caps;
	char dir[64];			/* stands for the pin directory (flock) */
	char cache[64];
	char *log_buf;
	size_t log_len;
	FILE *log;
	struct pk_unwind_store_opts opts;
	struct pk_unwind_store *s;
};

/* Maps for TABLES tables within BYTES and a store on them, in a temporary
 * pin directory and cache. */
void pk_us_env_init(struct env *e, __u64 bytes, __u32 tables);
/* New maps and store, same cache and directories. */
void pk_us_env_renew(struct env *e);
/* What was logged so far (then forgotten). */
const char *pk_us_env_log(struct env *e);
void pk_us_env_free(struct env *e);
/* PATH as the store takes a file: its path and (dev, ino). */
struct pk_unwind_file pk_us_file_of(const char *path);
/* Add the N files F, which must work. */
void pk_us_add(struct env *e, const struct pk_unwind_file *f, int n, struct pk_unwind_stats *st);
/* KEY's unwind_files entry, which must be there. */
struct pk_file_info pk_us_file_info(const struct env *e, struct pk_file_key key);
/* The maps' allocation record. */
struct pk_unwind_alloc pk_us_alloc_of(const struct env *e);
/* Table TABLE's array (unwind_rows[TABLE]), opened; -1 when it has none. */
int pk_us_table_array_fd(const struct env *e, __u32 table);
/* FILE's table in the maps equals its cache file (a hit now), and costs
 * what the kernel says: its bytes, returned. */
__u64 pk_us_expect_table_of(const struct env *e, const char *path, __u32 table);

/* The tests of the suite's other file, added to its tcase in order. */
void pk_us_reclaim_tests(TCase *tc);

#endif
