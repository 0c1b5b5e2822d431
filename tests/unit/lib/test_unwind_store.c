// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind store against real BPF maps (made here with bpf_map_create, no
 * program; root only): tables read back through the map syscalls, not the
 * store's mmap, must equal their cache files byte for byte, and cost what
 * the kernel says they cost (fdinfo's memlock); one table per build-id;
 * refusals leave the maps consistent and say so in one line; a corrupt
 * cache file is rebuilt; the vDSO gets its table; the tables of files no
 * process maps any more are given back and their room reused.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "lib/exec_segs.h"
#include "lib/unwind_store.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

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

static void env_init(struct env *e, __u64 bytes, __u32 tables)
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
static void env_renew(struct env *e)
{
	pk_unwind_store_free(e->s);
	pk_unwind_fds_close(&e->fds);
	maps_create(e, e->caps.max_bytes, e->caps.max_tables);
	env_store(e);
}

/* What was logged so far (then forgotten). */
static const char *env_log(struct env *e)
{
	fflush(e->log);
	return e->log_buf;
}

static void env_free(struct env *e)
{
	pk_unwind_store_free(e->s);
	pk_unwind_fds_close(&e->fds);
	fclose(e->log);
	free(e->log_buf);
	eh_rmtree(e->dir);
	eh_rmtree(e->cache);
}

static struct pk_unwind_file file_of(const char *path)
{
	struct stat st;

	ck_assert_msg(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
	return (struct pk_unwind_file){
		.path = path,
		.key = { pk_kernel_dev(major(st.st_dev), minor(st.st_dev)), st.st_ino },
	};
}

static void add(struct env *e, const struct pk_unwind_file *f, int n, struct pk_unwind_stats *st)
{
	char err[PK_ERR_LEN];
	int ret;

	ret = pk_unwind_store_add(e->s, f, n, st, err);
	ck_assert_msg(ret == 0, "add: %d %s", ret, err);
}

static struct pk_file_info file_info(const struct env *e, struct pk_file_key key)
{
	struct pk_file_info fi;

	ck_assert_msg(bpf_map_lookup_elem(e->fds.files, &key, &fi) == 0,
		      "no unwind_files entry for %llx:%llu", (unsigned long long)key.dev,
		      (unsigned long long)key.ino);
	return fi;
}

static struct pk_unwind_alloc alloc_of(const struct env *e)
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
static int table_array_fd(const struct env *e, __u32 table)
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
static __u64 expect_table_of(const struct env *e, const char *path, __u32 table)
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

	fd = table_array_fd(e, table);
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

/* The executable LOAD segments as readelf -lW prints them, an oracle
 * independent of libelf, into OUT; returns how many. */
static __u32 readelf_segs(const char *path, struct pk_file_seg out[8])
{
	char *argv[] = { "readelf", "-lW", (char *)path, NULL }, *text, *line;
	__u32 n = 0;

	ck_assert_int_eq(pk_test_run(argv, &text, NULL), 0);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long off, vaddr, paddr, filesz, memsz;
		char flags[8] = "";

		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx %7[RWE ]", &off,
			   &vaddr, &paddr, &filesz, &memsz, flags) != 6 || !strchr(flags, 'E'))
			continue;
		ck_assert_uint_lt(n, 8);
		out[n++] = (struct pk_file_seg){ off, off + filesz, (__s64)(vaddr - off) };
	}
	free(text);
	return n;
}

static void expect_segs_readelf(const char *path, const struct pk_file_info *fi)
{
	struct pk_file_seg want[8];
	__u32 n = readelf_segs(path, want);

	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(n, fi->nsegs);
	for (__u32 i = 0; i < n; i++) {
		ck_assert_uint_eq(fi->segs[i].off, want[i].off);
		ck_assert_uint_eq(fi->segs[i].end, want[i].end);
		ck_assert_int_eq(fi->segs[i].bias, want[i].bias);
	}
}

