// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The harness of suite reader (reader_run.h): sample records made by
 * hand, a reader on the fixture's fake /proc and kallsyms, what it
 * printed or took, folded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "harness/elf_fixture.h"
#include "output/folded.h"
#include "test_util.h"
#include "unit/reading/reader_run.h"

static const char KALLSYMS[] =
	"ffffffff81000000 T k_outer\n"
	"ffffffff81000100 T k_middle\n"
	"ffffffff81000200 T k_leaf\n"
	"ffffffff82000000 D k_data\n";

/* A sample record: kernel then user addresses, each leaf first. */
size_t pk_rd_record(unsigned char *buf, __u32 pid, const char *comm, const __u64 *k, __u16 nk,
		    const __u64 *u, __u16 nu)
{
	struct pk_sample s = {
		.hdr = { .type = PK_EVENT_SAMPLE },
		.pid = pid, .tid = pid, .kstack_len = nk, .ustack_len = nu,
		.frames_off = sizeof(s),
	};

	s.hdr.size = sizeof(s) + 8 * (nk + nu);
	strncpy(s.comm, comm, sizeof(s.comm) - 1);
	memcpy(buf, &s, sizeof(s));
	if (nk)
		memcpy(buf + sizeof(s), k, 8 * nk);
	if (nu)
		memcpy(buf + sizeof(s) + 8 * nk, u, 8 * nu);
	return s.hdr.size;
}

/* A reader of O, on the fixture's /proc and kallsyms (<dir>/kallsyms). */
struct pk_reader *pk_rd_new_reader_opts(struct pk_reader_opts o)
{
	char kallsyms[256];

	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", pk_fx_dir());
	pk_fx_write_file(kallsyms, KALLSYMS);
	o.proc_root = pk_fx_proc_root();
	o.kernel_root = pk_fx_dir();
	return pk_reader_new(&o);
}

struct pk_reader *pk_rd_new_reader_with(const struct pk_table_sink *tables, FILE *log)
{
	return pk_rd_new_reader_opts((struct pk_reader_opts){ .tables = tables, .log = log });
}

struct pk_reader *pk_rd_new_reader(void)
{
	return pk_rd_new_reader_with(NULL, NULL);
}

/* P folded, as a string. */
char *pk_rd_folded(const struct pk_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(pk_folded_write(f, p), 0);
	fclose(f);
	return buf;
}

/* Everything R handled, folded. */
char *pk_rd_output(struct pk_reader *r)
{
	struct pk_profile p = { 0 };

	pk_reader_take(r, 0, 0, &p);
	return pk_rd_folded(&p);
}

/* Every stack, location and mapping P reaches has an id below P's counts,
 * and no two have one id. */
void pk_rd_assert_dense_ids(const struct pk_profile *p)
{
	const void *stacks[64] = { 0 }, *locs[64] = { 0 }, *maps[64] = { 0 };

	ck_assert_uint_le(p->nstacks, 64);
	ck_assert_uint_le(p->nlocs, 64);
	ck_assert_uint_le(p->nmaps, 64);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_stack_view *st = p->samples[i].stack;

		ck_assert_uint_lt(st->id, p->nstacks);
		ck_assert(!stacks[st->id] || stacks[st->id] == st);
		stacks[st->id] = st;
		for (size_t k = 0; k < (size_t)st->nkernel + st->nuser; k++) {
			const struct pk_loc *l = st->locs[k];

			ck_assert_uint_lt(l->id, p->nlocs);
			ck_assert(!locs[l->id] || locs[l->id] == l);
			locs[l->id] = l;
			if (!l->map)
				continue;
			ck_assert_uint_lt(l->map->id, p->nmaps);
			ck_assert(!maps[l->map->id] || maps[l->map->id] == l->map);
			maps[l->map->id] = l->map;
		}
	}
}

/* PID's process exits: its fake /proc entry is gone. */
void pk_rd_fake_exit(__u32 pid)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%u/maps", pk_fx_proc_root(), pid);
	ck_assert_int_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/%u", pk_fx_proc_root(), pid);
	ck_assert_int_eq(rmdir(path), 0);
}

/* What PRINT makes of ST is WANT. */
void pk_rd_check_summary(void (*print)(FILE *, const struct pk_reader_stats *),
			 const struct pk_reader_stats *st, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	print(f, st);
	fclose(f);
	ck_assert_str_eq(buf, want);
	free(buf);
}
