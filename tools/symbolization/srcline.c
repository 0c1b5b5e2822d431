// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/array.h"
#include "lib/util/strpool.h"
#include "lib/util/u64map.h"
#include "symbolization/demangle.h"
#include "symbolization/srcline.h"

/* Scopes nested deeper than this (inlined calls, lexical blocks, imported
 * units) are not descended into: real code stays far below it, and hostile
 * DWARF must not exhaust the stack. */
#define MAX_DEPTH 256
/* DIEs visited and address ranges read to build one unit's table (or the
 * table of units without .debug_aranges), at most: imported units and
 * shared range lists can make a small file expand without bound. Real
 * units stay orders of magnitude below. */
#define MAX_VISITS (1u << 22)
#define MAX_RANGES (1u << 21)

#define NONE UINT32_MAX

/* A DIE with code addresses that dwarf_getscopes can reach: every scope
 * above it has addresses covering some of its own (namespaces, classes and
 * structures, which have none, are looked through). */
struct scope {
	Dwarf_Die die;
	__u32 parent;		/* index in unit.scopes; NONE: a child of the unit */
	int tag;
	bool named, called;	/* name, call_* below are resolved */
	const char *name;
	const char *call_file;
	__u32 call_line;
};

/* [lo, hi) of DWARF addresses, and what covers it. */
struct span {
	__u64 lo, hi;
	__u32 val;
};

/* One compilation unit, read on the first address that falls in it. */
struct unit {
	Dwarf_Die die;
	const char *comp_dir;
	bool files_done;
	Dwarf_Files *files;	/* NULL: none */
	struct scope *scopes;
	struct span *spans;	/* sorted, disjoint; val: the innermost scope */
	size_t nspans;
	struct pk_u64map joined;	/* relative path -> comp_dir/path */
};

struct pk_srcline {
	Dwfl_Module *dm;
	int state;		/* 0: not read yet, 1: DWARF, -1: none */
	Dwarf *dw;
	Dwarf_Addr bias;	/* module address - DWARF address */
	struct pk_u64map units;	/* CU DIE offset -> struct unit */
	struct pk_u64map names;	/* raw DWARF name -> demangled */
	/* Units .debug_aranges leaves out, by their own ranges. */
	bool orphans_done;
	Dwarf_Die *orphans;
	struct span *orphan_spans;	/* val: index in orphans */
	size_t norphan_spans;
	struct pk_strpool pool;
};

/* --- spans ----------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

static int cmp_span_lo(const void *a, const void *b)
{
	return cmp_u64(&((const struct span *)a)->lo, &((const struct span *)b)->lo);
}

/* Index of the first of the N sorted PTS that is >= V. */
static size_t lower_bound(const __u64 *pts, size_t n, __u64 v)
{
	size_t l = 0, u = n;

	while (l < u) {
		size_t m = l + (u - l) / 2;

		if (pts[m] < v)
			l = m + 1;
		else
			u = m;
	}
	return l;
}

/* Union-find over segments: the first unpainted segment at or after S. */
static size_t next_unpainted(size_t *next, size_t s)
{
	while (next[s] != s) {
		next[s] = next[next[s]];
		s = next[s];
	}
	return s;
}

/*
 * Flatten the N ranges R into sorted, disjoint spans, where an earlier range
 * wins an address over a later one: R in the order of the rule to emulate
 * (postorder for "innermost scope first"). Cutting the address line at every
 * range end gives elementary segments; each range paints those of its
 * segments still unpainted, skipping painted ones through a union-find, so
 * that the whole is O(N log N) however the ranges overlap.
 */
