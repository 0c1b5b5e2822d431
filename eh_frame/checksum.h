/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one 64-bit hash of probekit's cache files (checksum.c): the unwind
 * tables' checksums and content keys, and the location cache's
 * (tools/symbolization/loc_cache.h).
 */
#ifndef EH_CHECKSUM_H
#define EH_CHECKSUM_H

#include <stddef.h>
#include <linux/types.h>

#define EH_HASH_INIT	0xcbf29ce484222325ull
/* FNV-1a over little-endian 64-bit words; a trailing partial word is
 * zero-padded, so only the last call of a sequence may pass a length that
 * is not a multiple of 8. */
__u64 eh_hash_update(__u64 h, const void *data, size_t len);
/* Mix in the total length and avalanche (murmur3 fmix64). */
__u64 eh_hash_final(__u64 h, __u64 total_len);

#endif
