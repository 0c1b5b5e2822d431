// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The symbolizer's Java frames: HotSpot methods as the process reported
 * them (bpf/hotspot_records.h), named package.Class.method, with their
 * class's source file and, for an interpreted frame, the line of its
 * bytecode index in the method's line table (hotspot_lines.h); a compiled
 * frame expanded into the methods inlined at its PC, each at the line of
 * its scope's bytecode index (hotspot_scopes.h). */
#include <errno.h>
#include <string.h>

#include "bpf/probekit.h"
#include "symbolization/hotspot_lines.h"
#include "symbolization/symbolizer_internal.h"

/* What the latest report of a Method* said, pooled with its process. */
struct pk_hs_method {
	struct pk_loc *loc;	/* the method's location, no line */
	const char *file;	/* NULL: none reported */
	const __u8 *lines;
	size_t lines_len;
	bool no_zero;		/* PK_HS_LINES_NO_ZERO */
	__u32 serial;		/* of P: keys its lines' locations */
};

/* A Java location of P named NAME (pooled with P) in FILE at LINE. */
static struct pk_loc *hs_new_loc(struct pk_symbolizer *sym, struct pk_sym_proc *p, __u64 method,
				 const char *name, const char *file, __u32 line)
{
	struct pk_loc *loc = pk_symbolizer_loc_new(sym, &p->pool, method, false, 1);

	if (!loc || !name)
		return NULL;
	loc->java = true;
	((struct pk_frame *)loc->frames)[0] = (struct pk_frame){
		.name = name, .file = file, .line = line };
	return loc;
}

/* A method of P named NAME in FILE, pooled: NULL when out of memory. */
static struct pk_hs_method *hs_new_method(struct pk_symbolizer *sym, struct pk_sym_proc *p,
					  __u64 method, const char *name, const char *file)
{
	struct pk_hs_method *m = pk_strpool_zalloc(&p->pool, sizeof(*m));

	if (!m)
		return NULL;
	m->file = file;
	m->serial = ++p->hs_serial;
	m->loc = hs_new_loc(sym, p, method, name, file, 0);
	if (!m->loc || pk_u64map_put(&p->hs_methods, method, m))
		return NULL;
	return m;
}

/* "java/util/Arrays" and "sort" as "java.util.Arrays.sort", pooled. */
static const char *hs_name(struct pk_sym_proc *p, const struct pk_hs_method_desc *d)
{
	char *name = (char *)pk_strpool_printf(&p->pool, "%.*s.%.*s", (int)d->klass_len,
					       d->klass, (int)d->name_len, d->name);

	if (name)
		for (size_t i = 0; i < d->klass_len; i++)
			if (name[i] == '/')
				name[i] = '.';
	return name;
}

/* Whether M is what D says, lines and all. */
static bool hs_same(const struct pk_hs_method *m, const char *name, const char *file,
		    const struct pk_hs_method_desc *d)
{
	return !strcmp(m->loc->frames[0].name, name) && !m->file == !file &&
	       (!file || !strcmp(m->file, file)) && m->lines_len == d->lines_len &&
	       m->no_zero == !!(d->flags & PK_HS_LINES_NO_ZERO) &&
	       (!d->lines_len || !memcmp(m->lines, d->lines, d->lines_len));
}

int pk_symbolizer_add_hs_method(struct pk_symbolizer *sym, const struct pk_hs_method_desc *d)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, d->pid);
	const struct pk_hs_method *old;
	struct pk_hs_method *m;
	const char *name, *file = NULL;
	__u8 *lines = NULL;

	if (!p)
		return -ENOMEM;
	if (d->flags & PK_HS_UNREADABLE)
		return 0;	/* "[java:0x...]" it stays */
	name = hs_name(p, d);
	if (d->file_len)
		file = pk_strpool_addn(&p->pool, d->file, d->file_len);
	if (!name || (d->file_len && !file))
		return -ENOMEM;
	old = pk_u64map_get(&p->hs_methods, d->method);
	if (old && hs_same(old, name, file, d))
		return 0;
	if (d->lines_len) {
		lines = pk_strpool_zalloc(&p->pool, d->lines_len);
		if (!lines)
			return -ENOMEM;
		memcpy(lines, d->lines, d->lines_len);
	}
	m = hs_new_method(sym, p, d->method, name, file);
	if (!m)
		return -ENOMEM;
	m->lines = lines;
	m->lines_len = d->lines_len;
	m->no_zero = d->flags & PK_HS_LINES_NO_ZERO;
	/* frames named otherwise until now are named anew */
	return old ? 1 : 0;
}

