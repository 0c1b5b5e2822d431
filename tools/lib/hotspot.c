// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * HotSpot's self-description (tools/lib/hotspot.h): which files are a
 * libjvm, and its four vmStructs tables read from a live process.
 *
 * The entries' layout comes from the process too: the
 * gHotSpotVM*Entry*Offset and *ArrayStride symbols are uint64_t in .bss
 * that VMStructs' initialization fills at start-up, so they are read from
 * memory as the tables are. Every read goes through a small page cache:
 * the arrays are contiguous and the names are string literals packed in
 * libjvm's .rodata, each read once per address, so that Debian's OpenJDK
 * 17 (788 struct entries with three names each, 768 types, 484
 * constants) takes 113 page reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "eh_frame/elf_file.h"
#include "lib/hotspot.h"
#include "lib/util/array.h"
#include "lib/util/u64map.h"

static const char *const sym_names[PK_HS_NSYMS] = {
	[PK_HS_STRUCTS] = "gHotSpotVMStructs",
	[PK_HS_STRUCT_STRIDE] = "gHotSpotVMStructEntryArrayStride",
	[PK_HS_STRUCT_TYPE_NAME] = "gHotSpotVMStructEntryTypeNameOffset",
	[PK_HS_STRUCT_FIELD_NAME] = "gHotSpotVMStructEntryFieldNameOffset",
	[PK_HS_STRUCT_TYPE_STRING] = "gHotSpotVMStructEntryTypeStringOffset",
	[PK_HS_STRUCT_IS_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
	[PK_HS_STRUCT_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
	[PK_HS_STRUCT_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
	[PK_HS_TYPES] = "gHotSpotVMTypes",
	[PK_HS_TYPE_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
	[PK_HS_TYPE_TYPE_NAME] = "gHotSpotVMTypeEntryTypeNameOffset",
	[PK_HS_TYPE_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
	[PK_HS_INTS] = "gHotSpotVMIntConstants",
	[PK_HS_INT_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
	[PK_HS_INT_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
	[PK_HS_INT_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
	[PK_HS_LONGS] = "gHotSpotVMLongConstants",
	[PK_HS_LONG_STRIDE] = "gHotSpotVMLongConstantEntryArrayStride",
	[PK_HS_LONG_NAME] = "gHotSpotVMLongConstantEntryNameOffset",
	[PK_HS_LONG_VALUE] = "gHotSpotVMLongConstantEntryValueOffset",
};

#define ALL_SYMS	((1u << PK_HS_NSYMS) - 1)

const char *pk_hotspot_sym_name(enum pk_hotspot_sym sym)
{
	return (unsigned int)sym < PK_HS_NSYMS ? sym_names[sym] : "?";
}

/* Detection: the exported names only (.dynsym: the serviceability agent
 * finds them with dlsym, so a stripped libjvm keeps them). */
int pk_hotspot_elf(Elf *elf, struct pk_hotspot_syms *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memset(out, 0, sizeof(*out));
	if (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64)
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t n;

		if (!gelf_getshdr(scn, &sh))
			return -ENOENT;
		if (sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			/* every one starts so: a cheap filter of ~10^4 names */
			if (!name || strncmp(name, "gHotSpotVM", 10))
				continue;
			for (int s = 0; s < PK_HS_NSYMS; s++)
				if (!strcmp(name, sym_names[s])) {
					out->addr[s] = sym.st_value;
					out->found |= 1u << s;
				}
		}
	}
	if (!(out->found & (1u << PK_HS_STRUCTS)))
		return -ENOENT;
	return out->found == ALL_SYMS ? 0 : -ENOTSUP;
}

int pk_hotspot_file(const char *path, struct pk_hotspot_syms *out)
{
	Elf *elf;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	elf = eh_elf_begin(fd);
	ret = elf ? pk_hotspot_elf(elf, out) : -ENOENT;
	elf_end(elf);
	close(fd);
	return ret;
}

int pk_hotspot_bias(Elf *elf, __u64 map_start, __u64 map_offset, __u64 *bias)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* the kernel maps a segment from its page-aligned offset */
		if (map_offset < (ph.p_offset & ~0xfffull) ||
		    map_offset >= ph.p_offset + ph.p_filesz)
			continue;
		*bias = map_start - map_offset - (ph.p_vaddr - ph.p_offset);
		return 0;
	}
	return -ENOENT;
}

long pk_hotspot_read_pid(void *ctx, __u64 addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(unsigned long)addr, len };
	ssize_t n = process_vm_readv(*(pid_t *)ctx, &local, 1, &remote, 1, 0);

	return n < 0 ? -errno : n;
}

/* The page cache every read goes through: direct-mapped pages. */
#define PAGE		4096ull
#define NPAGES		64

struct mem {
	pk_hotspot_read_fn read;
	void *ctx;
	__u64 page[NPAGES];	/* the page's address + 1; 0: empty */
	__u32 valid[NPAGES];	/* bytes read from its start */
	__u8 data[NPAGES][PAGE];
	unsigned long reads;	/* calls of READ */
};

/* Up to LEN bytes at ADDR, within one page: how many the process has. */
static size_t mem_page(struct mem *m, __u64 addr, __u8 *out, size_t len)
{
	__u64 pg = addr & ~(PAGE - 1), off = addr - pg;
	unsigned int slot = (pg / PAGE) % NPAGES;
	long n;

	if (m->page[slot] != pg + 1) {
		m->reads++;
		n = m->read(m->ctx, pg, m->data[slot], PAGE);
		m->page[slot] = pg + 1;
		m->valid[slot] = n < 0 ? 0 : n > (long)PAGE ? PAGE : (__u32)n;
	}
	if (off >= m->valid[slot])
		return 0;
	if (len > m->valid[slot] - off)
		len = m->valid[slot] - off;
	memcpy(out, m->data[slot] + off, len);
	return len;
}

/* LEN bytes at ADDR: 0 or -EIO. */
static int mem_read(struct mem *m, __u64 addr, void *out, size_t len)
{
	__u8 *p = out;

	while (len) {
		size_t chunk = PAGE - (addr & (PAGE - 1)), got;

		if (chunk > len)
			chunk = len;
		if (addr + chunk < addr)
			return -EIO;
		got = mem_page(m, addr, p, chunk);
		if (got != chunk)
			return -EIO;
		addr += chunk;
		p += chunk;
		len -= chunk;
	}
	return 0;
}

static int mem_u64(struct mem *m, __u64 addr, __u64 *v)
{
	return mem_read(m, addr, v, sizeof(*v));
}

/* The NUL-ended string at ADDR into BUF (PK_HS_MAX_NAME bytes): its length,
 * -EIO, or -EBADMSG when it does not end within the bound. */
static int mem_str(struct mem *m, __u64 addr, char buf[PK_HS_MAX_NAME])
{
	size_t have = 0;

	while (have < PK_HS_MAX_NAME) {
		size_t want = PAGE - (addr & (PAGE - 1)), got;
		char *nul;

		if (want > PK_HS_MAX_NAME - have)
			want = PK_HS_MAX_NAME - have;
		got = mem_page(m, addr, (__u8 *)buf + have, want);
		nul = memchr(buf + have, 0, got);
		if (nul)
			return nul - buf;
		if (got != want)
			return -EIO;
		have += got;
		addr += got;
	}
	return -EBADMSG;
}

/* One table's entries: where its members are (NONE: it has not that
 * member) and how wide the value is. */
#define NONE	(~0ull)

struct layout {
	const char *what;	/* the table's name, for ERR */
	__u64 base, stride;
	__u64 name, field, type_string, is_static, value, address;
	unsigned int value_width;	/* 8, or 4 (a signed int) */
};

struct reader {
	struct mem *mem;
	struct pk_u64map names;		/* string address -> its pooled copy */
	struct pk_strpool *pool;
	char *err;
};

/* The name at ADDR, read once per address. */
static int name_at(struct reader *r, const struct layout *l, __u64 addr, const char **out)
{
	char buf[PK_HS_MAX_NAME];
	const char *s = pk_u64map_get(&r->names, addr);
	int len;

	if (s) {
		*out = s;
		return 0;
	}
	len = mem_str(r->mem, addr, buf);
	if (len < 0)
		return pk_err(r->err, len == -EIO ? -EIO : -EBADMSG,
			      "%s: a name at 0x%llx %s", l->what, (unsigned long long)addr,
			      len == -EIO ? "cannot be read" : "longer than its bound");
	s = pk_strpool_addn(r->pool, buf, len);
	if (!s || pk_u64map_put(&r->names, addr, (void *)s))
		return pk_err(r->err, -ENOMEM, "out of memory");
	*out = s;
	return 0;
}

static bool member_ok(__u64 off, __u64 stride, unsigned int width)
{
	return off == NONE || (off <= stride && stride - off >= width);
}

static __u64 get(const __u8 *e, __u64 off, unsigned int width)
{
	__u64 v = 0;
	__s32 i;

	if (width == 4) {
		memcpy(&i, e + off, 4);
		return (__u64)(__s64)i;
	}
	memcpy(&v, e + off, 8);
	return v;
}

static int read_table(struct reader *r, const struct layout *l, struct pk_hotspot_entry **v,
		      size_t *n)
{
	__u8 e[PK_HS_MAX_STRIDE];
	size_t cap = 0;
	int ret;

	if (!l->base)
		return pk_err(r->err, -EBADMSG, "%s: no table (a null pointer)", l->what);
	if (l->stride < 8 || l->stride > PK_HS_MAX_STRIDE || !member_ok(l->name, l->stride, 8) ||
	    !member_ok(l->field, l->stride, 8) || !member_ok(l->type_string, l->stride, 8) ||
	    !member_ok(l->is_static, l->stride, 4) ||
	    !member_ok(l->value, l->stride, l->value_width) ||
	    !member_ok(l->address, l->stride, 8))
		return pk_err(r->err, -EBADMSG, "%s: an entry layout out of bounds (stride %llu)",
			      l->what, (unsigned long long)l->stride);
	for (size_t i = 0;; i++) {
		struct pk_hotspot_entry *x;
		__u64 name, at = l->base + i * l->stride;

		if (i == PK_HS_MAX_ENTRIES)
			return pk_err(r->err, -EBADMSG, "%s: no end within %d entries", l->what,
				      PK_HS_MAX_ENTRIES);
		if (at < l->base || mem_read(r->mem, at, e, l->stride))
			return pk_err(r->err, -EIO, "%s: entry %zu at 0x%llx cannot be read",
				      l->what, i, (unsigned long long)at);
		name = get(e, l->name, 8);
		if (!name)
			return 0;	/* the end */
		ret = pk_array_reserve((void **)v, &cap, sizeof(**v), *n + 1, 256);
		if (ret)
			return pk_err(r->err, ret, "out of memory");
		x = &(*v)[(*n)++];
		memset(x, 0, sizeof(*x));
		ret = name_at(r, l, name, &x->type);
		if (!ret && l->field != NONE)
			ret = name_at(r, l, get(e, l->field, 8), &x->field);
		/* a member's type string may be NULL (unknown) */
		if (!ret && l->type_string != NONE && get(e, l->type_string, 8))
			ret = name_at(r, l, get(e, l->type_string, 8), &x->type_string);
		if (ret)
			return ret;
		x->is_static = l->is_static != NONE && get(e, l->is_static, 4);
		x->value = x->is_static ? get(e, l->address, 8) : get(e, l->value, l->value_width);
	}
}

/* The uint64_t the symbol S stands for (a stride or a member offset, or
 * a table's address). */
static int sym_u64(struct reader *r, const struct pk_hotspot_syms *syms, __u64 bias,
		   enum pk_hotspot_sym s, __u64 *v)
{
	if (mem_u64(r->mem, syms->addr[s] + bias, v))
		return pk_err(r->err, -EIO, "%s at 0x%llx cannot be read", sym_names[s],
			      (unsigned long long)(syms->addr[s] + bias));
	return 0;
}

/* The layout of a table from its symbols: the table's, then its stride,
 * name, value, field name, type string, is-static, address symbols (-1:
 * the table has no such member). */
static int table_layout(struct reader *r, const struct pk_hotspot_syms *syms, __u64 bias,
			const int s[8], struct layout *l)
{
	__u64 *dst[8] = { &l->base, &l->stride, &l->name, &l->value, &l->field, &l->type_string,
			  &l->is_static, &l->address };
	int ret;

	for (int i = 0; i < 8; i++) {
		*dst[i] = NONE;
		if (s[i] < 0)
			continue;
		if (i == 0) {	/* the table's symbol: its address */
			*dst[i] = syms->addr[s[i]] + bias;
			continue;
		}
		ret = sym_u64(r, syms, bias, (enum pk_hotspot_sym)s[i], dst[i]);
		if (ret)
			return ret;
		/* the process's NONE is not "no such member": out of bounds */
		if (i > 0 && *dst[i] == NONE)
			*dst[i] = NONE - 1;
	}
	return 0;
}

int pk_hotspot_tables_read(const struct pk_hotspot_syms *syms, __u64 bias,
			   pk_hotspot_read_fn read, void *ctx, struct pk_hotspot_tables *out,
			   char err[PK_ERR_LEN])
{
	static const int s[4][8] = {
		{ PK_HS_STRUCTS, PK_HS_STRUCT_STRIDE, PK_HS_STRUCT_TYPE_NAME, PK_HS_STRUCT_OFFSET,
		  PK_HS_STRUCT_FIELD_NAME, PK_HS_STRUCT_TYPE_STRING, PK_HS_STRUCT_IS_STATIC,
		  PK_HS_STRUCT_ADDRESS },
		{ PK_HS_TYPES, PK_HS_TYPE_STRIDE, PK_HS_TYPE_TYPE_NAME, PK_HS_TYPE_SIZE, -1, -1, -1,
		  -1 },
		{ PK_HS_INTS, PK_HS_INT_STRIDE, PK_HS_INT_NAME, PK_HS_INT_VALUE, -1, -1, -1, -1 },
		{ PK_HS_LONGS, PK_HS_LONG_STRIDE, PK_HS_LONG_NAME, PK_HS_LONG_VALUE, -1, -1, -1, -1 },
	};
	static const char *const what[4] = { "gHotSpotVMStructs", "gHotSpotVMTypes",
					     "gHotSpotVMIntConstants", "gHotSpotVMLongConstants" };
	struct pk_hotspot_entry **v[4] = { &out->structs, &out->types, &out->ints, &out->longs };
	size_t *n[4] = { &out->n_structs, &out->n_types, &out->n_ints, &out->n_longs };
	struct reader r = { .pool = &out->names, .err = err };
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if ((syms->found & ALL_SYMS) != ALL_SYMS)
		return pk_err(err, -EINVAL, "not every gHotSpotVM symbol found");
	r.mem = calloc(1, sizeof(*r.mem));
	if (!r.mem)
		return pk_err(err, -ENOMEM, "out of memory");
	r.mem->read = read;
	r.mem->ctx = ctx;
	for (int t = 0; t < 4 && !ret; t++) {
		struct layout l = { .what = what[t], .value_width = t == 2 ? 4 : 8 };

		ret = table_layout(&r, syms, bias, s[t], &l);
		/* the symbol holds the array's address */
		if (!ret && mem_u64(r.mem, l.base, &l.base))
			ret = pk_err(err, -EIO, "%s cannot be read", what[t]);
		if (!ret)
			ret = read_table(&r, &l, v[t], n[t]);
	}
	out->reads = r.mem->reads;
	pk_u64map_free(&r.names);
	free(r.mem);
	if (ret)
		pk_hotspot_tables_free(out);
	return ret;
}

int pk_hotspot_tables_read_settled(const struct pk_hotspot_syms *syms, __u64 bias,
				   pk_hotspot_read_fn read, void *ctx, unsigned int wait_ms,
				   struct pk_hotspot_tables *out, char err[PK_ERR_LEN])
{
	const struct timespec step = { 0, PK_HS_SETTLE_STEP_MS * 1000000L };
	int ret;

	for (unsigned int waited = 0;; waited += PK_HS_SETTLE_STEP_MS) {
		ret = pk_hotspot_tables_read(syms, bias, read, ctx, out, err);
		if (ret != -EBADMSG || waited >= wait_ms)
			return ret;
		nanosleep(&step, NULL);
	}
}

void pk_hotspot_tables_free(struct pk_hotspot_tables *t)
{
	free(t->structs);
	free(t->types);
	free(t->ints);
	free(t->longs);
	pk_strpool_free(&t->names);
	memset(t, 0, sizeof(*t));
}

static int lookup(const struct pk_hotspot_entry *v, size_t n, const char *type,
		  const char *field, __u64 *value)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].type, type) &&
		    (!field || (v[i].field && !strcmp(v[i].field, field)))) {
			*value = v[i].value;
			return 0;
		}
	return -ENOENT;
}

int pk_hotspot_field(const struct pk_hotspot_tables *t, const char *type, const char *field,
		     __u64 *value)
{
	return lookup(t->structs, t->n_structs, type, field, value);
}

int pk_hotspot_type_size(const struct pk_hotspot_tables *t, const char *type, __u64 *value)
{
	return lookup(t->types, t->n_types, type, NULL, value);
}

int pk_hotspot_int(const struct pk_hotspot_tables *t, const char *name, __u64 *value)
{
	return lookup(t->ints, t->n_ints, name, NULL, value);
}

int pk_hotspot_long(const struct pk_hotspot_tables *t, const char *name, __u64 *value)
{
	return lookup(t->longs, t->n_longs, name, NULL, value);
}
