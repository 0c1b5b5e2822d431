// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind store against real BPF maps (made here with bpf_map_create, no
 * program; root only): tables read back through the map syscalls, not the
 * store's mmap, must equal their cache files byte for byte; one table per
 * build-id; refusals leave the maps consistent and say so in one line; a
 * corrupt cache file is rebuilt; the vDSO gets its table.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

static int array(const char *name, __u32 value_size, __u32 n, bool mmapable)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = mmapable ? BPF_F_MMAPABLE : 0);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(__u32), value_size, n, &o);

	ck_assert_msg(fd >= 0, "bpf_map_create %s: %s", name, strerror(errno));
	return fd;
}

/* Maps as probe-load sizes them for ROWS rows, RULES rules, TABLES tables. */
static void maps_create(struct env *e, __u32 rows, __u32 rules, __u32 tables)
{
	e->caps = (struct pk_unwind_alloc){ .max_rows = rows, .max_rules = rules,
					    .max_tables = tables };
	e->fds.files = bpf_map_create(BPF_MAP_TYPE_HASH, "unwind_files", sizeof(struct pk_file_key),
				      sizeof(struct pk_file_info), 256, NULL);
	ck_assert_int_ge(e->fds.files, 0);
	e->fds.tables = array("unwind_tables", sizeof(struct pk_table_info), tables, false);
	e->fds.pcs = array("unwind_pcs", sizeof(struct pk_pcs_chunk),
			   (rows + PK_PCS_PER_CHUNK - 1) / PK_PCS_PER_CHUNK, true);
	e->fds.rule_ids = array("unwind_rule_ids", sizeof(struct pk_rule_ids_chunk),
				(rows + PK_RULE_IDS_PER_CHUNK - 1) / PK_RULE_IDS_PER_CHUNK, true);
	e->fds.rules = array("unwind_rules", sizeof(struct pk_unwind_rule), rules, true);
	e->fds.alloc = array("unwind_alloc", sizeof(struct pk_unwind_alloc), 1, false);
	e->fds.seen = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "unwind_seen", sizeof(struct pk_file_key),
				     1, 64, NULL);
	ck_assert_int_ge(e->fds.seen, 0);
}

static void env_store(struct env *e)
{
	char err[PK_ERR_LEN];
	int ret = pk_unwind_store_create(&e->fds, &e->caps, e->dir, &e->opts, &e->s, err);

	ck_assert_msg(ret == 0, "create: %d %s", ret, err);
}

static void env_init(struct env *e, __u32 rows, __u32 rules, __u32 tables)
{
	memset(e, 0, sizeof(*e));
	eh_tmpdir(e->dir, sizeof(e->dir));
	eh_tmpdir(e->cache, sizeof(e->cache));
	e->log = open_memstream(&e->log_buf, &e->log_len);
	e->opts = (struct pk_unwind_store_opts){ .cache_dir = e->cache,
						 .jobs = 2, .log = e->log, .prog = "test" };
	maps_create(e, rows, rules, tables);
	env_store(e);
}

