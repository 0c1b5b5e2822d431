// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eh_frame/checksum.h"
#include "lib/boot_id.h"
#include "lib/kallsyms.h"
#include "lib/util/array.h"
#include "symbolization/kernel_syms.h"
#include "symbolization/loc_cache.h"

struct range {
	__u64 lo, hi;
};

struct pk_kernel_syms {
	char *root;		/* kallsyms, modules, the boot id: "/proc" */
	char *saved_path;	/* NULL: none kept */
	char boot[64];
	__u64 modules;		/* read_modules's hash when created */
	__u64 sig;
	struct pk_symtab *live, *saved;
	bool live_tried, saved_tried;
	struct range *ranges;	/* what SAVED may answer */
	size_t nranges, cap;
};

/* ROOT/NAME into BUF (LEN bytes), returned; "" when too long (no file). */
static const char *kernel_file(const struct pk_kernel_syms *k, const char *name, char *buf,
			       size_t len)
{
	if (snprintf(buf, len, "%s/%s", k->root, name) >= (int)len)
		buf[0] = '\0';
	return buf;
}

/* Append [LO, HI) to the ranges SAVED may answer. 0 or -ENOMEM. */
static int add_range(struct pk_kernel_syms *k, __u64 lo, __u64 hi)
{
	if (pk_array_reserve((void **)&k->ranges, &k->cap, sizeof(*k->ranges), k->nranges + 1, 16))
		return -ENOMEM;
	k->ranges[k->nranges++] = (struct range){ lo, hi };
	return 0;
}

/* The modules loaded, as /proc/modules lists them: their hash (name, size,
 * address; not the reference counts, which change as they are used) into
 * *SIG, and with RANGES, their ranges. 0 or -ENOMEM. */
static int read_modules(struct pk_kernel_syms *k, __u64 *sig, bool ranges)
{
	char line[4096], name[256];
	FILE *f = fopen(kernel_file(k, "modules", line, sizeof(line)), "re");
	unsigned long long size, addr;
	__u64 h = EH_HASH_INIT;
	int err = 0;

	while (f && !err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %llu %*s %*s %*s %llx", name, &size, &addr) != 3)
			continue;
		h = eh_hash_update(h, name, strlen(name));
		h = eh_hash_update(h, &size, sizeof(size));
		h = eh_hash_update(h, &addr, sizeof(addr));
		if (ranges && addr && size)
			err = add_range(k, addr, addr + size);
	}
	if (f)
		fclose(f);
	*sig = h;
	return err;
}

struct pk_kernel_syms *pk_kernel_syms_new(const char *root, const char *cache_root)
{
	struct pk_kernel_syms *k = calloc(1, sizeof(*k));
	char path[4096];
	__u64 h;

	if (!k)
		return NULL;
	if (!(k->root = strdup(root ? root : "/proc")))
		goto fail;
	if (!cache_root)
		return k;
	if (pk_boot_id_in(k->root, k->boot, sizeof(k->boot)) ||
	    snprintf(path, sizeof(path), "%s/kernel/%s.syms", cache_root, k->boot) >=
	    (int)sizeof(path))
		return k;	/* nothing kept */
	if (!(k->saved_path = strdup(path)) || read_modules(k, &k->modules, false))
		goto fail;
	h = eh_hash_update(k->modules, &(__u64){ pk_loc_cache_self_sig() }, sizeof(__u64));
	k->sig = eh_hash_final(h, 0);
	return k;
fail:
	pk_kernel_syms_free(k);
	return NULL;
}

void pk_kernel_syms_free(struct pk_kernel_syms *k)
{
	if (!k)
		return;
	pk_symtab_free(k->live);
	pk_symtab_free(k->saved);
	free(k->ranges);
	free(k->root);
	free(k->saved_path);
	free(k);
}

/* vmlinux's text in TAB: from its first function to a page past its last
 * (the end kallsyms.c gives it). Nothing of the modules' area, where BPF
 * programs and trampolines are, lies between. -ENOENT without one. */
static int vmlinux_text(const struct pk_symtab *tab, struct range *r)
{
	size_t n = pk_symtab_count(tab);

	*r = (struct range){ ~0ULL, 0 };
	for (size_t i = 0; i < n; i++) {
		const struct pk_sym *s = pk_symtab_sym(tab, i);

		if (s->rank == PK_SYM_MARKER || pk_symtab_module(tab, s))
			continue;
		if (s->addr < r->lo)
			r->lo = s->addr;
		if (s->addr > r->hi)
			r->hi = s->addr;
	}
	if (r->lo > r->hi)
		return -ENOENT;
	r->hi += 4096;
	return 0;
}

/* The saved table, with the ranges it may answer: vmlinux's text and the
 * modules'. NULL when there is none of this boot, modules and build. */
static struct pk_symtab *saved_table(struct pk_kernel_syms *k)
{
	struct range text;
	__u64 sig;

	if (k->saved_tried)
		return k->saved;
	k->saved_tried = true;
	if (!k->saved_path)
		return NULL;
	k->saved = pk_kallsyms_load_saved(k->saved_path, k->sig);
	if (!k->saved)
		return NULL;
	/* every range through add_range: 16, 32, 64 ... modules fill the
	 * array exactly, and vmlinux's range after them needs room of its own */
	if (vmlinux_text(k->saved, &text) || read_modules(k, &sig, true) || sig != k->modules ||
	    add_range(k, text.lo, text.hi)) {
		pk_symtab_free(k->saved);
		k->saved = NULL;
		k->nranges = 0;
		return NULL;
	}
	return k->saved;
}

static bool saved_holds(const struct pk_kernel_syms *k, __u64 addr)
{
	for (size_t i = 0; i < k->nranges; i++)
		if (addr >= k->ranges[i].lo && addr < k->ranges[i].hi)
			return true;
	return false;
}

/* The saved tables of other boots, which no reader can use. */
static void forget_other_boots(const struct pk_kernel_syms *k)
{
	char dir[4096];
	const char *slash = strrchr(k->saved_path, '/');

	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - k->saved_path), k->saved_path);
	pk_boot_prune(dir, ".syms", k->boot);
}

static struct pk_symtab *live_table(struct pk_kernel_syms *k)
{
	char path[4096];
	struct range text;

	if (k->live_tried)
		return k->live;
	k->live_tried = true;
	k->live = pk_kallsyms_load(kernel_file(k, "kallsyms", path, sizeof(path)));
	/* the first reader of this boot (or of these modules) keeps it; an
	 * error only costs the next reader the same read. Not a table without
	 * vmlinux (kptr_restrict hid every address): no reader could use it. */
	if (k->live && k->saved_path && !k->saved && !vmlinux_text(k->live, &text) &&
	    !pk_kallsyms_save(k->live, k->saved_path, k->sig))
		forget_other_boots(k);
	return k->live;
}

const char *pk_kernel_syms_lookup(struct pk_kernel_syms *k, __u64 addr, __u64 *start,
				  const char **module, bool *saved)
{
	struct pk_symtab *tab = saved_table(k);
	const char *name;

	*saved = tab && saved_holds(k, addr);
	if (!*saved)
		tab = live_table(k);
	*start = 0;
	*module = NULL;
	if (!tab)
		return NULL;
	name = pk_kallsyms_lookup(tab, addr, module);
	if (name)
		*start = pk_symtab_sym(tab, pk_symtab_lookup(tab, addr))->addr;
	return name;
}
