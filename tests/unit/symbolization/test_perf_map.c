// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perf-PID.map files: the parser on hand-written maps (garbage, long lines,
 * lines split across reads, overlapping entries against a naive reference),
 * the file rules (owner, symlink, links, not a file), refresh, and the map
 * node's V8 writes with --perf-basic-prof, read as the running process's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/elf_fixture.h"
#include "symbolization/perf_map.h"
#include "test_util.h"

static struct pk_perf_map *parse(const char *text, size_t len)
{
	struct pk_perf_map *m = pk_perf_map_new();

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(pk_perf_map_feed(m, text, len), 0);
	ck_assert_int_eq(pk_perf_map_finish(m), 0);
	return m;
}

static struct pk_perf_map *parse_str(const char *text)
{
	return parse(text, strlen(text));
}

static void want(const struct pk_perf_map *m, __u64 addr, const char *name, __u64 start)
{
	__u64 got_start = ~0ULL;
	const char *got = pk_perf_map_lookup(m, addr, &got_start);

	if (!name) {
		ck_assert_msg(!got, "%llx: want nothing, got %s", (unsigned long long)addr, got);
		return;
	}
	ck_assert_msg(got && strcmp(got, name) == 0, "%llx: want %s, got %s",
		      (unsigned long long)addr, name, got ? got : "(null)");
	ck_assert_msg(got_start == start, "%llx: %s starts at %llx, got %llx",
		      (unsigned long long)addr, name, (unsigned long long)start,
		      (unsigned long long)got_start);
}

/* What JITs write: V8 ("%x %x %s"), perf-map-agent and CPython (0x and
 * not), names with spaces and anything but a newline. */
START_TEST(test_entries)
{
	struct pk_perf_map *m = parse_str(
		"7f0a1c000040 7c LazyCompile:~spin /tmp/x.js:3:14\n"
		"0x7f0a1c000100 0x40 py::worker:/srv/app.py\n"
		"0X7F0A1C000200 A0 Ljava/lang/String;::hashCode\n"
		"7f0a1c000300\t10\tInterpreted frame\t(tab separated)\n"
		"7f0a1c000400 10  two blanks keep one\n"
		"0 20 at zero\n");
	const struct pk_perf_map_stats *st = pk_perf_map_stats(m);

	want(m, 0x7f0a1c000040, "LazyCompile:~spin /tmp/x.js:3:14", 0x7f0a1c000040);
	want(m, 0x7f0a1c0000bb, "LazyCompile:~spin /tmp/x.js:3:14", 0x7f0a1c000040);
	want(m, 0x7f0a1c0000bc, NULL, 0);
	want(m, 0x7f0a1c00003f, NULL, 0);
	want(m, 0x7f0a1c000120, "py::worker:/srv/app.py", 0x7f0a1c000100);
	want(m, 0x7f0a1c00029f, "Ljava/lang/String;::hashCode", 0x7f0a1c000200);
	want(m, 0x7f0a1c000300, "Interpreted frame\t(tab separated)", 0x7f0a1c000300);
	want(m, 0x7f0a1c000400, " two blanks keep one", 0x7f0a1c000400);
	want(m, 0, "at zero", 0);
	want(m, 0x1f, "at zero", 0);
	want(m, 0x20, NULL, 0);
	want(m, ~0ULL, NULL, 0);
	ck_assert_uint_eq(st->entries, 6);
	ck_assert_uint_eq(st->ranges, 6);
	ck_assert_uint_eq(st->garbage, 0);
	ck_assert_uint_eq(st->pending, 0);
	pk_perf_map_free(m);
}
END_TEST

/* The entries' array (64 first, doubled) at the edges of its growth:
 * none, one, exactly full, one more, powers of two; every entry found. */
