// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/array.h"
#include "lib/version.h"
#include "output/speedscope.h"

#define SCHEMA		"https://www.speedscope.app/file-format-schema.json"
#define KERNEL_SUFFIX	"_[k]"		/* as folded.h's PK_FOLD_KERNEL_SUFFIX */

static const char UNKNOWN[] = "[unknown]";

/* One frame as some location (or, per CPU, a stack's thread name) has it:
 * several may be the same frame, which then gets one index. */
struct entry {
	const char *name, *file;
	__u32 line;
	bool kernel;
	bool thread;		/* a thread's name, not a function */
};

/* The samples of one profile: order[first .. first + n), all of EVENT. */
struct group {
	size_t first, n;
	__u64 weight;
	unsigned int event;
};

struct writer {
	const struct pk_profile *p;
	struct pk_profile_reach reached; /* the stacks and locations, by id */
	__u32 *loc_slot;		/* by loc id: its first frame's slot */
	__u32 *comm_slot;		/* by stack id, PK_GROUP_CPU: its root */
	__u32 *cgroup_slot;		/* by stack id, --per-cgroup: its root */
	struct entry *ents;		/* by slot */
	__u32 *ids;			/* by slot: the frame index */
	size_t nents, cap;
	__u32 *uniq;			/* by frame index: a slot that has it */
	size_t nframes;
	size_t *order;			/* sample indices, grouped, in time order */
	struct group *groups;
	size_t ngroups;
	bool tagged;			/* profile names carry their event */
};


/* --- JSON strings ---------------------------------------------------------- */

/*
 * The length of the UTF-8 sequence at S (2 to 4), or 0 when S starts none;
 * *BAD is then the length of its longest valid beginning (at least 1), so
 * that one U+FFFD stands for each maximal bad part, as Unicode recommends.
 * The ranges are Unicode's well-formed sequences: no overlong forms, no
 * surrogates, nothing above U+10FFFF. The NUL that ends S fails every
 * range, so nothing is read past it.
 */
static int utf8_seq(const unsigned char *s, int *bad)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;
		hi = s[0] == 0xed ? 0x9f : 0xbf;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	} else {
		*bad = 1;
		return 0;
	}
	for (int i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
	return n;
}

/* The escape JSON has for the ASCII byte C, or NULL when C needs none. */
static const char *ascii_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\t':
		return "\\t";
	case '\r':
		return "\\r";
	}
	return NULL;
}

/* STR as the inside of a JSON string, written in runs of bytes that need
 * nothing. */
static void put_chars(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		const char *esc;
		size_t run = 0;
		int n, bad;

		while (s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' && s[run] != '\\')
			run++;
		fwrite(s, 1, run, f);
		s += run;
		if (!*s)
			break;
		if (*s < 0x80) {
			esc = ascii_escape(*s);
			if (esc)
				fputs(esc, f);
			else	/* the other control characters, DEL */
				fprintf(f, "\\u%04x", *s);
			s++;
			continue;
		}
		n = utf8_seq(s, &bad);
		if (!n) {
			fputs("\\ufffd", f);
			s += bad;
			continue;
		}
		/* U+2028 and U+2029 are valid JSON, but line ends to the
		 * JavaScript before ES2019 that some viewers still parse
		 * JSON with. */
		if (n == 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9))
			fprintf(f, "\\u%04x", 0x2000 | (s[2] - 0x80));
		else
			fwrite(s, 1, n, f);
		s += n;
	}
}

static void put_string(FILE *f, const char *s, const char *suffix)
{
	putc('"', f);
	put_chars(f, s && s[0] ? s : UNKNOWN);
	fputs(suffix, f);
	putc('"', f);
}

/* --- frames ---------------------------------------------------------------- */

