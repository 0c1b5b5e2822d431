// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite reader, its walks and tables (reader_run.h): stacks a walk left
 * incomplete, how walks ended and which rules they stopped at, the
 * unwind tables the reader asks for, and the kernel's own mappings.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "harness/elf_fixture.h"
#include "reading/reader.h"
#include "reading/summary.h"
#include "test_util.h"
#include "unit/reading/reader_run.h"

/* The same, from a DWARF walk that ended with END. */
static size_t dwarf_record(unsigned char *buf, __u32 pid, const char *comm, const __u64 *k,
			   __u16 nk, const __u64 *u, __u16 nu, __u8 end)
{
	size_t size = pk_rd_record(buf, pid, comm, k, nk, u, nu);
	__u32 flags = PK_SAMPLE_USTACK_DWARF;

	memcpy(buf + offsetof(struct pk_event_hdr, flags), &flags, sizeof(flags));
	buf[offsetof(struct pk_sample, ustack_end)] = end;
	return size;
}

/* A walk that stopped early still shows the frames it found, and the
 * deepest stacks (a full DWARF walk under a full kernel stack) fit. */
START_TEST(test_incomplete_walks)
{
	const char *prog = pk_fx_build("prog", pk_fx_c_src, false, "-pie");
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 fn, fn_size, main_addr, main_size, bias;
	__u64 u[PK_MAX_USTACK_DEPTH], k[PK_MAX_STACK_DEPTH];
	char maps[4096] = "", *out, *want;
	size_t len = 0;
	FILE *f = open_memstream(&want, &len);
	struct pk_reader_stats st;
	struct pk_reader *r;

	pk_fx_symbol(prog, "after_tail", &fn, &fn_size);
	pk_fx_symbol(prog, "main", &main_addr, &main_size);
	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	for (size_t i = 0; i < PK_MAX_USTACK_DEPTH; i++)
		u[i] = bias + fn + fn_size / 2;
	for (size_t i = 0; i < PK_MAX_STACK_DEPTH; i++)
		k[i] = 0xffffffff81000210;
	r = pk_rd_new_reader();
	ck_assert_int_eq(pk_reader_handle(r, buf, dwarf_record(buf, PK_FX_PID, "deep", k,
							       PK_MAX_STACK_DEPTH, u,
							       PK_MAX_USTACK_DEPTH,
							       PK_END_DEPTH)), 0);
	u[1] = bias + main_addr + main_size / 2;
	for (__u8 end = PK_END_NO_TABLE; end < PK_END__MAX; end++)
		ck_assert_int_eq(pk_reader_handle(r, buf, dwarf_record(buf, PK_FX_PID, "cut", NULL,
								       0, u, 2, end)), 0);
	/* Nothing found at all: the sample still counts, under its comm. */
	ck_assert_int_eq(pk_reader_handle(r, buf, dwarf_record(buf, PK_FX_PID, "none", NULL, 0,
							       NULL, 0, PK_END_READ_FAULT)), 0);
	out = pk_rd_output(r);
	fprintf(f, "cut;main;after_tail %d\n", PK_END__MAX - PK_END_NO_TABLE);
	fputs("deep", f);
	for (size_t i = 0; i < PK_MAX_USTACK_DEPTH; i++)
		fputs(";after_tail", f);
	for (size_t i = 0; i < PK_MAX_STACK_DEPTH; i++)
		fputs(";k_leaf_[k]", f);
	fputs(" 1\nnone 1\n", f);
	fclose(f);
	ck_assert_str_eq(out, want);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 2 + PK_END__MAX - PK_END_NO_TABLE);
	ck_assert_uint_eq(st.dwarf, st.samples);
	ck_assert_uint_eq(st.bad, 0);
	free(out);
	free(want);
	pk_reader_free(r);
}
END_TEST

/* The walks that stopped at an unsupported rule, by kind: only the kinds
 * some walk met, in the counters' order; nothing when none did. */
