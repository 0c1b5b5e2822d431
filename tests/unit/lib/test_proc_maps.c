// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/proc_maps.h"
#include "test_util.h"

static struct pk_mapping parse_ok(const char *line)
{
	struct pk_mapping m;

	ck_assert_int_eq(pk_maps_parse_line(line, strlen(line), &m), 0);
	return m;
}

START_TEST(test_file_mapping)
{
	struct pk_mapping m = parse_ok(
		"7f3a1c200000-7f3a1c228000 r-xp 00028000 fd:01 1835023                    /usr/lib/x86_64-linux-gnu/libc.so.6\n");

	ck_assert_uint_eq(m.start, 0x7f3a1c200000ULL);
	ck_assert_uint_eq(m.end, 0x7f3a1c228000ULL);
	ck_assert_uint_eq(m.offset, 0x28000);
	ck_assert_uint_eq(m.perms, PK_MAP_R | PK_MAP_X | PK_MAP_P);
	ck_assert_uint_eq(m.dev_major, 0xfd);
	ck_assert_uint_eq(m.dev_minor, 1);
	ck_assert_uint_eq(m.inode, 1835023);
	ck_assert_int_eq(m.kind, PK_MAP_FILE);
	ck_assert(!m.deleted);
	ck_assert_str_eq(m.name, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	free(m.name);
}
END_TEST

START_TEST(test_path_with_spaces)
{
	struct pk_mapping m = parse_ok(
		"00400000-00401000 r-xp 00000000 08:02 42       /opt/my app/bin  x\n");

	ck_assert_str_eq(m.name, "/opt/my app/bin  x");
	ck_assert_int_eq(m.kind, PK_MAP_FILE);
	free(m.name);
}
END_TEST

START_TEST(test_deleted)
{
	struct pk_mapping m = parse_ok(
		"00400000-00401000 r-xp 00001000 08:02 42 /tmp/old binary (deleted)");

	ck_assert(m.deleted);
	ck_assert_str_eq(m.name, "/tmp/old binary");
	free(m.name);
	/* Only a path gets the suffix treatment. */
	m = parse_ok("00400000-00401000 r-xp 00000000 00:00 0 [x] (deleted)");
	ck_assert(!m.deleted);
	ck_assert_str_eq(m.name, "[x] (deleted)");
	free(m.name);
}
END_TEST

START_TEST(test_anonymous_and_special)
{
	struct pk_mapping m = parse_ok("7ffd5c9f0000-7ffd5c9f2000 r-xp 00000000 00:00 0                          [vdso]");

	ck_assert_int_eq(m.kind, PK_MAP_SPECIAL);
	ck_assert_str_eq(m.name, "[vdso]");
	free(m.name);
	m = parse_ok("7ffd5c9a0000-7ffd5c9c1000 rw-p 00000000 00:00 0                          [stack]");
	ck_assert_int_eq(m.kind, PK_MAP_SPECIAL);
	ck_assert_uint_eq(m.perms, PK_MAP_R | PK_MAP_W | PK_MAP_P);
	free(m.name);
	/* Anonymous: the line ends after the inode, with or without padding. */
	m = parse_ok("7f0000000000-7f0000001000 rwxp 00000000 00:00 0 ");
	ck_assert_int_eq(m.kind, PK_MAP_ANON);
	ck_assert_str_eq(m.name, "");
	free(m.name);
	m = parse_ok("7f0000000000-7f0000001000 rwxs 00000000 00:00 0");
	ck_assert_int_eq(m.kind, PK_MAP_ANON);
	ck_assert_uint_eq(m.perms, PK_MAP_R | PK_MAP_W | PK_MAP_X);
	free(m.name);
}
END_TEST

START_TEST(test_huge_values)
{
	struct pk_mapping m = parse_ok(
		"ffffffffff600000-ffffffffff601000 --xp ffffffffffff0000 00:00 18446744073709551615 [vsyscall]");

	ck_assert_uint_eq(m.start, 0xffffffffff600000ULL);
	ck_assert_uint_eq(m.offset, 0xffffffffffff0000ULL);
	ck_assert_uint_eq(m.inode, 18446744073709551615ULL);
	ck_assert_uint_eq(m.perms, PK_MAP_X | PK_MAP_P);
	free(m.name);
}
END_TEST

START_TEST(test_malformed)
{
	static const char *const bad[] = {
		"",
		"garbage",
		"00400000 r-xp 00000000 08:02 42 /x",			/* no end */
		"00401000-00400000 r-xp 00000000 08:02 42 /x",		/* end < start */
		"00400000-00400000 r-xp 00000000 08:02 42 /x",		/* empty */
		"00400000-00401000 rwz 00000000 08:02 42 /x",		/* perms */
		"00400000-00401000 r-xq 00000000 08:02 42 /x",
		"00400000-00401000 r-xp 0000000g 08:02 42 /x",		/* offset */
		"00400000-00401000 r-xp 00000000 0802 42 /x",		/* dev */
		"00400000-00401000 r-xp 00000000 08:02 4x2 /x",	/* inode */
		"00400000-00401000 r-xp 00000000 08:02",		/* truncated */
		"10000000000000000-10000000000000001 r-xp 0 08:02 1 /x",	/* > 64 bits */
		"0x400000-0x401000 r-xp 00000000 08:02 42 /x",
		"-400000-401000 r-xp 00000000 08:02 42 /x",
	};
	struct pk_mapping m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(pk_maps_parse_line(bad[i], strlen(bad[i]), &m) == -EBADMSG,
			      "accepted: %s", bad[i]);
}
END_TEST

START_TEST(test_parse_file_and_find)
{
	static const char text[] =
		"00400000-00401000 r--p 00000000 08:02 42 /bin/x\n"
		"00401000-00402000 r-xp 00001000 08:02 42 /bin/x\n"
		"7f0000000000-7f0000002000 r-xp 00000000 08:02 43 /lib/y.so\n"
		"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]\n";
	struct pk_maps maps;

	ck_assert_int_eq(pk_maps_parse(text, strlen(text), true, &maps), 0);
	ck_assert_uint_eq(maps.n, 3);	/* the r--p mapping is left out */
	ck_assert_ptr_eq(pk_maps_find(&maps, 0x400fff), NULL);
	ck_assert_str_eq(pk_maps_find(&maps, 0x401000)->name, "/bin/x");
	ck_assert_str_eq(pk_maps_find(&maps, 0x401fff)->name, "/bin/x");
	ck_assert_ptr_eq(pk_maps_find(&maps, 0x402000), NULL);
	ck_assert_str_eq(pk_maps_find(&maps, 0x7f0000001234)->name, "/lib/y.so");
	ck_assert_str_eq(pk_maps_find(&maps, 0x7ffd00000010)->name, "[vdso]");
	ck_assert_ptr_eq(pk_maps_find(&maps, ~0ULL), NULL);
	pk_maps_free(&maps);

	ck_assert_int_eq(pk_maps_parse(text, strlen(text), false, &maps), 0);
	ck_assert_uint_eq(maps.n, 4);
	pk_maps_free(&maps);
}
END_TEST

START_TEST(test_parse_rejects)
{
	static const char bad_line[] = "00400000-00401000 r-xp 00000000 08:02 42 /x\nbroken\n";
	static const char overlap[] =
		"00400000-00402000 r-xp 00000000 08:02 42 /x\n"
		"00401000-00403000 r-xp 00000000 08:02 42 /y\n";
	struct pk_maps maps;

	ck_assert_int_eq(pk_maps_parse(bad_line, strlen(bad_line), false, &maps), -EBADMSG);
	ck_assert_uint_eq(maps.n, 0);
	ck_assert_int_eq(pk_maps_parse(overlap, strlen(overlap), false, &maps), -EBADMSG);
	ck_assert_int_eq(pk_maps_parse("", 0, false, &maps), 0);
	ck_assert_uint_eq(maps.n, 0);
	pk_maps_free(&maps);
}
END_TEST

static __attribute__((noinline)) int code_in_test_binary(int x)
{
	return x + 1;
}

/* The real file of a live process: our own code is in an executable
 * mapping of our own binary. A rebuild while the tests run replaces the
 * binary: then both the link and the mapping say it was deleted. */
START_TEST(test_read_self)
{
	static const char deleted[] = " (deleted)";
	const size_t dlen = sizeof(deleted) - 1;
	struct pk_maps maps;
	const struct pk_mapping *m;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	bool exe_deleted;

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	exe_deleted = (size_t)n > dlen && strcmp(exe + n - dlen, deleted) == 0;
	if (exe_deleted)
		exe[n - dlen] = '\0';
	ck_assert_int_eq(pk_maps_read(NULL, getpid(), true, &maps), 0);
	ck_assert_int_eq(code_in_test_binary(1), 2);
	m = pk_maps_find(&maps, (__u64)(uintptr_t)&code_in_test_binary);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->name, exe);
	ck_assert_int_eq(m->deleted, exe_deleted);
	pk_maps_free(&maps);
	ck_assert_int_eq(pk_maps_read(NULL, 0x7fffffff, true, &maps), -ENOENT);
}
END_TEST

