// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Symbol names come from the ELF files of whatever runs on the machine: the
 * Rust decoders (ours) and the dispatch in front of __cxa_demangle must take
 * any bytes. The input is one NUL-free name; the decoders are also called
 * directly so the dispatcher's prefix checks do not hide them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 3), *out;

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	free(pk_demangle_rust_legacy(name));
	/* v0 names start with _R: give the decoder its own grammar's input */
	memmove(name + 2, name, size + 1);
	name[0] = '_';
	name[1] = 'R';
	free(pk_demangle_rust_v0(name));
	out = pk_demangle(name);
	if (out && !*out)
		abort();	/* what the symbolizer gets is never empty */
	free(out);
	free(name);
	return 0;
}
