// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compiled Java methods' scopes (symbolization/hotspot_scopes.h): the
 * bytes an nmethod report copied from a JVM. The input: a byte of flags
 * (its low bit: JDK 21's ints), the PcDesc's size and its two offsets, the
 * lengths of the PcDescs and of the scopes (2 bytes each, little-endian),
 * the PC's offset in the code (2 bytes), then the PcDescs, the scopes and
 * the metadata (the rest), each copied to a buffer of its exact size (ASan
 * sees a read past it). The nmethod's method is the metadata's first
 * entry. Every answer is no chain or a whole one: at most as many scopes
 * as asked, each a method of the table within a Java frame's 47 bits with
 * a bytecode index from -1, the last the nmethod's method.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/probekit.h"
#include "symbolization/hotspot_scopes.h"

static __u8 *copy_of(const uint8_t *p, size_t len)
{
	__u8 *c = malloc(len ? len : 1);

	if (!c)
		abort();
	memcpy(c, p, len);
	return c;
}

static void check(const struct pk_hs_nmethod_desc *d, __u64 pc, size_t max)
{
	struct pk_hs_scope s[PK_HS_MAX_SCOPES];
	size_t n = pk_hs_scopes_at(d, pc, s, max);

	if (n > max || (n && s[n - 1].method != d->method))
		abort();
	for (size_t i = 0; i < n; i++) {
		bool in_table = false;

		for (size_t k = 0; k + 8 <= d->metadata_len; k += 8)
			in_table |= !memcmp(d->metadata + k, &s[i].method, 8);
		if (!in_table || !s[i].method || (s[i].method & ~PK_HS_METHOD_MASK) ||
		    s[i].bci < -1)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_hs_nmethod_desc d = { 0 };
	size_t pcs_len, scopes_len, rest;
	__u8 *pcs, *scopes, *meta;
	__u32 off;

	if (size < 10)
		return 0;
	pcs_len = data[4] | (size_t)data[5] << 8;
	scopes_len = data[6] | (size_t)data[7] << 8;
	off = data[8] | (__u32)data[9] << 8;
	rest = size - 10;
	if (pcs_len > rest)
		pcs_len = rest;
	if (scopes_len > rest - pcs_len)
		scopes_len = rest - pcs_len;
	pcs = copy_of(data + 10, pcs_len);
	scopes = copy_of(data + 10 + pcs_len, scopes_len);
	meta = copy_of(data + 10 + pcs_len + scopes_len, rest - pcs_len - scopes_len);
	d = (struct pk_hs_nmethod_desc){
		.flags = data[0] & 1 ? PK_HS_NM_NO_ZERO : 0, .code_size = 0x10000,
		.code_begin = 0x1000, .pcs = pcs, .pcs_len = pcs_len,
		.scopes = scopes, .scopes_len = scopes_len,
		.metadata = meta, .metadata_len = rest - pcs_len - scopes_len,
		.pcdesc_size = data[1], .pcdesc_pc_offset = data[2],
		.pcdesc_scope_decode_offset = data[3],
	};
	if (d.metadata_len >= 8)
		memcpy(&d.method, meta, 8);
	check(&d, 0x1000 + off, PK_HS_MAX_SCOPES);
	check(&d, 0x1000 + off, 2);
	free(pcs);
	free(scopes);
	free(meta);
	return 0;
}
