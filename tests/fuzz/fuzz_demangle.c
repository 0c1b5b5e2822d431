// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Symbol names come from the ELF files of whatever runs on the machine:
 * pk_demangle (libiberty and our fix-ups of its output) must take any bytes.
 * The input is one NUL-free name, tried as it is and behind each prefix
 * that picks a grammar, so that the fuzzer need not find them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolization/demangle.h"

static void one(const char *name)
{
	char *out = pk_demangle(name);

	if (out && !*out)
		abort();	/* what the symbolizer gets is never empty */
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefixes[] = { "", "_R", "_ZN" };
	char *name = malloc(size + 4);

	if (!name)
		return 0;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		memcpy(name, prefixes[i], n);
		memcpy(name + n, data, size);
		name[n + size] = '\0';
		one(name);
	}
	free(name);
	return 0;
}
