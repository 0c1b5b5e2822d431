// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/checksum.h"
#include "eh_frame/eh_table.h"
#include "lib/kallsyms.h"
#include "lib/util/strbuf.h"


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

/* --- the table kept for later readers -------------------------------------- */

#define SAVED_MAGIC "PKKSYMS\1"

struct saved_header {
	char magic[8];
	__u64 sig;
	__u32 count, strbytes;
	__u64 checksum;
};

struct saved_rec {
	__u64 addr;
	__u32 name, module;
	__u16 rank, zero16;
	__u32 zero32;
};

static __u64 saved_checksum(const void *buf, size_t len)
{
	return eh_hash_final(eh_hash_update(EH_HASH_INIT, buf, len), len);
}

int pk_kallsyms_save(const struct pk_symtab *tab, const char *path, __u64 sig)
{
	size_t n = pk_symtab_count(tab);
	struct saved_header h = { SAVED_MAGIC, sig, n, 0, 0 };
	struct pk_strbuf recs = { 0 }, strs = { 0 };
	char err[PK_ERR_LEN];
	const char *last_mod = NULL;
	__u32 last_mod_off = 0;
	struct eh_cache_file f;
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pk_sym *s = pk_symtab_sym(tab, i);
		const char *mod = pk_symtab_module(tab, s);
		struct saved_rec r = { .addr = s->addr, .name = strs.len, .rank = s->rank };

		pk_strbuf_putn(&strs, s->name, strlen(s->name) + 1);
		/* a module's symbols are together: its name once per run */
		if (mod && mod != last_mod) {
			last_mod = mod;
			last_mod_off = strs.len;
			pk_strbuf_putn(&strs, mod, strlen(mod) + 1);
		}
		r.module = mod ? last_mod_off + 1 : 0;
		pk_strbuf_putn(&recs, (const char *)&r, sizeof(r));
	}
	if (recs.failed || strs.failed || strs.len > UINT32_MAX) {
		ret = -ENOMEM;
		goto out;
	}
	h.strbytes = strs.len;
	h.checksum = eh_hash_final(eh_hash_update(eh_hash_update(EH_HASH_INIT, recs.s, recs.len),
						  strs.s, strs.len), recs.len + strs.len);
	ret = eh_cache_mkdirs(path, err);
	if (!ret)
		ret = eh_cache_file_begin(&f, path, err);
	if (ret)
		goto out;
	ret = eh_cache_file_put(&f, &h, sizeof(h));
	if (!ret)
		ret = eh_cache_file_put(&f, recs.s, recs.len);
	if (!ret)
		ret = eh_cache_file_put(&f, strs.s, strs.len);
	ret = eh_cache_file_commit(&f, ret, err);
out:
	free(recs.s);
	free(strs.s);
	return ret;
}

struct pk_symtab *pk_kallsyms_parse_saved(const void *buf, size_t len, __u64 sig)
{
	const struct saved_rec *recs = (const void *)((const char *)buf + sizeof(struct saved_header));
	const char *strs;
	struct saved_header h;
	struct pk_symtab *tab;
	int err = 0;

	if (len < sizeof(h)) {
		errno = EINVAL;
		return NULL;
	}
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, SAVED_MAGIC, sizeof(h.magic)) ||
	    (len - sizeof(h)) / sizeof(*recs) < h.count ||
	    len - sizeof(h) - (size_t)h.count * sizeof(*recs) != h.strbytes ||
	    h.checksum != saved_checksum(recs, len - sizeof(h))) {
		errno = EINVAL;
		return NULL;
	}
	if (h.sig != sig) {
		errno = ESTALE;
		return NULL;
	}
	strs = (const char *)(recs + h.count);
	/* every string ends within the blob */
	if (h.strbytes && strs[h.strbytes - 1]) {
		errno = EINVAL;
		return NULL;
	}
	tab = pk_symtab_new();
	if (!tab)
		return NULL;
	for (__u32 i = 0; i < h.count && !err; i++) {
		const struct saved_rec *r = &recs[i];

		if (r->name >= h.strbytes || (r->module && r->module - 1 >= h.strbytes) ||
		    r->rank > PK_SYM_GLOBAL || r->zero16 || r->zero32)
			err = -EINVAL;
		else
			err = pk_symtab_add_in(tab, r->addr, 0, strs + r->name, r->rank,
					       r->module ? strs + r->module - 1 : NULL);
	}
	if (!err)
		err = pk_symtab_finish(tab);
	if (err) {
		pk_symtab_free(tab);
		errno = -err;
		return NULL;
	}
	return tab;
}

struct pk_symtab *pk_kallsyms_load_saved(const char *path, __u64 sig)
{
	struct pk_symtab *tab = NULL;
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		err = errno;
		close(fd);
		errno = err;
		return NULL;
	}
	buf = st.st_size ? mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	err = st.st_size ? errno : EINVAL;
	close(fd);
	if (buf == MAP_FAILED) {
		errno = err;
		return NULL;
	}
	tab = pk_kallsyms_parse_saved(buf, st.st_size, sig);
	err = errno;
	munmap(buf, st.st_size);
	errno = err;
	return tab;
}
