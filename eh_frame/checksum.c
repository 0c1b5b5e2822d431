// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one 64-bit hash of the library: cache-file checksums and the content
 * key of ELFs without a build-id. FNV-1a over 64-bit words rather than
 * bytes: a cache hit hashes the whole table, so speed matters, and every
 * step (xor, multiply by an odd prime) is a bijection, so a single changed
 * word always changes the result. The final mix spreads that change over
 * all 64 bits.
 */
#include <string.h>

#include "eh_frame/eh_internal.h"

#define FNV_PRIME 0x100000001b3ull

__u64 eh_hash_update(__u64 h, const void *data, size_t len)
{
	const unsigned char *p = data;
	__u64 w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * FNV_PRIME;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = (h ^ w) * FNV_PRIME;
	}
	return h;
}

__u64 eh_hash_final(__u64 h, __u64 total_len)
{
	h ^= total_len;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* eh_hash_update() zero-pads only a sequence's last call. */
_Static_assert(offsetof(struct pk_unwind_header, checksum) % 8 == 0,
	       "the bytes before the checksum field are whole hash words");

__u64 eh_table_checksum(const void *buf, size_t size)
{
	const size_t at = offsetof(struct pk_unwind_header, checksum);
	const __u64 zero = 0;
	__u64 h = EH_HASH_INIT;

	if (size < at + sizeof(zero))
		return 0;
	h = eh_hash_update(h, buf, at);
	h = eh_hash_update(h, &zero, sizeof(zero));
	h = eh_hash_update(h, (const char *)buf + at + sizeof(zero),
			   size - at - sizeof(zero));
	return eh_hash_final(h, size);
}
