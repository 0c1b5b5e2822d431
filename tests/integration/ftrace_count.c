// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "integration/ftrace_count.h"
#include "integration/profile_session.h"
#include "test_util.h"

#define INSTANCES "/sys/kernel/tracing/instances/"

static void write_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	ck_assert_msg(f, "%s: %m", path);
	ck_assert_msg(fputs(text, f) >= 0 && fclose(f) == 0, "writing %s to %s: %m", text, path);
}

void pk_ftrace_count_start(struct pk_ftrace_count *c, const char *event, pid_t pid)
{
	const char *pins = pk_e2e_pin_dir();
	char rel[256], filter[64];

	snprintf(c->dir, sizeof(c->dir), INSTANCES "%s", strrchr(pins, '/') + 1);
	snprintf(c->event, sizeof(c->event), "%s", event);
	ck_assert_msg(mkdir(c->dir, 0700) == 0, "%s: %m", c->dir);
	snprintf(rel, sizeof(rel), "events/%s/filter", event);
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)pid);
	write_file(c->dir, rel, filter);
	snprintf(rel, sizeof(rel), "events/%s/enable", event);
	write_file(c->dir, rel, "1");
}

unsigned long pk_ftrace_count_stop(struct pk_ftrace_count *c)
{
	char rel[256], path[512], *text, *at;
	unsigned long in_buffer, written;

	snprintf(rel, sizeof(rel), "events/%s/enable", c->event);
	write_file(c->dir, rel, "0");
	snprintf(path, sizeof(path), "%s/trace", c->dir);
	text = pk_test_read_file(path, NULL);
	ck_assert_msg(text, "%s: %m", path);
	/* "# entries-in-buffer/entries-written: 64/64   #P:2" */
	at = strstr(text, "entries-in-buffer/entries-written:");
	ck_assert_msg(at && sscanf(at, "entries-in-buffer/entries-written: %lu/%lu", &in_buffer,
				   &written) == 2, "%s: no entry count in: %.200s", path, text);
	ck_assert_msg(in_buffer == written, "%s: %lu of %lu hits kept", path, in_buffer, written);
	free(text);
	ck_assert_msg(rmdir(c->dir) == 0, "%s: %m", c->dir);
	return written;
}

void pk_ftrace_count_cleanup(pid_t runner)
{
	char pattern[128];
	glob_t g;

	snprintf(pattern, sizeof(pattern), INSTANCES "probekit-test-%d-*", (int)runner);
	if (glob(pattern, GLOB_NOSORT, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++)
		if (rmdir(g.gl_pathv[i]))
			fprintf(stderr, "cleanup failed: rmdir %s: %m\n", g.gl_pathv[i]);
	globfree(&g);
}