START_TEST(test_libc_and_fixture)
{
	char demo[4096];
	struct pk_unwind_file f[2] = {
		file_of(EH_TEST_LIBC), file_of(pk_test_build_path("fixtures/demo", demo, sizeof(demo))),
	};
	struct pk_unwind_stats st = {};
	struct pk_unwind_alloc a;
	struct pk_file_info fi[2];
	__u64 bytes = 0;
	struct env e;

	env_init(&e, 16 << 20, 16);
	add(&e, f, 2, &st);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.tables, 2);
	ck_assert_uint_eq(st.built, 2);
	ck_assert_uint_eq(st.hit + st.shared + st.refused, 0);
	ck_assert_str_eq(env_log(&e), "");
	for (int i = 0; i < 2; i++) {
		fi[i] = file_info(&e, f[i].key);
		ck_assert_uint_eq(fi[i].flags, 0);
		bytes += expect_table_of(&e, f[i].path, fi[i].table);
		expect_segs_readelf(f[i].path, &fi[i]);
	}
	ck_assert_uint_ne(fi[0].table, fi[1].table);
	a = alloc_of(&e);
	ck_assert_uint_eq(a.tables, 2);
	ck_assert_uint_eq(a.live, 2);
	ck_assert_uint_eq(a.rows, st.rows);
	ck_assert_uint_eq(a.rules, st.rules);
	ck_assert_uint_eq(st.kernel_bytes, bytes);	/* what the kernel counts */
	ck_assert_uint_eq(a.bytes, bytes);
	ck_assert_uint_eq(a.max_bytes, 16 << 20);

	/* again: every file has its entry, nothing is done */
	memset(&st, 0, sizeof(st));
	add(&e, f, 2, &st);
	ck_assert_uint_eq(st.files + st.tables + st.built + st.hit + st.shared, 0);
	{
		struct pk_unwind_alloc now = alloc_of(&e);

		ck_assert_mem_eq(&now, &a, sizeof(a));
	}

	/* new maps, same cache: the tables are hits now */
	env_renew(&e);
	memset(&st, 0, sizeof(st));
	add(&e, f, 2, &st);
	ck_assert_uint_eq(st.hit, 2);
	ck_assert_uint_eq(st.built, 0);
	expect_table_of(&e, f[1].path, file_info(&e, f[1].key).table);
	env_free(&e);
}
END_TEST

/* Two inodes, one build-id: one table. Also when the second file comes in a
 * later batch, or through a store opened later from pins. */
START_TEST(test_shared_build_id)
{
	char demo[4096], copy[2][128], pins[128], err[PK_ERR_LEN];
	struct pk_unwind_file f[3];
	struct pk_unwind_stats st = {};
	struct pk_unwind_store *s2;
	struct env e;

	env_init(&e, 4 << 20, 8);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	for (int i = 0; i < 2; i++) {
		snprintf(copy[i], sizeof(copy[i]), "%s/demo%d", e.dir, i);
		eh_copy_file(demo, copy[i], SIZE_MAX);
	}
	f[0] = file_of(demo);
	f[1] = file_of(copy[0]);
	f[2] = file_of(copy[1]);
	add(&e, f, 2, &st);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.shared, 1);
	ck_assert_uint_eq(file_info(&e, f[0].key).table, 0);
	ck_assert_uint_eq(file_info(&e, f[1].key).table, 0);
	ck_assert_uint_eq(file_info(&e, f[1].key).flags, 0);
	ck_assert_uint_eq(alloc_of(&e).tables, 1);

	/* a reader's store, from the pins, knows the table already */
	snprintf(pins, sizeof(pins), "/sys/fs/bpf/probekit-test-unwind-%d", (int)getpid());
	ck_assert_int_eq(mkdir(pins, 0700), 0);
	for (int i = 0; i < PK_UNWIND_NMAPS; i++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", pins, pk_unwind_pins[i]);
		ck_assert_int_eq(bpf_obj_pin(e.fds.fd[i], path), 0);
	}
	ck_assert_int_eq(pk_unwind_store_open(pins, &e.opts, &s2, err), 0);
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(pk_unwind_store_add(s2, &f[2], 1, &st, err), 0);
	ck_assert_uint_eq(st.shared, 1);
	ck_assert_uint_eq(st.tables, 0);
	ck_assert_uint_eq(file_info(&e, f[2].key).table, 0);
	ck_assert_uint_eq(alloc_of(&e).tables, 1);
	pk_unwind_store_free(s2);
	/* a session of a loader from before py_files and hs_files: a store
	 * all the same, without Python or Java */
	{
		struct pk_unwind_fds ufds;
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", pins, PK_PIN_PY_FILES);
		ck_assert_int_eq(unlink(path), 0);
		snprintf(path, sizeof(path), "%s/%s", pins, PK_PIN_HS_FILES);
		ck_assert_int_eq(unlink(path), 0);
		snprintf(path, sizeof(path), "%s/%s", pins, PK_PIN_V8_FILES);
		ck_assert_int_eq(unlink(path), 0);
		ck_assert_int_eq(pk_unwind_fds_open(pins, &ufds), 0);
		ck_assert_int_eq(ufds.py, -1);
		ck_assert_int_eq(ufds.hs, -1);
		ck_assert_int_eq(ufds.v8, -1);
		ck_assert_int_ge(ufds.files, 0);
		pk_unwind_fds_close(&ufds);
		ck_assert_int_eq(pk_unwind_store_open(pins, &e.opts, &s2, err), 0);
		pk_unwind_store_free(s2);
	}
	for (int i = 0; i < PK_UNWIND_NMAPS; i++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", pins, pk_unwind_pins[i]);
		unlink(path);
	}
	rmdir(pins);
	ck_assert_int_eq(pk_unwind_store_open(pins, &e.opts, &s2, err), -ENOENT);
	ck_assert_ptr_null(s2);
	env_free(&e);
}
END_TEST

