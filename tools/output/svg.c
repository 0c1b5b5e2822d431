// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/folded.h"
#include "output/svg.h"
#include "output/svg_script.h"

/* flamegraph.pl's geometry, so that the graph reads as its users know it. */
#define WIDTH		1200
#define XPAD		10
#define FRAME_H		16
#define FONT_SIZE	12
/* Verdana's average glyph width per font size: what fits in a box. */
#define CHAR_W		(FONT_SIZE * 0.59)
#define TOP		(FONT_SIZE * 4 + 6)	/* title, subtitle, buttons */
#define BOTTOM		(FONT_SIZE * 2 + 10)	/* the details line */

/* How pk_folded_lines marks a frame inlined into a user function. */
#define INLINE_SUFFIX	"_[i]"

enum kind { ROOT, USER, INLINED, KERNEL };
static const char kind_class[] = { 'r', 'u', 'i', 'k' };

struct frame {
	const char *name;
	enum kind kind;
};

/* A folded line split into its frames, root first. */
struct line {
	struct frame *frames;
	size_t n;
	__u64 count;
};

/* A box of the graph. */
struct box {
	const struct frame *fr;	/* NULL: the root "all" */
	size_t depth;
	__u64 x, n;
};

static bool strip(char *name, const char *suffix)
{
	size_t len = strlen(name), slen = strlen(suffix);

	if (len < slen || strcmp(name + len - slen, suffix))
		return false;
	name[len - slen] = '\0';
	return true;
}

/* STACK (modified in place) into L's frames; NROOTS frames are roots. */
static int split_line(char *stack, size_t nroots, struct line *l)
{
	size_t n = 1;

	for (const char *c = stack; *c; c++)
		n += *c == ';';
	l->frames = calloc(n, sizeof(*l->frames));
	if (!l->frames)
		return -ENOMEM;
	for (char *s = stack, *end; s; s = end) {
		struct frame *fr = &l->frames[l->n];

		end = strchr(s, ';');
		if (end)
			*end++ = '\0';
		fr->name = s;
		fr->kind = l->n < nroots ? ROOT :
			   strip(s, PK_FOLD_KERNEL_SUFFIX) ? KERNEL :
			   strip(s, INLINE_SUFFIX) ? INLINED : USER;
		l->n++;
	}
	return 0;
}

static int cmp_frame(const struct frame *a, const struct frame *b)
{
	int c = strcmp(a->name, b->name);

	return c ? c : (int)a->kind - (int)b->kind;
}

/* Callers before callees, siblings by name: flamegraph.pl's order. */
static int cmp_line(const void *pa, const void *pb)
{
	const struct line *a = pa, *b = pb;

	for (size_t i = 0; i < a->n && i < b->n; i++) {
		int c = cmp_frame(&a->frames[i], &b->frames[i]);

		if (c)
			return c;
	}
	return a->n < b->n ? -1 : a->n > b->n;
}

struct graph {
	struct box *boxes;
	size_t nboxes, depth;	/* depth: rows, "all" included */
	__u64 total;
};

static void add_box(struct graph *g, const struct box *b)
{
	if (b->n)	/* a line of 0 us draws nothing */
		g->boxes[g->nboxes++] = *b;
}

/* The boxes of the sorted LINES: each open frame grows while the next
 * line goes through it, and is drawn once a line leaves it. */
static int build(struct graph *g, const struct line *lines, size_t n)
{
	struct box *open;
	size_t nopen = 0, nframes = 0, depth = 0;
	__u64 x = 0;

	for (size_t i = 0; i < n; i++) {
		nframes += lines[i].n;
		depth = lines[i].n > depth ? lines[i].n : depth;
	}
	g->boxes = calloc(nframes + 1, sizeof(*g->boxes));
	open = calloc(depth + 1, sizeof(*open));
	if (!g->boxes || !open) {
		free(open);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct line *l = &lines[i];
		size_t same = 0;

		while (same < nopen && same < l->n &&
		       !cmp_frame(open[same].fr, &l->frames[same]))
			same++;
		while (nopen > same)
			add_box(g, &open[--nopen]);
		for (; nopen < l->n; nopen++)
			open[nopen] = (struct box){ &l->frames[nopen], nopen + 1, x, 0 };
		for (size_t d = 0; d < l->n; d++)
			open[d].n = pk_sat_add(open[d].n, l->count);
		x = pk_sat_add(x, l->count);
	}
	while (nopen)
		add_box(g, &open[--nopen]);
	free(open);
	g->total = x;
	g->depth = depth + 1;
	add_box(g, &(struct box){ NULL, 0, 0, x });
	return 0;
}

