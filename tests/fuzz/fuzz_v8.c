// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load and probe-read will ask of every file a profiled process
 * maps whether it is a V8 and read its postmortem metadata
 * (tools/lib/v8.c): files anybody could have written. The input is such
 * a file, opened from memory; the answer must be one of the documented
 * ones, and what was read must hold: a found value matched one of its
 * names, a supported V8 has every required value, and the missing list
 * counts what is not found.
 */
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf_input.h"
#include "lib/v8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, err[PK_ERR_LEN], missing[256];
	Elf *elf = fuzz_elf_open(data, size, &copy);
	struct pk_v8 v;

	if (elf) {
		int ret = pk_v8_elf(elf, &v, err);
		size_t n_found = 0;

		if (ret != 0 && ret != -ENOENT && ret != -ENOTSUP && ret != -EBADMSG)
			abort();
		if (ret == -ENOENT && v.n_syms)
			abort();
		for (size_t i = 0; i < pk_v8_n_wants; i++) {
			unsigned int alt = v.found[i];

			if (alt > PK_V8_MAX_ALTS || (alt && !pk_v8_wants[i].names[alt - 1]))
				abort();
			if (ret == 0 && pk_v8_wants[i].required && !alt)
				abort();
			n_found += alt != 0;
		}
		if (n_found > v.n_syms ||
		    pk_v8_missing(&v, missing, sizeof(missing)) != pk_v8_n_wants - n_found)
			abort();
	}
	fuzz_elf_close(elf, copy);
	return 0;
}
