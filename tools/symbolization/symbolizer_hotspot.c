// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The symbolizer's Java frames: HotSpot methods as the process reported
 * them (bpf/probekit.h "HotSpot"), named package.Class.method, with their
 * class's source file and, for an interpreted frame, the line of its
 * bytecode index in the method's line table (hotspot_lines.h). */
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

const struct pk_loc *pk_symbolizer_hs_loc(struct pk_symbolizer *sym, __u32 pid, __u64 frame)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, pid);
	__u64 method = frame & PK_HS_METHOD_MASK;
	__u32 bci1 = frame >> PK_HS_INFO_SHIFT & PK_HS_INFO_MASK, line = 0;
	const struct pk_hs_method *m;
	struct pk_loc *loc;

	if (!p)
		return NULL;
	m = pk_u64map_get(&p->hs_methods, method);
	if (!m) {
		m = hs_new_method(sym, p, method,
				  pk_strpool_printf(&p->pool, "[java:0x%llx]",
						    (unsigned long long)method), NULL);
		if (!m)
			return NULL;
	}
	/* an interpreted frame's info is its bytecode index + 1 */
	if ((frame >> PK_HS_KIND_SHIFT & 3) == PK_HS_INTERPRETED && bci1 && m->lines_len &&
	    pk_hs_line_at(m->lines, m->lines_len, m->no_zero, bci1 - 1, &line))
		line = 0;
	loc = hs_line_loc(sym, p, m, method, line);
	return loc ? pk_symbolizer_number(sym, loc) : NULL;
}
