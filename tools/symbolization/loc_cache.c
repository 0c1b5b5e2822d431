// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/checksum.h"
#include "eh_frame/eh_table.h"
#include "lib/util/strbuf.h"
#include "lib/util/strpool.h"
#include "lib/util/u64map.h"
#include "symbolization/loc_cache.h"

#define MAGIC		"PKLOCS\0\1"
#define NO_STR		0xffff
#define REC_NAME	0x1	/* a symbol holds the address */
#define REC_DWARF	0x4

struct header {
	char magic[8];
	__u64 sig;
	__u32 count, zero;
	__u64 checksum;
};

struct pk_loc_cache {
	char *path;		/* NULL: never saved */
	__u64 sig;
	struct pk_u64map by_addr;	/* addr -> struct pk_loc_entry */
	struct pk_strpool pool;	/* entries, frames and strings */
	bool dirty;
};

static __u64 checksum(const void *buf, size_t len)
{
	return eh_hash_final(eh_hash_update(EH_HASH_INIT, buf, len), len);
}

/* --- reading ---------------------------------------------------------------- */

struct cursor {
	const __u8 *p, *end;
};

static bool take(struct cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	memcpy(out, c->p, n);
	c->p += n;
	return true;
}

/* A string of the record into POOL: *OUT, NULL for none. */
static bool take_str(struct cursor *c, struct pk_strpool *pool, const char **out, bool *nomem)
{
	__u16 len;

	if (!take(c, &len, sizeof(len)))
		return false;
	if (len == NO_STR) {
		*out = NULL;
		return true;
	}
	if ((size_t)(c->end - c->p) < len || memchr(c->p, 0, len))
		return false;
	*out = pk_strpool_addn(pool, (const char *)c->p, len);
	c->p += len;
	*nomem = !*out;
	return !*nomem;
}

static void forget_all(struct pk_loc_cache *c)
{
	pk_u64map_free(&c->by_addr);
	pk_strpool_free(&c->pool);
	memset(&c->by_addr, 0, sizeof(c->by_addr));
	memset(&c->pool, 0, sizeof(c->pool));
}

int pk_loc_cache_parse(struct pk_loc_cache *c, const void *buf, size_t len, __u64 sig)
{
	struct cursor cur = { (const __u8 *)buf + sizeof(struct header),
			      (const __u8 *)buf + len };
	struct header h;
	bool nomem = false;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, MAGIC, sizeof(h.magic)) || h.sig != sig || h.zero ||
	    h.count > PK_LOC_CACHE_MAX || h.checksum != checksum(cur.p, len - sizeof(h)))
		return -EINVAL;
	for (__u32 i = 0; i < h.count; i++) {
		struct pk_srcline_frame *fr = NULL;
		struct pk_loc_entry *e;
		__u64 addr;
		__u8 flags, n;

		e = pk_strpool_zalloc(&c->pool, sizeof(*e));
		if (!e)
			goto nomem;
		if (!take(&cur, &addr, 8) || !take(&cur, &e->start, 8) || !take(&cur, &flags, 1) ||
		    !take(&cur, &n, 1) || (flags & ~(REC_NAME | REC_DWARF)) ||
		    n > PK_LOC_CACHE_MAX_FRAMES || (n && !(flags & REC_DWARF)))
			goto bad;
		if ((flags & REC_NAME) && (!take_str(&cur, &c->pool, &e->name, &nomem) || !e->name))
			goto bad;
		if (n && !(fr = pk_strpool_zalloc(&c->pool, n * sizeof(*fr))))
			goto nomem;
		for (int k = 0; k < n; k++)
			if (!take_str(&cur, &c->pool, &fr[k].name, &nomem) ||
			    !take_str(&cur, &c->pool, &fr[k].file, &nomem) ||
			    !take(&cur, &fr[k].line, 4))
				goto bad;
		e->dwarf = flags & REC_DWARF;
		e->saved = true;
		e->nframes = n;
		e->frames = fr;
		if (pk_u64map_get(&c->by_addr, addr))
			goto bad;	/* each address once */
		if (pk_u64map_put(&c->by_addr, addr, e))
			goto nomem;
	}
	if (cur.p != cur.end)
		goto bad;
	return 0;
bad:
	if (nomem)
		goto nomem;
	forget_all(c);
	return -EINVAL;
nomem:
	forget_all(c);
	return -ENOMEM;
}

static int read_file(struct pk_loc_cache *c)
{
	struct stat st;
	void *buf;
	int fd = open(c->path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(struct header)) {
		close(fd);
		return -EINVAL;
	}
	buf = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (buf == MAP_FAILED)
		return -errno;
	ret = pk_loc_cache_parse(c, buf, st.st_size, c->sig);
	munmap(buf, st.st_size);
	return ret;
}

struct pk_loc_cache *pk_loc_cache_open(const char *path, __u64 sig)
{
	struct pk_loc_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->sig = sig;
	if (path && !(c->path = strdup(path))) {
		free(c);
		return NULL;
	}
	/* absent, another source's or damaged: empty, replaced at the save */
	if (path && read_file(c) == -ENOMEM) {
		pk_loc_cache_free(c);
		return NULL;
	}
	return c;
}

