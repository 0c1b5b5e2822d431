// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symtab.h"
#include "lib/util/array.h"
#include "lib/util/strpool.h"

struct pk_symtab {
	struct pk_sym *v;
	size_t n, cap;
	struct pk_strpool names;
	const char **modules;	/* module i + 1 of pk_sym.module */
	size_t nmodules, modules_cap;
	size_t last_module;	/* pk_sym.module of the last add, a cache */
	__u64 limit;
	bool finished;
};

struct pk_symtab *pk_symtab_new(void)
{
	struct pk_symtab *tab = calloc(1, sizeof(*tab));

	if (tab)
		tab->limit = ~0ULL;
	return tab;
}

void pk_symtab_free(struct pk_symtab *tab)
{
	if (!tab)
		return;
	pk_strpool_free(&tab->names);
	free(tab->modules);
	free(tab->v);
	free(tab);
}

/* The pk_sym.module number of MODULE, added if new: the last one again in
 * O(1) (a module's symbols come together), another by a scan of the few
 * modules there are. 0 (none), or -ENOMEM / -E2BIG. */
static long module_number(struct pk_symtab *tab, const char *module)
{
	size_t i;

	if (!module)
		return 0;
	if (tab->last_module && strcmp(tab->modules[tab->last_module - 1], module) == 0)
		return tab->last_module;
	for (i = 0; i < tab->nmodules; i++)
		if (strcmp(tab->modules[i], module) == 0)
			return tab->last_module = i + 1;
	if (tab->nmodules == UINT16_MAX)
		return -E2BIG;
	if (pk_array_reserve((void **)&tab->modules, &tab->modules_cap, sizeof(*tab->modules),
			     tab->nmodules + 1, 1))
		return -ENOMEM;
	tab->modules[tab->nmodules] = pk_strpool_add(&tab->names, module);
	if (!tab->modules[tab->nmodules])
		return -ENOMEM;
	return tab->last_module = ++tab->nmodules;
}

const char *pk_symtab_module(const struct pk_symtab *tab, const struct pk_sym *s)
{
	return s && s->module && s->module <= tab->nmodules ? tab->modules[s->module - 1] : NULL;
}

int pk_symtab_add(struct pk_symtab *tab, __u64 addr, __u64 size, const char *name,
		  enum pk_sym_rank rank)
{
	return pk_symtab_add_in(tab, addr, size, name, rank, NULL);
}

int pk_symtab_add_in(struct pk_symtab *tab, __u64 addr, __u64 size, const char *name,
		     enum pk_sym_rank rank, const char *module)
{
	long mod = module_number(tab, module);
	struct pk_sym *s;

	if (mod < 0)
		return (int)mod;
	if (pk_array_reserve((void **)&tab->v, &tab->cap, sizeof(*tab->v), tab->n + 1, 256))
		return -ENOMEM;
	s = &tab->v[tab->n];
	s->name = pk_strpool_add(&tab->names, name);
	if (!s->name)
		return -ENOMEM;
	s->addr = addr;
	s->size = size;
	s->rank = rank;
	s->module = (__u16)mod;
	s->parent = -1;
	tab->n++;
	tab->finished = false;
	return 0;
}

static size_t leading_underscores(const char *name)
{
	return strspn(name, "_");
}

/* By address; at one address the preferred name first, by perf's rules
 * (choose_best_symbol): a sized symbol (an unsized one says nothing of
 * where the code at its address ends), the higher rank, fewer leading
 * underscores (clone3 over __clone3 and __GI___clone3), the longer name;
 * then by name, so that the choice never depends on the order symbols were
 * added in. */
int pk_sym_cmp(const void *a, const void *b)
{
	const struct pk_sym *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	ux = leading_underscores(x->name);
	uy = leading_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static __u64 sym_end(const struct pk_symtab *tab, size_t i)
{
	const struct pk_sym *s = &tab->v[i];

	if (s->size)
		return s->addr + s->size < s->addr ? ~0ULL : s->addr + s->size;
	return i + 1 < tab->n ? tab->v[i + 1].addr : tab->limit;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct pk_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Sort by pk_sym_cmp, with the result qsort would give. kallsyms lists its
 * ~10^5 symbols by address except for a short tail (BPF programs, ours
 * among them): sort the tail by address, merge it into the sorted head,
 * then order each run of one address by pk_sym_cmp. 0 or -ENOMEM. */
static int sort_syms(struct pk_symtab *tab)
{
	size_t n = tab->n, head = 1, i, j, k;
	struct pk_sym *v;

	while (head < n && tab->v[head].addr >= tab->v[head - 1].addr)
		head++;
	if (head < n) {
		qsort(tab->v + head, n - head, sizeof(*v), cmp_addr);
		v = malloc(n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (i = 0, j = head, k = 0; k < n; k++)
			v[k] = j == n || (i < head && tab->v[i].addr <= tab->v[j].addr) ?
			       tab->v[i++] : tab->v[j++];
		free(tab->v);
		tab->v = v;
		tab->cap = n;
	}
	v = tab->v;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].addr == v[i].addr; j++)
			;
		if (j - i > 1)
			qsort(v + i, j - i, sizeof(*v), pk_sym_cmp);
	}
	return 0;
}

int pk_symtab_finish(struct pk_symtab *tab)
{
	size_t out = 0;
	int err = sort_syms(tab);

	if (err)
		return err;
	/* Keep one symbol per address, the preferred one (sorted first). */
	for (size_t i = 0; i < tab->n; i++)
		if (out == 0 || tab->v[out - 1].addr != tab->v[i].addr)
			tab->v[out++] = tab->v[i];
	tab->n = out;
	/* parent[i]: nearest earlier symbol still open at v[i].addr, found by
	 * walking the previous symbol's parent chain (amortised linear). It
	 * lets an address past the end of a nested symbol fall back to the
	 * enclosing one without scanning. */
	for (size_t i = 0; i < tab->n; i++) {
		long j = (long)i - 1;

		while (j >= 0 && sym_end(tab, j) <= tab->v[i].addr)
			j = tab->v[j].parent;
		tab->v[i].parent = j;
	}
	tab->finished = true;
	return 0;
}

void pk_symtab_set_limit(struct pk_symtab *tab, __u64 end)
{
	tab->limit = end;
}

long pk_symtab_lookup(const struct pk_symtab *tab, __u64 addr)
{
	size_t lo = 0, hi = tab->n;
	long i;

	if (!tab->finished)
		return -1;
	/* Last symbol with start <= addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = (long)lo - 1; i >= 0; i = tab->v[i].parent)
		if (addr < sym_end(tab, i))
			return i;
	return -1;
}

const struct pk_sym *pk_symtab_sym(const struct pk_symtab *tab, long idx)
{
	return idx >= 0 && (size_t)idx < tab->n ? &tab->v[idx] : NULL;
}

size_t pk_symtab_count(const struct pk_symtab *tab)
{
	return tab->n;
}