static int add_entry(struct writer *w, const char *name, const char *file, __u32 line,
		     bool kernel, bool thread)
{
	if (pk_array_reserve((void **)&w->ents, &w->cap, sizeof(*w->ents), w->nents + 1, 256))
		return -ENOMEM;
	w->ents[w->nents++] = (struct entry){ name && name[0] ? name : UNKNOWN, file, line,
					      kernel, thread };
	return 0;
}

/* The frames of LOC (once: per location id). */
static int add_loc(struct writer *w, const struct pk_loc *loc)
{
	int err;

	w->loc_slot[loc->id] = w->nents;
	for (int i = 0; i < loc->nframes; i++) {
		const struct pk_frame *fr = &loc->frames[i];

		/* a Python frame's line always: its name alone says little */
		err = add_entry(w, fr->name, fr->file, w->p->lines || loc->python ? fr->line : 0,
				loc->kernel, false);
		if (err)
			return err;
	}
	return 0;
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_entry(const struct entry *a, const struct entry *b)
{
	int c;

	if (a->thread != b->thread)
		return a->thread ? -1 : 1;
	if (a->kernel != b->kernel)
		return a->kernel ? 1 : -1;
	if ((c = strcmp(a->name, b->name)) || (c = cmp_str(a->file, b->file)))
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

static int cmp_slot(const void *a, const void *b, void *ents)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;
	int c = cmp_entry((struct entry *)ents + x, (struct entry *)ents + y);

	return c ? c : (x > y) - (x < y);
}

/* Every location (and thread name) a sample reaches, then one index per
 * distinct frame: the entries sorted once, equal neighbours merged. */
static int collect_frames(struct writer *w)
{
	const struct pk_profile *p = w->p;
	__u32 *slots;
	int err;

	err = pk_profile_reach(p, &w->reached);
	if (err)
		return err;
	/* the order entries are added in does not matter: they are sorted */
	for (size_t id = 0; (p->group == PK_GROUP_CPU || p->per_cgroup) && id < p->nstacks; id++) {
		const struct pk_stack_view *st = w->reached.stacks[id];

		if (!st)
			continue;
		w->comm_slot[id] = w->nents;
		err = add_entry(w, st->comm, NULL, 0, false, true);
		w->cgroup_slot[id] = w->nents;
		if (!err)
			err = add_entry(w, pk_stack_cgroup(st), NULL, 0, false, true);
		if (err)
			return err;
	}
	for (size_t id = 0; id < p->nlocs; id++) {
		if (!w->reached.locs[id])
			continue;
		err = add_loc(w, w->reached.locs[id]);
		if (err)
			return err;
	}
	slots = malloc((w->nents ? w->nents : 1) * sizeof(*slots));
	w->ids = malloc((w->nents ? w->nents : 1) * sizeof(*w->ids));
	w->uniq = malloc((w->nents ? w->nents : 1) * sizeof(*w->uniq));
	if (!slots || !w->ids || !w->uniq) {
		free(slots);
		return -ENOMEM;
	}
	for (size_t i = 0; i < w->nents; i++)
		slots[i] = i;
	qsort_r(slots, w->nents, sizeof(*slots), cmp_slot, w->ents);
	for (size_t i = 0; i < w->nents; i++) {
		if (!i || cmp_entry(&w->ents[slots[i - 1]], &w->ents[slots[i]]))
			w->uniq[w->nframes++] = slots[i];
		w->ids[slots[i]] = w->nframes - 1;
	}
	free(slots);
	return 0;
}

/* --- profiles -------------------------------------------------------------- */

/* One profile per process without grouping: speedscope has no other
 * way to tell processes apart. */
static __u64 group_key(const struct pk_profile *p, const struct pk_sample_view *s)
{
	return p->group == PK_GROUP_NONE ? s->stack->pid : pk_sample_group(p, s);
}

static int cmp_sample(const void *a, const void *b, void *profile)
{
	const struct pk_profile *p = profile;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	__u64 kx = group_key(p, &p->samples[x]), ky = group_key(p, &p->samples[y]);

	if (p->samples[x].event != p->samples[y].event)
		return p->samples[x].event < p->samples[y].event ? -1 : 1;
	if (kx != ky)
		return kx < ky ? -1 : 1;
	return (x > y) - (x < y);	/* time order within a profile */
}

/* The samples grouped by profile: sorted once by (event, key, time), each
 * run of one event and key a profile. */
static int collect_groups(struct writer *w)
{
	const struct pk_profile *p = w->p;
	struct group *g = NULL;

	w->order = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*w->order));
	w->groups = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*w->groups));
	if (!w->order || !w->groups)
		return -ENOMEM;
	for (size_t i = 0; i < p->nsamples; i++)
		w->order[i] = i;
	qsort_r(w->order, p->nsamples, sizeof(*w->order), cmp_sample, (void *)p);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_sample_view *s = &p->samples[w->order[i]];

		const struct pk_sample_view *prev = i ? &p->samples[w->order[i - 1]] : NULL;

		if (!g || group_key(p, s) != group_key(p, prev) || s->event != prev->event) {
			g = &w->groups[w->ngroups++];
			*g = (struct group){ .first = i, .event = s->event };
		}
		g->n++;
		g->weight = pk_sat_add(g->weight, pk_sample_weight(p, s));
	}
	return 0;
}

