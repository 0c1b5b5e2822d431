// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The symbolizer's Python frames: code objects as the process reported
 * them, named by qualified name, file and line at the instruction. */
#include <errno.h>

#include "bpf/probekit.h"
#include "symbolization/python_code.h"
#include "symbolization/symbolizer_internal.h"

int pk_symbolizer_add_py_code(struct pk_symbolizer *sym, const struct pk_py_code_desc *d)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, d->pid);	/* forgotten with its process */
	int ret;

	if (!p)
		return -ENOMEM;
	ret = pk_py_codes_add(sym->py, d);
	if (ret < 0)
		return ret;
	/* frames named "[py:0x...]" until now are named now: stacks that
	 * hold them are symbolized anew, as after a replaced entry */
	if (pk_u64map_del(&p->py_unknown, d->code))
		ret = 1;
	return ret;
}

/* A Python location of P, pooled with P. */
static struct pk_loc *py_new_loc(struct pk_symbolizer *sym, struct pk_sym_proc *p, __u64 code,
				 const char *name, const char *file, __u32 line)
{
	struct pk_loc *loc = pk_symbolizer_loc_new(sym, &p->pool, code, false, 1);

	if (!loc || !name)
		return NULL;
	loc->python = true;
	((struct pk_frame *)loc->frames)[0] = (struct pk_frame){
		.name = name, .file = file, .line = line };
	return loc;
}

const struct pk_loc *pk_symbolizer_py_loc(struct pk_symbolizer *sym, __u32 pid, __u64 frame)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, pid);
	__u64 code = frame & PK_PY_CODE_MASK;
	__u32 instr = frame >> PK_PY_INSTR_SHIFT & PK_PY_INSTR_MASK, line;
	const struct pk_py_code *c;
	struct pk_loc *loc;
	__u64 ikey, lkey;

	if (!p)
		return NULL;
	c = pk_py_codes_find(sym->py, pid, code);
	if (!c) {
		loc = pk_u64map_get(&p->py_unknown, code);
		if (!loc) {
			loc = py_new_loc(sym, p, code,
					 pk_strpool_printf(&p->pool, "[py:0x%llx]",
							   (unsigned long long)code), NULL, 0);
			if (!loc || pk_u64map_put(&p->py_unknown, code, loc))
				return NULL;
		}
		return pk_symbolizer_number(sym, loc);
	}
	ikey = c->serial << 16 | instr;
	loc = pk_u64map_get(&p->py_instrs, ikey);
	if (loc)
		return pk_symbolizer_number(sym, loc);
	sym->stats.lookups++;
	line = pk_py_code_line(c, instr);
	lkey = c->serial << 32 | line;
	loc = pk_u64map_get(&p->py_lines, lkey);
	if (!loc) {
		const char *name = c->qualname;

		if (!name)
			name = pk_strpool_printf(&p->pool, "[py:0x%llx]", (unsigned long long)code);
		loc = py_new_loc(sym, p, code, name, c->file, line);
		if (!loc || pk_u64map_put(&p->py_lines, lkey, loc))
			return NULL;
	}
	if (pk_u64map_put(&p->py_instrs, ikey, loc))
		return NULL;
	return pk_symbolizer_number(sym, loc);
}
