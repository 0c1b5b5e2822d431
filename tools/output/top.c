// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/array.h"
#include "lib/util/strpool.h"
#include "lib/util/text.h"
#include "lib/util/u64map.h"
#include "output/top.h"

/* Lines above the functions: the title, a blank line, the column heads. */
#define HEAD_LINES	3

struct fn {
	const char *name, *module;	/* the pool's */
	bool kernel;
	__u64 self, total;		/* weights */
	__u64 self_samples;
	__u64 mark;			/* the last sample that counted it in total */
	struct fn *next;		/* same hash */
};

struct pk_top {
	struct pk_u64map by_hash;	/* hash of (kernel, module, name) -> chain */
	struct fn **fns;
	size_t nfns, cap;
	struct pk_strpool pool;
	__u64 mark;
	__u64 samples, weight;
	char event[PK_EVENT_NAME_MAX];
	bool by_total;
};

struct pk_top *pk_top_new(void)
{
	return calloc(1, sizeof(struct pk_top));
}

void pk_top_free(struct pk_top *t)
{
	if (!t)
		return;
	pk_u64map_free(&t->by_hash);
	free(t->fns);
	pk_strpool_free(&t->pool);
	free(t);
}

static __u64 hash_str(__u64 h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;	/* FNV-1a */
	return h;
}

/* The function LOC's address is in. NULL: no memory. */
static struct fn *fn_of(struct pk_top *t, const struct pk_loc *loc)
{
	const char *name = loc->frames[loc->nframes - 1].name;
	/* a Python function's module is its source file: every module's
	 * code is "<module>" */
	const char *module = loc->python ? (loc->frames[0].file ?
					    pk_base_name(loc->frames[0].file) : "[python]") :
			     loc->java ? "[java]" : loc->js ? "[js]" :
			     loc->map ? pk_base_name(loc->map->module->path) :
			     loc->kernel ? "[kernel.kallsyms]" : "[unknown]";
	__u64 h = hash_str(hash_str(0xcbf29ce484222325ULL + loc->kernel, module), name);
	struct fn *head = pk_u64map_get(&t->by_hash, h), *f;

	for (f = head; f; f = f->next)
		if (f->kernel == loc->kernel && !strcmp(f->name, name) && !strcmp(f->module, module))
			return f;
	if (pk_array_reserve((void **)&t->fns, &t->cap, sizeof(*t->fns), t->nfns + 1, 256))
		return NULL;
	f = pk_strpool_zalloc(&t->pool, sizeof(*f));
	if (!f)
		return NULL;
	f->name = pk_strpool_add(&t->pool, name);
	f->module = pk_strpool_add(&t->pool, module);
	f->kernel = loc->kernel;
	f->next = head;
	if (!f->name || !f->module || pk_u64map_put(&t->by_hash, h, f))
		return NULL;
	t->fns[t->nfns++] = f;
	return f;
}

int pk_top_add(struct pk_top *t, const struct pk_profile *p)
{
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_sample_view *s = &p->samples[i];
		const struct pk_stack_view *st = s->stack;
		const struct pk_event_desc *ev = pk_profile_event(p, s->event);
		__u64 w = pk_sample_weight(p, s);
		size_t n = (size_t)st->nkernel + st->nuser;

		if (!ev || (t->event[0] && strcmp(t->event, ev->name)))
			return -EINVAL;
		if (!t->event[0])
			snprintf(t->event, sizeof(t->event), "%s", ev->name);
		t->samples = pk_sat_add(t->samples, s->count);
		t->weight = pk_sat_add(t->weight, w);
		t->mark++;
		/* locs[0] is the leaf: the kernel's when there is one */
		for (size_t k = 0; k < n; k++) {
			struct fn *f = fn_of(t, st->locs[k]);

			if (!f)
				return -ENOMEM;
			if (k == 0) {
				f->self = pk_sat_add(f->self, w);
				f->self_samples = pk_sat_add(f->self_samples, s->count);
			}
			if (f->mark != t->mark) {
				f->mark = t->mark;
				f->total = pk_sat_add(f->total, w);
			}
		}
	}
	return 0;
}

void pk_top_zero(struct pk_top *t)
{
	for (size_t i = 0; i < t->nfns; i++)
		t->fns[i]->self = t->fns[i]->total = t->fns[i]->self_samples = 0;
	t->samples = t->weight = 0;
}

void pk_top_toggle_order(struct pk_top *t)
{
	t->by_total = !t->by_total;
}

static int cmp_self(const void *a, const void *b)
{
	const struct fn *x = *(const struct fn *const *)a, *y = *(const struct fn *const *)b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_total(const void *a, const void *b)
{
	const struct fn *x = *(const struct fn *const *)a, *y = *(const struct fn *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return cmp_self(a, b);
}

/* S, at most MAX bytes of it, nothing a terminal would take for a control:
 * a symbol name is not the program's to move the cursor. */
static void put_safe(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	for (; *p && n < max; p++, n++) {
		if (*p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)) {
			fputc('?', f);
			p += *p == 0xc2;
			continue;
		}
		/* not a character cut in two at the edge */
		if (n + 1 == max && *p >= 0xc0)
			break;
		fputc(*p, f);
	}
}

/* One line: S cut to the screen, then what ends a line. */
static void put_line(FILE *f, const struct pk_top_screen *s, const char *text)
{
	put_safe(f, text, s->cols ? s->cols : SIZE_MAX);
	fputs(s->ansi ? "\x1b[K\n" : "\n", f);
}

static double share(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0;
}

int pk_top_draw(const struct pk_top *t, const struct pk_top_screen *s, FILE *f)
{
	size_t rows = s->rows > HEAD_LINES + 1 ? s->rows - HEAD_LINES - 1 : s->rows ? 1 : SIZE_MAX;
	struct fn **v = NULL;
	size_t n = 0;
	char line[1024];

	if (t->nfns) {
		v = malloc(t->nfns * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < t->nfns; i++)
			if (t->fns[i]->total)
				v[n++] = t->fns[i];
		qsort(v, n, sizeof(*v), t->by_total ? cmp_total : cmp_self);
	}
	if (s->ansi)
		fputs("\x1b[H", f);
	snprintf(line, sizeof(line), "%s: %llu samples in %.0f s, by %s share    q quit, t order, z zero",
		 t->event[0] ? t->event : "no samples yet", (unsigned long long)t->samples,
		 s->seconds, t->by_total ? "total" : "self");
	put_line(f, s, line);
	put_line(f, s, "");
	snprintf(line, sizeof(line), "%7s %7s %9s  %-20s %s", "Self", "Total", "Samples",
		 "Shared Object", "Symbol");
	put_line(f, s, line);
	for (size_t i = 0; i < n && i < rows; i++) {
		const struct fn *fn = v[i];

		snprintf(line, sizeof(line), "%6.2f%% %6.2f%% %9llu  %-20.20s [%c] %s",
			 share(fn->self, t->weight), share(fn->total, t->weight),
			 (unsigned long long)fn->self_samples, fn->module, fn->kernel ? 'k' : '.',
			 fn->name);
		put_line(f, s, line);
	}
	free(v);
	if (s->ansi)
		fputs("\x1b[J", f);
	else
		fputs("\n", f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
