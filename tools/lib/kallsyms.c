// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kallsyms.h"


static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static enum pk_sym_rank rank_of(char type)
{
	if (!is_text(type))
		return PK_SYM_MARKER;
	if (type == 'T')
		return PK_SYM_GLOBAL;
	if (type == 'W' || type == 'w')
		return PK_SYM_WEAK;
	return PK_SYM_LOCAL;
}

/* "ffffffff81000000 T _stext" or "ffffffffc0a01000 t fn\t[mod]" (MOD:
 * "mod"). */
static int parse_line(char *line, __u64 *addr, char *type, char **name, char **mod)
{
	char *p = line, *end;

	errno = 0;
	*addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || errno)
		return -EBADMSG;
	p = end + 1;
	if (!*p || p[1] != ' ')
		return -EBADMSG;
	*type = *p;
	p += 2;
	*name = p;
	p += strcspn(p, "\t \n");
	if (p == *name)
		return -EBADMSG;
	*mod = NULL;
	if (*p == '\t' || *p == ' ') {
		*p++ = '\0';
		while (*p == '\t' || *p == ' ')
			p++;
		if (*p == '[') {
			*mod = ++p;
			p += strcspn(p, "]\n");
			if (*p != ']' || p == *mod)
				return -EBADMSG;
			*p = '\0';
		}
	} else {
		*p = '\0';
	}
	return 0;
}

#define PAGE 4096ULL

/*
 * perf's symbols__fixup_end: a text symbol followed by another module's
 * symbol (vmlinux counts as one) or by nothing ends at most at
 * roundup(start + PAGE, PAGE). Markers (unnamed) make those ends; the
 * table, sorted by pk_symtab_finish, is finished again with them (a short
 * sorted tail: a merge).
 */
static int end_modules(struct pk_symtab *tab)
{
	size_t n = pk_symtab_count(tab), added = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pk_sym *s = pk_symtab_sym(tab, i);
		const struct pk_sym *next = i + 1 < n ? pk_symtab_sym(tab, i + 1) : NULL;
		__u64 end = (s->addr + 2 * PAGE - 1) & ~(PAGE - 1);
		int err;

		if (!s->name[0] || (next && next->module == s->module))
			continue;
		/* past the top of the address space, or the next one ends it */
		if (end < s->addr || (next && next->addr <= end))
			continue;
		err = pk_symtab_add(tab, end, 0, "", PK_SYM_MARKER);
		if (err)
			return err;
		added++;
	}
	return added ? pk_symtab_finish(tab) : 0;
}

struct pk_symtab *pk_kallsyms_parse(FILE *f)
{
	struct pk_symtab *tab = pk_symtab_new();
	char *line = NULL, *name, *mod, type;
	size_t cap = 0;
	__u64 addr;
	int err = 0;

	if (!tab)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		err = parse_line(line, &addr, &type, &name, &mod);
		if (err)
			break;
		if (addr == 0)
			continue;
		/* Data and absolute symbols are kept as markers: an address
		 * after the last function of .text is not charged to it. */
		err = pk_symtab_add_in(tab, addr, 0, is_text(type) ? name : "", rank_of(type), mod);
		if (err)
			break;
	}
	free(line);
	if (!err && ferror(f))
		err = -EIO;
	if (!err)
		err = pk_symtab_finish(tab);
	if (!err)
		err = end_modules(tab);
	if (err) {
		pk_symtab_free(tab);
		errno = -err;
		return NULL;
	}
	return tab;
}

struct pk_symtab *pk_kallsyms_load(const char *path)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	struct pk_symtab *tab;
	int err;

	if (!f)
		return NULL;
	tab = pk_kallsyms_parse(f);
	err = errno;
	fclose(f);
	errno = err;
	return tab;
}

const char *pk_kallsyms_lookup(const struct pk_symtab *tab, __u64 addr, const char **module)
{
	const struct pk_sym *s = pk_symtab_sym(tab, pk_symtab_lookup(tab, addr));

	if (!s || !s->name[0])
		s = NULL;
	if (module)
		*module = pk_symtab_module(tab, s);
	return s ? s->name : NULL;
}

int pk_kallsyms_range(const struct pk_symtab *tab, const char *name, __u64 *lo, __u64 *hi)
{
	size_t n = pk_symtab_count(tab);

	for (size_t i = 0; i < n; i++) {
		const struct pk_sym *s = pk_symtab_sym(tab, i);

		if (strcmp(s->name, name))
			continue;
		*lo = s->addr;
		*hi = s->addr + 1;	/* the last symbol: its first byte at least */
		for (size_t j = i + 1; j < n; j++)
			if (pk_symtab_sym(tab, j)->addr > s->addr) {
				*hi = pk_symtab_sym(tab, j)->addr;
				break;
			}
		return 0;
	}
	return -ENOENT;
}