START_TEST(test_entries_growth_edges)
{
	static const size_t counts[] = { 0, 1, 63, 64, 65, 128, 129 };

	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		size_t n = counts[c], len = 0, cap = 48 * n + 1;
		char *text = malloc(cap), name[32];
		struct pk_perf_map *m;

		ck_assert_ptr_nonnull(text);
		text[0] = '\0';
		for (size_t i = 0; i < n; i++)
			len += snprintf(text + len, cap - len, "%llx 20 jit_%zu\n",
					0x7f0000000000ULL + 0x100 * i, i);
		m = parse(text, len);
		ck_assert_uint_eq(pk_perf_map_stats(m)->entries, n);
		for (size_t i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "jit_%zu", i);
			want(m, 0x7f0000000000ULL + 0x100 * i + 0x1f, name, 0x7f0000000000ULL + 0x100 * i);
		}
		want(m, 0x7f0000000000ULL + 0x100 * n, NULL, 0);
		pk_perf_map_free(m);
		free(text);
	}
}
END_TEST

/* Lines that are not START SIZE NAME are skipped and counted; the entries
 * around them stay. */
START_TEST(test_garbage)
{
	static const char text[] =
		"1000 10 first\n"
		"\n"
		"   \n"
		"garbage\n"
		"zzzz 10 notahex\n"
		"1000\n"
		"1000 10\n"
		"1000 10 \n"
		"1000 10 \t \n"
		"1000,10,comma\n"
		"-1000 10 minus\n"
		" 1000 10 leading blank\n"
		"1000 zz name\n"
		"1000 10name\n"
		"0x 10 nodigits\n"
		"10000000000000000 1 seventeen digits\n"
		"1000 10000000000000000 size too wide\n"
		"2000 10 nul\0inside\n"
		"3000 10 last\n";
	struct pk_perf_map *m = parse(text, sizeof(text) - 1);
	const struct pk_perf_map_stats *st = pk_perf_map_stats(m);

	want(m, 0x1000, "first", 0x1000);
	want(m, 0x2000, NULL, 0);
	want(m, 0x3000, "last", 0x3000);
	ck_assert_uint_eq(st->entries, 2);
	ck_assert_uint_eq(st->garbage, 17);
	ck_assert_uint_eq(st->too_long, 0);
	pk_perf_map_free(m);
}
END_TEST

/* SIZE 0 covers START alone (perf's lookup matches end == start); an end
 * past 2^64 stops at the top. */
START_TEST(test_sizes)
{
	struct pk_perf_map *m = parse_str("1000 0 empty\n"
					  "ffffffffffffff00 1000 top\n"
					  "fffffffffffff000 0 justone\n");

	want(m, 0xfff, NULL, 0);
	want(m, 0x1000, "empty", 0x1000);
	want(m, 0x1001, NULL, 0);
	want(m, 0xfffffffffffff000, "justone", 0xfffffffffffff000);
	want(m, 0xfffffffffffff001, NULL, 0);
	want(m, 0xffffffffffffff00, "top", 0xffffffffffffff00);
	want(m, 0xfffffffffffffffe, "top", 0xffffffffffffff00);
	want(m, ~0ULL, NULL, 0);	/* the end is exclusive */
	pk_perf_map_free(m);
}
END_TEST

/* Code emitted again where freed code was: the later line wins, whichever
 * way the ranges overlap; what it does not cover stays the earlier one's. */
START_TEST(test_later_wins)
{
	struct pk_perf_map *m = parse_str("1000 100 old\n"
					  "1080 40 inner\n"
					  "1000 100 again\n"
					  "1200 100 A\n"
					  "1180 100 B\n"
					  "2000 10 dup\n"
					  "2000 10 dup2\n"
					  "3000 10 short\n"
					  "2ff0 100 long\n");

	want(m, 0x1000, "again", 0x1000);
	want(m, 0x1090, "again", 0x1000);
	want(m, 0x10ff, "again", 0x1000);
	want(m, 0x1180, "B", 0x1180);
	want(m, 0x127f, "B", 0x1180);
	want(m, 0x1280, "A", 0x1200);	/* A again past B's end, named from A's start */
	want(m, 0x12ff, "A", 0x1200);
	want(m, 0x1300, NULL, 0);
	want(m, 0x2000, "dup2", 0x2000);
	want(m, 0x3005, "long", 0x2ff0);
	pk_perf_map_free(m);

	m = parse_str("1080 40 inner\n1000 100 outer\n");
	want(m, 0x1090, "outer", 0x1000);
	pk_perf_map_free(m);
	m = parse_str("1000 100 outer\n1080 40 inner\n");
	want(m, 0x107f, "outer", 0x1000);
	want(m, 0x1080, "inner", 0x1080);
	want(m, 0x10bf, "inner", 0x1080);
	want(m, 0x10c0, "outer", 0x1000);
	want(m, 0x1100, NULL, 0);
	ck_assert_uint_eq(pk_perf_map_stats(m)->ranges, 3);
	pk_perf_map_free(m);
}
END_TEST