/* The first bytes of the file PATH names, or -errno. */
static ssize_t head_of(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	close(fd);
	return n;
}

/* pk_path_hold: the held path reads the file after the path it was opened
 * by is gone: a file unlinked, and (as root, who may open map_files) a
 * mapping's link once unmapped, as when its process exits. */
START_TEST(test_path_hold)
{
	char path[] = "/tmp/pk-hold-XXXXXX", held[32], link[128], buf[16];
	int fd = mkstemp(path), hfd;
	void *p;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "held bytes", 10), 10);
	ck_assert_int_eq(pk_path_hold("/nonexistent/pk-hold", held, sizeof(held)), -ENOENT);
	ck_assert_int_eq(pk_path_hold(path, held, 8), -ENAMETOOLONG);

	hfd = pk_path_hold(path, held, sizeof(held));
	ck_assert_int_ge(hfd, 0);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(head_of(path, buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(head_of(held, buf, sizeof(buf)), 10);
	ck_assert_int_eq(memcmp(buf, "held bytes", 10), 0);
	close(hfd);

	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(pk_map_files_path(link, sizeof(link), "/proc", getpid(),
					   (uintptr_t)p, (uintptr_t)p + 4096), 0);
	hfd = pk_path_hold(link, held, sizeof(held));
	if (geteuid() == 0)
		ck_assert_int_ge(hfd, 0);
	ck_assert_int_eq(munmap(p, 4096), 0);
	if (hfd >= 0) {
		ck_assert_int_eq(head_of(link, buf, sizeof(buf)), -ENOENT);
		ck_assert_int_eq(head_of(held, buf, sizeof(buf)), 10);
		ck_assert_int_eq(memcmp(buf, "held bytes", 10), 0);
		close(hfd);
	}
	close(fd);
}
END_TEST

/* pk_map_files_named: a mapping's link and the path it names (as root,
 * who may read map_files), -ESRCH once it is unmapped (as when its
 * process exits), -ENAMETOOLONG for a buffer too small. */
START_TEST(test_map_files_named)
{
	char path[] = "/tmp/pk-named-XXXXXX", link[PATH_MAX], name[PATH_MAX];
	int fd = mkstemp(path);
	void *p;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "named", 5), 5);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(pk_map_files_named(link, name, 16, "/proc", getpid(), (uintptr_t)p,
					    (uintptr_t)p + 4096), -ENAMETOOLONG);
	if (geteuid() == 0) {
		ck_assert_int_eq(pk_map_files_named(link, name, sizeof(link), "/proc", getpid(),
						    (uintptr_t)p, (uintptr_t)p + 4096), 0);
		ck_assert_str_eq(name, path);
	}
	ck_assert_int_eq(munmap(p, 4096), 0);
	if (geteuid() == 0)
		ck_assert_int_eq(pk_map_files_named(link, name, sizeof(link), "/proc", getpid(),
						    (uintptr_t)p, (uintptr_t)p + 4096), -ESRCH);
	close(fd);
	unlink(path);
}
END_TEST