/* A batch places its files first and puts their tables in at once: a file
 * it names twice gets one entry, the table it needs once. */
START_TEST(test_batch_names_file_twice)
{
	char demo[4096];
	struct pk_unwind_file f[2];
	struct pk_unwind_stats st = {};
	struct env e;
	int fd;

	env_init(&e, 4 << 20, 8);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	f[0] = f[1] = file_of(demo);
	add(&e, f, 2, &st);
	ck_assert_uint_eq(st.files, 1);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.shared, 0);
	ck_assert_uint_eq(file_info(&e, f[0].key).table, 0);
	ck_assert_uint_eq(alloc_of(&e).tables, 1);
	fd = table_array_fd(&e, 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_lt(table_array_fd(&e, 1), 0);
	env_free(&e);
}
END_TEST

/* A batch that fails after its tables were placed (here unwind_rows
 * refuses the arrays: its inner maps have another value size) gives their
 * room back and forgets them: the next add of the same file, by the same
 * store, loads it anew rather than pointing at a table never inserted. */
START_TEST(test_failed_batch_takes_its_tables_back)
{
	LIBBPF_OPTS(bpf_map_create_opts, inner_o, .map_flags = BPF_F_INNER_MAP);
	LIBBPF_OPTS(bpf_map_create_opts, outer_o);
	struct pk_unwind_file f[1];
	struct pk_unwind_stats st = {};
	struct pk_unwind_alloc a;
	struct pk_table_info ti;
	char demo[4096], err[PK_ERR_LEN];
	int good, inner, ret;
	struct env e;

	env_init(&e, 4 << 20, 8);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	f[0] = file_of(demo);
	/* the store's unwind_rows fd number now holds a map that refuses */
	good = dup(e.fds.rows);
	ck_assert_int_ge(good, 0);
	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bad_inner", sizeof(__u32), 8, 1, &inner_o);
	ck_assert_int_ge(inner, 0);
	outer_o.inner_map_fd = inner;
	ret = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "bad_rows", sizeof(__u32),
			     sizeof(__u32), e.caps.max_tables, &outer_o);
	ck_assert_int_ge(ret, 0);
	ck_assert_int_eq(dup2(ret, e.fds.rows), e.fds.rows);
	close(ret);
	close(inner);

	ret = pk_unwind_store_add(e.s, f, 1, &st, err);
	ck_assert_int_lt(ret, 0);
	ck_assert_msg(strstr(err, "cannot add to unwind_rows"), "%s", err);
	a = alloc_of(&e);
	ck_assert_uint_eq(a.live, 0);
	ck_assert_uint_eq(a.rows, 0);
	ck_assert_uint_eq(a.rules, 0);
	ck_assert_uint_eq(a.bytes, 0);
	ck_assert_int_lt(bpf_map_lookup_elem(e.fds.files, &f[0].key, &ti), 0);

	/* the right map back under the same fd number: the same store loads
	 * the file, into a table the BPF side finds */
	ck_assert_int_eq(dup2(good, e.fds.rows), e.fds.rows);
	close(good);
	memset(&st, 0, sizeof(st));
	add(&e, f, 1, &st);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.shared, 0);
	{
		__u32 table = file_info(&e, f[0].key).table;

		ck_assert_int_eq(bpf_map_lookup_elem(e.fds.tables, &table, &ti), 0);
		ck_assert_uint_gt(ti.nrows, 0);
		expect_table_of(&e, demo, table);
		ck_assert_uint_eq(alloc_of(&e).live, 1);
		ck_assert_uint_eq(alloc_of(&e).rows, ti.nrows);
	}
	env_free(&e);
}
END_TEST