static void put_group_name(FILE *f, const struct writer *w, const struct group *g)
{
	const struct pk_profile *p = w->p;
	const struct pk_sample_view *s = &p->samples[w->order[g->first]];

	putc('"', f);
	switch (p->group) {
	case PK_GROUP_CPU:
		fprintf(f, "cpu %u", s->cpu);
		break;
	case PK_GROUP_TID:
		put_chars(f, s->stack->comm && s->stack->comm[0] ? s->stack->comm : UNKNOWN);
		fprintf(f, " (tid %u)", s->tid);
		break;
	default:
		/* A process by its main thread's name, as ps shows it. */
		for (size_t i = 0; i < g->n; i++) {
			const struct pk_sample_view *t = &p->samples[w->order[g->first + i]];

			if (t->tid == t->stack->pid) {
				s = t;
				break;
			}
		}
		put_chars(f, s->stack->comm && s->stack->comm[0] ? s->stack->comm : UNKNOWN);
		fprintf(f, " (pid %u)", s->stack->pid);
	}
	if (w->tagged) {
		fputs(" [", f);
		put_chars(f, pk_profile_event(p, g->event)->name);
		putc(']', f);
	}
	putc('"', f);
}

static void put_loc(FILE *f, const struct writer *w, const struct pk_loc *loc, bool *first)
{
	__u32 slot = w->loc_slot[loc->id];

	/* Root first: the function, then what was inlined into it. */
	for (int i = loc->nframes - 1; i >= 0; i--) {
		fprintf(f, *first ? "%u" : ",%u", w->ids[slot + i]);
		*first = false;
	}
}

static void put_stack(FILE *f, const struct writer *w, const struct pk_stack_view *st)
{
	bool first = true;

	putc('[', f);
	if (w->p->per_cgroup) {
		fprintf(f, "%u", w->ids[w->cgroup_slot[st->id]]);
		first = false;
	}
	if (w->p->group == PK_GROUP_CPU) {
		if (!first)
			putc(',', f);
		fprintf(f, "%u", w->ids[w->comm_slot[st->id]]);
		first = false;
	}
	for (size_t i = st->nuser; i-- > 0;)
		put_loc(f, w, st->locs[st->nkernel + i], &first);
	for (size_t i = st->nkernel; i-- > 0;)
		put_loc(f, w, st->locs[i], &first);
	putc(']', f);
}