/* The mappings' array (32 first, doubled) at the edges of its growth:
 * none, one, exactly full, one more, powers of two; every mapping found. */
START_TEST(test_parse_growth_edges)
{
	static const size_t counts[] = { 0, 1, 31, 32, 33, 64, 65, 128 };

	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		size_t n = counts[c], len = 0, cap = 96 * n + 1;
		char *text = malloc(cap), want[32];
		struct pk_maps maps;

		ck_assert_ptr_nonnull(text);
		text[0] = '\0';
		for (size_t i = 0; i < n; i++)
			len += snprintf(text + len, cap - len,
					"%llx-%llx r-xp 00000000 08:02 %zu /lib/m%zu.so\n",
					0x10000ULL * (i + 1), 0x10000ULL * (i + 1) + 0x1000, i, i);
		ck_assert_int_eq(pk_maps_parse(text, len, true, &maps), 0);
		ck_assert_uint_eq(maps.n, n);
		for (size_t i = 0; i < n; i++) {
			snprintf(want, sizeof(want), "/lib/m%zu.so", i);
			ck_assert_str_eq(pk_maps_find(&maps, 0x10000ULL * (i + 1) + 0xfff)->name, want);
		}
		ck_assert_ptr_null(pk_maps_find(&maps, 0x10000ULL * (n + 1)));
		pk_maps_free(&maps);
		free(text);
	}
}
END_TEST