/* A table bigger than the room left under the memory limit is refused
 * with one line naming the file and why, and the maps stay as they were:
 * the next table that fits goes where it would have. */
START_TEST(test_refused_no_room)
{
	struct eh_cache_opts co = { .sz = sizeof(co) };
	const __u64 limit = 128 << 10;
	struct pk_unwind_file f[2];
	struct pk_unwind_stats st = {};
	struct eh_unwind_table *t;
	char eherr[PK_ERR_LEN];
	struct pk_file_info fi;
	char demo[4096], want[512];
	__u32 libc_rows, libc_rules;
	__u64 demo_bytes;
	struct env e;

	env_init(&e, limit, 4);
	co.cache_dir = e.cache;
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	ck_assert_int_gt(eh_cache_get(EH_TEST_LIBC, &co, &t, NULL, 0, eherr), 0);
	libc_rows = eh_unwind_table_header(t)->nrows;
	libc_rules = eh_unwind_table_header(t)->nrules;
	eh_unwind_table_free(t);
	ck_assert_uint_gt(libc_rows * 6ull, limit);	/* the test's premise */
	ck_assert_uint_gt(pk_unwind_table_bytes(libc_rows, libc_rules), limit);

	f[0] = file_of(EH_TEST_LIBC);
	f[0].name = "libc";
	f[1] = file_of(demo);
	add(&e, f, 2, &st);
	snprintf(want, sizeof(want),
		 "test: libc: unwind table refused: %u rows need %llu KiB of kernel memory, "
		 "%llu KiB free of %llu KiB (probe-load --table-memory)\n", libc_rows,
		 (unsigned long long)pk_unwind_table_bytes(libc_rows, libc_rules) >> 10,
		 (unsigned long long)limit >> 10, (unsigned long long)limit >> 10);
	ck_assert_str_eq(env_log(&e), want);
	ck_assert_uint_eq(st.refused, 1);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.files, 2);
	fi = file_info(&e, f[0].key);
	ck_assert_uint_eq(fi.table, PK_TABLE_NONE);
	ck_assert_uint_eq(fi.flags, PK_FILE_REFUSED);
	fi = file_info(&e, f[1].key);
	ck_assert_uint_eq(fi.table, 0);	/* libc took no index */
	demo_bytes = expect_table_of(&e, demo, 0);
	ck_assert_uint_le(demo_bytes, limit);
	ck_assert_uint_eq(alloc_of(&e).bytes, demo_bytes);
	ck_assert_uint_eq(alloc_of(&e).tables, 1);
	ck_assert_int_eq(table_array_fd(&e, 1), -1);
	env_free(&e);
}
END_TEST