/* The location of M at LINE (0: the method's). */
static struct pk_loc *hs_line_loc(struct pk_symbolizer *sym, struct pk_sym_proc *p,
				  const struct pk_hs_method *m, __u64 method, __u32 line)
{
	__u64 key = (__u64)m->serial << 32 | line;
	struct pk_loc *loc;

	if (!line)
		return m->loc;
	loc = pk_u64map_get(&p->hs_lines, key);
	if (loc)
		return loc;
	loc = hs_new_loc(sym, p, method, m->loc->frames[0].name, m->file, line);
	if (!loc || pk_u64map_put(&p->hs_lines, key, loc))
		return NULL;
	return loc;
}

/* Method METHOD of P: as reported, or "[java:0xMETHOD]" while no report
 * names it. NULL when out of memory. */
static const struct pk_hs_method *hs_method(struct pk_symbolizer *sym, struct pk_sym_proc *p,
					    __u64 method)
{
	const struct pk_hs_method *m = pk_u64map_get(&p->hs_methods, method);

	if (m)
		return m;
	return hs_new_method(sym, p, method,
			     pk_strpool_printf(&p->pool, "[java:0x%llx]", (unsigned long long)method),
			     NULL);
}

/* The line of bytecode index BCI in M (a compiled scope's -1, the
 * method's entry, is bytecode 0's, as HotSpot's line_number_from_bci()
 * has it; PK_HS_BCI_NONE: none): 0 when not known. */
static __u32 hs_line(const struct pk_hs_method *m, __s64 bci)
{
	__u32 line;

	if (bci == PK_HS_BCI_NONE || bci < -1 || !m->lines_len ||
	    pk_hs_line_at(m->lines, m->lines_len, m->no_zero, bci < 0 ? 0 : bci, &line))
		return 0;
	return line;
}

/* A compiled method as reported: its parts pooled with its process. */
struct pk_hs_nm {
	struct pk_hs_nmethod_desc d;
	struct pk_hs_nm *next;		/* older ones of the same compile id bits */
};

/* A compiled frame's location, valid while its process's hs_serial is. */
struct pk_hs_cloc {
	const struct pk_loc *loc;
	__u32 serial;
};

static const __u8 *hs_pooled(struct pk_sym_proc *p, const __u8 *b, size_t len)
{
	__u8 *copy = len ? pk_strpool_zalloc(&p->pool, len) : NULL;

	if (copy)
		memcpy(copy, b, len);
	return copy;
}

/* Whether A and B report the same nmethod with the same bytes. */
static bool hs_nm_same(const struct pk_hs_nmethod_desc *a, const struct pk_hs_nmethod_desc *b)
{
	return a->nmethod == b->nmethod && a->compile_id == b->compile_id &&
	       a->method == b->method && a->code_begin == b->code_begin &&
	       a->code_size == b->code_size && a->flags == b->flags &&
	       a->pcs_len == b->pcs_len && a->scopes_len == b->scopes_len &&
	       a->metadata_len == b->metadata_len && a->pcdesc_size == b->pcdesc_size &&
	       a->pcdesc_pc_offset == b->pcdesc_pc_offset &&
	       a->pcdesc_scope_decode_offset == b->pcdesc_scope_decode_offset &&
	       !memcmp(a->pcs, b->pcs, a->pcs_len) && !memcmp(a->scopes, b->scopes, a->scopes_len) &&
	       !memcmp(a->metadata, b->metadata, a->metadata_len);
}

int pk_symbolizer_add_hs_nmethod(struct pk_symbolizer *sym, const struct pk_hs_nmethod_desc *d)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, d->pid);
	__u64 key = d->compile_id & PK_HS_INFO_MASK;
	struct pk_hs_nm *head, *nm;
	bool replaced = false;

	if (!p)
		return -ENOMEM;
	head = pk_u64map_get(&p->hs_nmethods, key);
	for (nm = head; nm; nm = nm->next) {
		if (hs_nm_same(&nm->d, d))
			return 0;
		replaced |= nm->d.code_begin < d->code_begin + d->code_size &&
			    d->code_begin < nm->d.code_begin + nm->d.code_size;
	}
	nm = pk_strpool_zalloc(&p->pool, sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	nm->d = *d;
	nm->d.pcs = hs_pooled(p, d->pcs, d->pcs_len);
	nm->d.scopes = hs_pooled(p, d->scopes, d->scopes_len);
	nm->d.metadata = hs_pooled(p, d->metadata, d->metadata_len);
	if ((d->pcs_len && !nm->d.pcs) || (d->scopes_len && !nm->d.scopes) ||
	    (d->metadata_len && !nm->d.metadata))
		return -ENOMEM;
	nm->next = head;
	if (pk_u64map_put(&p->hs_nmethods, key, nm))
		return -ENOMEM;
	p->hs_serial++;		/* compiled frames' locations are made anew */
	return replaced ? 1 : 0;
}

