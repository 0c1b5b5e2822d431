// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The harness of suite load_session (load_run.h): each test's pin
 * directory and their removal, probe-load run with it, what it pinned,
 * and the session's counters.
 */
#include <bpf/bpf.h>
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "eh_frame/errmsg.h"
#include "lib/pins.h"
#include "test_util.h"
#include "unit/loader/load_run.h"

#define PIN_PREFIX "/sys/fs/bpf/probekit-test-load-"

pid_t pk_ld_runner;
char pk_ld_dir[128];

static void setup(void)
{
	snprintf(pk_ld_dir, sizeof(pk_ld_dir), PIN_PREFIX "%d-%d", (int)pk_ld_runner,
		 (int)getpid());
}

/* Unchecked teardown: runs in the runner even when a test died half-way. */
static void cleanup_all(void)
{
	char pattern[128], err[PK_ERR_LEN];
	glob_t g;

	snprintf(pattern, sizeof(pattern), PIN_PREFIX "%d-*", (int)pk_ld_runner);
	if (glob(pattern, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		pk_pins_unload(g.gl_pathv[i], err);
		rmdir(g.gl_pathv[i]);
	}
	globfree(&g);
}


int pk_ld_run(const char **args, char **out, char **err)
{
	char path[4096];
	const char *argv[32] = { pk_test_build_path("probe-load", path, sizeof(path)) };
	int n = 1, status;

	while (*args && n < 31)
		argv[n++] = *args++;
	status = pk_test_run((char *const *)argv, out, err);
	ck_assert_msg(WIFEXITED(status), "probe-load did not exit normally");
	return WEXITSTATUS(status);
}


/* ERR past what a load with --unwind dwarf prints: a line per file whose
 * table was refused, then the one summary line (checked by
 * test_unwind_tables_and_fp). */
const char *pk_ld_past_unwind_lines(const char *err)
{
	const char *line = err;

	while (*line) {
		const char *end = strchrnul(line, '\n');
		bool refused = memmem(line, end - line, ": unwind table refused: ", 24) != NULL;
		bool summary = !strncmp(line, UNWIND_SUMMARY, strlen(UNWIND_SUMMARY));

		if (!refused && !summary)
			break;
		line = *end ? end + 1 : end;
		if (summary)
			break;
	}
	return line;
}

bool pk_ld_pinned(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", pk_ld_dir, name);
	return access(path, F_OK) == 0;
}

bool pk_ld_dir_exists(void)
{
	struct stat st;

	return stat(pk_ld_dir, &st) == 0;
}

/* The ids of the links pinned under DIR/links, to check they are gone. */
int pk_ld_pinned_link_ids(__u32 *ids, int max)
{
	char path[512];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/links", pk_ld_dir);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) && n < max) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/links/%s", pk_ld_dir, de->d_name);
		fd = bpf_obj_get(path);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
		ids[n++] = info.id;
		close(fd);
	}
	closedir(d);
	return n;
}

void pk_ld_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

void pk_ld_read_counters(__u64 c[PK_CNT__MAX])
{
	struct pk_session_fds fds;
	struct pk_session info;

	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	ck_assert_int_eq(pk_counters_read(fds.counters, c), 0);
	pk_session_close(&fds);
}

/* Poll the counters until COUNTER is non-zero (at most 3 s). */
/* Until COUNTER moves: as long as it takes on a slow machine (a TCG guest
 * of the kernel matrix), the case's timeout ends a counter that never does. */
void pk_ld_wait_counter(int counter, __u64 c[PK_CNT__MAX])
{
	for (;;) {
		pk_ld_read_counters(c);
		if (c[counter])
			return;
		pk_ld_sleep_ms(10);
	}
}

/* A child of this test that spins until killed (or the test dies). */
pid_t pk_ld_spin_child(void)
{
	pid_t parent = getpid(), pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pk_test_die_with_parent(parent);
		for (volatile unsigned long x = 0;; x++)
			;
	}
	return pid;
}

/* PID's enum pk_target_state, 0: not a target. */
int pk_ld_target_state(pid_t pid)
{
	struct pk_session_fds fds;
	struct pk_session info;
	__u32 key = pid;
	__u8 v;
	bool found;

	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	found = bpf_map_lookup_elem(fds.targets, &key, &v) == 0;
	pk_session_close(&fds);
	return found ? v : 0;
}

TCase *pk_ld_root_case(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_unchecked_fixture(tc, NULL, cleanup_all);
	tcase_set_timeout(tc, 20);	/* a hang's bound: waits wait until done */
	suite_add_tcase(s, tc);
	return tc;
}