/* Not an ELF, no CFI: refused, one line each, no table. Missing: left out. */
START_TEST(test_refused_no_table)
{
	char text[128], nocfi[128], want[1024], *cc[] = { "objcopy", "--remove-section=.eh_frame",
		"--remove-section=.eh_frame_hdr", "--remove-section=.debug_frame", NULL, NULL, NULL };
	char demo[4096];
	struct pk_unwind_file f[4];
	struct pk_unwind_stats st = {};
	struct pk_file_info fi;
	__u8 one = 1;
	FILE *fp;
	struct env e;

	env_init(&e, 1 << 20, 4);
	snprintf(text, sizeof(text), "%s/text", e.dir);
	fp = fopen(text, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("not an ELF file at all\n", fp);
	fclose(fp);
	snprintf(nocfi, sizeof(nocfi), "%s/nocfi", e.dir);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	cc[4] = demo;
	cc[5] = nocfi;
	ck_assert_int_eq(pk_test_run(cc, NULL, NULL), 0);
	f[0] = file_of(text);
	f[1] = file_of(nocfi);
	f[2] = file_of(nocfi);
	f[2].path = "/nonexistent/file";	/* same key: the first entry stands */
	f[3] = (struct pk_unwind_file){ .path = "/nonexistent/file", .key = { 7, 7 } };
	/* as the kernel leaves it after reporting the file */
	ck_assert_int_eq(bpf_map_update_elem(e.fds.seen, &f[3].key, &one, BPF_ANY), 0);
	add(&e, f, 4, &st);
	snprintf(want, sizeof(want),
		 "test: %s: unwind table refused: not an ELF file\n"
		 "test: %s: unwind table refused: no .eh_frame or .debug_frame section\n",
		 text, nocfi);
	ck_assert_str_eq(env_log(&e), want);
	ck_assert_uint_eq(st.refused, 2);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.tables, 0);
	ck_assert_uint_eq(file_info(&e, f[0].key).flags, PK_FILE_REFUSED);
	ck_assert_uint_eq(file_info(&e, f[1].key).table, PK_TABLE_NONE);
	ck_assert_uint_eq(alloc_of(&e).rows, 0);
	/* gone: no entry, nothing said, and no longer "reported" so that
	 * the kernel reports it again */
	ck_assert_uint_eq(st.gone, 1);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.files, &f[3].key, &fi), -ENOENT);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.seen, &f[3].key, &one), -ENOENT);
	env_free(&e);
}
END_TEST

/* A damaged cache file is rebuilt, and the maps get the rebuilt table. */
START_TEST(test_corrupt_cache_rebuilt)
{
	struct eh_cache_opts co = { .sz = sizeof(co) };
	struct pk_unwind_file f;
	struct pk_unwind_stats st = {};
	struct eh_unwind_table *t;
	char eherr[PK_ERR_LEN];
	char demo[4096], cache_file[4096];
	const struct pk_unwind_header *h;
	struct env e;
	FILE *fp;
	long off;

	env_init(&e, 1 << 20, 4);
	co.cache_dir = e.cache;
	f = file_of(pk_test_build_path("fixtures/demo", demo, sizeof(demo)));
	ck_assert_int_eq(eh_cache_get(demo, &co, &t, cache_file, sizeof(cache_file), eherr),
			 EH_CACHE_BUILT);
	h = eh_unwind_table_header(t);
	off = h->pcs_off + 4 * (h->nrows / 2);	/* a PC in the middle */
	eh_unwind_table_free(t);
	fp = fopen(cache_file, "r+");
	ck_assert_ptr_nonnull(fp);
	fseek(fp, off, SEEK_SET);
	fputc(0x5a, fp);
	fclose(fp);

	add(&e, &f, 1, &st);
	ck_assert_uint_eq(st.built, 1);
	ck_assert_uint_eq(st.hit, 0);
	ck_assert_str_eq(env_log(&e), "");
	expect_table_of(&e, demo, file_info(&e, f.key).table);	/* valid again */
	env_free(&e);
}
END_TEST

/* A cache that cannot be written (a file where its root would be, as a
 * full or read-only disk refuses it): the table built is loaded all the
 * same, not refused, and nothing is logged for the file (the program says
 * it once, at its end: lib/cli.h). */
