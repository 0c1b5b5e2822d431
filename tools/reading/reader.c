// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folded.h"
#include "reader.h"
#include "record.h"
#include "stack_agg.h"
#include "symbolizer.h"

struct pk_reader {
	struct pk_stack_agg *agg;
	struct pk_symbolizer *sym;
	struct pk_reader_stats stats;
	char *proc_root;
	struct pk_table_sink tables;	/* add NULL: none */
	FILE *log;
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
		if (opts->tables)
			r->tables = *opts->tables;
		r->log = opts->log;
	}
	r->proc_root = strdup(opts && opts->proc_root ? opts->proc_root : "/proc");
	r->agg = pk_stack_agg_new();
	r->sym = pk_symbolizer_new(&sopts);
	if (!r->agg || !r->sym || !r->proc_root) {
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
	free(r->proc_root);
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
	const char *names[PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH];

	if (name_frames(r, s->frames + s->klen, s->ulen, s->pid, false, names) ||
	    name_frames(r, s->frames, s->klen, s->pid, true, names + s->ulen))
		return NULL;
	return pk_fold_stack(s->comm, names, s->ulen, names + s->ulen, s->klen);
}

/* A stack is kept with the frames found however its walk ended: a
 * truncated stack still tells where the time went. */
static int handle_sample(struct pk_reader *r, const struct pk_record_sample *rec)
{
	struct pk_stack *s;
	bool is_new;

	r->stats.samples++;
	if (rec->flags & PK_SAMPLE_USTACK_DWARF) {
		r->stats.dwarf++;
		if (rec->ustack_end < PK_END__MAX)
			r->stats.ends[rec->ustack_end]++;
	}
	s = pk_stack_agg_add(r->agg, rec->pid, rec->comm, rec->frames, rec->kstack_len,
			     rec->ustack_len, 1, &is_new);
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

/* The kernel reported a mapped file without a table: give it one, read
 * through the mapping while its process lives (the file may have been
 * replaced or unlinked since, its path is no way to it). Never fatal: the
 * walk falls back to frame pointers meanwhile. */
static void handle_no_table(struct pk_reader *r, const struct pk_record_no_table *ev)
{
	struct pk_unwind_file file = { .key = { .dev = ev->dev, .ino = ev->ino } };
	char path[PATH_MAX], name[PATH_MAX], err[PK_ERR_LEN];
	ssize_t len;
	int ret;

	r->stats.no_table++;
	/* A file new to the kernel is mapped: its addresses may be where
	 * another file was (dlclose, then dlopen), and names resolved or
	 * stacks folded before would be the old file's. The event comes
	 * before the first sample that found the file, so every sample in
	 * it is named after the new mappings. (A file whose table is loaded
	 * already sends no event: naming each frame by the file the kernel
	 * found is the sample's job, not yet done.) */
	pk_stack_agg_seal_pid(r->agg, ev->pid);
	pk_symbolizer_maps_changed(r->sym, ev->pid);
	if (!r->tables.add)
		return;
	if (ev->dev != PK_VDSO_DEV || ev->ino != PK_VDSO_INO) {
		/* named as the kernel names them: lowercase hex, no 0x */
		ret = snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", r->proc_root,
			       ev->pid, (unsigned long long)ev->vm_start,
			       (unsigned long long)ev->vm_end);
		if (ret < 0 || (size_t)ret >= sizeof(path)) {
			r->stats.tables_failed++;
			return;
		}
		/* The link names the file for messages; without it the
		 * process has exited (or unmapped it): nothing to read. */
		len = readlink(path, name, sizeof(name) - 1);
		if (len < 0 && (errno == ENOENT || errno == ESRCH)) {
			r->stats.tables_gone++;
			if (r->tables.forget)
				r->tables.forget(r->tables.ctx, &file.key);
			return;
		}
		if (len > 0) {
			name[len] = '\0';
			file.name = name;
		}
		file.path = path;
	}
	ret = r->tables.add(r->tables.ctx, &file, err);
	if (ret == 0) {
		r->stats.tables_added++;
		return;
	}
	/* One line: what fails once (the maps, the store) fails for every
	 * file; the summary has the count. */
	if (!r->stats.tables_failed++)
		fprintf(r->log ? r->log : stderr, "probe-read: %s\n", err);
}

int pk_reader_handle(struct pk_reader *r, const void *data, size_t size)
{
	struct pk_record rec;

	switch (pk_record_parse(data, size, &rec)) {
	case PK_RECORD_BAD:
		r->stats.bad++;
		return 0;
	case PK_RECORD_SKIP:
		r->stats.skipped++;
		return 0;
	case PK_RECORD_NO_TABLE:
		handle_no_table(r, &rec.no_table);
		return 0;
	case PK_RECORD_SAMPLE:
		break;
	}
	return handle_sample(r, &rec.sample);
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
