// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "lib/util/text.h"
#include "output/perf_text.h"

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_USEC	1000ULL

static const char UNKNOWN[] = "[unknown]";
static const char KERNEL[] = "[kernel.kallsyms]";
/* The modules of Python, Java and JavaScript frames: no file holds them */
static const char PYTHON[] = "[python]";
static const char JAVA[] = "[java]";
static const char JS[] = "[js]";

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* S with each control character as a space, written in runs. */
static void put_clean(FILE *f, const char *s)
{
	while (*s) {
		size_t n = 0;

		while (s[n] && !is_control(s[n]))
			n++;
		fwrite(s, 1, n, f);
		s += n;
		if (*s) {
			putc(' ', f);
			s++;
		}
	}
}

/* The source line of frame FR of LOC, as perf script -F +srcline puts it
 * below a frame ("\n  " then the line). */
static void put_srcline(FILE *f, const struct pk_loc *loc, const struct pk_frame *fr)
{
	fputs("  ", f);
	if (fr->file) {
		put_clean(f, pk_base_name(fr->file));
		fprintf(f, ":%u\n", fr->line);
	} else if (loc->map) {
		put_clean(f, pk_base_name(loc->map->module->path));
		fprintf(f, "[%llx]\n", (unsigned long long)loc->module_addr);
	} else if (loc->kernel) {
		fprintf(f, "%s[%llx]\n", KERNEL, (unsigned long long)loc->addr);
	} else {
		/* A symbol outside any map: a line is owed, none is known. */
		fprintf(f, "%s\n", UNKNOWN);
	}
}

/* A Python frame as perf shows one that CPython's perf trampoline (3.12,
 * -X perf) named: "py::QUALNAME:FILE", the file as co_filename has it; its
 * line below it with --lines, as perf puts a srcline. */
static void put_py_loc(FILE *f, const struct pk_profile *p, const struct pk_loc *loc)
{
	const struct pk_frame *fr = &loc->frames[0];

	fprintf(f, "\t%16llx ", (unsigned long long)loc->addr);
	if (fr->file) {
		fputs("py::", f);
		put_clean(f, fr->name);
		putc(':', f);
		put_clean(f, fr->file);
	} else {
		put_clean(f, fr->name);
	}
	fprintf(f, " (%s)\n", PYTHON);
	if (p->lines) {
		fputs("  ", f);
		if (fr->file) {
			put_clean(f, pk_base_name(fr->file));
			fprintf(f, ":%u\n", fr->line);
		} else {
			fprintf(f, "%s\n", UNKNOWN);
		}
	}
}

/* A Java frame (package.Class.method) in MODULE [java], or a JavaScript
 * one (its function) in [js]; its source file and line below it with
 * --lines, as perf puts a srcline (":0" when the frame has none: a
 * compiled Java one). */
static void put_vm_loc(FILE *f, const struct pk_profile *p, const struct pk_loc *loc,
		       const char *module)
{
	/* a compiled Java frame's inlined methods first, as C's */
	for (int i = 0; i < loc->nframes; i++) {
		fprintf(f, "\t%16llx ", (unsigned long long)loc->addr);
		put_clean(f, loc->frames[i].name);
		fprintf(f, " (%s)\n", module);
		if (p->lines)
			put_srcline(f, loc, &loc->frames[i]);
	}
}

/* One line per frame of LOC, the inlined code first, then the function
 * whose symbol holds the address. */
static void put_loc(FILE *f, const struct pk_profile *p, const struct pk_loc *loc)
{
	bool has_sym = loc->sym_off != PK_LOC_NO_SYM;
	const char *module = loc->map ? loc->map->module->path : loc->kernel ? KERNEL : UNKNOWN;

	if (loc->python) {
		put_py_loc(f, p, loc);
		return;
	}
	if (loc->java || loc->js) {
		put_vm_loc(f, p, loc, loc->java ? JAVA : JS);
		return;
	}
	for (int i = 0; i < loc->nframes; i++) {
		const struct pk_frame *fr = &loc->frames[i];
		bool inlined = i < loc->nframes - 1;
		const char *name = fr->name && fr->name[0] ? fr->name : UNKNOWN;

		fprintf(f, "\t%16llx ", (unsigned long long)loc->addr);
		if (inlined || has_sym)
			put_clean(f, name);
		else
			fputs(UNKNOWN, f);
		/* An inlined frame's symbol starts where its caller's does,
		 * as perf makes them: the same offset. */
		if (has_sym)
			fprintf(f, "+0x%llx", (unsigned long long)loc->sym_off);
		if (inlined) {
			fputs(" (inlined)\n", f);
		} else {
			fputs(" (", f);
			put_clean(f, module);
			fputs(")\n", f);
		}
		/* stackcollapse-perf.pl --srcline reads no line after a frame
		 * it knows nothing of, and one after every other. */
		if (p->lines && (inlined || has_sym || loc->map || loc->kernel))
			put_srcline(f, loc, fr);
	}
}

/* S once with PERIOD, its event's weight for that one sample. */
static void put_sample(FILE *f, const struct pk_profile *p, const struct pk_sample_view *s,
		       const char *event, __u64 period)
{
	const struct pk_stack_view *st = s->stack;
	char when[48];

	snprintf(when, sizeof(when), "%llu.%06llu",
		 (unsigned long long)(s->time_ns / NSEC_PER_SEC),
		 (unsigned long long)(s->time_ns % NSEC_PER_SEC / NSEC_PER_USEC));
	put_clean(f, st->comm && st->comm[0] ? st->comm : UNKNOWN);
	fprintf(f, " %5u/%-5u [%03u] %12s: %10llu ", st->pid, s->tid, s->cpu, when,
		(unsigned long long)period);
	put_clean(f, event);
	fputs(": \n", f);
	/* locs holds the kernel part then the user part, each leaf first:
	 * perf's order, leaf to root. */
	for (size_t i = 0; i < (size_t)st->nkernel + st->nuser; i++)
		put_loc(f, p, st->locs[i]);
	putc('\n', f);
}

int pk_perf_text_write(FILE *f, const struct pk_profile *p)
{
	for (size_t i = 0; i < p->nsamples; i++)
		if (!p->samples[i].stack || !pk_profile_event(p, p->samples[i].event))
			return -EINVAL;
	/* stdio remembers a failed write: one check at the end covers all. */
	for (size_t i = 0; i < p->nsamples && !ferror(f); i++) {
		const struct pk_sample_view *s = &p->samples[i];
		const char *event = pk_profile_event(p, s->event)->name;
		__u64 w = pk_sample_weight(p, s), count = s->count ? s->count : 1;

		/* the weight shared out, the remainder on the first lines:
		 * the periods add up to it */
		for (__u64 n = 0; n < s->count && !ferror(f); n++)
			put_sample(f, p, s, event, w / count + (n < w % count));
	}
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}