START_TEST(test_cache_not_written)
{
	struct eh_cache_opts co = { .sz = sizeof(co) };
	struct pk_unwind_stats st = {};
	struct eh_cache_unsaved before, after;
	struct eh_unwind_table *t;
	char eherr[PK_ERR_LEN], demo[4096], blocker[128], root[160];
	struct pk_unwind_file f;
	struct env e;

	env_init(&e, 1 << 20, 4);
	snprintf(blocker, sizeof(blocker), "%s/blocker", e.cache);
	snprintf(root, sizeof(root), "%s/cache", blocker);
	eh_copy_file(EH_TEST_LIBC, blocker, 16);
	e.opts.cache_dir = root;
	env_renew(&e);
	f = file_of(pk_test_build_path("fixtures/demo", demo, sizeof(demo)));
	eh_cache_unsaved(&before);
	add(&e, &f, 1, &st);
	eh_cache_unsaved(&after);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.built, 1);
	ck_assert_uint_eq(st.refused, 0);
	ck_assert_uint_eq(after.writes, before.writes + 1);
	ck_assert_str_eq(env_log(&e), "");
	/* the table loaded is the one a writable cache keeps */
	co.cache_dir = e.cache;
	ck_assert_int_eq(eh_cache_get(demo, &co, &t, NULL, 0, eherr), EH_CACHE_BUILT);
	eh_unwind_table_free(t);
	expect_table_of(&e, demo, file_info(&e, f.key).table);
	env_free(&e);
}
END_TEST

/* The vDSO: keyed {PK_VDSO_DEV, PK_VDSO_INO}, one segment over the whole
 * image, and the table of the image this process maps. */
START_TEST(test_vdso)
{
	struct pk_unwind_file f = { .path = NULL };
	struct pk_unwind_stats st = {};
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long long start, end;
	char image[128], line[512];
	struct pk_file_info fi;
	struct env e;
	FILE *fp;

	ck_assert_uint_ne(base, 0);
	fp = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(fp);
	start = end = 0;
	while (fgets(line, sizeof(line), fp))
		if (strstr(line, "[vdso]"))
			ck_assert_int_eq(sscanf(line, "%llx-%llx", &start, &end), 2);
	fclose(fp);
	ck_assert_uint_eq(start, base);

	env_init(&e, 1 << 20, 4);
	snprintf(image, sizeof(image), "%s/vdso.so", e.dir);
	fp = fopen(image, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite((void *)base, 1, end - start, fp), end - start);
	fclose(fp);

	f.key = (struct pk_file_key){ 1, 2 };	/* ignored: the vDSO has its own */
	add(&e, &f, 1, &st);
	ck_assert_str_eq(env_log(&e), "");
	ck_assert_uint_eq(st.tables, 1);
	fi = file_info(&e, (struct pk_file_key){ PK_VDSO_DEV, PK_VDSO_INO });
	ck_assert_uint_eq(fi.flags, 0);
	ck_assert_uint_eq(fi.nsegs, 1);
	ck_assert_uint_eq(fi.segs[0].off, 0);
	ck_assert_uint_eq(fi.segs[0].end, end - start);
	{
		struct pk_file_seg want[8];

		/* the image's own bias, over the whole mapping */
		ck_assert_uint_eq(readelf_segs(image, want), 1);
		ck_assert_int_eq(fi.segs[0].bias, want[0].bias);
	}
	expect_table_of(&e, image, fi.table);	/* same build-id, same cache file */
	env_free(&e);
}
END_TEST

