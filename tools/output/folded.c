// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/strbuf.h"
#include "lib/util/text.h"
#include "output/folded.h"

static const char UNKNOWN[] = "[unknown]";

/* Make b->s[at..] safe for the format: no ';' nor control characters. */
static void sanitize(struct pk_strbuf *b, size_t at)
{
	if (b->failed)
		return;
	for (char *p = b->s + at; p < b->s + b->len; p++) {
		unsigned char c = *p;

		if (c == ';')
			*p = ':';
		else if (c < 0x20 || c == 0x7f)
			*p = ' ';
	}
}

/* NAME, with " (FILE:LINE)" when FILE is given (its last component), or
 * " (FILE)" when the line is not known. */
static void add_frame_line(struct pk_strbuf *b, const char *name, const char *file,
			   __u32 line, const char *suffix)
{
	size_t at;

	if (!name || !name[0])
		name = UNKNOWN;
	if (b->len)
		pk_strbuf_puts(b, ";");
	at = b->len;
	pk_strbuf_puts(b, name);
	if (file) {
		char num[16] = ")";

		if (line)
			snprintf(num, sizeof(num), ":%u)", line);
		pk_strbuf_puts(b, " (");
		pk_strbuf_puts(b, pk_base_name(file));
		pk_strbuf_puts(b, num);
	}
	sanitize(b, at);
	pk_strbuf_puts(b, suffix);
}

/* One frame, made safe for the format, then SUFFIX. */
static void add_frame(struct pk_strbuf *b, const char *name, const char *suffix)
{
	add_frame_line(b, name, NULL, 0, suffix);
}

char *pk_fold_stack(const char *comm, const char *const *user, size_t nuser,
		    const char *const *kernel, size_t nkernel)
{
	struct pk_strbuf b = { 0 };

	add_frame(&b, comm, "");
	for (size_t i = 0; i < nuser; i++)
		add_frame(&b, user[i], "");
	for (size_t i = 0; i < nkernel; i++)
		add_frame(&b, kernel[i], PK_FOLD_KERNEL_SUFFIX);
	return pk_strbuf_finish(&b);
}

static int cmp_item(const void *a, const void *b)
{
	const struct pk_fold_item *x = a, *y = b;

	return strcmp(x->stack, y->stack);
}

int pk_fold_write(FILE *f, struct pk_fold_item *items, size_t n)
{
	if (n)
		qsort(items, n, sizeof(*items), cmp_item);
	for (size_t i = 0; i < n;) {
		__u64 count = 0;
		size_t j;

		for (j = i; j < n && strcmp(items[j].stack, items[i].stack) == 0; j++)
			count += items[j].count;
		if (fprintf(f, "%s %llu\n", items[i].stack, (unsigned long long)count) < 0)
			return -EIO;
		i = j;
	}
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}

/* One (stack, group) and its samples. */
struct entry {
	const struct pk_stack_view *stack;
	__u64 group;		/* pk_sample_group() */
	__u64 count;		/* samples, or with time_us their weight */
};


/* The one event of P's samples: 0 and its index; -EINVAL when they are of
 * several (a line cannot add samples of one to microseconds of another)
 * or of one P has not. */
static int only_event(const struct pk_profile *p, unsigned int *event)
{
	*event = p->nsamples ? p->samples[0].event : 0;
	for (size_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].event != *event)
			return -EINVAL;
	return pk_profile_event(p, *event) ? 0 : -EINVAL;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->stack->id != y->stack->id)
		return x->stack->id < y->stack->id ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;
}

/* LOC's frames, the function first; INLINED is the suffix of the frames
 * inlined into it. */
static void add_loc(struct pk_strbuf *b, const struct pk_loc *loc, bool lines, const char *suffix,
		    const char *inlined)
{
	/* A Python frame's name alone says too little (every module's code
	 * is "<module>"): its file goes with it, whatever --lines says. */
	if (loc->python) {
		add_frame_line(b, loc->frames[0].name, loc->frames[0].file, loc->frames[0].line,
			       "");
		return;
	}
	for (int i = loc->nframes - 1; i >= 0; i--) {
		const struct pk_frame *fr = &loc->frames[i];

		add_frame_line(b, fr->name, lines && fr->line ? fr->file : NULL, fr->line,
			       i < loc->nframes - 1 ? inlined : suffix);
	}
}

