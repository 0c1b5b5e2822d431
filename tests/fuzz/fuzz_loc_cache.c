// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target over the location cache's reader (loc_cache.h): the
 * input is a file's records, given a header of its own (the count from
 * the first input bytes, the right signature and checksum) so that the
 * fuzzer reaches the parser behind the checksum; a second pass parses
 * the input as a whole file, header included. A file taken must hold at
 * most the entries its header counts; one refused must leave none.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/checksum.h"
#include "symbolization/loc_cache.h"

#define SIG 0x5eed

static void parse(const void *buf, size_t len, __u32 count)
{
	struct pk_loc_cache *c = pk_loc_cache_open(NULL, 0);
	int ret;

	if (!c)
		abort();
	ret = pk_loc_cache_parse(c, buf, len, SIG);
	if (ret && ret != -EINVAL)
		abort();
	if (ret ? pk_loc_cache_count(c) != 0 : pk_loc_cache_count(c) > count)
		abort();
	pk_loc_cache_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct {
		char magic[8];
		__u64 sig;
		__u32 count, zero;
		__u64 checksum;
	} h = { "PKLOCS\0\1", SIG, 0, 0, 0 };
	__u8 *buf;

	if (size < 1)
		return 0;
	h.count = data[0];	/* up to 255 records */
	data++, size--;
	h.checksum = eh_hash_final(eh_hash_update(EH_HASH_INIT, data, size), size);
	buf = malloc(sizeof(h) + size);
	if (!buf)
		abort();
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), data, size);
	parse(buf, sizeof(h) + size, h.count);
	parse(data, size, PK_LOC_CACHE_MAX);
	free(buf);
	return 0;
}