/* A process that maps PATH executable until *GO is closed: its pid. */
static pid_t mapper_start(const char *path, int *go)
{
	int ready[2], wait_fd[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(wait_fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(path, O_RDONLY);
		void *p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_EXEC,
						     MAP_PRIVATE, fd, 0);

		close(wait_fd[1]);
		if (write(ready[1], p == MAP_FAILED ? "n" : "y", 1) != 1)
			_exit(1);
		while (read(wait_fd[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(wait_fd[0]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(c, 'y');
	close(ready[0]);
	*go = wait_fd[1];
	return pid;
}

static void mapper_stop(pid_t pid, int go)
{
	int status;

	close(go);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The table of a private copy of libc, mapped by a process that then
 * exits, is given back: the bytes come back to the count, the file's
 * entries go (unwind_seen too: it is reported again when mapped again),
 * and the room is used again: libc's own table, too big for the limit
 * while the copy's was there, fits. A file a live process maps keeps its
 * table. */
START_TEST(test_reclaim_gone_file)
{
	struct eh_cache_opts co = { .sz = sizeof(co) };
	struct pk_unwind_file f[2];
	struct pk_unwind_stats st = {};
	struct eh_unwind_table *t;
	char copy[128], demo[4096], eherr[PK_ERR_LEN], err[PK_ERR_LEN];
	struct pk_unwind_alloc a;
	struct pk_file_info fi;
	__u64 libc_bytes, demo_bytes;
	__u8 one = 1;
	pid_t pid;
	int go;
	struct env e;

	env_init(&e, 1 << 20, 4);	/* reset below, to libc's size */
	co.cache_dir = e.cache;
	ck_assert_int_gt(eh_cache_get(EH_TEST_LIBC, &co, &t, NULL, 0, eherr), 0);
	libc_bytes = pk_unwind_table_bytes(eh_unwind_table_header(t)->nrows,
					   eh_unwind_table_header(t)->nrules);
	eh_unwind_table_free(t);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	ck_assert_int_gt(eh_cache_get(demo, &co, &t, NULL, 0, eherr), 0);
	demo_bytes = pk_unwind_table_bytes(eh_unwind_table_header(t)->nrows,
					   eh_unwind_table_header(t)->nrules);
	eh_unwind_table_free(t);
	/* room for one libc-sized table and demo's, not two libc's */
	e.caps.max_bytes = libc_bytes + demo_bytes;
	env_renew(&e);

	snprintf(copy, sizeof(copy), "%s/libc-copy.so", e.dir);
	eh_copy_file(EH_TEST_LIBC, copy, SIZE_MAX);
	/* the copy's build-id is libc's: strip it so that it is a table of
	 * its own (keyed by content) */
	{
		char *cmd[] = { "objcopy", "--remove-section=.note.gnu.build-id", copy, NULL };

		ck_assert_int_eq(pk_test_run(cmd, NULL, NULL), 0);
	}
	pid = mapper_start(copy, &go);
	f[0] = file_of(copy);
	f[1] = file_of(demo);
	add(&e, f, 2, &st);
	ck_assert_uint_eq(st.tables, 2);
	ck_assert_uint_eq(file_info(&e, f[0].key).table, 0);
	ck_assert_uint_eq(expect_table_of(&e, copy, 0), libc_bytes);
	ck_assert_uint_eq(expect_table_of(&e, demo, 1), demo_bytes);
	ck_assert_int_eq(bpf_map_update_elem(e.fds.seen, &f[0].key, &one, BPF_ANY), 0);

	/* the copy is mapped: nothing to give back (demo: nobody maps it) */
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(pk_unwind_store_reclaim(e.s, &st, err), 0);
	ck_assert_uint_eq(st.freed, 1);
	ck_assert_uint_eq(st.freed_bytes, demo_bytes);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.files, &f[1].key, &fi), -ENOENT);
	ck_assert_uint_eq(file_info(&e, f[0].key).table, 0);
	ck_assert_int_eq(table_array_fd(&e, 1), -1);

	mapper_stop(pid, go);
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(pk_unwind_store_reclaim(e.s, &st, err), 0);
	ck_assert_uint_eq(st.freed, 1);
	ck_assert_uint_eq(st.forgotten, 1);
	ck_assert_uint_eq(st.freed_bytes, libc_bytes);
	a = alloc_of(&e);
	ck_assert_uint_eq(a.bytes, 0);
	ck_assert_uint_eq(a.live, 0);
	ck_assert_uint_eq(a.rows, 0);
	ck_assert_uint_eq(a.freed, 2);
	ck_assert_uint_eq(a.freed_bytes, libc_bytes + demo_bytes);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.files, &f[0].key, &fi), -ENOENT);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.seen, &f[0].key, &one), -ENOENT);
	ck_assert_int_eq(table_array_fd(&e, 0), -1);

	/* libc (this process maps it) fits in the room given back */
	f[0] = file_of(EH_TEST_LIBC);
	memset(&st, 0, sizeof(st));
	add(&e, f, 2, &st);
	ck_assert_str_eq(env_log(&e), "");
	ck_assert_uint_eq(st.tables, 2);
	ck_assert_uint_eq(st.refused, 0);
	ck_assert_uint_eq(alloc_of(&e).bytes, libc_bytes + demo_bytes);
	ck_assert_uint_eq(expect_table_of(&e, EH_TEST_LIBC, file_info(&e, f[0].key).table),
			  libc_bytes);
	/* and it stays while this process maps it */
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(pk_unwind_store_reclaim(e.s, &st, err), 0);
	ck_assert_uint_eq(file_info(&e, f[0].key).flags, 0);
	env_free(&e);
}
END_TEST