/* New maps and store, same cache and directories. */
static void env_renew(struct env *e)
{
	pk_unwind_store_free(e->s);
	pk_unwind_fds_close(&e->fds);
	maps_create(e, e->caps.max_rows, e->caps.max_rules, e->caps.max_tables);
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

/* Rows [start, start + n) of a chunked array, through the syscalls. */
static void *read_rows(int fd, __u32 per_chunk, size_t elem, __u32 start, __u32 n)
{
	size_t chunk_bytes = per_chunk * elem;
	__u32 first = start / per_chunk, last = (start + n + per_chunk - 1) / per_chunk;
	char *buf = malloc((last - first) * chunk_bytes + 1), *out;

	ck_assert_ptr_nonnull(buf);
	for (__u32 c = first; c < last; c++)
		ck_assert_int_eq(bpf_map_lookup_elem(fd, &c, buf + (c - first) * chunk_bytes), 0);
	out = malloc(n * elem + 1);
	ck_assert_ptr_nonnull(out);
	memcpy(out, buf + (start - first * per_chunk) * elem, n * elem);
	free(buf);
	return out;
}

/* FILE's table in the maps equals its cache file (a hit now). */
static void expect_table_of(const struct env *e, const char *path, __u32 table)
{
	struct eh_cache_opts co = { .sz = sizeof(co), .cache_dir = e->cache };
	const struct pk_unwind_header *h;
	struct eh_unwind_table *t;
	struct pk_table_info ti;
	char eherr[PK_ERR_LEN];
	const char *base;
	void *pcs, *ids;
	int ret;

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
	ck_assert_uint_eq(ti.build_id_len, h->build_id_len);
	ck_assert_mem_eq(ti.build_id, h->build_id, h->build_id_len);
	ck_assert_uint_le(ti.row_start + ti.nrows, alloc_of(e).rows);
	ck_assert_uint_le(ti.rule_start + ti.nrules, alloc_of(e).rules);

	pcs = read_rows(e->fds.pcs, PK_PCS_PER_CHUNK, 4, ti.row_start, ti.nrows);
	ck_assert_mem_eq(pcs, base + h->pcs_off, ti.nrows * 4);
	ids = read_rows(e->fds.rule_ids, PK_RULE_IDS_PER_CHUNK, 2, ti.row_start, ti.nrows);
	ck_assert_mem_eq(ids, base + h->rule_ids_off, ti.nrows * 2);
	for (__u32 i = 0; i < ti.nrules; i++) {
		struct pk_unwind_rule r;
		__u32 k = ti.rule_start + i;

		ck_assert_int_eq(bpf_map_lookup_elem(e->fds.rules, &k, &r), 0);
		ck_assert_mem_eq(&r, base + h->rules_off + i * sizeof(r), sizeof(r));
	}
	free(pcs);
	free(ids);
	eh_unwind_table_free(t);
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
	struct env e;

	env_init(&e, 1 << 16, 1 << 12, 16);
	add(&e, f, 2, &st);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.tables, 2);
	ck_assert_uint_eq(st.built, 2);
	ck_assert_uint_eq(st.hit + st.shared + st.refused, 0);
	ck_assert_str_eq(env_log(&e), "");
	for (int i = 0; i < 2; i++) {
		fi[i] = file_info(&e, f[i].key);
		ck_assert_uint_eq(fi[i].flags, 0);
		expect_table_of(&e, f[i].path, fi[i].table);
		expect_segs_readelf(f[i].path, &fi[i]);
	}
	ck_assert_uint_ne(fi[0].table, fi[1].table);
	a = alloc_of(&e);
	ck_assert_uint_eq(a.tables, 2);
	ck_assert_uint_eq(a.rows, st.rows);
	ck_assert_uint_eq(a.rules, st.rules);
	ck_assert_uint_eq(st.kernel_bytes, 6ull * st.rows + 16ull * st.rules);
	ck_assert_uint_eq(a.max_rows, 1 << 16);

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

	env_init(&e, 1 << 14, 1 << 10, 8);
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

/* A table bigger than the room left is refused with one line, and the maps
 * stay as they were: the next table that fits goes where it would have. */
START_TEST(test_refused_no_room)
{
	struct eh_cache_opts co = { .sz = sizeof(co) };
	struct pk_unwind_file f[2];
	struct pk_unwind_stats st = {};
	struct eh_unwind_table *t;
	char eherr[PK_ERR_LEN];
	struct pk_file_info fi;
	char demo[4096], want[512];
	__u32 libc_rows, demo_rows;
	struct env e;

	env_init(&e, 1 << 12, 1 << 8, 4);
	co.cache_dir = e.cache;
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	ck_assert_int_gt(eh_cache_get(EH_TEST_LIBC, &co, &t, NULL, 0, eherr), 0);
	libc_rows = eh_unwind_table_header(t)->nrows;
	eh_unwind_table_free(t);
	ck_assert_int_gt(eh_cache_get(demo, &co, &t, NULL, 0, eherr), 0);
	demo_rows = eh_unwind_table_header(t)->nrows;
	eh_unwind_table_free(t);
	ck_assert_uint_gt(libc_rows, 1 << 12);	/* the test's premise */
	ck_assert_uint_le(demo_rows, 1 << 12);

	f[0] = file_of(EH_TEST_LIBC);
	f[0].name = "libc";
	f[1] = file_of(demo);
	add(&e, f, 2, &st);
	snprintf(want, sizeof(want),
		 "test: libc: unwind table refused: %u rows, %u free of %u (--table-rows)\n",
		 libc_rows, 1u << 12, 1u << 12);
	ck_assert_str_eq(env_log(&e), want);
	ck_assert_uint_eq(st.refused, 1);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.files, 2);
	fi = file_info(&e, f[0].key);
	ck_assert_uint_eq(fi.table, PK_TABLE_NONE);
	ck_assert_uint_eq(fi.flags, PK_FILE_REFUSED);
	fi = file_info(&e, f[1].key);
	ck_assert_uint_eq(fi.table, 0);
	ck_assert_uint_eq(alloc_of(&e).rows, demo_rows);
	ck_assert_uint_eq(alloc_of(&e).tables, 1);
	expect_table_of(&e, demo, 0);
	{
		struct pk_table_info ti;
		__u32 k = 0;

		ck_assert_int_eq(bpf_map_lookup_elem(e.fds.tables, &k, &ti), 0);
		ck_assert_uint_eq(ti.row_start, 0);	/* libc took no room */
		ck_assert_uint_eq(ti.rule_start, 0);
	}
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

	env_init(&e, 1 << 12, 1 << 8, 4);
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

	env_init(&e, 1 << 12, 1 << 8, 4);
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

	env_init(&e, 1 << 12, 1 << 8, 4);
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
		tcase_add_test(tc, test_refused_no_room);
		tcase_add_test(tc, test_refused_no_table);
		tcase_add_test(tc, test_corrupt_cache_rebuilt);
		tcase_add_test(tc, test_vdso);
	}
	suite_add_tcase(s, tc);
	return s;
}
