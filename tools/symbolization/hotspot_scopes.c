// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The scopes of a compiled Java method's PC (hotspot_scopes.h). */
#include <string.h>

#include "bpf/probekit.h"
#include "symbolization/hotspot_lines.h"
#include "symbolization/hotspot_scopes.h"

/* The int of 4 bytes at P (unaligned). */
static __s32 get_int(const __u8 *p)
{
	__s32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The scope offset of the first PcDesc of D at or past pc offset OFF:
 * > 0, or 0 when there is none (or the PcDescs are out of order). */
static __u32 scope_of(const struct pk_hs_nmethod_desc *d, __s64 off)
{
	size_t size = d->pcdesc_size;
	__s64 last = -2;	/* HotSpot's first PcDesc is at -1 */

	if (!size || d->pcdesc_pc_offset + 4u > size || d->pcdesc_scope_decode_offset + 4u > size)
		return 0;
	for (size_t at = 0; at + size <= d->pcs_len; at += size) {
		__s32 pc = get_int(d->pcs + at + d->pcdesc_pc_offset);
		__s32 scope = get_int(d->pcs + at + d->pcdesc_scope_decode_offset);

		if (pc < last)
			return 0;
		last = pc;
		if (pc >= off)
			return scope > 0 ? (__u32)scope : 0;
	}
	return 0;
}

size_t pk_hs_scopes_at(const struct pk_hs_nmethod_desc *d, __u64 pc, struct pk_hs_scope *out,
		       size_t max)
{
	unsigned int x = d->flags & PK_HS_NM_NO_ZERO ? 1 : 0;
	size_t n = 0, entries = d->metadata_len / 8;
	__u32 at;

	if (pc < d->code_begin || pc - d->code_begin >= d->code_size)
		return 0;
	at = scope_of(d, (__s64)(pc - d->code_begin));
	while (at) {
		__u32 sender, index, bci1;
		size_t pos = at;
		__u64 method;

		if (at >= d->scopes_len || n >= max ||
		    pk_hs_read_u5(d->scopes, d->scopes_len, &pos, x, &sender) <= 0 ||
		    pk_hs_read_u5(d->scopes, d->scopes_len, &pos, x, &index) <= 0 ||
		    pk_hs_read_u5(d->scopes, d->scopes_len, &pos, x, &bci1) <= 0)
			return 0;
		/* a sender is serialized before its callee: offsets go down */
		if (sender >= at || !index || index > entries)
			return 0;
		memcpy(&method, d->metadata + 8 * (index - 1), sizeof(method));
		if (!method || (method & ~PK_HS_METHOD_MASK) || bci1 > 0xffff)
			return 0;
		out[n++] = (struct pk_hs_scope){ .method = method, .bci = (__s32)bci1 - 1 };
		at = sender;
	}
	/* the chain ends in the method compiled */
	return n && out[n - 1].method == d->method ? n : 0;
}