static char *fold_entry(const struct pk_profile *p, const struct entry *e, const char *inlined)
{
	const struct pk_stack_view *s = e->stack;
	struct pk_strbuf b = { 0 };
	char root[64];

	/* above every other root: a process belongs to its cgroup */
	if (p->per_cgroup)
		add_frame(&b, pk_stack_cgroup(s), "");
	switch (p->group) {
	case PK_GROUP_PID:
		snprintf(root, sizeof(root), "%s-%u", s->comm, s->pid);
		add_frame(&b, root, "");
		break;
	case PK_GROUP_TID:
		snprintf(root, sizeof(root), "%s-%u/%u", s->comm, s->pid, (__u32)e->group);
		add_frame(&b, root, "");
		break;
	case PK_GROUP_CPU:
		snprintf(root, sizeof(root), "cpu-%u", (__u32)e->group);
		add_frame(&b, root, "");
		/* fall through */
	default:
		add_frame(&b, s->comm, "");
	}
	for (size_t i = s->nuser; i-- > 0;)
		add_loc(&b, s->locs[s->nkernel + i], p->lines, "", inlined);
	for (size_t i = s->nkernel; i-- > 0;)
		add_loc(&b, s->locs[i], p->lines, PK_FOLD_KERNEL_SUFFIX, PK_FOLD_KERNEL_SUFFIX);
	return pk_strbuf_finish(&b);
}

void pk_fold_items_free(struct pk_fold_item *items, size_t n)
{
	for (size_t i = 0; items && i < n; i++)
		free((char *)items[i].stack);
	free(items);
}

int pk_folded_lines(const struct pk_profile *p, const char *inlined, struct pk_fold_item **out,
		    size_t *nout, bool *time_us)
{
	struct entry *v;
	struct pk_fold_item *items = NULL;
	unsigned int event;
	size_t n = 0;
	int err = only_event(p, &event);

	*out = NULL;
	*nout = 0;
	if (err)
		return err;
	*time_us = pk_event_folds_time(pk_profile_event(p, event));
	v = calloc(p->nsamples ? p->nsamples : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->nsamples; i++)
		v[i] = (struct entry){ p->samples[i].stack, pk_sample_group(p, &p->samples[i]),
				       *time_us ? pk_sample_weight(p, &p->samples[i]) :
						  p->samples[i].count };
	if (p->nsamples)
		qsort(v, p->nsamples, sizeof(*v), cmp_entry);
	/* Merged: one line is folded per (stack, group), not per sample. */
	for (size_t i = 0; i < p->nsamples; i++) {
		if (n && v[n - 1].stack == v[i].stack && v[n - 1].group == v[i].group)
			v[n - 1].count = pk_sat_add(v[n - 1].count, v[i].count);
		else
			v[n++] = v[i];
	}
	items = calloc(n ? n : 1, sizeof(*items));
	if (!items) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		items[i].stack = fold_entry(p, &v[i], inlined ? inlined : "");
		/* nanoseconds to microseconds, rounded, once per line */
		items[i].count = *time_us ? v[i].count / 1000 + (v[i].count % 1000 >= 500) :
					    v[i].count;
		if (!items[i].stack) {
			pk_fold_items_free(items, i);
			free(v);
			return -ENOMEM;
		}
	}
	free(v);
	*out = items;
	*nout = n;
	return 0;
}

int pk_folded_write(FILE *f, const struct pk_profile *p)
{
	struct pk_fold_item *items;
	bool time_us;
	size_t n;
	int err = pk_folded_lines(p, NULL, &items, &n, &time_us);

	if (err)
		return err;
	err = pk_fold_write(f, items, n);
	pk_fold_items_free(items, n);
	return err;
}
