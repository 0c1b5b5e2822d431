// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The harness of suite unwind_store (unwind_store_run.h): BPF maps as
 * probe-load makes them and a store on them, what it logged, and its
 * tables read back through the map syscalls against their cache files.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <fcntl.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "lib/unwind_store.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"
#include "unit/lib/unwind_store_run.h"

/* Maps as probe-load makes them for TABLES tables, within BYTES. */
static void maps_create(struct env *e, __u64 bytes, __u32 tables)
{
	e->caps = (struct pk_unwind_alloc){ .max_bytes = bytes, .max_tables = tables };
	ck_assert_int_eq(pk_unwind_maps_create(&e->caps, 256, &e->fds), 0);
}

static void env_store(struct env *e)
{
	char err[PK_ERR_LEN];
	int ret = pk_unwind_store_create(&e->fds, &e->caps, e->dir, &e->opts, &e->s, err);

	ck_assert_msg(ret == 0, "create: %d %s", ret, err);
}

void pk_us_env_init(struct env *e, __u64 bytes, __u32 tables)
{
	memset(e, 0, sizeof(*e));
	eh_tmpdir(e->dir, sizeof(e->dir));
	eh_tmpdir(e->cache, sizeof(e->cache));
	e->log = open_memstream(&e->log_buf, &e->log_len);
	e->opts = (struct pk_unwind_store_opts){ .cache_dir = e->cache,
						 .jobs = 2, .log = e->log, .prog = "test" };
	maps_create(e, bytes, tables);
	env_store(e);
}

/* New maps and store, same cache and directories. */
void pk_us_env_renew(struct env *e)
{
	pk_unwind_store_free(e->s);
	pk_unwind_fds_close(&e->fds);
	maps_create(e, e->caps.max_bytes, e->caps.max_tables);
	env_store(e);
}

/* What was logged so far (then forgotten). */
const char *pk_us_env_log(struct env *e)
{
	fflush(e->log);
	return e->log_buf;
}

void pk_us_env_free(struct env *e)
{
	pk_unwind_store_free(e->s);
	pk_unwind_fds_close(&e->fds);
	fclose(e->log);
	free(e->log_buf);
	eh_rmtree(e->dir);
	eh_rmtree(e->cache);
}

struct pk_unwind_file pk_us_file_of(const char *path)
{
	struct stat st;

	ck_assert_msg(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
	return (struct pk_unwind_file){
		.path = path,
		.key = { pk_kernel_dev(major(st.st_dev), minor(st.st_dev)), st.st_ino },
	};
}

void pk_us_add(struct env *e, const struct pk_unwind_file *f, int n, struct pk_unwind_stats *st)
{
	char err[PK_ERR_LEN];
	int ret;

	ret = pk_unwind_store_add(e->s, f, n, st, err);
	ck_assert_msg(ret == 0, "add: %d %s", ret, err);
}

struct pk_file_info pk_us_file_info(const struct env *e, struct pk_file_key key)
{
	struct pk_file_info fi;

	ck_assert_msg(bpf_map_lookup_elem(e->fds.files, &key, &fi) == 0,
		      "no unwind_files entry for %llx:%llu", (unsigned long long)key.dev,
		      (unsigned long long)key.ino);
	return fi;
}

struct pk_unwind_alloc pk_us_alloc_of(const struct env *e)
{
	struct pk_unwind_alloc a;
	__u32 zero = 0;

	ck_assert_int_eq(bpf_map_lookup_elem(e->fds.alloc, &zero, &a), 0);
	return a;
}

/* The kernel's own count of what the map behind FD costs (fdinfo memlock). */
static __u64 memlock_of(int fd)
{
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	ck_assert_uint_gt(v, 0);
	return v;
}

/* Table TABLE's array (unwind_rows[TABLE]), opened; -1 when it has none. */
int pk_us_table_array_fd(const struct env *e, __u32 table)
{
	__u32 id;
	int fd;

	if (bpf_map_lookup_elem(e->fds.rows, &table, &id))
		return -1;
	fd = bpf_map_get_fd_by_id(id);
	ck_assert_msg(fd >= 0, "map id %u: %s", id, strerror(errno));
	return fd;
}

/* Bytes [at, at + n) of the array behind FD, page by page through the
 * syscalls. */
static void *read_bytes(int fd, size_t at, size_t n)
{
	union pk_table_page pg;
	char *out = malloc(n + 1);

	ck_assert_ptr_nonnull(out);
	for (size_t done = 0; done < n;) {
		__u32 page = (at + done) / PK_TABLE_PAGE;
		size_t off = (at + done) % PK_TABLE_PAGE, k = PK_TABLE_PAGE - off;

		if (k > n - done)
			k = n - done;
		ck_assert_int_eq(bpf_map_lookup_elem(fd, &page, &pg), 0);
		memcpy(out + done, pg.bytes + off, k);
		done += k;
	}
	return out;
}

/* FILE's table in the maps equals its cache file (a hit now), and costs
 * what the kernel says: its bytes, returned. */
__u64 pk_us_expect_table_of(const struct env *e, const char *path, __u32 table)
{
	struct eh_cache_opts co = { .sz = sizeof(co), .cache_dir = e->cache };
	const struct pk_unwind_header *h;
	struct eh_unwind_table *t;
	struct pk_table_info ti;
	char eherr[PK_ERR_LEN];
	const char *base;
	void *pcs, *ids;
	int ret, fd;

	ret = eh_cache_get(path, &co, &t, NULL, 0, eherr);
	ck_assert_msg(ret == EH_CACHE_HIT, "%s: %d %s", path, ret, eherr);
	h = eh_unwind_table_header(t);
	base = (const char *)h;
	ck_assert_int_eq(bpf_map_lookup_elem(e->fds.tables, &table, &ti), 0);
	ck_assert_uint_eq(ti.nrows, h->nrows);
	ck_assert_uint_eq(ti.nrules, h->nrules);
	ck_assert_uint_eq(ti.pc_base, h->pc_base);
	ck_assert_uint_eq(ti.pc_end, h->pc_end);
	ck_assert_uint_eq(ti.flags, h->flags);
	if (!(h->flags & PK_UNWIND_NO_BUILD_ID)) {	/* else the content hash */
		ck_assert_uint_eq(ti.build_id_len, h->build_id_len);
		ck_assert_mem_eq(ti.build_id, h->build_id, h->build_id_len);
	}
	ck_assert_uint_eq(ti.rule_ids_at, 2 * ti.nrows);

	fd = pk_us_table_array_fd(e, table);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(ti.bytes, memlock_of(fd));
	pcs = read_bytes(fd, 0, ti.nrows * 4);
	ck_assert_mem_eq(pcs, base + h->pcs_off, ti.nrows * 4);
	ids = read_bytes(fd, ti.rule_ids_at * 2, ti.nrows * 2);
	ck_assert_mem_eq(ids, base + h->rule_ids_off, ti.nrows * 2);
	for (__u32 i = 0; i < ti.nrules; i++) {
		union pk_table_page pg;
		__u32 page = ti.rules_page + i / PK_RULES_PER_PAGE;

		ck_assert_int_eq(bpf_map_lookup_elem(fd, &page, &pg), 0);
		ck_assert_mem_eq(&pg.rules[i % PK_RULES_PER_PAGE],
				 base + h->rules_off + i * sizeof(struct pk_unwind_rule),
				 sizeof(struct pk_unwind_rule));
	}
	close(fd);
	free(pcs);
	free(ids);
	eh_unwind_table_free(t);
	return ti.bytes;
}