static int paint(const struct span *r, size_t n, struct span **out, size_t *nout)
{
	__u64 *pts = NULL;
	__u32 *color = NULL;
	size_t *next = NULL, m = 0, ns = 0;
	struct span *sp = NULL;
	int err = -ENOMEM;

	*out = NULL;
	*nout = 0;
	if (!n)
		return 0;
	pts = malloc(2 * n * sizeof(*pts));
	if (!pts)
		goto out;
	for (size_t i = 0; i < n; i++) {
		pts[2 * i] = r[i].lo;
		pts[2 * i + 1] = r[i].hi;
	}
	qsort(pts, 2 * n, sizeof(*pts), cmp_u64);
	for (size_t i = 0; i < 2 * n; i++)
		if (!m || pts[m - 1] != pts[i])
			pts[m++] = pts[i];
	/* Segment s is [pts[s], pts[s + 1]); next[m - 1] is the end sentinel. */
	color = malloc(m * sizeof(*color));
	next = malloc(m * sizeof(*next));
	sp = malloc(m * sizeof(*sp));
	if (!color || !next || !sp)
		goto out;
	for (size_t s = 0; s < m; s++) {
		color[s] = NONE;
		next[s] = s;
	}
	for (size_t i = 0; i < n; i++) {
		size_t s = lower_bound(pts, m, r[i].lo), end = lower_bound(pts, m, r[i].hi);

		for (s = next_unpainted(next, s); s < end; s = next_unpainted(next, s + 1)) {
			color[s] = r[i].val;
			next[s] = s + 1;
		}
	}
	for (size_t s = 0; s + 1 < m; s++) {
		if (color[s] == NONE)
			continue;
		if (ns && sp[ns - 1].hi == pts[s] && sp[ns - 1].val == color[s])
			sp[ns - 1].hi = pts[s + 1];
		else
			sp[ns++] = (struct span){ pts[s], pts[s + 1], color[s] };
	}
	*out = sp;
	*nout = ns;
	sp = NULL;
	err = 0;
out:
	free(pts);
	free(color);
	free(next);
	free(sp);
	return err;
}

/* The span holding ADDR, or NULL. */
static const struct span *span_at(const struct span *sp, size_t n, __u64 addr)
{
	size_t l = 0, u = n;

	/* The last span starting at or before ADDR. */
	while (l < u) {
		size_t m = l + (u - l) / 2;

		if (sp[m].lo <= addr)
			l = m + 1;
		else
			u = m;
	}
	return l && addr < sp[l - 1].hi ? &sp[l - 1] : NULL;
}

/* --- one unit's scopes ------------------------------------------------------- */

struct build {
	struct scope *scopes;
	size_t nscopes, cap_scopes;
	struct span *reach;	/* per scope on the path walked, its addresses
				 * that its parents hold */
	size_t nreach, cap_reach;
	struct span *post;	/* the same, scopes in postorder */
	size_t npost, cap_post;
	unsigned visits, ranges;
};

/* Room for one more element of *V (N used, *CAP allocated). */
static int reserve(void **v, size_t n, size_t *cap, size_t size)
{
	return pk_array_reserve(v, cap, size, n + 1, 64);
}

static int push_reach(struct build *b, __u64 lo, __u64 hi)
{
	if (reserve((void **)&b->reach, b->nreach, &b->cap_reach, sizeof(*b->reach)))
		return -ENOMEM;
	b->reach[b->nreach++] = (struct span){ lo, hi, NONE };
	return 0;
}

/* The DIE tags dwarf_getscopes descends into (libdw's may_have_scopes). */
static bool may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return true;
	}
	return false;
}

/* DIEs without addresses that may hold DIEs with addresses. */
static bool is_container(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type;
}

/*
 * Append the addresses of DIE that its parent's reach [PFIRST, PFIRST+PN)
 * holds (all of them for a child of the unit: PN == NONE), sorted and
 * merged. dwarf_getscopes looks at a DIE only when its parent holds the
 * address, so the rest of a child's ranges are out of its reach.
 */
