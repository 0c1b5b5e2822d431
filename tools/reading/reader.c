// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>

#include "folded.h"
#include "reader.h"
#include "record.h"
#include "stack_agg.h"
#include "symbolizer.h"

struct pk_reader {
	struct pk_stack_agg *agg;
	struct pk_symbolizer *sym;
	struct pk_reader_stats stats;
};

struct pk_reader *pk_reader_new(const struct pk_reader_opts *opts)
{
	struct pk_symbolizer_opts sopts = { .sz = sizeof(sopts) };
	struct pk_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (opts) {
		sopts.proc_root = opts->proc_root;
		sopts.kallsyms_path = opts->kallsyms_path;
	}
	r->agg = pk_stack_agg_new();
	r->sym = pk_symbolizer_new(&sopts);
	if (!r->agg || !r->sym) {
		pk_reader_free(r);
		return NULL;
	}
	return r;
}

void pk_reader_free(struct pk_reader *r)
{
	size_t n;
	struct pk_stack *const *stacks;

	if (!r)
		return;
	if (r->agg) {
		stacks = pk_stack_agg_entries(r->agg, &n);
		for (size_t i = 0; i < n; i++)
			free(stacks[i]->user);
	}
	pk_stack_agg_free(r->agg);
	pk_symbolizer_free(r->sym);
	free(r);
}

/* Names of N addresses (leaf first) into NAMES root first. The leaf is
 * where the CPU was; every other address is a return address, looked up
 * minus one so that a call ending its function is charged to that function. */
static int name_frames(struct pk_reader *r, const __u64 *addrs, size_t n, __u32 pid,
		       bool kernel, const char **names)
{
	for (size_t i = 0; i < n; i++) {
		__u64 addr = addrs[i] - (i > 0 && addrs[i] > 0);
		const char *name = kernel ? pk_symbolizer_kernel(r->sym, addr)
					  : pk_symbolizer_user(r->sym, pid, addr);

		if (!name)
			return -ENOMEM;
		names[n - 1 - i] = name;
	}
	return 0;
}

static char *fold(struct pk_reader *r, const struct pk_stack *s)
{
	const char *names[2 * PK_MAX_STACK_DEPTH];

	if (name_frames(r, s->frames + s->klen, s->ulen, s->pid, false, names) ||
	    name_frames(r, s->frames, s->klen, s->pid, true, names + s->ulen))
		return NULL;
	return pk_fold_stack(s->comm, names, s->ulen, names + s->ulen, s->klen);
}

int pk_reader_handle(struct pk_reader *r, const void *data, size_t size)
{
	struct pk_record_sample rec;
	struct pk_stack *s;
	bool is_new;

	switch (pk_record_parse(data, size, &rec)) {
	case PK_RECORD_BAD:
		r->stats.bad++;
		return 0;
	case PK_RECORD_SKIP:
		r->stats.skipped++;
		return 0;
	case PK_RECORD_SAMPLE:
		break;
	}
	r->stats.samples++;
	s = pk_stack_agg_add(r->agg, rec.pid, rec.comm, rec.frames, rec.kstack_len,
			     rec.ustack_len, 1, &is_new);
	if (!s)
		return -ENOMEM;
	if (is_new) {
		r->stats.stacks++;
		s->user = fold(r, s);
		if (!s->user)
			return -ENOMEM;
	}
	return 0;
}

int pk_reader_write(struct pk_reader *r, FILE *f)
{
	size_t n;
	struct pk_stack *const *stacks = pk_stack_agg_entries(r->agg, &n);
	struct pk_fold_item *items = calloc(n ? n : 1, sizeof(*items));
	int err;

	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		items[i] = (struct pk_fold_item){ stacks[i]->user ? stacks[i]->user : "[unknown]",
						  stacks[i]->count };
	err = pk_fold_write(f, items, n);
	free(items);
	return err;
}

void pk_reader_stats(const struct pk_reader *r, struct pk_reader_stats *st)
{
	*st = r->stats;
}
