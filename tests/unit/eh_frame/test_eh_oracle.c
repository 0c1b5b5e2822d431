// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The readelf oracle: `eh2table --dump` (the real CLI, in a temporary cache
 * directory) must agree with binutils' readelf, an independent CFI
 * implementation, at every PC where either side changes rule, in the CFA,
 * RBP and return-address columns, and say "end" wherever no FDE covers a PC.
 * Files: system libraries and python, and the fixtures of tests/oracle.mk
 * (C, C++ with exceptions, hand-written CFI; gcc and clang; -O0/-O2/-O3).
 * Each file's agreement is reported on stderr; 100% is required.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/oracle_compare.h"
#include "harness/readelf_frames.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

static const char *const system_files[] = {
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/lib64/ld-linux-x86-64.so.2",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	"/usr/lib/x86_64-linux-gnu/libm.so.6",
	"/usr/bin/python3.11",
};

#define MAX_FILES 128
static char *files[MAX_FILES];
static int nfiles;

static void add_file(const char *path)
{
	if (nfiles < MAX_FILES)
		files[nfiles++] = strdup(path);
}

/* The fixtures tests/oracle.mk builds: NAME-{gcc,clang}-{O0,O2,O3} for each
 * C/C++ source, NAME-{gcc,clang} for each assembly source. Listed from the
 * sources, so a fixture that was not built fails the test. */
static void add_fixtures(void)
{
	static const char *const compilers[] = { "gcc", "clang" };
	static const char *const levels[] = { "O0", "O2", "O3" };
	char dir[4096], out[4096];
	struct dirent **names;
	int n;

	pk_test_src_path("tests/fixtures_cfi", dir, sizeof(dir));
	n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char *name = names[i]->d_name, *dot = strrchr(name, '.');

		if (dot && (!strcmp(dot, ".c") || !strcmp(dot, ".cpp") || !strcmp(dot, ".S"))) {
			bool asm_src = !strcmp(dot, ".S");

			*dot = '\0';
			for (int c = 0; c < 2; c++) {
				for (int l = 0; l < (asm_src ? 1 : 3); l++) {
					char rel[512];

					if (asm_src)
						snprintf(rel, sizeof(rel), "oracle/%s-%s",
							 name, compilers[c]);
					else
						snprintf(rel, sizeof(rel), "oracle/%s-%s-%s",
							 name, compilers[c], levels[l]);
					add_file(pk_test_build_path(rel, out, sizeof(out)));
				}
			}
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/*
 * Run ARGV; its stdout, or NULL (with a message) when it fails. readelf
 * exits 1 on libc.so.6 with nothing on stderr (it cannot find the
 * interpreter name of a shared object), so for it a normal exit with output
 * is enough: its output is checked by the parser.
 */
static char *run_stdout(char *const argv[], bool any_exit)
{
	char *out = NULL, *err = NULL;
	int status = pk_test_run(argv, &out, &err);

	if (status < 0 || !WIFEXITED(status) || (WEXITSTATUS(status) != 0 && !any_exit) ||
	    WEXITSTATUS(status) == 127 || !out || !*out) {
		fprintf(stderr, "oracle: %s %s ... failed (status %d): %.500s\n",
			argv[0], argv[1], status, err ? err : "");
		free(out);
		out = NULL;
	}
	free(err);
	return out;
}

START_TEST(test_agrees_with_readelf)
{
	const char *file = files[_i];
	char eh2table[4096], cache[] = "/tmp/pk-oracle-XXXXXX", err[512];
	struct rf_frames frames = {};
	struct oc_table ours = {};
	struct oc_stats st;
	char *interp, *raw, *dump;

	ck_assert_msg(access(file, R_OK) == 0, "%s: %s (not built?)", file, strerror(errno));
	ck_assert_ptr_nonnull(mkdtemp(cache));
	pk_test_build_path("eh2table", eh2table, sizeof(eh2table));

	interp = run_stdout((char *const[]){ "readelf", "--debug-dump=frames-interp",
					     (char *)file, NULL }, true);
	raw = run_stdout((char *const[]){ "readelf", "--debug-dump=frames", (char *)file,
					  NULL }, true);
	dump = run_stdout((char *const[]){ eh2table, "--cache-dir", cache, "--dump",
					   (char *)file, NULL }, false);
	eh_rmtree(cache);
	ck_assert_msg(interp && raw && dump, "%s: a command failed", file);

	ck_assert_msg(rf_frames_parse(interp, raw, &frames, err, sizeof(err)) == 0,
		      "%s: readelf output: %s", file, err);
	ck_assert_msg(oc_parse_dump(dump, &ours, err, sizeof(err)) == 0,
		      "%s: eh2table --dump: %s", file, err);
	ck_assert_int_eq(oc_compare(&frames, &ours, &st, stderr, 20), 0);

	fprintf(stderr, "oracle: %s: %ld FDEs (%ld .eh_frame, %ld .debug_frame, %ld overlapping),"
		" %ld rows compared, %ld agree (%.2f%%); %ld gap points, %ld end\n",
		file, st.fdes_eh + st.fdes_debug, st.fdes_eh, st.fdes_debug, st.overlaps,
		st.compared, st.agreed, st.compared ? 100.0 * st.agreed / st.compared : 0.0,
		st.gap_compared, st.gap_agreed);
	ck_assert_msg(st.compared > 0, "%s: nothing compared", file);
	ck_assert_int_eq(st.agreed, st.compared);
	ck_assert_int_eq(st.gap_agreed, st.gap_compared);

	rf_frames_free(&frames);
	oc_table_free(&ours);
	free(interp);
	free(raw);
	free(dump);
}
END_TEST

Suite *suite_eh_oracle(void)
{
	Suite *s = suite_create("eh_oracle");
	TCase *tc = tcase_create("readelf");

	if (!nfiles) {
		for (size_t i = 0; i < sizeof(system_files) / sizeof(*system_files); i++)
			add_file(system_files[i]);
		add_fixtures();
	}
	/* libc's and python's readelf dumps are tens of MB; under ASan. */
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_agrees_with_readelf, 0, nfiles);
	suite_add_tcase(s, tc);
	return s;
}