/* With every index taken, a table is given back when room is needed, and
 * its index is handed out again under a new gen (what keeps the BPF rule
 * cache from serving the old table's rules). The files of the batch being
 * added are kept even though no process maps them yet. */
START_TEST(test_reclaim_reuses_index)
{
	struct pk_unwind_file f[2];
	struct pk_unwind_stats st = {};
	char copy[128], demo[4096];
	struct pk_table_info ti;
	__u32 zero = 0;
	pid_t pid;
	int go;
	struct env e;

	env_init(&e, 16 << 20, 1);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	snprintf(copy, sizeof(copy), "%s/demo-copy", e.dir);
	eh_copy_file(demo, copy, SIZE_MAX);
	pid = mapper_start(copy, &go);
	f[0] = file_of(copy);
	add(&e, f, 1, &st);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.tables, &zero, &ti), 0);
	ck_assert_uint_eq(ti.gen, 1);

	/* libc while the copy is mapped: no index left, nothing to give back */
	f[0] = file_of(EH_TEST_LIBC);
	f[0].name = "libc";
	memset(&st, 0, sizeof(st));
	add(&e, f, 1, &st);
	ck_assert_str_eq(env_log(&e), "test: libc: unwind table refused: 1 tables loaded, the most there is room for\n");
	ck_assert_uint_eq(st.freed, 0);
	ck_assert_int_eq(bpf_map_delete_elem(e.fds.files, &f[0].key), 0);

	mapper_stop(pid, go);
	/* a file nobody maps yet, in the batch: loaded in the room of the copy */
	f[0] = file_of(EH_TEST_LIBC);
	f[1] = file_of("/bin/true");
	f[1].name = "true";
	memset(&st, 0, sizeof(st));
	add(&e, &f[1], 1, &st);
	ck_assert_uint_eq(st.freed, 1);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(file_info(&e, f[1].key).table, 0);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.tables, &zero, &ti), 0);
	ck_assert_uint_eq(ti.gen, 2);
	expect_table_of(&e, "/bin/true", 0);
	ck_assert_uint_eq(alloc_of(&e).tables, 1);
	ck_assert_uint_eq(alloc_of(&e).live, 1);
	env_free(&e);
}
END_TEST

START_TEST(test_kernel_dev)
{
	ck_assert_uint_eq(pk_kernel_dev(8, 1), (8ull << 20) | 1);
	ck_assert_uint_eq(pk_kernel_dev(0, 0), 0);
	ck_assert_uint_eq(pk_kernel_dev(259, 0x12345), (259ull << 20) | 0x12345);
}
END_TEST

Suite *suite_unwind_store(void)
{
	Suite *s = suite_create("unwind_store");
	TCase *tc = tcase_create("store");

	tcase_add_test(tc, test_kernel_dev);
	if (pk_test_need_root(s, "the unwind store needs BPF maps")) {
		tcase_set_timeout(tc, 60);
		tcase_add_test(tc, test_libc_and_fixture);
		tcase_add_test(tc, test_shared_build_id);
		tcase_add_test(tc, test_batch_names_file_twice);
		tcase_add_test(tc, test_failed_batch_takes_its_tables_back);
		tcase_add_test(tc, test_refused_no_room);
		tcase_add_test(tc, test_refused_no_table);
		tcase_add_test(tc, test_corrupt_cache_rebuilt);
		tcase_add_test(tc, test_cache_not_written);
		tcase_add_test(tc, test_vdso);
		tcase_add_test(tc, test_reclaim_gone_file);
		tcase_add_test(tc, test_reclaim_reuses_index);
	}
	suite_add_tcase(s, tc);
	return s;
}