/* xorshift64*: the same maps on every run */
static __u64 rnd(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

struct ref_entry {
	__u64 start, end;
	char name[16];
};

/* The rule stated naively: the last line covering ADDR. */
static const struct ref_entry *ref_lookup(const struct ref_entry *v, size_t n, __u64 addr)
{
	for (size_t i = n; i-- > 0;)
		if (v[i].start <= addr && addr < v[i].end)
			return &v[i];
	return NULL;
}

/* Random maps of many overlapping entries against the naive rule, at every
 * entry's edges and at random addresses. */
START_TEST(test_against_reference)
{
	__u64 seed = 0x9e3779b97f4a7c15ULL;

	for (int round = 0; round < 50; round++) {
		size_t n = 1 + rnd(&seed) % 200, len = 0;
		struct ref_entry *v = calloc(n, sizeof(*v));
		char *text = malloc(n * 64);
		struct pk_perf_map *m;

		ck_assert(v && text);
		for (size_t i = 0; i < n; i++) {
			__u64 size = rnd(&seed) % 0x300;

			v[i].start = 0x10000 + rnd(&seed) % 0x4000;
			v[i].end = v[i].start + (size ? size : 1);
			snprintf(v[i].name, sizeof(v[i].name), "f%zu", i);
			len += sprintf(text + len, "%llx %llx %s\n", (unsigned long long)v[i].start,
				       (unsigned long long)size, v[i].name);
		}
		m = parse(text, len);
		for (size_t k = 0; k < 4 * n + 200; k++) {
			const struct ref_entry *e = &v[k / 4 < n ? k / 4 : 0];
			__u64 addr;

			switch (k < 4 * n ? k % 4 : 4) {
			case 0: addr = e->start; break;
			case 1: addr = e->start - 1; break;
			case 2: addr = e->end - 1; break;
			case 3: addr = e->end; break;
			default: addr = 0xff00 + rnd(&seed) % 0x4400;
			}
			const struct ref_entry *r = ref_lookup(v, n, addr);

			want(m, addr, r ? r->name : NULL, r ? r->start : 0);
		}
		pk_perf_map_free(m);
		free(text);
		free(v);
	}
}
END_TEST

/* The text in pieces of every size from 1 byte: the same map as whole. */
START_TEST(test_split_reads)
{
	static const char text[] = "1000 10 alpha\n"
				   "garbage line\n"
				   "0x2000 0x20 beta gamma\n"
				   "3000 1 c\n";
	struct pk_perf_map *whole = parse_str(text);

	for (size_t piece = 1; piece <= sizeof(text); piece++) {
		struct pk_perf_map *m = pk_perf_map_new();
		const struct pk_perf_map_stats *a = pk_perf_map_stats(whole), *b;

		ck_assert_ptr_nonnull(m);
		for (size_t off = 0; off < sizeof(text) - 1; off += piece) {
			size_t n = sizeof(text) - 1 - off < piece ? sizeof(text) - 1 - off : piece;

			ck_assert_int_eq(pk_perf_map_feed(m, text + off, n), 0);
		}
		ck_assert_int_eq(pk_perf_map_finish(m), 0);
		b = pk_perf_map_stats(m);
		ck_assert_uint_eq(a->entries, b->entries);
		ck_assert_uint_eq(a->garbage, b->garbage);
		ck_assert_uint_eq(b->entries, 3);
		want(m, 0x100f, "alpha", 0x1000);
		want(m, 0x2010, "beta gamma", 0x2000);
		want(m, 0x3000, "c", 0x3000);
		pk_perf_map_free(m);
	}
	pk_perf_map_free(whole);
}
END_TEST

/* A line past PK_PERF_MAP_LINE_MAX is skipped whole, however it is split,
 * and the next one is read; one at the limit is an entry. */
START_TEST(test_long_lines)
{
	size_t big = 1 << 20, n;
	char *text = malloc(big + PK_PERF_MAP_LINE_MAX + 64);
	struct pk_perf_map *m;
	const struct pk_perf_map_stats *st;

	ck_assert_ptr_nonnull(text);
	/* 1 MB line, then a line of exactly the limit, then one byte more */
	n = sprintf(text, "1000 10 ");
	memset(text + n, 'x', big);
	n += big;
	text[n++] = '\n';
	n += sprintf(text + n, "2000 10 ");
	memset(text + n, 'y', PK_PERF_MAP_LINE_MAX - 8);
	n += PK_PERF_MAP_LINE_MAX - 8;
	text[n++] = '\n';
	n += sprintf(text + n, "3000 10 after\n");
	for (size_t piece = 1000; piece; piece = piece < n ? piece * 64 : 0) {
		m = pk_perf_map_new();
		ck_assert_ptr_nonnull(m);
		for (size_t off = 0; off < n; off += piece)
			ck_assert_int_eq(pk_perf_map_feed(m, text + off, n - off < piece ? n - off : piece), 0);
		ck_assert_int_eq(pk_perf_map_finish(m), 0);
		st = pk_perf_map_stats(m);
		ck_assert_uint_eq(st->too_long, 1);
		ck_assert_uint_eq(st->entries, 2);
		want(m, 0x1000, NULL, 0);
		ck_assert_uint_eq(strlen(pk_perf_map_lookup(m, 0x2000, NULL)), PK_PERF_MAP_LINE_MAX - 8);
		want(m, 0x3000, "after", 0x3000);
		pk_perf_map_free(m);
	}
	/* one byte past the limit */
	n = sprintf(text, "2000 10 ");
	memset(text + n, 'y', PK_PERF_MAP_LINE_MAX - 7);
	n += PK_PERF_MAP_LINE_MAX - 7;
	text[n++] = '\n';
	m = parse(text, n);
	ck_assert_uint_eq(pk_perf_map_stats(m)->too_long, 1);
	want(m, 0x2000, NULL, 0);
	pk_perf_map_free(m);
	free(text);
}
END_TEST

/* A last line without its newline is a write in progress: not read yet. */
START_TEST(test_unterminated_last_line)
{
	struct pk_perf_map *m = pk_perf_map_new();

	ck_assert_int_eq(pk_perf_map_feed(m, "1000 10 a\n2000 10 b", 19), 0);
	ck_assert_int_eq(pk_perf_map_finish(m), 0);
	want(m, 0x1000, "a", 0x1000);
	want(m, 0x2000, NULL, 0);
	ck_assert_uint_eq(pk_perf_map_stats(m)->pending, 9);
	ck_assert_int_eq(pk_perf_map_feed(m, "cd\n", 3), 0);
	ck_assert_int_eq(pk_perf_map_finish(m), 0);
	want(m, 0x2000, "bcd", 0x2000);
	ck_assert_uint_eq(pk_perf_map_stats(m)->pending, 0);
	pk_perf_map_free(m);
}
END_TEST

/* --- files ---------------------------------------------------------------- */

static void path_in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", pk_fx_dir(), name);
}

