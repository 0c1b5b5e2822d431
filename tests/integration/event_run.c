// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The harness of suite event_sources (event_run.h): the fixtures' builds,
 * the folded stacks a session reads, the counts of a chain in them, and
 * the kernel's own answer whether it has kprobes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "integration/event_run.h"
#include "test_util.h"

const char *const pk_ev_variants[] = { "gcc-pie", "gcc-nopie", "clang-pie", "clang-nopie" };

bool pk_ev_ci(void)
{
	const char *v = getenv("CI");

	return v && !strcmp(v, "true");
}

const char *pk_ev_fixture(const char *name, int variant, char *buf, size_t len)
{
	char full[128];

	snprintf(full, sizeof(full), "%s-%s", name, pk_ev_variants[variant]);
	return pk_e2e_fixture_nofp(full, buf, len);
}

void pk_ev_read_folded(const char *const args[], struct pk_folded *f, char **err)
{
	char *out = NULL;
	const char *bad = NULL;

	ck_assert_int_eq(pk_e2e_read(args, &out, err), 0);
	ck_assert_msg(pk_folded_parse(out, f, &bad), "not folded format: '%s'", bad);
	free(out);
}

void pk_ev_read_folded_file(const char *path, struct pk_folded *f)
{
	char *text = pk_test_read_file(path, NULL);
	const char *bad = NULL;

	ck_assert_msg(text, "%s: not written", path);
	ck_assert_msg(pk_folded_parse(text, f, &bad), "%s: not folded format: '%s'", path, bad);
	free(text);
}

/* The heaviest lines holding PART, for a failure message. */
void pk_ev_show(const struct pk_folded *f, const char *part)
{
	int shown = 0;

	for (size_t i = 0; i < f->n && shown < 8; i++)
		if (!part || strstr(f->lines[i].stack, part)) {
			fprintf(stderr, "  %lu %s\n", f->lines[i].count, f->lines[i].stack);
			shown++;
		}
}

struct sum pk_ev_sum_chain(const struct pk_folded *f, const char *chain,
			   const char *const *kframes)
{
	struct sum s = { 0 };

	for (size_t i = 0; i < f->n; i++) {
		const char *st = f->lines[i].stack;
		bool whole = strstr(st, ";_start;") != NULL;

		if (!strstr(st, chain)) {
			s.other += f->lines[i].count;
			continue;
		}
		for (const char *const *k = kframes; k && *k && whole; k++)
			whole = strstr(st, *k) != NULL;
		s.chain += f->lines[i].count;
		if (strstr(st, "_[k]"))
			s.kernel += f->lines[i].count;
		if (!whole) {
			s.broken += f->lines[i].count;
			fprintf(stderr, "not whole: %lu %s\n", f->lines[i].count, st);
		}
	}
	return s;
}

/* Nothing left of the session: its pin directory is gone. */
void pk_ev_assert_unpinned(void)
{
	struct stat st;

	ck_assert_msg(stat(pk_e2e_pin_dir(), &st) != 0 && errno == ENOENT,
		      "%s left behind", pk_e2e_pin_dir());
}

/* Whether the running kernel has kprobes (a kprobe PMU or tracefs'
 * kprobe_events), asked as probe-load does not. */
bool pk_ev_kernel_has_kprobes(void)
{
	struct stat st;

	return !stat("/sys/bus/event_source/devices/kprobe", &st) ||
	       !stat("/sys/kernel/tracing/kprobe_events", &st) ||
	       !stat("/sys/kernel/debug/tracing/kprobe_events", &st);
}

int pk_ev_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

