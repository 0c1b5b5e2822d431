// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/elf_file.h"
#include "loader/events/elf_probe_sites.h"
#include "loader/events/suggest.h"

#define NT_STAPSDT	3

struct probed_elf {
	int fd;
	Elf *elf;
	__u64 size;
};

static int elf_open(struct probed_elf *f, const char *path, char err[PK_ERR_LEN])
{
	GElf_Ehdr eh;
	struct stat st;

	f->elf = NULL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return pk_err(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode)) {
		close(f->fd);
		return pk_err(err, -EINVAL, "%s: not a regular file", path);
	}
	f->size = st.st_size;
	f->elf = eh_elf_begin(f->fd);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		if (f->elf)
			elf_end(f->elf);
		close(f->fd);
		return pk_err(err, -ENOEXEC, "%s: not a 64-bit ELF file", path);
	}
	return 0;
}

static void elf_close(struct probed_elf *f)
{
	elf_end(f->elf);
	close(f->fd);
}

/* The file offset of vaddr ADDR: the PT_LOAD that holds it, if that is in
 * the file. */
static int vaddr_to_offset(const struct probed_elf *f, __u64 addr, __u64 *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, i, &ph) || ph.p_type != PT_LOAD ||
		    ph.p_offset > f->size || ph.p_filesz > f->size - ph.p_offset)
			continue;
		if (addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_filesz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static Elf_Scn *find_section(Elf *elf, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* Call FN on every defined function of the symbol table of type TYPE, until
 * it returns non-zero (which is returned). */
static int each_func(Elf *elf, Elf64_Word type,
		     int (*fn)(const char *name, __u64 vaddr, void *arg), void *arg)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	int ret;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = d->d_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			const char *name;
			int st;

			if (!gelf_getsym(d, i, &s))
				continue;
			st = GELF_ST_TYPE(s.st_info);
			if ((st != STT_FUNC && st != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
			    !s.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (name && (ret = fn(name, s.st_value, arg)))
				return ret;
		}
	}
	return 0;
}

struct func_lookup {
	const char *sym;
	__u64 vaddr;
	struct pk_suggest *sug;
};

static int match_func(const char *name, __u64 vaddr, void *arg)
{
	struct func_lookup *l = arg;

	if (!strcmp(name, l->sym)) {
		l->vaddr = vaddr;
		return 1;
	}
	pk_suggest_offer(l->sug, name, strlen(name));
	return 0;
}

/* Look SYM up in the symbol table of type TYPE; offer every function name
 * to SUG. 1 found (*vaddr), 0 not. */
static int find_func(Elf *elf, Elf64_Word type, const char *sym, __u64 *vaddr,
		     struct pk_suggest *sug)
{
	struct func_lookup l = { .sym = sym, .sug = sug };
	int ret = each_func(elf, type, match_func, &l);

	*vaddr = l.vaddr;
	return ret;
}

struct name_visit {
	void (*fn)(const char *name, void *arg);
	void *arg;
};

static int visit_name(const char *name, __u64 vaddr, void *arg)
{
	struct name_visit *v = arg;

	(void)vaddr;
	v->fn(name, v->arg);
	return 0;
}

int pk_elf_func_names(const char *path, void (*fn)(const char *name, void *arg), void *arg,
		      char err[PK_ERR_LEN])
{
	struct name_visit v = { fn, arg };
	struct probed_elf f;
	int ret = elf_open(&f, path, err);

	if (ret)
		return ret;
	each_func(f.elf, SHT_SYMTAB, visit_name, &v);
	each_func(f.elf, SHT_DYNSYM, visit_name, &v);
	elf_close(&f);
	return 0;
}

int pk_probe_file(const char *given, char **path, char err[PK_ERR_LEN])
{
	const char *dirs = getenv("PATH");
	char *cand = NULL;
	size_t len;

	*path = NULL;
	if (strchr(given, '/')) {
		*path = realpath(given, NULL);
		return *path ? 0 : pk_err(err, -errno, "%s: %s", given, strerror(errno));
	}
	/* a bare name: the first executable of that name in PATH, as
	 * execvp and bpftrace find it */
	for (const char *d = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; ; d += len + 1) {
		len = strcspn(d, ":");
		if (asprintf(&cand, "%.*s/%s", (int)len, len ? d : ".", given) < 0)
			return pk_err(err, -ENOMEM, "out of memory");
		if (!access(cand, X_OK)) {
			*path = realpath(cand, NULL);
			free(cand);
			return *path ? 0 : pk_err(err, -errno, "%s: %s", given, strerror(errno));
		}
		free(cand);
		if (!d[len])
			break;
	}
	return pk_err(err, -ENOENT, "%s: not found in PATH (%s)", given, dirs ? dirs : "unset");
}

int pk_elf_func_site(const char *path, const char *sym, struct pk_probe_site *site,
		     char err[PK_ERR_LEN])
{
	struct pk_suggest sug;
	struct probed_elf f;
	char close_names[256];
	__u64 vaddr = 0;
	int ret;

	ret = elf_open(&f, path, err);
	if (ret)
		return ret;
	pk_suggest_init(&sug, sym);
	if (find_func(f.elf, SHT_SYMTAB, sym, &vaddr, &sug) ||
	    find_func(f.elf, SHT_DYNSYM, sym, &vaddr, &sug)) {
		site->ref_ctr_offset = 0;
		ret = vaddr_to_offset(&f, vaddr, &site->offset);
		if (ret)
			ret = pk_err(err, ret, "%s: function %s at 0x%llx is in no loadable segment",
				     path, sym, (unsigned long long)vaddr);
	} else {
		ret = pk_err(err, -ENOENT, "no function %s in %s%s", sym, path,
			     pk_suggest_str(&sug, close_names, sizeof(close_names)));
	}
	pk_suggest_free(&sug);
	elf_close(&f);
	return ret;
}

int pk_usdt_note_parse(const void *desc, size_t len, struct pk_usdt_note *note)
{
	const char *p = desc, *end = p + len, *nul;

	if (len < 3 * sizeof(__u64) + 2)
		return -EINVAL;
	memcpy(&note->pc, p, sizeof(__u64));
	memcpy(&note->base, p + 8, sizeof(__u64));
	memcpy(&note->semaphore, p + 16, sizeof(__u64));
	p += 24;
	nul = memchr(p, '\0', end - p);
	if (!nul || nul == p)
		return -EINVAL;
	note->provider = p;
	p = nul + 1;
	nul = memchr(p, '\0', end - p);
	if (!nul || nul == p)
		return -EINVAL;
	note->name = p;
	return 0;
}

/* Append one site of a matching note; names of other notes go to SUG. */
static int add_site(struct probed_elf *f, const struct pk_usdt_note *note, __s64 base_delta,
		    struct pk_probe_site **sites, size_t *n)
{
	struct pk_probe_site site = { 0 }, *v;

	if (vaddr_to_offset(f, note->pc + base_delta, &site.offset))
		return -ENOEXEC;
	if (note->semaphore && vaddr_to_offset(f, note->semaphore + base_delta,
					       &site.ref_ctr_offset))
		return -ENOEXEC;
	v = realloc(*sites, (*n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	*sites = v;
	v[(*n)++] = site;
	return 0;
}

/* Call FN on every stapsdt note of F, with what prelink moved it by (from
 * .stapsdt.base), until FN returns non-zero (returned). *HAS: whether F has
 * a .note.stapsdt section. */
static int each_note(struct probed_elf *f, bool *has,
		     int (*fn)(const struct pk_usdt_note *note, __s64 delta, void *arg), void *arg)
{
	GElf_Shdr sh, base_sh;
	Elf_Scn *scn = find_section(f->elf, ".note.stapsdt", &sh);
	Elf_Scn *base_scn = find_section(f->elf, ".stapsdt.base", &base_sh);
	Elf_Data *d = scn && sh.sh_type == SHT_NOTE ? elf_getdata(scn, NULL) : NULL;
	int ret;

	*has = scn != NULL;
	for (size_t off = 0, next; d; off = next) {
		struct pk_usdt_note note;
		GElf_Nhdr nh;
		size_t name_off, desc_off;

		next = gelf_getnote(d, off, &nh, &name_off, &desc_off);
		if (!next)
			break;
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != sizeof("stapsdt") ||
		    memcmp((char *)d->d_buf + name_off, "stapsdt", sizeof("stapsdt")) ||
		    pk_usdt_note_parse((char *)d->d_buf + desc_off, nh.n_descsz, &note))
			continue;
		ret = fn(&note, base_scn ? (__s64)base_sh.sh_addr - (__s64)note.base : 0, arg);
		if (ret)
			return ret;
	}
	return 0;
}

struct usdt_lookup {
	struct probed_elf *f;
	const char *provider, *name;
	struct pk_probe_site **sites;
	size_t *n;
	struct pk_suggest *sug;
};

/* A site of the note looked for; the others' names go to the suggestions. */
static int match_note(const struct pk_usdt_note *note, __s64 delta, void *arg)
{
	struct usdt_lookup *l = arg;
	char both[256];

	if (!strcmp(note->provider, l->provider) && !strcmp(note->name, l->name))
		return add_site(l->f, note, delta, l->sites, l->n);
	snprintf(both, sizeof(both), "%s:%s", note->provider, note->name);
	pk_suggest_offer(l->sug, both, strlen(both));
	return 0;
}

int pk_elf_usdt_sites(const char *path, const char *provider, const char *name,
		      struct pk_probe_site **sites, size_t *n, char err[PK_ERR_LEN])
{
	char want[256], close_names[256];
	struct pk_suggest sug;
	struct probed_elf f;
	struct usdt_lookup l = { &f, provider, name, sites, n, &sug };
	bool has;
	int ret;

	*sites = NULL;
	*n = 0;
	ret = elf_open(&f, path, err);
	if (ret)
		return ret;
	snprintf(want, sizeof(want), "%s:%s", provider, name);
	pk_suggest_init(&sug, want);
	ret = each_note(&f, &has, match_note, &l);
	if (ret == -ENOMEM)
		ret = pk_err(err, ret, "out of memory");
	else if (ret)
		ret = pk_err(err, ret, "%s: USDT note %s points outside the file's segments", path,
			     want);
	else if (!*n)
		ret = pk_err(err, -ENOENT, "no USDT note %s in %s%s", want, path,
			     !has ? " (it has no .note.stapsdt section)" :
			     pk_suggest_str(&sug, close_names, sizeof(close_names)));
	if (ret) {
		free(*sites);
		*sites = NULL;
		*n = 0;
	}
	pk_suggest_free(&sug);
	elf_close(&f);
	return ret;
}

static int visit_note(const struct pk_usdt_note *note, __s64 delta, void *arg)
{
	struct name_visit *v = arg;
	char both[256];

	(void)delta;
	snprintf(both, sizeof(both), "%s:%s", note->provider, note->name);
	v->fn(both, v->arg);
	return 0;
}

int pk_elf_usdt_names(const char *path, void (*fn)(const char *name, void *arg), void *arg,
		      char err[PK_ERR_LEN])
{
	struct name_visit v = { fn, arg };
	struct probed_elf f;
	bool has;
	int ret = elf_open(&f, path, err);

	if (ret)
		return ret;
	each_note(&f, &has, visit_note, &v);
	elf_close(&f);
	return 0;
}
