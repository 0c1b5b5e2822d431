// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The symbolizer's Java frames: HotSpot methods as the process reported
 * them (bpf/probekit.h "HotSpot"), named package.Class.method. */
#include <errno.h>
#include <string.h>

#include "bpf/probekit.h"
#include "symbolization/symbolizer_internal.h"

/* A Java location of P named NAME (pooled with P). */
static struct pk_loc *hs_new_loc(struct pk_symbolizer *sym, struct pk_sym_proc *p, __u64 method,
				 const char *name)
{
	struct pk_loc *loc = pk_symbolizer_loc_new(sym, &p->pool, method, false, 1);

	if (!loc || !name)
		return NULL;
	((struct pk_frame *)loc->frames)[0] = (struct pk_frame){ .name = name };
	return loc;
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

int pk_symbolizer_add_hs_method(struct pk_symbolizer *sym, const struct pk_hs_method_desc *d)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, d->pid);
	const struct pk_loc *old;
	struct pk_loc *loc;
	const char *name;

	if (!p)
		return -ENOMEM;
	if (d->flags & PK_HS_UNREADABLE)
		return 0;	/* "[java:0x...]" it stays */
	name = hs_name(p, d);
	old = pk_u64map_get(&p->hs_methods, d->method);
	if (old && name && !strcmp(old->frames[0].name, name))
		return 0;
	loc = hs_new_loc(sym, p, d->method, name);
	if (!loc || pk_u64map_put(&p->hs_methods, d->method, loc))
		return -ENOMEM;
	/* frames named otherwise until now are named anew */
	return old ? 1 : 0;
}

const struct pk_loc *pk_symbolizer_hs_loc(struct pk_symbolizer *sym, __u32 pid, __u64 frame)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, pid);
	__u64 method = frame & PK_HS_METHOD_MASK;
	struct pk_loc *loc;

	if (!p)
		return NULL;
	loc = pk_u64map_get(&p->hs_methods, method);
	if (!loc) {
		loc = hs_new_loc(sym, p, method,
				 pk_strpool_printf(&p->pool, "[java:0x%llx]",
						   (unsigned long long)method));
		if (!loc || pk_u64map_put(&p->hs_methods, method, loc))
			return NULL;
	}
	return pk_symbolizer_number(sym, loc);
}