START_TEST(test_unsupported_kinds)
{
	__u64 cnt[PK_CNT__MAX] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	pk_summary_unsupported(f, cnt);
	cnt[PK_CNT_UNSUP_CFA] = 3;
	cnt[PK_CNT_UNSUP_RA_REG] = 1;
	cnt[PK_CNT_END_UNSUPPORTED] = 4;
	pk_summary_unsupported(f, cnt);
	fclose(f);
	ck_assert_str_eq(buf, "unsupported rules: 3 CFA expression, 1 return-address register "
			 "not known\n");
	free(buf);
}
END_TEST

/* How walks ended, counted per sample that had one; old and fp samples are
 * not walks. */
START_TEST(test_walk_ends)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	const __u64 k[] = { 0xffffffff81000150 };
	struct pk_reader_stats st;
	struct pk_reader *r = pk_rd_new_reader();
	__u32 dwarf = PK_SAMPLE_USTACK_DWARF;
	__u16 v1_off = 56;
	size_t size;

	for (int i = 0; i < 7; i++)
		pk_reader_handle(r, buf, dwarf_record(buf, 2, "kthreadd", k, 1, NULL, 0,
						      PK_END_COMPLETE));
	for (int i = 0; i < 2; i++)
		pk_reader_handle(r, buf, dwarf_record(buf, 2, "kthreadd", k, 1, NULL, 0,
						      PK_END_NO_TABLE));
	pk_reader_handle(r, buf, dwarf_record(buf, 2, "kthreadd", k, 1, NULL, 0,
					      PK_END_READ_FAULT));
	/* Not walks: --unwind fp, and a layout 1 record whatever its flags say. */
	for (int i = 0; i < 3; i++)
		pk_reader_handle(r, buf, pk_rd_record(buf, 2, "kthreadd", k, 1, NULL, 0));
	size = pk_rd_record(buf, 2, "kthreadd", NULL, 0, NULL, 0);
	memcpy(buf + offsetof(struct pk_event_hdr, flags), &dwarf, sizeof(dwarf));
	memcpy(buf + offsetof(struct pk_sample, frames_off), &v1_off, sizeof(v1_off));
	pk_reader_handle(r, buf, size);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 14);
	ck_assert_uint_eq(st.dwarf, 10);
	ck_assert_uint_eq(st.ends[PK_END_COMPLETE], 7);
	ck_assert_uint_eq(st.ends[PK_END_NO_TABLE], 2);
	ck_assert_uint_eq(st.ends[PK_END_READ_FAULT], 1);
	ck_assert_uint_eq(st.ends[PK_END_LOOP], 0);
	pk_rd_check_summary(pk_summary_ustack_ends, &st,
			    "user stacks: 70.0% complete, 20.0% no table yet, 10.0% read fault\n");
	pk_reader_free(r);
}
END_TEST

START_TEST(test_walk_ends_line)
{
	struct pk_reader_stats st = { .samples = 9 };

	/* No walk: no line. */
	pk_rd_check_summary(pk_summary_ustack_ends, &st, "");
	/* Walks that ended only in ways this reader has no name for: no line. */
	st.dwarf = 2;
	st.ends[PK_END_NONE] = 2;
	pk_rd_check_summary(pk_summary_ustack_ends, &st, "");
	/* Every name, in enum order. */
	st.dwarf = 8;
	st.ends[PK_END_NONE] = 0;
	for (int e = PK_END_COMPLETE; e < PK_END__MAX; e++)
		st.ends[e] = 1;
	pk_rd_check_summary(pk_summary_ustack_ends, &st,
			    "user stacks: 12.5% complete, 12.5% depth limit, 12.5% no table yet, "
			    "12.5% unsupported rule, 12.5% read fault, 12.5% loop, "
			    "12.5% frame-pointer fallback, 12.5% no CFI at PC\n");
	/* A rare reason is not shown as 0.0%; an unknown one only dilutes. */
	memset(st.ends, 0, sizeof(st.ends));
	st.dwarf = 4001;
	st.ends[PK_END_COMPLETE] = 3999;
	st.ends[PK_END_LOOP] = 1;
	pk_rd_check_summary(pk_summary_ustack_ends, &st,
			    "user stacks: 100.0% complete, <0.1% loop\n");
	st.dwarf = 8;
	st.ends[PK_END_COMPLETE] = 5;
	st.ends[PK_END_LOOP] = 0;
	st.ends[PK_END_FP_FALLBACK] = 2;
	pk_rd_check_summary(pk_summary_ustack_ends, &st,
			    "user stacks: 62.5% complete, 25.0% frame-pointer fallback\n");
}
END_TEST