static int add_reach(struct build *b, Dwarf_Die *die, size_t pfirst, size_t pn)
{
	size_t first = b->nreach, n, k = 0;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	/* Most DIEs (types, variables) have neither: the abbreviation says so
	 * without reading the DIE's attributes, as dwarf_ranges would. */
	if (!dwarf_hasattr(die, DW_AT_low_pc) && !dwarf_hasattr(die, DW_AT_ranges))
		return 0;
	while (b->ranges < MAX_RANGES && (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		b->ranges++;
		if (lo >= hi)
			continue;
		if (pn == NONE) {
			if (push_reach(b, lo, hi))
				return -ENOMEM;
			continue;
		}
		/* The parent's reach is sorted and disjoint: from the first
		 * of its ranges ending after LO, while they start before HI. */
		size_t l = pfirst, u = pfirst + pn;

		while (l < u) {
			size_t m = l + (u - l) / 2;

			if (b->reach[m].hi <= lo)
				l = m + 1;
			else
				u = m;
		}
		for (; l < pfirst + pn && b->reach[l].lo < hi && b->ranges < MAX_RANGES; l++) {
			__u64 a = lo > b->reach[l].lo ? lo : b->reach[l].lo;
			__u64 z = hi < b->reach[l].hi ? hi : b->reach[l].hi;

			b->ranges++;
			if (push_reach(b, a, z))	/* may move b->reach */
				return -ENOMEM;
		}
	}
	n = b->nreach - first;
	if (n < 2)
		return 0;
	qsort(b->reach + first, n, sizeof(*b->reach), cmp_span_lo);
	for (size_t i = 1; i < n; i++) {
		struct span *last = &b->reach[first + k], *cur = &b->reach[first + i];

		if (cur->lo <= last->hi) {
			if (cur->hi > last->hi)
				last->hi = cur->hi;
		} else {
			b->reach[first + ++k] = *cur;
		}
	}
	b->nreach = first + k + 1;
	return 0;
}

struct import {
	const void *site;	/* the DW_TAG_imported_unit DIE */
	const struct import *up;
};

static int visit_children(struct build *b, Dwarf_Die *die, __u32 parent, size_t pfirst,
			  size_t pn, unsigned depth, const struct import *imports);

/* An imported unit's children count as the importer's (as libdw walks
 * them): dwz and LTO move shared DIEs into partial units. */
static int visit_import(struct build *b, Dwarf_Die *site, __u32 parent, size_t pfirst,
			size_t pn, unsigned depth, const struct import *imports)
{
	Dwarf_Attribute attr;
	Dwarf_Die target;
	struct import link = { site->addr, imports };

	if (!dwarf_formref_die(dwarf_attr(site, DW_AT_import, &attr), &target) ||
	    dwarf_tag(&target) == DW_TAG_compile_unit)
		return 0;
	for (const struct import *i = imports; i; i = i->up)
		if (i->site == site->addr)
			return 0;	/* a cycle */
	return visit_children(b, &target, parent, pfirst, pn, depth + 1, &link);
}

static int visit(struct build *b, Dwarf_Die *die, int tag, __u32 parent, size_t pfirst,
		 size_t pn, unsigned depth, const struct import *imports)
{
	size_t first = b->nreach, n;
	__u32 idx;
	int err = add_reach(b, die, pfirst, pn);

	if (err)
		return err;
	n = b->nreach - first;
	/* A namespace, class or structure without addresses holds functions
	 * (clang puts a function defined in a namespace inside its DIE):
	 * looked through, as libdw's may_have_scopes means it to be -- but its
	 * dwarf_getscopes prunes every DIE without addresses, so eu-addr2line
	 * names none of those functions. */
	if (!n && is_container(tag) && dwarf_haschildren(die) > 0)
		return visit_children(b, die, parent, pfirst, pn, depth + 1, imports);
	if (!n)
		return 0;	/* no address here: dwarf_getscopes prunes it */
	if (reserve((void **)&b->scopes, b->nscopes, &b->cap_scopes, sizeof(*b->scopes)))
		return -ENOMEM;
	idx = b->nscopes++;
	b->scopes[idx] = (struct scope){ .die = *die, .parent = parent, .tag = tag };
	if (may_have_scopes(tag) && dwarf_haschildren(die) > 0) {
		err = visit_children(b, die, idx, first, n, depth + 1, imports);
		if (err)
			return err;
	}
	/* Postorder: the first scope painted over an address is the innermost
	 * one on the first path of scopes holding it, dwarf_getscopes's. */
	for (size_t i = first; i < first + n; i++) {
		if (reserve((void **)&b->post, b->npost, &b->cap_post, sizeof(*b->post)))
			return -ENOMEM;
		b->post[b->npost] = b->reach[i];
		b->post[b->npost++].val = idx;
	}
	b->nreach = first;	/* only the scopes above need their reach */
	return 0;
}

static int visit_children(struct build *b, Dwarf_Die *die, __u32 parent, size_t pfirst,
			  size_t pn, unsigned depth, const struct import *imports)
{
	Dwarf_Die child;
	int err;

	if (depth > MAX_DEPTH || dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (++b->visits > MAX_VISITS)
			return 0;
		if (tag == DW_TAG_imported_unit)
			err = visit_import(b, &child, parent, pfirst, pn, depth, imports);
		else
			err = visit(b, &child, tag, parent, pfirst, pn, depth, imports);
		if (err)
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static void unit_free(struct unit *u)
{
	if (!u)
		return;
	free(u->scopes);
	free(u->spans);
	pk_u64map_free(&u->joined);
	free(u);
}

/* Walk CUDIE's tree once into its scopes and span table. Corrupt DWARF
 * ends the walk early (the table holds what was read); only -ENOMEM fails. */
static struct unit *unit_build(Dwarf_Die *cudie, int *err)
{
	struct build b = {};
	struct unit *u = calloc(1, sizeof(*u));
	Dwarf_Attribute attr;

	*err = -ENOMEM;
	if (!u)
		return NULL;
	u->die = *cudie;
	u->comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr));
	*err = visit_children(&b, cudie, NONE, 0, NONE, 0, NULL);
	if (!*err)
		*err = paint(b.post, b.npost, &u->spans, &u->nspans);
	/* Kept for the module's life: no slack (most units are small). */
	u->scopes = b.nscopes ? realloc(b.scopes, b.nscopes * sizeof(*b.scopes)) ?: b.scopes :
				b.scopes;
	if (u->nspans)
		u->spans = realloc(u->spans, u->nspans * sizeof(*u->spans)) ?: u->spans;
	free(b.reach);
	free(b.post);
	if (*err) {
		unit_free(u);
		return NULL;
	}
	return u;
}

/* --- units of the module ------------------------------------------------------ */

static bool load_dwarf(struct pk_srcline *sl)
{
	if (!sl->state) {
		sl->dw = dwfl_module_getdwarf(sl->dm, &sl->bias);
		sl->state = sl->dw ? 1 : -1;
	}
	return sl->state > 0;
}

/* The units .debug_aranges has no entry for, by their DW_AT_ranges, once.
 * libdwfl finds a unit only through .debug_aranges. */
static int load_orphans(struct pk_srcline *sl)
{
	Dwarf_Aranges *ar;
	size_t nar = 0, ncov = 0, nu = 0, cap_u = 0, nr = 0, cap_r = 0;
	__u64 *covered = NULL;
	struct span *r = NULL;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	__u8 type;
	unsigned budget = MAX_RANGES;
	int err = -ENOMEM;

	if (dwarf_getaranges(sl->dw, &ar, &nar) == 0 && nar) {
		covered = malloc(nar * sizeof(*covered));
		if (!covered)
			goto out;
		for (size_t i = 0; i < nar; i++) {
			Dwarf_Off off;

			if (dwarf_getarangeinfo(dwarf_onearange(ar, i), NULL, NULL, &off) == 0)
				covered[ncov++] = off;
		}
		qsort(covered, ncov, sizeof(*covered), cmp_u64);
	}
	while (dwarf_get_units(sl->dw, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
		Dwarf_Off off = dwarf_dieoffset(&cudie);
		Dwarf_Addr base, lo, hi;
		ptrdiff_t roff = 0;
		size_t at = lower_bound(covered, ncov, off);

		if (type != DW_UT_compile || (at < ncov && covered[at] == off))
			continue;
		while (budget && (roff = dwarf_ranges(&cudie, roff, &base, &lo, &hi)) > 0) {
			budget--;
			if (lo >= hi)
				continue;
			if (reserve((void **)&r, nr, &cap_r, sizeof(*r)))
				goto out;
			r[nr++] = (struct span){ lo, hi, nu };
		}
		if (reserve((void **)&sl->orphans, nu, &cap_u, sizeof(*sl->orphans)))
			goto out;
		sl->orphans[nu++] = cudie;
	}
	err = paint(r, nr, &sl->orphan_spans, &sl->norphan_spans);
out:
	free(covered);
	free(r);
	return err;
}

/* The unit holding module address ADDR (with libdwfl's rule first, the
 * one eu-addr2line follows), read on first use; NULL: none or *ERR. */
static struct unit *unit_at(struct pk_srcline *sl, __u64 addr, int *err)
{
	Dwarf_Addr bias;
	Dwarf_Die *cudie = dwfl_module_addrdie(sl->dm, addr, &bias);
	struct unit *u;
	Dwarf_Off key;

	*err = 0;
	if (!cudie) {
		const struct span *s;

		if (!sl->orphans_done) {
			*err = load_orphans(sl);
			if (*err)
				return NULL;
			sl->orphans_done = true;
		}
		s = span_at(sl->orphan_spans, sl->norphan_spans, addr - sl->bias);
		if (!s)
			return NULL;
		cudie = &sl->orphans[s->val];
	}
	key = dwarf_dieoffset(cudie);
	u = pk_u64map_get(&sl->units, key);
	if (u)
		return u;
	u = unit_build(cudie, err);
	if (!u)
		return NULL;
	*err = pk_u64map_put(&sl->units, key, u);
	if (*err) {
		unit_free(u);
		return NULL;
	}
	return u;
}

/* --- names and files --------------------------------------------------------- */

/* As eu-addr2line names a DIE: the linkage name (through abstract_origin
 * and specification), else DW_AT_name; demangled once per string. */
static const char *die_name(struct pk_srcline *sl, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *raw, *name;
	char *d;

	raw = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr) ?:
			       dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!raw)
		raw = dwarf_diename(die);
	if (!raw || raw[0] != '_' || (raw[1] != 'Z' && raw[1] != 'R'))
		return raw;
	name = pk_u64map_get(&sl->names, (uintptr_t)raw);
	if (name)
		return name;
	d = pk_demangle(raw);
	name = d ? pk_strpool_add(&sl->pool, d) : raw;
	free(d);
	if (!name || pk_u64map_put(&sl->names, (uintptr_t)raw, (void *)name))
		return raw;	/* no memory: the mangled name still names it */
	return name;
}