static void append(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

START_TEST(test_file_rules)
{
	char path[256], other[256];
	struct pk_perf_map *m;

	path_in_dir(path, sizeof(path), "perf-1.map");
	pk_fx_write_file(path, "1000 10 jitted\n");
	/* owned by us */
	m = pk_perf_map_load(path, geteuid());
	ck_assert_ptr_nonnull(m);
	want(m, 0x1000, "jitted", 0x1000);
	pk_perf_map_free(m);
	/* missing */
	path_in_dir(other, sizeof(other), "perf-2.map");
	errno = 0;
	ck_assert_ptr_null(pk_perf_map_load(other, geteuid()));
	ck_assert_int_eq(errno, ENOENT);
	/* a symlink, even to a good file */
	ck_assert_int_eq(symlink(path, other), 0);
	errno = 0;
	ck_assert_ptr_null(pk_perf_map_load(other, geteuid()));
	ck_assert_int_eq(errno, ELOOP);
	unlink(other);
	/* two links: one may be someone else's file */
	ck_assert_int_eq(link(path, other), 0);
	errno = 0;
	ck_assert_ptr_null(pk_perf_map_load(path, geteuid()));
	ck_assert_int_eq(errno, EPERM);
	unlink(other);
	/* a directory, a FIFO (not opened for ever) */
	path_in_dir(other, sizeof(other), "dir.map");
	ck_assert_int_eq(mkdir(other, 0755), 0);
	errno = 0;
	ck_assert_ptr_null(pk_perf_map_load(other, geteuid()));
	ck_assert_int_eq(errno, EINVAL);
	path_in_dir(other, sizeof(other), "fifo.map");
	ck_assert_int_eq(mkfifo(other, 0644), 0);
	errno = 0;
	ck_assert_ptr_null(pk_perf_map_load(other, geteuid()));
	ck_assert_int_eq(errno, EINVAL);
	/* an empty file is an empty map */
	path_in_dir(other, sizeof(other), "empty.map");
	pk_fx_write_file(other, "");
	m = pk_perf_map_load(other, geteuid());
	ck_assert_ptr_nonnull(m);
	want(m, 0, NULL, 0);
	pk_perf_map_free(m);
}
END_TEST

/* Owned by the process's user or root, nobody else (needs root to chown). */
START_TEST(test_file_owner)
{
	char path[256];
	struct pk_perf_map *m;

	path_in_dir(path, sizeof(path), "perf-3.map");
	pk_fx_write_file(path, "1000 10 jitted\n");
	ck_assert_int_eq(chown(path, 4321, 4321), 0);
	m = pk_perf_map_load(path, 4321);
	ck_assert_ptr_nonnull(m);
	pk_perf_map_free(m);
	errno = 0;
	ck_assert_ptr_null(pk_perf_map_load(path, 1234));
	ck_assert_int_eq(errno, EPERM);
	ck_assert_int_eq(chown(path, 0, 0), 0);
	m = pk_perf_map_load(path, 1234);
	ck_assert_ptr_nonnull(m);
	pk_perf_map_free(m);
}
END_TEST

START_TEST(test_refresh)
{
	char path[256], tmp[256];
	struct pk_perf_map *m;

	path_in_dir(path, sizeof(path), "perf-4.map");
	pk_fx_write_file(path, "1000 10 a\n2000 10 b");
	m = pk_perf_map_load(path, geteuid());
	ck_assert_ptr_nonnull(m);
	want(m, 0x2000, NULL, 0);
	/* nothing new */
	ck_assert_int_eq(pk_perf_map_refresh(m), 0);
	/* appended: the line in progress ends, two more, one half */
	append(path, "x\n3000 10 c\n1000 10 a2\n4000 1");
	ck_assert_int_eq(pk_perf_map_refresh(m), 3);
	want(m, 0x2000, "bx", 0x2000);
	want(m, 0x3000, "c", 0x3000);
	want(m, 0x1000, "a2", 0x1000);
	want(m, 0x4000, NULL, 0);
	append(path, "0 d\n");
	ck_assert_int_eq(pk_perf_map_refresh(m), 1);
	want(m, 0x400f, "d", 0x4000);
	ck_assert_uint_eq(pk_perf_map_stats(m)->entries, 5);
	/* replaced by another file (a new process with the pid): read anew */
	path_in_dir(tmp, sizeof(tmp), "new.map");
	pk_fx_write_file(tmp, "5000 10 e\n");
	ck_assert_int_eq(rename(tmp, path), 0);
	ck_assert_int_eq(pk_perf_map_refresh(m), 1);
	want(m, 0x1000, NULL, 0);
	want(m, 0x5000, "e", 0x5000);
	/* rewritten shorter in place */
	pk_fx_write_file(path, "6\t1\tf\n");
	ck_assert_int_eq(pk_perf_map_refresh(m), 1);
	want(m, 0x5000, NULL, 0);
	want(m, 0x6, "f", 0x6);
	/* gone: an error, the map as it was */
	unlink(path);
	ck_assert_int_eq(pk_perf_map_refresh(m), -ENOENT);
	want(m, 0x6, "f", 0x6);
	pk_perf_map_free(m);
}
END_TEST

/* This process's own map, found as perf finds it: /tmp/perf-PID.map. */
START_TEST(test_load_pid)
{
	char path[64];
	struct pk_perf_map *m;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	errno = 0;
	ck_assert_ptr_null(pk_perf_map_load_pid(getpid()));
	ck_assert_int_eq(errno, ENOENT);
	pk_fx_write_file(path, "7f0000001000 100 self\n");
	m = pk_perf_map_load_pid(getpid());
	unlink(path);
	ck_assert_ptr_nonnull(m);
	want(m, 0x7f0000001010, "self", 0x7f0000001000);
	pk_perf_map_free(m);
	errno = 0;
	ck_assert_ptr_null(pk_perf_map_load_pid(0x3fffffff));
	ck_assert_int_eq(errno, ESRCH);
}
END_TEST

/*
 * A process in its own pid and mount namespaces (a container's view): its
 * map is /tmp/perf-1.map in its own /tmp (a tmpfs the host does not see),
 * found through its host pid.
 */
START_TEST(test_load_pid_namespaces)
{
	int pids[2], ready[2], go[2];
	pid_t middle, inner = 0;
	struct pk_perf_map *m;
	char c;

	ck_assert_int_eq(pipe(pids), 0);
	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(go), 0);
	middle = fork();
	ck_assert_int_ge(middle, 0);
	if (middle == 0) {
		pid_t child;

		pk_test_die_with_parent(getppid());
		/* only the test holds the writing end of GO: its exit is EOF */
		close(go[1]);
		close(ready[0]);
		if (unshare(CLONE_NEWPID | CLONE_NEWNS))
			_exit(1);
		child = fork();
		if (child == 0) {
			FILE *f;

			/* its parent is outside its pid namespace: getppid() is 0 */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getpid() != 1 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
			    mount("tmpfs", "/tmp", "tmpfs", 0, NULL))
				_exit(1);
			f = fopen("/tmp/perf-1.map", "w");
			if (!f || fputs("1000 10 in-namespace\n", f) < 0 || fclose(f))
				_exit(1);
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			read(go[0], &c, 1);	/* EOF: the test is done */
			_exit(0);
		}
		if (child < 0 || write(pids[1], &child, sizeof(child)) != sizeof(child))
			_exit(1);
		_exit(pk_test_wait(child) == 0 ? 0 : 1);
	}
	close(pids[1]);
	close(ready[1]);
	close(go[0]);
	ck_assert_int_eq(read(pids[0], &inner, sizeof(inner)), sizeof(inner));
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	m = pk_perf_map_load_pid(inner);
	close(go[1]);
	ck_assert_msg(m, "pk_perf_map_load_pid(%d): %s", (int)inner, strerror(errno));
	want(m, 0x1005, "in-namespace", 0x1000);
	pk_perf_map_free(m);
	ck_assert_int_eq(pk_test_wait(middle), 0);
	close(pids[0]);
	close(ready[0]);
}
END_TEST