/* What the reader gave the table sink. */
struct sink_log {
	int calls;
	bool path_null, name_null;
	char path[512], name[512];
	struct pk_file_key key;
	int ret;		/* what add() returns */
	int forgets;
	struct pk_file_key forgot;
};

static void sink_forget(void *ctx, const struct pk_file_key *key)
{
	struct sink_log *l = ctx;

	l->forgets++;
	l->forgot = *key;
}

static int sink_add(void *ctx, const struct pk_unwind_file *file, char err[PK_ERR_LEN])
{
	struct sink_log *l = ctx;

	l->calls++;
	l->path_null = !file->path;
	l->name_null = !file->name;
	snprintf(l->path, sizeof(l->path), "%s", file->path ? file->path : "");
	snprintf(l->name, sizeof(l->name), "%s", file->name ? file->name : "");
	l->key = file->key;
	return l->ret ? pk_err(err, l->ret, "store failure %d", l->calls) : 0;
}

static size_t no_table(unsigned char *buf, __u32 pid, __u64 dev, __u64 ino, __u64 start,
		       __u64 end)
{
	struct pk_no_table e = {
		.hdr = { .type = PK_EVENT_NO_TABLE, .size = sizeof(e) },
		.dev = dev, .ino = ino, .vm_start = start, .vm_end = end, .pid = pid,
	};

	memcpy(buf, &e, sizeof(e));
	return sizeof(e);
}

/* <fake proc>/PID/map_files/NAME, a link to TARGET as the kernel has it
 * while the range is mapped. */
static void add_map_file(__u32 pid, const char *name, const char *target)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%u", pk_fx_proc_root(), pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/map_files", pk_fx_proc_root(), pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/map_files/%s", pk_fx_proc_root(), pid, name);
	ck_assert_int_eq(symlink(target, path), 0);
}

START_TEST(test_no_table_events)
{
	struct sink_log log = { 0 };
	struct pk_table_sink sink = { .add = sink_add, .forget = sink_forget, .ctx = &log };
	unsigned char buf[sizeof(struct pk_no_table)];
	char want[512];
	struct pk_reader_stats st;
	struct pk_reader *r = pk_rd_new_reader_with(&sink, NULL);

	add_map_file(PK_FX_PID, "7fabcdef0000-7fabcdef3000", "/usr/lib/libfoo.so.1");
	ck_assert_int_eq(pk_reader_handle(r, buf, no_table(buf, PK_FX_PID, 0x800003, 1234,
							   0x7fabcdef0000, 0x7fabcdef3000)), 0);
	ck_assert_int_eq(log.calls, 1);
	snprintf(want, sizeof(want), "%s/4242/map_files/7fabcdef0000-7fabcdef3000",
		 pk_fx_proc_root());
	ck_assert_str_eq(log.path, want);
	ck_assert_str_eq(log.name, "/usr/lib/libfoo.so.1");
	ck_assert_uint_eq(log.key.dev, 0x800003);
	ck_assert_uint_eq(log.key.ino, 1234);
	ck_assert_int_eq(log.forgets, 0);
	/* The process exited: nothing to read the file through, nothing added;
	 * the kernel may report the file again. */
	ck_assert_int_eq(pk_reader_handle(r, buf, no_table(buf, PK_FX_PID + 1, 0x800003, 99,
							   0x1000, 0x2000)), 0);
	ck_assert_int_eq(log.calls, 1);
	ck_assert_int_eq(log.forgets, 1);
	ck_assert_uint_eq(log.forgot.dev, 0x800003);
	ck_assert_uint_eq(log.forgot.ino, 99);
	/* The vDSO is no file: read from this process. */
	ck_assert_int_eq(pk_reader_handle(r, buf, no_table(buf, PK_FX_PID + 1, PK_VDSO_DEV,
							   PK_VDSO_INO, 0x7ffd0000, 0x7ffd2000)), 0);
	ck_assert_int_eq(log.calls, 2);
	ck_assert(log.path_null);
	ck_assert(log.name_null);
	ck_assert_uint_eq(log.key.dev, PK_VDSO_DEV);
	ck_assert_uint_eq(log.key.ino, PK_VDSO_INO);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.no_table, 3);
	ck_assert_uint_eq(st.tables_added, 2);
	ck_assert_uint_eq(st.tables_gone, 1);
	ck_assert_uint_eq(st.tables_failed, 0);
	ck_assert_uint_eq(st.samples, 0);
	ck_assert_uint_eq(st.bad + st.skipped, 0);
	pk_rd_check_summary(pk_summary_no_table, &st,
			    "unwind tables: 3 files reported without one, 2 added, 1 gone (process exited)\n");
	pk_reader_free(r);
}
END_TEST

