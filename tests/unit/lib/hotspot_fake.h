/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fake process of suite hotspot (test_hotspot.c): one region of bytes
 * read through the memory callback, and HotSpot's vmStructs tables laid
 * out in it as Debian's OpenJDK 17 lays them out (a struct entry of 48
 * bytes, a type's of 40, a constant's of 16), with the symbols that say
 * where they are.
 */
#ifndef PK_HOTSPOT_FAKE_H
#define PK_HOTSPOT_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "lib/hotspot.h"

/* The fake process: one region of bytes at HF_BASE. */
#define HF_BASE	0x7f0000000000ull
#define HF_SIZE	(256 * 1024)
#define HF_BIAS	0x7e0000000000ull	/* the file's vaddrs + HF_BIAS */

struct pk_hf_fake {
	__u8 *mem;
	size_t size;		/* readable bytes from HF_BASE */
	size_t top;		/* where the next allocation goes */
	unsigned long calls;
	__u64 strs[256];	/* the strings laid out (pk_hf_str()) */
	size_t nstrs;
};

/* A struct entry: type, field, type string, static, offset, address. */
struct pk_hf_field {
	const char *type, *field, *ts;
	bool is_static;
	__u64 value;
};

/* A type and its size, or a constant and its value. */
struct pk_hf_named {
	const char *name;
	__s64 value;
};

/* Where the layout symbols say the members are. */
enum { HF_S_STRIDE = 48, HF_T_STRIDE = 40, HF_C_STRIDE = 16 };

struct pk_hf_jvm {
	struct pk_hf_fake f;
	struct pk_hotspot_syms syms;
	__u64 structs, types, ints, longs;	/* the arrays */
};

/* The memory callback over CTX, a struct pk_hf_fake. */
long pk_hf_read(void *ctx, __u64 addr, void *buf, size_t len);
/* LEN bytes of F's region, 16-aligned: their address. */
__u64 pk_hf_alloc(struct pk_hf_fake *f, size_t len);
/* S in the region, once per string: as a compiler merges equal string
 * literals, and HotSpot's names are literals. */
__u64 pk_hf_str(struct pk_hf_fake *f, const char *s);
void pk_hf_put64(struct pk_hf_fake *f, __u64 at, __u64 v);
void pk_hf_put32(struct pk_hf_fake *f, __u64 at, __u32 v);

/* A uint64 "symbol" of the file at a vaddr (its value at vaddr + HF_BIAS):
 * the region's first words, before the tables, as libjvm's .bss is. */
void pk_hf_sym(struct pk_hf_jvm *b, enum pk_hotspot_sym s, __u64 v);
/* Each builder lays out its names, then its array (so that a region cut
 * inside an array has every name before it): the N struct entries V. */
__u64 pk_hf_build_structs(struct pk_hf_fake *f, const struct pk_hf_field *v, size_t n);
/* A table of names and values: types (a size at 32 of 40 bytes) and
 * constants (a value at 8 of 16: an int's 4 bytes, a long's 8). */
__u64 pk_hf_build_named(struct pk_hf_fake *f, const struct pk_hf_named *v, size_t n,
			size_t stride, size_t value_at, bool is_int);
/* B's region of SIZE bytes, empty. */
void pk_hf_region(struct pk_hf_jvm *b, size_t size);
/* The value at a symbol, for a test to break. */
__u64 pk_hf_sym_at(struct pk_hf_jvm *b, enum pk_hotspot_sym s);
/* B's tables read through pk_hf_read. */
int pk_hf_read_tables(struct pk_hf_jvm *b, struct pk_hotspot_tables *t, char *err);
void pk_hf_done(struct pk_hf_jvm *b);

#endif
