// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * When a first sample's stack is whole, for suite first_samples
 * (first_stacks.h): where a thread begins, also in a stripped program,
 * found from its ELF entry point, and the tally of a session's stacks.
 */
#include <check.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integration/first_stacks.h"
#include "test_util.h"

/* The ELF entry point of the program called NAME (readelf -h), its path
 * into PATH; 0 when there is no such program. */
static unsigned long long entry_at(const char *name, char *path, size_t len)
{
	static const char *const dirs[] = { "/usr/bin", "/usr/sbin", "/bin" };
	unsigned long long entry = 0;
	char *out = NULL, *line;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !entry; i++) {
		char *argv[] = { "readelf", "-h", path, NULL };

		snprintf(path, len, "%s/%s", dirs[i], name);
		free(out);
		out = NULL;
		if (pk_test_run(argv, &out, NULL) != 0 || !out)
			continue;
		line = strstr(out, "Entry point address:");
		if (line)
			entry = strtoull(line + strlen("Entry point address:"), NULL, 16);
	}
	free(out);
	return entry;
}

/* Where a stripped program, whose frames name it by address, begins. */
struct start_of {
	char name[256];
	unsigned long long entry;	/* its entry point (a sample at its
					 * first instruction) */
	unsigned long long ret;		/* where _start's call returns to */
};

/* Where _start's call returns to (its only call: __libc_start_main) in
 * the program called NAME: from its ELF entry point (readelf -h) and the
 * instructions there (objdump -d). 0 when there is no such program or
 * call; ENTRY, the entry point, 0 when there is no such program. */
static unsigned long long start_return_of(const char *name, unsigned long long *entry_out)
{
	unsigned long long entry, ret = 0;
	char path[4096], lo[64], hi[64], *out = NULL, *line;

	entry = *entry_out = entry_at(name, path, sizeof(path));
	if (!entry)
		return 0;
	snprintf(lo, sizeof(lo), "--start-address=%#llx", entry);
	snprintf(hi, sizeof(hi), "--stop-address=%#llx", entry + 0x40);
	{
		char *argv[] = { "objdump", "-d", lo, hi, path, NULL };

		if (pk_test_run(argv, &out, NULL) == 0 && out) {
			/* the line after the call: "    61f1:\thlt" */
			line = strstr(out, "\tcall");
			line = line ? strchr(line, '\n') : NULL;
			if (line)
				ret = strtoull(line + 1, NULL, 16);
		}
	}
	free(out);
	return ret;
}

/* NAME's start, looked up once: each lookup runs readelf and objdump, and
 * a system-wide profile has the root frame of one program in hundreds of
 * stacks. */
static const struct start_of *start_of(const char *name)
{
	static struct start_of known[64], spare;
	static size_t n;
	struct start_of *s = n < sizeof(known) / sizeof(known[0]) ? &known[n] : &spare;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(known[i].name, name))
			return &known[i];
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->ret = start_return_of(name, &s->entry);
	if (s != &spare)
		n++;
	return s;
}

/* Is FRAME, the outermost user frame, where a thread begins? */
static bool is_root(const char *frame)
{
	static const char *const roots[] = {
		"_start", "_dl_start_user", "_dl_start", "clone", "clone3", "__clone3",
		"start_thread", NULL,
	};
	const char *plus = strstr(frame, "+0x");
	const struct start_of *start;
	unsigned long long addr;
	char name[256];

	for (int i = 0; roots[i]; i++)
		if (!strcmp(frame, roots[i]))
			return true;
	/* [FILE+0xADDR]: _start's return address (minus one: a return
	 * address is named by its call, as perf does) */
	if (frame[0] != '[' || !plus || (size_t)(plus - frame - 1) >= sizeof(name))
		return false;
	snprintf(name, sizeof(name), "%.*s", (int)(plus - frame - 1), frame + 1);
	addr = strtoull(plus + 1, NULL, 16);
	start = start_of(name);
	return (start->ret && addr + 1 == start->ret) || (start->entry && addr == start->entry);
}

bool pk_fs_is_kernel(const char *frame)
{
	size_t len = strlen(frame);

	return len > 4 && !strcmp(frame + len - 4, "_[k]");
}

/* Is COMM one of COMMS (NULL-terminated; NULL: any)? */
static bool comm_in(const char *comm, const char *const *comms)
{
	if (!comms)
		return true;
	for (; *comms; comms++)
		if (!strcmp(comm, *comms))
			return true;
	return false;
}

void pk_fs_tally_add(const struct pk_folded *f, const char *const *comms,
		     const char *const *fresh, struct pk_fs_tally *t)
{
	for (size_t i = 0; i < f->n; i++) {
		char *copy = strdup(f->lines[i].stack), *save = NULL;
		const char *comm = NULL, *first_user = NULL, *second_user = NULL;
		bool excused = false;
		int k = 0;

		ck_assert_ptr_nonnull(copy);
		for (char *p = strtok_r(copy, ";", &save); p; p = strtok_r(NULL, ";", &save), k++) {
			if (k == 0) {	/* the comm */
				if (!comm_in(p, comms))
					break;
				comm = p;
				t->samples += f->lines[i].count;
				continue;
			}
			if (pk_fs_is_kernel(p)) {
				excused |= strstr(p, "execve") || strstr(p, "do_exit") ||
					   strstr(p, "do_group_exit");
			} else if (!first_user) {
				first_user = p;
			} else if (!second_user) {
				second_user = p;
			}
		}
		if (k > 0 && !excused) {
			bool is_fresh = fresh && comm_in(comm, fresh);

			t->counted += f->lines[i].count;
			t->fresh_counted += is_fresh ? f->lines[i].count : 0;
			if (first_user && is_root(first_user)) {
				t->whole += f->lines[i].count;
				if (is_fresh && second_user &&
				    !fnmatch("__libc_start_main*", second_user, 0))
					t->fresh += f->lines[i].count;
			} else if (strlen(t->example) < sizeof(t->example) / 2)
				snprintf(t->example + strlen(t->example),
					 sizeof(t->example) - strlen(t->example), "\n  %.300s",
					 f->lines[i].stack);
		}
		free(copy);
	}
}

double pk_fs_finished_share(const char *err)
{
	const char *p = strstr(err, "% finished in user space");

	if (!p)
		return 0;
	while (p > err && (p[-1] == '.' || (p[-1] >= '0' && p[-1] <= '9')))
		p--;
	return strtod(p, NULL);
}

unsigned long pk_fs_finished_count(const char *err)
{
	const char *p = strstr(err, "% finished in user space (");

	return p ? strtoul(p + strlen("% finished in user space ("), NULL, 10) : 0;
}