/* A PK_EVENT_MAPPING record for the executable mapping of PATH that the
 * fake maps line MAPS_LINE describes ("start-end r-xp offset dev ino path"),
 * as the kernel sends it: its dev_t is MAJOR << 20 | MINOR. */
static size_t mapping_record(unsigned char *buf, __u32 pid, const char *maps_line,
			     const char *path)
{
	struct pk_mapping_event e = { .hdr = { .type = PK_EVENT_MAPPING, .size = sizeof(e) },
				      .pid = pid, .table = PK_TABLE_NONE };
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	struct stat st;

	ck_assert_int_eq(sscanf(maps_line, "%llx-%llx r-xp %llx %x:%x %llu", &start, &end, &off,
				&maj, &min, &ino), 6);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_ino, ino);
	e.vm_start = start;
	e.vm_end = end;
	e.vm_pgoff = off / 4096;
	e.dev = (__u64)major(st.st_dev) << 20 | minor(st.st_dev);
	e.ino = st.st_ino;
	e.path_len = strlen(path);
	ck_assert_uint_lt(e.path_len, sizeof(e.path));
	memcpy(e.path, path, e.path_len);
	memcpy(buf, &e, sizeof(e));
	return sizeof(e);
}

/*
 * A process with no /proc entry at all (gone before the reader started):
 * the mapping the kernel reported names its frames. Another file mapped
 * over the same range later (dlclose, dlopen) starts new stacks: the same
 * address is named after the new file from then on, and the old stack
 * keeps its old name.
 */