static void put_profile(FILE *f, const struct writer *w, const struct group *g)
{
	const struct pk_profile *p = w->p;
	const struct pk_event_desc *ev = pk_profile_event(p, g->event);
	bool ns = ev->unit == PK_UNIT_NS;

	fputs("{\"type\":\"sampled\",\"name\":", f);
	put_group_name(f, w, g);
	/* in nanoseconds, the time the profile holds (the clock of perf
	 * text's timestamps); a count has no time to be compared with */
	fprintf(f, ",\"unit\":\"%s\",\"startValue\":%llu,\"endValue\":%llu,\n\"samples\":[",
		ns ? "nanoseconds" : "none", ns ? (unsigned long long)p->start_ns : 0ULL,
		ns ? (unsigned long long)p->end_ns : (unsigned long long)g->weight);
	for (size_t i = 0; i < g->n; i++) {
		if (i)
			fputs(",\n", f);
		put_stack(f, w, p->samples[w->order[g->first + i]].stack);
	}
	fputs("],\n\"weights\":[", f);
	for (size_t i = 0; i < g->n; i++)
		fprintf(f, i ? ",%llu" : "%llu",
			(unsigned long long)pk_sample_weight(p, &p->samples[w->order[g->first + i]]));
	fputs("]}", f);
}

static void put_file(FILE *f, const struct writer *w)
{
	size_t active = 0;

	/* the heaviest of the first event's: weights of two events are in
	 * units that do not compare */
	for (size_t i = 1; i < w->ngroups && w->groups[i].event == w->groups[0].event; i++)
		if (w->groups[i].weight > w->groups[active].weight)
			active = i;
	fprintf(f, "{\"$schema\":\"%s\",\n\"exporter\":\"probekit %s\",\n"
		"\"name\":\"probekit profile (", SCHEMA, PK_VERSION);
	if (w->tagged) {
		for (unsigned int e = 0; e < pk_profile_nevents(w->p); e++) {
			fputs(e ? ", " : "", f);
			put_chars(f, pk_profile_event(w->p, e)->name);
		}
	} else {
		fprintf(f, "%u Hz", w->p->freq_hz);
	}
	fprintf(f, ")\",\n\"activeProfileIndex\":%zu,\n\"shared\":{\"frames\":[", active);
	for (size_t i = 0; i < w->nframes; i++) {
		const struct entry *e = &w->ents[w->uniq[i]];

		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		put_string(f, e->name, e->kernel ? KERNEL_SUFFIX : "");
		if (e->file) {
			fputs(",\"file\":", f);
			put_string(f, e->file, "");
		}
		if (e->line)
			fprintf(f, ",\"line\":%u", e->line);
		putc('}', f);
	}
	fputs("]},\n\"profiles\":[", f);
	for (size_t i = 0; i < w->ngroups; i++) {
		fputs(i ? ",\n" : "\n", f);
		put_profile(f, w, &w->groups[i]);
	}
	fputs("]}\n", f);
}

int pk_speedscope_write(FILE *f, const struct pk_profile *p)
{
	struct writer w = { .p = p };
	int err = -ENOMEM;

	/* a profile of cpu-clock alone reads as it did before events */
	w.tagged = pk_profile_nevents(p) > 1 ||
		   strcmp(pk_profile_event(p, 0)->name, "cpu-clock") != 0;
	w.loc_slot = calloc(p->nlocs ? p->nlocs : 1, sizeof(*w.loc_slot));
	w.comm_slot = calloc(p->nstacks ? p->nstacks : 1, sizeof(*w.comm_slot));
	w.cgroup_slot = calloc(p->nstacks ? p->nstacks : 1, sizeof(*w.cgroup_slot));
	if (!w.loc_slot || !w.comm_slot || !w.cgroup_slot)
		goto out;
	err = collect_frames(&w);
	if (!err)
		err = collect_groups(&w);
	if (err)
		goto out;
	put_file(f, &w);
	err = fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
out:
	pk_profile_reach_free(&w.reached);
	free(w.loc_slot);
	free(w.comm_slot);
	free(w.cgroup_slot);
	free(w.ents);
	free(w.ids);
	free(w.uniq);
	free(w.order);
	free(w.groups);
	return err;
}
