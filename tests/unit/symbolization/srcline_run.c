// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The harness of suite srcline (srcline_run.h): a file as the only module
 * of a Dwfl, lookups that must succeed, the instructions objdump lists,
 * the fixtures of tests/dbg.mk, and whether a file has a section.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/elf_fixture.h"
#include "symbolization/debuginfo.h"
#include "symbolization/srcline.h"
#include "test_util.h"
#include "unit/symbolization/srcline_run.h"

/* PATH as the only module of a Dwfl, at bias 0; dm NULL when libdwfl
 * cannot read it. */
struct mod pk_sl_mod_open(const char *path)
{
	struct mod m = { dwfl_begin(&pk_dwfl_callbacks), NULL };

	ck_assert_ptr_nonnull(m.dwfl);
	dwfl_report_begin(m.dwfl);
	m.dm = dwfl_report_elf(m.dwfl, "test", path, -1, 0, true);
	dwfl_report_end(m.dwfl, NULL, NULL);
	return m;
}

void pk_sl_mod_close(struct mod *m)
{
	dwfl_end(m->dwfl);
}

int pk_sl_lookup(struct pk_srcline *sl, __u64 addr, struct pk_srcline_frame *f)
{
	int n = pk_srcline_lookup(sl, addr, f, MAX_FRAMES);

	ck_assert_msg(n >= 0 && n <= MAX_FRAMES, "lookup 0x%llx: %d", (unsigned long long)addr,
		      n);
	return n;
}

/* --- the instructions of a file ------------------------------------------ */

void pk_sl_addrs_add(struct addrs *a, __u64 addr)
{
	a->v = pk_test_grow(a->v, a->n, sizeof(*a->v));
	ck_assert_ptr_nonnull(a->v);
	a->v[a->n++] = addr;
}

/* Every instruction objdump -d lists in PATH (between START and STOP when
 * STOP is not 0): lines "  ADDR:\tINSN". */
void pk_sl_insn_addrs(const char *path, __u64 start, __u64 stop, struct addrs *a)
{
	char from[64], to[64], *out = NULL, *p, *line;
	char *argv[] = { "objdump", "-d", "--no-show-raw-insn", from, to, (char *)path, NULL };

	snprintf(from, sizeof(from), "--start-address=0x%llx", (unsigned long long)start);
	snprintf(to, sizeof(to), "--stop-address=0x%llx", (unsigned long long)stop);
	if (!stop) {
		argv[3] = (char *)path;
		argv[4] = NULL;
	}
	pk_fx_run_ok(argv, &out);
	for (p = out; (line = strsep(&p, "\n"));) {
		char *end;
		unsigned long long v;

		while (*line == ' ')
			line++;
		v = strtoull(line, &end, 16);
		if (end != line && end[0] == ':' && end[1] == '\t')
			pk_sl_addrs_add(a, v);
	}
	free(out);
}

const char *pk_sl_fixture(const char *name, char *buf, size_t len)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "fixtures_dbg/%s", name);
	pk_test_build_path(rel, buf, len);
	ck_assert_msg(access(buf, R_OK) == 0, "%s: %s (make test-programs builds it)", buf,
		      strerror(errno));
	return buf;
}

bool pk_sl_has_section(const char *path, const char *want)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) :
							   NULL;

		found = name && !strcmp(name, want);
	}
	elf_end(elf);
	close(fd);
	return found;
}