START_TEST(test_kernel_mappings)
{
	char prog[256], other[256];
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 die, die_size, bias;
	char maps[4096] = "", maps2[4096] = "", *out;
	const __u32 gone = PK_FX_PID + 17;	/* no /proc/PID in the fake root */
	struct pk_reader_stats st;
	struct pk_reader *r = pk_rd_new_reader();
	__u64 u[1];

	/* pk_fx_build returns the same buffer each time */
	snprintf(prog, sizeof(prog), "%s", pk_fx_build("prog", pk_fx_c_src, false, "-pie"));
	snprintf(other, sizeof(other), "%s", pk_fx_build("other", pk_fx_cxx_src, true, "-pie"));
	pk_fx_symbol(prog, "die", &die, &die_size);
	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_fake_maps(other, PK_FX_PIE_BASE, maps2, sizeof(maps2));
	u[0] = bias + die;
	ck_assert_int_eq(pk_reader_handle(r, buf, mapping_record(buf, gone, maps, prog)), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, pk_rd_record(buf, gone, "prog", NULL, 0, u, 1)),
			 0);
	/* the same mapping again changes nothing */
	ck_assert_int_eq(pk_reader_handle(r, buf, mapping_record(buf, gone, maps, prog)), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, pk_rd_record(buf, gone, "prog", NULL, 0, u, 1)),
			 0);
	/* another file at the same place: its own names, a new stack */
	ck_assert_int_eq(pk_reader_handle(r, buf, mapping_record(buf, gone, maps2, other)), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, pk_rd_record(buf, gone, "prog", NULL, 0, u, 1)),
			 0);
	out = pk_rd_output(r);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.mappings, 3);
	ck_assert_uint_eq(st.stacks, 2);
	ck_assert_uint_eq(st.user_frames, 3);
	ck_assert_uint_eq(st.user_named, 3);
	/* in "other", die's address is other code: two lines, die's twice */
	ck_assert_msg(strncmp(out, "prog;die 2\nprog;", 16) == 0 ||
		      (strstr(out, "\nprog;die 2\n") && !strncmp(out, "prog;", 5)), "got %s", out);
	ck_assert_int_eq(strchr(strchr(out, '\n') + 1, '\n') - out + 1, (long)strlen(out));
	ck_assert_msg(!strstr(out, "prog;die 1\n"), "got %s", out);
	free(out);
	pk_reader_free(r);
}
END_TEST

/* A failing store is no reason to stop reading: one line, then a count. */
START_TEST(test_no_table_failures)
{
	struct sink_log log = { .ret = -EIO };
	struct pk_table_sink sink = { .add = sink_add, .ctx = &log };
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	const __u64 k[] = { 0xffffffff81000150 };
	char *logged = NULL, *out;
	size_t len = 0;
	FILE *f = open_memstream(&logged, &len);
	struct pk_reader_stats st;
	struct pk_reader *r = pk_rd_new_reader_with(&sink, f);

	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pk_reader_handle(r, buf, no_table(buf, 1, PK_VDSO_DEV, PK_VDSO_INO,
								   0x1000, 0x2000)), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, pk_rd_record(buf, 2, "kthreadd", k, 1, NULL, 0)),
			 0);
	fclose(f);
	ck_assert_int_eq(log.calls, 3);
	ck_assert_str_eq(logged, "probe-read: store failure 1\n");
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.tables_failed, 3);
	ck_assert_uint_eq(st.tables_added, 0);
	pk_rd_check_summary(pk_summary_no_table, &st,
			    "unwind tables: 3 files reported without one, 0 added, 3 failed\n");
	out = pk_rd_output(r);
	ck_assert_str_eq(out, "kthreadd;k_middle_[k] 1\n");
	free(out);
	free(logged);
	pk_reader_free(r);
}
END_TEST

/* A session without unwind maps: events counted, nothing else. */
START_TEST(test_no_table_without_sink)
{
	unsigned char buf[sizeof(struct pk_no_table)];
	struct pk_reader_stats st;
	struct pk_reader *r = pk_rd_new_reader();

	add_map_file(PK_FX_PID, "1000-2000", "/bin/true");
	ck_assert_int_eq(pk_reader_handle(r, buf, no_table(buf, PK_FX_PID, 1, 2, 0x1000, 0x2000)),
			 0);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.no_table, 1);
	ck_assert_uint_eq(st.tables_added + st.tables_gone + st.tables_failed, 0);
	pk_reader_free(r);
}
END_TEST

void pk_rd_walk_tests(TCase *tc)
{
	tcase_add_test(tc, test_incomplete_walks);
	tcase_add_test(tc, test_walk_ends);
	tcase_add_test(tc, test_unsupported_kinds);
	tcase_add_test(tc, test_walk_ends_line);
	tcase_add_test(tc, test_no_table_events);
	tcase_add_test(tc, test_kernel_mappings);
	tcase_add_test(tc, test_no_table_failures);
	tcase_add_test(tc, test_no_table_without_sink);
}