/* A /proc file read whole (16 KiB first, doubled, and one byte more for
 * the NUL the length does not count) at the edges of that growth. */
START_TEST(test_text_read_growth_edges)
{
	static const size_t sizes[] = { 0, 1, 16383, 16384, 16385, 32767, 32768, 65536 };

	for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++) {
		char path[] = "/tmp/pk-text-XXXXXX", *want = malloc(sizes[c] + 1), *text;
		size_t len;
		int fd = mkstemp(path);

		ck_assert_int_ge(fd, 0);
		ck_assert_ptr_nonnull(want);
		for (size_t i = 0; i < sizes[c]; i++)
			want[i] = (char)('a' + i % 26);
		want[sizes[c]] = '\0';
		ck_assert_int_eq(write(fd, want, sizes[c]), (ssize_t)sizes[c]);
		close(fd);
		ck_assert_int_eq(pk_proc_text_read(path, &text, &len), 0);
		unlink(path);
		ck_assert_uint_eq(len, sizes[c]);
		ck_assert_int_eq(memcmp(text, want, sizes[c] + 1), 0);	/* the NUL too */
		free(text);
		free(want);
	}
}
END_TEST

Suite *suite_proc_maps(void)
{
	Suite *s = suite_create("proc_maps");
	TCase *tc = tcase_create("line");

	tcase_add_test(tc, test_file_mapping);
	tcase_add_test(tc, test_path_with_spaces);
	tcase_add_test(tc, test_deleted);
	tcase_add_test(tc, test_anonymous_and_special);
	tcase_add_test(tc, test_huge_values);
	tcase_add_test(tc, test_malformed);
	suite_add_tcase(s, tc);
	tc = tcase_create("file");
	tcase_add_test(tc, test_parse_file_and_find);
	tcase_add_test(tc, test_parse_rejects);
	tcase_add_test(tc, test_parse_growth_edges);
	tcase_add_test(tc, test_text_read_growth_edges);
	tcase_add_test(tc, test_read_self);
	tcase_add_test(tc, test_path_hold);
	tcase_add_test(tc, test_map_files_named);
	suite_add_tcase(s, tc);
	return s;
}
