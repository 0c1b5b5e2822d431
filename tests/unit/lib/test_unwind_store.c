// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind store against real BPF maps (made here with bpf_map_create, no
 * program; root only): tables read back through the map syscalls, not the
 * store's mmap, must equal their cache files byte for byte, and cost what
 * the kernel says they cost (fdinfo's memlock); one table per build-id;
 * refusals leave the maps consistent and say so in one line; a corrupt
 * cache file is rebuilt; the vDSO gets its table. The tables of files no
 * process maps any more, given back and their room reused, are the suite's
 * other file's (unwind_store_run.h).
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
#include "unit/lib/unwind_store_run.h"

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
		pk_us_file_of(EH_TEST_LIBC), pk_us_file_of(pk_test_build_path("fixtures/demo", demo, sizeof(demo))),
	};
	struct pk_unwind_stats st = {};
	struct pk_unwind_alloc a;
	struct pk_file_info fi[2];
	__u64 bytes = 0;
	struct env e;

	pk_us_env_init(&e, 16 << 20, 16);
	pk_us_add(&e, f, 2, &st);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.tables, 2);
	ck_assert_uint_eq(st.built, 2);
	ck_assert_uint_eq(st.hit + st.shared + st.refused, 0);
	ck_assert_str_eq(pk_us_env_log(&e), "");
	for (int i = 0; i < 2; i++) {
		fi[i] = pk_us_file_info(&e, f[i].key);
		ck_assert_uint_eq(fi[i].flags, 0);
		bytes += pk_us_expect_table_of(&e, f[i].path, fi[i].table);
		expect_segs_readelf(f[i].path, &fi[i]);
	}
	ck_assert_uint_ne(fi[0].table, fi[1].table);
	a = pk_us_alloc_of(&e);
	ck_assert_uint_eq(a.tables, 2);
	ck_assert_uint_eq(a.live, 2);
	ck_assert_uint_eq(a.rows, st.rows);
	ck_assert_uint_eq(a.rules, st.rules);
	ck_assert_uint_eq(st.kernel_bytes, bytes);	/* what the kernel counts */
	ck_assert_uint_eq(a.bytes, bytes);
	ck_assert_uint_eq(a.max_bytes, 16 << 20);

	/* again: every file has its entry, nothing is done */
	memset(&st, 0, sizeof(st));
	pk_us_add(&e, f, 2, &st);
	ck_assert_uint_eq(st.files + st.tables + st.built + st.hit + st.shared, 0);
	{
		struct pk_unwind_alloc now = pk_us_alloc_of(&e);

		ck_assert_mem_eq(&now, &a, sizeof(a));
	}

	/* new maps, same cache: the tables are hits now */
	pk_us_env_renew(&e);
	memset(&st, 0, sizeof(st));
	pk_us_add(&e, f, 2, &st);
	ck_assert_uint_eq(st.hit, 2);
	ck_assert_uint_eq(st.built, 0);
	pk_us_expect_table_of(&e, f[1].path, pk_us_file_info(&e, f[1].key).table);
	pk_us_env_free(&e);
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

	pk_us_env_init(&e, 4 << 20, 8);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	for (int i = 0; i < 2; i++) {
		snprintf(copy[i], sizeof(copy[i]), "%s/demo%d", e.dir, i);
		eh_copy_file(demo, copy[i], SIZE_MAX);
	}
	f[0] = pk_us_file_of(demo);
	f[1] = pk_us_file_of(copy[0]);
	f[2] = pk_us_file_of(copy[1]);
	pk_us_add(&e, f, 2, &st);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.shared, 1);
	ck_assert_uint_eq(pk_us_file_info(&e, f[0].key).table, 0);
	ck_assert_uint_eq(pk_us_file_info(&e, f[1].key).table, 0);
	ck_assert_uint_eq(pk_us_file_info(&e, f[1].key).flags, 0);
	ck_assert_uint_eq(pk_us_alloc_of(&e).tables, 1);

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
	ck_assert_uint_eq(pk_us_file_info(&e, f[2].key).table, 0);
	ck_assert_uint_eq(pk_us_alloc_of(&e).tables, 1);
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
	pk_us_env_free(&e);
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

	pk_us_env_init(&e, 4 << 20, 8);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	f[0] = f[1] = pk_us_file_of(demo);
	pk_us_add(&e, f, 2, &st);
	ck_assert_uint_eq(st.files, 1);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.shared, 0);
	ck_assert_uint_eq(pk_us_file_info(&e, f[0].key).table, 0);
	ck_assert_uint_eq(pk_us_alloc_of(&e).tables, 1);
	fd = pk_us_table_array_fd(&e, 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_lt(pk_us_table_array_fd(&e, 1), 0);
	pk_us_env_free(&e);
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

	pk_us_env_init(&e, 4 << 20, 8);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	f[0] = pk_us_file_of(demo);
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
	a = pk_us_alloc_of(&e);
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
	pk_us_add(&e, f, 1, &st);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.shared, 0);
	{
		__u32 table = pk_us_file_info(&e, f[0].key).table;

		ck_assert_int_eq(bpf_map_lookup_elem(e.fds.tables, &table, &ti), 0);
		ck_assert_uint_gt(ti.nrows, 0);
		pk_us_expect_table_of(&e, demo, table);
		ck_assert_uint_eq(pk_us_alloc_of(&e).live, 1);
		ck_assert_uint_eq(pk_us_alloc_of(&e).rows, ti.nrows);
	}
	pk_us_env_free(&e);
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

	pk_us_env_init(&e, limit, 4);
	co.cache_dir = e.cache;
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	ck_assert_int_gt(eh_cache_get(EH_TEST_LIBC, &co, &t, NULL, 0, eherr), 0);
	libc_rows = eh_unwind_table_header(t)->nrows;
	libc_rules = eh_unwind_table_header(t)->nrules;
	eh_unwind_table_free(t);
	ck_assert_uint_gt(libc_rows * 6ull, limit);	/* the test's premise */
	ck_assert_uint_gt(pk_unwind_table_bytes(libc_rows, libc_rules), limit);

	f[0] = pk_us_file_of(EH_TEST_LIBC);
	f[0].name = "libc";
	f[1] = pk_us_file_of(demo);
	pk_us_add(&e, f, 2, &st);
	snprintf(want, sizeof(want),
		 "test: libc: unwind table refused: %u rows need %llu KiB of kernel memory, "
		 "%llu KiB free of %llu KiB (probe-load --table-memory)\n", libc_rows,
		 (unsigned long long)pk_unwind_table_bytes(libc_rows, libc_rules) >> 10,
		 (unsigned long long)limit >> 10, (unsigned long long)limit >> 10);
	ck_assert_str_eq(pk_us_env_log(&e), want);
	ck_assert_uint_eq(st.refused, 1);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.files, 2);
	fi = pk_us_file_info(&e, f[0].key);
	ck_assert_uint_eq(fi.table, PK_TABLE_NONE);
	ck_assert_uint_eq(fi.flags, PK_FILE_REFUSED);
	fi = pk_us_file_info(&e, f[1].key);
	ck_assert_uint_eq(fi.table, 0);	/* libc took no index */
	demo_bytes = pk_us_expect_table_of(&e, demo, 0);
	ck_assert_uint_le(demo_bytes, limit);
	ck_assert_uint_eq(pk_us_alloc_of(&e).bytes, demo_bytes);
	ck_assert_uint_eq(pk_us_alloc_of(&e).tables, 1);
	ck_assert_int_eq(pk_us_table_array_fd(&e, 1), -1);
	pk_us_env_free(&e);
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

	pk_us_env_init(&e, 1 << 20, 4);
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
	f[0] = pk_us_file_of(text);
	f[1] = pk_us_file_of(nocfi);
	f[2] = pk_us_file_of(nocfi);
	f[2].path = "/nonexistent/file";	/* same key: the first entry stands */
	f[3] = (struct pk_unwind_file){ .path = "/nonexistent/file", .key = { 7, 7 } };
	/* as the kernel leaves it after reporting the file */
	ck_assert_int_eq(bpf_map_update_elem(e.fds.seen, &f[3].key, &one, BPF_ANY), 0);
	pk_us_add(&e, f, 4, &st);
	snprintf(want, sizeof(want),
		 "test: %s: unwind table refused: not an ELF file\n"
		 "test: %s: unwind table refused: no .eh_frame or .debug_frame section\n",
		 text, nocfi);
	ck_assert_str_eq(pk_us_env_log(&e), want);
	ck_assert_uint_eq(st.refused, 2);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.tables, 0);
	ck_assert_uint_eq(pk_us_file_info(&e, f[0].key).flags, PK_FILE_REFUSED);
	ck_assert_uint_eq(pk_us_file_info(&e, f[1].key).table, PK_TABLE_NONE);
	ck_assert_uint_eq(pk_us_alloc_of(&e).rows, 0);
	/* gone: no entry, nothing said, and no longer "reported" so that
	 * the kernel reports it again */
	ck_assert_uint_eq(st.gone, 1);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.files, &f[3].key, &fi), -ENOENT);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.seen, &f[3].key, &one), -ENOENT);
	pk_us_env_free(&e);
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

	pk_us_env_init(&e, 1 << 20, 4);
	co.cache_dir = e.cache;
	f = pk_us_file_of(pk_test_build_path("fixtures/demo", demo, sizeof(demo)));
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

	pk_us_add(&e, &f, 1, &st);
	ck_assert_uint_eq(st.built, 1);
	ck_assert_uint_eq(st.hit, 0);
	ck_assert_str_eq(pk_us_env_log(&e), "");
	pk_us_expect_table_of(&e, demo, pk_us_file_info(&e, f.key).table);	/* valid again */
	pk_us_env_free(&e);
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

	pk_us_env_init(&e, 1 << 20, 4);
	snprintf(blocker, sizeof(blocker), "%s/blocker", e.cache);
	snprintf(root, sizeof(root), "%s/cache", blocker);
	eh_copy_file(EH_TEST_LIBC, blocker, 16);
	e.opts.cache_dir = root;
	pk_us_env_renew(&e);
	f = pk_us_file_of(pk_test_build_path("fixtures/demo", demo, sizeof(demo)));
	eh_cache_unsaved(&before);
	pk_us_add(&e, &f, 1, &st);
	eh_cache_unsaved(&after);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(st.built, 1);
	ck_assert_uint_eq(st.refused, 0);
	ck_assert_uint_eq(after.writes, before.writes + 1);
	ck_assert_str_eq(pk_us_env_log(&e), "");
	/* the table loaded is the one a writable cache keeps */
	co.cache_dir = e.cache;
	ck_assert_int_eq(eh_cache_get(demo, &co, &t, NULL, 0, eherr), EH_CACHE_BUILT);
	eh_unwind_table_free(t);
	pk_us_expect_table_of(&e, demo, pk_us_file_info(&e, f.key).table);
	pk_us_env_free(&e);
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

	pk_us_env_init(&e, 1 << 20, 4);
	snprintf(image, sizeof(image), "%s/vdso.so", e.dir);
	fp = fopen(image, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite((void *)base, 1, end - start, fp), end - start);
	fclose(fp);

	f.key = (struct pk_file_key){ 1, 2 };	/* ignored: the vDSO has its own */
	pk_us_add(&e, &f, 1, &st);
	ck_assert_str_eq(pk_us_env_log(&e), "");
	ck_assert_uint_eq(st.tables, 1);
	fi = pk_us_file_info(&e, (struct pk_file_key){ PK_VDSO_DEV, PK_VDSO_INO });
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
	pk_us_expect_table_of(&e, image, fi.table);	/* same build-id, same cache file */
	pk_us_env_free(&e);
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
		pk_us_reclaim_tests(tc);
	}
	suite_add_tcase(s, tc);
	return s;
}