/* The nmethod of P whose code holds PC, of compile id bits CID14 (the
 * latest report): NULL when none was reported. */
static const struct pk_hs_nm *hs_nm_at(struct pk_sym_proc *p, __u64 cid14, __u64 pc)
{
	const struct pk_hs_nm *nm = pk_u64map_get(&p->hs_nmethods, cid14);

	for (; nm; nm = nm->next)
		if (pc >= nm->d.code_begin && pc - nm->d.code_begin < nm->d.code_size)
			return nm;
	return NULL;
}

/* The location of compiled frame FRAME of P (its PC and compile id's
 * bits): the scopes at its PC, its nmethod's method, or "[java:0xPC]". */
static struct pk_loc *hs_compiled_loc(struct pk_symbolizer *sym, struct pk_sym_proc *p,
				      __u64 frame)
{
	__u64 pc = frame & PK_HS_METHOD_MASK, cid14 = frame >> PK_HS_INFO_SHIFT & PK_HS_INFO_MASK;
	const struct pk_hs_nm *nm = hs_nm_at(p, cid14, pc);
	struct pk_hs_scope sc[PK_HS_MAX_SCOPES];
	const struct pk_hs_method *m[PK_HS_MAX_SCOPES];
	struct pk_loc *loc;
	size_t n = 0;

	if (!nm)
		return pk_symbolizer_named_loc(sym, &p->pool, pc, false,
					       pk_strpool_printf(&p->pool, "[java:0x%llx]",
								 (unsigned long long)pc));
	n = pk_hs_scopes_at(&nm->d, pc, sc, PK_HS_MAX_SCOPES);
	if (!n) {
		sc[0] = (struct pk_hs_scope){ .method = nm->d.method, .bci = PK_HS_BCI_NONE };
		n = 1;
	}
	for (size_t i = 0; i < n; i++) {
		m[i] = hs_method(sym, p, sc[i].method);
		if (!m[i])
			return NULL;
	}
	loc = pk_symbolizer_loc_new(sym, &p->pool, pc, false, n);
	if (!loc)
		return NULL;
	for (size_t i = 0; i < n; i++)
		((struct pk_frame *)loc->frames)[i] = (struct pk_frame){
			.name = m[i]->loc->frames[0].name, .file = m[i]->file,
			.line = hs_line(m[i], sc[i].bci) };
	return loc;
}

const struct pk_loc *pk_symbolizer_hs_loc(struct pk_symbolizer *sym, __u32 pid, __u64 frame)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, pid);
	__u64 method = frame & PK_HS_METHOD_MASK;
	__u32 bci1 = frame >> PK_HS_INFO_SHIFT & PK_HS_INFO_MASK;
	const struct pk_hs_method *m;
	struct pk_hs_cloc *c;
	struct pk_loc *loc;

	if (!p)
		return NULL;
	if ((frame >> PK_HS_KIND_SHIFT & 3) == PK_HS_COMPILED) {
		c = pk_u64map_get(&p->hs_compiled, frame);
		if (c && c->serial == p->hs_serial)
			return pk_symbolizer_number(sym, c->loc);
		loc = hs_compiled_loc(sym, p, frame);
		if (!loc)
			return NULL;
		loc->java = true;
		if (!c) {
			c = pk_strpool_zalloc(&p->pool, sizeof(*c));
			if (!c || pk_u64map_put(&p->hs_compiled, frame, c))
				return NULL;
		}
		c->loc = loc;
		c->serial = p->hs_serial;	/* after the methods it made */
		return pk_symbolizer_number(sym, loc);
	}
	m = hs_method(sym, p, method);
	if (!m)
		return NULL;
	/* an interpreted frame's info is its bytecode index + 1 */
	loc = hs_line_loc(sym, p, m, method, bci1 ? hs_line(m, (__s64)bci1 - 1) : 0);
	return loc ? pk_symbolizer_number(sym, loc) : NULL;
}