/* The length of the UTF-8 sequence at S, or 0 where it is not one (XML
 * takes only well-formed text). */
static size_t utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;
	return len;
}

/* S as XML text, at most MAX characters of it (SIZE_MAX: all), what XML
 * cannot hold as U+FFFD. */
static void put_text(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t chars = 0; *p && chars < max; chars++) {
		size_t len = utf8_len(p);

		if (!len || (*p < 0x20 && *p != '\t') || *p == 0x7f) {
			fputs("\xef\xbf\xbd", f);
			p++;
			continue;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fwrite(p, 1, len, f);
		}
		p += len;
	}
}

static size_t chars_of(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; n++) {
		size_t len = utf8_len(p);

		p += len ? len : 1;
	}
	return n;
}

/* NAME as it fits in W pixels: whole, cut with "..", or nothing. The
 * script does the same after a zoom. */
static void put_fitted(FILE *f, const char *name, double w)
{
	double room = (w - 6) / CHAR_W;
	size_t fit = room > 0 ? (size_t)room : 0;

	if (fit < 3)
		return;
	if (chars_of(name) <= fit) {
		put_text(f, name, SIZE_MAX);
		return;
	}
	put_text(f, name, fit - 2);
	fputs("..", f);
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* flamegraph.pl's palettes, picked by name so that a function keeps its
 * colour from one graph to the next: user code warm (red to yellow),
 * kernel code orange, inlined frames aqua. */
static void put_colour(FILE *f, const struct frame *fr)
{
	uint32_t h = name_hash(fr ? fr->name : "all");
	double v1 = (h & 0xff) / 255.0, v2 = (h >> 8 & 0xff) / 255.0;
	double v3 = (h >> 16 & 0xff) / 255.0;
	int r, g, b;

	switch (fr ? fr->kind : ROOT) {
	case KERNEL:
		r = 190 + (int)(65 * v1), g = 90 + (int)(65 * v1), b = 0;
		break;
	case INLINED:
		r = 50 + (int)(60 * v1), g = 165 + (int)(55 * v1), b = 165 + (int)(55 * v1);
		break;
	default:
		r = 205 + (int)(50 * v3), g = (int)(230 * v1), b = (int)(55 * v2);
	}
	fprintf(f, "rgb(%d,%d,%d)", r, g, b);
}

static void put_box(FILE *f, const struct box *b, const struct graph *g, int height,
		    const char *unit)
{
	double scale = (WIDTH - 2.0 * XPAD) / (double)g->total;
	double x = XPAD + b->x * scale, w = b->n * scale;
	double y = height - BOTTOM - (double)(b->depth + 1) * FRAME_H;
	const char *name = b->fr ? b->fr->name : "all";

	fprintf(f, "<g class=\"%c\" data-d=\"%zu\" data-x=\"%llu\" data-n=\"%llu\"><title>",
		b->fr ? kind_class[b->fr->kind] : 'r', b->depth, (unsigned long long)b->x,
		(unsigned long long)b->n);
	put_text(f, name, SIZE_MAX);
	fprintf(f, " (%llu %s, %.2f%%)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"",
		(unsigned long long)b->n, unit, 100.0 * b->n / g->total, x, y, w, FRAME_H - 1);
	put_colour(f, b->fr);
	fprintf(f, "\"/><text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_H - 5);
	put_fitted(f, name, w);
	fputs("</text></g>\n", f);
}

static const char *group_name(enum pk_group group)
{
	switch (group) {
	case PK_GROUP_PID:
		return ", a root per process";
	case PK_GROUP_TID:
		return ", a root per thread";
	case PK_GROUP_CPU:
		return ", a root per CPU";
	default:
		return "";
	}
}

static void put_svg(FILE *f, const struct pk_profile *p, const struct graph *g, bool time_us)
{
	int height = TOP + (int)g->depth * FRAME_H + BOTTOM;
	const char *unit = time_us ? "us" : "samples";
	const struct pk_event_desc *ev = pk_profile_event(p, p->nsamples ? p->samples[0].event : 0);

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<style type=\"text/css\">\n"
		"text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }\n"
		"#title { font-size: 17px; text-anchor: middle; }\n"
		"#subtitle { fill: rgb(110,110,110); text-anchor: middle; }\n"
		"#frames g { cursor: pointer; }\n"
		"#frames g:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
		"#frames text { pointer-events: none; }\n"
		"#frames g.caller { opacity: 0.5; }\n"
		".button { cursor: pointer; fill: rgb(0,0,160); }\n"
		".button:hover { text-decoration: underline; }\n"
		"</style>\n"
		"<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		"<stop stop-color=\"#eeeeee\" offset=\"5%%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%%\"/>"
		"</linearGradient></defs>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#background)\"/>\n",
		WIDTH, height, WIDTH, height, FONT_SIZE, WIDTH, height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"%d\">", WIDTH / 2, FONT_SIZE * 2);
	put_text(f, p->title ? p->title : "Flame Graph", SIZE_MAX);
	fprintf(f, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"%d\">", WIDTH / 2, FONT_SIZE * 2 + 18);
	put_text(f, ev ? ev->name : "", SIZE_MAX);
	fprintf(f, ": %llu %s", (unsigned long long)g->total, unit);
	if (p->end_ns > p->start_ns)
		fprintf(f, " in %.2f s", (p->end_ns - p->start_ns) / 1e9);
	fprintf(f, "%s%s</text>\n", group_name(p->group),
		p->per_cgroup ? ", a root per cgroup" : "");
	fprintf(f, "<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"%d\" style=\"display: none\">Reset Zoom</text>\n"
		"<text id=\"search\" class=\"button\" x=\"%d\" y=\"%d\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
		XPAD, FONT_SIZE * 2, WIDTH - XPAD, FONT_SIZE * 2,
		XPAD, height - FONT_SIZE, WIDTH - XPAD, height - FONT_SIZE);
	if (!g->total) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no samples</text>\n</svg>\n",
			WIDTH / 2, height / 2);
		return;
	}
	fprintf(f, "<g id=\"frames\" data-total=\"%llu\" data-unit=\"%s\" data-width=\"%d\" data-xpad=\"%d\" data-charw=\"%.2f\">\n",
		(unsigned long long)g->total, unit, WIDTH, XPAD, CHAR_W);
	for (size_t i = 0; i < g->nboxes; i++)
		put_box(f, &g->boxes[i], g, height, unit);
	fprintf(f, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		pk_svg_script);
}

int pk_svg_write(FILE *f, const struct pk_profile *p)
{
	struct pk_fold_item *items;
	struct graph g = { 0 };
	struct line *lines;
	size_t n, nroots = (p->group == PK_GROUP_CPU ? 2 : 1) + p->per_cgroup;
	bool time_us;
	int err = pk_folded_lines(p, INLINE_SUFFIX, &items, &n, &time_us);

	if (err)
		return err;
	lines = calloc(n ? n : 1, sizeof(*lines));
	if (!lines) {
		pk_fold_items_free(items, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && !err; i++) {
		lines[i].count = items[i].count;
		err = split_line((char *)items[i].stack, nroots, &lines[i]);
	}
	if (!err) {
		if (n)
			qsort(lines, n, sizeof(*lines), cmp_line);
		err = build(&g, lines, n);
	}
	if (!err) {
		put_svg(f, p, &g, time_us);
		err = fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
	}
	free(g.boxes);
	for (size_t i = 0; i < n; i++)
		free(lines[i].frames);
	free(lines);
	pk_fold_items_free(items, n);
	return err;
}