/* --- a real JIT --------------------------------------------------------------- */

#define NODE "/usr/bin/node"

/*
 * node (V8) with --perf-basic-prof writes /tmp/perf-PID.map as it compiles.
 * Its map, read from the running process, against the naive rule over
 * the same bytes parsed with sscanf: every line an entry, every entry's
 * first and last byte named as the last line covering it says, and the
 * script's own function among the names.
 */
START_TEST(test_node_map)
{
	static const char script[] =
		"function pkPerfMapSpin(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }\n"
		"let t = 0; for (let k = 0; k < 200; k++) t += pkPerfMapSpin(100000);\n"
		"process.stdout.write('ready\\n');\n"
		"setInterval(() => {}, 1000);\n";
	char js[256], log[256], map_path[64], out_path[256], *text = NULL, *p, *line, *out = NULL;
	/* V8 logs its code events too: into the fixture, not the cwd */
	char *argv[] = { NODE, "--perf-basic-prof", "--no-logfile-per-isolate", log, js, NULL };
	struct ref_entry *v = NULL;
	size_t n = 0, spins = 0;
	struct pk_perf_map *m;
	pid_t pid;

	if (access(NODE, X_OK) != 0) {
		ck_assert_msg(!getenv("CI"), NODE " missing (Debian: nodejs)");
		fprintf(stderr, "test_node_map: " NODE " missing, skipped\n");
		return;
	}
	path_in_dir(js, sizeof(js), "spin.js");
	snprintf(log, sizeof(log), "--logfile=%s/v8.log", pk_fx_dir());
	path_in_dir(out_path, sizeof(out_path), "node.out");
	pk_fx_write_file(js, script);
	pid = pk_test_spawn(argv, out_path);
	ck_assert_int_gt(pid, 0);
	for (int i = 0; i < 300 && !(out && strstr(out, "ready")); i++) {
		free(out);
		usleep(20000);
		out = pk_test_read_file(out_path, NULL);
	}
	ck_assert_msg(out && strstr(out, "ready"), "node did not start: %s", out ? out : "");
	m = pk_perf_map_load_pid(pid);
	ck_assert_msg(m, "pk_perf_map_load_pid: %s", strerror(errno));
	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)pid);
	/* the same bytes: as far as the map read them */
	text = pk_test_read_file(map_path, NULL);
	kill(pid, SIGKILL);
	pk_test_wait(pid);
	unlink(map_path);
	ck_assert_ptr_nonnull(text);
	text[pk_perf_map_stats(m)->bytes] = '\0';
	for (p = text; (line = strsep(&p, "\n")) && p;) {
		unsigned long long start, size;
		int name_at = 0;

		ck_assert_msg(sscanf(line, "%llx %llx %n", &start, &size, &name_at) == 2 && name_at,
			      "not an entry: %s", line);
		v = pk_test_grow(v, n, sizeof(*v));
		ck_assert_ptr_nonnull(v);
		v[n].start = start;
		v[n].end = start + (size ? size : 1);
		snprintf(v[n].name, sizeof(v[n].name), "%.15s", line + name_at);
		spins += strstr(line + name_at, "pkPerfMapSpin") != NULL;
		n++;
	}
	ck_assert_uint_gt(n, 100);
	ck_assert_uint_eq(pk_perf_map_stats(m)->entries, n);
	ck_assert_uint_eq(pk_perf_map_stats(m)->garbage, 0);
	ck_assert_uint_ge(spins, 1);
	for (size_t i = 0; i < n; i++)
		for (int edge = 0; edge < 2; edge++) {
			__u64 addr = edge ? v[i].end - 1 : v[i].start, start = 0;
			const struct ref_entry *r = ref_lookup(v, n, addr);
			const char *got = pk_perf_map_lookup(m, addr, &start);

			ck_assert_msg(got && strncmp(got, r->name, strlen(r->name)) == 0 &&
					      start == r->start,
				      "%llx: want %s at %llx, got %s at %llx",
				      (unsigned long long)addr, r->name,
				      (unsigned long long)r->start, got ? got : "(null)",
				      (unsigned long long)start);
		}
	free(v);
	free(text);
	free(out);
	pk_perf_map_free(m);
}
END_TEST

Suite *suite_perf_map(void)
{
	Suite *s = suite_create("perf_map");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_entries);
	tcase_add_test(tc, test_entries_growth_edges);
	tcase_add_test(tc, test_garbage);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_later_wins);
	tcase_add_test(tc, test_against_reference);
	tcase_add_test(tc, test_split_reads);
	tcase_add_test(tc, test_long_lines);
	tcase_add_test(tc, test_unterminated_last_line);
	suite_add_tcase(s, tc);
	tc = tcase_create("file");
	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_add_test(tc, test_file_rules);
	tcase_add_test(tc, test_refresh);
	tcase_add_test(tc, test_load_pid);
	suite_add_tcase(s, tc);
	if (pk_test_need_root(s, "chown and namespaces need root")) {
		tc = tcase_create("owner");
		tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
		tcase_add_test(tc, test_file_owner);
		tcase_add_test(tc, test_load_pid_namespaces);
		suite_add_tcase(s, tc);
	}
	tc = tcase_create("node");
	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_node_map);
	suite_add_tcase(s, tc);
	return s;
}
