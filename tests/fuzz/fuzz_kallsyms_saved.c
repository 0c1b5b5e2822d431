// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target over the saved kernel symbol table's reader
 * (lib/kallsyms.h, pk_kallsyms_parse_saved): the input is the records and
 * strings, given a header of its own (the count from the first input byte,
 * the string bytes what is left, the right checksum) so that the fuzzer
 * gets past the checksum; then the input as a whole file. A table taken
 * must answer lookups (each record's address and the byte before) with
 * names it holds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/checksum.h"
#include "lib/kallsyms.h"

#define SIG 0x5eed
#define REC 24

static void parse(const __u8 *buf, size_t len, const __u8 *recs, size_t nrecs)
{
	struct pk_symtab *tab = pk_kallsyms_parse_saved(buf, len, SIG);

	if (!tab)
		return;
	for (size_t i = 0; i < nrecs; i++) {
		__u64 addr;
		const char *mod, *name;

		memcpy(&addr, recs + i * REC, 8);
		for (int k = 0; k < 2; k++) {
			name = pk_kallsyms_lookup(tab, addr - k, &mod);
			if (name && strlen(name) > len)
				abort();
		}
	}
	pk_symtab_free(tab);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct {
		char magic[8];
		__u64 sig;
		__u32 count, strbytes;
		__u64 checksum;
	} h = { "PKKSYMS\1", SIG, 0, 0, 0 };
	__u8 *buf;

	if (size < 1)
		return 0;
	h.count = data[0] % 32;
	data++, size--;
	if (size < (size_t)h.count * REC)
		h.count = size / REC;
	h.strbytes = size - h.count * REC;
	h.checksum = eh_hash_final(eh_hash_update(EH_HASH_INIT, data, size), size);
	buf = malloc(sizeof(h) + size);
	if (!buf)
		abort();
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), data, size);
	parse(buf, sizeof(h) + size, data, h.count);
	parse(data, size, data, 0);
	free(buf);
	return 0;
}
