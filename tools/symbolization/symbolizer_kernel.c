// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The symbolizer's kernel frames: the kernel's and its modules' symbols
 * (kernel_syms.c), one map per module as perf names them. */
#include <string.h>

#include "eh_frame/checksum.h"
#include "symbolization/kernel_syms.h"
#include "symbolization/symbolizer_internal.h"

/* The map of kernel module MODULE (NULL: vmlinux), one for the session:
 * "[kernel.kallsyms]" or "[MODULE]", as perf names them. */
static struct pk_map *kernel_map(struct pk_symbolizer *sym, const char *module)
{
	/* by name: the saved table and kallsyms each have a copy */
	__u64 key = module ? eh_hash_final(eh_hash_update(EH_HASH_INIT, module, strlen(module)),
					   strlen(module)) : 0;
	struct pk_map *map = pk_u64map_get(&sym->kmaps, key);
	const struct pk_module *mod;
	const char *name;

	if (map)
		return map;
	name = module ? pk_strpool_printf(&sym->pool, "[%s]", module) : "[kernel.kallsyms]";
	mod = name ? pk_symfiles_named(sym->files, name) : NULL;
	map = mod ? pk_symbolizer_map_new(sym, &sym->pool, 0, ~0ULL, 0, mod) : NULL;
	if (!map || pk_u64map_put(&sym->kmaps, key, map))
		return NULL;
	return map;
}

const struct pk_loc *pk_symbolizer_kernel_loc(struct pk_symbolizer *sym, __u64 addr, bool ret)
{
	__u64 key = addr << 1 | ret, lookup = addr - (ret && addr > 0), start;
	struct pk_loc *loc = pk_u64map_get(&sym->klocs, key);
	const char *name, *module;
	bool saved;

	if (loc)
		return pk_symbolizer_number(sym, loc);
	sym->stats.lookups++;
	name = pk_kernel_syms_lookup(sym->ksyms, lookup, &start, &module, &saved);
	sym->stats.cached += saved;
	/* A module's symbol says whose it is, as kallsyms lists it: the same
	 * name may be in vmlinux and in a module, or in two BPF programs. */
	if (name && module && !(name = pk_strpool_printf(&sym->pool, "%s [%s]", name, module)))
		return NULL;
	loc = pk_symbolizer_named_loc(sym, &sym->pool, addr, true, name ? name : PK_SYM_UNKNOWN);
	if (!loc)
		return NULL;
	loc->map = kernel_map(sym, module);
	if (!loc->map)
		return NULL;
	loc->module_addr = lookup;
	if (name)
		loc->sym_off = addr - start;
	if (pk_u64map_put(&sym->klocs, key, loc))
		return NULL;
	return pk_symbolizer_number(sym, loc);
}

const char *pk_symbolizer_kernel(struct pk_symbolizer *sym, __u64 addr)
{
	const struct pk_loc *loc = pk_symbolizer_kernel_loc(sym, addr, false);

	return loc ? loc->frames[0].name : NULL;
}