/* PATH as eu-addr2line prints it: a relative one under the unit's
 * DW_AT_comp_dir. */
static const char *full_path(struct pk_srcline *sl, struct unit *u, const char *path)
{
	const char *full;

	if (!path || path[0] == '/' || !u->comp_dir)
		return path;
	full = pk_u64map_get(&u->joined, (uintptr_t)path);
	if (full)
		return full;
	full = pk_strpool_printf(&sl->pool, "%s/%s", u->comp_dir, path);
	if (!full || pk_u64map_put(&u->joined, (uintptr_t)path, (void *)full))
		return path;
	return full;
}

static Dwarf_Files *unit_files(struct unit *u)
{
	if (!u->files_done) {
		if (dwarf_getsrcfiles(&u->die, &u->files, NULL) != 0)
			u->files = NULL;
		u->files_done = true;
	}
	return u->files;
}

static const char *scope_name(struct pk_srcline *sl, struct scope *s)
{
	if (!s->named) {
		s->name = die_name(sl, &s->die);
		s->named = true;
	}
	return s->name;
}

/* Where the inlined call S sits: DW_AT_call_file (an index in the unit's
 * file table), DW_AT_call_line. Without a file the line is unknown too,
 * as eu-addr2line prints "??:0". */
static void scope_call(struct pk_srcline *sl, struct unit *u, struct scope *s)
{
	Dwarf_Attribute attr;
	Dwarf_Word val;
	Dwarf_Files *files = unit_files(u);

	if (s->called)
		return;
	s->called = true;
	if (!files || dwarf_formudata(dwarf_attr(&s->die, DW_AT_call_file, &attr), &val) != 0)
		return;
	s->call_file = full_path(sl, u, dwarf_filesrc(files, val, NULL, NULL));
	if (s->call_file && dwarf_formudata(dwarf_attr(&s->die, DW_AT_call_line, &attr), &val) == 0)
		s->call_line = val;
}