void pk_loc_cache_free(struct pk_loc_cache *c)
{
	if (!c)
		return;
	forget_all(c);
	free(c->path);
	free(c);
}

const struct pk_loc_entry *pk_loc_cache_get(const struct pk_loc_cache *c, __u64 addr)
{
	return pk_u64map_get(&c->by_addr, addr);
}

size_t pk_loc_cache_count(const struct pk_loc_cache *c)
{
	return c->by_addr.n;
}

static int self_note(struct dl_phdr_info *info, size_t size, void *arg)
{
	__u64 *h = arg;

	(void)size;
	/* the first object is the program itself */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const __u8 *p = (const __u8 *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (end - p >= (ptrdiff_t)sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;

			p += sizeof(*nh);
			if ((size_t)(end - p) < name + desc)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(p, "GNU", 4))
				*h = eh_hash_update(*h, p + name, nh->n_descsz);
			p += name + desc;
		}
	}
	return 1;
}

__u64 pk_loc_cache_self_sig(void)
{
	static __u64 sig;

	if (!sig) {
		__u64 h = EH_HASH_INIT;

		dl_iterate_phdr(self_note, &h);
		sig = eh_hash_final(h, 1) | 1;
	}
	return sig;
}

/* --- writing ---------------------------------------------------------------- */

static const char *keep_str(struct pk_loc_cache *c, const char *s, bool *nomem)
{
	const char *k;

	if (!s)
		return NULL;
	k = pk_strpool_add(&c->pool, s);
	*nomem |= !k;
	return k;
}

int pk_loc_cache_put(struct pk_loc_cache *c, __u64 addr, const struct pk_loc_entry *e)
{
	struct pk_srcline_frame *fr = NULL;
	struct pk_loc_entry *k;
	bool nomem = false;

	/* what a record cannot say is not kept: looked up again next time */
	if (e->nframes < 0 || e->nframes > PK_LOC_CACHE_MAX_FRAMES ||
	    (!pk_u64map_get(&c->by_addr, addr) && c->by_addr.n >= PK_LOC_CACHE_MAX))
		return 0;
	for (int i = 0; i < e->nframes; i++)
		if ((e->frames[i].name && strlen(e->frames[i].name) >= NO_STR) ||
		    (e->frames[i].file && strlen(e->frames[i].file) >= NO_STR))
			return 0;
	if (e->name && strlen(e->name) >= NO_STR)
		return 0;
	k = pk_strpool_zalloc(&c->pool, sizeof(*k));
	if (k && e->nframes)
		fr = pk_strpool_zalloc(&c->pool, e->nframes * sizeof(*fr));
	if (!k || (e->nframes && !fr))
		return -ENOMEM;
	*k = *e;
	k->saved = false;
	k->name = keep_str(c, e->name, &nomem);
	for (int i = 0; i < e->nframes; i++)
		fr[i] = (struct pk_srcline_frame){ keep_str(c, e->frames[i].name, &nomem),
						   keep_str(c, e->frames[i].file, &nomem),
						   e->frames[i].line };
	k->frames = fr;
	if (nomem || pk_u64map_put(&c->by_addr, addr, k))
		return -ENOMEM;
	c->dirty = true;
	return 0;
}

static void put_str(struct pk_strbuf *b, const char *s)
{
	__u16 len = s ? strlen(s) : NO_STR;

	pk_strbuf_putn(b, (const char *)&len, sizeof(len));
	if (s)
		pk_strbuf_putn(b, (const char *)s, len);
}

int pk_loc_cache_save(struct pk_loc_cache *c)
{
	struct header h = { .sig = c->sig, .count = c->by_addr.n };
	char err[PK_ERR_LEN];
	struct pk_strbuf b = { 0 };
	int ret;

	if (!c->dirty || !c->path)
		return 0;
	pk_strbuf_putn(&b, (const char *)&h, sizeof(h));
	pk_u64map_for_each(&c->by_addr, it) {
		const struct pk_loc_entry *e = it.val;
		__u8 flags = (e->name ? REC_NAME : 0) | (e->dwarf ? REC_DWARF : 0), n = e->nframes;

		pk_strbuf_putn(&b, (const char *)&it.key, 8);
		pk_strbuf_putn(&b, (const char *)&e->start, 8);
		pk_strbuf_putn(&b, (const char *)&flags, 1);
		pk_strbuf_putn(&b, (const char *)&n, 1);
		if (e->name)
			put_str(&b, e->name);
		for (int i = 0; i < n; i++) {
			put_str(&b, e->frames[i].name);
			put_str(&b, e->frames[i].file);
			pk_strbuf_putn(&b, (const char *)&e->frames[i].line, 4);
		}
	}
	if (b.failed) {
		free(b.s);
		return -ENOMEM;
	}
	memcpy(h.magic, MAGIC, sizeof(h.magic));
	h.checksum = checksum(b.s + sizeof(h), b.len - sizeof(h));
	memcpy(b.s, &h, sizeof(h));
	ret = eh_cache_mkdirs(c->path, err);
	if (!ret)
		ret = eh_cache_write(c->path, b.s, b.len, err);
	free(b.s);
	if (!ret)
		c->dirty = false;
	return ret;
}
