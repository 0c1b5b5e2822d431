// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The vmStructs reader (tools/lib/hotspot.c) reads a JVM's memory, which
 * the process controls. The input is that memory: a region at a fixed
 * address whose first 20 words are the gHotSpotVM* symbols' values (the
 * layout symbols: strides and member offsets, the four table pointers), so
 * that the fuzzer reaches the tables; the rest holds the tables and
 * names. The answer must be 0, -EIO, -EBADMSG or -ENOMEM; a read must
 * stay within its bounds (entries, stride, names), and what is read must
 * hold what the extraction takes for granted.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hotspot.h"

#define BASE	0x10000ull

struct region {
	const uint8_t *data;
	size_t size;
};

static long region_read(void *ctx, __u64 addr, void *buf, size_t len)
{
	const struct region *r = ctx;

	if (addr < BASE || addr - BASE >= r->size)
		return -EFAULT;
	if (len > r->size - (addr - BASE))
		len = r->size - (addr - BASE);
	memcpy(buf, r->data + (addr - BASE), len);
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_hotspot_syms syms = { .found = (1u << PK_HS_NSYMS) - 1 };
	struct pk_hotspot_tables t;
	struct pk_hotspot_vm vm;
	char err[PK_ERR_LEN], missing[512];
	uint8_t *copy = malloc(size ? size : 1);
	struct region r = { copy, size };
	int ret;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	/* symbol I's value is word I of the region (a bias of BASE) */
	for (int i = 0; i < PK_HS_NSYMS; i++)
		syms.addr[i] = 8 * i;
	ret = pk_hotspot_tables_read(&syms, BASE, region_read, &r, &t, err);
	if (ret != 0 && ret != -EIO && ret != -EBADMSG && ret != -ENOMEM)
		abort();
	if (ret == 0) {
		if (t.n_structs >= PK_HS_MAX_ENTRIES || t.n_types >= PK_HS_MAX_ENTRIES ||
		    t.n_ints >= PK_HS_MAX_ENTRIES || t.n_longs >= PK_HS_MAX_ENTRIES)
			abort();
		for (size_t i = 0; i < t.n_structs; i++)
			if (!t.structs[i].type || !t.structs[i].field ||
			    strlen(t.structs[i].field) >= PK_HS_MAX_NAME)
				abort();
		ret = pk_hotspot_vm_extract(&t, &vm, err);
		if (ret != 0 && ret != -ENOTSUP)
			abort();
		if (pk_hotspot_missing(&vm, missing, sizeof(missing)) > pk_hotspot_n_wants)
			abort();
		pk_hotspot_tables_free(&t);
	}
	free(copy);
	return 0;
}
