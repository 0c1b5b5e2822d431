// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/sym_aliases.h"
#include "symbolization/demangle.h"
#include "test_util.h"

#define DEBUG_DIR "/usr/lib/debug/.build-id/"

struct alias {
	char *name, *canonical;
};

struct sa_aliases {
	struct alias *v;
	size_t n;
	bool sorted;
};

/* The symbols of one address space, before grouping. */
struct sym {
	uint64_t addr;
	char *name;
};

struct syms {
	struct sym *v;
	size_t n;
};

static int syms_add(struct syms *s, uint64_t addr, const char *name, size_t len)
{
	struct sym *v = pk_test_grow(s->v, s->n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->v = v;
	if (!(s->v[s->n].name = strndup(name, len)))
		return -ENOMEM;
	s->v[s->n++].addr = addr;
	return 0;
}

static void syms_free(struct syms *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int alias_add(struct sa_aliases *a, const char *name, const char *canonical)
{
	struct alias *v = pk_test_grow(a->v, a->n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	a->v = v;
	a->v[a->n].name = strdup(name);
	a->v[a->n].canonical = strdup(canonical);
	if (!a->v[a->n].name || !a->v[a->n].canonical) {
		free(a->v[a->n].name);
		free(a->v[a->n].canonical);
		return -ENOMEM;
	}
	a->n++;
	a->sorted = false;
	return 0;
}

/* The name a reader knows best, of two: the shorter (read over __read and
 * __GI___libc_read), then the first in byte order. */
static bool better_name(const char *x, const char *y)
{
	size_t lx = strlen(x), ly = strlen(y);

	return lx != ly ? lx < ly : strcmp(x, y) < 0;
}

/* Every address with more than one name: each name -> the best one. */
static int add_space(struct sa_aliases *a, struct syms *s)
{
	size_t i = 0, j, names, best;
	int ret = 0;

	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_sym);
	for (; i < s->n && !ret; i = j) {
		names = 1;
		best = i;
		for (j = i + 1; j < s->n && s->v[j].addr == s->v[i].addr; j++) {
			names += strcmp(s->v[j].name, s->v[j - 1].name) != 0;
			if (better_name(s->v[j].name, s->v[best].name))
				best = j;
		}
		if (names < 2)
			continue;
		for (size_t k = i; k < j && !ret; k++)
			if (k == i || strcmp(s->v[k].name, s->v[k - 1].name))
				ret = alias_add(a, s->v[k].name, s->v[best].name);
	}
	return ret;
}

struct sa_aliases *sa_aliases_new(void)
{
	return calloc(1, sizeof(struct sa_aliases));
}

void sa_aliases_free(struct sa_aliases *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].name);
		free(a->v[i].canonical);
	}
	free(a->v);
	free(a);
}

static int elf_symbols(Elf *elf, struct syms *s)
{
	Elf_Scn *scn = NULL;
	int ret = 0;

	while (!ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; !ret && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			size_t len;
			int type;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !*name)
				continue;
			ret = syms_add(s, sym.st_value, name, strlen(name));
			/* the function's name, as probekit shows it: one of
			 * the names of the address (clock_nanosleep for
			 * clock_nanosleep@GLIBC_2.2.5, object_dealloc for
			 * object_dealloc.lto_priv.0) */
			len = pk_sym_name_len(name);
			if (!ret && name[len])
				ret = syms_add(s, sym.st_value, name, len);
		}
	}
	return ret;
}

/* DEBUG_DIR xx/yyyy.debug of ELF's GNU build-id note; false: none. */
static bool debug_path(Elf *elf, char *buf, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
			const unsigned char *id = (const unsigned char *)data->d_buf + desc_off;
			int n;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + name_off, "GNU", 4) ||
			    nh.n_descsz < 2)
				continue;
			n = snprintf(buf, len, DEBUG_DIR "%02x/", id[0]);
			for (size_t i = 1; i < nh.n_descsz && n > 0 && (size_t)n < len; i++)
				n += snprintf(buf + n, len - n, "%02x", id[i]);
			if (n > 0 && (size_t)n < len)
				n += snprintf(buf + n, len - n, ".debug");
			return n > 0 && (size_t)n < len;
		}
	}
	return false;
}

