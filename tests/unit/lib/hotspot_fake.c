// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The fake process of suite hotspot (hotspot_fake.h). */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unit/lib/hotspot_fake.h"

long pk_hf_read(void *ctx, __u64 addr, void *buf, size_t len)
{
	struct pk_hf_fake *f = ctx;

	f->calls++;
	if (addr < HF_BASE || addr - HF_BASE >= f->size)
		return -EFAULT;
	if (len > f->size - (addr - HF_BASE))
		len = f->size - (addr - HF_BASE);
	memcpy(buf, f->mem + (addr - HF_BASE), len);
	return len;
}

__u64 pk_hf_alloc(struct pk_hf_fake *f, size_t len)
{
	__u64 at = HF_BASE + f->top;

	f->top = (f->top + len + 15) & ~15ul;
	ck_assert_uint_le(f->top, f->size);
	return at;
}

__u64 pk_hf_str(struct pk_hf_fake *f, const char *s)
{
	__u64 at;

	for (size_t i = 0; i < f->nstrs; i++)
		if (!strcmp((char *)f->mem + (f->strs[i] - HF_BASE), s))
			return f->strs[i];
	at = pk_hf_alloc(f, strlen(s) + 1);
	memcpy(f->mem + (at - HF_BASE), s, strlen(s) + 1);
	if (f->nstrs < sizeof(f->strs) / sizeof(f->strs[0]))
		f->strs[f->nstrs++] = at;
	return at;
}

void pk_hf_put64(struct pk_hf_fake *f, __u64 at, __u64 v)
{
	memcpy(f->mem + (at - HF_BASE), &v, 8);
}

void pk_hf_put32(struct pk_hf_fake *f, __u64 at, __u32 v)
{
	memcpy(f->mem + (at - HF_BASE), &v, 4);
}

void pk_hf_sym(struct pk_hf_jvm *b, enum pk_hotspot_sym s, __u64 v)
{
	__u64 at = HF_BASE + 8 * s;

	pk_hf_put64(&b->f, at, v);
	b->syms.addr[s] = at - HF_BIAS;
	b->syms.found |= 1u << s;
}

__u64 pk_hf_build_structs(struct pk_hf_fake *f, const struct pk_hf_field *v, size_t n)
{
	__u64 names[n + 1][3], arr;

	for (size_t i = 0; i < n; i++) {
		names[i][0] = pk_hf_str(f, v[i].type);
		names[i][1] = pk_hf_str(f, v[i].field);
		names[i][2] = v[i].ts ? pk_hf_str(f, v[i].ts) : 0;
	}
	arr = pk_hf_alloc(f, (n + 1) * HF_S_STRIDE);
	for (size_t i = 0; i < n; i++) {
		__u64 e = arr + i * HF_S_STRIDE;

		pk_hf_put64(f, e, names[i][0]);
		pk_hf_put64(f, e + 8, names[i][1]);
		pk_hf_put64(f, e + 16, names[i][2]);
		pk_hf_put32(f, e + 24, v[i].is_static);
		pk_hf_put64(f, e + (v[i].is_static ? 40 : 32), v[i].value);
	}
	return arr;
}

__u64 pk_hf_build_named(struct pk_hf_fake *f, const struct pk_hf_named *v, size_t n,
			size_t stride, size_t value_at, bool is_int)
{
	__u64 names[n + 1], arr;

	for (size_t i = 0; i < n; i++)
		names[i] = pk_hf_str(f, v[i].name);
	arr = pk_hf_alloc(f, (n + 1) * stride);
	for (size_t i = 0; i < n; i++) {
		pk_hf_put64(f, arr + i * stride, names[i]);
		if (is_int)
			pk_hf_put32(f, arr + i * stride + value_at, (__u32)v[i].value);
		else
			pk_hf_put64(f, arr + i * stride + value_at, (__u64)v[i].value);
	}
	return arr;
}

void pk_hf_region(struct pk_hf_jvm *b, size_t size)
{
	memset(b, 0, sizeof(*b));
	b->f.mem = calloc(1, size);
	ck_assert_ptr_nonnull(b->f.mem);
	b->f.size = size;
	b->f.top = 8 * PK_HS_NSYMS;	/* the symbols' words */
}

__u64 pk_hf_sym_at(struct pk_hf_jvm *b, enum pk_hotspot_sym s)
{
	return b->syms.addr[s] + HF_BIAS;
}

int pk_hf_read_tables(struct pk_hf_jvm *b, struct pk_hotspot_tables *t, char *err)
{
	err[0] = 0;
	return pk_hotspot_tables_read(&b->syms, HF_BIAS, pk_hf_read, &b->f, t, err);
}

void pk_hf_done(struct pk_hf_jvm *b)
{
	free(b->f.mem);
}
