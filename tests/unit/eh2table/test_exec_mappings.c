// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Executable file mappings from /proc/PID/maps, for eh2table --pid. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "eh2table/exec_mappings.h"
#include "test_util.h"

static const char maps[] =
"55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1234 /usr/bin/cat\n"
"55d0c0a02000-55d0c0a07000 r-xp 00002000 08:01 1234 /usr/bin/cat\n"
"55d0c1a00000-55d0c1a21000 rw-p 00000000 00:00 0          [heap]\n"
"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
"7f0000001000-7f0000002000 r-xp 00000000 00:00 0\n"
"7f1c2b400000-7f1c2b428000 r--p 00000000 08:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
"7f1c2b428000-7f1c2b5bd000 r-xp 00028000 08:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
"7f1c2b600000-7f1c2b601000 r-xp 00000000 08:01 77 /opt/my lib/libsp ace.so\n"
"7f1c2b700000-7f1c2b701000 r-xp 00000000 08:01 78 /tmp/gone.so (deleted)\n"
"7f1c2b800000-7f1c2b801000 r-xp 00028000 08:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
"7ffd0e1f0000-7ffd0e1f2000 r-xp 00000000 00:00 0                  [vdso]\n"
"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]\n";

START_TEST(test_files_of_maps)
{
	struct pk_maps maps_all;
	struct pk_exec_mappings m;

	ck_assert_int_eq(pk_maps_parse(maps, sizeof(maps) - 1, false, &maps_all), 0);
	ck_assert_int_eq(pk_exec_mappings_from(&maps_all, &m), 0);
	pk_maps_free(&maps_all);
	ck_assert_int_eq(m.n, 4);
	ck_assert_str_eq(m.paths[0], "/usr/bin/cat");
	ck_assert_str_eq(m.paths[1], "/usr/lib/x86_64-linux-gnu/libc.so.6");
	ck_assert_str_eq(m.paths[2], "/opt/my lib/libsp ace.so");
	ck_assert_str_eq(m.paths[3], "/tmp/gone.so (deleted)");
	pk_exec_mappings_free(&m);
}
END_TEST

/* This process maps the test runner and libc executable. */
START_TEST(test_own_process)
{
	struct pk_exec_mappings m;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	bool found = false;

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	ck_assert_int_eq(pk_exec_mappings_read(getpid(), &m), 0);
	for (int i = 0; i < m.n; i++)
		found |= strcmp(m.paths[i], exe) == 0;
	ck_assert_msg(found, "%s not among %d mappings", exe, m.n);
	pk_exec_mappings_free(&m);
	ck_assert_int_eq(pk_exec_mappings_read(0x7ffffff0, &m), -ENOENT);
}
END_TEST

Suite *suite_exec_mappings(void)
{
	Suite *s = suite_create("exec_mappings");
	TCase *tc = tcase_create("maps");

	tcase_add_test(tc, test_files_of_maps);
	tcase_add_test(tc, test_own_process);
	suite_add_tcase(s, tc);
	return s;
}