/* The symbols of PATH into S; *DEBUG set to its debug file's path when it
 * names one. */
static int file_symbols(const char *path, struct syms *s, char *debug, size_t dlen,
			char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	Elf *elf;

	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		ret = -EINVAL;
	} else {
		ret = elf_symbols(elf, s);
		if (debug && !debug_path(elf, debug, dlen))
			debug[0] = '\0';
		if (ret)
			snprintf(err, errlen, "%s: out of memory", path);
	}
	elf_end(elf);
	close(fd);
	return ret;
}

int sa_aliases_add_elf(struct sa_aliases *a, const char *path, char *err, size_t errlen)
{
	struct syms s = { 0 };
	char debug[256];
	int ret;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	ret = file_symbols(path, &s, debug, sizeof(debug), err, errlen);
	if (!ret && debug[0] && access(debug, R_OK) == 0)
		ret = file_symbols(debug, &s, NULL, 0, err, errlen);
	if (!ret && (ret = add_space(a, &s)))
		snprintf(err, errlen, "%s: out of memory", path);
	syms_free(&s);
	return ret;
}

/* "ADDR TYPE NAME[\tMODULE]": false when LINE is not that. Neither sscanf
 * nor strlen: both would scan the rest of the 200k-line text per line. */
static bool kallsyms_line(const char *line, uint64_t *addr, char *type, const char **name,
			  size_t *len)
{
	char *p;

	errno = 0;
	*addr = strtoull(line, &p, 16);
	if (p == line || errno || p[0] != ' ' || !p[1] || p[1] == '\n' || p[2] != ' ')
		return false;
	*type = p[1];
	*name = p + 3;
	*len = strcspn(*name, " \t\n");
	return *len > 0;
}

int sa_aliases_add_kallsyms(struct sa_aliases *a, const char *text, char *err, size_t errlen)
{
	struct syms s = { 0 };
	unsigned int lineno = 0;
	const char *line = text, *name;
	int ret = 0;

	for (; !ret && line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		uint64_t addr;
		size_t len;
		char type;

		lineno++;
		if (!kallsyms_line(line, &addr, &type, &name, &len)) {
			snprintf(err, errlen, "kallsyms line %u: not \"ADDR TYPE NAME\"", lineno);
			ret = -EBADMSG;
			break;
		}
		/* addresses hidden (kptr_restrict) are all 0: no aliases */
		if (addr && (type == 't' || type == 'T' || type == 'w' || type == 'W'))
			ret = syms_add(&s, addr, name, len);
	}
	if (!ret)
		ret = add_space(a, &s);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "kallsyms: out of memory");
	syms_free(&s);
	return ret;
}

static int cmp_alias(const void *a, const void *b)
{
	const struct alias *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->canonical, y->canonical);
}

static int cmp_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct alias *)elem)->name);
}

const char *sa_aliases_canonical(struct sa_aliases *a, const char *name)
{
	const struct alias *hit, *first, *last;

	if (!a->sorted && a->n)
		qsort(a->v, a->n, sizeof(*a->v), cmp_alias);
	a->sorted = true;
	hit = a->n ? bsearch(name, a->v, a->n, sizeof(*a->v), cmp_key) : NULL;
	if (!hit)
		return name;
	for (first = hit; first > a->v && !strcmp(first[-1].name, name); first--)
		;
	for (last = hit; last + 1 < a->v + a->n && !strcmp(last[1].name, name); last++)
		;
	/* sorted by canonical within a name: one canonical iff first == last's */
	return strcmp(first->canonical, last->canonical) ? name : first->canonical;
}