static bool is_function(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* --- lookup ------------------------------------------------------------------- */

struct pk_srcline *pk_srcline_new(Dwfl_Module *dm)
{
	struct pk_srcline *sl;

	if (!dm) {
		errno = EINVAL;
		return NULL;
	}
	sl = calloc(1, sizeof(*sl));
	if (sl)
		sl->dm = dm;
	return sl;
}

void pk_srcline_free(struct pk_srcline *sl)
{
	if (!sl)
		return;
	pk_u64map_for_each(&sl->units, it)
		unit_free(it.val);
	pk_u64map_free(&sl->units);
	pk_u64map_free(&sl->names);
	free(sl->orphans);
	free(sl->orphan_spans);
	pk_strpool_free(&sl->pool);
	free(sl);
}

/*
 * eu-addr2line -f -i, frame by frame: the innermost frame is the innermost
 * subprogram or inlined_subroutine holding ADDR, with the line-table row of
 * ADDR; then, for each inlined_subroutine from the innermost out, the
 * function it is inlined into (the nearest inlined_subroutine, entry_point
 * or subprogram above it) at its call site.
 */
int pk_srcline_lookup(struct pk_srcline *sl, __u64 addr, struct pk_srcline_frame *out,
		      int max)
{
	const struct span *sp;
	struct unit *u;
	struct scope *inner, *fn = NULL, *deepest = NULL, *call = NULL;
	struct pk_srcline_frame last = {};
	Dwarf_Line *row;
	Dwarf_Attribute attr;
	Dwarf_Die origin;
	const char *file = NULL;
	__u32 line = 0;
	int n = 1, err;

	if (!sl || !out || max < 1)
		return -EINVAL;
	if (!load_dwarf(sl))
		return 0;
	u = unit_at(sl, addr, &err);
	if (!u)
		return err;
	addr -= sl->bias;
	row = dwarf_getsrc_die(&u->die, addr);
	if (row && (file = dwarf_linesrc(row, NULL, NULL))) {
		int l = 0;

		file = full_path(sl, u, file);
		if (dwarf_lineno(row, &l) == 0 && l > 0)
			line = l;
	}
	sp = span_at(u->spans, u->nspans, addr);
	inner = sp ? &u->scopes[sp->val] : NULL;
	/* Frame 0 is named by the innermost subprogram or inlined_subroutine;
	 * inlined calls exist when an inlined_subroutine holds ADDR. */
	for (struct scope *s = inner; s; s = s->parent == NONE ? NULL : &u->scopes[s->parent]) {
		if (!fn && (s->tag == DW_TAG_subprogram || s->tag == DW_TAG_inlined_subroutine))
			fn = s;
		if (s->tag == DW_TAG_inlined_subroutine) {
			deepest = s;
			break;
		}
	}
	/* dwarf_getscopes fails on an inlined instance without an origin:
	 * eu-addr2line then shows no DWARF function at all. */
	if (deepest &&
	    !dwarf_formref_die(dwarf_attr(&deepest->die, DW_AT_abstract_origin, &attr), &origin))
		fn = deepest = NULL;
	out[0] = (struct pk_srcline_frame){ fn ? scope_name(sl, fn) : NULL, file, line };
	if (!deepest)
		return out[0].name || out[0].file ? 1 : 0;
	if (!unit_files(u))
		return 1;
	/* Each inlined call on the way out, innermost first, named by the
	 * function it sits in: the next function above it. A chain longer
	 * than MAX loses its middle: the last frame stays the function. */
	for (struct scope *s = inner; s; s = s->parent == NONE ? NULL : &u->scopes[s->parent]) {
		if (!is_function(s->tag))
			continue;
		if (call) {
			scope_call(sl, u, call);
			last = (struct pk_srcline_frame){ scope_name(sl, s), call->call_file,
							  call->call_line };
			if (n++ < max)
				out[n - 1] = last;
		}
		call = s->tag == DW_TAG_inlined_subroutine ? s : NULL;
	}
	if (n > max) {
		out[max - 1] = last;
		n = max;
	}
	return n;
}
